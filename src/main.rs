//! The `seihon` command line: its arguments, and which command of [`seihon::cmd`] runs. Exit
//! codes ([`seihon::error::Exit`]): 0 success, 1 a book failed, 2 bad usage or config.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use seihon::cmd;
use seihon::pipeline;
use seihon::project::Project;
use seihon::scaffold::NewFormat;

// A build makes millions of small allocations (9 million, 2.4 GB in all, for a 50-chapter
// Re:VIEW book). mimalloc serves them faster than glibc's allocator and, tuned by
// `return_freed_memory_soon`, keeps less memory resident.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Numbers of `mi_option_arena_eager_commit` (and `mi_option_purge_delay`) in mimalloc 2.3's
// `mi_option_e` (include/mimalloc.h); the crate is pinned in Cargo.toml, and a test checks the
// version.
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
use seihon::memory::PURGE_DELAY;

/// Makes mimalloc give freed memory back to the system after 1 ms rather than 10 (its default),
/// and commit arena memory only as it is used. A build frees the chapters it has read while it
/// writes pages; with mimalloc's defaults both stayed resident. Review 50 × 2,000 lines, cold:
/// peak 73 MiB with glibc's allocator, 76 MiB with mimalloc's defaults, 54–58 MiB so (with
/// transparent huge pages off: the `no_thp` feature in Cargo.toml). Purging at once (0 ms) gave
/// 50 MiB but eight times the page faults: 0.4 s more system time on that build.
/// A build that takes most of its book from the caches keeps its freed pages instead (see
/// [`seihon::memory::Build`]).
fn return_freed_memory_soon() {
    // SAFETY: `mi_option_set` stores a number in mimalloc's option table, read on later
    // allocations; it is called first thing in `main`, before any other thread exists.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 1);
    }
}

#[derive(Parser)]
#[command(
    name = "seihon",
    version,
    about = "Builds EPUB 3 books from Markdown, Re:VIEW and DocBook manuscripts"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print errors only (and what the command was run to print, such as `list`'s books).
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print each step of a build with its time and the memory used so far.
    #[arg(long, short, global = true)]
    verbose: bool,
}

/// What `build`, `check` and `ci` share.
#[derive(Args)]
struct BuildArgs {
    /// Book ids (folder names under books/) or paths to book folders or main files.
    books: Vec<String>,
    /// Do not run the books' hooks.
    #[arg(long)]
    no_hooks: bool,
    /// Also write a report: `json:PATH`, `junit:PATH` or `sarif:PATH` (may be repeated).
    #[arg(long, value_name = "KIND:PATH")]
    report: Vec<String>,
    /// Also run epubcheck on the EPUB (needs Java and epubcheck 5.3.0); its errors fail the
    /// book and keep the previous EPUB.
    #[arg(long)]
    epubcheck: bool,
    /// Also check that every web address the book links to answers (needs the network;
    /// answers are cached for a day in build/.cache/).
    #[arg(long)]
    external_links: bool,
    /// Also lint the EPUB for what a store documents and epubcheck does not check: `kdp`,
    /// `apple`, `kobo`, `ebpaj` (repeat it, or give a comma list). Its findings are warnings
    /// (errors in `release`) and cite the store's rule; `ebpaj` also declares the guide's
    /// version in the package. See "Store profiles" in the README.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "STORE")]
    profile: Vec<seihon::check::store::Profile>,
}

