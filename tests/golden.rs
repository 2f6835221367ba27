//! Golden XHTML for each Markdown construct: `fixtures/markdown/<name>.md` is read, resolved
//! and written as a one-chapter book, and the chapter's body must equal `<name>.xhtml`.
//! `SEIHON_BLESS=1 cargo test --test golden` rewrites the expected files (review the diff!).
use std::path::{Path, PathBuf};

use seihon::book::{Book, ChapterSource, Cover, Direction, Format, Metadata, Role, Writing};
use seihon::xhtml::{dom, write};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/markdown")
}

fn one_chapter_book(rel: &Path) -> Book {
    let root = fixture_dir();
    Book {
        id: "golden".into(),
        config_path: "book.yml".into(),
        meta: Metadata {
            title: "Golden".into(),
            subtitle: None,
            language: "ja".into(),
            identifier: "urn:uuid:00000000-0000-0000-0000-000000000000".into(),
            creators: Vec::new(),
            publisher: None,
            date: None,
            history: Vec::new(),
            isbn: None,
            rights: None,
            writing: Writing::Horizontal,
            direction: Direction::Ltr,
        },
        chapters: vec![ChapterSource {
            rel: rel.into(),
            path: root.join(rel),
            role: Role::Body,
            format: Format::Markdown,
            part_title: None,
        }],
        cover: Cover::Generated,
        stylesheets: Vec::new(),
        toc_depth: 3,
        secnolevel: 2,
        review: None,
        root,
    }
}

/// The XHTML body seihon writes for one Markdown file.
fn render(name: &str) -> String {
    let rel = PathBuf::from(format!("{name}.md"));
    let book = one_chapter_book(&rel);
    let text = std::fs::read_to_string(fixture_dir().join(&rel)).unwrap();
    let (doc, findings) = seihon::reader::markdown::read(&text, &rel);
    assert!(findings.is_empty(), "{name}: {findings:?}");
    let resolved = seihon::xref::resolve(&book, vec![(book.chapters[0].clone(), doc)])
        .unwrap_or_else(|f| panic!("{name}: {f:?}"));
    dom::serialize_nodes(&write::write_chapter(&resolved.chapters[0], true)) + "\n"
}

#[test]
fn every_markdown_construct_matches_its_golden_xhtml() {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".md")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "fixtures missing: {names:?}");
    let bless = std::env::var_os("SEIHON_BLESS").is_some();
    let mut failures = Vec::new();
    for name in &names {
        let got = render(name);
        let expected_path = fixture_dir().join(format!("{name}.xhtml"));
        if bless {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|_| {
            panic!(
                "{} is missing: run with SEIHON_BLESS=1",
                expected_path.display()
            )
        });
        if got != expected {
            failures.push(format!("--- {name}: expected\n{expected}--- got\n{got}"));
        }
        // Whatever the construct, the output must be well-formed XHTML.
        dom::parse_fragment(&got).unwrap_or_else(|e| panic!("{name}: not well-formed: {e}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
