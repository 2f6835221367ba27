//! The preview area `public/<id>/`: the EPUB, its unpacked pages and an index, swapped in
//! whole; a failed build keeps the last good preview byte for byte, marked stale.
mod support;

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
    std::fs::write(&ch01, format!("{good}\nSee [^nonote].\n")).unwrap();
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
    let text_ = std::fs::read_to_string(&ch01).unwrap() + "\nSee [^nonote].\n";
    std::fs::write(&ch01, text_).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(1));
    let preview = project.path().join("public/neko");
    assert!(!preview.join("neko.epub").exists());
    let index = std::fs::read_to_string(preview.join("index.html")).unwrap();
    assert!(index.contains("class=\"status failed\""), "{index}");
    assert!(index.contains("no earlier good build"), "{index}");
}
