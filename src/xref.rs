//! Resolve: all Documents of a book → numbered, cross-referenced chapters.
//!
//! This is the one book-wide pass. It gives every chapter its output file, numbers chapters,
//! sections, figures, tables and listings, makes ids unique across the book, turns links between
//! source files into links between XHTML files, maps images to resources in the EPUB, and reports
//! every reference it cannot resolve at the place it was written.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use crate::book::{Book, ChapterSource, Role, check_book_file};
use crate::doc::*;
use crate::error::{Finding, Location};
use crate::xhtml::dom;

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

struct Labels {
    ja: bool,
}

impl Labels {
    fn chapter(&self, n: u32) -> String {
        if self.ja {
            format!("第{n}章")
        } else {
            format!("Chapter {n}")
        }
    }
    fn appendix(&self, letter: char) -> String {
        if self.ja {
            format!("付録{letter}")
        } else {
            format!("Appendix {letter}")
        }
    }
    fn figure(&self, n: &str) -> String {
        if self.ja {
            format!("図{n}")
        } else {
            format!("Figure {n}")
        }
    }
    fn table(&self, n: &str) -> String {
        if self.ja {
            format!("表{n}")
        } else {
            format!("Table {n}")
        }
    }
    fn listing(&self, n: &str) -> String {
        if self.ja {
            format!("リスト{n}")
        } else {
            format!("Listing {n}")
        }
    }
}

