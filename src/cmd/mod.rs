//! The commands: each takes the project and its arguments, runs its books through [`BookRun`]
//! (one per-book runner for all of them) and ends with an
//! [`crate::error::Exit`], the one place the process's exit status is decided.
pub mod build;
pub mod ci;
pub mod list;
pub mod new;
pub mod release;
pub mod watch;

use std::path::Path;

use crate::batch::{self, Outcome};
use crate::pipeline::BuildOptions;
use crate::project::Project;

/// The commit the books are built from (`git rev-parse`, see [`crate::mail::commit_id`]):
/// asked on a thread of its own, which answers while the first book's files are looked at,
/// and known from then on.
pub struct Commit {
    asking: std::sync::Mutex<Option<std::thread::JoinHandle<Option<String>>>>,
    id: std::sync::OnceLock<Option<String>>,
}

impl Commit {
    /// The commit of the project at `root`, asked now.
    pub fn ask(root: &Path) -> Commit {
        let owned = root.to_path_buf();
        let asked = std::thread::Builder::new()
            .name("git rev-parse".into())
            .spawn(move || crate::mail::commit_id(&owned));
        match asked {
            Ok(asking) => Commit {
                asking: std::sync::Mutex::new(Some(asking)),
                id: std::sync::OnceLock::new(),
            },
            Err(_) => Commit::known(crate::mail::commit_id(root)),
        }
    }

    /// A commit known already (or none).
    pub fn known(id: Option<String>) -> Commit {
        Commit {
            asking: std::sync::Mutex::new(None),
            id: std::sync::OnceLock::from(id),
        }
    }

    /// The commit, waiting for git's answer the first time.
    pub fn get(&self) -> Option<&str> {
        self.id
            .get_or_init(|| {
                let asking = self.asking.lock().ok().and_then(|mut a| a.take());
                asking.and_then(|a| a.join().ok()).flatten()
            })
            .as_deref()
    }
}

/// How every command runs one book: skipped when it is up to date (unless forced, or when the
/// build does more than build), built otherwise, its preview published and its up-to-date stamp
/// kept. `build`, `check` and `ci` share it.
pub struct BookRun<'a> {
    pub project: &'a Project,
    pub opts: &'a BuildOptions,
    /// The commit being built, for the preview and the up-to-date stamp.
    pub commit: &'a Commit,
    /// Build even when nothing changed (`--force`; `ci` always builds).
    pub force: bool,
    /// Publish the preview here (`ci` publishes after the books are built in parallel).
    pub publish: bool,
}

impl BookRun<'_> {
    /// Runs the book; `announce` is called first when it is built (an up-to-date book is not
    /// announced as being built: its outcome says it is up to date, and nothing else).
    pub fn run(&self, dir: &Path, announce: impl FnOnce()) -> Outcome {
        let (project, opts) = (self.project, self.opts);
        let probe = (!self.force)
            .then(|| {
                let commit = || self.commit.get().map(str::to_string);
                crate::fresh::probe_with(project, dir, opts, commit)
            })
            .flatten();
        if let Some(outcome) = probe.as_ref().and_then(|p| p.up_to_date()) {
            crate::term::progress::skipped();
            return outcome;
        }
        announce();
        let building = crate::term::progress::begin(dir);
        // What the up-to-date check looked at is not looked at again.
        let with_inputs = probe.as_ref().map(|p| BuildOptions {
            inputs: Some(p.inputs.clone()),
            ..opts.clone()
        });
        let outcome = batch::run_book(project, dir, with_inputs.as_ref().unwrap_or(opts));
        if self.publish && opts.pack {
            crate::term::progress::step("preview");
            let preview = batch::publish_preview(project, dir, &outcome, self.commit.get());
            if let (Some(probe), Some(preview)) = (&probe, preview) {
                probe.record(&outcome, &preview);
            }
        }
        drop(building);
        outcome
    }
}

/// Prints a message that ends a command before it ran (its arguments or settings are wrong).
fn refuse(why: &str) -> crate::error::Exit {
    crate::term::err_line(crate::term::Kind::Error, why);
    crate::error::Exit::Unusable
}

/// Prints an error that ends a command, and ends it as the error says.
pub fn fail(e: &crate::error::Error) -> crate::error::Exit {
    crate::term::err_line(crate::term::Kind::Error, &e.to_string());
    e.exit()
}
