//! `seihon watch` as an editor uses it, over plain HTTP: the preview is served with the live
//! script, a save rebuilds it once, a mistake is reported with its file and line while the
//! last good book stays served, the fix brings the page back, and Ctrl-C stops cleanly.
#![cfg(unix)]
use crate::support;

use std::path::Path;
use std::time::Duration;

use support::watching::{Watching, wait_for};
use support::*;

const CHAPTER: &str = "/book/item/xhtml/ch01.xhtml";

/// Saves as many editors do: a temporary file beside, renamed over the original.
fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_file_name(".ch01.md.saving");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Parses the page as XML to the end: the injected script must keep XHTML well-formed.
fn assert_well_formed(xhtml: &str) {
    let mut reader = quick_xml::Reader::from_str(xhtml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("the served chapter is not well-formed XML: {e}\n{xhtml}"),
        }
    }
}

#[test]
fn watch_serves_rebuilds_reports_and_recovers() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko-no-hon");
    let chapter = book.join("ch01.md");
    let original = std::fs::read_to_string(&chapter).unwrap();
    let mut watching = Watching::start(project.path(), "neko-no-hon");
    assert!(
        watching.url.starts_with("http://127.0.0.1:"),
        "serves on the loopback address by default: {}",
        watching.url
    );

    // The preview's index and a chapter, each with the live script and never cached.
    let index = watching.get("/");
    assert_eq!(index.status, 200, "{}", index.body);
    assert_eq!(index.header("cache-control"), Some("no-store"));
    assert!(index.body.contains("<script src=\"/_seihon/live.js"));
    let page = watching.get(CHAPTER);
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), Some("application/xhtml+xml"));
    let script_at = page.body.find("<script src=\"/_seihon/live.js").unwrap();
    assert!(page.body[script_at..].contains("</script></body>"));
    assert_well_formed(&page.body);
    let live = watching.get("/_seihon/live.js");
    assert_eq!(live.status, 200);
    assert!(live.body.contains("EventSource(") && live.body.contains("textContent"));
    // The script is added when serving, never written into the preview's files.
    let on_disk = std::fs::read_to_string(
        project
            .path()
            .join("public/neko-no-hon/book/item/xhtml/ch01.xhtml"),
    )
    .unwrap();
    assert!(!on_disk.contains("_seihon"));
    // A missing page still carries the script (it appears when the book builds); a request
    // under another name than localhost (DNS rebinding) is refused.
    let missing = watching.get("/book/item/xhtml/ch09.xhtml");
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains("/_seihon/live.js"));
    assert_eq!(watching.get_as("/", "evil.example:80").status, 421);
    assert_eq!(
        watching
            .get_as("/", &format!("localhost:{}", watching.port))
            .status,
        200
    );
    let state = watching.state();
    assert_eq!(
        (state["builds"].as_u64(), state["ok"].as_bool()),
        (Some(1), Some(true))
    );

    // A save by rename rebuilds once, and the new text is served.
    let edited = format!("{original}\n猫が書き足した段落です。\n");
    save_by_rename(&chapter, &edited);
    wait_for("the edit to be served", &watching, || {
        watching
            .get(CHAPTER)
            .body
            .contains("猫が書き足した段落")
            .then_some(())
    });
    // Saving again without a change, editors' scratch files and the build's own outputs start
    // no build.
    std::fs::write(&chapter, &edited).unwrap();
    for scratch in [".ch01.md.swp", "4913", "ch01.md~", ".#ch01.md"] {
        std::fs::write(book.join(scratch), "x").unwrap();
    }
    for output in ["dist", "build", "public"] {
        std::fs::create_dir_all(project.path().join(output)).unwrap();
        std::fs::write(project.path().join(output).join("note.txt"), "x").unwrap();
    }
    std::thread::sleep(Duration::from_millis(1500));
    let state = watching.state();
    assert_eq!(
        state["builds"].as_u64(),
        Some(2),
        "one build for the save, none for an unchanged save, scratch or output files:\n{}",
        watching.log()
    );

    // A read error at its line: reported, the last good book still served.
    let broken = format!("{edited}\n{}\n", unreadable_markdown("壊れた引用です。"));
    let line = broken.lines().count() as u64;
    std::fs::write(&chapter, &broken).unwrap();
    let state = wait_for("the failed build", &watching, || {
        let s = watching.state();
        (s["ok"] == false).then_some(s)
    });
    let finding = &state["findings"][0];
    assert_eq!(finding["file"], "books/neko-no-hon/ch01.md", "{state}");
    assert_eq!(finding["line"].as_u64(), Some(line), "{state}");
    assert!(finding["col"].as_u64() > Some(0), "{state}");
    assert!(finding["message"].as_str().unwrap().contains(UNREADABLE));
    assert_eq!(state["failed_stage"], "read");
    assert!(watching.get(CHAPTER).body.contains("猫が書き足した段落"));
    let status: serde_json::Value =
        serde_json::from_str(&watching.get("/status.json").body).expect("status.json");
    assert_eq!(
        (status["ok"].as_bool(), status["stale"].as_bool()),
        (Some(false), Some(true))
    );
    // A page opened now hears of the failure at once.
    let generation = state["generation"].as_u64().unwrap();
    let (event, data) = watching.first_event(generation);
    assert_eq!(event, "failed");
    assert!(data.contains(&format!("\"line\":{line}")), "{data}");
    // A page from an older build is told to reload instead.
    assert_eq!(watching.first_event(generation - 1).0, "reload");
    assert!(
        watching
            .log()
            .contains(&format!("books/neko-no-hon/ch01.md:{line}:")),
        "the terminal shows the finding too:\n{}",
        watching.log()
    );

    // The fix brings the page back as a new good build.
    std::fs::write(&chapter, &edited).unwrap();
    let state = wait_for("the fixed build", &watching, || {
        let s = watching.state();
        (s["ok"] == true).then_some(s)
    });
    assert_eq!(state["generation"].as_u64(), Some(generation + 1));
    assert_eq!(state["findings"].as_array().map(Vec::len), Some(0));
    let page = watching.get(CHAPTER);
    assert!(page.body.contains("猫が書き足した段落") && !page.body.contains("壊れた引用"));

    // Ctrl-C stops it cleanly and at once.
    let killed = std::process::Command::new("kill")
        .args(["-INT", &watching.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = watching
        .wait_exit(Duration::from_secs(20))
        .expect("seihon watch stops on Ctrl-C");
    assert!(status.success(), "exit {status:?}\n{}", watching.log());
}

#[test]
fn watch_asks_which_book_when_there_are_several() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko-no-hon");
    project.add_book(&repo().join("books/review-nyumon"), "review-nyumon");
    let out = project.seihon(&["watch", "--port", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("neko-no-hon") && said.contains("review-nyumon"),
        "{said}"
    );
    assert!(said.contains("seihon watch <book>"), "{said}");

    let out = project.seihon(&["watch", "no-such-book"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("`no-such-book` is not a book"));
}

#[test]
fn watch_says_when_the_port_is_taken() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko-no-hon");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = project.seihon(&["watch", "--port", &port]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("try `seihon watch --port"),
        "{}",
        text(&out)
    );

    // Another address than loopback is warned about; this one is not on the machine, so
    // nothing is served and the bind fails.
    let out = project.seihon(&["watch", "--host", "192.0.2.1", "--port", &port]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("warning: serving on 192.0.2.1"),
        "{}",
        text(&out)
    );
}

#[test]
fn saves_during_a_build_make_one_more_build() {
    use std::os::unix::fs::PermissionsExt;
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko-no-hon");
    // A slow hook makes every build last a few seconds, so that saves land during one.
    let hook = book.join("hooks/pre-build");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nsleep 3\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let chapter = book.join("ch01.md");
    let original = std::fs::read_to_string(&chapter).unwrap();
    let watching = Watching::start(project.path(), "neko-no-hon");

    // The first save starts a build; the next two arrive while it runs.
    for (i, word) in ["一回目", "二回目", "三回目"].iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(700));
        }
        std::fs::write(&chapter, format!("{original}\n{word}の保存。\n")).unwrap();
    }
    wait_for("the last save to be served", &watching, || {
        watching.get(CHAPTER).body.contains("三回目").then_some(())
    });
    // Long enough for any further build to have started and finished.
    std::thread::sleep(Duration::from_secs(5));
    let state = watching.state();
    assert_eq!(
        state["builds"].as_u64(),
        Some(3),
        "the first build, one for the first save, one for the two saves made during it:\n{}",
        watching.log()
    );
}
