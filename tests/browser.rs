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
    let said = drive(
        &browser_dir.join("preview.mjs"),
        &[
            page.as_ref(),
            book.join("ch01.md").as_os_str(),
            shots.as_os_str(),
        ],
        || watching.log(),
    );
    assert!(said.contains("books/neko-no-hon/ch01.md:"), "{said}");
    for name in ["1-edited.png", "2-error.png", "3-fixed.png"] {
        wide_enough(&shots.join(name));
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
    let words = ["Binding in English", "languages", "scripts"].map(std::ffi::OsStr::new);
    let mut args = vec![index.as_os_str()];
    args.extend(words);
    args.push(shots.as_os_str());
    drive(&browser_dir.join("index-diff.mjs"), &args, String::new);
    wide_enough(&shots.join("4-index-diff.png"));
}

/// Runs one of the browser scripts under node; what it printed, once it passed. `log` says
/// what seihon printed meanwhile, for the failure message.
fn drive(script: &Path, args: &[&std::ffi::OsStr], log: impl FnOnce() -> String) -> String {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .expect("run node");
    let said = text(&out);
    assert!(
        out.status.success(),
        "the browser test failed ({}):\n{said}\nseihon's log:\n{}",
        out.status,
        log()
    );
    said
}

/// A screenshot as wide as the page it shows (at least 800 pixels).
fn wide_enough(png: &Path) {
    let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let info = decoder.read_info().expect("a PNG screenshot");
    let width = info.info().width;
    assert!(width >= 800, "{} is {width} wide", png.display());
}
