//! XML catalogs for DocBook books (issue 20, item 2): a DTD layer found through `catalog.xml` in
//! the book folder, `catalogs:` in seihon.yml or `XML_CATALOG_FILES`; entities declared there
//! (parameter entities, conditional sections) expand; nothing is fetched; a broken catalog is a
//! located warning. And the root of a DocBook main file is found past any prolog (item 3).
use std::path::Path;
use std::process::{Command, Output};

use crate::support;

use support::*;

fn fixture() -> std::path::PathBuf {
    repo().join("tests/fixtures/docbook/catalogs/book")
}

/// Runs seihon in the project with `XML_CATALOG_FILES` as given (unset when `None`), whatever
/// the environment of the test.
fn seihon(project: &TempProject, args: &[&str], catalogs: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_seihon"));
    cmd.args(args)
        .current_dir(project.path())
        .env_remove("SOURCE_DATE_EPOCH")
        .env_remove("XML_CATALOG_FILES");
    if let Some(c) = catalogs {
        cmd.env("XML_CATALOG_FILES", c);
    }
    cmd.output().expect("run seihon")
}

/// The running text of every page of the EPUB, tags taken out.
fn epub_text(epub: &Path) -> String {
    let mut all = String::new();
    for name in entry_names(epub) {
        if name.starts_with("item/xhtml/") && name.ends_with(".xhtml") {
            let page = read_entry(epub, &name);
            let mut in_tag = false;
            for c in page.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => {
                        in_tag = false;
                        all.push(' ');
                    }
                    c if !in_tag => all.push(c),
                    _ => {}
                }
            }
        }
    }
    all.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn warnings_of(out: &Output, code_words: &str) -> Vec<String> {
    text(out)
        .lines()
        .filter(|l| l.contains(": warning: ") && l.contains(code_words))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_dtd_layer_found_through_the_books_catalog_declares_its_entities() {
    let project = TempProject::new();
    project.add_book(&fixture(), "cat");
    let out = seihon(&project, &["build", "cat"], None);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    // The one warning: an entity declared only in an IGNORE section.
    let warnings: Vec<&str> = all.lines().filter(|l| l.contains(": warning: ")).collect();
    assert_eq!(warnings.len(), 1, "{all}");
    assert!(
        warnings[0].contains("`&ignored-kept;` is not defined"),
        "{all}"
    );
    let epub = project.epub("cat");
    let words = epub_text(&epub);
    for expected in [
        // public (in a group with xml:base), DocBook's own entities without its DTD.
        "Seihon — the second edition – uses catalogued terms and the next catalog's entity.",
        // INCLUDE, nested IGNORE, the later declaration.
        "Included: from the included section declared after the ignored section;",
        // rewriteSystem for an external general entity, with the layer's entity in it.
        "Reached through rewriteSystem, with Seihon inside.",
        // uri for an XInclude href.
        "Reached through a uri entry.",
    ] {
        assert!(words.contains(expected), "missing {expected:?} in: {words}");
    }
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn without_a_catalog_the_layer_is_named_once_and_nothing_is_fetched() {
    let project = TempProject::new();
    let book = project.add_book(&fixture(), "cat");
    std::fs::remove_file(book.join("catalog.xml")).unwrap();
    let out = seihon(&project, &["build", "cat"], None);
    let all = text(&out);
    // The chapter entity and the XInclude have no file: that is text lost, an error.
    assert!(!out.status.success(), "{all}");
    let unread = warnings_of(
        &out,
        "the DTD `http://example.org/dtd/layer.dtd` is not read",
    );
    assert_eq!(unread.len(), 1, "{all}");
    assert!(
        unread[0].starts_with("books/cat/book.xml:3:"),
        "located at the DOCTYPE: {all}"
    );
    assert!(all.contains("never downloads anything"), "{all}");
    assert!(
        all.contains("`&app;` is not defined"),
        "the layer's entities are unknown: {all}"
    );
}

#[test]
fn xml_catalog_files_and_seihon_yml_name_catalogs_outside_the_book() {
    // The layer and its catalog in a folder of the project, as a house DTD would be.
    let project = TempProject::new();
    let book = project.add_book(&fixture(), "cat");
    let house = project.path().join("xml");
    copy_dir(&book, &house);
    std::fs::remove_file(book.join("catalog.xml")).unwrap();
    for gone in ["dtd", "more", "parts"] {
        std::fs::remove_dir_all(book.join(gone)).unwrap();
    }
    let env = format!(
        "https://example.org/never-fetched/catalog.xml {}",
        house.join("catalog.xml").display()
    );
    let out = seihon(&project, &["build", "cat"], Some(&env));
    assert!(out.status.success(), "{}", text(&out));
    assert!(epub_text(&project.epub("cat")).contains("Reached through a uri entry."));

    std::fs::write(
        project.path().join("seihon.yml"),
        "catalogs: [xml/catalog.xml]\n",
    )
    .unwrap();
    let out = seihon(&project, &["build", "cat"], None);
    assert!(out.status.success(), "{}", text(&out));
    assert!(epub_text(&project.epub("cat")).contains("Reached through rewriteSystem"));

    // seihon.yml may not name a catalog outside the project.
    std::fs::write(
        project.path().join("seihon.yml"),
        "toc_depth: 2\ncatalogs: [../elsewhere/catalog.xml]\n",
    )
    .unwrap();
    let out = seihon(&project, &["build", "cat"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("seihon.yml:2:1: error: the catalog"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_catalog_that_is_not_well_formed_is_a_located_warning_and_the_book_builds() {
    let project = TempProject::new();
    let book = project.add_book(&fixture(), "cat");
    // Its own catalog is broken; the environment's still maps the layer.
    let good = project.path().join("xml");
    copy_dir(&book, &good);
    std::fs::write(
        book.join("catalog.xml"),
        "<?xml version=\"1.0\"?>\n<catalog xmlns=\"urn:oasis:names:tc:entity:xmlns:xml:catalog\">\n  <public publicId=\"x\" uri=\"y\">\n</catalog>\n",
    )
    .unwrap();
    let env = good.join("catalog.xml").display().to_string();
    let out = seihon(&project, &["build", "cat"], Some(&env));
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let broken = warnings_of(&out, "this XML catalog is not well-formed");
    assert_eq!(broken.len(), 1, "{all}");
    assert!(broken[0].contains("catalog.xml:4:1: warning:"), "{all}");
}

#[test]
fn a_catalog_never_leads_out_of_its_folder_or_to_the_web() {
    let project = TempProject::new();
    let book = project.add_book(&fixture(), "cat");
    std::fs::write(
        project.path().join("secret.ent"),
        "<!ENTITY app \"secret\">",
    )
    .unwrap();
    std::fs::write(
        book.join("catalog.xml"),
        "<catalog xmlns=\"urn:oasis:names:tc:entity:xmlns:xml:catalog\">\n\
         <public publicId=\"-//Seihon//DTD Fixture Layer V1//EN\" uri=\"../../secret.ent\"/>\n\
         <rewriteSystem systemIdStartString=\"http://example.org/parts/\" rewritePrefix=\"https://example.net/parts/\"/>\n\
         </catalog>\n",
    )
    .unwrap();
    let out = seihon(&project, &["build", "cat"], None);
    let all = text(&out);
    let unread = warnings_of(&out, "is not read: it is mapped by an XML catalog to ");
    assert_eq!(unread.len(), 1, "{all}");
    assert!(
        unread[0].contains(
            "secret.ent, outside the book folder, the shared folders and the catalog's folder"
        ),
        "{all}"
    );
    assert!(all.contains("`&app;` is not defined"), "{all}");
    assert!(
        all.contains("(a catalog maps it to `https://example.net/parts/ch2.xml`); seihon never downloads anything"),
        "{all}"
    );
}

#[test]
fn the_corpus_dtd_layer_book_has_no_unknown_entity() {
    let Some(corpus) = std::env::var_os("SEIHON_CORPUS").map(std::path::PathBuf::from) else {
        eprintln!("skipped: SEIHON_CORPUS is not set");
        return;
    };
    let source = corpus.join("docbook/gnucash-guide-ja");
    if !source.is_dir() {
        eprintln!("skipped: {} is not in the corpus", source.display());
        return;
    }
    let project = TempProject::new();
    let copy = project.path().join("gnucash");
    copy_dir(&source, &copy);
    let report = project.path().join("report.json");
    let env = copy.join("catalog.xml").display().to_string();
    let out = seihon(
        &project,
        &[
            "build",
            "gnucash/ja/guide/index.docbook",
            "--report",
            &format!("json:{}", report.display()),
        ],
        Some(&env),
    );
    assert!(out.status.success(), "{}", text(&out));
    let json = std::fs::read_to_string(&report).unwrap();
    for code in ["\"unknown-entity\"", "\"unread-dtd\"", "\"xml-catalog\""] {
        assert!(!json.contains(code), "{code} in {json}");
    }
}

#[test]
fn the_root_is_found_past_every_trap_in_the_prolog() {
    let project = TempProject::new();
    let subset: String = (0..4000)
        .map(|i| format!("<!ENTITY e{i} \"<para>]> {i}</para>\">\n"))
        .collect();
    let traps = [
        // A comment and a PI holding tags, an entity value holding markup and `]>`, a subset
        // comment holding `]>`, a subset past 64 KiB.
        format!(
            "\u{feff}<?xml version=\"1.0\"?>\n<!-- <chapter> -->\n<?pi <article>?>\n<!DOCTYPE book [\n<!-- ]> -->\n{subset}]>\n<book><title>T</title><chapter><title>C</title><para>&e7;</para></chapter></book>\n"
        ),
    ];
    for (i, main) in traps.iter().enumerate() {
        let dir = project.path().join(format!("books/trap{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("main.xml"), main).unwrap();
        std::fs::write(dir.join("ch-old.xml"), "<!-- <book> --><chapter/>").unwrap();
    }
    let out = project.seihon(&["list", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(traps.len()),
        "{listed}"
    );
    // UTF-16 is found as a book, so reading it says what is wrong with it.
    let dir = project.path().join("books/wide");
    std::fs::create_dir_all(&dir).unwrap();
    let wide: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "<!-- x --><book/>"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    std::fs::write(dir.join("main.xml"), wide).unwrap();
    let out = project.seihon(&["build", "wide"]);
    assert!(text(&out).contains("this file is UTF-16"), "{}", text(&out));
}
