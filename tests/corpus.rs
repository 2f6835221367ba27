//! The corpus suite: real books from `$SEIHON_CORPUS` (`.ci/run` sets it; the corpus is other
//! people's work and is never copied into this repository). Re:VIEW and DocBook books join this
//! suite with their readers; until then it checks that the corpus is where CI says it is.
use std::path::PathBuf;

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
fn corpus_holds_review_and_docbook_books_with_reference_epubs() {
    let Some(dir) = corpus() else { return };
    assert!(
        dir.is_dir(),
        "SEIHON_CORPUS={} is not a folder",
        dir.display()
    );
    for sub in ["review", "docbook", "reference"] {
        let entries = std::fs::read_dir(dir.join(sub))
            .unwrap_or_else(|e| panic!("{sub}: {e}"))
            .count();
        assert!(entries > 0, "{sub} is empty");
    }
}
