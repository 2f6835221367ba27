//! A book's id: what names its EPUB (`dist/<id>.epub`), its staged tree (`build/<id>/`), its
//! preview (`public/<id>/`) and its reports. A Re:VIEW book is named by its config's
//! `bookname:`, as review-epubmaker names the EPUB, unless that name cannot name a file or
//! another book of the project would have it too; every other book by its folder.
//!
//! The ids are settled from the config files alone (no chapter is read), so that `list`,
//! `build` with or without books named, and `watch` give each book the same id.
use std::path::Path;

use serde_json::Value;

use crate::codes;
use crate::error::{Finding, Location};

/// The id a book asks for, found without loading it.
#[derive(Debug, Clone, PartialEq)]
pub struct WantedId {
    /// Its folder's name (a DocBook main file given by path: the file's stem): the id when
    /// there is no usable `bookname:`.
    pub folder: String,
    /// A Re:VIEW config's `bookname:` that can name a file, and where it is written.
    pub bookname: Option<(String, Location)>,
    /// Why the config's `bookname:` is not used, at its line.
    pub unusable: Option<Finding>,
}

impl WantedId {
    /// The id the book has when nothing clashes with it.
    pub fn preferred(&self) -> &str {
        self.bookname.as_ref().map_or(&self.folder, |(n, _)| n)
    }
}

/// What the book at `path` (as [`super::Book::open`] takes it) asks to be called.
pub fn wanted(path: &Path) -> WantedId {
    let folder_of = |dir: &Path| {
        dir.canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "book".into())
    };
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let is_yaml = path.extension().is_some_and(|e| e == "yml" || e == "yaml");
    let (folder, config) = if path.is_dir() {
        let config = (!path.join("book.yml").is_file() && super::review::is_review_project(path))
            .then(|| (path.to_path_buf(), Path::new("config.yml").to_path_buf()));
        (folder_of(path), config)
    } else if path.is_file() && is_yaml {
        let file = path.file_name().map(Into::into).unwrap_or_default();
        (folder_of(parent), Some((parent.to_path_buf(), file)))
    } else {
        let stem = path
            .file_stem()
            .map_or_else(|| "book".into(), |s| s.to_string_lossy().into_owned());
        (stem, None)
    };
    let mut wanted = WantedId {
        folder,
        bookname: None,
        unusable: None,
    };
    let Some((value, at)) = config.and_then(|(dir, file)| super::review::bookname(&dir, &file))
    else {
        return wanted;
    };
    let name = match value {
        Value::String(s) => s,
        Value::Number(n) => n.to_string(),
        // Not set, or of a shape loading the book reports as an error.
        _ => return wanted,
    };
    match unsafe_name(&name) {
        None => wanted.bookname = Some((name, at)),
        Some(why) => {
            wanted.unusable = Some(
                Finding::warning(
                    codes::NOT_HONOURED,
                    at,
                    format!(
                        "`bookname: {}` {why}, so it cannot name a file; seihon names the book by its folder, `{}`",
                        shown(&name),
                        wanted.folder
                    ),
                )
                .with_hint("a bookname is a plain file name, such as `bookname: my-book`"),
            )
        }
    }
    wanted
}

/// The name as a message may show it: control characters escaped, cut short when long.
fn shown(name: &str) -> String {
    let escaped: String = name.chars().flat_map(char::escape_debug).collect();
    match escaped.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &escaped[..i]),
        None => escaped,
    }
}

/// Why `name` cannot name a book's files (`<name>.epub`, `build/<name>/`), if it cannot.
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        Some("is empty")
    } else if name.contains(['/', '\\']) {
        Some("holds a slash")
    } else if name.starts_with('.') {
        Some("starts with a dot")
    } else if name.chars().any(char::is_control) {
        Some("holds a control character")
    } else if name.trim() != name {
        Some("starts or ends with a space")
    } else if name.len() > 200 {
        Some("is longer than 200 bytes")
    } else if ["logs", "reports"].contains(&name) {
        // `build/logs/` and `build/reports/` are `seihon ci`'s.
        Some("is the name of a folder seihon keeps in build/")
    } else {
        None
    }
}

