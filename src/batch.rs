//! A run over several books, as the commands do it: which books, each built safely (a panic is
//! one failed book, not a crash), and what each produced for people and for reports.
use std::path::{Path, PathBuf};

use crate::book::Book;
use crate::codes::{self, Code};
use crate::error::{Error, Exit, Finding, Location};
use crate::pipeline::{self, BuildOptions};
use crate::project::Project;
use crate::report::{self, BookReport};

/// The books a command names: every book of the project when none is named.
pub fn book_dirs(project: &Project, args: &[String]) -> Result<Vec<PathBuf>, String> {
    if args.is_empty() {
        let dirs = project.book_dirs();
        if dirs.is_empty() {
            // Said from where it was looked for: a project is found from any folder inside it.
            let here = std::fs::canonicalize(&project.root).unwrap_or(project.root.clone());
            return Err(format!(
                "error: no books found in {}/ (in {}): a book is a folder there with a book.yml, Re:VIEW's config.yml and catalog.yml, or a DocBook main file\n  help: run seihon in a project (a folder with a seihon.yml or a books/ folder, or any folder inside one), or create a book here with `seihon new <id>`",
                project.books_dir().display(),
                here.display()
            ));
        }
        return Ok(dirs);
    }
    args.iter()
        .map(|arg| {
            book_dir(project, arg).ok_or_else(|| {
                format!(
                    "error: `{arg}` is not a book: neither it nor {}/{arg} is a book folder (with book.yml, or Re:VIEW's config.yml and catalog.yml) or a Re:VIEW config file, and no book of this project has that id\n  help: `seihon list` shows the books of this project",
                    project.books_dir().display()
                )
            })
        })
        .collect()
}

/// A book named on the command line: a path, else a folder under the books folder, else the
/// book of the project with that id (as `seihon list` shows it: a Re:VIEW book's `bookname:`).
pub fn book_dir(project: &Project, arg: &str) -> Option<PathBuf> {
    // A folder that looks like a book but cannot be loaded is taken too: loading it says why.
    let taken = |p: &Path| Book::is_book(p) || (p.is_dir() && Book::looks_like_book(p));
    let as_path = Path::new(arg);
    if taken(as_path) {
        return Some(as_path.to_path_buf());
    }
    let under = project.books_dir().join(arg);
    if taken(&under) {
        return Some(under);
    }
    project
        .book_dirs()
        .into_iter()
        .find(|dir| project.book_id(dir).0 == arg)
}

/// What building one book gave.
pub struct Outcome {
    pub report: BookReport,
    /// The book's log as people read it: what its programs printed, its findings grouped by
    /// file, and what became of the book (standard error of `seihon build`).
    pub log: String,
    /// The one-line result for standard output ("built neko → dist/neko.epub (4 chapters)").
    pub summary: String,
    /// What of the log says why the book failed but is not a finding (an internal error, a
    /// file that could not be written, "the book was not built"): with the errors among the
    /// findings, all that `--quiet` prints.
    pub failure: String,
    /// How the book's command ends: success, failed, or its configuration cannot be used.
    pub exit: Exit,
    /// What the build learnt that the preview would otherwise look up again.
    pub known: crate::pipeline::Known,
}

impl Outcome {
    /// Prints the book's log on stderr and its result on stdout, as much as the verbosity
    /// asks: under `--quiet`, its errors and why it failed only.
    pub fn print(&self) {
        self.print_log();
        crate::term::say(
            crate::term::Stream::Out,
            crate::term::Kind::Info,
            &self.summary,
        );
    }

    /// Prints the book's log on stderr (under `--quiet`, its errors and why it failed only).
    pub fn print_log(&self) {
        use crate::term::{self, Kind, Stream, Verbosity};
        if term::verbosity() == Verbosity::Quiet {
            let errors: Vec<_> = self
                .report
                .findings
                .iter()
                .filter(|f| f.is_error())
                .cloned()
                .collect();
            term::say(Stream::Err, Kind::Error, &report::findings_text(&errors));
            term::say(Stream::Err, Kind::Error, &self.failure);
        } else {
            term::say(Stream::Err, Kind::Info, &self.log);
        }
    }
}

