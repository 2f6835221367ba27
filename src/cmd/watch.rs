//! `seihon watch [BOOK]`: builds the book, serves its preview on 127.0.0.1, and rebuilds it
//! whenever one of its sources, its metadata, or the project's templates, filters or checks
//! change; browsers reload themselves (see [`crate::serve`]).
use crate::error::Exit;
use std::collections::{BTreeSet, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify_debouncer_full::notify::event::{AccessKind, AccessMode, MetadataKind, ModifyKind};
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent, new_debouncer};
use sha2::{Digest, Sha256};

use crate::batch;
use crate::codes::{self, Code};
use crate::error::{Error, Finding, Location};
use crate::pipeline::BuildOptions;
use crate::project::Project;
use crate::publish;
use crate::report::{self, ReportFinding};
use crate::serve::{self, Finished, Preview};
use crate::term::{self, Kind};

/// Prints a build's findings on stderr (its errors only under `--quiet`).
fn say_findings(findings: &[ReportFinding]) {
    let quiet = term::verbosity() == term::Verbosity::Quiet;
    let shown: Vec<ReportFinding> = findings
        .iter()
        .filter(|f| !quiet || f.is_error())
        .cloned()
        .collect();
    term::say(
        term::Stream::Err,
        Kind::Error,
        &report::findings_text(&shown),
    );
}

/// How long the watcher waits for a burst of events (an editor's save) to end.
const DEBOUNCE: Duration = Duration::from_millis(200);

/// Runs `seihon watch` until Ctrl-C. Exit codes: 0 stopped by Ctrl-C, 1 the watcher or server
/// failed, 2 bad usage (no such book, several books and none named, the port is taken).
pub fn run(project: &Project, book: Option<&str>, host: IpAddr, port: u16) -> Exit {
    let dir = match choose_book(project, book) {
        Ok(d) => d,
        Err(why) => {
            term::err_line(Kind::Error, &why);
            return Exit::Unusable;
        }
    };
    if !host.is_loopback() {
        term::err_line(
            Kind::Info,
            &format!(
                "warning: serving on {host}, which other machines may reach: anyone who can reach it can read the book\n  help: leave out --host to serve on 127.0.0.1 only"
            ),
        );
    }
    let (runtime, listener) = match listen(host, port) {
        Ok(both) => both,
        Err((why, code)) => {
            term::err_line(Kind::Error, &why);
            return code;
        }
    };
    let addr = listener.local_addr().unwrap_or(SocketAddr::new(host, port));
    let sources = Sources::new(project, &dir);
    let (debouncer, events) = match watcher(&sources) {
        Ok(both) => both,
        Err(why) => {
            term::err_line(Kind::Error, &why);
            return Exit::Failed;
        }
    };

    let id = folder_name(&dir);
    let preview = Preview::new(project.root.join("public").join(&id), &id);
    let stop = Arc::new(AtomicBool::new(false));
    let (done_tx, done) = tokio::sync::oneshot::channel::<()>();
    let builder = {
        let (project, preview, stop) = (project.clone(), preview.clone(), stop.clone());
        std::thread::spawn(move || {
            Builder {
                project,
                dir,
                sources,
                preview,
                known: Contents::default(),
            }
            .run(&events, &stop);
            let _ = done_tx.send(());
        })
    };

    let code: Exit = runtime.block_on(async {
        tokio::select! {
            () = preview.first_build() => {}
            _ = tokio::signal::ctrl_c() => return Exit::Success,
        }
        let line = format!("serving the preview of {id} at http://{addr}/ (Ctrl-C stops)");
        term::out_line(Kind::Data, &line);
        let server = tokio::spawn(serve::serve(listener, preview.clone()));
        tokio::select! {
            _ = tokio::signal::ctrl_c() => Exit::Success,
            result = server => {
                let why = match result {
                    Ok(Ok(())) => "no reason given".to_string(),
                    Ok(Err(e)) => e.to_string(),
                    Err(e) => e.to_string(),
                };
                term::err_line(Kind::Error, &format!("error: the preview server stopped: {why}"));
                Exit::Failed
            }
        }
    });
    // Let a build in progress finish, so that its EPUB and preview are whole; a second
    // Ctrl-C does not wait.
    preview.stop();
    stop.store(true, Ordering::Relaxed);
    drop(debouncer);
    let finished = runtime.block_on(async {
        tokio::select! {
            _ = done => true,
            _ = async {
                tokio::time::sleep(Duration::from_millis(500)).await;
                term::err_line(
                    Kind::Info,
                    "stopping after the current build (Ctrl-C again to stop now)",
                );
                let _ = tokio::signal::ctrl_c().await;
            } => false,
        }
    });
    if !finished {
        return Exit::Interrupted;
    }
    let _ = builder.join();
    runtime.shutdown_timeout(Duration::from_secs(2));
    code
}

