//! House style and quality gates through the real binary: the three kinds of filter, book hooks,
//! built-in checks pointing at the source, and the machine-readable reports.
use crate::support;

use std::path::Path;

use support::*;

fn sample(project: &TempProject) -> std::path::PathBuf {
    project.add_book(&repo().join("books/neko-no-hon"), "neko")
}

#[test]
fn built_in_rule_file_and_external_filters_each_change_the_output() {
    let project = TempProject::new();
    sample(&project);
    std::fs::create_dir_all(project.path().join("filters")).unwrap();
    std::fs::write(
        project.path().join("filters/mark-tables.yml"),
        "rules:\n  - match: {element: table}\n    add_class: [house-table]\n",
    )
    .unwrap();
    // A publisher's script, not executable: run through its extension.
    std::fs::write(
        project.path().join("filters/shout.py"),
        "import sys\nt = sys.stdin.read()\nsys.stdout.write(t.replace('原稿を書く', 'SHOUT原稿を書く'))\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("seihon.yml"),
        "filters: [house, mark-tables, shout]\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let ch01 = read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml");
    assert!(
        ch01.contains("<table class=\"house-table\">"),
        "rule file: {ch01}"
    );
    assert!(ch01.contains("SHOUT原稿を書く"), "external filter: {ch01}");
    let ch03 = read_entry(&project.epub("neko"), "item/xhtml/ch03-english.xhtml");
    let preface = read_entry(&project.epub("neko"), "item/xhtml/preface.xhtml");
    assert!(
        preface.contains("href=\"ch01.xhtml#manuscript\""),
        "{preface}"
    );
    let _ = ch03;
    let messages = epubcheck(&project.epub("neko"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// A house script written for the XHTML that ships works on it: seihon's source marks are not
/// in what it reads, and a finding in what it printed is still at its manuscript line.
#[test]
fn an_external_filter_sees_the_page_as_it_ships_and_findings_keep_their_lines() {
    let project = TempProject::new();
    let book = sample(&project);
    let line = append_at(&book.join("ch02.md"), "サーバの設定を書きます。\n");
    std::fs::create_dir_all(project.path().join("filters")).unwrap();
    std::fs::write(
        project.path().join("filters/literal.py"),
        r##"import sys
t = sys.stdin.read()
if "data-seihon" in t:
    sys.exit("the page has seihon's marks")
t = t.replace("<p>", '<p class="x">')
t = t.replace("サーバの設定", '<a href="#nowhere">サーバ</a>の設定')
sys.stdout.write(t)
"##,
    )
    .unwrap();
    std::fs::write(
        project.path().join("seihon.yml"),
        "filters: [house, literal]\nchecks: {internal-links: warning}\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let ch02 = read_entry(&project.epub("neko"), "item/xhtml/ch02.xhtml");
    assert!(ch02.contains("<p class=\"x\">"), "{ch02}");
    assert!(!ch02.contains("data-seihon"), "{ch02}");
    assert!(
        all.contains(&format!(
            "books/neko/ch02.md:{line}:1: warning: [internal-links]"
        )),
        "the finding is at the manuscript line: {all}"
    );
}

#[test]
fn a_check_at_error_stops_the_build_and_the_last_epub_stays() {
    let project = TempProject::new();
    let book = sample(&project);
    std::fs::write(
        project.path().join("seihon.yml"),
        "checks: {empty-link-text: error}\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let good = std::fs::read(project.epub("neko")).unwrap();
    let chapter = book.join("ch02.md");
    let clean = std::fs::read_to_string(&chapter).unwrap();

    // The checks run beside staging and packing (the book has no hooks or check programs):
    // their error still stops the build before the new EPUB replaces the last one.
    let line = append_at(&chapter, "A link without text: [](https://example.com/).\n");
    let (out, report) = json_report(&project, &["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!(
            "books/neko/ch02.md:{line}:22: error: [empty-link-text]"
        )),
        "{all}"
    );
    assert!(all.contains("failed at the checks step"), "{all}");
    assert_eq!(report["books"][0]["failed_stage"], "checks");
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), good);

    // Mended, the book builds again, into the same bytes as before.
    std::fs::write(&chapter, clean).unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), good);
}

