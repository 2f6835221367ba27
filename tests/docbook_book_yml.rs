//! book.yml beside a DocBook main file (issue 20, item 7): book.yml's values over the `info`'s,
//! the rest from the `info`; its catalogs and `makeindex` used; `revhistory` in the colophon,
//! affiliations, e-mail addresses and `othercredit` roles on the title page, the colophon and
//! in the package document; DocBook XSL's generated text with or without book.yml.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::*;

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/docbook/book-yml").join(name)
}

/// Runs seihon in the project with no catalogs from the environment.
fn seihon(project: &TempProject, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seihon"))
        .args(args)
        .current_dir(project.path())
        .env_remove("SOURCE_DATE_EPOCH")
        .env_remove("XML_CATALOG_FILES")
        .output()
        .expect("run seihon")
}

/// Builds the book and checks it is clean: exit 0, no warning, epubcheck silent.
fn build_clean(project: &TempProject, book: &str, id: &str) -> PathBuf {
    let out = seihon(project, &["build", book]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.contains(": warning: "), "{all}");
    let epub = project.epub(id);
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{messages:#?}");
    epub
}

fn page(epub: &Path, name: &str) -> String {
    read_entry(epub, &format!("item/xhtml/{name}.xhtml"))
}

#[test]
fn book_yml_overrides_the_info_and_adds_to_it() {
    let project = TempProject::new();
    project.add_book(&fixture("db5-overrides"), "five");
    let epub = build_clean(&project, "five", "five");
    let opf = read_entry(&epub, "item/standard.opf");
    for expected in [
        // book.yml's title over the info's; the info's subtitle, date and rights kept.
        "<dc:title id=\"title\">The Overridden Title</dc:title>",
        "<dc:title id=\"subtitle\">A Subtitle from the Info</dc:title>",
        "<dc:date>2024-05-01</dc:date>",
        "<dc:rights>Copyright © 2024 Ann Lee</dc:rights>",
        // The identifier from book.yml's ISBN, its publisher.
        "<dc:identifier id=\"book-id\">urn:isbn:9784873115320</dc:identifier>",
        "<dc:publisher>Seihon Press</dc:publisher>",
        // The info's author, book.yml's translator, the info's reviewer, each with its role.
        "<dc:creator id=\"creator1\">Ann Lee</dc:creator>\n<meta refines=\"#creator1\" property=\"role\" scheme=\"marc:relators\">aut</meta>",
        "<dc:contributor id=\"creator2\">Tomoko Yamada</dc:contributor>\n<meta refines=\"#creator2\" property=\"role\" scheme=\"marc:relators\">trl</meta>",
        "<dc:contributor id=\"creator3\">Rob Reyes</dc:contributor>\n<meta refines=\"#creator3\" property=\"role\" scheme=\"marc:relators\">rev</meta>",
    ] {
        assert!(opf.contains(expected), "{expected}\n{opf}");
    }
    assert!(!opf.contains("The Info Title"), "{opf}");
    let title_page = page(&epub, "titlepage");
    for expected in [
        "<p class=\"creator\">Ann Lee</p>\n<p class=\"creator-affiliation\">Staff Writer, Example Press</p>\n<p class=\"creator-email\"><a href=\"mailto:ann@example.org\">ann@example.org</a></p>",
        "<p class=\"creator\">translated by Tomoko Yamada</p>",
        "<p class=\"creator\">Reviewer: Rob Reyes</p>",
    ] {
        assert!(title_page.contains(expected), "{expected}\n{title_page}");
    }
    // The revhistory is the colophon's edition history, oldest first.
    let colophon = page(&epub, "colophon");
    // Its dates as written, as DocBook XSL shows them.
    assert!(
        colophon.contains("<span class=\"date\">2024-05-01</span> <span class=\"edition\">Revision 1.0: First edition</span>"),
        "{colophon}"
    );
    let first = colophon
        .find("Revision 1.0: First edition")
        .expect(&colophon);
    let second = colophon.find("Revision 1.1: Corrections").expect(&colophon);
    assert!(first < second, "{colophon}");
    assert!(
        colophon.contains("<td class=\"role\">Reviewer</td>"),
        "{colophon}"
    );
    // book.yml's catalog maps the DTD that declares the entity; DocBook XSL's caption and
    // cross-reference text; an index though the document has no <index/> (makeindex: true).
    let chapter = page(&epub, "book");
    assert!(chapter.contains("Welcome to Bindery Deluxe."), "{chapter}");
    assert!(
        chapter.contains("<p class=\"caption\">Table\u{a0}1.1.\u{a0}A Table</p>"),
        "{chapter}"
    );
    assert!(
        chapter.contains("<a href=\"#f1\" class=\"link\">Table\u{a0}1.1, “A Table”</a>"),
        "{chapter}"
    );
    assert!(entry_names(&epub).contains(&"item/xhtml/bookindex.xhtml".to_string()));
}

#[test]
fn the_catalog_comes_from_book_yml() {
    let project = TempProject::new();
    let book = project.add_book(&fixture("db5-overrides"), "five");
    let yml = std::fs::read_to_string(book.join("book.yml")).unwrap();
    std::fs::write(
        book.join("book.yml"),
        yml.replace("catalogs: [xml/catalog.xml]\n", ""),
    )
    .unwrap();
    let out = seihon(&project, &["build", "five"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("`&product;`"), "{all}");
}

#[test]
fn book_yml_beside_a_docbook_4_main_file_replaces_roles_it_names() {
    let project = TempProject::new();
    project.add_book(&fixture("db4-beside"), "guide-book");
    // As a folder under books/ (named by it), and as the main file given by path (named by it).
    for (arg, id) in [
        ("guide-book", "guide-book"),
        ("books/guide-book/guide.xml", "guide"),
    ] {
        let epub = build_clean(&project, arg, id);
        let opf = read_entry(&epub, "item/standard.opf");
        assert!(
            opf.contains("<dc:title id=\"title\">The Guide</dc:title>"),
            "{opf}"
        );
        assert!(opf.contains(">Kenji Sato</dc:creator>"), "{opf}");
        assert!(!opf.contains("Old Author"), "{opf}");
        assert!(opf.contains(">Tara Ng</dc:contributor>"), "{opf}");
        let title_page = page(&epub, "titlepage");
        assert!(
            title_page.contains("<p class=\"creator-affiliation\">Seihon Lab</p>"),
            "{title_page}"
        );
        let colophon = page(&epub, "colophon");
        // book.yml's history, its date in the house's words.
        assert!(
            colophon.contains("January 10, 2025</span> <span class=\"edition\">Second printing"),
            "{colophon}"
        );
        assert!(!colophon.contains("Draft"), "{colophon}");
        let chapter = page(&epub, "guide");
        assert!(
            chapter.contains("<p class=\"caption\">Example\u{a0}1.1.\u{a0}An Example</p>"),
            "{chapter}"
        );
    }
}

#[test]
fn book_yml_mistakes_of_a_docbook_book_are_located() {
    let project = TempProject::new();
    let book = project.add_book(&fixture("db4-beside"), "g");
    std::fs::write(book.join("ch.xml"), "<chapter><title>C</title></chapter>\n").unwrap();
    let cases = [
        (
            "mian: guide.xml\n",
            "books/g/book.yml:1:1: error: unknown key `mian`",
            "did you mean `main`?",
        ),
        (
            "title: T\nmain: nope.xml\n",
            "books/g/book.yml:2:7: error: the DocBook main file `nope.xml` does not exist",
            "relative to book.yml's folder",
        ),
        (
            "title: T\nmain: ch.xml\n",
            "books/g/book.yml:2:7: error: `ch.xml` is not a DocBook book's main file: its root is <chapter>",
            "a DocBook book is one document",
        ),
        (
            "title: T\nlanguage: en\nchapters: [guide.xml, ch.xml]\n",
            "books/g/book.yml:3:12: error: `guide.xml` is a DocBook file",
            "`main: book.xml`",
        ),
    ];
    for (yml, error, hint) in cases {
        std::fs::write(book.join("book.yml"), yml).unwrap();
        let out = seihon(&project, &["build", "g"]);
        let all = text(&out);
        assert!(!out.status.success(), "{yml}: {all}");
        assert!(all.contains(error), "{yml}: {all}");
        assert!(all.contains(hint), "{yml}: {all}");
        assert!(!project.epub("g").exists(), "{yml}");
    }
}

#[test]
fn book_yml_s_language_chooses_docbook_s_japanese_generated_text() {
    let project = TempProject::new();
    let book = project.add_book(&fixture("db4-beside"), "ja-guide");
    let yml = std::fs::read_to_string(book.join("book.yml")).unwrap();
    std::fs::write(book.join("book.yml"), format!("language: ja\n{yml}")).unwrap();
    let epub = build_clean(&project, "ja-guide", "ja-guide");
    let chapter = page(&epub, "guide");
    // DocBook XSL's Japanese caption, not Re:VIEW's or seihon's own (`リスト1.1`).
    assert!(
        chapter.contains("<p class=\"caption\">例1.1 An Example</p>"),
        "{chapter}"
    );
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(opf.contains("<dc:language>ja</dc:language>"), "{opf}");
}
