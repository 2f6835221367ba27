//! A Re:VIEW book's own front and back matter pages (`titlefile:`, `originaltitlefile:`,
//! `creditfile:`, `profile:`, `advfile:`, `colophon:` naming a file, `backcover:`): built
//! into the EPUB where Re:VIEW puts them, named in the contents by Re:VIEW's words, their
//! images packed, and valid under the real epubcheck; a missing or broken one degrades.
use std::path::Path;

use crate::support::{TempProject, entry_names, epubcheck, read_entry, text};

const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A page as Re:VIEW's users write one: a whole XHTML document with its own head.
fn page(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"ja\">\n<head><meta charset=\"UTF-8\"/><title>x</title><link rel=\"stylesheet\" href=\"style.css\"/></head>\n<body>\n{body}\n</body>\n</html>\n"
    )
}

fn review_book(
    project: &TempProject,
    config_extra: &str,
    files: &[(&str, String)],
) -> std::path::PathBuf {
    let dir = project.path().join("books/rv");
    std::fs::create_dir_all(dir.join("images")).unwrap();
    std::fs::write(
        dir.join("config.yml"),
        format!("booktitle: 本の題\naut: [著者 一郎]\nlanguage: ja\n{config_extra}"),
    )
    .unwrap();
    std::fs::write(dir.join("catalog.yml"), "CHAPS:\n  - ch01.re\n").unwrap();
    std::fs::write(dir.join("ch01.re"), "= 第一章\n\n本文です。\n").unwrap();
    std::fs::write(dir.join("images/me.png"), PNG).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

/// The package document's spine, as the hrefs of its pages.
fn spine(epub: &Path) -> Vec<String> {
    let opf = read_entry(epub, "item/standard.opf");
    let href_of = |id: &str| {
        let at = opf.find(&format!("id=\"{id}\"")).unwrap();
        let start = opf[..at].rfind("<item ").unwrap();
        let item = &opf[start..start + opf[start..].find("/>").unwrap()];
        let h = item.find("href=\"").unwrap() + 6;
        item[h..h + item[h..].find('"').unwrap()].to_string()
    };
    opf.split("<itemref idref=\"")
        .skip(1)
        .map(|r| href_of(&r[..r.find('"').unwrap()]))
        .collect()
}

#[test]
fn a_review_books_own_pages_are_built_where_review_puts_them() {
    let project = TempProject::new();
    review_book(
        &project,
        "titlefile: title.html\noriginaltitlefile: original.html\ncreditfile: credit.html\nprofile: profile.html\nadvfile: ad.html\ncolophon: okuduke.html\nbackcover: back.html\n",
        &[
            (
                "title.html",
                page("<h1 class=\"title\">本の題</h1>\n<p>著者 一郎 著</p>"),
            ),
            ("original.html", page("<p>The Original Title</p>")),
            ("credit.html", page("<p>Copyright © 2026 著者 一郎</p>")),
            (
                "profile.html",
                page(
                    "<div class=\"profile\"><img src=\"images/me.png\" alt=\"著者の写真\"/><p>著者 一郎 ── 東京生まれ。</p></div>",
                ),
            ),
            ("ad.html", page("<p>新刊のご案内</p>")),
            (
                "okuduke.html",
                page("<p>本の題　2026年12月1日 初版発行</p>"),
            ),
            ("back.html", "<p>裏表紙の言葉</p>\n".to_string()),
        ],
    );
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("warning"), "{}", text(&out));
    assert!(text(&out).contains("(1 chapter)"), "{}", text(&out));
    let epub = project.epub("rv");
    assert_eq!(epubcheck(&epub), Vec::<String>::new());

    assert_eq!(
        spine(&epub),
        [
            "xhtml/cover.xhtml",
            "xhtml/title.xhtml",
            "xhtml/original.xhtml",
            "xhtml/credit.xhtml",
            "nav.xhtml",
            "xhtml/ch01.xhtml",
            "xhtml/profile.xhtml",
            "xhtml/ad.xhtml",
            "xhtml/okuduke.xhtml",
            "xhtml/back.xhtml",
        ]
    );
    let names = entry_names(&epub);
    for generated in ["item/xhtml/titlepage.xhtml", "item/xhtml/colophon.xhtml"] {
        assert!(
            !names.iter().any(|n| n == generated),
            "{generated} in {names:?}"
        );
    }

    // The page is the author's body, as written, with the book's own head.
    let profile = read_entry(&epub, "item/xhtml/profile.xhtml");
    assert!(profile.contains("<title>著者紹介</title>"), "{profile}");
    assert!(
        profile.contains("<p>著者 一郎 ── 東京生まれ。</p>"),
        "{profile}"
    );
    assert!(
        profile.contains("src=\"../image/images/me.png\""),
        "{profile}"
    );
    assert!(profile.contains("epub:type=\"contributors\""), "{profile}");
    assert!(names.iter().any(|n| n == "item/image/images/me.png"));
    let back = read_entry(&epub, "item/xhtml/back.xhtml");
    assert!(back.contains("<p>裏表紙の言葉</p>"), "{back}");

    // The contents name the pages by Re:VIEW's words; the title page and colophon are
    // landmarks, not lines of the contents, as the generated ones are.
    let nav = read_entry(&epub, "item/nav.xhtml");
    let toc = &nav[..nav.find("landmarks").unwrap()];
    for title in [
        "原書大扉",
        "クレジット",
        "第1章　第一章",
        "著者紹介",
        "広告",
        "裏表紙",
    ] {
        assert!(toc.contains(title), "{title} not in {toc}");
    }
    assert!(
        !toc.contains("xhtml/title.xhtml") && !toc.contains("奥付"),
        "{toc}"
    );
    assert!(
        toc.find("クレジット") < toc.find("第一章") && toc.find("第一章") < toc.find("著者紹介")
    );
    assert!(
        nav.contains("epub:type=\"titlepage\" href=\"xhtml/title.xhtml\""),
        "{nav}"
    );
    assert!(
        nav.contains("epub:type=\"colophon\" href=\"xhtml/okuduke.xhtml\""),
        "{nav}"
    );
    let ncx = read_entry(&epub, "item/toc.ncx");
    assert!(
        ncx.contains("xhtml/okuduke.xhtml") && ncx.contains("xhtml/back.xhtml"),
        "{ncx}"
    );
}

