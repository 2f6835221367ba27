//! Read and resolve: the book's sources → one document per chapter (read in parallel, each
//! kept in `build/.cache/chapters/` by its bytes and settings) → the resolved book (numbers,
//! references, notes and images, see [`xref`]).
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::book::{Book, ChapterSource, Format};
use crate::cache::ListedInputs;
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
    /// How the book is to be resolved.
    plan: Plan,
}

/// How a book read is resolved: whole, or again from the memo of the last build with only
/// the chapter that changed in `docs` (see [`xref::memo`]).
enum Plan {
    Whole {
        /// What the memo of this build is to say of reading, when it can be made.
        record: Option<Record>,
    },
    Again {
        memo: Box<xref::memo::Recorded>,
        /// The chapters read anew, in order: their documents are `docs`.
        changed: Vec<usize>,
        record: Record,
        /// The other chapters, to resolve them all when the memo cannot be used.
        rest: Rest,
    },
}

/// The chapters not read anew, for resolving the whole book after all.
enum Rest {
    /// Their inputs, to be read (from the chapter cache).
    Unread(Vec<Prepared>),
    /// Every chapter's document as the DocBook reader gave it (a DocBook book is read whole):
    /// those kept from an earlier conversion are read from `cache` when they are needed.
    Converted {
        docs: Vec<reader::docbook::ChapterDoc>,
        cache: Box<reader::docbook::ConvertedCache>,
    },
}

/// What a build's memo says of reading: the frame it was made in and every chapter's reading.
struct Record {
    frame: String,
    reads: Vec<xref::memo::ReadMemo>,
}

/// Whether the memo of the last build may be used to resolve only what changed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Memo {
    Use,
    /// Resolve the whole book (the pages the memo counts on are gone).
    Ignore,
}

/// Reads every chapter of the book. A DocBook book is one document across files: it is read
/// whole, then split into chapters, which fills in the book's chapters and metadata. A
/// chapter that is unchanged since the last build, when the last build's memo holds what
/// resolving it gave, is not read at all.
fn read(
    project: &Project,
    book: &mut Book,
    memo: Memo,
    inputs: Option<&ListedInputs>,
    memory: &crate::memory::Build,
    log: &mut Vec<String>,
) -> ReadBook {
    if let Some(main) = book.docbook.clone() {
        return read_docbook(project, book, &main, memo, inputs, log);
    }
    let cache = crate::cache::ChapterCache::new(project.kept_dir(Kept::Chapters, &book.id));
    let frame = frame(project, book, inputs, None);
    let kept = (memo == Memo::Use)
        .then_some(frame.as_ref())
        .flatten()
        .and_then(|frame| last_memo(project, book, frame));
    // A chapter whose file has the stamp it had when the memo was made is known by the key
    // it had then: it is not read (nor hashed) unless it must be read after all.
    let known: Vec<Option<&xref::memo::ReadMemo>> = match &kept {
        Some(kept) if kept.reads.len() == book.chapters.len() => {
            kept.reads.iter().map(Some).collect()
        }
        _ => vec![None; book.chapters.len()],
    };
    let mut prepared: Vec<Prepared> = (book.chapters.par_iter().zip(&known))
        .map(|(src, known)| {
            let stamp = stamp_before_reading(src, inputs);
            match known {
                Some(was) if was.stamp.is_some() && was.stamp == stamp => Prepared {
                    key: Some(was.key.clone()),
                    stamp,
                    input: Input::Unread,
                },
                _ => prepare(book, src, stamp),
            }
        })
        .collect();
    let keys: Vec<Option<String>> = prepared.iter().map(|p| p.key.clone()).collect();
    let again = kept.and_then(|kept| {
        let changed = xref::memo::changed(&kept.reads, &keys)?;
        Some((kept, changed))
    });
    // Only the chapters that changed are read when the memo holds the others.
    let wanted: Vec<bool> = match &again {
        Some((_, changed)) => (0..prepared.len()).map(|i| changed.contains(&i)).collect(),
        None => vec![true; prepared.len()],
    };
    match wanted.iter().filter(|&&w| w).count() > book.chapters.len() / 4 {
        true => memory.whole(),
        false => memory.small(),
    }
    let tick = crate::term::progress::count("chapters read", book.chapters.len());
    let read: Vec<Option<(crate::cache::Read, bool)>> = (book.chapters.par_iter())
        .zip(prepared.par_iter_mut())
        .zip(&wanted)
        .map(|((src, prep), &wanted)| {
            let read = wanted.then(|| materialise(book, src, prep, &cache));
            tick.tick();
            read
        })
        .collect();
    let fresh: Vec<String> = (book.chapters.iter())
        .zip(&read)
        .filter(|(_, r)| matches!(r, Some((_, false))))
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
    cache.keep_only(&keys.iter().flatten().cloned().collect());
    // Each chapter's findings, as read now or as the memo kept them.
    let mut found: Vec<Vec<Finding>> = Vec::with_capacity(read.len());
    let mut docs = Vec::with_capacity(read.len());
    for (ci, (src, r)) in book.chapters.iter().zip(read).enumerate() {
        let Some(((doc, f), _)) = r else {
            let kept = again.as_ref().map(|(m, _)| m.reads[ci].findings.clone());
            found.push(kept.unwrap_or_default());
            continue;
        };
        // A page of the book's own that could not be read (reported) is left out.
        let unread = src.page.is_some() && doc.blocks.is_empty() && !f.is_empty();
        found.push(f);
        if !unread {
            docs.push((src.clone(), doc));
        }
    }
    // The memo of this build, when every chapter was read without errors.
    let reads: Option<Vec<xref::memo::ReadMemo>> = (prepared.iter().zip(&found))
        .map(|(prep, findings)| {
            let ok = !findings.iter().any(|f| f.severity == Severity::Error);
            Some(xref::memo::ReadMemo {
                key: prep.key.clone().filter(|_| ok)?,
                findings: findings.clone(),
                stamp: prep.stamp,
            })
        })
        .collect();
    let record = frame
        .zip(reads)
        .map(|(frame, reads)| Record { frame, reads });
    let mut findings: Vec<Finding> = found.into_iter().flatten().collect();
    once_per_book(&mut findings);
    let plan = match (again, record) {
        // (A page of the book's own left out is an error: no record.)
        (Some((memo, changed)), Some(record)) if changed.len() == docs.len() => Plan::Again {
            memo: Box::new(memo),
            changed,
            record,
            rest: Rest::Unread(prepared),
        },
        (_, record) => Plan::Whole { record },
    };
    ReadBook {
        docs,
        findings,
        xref_texts: HashMap::new(),
        plan,
    }
}

