//! Resolving again only the chapters that changed.
//!
//! Resolving is book-wide: pass 1 numbers every chapter in reading order, and pass 2 links each
//! chapter against what pass 1 found in all of them. Editing a chapter's text rarely changes
//! what the others see of it (its ids, numbers, headings and captions). So a build keeps, per
//! chapter, what pass 1 added to the book-wide tables and what pass 2 found, and the next
//! build, when only some chapters were read anew, numbers each of them alone on the tables as
//! the chapters before it left them. When each adds exactly what it added last time, every
//! other chapter would resolve exactly as before: only those chapters are linked, and the
//! others come from the memo, their pages from the page cache by their digests. Anything else
//! (a heading renamed, an id added, a book-wide count changed) and the caller resolves the
//! whole book as before.
//!
//! The memo is only made for books whose resolving is what is kept here: no print page markers
//! (a book-wide list made after pass 1), no errors, and no bibliography id defined twice (a
//! later entry replaces an earlier one, which a chapter's part cannot say). A book's index is:
//! each chapter's index terms are kept with it, a chapter resolved again anchors its own (the
//! anchors are ids of its part, so a term added or taken away resolves the whole book), and
//! the index is gathered again from all of them.
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::cache::Encoded;

use super::index::{Mark, is_index_place};
use super::labels::ObjectKind;
use super::numbering::{ChapterCounters, Numbered1};
use super::*;

/// Everything pass 2 reads of pass 1: each chapter's part, in a stable order.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tables {
    parts: Vec<Part>,
}

/// What one chapter added to the resolver's tables in pass 1 (each list sorted).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Part {
    /// The output ids it took.
    ids: Vec<String>,
    /// Its ids as written → as output.
    local: Vec<(String, String)>,
    objects: Vec<((ObjectKind, String), Target)>,
    headings: Vec<HeadingTarget>,
    bib: Vec<(String, Target)>,
    info: ChapterInfo,
}

impl Tables {
    /// The resolver's tables as they are, by chapter.
    pub(super) fn of(r: &Resolver) -> Tables {
        let mut parts: Vec<Part> = (r.local.iter().zip(&r.headings).zip(&r.infos))
            .map(|((local, headings), info)| Part {
                local: local.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                headings: headings.clone(),
                info: info.clone(),
                ..Part::default()
            })
            .collect();
        for (id, &ci) in &r.ids {
            parts[ci].ids.push(id.clone());
        }
        for ((ci, kind, written), t) in &r.objects {
            parts[*ci]
                .objects
                .push(((*kind, written.clone()), t.clone()));
        }
        for (label, t) in &r.bib {
            parts[t.chapter].bib.push((label.clone(), t.clone()));
        }
        parts.iter_mut().for_each(Part::sort);
        Tables { parts }
    }

    /// How many bibliography entries the tables hold.
    fn bib_entries(&self) -> usize {
        self.parts.iter().map(|p| p.bib.len()).sum()
    }
}

impl Part {
    /// Moves the parts of chapters `chapters` into the resolver's tables (moved, not copied:
    /// a large book's tables are tens of thousands of strings), its three large maps side by
    /// side.
    fn restore_all(parts: &mut [Part], r: &mut Resolver, chapters: std::ops::Range<usize>) {
        let (mut ids, mut local, mut objects) = (Vec::new(), Vec::new(), Vec::new());
        for (ci, part) in chapters.clone().zip(&mut parts[chapters]) {
            let part = std::mem::take(part);
            ids.push((ci, part.ids));
            local.push((ci, part.local));
            objects.push((ci, part.objects));
            r.headings[ci] = part.headings;
            r.bib.extend(part.bib);
            r.infos[ci] = part.info;
        }
        let (r_ids, r_local, r_objects) = (&mut r.ids, &mut r.local, &mut r.objects);
        let ids = || {
            r_ids.reserve(ids.iter().map(|(_, v)| v.len()).sum());
            for (ci, ids) in ids {
                r_ids.extend(ids.into_iter().map(|id| (id, ci)));
            }
        };
        let local = || {
            for (ci, local) in local {
                r_local[ci] = local.into_iter().collect();
            }
        };
        let objects = || {
            r_objects.reserve(objects.iter().map(|(_, v)| v.len()).sum());
            for (ci, objects) in objects {
                let keyed = objects.into_iter().map(|((kind, w), t)| ((ci, kind, w), t));
                r_objects.extend(keyed);
            }
        };
        rayon::join(ids, || rayon::join(local, objects));
    }