fn failing_filter(script: &str, expected: &str) {
    let project = TempProject::new();
    sample(&project);
    write_exec(&project.path().join("filters/bad.sh"), script);
    std::fs::write(
        project.path().join("seihon.yml"),
        "filters: [house, bad]\nfilter_timeout: 1\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("filter `bad`"), "names the filter: {all}");
    assert!(all.contains("xhtml/"), "names the chapter: {all}");
    assert!(all.contains(expected), "says why ({expected}): {all}");
    assert!(!project.epub("neko").exists());
}

#[test]
fn a_failing_filter_is_named_with_the_chapter() {
    failing_filter("#!/bin/sh\necho broken >&2\nexit 3\n", "exit code 3");
}

#[test]
fn a_hanging_filter_is_stopped_at_its_limit() {
    failing_filter("#!/bin/sh\nsleep 30\n", "did not finish within 1 s");
}

#[test]
fn a_filter_printing_malformed_xhtml_is_refused() {
    failing_filter(
        "#!/bin/sh\ncat >/dev/null\necho '<p>unclosed'\n",
        "not well-formed",
    );
}

#[test]
fn a_pre_pack_hook_changes_the_packed_epub_and_no_hooks_skips_it() {
    let project = TempProject::new();
    let book = sample(&project);
    write_exec(
        &book.join("hooks/pre-pack"),
        "#!/bin/sh\nset -e\ntest -f \"$SEIHON_STAGE_DIR/mimetype\"\nsed -i 's|<h1 class=\"book-title\">製本入門</h1>|<h1 class=\"book-title\">製本<br/>入門</h1>|' item/xhtml/titlepage.xhtml\necho \"adjusted $SEIHON_BOOK\"\n",
    );
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("adjusted neko"),
        "hook output goes to the log: {}",
        text(&out)
    );
    let title = read_entry(&project.epub("neko"), "item/xhtml/titlepage.xhtml");
    assert!(title.contains("製本<br/>入門"), "{title}");
    let out = project.seihon(&["build", "--no-hooks"]);
    assert!(out.status.success(), "{}", text(&out));
    let title = read_entry(&project.epub("neko"), "item/xhtml/titlepage.xhtml");
    assert!(
        title.contains("<h1 class=\"book-title\">製本入門</h1>"),
        "{title}"
    );
}