pub fn resolve(
    book: &Book,
    docs: Vec<(ChapterSource, Document)>,
) -> Result<Resolved, Vec<Finding>> {
    let mut r = Resolver {
        book,
        errors: Vec::new(),
        warnings: Vec::new(),
        ids: HashMap::new(),
        resources: BTreeMap::new(),
    };
    // Stems first: links between chapters need every chapter's file name.
    let mut stems = HashSet::new();
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
            }
        })
        .collect();
    let by_source: HashMap<PathBuf, usize> = chapters
        .iter()
        .enumerate()
        .map(|(i, c)| (normalize(&c.source.rel), i))
        .collect();

    // Pass 1: ids, numbers, titles.
    let (mut body_no, mut appendix_no) = (0u32, 0u32);
    for (ci, ch) in chapters.iter_mut().enumerate() {
        // Labels follow the chapter's language: an English chapter says "Figure 3.1".
        let labels = Labels {
            ja: ch
                .lang
                .as_deref()
                .unwrap_or(&book.meta.language)
                .starts_with("ja"),
        };
        let numbered_chapter = book.secnolevel >= 1
            && matches!(ch.source.role, Role::Body | Role::Appendix)
            && ch.doc.blocks.iter().find_map(|b| match &b.kind {
                BlockKind::Heading(h) if h.level == 1 => Some(h.numbered),
                _ => None,
            }) == Some(true);
        let chapter_label = numbered_chapter.then(|| match ch.source.role {
            Role::Appendix => {
                appendix_no += 1;
                let letter = char::from(b'A' + ((appendix_no - 1) % 26) as u8);
                (labels.appendix(letter), letter.to_string())
            }
            _ => {
                body_no += 1;
                (labels.chapter(body_no), body_no.to_string())
            }
        });
        let mut counters = [0u32; 7];
        let (mut figures, mut tables, mut listings) = (0u32, 0u32, 0u32);
        let stem = ch.stem.clone();
        let source_shown = ch.source.rel.clone();
        let mut toc = Vec::new();
        let mut title = None;
        visit_blocks_mut(&mut ch.doc.blocks, &mut |b| {
            let loc = Location::new(&source_shown, b.pos.line, b.pos.col);
            match &mut b.kind {
                BlockKind::Heading(h) => {
                    let text = plain_text(&h.content);
                    if h.level == 1 && title.is_none() {
                        title = Some(text.clone());
                    }
                    let id = match h.id.take() {
                        Some(id) => r.claim(id, ci, loc.clone()),
                        None => r.generate(&slug(&text, &stem), ci),
                    };
                    h.id = Some(id.clone());
                    if let Some((label, prefix)) = &chapter_label {
                        let level = h.level as usize;
                        if level == 1 {
                            h.number = Some(label.clone());
                        } else if h.numbered
                            && level <= book.secnolevel as usize
                            && level < counters.len()
                        {
                            counters[level] += 1;
                            counters[level + 1..].iter_mut().for_each(|c| *c = 0);
                            let parts: Vec<String> =
                                counters[2..=level].iter().map(u32::to_string).collect();
                            h.number = Some(format!("{prefix}.{}", parts.join(".")));
                        }
                    }
                    if h.in_toc && h.level <= book.toc_depth {
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
                    f.id = f.id.take().map(|id| r.claim(id, ci, loc.clone()));
                    if let (Some((_, prefix)), Some(_)) = (&chapter_label, &f.caption) {
                        figures += 1;
                        f.number = Some(labels.figure(&format!("{prefix}.{figures}")));
                    }
                }
                BlockKind::Table(t) => {
                    t.id = t.id.take().map(|id| r.claim(id, ci, loc.clone()));
                    if let (Some((_, prefix)), Some(_)) = (&chapter_label, &t.caption) {
                        tables += 1;
                        t.number = Some(labels.table(&format!("{prefix}.{tables}")));
                    }
                }
                BlockKind::Code(c) => {
                    c.id = c.id.take().map(|id| r.claim(id, ci, loc.clone()));
                    if let (Some((_, prefix)), Some(_)) = (&chapter_label, &c.caption) {
                        listings += 1;
                        c.number = Some(labels.listing(&format!("{prefix}.{listings}")));
                    }
                }
                BlockKind::Sidebar { id, .. } => {
                    *id = id.take().map(|i| r.claim(i, ci, loc.clone()))
                }
                BlockKind::Math(m) => m.id = m.id.take().map(|i| r.claim(i, ci, loc.clone())),
                BlockKind::Raw(nodes) => r.claim_raw(nodes, ci, &loc),
                _ => {}
            }
        });
        ch.title = title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| ch.stem.clone());
        ch.toc = toc;
    }

    // Pass 2: links, images, footnotes.
    let chapter_ids: Vec<HashSet<String>> = {
        let mut v = vec![HashSet::new(); chapters.len()];
        for (id, (ci, _)) in &r.ids {
            v[*ci].insert(id.clone());
        }
        v
    };
    let stems_by_index: Vec<String> = chapters.iter().map(|c| c.stem.clone()).collect();
    for (ci, ch) in chapters.iter_mut().enumerate() {
        let shown = ch.source.rel.clone();
        let dir = shown.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut refs: Vec<(String, Location)> = Vec::new();
        let ctx = LinkContext {
            ci,
            dir: &dir,
            by_source: &by_source,
            stems: &stems_by_index,
            chapter_ids: &chapter_ids,
        };
        visit_all_inlines_mut(&mut ch.doc, &mut |inline| {
            let loc = Location::new(&shown, inline.pos.line, inline.pos.col);
            match &mut inline.kind {
                InlineKind::Link { href, .. } => {
                    if let Some(new) = r.link(href, &ctx, &loc) {
                        *href = new;
                    }
                }
                InlineKind::Image(img) => {
                    if let Some(new) = r.image(&img.src, &dir, &loc) {
                        img.src = new;
                    }
                }
                InlineKind::FootnoteRef(label) => refs.push((label.clone(), loc)),
                _ => {}
            }
        });
        visit_blocks_mut(&mut ch.doc.blocks, &mut |b| {
            if let BlockKind::Figure(f) = &mut b.kind {
                let loc = Location::new(&shown, b.pos.line, b.pos.col);
                if let Some(new) = r.image(&f.image.src, &dir, &loc) {
                    f.image.src = new;
                }
            }
        });
        let defined: HashMap<&str, &Footnote> = ch
            .doc
            .footnotes
            .iter()
            .map(|f| (f.label.as_str(), f))
            .collect();
        let mut numbers: Vec<(String, u32)> = Vec::new();
        for (label, loc) in refs {
            if !defined.contains_key(label.as_str()) {
                r.errors.push(
                    Finding::error(loc, format!("the footnote `[^{label}]` is never defined"))
                        .with_hint(format!("add a line `[^{label}]: …` with the note's text")),
                );
            } else if !numbers.iter().any(|(l, _)| *l == label) {
                let n = numbers.len() as u32 + 1;
                numbers.push((label, n));
            }
        }
        for f in &ch.doc.footnotes {
            if !numbers.iter().any(|(l, _)| *l == f.label) {
                r.warnings.push(Finding::warning(
                    Location::new(&shown, f.pos.line, f.pos.col),
                    format!(
                        "the footnote `[^{}]` is never referred to; it is left out",
                        f.label
                    ),
                ));
            }
        }
        ch.footnotes = numbers;
    }

    if !r.errors.is_empty() {
        return Err(r.errors);
    }
    let mut resources: Vec<Resource> = r.resources.into_values().collect();
    resources.sort_by(|a, b| a.href.cmp(&b.href));
    Ok(Resolved {
        chapters,
        resources,
        warnings: r.warnings,
    })
}

