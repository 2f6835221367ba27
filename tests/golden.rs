//! Golden XHTML for each construct of each reader: `fixtures/<format>/<name>.<ext>` is read,
//! resolved and written as a one-chapter book, and the chapter's body must equal
//! `<name>.xhtml` beside it. `SEIHON_BLESS=1 cargo test --test suite golden` rewrites the expected
//! files (review the diff!).
use std::path::{Path, PathBuf};

use seihon::book::review::ReviewSettings;
use seihon::book::{Book, ChapterSource, Cover, Direction, Format, Metadata, Role, Writing};
use seihon::dom;
use seihon::error::Severity;
use seihon::xhtml::write;

fn fixture_dir(format: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format)
}

fn one_chapter_book(root: &Path, rel: &Path, format: Format) -> Book {
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
            print_isbn: None,
            page_source: None,
            rights: None,
            description: None,
            subjects: Vec::new(),
            series: None,
            writing: Writing::Horizontal,
            direction: Direction::Ltr,
        },
        chapters: vec![ChapterSource {
            rel: rel.into(),
            path: root.join(rel),
            role: Role::Body,
            format,
            part_title: None,
            page: None,
            division: None,
        }],
        cover: Cover::Generated,
        stylesheets: Vec::new(),
        toc_depth: 3,
        secnolevel: 2,
        review: (format == Format::Review).then(|| ReviewSettings {
            imagedir: "images".into(),
            words: [("seihon".to_string(), "製本".to_string())]
                .into_iter()
                .collect(),
            draft: false,
            tabwidth: 8,
            // A fixture named `*-by-lang.re` is read with `join_lines_by_lang: true`.
            join_lines_by_lang: rel.to_string_lossy().ends_with("-by-lang.re"),
            extension_blocks: Vec::new(),
        }),
        docbook: None,
        given: Default::default(),
        accessibility: Default::default(),
        filters: None,
        checks: Default::default(),
        shared_dirs: Vec::new(),
        catalogs: Default::default(),
        // A Markdown fixture named `*-smart.md` is read with `typography: smart`.
        typography: if rel.to_string_lossy().ends_with("-smart.md") {
            seihon::book::Typography::Smart
        } else {
            seihon::book::Typography::AsWritten
        },
        fonts: Default::default(),
        // Re:VIEW fixtures take Re:VIEW's words; `<name>.locale.yml` beside one is its
        // locale.yml.
        locale: seihon::i18n::Locale {
            style: if format == Format::Review {
                seihon::i18n::Style::Review
            } else {
                seihon::i18n::Style::Seihon
            },
            overrides: std::sync::Arc::new(
                seihon::book::review::locale_file(
                    &root.join(rel).with_extension("locale.yml"),
                    &mut Vec::new(),
                )
                .unwrap(),
            ),
        },
        colophon: None,
        generated: Default::default(),
        index: Default::default(),
        root: root.to_path_buf(),
    }
}

fn messages(book: &Book) -> seihon::i18n::Messages {
    book.locale.messages(&book.meta.language)
}

/// The XHTML bodies seihon writes for a DocBook document (every chapter, in order).
fn render_docbook(dir: &Path, file: &str) -> String {
    let (db, findings) = seihon::reader::docbook::read(&dir.join(file), dir);
    let errors: Vec<_> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{file}: {errors:?}");
    let mut book = one_chapter_book(dir, Path::new(file), Format::DocBook);
    // The document's own language (its root's `lang`), else English.
    book.meta.language = db.meta.language.clone().unwrap_or_else(|| "en".into());
    book.locale.style = seihon::i18n::Style::DocBook;
    let docs: Vec<_> = db
        .chapters
        .into_iter()
        .map(|c| {
            let source = ChapterSource {
                rel: c.doc.source.clone(),
                path: dir.join(&c.doc.source),
                role: c.role,
                format: Format::DocBook,
                part_title: None,
                page: None,
                division: c.division,
            };
            (source, c.doc)
        })
        .collect();
    let resolved = seihon::xref::resolve_with(&book, docs, &db.xref_texts)
        .unwrap_or_else(|f| panic!("{file}: {f:?}"));
    resolved
        .chapters
        .iter()
        .map(|ch| dom::serialize_nodes(&write::write_chapter(ch, &messages(&book))) + "\n")
        .collect()
}

