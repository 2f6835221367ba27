//! The chapter cache: a rebuild reads only the chapters that changed, and what it makes is
//! exactly what a build from scratch makes.
use crate::support;

use support::*;

/// The line of a build's output that starts with `word` ("read …", "wrote …").
fn line_of(out: &std::process::Output, word: &str) -> String {
    text(out)
        .lines()
        .find(|l| l.starts_with(word))
        .unwrap_or_else(|| panic!("no `{word}…` line: {}", text(out)))
        .to_string()
}

fn read_line(out: &std::process::Output) -> String {
    line_of(out, "read ")
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
    std::fs::write(
        &ch02,
        format!("{edited}\n{}\n", unreadable_markdown("See x.")),
    )
    .unwrap();
    for _ in 0..2 {
        let out = project.seihon(&["build"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out).contains(UNREADABLE), "{}", text(&out));
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
    // It says the book is up to date, and nothing else: no "building", no "built".
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert_eq!(
        stdout,
        "neko is up to date → dist/neko.epub (nothing changed since the last build; `--force` builds anyway)\n"
    );
    assert!(all.contains(&warning), "the warning is repeated: {all}");
    assert!(!all.contains("read "), "nothing was read: {all}");
    assert!(!all.contains("built"), "{all}");
    assert!(!all.contains("building"), "{all}");
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

fn wrote_line(out: &std::process::Output) -> String {
    line_of(out, "wrote ")
}

/// The page cache: a rebuild writes only the chapter pages whose chapter (or whatever the page
/// shows of other chapters) changed, and anything every page depends on writes them all again.
#[test]
fn a_rebuild_writes_only_the_pages_whose_inputs_changed() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let build = |expected: &str| {
        let out = project.seihon(&["build", "--force"]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(wrote_line(&out), expected);
        out
    };
    build("wrote 4 of 4 chapter pages");
    build("wrote 0 of 4 chapter pages");

    // A paragraph: that page only.
    let ch02 = book.join("ch02.md");
    let original = std::fs::read_to_string(&ch02).unwrap();
    std::fs::write(&ch02, format!("{original}\n段落を足した。\n")).unwrap();
    let out = build("wrote 1 of 4 chapter pages (ch02.md); the others are as they were");
    // Nor are the generated pages and files made again: nothing they show changed.
    assert_eq!(
        line_of(&out, "rendered "),
        "rendered 0 of 7 generated files"
    );
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch02.xhtml");
    assert!(page.contains("段落を足した。"), "{page}");
    // What the cache gave is what a build from scratch gives.
    let cached = std::fs::read(project.epub("neko")).unwrap();
    std::fs::remove_dir_all(project.path().join("build")).unwrap();
    build("wrote 4 of 4 chapter pages");
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), cached);

    // A heading's text shows in the preface's cross-reference to it and in the contents that
    // templates may show on every page: every page is written again.
    std::fs::write(
        &ch02,
        original.replacen(
            "# 組版と検査 {#typesetting}",
            "# 組版と点検 {#typesetting}",
            1,
        ),
    )
    .unwrap();
    let out = build("wrote 4 of 4 chapter pages");
    // So are the generated pages and files: every template is given the contents.
    assert_eq!(
        line_of(&out, "rendered "),
        "rendered 7 of 7 generated files"
    );
    let nav = read_entry(&project.epub("neko"), "item/nav.xhtml");
    assert!(nav.contains("組版と点検"), "{nav}");
    let cached = std::fs::read(project.epub("neko")).unwrap();
    std::fs::remove_dir_all(project.path().join("build")).unwrap();
    build("wrote 4 of 4 chapter pages");
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), cached);

    // A template, a rule file, the filter chain: every page.
    std::fs::create_dir_all(project.path().join("templates")).unwrap();
    let chapter_template =
        pages_template("chapter.xhtml").replace("<body", "<body data-house=\"template-edit\"");
    std::fs::write(
        project.path().join("templates/chapter.xhtml"),
        &chapter_template,
    )
    .unwrap();
    build("wrote 4 of 4 chapter pages");
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml");
    assert!(page.contains("data-house=\"template-edit\""), "{page}");
    std::fs::create_dir_all(project.path().join("filters")).unwrap();
    let rules = project.path().join("filters/mark.yml");
    std::fs::write(
        &rules,
        "rules:\n  - match: {element: table}\n    add_class: [first]\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("seihon.yml"),
        "filters: [house, mark]\n",
    )
    .unwrap();
    build("wrote 4 of 4 chapter pages");
    build("wrote 0 of 4 chapter pages");
    std::fs::write(
        &rules,
        "rules:\n  - match: {element: table}\n    add_class: [second]\n",
    )
    .unwrap();
    build("wrote 4 of 4 chapter pages");
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml");
    assert!(page.contains("class=\"second\""), "{page}");

    // An external filter may depend on anything: its pages are written every time.
    std::fs::write(
        project.path().join("filters/stamp.py"),
        "import sys\nsys.stdout.write(sys.stdin.read())\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("seihon.yml"),
        "filters: [house, mark, stamp]\n",
    )
    .unwrap();
    build("wrote 4 of 4 chapter pages");
    build("wrote 4 of 4 chapter pages");
}

