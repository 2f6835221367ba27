//! Resolve: all Documents of a book → numbered, cross-referenced chapters.
//!
//! This is the one book-wide pass. It gives every chapter its output file, numbers chapters,
//! sections, figures, tables and listings, makes ids unique across the book, turns links between
//! source files into links between XHTML files, maps images to resources in the EPUB, and reports
//! every reference it cannot resolve at the place it was written.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::book::{Book, ChapterSource, Format, FoundFile, RealDirs, Role, check_book_file_in};
use crate::codes;
use crate::doc::*;
use crate::dom;
use crate::error::{Finding, Location};

mod ids;
mod image_check;
mod labels;
mod remote;
mod svg;
mod visit;

pub(crate) use crate::files::normalize;
use ids::{file_stem, has_scheme, percent_decode, slug, unique};
pub use image_check::ImageChecks;
use labels::Labels;
pub use visit::{visit_all_inlines_mut, visit_blocks_mut};

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
}

impl Chapter {
    /// Path of the chapter's XHTML inside the package folder.
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

#[derive(Debug, Clone, serde::Serialize)]
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
    /// Path inside the package folder (`assets/images/cat.png`).
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
    pub warnings: Vec<Finding>,
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

/// What to do with a link that has a URL scheme.
enum ExternalLink {
    Valid,
    Fixed(String),
    Unusable,
}

/// A referable object (listing, figure, table, equation, column, bibliography entry).
#[derive(Debug, Clone)]
struct Target {
    chapter: usize,
    /// The element id in the output (unique in the book).
    id: String,
    number: Option<String>,
    caption: String,
}

/// A heading, for `@<hd>`-style references by label, caption or `parent|child` path.
#[derive(Debug, Clone)]
struct HeadingTarget {
    id: String,
    label: Option<String>,
    caption: String,
    number: Option<String>,
    /// Labels and captions of the enclosing headings below the chapter title.
    ancestors: Vec<(Option<String>, String)>,
}

/// What other chapters need to know about a chapter.
#[derive(Debug, Clone, Default)]
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
}

struct Resolver<'a> {
    book: &'a Book,
    /// The book folder with symlinks resolved, once (images are checked against it by the
    /// thousand).
    real_root: PathBuf,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    /// Every id in the output → its chapter.
    ids: HashMap<String, usize>,
    /// Per chapter: id as written → id in the output (they differ after a clash).
    local: Vec<HashMap<String, String>>,
    /// Per chapter: where each written id was first used.
    first_use: Vec<HashMap<String, Location>>,
    objects: HashMap<(usize, labels::ObjectKind, String), Target>,
    headings: Vec<Vec<HeadingTarget>>,
    bib: HashMap<String, Target>,
    infos: Vec<ChapterInfo>,
    by_review_id: HashMap<String, usize>,
    /// `ch02.xhtml`, `ch02.html` (by Re:VIEW id and by stem) → the first chapter so named.
    by_output: HashMap<String, usize>,
    /// Texts for cross-references to targets without a title (see [`resolve_with`]).
    xref_texts: HashMap<String, String>,
    by_source: HashMap<PathBuf, usize>,
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
const RESERVED_STEMS: &[&str] = &["cover", "titlepage", "colophon", "nav", "toc"];

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
    // Stems first: links between chapters need every chapter's file name.
    let mut stems: HashSet<String> = RESERVED_STEMS.iter().map(|s| s.to_string()).collect();
    let mut chapters: Vec<Chapter> = docs
        .into_iter()
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
            }
        })
        .collect();
    let n = chapters.len();
    let mut r = Resolver {
        book,
        real_root: book
            .root
            .canonicalize()
            .unwrap_or_else(|_| book.root.clone()),
        errors: Vec::new(),
        warnings: Vec::new(),
        ids: HashMap::new(),
        local: vec![HashMap::new(); n],
        first_use: vec![HashMap::new(); n],
        objects: HashMap::new(),
        headings: vec![Vec::new(); n],
        bib: HashMap::new(),
        infos: vec![ChapterInfo::default(); n],
        by_review_id: HashMap::new(),
        by_output: HashMap::new(),
        xref_texts: xref_texts.clone(),
        by_source: chapters
            .iter()
            .enumerate()
            .map(|(i, c)| (normalize(&c.source.rel), i))
            .collect(),
    };
    for (ci, ch) in chapters.iter().enumerate() {
        let review_id = ch
            .source
            .rel
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        r.by_review_id.entry(review_id.clone()).or_insert(ci);
        for name in [&review_id, &ch.stem] {
            for ext in ["xhtml", "html"] {
                r.by_output.entry(format!("{name}.{ext}")).or_insert(ci);
            }
        }
        r.infos[ci].review_id = review_id;
        r.infos[ci].stem = ch.stem.clone();
        r.infos[ci].format = ch.source.format;
    }

    // Pass 1: ids, numbers, titles — everything references need.
    let mut counters = ChapterCounters::default();
    for (ci, ch) in chapters.iter_mut().enumerate() {
        r.number_chapter(ci, ch, &mut counters);
    }
    // Pass 2: links, images, notes and references, now that every target is known; each
    // chapter on its own, in parallel, merged in order.
    let listings = Listings::default();
    let linked: Vec<Linked> = {
        use rayon::prelude::*;
        let (r, known) = (&r, &*images);
        chapters
            .par_iter_mut()
            .enumerate()
            .map(|(ci, ch)| {
                let mut linker = Linker {
                    r,
                    listings: &listings,
                    known,
                    errors: Vec::new(),
                    warnings: Vec::new(),
                    real_dirs: RealDirs::default(),
                    resources: BTreeMap::new(),
                    checked: Vec::new(),
                };
                linker.link_chapter(ci, ch);
                Linked {
                    errors: linker.errors,
                    warnings: linker.warnings,
                    resources: linker.resources,
                    checked: linker.checked,
                }
            })
            .collect()
    };
    let mut resources: BTreeMap<PathBuf, Resource> = BTreeMap::new();
    for chapter in linked {
        r.errors.extend(chapter.errors);
        r.warnings.extend(chapter.warnings);
        // The first chapter to use an image is where it is first used.
        for (rel, res) in chapter.resources {
            resources.entry(rel).or_insert(res);
        }
        for (path, stamp, ok) in chapter.checked {
            images.remember(path, stamp, ok);
        }
    }

    if !r.errors.is_empty() {
        // Warnings too: a failed build still shows everything found.
        r.errors.append(&mut r.warnings);
        return Err(r.errors);
    }
    let mut resources: Vec<Resource> = resources.into_values().collect();
    resources.sort_by(|a, b| a.href.cmp(&b.href));
    Ok(Resolved {
        chapters,
        resources,
        warnings: r.warnings,
    })
}

