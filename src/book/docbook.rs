//! Load a DocBook book: a main file given by path, or a folder holding exactly one DocBook root
//! document. The chapters and metadata come from reading the document itself (its `info`), so
//! loading only finds the main file; the pipeline reads it and fills the book in.
use std::path::{Path, PathBuf};

use super::{Book, Cover, Direction, Metadata, Writing, display_path};
use crate::codes;
use crate::error::{Error, Finding, Location, Result};

const EXTENSIONS: &[&str] = &["xml", "docbook", "dbk"];

/// Whether `path` has a DocBook file extension.
pub fn is_docbook_file(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Whether the file's root element is a DocBook book, article or set.
pub(super) fn is_root_document(path: &Path) -> bool {
    root_element(path).is_some_and(|name| is_book_element(&name))
}

fn is_book_element(name: &str) -> bool {
    matches!(name.rsplit(':').next(), Some("book" | "article" | "set"))
}

pub use super::sniff::root_element;

/// The files of `dir` with a DocBook extension, sorted.
fn docbook_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_docbook_file(p))
        .collect();
    files.sort();
    files
}

/// Why the folder `dir` has no DocBook main file, when it holds DocBook files: two or more root
/// documents (which is the book?), or files none of which is one (said at the file when there is
/// one: binary, or another root element), rather than "not a book" about the folder.
pub fn why_no_main(dir: &Path) -> Option<Finding> {
    let files = docbook_files(dir);
    let roots: Vec<&PathBuf> = files.iter().filter(|p| is_root_document(p)).collect();
    let shown = |p: &Path| display_path(Path::new("."), p).display().to_string();
    if roots.len() > 1 {
        let names: Vec<String> = roots.iter().map(|p| format!("`{}`", shown(p))).collect();
        return Some(
            Finding::error(
                codes::NOT_A_BOOK,
                Location::file(display_path(Path::new("."), dir)),
                format!(
                    "this folder holds {} DocBook main files ({}), so which is the book is not clear",
                    roots.len(),
                    names.join(", ")
                ),
            )
            .with_hint(format!(
                "build the one you mean by its path (`seihon build {}`), or move the others out of the folder",
                shown(roots[0])
            )),
        );
    }
    if !roots.is_empty() || files.is_empty() {
        return None;
    }
    if files.len() > 1 {
        let names: Vec<String> = files
            .iter()
            .map(|p| match root_element(p) {
                Some(root) => format!("`{}` (<{root}>)", shown(p)),
                None => format!("`{}` (not XML)", shown(p)),
            })
            .collect();
        return Some(
            Finding::error(
                codes::NOT_A_BOOK,
                Location::file(display_path(Path::new("."), dir)),
                format!(
                    "none of this folder's DocBook files is a book's main file: {}",
                    names.join(", ")
                ),
            )
            .with_hint("a DocBook book's main file is XML whose root element is <book>, <article> or <set>"),
        );
    }
    let file = &files[0];
    let head: Vec<u8> = {
        use std::io::Read;
        let mut head = Vec::new();
        std::fs::File::open(file)
            .ok()?
            .take(64 * 1024)
            .read_to_end(&mut head)
            .ok()?;
        head
    };
    let what = match head.as_slice() {
        [0x89, b'P', b'N', b'G', ..] => Some("a PNG image"),
        [0xFF, 0xD8, 0xFF, ..] => Some("a JPEG image"),
        [b'G', b'I', b'F', b'8', ..] => Some("a GIF image"),
        [b'%', b'P', b'D', b'F', ..] => Some("a PDF document"),
        [b'P', b'K', 3, 4, ..] => Some("a ZIP archive (an EPUB or an office document?)"),
        _ => None,
    };
    let utf16 = matches!(head.as_slice(), [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..]);
    let message = match what {
        Some(kind) => format!("this file is {kind}, not DocBook XML"),
        None if !utf16 && head.contains(&0) => "this file is not text, so not DocBook XML".into(),
        None => "this file's root element is not <book>, <article> or <set>, so it is not a book's main file".into(),
    };
    Some(
        Finding::error(
            codes::NOT_A_BOOK,
            Location::new(display_path(Path::new("."), file), 1, 1),
            message,
        )
            .with_hint("a DocBook book's main file is XML text whose root element is <book> or <article>; put the right file in its place"),
    )
}

