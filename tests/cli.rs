//! The command line as people meet it: finding the project from any folder inside it, what
//! is printed and how much, and the help agreeing with the README.
use crate::support;

use support::*;

/// The folders a build writes, which must only ever appear at the project root.
const OUTPUTS: [&str; 3] = ["build", "dist", "public"];

fn no_outputs_in(dir: &std::path::Path) {
    for out in OUTPUTS {
        assert!(
            !dir.join(out).exists(),
            "{out}/ was written in {}",
            dir.display()
        );
    }
}

#[test]
fn inside_a_book_folder_build_builds_that_book_with_outputs_at_the_project_root() {
    let project = TempProject::new();
    let neko = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    project.add_book(&repo().join("books/review-nyumon"), "rv");
    let out = project.seihon_in(&neko, &["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("[1/1] building books/neko"),
        "that book only: {all}"
    );
    assert!(project.epub("neko").is_file(), "{all}");
    assert!(
        !project.epub("review-nyumon").exists(),
        "not the other book: {all}"
    );
    no_outputs_in(&neko);
    // `.` there is that book too, not a project of its own.
    let out = project.seihon_in(&neko, &["build", "--force", "."]);
    assert!(out.status.success(), "{}", text(&out));
    no_outputs_in(&neko);
}

#[test]
fn from_a_nested_folder_the_project_and_its_book_are_found() {
    let project = TempProject::new();
    let neko = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    project.add_book(&repo().join("books/review-nyumon"), "rv");
    let images = neko.join("images");
    assert!(images.is_dir());
    let out = project.seihon_in(&images, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("[1/1] building books/neko"),
        "{}",
        text(&out)
    );
    no_outputs_in(&images);
    no_outputs_in(&neko);

    // From the books folder (no book of its own), every book; a path is taken from there.
    let books = project.path().join("books");
    let out = project.seihon_in(&books, &["build", "--force", "rv"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("building books/rv"), "{}", text(&out));
    let out = project.seihon_in(&books, &["list"]);
    assert!(out.status.success(), "{}", text(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("neko") && listed.contains("review-nyumon"),
        "{listed}"
    );
    no_outputs_in(&books);

    // A seihon.yml marks the root, even where books_dir is another folder.
    std::fs::write(project.path().join("seihon.yml"), "books_dir: books\n").unwrap();
    let out = project.seihon_in(&images, &["build", "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    no_outputs_in(&neko);
}

#[test]
fn a_folder_beside_books_stays_its_own_project() {
    // A project with a bare books/ (no seihon.yml) and a scratch folder beside it holding a
    // book given by path: the scratch folder is its own project, as it always was; the
    // books/ above claims only the folders inside it.
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let scratch = project.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    copy_dir(&repo().join("books/neko-no-hon"), &scratch.join("alone"));
    let out = project.seihon_in(&scratch, &["build", "alone"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(scratch.join("dist/alone.epub").is_file(), "{all}");
    no_outputs_in(project.path());
    // With nothing named, it has no books of its own: it says so, and builds nothing above.
    let out = project.seihon_in(&scratch, &["build"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    no_outputs_in(project.path());
}