/// Damages the bytes of every entry of a cache's store, its index left whole: each entry is
/// found, and fails its CRC when read (the store: a magic line, then per entry the key's
/// length (u16), the key, the bytes' length (u64) and CRC-32 (u32), the bytes).
fn damage_entries(store: &std::path::Path) {
    let mut bytes = std::fs::read(store).unwrap();
    let mut at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut damaged = 0;
    while at + 2 <= bytes.len() {
        let key = u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
        let len_at = at + 2 + key;
        let len = u64::from_le_bytes(bytes[len_at..len_at + 8].try_into().unwrap()) as usize;
        let start = len_at + 12;
        bytes[start + len / 2] = bytes[start + len / 2].wrapping_add(1);
        damaged += 1;
        at = start + len;
    }
    assert!(damaged > 0);
    std::fs::write(store, bytes).unwrap();
}

/// A kept page is read only when the build needs its text. Damaged in the page cache, it fails
/// the build that must write it, with the last EPUB left as it was, and the next build makes
/// every page anew: the same EPUB a build from scratch makes.
#[test]
fn a_kept_page_found_damaged_fails_one_build_and_the_next_makes_every_page_again() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let build = || project.seihon(&["build", "--force"]);
    // Staged twice: both trees staging takes turns with hold every page.
    assert!(build().status.success());
    assert!(build().status.success());
    let ch02 = book.join("ch02.md");
    let edited = std::fs::read_to_string(&ch02).unwrap() + "\n壊れた頁の後で。\n";
    std::fs::write(&ch02, &edited).unwrap();
    // Found by their identities where staging left them, kept pages are not read at all.
    damage_entries(&project.path().join("build/.cache/pages/neko/entries.bin"));
    let out = build();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        wrote_line(&out),
        "wrote 1 of 4 chapter pages (ch02.md); the others are as they were"
    );
    let last = std::fs::read(project.epub("neko")).unwrap();

    // With the staged trees gone, staging must write them: the build fails, saying so.
    std::fs::write(&ch02, format!("{edited}\nもう一度。\n")).unwrap();
    damage_entries(&project.path().join("build/.cache/pages/neko/entries.bin"));
    for gone in ["build/neko", "build/.cache/spare", "build/.cache/staged"] {
        let _ = std::fs::remove_dir_all(project.path().join(gone));
    }
    let out = build();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("went missing"), "{}", text(&out));
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), last);

    // The next build writes every page, and makes what a build from scratch makes.
    let out = build();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(wrote_line(&out), "wrote 4 of 4 chapter pages");
    let cached = std::fs::read(project.epub("neko")).unwrap();
    std::fs::remove_dir_all(project.path().join("build")).unwrap();
    assert!(build().status.success());
    assert_eq!(std::fs::read(project.epub("neko")).unwrap(), cached);
}