    /// Chapter `ci`'s part of the resolver's tables as they are.
    fn of(r: &Resolver, ci: usize) -> Part {
        let mut part = Part {
            ids: (r.ids.iter())
                .filter(|(_, c)| **c == ci)
                .map(|(id, _)| id.clone())
                .collect(),
            local: (r.local[ci].iter())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            objects: (r.objects.iter())
                .filter(|((c, _, _), _)| *c == ci)
                .map(|((_, kind, w), t)| ((*kind, w.clone()), t.clone()))
                .collect(),
            headings: r.headings[ci].clone(),
            bib: (r.bib.iter())
                .filter(|(_, t)| t.chapter == ci)
                .map(|(l, t)| (l.clone(), t.clone()))
                .collect(),
            info: r.infos[ci].clone(),
        };
        part.sort();
        part
    }

    fn sort(&mut self) {
        self.ids.sort();
        self.local.sort();
        self.objects.sort_by(|a, b| a.0.cmp(&b.0));
        self.bib.sort_by(|a, b| a.0.cmp(&b.0));
    }
}

/// A chapter as the pages after resolving see it, without its document.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Stub {
    title: String,
    toc: Vec<TocEntry>,
    footnotes: Vec<(String, u32)>,
    endnotes: Vec<(String, u32)>,
    lang: Option<String>,
    number: Option<String>,
}

impl Stub {
    /// What the pages need of a resolved chapter but its document.
    fn of(ch: &Chapter) -> Stub {
        Stub {
            title: ch.title.clone(),
            toc: ch.toc.clone(),
            footnotes: ch.footnotes.clone(),
            endnotes: ch.endnotes.clone(),
            lang: ch.lang.clone(),
            number: ch.number.clone(),
        }
    }

    /// Gives a chapter left unloaded what it had when it was resolved.
    fn fill(self, ch: &mut Chapter) {
        let Stub {
            title,
            toc,
            footnotes,
            endnotes,
            lang,
            number,
        } = self;
        (ch.title, ch.toc, ch.footnotes, ch.endnotes) = (title, toc, footnotes, endnotes);
        (ch.lang, ch.number) = (lang, number);
    }
}

/// A resource as kept (its media type by name).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct KeptResource {
    rel: PathBuf,
    source: PathBuf,
    href: String,
    media_type: String,
    first_use: Location,
    bytes: Option<Vec<u8>>,
}

/// What linking a chapter found (pass 2), as kept.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct LinkedMemo {
    warnings: Vec<Finding>,
    resources: Vec<KeptResource>,
}

/// The media types a linked resource can have (a kept one is mapped back to these).
const MEDIA_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/svg+xml",
    "image/webp",
    "text/css",
];

impl LinkedMemo {
    /// What linking found, or `None` when it found errors or a resource of a media type the
    /// memo does not know (then no memo is made).
    pub(super) fn of(linked: &Linked) -> Option<LinkedMemo> {
        if !linked.errors.is_empty() {
            return None;
        }
        let resources = (linked.resources.iter())
            .map(|(rel, res)| {
                MEDIA_TYPES.contains(&res.media_type).then(|| KeptResource {
                    rel: rel.clone(),
                    source: res.source.clone(),
                    href: res.href.clone(),
                    media_type: res.media_type.to_string(),
                    first_use: res.first_use.clone(),
                    bytes: res.bytes.clone(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(LinkedMemo {
            warnings: linked.warnings.clone(),
            resources,
        })
    }

    /// Back to what linking gave.
    fn linked(self) -> Option<Linked> {
        let resources = (self.resources.into_iter())
            .map(|k| {
                let media_type = *MEDIA_TYPES.iter().find(|t| **t == k.media_type)?;
                Some((
                    k.rel,
                    Resource {
                        source: k.source,
                        href: k.href,
                        media_type,
                        first_use: k.first_use,
                        bytes: k.bytes,
                    },
                ))
            })
            .collect::<Option<BTreeMap<_, _>>>()?;
        Some(Linked {
            errors: Vec::new(),
            warnings: self.warnings,
            resources,
            // Their image checks are kept as they were (see `ImageChecks::keep_known`).
            checked: Vec::new(),
        })
    }
}

/// What resolving gave and found for one chapter.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct ChapterMemo {
    before: ChapterCounters,
    after: ChapterCounters,
    /// Pass 1's warnings.
    numbering: Vec<Finding>,
    linked: LinkedMemo,
    stub: Stub,
    digest: String,
    /// Its index terms, where the book makes an index.
    marks: Vec<Mark>,
    /// Whether it is the index's place.
    index_place: bool,
}

/// What reading one chapter gave, as the caller keeps it: its key and its findings, and the
/// stamp its file had before it was read, when the key is all the file's (see
/// `pipeline::read::prepare`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReadMemo {
    pub key: String,
    pub findings: Vec<Finding>,
    pub stamp: Option<crate::cache::FileStamp>,
}

/// What a build kept of resolving its book, for the next build (see the module comment).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    /// Everything but the chapters' text the book was resolved with (see
    /// `pipeline::read::frame`): set by the caller.
    pub frame: String,
    /// Each chapter's reading: set by the caller.
    pub reads: Vec<ReadMemo>,
    chapters: Vec<StoredChapter>,
}

/// One chapter's memo as kept: its part of the tables and the rest, each as bytes of its own,
/// so that a build decodes the chapters side by side, moves what it decoded into its tables
/// (a book of thousands of images is tens of thousands of strings), and writes back the bytes
/// of every chapter that did not change.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct StoredChapter {
    part: Encoded<Part>,
    memo: Encoded<ChapterMemo>,
}

/// What a book resolved whole gave, for its memo.
pub(super) struct Kept<'a> {
    pub numbered: &'a [Numbered1],
    /// Every warning so far (pass 1's first).
    pub warnings: &'a [Finding],
    pub chapters: &'a [Chapter],
    pub digests: &'a [Option<String>],
}

