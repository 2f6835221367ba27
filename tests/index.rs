//! The book's index end to end, through the real binary and epubcheck: a Re:VIEW book
//! (`fixtures/index/review-book`: `@<idx>`, `@<hidx>`, levels, a makeindex dictionary) and a
//! DocBook book (`fixtures/index/docbook-book`: `indexterm`s and an `<index/>`). Each index
//! page must equal its golden, `fixtures/index/<book>.xhtml` (`SEIHON_BLESS=1 cargo test
//! --test suite index` rewrites them: review the diff).
use std::path::{Path, PathBuf};

use crate::support::*;

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/index").join(name)
}

/// A project with the fixture book `name`, changed by `edit` (path in the book, old, new).
fn project_with(name: &str, edits: &[(&str, &str, &str)]) -> TempProject {
    let project = TempProject::new();
    let book = project.add_book(&fixture(name), name);
    for (file, old, new) in edits {
        let path = book.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(old), "{file} has no {old:?}");
        std::fs::write(&path, text.replace(old, new)).unwrap();
    }
    project
}

/// Builds the project's books; what seihon printed.
fn build(project: &TempProject) -> String {
    let out = project.seihon(&["build"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    said
}

/// The page equals its golden (or, blessing, becomes it).
fn matches_golden(page: &str, golden: &Path) {
    if let Some(expected) = against_golden(page, golden) {
        assert_eq!(
            page,
            expected,
            "the index page differs from {}",
            golden.display()
        );
    }
}

/// The `href`s of the page's links to `epub:type="index-locator"` targets.
fn locators(page: &str) -> Vec<String> {
    page.split("epub:type=\"index-locator\" href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_review_book_gets_an_index_page_sorted_by_reading_that_passes_epubcheck() {
    let project = project_with("review-book", &[]);
    let said = build(&project);
    let epub = project.epub("review-book");
    let page = read_entry(&epub, "item/xhtml/bookindex.xhtml");
    matches_golden(&page, &fixture("review-book.xhtml"));

    // The index is in the spine before the colophon, in the manifest, the nav's table of
    // contents and landmarks, and the NCX.
    let opf = read_entry(&epub, "item/standard.opf");
    let spine: Vec<&str> = opf
        .lines()
        .filter_map(|l| l.strip_prefix("<itemref idref=\""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert_eq!(spine[spine.len() - 2..], ["bookindex", "colophon"], "{opf}");
    assert!(opf.contains(r#"<item id="bookindex" href="xhtml/bookindex.xhtml""#));
    let nav = read_entry(&epub, "item/nav.xhtml");
    assert!(
        nav.contains(r#"<a epub:type="index" href="xhtml/bookindex.xhtml">索引</a>"#),
        "{nav}"
    );
    assert!(
        nav.contains(r#"<li><a href="xhtml/bookindex.xhtml">索引</a></li>"#),
        "{nav}"
    );
    let ncx = read_entry(&epub, "item/toc.ncx");
    assert!(
        ncx.contains(r#"<text>索引</text></navLabel><content src="xhtml/bookindex.xhtml"/>"#),
        "{ncx}"
    );

    // Every link lands on an anchor that is there, once.
    let links = locators(&page);
    assert_eq!(links.len(), 25, "{links:#?}");
    for link in &links {
        let (file, id) = link
            .strip_prefix("../")
            .and_then(|l| l.split_once('#'))
            .unwrap_or_else(|| panic!("{link}"));
        let chapter = read_entry(&epub, &format!("item/{file}"));
        assert_eq!(
            chapter.matches(&format!("id=\"{id}\"")).count(),
            1,
            "{link} in {chapter}"
        );
    }
    // `@<idx>` shows its term after the anchor; `@<hidx>` shows nothing.
    let ch01 = read_entry(&epub, "item/xhtml/ch01.xhtml");
    assert!(
        ch01.contains(r#"<span id="idx-ch01-1" class="index-term"></span>組版は"#),
        "{ch01}"
    );
    assert!(!ch01.contains("活字"), "{ch01}");

    // The one term in kanji the dictionary does not read is named, where it is written.
    assert!(
        said.contains("ch02.re:3:41: warning: the index term `奥付` has no reading"),
        "{said}"
    );
    assert!(said.contains("to sakuin.dic"), "{said}");

    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "epubcheck:\n{}", messages.join("\n"));
}

#[test]
fn a_docbook_index_element_is_where_the_index_goes() {
    let project = project_with("docbook-book", &[]);
    build(&project);
    let epub = project.epub("docbook-book");
    let names = entry_names(&epub);
    assert!(
        !names.iter().any(|n| n.ends_with("bookindex.xhtml")),
        "the index takes the <index/>'s place, not a page of its own: {names:?}"
    );
    // The `<index id="ix"/>` became the book's third chapter file.
    let page = read_entry(&epub, "item/xhtml/book-3.xhtml");
    matches_golden(&page, &fixture("docbook-book.xhtml"));
    assert!(
        page.contains(r#"<section class="index" epub:type="index" role="doc-index" id="ix">"#),
        "links to the index element's id still land: {page}"
    );
    let ch1 = read_entry(&epub, "item/xhtml/book.xhtml");
    assert!(ch1.contains(r#"href="book-3.xhtml#ix""#), "{ch1}");
    let nav = read_entry(&epub, "item/nav.xhtml");
    assert!(
        nav.contains(r#"<a epub:type="index" href="xhtml/book-3.xhtml">Index</a>"#),
        "{nav}"
    );
    // Once in the table of contents: the chapter's line is the index's.
    let toc_line = r#"<li><a href="xhtml/book-3.xhtml">Index</a></li>"#;
    assert_eq!(nav.matches(toc_line).count(), 1, "{nav}");
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "epubcheck:\n{}", messages.join("\n"));
}

#[test]
fn makeindex_false_makes_no_index_page_and_no_anchors() {
    let project = project_with(
        "review-book",
        &[("config.yml", "makeindex: true", "makeindex: false")],
    );
    let said = build(&project);
    let epub = project.epub("review-book");
    assert!(!entry_names(&epub).iter().any(|n| n.contains("bookindex")));
    let ch01 = read_entry(&epub, "item/xhtml/ch01.xhtml");
    assert!(!ch01.contains("index-term"), "{ch01}");
    assert!(
        ch01.contains("<p>組版は"),
        "`@<idx>` still shows its term: {ch01}"
    );
    assert!(!read_entry(&epub, "item/nav.xhtml").contains("epub:type=\"index\""));
    assert!(!said.contains("no reading"), "{said}");
}

#[test]
fn epubmaker_makeindex_overrides_pdfmakers() {
    let project = project_with(
        "review-book",
        &[(
            "config.yml",
            "pdfmaker:",
            "epubmaker:\n  makeindex: false\npdfmaker:",
        )],
    );
    let said = build(&project);
    assert!(!said.contains("unknown setting"), "{said}");
    let epub = project.epub("review-book");
    assert!(!entry_names(&epub).iter().any(|n| n.contains("bookindex")));
}

#[test]
fn a_dictionary_that_cannot_be_read_is_a_warning_at_its_setting() {
    for (dic, why) in [
        ("nosuch.dic", "does not exist"),
        ("../sakuin.dic", "is outside the book folder"),
    ] {
        let project = project_with(
            "review-book",
            &[(
                "config.yml",
                "makeindex_dic: sakuin.dic",
                &format!("makeindex_dic: {dic}"),
            )],
        );
        let said = build(&project);
        assert!(
            said.contains(&format!(
                "config.yml:7:3: warning: the index dictionary `{dic}` {why}"
            )),
            "{said}"
        );
        // The index is made all the same, its terms sorted as written.
        let page = read_entry(&project.epub("review-book"), "item/xhtml/bookindex.xhtml");
        assert!(page.contains("<h2>漢字</h2>"), "{page}");
        assert!(
            said.contains("index terms in kanji, `索引` the first, have no reading: the index lists them under 漢字"),
            "{said}"
        );
    }
}

#[test]
fn a_book_that_marks_no_term_has_no_index_page() {
    let project = project_with(
        "review-book",
        &[
            ("preface.re", "@<idx>{索引}", "索引"),
            ("ch01.re", "@<idx>{", "@<b>{"),
            ("ch01.re", "@<hidx>{", "@<b>{"),
            ("ch02.re", "@<idx>{", "@<b>{"),
            ("ch02.re", "@<hidx>{", "@<b>{"),
        ],
    );
    build(&project);
    let epub = project.epub("review-book");
    assert!(!entry_names(&epub).iter().any(|n| n.contains("bookindex")));
    let nav = read_entry(&epub, "item/nav.xhtml");
    assert!(!nav.contains("bookindex"), "{nav}");
    assert!(!nav.contains("epub:type=\"index\""), "{nav}");
}
