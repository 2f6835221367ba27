//! The preview area `public/<id>/`: the EPUB, its unpacked pages and an index, swapped in
//! whole; a failed build keeps the last good preview byte for byte, marked stale.
use crate::support;

use std::path::Path;

use support::*;

fn status(preview: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(preview.join("status.json")).unwrap()).unwrap()
}

#[test]
fn a_build_publishes_the_epub_its_pages_and_an_index() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let preview = project.path().join("public/neko");
    assert_eq!(
        std::fs::read(preview.join("neko.epub")).unwrap(),
        std::fs::read(project.epub("neko")).unwrap(),
        "the EPUB as built"
    );
    let index = std::fs::read_to_string(preview.join("index.html")).unwrap();
    // Every page of the spine is linked, and every link opens a page of the unpacked tree.
    for page in [
        "cover",
        "titlepage",
        "preface",
        "ch01",
        "ch02",
        "ch03-english",
        "colophon",
    ] {
        let href = format!("book/item/xhtml/{page}.xhtml");
        assert!(
            index.contains(&format!("href=\"{href}\"")),
            "{page}: {index}"
        );
        assert!(preview.join(&href).is_file(), "{href}");
    }
    assert!(
        index.contains("<a href=\"book/item/xhtml/ch01.xhtml\">原稿を書く</a>"),
        "{index}"
    );
    assert!(
        index.contains("src=\"book/item/image/cover.png\""),
        "{index}"
    );
    assert!(index.contains("class=\"status ok\""), "{index}");
    let s = status(&preview);
    assert_eq!(s["ok"], true);
    assert_eq!(s["stale"], false);
    assert!(
        s["changes"].is_null(),
        "a first build has nothing to compare with"
    );
    assert!(preview.join("build.log").is_file());
}

#[test]
fn the_index_says_what_changed_since_the_previous_build() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    assert!(project.seihon(&["build"]).status.success());
    let ch02 = book.join("ch02.md");
    let text_ = std::fs::read_to_string(&ch02).unwrap() + "\n新しい段落。\n";
    std::fs::write(&ch02, text_).unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let preview = project.path().join("public/neko");
    let changes = &status(&preview)["changes"];
    let changed: Vec<&str> = changes["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(changed.contains(&"item/xhtml/ch02.xhtml"), "{changes}");
    assert!(!changed.contains(&"item/xhtml/ch01.xhtml"), "{changes}");
    assert_eq!(changes["added"].as_array().unwrap().len(), 0, "{changes}");
    let index = std::fs::read_to_string(preview.join("index.html")).unwrap();
    assert!(
        index.contains("changed <a href=\"book/item/xhtml/ch02.xhtml\">"),
        "{index}"
    );
}

/// The index shows the edited passages of each changed page, word by word in English and
/// character by character in Japanese, escaped, under a link to the page.
#[test]
fn the_index_shows_the_words_that_changed() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    assert!(project.seihon(&["build"]).status.success());
    let edit = |name: &str, from: &str, to: &str| {
        let path = book.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{name}: {from}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "ch03-english.md",
        "a book that mixes languages.",
        "a book that mixes two `<scripts>`.",
    );
    edit("ch02.md", "良い原稿から", "丁寧な原稿から");
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let preview = project.path().join("public/neko");
    let index = std::fs::read_to_string(preview.join("index.html")).unwrap();
    for wanted in [
        "<h3><a href=\"book/item/xhtml/ch03-english.xhtml\">Binding in English</a></h3>",
        "a book that mixes <del>languages</del> <ins>two &lt;scripts&gt;</ins>.",
        "<h3><a href=\"book/item/xhtml/ch02.xhtml\">組版と検査</a></h3>",
        "良い本は、<del>良い</del><ins>丁寧な</ins>原稿から生まれる。",
    ] {
        assert!(index.contains(wanted), "{wanted}:\n{index}");
    }
    // Only the pages whose text changed, each once; the file list stays.
    assert_eq!(
        index.matches("<article class=\"page-diff\">").count(),
        2,
        "{index}"
    );
    assert!(
        index.contains("changed <a href=\"book/item/xhtml/ch02.xhtml\">"),
        "{index}"
    );
    let pages = &status(&preview)["changes"]["pages"];
    assert_eq!(pages.as_array().map(Vec::len), Some(2), "{pages}");
}

