use super::*;
use crate::error::Severity;

const CORPUS: &str = "/work/shared/corpus/docbook";

#[test]
fn corpus_books_read() {
    let base = Path::new(CORPUS);
    if !base.exists() {
        eprintln!("skipped: {CORPUS} is absent");
        return;
    }
    for (root, main, min) in [
        ("svnbook", "svnbook/book/book.xml", 10),
        ("intro-linux", "intro-linux/abook.xml", 10),
        ("linux-ip", "linux-ip/linux-ip.xml", 10),
        ("lixa-refguide", "lixa-refguide/manuals/LIXA.xml", 10),
        ("pandoc-fixtures", "pandoc-fixtures/docbook-reader.docbook", 1),
        ("pandoc-fixtures", "pandoc-fixtures/docbook-xref.docbook", 1),
    ] {
        let (book, findings) = read(&base.join(main), &base.join(root));
        eprintln!("== {main}: {} chapters, {} findings", book.chapters.len(), findings.len());
        for f in &findings {
            eprintln!("{f}");
        }
        assert!(book.chapters.len() >= min, "{main}");
        let _ = Severity::Error;
    }
}
