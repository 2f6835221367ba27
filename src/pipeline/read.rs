//! Read and resolve: the book's sources → one document per chapter (read in parallel, each
//! kept in `build/.cache/chapters/` by its bytes and settings) → the resolved book (numbers,
//! references, notes and images, see [`xref`]).
use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use crate::book::{Book, ChapterSource, Format};
use crate::codes;
use crate::doc::Document;
use crate::error::{Error, Finding, Location, Result, Severity};
use crate::project::{Kept, Project};
use crate::reader;
use crate::xref;

/// What reading a book gives: its chapters, the problems found, and the texts of
/// cross-reference targets (see [`xref::resolve_with`]).
pub(super) struct ReadBook {
    docs: Vec<(ChapterSource, Document)>,
    findings: Vec<Finding>,
    xref_texts: HashMap<String, String>,
}

/// Reads every chapter of the book. A DocBook book is one document across files: it is read
/// whole, then split into chapters, which fills in the book's chapters and metadata.
pub(super) fn read(project: &Project, book: &mut Book, log: &mut Vec<String>) -> ReadBook {
    if let Some(main) = book.docbook.clone() {
        return read_docbook(book, &main);
    }
    let cache = crate::cache::ChapterCache::new(project.kept_dir(Kept::Chapters, &book.id));
    let tick = crate::term::progress::count("chapters read", book.chapters.len());
    let read: Vec<(crate::cache::Read, Option<String>, bool)> = book
        .chapters
        .par_iter()
        .map(|src| {
            let read = read_cached(book, src, &cache);
            tick.tick();
            read
        })
        .collect();
    let fresh: Vec<String> = book
        .chapters
        .iter()
        .zip(&read)
        .filter(|(_, (_, _, hit))| !hit)
        .map(|(src, _)| src.rel.display().to_string())
        .collect();
    // How much was read again: the measure of "work is not done twice".
    log.push(how_much_again(
        "read",
        "chapter",
        &fresh,
        read.len(),
        "the others are unchanged",
    ));
    cache.keep_only(&read.iter().filter_map(|(_, k, _)| k.clone()).collect());
    let mut findings = Vec::new();
    let mut docs = Vec::with_capacity(read.len());
    for (src, ((doc, found), _, _)) in book.chapters.iter().zip(read) {
        // A page of the book's own that could not be read (reported) is left out.
        let unread = src.page.is_some() && doc.blocks.is_empty() && !found.is_empty();
        findings.extend(found);
        if !unread {
            docs.push((src.clone(), doc));
        }
    }
    once_per_book(&mut findings);
    ReadBook {
        docs,
        findings,
        xref_texts: HashMap::new(),
    }
}

/// An unknown block command is reported once per book, where it is first used (each chapter
/// reports it once): the fix is one for all its uses (`review-ext.rb`, or one CSS rule). So is
/// a Markdown front matter key seihon does not use (Zenn's `emoji:` in every chapter).
fn once_per_book(findings: &mut Vec<Finding>) {
    let mut seen = std::collections::HashSet::new();
    findings.retain(|f| {
        let once = [codes::UNKNOWN_BLOCK.name(), codes::FRONT_MATTER_KEY.name()];
        !once.contains(&f.code.as_ref()) || seen.insert((f.code.clone(), f.message.clone()))
    });
}

/// Resolves the book read, even after reading problems, so that one build reports every
/// mistake at once. The warnings come in order: reading's, in chapter order, then the
/// resolver's.
pub(super) fn resolve(project: &Project, book: &Book, read: ReadBook) -> Result<xref::Resolved> {
    let ReadBook {
        docs,
        mut findings,
        xref_texts,
    } = read;
    let images_kept = project.kept_dir(Kept::Images, &book.id);
    let mut images = xref::ImageChecks::load(&images_kept);
    let resolved = xref::resolve_remembering(book, docs, &xref_texts, &mut images);
    images.save(&images_kept);
    let has_errors = findings.iter().any(|f| f.severity == Severity::Error);
    match resolved {
        Ok(mut r) if !has_errors => {
            findings.append(&mut r.warnings);
            r.warnings = findings;
            Ok(r)
        }
        Ok(r) => {
            findings.extend(r.warnings);
            Err(Error::Book(findings))
        }
        Err(more) => {
            findings.extend(more);
            Err(Error::Book(findings))
        }
    }
}

