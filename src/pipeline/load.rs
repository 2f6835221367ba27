//! Load: a book folder → the book (book.yml, config.yml or the DocBook main file) with the
//! project's settings applied, where its outputs go, its hooks, and its filter chain.
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::book::Book;
use crate::error::{Error, Finding, Result};
use crate::filter::Chain;
use crate::hooks::{self, HookRun};
use crate::project::Project;

use super::BuildOptions;

/// A loaded book and what its build takes from the project.
pub(super) struct Loaded {
    pub book: Book,
    /// What loading found that does not stop the build (unknown keys, a missing style sheet).
    pub warnings: Vec<Finding>,
    /// The EPUB's tree, `build/<id>/`.
    pub stage_dir: PathBuf,
    /// Where the EPUB goes: `dist/<id>.epub`, or the release's path.
    pub output: PathBuf,
    hooks: bool,
    /// How long a hook or check program may run.
    pub program_limit: Duration,
}

/// Opens the book in `book_dir`, refusing one whose outputs would overlap its sources.
pub(super) fn load(project: &Project, book_dir: &Path, opts: &BuildOptions) -> Result<Loaded> {
    crate::book::outputs::check_book(&project.root, &project.config, book_dir)
        .map_err(Error::Config)?;
    let (mut book, warnings) = project.open_book(book_dir)?;
    book.shared_dirs = project
        .config
        .shared_dirs
        .iter()
        .filter_map(|d| d.canonicalize().ok())
        .collect();
    let output = match &opts.release {
        Some(version) => project.release_path(&book.id, version),
        None => project.epub_path(&book.id),
    };
    Ok(Loaded {
        stage_dir: project.stage_dir(&book.id),
        output,
        warnings,
        hooks: opts.hooks,
        program_limit: Duration::from_secs(project.config.hook_timeout.max(1)),
        book,
    })
}

impl Loaded {
    /// Runs the book's hook for `stage`, if it has one, in `tree` (the staged tree, or the
    /// scratch tree of `seihon check`), telling it the EPUB is at `output`. Gives what the hook
    /// printed, for the build log.
    pub fn hook_at(&self, stage: hooks::Stage, tree: &Path, output: &Path) -> Result<Vec<String>> {
        let ran = HookRun {
            book: &self.book,
            stage_dir: tree,
            output,
            enabled: self.hooks,
            time_limit: self.program_limit,
        }
        .run(stage)?;
        Ok(ran.into_iter().collect())
    }

    /// [`Loaded::hook_at`] with the EPUB at its final path.
    pub fn hook(&self, stage: hooks::Stage, tree: &Path) -> Result<Vec<String>> {
        self.hook_at(stage, tree, &self.output)
    }

    /// Whether a hook of the book's may run (and so touch the staged tree).
    pub fn has_hooks(&self) -> bool {
        self.hooks && hooks::has_any(&self.book.root)
    }
}

/// The book's filter chain: its own `filters:`, where `default` stands for the project's, or
/// the project's.
pub(super) fn filter_chain(project: &Project, book: &Book) -> Result<Chain> {
    let names: Vec<String> = match &book.filters {
        Some(own) => own
            .iter()
            .flat_map(|n| {
                if n == "default" {
                    project.config.filters.clone()
                } else {
                    vec![n.clone()]
                }
            })
            .collect(),
        None => project.config.filters.clone(),
    };
    Ok(Chain::resolve(&names, &project.root, &book.root)
        .map_err(Error::Book)?
        .with_timeout(Duration::from_secs(project.config.filter_timeout.max(1))))
}
