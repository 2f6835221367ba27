//! Up to date: `seihon build` of a book whose inputs are as they were at its last successful
//! build, and whose EPUB and preview are still the ones that build wrote, does nothing and
//! reports that build again (its warnings included).
//!
//! Inputs are known by name, size and modification time ([`FileStamp::written`]), as make, ninja
//! and cargo know them (not by change time: the build hard-links images and the EPUB):
//! every file of the book folder, the project's `seihon.yml`, `templates/`, `filters/`,
//! `checks/` and shared folders, seihon's own executable, `SOURCE_DATE_EPOCH` and the commit.
//! A book with hooks is always built: what a hook reads is not known. `--force` builds anyway.
use std::path::{Path, PathBuf};

use crate::cache::{FileStamp, Key, ListedInputs};

use crate::batch::Outcome;
use crate::pipeline::BuildOptions;
use crate::project::Project;
use crate::report::BookReport;

/// What the last successful build of a book left, under `build/.cache/fresh/`.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stamp {
    key: String,
    epub: PathBuf,
    epub_file: (u64, i128),
    preview: PathBuf,
    report: BookReport,
}

/// A book's inputs as they are before its build.
pub struct Probe {
    key: String,
    stamp: PathBuf,
    /// The files looked at, for the build (see [`BuildOptions::inputs`]).
    pub inputs: std::sync::Arc<ListedInputs>,
}

/// The inputs of building `dir`, or `None` when a build cannot be skipped whatever changed: the
/// book has hooks, or the build does more than build (epubcheck, external links, a release).
pub fn probe(
    project: &Project,
    dir: &Path,
    opts: &BuildOptions,
    commit: Option<&str>,
) -> Option<Probe> {
    probe_with(project, dir, opts, || commit.map(str::to_string))
}

/// [`probe`], asking for the commit only once the book's files are stamped: git may be
/// answering meanwhile (see [`crate::cmd::Commit`]).
pub fn probe_with(
    project: &Project,
    dir: &Path,
    opts: &BuildOptions,
    commit: impl FnOnce() -> Option<String>,
) -> Option<Probe> {
    if !opts.pack
        || opts.epubcheck
        || opts.external_links
        || opts.release.is_some()
        || !opts.profiles.is_empty()
    {
        return None;
    }
    let folder = if dir.is_file() { dir.parent()? } else { dir };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    if opts.hooks && crate::hooks::has_any(folder) {
        return None;
    }
    let epoch = std::env::var_os("SOURCE_DATE_EPOCH").unwrap_or_default();
    let key = Key::new("fresh")
        .bytes(dir.as_os_str().as_encoded_bytes())
        .value(&opts.hooks)
        .bytes(epoch.as_encoded_bytes());
    let root = &project.root;
    let mut roots: Vec<PathBuf> = ["seihon.yml", "templates", "filters", "checks"]
        .iter()
        .map(|name| root.join(name))
        .collect();
    roots.extend(project.config.shared_dirs.iter().cloned());
    roots.push(folder.to_path_buf());
    let inputs = ListedInputs::stamp(folder, &roots, &project.outputs())?;
    let key = inputs.hashed(key, |_| false);
    let key = key
        .bytes(commit().unwrap_or_default().as_bytes())
        .finish()?;
    // The stamp's file is named for the book's path: one per target.
    let place = Key::new("fresh stamp")
        .bytes(dir.as_os_str().as_encoded_bytes())
        .finish()?;
    let place = &place[..16];
    Some(Probe {
        inputs: std::sync::Arc::new(inputs),
        key,
        stamp: project
            .root
            .join(&project.config.build_dir)
            .join(".cache/fresh")
            .join(format!("{place}.json")),
    })
}

impl Probe {
    /// The last build's outcome, when nothing changed since it and its EPUB and preview are
    /// still there as it left them.
    pub fn up_to_date(&self) -> Option<Outcome> {
        let stamp: Stamp = serde_json::from_slice(&std::fs::read(&self.stamp).ok()?).ok()?;
        if stamp.key != self.key
            || FileStamp::of(&stamp.epub).map(|s| s.written()) != Some(stamp.epub_file)
            || !stamp.preview.join("index.html").is_file()
        {
            return None;
        }
        // The findings again: they still hold (the programs' output of the last build is not
        // news). Then that the book is up to date, and nothing else.
        let log = crate::report::findings_text(&stamp.report.findings);
        let summary = format!(
            "{} is up to date → {} (nothing changed since the last build; `--force` builds anyway)\n",
            stamp.report.book,
            stamp.epub.display()
        );
        Some(Outcome {
            report: stamp.report,
            log,
            summary,
            failure: String::new(),
            exit: crate::error::Exit::Success,
            known: Default::default(),
        })
    }

