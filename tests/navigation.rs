//! Navigation and publishers' metadata end to end, through the real binary and epubcheck: the
//! NCX nested as the nav's table of contents (one tree, `toc_depth` deep), the landmarks and
//! the EPUB 2 `<guide>` made from them, and book.yml's `description`, `subjects` and `series`
//! with `dcterms:modified` from `SOURCE_DATE_EPOCH`, the last commit or the book's date.
use std::path::Path;
use std::process::Command;

use seihon::dom::{self, Element};

use crate::support::*;

/// A Markdown book `deep` of two chapters with sections three levels deep, with `extra` lines
/// in its book.yml.
fn deep_book(project: &TempProject, extra: &str) -> std::path::PathBuf {
    let dir = project.path().join("books/deep");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("book.yml"),
        format!(
            "title: Deep\nlanguage: en\nauthors: [A. Writer]\nchapters: [ch01.md, ch02.md]\n{extra}"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("ch01.md"),
        "# One\n\ntext\n\n## One A\n\ntext\n\n### One A i\n\ntext\n\n### One A ii\n\ntext\n\n## One B\n\ntext\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("ch02.md"),
        "# Two\n\ntext\n\n## Two A\n\ntext\n\n### Two A i\n\ntext\n",
    )
    .unwrap();
    dir
}

fn build_ok(project: &TempProject) {
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
}

/// A line of a table of contents and the lines under it.
#[derive(Debug, PartialEq, Eq)]
struct Line {
    label: String,
    href: String,
    children: Vec<Line>,
}

/// The nav's table of contents as lines.
fn nav_tree(nav: &str) -> Vec<Line> {
    let doc = dom::parse_document(nav).expect("nav parses");
    let mut toc = None;
    doc.root.walk(&mut |e| {
        if e.local_name() == "nav" && e.attr("epub:type") == Some("toc") {
            toc = Some(e.clone());
        }
    });
    let toc = toc.expect("a toc nav");
    let ol = toc
        .child_elements()
        .find(|e| e.local_name() == "ol")
        .unwrap();
    nav_lines(ol)
}

