//! Resolve: all Documents of a book → numbered, cross-referenced chapters.
//!
//! This is the one book-wide pass. It gives every chapter its output file, numbers chapters,
//! sections, figures, tables and listings, makes ids unique across the book, turns links between
//! source files into links between XHTML files, maps images to resources in the EPUB, and reports
//! every reference it cannot resolve at the place it was written.
//!
//! Pass 1 (`numbering`) walks the chapters in reading order and records every target. Pass 2
//! links each chapter on its own (`links`, `images`, `notes`, `references`), in parallel, and
//! merges what they found in reading order.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::book::{Book, ChapterSource, Format, RealDirs};
use crate::doc::*;
use crate::error::{Finding, Location};

mod collate;
mod contrast;
mod ids;
mod image_check;
mod images;
mod index;
mod labels;
mod links;
pub mod memo;
mod notes;
mod numbering;
mod pages;
pub use pages::PageTarget;
mod styles;
pub use styles::StyleSheet;
mod references;
mod remote;
mod svg;
pub mod visit;

pub(crate) use crate::files::normalize;
use ids::{file_stem, unique};
pub use image_check::ImageChecks;
pub use index::{BookIndex, IndexEntry, IndexGroup, LEVEL_SEPARATOR, Locator};
use labels::Labels;
use notes::note_syntax;
pub use visit::{visit_all_inlines_mut, visit_blocks_mut, visit_own_inlines_mut};

/// A chapter ready to be written.
#[derive(Debug, Clone)]
pub struct Chapter {
    pub doc: Document,
    pub source: ChapterSource,
    /// The chapter's stem, unique in the book: output file `xhtml/<stem>.xhtml`, id prefix.
    pub stem: String,
    /// Plain-text title (the first heading, else the file name).
    pub title: String,
    /// Headings for the table of contents, in order.
    pub toc: Vec<TocEntry>,
    /// Footnote label → number, in order of first reference.
    pub footnotes: Vec<(String, u32)>,
    /// Endnote label → number, in order of definition.
    pub endnotes: Vec<(String, u32)>,
    /// Language of the chapter when it differs from the book's.
    pub lang: Option<String>,
    /// The chapter's number label (`第1章`, `付録A`, `第I部`), when it has one.
    pub number: Option<String>,
    /// Its print page-break markers, in order: the chapter's part of the page list.
    pub pages: Vec<PageTarget>,
}

impl Chapter {
    /// Path of the chapter's XHTML inside the package folder. Chapter pages are named by their
    /// ASCII stem ([`ids::file_stem`]), not their source's name, so this is a valid URL as it
    /// is (`第1章 はじめに.md` → `xhtml/ch-1.xhtml`) and links, the nav and the NCX use it so.
    pub fn href(&self) -> String {
        format!("xhtml/{}.xhtml", self.stem)
    }
}

/// The ids of a footnote and of its (first) reference.
pub fn footnote_ids(stem: &str, n: u32) -> (String, String) {
    (format!("fn-{stem}-{n}"), format!("fnref-{stem}-{n}"))
}

/// The ids of an endnote and of its (first) reference.
pub fn endnote_ids(stem: &str, n: u32) -> (String, String) {
    (
        format!("endnote-{stem}-{n}"),
        format!("endnoteref-{stem}-{n}"),
    )
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TocEntry {
    pub level: u8,
    pub id: String,
    /// Number label and title, as shown in the table of contents.
    pub label: String,
}

/// A file copied into the EPUB (an image, a style sheet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub source: PathBuf,
    /// Path inside the package folder (`image/images/cat.png`), the file's name in the
    /// container; URLs to it are [`crate::href::href`] of it.
    pub href: String,
    pub media_type: &'static str,
    /// Where the book first refers to it, for messages.
    pub first_use: Location,
    /// What goes into the EPUB when it is not the file as it is (an SVG without its scripts).
    pub bytes: Option<Vec<u8>>,
}