    /// Remembers a successful build (after its preview was published).
    pub fn record(&self, outcome: &Outcome, preview: &Path) {
        let Some(epub) = outcome.report.epub.as_ref().map(PathBuf::from) else {
            return;
        };
        if !outcome.exit.is_success() || !outcome.report.ok {
            return;
        }
        let Some(epub_file) = FileStamp::of(&epub).map(|s| s.written()) else {
            return;
        };
        let stamp = Stamp {
            key: self.key.clone(),
            epub,
            epub_file,
            preview: preview.to_path_buf(),
            report: outcome.report.clone(),
        };
        if let Ok(json) = serde_json::to_vec(&stamp) {
            // Only a speed-up: a record that cannot be written means the next build runs.
            let _ = crate::files::write_note(&self.stamp, &json);
        }
    }

    /// Forgets the last build (a build that failed must run again next time).
    pub fn forget(&self) {
        let _ = std::fs::remove_file(&self.stamp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(root: &Path) -> Project {
        Project::load(root).unwrap()
    }

    fn outcome(epub: &Path) -> Outcome {
        Outcome {
            report: BookReport {
                book: "b".into(),
                ok: true,
                failed_stage: None,
                epub: Some(epub.display().to_string()),
                findings: Vec::new(),
                seconds: 0.1,
            },
            log: "a warning\n".into(),
            summary: "built b\n".into(),
            failure: String::new(),
            exit: crate::error::Exit::Success,
            known: Default::default(),
        }
    }

    #[test]
    fn a_recorded_build_is_up_to_date_until_an_input_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let book = root.join("books/b");
        std::fs::create_dir_all(&book).unwrap();
        std::fs::write(book.join("book.yml"), "title: B\n").unwrap();
        std::fs::write(book.join("ch01.md"), "# One\n").unwrap();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::write(root.join("dist/b.epub"), "epub").unwrap();
        let preview = root.join("public/b");
        std::fs::create_dir_all(&preview).unwrap();
        std::fs::write(preview.join("index.html"), "<html/>").unwrap();
        let p = project(root);
        let opts = BuildOptions::default();
        let probe = probe(&p, &book, &opts, Some("abc")).unwrap();
        assert!(probe.up_to_date().is_none(), "never built");
        probe.record(&outcome(&root.join("dist/b.epub")), &preview);
        let again = super::probe(&p, &book, &opts, Some("abc")).unwrap();
        let o = again.up_to_date().expect("nothing changed");
        assert!(o.summary.starts_with("b is up to date → "), "{}", o.summary);
        assert!(
            o.summary.contains("dist/b.epub (nothing changed"),
            "{}",
            o.summary
        );
        assert_eq!(
            o.log, "",
            "the findings of the last build (none), nothing else"
        );
        let fresh = |commit| {
            super::probe(&p, &book, &opts, Some(commit))
                .unwrap()
                .up_to_date()
                .is_some()
        };
        let rebuild = || {
            super::probe(&p, &book, &opts, Some("abc"))
                .unwrap()
                .record(&outcome(&root.join("dist/b.epub")), &preview)
        };
        // Another commit, an edited chapter, a new file, a changed EPUB: each means a build.
        assert!(!fresh("def"));
        std::fs::write(book.join("ch01.md"), "# One!\n").unwrap();
        assert!(!fresh("abc"));
        rebuild();
        assert!(fresh("abc"));
        std::fs::write(book.join("notes.txt"), "x").unwrap();
        assert!(!fresh("abc"));
        rebuild();
        std::fs::write(root.join("dist/b.epub"), "other epub").unwrap();
        assert!(!fresh("abc"), "the EPUB was replaced");
        // Options that do more than build never skip.
        let strict = BuildOptions {
            epubcheck: true,
            ..BuildOptions::default()
        };
        assert!(super::probe(&p, &book, &strict, None).is_none());
    }

    #[test]
    fn a_book_with_hooks_is_always_built() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("books/b");
        std::fs::create_dir_all(book.join("hooks")).unwrap();
        std::fs::write(book.join("hooks/pre-pack.sh"), "true").unwrap();
        let p = project(dir.path());
        assert!(probe(&p, &book, &BuildOptions::default(), None).is_none());
        let no_hooks = BuildOptions {
            hooks: false,
            ..BuildOptions::default()
        };
        assert!(probe(&p, &book, &no_hooks, None).is_some());
    }
}