/// The XHTML body seihon writes for one source file.
fn render(format: Format, dir: &Path, file: &str) -> String {
    if format == Format::DocBook {
        return render_docbook(dir, file);
    }
    let rel = PathBuf::from(file);
    let book = one_chapter_book(dir, &rel, format);
    let text = std::fs::read_to_string(dir.join(&rel)).unwrap();
    let (doc, findings) = match format {
        Format::Markdown => {
            let smart = book.typography == seihon::book::Typography::Smart;
            let opts = seihon::reader::markdown::MarkdownOptions { smart };
            seihon::reader::markdown::read_with(&text, &rel, opts)
        }
        _ => {
            let settings = book.review.clone().unwrap_or_default();
            let opts = seihon::reader::review::ReviewOptions {
                words: settings.words,
                draft: settings.draft,
                tabwidth: settings.tabwidth,
                join_lines_by_lang: settings.join_lines_by_lang,
                extension_blocks: settings.extension_blocks,
            };
            seihon::reader::review::read(&text, &rel, &opts)
        }
    };
    let errors: Vec<_> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{file}: {errors:?}");
    let resolved = seihon::xref::resolve(&book, vec![(book.chapters[0].clone(), doc)])
        .unwrap_or_else(|f| panic!("{file}: {f:?}"));
    // Source positions are kept beside the tree, so the goldens are the XHTML readers get.
    dom::serialize_nodes(&write::write_chapter(
        &resolved.chapters[0],
        &messages(&book),
    )) + "\n"
}

fn check_all(format: Format, dir_name: &str, ext: &str, at_least: usize) {
    let dir = fixture_dir(dir_name);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(ext)
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= at_least, "fixtures missing: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let got = render(format, &dir, &format!("{name}{ext}"));
        let expected_path = dir.join(format!("{name}.xhtml"));
        if let Some(expected) = crate::support::against_golden(&got, &expected_path) {
            failures.push(format!("--- {name}: expected\n{expected}--- got\n{got}"));
        }
        // Whatever the construct, the output must be well-formed XHTML.
        dom::parse_fragment(&got).unwrap_or_else(|e| panic!("{name}: not well-formed: {e}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_markdown_construct_matches_its_golden_xhtml() {
    check_all(Format::Markdown, "markdown", ".md", 10);
}

#[test]
fn every_docbook_element_group_matches_its_golden_xhtml() {
    check_all(Format::DocBook, "docbook", ".xml", 15);
}

#[test]
fn every_review_command_matches_its_golden_xhtml() {
    check_all(Format::Review, "review", ".re", 60);
}

/// The colophon (奥付) as built, against `fixtures/colophon/<format>/colophon.xhtml`: a
/// Re:VIEW book with every role of `colophon_order` (one past Re:VIEW's words, one reworded in
/// its locale.yml) and `contact:`, and a book.yml book whose creators of many roles are
/// grouped under their words, a role with no word under its MARC relator name.
#[test]
fn the_colophon_lists_every_role_by_its_word() {
    for format in ["review", "markdown"] {
        let src = fixture_dir("colophon").join(format);
        let project = crate::support::TempProject::new();
        project.add_book(&src, "b");
        let out = project.seihon(&["build"]);
        assert!(out.status.success(), "{}", crate::support::text(&out));
        let page = crate::support::read_entry(&project.epub("b"), "item/xhtml/colophon.xhtml");
        let body = &page[page.find("<body").unwrap()..page.find("</body>").unwrap()];
        let got = format!("{body}</body>\n");
        if let Some(expected) = crate::support::against_golden(&got, &src.join("colophon.xhtml")) {
            assert_eq!(got, expected, "{format}");
        }
    }
}