fn nav_lines(ol: &Element) -> Vec<Line> {
    ol.child_elements()
        .map(|li| {
            let a = li.child_elements().find(|e| e.local_name() == "a").unwrap();
            Line {
                label: a.text_content(),
                href: a.attr("href").unwrap().to_string(),
                children: li
                    .child_elements()
                    .find(|e| e.local_name() == "ol")
                    .map(nav_lines)
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The NCX's navMap as lines, with each point's playOrder in document order.
fn ncx_tree(ncx: &str, orders: &mut Vec<u32>) -> Vec<Line> {
    let doc = dom::parse_document(ncx).expect("NCX parses");
    let map = doc
        .root
        .child_elements()
        .find(|e| e.local_name() == "navMap")
        .unwrap();
    ncx_lines(map, orders)
}

fn ncx_lines(parent: &Element, orders: &mut Vec<u32>) -> Vec<Line> {
    parent
        .child_elements()
        .filter(|e| e.local_name() == "navPoint")
        .map(|p| {
            orders.push(p.attr("playOrder").unwrap().parse().unwrap());
            let label = p
                .child_elements()
                .find(|e| e.local_name() == "navLabel")
                .unwrap()
                .text_content();
            let href = p
                .child_elements()
                .find(|e| e.local_name() == "content")
                .and_then(|c| c.attr("src"))
                .unwrap()
                .to_string();
            Line {
                label,
                href,
                children: ncx_lines(p, orders),
            }
        })
        .collect()
}

fn depth(lines: &[Line]) -> usize {
    lines
        .iter()
        .map(|l| 1 + depth(&l.children))
        .max()
        .unwrap_or(0)
}

fn dtb_depth(ncx: &str) -> &str {
    let at = ncx.find("name=\"dtb:depth\" content=\"").unwrap() + 26;
    &ncx[at..at + ncx[at..].find('"').unwrap()]
}

fn clean(epub: &Path) {
    let messages = epubcheck(epub);
    assert!(messages.is_empty(), "{messages:#?}");
}

#[test]
fn the_ncx_nests_as_the_nav_to_toc_depth() {
    for (toc_depth, want_depth) in [(2, 2), (3, 3), (1, 1)] {
        let project = TempProject::new();
        deep_book(&project, &format!("toc_depth: {toc_depth}\n"));
        build_ok(&project);
        let epub = project.epub("deep");
        let nav = nav_tree(&read_entry(&epub, "item/nav.xhtml"));
        let ncx_text = read_entry(&epub, "item/toc.ncx");
        let mut orders = Vec::new();
        let mut ncx = ncx_tree(&ncx_text, &mut orders);
        // The NCX also lists the pages the nav lists apart, in reading order.
        let first = ncx.remove(0);
        assert_eq!(first.href, "xhtml/cover.xhtml");
        assert_eq!(ncx.remove(0).href, "nav.xhtml");
        assert_eq!(ncx.pop().unwrap().href, "xhtml/colophon.xhtml");
        assert_eq!(ncx, nav, "toc_depth {toc_depth}");
        assert_eq!(depth(&nav), want_depth, "{nav:#?}");
        assert_eq!(dtb_depth(&ncx_text), want_depth.to_string());
        let n = orders.len() as u32;
        assert_eq!(orders, (1..=n).collect::<Vec<_>>(), "{ncx_text}");
        if toc_depth == 2 {
            assert_eq!(nav[0].children.len(), 2, "{nav:#?}");
            assert_eq!(nav[0].children[0].href, "xhtml/ch01.xhtml#one-a");
            assert!(!ncx_text.contains("One A i"), "{ncx_text}");
        }
        if toc_depth == 3 {
            assert_eq!(nav[0].children[0].children.len(), 2, "{nav:#?}");
            assert!(ncx_text.contains("One A ii"), "{ncx_text}");
        }
        clean(&epub);
    }
}

const DOCBOOK: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<book xmlns="http://docbook.org/ns/docbook" version="5.0" xml:lang="en">
<info><title>Divisions</title><author><personname>Ann Author</personname></author>
<abstract><para>What this book is about.</para><para>And more.</para></abstract>
<subjectset><subject><subjectterm>Typesetting</subjectterm></subject></subjectset>
<keywordset><keyword>EPUB</keyword><keyword>Typesetting</keyword></keywordset>
</info>
<chapter xml:id="c1"><title>Start</title><para>See <glossterm>term</glossterm><indexterm><primary>term</primary></indexterm>.</para>
<section xml:id="s1"><title>Part one</title><para>Text.</para>
<section xml:id="s11"><title>Deeper</title><para>Text.</para></section></section></chapter>
<glossary xml:id="g"><title>Glossary</title><glossentry xml:id="ge"><glossterm>Term</glossterm><glossdef><para>Meaning.</para></glossdef></glossentry></glossary>
<bibliography xml:id="bib"><title>References</title><biblioentry xml:id="b1"><title>A Book</title></biblioentry></bibliography>
<index/>
</book>
"#;

#[test]
fn landmarks_and_the_guide_point_to_what_the_book_has() {
    let project = TempProject::new();
    let dir = project.path().join("books/divisions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("book.xml"), DOCBOOK).unwrap();
    build_ok(&project);
    let epub = project.epub("divisions");
    let nav = read_entry(&epub, "item/nav.xhtml");
    let landmarks = &nav[nav.find("epub:type=\"landmarks\"").unwrap()..];
    let landmarks = &landmarks[landmarks.find("<ol>").unwrap()..];
    let opf = read_entry(&epub, "item/standard.opf");
    let guide = &opf[opf.find("<guide>").expect("a guide")..];
    // Each landmark, and the guide's reference to the same page.
    let types = |text: &str, attr: &str| -> Vec<(String, String)> {
        text.split(attr)
            .skip(1)
            .map(|rest| {
                let kind = rest[..rest.find('"').unwrap()].to_string();
                let href_at = rest.find("href=\"").unwrap() + 6;
                let href = rest[href_at..href_at + rest[href_at..].find('"').unwrap()].to_string();
                (kind, href)
            })
            .collect()
    };
    let marks = types(landmarks, "epub:type=\"");
    let refs = types(guide, "type=\"");
    let kinds: Vec<&str> = marks.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "cover",
            "titlepage",
            "toc",
            "bodymatter",
            "glossary",
            "bibliography",
            "index",
            "colophon"
        ],
        "{landmarks}"
    );
    let opf2 = |k: &str| match k {
        "titlepage" => "title-page".to_string(),
        "bodymatter" => "text".to_string(),
        k => k.to_string(),
    };
    let want: Vec<(String, String)> = marks.iter().map(|(k, h)| (opf2(k), h.clone())).collect();
    assert_eq!(refs, want, "{guide}");
    // Each points to the page that is that division.
    for (kind, href) in &marks {
        let file = href.split('#').next().unwrap();
        let page = read_entry(&epub, &format!("item/{file}"));
        if matches!(kind.as_str(), "glossary" | "bibliography" | "index") {
            assert!(
                page.contains(&format!("epub:type=\"{kind}\"")),
                "{kind}: {page}"
            );
        }
    }
    // The NCX nests the chapter's sections (toc_depth 2 by default: not `Deeper`).
    let ncx = read_entry(&epub, "item/toc.ncx");
    assert_eq!(dtb_depth(&ncx), "2");
    assert!(ncx.contains("Part one") && !ncx.contains("Deeper"), "{ncx}");
    // The info's abstract and subjects are the package's description and subjects.
    assert!(
        opf.contains("<dc:description>What this book is about.\n\nAnd more.</dc:description>"),
        "{opf}"
    );
    assert!(
        opf.contains("<dc:subject>Typesetting</dc:subject>\n<dc:subject>EPUB</dc:subject>\n"),
        "{opf}"
    );
    assert_eq!(opf.matches("<dc:subject>").count(), 2, "{opf}");
    clean(&epub);
}

#[test]
fn a_book_without_those_divisions_has_no_landmark_for_them() {
    let project = TempProject::new();
    deep_book(&project, "");
    build_ok(&project);
    let epub = project.epub("deep");
    let nav = read_entry(&epub, "item/nav.xhtml");
    let opf = read_entry(&epub, "item/standard.opf");
    for kind in ["glossary", "bibliography", "index"] {
        assert!(!nav.contains(&format!("epub:type=\"{kind}\"")), "{nav}");
        assert!(!opf.contains(&format!("type=\"{kind}\"")), "{opf}");
    }
    assert!(
        opf.contains("<reference type=\"text\" title=\"One\" href=\"xhtml/ch01.xhtml\"/>"),
        "{opf}"
    );
    assert!(!opf.contains("dc:description") && !opf.contains("dc:subject"));
    assert!(!opf.contains("belongs-to-collection"), "{opf}");
}

const PUBLISHED: &str = "description: \"Sea stories, <deep> & dark.\"\nsubjects: [Fiction, Sea stories]\nseries: {name: The Deep Trilogy, position: 2}\n";

#[test]
fn description_subjects_and_series_are_in_the_package() {
    let project = TempProject::new();
    deep_book(&project, PUBLISHED);
    build_ok(&project);
    let epub = project.epub("deep");
    let opf = read_entry(&epub, "item/standard.opf");
    let want = "<dc:description>Sea stories, &lt;deep&gt; &amp; dark.</dc:description>\n\
                <dc:subject>Fiction</dc:subject>\n\
                <dc:subject>Sea stories</dc:subject>\n\
                <meta property=\"belongs-to-collection\" id=\"c1\">The Deep Trilogy</meta>\n\
                <meta refines=\"#c1\" property=\"collection-type\">series</meta>\n\
                <meta refines=\"#c1\" property=\"group-position\">2</meta>\n";
    assert!(opf.contains(want), "{opf}");
    // No date, no commit, no SOURCE_DATE_EPOCH: the fixed epoch.
    assert!(
        opf.contains("<meta property=\"dcterms:modified\">2000-01-01T00:00:00Z</meta>"),
        "{opf}"
    );
    clean(&epub);
}

#[test]
fn a_series_without_a_position_and_a_decimal_position() {
    for (series, want) in [
        ("{name: S}", None),
        ("{name: S, position: 2.5}", Some("2.5")),
    ] {
        let project = TempProject::new();
        deep_book(&project, &format!("series: {series}\n"));
        build_ok(&project);
        let opf = read_entry(&project.epub("deep"), "item/standard.opf");
        assert!(opf.contains(">S</meta>"), "{opf}");
        match want {
            None => assert!(!opf.contains("group-position"), "{opf}"),
            Some(p) => assert!(
                opf.contains(&format!("property=\"group-position\">{p}</meta>")),
                "{opf}"
            ),
        }
    }
}

#[test]
fn wrong_shapes_of_the_new_keys_are_errors_at_their_line() {
    for (extra, line, says) in [
        (
            "series: {name: S, position: -1}\n",
            5,
            "not a positive number",
        ),
        ("series: {name: S, positon: 2}\n", 5, "position"),
        ("series: {position: 2}\n", 5, "name"),
        ("series: {name: \" \", position: 2}\n", 5, "has no name"),
        ("subjects: {a: b}\n", 5, "sequence"),
        ("description: [a, b]\n", 5, "error"),
    ] {
        let project = TempProject::new();
        deep_book(&project, extra);
        let out = project.seihon(&["build"]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{extra}: {said}");
        assert!(
            said.contains(&format!("book.yml:{line}:")) && said.contains(says),
            "{extra}: {said}"
        );
        assert!(!said.contains("panicked"), "{said}");
    }
}

/// Builds `deep` with `env`, giving the package document and the EPUB's bytes.
fn build_with(project: &TempProject, env: &[(&str, &str)]) -> (String, Vec<u8>) {
    let out = Command::new(env!("CARGO_BIN_EXE_seihon"))
        .args(["build", "--force"])
        .current_dir(project.path())
        .env_remove("SOURCE_DATE_EPOCH")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("deep");
    (
        read_entry(&epub, "item/standard.opf"),
        std::fs::read(&epub).unwrap(),
    )
}

fn modified(opf: &str) -> &str {
    let at = opf.find("dcterms:modified\">").unwrap() + 18;
    &opf[at..at + 20]
}

#[test]
fn modified_is_source_date_epoch_else_the_last_commit_else_the_date() {
    let project = TempProject::new();
    let book = deep_book(&project, &format!("{PUBLISHED}date: 2026-04-01\n"));
    // The book's date, with no commit.
    let (opf, first) = build_with(&project, &[]);
    assert_eq!(modified(&opf), "2026-04-01T00:00:00Z");
    let (_, again) = build_with(&project, &[]);
    assert!(first == again, "two builds of the same sources differ");

    // Committed: the time of the last commit of the book's folder.
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(project.path())
            .env("GIT_AUTHOR_DATE", "@1767225600 +0000")
            .env("GIT_COMMITTER_DATE", "@1767225600 +0000")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .env_remove("GIT_DIR")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
    };
    git(&["init", "-q"]);
    git(&["add", "books"]);
    git(&["commit", "-q", "-m", "book"]);
    let (opf, first) = build_with(&project, &[]);
    assert_eq!(modified(&opf), "2026-01-01T00:00:00Z");
    // An output outside the book committed later does not change it.
    std::fs::write(project.path().join("notes.txt"), "x").unwrap();
    let later = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(project.path())
            .env("GIT_COMMITTER_DATE", "@1767312000 +0000")
            .env("GIT_AUTHOR_DATE", "@1767312000 +0000")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    later(&["add", "notes.txt"]);
    later(&["commit", "-q", "-m", "notes"]);
    let (opf, again) = build_with(&project, &[]);
    assert_eq!(modified(&opf), "2026-01-01T00:00:00Z");
    assert!(first == again, "a rebuild of the same commit differs");
    assert!(book.is_dir());

    // SOURCE_DATE_EPOCH over both.
    let (opf, first) = build_with(&project, &[("SOURCE_DATE_EPOCH", "1700000000")]);
    assert_eq!(modified(&opf), "2023-11-14T22:13:20Z");
    let (_, again) = build_with(&project, &[("SOURCE_DATE_EPOCH", "1700000000")]);
    assert!(first == again, "two builds with SOURCE_DATE_EPOCH differ");
}
