//! The chapter cache: a rebuild reads only the chapters that changed, and what it makes is
//! exactly what a build from scratch makes.
mod support;

use support::*;

fn read_line(out: &std::process::Output) -> String {
    text(out)
        .lines()
        .find(|l| l.starts_with("read "))
        .unwrap_or_else(|| panic!("no `read …` line: {}", text(out)))
        .to_string()
}

#[test]
fn a_one_chapter_edit_reads_only_that_chapter_and_builds_the_same_epub() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read_line(&out), "read 4 of 4 chapters");

    let out = project.seihon(&["build"]);
    assert_eq!(read_line(&out), "read 0 of 4 chapters", "nothing changed");

    let ch02 = book.join("ch02.md");
    let edited = std::fs::read_to_string(&ch02).unwrap() + "\nキャッシュの後の段落。\n";
    std::fs::write(&ch02, &edited).unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        read_line(&out),
        "read 1 of 4 chapters (ch02.md); the others are unchanged"
    );
    assert!(
        read_entry(&project.epub("neko"), "item/xhtml/ch02.xhtml")
            .contains("キャッシュの後の段落。")
    );

    // The same sources built from scratch give the same bytes.
    let fresh = TempProject::new();
    let fresh_book = fresh.add_book(&repo().join("books/neko-no-hon"), "neko");
    std::fs::write(fresh_book.join("ch02.md"), &edited).unwrap();
    let out = fresh.seihon(&["build"]);
    assert_eq!(read_line(&out), "read 4 of 4 chapters");
    assert_eq!(
        std::fs::read(fresh.epub("neko")).unwrap(),
        std::fs::read(project.epub("neko")).unwrap()
    );

    // A chapter with an error is never taken from the cache: its message comes every time.
    std::fs::write(&ch02, format!("{edited}\nSee [^nonote].\n")).unwrap();
    for _ in 0..2 {
        let out = project.seihon(&["build"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out).contains("[^nonote]"), "{}", text(&out));
        assert_eq!(
            read_line(&out),
            "read 1 of 4 chapters (ch02.md); the others are unchanged"
        );
    }
}
