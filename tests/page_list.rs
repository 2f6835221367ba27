//! The print page list (issue 21, item 4): page-break markers of each format become
//! `doc-pagebreak` spans with ids unique in the book, the nav gets a `page-list` of them in
//! reading order, and the package names the print edition they follow (`dc:source`,
//! `pageBreakSource`) and the page navigation it offers.
use std::path::{Path, PathBuf};

use crate::support::*;

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/docbook/page-list").join(name)
}

/// The `<ol>` of the nav's page list: (href, label) of each line.
fn page_list(epub: &Path) -> Vec<(String, String)> {
    let nav = read_entry(epub, "item/nav.xhtml");
    let doc = seihon::dom::parse_document(&nav).expect("the nav is XHTML");
    let mut out = Vec::new();
    let mut lists = 0;
    doc.root.walk(&mut |e| {
        if e.name == "nav" && e.attr("epub:type") == Some("page-list") {
            lists += 1;
            assert_eq!(e.attr("role"), Some("doc-pagelist"));
            assert_eq!(e.attr("hidden"), Some("hidden"));
            e.walk(&mut |a| {
                if a.name == "a" {
                    let href = a.attr("href").unwrap_or_default().to_string();
                    out.push((href, a.text_content()));
                }
            });
        }
    });
    assert!(lists <= 1, "one page list at most: {nav}");
    out
}

fn pages(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(h, l)| (h.to_string(), l.to_string()))
        .collect()
}