/// The runtime (started only here, for the server) and the bound address. Binding comes
/// before the first build, so that a taken port is said at once (exit code 2).
fn listen(
    host: IpAddr,
    port: u16,
) -> Result<(tokio::runtime::Runtime, tokio::net::TcpListener), (String, Exit)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            (
                format!("error: cannot start the preview server: {e}"),
                Exit::Failed,
            )
        })?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind((host, port)))
        .map_err(|e| {
            let hint = format!(
                "another program may be using the port; try `seihon watch --port {}`",
                port.wrapping_add(1).max(1024)
            );
            let at = SocketAddr::new(host, port);
            (
                format!("error: cannot serve on {at}: {e}\n  help: {hint}"),
                Exit::Unusable,
            )
        })?;
    Ok((runtime, listener))
}

type Watcher = notify_debouncer_full::Debouncer<
    notify_debouncer_full::notify::RecommendedWatcher,
    notify_debouncer_full::RecommendedCache,
>;

/// Watches the sources; batches of events arrive on the receiver once a burst has settled.
fn watcher(sources: &Sources) -> Result<(Watcher, Receiver<DebounceEventResult>), String> {
    let (tx, events) = std::sync::mpsc::channel();
    let mut debouncer = new_debouncer(DEBOUNCE, None, tx)
        .map_err(|e| format!("error: cannot watch the book's files: {e}"))?;
    for (path, mode) in &sources.roots {
        debouncer
            .watch(path, *mode)
            .map_err(|e| format!("error: cannot watch {}: {e}", path.display()))?;
    }
    Ok((debouncer, events))
}