/// The id of `books[me]` among the books of a project, and the warning when its `bookname:`
/// is set aside: a book keeps its bookname only if no other book would have the same id and
/// it is not another book's folder name; otherwise it is named by its folder. The rule looks
/// only at what each book asks for, so every book's id is the same whichever books are built.
pub fn settle(books: &[&WantedId], me: usize) -> (String, Option<Finding>) {
    let book = books[me];
    let Some((name, at)) = &book.bookname else {
        return (book.folder.clone(), book.unusable.clone());
    };
    let others = || books.iter().enumerate().filter(|(i, _)| *i != me);
    let mut clashes: Vec<String> = others()
        .filter(|(_, b)| b.preferred() == name || b.folder == *name)
        .map(|(_, b)| b.folder.clone())
        .collect();
    if clashes.is_empty() {
        return (name.clone(), None);
    }
    clashes.sort();
    clashes.dedup();
    let list = clashes
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let finding = Finding::warning(
        codes::NOT_HONOURED,
        at.clone(),
        format!(
            "`bookname: {}` is the name of another book of this project too ({list}), so seihon names this book by its folder, `{}`",
            shown(name),
            book.folder
        ),
    )
    .with_hint(format!(
        "give each book its own bookname; its EPUB is dist/{}.epub meanwhile",
        book.folder
    ));
    (book.folder.clone(), Some(finding))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(folder: &str, bookname: Option<&str>) -> WantedId {
        WantedId {
            folder: folder.into(),
            bookname: bookname.map(|n| (n.to_string(), Location::new("config.yml", 19, 1))),
            unusable: None,
        }
    }

    fn ids(books: &[WantedId]) -> Vec<String> {
        let all: Vec<&WantedId> = books.iter().collect();
        (0..books.len()).map(|i| settle(&all, i).0).collect()
    }

    #[test]
    fn a_bookname_no_other_book_has_is_the_id() {
        let books = [review("neko", Some("wagahai")), review("inu", None)];
        assert_eq!(ids(&books), ["wagahai", "inu"]);
        let all: Vec<&WantedId> = books.iter().collect();
        assert!(settle(&all, 0).1.is_none());
    }

    #[test]
    fn books_sharing_a_bookname_are_named_by_their_folders_with_a_warning() {
        let books = [
            review("a", Some("book")),
            review("b", Some("book")),
            review("c", Some("own")),
        ];
        assert_eq!(ids(&books), ["a", "b", "own"]);
        let all: Vec<&WantedId> = books.iter().collect();
        let (_, warning) = settle(&all, 0);
        let warning = warning.expect("a clash is warned about");
        assert_eq!(warning.location.line, 19);
        assert!(warning.message.contains("(`b`)"), "{}", warning.message);
        assert!(
            warning.message.contains("folder, `a`"),
            "{}",
            warning.message
        );
    }

    #[test]
    fn a_bookname_that_is_another_books_folder_name_is_set_aside() {
        // `x` would take `book`'s EPUB, dist/book.epub.
        let books = [review("book", None), review("x", Some("book"))];
        assert_eq!(ids(&books), ["book", "x"]);
        // Its own folder's name is no clash.
        let books = [review("book", Some("book")), review("y", None)];
        assert_eq!(ids(&books), ["book", "y"]);
    }

    #[test]
    fn booknames_that_are_each_others_folders_are_both_set_aside() {
        // Each bookname is the other book's folder: neither takes the other's name.
        let books = [review("a", Some("b")), review("b", Some("a"))];
        assert_eq!(ids(&books), ["a", "b"]);
    }

    #[test]
    fn names_that_cannot_name_a_file() {
        for bad in [
            "",
            "  ",
            "a/b",
            "a\\b",
            ".hidden",
            "..",
            "a\u{7}b",
            "tab\there",
            " padded",
            "logs",
        ] {
            assert!(unsafe_name(bad).is_some(), "{bad:?}");
        }
        assert!(unsafe_name(&"x".repeat(201)).is_some());
        for good in ["book", "review-nyumon", "猫の本", "v1.2", &"x".repeat(200)] {
            assert_eq!(unsafe_name(good), None, "{good:?}");
        }
    }

    #[test]
    fn an_unsafe_bookname_is_warned_about_at_its_line_and_the_folder_used() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("mybook");
        std::fs::create_dir(&book).unwrap();
        std::fs::write(book.join("config.yml"), "booktitle: T\nbookname: ../evil\n").unwrap();
        std::fs::write(book.join("catalog.yml"), "CHAPS: [ch01.re]\n").unwrap();
        let w = wanted(&book);
        assert_eq!(w.bookname, None);
        assert_eq!(w.preferred(), "mybook");
        let f = w.unusable.clone().expect("warned");
        assert_eq!((f.location.line, f.location.col), (2, 1));
        assert!(f.message.contains("cannot name a file"), "{}", f.message);
        assert!(f.message.contains("`mybook`"), "{}", f.message);
        assert_eq!(settle(&[&w], 0), ("mybook".to_string(), Some(f)));

        // A good one, under `epubmaker:` over the top level, found at its line.
        std::fs::write(
            book.join("config.yml"),
            "booktitle: T\nbookname: top\nepubmaker:\n  bookname: epub-name\n",
        )
        .unwrap();
        let w = wanted(&book);
        let (name, at) = w.bookname.clone().unwrap();
        assert_eq!(name, "epub-name");
        assert_eq!((at.line, at.col), (4, 3));
        // A book.yml beside the config makes the book a book.yml book, named by its folder.
        std::fs::write(book.join("book.yml"), "title: T\n").unwrap();
        assert_eq!(wanted(&book).preferred(), "mybook");
    }
}
