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

    /// The project's output folders as they are on disk, which are never a build's inputs,
    /// even when a book lives at the project root.
    pub fn outputs(&self) -> Vec<PathBuf> {
        [
            &self.config.build_dir,
            &self.config.dist_dir,
            &self.config.preview_dir,
        ]
        .iter()
        .filter_map(|d| self.root.join(d).canonicalize().ok())
        .collect()
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

/// Where a command run in `cwd` finds its project, as cargo finds its workspace:
/// - the nearest folder, `cwd` or above, with a `seihon.yml` (the project's own mark, as
///   `Cargo.toml` is cargo's);
/// - else the nearest folder whose books folder `cwd` is in (a book's folder, a folder inside
///   one, or `books/` itself) — a bare `books/` above does not claim every folder under its
///   parent, or a scratch folder beside it would build, and write, another project's books;
/// - else the nearest folder that is a book by its own settings file (a Re:VIEW repository's
///   `config.yml` and `catalog.yml`, or a `book.yml`). Not a folder that is a book only by a
///   DocBook file in it: a stray `.xml` in a home folder must not make it everyone's project.
///
/// `None` when there is none of these: the command runs in `cwd` as it is, its own project.
pub fn discover(cwd: &Path) -> Option<PathBuf> {
    let cwd = canonical(cwd);
    let here = |d: &Path| d.join("seihon.yml").is_file() || holds_a_book(&d.join("books"));
    if here(&cwd) {
        return Some(cwd);
    }
    let marked = cwd.ancestors().find(|d| d.join("seihon.yml").is_file());
    let holding = cwd
        .ancestors()
        .skip(1)
        .find(|d| cwd.starts_with(d.join("books")) && holds_a_book(&d.join("books")));
    // The nearer of the two, as cargo takes the nearest workspace.
    match (marked, holding) {
        (Some(m), Some(h)) => Some(if h.starts_with(m) { h } else { m }),
        (m, h) => m.or(h),
    }
    .or_else(|| {
        cwd.ancestors()
            .find(|d| d.join("book.yml").is_file() || crate::book::review::is_review_project(d))
    })
    .map(Path::to_path_buf)
}

/// Whether `dir` holds a book (a `books/` of photographs, say, does not make a project).
fn holds_a_book(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let p = e.path();
            p.is_dir() && (Book::is_book(&p) || Book::looks_like_book(&p))
        })
}

impl Project {
    /// The book of this project that `dir` is in (its folder, or one inside it), as the
    /// project names its folder; the project root when the project is that book itself.
    pub fn book_holding(&self, dir: &Path) -> Option<PathBuf> {
        let dir = canonical(dir);
        if let Some(book) = self
            .book_dirs()
            .into_iter()
            .find(|b| dir.starts_with(canonical(b)))
        {
            return Some(book);
        }
        (dir == canonical(&self.root) && Book::is_book(&self.root)).then(|| PathBuf::from("."))
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
    /// What the package takes of each finished chapter page but its text (see
    /// [`crate::pipeline`]'s page cache): read without the pages' megabytes.
    PageHeads,
    /// Generated pages and files (title page, nav, colophon, NCX, package document).
    Generated,
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
    /// The identities of the pages in the last two staged trees (see
    /// [`crate::stage::stage_keeping`]).
    Staged,
    /// The preview before last, to be made the next one.
    SparePreview,
    /// What resolving each chapter gave and found ([`crate::xref::memo`]).
    Resolve,
    /// Each DocBook chapter as converted ([`crate::reader::docbook::ConvertedCache`]).
    DocBook,
}

impl Kept {
    fn folder(self) -> &'static str {
        match self {
            Kept::Chapters => "chapters",
            Kept::Pages => "pages",
            Kept::PageHeads => "page-heads",
            Kept::Generated => "generated",
            Kept::Checks => "checks",
            Kept::Highlights => "highlights",
            Kept::Images => "images",
            Kept::Crcs => "crcs",
            Kept::Spare => "spare",
            Kept::Staged => "staged",
            Kept::SparePreview => "spare-preview",
            Kept::Resolve => "resolve",
            Kept::DocBook => "docbook",
        }
    }
}