#[derive(Default)]
struct ChapterCounters {
    body: u32,
    appendix: u32,
    part: u32,
    bib: u32,
}

impl Resolver<'_> {
    /// An id written by the author. Ids must be unique in a chapter (a clash there is reported,
    /// as Re:VIEW would write duplicate ids); across chapters a clash is renamed silently, so
    /// every id in the book stays unique and links still find their target.
    fn claim(&mut self, id: String, ci: usize, loc: &Location) -> String {
        // What the output may carry: links written with the same id find it all the same.
        let safe = fragment_safe(&id);
        if let Some(first) = self.first_use[ci].get(&id) {
            // The DocBook reader reports duplicates book-wide, with both files; don't repeat it.
            if self.infos[ci].format == Format::DocBook {
                return self.generate(&safe, ci);
            }
            self.warnings.push(
                Finding::warning(codes::DUPLICATE_ID, loc.clone(), format!("the id `{id}` is used twice in this chapter"))
                    .with_hint(format!("it is first used at {first}; references find the first one. Give each its own id")),
            );
            return self.generate(&safe, ci);
        }
        self.first_use[ci].insert(id.clone(), loc.clone());
        let output = if self.ids.contains_key(&safe) {
            self.generate(&safe, ci)
        } else {
            safe
        };
        self.ids.insert(output.clone(), ci);
        self.local[ci].insert(id, output.clone());
        output
    }

    /// A generated id: made unique by a numeric suffix.
    fn generate(&mut self, base: &str, ci: usize) -> String {
        let mut id = base.to_string();
        let mut n = 1;
        while self.ids.contains_key(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        self.ids.insert(id.clone(), ci);
        id
    }

    fn labels(&self, ch: &Chapter) -> Labels {
        Labels {
            ja: ch
                .lang
                .as_deref()
                .unwrap_or(&self.book.meta.language)
                .starts_with("ja"),
        }
    }

    fn number_chapter(&mut self, ci: usize, ch: &mut Chapter, counters: &mut ChapterCounters) {
        let labels = self.labels(ch);
        let numbered = ch.doc.blocks.iter().find_map(|b| match &b.kind {
            BlockKind::Heading(h) if h.level == 1 => Some(h.numbered),
            _ => None,
        }) == Some(true);
        // (label shown in the heading, prefix for section and object numbers)
        let chapter_number: Option<(String, Option<String>)> = match (ch.source.role, numbered) {
            (Role::Body, true) => {
                counters.body += 1;
                Some((
                    labels.chapter(counters.body),
                    Some(counters.body.to_string()),
                ))
            }
            (Role::Appendix, true) => {
                counters.appendix += 1;
                let letter = char::from(b'A' + ((counters.appendix - 1) % 26) as u8);
                Some((labels.appendix(letter), Some(letter.to_string())))
            }
            (Role::Part, true) => {
                counters.part += 1;
                Some((labels.part(counters.part), None))
            }
            _ => None,
        };
        // secnolevel 0 shows no numbers and drops the chapter prefix from object numbers.
        let show = self.book.secnolevel >= 1;
        let prefix = chapter_number
            .as_ref()
            .and_then(|(_, p)| p.clone())
            .filter(|_| show);
        ch.number = chapter_number.as_ref().map(|(l, _)| l.clone());

        let stem = ch.stem.clone();
        let shown = ch.source.rel.clone();
        let secnolevel = self.book.secnolevel as usize;
        let toc_depth = self.book.toc_depth;
        let mut sections = [0u32; 7];
        let mut objects: HashMap<labels::ObjectKind, u32> = HashMap::new();
        let mut ancestors: Vec<(u8, Option<String>, String)> = Vec::new();
        let mut toc = Vec::new();
        let mut title = None;
        let mut title_id = None;
        let mut columns = 0u32;
        let mut blocks = std::mem::take(&mut ch.doc.blocks);
        visit_blocks_mut(&mut blocks, &mut |b| {
            // Made only when needed: most blocks have no id.
            let pos = b.pos;
            let loc = || Location::new(&shown, pos.line, pos.col);
            let mut count = |kind: labels::ObjectKind| {
                let n = objects.entry(kind).or_insert(0);
                *n += 1;
                labels.object(kind, prefix.as_deref(), *n)
            };
            match &mut b.kind {
                BlockKind::Heading(h) => {
                    let text = plain_text(&h.content);
                    let is_title = h.level == 1 && title.is_none();
                    if is_title {
                        title = Some(text.clone());
                    }
                    let label = h.id.clone();
                    let id = match h.id.take() {
                        Some(id) => self.claim(id, ci, &loc()),
                        None => self.generate(&slug(&text, &stem), ci),
                    };
                    h.id = Some(id.clone());
                    if is_title {
                        title_id = Some(id.clone());
                    }
                    let level = h.level as usize;
                    if level == 1 {
                        h.number = chapter_number
                            .as_ref()
                            .filter(|_| show)
                            .map(|(l, _)| l.clone());
                    } else if h.numbered && level < sections.len() {
                        sections[level] += 1;
                        sections[level + 1..].iter_mut().for_each(|c| *c = 0);
                        if level <= secnolevel
                            && let Some(p) = chapter_number.as_ref().and_then(|(_, p)| p.as_ref())
                        {
                            let parts: Vec<String> =
                                sections[2..=level].iter().map(u32::to_string).collect();
                            h.number = Some(format!("{p}.{}", parts.join(".")));
                        }
                    }
                    ancestors.retain(|(l, _, _)| *l < h.level);
                    if h.level > 1 {
                        self.headings[ci].push(HeadingTarget {
                            id: id.clone(),
                            label: label.clone(),
                            caption: text.clone(),
                            number: h.number.clone(),
                            ancestors: ancestors
                                .iter()
                                .map(|(_, l, c)| (l.clone(), c.clone()))
                                .collect(),
                        });
                        ancestors.push((h.level, label, text.clone()));
                    }
                    if h.in_toc && h.level <= toc_depth {
                        let label = match &h.number {
                            Some(n) => format!("{n}\u{3000}{text}").trim().to_string(),
                            None => text.clone(),
                        };
                        toc.push(TocEntry {
                            level: h.level,
                            id,
                            label: if label.is_empty() {
                                "—".into()
                            } else {
                                label
                            },
                        });
                    }
                }
                BlockKind::Figure(f) => {
                    let written = f.id.clone();
                    f.id = f.id.take().map(|id| self.claim(id, ci, &loc()));
                    let kind = if f.as_table {
                        labels::ObjectKind::Table
                    } else {
                        labels::ObjectKind::Image
                    };
                    if f.numbered {
                        f.number = Some(count(kind));
                    }
                    let caption = f.caption.as_deref().map(plain_text).unwrap_or_default();
                    self.index(ci, kind, written, &f.id, &f.number, caption);
                }
                BlockKind::Table(t) => {
                    let written = t.id.clone();
                    t.id = t.id.take().map(|id| self.claim(id, ci, &loc()));
                    if t.id.is_some() {
                        t.number = Some(count(labels::ObjectKind::Table));
                    }
                    let caption = t.caption.as_deref().map(plain_text).unwrap_or_default();
                    self.index(
                        ci,
                        labels::ObjectKind::Table,
                        written,
                        &t.id,
                        &t.number,
                        caption,
                    );
                }
                BlockKind::Code(c) => {
                    let written = c.id.clone();
                    c.id = c.id.take().map(|id| self.claim(id, ci, &loc()));
                    if c.style == CodeStyle::List {
                        c.number = Some(count(labels::ObjectKind::Listing));
                    }
                    let caption = c.caption.as_deref().map(plain_text).unwrap_or_default();
                    self.index(
                        ci,
                        labels::ObjectKind::Listing,
                        written,
                        &c.id,
                        &c.number,
                        caption,
                    );
                }
                BlockKind::Math(m) => {
                    let written = m.id.clone();
                    m.id = m.id.take().map(|id| self.claim(id, ci, &loc()));
                    if m.id.is_some() {
                        m.number = Some(count(labels::ObjectKind::Equation));
                    }
                    let caption = m.caption.as_deref().map(plain_text).unwrap_or_default();
                    self.index(
                        ci,
                        labels::ObjectKind::Equation,
                        written,
                        &m.id,
                        &m.number,
                        caption,
                    );
                }
                BlockKind::Sidebar { id, title, .. } => {
                    columns += 1;
                    let written = id.clone();
                    *id = Some(match id.take() {
                        Some(i) => self.claim(i, ci, &loc()),
                        None => self.generate(&format!("{stem}-column-{columns}"), ci),
                    });
                    let caption = title.as_deref().map(plain_text).unwrap_or_default();
                    self.index(ci, labels::ObjectKind::Column, written, id, &None, caption);
                }
                BlockKind::BibItem(item) => {
                    counters.bib += 1;
                    item.number = Some(counters.bib.to_string());
                    let output = self.generate(&format!("bib-{}", item.id), ci);
                    let target = Target {
                        chapter: ci,
                        id: output,
                        number: item.number.clone(),
                        caption: plain_text(&item.caption),
                    };
                    if self.bib.insert(item.id.clone(), target).is_some() {
                        self.warnings.push(Finding::warning(
                            codes::DUPLICATE_ID,
                            loc(),
                            format!("the bibliography id `{}` is used twice", item.id),
                        ));
                    }
                }
                BlockKind::Anchor(id) => *id = self.claim(std::mem::take(id), ci, &loc()),
                BlockKind::Raw(nodes) => {
                    for node in nodes {
                        if let dom::Node::Element(e) = node {
                            let mut found = Vec::new();
                            e.walk(&mut |el| found.extend(el.attr("id").map(str::to_string)));
                            for id in found {
                                self.claim(id, ci, &loc());
                            }
                        }
                    }
                }
                _ => {}
            }
        });
        ch.doc.blocks = blocks;
        // Ids written inline (DocBook anchors in terms and table cells, raw XHTML) are link
        // targets too.
        let mut inline_ids = Vec::new();
        visit_all_inlines_mut(&mut ch.doc, &mut |inline| {
            if let InlineKind::Raw(nodes) = &inline.kind {
                for node in nodes {
                    if let dom::Node::Element(e) = node {
                        e.walk(&mut |el| {
                            inline_ids.extend(el.attr("id").map(|id| (id.to_string(), inline.pos)))
                        });
                    }
                }
            }
        });
        for (id, pos) in inline_ids {
            self.claim(id, ci, &Location::new(&shown, pos.line, pos.col));
        }
        ch.title = title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| ch.stem.clone());
        ch.toc = toc;
        let info = &mut self.infos[ci];
        info.number = ch.number.clone();
        info.title = ch.title.clone();
        info.title_id = title_id;
        info.ja = labels.ja;
    }

    fn index(
        &mut self,
        ci: usize,
        kind: labels::ObjectKind,
        written: Option<String>,
        id: &Option<String>,
        number: &Option<String>,
        caption: String,
    ) {
        if let (Some(written), Some(id)) = (written, id) {
            let target = Target {
                chapter: ci,
                id: id.clone(),
                number: number.clone(),
                caption,
            };
            self.objects.entry((ci, kind, written)).or_insert(target);
        }
    }
}