#[derive(Debug)]
pub struct Resolved {
    pub chapters: Vec<Chapter>,
    pub resources: Vec<Resource>,
    /// The book's own style sheets, as they go in (what they bring is among `resources`).
    pub stylesheets: Vec<StyleSheet>,
    pub warnings: Vec<Finding>,
    /// The book's index, when it marks terms and makes one.
    pub index: Option<BookIndex>,
    /// Each chapter's digest: a hash of all of it as resolved (what its page is kept by).
    pub digests: Vec<Option<String>>,
    /// Whether each chapter's document was left out ([`memo`]: its page is kept and its
    /// digest says it is unchanged); the others hold theirs.
    pub unloaded: Vec<bool>,
}

impl Resolved {
    /// Whether some chapter's document was left out (see [`Resolved::unloaded`]).
    pub fn has_unloaded(&self) -> bool {
        self.unloaded.iter().any(|&u| u)
    }
}

/// A digest of a chapter as resolved: every field of it (a field added to `Chapter` must be
/// added here, or this fails to compile).
pub fn chapter_digest(ch: &Chapter) -> Option<String> {
    let Chapter {
        doc,
        source,
        stem,
        title,
        toc,
        footnotes,
        endnotes,
        lang,
        number,
        pages,
    } = ch;
    let rest = (
        source, stem, title, toc, footnotes, endnotes, lang, number, pages,
    );
    crate::cache::Key::new("resolved chapter")
        .value(doc)
        .value(&rest)
        .finish()
}

/// What a file of the book is to the package, which decides its folder: EBPAJ's guide (and
/// every reader's expectation) keeps images, style sheets and fonts apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssetKind {
    Image,
    Style,
    Font,
}

impl AssetKind {
    /// The kind of a file by its media type (a style sheet's `url()` brings any of the three).
    pub fn of(media_type: &str) -> AssetKind {
        if media_type == "text/css" {
            AssetKind::Style
        } else if media_type.starts_with("font/") {
            AssetKind::Font
        } else {
            AssetKind::Image
        }
    }

    /// The folder inside the package folder, as the EBPAJ guide names it.
    pub fn folder(self) -> &'static str {
        match self {
            AssetKind::Image => "image",
            AssetKind::Style => "style",
            AssetKind::Font => "font",
        }
    }
}

/// The house style sheet's path inside the package folder (the pages link it as this).
pub const HOUSE_STYLE: &str = "style/book.css";

/// Whether seihon's own files may take this path inside the package folder: the house style
/// sheet, and the cover (`image/cover.png` generated, `image/cover.<ext>` the book's, copied).
/// The book's files are kept off these paths ([`asset_path`]).
pub fn is_generated_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower == HOUSE_STYLE
        || lower
            .strip_prefix("image/cover.")
            .is_some_and(|ext| !ext.contains('/'))
}

/// Where a file of the book (`rel`, relative to the book folder) goes inside the package folder:
/// `<kind's folder>/<its path>` (`image/images/cat.png`, `style/style.css`), each name as
/// [`crate::href::container_path`] makes it. A path seihon's own files take (the house style
/// sheet, the cover) gets a short hash before its extension, so the book's file is never
/// overwritten. Its URL is [`crate::href::href`] of this.
pub fn asset_path(rel: &Path, kind: AssetKind) -> String {
    in_folder(
        kind.folder(),
        &crate::href::container_path(&rel.to_string_lossy()),
    )
}

/// `folder/inside`, away from the paths seihon's own files take.
pub(crate) fn in_folder(folder: &str, inside: &str) -> String {
    let path = format!("{folder}/{inside}");
    if !is_generated_path(&path) {
        return path;
    }
    let tag = format!("-{:08x}", crate::href::name_hash(inside));
    let stem = path.rfind('.').filter(|&i| i > folder.len() + 1);
    match stem {
        Some(i) => format!("{}{tag}{}", &path[..i], &path[i..]),
        None => format!("{path}{tag}"),
    }
}