/// `seihon check` runs everything but packing: the hooks that edit the staged tree run on a
/// scratch copy of it and the check programs read what they left, while build/ and dist/ stay
/// as they were.
#[test]
fn check_runs_the_hooks_and_check_programs_on_a_scratch_tree() {
    let project = TempProject::new();
    let book = sample(&project);
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = std::fs::read(project.epub("neko")).unwrap();
    let staged = project.path().join("build/neko/item/xhtml/titlepage.xhtml");
    let staged_before = std::fs::read(&staged).unwrap();

    // The hooks each leave a mark in the tree they are given; the check program finds both.
    write_exec(
        &book.join("hooks/post-convert"),
        "#!/bin/sh\nset -e\ntest -f mimetype\necho converted > post-convert.txt\n",
    );
    write_exec(
        &book.join("hooks/pre-pack"),
        "#!/bin/sh\nset -e\ntest -f post-convert.txt\nsed -i 's|製本入門|製本入門 (adjusted)|' item/xhtml/titlepage.xhtml\necho \"pre-pack ran in $SEIHON_STAGE\"\n",
    );
    std::fs::create_dir_all(book.join("checks")).unwrap();
    std::fs::write(
        book.join("checks/adjusted.py"),
        r#"for n, line in enumerate(open("item/xhtml/titlepage.xhtml", encoding="utf-8"), 1):
    if "adjusted" in line:
        print(f"item/xhtml/titlepage.xhtml:{n}: warning: the pre-pack hook adjusted the title")
        break
"#,
    )
    .unwrap();
    let out = project.seihon(&["check"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("pre-pack ran in pre-pack"), "hook log: {all}");
    assert!(
        all.contains("warning: [adjusted] the pre-pack hook adjusted the title"),
        "the check program read the hooks' tree: {all}"
    );
    assert_eq!(
        std::fs::read(project.epub("neko")).unwrap(),
        epub,
        "dist/ untouched"
    );
    assert_eq!(
        std::fs::read(&staged).unwrap(),
        staged_before,
        "build/ untouched"
    );
    assert!(!project.path().join("build/neko/post-convert.txt").exists());

    // A failing pre-pack hook fails the check, as it would fail the build.
    write_exec(
        &book.join("hooks/pre-pack"),
        "#!/bin/sh
echo 'not today' >&2
exit 4
",
    );
    let (out, report) = json_report(&project, &["check"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("the pre-pack hook failed"), "{all}");
    assert_eq!(report["books"][0]["failed_stage"], "pre-pack hook");
    let out = project.seihon(&["check", "--no-hooks"]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_hanging_hook_is_stopped_with_a_clear_error() {
    let project = TempProject::new();
    let book = sample(&project);
    write_exec(&book.join("hooks/pre-pack"), "#!/bin/sh\nsleep 30\n");
    std::fs::write(project.path().join("seihon.yml"), "hook_timeout: 1\n").unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("the pre-pack hook failed") && all.contains("did not finish within 1 s"),
        "{all}"
    );
}

#[test]
fn checks_point_at_the_source_line_and_reports_parse_back() {
    let project = TempProject::new();
    let book = sample(&project);
    let ch01 = book.join("ch01.md");
    let mut text_ = std::fs::read_to_string(&ch01).unwrap();
    text_.push_str("\n<p><a href=\"#nowhere\">broken</a></p>\n\n![](images/pipeline.png)\n");
    std::fs::write(&ch01, &text_).unwrap();
    let lines = text_.lines().count();
    // A house that will not ship a link to nowhere makes it an error (by default it is a
    // warning, and the link's text stays).
    std::fs::write(
        project.path().join("seihon.yml"),
        "checks: {broken-fragment: error}\n",
    )
    .unwrap();
    let json = project.path().join("report.json");
    let junit = project.path().join("report.xml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_seihon"))
        .args(["build", "--report"])
        .arg(format!("json:{}", json.display()))
        .arg("--report")
        .arg(format!("junit:{}", junit.display()))
        .current_dir(project.path())
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let link_line = lines - 2;
    assert!(
        all.contains(&format!(
            "books/neko/ch01.md:{link_line}:1: error: this link points to `#nowhere`"
        )),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "::error file=books/neko/ch01.md,line={link_line},col=1,title=seihon::this link points to `#nowhere`"
        )),
        "{all}"
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["ok"], false);
    let findings = report["books"][0]["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["file"] == "books/neko/ch01.md"
            && f["line"] == link_line
            && f["severity"] == "error"),
        "{report}"
    );
    assert!(
        findings.iter().any(
            |f| f["message"].as_str().unwrap().starts_with("[image-alt]") && f["line"] == lines
        ),
        "{report}"
    );
    let xml = seihon::dom::parse_document(&std::fs::read_to_string(&junit).unwrap()).unwrap();
    let mut failures = 0;
    xml.root
        .walk(&mut |e| failures += usize::from(e.name == "failure"));
    assert_eq!(failures, 1, "one failed book");
}

/// Appends `extra` to a book file and returns the 1-based line where `extra` starts.
fn append_at(path: &Path, extra: &str) -> usize {
    let mut text_ = std::fs::read_to_string(path).unwrap();
    if !text_.ends_with('\n') {
        text_.push('\n');
    }
    text_.push('\n');
    let line = text_.lines().count() + 1;
    text_.push_str(extra);
    std::fs::write(path, text_).unwrap();
    line
}

fn json_report(project: &TempProject, args: &[&str]) -> (std::process::Output, serde_json::Value) {
    let json = project.path().join("report.json");
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.push("--report".into());
    all.push(format!("json:{}", json.display()));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let out = project.seihon(&refs);
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (out, report)
}