impl Linker<'_, '_> {
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
                InlineKind::Link { href, content } => {
                    match self.external_link(href, &loc()) {
                        Some(ExternalLink::Valid) => {}
                        Some(ExternalLink::Fixed(new)) => *href = new,
                        // Not a usable address: the text stays, without the link.
                        Some(ExternalLink::Unusable) => {
                            inline.kind = InlineKind::Span {
                                class: "unlinked".into(),
                                content: std::mem::take(content),
                            };
                        }
                        None => match self.link(href, ci, &dir, &loc()) {
                            Some(new) => *href = new,
                            // A link to nowhere (reported): its text stays, without the link.
                            None => {
                                inline.kind = InlineKind::Span {
                                    class: "unlinked".into(),
                                    content: std::mem::take(content),
                                };
                            }
                        },
                    }
                }
                InlineKind::Image(img) => match self.image(img, ci, &dir, &loc()) {
                    Some(new) => img.src = new,
                    // A missing icon was reported; its alt text stands in for it.
                    None => inline.kind = InlineKind::Text(img.alt.clone()),
                },
                InlineKind::Raw(nodes) => remote::keep_inside(nodes, &loc(), &mut self.warnings),
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
                BlockKind::Raw(nodes) => remote::keep_inside(nodes, &loc(), &mut self.warnings),
                _ => {}
            }
        });
        ch.footnotes = self.number_notes(&doc.footnotes, note_refs, format, &shown, false);
        ch.endnotes = self.number_notes(&doc.endnotes, endnote_refs, format, &shown, true);
        ch.doc = doc;
    }

    /// Notes are numbered in order of first reference; references to undefined notes are
    /// errors; notes never referred to are printed after the others, with a warning.
    fn number_notes(
        &mut self,
        defined: &[Footnote],
        refs: Vec<(String, Location)>,
        format: Format,
        shown: &Path,
        end: bool,
    ) -> Vec<(String, u32)> {
        let syntax = |label: &str| note_syntax(format, label, end);
        let kind = if end { "endnote" } else { "footnote" };
        let mut numbers: Vec<(String, u32)> = Vec::new();
        for (label, loc) in refs {
            if !defined.iter().any(|f| f.label == label) {
                let hint = match format {
                    Format::Review => format!("add `//{kind}[{label}][…]` with the note's text"),
                    _ => format!("add a line `[^{label}]: …` with the note's text"),
                };
                self.warnings.push(
                    Finding::warning(
                        codes::UNDEFINED_NOTE,
                        loc,
                        format!(
                            "the {kind} `{}` is never defined; it is shown as written",
                            syntax(&label)
                        ),
                    )
                    .with_hint(hint),
                );
            } else if !numbers.iter().any(|(l, _)| *l == label) {
                let n = numbers.len() as u32 + 1;
                numbers.push((label, n));
            }
        }
        // A note nobody refers to is still printed, after the others: text is never dropped.
        for f in defined {
            if !numbers.iter().any(|(l, _)| *l == f.label) {
                self.warnings.push(Finding::warning(
                    codes::UNUSED_NOTE,
                    Location::new(shown, f.pos.line, f.pos.col),
                    format!(
                        "the {kind} `{}` is never referred to; it is printed after the others",
                        f.label
                    ),
                ));
                let n = numbers.len() as u32 + 1;
                numbers.push((f.label.clone(), n));
            }
        }
        numbers
    }

    /// Checks a link with a URL scheme: `None` when it has none (a link inside the book).
    /// epubcheck rejects URLs with unregistered schemes or with spaces in the host, which real
    /// books have (`localhost:631/help`, `http://example .net/`): those are fixed or unlinked,
    /// with a warning at the link.
    fn external_link(&mut self, href: &str, loc: &Location) -> Option<ExternalLink> {
        if !has_scheme(href) {
            return None;
        }
        const SCHEMES: &[&str] = &[
            "http", "https", "mailto", "ftp", "ftps", "sftp", "tel", "sms", "urn", "news", "nntp",
            "irc", "ircs", "git", "ssh", "doi", "geo", "xmpp",
        ];
        let scheme = href.split(':').next().unwrap_or("").to_ascii_lowercase();
        // epubcheck refuses `file:` addresses (RSC-030): they point into one computer's files.
        if scheme == "file" {
            self.warnings.push(
                Finding::warning(codes::REMOTE_RESOURCE, loc.clone(), format!("the link `{href}` points into a computer's files, which no reader has; its text is kept without the link"))
                    .with_hint("link to a web address, or to a chapter or section of the book"),
            );
            return Some(ExternalLink::Unusable);
        }
        if !SCHEMES.contains(&scheme.as_str()) {
            self.warnings.push(
                Finding::warning(codes::BROKEN_LINK, loc.clone(), format!("`{href}` is not a web address (`{scheme}:` is not a URL scheme); its text is kept without the link"))
                    .with_hint("write the full address, e.g. http://localhost:631/"),
            );
            return Some(ExternalLink::Unusable);
        }
        let Some(rest) = href.strip_prefix(&format!("{}://", &href[..scheme.len()])) else {
            return Some(ExternalLink::Valid);
        };
        let (authority, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
        if authority.contains(' ') || authority.contains("%20") {
            let host: String = authority.replace("%20", "").split_whitespace().collect();
            let fixed = format!("{}://{host}{path}", &href[..scheme.len()]);
            self.warnings.push(Finding::warning(
                codes::REPAIRED_LINK,
                loc.clone(),
                format!(
                    "the address `{href}` has a space in its host name; the link goes to `{fixed}`"
                ),
            ));
            return Some(ExternalLink::Fixed(fixed));
        }
        if path.contains(' ') {
            return Some(ExternalLink::Fixed(href.replace(' ', "%20")));
        }
        Some(ExternalLink::Valid)
    }

    /// Rewrites a link between source files into one between XHTML files.
    fn link(&mut self, href: &str, ci: usize, dir: &Path, loc: &Location) -> Option<String> {
        if has_scheme(href) {
            return None;
        }
        let (path, fragment) = match href.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (href, None),
        };
        let target = if path.is_empty() {
            ci
        } else {
            let rel = normalize(&dir.join(percent_decode(path)));
            // Re:VIEW authors link to the output name (`ch02.xhtml#x`); accept that too.
            // Re:VIEW authors link to the output name (`ch02.xhtml#x`), and references this
            // pass generated name the output file; accept both.
            let by_output = || self.by_output.get(path).copied();
            match self.by_source.get(&rel).copied().or_else(by_output) {
                Some(i) => i,
                None => {
                    self.warnings.push(
                        Finding::warning(codes::BROKEN_LINK, loc.clone(), format!("this link points to `{path}`, which is not a chapter of this book; its text is shown without the link"))
                            .with_hint("link to a chapter's source file (e.g. `ch02.md#section`), or write a full URL starting with https://"),
                    );
                    return None;
                }
            }
        };
        let fragment = match fragment {
            Some(frag) => {
                let written = percent_decode(frag);
                match self.local[target].get(&written).or_else(|| {
                    self.ids
                        .get_key_value(&written)
                        .filter(|(_, c)| **c == target)
                        .map(|(k, _)| k)
                }) {
                    Some(output) => Some(output.clone()),
                    None => {
                        // The nearest id of the chapter linked to, for a typo (`#setpu`).
                        let nearest = self.local[target]
                            .keys()
                            .chain(
                                self.ids
                                    .iter()
                                    .filter(|(_, c)| **c == target)
                                    .map(|(k, _)| k),
                            )
                            .map(|id| (strsim::jaro_winkler(&written, id), id))
                            .filter(|(score, _)| *score > 0.85)
                            .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)));
                        let hint = match nearest {
                            Some((_, id)) => format!("did you mean `#{id}`?"),
                            None => "give the heading an id (`## Title {#id}`, `=={id} Title`) and link to it".into(),
                        };
                        self.warnings.push(
                            Finding::warning(codes::BROKEN_FRAGMENT, loc.clone(), format!("this link points to `#{written}`, but no heading or element has that id there; its text is shown without the link"))
                                .with_hint(hint),
                        );
                        return None;
                    }
                }
            }
            None => None,
        };
        // A bare `#id` stays within the page; anything else names the target's file.
        let file = if path.is_empty() {
            String::new()
        } else {
            format!("{}.xhtml", self.infos[target].stem)
        };
        Some(match fragment {
            Some(f) => format!("{file}#{f}"),
            None => file,
        })
    }

    /// Maps an image to its place in the EPUB, relative to the chapter's XHTML. `None` when it
    /// cannot be used (reported here).
    fn image(&mut self, img: &Image, ci: usize, dir: &Path, loc: &Location) -> Option<String> {
        // A Re:VIEW image id is found by checking candidates: the one found is checked already.
        let (rel, found) = if img.by_id {
            match self.find_review_image(&img.src, ci) {
                Ok((rel, file)) => (rel, Some(file)),
                Err(tried) => {
                    self.warnings.push(
                        Finding::warning(
                            codes::MISSING_IMAGE,
                            loc.clone(),
                            format!("no image file for `{}`", img.src),
                        )
                        .with_hint(format!(
                            "looked for {}; the text is shown in its place",
                            tried.join(", ")
                        )),
                    );
                    return None;
                }
            }
        } else {
            if has_scheme(&img.src) {
                self.warnings.push(
                    Finding::warning(
                        codes::REMOTE_RESOURCE,
                        loc.clone(),
                        format!(
                            "the image `{}` is on the web; an EPUB must contain its images, so its text alternative is shown in its place",
                            img.src
                        ),
                    )
                    .with_hint(
                        "download the image into the book folder and refer to it by its path",
                    ),
                );
                return None;
            }
            (normalize(&dir.join(percent_decode(&img.src))), None)
        };
        if let Some(res) = self.resources.get(&rel) {
            return Some(format!("../{}", res.href));
        }
        let src = &img.src;
        let checked = match found {
            Some(file) => Ok(file),
            None => check_book_file_in(
                &self.r.book.root,
                &self.r.real_root,
                &self.r.book.shared_dirs,
                &rel,
                &mut self.real_dirs,
            ),
        };
        let FoundFile { path, meta } = match checked {
            Ok(file) => file,
            // Real books name images they do not ship, or keep them beside the book folder: the
            // alt text stands in, marked (an image outside is never read, let alone packed).
            Err(why) => {
                self.warnings.push(
                    Finding::warning(
                        codes::MISSING_IMAGE,
                        loc.clone(),
                        format!("the image `{src}` {why}"),
                    )
                    .with_hint(
                        "its text alternative is shown in its place; `seihon release` refuses this",
                    ),
                );
                return None;
            }
        };
        let Some(media_type) = media_type(&rel).filter(|t| t.starts_with("image/")) else {
            self.warnings.push(
                Finding::warning(
                    codes::MISSING_IMAGE,
                    loc.clone(),
                    format!("`{src}` is not an image type an EPUB can show; its text alternative is shown in its place"),
                )
                .with_hint("use PNG, JPEG, GIF, SVG or WebP"),
            );
            return None;
        };
        if media_type != "image/svg+xml" && !self.readable(&path, &meta, media_type) {
            self.warnings.push(
                Finding::warning(codes::MISSING_IMAGE, loc.clone(), format!("the image `{src}` cannot be read: the file is damaged or is not really a {} file; its text alternative is shown in its place", media_type.trim_start_matches("image/").to_uppercase()))
                    .with_hint("export the image again from its original"),
            );
            return None;
        }
        let href = match self.shared_href(&rel, &path) {
            Some(href) => href,
            None => format!("assets/{}", rel.to_string_lossy().replace('\\', "/")),
        };
        // An SVG loses what an EPUB may not carry, said once at its first use.
        let bytes = if media_type == "image/svg+xml" {
            let cleaned = std::fs::read(&path).ok().and_then(|b| svg::clean(&b));
            cleaned.map(|c| {
                self.warnings.push(
                    Finding::warning(
                        codes::CLEANED_IMAGE,
                        loc.clone(),
                        format!("the image `{src}` has {}, which an EPUB may not carry; it is packed without", join_words(&c.removed)),
                    )
                    .with_hint("save the SVG again without scripts (e.g. as plain SVG) to keep the file as it is"),
                );
                c.bytes
            })
        } else {
            None
        };
        self.resources.insert(
            rel.clone(),
            Resource {
                source: path,
                href: href.clone(),
                media_type,
                first_use: loc.clone(),
                bytes,
            },
        );
        Some(format!("../{href}"))
    }

    /// Where an image from a shared folder (reached through `..`) goes in the EPUB:
    /// `assets/shared-N/<path inside the N-th shared folder>`.
    fn shared_href(&self, rel: &Path, path: &Path) -> Option<String> {
        if rel.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        }) {
            return None;
        }
        let real = path.canonicalize().ok()?;
        self.book
            .shared_dirs
            .iter()
            .enumerate()
            .find_map(|(i, dir)| {
                let inside = real.strip_prefix(dir).ok()?;
                Some(format!(
                    "assets/shared-{}/{}",
                    i + 1,
                    inside.to_string_lossy().replace('\\', "/")
                ))
            })
    }

    /// The names in the folder `dir` (under the book), each folder read once. Keyed by the
    /// path's bytes: hashing them is cheaper than hashing a path's components, and a book with
    /// thousands of images asks thousands of times.
    fn listing(&self, dir: &Path) -> Arc<HashSet<std::ffi::OsString>> {
        let mut listings = self.listings.lock().unwrap_or_else(|e| e.into_inner());
        listings
            .entry(dir.as_os_str().to_os_string())
            .or_insert_with(|| {
                Arc::new(
                    std::fs::read_dir(self.book.root.join(dir))
                        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
                        .unwrap_or_default(),
                )
            })
            .clone()
    }

    /// Whether an image reads: from the last build's checks when the file is the one checked
    /// then, else checked now; remembered either way.
    fn readable(&mut self, path: &Path, meta: &std::fs::Metadata, media_type: &str) -> bool {
        let Some((stamp, ok)) = self.known.check(path, meta, media_type) else {
            return false;
        };
        self.checked.push((path.to_path_buf(), stamp, ok));
        ok
    }

    /// Re:VIEW's image lookup: the first file that exists among
    /// `images/html/CH/id.ext`, `images/html/CH-id.ext`, `images/html/id.ext`, `images/CH/id.ext`,
    /// `images/CH-id.ext`, `images/id.ext`, for ext in png, jpg, jpeg, gif, svg.
    fn find_review_image(
        &mut self,
        id: &str,
        ci: usize,
    ) -> Result<(PathBuf, FoundFile), Vec<String>> {
        let imagedir = self
            .book
            .review
            .as_ref()
            .map_or_else(|| PathBuf::from("images"), |r| r.imagedir.clone());
        let chap = &self.infos[ci].review_id;
        let bases = [
            imagedir.join("html").join(chap).join(id),
            imagedir.join("html").join(format!("{chap}-{id}")),
            imagedir.join("html").join(id),
            imagedir.join(chap).join(id),
            imagedir.join(format!("{chap}-{id}")),
            imagedir.join(id),
        ];
        let mut name = std::ffi::OsString::new();
        for base in &bases {
            let (Some(dir), Some(stem)) = (base.parent(), base.file_name()) else {
                continue;
            };
            // Most candidates do not exist: their folders are listed once, not asked per name.
            let listing = self.listing(dir);
            let found: Vec<PathBuf> = ["png", "jpg", "jpeg", "gif", "svg"]
                .iter()
                .filter_map(|ext| {
                    name.clear();
                    name.push(stem);
                    name.push(".");
                    name.push(ext);
                    listing.contains(&name).then(|| dir.join(&name))
                })
                .collect();
            for rel in found {
                if let Ok(file) = check_book_file_in(
                    &self.r.book.root,
                    &self.r.real_root,
                    &self.r.book.shared_dirs,
                    &rel,
                    &mut self.real_dirs,
                ) {
                    return Ok((rel, file));
                }
            }
        }
        Err(bases
            .iter()
            .map(|base| format!("{}.*", base.display()))
            .collect())
    }

    /// Turns a cross-reference into a link with generated text (Re:VIEW's wording).
    fn reference(
        &mut self,
        ci: usize,
        labels: &Labels,
        kind: RefKind,
        target: &str,
        content: Option<Inlines>,
        loc: &Location,
    ) -> InlineKind {
        use labels::ObjectKind as O;
        let pos = Pos::new(loc.line, loc.col);
        let (chapter, rest) = match target.split_once('|') {
            Some((c, rest)) if self.by_review_id.contains_key(c.trim()) => {
                (self.by_review_id[c.trim()], rest.trim())
            }
            _ => (ci, target.trim()),
        };
        let href = |this: &Self, chapter: usize, id: &str| {
            if chapter == ci {
                format!("#{id}")
            } else {
                format!("{}.xhtml#{id}", this.infos[chapter].stem)
            }
        };
        let resolved: Result<(String, String, &'static str), String> = match kind {
            RefKind::Chapter | RefKind::ChapterTitle | RefKind::ChapterRef => {
                match self.by_review_id.get(target.trim()) {
                    Some(&c) => {
                        let info = &self.infos[c];
                        let text = match (kind, &info.number) {
                            (RefKind::Chapter, Some(n)) => n.clone(),
                            (RefKind::ChapterRef, Some(n)) => {
                                format!("{n}{}", labels.quoted(&info.title))
                            }
                            _ => info.title.clone(),
                        };
                        Ok((format!("{}.xhtml", info.stem), text, ""))
                    }
                    None => Err(format!(
                        "there is no chapter `{}` in the catalog",
                        target.trim()
                    )),
                }
            }
            RefKind::Listing
            | RefKind::Image
            | RefKind::ImageRef
            | RefKind::Table
            | RefKind::Equation
            | RefKind::Column => {
                let (object, class, what) = match kind {
                    RefKind::Listing => (O::Listing, "listref", "listing"),
                    RefKind::Image | RefKind::ImageRef => (O::Image, "imgref", "figure"),
                    RefKind::Table => (O::Table, "tableref", "table"),
                    RefKind::Equation => (O::Equation, "eqref", "equation"),
                    _ => (O::Column, "columnref", "column"),
                };
                let found = self
                    .objects
                    .get(&(chapter, object, rest.to_string()))
                    .cloned()
                    .or_else(|| {
                        // An image id can also be a table given as an image (`//imgtable`).
                        (object == O::Table)
                            .then(|| {
                                self.objects
                                    .get(&(chapter, O::Image, rest.to_string()))
                                    .cloned()
                            })
                            .flatten()
                    });
                match found {
                    Some(t) => {
                        let number = t.number.clone().unwrap_or_default();
                        let text = match kind {
                            RefKind::ImageRef => format!("{number}{}", labels.quoted(&t.caption)),
                            RefKind::Column => labels.column(&t.caption),
                            _ if number.is_empty() => labels.quoted(&t.caption),
                            _ => number,
                        };
                        Ok((href(self, t.chapter, &t.id), text, class))
                    }
                    None => Err(format!(
                        "there is no {what} `{rest}` in {}",
                        self.chapter_name(chapter, ci)
                    )),
                }
            }
            RefKind::Heading | RefKind::SectionNumber | RefKind::SectionTitle => match self
                .find_heading(chapter, rest)
            {
                Ok(h) => {
                    let text = match (kind, &h.number) {
                        (RefKind::SectionNumber, Some(n)) => n.clone(),
                        (RefKind::SectionNumber, None) => {
                            self.warnings.push(Finding::warning(
                                codes::UNKNOWN_REFERENCE,
                                loc.clone(),
                                format!("the section `{rest}` has no number; its title is shown"),
                            ));
                            h.caption.clone()
                        }
                        (RefKind::SectionTitle, _) => h.caption.clone(),
                        (_, Some(n)) => labels.quoted(&format!("{n} {}", h.caption)),
                        (_, None) => labels.quoted(&h.caption),
                    };
                    Ok((href(self, chapter, &h.id), text, "hd"))
                }
                Err(e) => Err(e),
            },
            RefKind::Bib => match self.bib.get(rest).cloned() {
                Some(t) => Ok((
                    href(self, t.chapter, &t.id),
                    format!("[{}]", t.number.unwrap_or_default()),
                    "bibref",
                )),
                None => Err(format!(
                    "there is no bibliography entry `{rest}` (`//bibpaper[{rest}]…`)"
                )),
            },
            RefKind::Any => match self.any_target(chapter, rest, labels) {
                Some((target_chapter, id, text)) => {
                    let docbook = self.infos[ci].format == Format::DocBook;
                    let text = text.unwrap_or_else(|| {
                        // The DocBook reader has already reported a target without text.
                        if docbook {
                            return rest.to_string();
                        }
                        self.warnings.push(
                            Finding::warning(codes::UNKNOWN_REFERENCE, loc.clone(), format!("the target `{rest}` has no title or label, so the link shows its id"))
                                .with_hint("give the target an xreflabel or a title, or write the link text yourself"),
                        );
                        rest.to_string()
                    });
                    Ok((href(self, target_chapter, &id), text, ""))
                }
                None => Err(format!("no element in the book has the id `{rest}`")),
            },
        };
        match resolved {
            Ok((href, text, class)) => {
                let link = Inline::new(
                    InlineKind::Link {
                        href,
                        content: content.unwrap_or_else(|| vec![Inline::text(text, pos)]),
                    },
                    pos,
                );
                if class.is_empty() {
                    link.kind
                } else {
                    InlineKind::Span {
                        class: class.into(),
                        content: vec![link],
                    }
                }
            }
            // The DocBook reader already reported the missing target; the text stays.
            Err(_) if self.format_of(ci) == Format::DocBook => InlineKind::Text(target.to_string()),
            Err(message) => {
                self.warnings.push(Finding::warning(codes::UNKNOWN_REFERENCE, loc.clone(), format!("cannot resolve the reference `{target}`: {message}; its id is shown in its place")).with_hint(
                    "check the id (it is case-sensitive); for another chapter write `chapter|id`, e.g. `@<list>{ch02|sample}`",
                ));
                InlineKind::Text(target.to_string())
            }
        }
    }
}