impl BuildArgs {
    fn request(&self, force: bool) -> cmd::build::Request<'_> {
        cmd::build::Request {
            books: &self.books,
            reports: &self.report,
            force,
        }
    }

    fn options(&self, pack: bool) -> pipeline::BuildOptions {
        pipeline::BuildOptions {
            hooks: !self.no_hooks,
            pack,
            epubcheck: self.epubcheck,
            external_links: self.external_links,
            release: None,
            profiles: self.profile.clone(),
            inputs: None,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Build books into dist/<id>.epub (every book under books/ when none is named).
    Build {
        #[command(flatten)]
        args: BuildArgs,
        /// Build even when nothing changed since the last build (`check`, `ci` and `release`
        /// always build).
        #[arg(long)]
        force: bool,
    },
    /// Run everything but packing: reading, filters, checks, the pre-build, post-convert and
    /// pre-pack hooks and the check programs, on a scratch copy of the EPUB's tree; build/ and
    /// dist/ are left as they are (the post-pack hook, which needs the EPUB, does not run).
    Check(BuildArgs),
    /// The CI job: build every book (in parallel), write logs and reports under build/, mail
    /// the log of a failed book to the production list.
    Ci(BuildArgs),
    /// Build the EPUB for sale: warnings are errors, epubcheck must pass, the version is
    /// stamped into the colophon and package; writes dist/release/<id>-<version>.epub and
    /// its .sha256.
    Release {
        /// The book to release: its id (as `seihon list` shows it), its folder's name under
        /// books/, or its path.
        book: String,
        /// The release's version (letters, digits, `.`, `-`, `_`), e.g. 1.0.2.
        #[arg(long)]
        version: String,
        /// The stores the EPUB must satisfy: `kdp`, `apple`, `kobo`, `ebpaj` (repeat it, or
        /// give a comma list); any finding of theirs fails the release.
        #[arg(long, value_enum, value_delimiter = ',', value_name = "STORE")]
        profile: Vec<seihon::check::store::Profile>,
    },
    /// Build a book, serve its preview on 127.0.0.1 and rebuild it on every save; the browser
    /// reloads itself, and shows the errors of a failed build on top of the page.
    Watch {
        /// The book (an id under books/ or a path); may be left out when there is only one.
        book: Option<String>,
        /// The port to serve on (0: any free one, said when serving starts).
        #[arg(long, default_value_t = 3000)]
        port: u16,
        /// The address to serve on; anything but 127.0.0.1 or ::1 lets other machines read
        /// the book.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
    },
    /// List the books of this project.
    List {
        /// Print JSON (for a CI matrix).
        #[arg(long)]
        json: bool,
    },
    /// Create a new book under books/.
    New {
        /// The new book's id, and its folder under books/: letters, digits, `-` and `_`,
        /// starting with a letter or digit (e.g. scaling-mongodb).
        id: String,
        /// The manuscript format of its first chapter and settings.
        #[arg(long, value_enum, default_value = "markdown")]
        format: NewFormat,
    },
}

/// Where the command was run, and the project root it runs in (see
/// [`seihon::project::discover`]): the process works from the root, so that every output goes
/// under it and messages name files as they open from it.
struct Here {
    cwd: PathBuf,
    root: PathBuf,
}

impl Here {
    /// Finds the project and enters its root; `None` when the root cannot be entered.
    fn find() -> Option<Here> {
        let cwd = std::env::current_dir().ok()?;
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        let root = seihon::project::discover(&cwd).unwrap_or_else(|| cwd.clone());
        if root != cwd {
            std::env::set_current_dir(&root).ok()?;
        }
        Some(Here { cwd, root })
    }

    /// A book named on the command line, as the root sees it: a path from where the command
    /// was run becomes a path from the root; an id stays as it is.
    fn rebase(&self, arg: &str) -> String {
        let given = Path::new(arg);
        if self.cwd == self.root || given.is_absolute() || !self.cwd.join(given).exists() {
            return arg.to_string();
        }
        let path = self.cwd.join(given);
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// The books named, rebased; none named means the book the command was run in, if any.
    fn books(&self, args: &mut Vec<String>, this_book: impl FnOnce() -> Option<String>) {
        self.rebase_all(args);
        if args.is_empty() {
            args.extend(this_book());
        }
    }

    fn rebase_all(&self, args: &mut [String]) {
        for arg in args {
            *arg = self.rebase(arg);
        }
    }
}

fn main() -> ExitCode {
    return_freed_memory_soon();
    // Panics are caught per book and reported in plain words; keep the default hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let cli = Cli::parse();
    seihon::term::init(match (cli.quiet, cli.verbose) {
        (true, _) => seihon::term::Verbosity::Quiet,
        (_, true) => seihon::term::Verbosity::Verbose,
        _ => seihon::term::Verbosity::Normal,
    });
    let Some(here) = Here::find() else {
        seihon::term::err_line(
            seihon::term::Kind::Error,
            "error: cannot enter the project's folder\n  help: check the folder's permissions",
        );
        return seihon::error::Exit::Unusable.into();
    };
    let project = match Project::load(&PathBuf::from(".")) {
        Ok(p) => p,
        Err(e) => return cmd::fail(&e).into(),
    };
    // Inside a book's folder, that book is the one meant when none is named (`ci` always
    // builds every book: none may drop out of CI).
    let this_book = || {
        project
            .book_holding(&here.cwd)
            .map(|b| b.display().to_string())
    };
    let exit = match cli.command {
        Command::Build { mut args, force } => {
            here.books(&mut args.books, this_book);
            cmd::build::run(&project, &args.request(force), &args.options(true))
        }
        Command::Check(mut args) => {
            here.books(&mut args.books, this_book);
            cmd::build::run(&project, &args.request(false), &args.options(false))
        }
        Command::Ci(mut args) => {
            here.rebase_all(&mut args.books);
            cmd::ci::run(&project, &args.books, &args.options(true), &args.report)
        }
        Command::Release {
            book,
            version,
            profile,
        } => cmd::release::run(&project, &here.rebase(&book), &version, &profile),
        Command::Watch { book, port, host } => {
            let book = book.map(|b| here.rebase(&b)).or_else(this_book);
            cmd::watch::run(&project, book.as_deref(), host, port)
        }
        Command::List { json } => cmd::list::run(&project, json),
        Command::New { id, format } => cmd::new::run(&project, &id, format),
    };
    exit.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allocator_options_are_numbered_for_the_mimalloc_in_use() {
        // SAFETY: plain queries and stores into mimalloc's option table.
        let (version, purge_delay, eager) = unsafe {
            return_freed_memory_soon();
            (
                libmimalloc_sys::mi_version(),
                libmimalloc_sys::mi_option_get(PURGE_DELAY),
                libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT),
            )
        };
        assert_eq!(version / 100, 203, "the option numbers are mimalloc 2.3's");
        assert_eq!((purge_delay, eager), (1, 0));
    }
}