/// Rebuilds start from the trees before last (kept under `build/.cache/spare*`) and change only
/// what changed: after each, the preview's pages and the staged tree are exactly the EPUB's.
#[test]
fn rebuilt_previews_and_staged_trees_are_exactly_the_epub() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let preview = project.path().join("public/neko");
    let yml = book.join("book.yml");
    let chapters = |list: &str| {
        let text = std::fs::read_to_string(&yml).unwrap();
        let line = text.lines().find(|l| l.starts_with("chapters:")).unwrap();
        std::fs::write(&yml, text.replace(line, &format!("chapters: [{list}]"))).unwrap();
    };
    let edit = |name: &str, add: &str| {
        let path = book.join(name);
        let text = std::fs::read_to_string(&path).unwrap() + add;
        std::fs::write(&path, text).unwrap();
    };
    let changes = || status(&preview)["changes"].clone();
    let listed = |v: &serde_json::Value, key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let steps: [(&str, &dyn Fn()); 8] = [
        ("first build", &|| {}),
        ("same again", &|| {}),
        ("a paragraph", &|| edit("ch02.md", "\n段落。\n")),
        ("a new chapter", &|| {
            std::fs::write(book.join("ch04.md"), "# 第四章\n\n本文。\n").unwrap();
            chapters("ch01.md, ch02.md, ch03-english.md, ch04.md");
        }),
        ("a chapter taken out", &|| {
            chapters("ch01.md, ch02.md, ch03-english.md")
        }),
        ("a paragraph again", &|| edit("ch01.md", "\n段落。\n")),
        ("a paragraph, the kept CRCs gone", &|| {
            let _ = std::fs::remove_dir_all(project.path().join("build/.cache/crcs"));
            edit("ch02.md", "\n段落。\n")
        }),
        // After packing, a hook edits the staged pages: nothing vouches for them any more, so
        // the preview takes them from the EPUB, not from the staged tree.
        ("a hook edits the staged pages after packing", &|| {
            write_exec(
                &book.join("hooks/post-pack"),
                "#!/bin/sh\nfor f in item/xhtml/*.xhtml; do echo '<!-- after packing -->' >> \"$f\"; done\n",
            );
            edit("ch01.md", "\n段落。\n")
        }),
    ];
    for (step, change) in steps {
        change();
        let out = project.seihon(&["build"]);
        assert!(out.status.success(), "{step}: {}", text(&out));
        let epub = project.epub("neko");
        let packed: std::collections::BTreeMap<String, Vec<u8>> = entry_names(&epub)
            .into_iter()
            .map(|name| (name.clone(), read_entry_bytes(&epub, &name)))
            .collect();
        assert_eq!(
            files_of(&preview.join("book")),
            packed,
            "{step}: the preview"
        );
        let staged = files_of(&project.path().join("build/neko"));
        if step.starts_with("a hook") {
            assert_ne!(
                staged, packed,
                "{step}: the hook's edits are in the staged tree"
            );
        } else {
            assert_eq!(staged, packed, "{step}: the staged tree");
        }
        let c = changes();
        match step {
            // Nothing changed: the build was skipped, the preview is the first one.
            "first build" | "same again" => assert!(c.is_null(), "{step}: {c}"),
            "a new chapter" => assert!(
                listed(&c, "added").contains(&"item/xhtml/ch04.xhtml".to_string()),
                "{step}: {c}"
            ),
            "a chapter taken out" => assert!(
                listed(&c, "removed").contains(&"item/xhtml/ch04.xhtml".to_string()),
                "{step}: {c}"
            ),
            _ => assert!(!listed(&c, "changed").is_empty(), "{step}: {c}"),
        }
    }
}

#[test]
fn a_failed_build_keeps_the_last_good_preview_byte_for_byte_and_marks_it_stale() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    assert!(project.seihon(&["build"]).status.success());
    let preview = project.path().join("public/neko");
    let epub_before = std::fs::read(preview.join("neko.epub")).unwrap();
    let pages_before = files_of(&preview.join("book"));

    let ch01 = book.join("ch01.md");
    let good = std::fs::read_to_string(&ch01).unwrap();
    std::fs::write(
        &ch01,
        format!("{good}\n{}\n", unreadable_markdown("See x.")),
    )
    .unwrap();
    let line = good.lines().count() + 2;
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    assert_eq!(
        std::fs::read(preview.join("neko.epub")).unwrap(),
        epub_before
    );
    assert_eq!(files_of(&preview.join("book")), pages_before);
    let s = status(&preview);
    assert_eq!(
        (s["ok"].as_bool(), s["stale"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(s["failed_stage"], "read");
    let index = std::fs::read_to_string(preview.join("index.html")).unwrap();
    assert!(index.contains("class=\"status stale\""), "{index}");
    assert!(index.contains("failed at the read step"), "{index}");
    assert!(
        index.contains(&format!("books/neko/ch01.md:{line}:")),
        "{index}"
    );
    // The pages are still linked.
    assert!(
        index.contains("href=\"book/item/xhtml/ch01.xhtml\""),
        "{index}"
    );

    // Fixed: fresh again.
    std::fs::write(&ch01, good).unwrap();
    assert!(project.seihon(&["build"]).status.success());
    assert_eq!(status(&preview)["stale"], false);
}

#[test]
fn a_book_that_never_built_gets_an_index_with_its_errors() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let ch01 = book.join("ch01.md");
    let text_ = format!(
        "{}\n{}\n",
        std::fs::read_to_string(&ch01).unwrap(),
        unreadable_markdown("See x.")
    );
    std::fs::write(&ch01, text_).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(1));
    let preview = project.path().join("public/neko");
    assert!(!preview.join("neko.epub").exists());
    let index = std::fs::read_to_string(preview.join("index.html")).unwrap();
    assert!(index.contains("class=\"status failed\""), "{index}");
    assert!(index.contains("no earlier good build"), "{index}");
}