impl Recorded {
    /// The memo of a book just resolved whole, or `None` when some chapter's resolving is not
    /// all in it.
    pub(super) fn new(
        tables: Tables,
        kept: Kept,
        linked: Vec<LinkedMemo>,
        marks: Vec<Vec<Mark>>,
    ) -> Option<Recorded> {
        let Kept {
            numbered,
            warnings,
            chapters,
            digests,
        } = kept;
        // A bibliography id defined twice: the later entry took the earlier's place.
        let items = numbered.last().map_or(0, |n| n.after.bib as usize);
        if items != tables.bib_entries() || numbered.len() != chapters.len() {
            return None;
        }
        let chapters = (numbered.iter().zip(linked).zip(chapters).zip(digests))
            .zip(marks)
            .map(|((((n, linked), ch), digest), marks)| {
                Some(ChapterMemo {
                    before: n.before,
                    after: n.after,
                    numbering: warnings.get(n.warnings.clone())?.to_vec(),
                    linked,
                    stub: Stub::of(ch),
                    digest: digest.clone()?,
                    marks,
                    index_place: is_index_place(ch),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let chapters = (chapters.par_iter().zip(&tables.parts))
            .map(|(memo, part)| {
                Some(StoredChapter {
                    part: Encoded::new(part)?,
                    memo: Encoded::new(memo)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Recorded {
            frame: String::new(),
            reads: Vec::new(),
            chapters,
        })
    }
}

/// Resolves the book again with only the chapters `changed` read anew (by index, with their
/// documents; none when nothing changed), the others from `memo`, or `None` when that cannot
/// give what resolving the whole book would: the caller resolves the whole book then.
/// `sources` are the book's chapters, as the memo's were. Returns the book with the other
/// chapters unloaded, and the memo updated.
pub fn resolve_again(
    book: &Book,
    sources: &[ChapterSource],
    memo: Recorded,
    changed: Vec<(usize, Document)>,
    xref_texts: &HashMap<String, String>,
    images: &mut ImageChecks,
) -> Option<(Resolved, Recorded)> {
    let n = sources.len();
    if memo.chapters.len() != n {
        return None;
    }
    let mut fresh = vec![false; n];
    let mut docs: Vec<Option<Document>> = vec![None; n];
    for (c, doc) in changed {
        *fresh.get_mut(c)? = true;
        docs[c] = Some(doc);
    }
    let decoded: Vec<(Part, ChapterMemo)> = (memo.chapters.par_iter())
        .map(|stored| Some((stored.part.decode()?, stored.memo.decode()?)))
        .collect::<Option<_>>()?;
    let (mut parts, mut memos): (Vec<Part>, Vec<ChapterMemo>) = decoded.into_iter().unzip();
    let docs: Vec<(ChapterSource, Document)> = (sources.iter().zip(docs))
        .map(|(src, doc)| (src.clone(), doc.unwrap_or_else(|| Document::new(&src.rel))))
        .collect();
    let mut chapters = name_chapters(docs);
    for ((ch, m), &fresh) in chapters.iter_mut().zip(&memos).zip(&fresh) {
        // A chapter read anew keeps the language reading gave it, as it is before pass 1.
        if !fresh {
            ch.lang = m.stub.lang.clone();
        }
    }
    let mut r = Resolver::new(book, &chapters, xref_texts);
    let places: Vec<bool> = memos.iter().map(|m| m.index_place).collect();
    let makes_index = r.makes_index(&places);
    let mut marks_now: Vec<Option<Vec<Mark>>> = vec![None; n];
    // Pass 1 for each chapter read anew, on the tables as the chapters before it left them:
    // when it adds what it added last time, the tables are the memo's.
    let mut numbering: Vec<Option<Vec<Finding>>> = vec![None; n];
    let mut restored = 0;
    for c in (0..n).filter(|&c| fresh[c]) {
        Part::restore_all(&mut parts, &mut r, restored..c);
        restored = c + 1;
        let m = &memos[c];
        let mut counters = m.before;
        r.number_chapter(c, &mut chapters[c], &mut counters);
        if counters != m.after || !r.errors.is_empty() {
            return None;
        }
        if is_index_place(&chapters[c]) != m.index_place {
            return None;
        }
        // Its index anchors are ids of its part, as they were when the book was resolved whole.
        if makes_index {
            marks_now[c] = Some(r.chapter_marks(c, &mut chapters[c]));
        }
        if Part::of(&r, c) != parts[c] {
            return None;
        }
        numbering[c] = Some(std::mem::take(&mut r.warnings));
        // Print page markers are numbered book-wide: a chapter that has some is not for here.
        r.number_pages(std::slice::from_mut(&mut chapters[c]));
        if !chapters[c].pages.is_empty() || !r.warnings.is_empty() {
            return None;
        }
    }
    Part::restore_all(&mut parts, &mut r, restored..n);
    // The index, of the marks of the chapters resolved now and the others' (a warning about
    // them is not for here).
    let mut index = None;
    if makes_index {
        let marks: Vec<Vec<Mark>> = (marks_now.iter().zip(&memos))
            .map(|(now, m)| now.as_ref().unwrap_or(&m.marks).clone())
            .collect();
        index = r.index_of(&marks, &places);
        if !r.warnings.is_empty() {
            return None;
        }
    }
    // Pass 1's warnings in reading order, then pass 2's.
    r.warnings = (memos.iter().zip(&numbering))
        .flat_map(|(m, own)| own.as_ref().unwrap_or(&m.numbering).iter().cloned())
        .collect();
    // Pass 2 for the chapters read anew, side by side; the others' from the memo.
    let listings = Listings::default();
    let mut linked_now: Vec<Option<Linked>> = {
        let (r, known) = (&r, &*images);
        (chapters.par_iter_mut().enumerate())
            .map(|(ci, ch)| {
                fresh[ci].then(|| {
                    let mut linker = Linker::new(r, &listings, known);
                    linker.link_chapter(ci, ch);
                    linker.into_linked()
                })
            })
            .collect()
    };
    // What the chapters linked now leave for the next memo (none when one cannot be kept).
    let kept_now: Vec<Option<LinkedMemo>> = (linked_now.iter())
        .map(|l| match l {
            Some(l) => LinkedMemo::of(l).map(Some),
            None => Some(None),
        })
        .collect::<Option<_>>()?;
    // The other chapters' memos are taken apart from here on: their bytes are the next memo's.
    let linked = (memos.iter_mut().zip(&mut linked_now))
        .map(|(m, now)| {
            now.take()
                .or_else(|| std::mem::take(&mut m.linked).linked())
        })
        .collect::<Option<Vec<Linked>>>()?;
    // The other chapters' images are unchanged (the frame says so), and so are their checks.
    images.keep_known();
    let mut resources = r.merge(linked, images);
    let stylesheets = styles::collect(book, &r.real_root, &mut resources, &mut r.warnings);
    if !r.errors.is_empty() {
        return None;
    }
    let mut digests = Vec::with_capacity(n);
    let mut stored = memo.chapters;
    for (ci, ch) in chapters.iter_mut().enumerate() {
        let m = &mut memos[ci];
        if !fresh[ci] {
            std::mem::take(&mut m.stub).fill(ch);
            digests.push(Some(std::mem::take(&mut m.digest)));
            continue;
        }
        m.digest = chapter_digest(ch)?;
        digests.push(Some(m.digest.clone()));
        m.numbering = numbering[ci].take()?;
        m.linked = kept_now[ci].clone()?;
        m.stub = Stub::of(ch);
        m.marks = marks_now[ci].take().unwrap_or_default();
        // Its part is as it was (compared above).
        stored[ci].memo = Encoded::new(m)?;
    }
    let mut resources: Vec<Resource> = resources.into_values().collect();
    resources.sort_by(|a, b| a.href.cmp(&b.href));
    let resolved = Resolved {
        chapters,
        resources,
        stylesheets,
        warnings: r.warnings,
        index,
        digests,
        unloaded: fresh.iter().map(|f| !f).collect(),
    };
    let next = Recorded {
        chapters: stored,
        ..memo
    };
    // The book-wide tables, of every chapter: let go beside the build.
    let tables = (std::mem::take(&mut r.ids), std::mem::take(&mut r.local));
    crate::memory::drop_aside((tables, std::mem::take(&mut r.objects)));
    Some((resolved, next))
}

/// The set of chapters whose read keys differ between `was` and `now` (a chapter without a
/// key always differs).
pub fn changed(was: &[ReadMemo], now: &[Option<String>]) -> Option<Vec<usize>> {
    if was.len() != now.len() {
        return None;
    }
    Some(
        (was.iter().zip(now).enumerate())
            .filter(|(_, (w, n))| n.as_deref() != Some(w.key.as_str()))
            .map(|(i, _)| i)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::Key;

    /// A book of three Markdown chapters: links and a reference between them, an image, a
    /// footnote, and a link to nowhere (a warning).
    fn book(dir: &std::path::Path, ch2: &str) -> (Book, Vec<(ChapterSource, Document)>) {
        std::fs::create_dir_all(dir.join("images")).unwrap();
        std::fs::write(
            dir.join("images/cat.gif"),
            b"GIF89a\x01\x00\x01\x00\x00\x00\x00;",
        )
        .unwrap();
        std::fs::write(
            dir.join("book.yml"),
            "title: T\nlanguage: en\nchapters: [ch1.md, ch2.md, ch3.md]\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("ch1.md"),
            "# One {#one}\n\nSee [](ch2.md#two) and [x](ch3.md#three).\n\n## Sub\n\nText[^n].\n\n[^n]: A note.\n",
        )
        .unwrap();
        std::fs::write(dir.join("ch2.md"), ch2).unwrap();
        std::fs::write(
            dir.join("ch3.md"),
            "# Three {#three}\n\nA [link](nowhere.md) and ![cat](images/cat.gif) again.\n",
        )
        .unwrap();
        opened(dir)
    }

    /// The book in `dir` and its chapters read.
    fn opened(dir: &std::path::Path) -> (Book, Vec<(ChapterSource, Document)>) {
        let (book, _) = Book::open(dir, &crate::book::ProjectConfig::default()).unwrap();
        let docs = (book.chapters.iter())
            .map(|src| {
                let text = std::fs::read_to_string(&src.path).unwrap();
                let doc = crate::reader::markdown::read(&text, &src.rel).0;
                (src.clone(), doc)
            })
            .collect();
        (book, docs)
    }

    const CH2: &str =
        "# Two {#two}\n\n![A cat](images/cat.gif)\n\nA cat in a line ![cat](images/cat.gif).\n";

    fn digest(value: &impl serde::Serialize) -> Option<String> {
        Key::new("test").value(value).finish()
    }

    /// The book of [`book`] in `dir`, resolved whole, with its memo and image checks.
    fn memoised(dir: &std::path::Path) -> (Recorded, ImageChecks) {
        let (book, docs) = book(dir, CH2);
        let mut images = ImageChecks::default();
        let (_, memo) = resolve_recording(&book, docs, &HashMap::new(), &mut images, true).unwrap();
        let memo = memo.expect("a book without index terms or page markers is memoised");
        (memo, images)
    }

    /// Resolving one edited chapter against the memo gives what resolving the whole book gives:
    /// the same chapters (by digest), findings in the same order, the same resources, and the
    /// memo the whole book would leave.
    #[test]
    fn a_chapter_resolved_again_is_the_book_resolved_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (memo, mut images) = memoised(dir.path());
        let empty = HashMap::new();

        // A paragraph, and a figure without an id (numbered in its chapter, referred to by none).
        let edited = format!("{CH2}\nOne more paragraph.\n\n![Another](images/cat.gif)\n");
        let (book, docs) = book_edited(dir.path(), &edited);
        let doc = docs[1].1.clone();
        let (again, next) = resolve_again(
            &book,
            &book.chapters,
            memo.clone(),
            vec![(1, doc)],
            &HashMap::new(),
            &mut images,
        )
        .expect("a paragraph changes nothing the other chapters see");
        let (whole, whole_memo) =
            resolve_recording(&book, docs, &empty, &mut ImageChecks::default(), true).unwrap();
        assert_eq!(again.unloaded, vec![true, false, true]);
        assert_eq!(again.digests, whole.digests);
        assert_eq!(again.warnings, whole.warnings);
        assert!(
            again
                .warnings
                .iter()
                .any(|w| w.message.contains("nowhere.md"))
        );
        assert_eq!(again.resources, whole.resources);
        assert_eq!(again.resources[0].first_use.file, Path::new("ch2.md"));
        for (a, w) in again.chapters.iter().zip(&whole.chapters) {
            assert_eq!(
                (&a.stem, &a.title, &a.toc, &a.footnotes, &a.number),
                (&w.stem, &w.title, &w.toc, &w.footnotes, &w.number)
            );
        }
        let whole_memo = whole_memo.unwrap();
        for (a, w) in next.chapters.iter().zip(&whole_memo.chapters) {
            assert_eq!(a.part.decode().unwrap(), w.part.decode().unwrap());
            let (a, w) = (a.memo.decode().unwrap(), w.memo.decode().unwrap());
            assert_eq!(format!("{:?}", a.numbering), format!("{:?}", w.numbering));
            assert_eq!(format!("{:?}", a.linked), format!("{:?}", w.linked));
            assert_eq!(format!("{:?}", a.stub), format!("{:?}", w.stub));
            assert_eq!(a.digest, w.digest);
            assert_eq!((a.before, a.after), (w.before, w.after));
        }
        assert_eq!(digest(&next), digest(&whole_memo));

        // Two chapters at once.
        std::fs::write(
            dir.path().join("ch3.md"),
            "# Three {#three}\n\nA [link](nowhere.md) and ![cat](images/cat.gif) again.\n\nMore.\n",
        )
        .unwrap();
        let (book, docs) = book_edited(dir.path(), &format!("{edited}\nAnd more.\n"));
        let now = vec![(1, docs[1].1.clone()), (2, docs[2].1.clone())];
        let (two, next) = resolve_again(
            &book,
            &book.chapters,
            next,
            now,
            &HashMap::new(),
            &mut images,
        )
        .unwrap();
        let (whole, _) =
            resolve_recording(&book, docs, &empty, &mut ImageChecks::default(), true).unwrap();
        assert_eq!(two.unloaded, vec![true, false, false]);
        assert_eq!(two.digests, whole.digests);
        assert_eq!(two.warnings, whole.warnings);
        assert_eq!(two.resources, whole.resources);

        // Nothing changed: every chapter from the memo.
        let (none, _) = resolve_again(
            &book,
            &book.chapters,
            next,
            Vec::new(),
            &HashMap::new(),
            &mut images,
        )
        .unwrap();
        assert_eq!(none.unloaded, vec![true, true, true]);
        assert_eq!(none.digests, whole.digests);
        assert_eq!(none.warnings, whole.warnings);
    }

    /// An edit that changes what other chapters see (a heading's title, a section more, an id)
    /// cannot be resolved on its own.
    #[test]
    fn an_edit_other_chapters_see_needs_the_whole_book() {
        let dir = tempfile::tempdir().unwrap();
        let (memo, mut images) = memoised(dir.path());
        for edited in [
            CH2.replace("# Two", "# Two renamed"),
            format!("{CH2}\n## A section {{#sec}}\n"),
            CH2.replace("{#two}", "{#deux}"),
        ] {
            let (book, docs) = book_edited(dir.path(), &edited);
            let doc = docs[1].1.clone();
            let again = resolve_again(
                &book,
                &book.chapters,
                memo.clone(),
                vec![(1, doc)],
                &HashMap::new(),
                &mut images,
            );
            assert!(again.is_none(), "{edited}");
        }
    }

    /// The book in `dir` with `ch2.md` edited, read again.
    fn book_edited(dir: &std::path::Path, ch2: &str) -> (Book, Vec<(ChapterSource, Document)>) {
        std::fs::write(dir.join("ch2.md"), ch2).unwrap();
        opened(dir)
    }
}
