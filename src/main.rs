//! The `seihon` command line. Exit codes: 0 success, 1 a book failed, 2 bad usage or config.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use seihon::book::Book;
use seihon::error::{Error, Severity};
use seihon::pipeline::{self, Project};
use seihon::report;
use seihon::scaffold::{self, NewFormat};

#[derive(Parser)]
#[command(
    name = "seihon",
    version,
    about = "Builds EPUB 3 books from Markdown, Re:VIEW and DocBook manuscripts"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build books into dist/<id>.epub (every book under books/ when none is named).
    Build {
        /// Book ids (folder names under books/) or paths to book folders.
        books: Vec<String>,
        /// Do not run the books' hooks.
        #[arg(long)]
        no_hooks: bool,
        /// Also write a report: `json:PATH` or `junit:PATH` (may be repeated).
        #[arg(long, value_name = "KIND:PATH")]
        report: Vec<String>,
        /// Also run epubcheck on the EPUB (needs Java and epubcheck 5.3.0); its errors fail
        /// the book and keep the previous EPUB.
        #[arg(long)]
        epubcheck: bool,
        /// Also check that every web address the book links to answers (needs the network;
        /// answers are cached for a day in build/.cache/).
        #[arg(long)]
        external_links: bool,
    },
    /// Run everything but packing: reading, filters, checks and hooks before packing.
    Check {
        books: Vec<String>,
        #[arg(long)]
        no_hooks: bool,
        #[arg(long, value_name = "KIND:PATH")]
        report: Vec<String>,
        /// Also pack the EPUB to a temporary file and run epubcheck on it.
        #[arg(long)]
        epubcheck: bool,
        /// Also check that every web address the book links to answers (needs the network;
        /// answers are cached for a day in build/.cache/).
        #[arg(long)]
        external_links: bool,
    },
    /// List the books of this project.
    List {
        /// Print JSON (for a CI matrix).
        #[arg(long)]
        json: bool,
    },
    /// Create a new book under books/.
    New {
        id: String,
        #[arg(long, value_enum, default_value = "markdown")]
        format: NewFormat,
    },
}

fn main() -> ExitCode {
    // Panics are caught per book and reported in plain words; keep the default hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let cli = Cli::parse();
    let root = PathBuf::from(".");
    let project = match Project::load(&root) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    match cli.command {
        Command::Build {
            books,
            no_hooks,
            report,
            epubcheck,
            external_links,
        } => build(
            &project,
            &books,
            &pipeline::BuildOptions {
                hooks: !no_hooks,
                pack: true,
                epubcheck,
                external_links,
            },
            &report,
        ),
        Command::Check {
            books,
            no_hooks,
            report,
            epubcheck,
            external_links,
        } => build(
            &project,
            &books,
            &pipeline::BuildOptions {
                hooks: !no_hooks,
                pack: false,
                epubcheck,
                external_links,
            },
            &report,
        ),
        Command::List { json } => list(&project, json),
        Command::New { id, format } => {
            match scaffold::new_book(&project.books_dir(), &id, format) {
                Ok(dir) => {
                    let files = match format {
                        NewFormat::Markdown => "book.yml and ch01.md",
                        NewFormat::Review => "config.yml, catalog.yml and ch01.re",
                        NewFormat::Docbook => "book.xml and ch01.xml",
                    };
                    println!(
                        "created {}: edit {files}, then run `seihon build {id}`",
                        dir.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
    }
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("{e}");
    ExitCode::from(e.exit_code() as u8)
}

/// A book named on the command line: a folder path, else an id under the books folder.
fn book_dir(project: &Project, arg: &str) -> Option<PathBuf> {
    let as_path = Path::new(arg);
    if Book::is_book(as_path) {
        return Some(as_path.to_path_buf());
    }
    let under = project.books_dir().join(arg);
    Book::is_book(&under).then_some(under)
}

fn build(
    project: &Project,
    args: &[String],
    opts: &pipeline::BuildOptions,
    reports: &[String],
) -> ExitCode {
    // Report targets are checked before any work, so a typo costs nothing.
    let mut targets = Vec::new();
    for r in reports {
        match r.split_once(':') {
            Some((kind @ ("json" | "junit"), path)) if !path.is_empty() => {
                targets.push((kind.to_string(), PathBuf::from(path)))
            }
            _ => {
                eprintln!(
                    "error: `--report {r}` is not a report; write `--report json:PATH` or `--report junit:PATH`"
                );
                return ExitCode::from(2);
            }
        }
    }
    let mut book_reports: Vec<report::BookReport> = Vec::new();
    let dirs = if args.is_empty() {
        let dirs = project.book_dirs();
        if dirs.is_empty() {
            eprintln!(
                "error: no books found in {} (a book is a folder with a book.yml)",
                project.books_dir().display()
            );
            eprintln!("  help: create one with `seihon new <id>`");
            return ExitCode::from(2);
        }
        dirs
    } else {
        let mut dirs = Vec::new();
        for arg in args {
            match book_dir(project, arg) {
                Some(d) => dirs.push(d),
                None => {
                    eprintln!(
                        "error: `{arg}` is not a book: neither it nor {}/{arg} is a book folder (with book.yml, or Re:VIEW's config.yml and catalog.yml) or a Re:VIEW config file",
                        project.books_dir().display()
                    );
                    eprintln!("  help: `seihon list` shows the books of this project");
                    return ExitCode::from(2);
                }
            }
        }
        dirs
    };
    let total = dirs.len();
    let mut code = 0u8;
    for (i, dir) in dirs.iter().enumerate() {
        eprintln!(
            "[{}/{total}] {} {}",
            i + 1,
            if opts.pack { "building" } else { "checking" },
            dir.display()
        );
        let started = std::time::Instant::now();
        // A bug in seihon must not show users a Rust backtrace, nor stop the other books.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pipeline::build_with(project, dir, opts)
        }));
        let result = match result {
            Ok(r) => r,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                eprintln!(
                    "{}: internal error in seihon ({what}); the previous EPUB, if any, is unchanged",
                    dir.display()
                );
                eprintln!(
                    "  help: this is a bug in seihon, not in the book; please report it with the book's files"
                );
                code = code.max(1);
                book_reports.push(book_report(
                    project,
                    dir,
                    None,
                    &[seihon::error::Finding::error(
                        seihon::error::Location::file(dir),
                        format!("internal error: {what}"),
                    )],
                    started,
                    Some("internal error"),
                ));
                continue;
            }
        };
        match result {
            Ok(built) => {
                for line in &built.log {
                    eprint!("{line}");
                }
                let epub = built.packed.then(|| built.epub.display().to_string());
                let br = book_report(project, dir, epub, &built.warnings, started, None);
                eprint!("{}", report::findings_text(&br.findings));
                if built.packed {
                    println!(
                        "built {} → {} ({} chapters)",
                        built.id,
                        built.epub.display(),
                        built.chapters
                    );
                } else {
                    println!("checked {} ({} chapters)", built.id, built.chapters);
                }
                book_reports.push(br);
            }
            Err(failure) => {
                for line in &failure.log {
                    eprint!("{line}");
                }
                let e = &failure.error;
                let findings = match e {
                    Error::Book(f) => f.clone(),
                    Error::Config(f) => vec![f.clone()],
                    other => vec![seihon::error::Finding::error(
                        seihon::error::Location::file(dir),
                        other.to_string(),
                    )],
                };
                let br = book_report(
                    project,
                    dir,
                    None,
                    &findings,
                    started,
                    Some(failure.step.name()),
                );
                match e {
                    Error::Book(_) | Error::Config(_) => {
                        eprint!("{}", report::findings_text(&br.findings))
                    }
                    other => eprintln!("{}", prefixed(dir, &other.to_string(), Severity::Error)),
                }
                eprintln!(
                    "{}: the book was not built (it failed at the {} step); the previous EPUB, if any, is unchanged",
                    dir.display(),
                    failure.step.name()
                );
                code = code.max(e.exit_code() as u8);
                book_reports.push(br);
            }
        }
    }
    for (kind, path) in targets {
        let text = if kind == "json" {
            report::json(&book_reports)
        } else {
            report::junit(&book_reports)
        };
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!(
                "error: cannot write the {kind} report to {}: {e}",
                path.display()
            );
            code = code.max(1);
        }
    }
    // Under GitHub Actions, findings become annotations on the commit's files.
    if std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true") {
        print!("{}", report::github_annotations(&book_reports));
    }
    ExitCode::from(code)
}