/// The built-in template `name`, as `seihon` ships it.
fn pages_template(name: &str) -> String {
    std::fs::read_to_string(repo().join("templates").join(name))
        .unwrap_or_else(|e| panic!("templates/{name}: {e}"))
}

/// The checks' kept facts: a rebuild that parses only the changed page still reports what the
/// unchanged pages have, and links into a changed page are checked against its new ids.
#[test]
fn a_rebuild_reports_the_findings_of_unchanged_pages_and_checks_links_into_changed_ones() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let append = |file: &str, text: &str| {
        let path = book.join(file);
        let old = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, old + text).unwrap();
    };
    append("ch01.md", "\n![](images/pipeline.png)\n");
    append(
        "ch02.md",
        "\n<a href=\"ch01.xhtml#headings\">見出しの節</a>を参照。\n",
    );
    let findings = |out: &std::process::Output| -> Vec<String> {
        text(out)
            .lines()
            .filter(|l| l.contains("warning:") || l.contains("error:"))
            .map(str::to_string)
            .collect()
    };
    let first = project.seihon(&["build"]);
    assert!(first.status.success(), "{}", text(&first));
    let warned = findings(&first);
    assert!(
        warned.iter().any(|l| l.contains("[image-alt]")),
        "{}",
        text(&first)
    );

    // Another chapter changes: the same findings, though ch01's page was not parsed again.
    append("ch03-english.md", "\nOne more line.\n");
    let again = project.seihon(&["build"]);
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(
        wrote_line(&again),
        "wrote 1 of 4 chapter pages (ch03-english.md); the others are as they were"
    );
    assert_eq!(findings(&again), warned);

    // Without the checks' facts, ch01's page (taken from the page cache, its source positions
    // left there) is parsed again, and its findings are still placed in its manuscript.
    std::fs::remove_dir_all(project.path().join("build/.cache/checks")).unwrap();
    append(
        "ch03-english.md",
        "
And another.
",
    );
    let again = project.seihon(&["build"]);
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(findings(&again), warned);

    // The id ch02 links to goes: ch02's source is as it was, but its link is now broken,
    // reported at it, and its page keeps the text without the link.
    let ch01 = book.join("ch01.md");
    let text1 = std::fs::read_to_string(&ch01).unwrap();
    std::fs::write(&ch01, text1.replace("{#headings}", "{#heads}")).unwrap();
    let broken = project.seihon(&["build"]);
    let all = text(&broken);
    assert!(broken.status.success(), "{all}");
    assert!(
        all.contains("books/neko/ch02.md:") && all.contains("`#headings`"),
        "the link is reported at its source: {all}"
    );
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch02.xhtml");
    assert!(
        page.contains("<span class=\"unlinked\">見出しの節</span>"),
        "{page}"
    );
}

#[test]
fn listings_are_highlighted_once_and_a_rebuild_highlights_only_the_changed_one() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let ch02 = book.join("ch02.md");
    let listings = "\n```rust\nfn main() { println!(\"猫\"); }\n```\n\n\
                    ```python\ndef neko():\n    return \"にゃー\"\n```\n";
    let with_listings = std::fs::read_to_string(&ch02).unwrap() + listings;
    std::fs::write(&ch02, &with_listings).unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    // ch01's YAML and ch02's two.
    assert_eq!(line_of(&out, "highlighted "), "highlighted 3 of 3 listings");

    let edited = with_listings.replace("return \"にゃー\"", "return \"ニャー\"");
    std::fs::write(&ch02, &edited).unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        line_of(&out, "highlighted "),
        "highlighted 1 of 2 listings; the others were highlighted before"
    );
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch02.xhtml");
    assert!(page.contains("ニャー") && page.contains("hl-"), "{page}");

    // The same sources built from scratch give the same bytes.
    let fresh = TempProject::new();
    let fresh_book = fresh.add_book(&repo().join("books/neko-no-hon"), "neko");
    std::fs::write(fresh_book.join("ch02.md"), &edited).unwrap();
    let out = fresh.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read(fresh.epub("neko")).unwrap(),
        std::fs::read(project.epub("neko")).unwrap()
    );
}