/// Media type of an image or style file by extension; `None` for anything an EPUB cannot carry
/// without a fallback.
pub fn media_type(path: &Path) -> Option<&'static str> {
    Some(
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "png" => "image/png",
            "jpg" | "jpeg" => "image/jpeg",
            "gif" => "image/gif",
            "svg" => "image/svg+xml",
            "webp" => "image/webp",
            "css" => "text/css",
            _ => return None,
        },
    )
}

/// What becomes of a link.
enum LinkTo {
    /// It stays as written.
    Written,
    /// It goes to this address instead (another chapter's XHTML, a repaired web address).
    Rewritten(String),
    /// It cannot be used (reported): its text stays, without the link.
    Nowhere,
}

/// A referable object (listing, figure, table, equation, column, bibliography entry).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Target {
    chapter: usize,
    /// The element id in the output (unique in the book).
    id: String,
    number: Option<String>,
    caption: String,
}

/// A heading, for `@<hd>`-style references by label, caption or `parent|child` path.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct HeadingTarget {
    id: String,
    label: Option<String>,
    caption: String,
    number: Option<String>,
    /// Labels and captions of the enclosing headings below the chapter title.
    ancestors: Vec<(Option<String>, String)>,
}

/// What other chapters need to know about a chapter.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct ChapterInfo {
    /// The chapter id as Re:VIEW knows it: the file name without extension.
    review_id: String,
    /// The output id of the chapter's title heading.
    title_id: Option<String>,
    format: Format,
    stem: String,
    number: Option<String>,
    title: String,
    ja: bool,
    /// Whether the chapter is an appendix (a DocBook `xref` names it so).
    appendix: bool,
}

/// The resolver's tables: tens of thousands of ids in a large book, hashed with a fast hash
/// (nothing an author writes is a threat to a build's own maps).
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

struct Resolver<'a> {
    book: &'a Book,
    /// The book folder with symlinks resolved, once (images are checked against it by the
    /// thousand).
    real_root: PathBuf,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    /// Every id in the output → its chapter.
    ids: Map<String, usize>,
    /// Per chapter: id as written → id in the output (they differ after a clash).
    local: Vec<Map<String, String>>,
    /// Per chapter: where each written id was first used.
    first_use: Vec<Map<String, Location>>,
    objects: Map<(usize, labels::ObjectKind, String), Target>,
    headings: Vec<Vec<HeadingTarget>>,
    bib: Map<String, Target>,
    infos: Vec<ChapterInfo>,
    by_review_id: HashMap<String, usize>,
    /// `ch02.xhtml`, `ch02.html` (by Re:VIEW id and by stem) → the first chapter so named.
    by_output: HashMap<String, usize>,
    /// Texts for cross-references to targets without a title (see [`resolve_with`]).
    xref_texts: HashMap<String, String>,
    by_source: HashMap<PathBuf, usize>,
    /// The messages of the book's language (a chapter in another language makes its own).
    messages: crate::i18n::Messages,
}

/// Linking one chapter (pass 2): it reads what pass 1 gathered for the whole book and keeps
/// what it finds to itself, so chapters link in parallel; their findings and images are then
/// merged in reading order, as linking them one after another would give.
struct Linker<'r, 'a> {
    r: &'r Resolver<'a>,
    /// Names in the folders Re:VIEW's image lookup looked in, shared by all chapters (a
    /// book's image folder is listed once, not once per chapter).
    listings: &'r Listings,
    /// Image checks from the last build.
    known: &'r ImageChecks,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    /// Real paths of the folders images were found in.
    real_dirs: RealDirs,
    resources: BTreeMap<PathBuf, Resource>,
    /// This chapter's image checks, to remember.
    checked: Vec<(PathBuf, crate::cache::FileStamp, bool)>,
}

type Listings = std::sync::Mutex<HashMap<std::ffi::OsString, Arc<HashSet<std::ffi::OsString>>>>;

/// What linking a chapter found, for the merge.
struct Linked {
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    resources: BTreeMap<PathBuf, Resource>,
    checked: Vec<(PathBuf, crate::cache::FileStamp, bool)>,
}