#[test]
fn a_missing_or_broken_page_is_a_warning_and_the_book_is_made_without_it() {
    let project = TempProject::new();
    review_book(
        &project,
        "titlefile: nowhere.html\nprofile: profile.html\nadvfile: ../outside.html\ncolophon: true\n",
        &[("profile.html", page("<p>a<br></p>"))],
    );
    std::fs::write(project.path().join("books/outside.html"), page("<p>x</p>")).unwrap();
    let out = project.seihon(&["build"]);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("books/rv/config.yml:4:1: warning: the page `nowhere.html` named by `titlefile:` does not exist; seihon makes its own in its place"),
        "{log}"
    );
    assert!(
        log.contains("the page `../outside.html` named by `advfile:` is outside the book folder"),
        "{log}"
    );
    assert!(
        log.contains("profile.html:6:9: warning: this page is not well-formed XHTML"),
        "{log}"
    );
    let epub = project.epub("rv");
    assert_eq!(epubcheck(&epub), Vec::<String>::new());
    let names = entry_names(&epub);
    assert!(
        names.iter().any(|n| n == "item/xhtml/titlepage.xhtml"),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n == "item/xhtml/colophon.xhtml"),
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.contains("outside")), "{names:?}");

    // In a release, the same defect stops the book.
    let out = project.seihon(&["release", "rv", "--version", "1.0"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("config.yml:4:1: error: the page `nowhere.html`"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_title_page_file_is_not_used_when_the_book_has_no_title_page() {
    let project = TempProject::new();
    review_book(
        &project,
        "titlepage: false\ntitlefile: title.html\nprofile: [a, b]\n",
        &[("title.html", page("<p>x</p>"))],
    );
    let out = project.seihon(&["build"]);
    let log = text(&out);
    // A list where a file name belongs is the wrong shape: an error at its line.
    assert!(!out.status.success(), "{log}");
    assert!(
        log.contains("config.yml:6:1: error: `profile:` names a file"),
        "{log}"
    );
    review_book(&project, "titlepage: false\ntitlefile: title.html\n", &[]);
    let out = project.seihon(&["build"]);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("config.yml:5:1: warning: the book has no title page (`titlepage:` is off), so `title.html` is not used"), "{log}");
    let names = entry_names(&project.epub("rv"));
    assert!(!names.iter().any(|n| n.contains("title")), "{names:?}");
}
