//! `seihon release`: the EPUB for sale — strict, checked by epubcheck, versioned, reproducible.
use crate::support;

use sha2::Digest;
use support::*;

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_release_is_versioned_checked_and_reproducible() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let out = project.seihon(&["release", "neko", "--version", "1.2.0"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let epub = project.path().join("dist/release/neko-1.2.0.epub");
    let sums = project.path().join("dist/release/neko-1.2.0.epub.sha256");
    let first = std::fs::read(&epub).unwrap();
    let hex = sha256_hex(&first);
    assert_eq!(
        std::fs::read_to_string(&sums).unwrap(),
        format!("{hex}  neko-1.2.0.epub\n"),
        "sha256sum format"
    );
    assert!(all.contains(&format!("sha256 {hex}")), "{all}");
    // The version is in the colophon and in the package metadata.
    let colophon = read_entry(&epub, "item/xhtml/colophon.xhtml");
    assert!(
        colophon.contains("<p class=\"colophon-version\">電子版 1.2.0</p>"),
        "{colophon}"
    );
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains("<meta property=\"schema:version\">1.2.0</meta>"),
        "{opf}"
    );
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    // A release leaves the everyday EPUB alone.
    assert!(!project.epub("neko").exists());

    // The same inputs give the same bytes, in another folder too.
    std::fs::remove_dir_all(project.path().join("dist")).unwrap();
    std::fs::remove_dir_all(project.path().join("build")).unwrap();
    let out = project.seihon(&["release", "neko", "--version", "1.2.0"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sha256_hex(&std::fs::read(&epub).unwrap()), hex);
    let other = TempProject::new();
    other.add_book(&repo().join("books/neko-no-hon"), "neko");
    let out = other.seihon(&["release", "neko", "--version", "1.2.0"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(other.path().join("dist/release/neko-1.2.0.epub.sha256")).unwrap(),
        std::fs::read_to_string(&sums).unwrap()
    );
}

#[test]
fn a_release_with_a_warning_fails_and_writes_nothing() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let ch01 = book.join("ch01.md");
    let mut text_ = std::fs::read_to_string(&ch01).unwrap();
    text_.push_str("\n![](images/pipeline.png)\n");
    std::fs::write(&ch01, &text_).unwrap();
    let line = text_.lines().count();
    // An everyday build only warns.
    let out = project.seihon(&["build", "neko"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("warning: [image-alt]"),
        "{}",
        text(&out)
    );

    let out = project.seihon(&["release", "neko", "--version", "1.0"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!("books/neko/ch01.md:{line}:1: error: [image-alt]")),
        "{all}"
    );
    assert!(all.contains("a release admits no warnings"), "{all}");
    assert!(!project.path().join("dist/release/neko-1.0.epub").exists());
    assert!(
        !project
            .path()
            .join("dist/release/neko-1.0.epub.sha256")
            .exists()
    );
}

#[test]
fn a_release_needs_a_usable_version() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko");
    for bad in ["", "1.0/../x", "-1", "一"] {
        let out = project.seihon(&["release", "neko", &format!("--version={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out));
        assert!(text(&out).contains("is not a version"), "{}", text(&out));
    }
}