/// Builds one book, never panicking: a bug in seihon is reported as this book's failure.
pub fn run_book(project: &Project, dir: &Path, opts: &BuildOptions) -> Outcome {
    let started = std::time::Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pipeline::build_with(project, dir, opts)
    }));
    let mut log = String::new();
    match result {
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let failure = format!(
                "{}: internal error in seihon ({what}); the previous EPUB, if any, is unchanged\n  help: this is a bug in seihon, not in the book; please report it with the book's files\n",
                dir.display()
            );
            log.push_str(&failure);
            let finding = Finding::error(
                codes::INTERNAL,
                Location::file(dir),
                format!("internal error: {what}"),
            );
            Outcome {
                report: book_report(
                    project,
                    dir,
                    None,
                    &[finding],
                    started,
                    Some("internal error"),
                ),
                log,
                summary: String::new(),
                failure,
                exit: Exit::Failed,
                known: Default::default(),
            }
        }
        Ok(Ok(built)) => {
            for line in &built.log {
                log.push_str(line);
            }
            let epub = built.packed.then(|| built.epub.display().to_string());
            let report = book_report(project, dir, epub, &built.warnings, started, None);
            log.push_str(&report::findings_text(&report.findings));
            let summary = if built.packed {
                format!(
                    "built {} → {} ({})\n",
                    built.id,
                    built.epub.display(),
                    report::plural(built.chapters, "chapter")
                )
            } else {
                format!(
                    "checked {} ({})\n",
                    built.id,
                    report::plural(built.chapters, "chapter")
                )
            };
            Outcome {
                report,
                log,
                summary,
                failure: String::new(),
                exit: Exit::Success,
                known: built.known,
            }
        }
        Ok(Err(failure)) => {
            for line in &failure.log {
                log.push_str(line);
            }
            let e = &*failure.error;
            let findings = match e {
                Error::Book(f) => f.clone(),
                Error::Config(f) => vec![f.clone()],
                other => vec![Finding::error(
                    code_of(other),
                    Location::file(dir),
                    other.to_string(),
                )],
            };
            let report = book_report(
                project,
                dir,
                None,
                &findings,
                started,
                Some(failure.step.name()),
            );
            let mut why = String::new();
            match e {
                Error::Book(_) | Error::Config(_) => {
                    log.push_str(&report::findings_text(&report.findings))
                }
                // Its paths are the project's (an output folder, a temporary), already as
                // they open from the project root: never the book's.
                other => {
                    why.push_str(&other.to_string());
                    why.push('\n');
                }
            }
            why.push_str(&format!(
                "{}: the book was not built (it failed at the {} step); the previous EPUB, if any, is unchanged\n",
                dir.display(),
                failure.step.name()
            ));
            log.push_str(&why);
            Outcome {
                report,
                log,
                summary: String::new(),
                failure: why,
                exit: e.book_exit(),
                known: Default::default(),
            }
        }
    }
}

/// The kind of a failure that carries no finding of its own: a template's, or the machine's (a
/// file that could not be written), which no kind names better than a fault.
fn code_of(e: &Error) -> Code {
    match e {
        Error::Template { .. } => codes::TEMPLATE,
        Error::Io { .. } => codes::FILE_SYSTEM,
        _ => codes::INTERNAL,
    }
}

