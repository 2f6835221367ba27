//! Bad input: each mistake an editor can make gives exit 1 or 2, the file, line and column in
//! plain words, never a panic, and the previous EPUB stays as it was.
use crate::support;

use std::path::Path;

use support::*;

/// Builds the sample book once, breaks it with `edit`, builds again, and returns the output.
fn break_and_build(edit: impl FnOnce(&Path)) -> (std::process::Output, TempProject) {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let first = project.seihon(&["build"]);
    assert!(first.status.success(), "{}", text(&first));
    let before = std::fs::read(project.epub("neko")).unwrap();
    edit(&book);
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(
        matches!(out.status.code(), Some(1) | Some(2)),
        "exit {:?}: {all}",
        out.status.code()
    );
    assert!(!all.contains("panicked"), "{all}");
    assert_eq!(
        std::fs::read(project.epub("neko")).unwrap(),
        before,
        "the previous EPUB was changed"
    );
    (out, project)
}

fn edit_file(path: &Path, f: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, f(text)).unwrap();
}

#[test]
fn malformed_yaml_names_the_line() {
    let (out, _p) = break_and_build(|b| {
        edit_file(&b.join("book.yml"), |t| {
            t.replace("publisher: 見本出版", "publisher: [見本出版")
        })
    });
    let all = text(&out);
    assert!(all.contains("book.yml:"), "{all}");
    assert!(all.contains("not valid book settings YAML"), "{all}");
}

#[test]
fn unknown_key_names_line_column_and_suggests_the_nearest() {
    let (out, _p) = break_and_build(|b| {
        edit_file(&b.join("book.yml"), |t| {
            t.replace("publisher:", "publsher:")
        })
    });
    let all = text(&out);
    let line = std::fs::read_to_string(repo().join("books/neko-no-hon/book.yml"))
        .unwrap()
        .lines()
        .position(|l| l.starts_with("publisher:"))
        .unwrap()
        + 1;
    assert!(
        all.contains(&format!(
            "books/neko/book.yml:{line}:1: error: unknown key `publsher`"
        )),
        "{all}"
    );
    assert!(all.contains("did you mean `publisher`?"), "{all}");
}

#[test]
fn missing_required_title_is_named() {
    let (out, _p) =
        break_and_build(|b| edit_file(&b.join("book.yml"), |t| t.replace("title: 製本入門\n", "")));
    assert!(
        text(&out).contains("the required key `title` is missing"),
        "{}",
        text(&out)
    );
}

#[test]
fn missing_chapter_file_is_named_with_its_line() {
    let (out, _p) = break_and_build(|b| std::fs::remove_file(b.join("ch02.md")).unwrap());
    let all = text(&out);
    assert!(all.contains("book.yml:"), "{all}");
    assert!(
        all.contains("the chapter file `ch02.md` does not exist"),
        "{all}"
    );
}