/// The book to watch: the one named, else the project's only book.
fn choose_book(project: &Project, book: Option<&str>) -> Result<PathBuf, String> {
    if let Some(book) = book {
        return batch::book_dirs(project, &[book.to_string()])
            .map(|dirs| dirs.into_iter().next().unwrap_or_default());
    }
    let dirs = batch::book_dirs(project, &[])?;
    match dirs.as_slice() {
        [one] => Ok(one.clone()),
        many => Err(format!(
            "error: this project has {} books; name the one to watch: `seihon watch <book>`\n  books: {}",
            many.len(),
            many.iter()
                .map(|d| project.book_id(d).0)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn folder_name(dir: &Path) -> String {
    let dir = if dir.is_file() {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    };
    std::fs::canonicalize(dir)
        .unwrap_or_else(|_| dir.to_path_buf())
        .file_name()
        .map_or_else(|| "book".into(), |n| n.to_string_lossy().into_owned())
}

/// What is watched, and which changed paths matter.
struct Sources {
    /// Folders watched: the book's folder and the project's templates, filters and checks
    /// (recursively), and the project folder itself (for `seihon.yml` only).
    roots: Vec<(PathBuf, RecursiveMode)>,
    config: PathBuf,
    /// Output folders: what the build writes there must not start another build.
    ignored: Vec<PathBuf>,
}

impl Sources {
    fn new(project: &Project, book_dir: &Path) -> Sources {
        let root = absolute(&project.root);
        let book = absolute(book_dir);
        // A DocBook main file or a Re:VIEW config given by path: its folder holds the book.
        let book = if book.is_file() {
            book.parent().map_or(book.clone(), Path::to_path_buf)
        } else {
            book
        };
        let mut roots = vec![(book.clone(), RecursiveMode::Recursive)];
        for shared in ["templates", "filters", "checks"] {
            let path = root.join(shared);
            if path.is_dir() && !path.starts_with(&book) {
                roots.push((path, RecursiveMode::Recursive));
            }
        }
        if book != root {
            roots.push((root.clone(), RecursiveMode::NonRecursive));
        }
        let c = &project.config;
        let ignored = [&c.build_dir, &c.dist_dir, &c.preview_dir]
            .into_iter()
            .map(|d| root.join(d))
            .collect();
        Sources {
            roots,
            config: root.join("seihon.yml"),
            ignored,
        }
    }

    /// Whether a change to `path` can change the book.
    fn matters(&self, path: &Path) -> bool {
        if path == self.config {
            return true;
        }
        if self.ignored.iter().any(|d| path.starts_with(d)) {
            return false;
        }
        // Under a recursive root, with no hidden folder or editor's scratch file on the way.
        self.roots.iter().any(|(root, mode)| {
            *mode == RecursiveMode::Recursive
                && path.strip_prefix(root).is_ok_and(|rel| {
                    rel.components()
                        .all(|c| !is_scratch(&c.as_os_str().to_string_lossy()))
                })
        })
    }
}

/// Dotfiles and editors' temporary files: vim's swap files and its `4913` probe, backups
/// (`name~`), Emacs lock files (`.#name`), JetBrains' safe-write files.
fn is_scratch(name: &str) -> bool {
    name.starts_with('.')
        || name.ends_with('~')
        || name == "4913"
        || [
            ".swp",
            ".swo",
            ".swx",
            ".tmp",
            "___jb_tmp___",
            "___jb_old___",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// An absolute path, with symbolic links resolved where it exists (the watcher reports
/// resolved paths).
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    })
}

/// Whether an event changes a file's content or name (opening or reading does not).
fn changes(event: &DebouncedEvent) -> bool {
    match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        _ => true,
    }
}

/// What changed since the last build.
#[derive(Default)]
struct Changes {
    files: BTreeSet<PathBuf>,
    /// The watcher lost track (e.g. too many events): rebuild to be safe.
    lost: bool,
}

impl Changes {
    fn add(&mut self, batch: DebounceEventResult, sources: &Sources, known: &mut Contents) {
        match batch {
            Ok(events) => {
                for event in events.iter().filter(|e| changes(e)) {
                    // A rename names both paths; either may be a source.
                    for path in &event.paths {
                        if sources.matters(path) && known.changed(path) {
                            self.files.insert(path.clone());
                        }
                    }
                    if event.need_rescan() {
                        self.lost = true;
                    }
                }
            }
            Err(errors) => {
                for e in errors {
                    term::err_line(Kind::Info, &format!("warning: watching the book: {e}"));
                }
                self.lost = true;
            }
        }
    }

    fn any(&self) -> bool {
        self.lost || !self.files.is_empty()
    }
}

/// The content of each source file as last seen, so that a save without a change (an editor
/// saving again, a checkout, a hook rewriting a file the same) starts no build.
#[derive(Default)]
struct Contents(HashMap<PathBuf, Seen>);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    File([u8; 32]),
    Missing,
}

impl Contents {
    /// Whether `path` differs from when it was last seen (a path never seen has changed).
    fn changed(&mut self, path: &Path) -> bool {
        let now = match std::fs::read(path) {
            Ok(bytes) => Seen::File(Sha256::digest(&bytes).into()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Seen::Missing,
            // A folder, or a file we cannot read now: let the build say what it finds.
            Err(_) => return true,
        };
        self.0
            .insert(path.to_path_buf(), now)
            .is_none_or(|before| before != now)
    }
}

/// The build side of `seihon watch`, on its own thread (builds are blocking and use rayon).
struct Builder {
    project: Project,
    dir: PathBuf,
    sources: Sources,
    preview: Arc<Preview>,
    known: Contents,
}

impl Builder {
    /// Builds once, then again after each change, until `stop`. Changes that arrive during
    /// a build wait in the channel and make one follow-up build together.
    fn run(mut self, events: &Receiver<DebounceEventResult>, stop: &AtomicBool) {
        let mut pending = Changes {
            lost: true,
            ..Changes::default()
        };
        let mut count = 0u64;
        while !stop.load(Ordering::Relaxed) {
            if pending.any() {
                count += 1;
                self.rebuild(count, &std::mem::take(&mut pending));
            }
            match events.recv_timeout(Duration::from_millis(250)) {
                Ok(batch) => pending.add(batch, &self.sources, &mut self.known),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            }
            while let Ok(batch) = events.try_recv() {
                pending.add(batch, &self.sources, &mut self.known);
            }
        }
    }

    fn rebuild(&mut self, count: u64, changes: &Changes) {
        let started = Instant::now();
        let what = changed_names(&changes.files);
        if changes.files.contains(&self.sources.config) {
            // seihon.yml changed: the house filter chain, check levels or folders may differ.
            match Project::load(&self.project.root) {
                Ok(p) => self.project = p,
                Err(e) => return self.config_failed(count, &e, &what),
            }
        }
        let opts = BuildOptions {
            hooks: true,
            pack: true,
            ..Default::default()
        };
        let outcome = batch::run_book(&self.project, &self.dir, &opts);
        let report = &outcome.report;
        let mut done = Finished {
            book: if report.book.is_empty() {
                folder_name(&self.dir)
            } else {
                report.book.clone()
            },
            dir: None,
            ok: report.ok,
            failed_stage: report.failed_stage.clone(),
            findings: report.findings.clone(),
        };
        {
            let _held = self.preview.hold_requests();
            let shown = publish::Published {
                report: &outcome.report,
                log: &outcome.log,
                known: &outcome.known,
            };
            match publish::publish(&self.project, &self.dir, &shown, None) {
                Ok(dir) => {
                    // Wherever the preview area is, what is written there is no source.
                    if let Some(area) = dir.parent().map(absolute)
                        && !self.sources.ignored.contains(&area)
                    {
                        self.sources.ignored.push(area);
                    }
                    done.dir = Some(dir);
                }
                Err(e) => {
                    done.ok = false;
                    done.failed_stage = Some("publish".into());
                    done.findings
                        .push(finding_of(codes::PREVIEW, &e, &self.dir));
                }
            }
            self.preview.record(done.clone());
        }
        let seconds = started.elapsed().as_secs_f64();
        if done.ok {
            let line = format!(
                "[{count}] built {} in {seconds:.1} s{what}; the browser reloads",
                done.book
            );
            term::err_line(Kind::Info, &line);
        } else {
            let line = format!(
                "[{count}] {} failed at the {} step in {seconds:.1} s{what}; the preview keeps the last good build",
                done.book,
                done.failed_stage.as_deref().unwrap_or("build")
            );
            term::err_line(Kind::Error, &line);
        }
        say_findings(&done.findings);
    }

    /// `seihon.yml` cannot be read: nothing is built; the browsers show why.
    fn config_failed(&self, count: u64, e: &Error, what: &str) {
        let findings = match e {
            Error::Book(f) => f.iter().map(ReportFinding::from).collect(),
            Error::Config(f) => vec![ReportFinding::from(f)],
            other => vec![finding_of(
                codes::SETTINGS_SYNTAX,
                other,
                &self.sources.config,
            )],
        };
        let line = format!(
            "[{count}] seihon.yml cannot be used{what}; the preview keeps the last good build"
        );
        term::err_line(Kind::Error, &line);
        say_findings(&findings);
        let _held = self.preview.hold_requests();
        self.preview.record(Finished {
            book: self.preview.state().book,
            dir: None,
            ok: false,
            failed_stage: Some("load".into()),
            findings,
        });
    }
}

fn finding_of(code: Code, e: &Error, file: &Path) -> ReportFinding {
    ReportFinding::from(&Finding::error(code, Location::file(file), e.to_string()))
}

/// " (ch01.md changed)" for the result line; empty for the first build.
fn changed_names(files: &BTreeSet<PathBuf>) -> String {
    let names: Vec<String> = files
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    match names.len() {
        0 => String::new(),
        1..=3 => format!(" ({} changed)", names.join(", ")),
        n => format!(" ({}, … {n} files changed)", names[..2].join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> Sources {
        Sources {
            roots: vec![
                (PathBuf::from("/p/books/a"), RecursiveMode::Recursive),
                (PathBuf::from("/p/templates"), RecursiveMode::Recursive),
                (PathBuf::from("/p"), RecursiveMode::NonRecursive),
            ],
            config: PathBuf::from("/p/seihon.yml"),
            ignored: vec![PathBuf::from("/p/build"), PathBuf::from("/p/public")],
        }
    }

    #[test]
    fn sources_matter_and_scratch_files_do_not() {
        let s = sources();
        for yes in [
            "/p/books/a/ch01.md",
            "/p/books/a/images/fig.png",
            "/p/books/a/book.yml",
            "/p/templates/chapter.xhtml",
            "/p/seihon.yml",
        ] {
            assert!(s.matters(Path::new(yes)), "{yes}");
        }
        for no in [
            "/p/books/a/.ch01.md.swp",
            "/p/books/a/ch01.md~",
            "/p/books/a/.#ch01.md",
            "/p/books/a/4913",
            "/p/books/a/.git/index",
            "/p/books/b/ch01.md",
            "/p/README.md",
            "/p/build/a/item/xhtml/ch01.xhtml",
            "/p/public/a/index.html",
        ] {
            assert!(!s.matters(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn only_a_real_change_of_content_counts() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ch01.md");
        let mut known = Contents::default();
        std::fs::write(&file, "一").unwrap();
        assert!(known.changed(&file), "never seen before");
        assert!(!known.changed(&file), "saved again as it was");
        std::fs::write(&file, "二").unwrap();
        assert!(known.changed(&file));
        std::fs::remove_file(&file).unwrap();
        assert!(known.changed(&file), "removed");
        assert!(!known.changed(&file));
        assert!(known.changed(dir.path()), "a folder always counts");
    }

    #[test]
    fn changed_files_are_named_briefly() {
        let files: BTreeSet<PathBuf> = ["/b/ch01.md", "/b/ch02.md"]
            .into_iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(changed_names(&files), " (ch01.md, ch02.md changed)");
        assert_eq!(changed_names(&BTreeSet::new()), "");
    }
}