/// The findings a build printed, in order.
fn warnings_of(out: &std::process::Output) -> Vec<String> {
    text(out)
        .lines()
        .filter(|l| l.contains(": warning:"))
        .map(str::to_string)
        .collect()
}

/// The resolve memo: after an edit that changes nothing the other chapters see of a chapter
/// (its running text, an image it shows in a line), only that chapter is resolved again; after
/// one that does (a heading's title), or when the pages the memo counts on are gone, the whole
/// book is. Either way the EPUB and the findings are what a build from scratch gives, a
/// finding of a chapter not resolved again included.
#[test]
fn a_text_edit_resolves_only_its_chapter_and_the_book_is_as_built_from_scratch() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let ch03 = book.join("ch03-english.md");
    let ch03_text = std::fs::read_to_string(&ch03).unwrap() + "\nSee [nowhere](missing.md).\n";
    std::fs::write(&ch03, ch03_text).unwrap();
    let build = |resolved: &str| {
        let out = project.seihon(&["build"]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(line_of(&out, "resolved "), resolved, "{}", text(&out));
        // The same sources built from scratch give the same bytes and the same findings.
        let fresh = TempProject::new();
        fresh.add_book(&book, "neko");
        let cold = fresh.seihon(&["build"]);
        assert!(cold.status.success(), "{}", text(&cold));
        assert_eq!(line_of(&cold, "resolved "), "resolved 4 of 4 chapters");
        assert_eq!(warnings_of(&out), warnings_of(&cold));
        assert!(
            std::fs::read(fresh.epub("neko")).unwrap()
                == std::fs::read(project.epub("neko")).unwrap(),
            "the EPUB differs from one built from scratch"
        );
        let warned = warnings_of(&out);
        assert!(
            warned.iter().any(|w| w.contains("missing.md")),
            "{warned:?}"
        );
    };
    build("resolved 4 of 4 chapters");

    let edit = |name: &str, edit: &dyn Fn(String) -> String| {
        let path = book.join(name);
        let was = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, edit(was)).unwrap();
    };
    edit("ch02.md", &|t| t + "\n段落を足した。\n");
    build("resolved 1 of 4 chapters (ch02.md); the others are as they were");
    assert!(read_entry(&project.epub("neko"), "item/xhtml/ch02.xhtml").contains("段落を足した。"));

    // An image in a line of text: the chapter's resources change, not its numbers.
    edit("ch01.md", &|t| {
        t + "\n行の中の画像 ![流れ](images/pipeline.png) です。\n"
    });
    build("resolved 1 of 4 chapters (ch01.md); the others are as they were");

    // Two chapters at once (a pull of someone else's edits).
    edit("ch01.md", &|t| t + "\n一つ目の章に一行。\n");
    edit("ch03-english.md", &|t| t + "\nOne more line.\n");
    build("resolved 2 of 4 chapters (ch01.md, ch03-english.md); the others are as they were");

    // A heading's title shows in other chapters' references and the contents.
    edit("ch02.md", &|t| {
        t.replacen("# 組版と検査", "# 組版と点検", 1)
    });
    build("resolved 4 of 4 chapters");
    assert!(read_entry(&project.epub("neko"), "item/nav.xhtml").contains("組版と点検"));

    // The kept pages are gone: the others cannot be taken as they were.
    std::fs::remove_dir_all(project.path().join("build/.cache/pages")).unwrap();
    edit("ch02.md", &|t| t + "\nもう一段落。\n");
    build("resolved 4 of 4 chapters");

    // A new file in the book folder may be what a link or an image names: all again.
    std::fs::write(book.join("notes.txt"), "memo").unwrap();
    edit("ch02.md", &|t| t + "\n三つ目の段落。\n");
    build("resolved 4 of 4 chapters");
    edit("ch02.md", &|t| t + "\n四つ目の段落。\n");
    build("resolved 1 of 4 chapters (ch02.md); the others are as they were");

    // An image a chapter shows, changed in place under the same name: all again.
    let png = book.join("images/pipeline.png");
    let mut bytes = std::fs::read(&png).unwrap();
    bytes.extend_from_slice(b"trailing bytes after IEND");
    std::fs::write(&png, bytes).unwrap();
    edit("ch02.md", &|t| t + "\n五つ目の段落。\n");
    build("resolved 4 of 4 chapters");

    // `--force` skips the up-to-date check: the build looks at the book's files itself, and
    // the memo serves all the same.
    let forced = |resolved: &str| {
        let out = project.seihon(&["build", "--force"]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(line_of(&out, "resolved "), resolved, "{}", text(&out));
    };
    forced("resolved 0 of 4 chapters");
    edit("ch02.md", &|t| t + "\n六つ目の段落。\n");
    forced("resolved 1 of 4 chapters (ch02.md); the others are as they were");
    edit("ch02.md", &|t| t + "\n七つ目の段落。\n");
    build("resolved 1 of 4 chapters (ch02.md); the others are as they were");
}

