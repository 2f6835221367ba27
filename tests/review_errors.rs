//! Re:VIEW mistakes are reported like a good compiler: every problem in the book at once, each
//! at its file:line:col in plain words. Errors fail the build and keep the previous EPUB;
//! defects Re:VIEW only warns about are warnings, and the EPUB stays valid.
use crate::support;

use std::path::Path;

use support::*;

fn sample() -> (TempProject, std::path::PathBuf) {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/review-nyumon"), "rv");
    (project, book)
}

fn append(path: &Path, text: &str) {
    let mut s = std::fs::read_to_string(path).unwrap();
    s.push_str(text);
    std::fs::write(path, s).unwrap();
}

/// The 1-based line where `needle` starts in the file.
fn line_of(path: &Path, needle: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .position(|l| l.starts_with(needle))
        .expect(needle)
        + 1
}

#[test]
fn every_error_in_a_chapter_is_reported_with_its_location() {
    let (project, book) = sample();
    assert!(project.seihon(&["build"]).status.success());
    let before = std::fs::read(project.epub("review-nyumon")).unwrap();
    let ch01 = book.join("ch01.re");
    append(
        &ch01,
        "\n//lisst[a][b]{\nx\n//}\n\n//image[only-one-arg]\n\n@<list>{nosuch}を参照。\n\n//emlist{\nnever closed\n",
    );
    let out = project.seihon(&["build", "rv"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let at = |needle: &str| format!("books/rv/ch01.re:{}:1: error:", line_of(&ch01, needle));
    // An unknown block command, with the nearest known one suggested: a warning, its content
    // kept (real books degrade); the errors still fail the build.
    assert!(
        all.contains(&format!(
            "books/rv/ch01.re:{}:1: warning: unknown command `//lisst`",
            line_of(&ch01, "//lisst")
        )),
        "{all}"
    );
    assert!(all.contains("`//list`"), "{all}");
    // Wrong number of arguments.
    assert!(
        all.contains(&at("//image[only")) && all.contains("takes 2 to 3 arguments"),
        "{all}"
    );
    // Unclosed block.
    assert!(
        all.contains(&at("//emlist{")) && all.contains("never closed"),
        "{all}"
    );
    // Unresolved reference: a warning (its id is shown), as in every format.
    assert!(
        all.contains(&format!(
            "books/rv/ch01.re:{}:1: warning: cannot resolve the reference `nosuch`",
            line_of(&ch01, "@<list>{nosuch}")
        )),
        "{all}"
    );
    assert!(!all.contains("panicked"), "{all}");
    assert_eq!(
        std::fs::read(project.epub("review-nyumon")).unwrap(),
        before,
        "the previous EPUB was changed"
    );
}

#[test]
fn duplicate_id_and_missing_image_are_warnings_at_their_lines_and_the_epub_stays_valid() {
    let (project, book) = sample();
    let ch02 = book.join("ch02.re");
    // A heading label equal to an image id: Re:VIEW writes the id twice.
    append(
        &ch02,
        "\n=={flow} 図と同じラベル\n\n//image[nofile][ファイルのない図]\n",
    );
    let out = project.seihon(&["build", "rv"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!(
            "books/rv/ch02.re:{}:1: warning: the id `flow` is used twice in this chapter",
            line_of(&ch02, "=={flow}")
        )),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "books/rv/ch02.re:{}:1: warning: no image file for `nofile`",
            line_of(&ch02, "//image[nofile]")
        )),
        "{all}"
    );
    let messages = epubcheck(&project.epub("review-nyumon"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn review_ext_and_unsupported_settings_are_warned_about_once() {
    let (project, book) = sample();
    std::fs::write(book.join("review-ext.rb"), "# extensions\n").unwrap();
    append(&book.join("config.yml"), "math_format: imgmath\n");
    append(
        &book.join("ch01.re"),
        "\n#@mapfile(hello.c)\nint x;\n#@end\n",
    );
    let out = project.seihon(&["build", "rv"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert_eq!(
        // One finding (under the file's "── …" header).
        all.lines()
            .filter(|l| l.contains("review-ext.rb") && !l.starts_with("──"))
            .count(),
        1,
        "{all}"
    );
    assert!(
        all.contains("books/rv/config.yml:") && all.contains("imgmath"),
        "{all}"
    );
    // The file to map is missing: the lines are kept, with a warning at the directive.
    assert!(
        all.contains("books/rv/ch01.re:") && all.contains("the file `hello.c` to map"),
        "{all}"
    );
}

#[test]
fn a_review_config_file_given_by_path_builds_and_new_scaffolds_a_review_book() {
    let project = TempProject::new();
    let out = project.seihon(&["new", "fresh", "--format", "review"]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::copy(
        project.path().join("books/fresh/config.yml"),
        project.path().join("books/fresh/config-epub.yml"),
    )
    .unwrap();
    let out = project.seihon(&["build", "books/fresh/config-epub.yml"]);
    assert!(out.status.success(), "{}", text(&out));
    let messages = epubcheck(&project.epub("fresh"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// A block only the book's review-ext.rb defines is reported once for the whole book, where it
/// is first used, however many chapters use it; its content is kept in every chapter.
#[test]
fn an_extension_block_is_reported_once_per_book() {
    let (project, book) = sample();
    std::fs::write(
        book.join("review-ext.rb"),
        "ReVIEW::Compiler.defblock(:speech, 0..1)\n",
    )
    .unwrap();
    append(
        &book.join("ch01.re"),
        "\n//speech{\n一つ目\n//}\n\n//speech{\n二つ目\n//}\n",
    );
    append(&book.join("ch02.re"), "\n//speech{\n三つ目\n//}\n");
    let out = project.seihon(&["build", "rv"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let reports: Vec<&str> = all.lines().filter(|l| l.contains("`//speech`")).collect();
    assert_eq!(reports.len(), 1, "{all}");
    assert!(
        reports[0].contains("ch01.re:") && reports[0].contains("review-ext.rb"),
        "{all}"
    );
    let epub = project.epub("review-nyumon");
    assert!(read_entry(&epub, "item/xhtml/ch02.xhtml").contains("<div class=\"speech\">"));
}