impl<'a> std::ops::Deref for Linker<'_, 'a> {
    type Target = Resolver<'a>;
    fn deref(&self) -> &Resolver<'a> {
        self.r
    }
}

/// File names the generated pages use; chapters never take them.
const RESERVED_STEMS: &[&str] = &["cover", "titlepage", "colophon", "nav", "toc", "bookindex"];

/// Resolves a book's documents into chapters ready to be written (see the module comment).
pub fn resolve(
    book: &Book,
    docs: Vec<(ChapterSource, Document)>,
) -> Result<Resolved, Vec<Finding>> {
    resolve_with(book, docs, &HashMap::new())
}

/// Like [`resolve`], with the text a reader found for cross-reference targets that have no
/// heading or caption (DocBook `xreflabel`, a `varlistentry` term), by id.
pub fn resolve_with(
    book: &Book,
    docs: Vec<(ChapterSource, Document)>,
    xref_texts: &HashMap<String, String>,
) -> Result<Resolved, Vec<Finding>> {
    resolve_remembering(book, docs, xref_texts, &mut ImageChecks::default())
}

/// Like [`resolve_with`], taking image checks from `images` where the files are unchanged
/// and adding this build's.
pub fn resolve_remembering(
    book: &Book,
    docs: Vec<(ChapterSource, Document)>,
    xref_texts: &HashMap<String, String>,
    images: &mut ImageChecks,
) -> Result<Resolved, Vec<Finding>> {
    resolve_recording(book, docs, xref_texts, images, false).map(|(resolved, _)| resolved)
}

/// Like [`resolve_remembering`], with what the next build needs to resolve only the chapter
/// that changed ([`memo::Recorded`]) when `record` asks for it and the book allows it.
pub fn resolve_recording(
    book: &Book,
    docs: Vec<(ChapterSource, Document)>,
    xref_texts: &HashMap<String, String>,
    images: &mut ImageChecks,
    record: bool,
) -> Result<(Resolved, Option<memo::Recorded>), Vec<Finding>> {
    // Stems first: links between chapters need every chapter's file name.
    let mut chapters = name_chapters(docs);
    let mut r = Resolver::new(book, &chapters, xref_texts);
    // Pass 1: ids, numbers, titles — everything references need.
    let numbered = r.number_chapters(&mut chapters);
    let after_pass_1 = r.warnings.len();
    r.number_pages(&mut chapters);
    // Index anchors after every id the author wrote is claimed, so they never take one.
    let (index, marks) = r.build_index(&mut chapters);
    // What pass 2 reads, for the memo, when a chapter can be resolved again on its own (the
    // index's anchors taken: they are ids too).
    let tables = (record
        && r.warnings.len() == after_pass_1
        && r.errors.is_empty()
        && chapters.iter().all(|ch| ch.pages.is_empty()))
    .then(|| memo::Tables::of(&r));
    // Pass 2: links, images, notes and references, now that every target is known; each
    // chapter on its own, in parallel, merged in order.
    let linked = r.link_chapters(&mut chapters, images);
    let linked_memo: Option<Vec<memo::LinkedMemo>> = tables
        .as_ref()
        .and_then(|_| linked.iter().map(memo::LinkedMemo::of).collect());
    let mut resources = r.merge(linked, images);
    let stylesheets = styles::collect(book, &r.real_root, &mut resources, &mut r.warnings);
    if !r.errors.is_empty() {
        // Warnings too: a failed build still shows everything found.
        r.errors.append(&mut r.warnings);
        return Err(r.errors);
    }
    let digests = digests(&chapters);
    let recorded = match (tables, linked_memo) {
        (Some(tables), Some(linked)) => {
            let kept = memo::Kept {
                numbered: &numbered,
                warnings: &r.warnings,
                chapters: &chapters,
                digests: &digests,
            };
            memo::Recorded::new(tables, kept, linked, marks)
        }
        _ => None,
    };
    let mut resources: Vec<Resource> = resources.into_values().collect();
    resources.sort_by(|a, b| a.href.cmp(&b.href));
    let unloaded = vec![false; chapters.len()];
    Ok((
        Resolved {
            chapters,
            resources,
            stylesheets,
            warnings: r.warnings,
            index,
            digests,
            unloaded,
        },
        recorded,
    ))
}

