//! Hooks: a book's own programs in `hooks/`, run at fixed stages of its build.
//!
//! `pre-build` (before reading; the staged tree is the previous build's, or none), `post-convert`
//! (the converted book has just been staged: the first look at the new tree), `pre-pack` (the
//! final adjustment, after every other hook: what it leaves in the staged tree is what the check
//! programs read and what is packed) and
//! `post-pack` (the new EPUB exists at a temporary path, and replaces the last one only when
//! the hook succeeds). Each runs with the staged tree as working directory and the
//! book in the environment; a non-zero exit fails the book with the hook's output in the log.
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::book::Book;
use crate::codes;
use crate::error::{Error, Finding, Location, Result};
use crate::runner::{self, RunSpec};

/// The stages a hook can run at, in build order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    PreBuild,
    PostConvert,
    PrePack,
    PostPack,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::PreBuild => "pre-build",
            Stage::PostConvert => "post-convert",
            Stage::PrePack => "pre-pack",
            Stage::PostPack => "post-pack",
        }
    }
}

/// How much a hook may print (each of stdout and stderr) before it is stopped.
pub const OUTPUT_LIMIT: usize = 4 * 1024 * 1024;

/// Where a build's hooks run and what they are told.
pub struct HookRun<'a> {
    pub book: &'a Book,
    pub stage_dir: &'a Path,
    pub output: &'a Path,
    pub enabled: bool,
    pub time_limit: Duration,
}

/// The hook program for `stage`, if the book has one: `hooks/<stage>` or `hooks/<stage>.<ext>`.
pub fn find(book_root: &Path, stage: Stage) -> Option<PathBuf> {
    let dir = book_root.join("hooks");
    let exact = dir.join(stage.name());
    if exact.is_file() {
        return Some(exact);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_stem().is_some_and(|s| s == stage.name()))
        .collect();
    found.sort();
    found.into_iter().next()
}

/// Whether the book has any hook program at all.
pub fn has_any(book_root: &Path) -> bool {
    std::fs::read_dir(book_root.join("hooks"))
        .is_ok_and(|mut entries| entries.any(|e| e.is_ok_and(|e| e.path().is_file())))
}

impl HookRun<'_> {
    /// Runs the book's hook for `stage`, if any; returns its output for the build log.
    pub fn run(&self, stage: Stage) -> Result<Option<String>> {
        if !self.enabled {
            return Ok(None);
        }
        let Some(program) = find(&self.book.root, stage) else {
            return Ok(None);
        };
        let shown = crate::book::display_path(Path::new("."), &program);
        // A hook is the book's own program: a link to one elsewhere is refused, except into
        // the project's shared folders.
        let real = program.canonicalize().unwrap_or_else(|_| program.clone());
        let inside = self
            .book
            .root
            .canonicalize()
            .is_ok_and(|root| real.starts_with(root))
            || self.book.shared_dirs.iter().any(|d| real.starts_with(d));
        if !inside {
            return Err(Error::Book(vec![
                Finding::error(
                    codes::HOOK,
                    Location::file(&shown),
                    format!(
                        "the {} hook is a link to `{}`, outside the book folder",
                        stage.name(),
                        real.display()
                    ),
                )
                .with_hint("copy the program into the book's hooks/ folder, or list its folder in `shared_dirs` in seihon.yml"),
            ]));
        }
        let cwd = if self.stage_dir.is_dir() {
            self.stage_dir.to_path_buf()
        } else {
            self.book.root.clone()
        };
        let mut env = environment(self.book, self.stage_dir, self.output);
        env.push(("SEIHON_STAGE".into(), stage.name().into()));
        let spec = RunSpec {
            program: absolute(&program),
            args: Vec::new(),
            env,
            cwd: Some(cwd),
            stdin: None,
            timeout: self.time_limit,
            max_output: OUTPUT_LIMIT,
        };
        match runner::run(&spec) {
            Ok(out) => {
                let mut log = String::from_utf8_lossy(&out.stdout).into_owned();
                log.push_str(&String::from_utf8_lossy(&out.stderr));
                Ok(Some(log))
            }
            Err(e) => Err(Error::Book(vec![
                Finding::error(
                    codes::HOOK,
                    Location::file(&shown),
                    format!("the {} hook failed: {e}", stage.name()),
                )
                .with_hint("fix the hook, or build with --no-hooks to skip the book's hooks"),
            ])),
        }
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What every program run on a book's staged tree (hooks, check programs) is told about it.
pub fn environment(book: &Book, stage_dir: &Path, output: &Path) -> Vec<(String, String)> {
    let meta = &book.meta;
    vec![
        ("SEIHON_BOOK".to_string(), book.id.clone()),
        (
            "SEIHON_STAGE_DIR".into(),
            absolute(stage_dir).display().to_string(),
        ),
        (
            "SEIHON_OUTPUT".into(),
            absolute(output).display().to_string(),
        ),
        (
            "SEIHON_BOOK_ROOT".into(),
            absolute(&book.root).display().to_string(),
        ),
        ("SEIHON_TITLE".into(), meta.title.clone()),
        ("SEIHON_LANGUAGE".into(), meta.language.clone()),
        ("SEIHON_IDENTIFIER".into(), meta.identifier.clone()),
        (
            "SEIHON_AUTHORS".into(),
            meta.creators
                .iter()
                .filter(|c| c.role == "aut")
                .map(|c| c.name.clone())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        (
            "SEIHON_PUBLISHER".into(),
            meta.publisher.clone().unwrap_or_default(),
        ),
        ("SEIHON_DATE".into(), meta.date.clone().unwrap_or_default()),
    ]
}