/// Builds the sample book broken by `edit`: a defect seihon renders around is a warning, the
/// EPUB is built and valid, and `seihon release` refuses it. Returns the build's output.
fn break_and_warn(edit: impl FnOnce(&Path)) -> String {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    edit(&book);
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "exit {:?}: {all}", out.status.code());
    let messages = epubcheck(&project.epub("neko"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    let release = project.seihon(&["release", "neko", "--version", "1.0"]);
    assert_eq!(release.status.code(), Some(1), "{}", text(&release));
    assert!(
        text(&release).contains("a release admits no warnings"),
        "{}",
        text(&release)
    );
    all
}

#[test]
fn unreadable_image_is_a_warning_where_it_is_used() {
    let all = break_and_warn(|b| {
        std::fs::write(b.join("images/pipeline.png"), b"this is not a PNG").unwrap()
    });
    assert!(all.contains("books/neko/ch02.md:5:1: warning:"), "{all}");
    assert!(all.contains("cannot be read"), "{all}");
}

#[test]
fn missing_image_is_a_warning_where_it_is_used() {
    let all = break_and_warn(|b| std::fs::remove_file(b.join("images/pipeline.png")).unwrap());
    assert!(
        all.contains(
            "books/neko/ch02.md:5:1: warning: the image `images/pipeline.png` does not exist"
        ),
        "{all}"
    );
}

#[test]
fn broken_link_and_undefined_footnote_are_located_warnings_and_keep_their_text() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    edit_file(&book.join("ch01.md"), |t| {
        t.replace(
            "[^numbering]。",
            "[^nothere]。 [リンク先なし](ch09.md) [見出しなし](ch02.md#nowhere)",
        )
    });
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for want in [
        "warning: the footnote `[^nothere]` is never defined",
        "`ch09.md`, which is not a chapter of this book",
        "`#nowhere`",
    ] {
        assert!(all.contains(want), "{want}: {all}");
    }
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml");
    assert!(
        page.contains("[^nothere]") && page.contains("リンク先なし") && page.contains("見出しなし"),
        "{page}"
    );
    assert!(
        !page.contains("ch09") && !page.contains("nowhere"),
        "{page}"
    );
    let messages = epubcheck(&project.epub("neko"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// Links in raw HTML are the manuscript's links too: resolved the same way, and one that goes
/// nowhere keeps its text with a warning (a real book wrote `<a href="igvita.com">`, which
/// failed the whole build). A web address missing its `//` is repaired as browsers read it.
#[test]
fn raw_html_links_and_addresses_without_slashes_degrade_like_markdown_links() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    edit_file(&book.join("ch01.md"), |t| {
        format!(
            "{t}\n<p>ブログは <a href=\"igvita.com\">igvita.com</a>、\
             <a href=\"ch02.md\">次の章</a>、<a href=\"#nowhere\">どこにも</a>。</p>\n\n\
             [Go](http:golang.org/pkg/) と [空](http:)\n"
        )
    });
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for want in [
        "`igvita.com`, which is not a chapter of this book",
        "`#nowhere`",
        "the address `http:golang.org/pkg/` lacks the `//` after `http:`; the link goes to `http://golang.org/pkg/`",
        "`http:` names no address",
    ] {
        assert!(all.contains(want), "{want}: {all}");
    }
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml");
    for want in [
        "<span class=\"unlinked\">igvita.com</span>",
        "<a href=\"ch02.xhtml\">次の章</a>",
        "<span class=\"unlinked\">どこにも</span>",
        "href=\"http://golang.org/pkg/\"",
    ] {
        assert!(page.contains(want), "{want}: {page}");
    }
    let messages = epubcheck(&project.epub("neko"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// An id used twice in raw HTML is a located warning, and the second is renamed, as in
/// every format: the page never holds an id twice, so the book builds and passes epubcheck.
#[test]
fn an_id_used_twice_in_raw_html_is_renamed_with_a_warning() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    edit_file(&book.join("ch01.md"), |t| {
        format!(
            "{t}\n<p id=\"dup\">a <a href=\"#dup\">here</a></p>\n\nand <span id=\"dup\">c</span>\n"
        )
    });
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("warning: the id `dup` is used twice in this chapter"),
        "{all}"
    );
    let page = read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml");
    assert!(
        page.contains("<p id=\"dup\">a <a href=\"#dup\">here</a></p>"),
        "{page}"
    );
    assert!(page.contains("<span id=\"dup-2\">c</span>"), "{page}");
    let messages = epubcheck(&project.epub("neko"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn html_that_is_not_xhtml_is_shown_as_written_with_a_warning_at_its_location() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    edit_file(&book.join("ch02.md"), |t| format!("{t}\n<div>の途中\n"));
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("books/neko/ch02.md:"), "{all}");
    assert!(all.contains("shown as the text it is"), "{all}");
}

#[test]
fn chapter_that_is_not_utf8_is_located() {
    let (out, _p) =
        break_and_build(|b| std::fs::write(b.join("ch01.md"), b"# \xff\xfe\n").unwrap());
    assert!(
        text(&out).contains("books/neko/ch01.md:1:3: error: this file is not UTF-8 text"),
        "{}",
        text(&out)
    );
}

#[test]
fn chapter_outside_the_book_is_refused() {
    let (out, _p) = break_and_build(|b| {
        edit_file(&b.join("book.yml"), |t| {
            t.replace("[ch01.md,", "[../../etc/passwd.md,")
        })
    });
    assert!(
        text(&out).contains("outside the book folder"),
        "{}",
        text(&out)
    );
}

#[test]
fn unknown_book_is_a_usage_error() {
    let project = TempProject::new();
    let out = project.seihon(&["build", "nosuchbook"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("`nosuchbook` is not a book"),
        "{}",
        text(&out)
    );
}

#[test]
fn broken_template_override_names_the_template_and_keeps_the_epub() {
    let (out, _p) = break_and_build(|b| {
        std::fs::create_dir_all(b.join("templates")).unwrap();
        std::fs::write(
            b.join("templates/colophon.xhtml"),
            "<html><body><p>unclosed</body></html>",
        )
        .unwrap();
    });
    let all = text(&out);
    assert!(all.contains("colophon.xhtml"), "{all}");
    assert!(all.contains("not well-formed"), "{all}");
}

/// One exit-code rule for the same kind of mistake, whatever the file: broken YAML in a
/// book's own settings (`book.yml`, Re:VIEW's `config.yml` and `catalog.yml`) fails that book
/// (1) and the other book is still built; in the project's `seihon.yml` no book can be built
/// (2).
#[test]
fn the_same_mistake_exits_the_same_way_in_every_settings_file() {
    for (book, file, exit) in [
        ("neko-no-hon", "book.yml", 1),
        ("review-nyumon", "config.yml", 1),
        ("review-nyumon", "catalog.yml", 1),
    ] {
        let project = TempProject::new();
        let dir = project.add_book(&repo().join("books").join(book), "bad");
        project.add_book(&repo().join("books/neko-no-hon"), "good");
        let path = dir.join(file);
        let text0 = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text0}\nkey: [unclosed\n")).unwrap();
        let out = project.seihon(&["build"]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(exit), "{file}: {all}");
        assert!(all.contains(&format!("{file}:")), "{file}: located: {all}");
        assert!(
            project.epub("good").is_file(),
            "{file}: the other book: {all}"
        );
    }
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "good");
    std::fs::write(project.path().join("seihon.yml"), "books_dir: [unclosed\n").unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("seihon.yml:1:"), "{}", text(&out));
}
