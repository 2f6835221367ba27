//! The corpus suite: every book of `$SEIHON_CORPUS/manifest.json` (`.ci/run` sets it; the
//! corpus is other people's work and is never copied into this repository) is built by the
//! binary from a scratch copy and held to its entry in `tests/corpus/expected.yml`: a `pass`
//! book must build, pass epubcheck with nothing found and keep at least its figures of text; a
//! `fail` book that starts passing fails the suite too, until its entry is flipped. The same
//! harness prints the table (`bash bench/corpus`).
#[path = "corpus/harness/mod.rs"]
pub(crate) mod harness;

use std::path::PathBuf;
use std::time::Duration;

fn corpus() -> Option<PathBuf> {
    match std::env::var_os("SEIHON_CORPUS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!("skipped the corpus suite: SEIHON_CORPUS is not set (bash .ci/run sets it)");
            None
        }
    }
}

#[test]
fn every_corpus_book_meets_its_expected_outcome() {
    let Some(corpus) = corpus() else { return };
    let manifest = harness::manifest::load(&corpus).unwrap_or_else(|e| panic!("{e}"));
    let expected = harness::manifest::load_expected(&harness::manifest::expected_path())
        .unwrap_or_else(|e| panic!("{e}"));
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let jar = harness::run::epubcheck_jar().unwrap_or_else(|e| panic!("{e}"));
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ace = harness::ace::Ace::find(&repo).unwrap_or_else(|e| panic!("{e}"));
    let settings = harness::run::Settings {
        corpus,
        seihon: PathBuf::from(env!("CARGO_BIN_EXE_seihon")),
        epubcheck: harness::run::Epubchecker::new(jar, jobs.div_ceil(2)),
        ace: Some(ace),
        timeout: Duration::from_secs(600),
        keep: None,
    };
    let outcomes =
        harness::run::trials(&settings, &manifest.books, jobs).unwrap_or_else(|e| panic!("{e}"));
    let table = harness::table::render(&outcomes, &expected, false);
    eprintln!("{table}");
    let problems = harness::verdict::judge(&outcomes, &expected);
    assert!(
        problems.is_empty(),
        "{} of the corpus's books do not meet tests/corpus/expected.yml:\n{}\n\n{table}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_manifest_names_books_and_references_that_exist() {
    let Some(corpus) = corpus() else { return };
    let manifest = harness::manifest::load(&corpus).unwrap_or_else(|e| panic!("{e}"));
    assert!(!manifest.books.is_empty(), "the manifest lists no books");
    for book in &manifest.books {
        let build = corpus.join(&book.build);
        assert!(
            build.exists(),
            "{}: {} does not exist",
            book.name,
            build.display()
        );
        if let Some(reference) = &book.reference {
            assert!(
                corpus.join(reference).is_file(),
                "{}: the reference {reference} does not exist",
                book.name
            );
        }
    }
    let mut names: Vec<&str> = manifest.books.iter().map(|b| b.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), manifest.books.len(), "two books share a name");
}

#[test]
fn book_folders_and_build_paths_split_at_the_format_and_book() {
    let book = |build: &str| harness::manifest::Book {
        name: "x".into(),
        format: harness::manifest::Format::Docbook,
        build: build.into(),
        reference: None,
        stand_ins: Vec::new(),
        catalog: None,
    };
    let b = book("docbook/svnbook/book/book.xml");
    assert_eq!(
        (b.folder(), b.within()),
        ("docbook/svnbook", "book/book.xml")
    );
    let b = book("review/review-sample-book");
    assert_eq!((b.folder(), b.within()), ("review/review-sample-book", ""));
}