/// Every chapter's [`chapter_digest`], in parallel.
fn digests(chapters: &[Chapter]) -> Vec<Option<String>> {
    use rayon::prelude::*;
    chapters.par_iter().map(chapter_digest).collect()
}

/// Every document as a chapter with its stem, unique in the book and never a generated
/// page's; the rest is filled in by the passes.
fn name_chapters(docs: Vec<(ChapterSource, Document)>) -> Vec<Chapter> {
    let mut stems: HashSet<String> = RESERVED_STEMS.iter().map(|s| s.to_string()).collect();
    docs.into_iter()
        .map(|(source, doc)| {
            let stem = unique(&mut stems, &file_stem(&source.rel));
            let lang = doc.lang.clone();
            Chapter {
                doc,
                source,
                stem,
                title: String::new(),
                toc: Vec::new(),
                footnotes: Vec::new(),
                endnotes: Vec::new(),
                lang,
                number: None,
                pages: Vec::new(),
            }
        })
        .collect()
}

impl<'a> Resolver<'a> {
    /// A resolver for the book's chapters, knowing each by its source file and its names.
    fn new(
        book: &'a Book,
        chapters: &[Chapter],
        xref_texts: &HashMap<String, String>,
    ) -> Resolver<'a> {
        let n = chapters.len();
        let mut r = Resolver {
            book,
            real_root: book
                .root
                .canonicalize()
                .unwrap_or_else(|_| book.root.clone()),
            errors: Vec::new(),
            warnings: Vec::new(),
            ids: Map::default(),
            local: vec![Map::default(); n],
            first_use: vec![Map::default(); n],
            objects: Map::default(),
            headings: vec![Vec::new(); n],
            bib: Map::default(),
            infos: vec![ChapterInfo::default(); n],
            by_review_id: HashMap::new(),
            by_output: HashMap::new(),
            xref_texts: xref_texts.clone(),
            by_source: chapters
                .iter()
                .enumerate()
                .map(|(i, c)| (normalize(&c.source.rel), i))
                .collect(),
            messages: book.locale.messages(&book.meta.language),
        };
        r.name(chapters);
        r
    }

    /// The names references and links know chapters by: the Re:VIEW id, and the output file
    /// under it and under the stem; the first chapter so named keeps each.
    fn name(&mut self, chapters: &[Chapter]) {
        for (ci, ch) in chapters.iter().enumerate() {
            let review_id = ch
                .source
                .rel
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            self.by_review_id.entry(review_id.clone()).or_insert(ci);
            for name in [&review_id, &ch.stem] {
                for ext in ["xhtml", "html"] {
                    self.by_output.entry(format!("{name}.{ext}")).or_insert(ci);
                }
            }
            self.infos[ci].review_id = review_id;
            self.infos[ci].stem = ch.stem.clone();
            self.infos[ci].format = ch.source.format;
        }
    }

    /// Pass 2 over every chapter, in parallel: what each found, in reading order.
    fn link_chapters(&self, chapters: &mut [Chapter], known: &ImageChecks) -> Vec<Linked> {
        use rayon::prelude::*;
        let listings = Listings::default();
        chapters
            .par_iter_mut()
            .enumerate()
            .map(|(ci, ch)| {
                let mut linker = Linker::new(self, &listings, known);
                linker.link_chapter(ci, ch);
                linker.into_linked()
            })
            .collect()
    }

    /// Merges what the chapters found in reading order, as linking them one after another
    /// would give; their image checks go into `images`.
    fn merge(
        &mut self,
        linked: Vec<Linked>,
        images: &mut ImageChecks,
    ) -> BTreeMap<PathBuf, Resource> {
        let mut first: HashMap<PathBuf, Resource> = HashMap::new();
        for chapter in linked {
            self.errors.extend(chapter.errors);
            self.warnings.extend(chapter.warnings);
            // The first chapter to use an image is where it is first used.
            for (rel, res) in chapter.resources {
                first.entry(rel).or_insert(res);
            }
            for (path, stamp, ok) in chapter.checked {
                images.remember(path, stamp, ok);
            }
        }
        in_path_order(first)
    }

    /// The labels of the chapter's language.
    fn labels(&self, ch: &Chapter) -> Labels {
        Labels {
            m: match ch.lang.as_deref() {
                Some(lang) if lang != self.book.meta.language => self.book.locale.messages(lang),
                _ => self.messages.clone(),
            },
        }
    }
}

