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

    let out = project.seihon(&["build", "--force"]);
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

#[test]
fn a_rebuild_with_nothing_changed_does_nothing_but_say_so() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    // A warning, which every build must repeat.
    let ch01 = book.join("ch01.md");
    let text1 = std::fs::read_to_string(&ch01).unwrap() + "\n![](images/pipeline.png)\n";
    std::fs::write(&ch01, text1).unwrap();
    let first = project.seihon(&["build"]);
    assert!(first.status.success(), "{}", text(&first));
    let warning = text(&first)
        .lines()
        .find(|l| l.contains("warning:"))
        .unwrap_or_else(|| panic!("no warning: {}", text(&first)))
        .to_string();
    let epub = project.epub("neko");
    let status = project.path().join("public/neko/status.json");
    let stamp = |p: &std::path::Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let (epub_time, status_time) = (stamp(&epub), stamp(&status));

    let again = project.seihon(&["build"]);
    let all = text(&again);
    assert!(again.status.success(), "{all}");
    assert!(
        all.contains("nothing changed since the last build; dist/neko.epub is up to date"),
        "{all}"
    );
    assert!(all.contains(&warning), "the warning is repeated: {all}");
    assert!(!all.contains("read "), "nothing was read: {all}");
    assert!(
        all.contains("built neko → dist/neko.epub (4 chapters)"),
        "{all}"
    );
    assert_eq!(stamp(&epub), epub_time, "the EPUB was not rewritten");
    assert_eq!(stamp(&status), status_time, "the preview was not rewritten");

    // Saving a chapter again (same text, new time) builds; so does a deleted preview.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let same = std::fs::read(&ch01).unwrap();
    std::fs::write(&ch01, same).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(read_line(&out), "read 0 of 4 chapters");
    std::fs::remove_dir_all(project.path().join("public/neko")).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(read_line(&out), "read 0 of 4 chapters");
    assert!(status.is_file());
    let out = project.seihon(&["build"]);
    assert!(!text(&out).contains("read "), "{}", text(&out));
}
