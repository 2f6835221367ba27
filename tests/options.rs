//! Book and project options: vertical writing, a book's own cover, template overrides and the
//! project's seihon.yml, each checked in the EPUB and by the real epubcheck.
use crate::support;

use support::*;

fn edit(path: &std::path::Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} not in {}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

#[test]
fn vertical_book_with_its_own_cover_and_template_overrides_is_valid() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "tate");
    edit(
        &book.join("book.yml"),
        "writing: horizontal",
        "writing: vertical\ncover: images/pipeline.png",
    );
    // A book's own template wins over the project's, which wins over the built-in one.
    std::fs::create_dir_all(project.path().join("templates")).unwrap();
    std::fs::create_dir_all(book.join("templates")).unwrap();
    let colophon = std::fs::read_to_string(repo().join("templates/colophon.xhtml")).unwrap();
    std::fs::write(
        project.path().join("templates/colophon.xhtml"),
        colophon.replace("</section>", "<p>PROJECT</p></section>"),
    )
    .unwrap();
    std::fs::write(
        book.join("templates/colophon.xhtml"),
        colophon.replace("</section>", "<p>BOOK</p></section>"),
    )
    .unwrap();
    let title = std::fs::read_to_string(repo().join("templates/titlepage.xhtml")).unwrap();
    std::fs::write(
        project.path().join("templates/titlepage.xhtml"),
        title.replace("</section>", "<p>PROJECT TITLE</p></section>"),
    )
    .unwrap();

    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("tate");
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(opf.contains("page-progression-direction=\"rtl\""), "{opf}");
    assert!(opf.contains("verticalWriting"), "{opf}");
    assert!(
        opf.contains(
            "href=\"image/cover.png\" media-type=\"image/png\" properties=\"cover-image\""
        ),
        "{opf}"
    );
    assert_eq!(
        read_entry_bytes(&epub, "item/image/cover.png"),
        std::fs::read(book.join("images/pipeline.png")).unwrap()
    );
    let ch01 = read_entry(&epub, "item/xhtml/ch01.xhtml");
    assert!(ch01.contains("class=\"vrtl\""), "{ch01}");
    let colophon = read_entry(&epub, "item/xhtml/colophon.xhtml");
    assert!(
        colophon.contains("<p>BOOK</p>") && !colophon.contains("PROJECT"),
        "{colophon}"
    );
    assert!(read_entry(&epub, "item/xhtml/titlepage.xhtml").contains("PROJECT TITLE"));
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn project_settings_choose_folders_and_reject_unknown_keys() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    std::fs::rename(
        project.path().join("books"),
        project.path().join("manuscripts"),
    )
    .unwrap();
    let _ = book;
    std::fs::write(
        project.path().join("seihon.yml"),
        "books_dir: manuscripts\ndist_dir: out\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(project.path().join("out/neko.epub").is_file());

    std::fs::write(
        project.path().join("seihon.yml"),
        "books_dir: manuscripts\ndist_dri: out\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("seihon.yml:2:1: error: unknown key `dist_dri`"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("did you mean `dist_dir`?"),
        "{}",
        text(&out)
    );
}