#[test]
fn an_epubcheck_finding_is_reported_at_the_source_line() {
    let project = TempProject::new();
    let book = sample(&project);
    // A clean book passes --epubcheck.
    let out = project.seihon(&["build", "--epubcheck"]);
    assert!(out.status.success(), "{}", text(&out));
    let good = std::fs::read(project.epub("neko")).unwrap();

    // Raw HTML that is well-formed but not valid EPUB XHTML (a list item that is not an
    // `li`): only epubcheck knows.
    let line = append_at(&book.join("ch02.md"), "<ul><p>中央</p></ul>\n");
    let (out, report) = json_report(&project, &["build", "--epubcheck"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!(
            "books/neko/ch02.md:{line}:1: error: [epubcheck] element \"p\" not allowed here"
        )),
        "{all}"
    );
    assert!(
        all.contains("help: in item/xhtml/ch02.xhtml:") && all.contains("(epubcheck RSC-005)"),
        "{all}"
    );
    assert!(all.contains("failed at the epubcheck step"), "{all}");
    assert_eq!(report["books"][0]["failed_stage"], "epubcheck");
    // The last good EPUB stays.
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), good);

    // Without --epubcheck the book builds; with the check at `warning` it builds and warns.
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(
        project.path().join("seihon.yml"),
        "checks: {epubcheck: warning}\n",
    )
    .unwrap();
    let out = project.seihon(&["build", "--epubcheck"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!(
            "books/neko/ch02.md:{line}:1: warning: [epubcheck]"
        )),
        "{all}"
    );
}

#[test]
fn check_programs_report_at_the_source_line_and_can_be_turned_off() {
    let project = TempProject::new();
    let book = sample(&project);
    let line = append_at(&book.join("ch02.md"), "サーバの設定を書きます。\n");
    // A house check in Python (not executable): reads the staged pages, prints compiler-style
    // lines with the staged path and line, and exits 1 when it found something.
    std::fs::create_dir_all(project.path().join("checks")).unwrap();
    std::fs::write(
        project.path().join("checks/words.py"),
        r#"import os, sys
found = False
for root, _, files in os.walk("item/xhtml"):
    for name in sorted(files):
        path = os.path.join(root, name)
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            if "サーバの" in line:
                print(f"{path}:{n}: error: write サーバー, not サーバ ({os.environ['SEIHON_BOOK']})")
                found = True
print("words: done")
sys.exit(1 if found else 0)
"#,
    )
    .unwrap();
    let (out, report) = json_report(&project, &["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!(
            "books/neko/ch02.md:{line}:1: error: [words] write サーバー, not サーバ (neko)"
        )),
        "{all}"
    );
    assert!(all.contains("help: in item/xhtml/ch02.xhtml:"), "{all}");
    assert_eq!(report["books"][0]["failed_stage"], "check programs");
    assert!(!project.epub("neko").exists());

    // The book's own program of the same name replaces the house one.
    write_exec(&book.join("checks/words.sh"), "#!/bin/sh\necho 'fine'\n");
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::remove_dir_all(book.join("checks")).unwrap();

    // A level in book.yml lowers it to a warning, or turns it off.
    let yml = book.join("book.yml");
    let base = std::fs::read_to_string(&yml).unwrap();
    std::fs::write(&yml, format!("{base}checks: {{words: warning}}\n")).unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!("ch02.md:{line}:1: warning: [words]")),
        "{all}"
    );
    std::fs::write(&yml, format!("{base}checks: {{words: off}}\n")).unwrap();
    let out = project.seihon(&["build"]);
    assert!(!text(&out).contains("[words]"), "{}", text(&out));
    // A misspelt check name is refused, naming the programs too.
    std::fs::write(&yml, format!("{base}checks: {{word: off}}\n")).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("did you mean `words`?"),
        "{}",
        text(&out)
    );
}

