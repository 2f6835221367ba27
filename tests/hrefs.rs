//! File names that are not plain URL path segments, end to end through the real binary and
//! epubcheck: a book of each format whose chapters, images and style sheets have spaces,
//! Japanese, `%` and `#` in their names, referred to as written and percent-encoded. Each EPUB
//! passes epubcheck with nothing to say, every name a page or the package document refers to
//! is in the EPUB, a Japanese name stays as it is and a name with a space is renamed.
use std::path::Path;

use crate::support::*;

/// A 1×1 PNG.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\xff\xff?\0\x05\xfe\x02\xfe\xa7\x35\x81\x84\0\0\0\0IEND\xaeB`\x82";

fn put(book: &Path, rel: &str, bytes: &[u8]) {
    let path = book.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

const META: &str = "language: ja\nidentifier: urn:uuid:3f2b6a8e-0c1d-4e5f-9a7b-1c2d3e4f5a6b\ndate: 2026-01-01\nauthors: [{name: 山田 花子, role: aut}]\n";

fn markdown_book(project: &TempProject) {
    let book = project.path().join("books/md");
    put(
        &book,
        "book.yml",
        format!("title: 空白のある名前\n{META}chapters: [\"第1章 はじめに.md\", \"chapter two.md\"]\nstylesheets: [\"css/my style.css\"]\n").as_bytes(),
    );
    put(
        &book,
        "第1章 はじめに.md",
        "# はじめに {#intro}\n\n![a photo](<images/my photo.png>)\n\n![the same photo](images/my%20photo.png)\n\n![a cat](images/猫.png)\n\n![odd](images/100%25%20%23hash.png)\n\n![literal](images/x%41.png)\n\nOn to [the next chapter](<chapter two.md#two>) and [again](chapter%20two.md).\n".as_bytes(),
    );
    put(
        &book,
        "chapter two.md",
        "# Two {#two}\n\nBack to [the start](第1章%20はじめに.md#intro).\n".as_bytes(),
    );
    put(
        &book,
        "css/my style.css",
        "@import \"more rules.css\" screen;\nbody { background: url(\"../images/背景 画像.png\") }\n".as_bytes(),
    );
    put(
        &book,
        "css/more rules.css",
        b"h1 { background: url(../images/%E7%8C%AB.png) }\n",
    );
    for image in [
        "images/my photo.png",
        "images/猫.png",
        "images/100% #hash.png",
        "images/x%41.png",
        "images/背景 画像.png",
    ] {
        put(&book, image, PNG);
    }
}

fn review_book(project: &TempProject) {
    let book = project.path().join("books/re");
    put(
        &book,
        "book.yml",
        format!("title: 空白のある名前\n{META}chapters: [\"chapter one.re\", \"第2章 応用.re\"]\nstylesheets: [\"my style.css\"]\n").as_bytes(),
    );
    put(
        &book,
        "chapter one.re",
        "= 第一章\n\n//image[photo][写真]{\n//}\n\n@<img>{photo}を見てください。\n".as_bytes(),
    );
    put(
        &book,
        "第2章 応用.re",
        "= 応用\n\n//image[猫][猫の写真]{\n//}\n".as_bytes(),
    );
    put(
        &book,
        "my style.css",
        "h1 { background: url('images/back ground.png') }\n".as_bytes(),
    );
    // Re:VIEW's lookup: images/<chapter id>/<id>.png and images/<chapter id>-<id>.png.
    put(&book, "images/chapter one/photo.png", PNG);
    put(&book, "images/第2章 応用-猫.png", PNG);
    put(&book, "images/back ground.png", PNG);
}

fn docbook_book(project: &TempProject) {
    let book = project.path().join("books/db");
    // The main file includes its chapters, one by its name as a URL. (A DocBook book has no
    // style sheets of its own.)
    put(
        &book,
        "本 main.xml",
        "<book xmlns=\"http://docbook.org/ns/docbook\" xmlns:xi=\"http://www.w3.org/2001/XInclude\" version=\"5.0\"><info><title>空白のある名前</title></info>\n<xi:include href=\"chapter%20one.xml\"/>\n<xi:include href=\"第2章 応用.xml\"/>\n</book>\n".as_bytes(),
    );
    put(
        &book,
        "第2章 応用.xml",
        "<chapter xmlns=\"http://docbook.org/ns/docbook\" version=\"5.0\" xml:id=\"two\"><title>応用</title><para>Back to <link linkend=\"one\">the first</link>.</para></chapter>\n".as_bytes(),
    );
    put(
        &book,
        "chapter one.xml",
        "<chapter xmlns=\"http://docbook.org/ns/docbook\" version=\"5.0\" xml:id=\"one\"><title>第一章</title>\n<figure xml:id=\"f1\"><title>写真</title><mediaobject><imageobject><imagedata fileref=\"images/my photo.png\"/></imageobject><textobject><phrase>写真</phrase></textobject></mediaobject></figure>\n<informalfigure><mediaobject><imageobject><imagedata fileref=\"images/%E5%86%99%E7%9C%9F%201.png\"/></imageobject><textobject><phrase>写真</phrase></textobject></mediaobject></informalfigure>\n<para>See <xref linkend=\"f1\"/>.</para></chapter>\n".as_bytes(),
    );
    put(&book, "images/my photo.png", PNG);
    put(&book, "images/写真 1.png", PNG);
}

/// Every `href="…"`, `src="…"` and `url(…)` in a text.
fn references(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for open in ["href=\"", "src=\"", "url(\""] {
        for rest in text.split(open).skip(1) {
            out.push(rest.split(['"']).next().unwrap().to_string());
        }
    }
    out
}

/// `dir/../x` → `x`.
fn join(base: &str, href: &str) -> String {
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop();
    for seg in href.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[test]
fn names_with_spaces_japanese_and_url_characters_make_valid_epubs_in_every_format() {
    let project = TempProject::new();
    markdown_book(&project);
    review_book(&project);
    docbook_book(&project);
    let out = project.seihon(&["build"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("warning"), "{said}");

    for (id, images) in [("md", 5), ("re", 3), ("db", 2)] {
        let epub = project.epub(id);
        let names = entry_names(&epub);
        // No name epubcheck warns about; a name without a space keeps it.
        for name in &names {
            assert!(!name.contains(' '), "{id}: {name} in {names:?}");
        }
        let pngs = names.iter().filter(|n| n.ends_with(".png")).count();
        assert_eq!(
            pngs,
            images + 1,
            "{id}: the images and the cover: {names:?}"
        );
        // Every reference in the package document, the pages and the style sheets names an
        // entry, once decoded; none holds a space.
        for name in names
            .iter()
            .filter(|n| n.ends_with(".opf") || n.ends_with(".xhtml") || n.ends_with(".css"))
        {
            let text = read_entry(&epub, name);
            for r in references(&text) {
                if r.contains(':') || r.starts_with('#') {
                    continue;
                }
                assert!(!r.contains(' '), "{id}: `{r}` in {name}");
                let path = r.split('#').next().unwrap();
                let target = join(name, &seihon::href::percent_decode(path));
                assert!(names.contains(&target), "{id}: `{r}` in {name} → {target}");
            }
        }
        assert_eq!(epubcheck(&epub), Vec::<String>::new(), "{id}");
    }

    // The Markdown book: the photo referred to two ways is packed once, the Japanese cat keeps
    // its name (a URL as it is), `%` and `#` are encoded, the style sheet's references are
    // written again as the packed files' URLs where they must be, and the links between chapters
    // work.
    let epub = project.epub("md");
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(opf.contains("href=\"image/images/猫.png\""), "{opf}");
    assert!(opf.contains("href=\"image/images/100%25_%23hash-"), "{opf}");
    assert!(opf.contains("href=\"image/images/x%2541.png\""), "{opf}");
    let page = read_entry(&epub, "item/xhtml/ch-1.xhtml");
    assert_eq!(
        page.matches("../image/images/my_photo-").count(),
        2,
        "{page}"
    );
    assert!(page.contains("href=\"chapter-two.xhtml#two\""), "{page}");
    assert!(page.contains("href=\"chapter-two.xhtml\""), "{page}");
    let two = read_entry(&epub, "item/xhtml/chapter-two.xhtml");
    assert!(two.contains("href=\"ch-1.xhtml#intro\""), "{two}");
    let names = entry_names(&epub);
    let sheet = names
        .iter()
        .find(|n| n.starts_with("item/style/css/my_style-"))
        .unwrap();
    let css = read_entry(&epub, sheet);
    assert!(css.starts_with("@import url(\"more_rules-"), "{css}");
    assert!(css.contains("\") screen;\n"), "{css}");
    let more = names
        .iter()
        .find(|n| n.starts_with("item/style/css/more_rules-"))
        .unwrap();
    // Images have a folder of their own: the URL is written again from where the style sheet
    // lands.
    assert_eq!(
        read_entry(&epub, more),
        "h1 { background: url(\"../../image/images/猫.png\") }\n"
    );
}

/// A book's own `book.css` and `cover.png` at its top: seihon's house style sheet and generated
/// cover take `item/style/book.css` and `item/image/cover.png`, and the book's files go in
/// beside them under names of their own, each page still linking the book's, never losing
/// either file.
#[test]
fn a_books_files_named_like_seihons_own_are_kept_beside_them() {
    let project = TempProject::new();
    let book = project.path().join("books/clash");
    put(
        &book,
        "book.yml",
        format!("title: 同名のファイル\n{META}chapters: [one.md]\nstylesheets: [book.css]\n")
            .as_bytes(),
    );
    put(
        &book,
        "one.md",
        "# One\n\n![the author's cover](cover.png)\n".as_bytes(),
    );
    put(&book, "book.css", b"p { margin: 0 }\n");
    put(&book, "cover.png", PNG);
    let out = project.seihon(&["build", "clash"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("clash");
    let names = entry_names(&epub);
    let own_css = (names.iter())
        .find(|n| n.starts_with("item/style/book-") && n.ends_with(".css"))
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(read_entry(&epub, own_css), "p { margin: 0 }\n");
    assert_ne!(
        read_entry(&epub, "item/style/book.css"),
        "p { margin: 0 }\n"
    );
    let own_png = (names.iter())
        .find(|n| n.starts_with("item/image/cover-") && n.ends_with(".png"))
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(read_entry_bytes(&epub, own_png), PNG);
    assert_ne!(read_entry_bytes(&epub, "item/image/cover.png"), PNG);
    let page = read_entry(&epub, "item/xhtml/one.xhtml");
    let href = |path: &str| format!("\"../{}\"", path.trim_start_matches("item/"));
    assert!(page.contains(&href(own_css)), "{page}");
    assert!(page.contains(&href(own_png)), "{page}");
    assert_eq!(epubcheck(&epub), Vec::<String>::new());
}