/// A book's result for the reports (failed when `failed_step` says where), with finding paths
/// relative to the project.
fn book_report(
    project: &Project,
    dir: &Path,
    epub: Option<String>,
    findings: &[Finding],
    started: std::time::Instant,
    failed_step: Option<&str>,
) -> BookReport {
    let folder = book_folder(dir);
    let findings = findings
        .iter()
        .map(|f| {
            let mut r = report::ReportFinding::from(f);
            let file = Path::new(&r.file);
            // Paths are relative to the book, except the project's outputs (the EPUB in dist/),
            // template names and the project's own files (`seihon.yml`, `filters/…`).
            let projects = || {
                !project.root.join(folder).join(file).exists() && project.root.join(file).exists()
            };
            if file.is_relative()
                && !file.starts_with(folder)
                && !file.starts_with(&project.config.dist_dir)
                && !file.starts_with(&project.config.build_dir)
                && !r.file.starts_with("template ")
                && !projects()
            {
                r.file = folder.join(file).to_string_lossy().into_owned();
            }
            r
        })
        .collect();
    BookReport {
        book: project.book_id(dir).0,
        ok: failed_step.is_none(),
        failed_stage: failed_step.map(str::to_string),
        epub,
        findings,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The folder of a book given as a folder or as a file (a DocBook main file, a Re:VIEW config).
fn book_folder(dir: &Path) -> &Path {
    if dir.is_file() {
        dir.parent().unwrap_or(Path::new(""))
    } else {
        dir
    }
}

/// Messages name files relative to their book; prefix the book folder so the path opens as-is.
pub fn prefixed(dir: &Path, text: &str) -> String {
    let dir = book_folder(dir);
    if dir.as_os_str().is_empty() {
        return text.to_string();
    }
    text.lines()
        .map(|l| {
            if l.starts_with("  ")
                || l.starts_with(dir.to_string_lossy().as_ref())
                || l.starts_with("template ")
                || l.starts_with('/')
            {
                l.to_string()
            } else {
                format!("{}/{l}", dir.display())
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Report targets of `--report`, checked before any work so that a typo costs nothing.
pub fn report_targets(reports: &[String]) -> Result<Vec<(String, PathBuf)>, String> {
    reports
        .iter()
        .map(|r| match r.split_once(':') {
            Some((kind @ ("json" | "junit" | "sarif"), path)) if !path.is_empty() => {
                Ok((kind.to_string(), PathBuf::from(path)))
            }
            _ => Err(format!(
                "error: `--report {r}` is not a report; write `--report json:PATH`, `--report junit:PATH` or `--report sarif:PATH`"
            )),
        })
        .collect()
}

/// Writes the requested reports, each whole or not at all (a reader never sees half a
/// report), and annotations under GitHub Actions; 1 when one could not be written.
pub fn write_reports(targets: &[(String, PathBuf)], book_reports: &[report::BookReport]) -> Exit {
    let mut code = Exit::Success;
    for (kind, path) in targets {
        let text = match kind.as_str() {
            "json" => report::json(book_reports),
            "sarif" => report::sarif(book_reports),
            _ => report::junit(book_reports),
        };
        if let Err(e) = crate::files::write_atomic(path, text.as_bytes()) {
            crate::term::err_line(
                crate::term::Kind::Error,
                &format!("error: cannot write the {kind} report: {e}"),
            );
            code = Exit::Failed;
        }
    }
    // Under GitHub Actions, findings become annotations on the commit's files.
    if std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true") {
        print!("{}", report::github_annotations(book_reports));
    }
    code
}

/// Updates the book's preview area; a preview that cannot be written is a warning, since the
/// EPUB itself is built (or not) either way.
/// Returns the preview's folder when it was written.
pub fn publish_preview(
    project: &Project,
    dir: &Path,
    outcome: &Outcome,
    commit: Option<&str>,
) -> Option<PathBuf> {
    let started = std::time::Instant::now();
    let published = crate::publish::publish(
        project,
        dir,
        &crate::publish::Published {
            report: &outcome.report,
            log: &outcome.log,
            known: &outcome.known,
        },
        commit,
    );
    if crate::pipeline::timings_on() {
        crate::pipeline::report_timing("preview", started.elapsed());
    }
    published
        .inspect_err(|e| {
            let line = format!(
                "warning: the preview of {} was not updated: {e}",
                dir.display()
            );
            crate::term::err_line(crate::term::Kind::Info, &line)
        })
        .ok()
}