#[test]
fn a_docbook_4_book_with_beginpage_gets_a_page_list_epubcheck_accepts() {
    let project = TempProject::new();
    project.add_book(&fixture("db4"), "paged");
    let out = project.seihon(&["build", "paged"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.contains(": warning: "), "{all}");
    let epub = project.epub("paged");
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{messages:#?}");

    // Every marker, in reading order: the preface's roman page, the counted page 3, the
    // author's id kept for page 4.
    assert_eq!(
        page_list(&epub),
        pages(&[
            ("xhtml/book.xhtml#page-vii", "vii"),
            ("xhtml/book-2.xhtml#page-1", "1"),
            ("xhtml/book-2.xhtml#page-2", "2"),
            ("xhtml/book-2.xhtml#page-3", "3"),
            ("xhtml/book-3.xhtml#p4", "4"),
        ])
    );
    let chapter = read_entry(&epub, "item/xhtml/book-2.xhtml");
    assert!(chapter.contains("<p>A page turns <span epub:type=\"pagebreak\" role=\"doc-pagebreak\" id=\"page-2\" aria-label=\"2\"></span>in the middle"), "{chapter}");
    // Page 4 begins between the chapters: at the start of the second, before its title.
    let two = read_entry(&epub, "item/xhtml/book-3.xhtml");
    assert!(two.contains("<section epub:type=\"chapter\" class=\"chapter\" role=\"doc-chapter\"><span epub:type=\"pagebreak\" role=\"doc-pagebreak\" id=\"p4\" aria-label=\"4\"></span>\n<h1 id=\"two\">"), "{two}");
    assert!(two.contains("href=\"#p4\""), "{two}");

    let opf = read_entry(&epub, "item/standard.opf");
    for expected in [
        "<dc:source id=\"print-source\">urn:isbn:9784873115320</dc:source>\n<meta refines=\"#print-source\" property=\"source-of\">pagination</meta>\n<meta property=\"pageBreakSource\">urn:isbn:9784873115320</meta>",
        "<meta property=\"schema:accessibilityFeature\">pageBreakMarkers</meta>",
        "<meta property=\"schema:accessibilityFeature\">pageNavigation</meta>",
    ] {
        assert!(opf.contains(expected), "{expected}\nnot in\n{opf}");
    }
    // The print ISBN is not the e-book's identifier.
    assert!(
        !opf.contains("<dc:identifier id=\"book-id\">urn:isbn:"),
        "{opf}"
    );
}

/// A Markdown book: raw markers completed, a page number used twice told apart and reported,
/// `page_source: none` as the package's page source with no `dc:source`.
#[test]
fn markdown_markers_with_a_page_number_used_twice_and_no_print_source() {
    let project = TempProject::new();
    let book = project.path().join("books/md");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(
        book.join("book.yml"),
        "title: Paged\nlanguage: en\npage_source: none\nchapters: [a.md, b.md]\n",
    )
    .unwrap();
    std::fs::write(
        book.join("a.md"),
        "# A\n\n<span epub:type=\"pagebreak\" title=\"1\"/>\n\nText.[^n]\n\n[^n]: A note on <span role=\"doc-pagebreak\" aria-label=\"2\"></span>page 2.\n",
    )
    .unwrap();
    std::fs::write(
        book.join("b.md"),
        "# B\n\nVolume two starts again at <span epub:type=\"pagebreak\" title=\"1\"></span>page 1.\n",
    )
    .unwrap();
    let out = project.seihon(&["build", "md"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("b.md:3:")
            && all.contains(
                "page 1 is marked a second time (first at a.md:3:1): this marker's id is `page-1-2`"
            ),
        "{all}"
    );
    assert_eq!(all.matches(": warning: ").count(), 1, "{all}");
    let epub = project.epub("md");
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{messages:#?}");
    assert_eq!(
        page_list(&epub),
        pages(&[
            ("xhtml/a.xhtml#page-1", "1"),
            ("xhtml/a.xhtml#page-2", "2"),
            ("xhtml/b.xhtml#page-1-2", "1"),
        ])
    );
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains("<meta property=\"pageBreakSource\">none</meta>"),
        "{opf}"
    );
    assert!(!opf.contains("dc:source"), "{opf}");
    assert!(!opf.contains("source-of"), "{opf}");
}

/// A nav template of the book's own that leaves the page list out: the pages still mark the
/// print pages, but the package no longer claims page navigation it does not offer.
#[test]
fn a_nav_template_without_the_page_list_claims_markers_but_no_page_navigation() {
    let project = TempProject::new();
    let book = project.path().join("books/md");
    std::fs::create_dir_all(book.join("templates")).unwrap();
    std::fs::write(
        book.join("book.yml"),
        "title: Paged\nlanguage: en\npage_source: none\nchapters: [a.md]\n",
    )
    .unwrap();
    std::fs::write(
        book.join("a.md"),
        "# A\n\n<span epub:type=\"pagebreak\" title=\"1\"/>\n\nText.\n",
    )
    .unwrap();
    let nav = std::fs::read_to_string(repo().join("templates/nav.xhtml")).unwrap();
    let (head, tail) = nav.split_once("{% if has_page_list %}").unwrap();
    let (_, tail) = tail.split_once("{% endif %}").unwrap();
    std::fs::write(book.join("templates/nav.xhtml"), format!("{head}{tail}")).unwrap();
    let out = project.seihon(&["build", "md"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("md");
    assert!(page_list(&epub).is_empty());
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{messages:#?}");
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(opf.contains(">pageBreakMarkers<"), "{opf}");
    assert!(!opf.contains("pageNavigation"), "{opf}");
}

/// No markers: no page list, no page metadata, even with a print ISBN (which stays the
/// print edition's `dc:source`).
#[test]
fn a_book_without_markers_has_no_page_list() {
    let project = TempProject::new();
    let book = project.path().join("books/plain");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(
        book.join("book.yml"),
        "title: Plain\nlanguage: en\nprint_isbn: 4-87311-532-9\nchapters: [a.md]\n",
    )
    .unwrap();
    std::fs::write(book.join("a.md"), "# A\n\nText.\n").unwrap();
    let out = project.seihon(&["build", "plain"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("plain");
    assert!(page_list(&epub).is_empty());
    let nav = read_entry(&epub, "item/nav.xhtml");
    assert!(!nav.contains("page-list"), "{nav}");
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains("<dc:source id=\"print-source\">urn:isbn:4873115329</dc:source>"),
        "{opf}"
    );
    for absent in [
        "pageBreakSource",
        "pageBreakMarkers",
        "pageNavigation",
        "source-of",
    ] {
        assert!(!opf.contains(absent), "{absent} in\n{opf}");
    }
}

/// Markers with no source named: a warning at book.yml saying what to add.
#[test]
fn markers_without_a_print_source_are_reported() {
    let project = TempProject::new();
    let book = project.path().join("books/nosource");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(
        book.join("book.yml"),
        "title: T\nlanguage: en\nchapters: [a.md]\n",
    )
    .unwrap();
    std::fs::write(
        book.join("a.md"),
        "# A\n\n<span epub:type=\"pagebreak\"></span>\n\n<span epub:type=\"pagebreak\" title=\"5\"/>\n",
    )
    .unwrap();
    let out = project.seihon(&["build", "nosource"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("a.md:3:1: warning: this page-break marker gives no page number"),
        "{all}"
    );
    assert!(all.contains("book.yml: warning: the book marks print page numbers but does not say which edition they follow"), "{all}");
    assert_eq!(
        page_list(&project.epub("nosource")),
        pages(&[("xhtml/a.xhtml#page-5", "5")])
    );
}

/// A wrong ISBN or page source is an error at its line in book.yml.
#[test]
fn a_wrong_print_isbn_or_page_source_is_an_error_at_its_line() {
    let project = TempProject::new();
    let book = project.path().join("books/bad");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(
        book.join("book.yml"),
        "title: T\nlanguage: en\nprint_isbn: 978-4-87311-532-1\npage_source: the hardcover\nchapters: [a.md]\n",
    )
    .unwrap();
    std::fs::write(book.join("a.md"), "# A\n").unwrap();
    let out = project.seihon(&["build", "bad"]);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("book.yml:3:13: error: `978-4-87311-532-1` is not a valid ISBN"),
        "{all}"
    );
    assert!(all.contains("book.yml:4:14: error: `the hardcover` does not name the edition the page numbers follow"), "{all}");
}

/// A Re:VIEW book: the marker Re:VIEW itself passes through (`@<embed>{|html|…}`), and
/// config.yml's `print_isbn`.
#[test]
fn a_review_book_marks_pages_with_embed_and_names_its_print_isbn_in_config_yml() {
    let project = TempProject::new();
    let book = project.path().join("books/re");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(
        book.join("config.yml"),
        "booktitle: Paged\nlanguage: en\naut: [Ann Lee]\nprint_isbn: 978-4-87311-532-0\n",
    )
    .unwrap();
    std::fs::write(book.join("catalog.yml"), "CHAPS:\n  - a.re\n").unwrap();
    std::fs::write(
        book.join("a.re"),
        "= A\n\n//embed[html]{\n<span epub:type=\"pagebreak\" title=\"9\"></span>\n//}\n\nOn page 9, then @<embed>{|html|<span epub:type=\"pagebreak\" title=\"10\"></span>}page 10.\n",
    )
    .unwrap();
    let out = project.seihon(&["build", "re"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.contains(": warning: "), "{all}");
    let epub = project.epub("re");
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{messages:#?}");
    assert_eq!(
        page_list(&epub),
        pages(&[
            ("xhtml/a.xhtml#page-9", "9"),
            ("xhtml/a.xhtml#page-10", "10")
        ])
    );
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains("<meta property=\"pageBreakSource\">urn:isbn:9784873115320</meta>"),
        "{opf}"
    );
}