#[test]
fn reports_name_the_step_that_failed() {
    let project = TempProject::new();
    let book = sample(&project);
    // Quotes nested past the bound are found while reading.
    append_at(
        &book.join("ch01.md"),
        &(unreadable_markdown("See x.") + "\n"),
    );
    let (out, report) = json_report(&project, &["build"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(report["books"][0]["failed_stage"], "read", "{report}");
    assert!(
        text(&out).contains("failed at the read step"),
        "{}",
        text(&out)
    );
    let book2 = project.add_book(&repo().join("books/neko-no-hon"), "neko2");
    write_exec(
        &book2.join("hooks/pre-pack"),
        "#!/bin/sh\necho broken >&2\nexit 4\n",
    );
    let (out, report) = json_report(&project, &["build", "neko2"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        report["books"][0]["failed_stage"], "pre-pack hook",
        "{report}"
    );
}

#[test]
fn the_house_spelling_check_reports_variants_at_their_source_line() {
    let project = TempProject::new();
    let book = sample(&project);
    copy_dir(&repo().join("checks"), &project.path().join("checks"));
    let line = append_at(
        &book.join("ch02.md"),
        "サーバの設定を書きます。\n\nサーバーとユーザーは正しい表記です。`サーバ` はコードです。\n",
    );
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let found: Vec<&str> = all.lines().filter(|l| l.contains("[hyouki]")).collect();
    assert_eq!(
        found,
        vec![format!(
            "books/neko/ch02.md:{line}:1: warning: [hyouki] 「サーバ」は「サーバー」と書きます（表記統一）"
        )],
        "{all}"
    );
}

/// A tiny web server on 127.0.0.1: `/ok…` answers 200, anything else 404; counts requests.
fn web_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            reader.read_line(&mut request).unwrap_or(0);
            // Read the headers to their end before answering.
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let status = if path.starts_with("/ok") {
                "200 OK"
            } else {
                "404 Not Found"
            };
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    (base, count)
}

#[test]
fn external_links_are_checked_on_request_against_a_local_server() {
    let (base, requests) = web_server();
    let project = TempProject::new();
    let book = sample(&project);
    let source = format!("[生きている]({base}/ok) と [消えた]({base}/gone) のリンク。\n");
    let line = append_at(&book.join("ch02.md"), &source);
    // Links carry their own column: the one of `[消えた]`.
    let col = source[..source.find("[消えた]").unwrap()].chars().count() + 1;
    // Not asked for: nothing is requested.
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 0);

    let out = project.seihon(&["build", "--external-links"]);
    let all = text(&out);
    assert!(
        out.status.success(),
        "a dead link is a warning by default: {all}"
    );
    assert!(
        all.contains(&format!(
            "books/neko/ch02.md:{line}:{col}: warning: [external-links] the link `{base}/gone` is broken: the server answers 404 Not Found"
        )),
        "{all}"
    );
    assert!(!all.contains(&format!("`{base}/ok`")), "{all}");
    let asked = requests.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(asked, 2, "one request per address");

    // Answers are cached: the next run asks nothing and reports the same.
    let (out, report) = json_report(&project, &["check", "--external-links"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), asked);
    assert!(text(&out).contains("[external-links]"), "{}", text(&out));
    assert_eq!(report["warnings"], 1, "{report}");

    // At `error`, a dead link fails the book.
    std::fs::write(
        project.path().join("seihon.yml"),
        "checks: {external-links: error}\n",
    )
    .unwrap();
    let out = project.seihon(&["build", "--external-links"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// Every kind of finding has a code, and `checks:` sets its level by that code: a defect seihon
/// renders around may be raised to an error or turned off; one that stops the build cannot be
/// lowered.
#[test]
fn findings_have_codes_whose_levels_checks_can_set() {
    let project = TempProject::new();
    let book = sample(&project);
    let image = append_at(&book.join("ch02.md"), "![猫](images/no-such-cat.png)\n");
    let anchor = append_at(&book.join("ch02.md"), "[前の節](#no-such-section)\n");
    let yml = book.join("book.yml");
    let base = std::fs::read_to_string(&yml).unwrap();

    let (out, report) = json_report(&project, &["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let codes: Vec<(String, u64)> = report["books"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        codes.contains(&("missing-image".into(), image as u64)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("broken-fragment".into(), anchor as u64)),
        "{codes:?}"
    );

    // Raised: the missing image stops the build, the stale anchor is silenced.
    std::fs::write(
        &yml,
        format!("{base}checks: {{missing-image: error, broken-fragment: off}}\n"),
    )
    .unwrap();
    let (out, report) = json_report(&project, &["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!("books/neko/ch02.md:{image}:1: error:")),
        "{all}"
    );
    assert!(!all.contains("no-such-section"), "turned off: {all}");
    assert_eq!(report["books"][0]["ok"], false);

    // A kind that stops the build cannot be lowered.
    std::fs::write(&yml, format!("{base}checks: {{unknown-key: warning}}\n")).unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("`unknown-key` findings stop the build"),
        "{all}"
    );
}

/// A JPEG saved with a `.png` name (real books have them): packed as the JPEG it is, under a
/// name that says so, with a warning at its use; epubcheck finds nothing.
#[test]
fn a_jpeg_named_png_is_packed_as_a_jpeg_with_a_warning() {
    // An 8×8 grey baseline JPEG, written by hand: SOI, DQT, SOF0, DHT (DC, AC), SOS, data, EOI.
    let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00];
    jpeg.extend([1u8; 64]);
    jpeg.extend([
        0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00,
    ]);
    for class in [0x00, 0x10] {
        jpeg.extend([0xFF, 0xC4, 0x00, 0x14, class, 1]);
        jpeg.extend([0u8; 15]);
        jpeg.push(0x00);
    }
    jpeg.extend([
        0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x3F, 0xFF, 0xD9,
    ]);
    let project = TempProject::new();
    let book = sample(&project);
    std::fs::write(book.join("images/pipeline.png"), &jpeg).unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("books/neko/ch02.md:5:1: warning: the image `images/pipeline.png` is a JPEG file, though its name says PNG; it is packed as the JPEG it is"),
        "{all}"
    );
    let epub = project.epub("neko");
    let names = entry_names(&epub);
    assert!(
        names.iter().any(|n| n.ends_with("images/pipeline.png.jpg")),
        "{names:?}"
    );
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains("images/pipeline.png.jpg\" media-type=\"image/jpeg\""),
        "{opf}"
    );
    let ch02 = read_entry(&epub, "item/xhtml/ch02.xhtml");
    assert!(ch02.contains("images/pipeline.png.jpg\""), "{ch02}");
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// A Re:VIEW book as its own files ask: `#@mapfile`/`#@maprange` pull code in from the book
/// folder (and an edit to the mapped file alone rebuilds the chapter), `locale.yml` numbers
/// chapters and objects in kanji, `colophon_order` and `contact` make the colophon, and
/// `titlepage: false` leaves the title page out; epubcheck accepts the result.
#[test]
fn a_review_book_maps_its_code_files_and_follows_its_locale_yml_and_colophon_order() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/review-nyumon"), "tre");
    std::fs::create_dir_all(book.join("src")).unwrap();
    std::fs::write(
        book.join("src/hello.rb"),
        "# greeting\n# #@@range_begin(body)\nputs \"mapped\"\n# #@@range_end(body)\n",
    )
    .unwrap();
    let ch02 = std::fs::read_to_string(book.join("ch02.re")).unwrap();
    std::fs::write(
        book.join("ch02.re"),
        ch02.replacen(
            "== 表\n",
            "== 表\n\n//list[mapped][写したコード]{\n#@mapfile(src/hello.rb)\nstale line\n#@end\n//}\n\n//emlist{\n#@maprange(src/hello.rb, body)\n#@end\n//}\n\n@<b>{太字\n",
            1,
        ),
    )
    .unwrap();
    std::fs::write(
        book.join("locale.yml"),
        "locale: ja\nchapter: 第%pJ章\nformat_number: \"%s．%pJ\"\nformat_number_header: \"%s．%pJ：\"\npbl: 版元\n",
    )
    .unwrap();
    let config = std::fs::read_to_string(book.join("config.yml")).unwrap();
    std::fs::write(
        book.join("config.yml"),
        config.replace(
            "colophon: true\n",
            "colophon: true\ntitlepage: false\ncontact: desk@example.org\nprt: 見本印刷\ncolophon_order: [pbl, aut, contact, prt]\n",
        ),
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    // The unclosed `@<b>{` after the mapped blocks is reported at its own line.
    let line = ch02.lines().position(|l| l == "== 表").unwrap() + 1 + 13;
    assert!(
        all.contains(&format!("books/tre/ch02.re:{line}:")),
        "no finding at line {line}:\n{all}"
    );
    std::fs::write(
        book.join("ch02.re"),
        std::fs::read_to_string(book.join("ch02.re"))
            .unwrap()
            .replace("@<b>{太字\n", ""),
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let epub = project.epub("review-nyumon");
    let ch = read_entry(&epub, "item/xhtml/ch02.xhtml");
    assert!(
        ch.contains("# greeting\n") && !ch.contains("stale line"),
        "{ch}"
    );
    assert!(!ch.contains("range_begin"), "{ch}");
    assert!(ch.contains("<span class=\"secno\">第二章"), "{ch}");
    assert!(
        ch.contains("リスト2．一：</p>") || ch.contains("リスト2．一： "),
        "{ch}"
    );
    let nav = read_entry(&epub, "item/nav.xhtml");
    assert!(nav.contains("第一章　"), "{nav}");
    let names = entry_names(&epub);
    assert!(
        !names.iter().any(|n| n.ends_with("titlepage.xhtml")),
        "{names:?}"
    );
    let colophon = read_entry(&epub, "item/xhtml/colophon.xhtml");
    let order: Vec<usize> = ["版元", "著　者", "連絡先", "印刷所"]
        .iter()
        .map(|w| {
            colophon
                .find(w)
                .unwrap_or_else(|| panic!("{w}: {colophon}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{colophon}");
    assert!(
        !colophon.contains("編　集"),
        "edt is not in this colophon_order: {colophon}"
    );
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));

    // Editing only the mapped file rebuilds the chapter with the new code.
    std::fs::write(
        book.join("src/hello.rb"),
        "# greeting\n# #@@range_begin(body)\nputs \"changed\"\n# #@@range_end(body)\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let ch = read_entry(&project.epub("review-nyumon"), "item/xhtml/ch02.xhtml");
    assert!(
        ch.contains("puts \"changed\"") && !ch.contains("puts \"mapped\""),
        "{ch}"
    );
}

/// A style sheet's fonts and images go into the EPUB with their media types; what cannot
/// (missing, outside the book, on the web, of a type an EPUB cannot carry) is a warning at the
/// style sheet's own line, and the reference is dropped so epubcheck still passes.
#[test]
fn a_style_sheet_brings_its_fonts_and_images_and_drops_what_it_cannot() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/review-nyumon"), "tre");
    std::fs::create_dir_all(book.join("fonts")).unwrap();
    std::fs::copy(
        repo().join("fonts/ipaexg.ttf"),
        book.join("fonts/body-font.ttf"),
    )
    .unwrap();
    let image = std::fs::read_dir(book.join("images"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".png"))
        .expect("a PNG in the sample book");
    let css = std::fs::read_to_string(book.join("style.css")).unwrap();
    let added = format!(
        "\n@font-face {{ font-family: body; src: url(\"fonts/body%2Dfont.ttf\") format(\"truetype\"); }}\n\
         .lead {{ background-image: url(images/{image}); }}\n\
         .gone {{ background-image: url(images/missing.png); }}\n\
         .web {{ background-image: url(https://example.com/x.png); }}\n\
         .out {{ background-image: url(../../outside.png); }}\n\
         @font-face {{ font-family: old; src: url(fonts/old.eot?#iefix); }}\n"
    );
    std::fs::write(book.join("style.css"), format!("{css}{added}")).unwrap();
    let first = css.lines().count() + 2;
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for (line, what) in [
        (first + 2, "images/missing.png"),
        (first + 3, "https://example.com/x.png"),
        (first + 4, "../../outside.png"),
        (first + 5, "fonts/old.eot"),
    ] {
        assert!(
            all.contains(&format!("books/tre/style.css:{line}:1: warning:")) && all.contains(what),
            "no warning for {what} at line {line}:\n{all}"
        );
    }
    let epub = project.epub("review-nyumon");
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains("href=\"font/fonts/body-font.ttf\" media-type=\"font/ttf\""),
        "{opf}"
    );
    assert!(
        opf.contains(&format!("href=\"image/images/{image}\"")),
        "{opf}"
    );
    // Fonts and images have folders of their own: the style sheet's URLs follow them.
    let packed = read_entry(&epub, "item/style/style.css");
    assert!(
        packed.contains("url(\"../font/fonts/body-font.ttf\")"),
        "{packed}"
    );
    assert!(
        packed.contains(&format!("url(\"../image/images/{image}\")")),
        "{packed}"
    );
    assert!(
        !packed.contains("missing.png") && !packed.contains("example.com"),
        "{packed}"
    );
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}