/// Reads a chapter, or takes what reading it gave last time when nothing it depends on has
/// changed. Returns the reading, its cache key (None when not cacheable) and whether it was a hit.
fn read_cached(
    book: &Book,
    src: &ChapterSource,
    cache: &crate::cache::ChapterCache,
) -> (crate::cache::Read, Option<String>, bool) {
    if let Some(title) = &src.part_title {
        // Part pages cost nothing.
        return ((part_page(src, title), Vec::new()), None, false);
    }
    let bytes = match crate::source::read(&src.path) {
        Ok(bytes) => bytes,
        Err(why) => {
            let f = why.finding(Location::file(&src.rel), "file");
            return ((Document::new(&src.rel), vec![f]), None, false);
        }
    };
    // Everything reading depends on: the file's name, format and bytes, and the reader's
    // settings (Re:VIEW's, and Markdown's typography).
    let settings = (src.format == Format::Review).then(|| book.review.clone().unwrap_or_default());
    let markdown = (src.format == Format::Markdown).then(|| markdown_options(book));
    // Mapped files (`#@mapfile`) are part of the chapter: the key holds the expanded text.
    let expanded = preprocessed(book, src, &bytes);
    let key = crate::cache::Key::new("chapter")
        .value(&src.rel)
        .value(&src.format)
        .value(&settings)
        .value(&markdown)
        .bytes(&bytes)
        .bytes(expanded.as_ref().map_or(&b""[..], |e| e.text.as_bytes()))
        .finish();
    let Some(key) = key else {
        return (read_chapter(book, src, bytes, expanded), None, false);
    };
    if let Some(hit) = cache.get(&key) {
        return (hit, Some(key), true);
    }
    let mut read = read_chapter(book, src, bytes, expanded);
    // Read documents wait in memory for every other chapter (the resolver needs them all).
    read.0.shrink_to_fit();
    // A chapter with errors is read again next time, so its messages always come fresh.
    if !read.1.iter().any(|f| f.severity == Severity::Error) {
        cache.put(&key, &read);
    }
    (read, Some(key), false)
}

/// How the book's Markdown is read (book.yml's `typography:`).
fn markdown_options(book: &Book) -> reader::markdown::MarkdownOptions {
    reader::markdown::MarkdownOptions {
        smart: book.typography == crate::book::Typography::Smart,
    }
}

/// A Re:VIEW chapter with its preprocessor directives carried out, when it has any.
fn preprocessed(
    book: &Book,
    src: &ChapterSource,
    bytes: &[u8],
) -> Option<reader::review::preproc::Expanded> {
    if src.format != Format::Review {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    reader::review::preproc::has_directives(text).then(|| {
        let files = reader::review::preproc::Files {
            root: &book.root,
            shared: &book.shared_dirs,
        };
        reader::review::preproc::expand(text, &src.rel, &files)
    })
}

/// Reads a chapter from its file's `bytes` (or their preprocessed text).
fn read_chapter(
    book: &Book,
    src: &ChapterSource,
    bytes: Vec<u8>,
    expanded: Option<reader::review::preproc::Expanded>,
) -> (Document, Vec<Finding>) {
    let empty = || Document::new(&src.rel);
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let (line, col) =
                crate::error::line_col(&String::from_utf8_lossy(&e.as_bytes()[..valid]), valid);
            let f = Finding::error(
                codes::SOURCE_FILE,
                Location::new(&src.rel, line, col),
                "this file is not UTF-8 text",
            )
            .with_hint("save the file as UTF-8 (in most editors: Save As… → Encoding: UTF-8)");
            return (empty(), vec![f]);
        }
    };
    let unusable = crate::error::unusable_char_findings(&text, &src.rel);
    let (doc, mut findings) = match src.format {
        Format::Markdown => reader::markdown::read_with(&text, &src.rel, markdown_options(book)),
        Format::Review => {
            let settings = book.review.clone().unwrap_or_default();
            let opts = reader::review::ReviewOptions {
                words: settings.words,
                draft: settings.draft,
                tabwidth: settings.tabwidth,
                join_lines_by_lang: settings.join_lines_by_lang,
                extension_blocks: settings.extension_blocks,
            };
            match expanded {
                Some(e) => {
                    let (doc, mut findings) =
                        reader::review::read_lines_of(&e.text, &src.rel, &opts, &e.origin);
                    findings.splice(0..0, e.findings);
                    (doc, findings)
                }
                None => reader::review::read(&text, &src.rel, &opts),
            }
        }
        Format::Xhtml => reader::xhtml::read(&text, &src.rel),
        // Refused when book.yml is loaded: DocBook files are read whole by `read_docbook`.
        Format::DocBook => {
            let f = Finding::error(
                codes::CHAPTER_FILE,
                Location::file(&book.config_path),
                format!("`{}` is a DocBook file, not a chapter", src.rel.display()),
            );
            (empty(), vec![f])
        }
    };
    findings.splice(0..0, unusable);
    (doc, findings)
}

