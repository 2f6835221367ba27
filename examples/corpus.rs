//! The corpus table: every book of the shared corpus built by seihon, checked by epubcheck and
//! measured against its sources and its reference EPUB, one line a book.
//!
//!   bash bench/corpus [--detail] [BOOK…]
//!   cargo run --release --example corpus -- [--detail] [--seihon PATH] [--jobs N] [--keep DIR] [--no-ace] [BOOK…]
//!
//! `--keep DIR` keeps a copy of every EPUB built, as `DIR/<book>.epub`. `--no-ace` leaves out
//! DAISY Ace (the suite always runs it; it takes about as long as the builds).
//!
//! The corpus is `$SEIHON_CORPUS` (default `../shared/corpus`); the expected outcomes are
//! `tests/corpus/expected.yml`. Exit 0 when every book meets its entry, 1 when one does not
//! (each named after the table), 2 when the table cannot be made.
#[path = "../tests/corpus/harness/mod.rs"]
mod harness;

use std::path::PathBuf;
use std::time::Duration;

const USAGE: &str =
    "usage: corpus [--detail] [--seihon PATH] [--jobs N] [--keep DIR] [--no-ace] [BOOK…]";

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}

fn run() -> Result<bool, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut detail = false;
    let mut seihon = root.join("target/release/seihon");
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut only = Vec::new();
    let mut keep = None;
    let mut with_ace = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--detail" => detail = true,
            "--no-ace" => with_ace = false,
            "--seihon" => seihon = args.next().ok_or(USAGE)?.into(),
            "--keep" => keep = Some(PathBuf::from(args.next().ok_or(USAGE)?)),
            "--jobs" => {
                jobs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--jobs takes a number")?
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            a if a.starts_with('-') => return Err(format!("unknown option {a}\n{USAGE}")),
            book => only.push(book.to_string()),
        }
    }
    let corpus = std::env::var_os("SEIHON_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    if !seihon.is_file() {
        return Err(format!(
            "{} is missing: cargo build --release (bash bench/corpus does it)",
            seihon.display()
        ));
    }
    let ace = with_ace
        .then(|| harness::ace::Ace::find(&root))
        .transpose()
        .map_err(|e| format!("{e} (or leave it out with --no-ace)"))?;
    let manifest = harness::manifest::load(&corpus)?;
    let expected = harness::manifest::load_expected(&harness::manifest::expected_path())?;
    let mut books = manifest.books;
    if !only.is_empty() {
        if let Some(unknown) = only.iter().find(|n| !books.iter().any(|b| &b.name == *n)) {
            return Err(format!(
                "{unknown} is not a book of {}/manifest.json",
                corpus.display()
            ));
        }
        books.retain(|b| only.contains(&b.name));
    }
    let settings = harness::run::Settings {
        corpus,
        seihon,
        epubcheck: harness::run::Epubchecker::new(harness::run::epubcheck_jar()?, jobs.div_ceil(2)),
        ace,
        timeout: Duration::from_secs(300),
        keep,
    };
    let outcomes = harness::run::trials(&settings, &books, jobs)?;
    print!("{}", harness::table::render(&outcomes, &expected, detail));
    let mut problems = harness::verdict::judge(&outcomes, &expected);
    if !only.is_empty() {
        // Entries of the books left out are not stale.
        problems.retain(|p| !p.contains("not in the corpus manifest"));
    }
    for p in &problems {
        eprintln!("problem: {p}");
    }
    Ok(problems.is_empty())
}
