//! Acceptance of `seihon watch` in a real browser: headless Chromium, driven by playwright-core
//! (tests/browser/preview.mjs), sees an edit without a manual reload, a syntax error with its
//! file and line on top of the page, and the page back after the fix. Screenshots go to
//! `target/test-artifacts/preview/`.
//!
//! Needs node, Debian's `chromium` and `npm ci --prefix tests/browser`; `bash .ci/run` installs
//! them. Without them this test fails and says how to get them: it never passes silently.
#![cfg(unix)]
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::watching::Watching;
use support::*;

/// The browser: `$SEIHON_CHROMIUM`, else Debian's.
fn chromium() -> PathBuf {
    std::env::var_os("SEIHON_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Fails with what to install when a tool the test drives is missing.
fn require_tools(browser_dir: &Path) {
    const HOW: &str = "run `bash .ci/run` (it installs them), or by hand: `apt-get install -y chromium nodejs npm` and `npm ci --prefix tests/browser`";
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "node is not installed: the browser test needs it; {HOW}"
    );
    assert!(
        chromium().is_file(),
        "Chromium is not at {} (set SEIHON_CHROMIUM to another one); {HOW}",
        chromium().display()
    );
    assert!(
        browser_dir
            .join("node_modules/playwright-core/package.json")
            .is_file(),
        "playwright-core is not installed in tests/browser/node_modules; {HOW}"
    );
}

/// `target/test-artifacts/preview/`, wherever the target folder is.
fn screenshots() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .to_path_buf();
    target.join("test-artifacts").join("preview")
}

#[test]
fn browser_sees_edits_errors_and_fixes_without_reloading() {
    let browser_dir = repo().join("tests/browser");
    require_tools(&browser_dir);
    let shots = screenshots();
    let _ = std::fs::remove_dir_all(&shots);

    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko-no-hon");
    let watching = Watching::start(project.path(), "neko-no-hon");
    let page = format!("{}book/item/xhtml/ch01.xhtml", watching.url);
    let out = Command::new("node")
        .arg(browser_dir.join("preview.mjs"))
        .arg(&page)
        .arg(book.join("ch01.md"))
        .arg(&shots)
        .output()
        .expect("run node");
    let said = text(&out);
    assert!(
        out.status.success(),
        "the browser test failed ({}):\n{said}\nseihon's log:\n{}",
        out.status,
        watching.log()
    );
    assert!(said.contains("books/neko-no-hon/ch01.md:"), "{said}");
    for name in ["1-edited.png", "2-error.png", "3-fixed.png"] {
        let png = std::fs::read(shots.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let info = decoder.read_info().expect("a PNG screenshot");
        assert!(
            info.info().width >= 800,
            "{name} is {} wide",
            info.info().width
        );
    }
    // One build at start, then the edit, the error and the fix.
    let state = watching.state();
    assert_eq!(state["ok"], true, "{state}");
    assert!(state["builds"].as_u64() >= Some(4), "{state}");
}

/// The preview index read in Chromium after `seihon build`, an edit and a second build: the
/// edited page's title links to it, and the removed and added words show, struck through and
/// underlined. The screenshot goes to `target/test-artifacts/preview-diff/` (the watch test
/// empties `preview/` as it starts).
#[test]
fn browser_shows_the_words_an_edit_changed_on_the_index() {
    let browser_dir = repo().join("tests/browser");
    require_tools(&browser_dir);
    let shots = screenshots().with_file_name("preview-diff");
    let _ = std::fs::remove_dir_all(&shots);

    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko-no-hon");
    let build = || {
        let out = project.seihon(&["build"]);
        assert!(out.status.success(), "{}", text(&out));
    };
    build();
    let chapter = book.join("ch03-english.md");
    let before = std::fs::read_to_string(&chapter).unwrap();
    let from = "a book that mixes languages.";
    assert!(before.contains(from), "{before}");
    std::fs::write(
        &chapter,
        before.replacen(from, "a book that mixes scripts.", 1),
    )
    .unwrap();
    build();
    let index = project.path().join("public/neko-no-hon/index.html");
    let out = Command::new("node")
        .arg(browser_dir.join("index-diff.mjs"))
        .arg(&index)
        .args(["Binding in English", "languages", "scripts"])
        .arg(&shots)
        .output()
        .expect("run node");
    let said = text(&out);
    assert!(
        out.status.success(),
        "the browser test failed ({}):\n{said}",
        out.status
    );
    let png = std::fs::read(shots.join("4-index-diff.png")).expect("the screenshot");
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().expect("a PNG screenshot");
    assert!(info.info().width >= 800, "{} wide", info.info().width);
}