/// A book's result for the reports (failed when `failed_step` says where), with finding paths
/// relative to the project.
fn book_report(
    project: &Project,
    dir: &Path,
    epub: Option<String>,
    findings: &[seihon::error::Finding],
    started: std::time::Instant,
    failed_step: Option<&str>,
) -> report::BookReport {
    let folder = if dir.is_file() {
        dir.parent().unwrap_or(Path::new(""))
    } else {
        dir
    };
    let out: Vec<report::ReportFinding> = findings
        .iter()
        .map(|f| {
            let mut r = report::ReportFinding::from(f);
            let file = Path::new(&r.file);
            // Paths are relative to the book, except the project's outputs (the EPUB in dist/)
            // and template names.
            if file.is_relative()
                && !file.starts_with(folder)
                && !file.starts_with(&project.config.dist_dir)
                && !file.starts_with(&project.config.build_dir)
                && !r.file.starts_with("template ")
            {
                r.file = folder.join(file).to_string_lossy().into_owned();
            }
            r
        })
        .collect();

    report::BookReport {
        book: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        ok: failed_step.is_none(),
        failed_stage: failed_step.map(str::to_string),
        epub,
        findings: out,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Findings name files relative to their book; prefix the book folder so the path opens as-is.
fn prefixed(dir: &Path, text: &str, _severity: Severity) -> String {
    // A book given as a file (a DocBook main file, a Re:VIEW config) lives in its folder.
    let dir = if dir.is_file() {
        dir.parent().unwrap_or(Path::new(""))
    } else {
        dir
    };
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

fn list(project: &Project, json: bool) -> ExitCode {
    let mut rows = Vec::new();
    let mut code = 0;
    for dir in project.book_dirs() {
        match Book::open(&dir, &project.config) {
            Ok((book, _)) => rows.push(serde_json::json!({
                "id": book.id,
                "path": dir.to_string_lossy(),
                "title": book.meta.title,
                "language": book.meta.language,
                "chapters": book.chapters.len(),
            })),
            Err(e) => {
                eprintln!("{}", prefixed(&dir, &e.to_string(), Severity::Error));
                code = 1;
            }
        }
    }
    if json {
        println!("{}", serde_json::Value::Array(rows));
    } else {
        for r in &rows {
            println!(
                "{}\t{}",
                r["id"].as_str().unwrap_or(""),
                r["title"].as_str().unwrap_or("")
            );
        }
    }
    ExitCode::from(code)
}