struct LinkContext<'a> {
    ci: usize,
    dir: &'a Path,
    by_source: &'a HashMap<PathBuf, usize>,
    stems: &'a [String],
    chapter_ids: &'a [HashSet<String>],
}

struct Resolver<'a> {
    book: &'a Book,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    /// id → (chapter index, where it was written).
    ids: HashMap<String, (usize, Option<Location>)>,
    resources: BTreeMap<PathBuf, Resource>,
}

impl Resolver<'_> {
    /// An id written by the author: it must be unique in the whole book.
    fn claim(&mut self, id: String, ci: usize, loc: Location) -> String {
        if let Some((_, first)) = self.ids.get(&id) {
            let mut f = Finding::error(loc, format!("the id `{id}` is used twice in this book"));
            if let Some(first) = first {
                f = f.with_hint(format!(
                    "it is first used at {first}; give each heading, figure and table its own id"
                ));
            }
            self.errors.push(f);
        } else {
            self.ids.insert(id.clone(), (ci, Some(loc)));
        }
        id
    }

    /// A generated id: made unique by a numeric suffix.
    fn generate(&mut self, base: &str, ci: usize) -> String {
        let mut id = base.to_string();
        let mut n = 1;
        while self.ids.contains_key(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        self.ids.insert(id.clone(), (ci, None));
        id
    }

    fn claim_raw(&mut self, nodes: &[dom::Node], ci: usize, loc: &Location) {
        for n in nodes {
            if let dom::Node::Element(e) = n {
                let mut found = Vec::new();
                e.walk(&mut |el| found.extend(el.attr("id").map(str::to_string)));
                for id in found {
                    self.claim(id, ci, loc.clone());
                }
            }
        }
    }

    fn link(&mut self, href: &str, ctx: &LinkContext, loc: &Location) -> Option<String> {
        if has_scheme(href) {
            return None;
        }
        let (path, fragment) = match href.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (href, None),
        };
        let target = if path.is_empty() {
            ctx.ci
        } else {
            let rel = normalize(&ctx.dir.join(percent_decode(path)));
            match ctx.by_source.get(&rel) {
                Some(&i) => i,
                None => {
                    self.errors.push(
                        Finding::error(loc.clone(), format!("this link points to `{path}`, which is not a chapter of this book"))
                            .with_hint("link to a chapter's source file (e.g. `ch02.md#section`), or write a full URL starting with https://"),
                    );
                    return None;
                }
            }
        };
        if let Some(frag) = fragment {
            let frag = percent_decode(frag);
            if !ctx.chapter_ids[target].contains(&frag) {
                self.errors.push(
                    Finding::error(loc.clone(), format!("this link points to `#{frag}`, but no heading or element has that id there"))
                        .with_hint("give the heading an id (`## Title {#id}`) and link to it"),
                );
                return None;
            }
        }
        // A bare `#id` stays within the page; anything else names the target's file.
        let file = if path.is_empty() {
            String::new()
        } else {
            format!("{}.xhtml", ctx.stems[target])
        };
        Some(match fragment {
            Some(f) => format!("{file}#{f}"),
            None => file,
        })
    }

    /// Maps an image reference to its place in the EPUB, relative to the chapter's XHTML.
    fn image(&mut self, src: &str, dir: &Path, loc: &Location) -> Option<String> {
        if has_scheme(src) {
            self.errors.push(
                Finding::error(
                    loc.clone(),
                    format!("the image `{src}` is on the web; an EPUB must contain its images"),
                )
                .with_hint("download the image into the book folder and refer to it by its path"),
            );
            return None;
        }
        let rel = normalize(&dir.join(percent_decode(src)));
        if let Some(res) = self.resources.get(&rel) {
            return Some(format!("../{}", res.href));
        }
        let path = match check_book_file(&self.book.root, &rel) {
            Ok(p) => p,
            Err(why) => {
                self.errors.push(Finding::error(
                    loc.clone(),
                    format!("the image `{src}` {why}"),
                ));
                return None;
            }
        };
        let Some(media_type) = media_type(&rel).filter(|t| t.starts_with("image/")) else {
            self.errors.push(
                Finding::error(
                    loc.clone(),
                    format!("`{src}` is not an image type an EPUB can show"),
                )
                .with_hint("use PNG, JPEG, GIF, SVG or WebP"),
            );
            return None;
        };
        if media_type != "image/svg+xml" && imagesize::size(&path).is_err() {
            self.errors.push(
                Finding::error(loc.clone(), format!("the image `{src}` cannot be read: the file is damaged or is not really a {} file", media_type.trim_start_matches("image/").to_uppercase()))
                    .with_hint("export the image again from its original"),
            );
            return None;
        }
        let href = format!("assets/{}", rel.to_string_lossy().replace('\\', "/"));
        self.resources.insert(
            rel.clone(),
            Resource {
                source: path,
                href: href.clone(),
                media_type,
                first_use: loc.clone(),
            },
        );
        Some(format!("../{href}"))
    }
}