/// A DocBook book is read whole every time (it is one document across files), but only the
/// chapters whose documents changed are resolved again; a chapter title an xref shows elsewhere
/// changes the other chapters too, and a new id, and everything is resolved again. Each time,
/// the EPUB and the findings are what a build from scratch gives.
#[test]
fn a_docbook_edit_resolves_only_the_chapters_it_changed_and_the_book_is_as_built_from_scratch() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/docbook-guide"), "guide");
    // A second entity chapter, after tools.xml; both use an element seihon does not handle,
    // which is reported once per book, where it is first used.
    let guide = std::fs::read_to_string(book.join("guide.xml")).unwrap();
    let guide = guide
        .replacen(
            "<!ENTITY chapter-tools SYSTEM \"tools.xml\">",
            "<!ENTITY chapter-tools SYSTEM \"tools.xml\">\n  <!ENTITY chapter-more SYSTEM \"more.xml\">",
            1,
        )
        .replacen("&chapter-tools;", "&chapter-tools;\n  &chapter-more;", 1);
    std::fs::write(book.join("guide.xml"), guide).unwrap();
    std::fs::write(
        book.join("more.xml"),
        "<chapter id=\"ch-more\"><title>More</title><para>A <blorb>thing</blorb>.</para></chapter>\n",
    )
    .unwrap();
    let tools = std::fs::read_to_string(book.join("tools.xml")).unwrap();
    let tools = tools.replacen("with this command", "with this <blorb>command</blorb>", 1);
    std::fs::write(book.join("tools.xml"), tools).unwrap();
    let build = |resolved: &str| {
        let out = project.seihon(&["build"]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(line_of(&out, "resolved "), resolved, "{}", text(&out));
        let fresh = TempProject::new();
        fresh.add_book(&book, "guide");
        let cold = fresh.seihon(&["build"]);
        assert!(cold.status.success(), "{}", text(&cold));
        let total = resolved
            .split(" of ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        let whole = format!("resolved {total} of {total} chapters");
        assert_eq!(line_of(&cold, "resolved "), whole);
        assert_eq!(warnings_of(&out), warnings_of(&cold));
        assert!(
            std::fs::read(fresh.epub("guide")).unwrap()
                == std::fs::read(project.epub("guide")).unwrap(),
            "the EPUB differs from one built from scratch"
        );
        out
    };
    build("resolved 6 of 6 chapters");
    let edit = |name: &str, edit: &dyn Fn(String) -> String| {
        let path = book.join(name);
        let was = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, edit(was)).unwrap();
    };
    // The chapter in an entity file.
    edit("tools.xml", &|t| {
        t.replacen("<para>Build", "<para>First, build", 1)
    });
    let out = build("resolved 1 of 6 chapters (tools.xml); the others are as they were");
    assert!(read_entry(&project.epub("guide"), "item/xhtml/tools.xhtml").contains("First, build"));
    // The other chapters' conversion is taken as it was (their files, the main file and what
    // the whole tree gives every chapter are unchanged).
    assert_eq!(
        line_of(&out, "converted "),
        "converted 1 of 6 chapters (tools.xml); the others are as they were"
    );
    // The first use of the unknown element taken away: the next chapter reports it now. Their
    // documents are as they were (the element's text was kept): nothing is resolved again.
    edit("tools.xml", &|t| {
        t.replacen("<blorb>command</blorb>", "command", 1)
    });
    let out = build("resolved 0 of 6 chapters");
    assert_eq!(
        line_of(&out, "converted "),
        "converted 2 of 6 chapters (tools.xml, more.xml); the others are as they were"
    );
    assert!(
        warnings_of(&out)
            .iter()
            .any(|w| w.contains("more.xml") && w.contains("blorb")),
        "{:?}",
        warnings_of(&out)
    );
    // A chapter in the main file, with a broken link added (a warning of its own).
    edit("guide.xml", &|t| {
        t.replacen(
            "and chapters hold sections.",
            "and chapters hold <xref linkend=\"nowhere\"/> sections.",
            1,
        )
    });
    let out = build("resolved 1 of 6 chapters (guide.xml); the others are as they were");
    // (The main file holds the DTD subset, whose entities any chapter may use.)
    assert_eq!(line_of(&out, "converted "), "converted 6 of 6 chapters");
    // A title the preface's xref shows: the text the reader gives every xref changes.
    edit("tools.xml", &|t| {
        t.replacen("<title>Tools</title>", "<title>Tooling</title>", 1)
    });
    build("resolved 6 of 6 chapters");
    // A new id another chapter may point at: all again, then one chapter.
    edit("tools.xml", &|t| {
        t.replacen("<para>A listing", "<para id=\"p-listing\">A listing", 1)
    });
    build("resolved 6 of 6 chapters");
    edit("tools.xml", &|t| {
        t.replacen("this command", "this one command", 1)
    });
    build("resolved 1 of 6 chapters (tools.xml); the others are as they were");

    // An index: each chapter's terms are kept with it, and the index page is made again of
    // them and of the terms of the chapter resolved again. A term added or taken away is an
    // anchor id more or less: all again.
    edit("guide.xml", &|t| {
        t.replacen(
            "<para>A book holds",
            "<para>A book<indexterm><primary>book</primary></indexterm> holds",
            1,
        )
        .replacen("</book>", "<index/>\n</book>", 1)
    });
    edit("tools.xml", &|t| {
        t.replacen(
            "<para>First, build",
            "<para>First, build<indexterm><primary>tools</primary></indexterm>",
            1,
        )
    });
    build("resolved 7 of 7 chapters");
    let index_page = || {
        let epub = project.epub("guide");
        let name = entry_names(&epub)
            .into_iter()
            .find(|n| n.ends_with(".xhtml") && read_entry(&epub, n).contains("doc-index"))
            .expect("an index page");
        read_entry(&epub, &name)
    };
    assert!(index_page().contains(">tools<"), "{}", index_page());
    edit("tools.xml", &|t| {
        t.replacen("<primary>tools</primary>", "<primary>tooling</primary>", 1)
    });
    let out = build("resolved 1 of 7 chapters (tools.xml); the others are as they were");
    assert_eq!(
        line_of(&out, "converted "),
        "converted 1 of 7 chapters (tools.xml); the others are as they were"
    );
    assert!(index_page().contains(">tooling<"), "{}", index_page());
    assert!(index_page().contains(">book<"), "{}", index_page());
    edit("tools.xml", &|t| {
        let term = "A listing<indexterm><primary>listing</primary></indexterm> with";
        t.replacen("A listing with", term, 1)
    });
    build("resolved 7 of 7 chapters");
}

