//! The project: its root, its settings (`seihon.yml`) and the folders a build reads and writes.
use std::path::{Path, PathBuf};

use crate::book::{Book, ProjectConfig};
use crate::error::Result;

/// Where a build runs and writes.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    pub config: ProjectConfig,
}

impl Project {
    pub fn load(root: &Path) -> Result<Project> {
        Ok(Project {
            root: root.to_path_buf(),
            config: ProjectConfig::load(root)?,
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
            Kept::Images => "images",
            Kept::Crcs => "crcs",
            Kept::Spare => "spare",
            Kept::SparePreview => "spare-preview",
        }
    }
}