fn has_scheme(href: &str) -> bool {
    match href.split_once(':') {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && !href.starts_with('/')
        }
        None => false,
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let (b'%', Some(Some(hi)), Some(Some(lo))) = (
            bytes[i],
            bytes.get(i + 1).map(|&b| hex(b)),
            bytes.get(i + 2).map(|&b| hex(b)),
        ) {
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Lexically normalizes a relative path (`a/./b/../c` → `a/c`); `..` past the start is kept so
/// the containment check rejects it.
fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// An ASCII file stem safe in an EPUB (`第1章.md` → `chapter`); duplicates get a suffix.
fn file_stem(rel: &Path) -> String {
    let raw = rel
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!("ch-{s}").trim_end_matches('-').to_string()
    } else {
        s
    }
}

fn unique(taken: &mut HashSet<String>, base: &str) -> String {
    let mut s = base.to_string();
    let mut n = 1;
    while !taken.insert(s.clone()) {
        n += 1;
        s = format!("{base}-{n}");
    }
    s
}

/// A heading id from its text, GitHub-style: letters and digits kept (Japanese too), spaces to
/// `-`. Prefixed with the chapter stem when nothing usable is left.
fn slug(text: &str, stem: &str) -> String {
    let mut s = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if (c == ' ' || c == '-' || c == '_' || c == '\u{3000}') && !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_matches('-').to_string();
    match s.chars().next() {
        None => format!("{stem}-section"),
        // XML ids must not start with a digit.
        Some(c) if !c.is_alphabetic() => format!("{stem}-{s}"),
        Some(_) => s,
    }
}

/// Visits every block, depth first, including those nested in lists, quotes and footnotes.
pub fn visit_blocks_mut(blocks: &mut [Block], f: &mut dyn FnMut(&mut Block)) {
    for b in blocks {
        f(b);
        match &mut b.kind {
            BlockKind::List(l) => l.items.iter_mut().for_each(|i| visit_blocks_mut(i, f)),
            BlockKind::DefinitionList(items) => items
                .iter_mut()
                .flat_map(|i| i.definitions.iter_mut())
                .for_each(|d| visit_blocks_mut(d, f)),
            BlockKind::Quote { blocks, .. }
            | BlockKind::Admonition { blocks, .. }
            | BlockKind::Sidebar { blocks, .. }
            | BlockKind::Div { blocks, .. } => visit_blocks_mut(blocks, f),
            _ => {}
        }
    }
}

fn visit_inlines_mut(inlines: &mut [Inline], f: &mut dyn FnMut(&mut Inline)) {
    for i in inlines {
        f(i);
        match &mut i.kind {
            InlineKind::Emphasis(c)
            | InlineKind::Strong(c)
            | InlineKind::Superscript(c)
            | InlineKind::Subscript(c)
            | InlineKind::Deleted(c)
            | InlineKind::Inserted(c)
            | InlineKind::Underline(c)
            | InlineKind::EmphasisDots(c)
            | InlineKind::Span { content: c, .. }
            | InlineKind::Link { content: c, .. }
            | InlineKind::Ref {
                content: Some(c), ..
            } => visit_inlines_mut(c, f),
            _ => {}
        }
    }
}

/// Visits every inline of a document: in blocks, captions, table cells and footnotes.
pub fn visit_all_inlines_mut(doc: &mut Document, f: &mut dyn FnMut(&mut Inline)) {
    let mut each_block = |b: &mut Block| match &mut b.kind {
        BlockKind::Heading(h) => visit_inlines_mut(&mut h.content, f),
        BlockKind::Para(c) => visit_inlines_mut(c, f),
        BlockKind::DefinitionList(items) => items
            .iter_mut()
            .for_each(|i| visit_inlines_mut(&mut i.term, f)),
        BlockKind::Code(Code {
            caption: Some(c), ..
        })
        | BlockKind::Figure(Figure {
            caption: Some(c), ..
        })
        | BlockKind::Quote {
            attribution: Some(c),
            ..
        }
        | BlockKind::Admonition { title: Some(c), .. }
        | BlockKind::Sidebar { title: Some(c), .. } => visit_inlines_mut(c, f),
        BlockKind::Table(t) => {
            if let Some(c) = &mut t.caption {
                visit_inlines_mut(c, f);
            }
            for row in t.head.iter_mut().chain(t.body.iter_mut()) {
                row.cells
                    .iter_mut()
                    .for_each(|cell| visit_inlines_mut(&mut cell.content, f));
            }
        }
        _ => {}
    };
    visit_blocks_mut(&mut doc.blocks, &mut each_block);
    for note in &mut doc.footnotes {
        visit_blocks_mut(&mut note.blocks, &mut each_block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_keep_japanese_and_never_start_with_a_digit() {
        assert_eq!(slug("Getting Started", "ch01"), "getting-started");
        assert_eq!(slug("はじめに", "ch01"), "はじめに");
        assert_eq!(slug("1.2 Setup", "ch01"), "ch01-12-setup");
        assert_eq!(slug("!!", "ch01"), "ch01-section");
    }

    #[test]
    fn stems_are_ascii_and_unique() {
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, &file_stem(Path::new("ch01.md"))), "ch01");
        assert_eq!(
            unique(&mut taken, &file_stem(Path::new("other/ch01.md"))),
            "ch01-2"
        );
        assert_eq!(file_stem(Path::new("序章.md")), "ch");
        assert_eq!(file_stem(Path::new("01-intro.md")), "ch-01-intro");
    }

    #[test]
    fn normalize_and_schemes() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.md")),
            PathBuf::from("a/c.md")
        );
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
        assert!(has_scheme("https://example.com"));
        assert!(has_scheme("mailto:a@b"));
        assert!(!has_scheme("ch02.md#x"));
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("%E3%81%82%あ%"), "あ%あ%");
    }
}