/// A chapter file is known by its stamp (size, modification time, inode), as the up-to-date
/// check knows every input: a rebuild reads only the chapters whose files have another stamp.
/// A chapter that maps in another file's text (`#@mapfile`) is read every time: the file it
/// maps may be another chapter, which changes without it.
#[test]
fn a_rebuild_reads_the_chapters_whose_files_changed_and_those_that_map_others_in() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/review-nyumon"), "tre");
    let edit = |name: &str, more: &str| {
        let path = book.join(name);
        let was = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, was + more).unwrap();
    };
    // ch01 shows the appendix's text, itself a chapter.
    edit(
        "ch01.re",
        "\n//emlist{\n#@mapfile(appendix.re)\n#@end\n//}\n",
    );
    let build = |args: &[&str], read: &str| {
        let out = project.seihon(args);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(read_line(&out), read, "{}", text(&out));
    };
    build(&["build"], "read 4 of 4 chapters");

    // The appendix edited: ch01, which maps it in, is read again with it.
    edit("appendix.re", "\n付録に足した一行。\n");
    build(
        &["build"],
        "read 2 of 4 chapters (ch01.re, appendix.re); the others are unchanged",
    );
    let ch01 = read_entry(&project.epub("review-nyumon"), "item/xhtml/ch01.xhtml");
    assert!(ch01.contains("付録に足した一行。"), "{ch01}");
    let fresh = TempProject::new();
    fresh.add_book(&book, "tre");
    let cold = fresh.seihon(&["build"]);
    assert!(cold.status.success(), "{}", text(&cold));
    assert!(
        std::fs::read(fresh.epub("review-nyumon")).unwrap()
            == std::fs::read(project.epub("review-nyumon")).unwrap(),
        "the EPUB differs from one built from scratch"
    );

    // ch02's bytes made unreadable in place, with the size and modification time they had:
    // its stamp is the same, so it is not read (the build is not even run without --force).
    // (ch01 is read, and its reading taken from the chapter cache.)
    let ch02 = book.join("ch02.re");
    let was = std::fs::metadata(&ch02).unwrap();
    let original = std::fs::read(&ch02).unwrap();
    let mut bytes = original.clone();
    bytes[0] = 0xff;
    let file = std::fs::OpenOptions::new().write(true).open(&ch02).unwrap();
    std::io::Write::write_all(&mut &file, &bytes).unwrap();
    file.set_modified(was.modified().unwrap()).unwrap();
    drop(file);
    build(&["build", "--force"], "read 0 of 4 chapters");
    // Without the chapter cache, a chapter renamed (the preface names it: the whole book is
    // resolved again) reads the chapters the memo knew by their stamps after all, and finds
    // that ch02 is not what its stamp was taken of.
    std::fs::remove_dir_all(project.path().join("build/.cache/chapters")).unwrap();
    let ch01 = book.join("ch01.re");
    let renamed =
        std::fs::read_to_string(&ch01)
            .unwrap()
            .replacen("= 原稿の書き方", "= 原稿の書きかた", 1);
    std::fs::write(&ch01, renamed).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("ch02.re: error: this file changed while the book was being built"),
        "{}",
        text(&out)
    );
    // Put back, ch02 has the key the memo knew it by, and the failed build kept ch01's
    // reading: nothing is read anew, and the book is what a build from scratch makes.
    std::fs::write(&ch02, &original).unwrap();
    build(&["build"], "read 0 of 4 chapters");
    let fresh = TempProject::new();
    fresh.add_book(&book, "tre");
    assert!(fresh.seihon(&["build"]).status.success());
    assert!(
        std::fs::read(fresh.epub("review-nyumon")).unwrap()
            == std::fs::read(project.epub("review-nyumon")).unwrap(),
        "the EPUB differs from one built from scratch"
    );
    // The same bytes written as an editor writes them (a new modification time): read, and
    // reported.
    std::fs::write(&ch02, &bytes).unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("not UTF-8"), "{}", text(&out));
}