/// The one DocBook root document in `dir`, if there is exactly one.
pub fn find_main(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = docbook_files(dir)
        .into_iter()
        .filter(|p| is_root_document(p))
        .collect();
    (found.len() == 1).then(|| found.remove(0))
}

/// A book for the DocBook main file `main`; its folder is the book's root. The book's id is
/// `id` (the folder's name when the book was given as a folder), else the file's stem.
pub fn load(main: &Path, id: Option<String>) -> Result<Book> {
    let root = main
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let file = main.file_name().map(PathBuf::from).unwrap_or_default();
    if !is_root_document(main) {
        return Err(Error::Config(
            Finding::error(
                codes::NOT_A_BOOK,
                Location::file(display_path(Path::new("."), main)),
                "this file is not a DocBook book or article",
            )
            .with_hint("give the main file, whose root element is <book> or <article>"),
        ));
    }
    let id = id.unwrap_or_else(|| {
        main.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "book".into())
    });
    Ok(Book {
        id: id.clone(),
        config_path: display_path(Path::new("."), main),
        meta: Metadata {
            title: id,
            subtitle: None,
            language: "en".into(),
            identifier: String::new(),
            creators: Vec::new(),
            publisher: None,
            date: None,
            history: Vec::new(),
            isbn: None,
            print_isbn: None,
            page_source: None,
            rights: None,
            description: None,
            subjects: Vec::new(),
            series: None,
            writing: Writing::Horizontal,
            direction: Direction::Ltr,
        },
        chapters: Vec::new(),
        cover: Cover::Generated,
        stylesheets: Vec::new(),
        toc_depth: 2,
        secnolevel: 2,
        review: None,
        docbook: Some(file),
        given: Default::default(),
        filters: None,
        checks: Default::default(),
        shared_dirs: Vec::new(),
        catalogs: Default::default(),
        locale: crate::i18n::Locale {
            style: crate::i18n::Style::DocBook,
            overrides: Default::default(),
        },
        colophon: None,
        generated: Default::default(),
        index: crate::book::index::IndexSettings::docbook(),
        typography: Default::default(),
        accessibility: Default::default(),
        fonts: Default::default(),
        root,
    })
}