/// The entries in a map by path, built from entries sorted beforehand (a map built from
/// sorted entries compares each with the one before only; comparing paths component by
/// component took most of a rebuild's resolving in a book of 3,000 images).
fn in_path_order<V>(entries: HashMap<PathBuf, V>) -> BTreeMap<PathBuf, V> {
    path_sorted(entries).into_iter().collect()
}

/// The entries in the order of their paths. Plain relative paths (no empty, `.` or `..` part)
/// are sorted by their bytes with the separator below every other byte, which is that order
/// (component by component); others by comparing them as paths.
fn path_sorted<V>(entries: HashMap<PathBuf, V>) -> Vec<(PathBuf, V)> {
    let plain = |p: &Path| {
        let s = p.as_os_str().as_encoded_bytes();
        !p.is_absolute()
            && !s.is_empty()
            && s.split(|&b| b == b'/')
                .all(|part| !matches!(part, b"" | b"." | b".."))
    };
    if !entries.keys().all(|p| plain(p)) {
        let mut sorted: Vec<(PathBuf, V)> = entries.into_iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        return sorted;
    }
    let mut sorted: Vec<(Vec<u8>, PathBuf, V)> = (entries.into_iter())
        .map(|(path, v)| {
            let key = (path.as_os_str().as_encoded_bytes().iter())
                .map(|&b| if b == b'/' { 0 } else { b })
                .collect();
            (key, path, v)
        })
        .collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    sorted.into_iter().map(|(_, path, v)| (path, v)).collect()
}

impl<'r, 'a> Linker<'r, 'a> {
    /// A linker for one chapter, finding nothing yet.
    fn new(r: &'r Resolver<'a>, listings: &'r Listings, known: &'r ImageChecks) -> Self {
        Linker {
            r,
            listings,
            known,
            errors: Vec::new(),
            warnings: Vec::new(),
            real_dirs: RealDirs::default(),
            resources: BTreeMap::new(),
            checked: Vec::new(),
        }
    }

    /// What the chapter's linking found, for the merge.
    fn into_linked(self) -> Linked {
        Linked {
            errors: self.errors,
            warnings: self.warnings,
            resources: self.resources,
            checked: self.checked,
        }
    }

