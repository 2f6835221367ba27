//! The synthetic book generator writes, in each format, a book that builds without a finding
//! and passes epubcheck, with every chapter and cross-reference in place.
use crate::support;

use seihon::synth::{Format, generate};
use support::*;

#[test]
fn synthetic_books_build_cleanly_in_every_format() {
    // The Re:VIEW book is named by its config's `bookname:`.
    for (format, name, main, id) in [
        (Format::Markdown, "md", "book.yml", "md"),
        (Format::Review, "review", "config.yml", "synth"),
        (Format::DocBook, "docbook", "book.xml", "docbook"),
    ] {
        let project = TempProject::new();
        let book = project.path().join("books").join(name);
        generate(format, 3, 200, &book).unwrap();
        assert!(book.join(main).is_file(), "{name}");
        let lines: usize = std::fs::read_dir(&book)
            .unwrap()
            .flatten()
            .filter(|e| {
                e.path()
                    .extension()
                    .is_some_and(|x| x != "yml" && x != "png")
            })
            .filter(|e| e.file_name().to_string_lossy().starts_with("ch"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap().lines().count())
            .sum();
        assert!(
            (450..=700).contains(&lines),
            "{name}: {lines} lines for 3 × 200"
        );
        let out = project.seihon(&["build", name]);
        let all = text(&out);
        assert!(out.status.success(), "{name}: {all}");
        assert!(!all.contains("warning"), "{name}: {all}");
        assert!(all.contains("(3 chapters)"), "{name}: {all}");
        let epub = project.epub(id);
        // The third chapter links to a section of the second.
        let ch3 = entry_names(&epub)
            .into_iter()
            .find(|n| n.contains("ch003"))
            .unwrap_or_else(|| panic!("{name}: no third chapter"));
        let page = read_entry(&epub, &ch3);
        assert!(page.contains("href=\"ch002.xhtml#"), "{name}: {page}");
        let messages = epubcheck(&epub);
        assert!(messages.is_empty(), "{name}: {}", messages.join("\n"));
    }
}