/// An id as a URL fragment may carry it: the replacement character (what a control character
/// in the source became, already reported), controls and spaces are `_` (epubcheck RSC-020).
fn fragment_safe(id: &str) -> String {
    if !id.chars().any(unsafe_in_fragment) {
        return id.to_string();
    }
    id.chars()
        .map(|c| if unsafe_in_fragment(c) { '_' } else { c })
        .collect()
}

fn unsafe_in_fragment(c: char) -> bool {
    c == '\u{FFFD}' || c.is_control() || c.is_whitespace()
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A note reference as its author wrote it (`[^1]`, `@<fn>{x}`): what is shown for one whose
/// note is never defined.
fn note_syntax(format: Format, label: &str, end: bool) -> String {
    match (format, end) {
        (Format::Review, false) => format!("@<fn>{{{label}}}"),
        (Format::Review, true) => format!("@<endnote>{{{label}}}"),
        _ => format!("[^{label}]"),
    }
}

impl Resolver<'_> {
    /// An element by id anywhere in the book (the given chapter first), with the text a link to
    /// it shows: number and title for chapters and sections, the number of a numbered object,
    /// else the reader's text for it (an `xreflabel`), else `None`.
    fn any_target(
        &self,
        chapter: usize,
        written: &str,
        labels: &Labels,
    ) -> Option<(usize, String, Option<String>)> {
        let order = std::iter::once(chapter).chain((0..self.infos.len()).filter(|&c| c != chapter));
        let (c, id) = order
            .into_iter()
            .find_map(|c| self.local[c].get(written).map(|id| (c, id.clone())))?;
        let given = self
            .xref_texts
            .get(written)
            .filter(|t| !t.trim().is_empty())
            .cloned();
        let info = &self.infos[c];
        let text = if info.title_id.as_deref() == Some(id.as_str()) {
            Some(match &info.number {
                Some(n) => format!("{n}{}", labels.quoted(&info.title)),
                None => given.unwrap_or_else(|| info.title.clone()),
            })
        } else if let Some(h) = self.headings[c].iter().find(|h| h.id == id) {
            Some(match &h.number {
                Some(n) => labels.quoted(&format!("{n} {}", h.caption)),
                None => labels.quoted(given.as_deref().unwrap_or(&h.caption)),
            })
        } else if let Some(t) = self
            .objects
            .iter()
            .find(|((oc, _, _), t)| *oc == c && t.id == id)
            .map(|(_, t)| t)
        {
            t.number
                .clone()
                .or(given)
                .or_else(|| (!t.caption.is_empty()).then(|| labels.quoted(&t.caption)))
        } else {
            given
        };
        Some((c, id, text.filter(|t| !t.trim().is_empty())))
    }

    fn format_of(&self, ci: usize) -> Format {
        self.infos[ci].format
    }

    fn chapter_name(&self, chapter: usize, current: usize) -> String {
        if chapter == current {
            "this chapter".into()
        } else {
            format!("chapter `{}`", self.infos[chapter].review_id)
        }
    }

    /// A heading by label or caption, optionally as a `parent|child` path.
    fn find_heading(&self, chapter: usize, path: &str) -> Result<HeadingTarget, String> {
        let parts: Vec<&str> = path.split('|').map(str::trim).collect();
        let Some((last, parents)) = parts.split_last() else {
            return Err("the reference is empty".into());
        };
        let matches = |name: &str, label: &Option<String>, caption: &str| {
            label.as_deref() == Some(name) || caption == name
        };
        let found: Vec<&HeadingTarget> = self.headings[chapter]
            .iter()
            .filter(|h| matches(last, &h.label, &h.caption))
            .filter(|h| {
                parents
                    .iter()
                    .all(|p| h.ancestors.iter().any(|(l, c)| matches(p, l, c)))
            })
            .collect();
        match found.as_slice() {
            [one, ..] => Ok((*one).clone()),
            [] => Err(format!(
                "there is no section `{path}` in {}",
                if chapter == usize::MAX {
                    ""
                } else {
                    "that chapter"
                }
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(resolved.resources[0].href, "assets/images/cat.gif");
        assert_eq!(resolved.resources[0].first_use.file, Path::new("ch02.md"));
        assert_eq!(resolved.resources[0].first_use.line, 3);
        // The chapters' checks of the image are remembered for the next build, once.
        assert_eq!(images.remembered(), 1);
    }
}