    /// Pass 2 for one chapter: links, images, note references and cross-references.
    fn link_chapter(&mut self, ci: usize, ch: &mut Chapter) {
        let shown = ch.source.rel.clone();
        let dir = shown.parent().map(Path::to_path_buf).unwrap_or_default();
        let format = ch.source.format;
        let labels = self.labels(ch);
        let mut note_refs: Vec<(String, Location)> = Vec::new();
        let mut endnote_refs: Vec<(String, Location)> = Vec::new();
        let mut doc = std::mem::replace(&mut ch.doc, Document::new(&shown));
        // A reference to a note never defined keeps its text as written (reported below).
        let defined = |notes: &[Footnote]| -> HashSet<String> {
            notes.iter().map(|f| f.label.clone()).collect()
        };
        let (foot_labels, end_labels) = (defined(&doc.footnotes), defined(&doc.endnotes));
        visit_all_inlines_mut(&mut doc, &mut |inline| {
            // Made only for the inlines that need it: most are text.
            let pos = inline.pos;
            let loc = || Location::new(&shown, pos.line, pos.col);
            match &mut inline.kind {
                InlineKind::Link { href, content } => match self.link_to(href, ci, &dir, &loc()) {
                    LinkTo::Written => {}
                    LinkTo::Rewritten(new) => {
                        // `[](ch02.md#setup)`: the heading's title is the link's text.
                        if plain_text(content).trim().is_empty()
                            && !content
                                .iter()
                                .any(|i| matches!(i.kind, InlineKind::Image(_)))
                            && let Some(title) = self.target_title(&new, ci)
                        {
                            *content = vec![Inline::text(title, pos)];
                        }
                        *href = new;
                    }
                    // Not a usable address, or a link to nowhere (reported): the text stays,
                    // without the link.
                    LinkTo::Nowhere => {
                        inline.kind = InlineKind::Span {
                            class: "unlinked".into(),
                            content: std::mem::take(content),
                        };
                    }
                },
                InlineKind::Image(img) => match self.image(img, ci, &dir, &loc()) {
                    Some(new) => img.src = new,
                    // A missing icon was reported; its alt text stands in for it.
                    None => inline.kind = InlineKind::Text(img.alt.clone()),
                },
                InlineKind::Raw(nodes) => {
                    remote::keep_inside(nodes, &loc(), &mut self.warnings);
                    self.raw_images(nodes, ci, &dir, &loc());
                    self.raw_links(nodes, ci, &dir, &loc());
                }
                InlineKind::FootnoteRef(label) => {
                    note_refs.push((label.clone(), loc()));
                    if !foot_labels.contains(label.as_str()) {
                        inline.kind = InlineKind::Text(note_syntax(format, label, false));
                    }
                }
                InlineKind::EndnoteRef(label) => {
                    endnote_refs.push((label.clone(), loc()));
                    if !end_labels.contains(label.as_str()) {
                        inline.kind = InlineKind::Text(note_syntax(format, label, true));
                    }
                }
                InlineKind::Ref {
                    kind,
                    target,
                    content,
                } => {
                    inline.kind =
                        self.reference(ci, &labels, *kind, target, content.take(), &loc());
                }
                _ => {}
            }
        });
        visit_blocks_mut(&mut doc.blocks, &mut |b| {
            let loc = || Location::new(&shown, b.pos.line, b.pos.col);
            match &mut b.kind {
                BlockKind::Figure(f) => match self.image(&f.image, ci, &dir, &loc()) {
                    Some(new) => f.image.src = new,
                    None => f.image.src.clear(),
                },
                BlockKind::Raw(nodes) => {
                    remote::keep_inside(nodes, &loc(), &mut self.warnings);
                    self.raw_images(nodes, ci, &dir, &loc());
                    self.raw_links(nodes, ci, &dir, &loc());
                }
                _ => {}
            }
        });
        ch.footnotes = self.number_notes(&doc.footnotes, note_refs, format, &shown, false);
        ch.endnotes = self.number_notes(&doc.endnotes, endnote_refs, format, &shown, true);
        ch.doc = doc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_put_in_the_order_a_map_of_paths_has() {
        let sets: [&[&str]; 3] = [
            &[
                "a-b/c",
                "a/b",
                "a.b",
                "a/b/c",
                "ab",
                "a",
                "images/1.png",
                "images-2/x",
                "é/x",
                "a b/c",
                "images/ch01/2.png",
                "images/ch01.png",
                "A/b",
            ],
            // Not plain: compared as paths are.
            &["a//b", "a-b", "a/b", "./c", "d/"],
            &["/abs/x", "rel/y", "rel-z"],
        ];
        for set in sets {
            let entries: HashMap<PathBuf, usize> = set
                .iter()
                .enumerate()
                .map(|(i, p)| (PathBuf::from(p), i))
                .collect();
            let sorted = path_sorted(entries);
            assert!(
                sorted.windows(2).all(|w| w[0].0 < w[1].0),
                "{:?}",
                sorted.iter().map(|(p, _)| p).collect::<Vec<_>>()
            );
        }
    }

    /// Each kind of file has its folder, and a book's file never takes the path of seihon's own
    /// (the house style sheet, the cover), whatever the case of its name.
    #[test]
    fn book_files_go_to_their_kinds_folder_clear_of_seihons_own() {
        let at = |p: &str, k| asset_path(Path::new(p), k);
        assert_eq!(
            at("images/cat.png", AssetKind::Image),
            "image/images/cat.png"
        );
        assert_eq!(at("style.css", AssetKind::Style), "style/style.css");
        assert_eq!(at("fonts/a.otf", AssetKind::Font), "font/fonts/a.otf");
        assert_eq!(AssetKind::of("font/woff2"), AssetKind::Font);
        assert_eq!(AssetKind::of("text/css"), AssetKind::Style);
        assert_eq!(AssetKind::of("image/svg+xml"), AssetKind::Image);
        for (rel, kind) in [
            ("book.css", AssetKind::Style),
            ("cover.png", AssetKind::Image),
            ("Cover.JPG", AssetKind::Image),
        ] {
            let path = at(rel, kind);
            assert!(!is_generated_path(&path), "{path}");
            assert_eq!(Path::new(&path).extension(), Path::new(rel).extension());
            assert!(path.starts_with(kind.folder()), "{path}");
        }
        // Only the top of the folder is taken: a cover in a subfolder keeps its path.
        assert_eq!(
            at("images/cover.png", AssetKind::Image),
            "image/images/cover.png"
        );
    }

    /// Chapters are linked side by side; what they find must come out as linking them one
    /// after another gives: findings in reading order, an image used by two chapters kept once,
    /// first used where the earlier chapter uses it.
    #[test]
    fn chapters_linked_in_parallel_report_in_reading_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("images")).unwrap();
        std::fs::write(
            root.join("images/cat.gif"),
            b"GIF89a\x01\x00\x01\x00\x00\x00\x00;",
        )
        .unwrap();
        let names: Vec<String> = (1..=12).map(|i| format!("ch{i:02}.md")).collect();
        std::fs::write(
            root.join("book.yml"),
            format!("title: T\nlanguage: en\nchapters: [{}]\n", names.join(", ")),
        )
        .unwrap();
        for (i, name) in names.iter().enumerate() {
            // Every chapter warns (a note nobody refers to); the even ones use the image.
            let image = if i % 2 == 1 {
                "![a cat](images/cat.gif)\n\n"
            } else {
                ""
            };
            std::fs::write(
                root.join(name),
                format!("# C{i}\n\n{image}Text.\n\n[^n{i}]: never referred to.\n"),
            )
            .unwrap();
        }
        let (book, _) = Book::open(root, &crate::book::ProjectConfig::default()).unwrap();
        let docs: Vec<(ChapterSource, Document)> = book
            .chapters
            .iter()
            .map(|src| {
                let text = std::fs::read_to_string(&src.path).unwrap();
                (
                    src.clone(),
                    crate::reader::markdown::read(&text, &src.rel).0,
                )
            })
            .collect();
        let mut images = ImageChecks::default();
        let resolved = resolve_remembering(&book, docs, &HashMap::new(), &mut images).unwrap();
        let warned: Vec<String> = resolved
            .warnings
            .iter()
            .map(|w| w.location.file.display().to_string())
            .collect();
        assert_eq!(warned, names);
        assert_eq!(resolved.resources.len(), 1);
        assert_eq!(resolved.resources[0].href, "image/images/cat.gif");
        assert_eq!(resolved.resources[0].first_use.file, Path::new("ch02.md"));
        assert_eq!(resolved.resources[0].first_use.line, 3);
        // The chapters' checks of the image are remembered for the next build, once.
        assert_eq!(images.remembered(), 1);
    }
}