/// The name of the resolve memo in its kept folder.
const MEMO: &str = "resolve memo";

/// The last build's memo, when it was made in the same `frame`.
fn last_memo(project: &Project, book: &Book, frame: &str) -> Option<xref::memo::Recorded> {
    let kept: xref::memo::Recorded =
        crate::cache::load_one(&project.kept_dir(Kept::Resolve, &book.id), MEMO)?;
    (kept.frame == frame).then_some(kept)
}

/// The stamp of a chapter's file, taken before it is read: the listing's, when the up-to-date
/// check listed the book's folder, else looked at now. A stamp kept with the key of bytes read
/// after it can only be older than those bytes, so it never stands for other bytes.
fn stamp_before_reading(
    src: &ChapterSource,
    inputs: Option<&ListedInputs>,
) -> Option<crate::cache::FileStamp> {
    if src.part_title.is_some() {
        return None;
    }
    (inputs.and_then(|l| l.stamp_of(&src.path))).or_else(|| crate::cache::FileStamp::of(&src.path))
}

/// Everything but the chapters' text that resolving the book depends on: its settings (every
/// field of the book as loaded) and the name, size and modification time of every other file
/// of the book's folder, the shared folders and the project's settings (images, style sheets,
/// files links point at). Taken from `inputs` when the up-to-date check listed the book's
/// folder (what it lists is more: the project's templates and filters too). `None` when some
/// file cannot be looked at.
///
/// For a DocBook book, `docbook` holds the files its reading read, which are left out like
/// chapters (what they say is all in the chapters, the metadata and the cross-reference
/// texts), and those texts, which are in.
fn frame(
    project: &Project,
    book: &Book,
    inputs: Option<&ListedInputs>,
    docbook: Option<(&[PathBuf], &HashMap<String, String>)>,
) -> Option<String> {
    // The Re:VIEW settings hold a map, whose debug form is in no set order: they go in by
    // value, the rest of the book by its debug form (every field, whatever is added).
    let rest = Book {
        review: None,
        ..book.clone()
    };
    let mut key = crate::cache::Key::new("resolve frame")
        .value(&book.review)
        .bytes(format!("{rest:?}").as_bytes());
    if let Some((_, texts)) = docbook {
        let sorted: std::collections::BTreeMap<&String, &String> = texts.iter().collect();
        key = key.value(&sorted);
    }
    let same_folder = |listed: &&ListedInputs| {
        listed.book_folder == book.root
            || listed.book_folder.canonicalize().ok() == book.root.canonicalize().ok()
    };
    let stamped;
    let listed = match inputs.filter(same_folder) {
        Some(listed) => listed,
        None => {
            let mut roots = vec![project.root.join("seihon.yml"), book.root.clone()];
            roots.extend(book.shared_dirs.iter().cloned());
            stamped = ListedInputs::stamp(&book.root, &roots, &project.outputs())?;
            &stamped
        }
    };
    // The chapters' paths (and a DocBook book's files) as the listing has them.
    let read_files = docbook.map_or(&[][..], |(files, _)| files);
    let chapters: std::collections::HashSet<PathBuf> = (book.chapters.iter())
        .filter_map(|c| c.path.strip_prefix(&book.root).ok())
        .chain(read_files.iter().map(PathBuf::as_path))
        .map(|rel| listed.book_folder.join(rel))
        .collect();
    listed.hashed(key, |path| chapters.contains(path)).finish()
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

/// Reads and resolves the book: from the memo of the last build when it holds every chapter
/// but the one read anew, else whole.
pub(super) fn read_and_resolve(
    project: &Project,
    book: &mut Book,
    memo: Memo,
    inputs: Option<&ListedInputs>,
    memory: &crate::memory::Build,
    kept: &crate::cache::Deferred,
    log: &mut Vec<String>,
) -> Result<xref::Resolved> {
    let read = read(project, book, memo, inputs, memory, log);
    crate::term::progress::step("resolve");
    resolve(project, book, read, memory, kept, log)
}

/// Resolves the book read, even after reading problems, so that one build reports every
/// mistake at once. The warnings come in order: reading's, in chapter order, then the
/// resolver's.
fn resolve(
    project: &Project,
    book: &Book,
    read: ReadBook,
    memory: &crate::memory::Build,
    kept: &crate::cache::Deferred,
    log: &mut Vec<String>,
) -> Result<xref::Resolved> {
    let ReadBook {
        mut docs,
        mut findings,
        xref_texts,
        plan,
    } = read;
    let images_kept = project.kept_dir(Kept::Images, &book.id);
    let memo_kept = project.kept_dir(Kept::Resolve, &book.id);
    let mut images = xref::ImageChecks::load(&images_kept);
    let record = match plan {
        Plan::Whole { record } => record,
        Plan::Again {
            memo,
            changed,
            record,
            rest,
        } => {
            // Kept for reading the whole book when the memo cannot be used.
            let now: Vec<(usize, Document)> = (changed.iter().copied())
                .zip(docs.iter().map(|(_, doc)| doc.clone()))
                .collect();
            let again = xref::memo::resolve_again(
                book,
                &book.chapters,
                *memo,
                now,
                &xref_texts,
                &mut images,
            );
            if let Some((mut resolved, mut next)) = again {
                let names: Vec<String> = (changed.iter())
                    .map(|&c| book.chapters[c].rel.display().to_string())
                    .collect();
                log.push(how_much_again(
                    "resolved",
                    "chapter",
                    &names,
                    book.chapters.len(),
                    "the others are as they were",
                ));
                images.save(&images_kept);
                next.frame = record.frame;
                next.reads = record.reads;
                // Read by the next build only.
                kept.keep_one(memo_kept, MEMO, next);
                findings.append(&mut resolved.warnings);
                resolved.warnings = findings;
                return Ok(resolved);
            }
            // Read the others too (from the chapter cache) and resolve the whole book.
            memory.whole();
            let mut read_now: HashMap<usize, Document> = (changed.iter().copied())
                .zip(docs.into_iter().map(|(_, doc)| doc))
                .collect();
            let others: Vec<Option<Document>> = match rest {
                Rest::Converted { docs, cache } => {
                    let loaded: Option<Vec<Document>> =
                        (docs.into_par_iter()).map(|doc| doc.load(&cache)).collect();
                    let Some(loaded) = loaded else {
                        return Err(converted_gone(project, book));
                    };
                    loaded.into_iter().map(Some).collect()
                }
                Rest::Unread(mut prepared) => {
                    let cache =
                        crate::cache::ChapterCache::new(project.kept_dir(Kept::Chapters, &book.id));
                    let read: Vec<Option<crate::cache::Read>> = (book.chapters.par_iter())
                        .zip(prepared.par_iter_mut())
                        .enumerate()
                        .map(|(ci, (src, prep))| {
                            (!changed.contains(&ci)).then(|| materialise(book, src, prep, &cache).0)
                        })
                        .collect();
                    // Their findings are the memo's, which has none that are errors: an error
                    // now is a file that changed during the build.
                    (read.into_iter())
                        .map(|r| {
                            r.map(|(doc, found)| {
                                let errors =
                                    found.into_iter().filter(|f| f.severity == Severity::Error);
                                findings.extend(errors);
                                doc
                            })
                        })
                        .collect()
                }
            };
            docs = (book.chapters.iter().zip(others).enumerate())
                .map(|(ci, (src, doc))| {
                    let doc = doc.or_else(|| read_now.remove(&ci));
                    let doc = doc.unwrap_or_else(|| Document::new(&src.rel));
                    (src.clone(), doc)
                })
                .collect();
            Some(record)
        }
    };
    let all = vec![String::new(); docs.len()];
    log.push(how_much_again("resolved", "chapter", &all, all.len(), ""));
    let recorded = xref::resolve_recording(book, docs, &xref_texts, &mut images, record.is_some());
    images.save(&images_kept);
    let has_errors = findings.iter().any(|f| f.severity == Severity::Error);
    match recorded {
        Ok((mut r, memo)) if !has_errors => {
            if let (Some(mut memo), Some(record)) = (memo, record) {
                memo.frame = record.frame;
                memo.reads = record.reads;
                kept.keep_one(memo_kept, MEMO, memo);
            }
            findings.append(&mut r.warnings);
            r.warnings = findings;
            Ok(r)
        }
        Ok((r, _)) => {
            findings.extend(r.warnings);
            Err(Error::Book(findings))
        }
        Err(more) => {
            findings.extend(more);
            Err(Error::Book(findings))
        }
    }
}

/// A chapter's input, looked at before deciding whether it is read: its key (what reading it
/// depends on) and its bytes.
struct Prepared {
    key: Option<String>,
    /// The stamp of the chapter's file before it was read, when its key is all the file's
    /// (no other file's text is mapped into it): what the next build knows it by.
    stamp: Option<crate::cache::FileStamp>,
    input: Input,
}

enum Input {
    /// A part page that has only a title.
    Part(String),
    /// The file could not be read.
    Failed(Finding),
    Text {
        bytes: Vec<u8>,
        expanded: Option<reader::review::preproc::Expanded>,
    },
    /// Not read: known by the key the memo of the last build gave its unchanged file. Read
    /// only when the chapter cache no longer holds its reading.
    Unread,
    /// Read already.
    Taken,
}

/// A chapter's key and input: what reading it depends on is the file's name, format and
/// bytes, and the reader's settings (Re:VIEW's, and Markdown's typography). `stamp` is its
/// file's, taken before it is read.
fn prepare(book: &Book, src: &ChapterSource, stamp: Option<crate::cache::FileStamp>) -> Prepared {
    if let Some(title) = &src.part_title {
        // Part pages cost nothing: not cached, but keyed (for the memo).
        let key = crate::cache::Key::new("part page")
            .value(&src.rel)
            .bytes(title.as_bytes())
            .finish();
        return Prepared {
            key,
            stamp: None,
            input: Input::Part(title.clone()),
        };
    }
    let bytes = match crate::source::read(&src.path) {
        Ok(bytes) => bytes,
        Err(why) => {
            let f = why.finding(Location::file(&src.rel), "file");
            return Prepared {
                key: None,
                stamp: None,
                input: Input::Failed(f),
            };
        }
    };
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
    Prepared {
        key,
        // A chapter other files are mapped into changes with them: it is always read.
        stamp: stamp.filter(|_| expanded.is_none()),
        input: Input::Text { bytes, expanded },
    }
}

/// Reads a prepared chapter, or takes what reading it gave last time when nothing it depends
/// on has changed. Returns the reading and whether it was taken from the cache.
fn materialise(
    book: &Book,
    src: &ChapterSource,
    prep: &mut Prepared,
    cache: &crate::cache::ChapterCache,
) -> (crate::cache::Read, bool) {
    let (bytes, expanded) = match std::mem::replace(&mut prep.input, Input::Taken) {
        Input::Unread => {
            if let Some(hit) = prep.key.as_ref().and_then(|key| cache.get(key)) {
                return (hit, true);
            }
            // Gone from the cache: read now. Bytes other than those the key stands for (the
            // file changed since its stamp was taken) would not go with the findings the memo
            // kept for it.
            let known = prep.key.take();
            *prep = prepare(book, src, prep.stamp);
            if prep.key != known {
                let f = Finding::error(
                    codes::SOURCE_FILE,
                    Location::file(&src.rel),
                    "this file changed while the book was being built",
                )
                .with_hint("build again");
                return ((Document::new(&src.rel), vec![f]), false);
            }
            return materialise(book, src, prep, cache);
        }
        Input::Part(title) => return ((part_page(src, &title), Vec::new()), false),
        Input::Failed(f) => return ((Document::new(&src.rel), vec![f]), false),
        Input::Taken => return ((Document::new(&src.rel), Vec::new()), false),
        Input::Text { bytes, expanded } => (bytes, expanded),
    };
    let Some(key) = &prep.key else {
        return (read_chapter(book, src, bytes, expanded), false);
    };
    if let Some(hit) = cache.get(key) {
        return (hit, true);
    }
    let mut read = read_chapter(book, src, bytes, expanded);
    // Read documents wait in memory for every other chapter (the resolver needs them all).
    read.0.shrink_to_fit();
    // A chapter with errors is read again next time, so its messages always come fresh.
    if !read.1.iter().any(|f| f.severity == Severity::Error) {
        cache.put(key, &read);
    }
    (read, false)
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
/// `seihon list` shows).
pub fn read_docbook_metadata(book: &mut Book) {
    if let Some(main) = book.docbook.clone() {
        let _ = load_docbook(book, &main, None);
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

/// What reading a DocBook document gives besides the book's chapters and metadata.
struct DocBookRead {
    docs: Vec<(ChapterSource, reader::docbook::ChapterDoc)>,
    findings: Vec<Finding>,
    xref_texts: HashMap<String, String>,
    /// Every file read, as the reader names them.
    files: Vec<PathBuf>,
    /// Whether each chapter was converted now (not taken from the cache).
    converted: Vec<bool>,
    /// The digest of each chapter's document, when the reader knows it.
    digests: Vec<Option<String>>,
}

/// Reads a DocBook book and fills in its chapters and metadata (the document's `info`),
/// taking the chapters converted before from `kept`.
fn load_docbook(
    book: &mut Book,
    main: &Path,
    kept: Option<&reader::docbook::ConvertedCache>,
) -> DocBookRead {
    let root = book
        .root
        .canonicalize()
        .unwrap_or_else(|_| book.root.clone());
    let (db, findings) = reader::docbook::read_keeping(
        &root.join(main),
        &root,
        &book.shared_dirs,
        &catalogs(book),
        kept,
    );
    crate::book::docbook_info::apply_info(book, db.meta);
    let converted = db.chapters.iter().map(|c| c.converted).collect();
    let digests = db.chapters.iter().map(|c| c.digest.clone()).collect();
    let docs: Vec<(ChapterSource, reader::docbook::ChapterDoc)> = db
        .chapters
        .into_iter()
        .map(|c| {
            // (The reader shrank each document as it made it.)
            let source = ChapterSource {
                rel: c.doc.source().to_path_buf(),
                path: book.root.join(c.doc.source()),
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
    DocBookRead {
        docs,
        findings,
        xref_texts: db.xref_texts,
        files: db.files,
        converted,
        digests,
    }
}

/// Reads a DocBook book, which is one document across files: whole, every time. Resolving
/// it need not be: each chapter's key is its source and its document as read, and when the
/// memo of the last build was made in the same frame (the cross-reference texts included),
/// only the chapters whose key changed are resolved again.
fn read_docbook(
    project: &Project,
    book: &mut Book,
    main: &Path,
    memo: Memo,
    inputs: Option<&ListedInputs>,
    log: &mut Vec<String>,
) -> ReadBook {
    let kept = reader::docbook::ConvertedCache::new(project.kept_dir(Kept::DocBook, &book.id));
    let DocBookRead {
        docs,
        findings,
        xref_texts,
        files,
        converted,
        digests,
    } = load_docbook(book, main, Some(&kept));
    let names: Vec<String> = (docs.iter().zip(&converted))
        .filter(|(_, c)| **c)
        .map(|((src, _), _)| src.rel.display().to_string())
        .collect();
    log.push(how_much_again(
        "converted",
        "chapter",
        &names,
        docs.len(),
        "the others are as they were",
    ));
    // (A book with errors is never kept: its messages always come fresh.)
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    let frame = (!failed)
        .then(|| frame(project, book, inputs, Some((&files, &xref_texts))))
        .flatten();
    let record = frame.and_then(|frame| {
        // A document's digest kept with its conversion is not taken again (hashing every
        // document took a tenth of a one-chapter rebuild).
        let reads = (docs.par_iter().zip(&digests))
            .map(|((src, doc), digest)| {
                let key = crate::cache::Key::new("docbook chapter").value(src);
                let key = match (digest, doc) {
                    (Some(d), _) => key.bytes(d.as_bytes()),
                    (None, reader::docbook::ChapterDoc::Here(doc)) => key.value(doc),
                    // (The reader knows the digest of every document it kept.)
                    (None, reader::docbook::ChapterDoc::Kept { .. }) => return None,
                };
                Some(xref::memo::ReadMemo {
                    key: key.finish()?,
                    findings: Vec::new(),
                    stamp: None,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Record { frame, reads })
    });
    let again = (memo == Memo::Use)
        .then_some(record.as_ref())
        .flatten()
        .and_then(|record| {
            let keys: Vec<Option<String>> =
                record.reads.iter().map(|r| Some(r.key.clone())).collect();
            let kept = last_memo(project, book, &record.frame)?;
            let changed = xref::memo::changed(&kept.reads, &keys)?;
            Some((kept, changed))
        });
    // The documents to resolve now are read from the cache where they were kept; should one
    // no longer read back, the book is converted again, whole.
    let loaded = |docs: Vec<(ChapterSource, reader::docbook::ChapterDoc)>| {
        (docs.into_par_iter())
            .map(|(src, doc)| Some((src, doc.load(&kept)?)))
            .collect::<Option<Vec<(ChapterSource, Document)>>>()
    };
    let converted_again = |book: &mut Book| {
        let read = load_docbook(book, main, None);
        let all = (read.docs.into_iter())
            .map(|(src, doc)| (src, doc.read_without_cache()))
            .collect();
        (all, read.findings)
    };
    let (plan, docs, findings) = match (again, record) {
        (Some((memo, changed)), Some(record)) => {
            // Every document is kept for resolving the whole book after all; only the changed
            // ones are read (those kept) or copied.
            let now = (changed.iter()).map(|&c| docs[c].clone()).collect();
            match loaded(now) {
                Some(now) => {
                    let plan = Plan::Again {
                        memo: Box::new(memo),
                        changed,
                        record,
                        rest: Rest::Converted {
                            docs: docs.into_iter().map(|(_, doc)| doc).collect(),
                            cache: Box::new(kept),
                        },
                    };
                    (plan, now, findings)
                }
                None => {
                    let (all, findings) = converted_again(book);
                    (Plan::Whole { record: None }, all, findings)
                }
            }
        }
        (_, record) => match loaded(docs) {
            Some(all) => (Plan::Whole { record }, all, findings),
            None => {
                let (all, findings) = converted_again(book);
                (Plan::Whole { record: None }, all, findings)
            }
        },
    };
    ReadBook {
        docs,
        findings,
        xref_texts,
        plan,
    }
}

/// A kept DocBook chapter that could not be read back when the whole book had to be resolved.
fn converted_gone(project: &Project, book: &Book) -> Error {
    Error::Io {
        path: project.kept_dir(Kept::DocBook, &book.id),
        message: "a kept DocBook chapter went missing during the build",
        source: std::io::Error::other("build again (with --force when it persists)"),
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