/// The DocBook main file (relative to `root`) a book.yml makes its book of, if any: `main:`;
/// else the one file `chapters:` lists, when it is a DocBook root document; else, when
/// book.yml lists no chapters, the file the book was given by (`given`) or the folder's one
/// root document. A mistake is an error at its line in book.yml.
pub(super) fn main_of(
    file: &super::BookFile,
    root: &Path,
    shown: &Path,
    given: Option<&Path>,
    findings: &mut Vec<Finding>,
) -> Option<PathBuf> {
    let listed: Vec<&serde_saphyr::Spanned<String>> = [
        &file.frontmatter,
        &file.chapters,
        &file.appendices,
        &file.backmatter,
    ]
    .into_iter()
    .flatten()
    .collect();
    let (rel, loc) = match (&file.main, listed.as_slice()) {
        (Some(main), _) => {
            if let Some(first) = listed.first() {
                findings.push(
                    Finding::error(
                        codes::CHAPTER_FILE,
                        super::at(shown, &first.referenced),
                        "a DocBook book's chapters come from its main file, so book.yml lists none beside `main:`",
                    )
                    .with_hint("take the chapter lists out; the main file pulls in its other files (XInclude, entities)"),
                );
            }
            (
                main.value.trim().to_string(),
                super::at(shown, &main.referenced),
            )
        }
        (None, []) => {
            let found = match given {
                Some(g) => Some(g.to_path_buf()),
                None => find_main(root),
            }?;
            let rel = found.strip_prefix(root).unwrap_or(&found).to_path_buf();
            return Some(rel);
        }
        // One DocBook file as the book's only chapter is its main file; several are refused
        // where they are listed (a DocBook book is one document).
        (None, [one])
            if file.chapters.len() == 1
                && super::Format::from_path(Path::new(one.value.trim()))
                    == Some(super::Format::DocBook) =>
        {
            (
                one.value.trim().to_string(),
                super::at(shown, &one.referenced),
            )
        }
        (None, [first, ..]) => {
            if let Some(g) = given {
                findings.push(
                    Finding::error(
                        codes::CHAPTER_FILE,
                        super::at(shown, &first.referenced),
                        format!(
                            "the DocBook main file `{}` was given, but the book.yml beside it lists chapters of its own",
                            display_path(Path::new("."), g).display()
                        ),
                    )
                    .with_hint("build the folder to build book.yml's book, or write `main:` in book.yml for a DocBook book"),
                );
            }
            return None;
        }
    };
    let rel = PathBuf::from(rel);
    let fail = |message: String, hint: &str| {
        Finding::error(codes::CHAPTER_FILE, loc.clone(), message).with_hint(hint)
    };
    let path = match super::check_book_file(root, &rel) {
        Ok(path) => path,
        Err(why) => {
            findings.push(fail(
                format!("the DocBook main file `{}` {why}", rel.display()),
                "name the book's main file, whose root element is <book> or <article>, relative to book.yml's folder",
            ));
            return None;
        }
    };
    if !is_root_document(&path) {
        let root_name = root_element(&path).map_or("no element".into(), |r| format!("<{r}>"));
        findings.push(fail(
            format!(
                "`{}` is not a DocBook book's main file: its root is {root_name}, not <book>, <article> or <set>",
                rel.display()
            ),
            "name the main file that pulls this one in; a DocBook book is one document",
        ));
        return None;
    }
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if let Some(g) = given.filter(|g| !same(g, &path)) {
        findings.push(fail(
            format!(
                "book.yml names `{}` as the book's main file, but `{}` was given",
                rel.display(),
                display_path(Path::new("."), g).display()
            ),
            "build the book's folder, or the main file book.yml names",
        ));
        return None;
    }
    Some(rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_found_past_any_prolog() {
        let big_subset = format!(
            "<?xml version=\"1.0\"?><!DOCTYPE book [{}]><book/>",
            "<!ENTITY e \"x\">".repeat(10_000)
        );
        let cases = [
            ("<book/>", Some("book")),
            (
                "\u{feff}<?xml version=\"1.0\"?>\n<article>",
                Some("article"),
            ),
            (
                "<!-- Alex <alex@example.org> -->\n<article>",
                Some("article"),
            ),
            ("<?xml-stylesheet href=\"a>b\"?><book>", Some("book")),
            (
                "<!DOCTYPE book PUBLIC \"-//OASIS//DTD DocBook XML V4.5//EN\" \"x.dtd\">\n<!-- <chapter> -->\n<book>",
                Some("book"),
            ),
            (
                "<!DOCTYPE book [<!ENTITY tag \"<chapter>\"> <!-- ]> --> <?pi ]>?>]>\n<book>",
                Some("book"),
            ),
            (
                "<!DOCTYPE book [<!ENTITY q '\"]>'>]><db:book xmlns:db=\"x\">",
                Some("db:book"),
            ),
            (big_subset.as_str(), Some("book")),
            ("text first <book/>", None),
            ("<!-- never closed <book/>", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                crate::book::sniff::root_name(text).as_deref(),
                want,
                "{}",
                &text[..text.len().min(80)]
            );
        }
    }

    #[test]
    fn a_large_internal_subset_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("book.xml");
        let subset = "<!ENTITY e \"<para>x</para>\">\n".repeat(5_000);
        std::fs::write(
            &main,
            format!("<!DOCTYPE book [{subset}]>\n<book><title>T</title></book>\n"),
        )
        .unwrap();
        assert!(std::fs::metadata(&main).unwrap().len() > 64 * 1024);
        assert_eq!(root_element(&main).as_deref(), Some("book"));
        assert_eq!(find_main(dir.path()), Some(main));
    }

    #[test]
    fn two_main_files_are_named_both() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("book.xml"), "<book/>").unwrap();
        std::fs::write(dir.path().join("book-old.xml"), "<book/>").unwrap();
        std::fs::write(dir.path().join("ch01.xml"), "<chapter/>").unwrap();
        assert_eq!(find_main(dir.path()), None);
        let f = why_no_main(dir.path()).unwrap();
        assert!(f.message.contains("holds 2 DocBook main files"), "{f}");
        assert!(
            f.message.contains("book-old.xml`, `") && f.message.contains("book.xml`"),
            "{f}"
        );
    }
}