/// A DocBook book's metadata and chapters, which only reading its document gives (what
/// `seihon list` shows); the document itself is not kept.
pub fn read_docbook_metadata(book: &mut Book) {
    if let Some(main) = book.docbook.clone() {
        let _ = read_docbook(book, &main);
    }
}

/// The XML catalogs a DocBook book is read with: book.yml's, seihon.yml's, then
/// `XML_CATALOG_FILES` (the reader adds the book's own `catalog.xml` files after book.yml's).
fn catalogs(book: &Book) -> Vec<reader::docbook::catalog::Named> {
    use reader::docbook::catalog::{Named, Origin};
    let named = |paths: &[std::path::PathBuf], origin: Origin| -> Vec<Named> {
        paths
            .iter()
            .map(|p| Named {
                path: p.clone(),
                origin,
            })
            .collect()
    };
    let mut all = named(&book.catalogs.book, Origin::BookSettings);
    all.extend(named(&book.catalogs.project, Origin::ProjectSettings));
    all.extend(reader::docbook::catalog::from_env());
    all
}

/// Reads a DocBook book and fills in its chapters and metadata (the document's `info`).
fn read_docbook(book: &mut Book, main: &Path) -> ReadBook {
    let root = book
        .root
        .canonicalize()
        .unwrap_or_else(|_| book.root.clone());
    let (db, findings) =
        reader::docbook::read_with(&root.join(main), &root, &book.shared_dirs, &catalogs(book));
    crate::book::docbook_info::apply_info(book, db.meta);
    let docs: Vec<(ChapterSource, Document)> = db
        .chapters
        .into_iter()
        .map(|c| {
            // (The reader shrank each document as it made it.)
            let source = ChapterSource {
                rel: c.doc.source.clone(),
                path: book.root.join(&c.doc.source),
                role: c.role,
                format: Format::DocBook,
                part_title: None,
                page: None,
                division: c.division,
            };
            (source, c.doc)
        })
        .collect();
    book.chapters = docs.iter().map(|(s, _)| s.clone()).collect();
    ReadBook {
        docs,
        findings,
        xref_texts: db.xref_texts,
    }
}

/// The page of a part that has only a title (a Re:VIEW catalog part named by its title).
fn part_page(src: &ChapterSource, title: &str) -> Document {
    use crate::doc::{Block, BlockKind, Heading, Inline, Pos};
    let mut doc = Document::new(&src.rel);
    let heading = Heading {
        level: 1,
        id: None,
        numbered: true,
        in_toc: true,
        shown: true,
        number: None,
        content: vec![Inline::text(title, Pos::default())],
    };
    doc.blocks
        .push(Block::new(BlockKind::Heading(heading), Pos::default()));
    doc
}

/// "read 1 of 4 chapters (ch02.md); the others are unchanged": how much of a step's work a
/// build did again, naming the files when it was not all or nothing (the first few, then how
/// many more: a line stays on the screen). `what` is singular ("chapter page").
pub(super) fn how_much_again(
    verb: &str,
    what: &str,
    done: &[String],
    total: usize,
    rest: &str,
) -> String {
    let names = if done.is_empty() || done.len() == total {
        String::new()
    } else {
        format!(" ({}); {rest}", crate::report::shortened(done, 3))
    };
    let of = crate::report::plural(total, what);
    format!("{verb} {} of {of}{names}\n", done.len())
}
