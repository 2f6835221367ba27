//! The `seihon` command line. Exit codes: 0 success, 1 a book failed, 2 bad usage or config.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use seihon::book::Book;
use seihon::error::{Error, Severity};
use seihon::pipeline::{self, Project};
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
        Command::Build { books, no_hooks } => build(
            &project,
            &books,
            &pipeline::BuildOptions { hooks: !no_hooks },
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

fn build(project: &Project, args: &[String], opts: &pipeline::BuildOptions) -> ExitCode {
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
        eprintln!("[{}/{total}] building {}", i + 1, dir.display());
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
                continue;
            }
        };
        match result {
            Ok(built) => {
                for line in &built.log {
                    eprint!("{line}");
                }
                for w in &built.warnings {
                    eprintln!("{}", prefixed(dir, &w.to_string(), w.severity));
                }
                println!(
                    "built {} → {} ({} chapters)",
                    built.id,
                    built.epub.display(),
                    built.chapters
                );
            }
            Err(e) => {
                eprintln!("{}", prefixed(dir, &e.to_string(), Severity::Error));
                eprintln!(
                    "{}: the book was not built; the previous EPUB, if any, is unchanged",
                    dir.display()
                );
                code = code.max(e.exit_code() as u8);
            }
        }
    }
    ExitCode::from(code)
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
