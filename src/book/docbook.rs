//! Load a DocBook book: a main file given by path, or a folder holding exactly one DocBook root
//! document. The chapters and metadata come from reading the document itself (its `info`), so
//! loading only finds the main file; the pipeline reads it and fills the book in.
use std::path::{Path, PathBuf};

use super::{Book, Cover, Direction, Metadata, Writing, display_path};
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

/// Whether the file's root element is a DocBook book or article (read from its first 64 KiB:
/// the DOCTYPE and comments come first).
fn is_root_document(path: &Path) -> bool {
    use std::io::Read;
    let mut head = vec![0; 64 * 1024];
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    let head = &head[..n];
    // A UTF-16 file is found too, so that reading it says it is UTF-16 (rather than the folder
    // not being a book at all).
    let text = match head {
        [a @ (0xFF | 0xFE), b @ (0xFF | 0xFE), rest @ ..] if a != b => {
            let units: Vec<u16> = rest
                .chunks_exact(2)
                .map(|c| match a {
                    0xFF => u16::from_le_bytes([c[0], c[1]]),
                    _ => u16::from_be_bytes([c[0], c[1]]),
                })
                .collect();
            std::borrow::Cow::Owned(String::from_utf16_lossy(&units))
        }
        _ => String::from_utf8_lossy(head),
    };
    let mut rest = text.as_ref();
    // Skip the prolog: declarations, comments, processing instructions, the DOCTYPE.
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if rest.starts_with('?') || rest.starts_with('!') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == ':' || *c == '-')
            .collect();
        let local = name.rsplit(':').next().unwrap_or("");
        return matches!(local, "book" | "article" | "set");
    }
    false
}

/// Why the folder `dir` has no DocBook main file when it holds exactly one DocBook file and
/// that file is not one (binary, or another root element): said at the file rather than "not a
/// book" about the folder.
pub fn why_no_main(dir: &Path) -> Option<Finding> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_docbook_file(p))
        .collect();
    if files.len() != 1 || is_root_document(&files[0]) {
        return None;
    }
    let file = files.remove(0);
    let head: Vec<u8> = {
        use std::io::Read;
        let mut head = Vec::new();
        std::fs::File::open(&file)
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
        Finding::error(Location::new(display_path(Path::new("."), &file), 1, 1), message)
            .with_hint("a DocBook book's main file is XML text whose root element is <book> or <article>; put the right file in its place"),
    )
}

/// The one DocBook root document in `dir`, if there is exactly one.
pub fn find_main(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_docbook_file(p) && is_root_document(p))
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
            rights: None,
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
        filters: None,
        checks: Default::default(),
        shared_dirs: Vec::new(),
        root,
    })
}
