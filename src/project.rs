//! The project: its root, its settings (`seihon.yml`) and the folders a build reads and writes.
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::book::id::{self, WantedId};
use crate::book::{Book, ProjectConfig};
use crate::error::{Finding, Result};

/// Where a build runs and writes.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    pub config: ProjectConfig,
    /// What each book under the books folder asks to be called, read once (see
    /// [`Project::book_id`]).
    wanted: Arc<OnceLock<Vec<(PathBuf, WantedId)>>>,
}

impl Project {
    pub fn load(root: &Path) -> Result<Project> {
        Ok(Project {
            root: root.to_path_buf(),
            config: ProjectConfig::load(root)?,
            wanted: Arc::default(),
        })
    }

    /// Opens the book at `path` (a folder or a file, as [`Book::open`] takes it) with its id
    /// settled among the project's books ([`Project::book_id`]); the warning about a
    /// `bookname:` set aside comes with the others.
    pub fn open_book(&self, path: &Path) -> Result<(Book, Vec<Finding>)> {
        let (mut book, mut warnings) = Book::open(path, &self.config)?;
        let (id, warning) = self.book_id(path);
        book.id = id;
        warnings.extend(warning);
        Ok((book, warnings))
    }

    /// The id of the book at `path`, read from its settings only: a Re:VIEW book's `bookname:`
    /// unless it cannot name a file or another book of the project (those under the books
    /// folder, and this one) would have the same id or has it as its folder's name, else its
    /// folder's name; with the warning when its `bookname:` is set aside. The same book gets
    /// the same id whether it is built alone or with the others.
    pub fn book_id(&self, path: &Path) -> (String, Option<Finding>) {
        let me = canonical(path);
        // Its own settings are read afresh (`watch` asks again after each save).
        let own = id::wanted(path);
        let mut books = vec![&own];
        books.extend(
            self.wanted_ids()
                .iter()
                .filter(|(p, _)| *p != me)
                .map(|(_, w)| w),
        );
        id::settle(&books, 0)
    }

    /// What the books under the books folder ask to be called.
    fn wanted_ids(&self) -> &[(PathBuf, WantedId)] {
        self.wanted.get_or_init(|| {
            self.book_dirs()
                .iter()
                .map(|d| (canonical(d), id::wanted(d)))
                .collect()
        })
    }

    pub fn books_dir(&self) -> PathBuf {
        self.path(&self.config.books_dir)
    }

    /// A path under the project root, without a leading `./` in messages.
    pub fn path(&self, rel: &Path) -> PathBuf {
        if self.root == Path::new(".") {
            rel.to_path_buf()
        } else {
            self.root.join(rel)
        }
    }

    pub fn epub_path(&self, id: &str) -> PathBuf {
        self.path(&self.config.dist_dir).join(format!("{id}.epub"))
    }

    /// Where a book keeps `what` between builds: `build/.cache/<what>/<id>/`.
    pub fn kept_dir(&self, what: Kept, id: &str) -> PathBuf {
        self.path(&self.config.build_dir)
            .join(".cache")
            .join(what.folder())
            .join(id)
    }

    /// The preview area (`public/`).
    pub fn preview_dir(&self) -> PathBuf {
        self.path(&self.config.preview_dir)
    }

    /// `dist/release/<id>-<version>.epub`.
    pub fn release_path(&self, id: &str, version: &str) -> PathBuf {
        self.path(&self.config.dist_dir)
            .join("release")
            .join(format!("{id}-{version}.epub"))
    }

    /// A file kept between builds for every book, `build/.cache/<name>`.
    pub fn cache_file(&self, name: &str) -> PathBuf {
        self.path(&self.config.build_dir).join(".cache").join(name)
    }

    pub fn stage_dir(&self, id: &str) -> PathBuf {
        self.path(&self.config.build_dir).join(id)
    }

    /// Every folder under the books folder that is or looks like a book, sorted by name: one
    /// that cannot be loaded is listed too, so that `list`, `build` and `ci` report it rather
    /// than leave it out.
    pub fn book_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.books_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| p.is_dir() && (Book::is_book(p) || Book::looks_like_book(p)))
            .collect();
        dirs.sort();
        dirs
    }
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// What a book keeps between builds under `build/.cache/` (see [`Project::kept_dir`]). All of
/// it is safe to delete: it only saves work.
#[derive(Debug, Clone, Copy)]
pub enum Kept {
    /// What reading each chapter gave ([`crate::cache::ChapterCache`]).
    Chapters,
    /// Finished chapter pages.
    Pages,
    /// What the checks gathered from each page.
    Checks,
    /// Highlighted listings ([`crate::highlight::Highlights`]).
    Highlights,
    /// Image checks ([`crate::xref::ImageChecks`]).
    Images,
    /// The CRC-32s of the last staged tree packed ([`crate::epub::Crcs`]).
    Crcs,
    /// The staged tree before last, to be made the next one.
    Spare,
    /// The preview before last, to be made the next one.
    SparePreview,
}

impl Kept {
    fn folder(self) -> &'static str {
        match self {
            Kept::Chapters => "chapters",
            Kept::Pages => "pages",
            Kept::Checks => "checks",
            Kept::Highlights => "highlights",
            Kept::Images => "images",
            Kept::Crcs => "crcs",
            Kept::Spare => "spare",
            Kept::SparePreview => "spare-preview",
        }
    }
}
