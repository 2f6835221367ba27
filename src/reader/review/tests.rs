use super::*;

fn read_all(text: &str) -> (Document, Vec<Finding>) {
    read(text, Path::new("ch.re"), &ReviewOptions::default())
}

fn read_ok(text: &str) -> Document {
    let (doc, findings) = read_all(text);
    assert!(findings.is_empty(), "{findings:#?}");
    doc
}

#[test]
fn smoke() {
    let d = read_ok("= 章\n\n本文です。\n");
    assert_eq!(d.blocks.len(), 2);
}
