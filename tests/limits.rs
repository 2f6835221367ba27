//! Limits: a book's images and hooks stay inside its folder (through `..` or symlinks) unless
//! the project lists a shared folder (an image outside is never read: its text stands in, with
//! a warning; a hook outside is refused); hooks that flood their output are stopped.
use crate::support;

use std::path::Path;

use support::*;

/// The sample book with a house logo kept outside it, in `art/`.
fn project_with_outside_logo() -> (TempProject, std::path::PathBuf) {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let art = project.path().join("art");
    std::fs::create_dir_all(&art).unwrap();
    std::fs::copy(book.join("images/pipeline.png"), art.join("logo.png")).unwrap();
    (project, book)
}

fn append_line(path: &Path, line: &str) -> u32 {
    let text = std::fs::read_to_string(path).unwrap();
    let text = format!("{}\n\n{line}\n", text.trim_end());
    std::fs::write(path, &text).unwrap();
    text.lines().count() as u32
}

#[test]
fn an_image_through_dotdot_is_refused_unless_its_folder_is_shared() {
    let (project, book) = project_with_outside_logo();
    let line = append_line(&book.join("ch01.md"), "![House logo](../../art/logo.png)");
    let out = project.seihon(&["build"]);
    let all = text(&out);
    // Never read: the alt text stands in, with a warning (a release refuses it).
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!("books/neko/ch01.md:{line}:1: warning: the image `../../art/logo.png` is outside the book folder")),
        "{all}"
    );
    assert!(
        !entry_names(&project.epub("neko"))
            .iter()
            .any(|n| n.contains("logo"))
    );
    assert!(read_entry(&project.epub("neko"), "item/xhtml/ch01.xhtml").contains("House logo"));

    std::fs::write(project.path().join("seihon.yml"), "shared_dirs: [art]\n").unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("neko");
    assert!(
        entry_names(&epub).contains(&"item/image/shared-1/logo.png".to_string()),
        "{:?}",
        entry_names(&epub)
    );
    assert!(read_entry(&epub, "item/xhtml/ch01.xhtml").contains("../image/shared-1/logo.png"));
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn an_image_symlink_leading_out_is_refused_unless_it_leads_into_a_shared_folder() {
    let (project, book) = project_with_outside_logo();
    std::os::unix::fs::symlink(
        project.path().join("art/logo.png"),
        book.join("images/logo.png"),
    )
    .unwrap();
    let line = append_line(&book.join("ch01.md"), "![House logo](images/logo.png)");
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!(
            "books/neko/ch01.md:{line}:1: warning: the image `images/logo.png` is a link to a file outside the book folder"
        )),
        "{all}"
    );
    assert!(
        !entry_names(&project.epub("neko"))
            .iter()
            .any(|n| n.contains("logo"))
    );
    std::fs::write(project.path().join("seihon.yml"), "shared_dirs: [art]\n").unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(entry_names(&project.epub("neko")).contains(&"item/image/images/logo.png".to_string()));
}

#[test]
fn a_hook_linked_from_outside_the_book_is_refused_unless_shared() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let house = project.path().join("house-hooks");
    write_exec(
        &house.join("stamp.sh"),
        "#!/bin/sh\necho stamped > \"$SEIHON_STAGE_DIR/item/stamp.txt\"\n",
    );
    std::fs::create_dir_all(book.join("hooks")).unwrap();
    std::os::unix::fs::symlink(house.join("stamp.sh"), book.join("hooks/pre-pack")).unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("the pre-pack hook is a link to") && all.contains("outside the book folder"),
        "{all}"
    );
    assert!(!project.epub("neko").exists());
    // Without hooks the book builds; with the folder shared, the hook runs.
    let out = project.seihon(&["build", "--no-hooks"]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(
        project.path().join("seihon.yml"),
        "shared_dirs: [house-hooks]\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(project.path().join("build/neko/item/stamp.txt").is_file());
}

#[test]
fn a_hook_that_floods_its_output_is_stopped() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    write_exec(
        &book.join("hooks/pre-pack"),
        "#!/bin/sh\nexec yes 'all work and no play'\n",
    );
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("the pre-pack hook failed"), "{all}");
    assert!(
        all.len() < 64 * 1024,
        "the flood reached the user: {} bytes",
        all.len()
    );
    assert!(!project.epub("neko").exists());
}
