//! Pass 1: numbering. In go the chapters in reading order; out come, for each, its number
//! label, heading and object numbers, output ids unique in the book, its title and table of
//! contents, and in the [`Resolver`] every target a reference or link may name (headings,
//! numbered objects, columns, bibliography entries, ids written in raw XHTML).
use std::collections::HashMap;
use std::path::PathBuf;

use super::ids::slug;
use super::labels::{Labels, ObjectKind};
use super::{
    Chapter, HeadingTarget, Resolver, Target, TocEntry, visit_all_inlines_mut, visit_blocks_mut,
};
use crate::book::{Format, Role};
use crate::codes;
use crate::doc::*;
use crate::dom;
use crate::error::{Finding, Location};

/// Book-wide counters: chapters, appendices and parts are numbered in reading order, and so
/// are bibliography entries.
#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct ChapterCounters {
    body: u32,
    appendix: u32,
    part: u32,
    pub(super) bib: u32,
}

/// What numbering one chapter did to the book-wide state: the counters before and after it,
/// and the warnings it gave (their range in the resolver's).
pub(super) struct Numbered1 {
    pub before: ChapterCounters,
    pub after: ChapterCounters,
    pub warnings: std::ops::Range<usize>,
}

/// A chapter's number, when it has one.
struct ChapterNumber {
    /// What the chapter title shows (`第1章`, `付録A`, `第I部`).
    label: String,
    /// What section and object numbers start with (`1`, `A`); parts have none.
    prefix: Option<String>,
}

/// Whether an object takes a number.
enum Numbered {
    /// As its author says: a `//list` does, an `//emlist` or a `//indepimage` does not.
    If(bool),
    /// When it has an id (tables and equations).
    WithId,
}

/// One chapter being numbered: what the walk over its blocks counts and gathers.
struct Numbering<'n, 'a> {
    r: &'n mut Resolver<'a>,
    counters: &'n mut ChapterCounters,
    ci: usize,
    stem: String,
    shown: PathBuf,
    labels: Labels,
    number: Option<ChapterNumber>,
    /// Whether numbers are shown at all (`secnolevel` 0 shows none).
    show: bool,
    /// What object numbers start with: the chapter's prefix, when numbers are shown.
    prefix: Option<String>,
    secnolevel: usize,
    toc_depth: u8,
    /// Section counters by heading level.
    sections: [u32; 7],
    objects: HashMap<ObjectKind, u32>,
    /// The enclosing headings below the chapter title: (level, label, caption).
    ancestors: Vec<(u8, Option<String>, String)>,
    toc: Vec<TocEntry>,
    title: Option<String>,
    title_id: Option<String>,
    columns: u32,
    /// A numbered DocBook example whose id (its first block, an anchor) is claimed next:
    /// the id as written, its number and caption.
    example: Option<(String, String, String, ObjectKind)>,
    docbook: bool,
}

impl Resolver<'_> {
    /// Pass 1: ids, numbers, titles — everything references need — for every chapter. Says,
    /// for each, the book-wide counters before and after it and which warnings it gave.
    pub(super) fn number_chapters(&mut self, chapters: &mut [Chapter]) -> Vec<Numbered1> {
        let mut counters = ChapterCounters::default();
        let mut numbered = Vec::with_capacity(chapters.len());
        for (ci, ch) in chapters.iter_mut().enumerate() {
            let (before, from) = (counters, self.warnings.len());
            self.number_chapter(ci, ch, &mut counters);
            numbered.push(Numbered1 {
                before,
                after: counters,
                warnings: from..self.warnings.len(),
            });
        }
        numbered
    }

    /// Numbers one chapter, its headings and objects, and records its targets and title.
    pub(super) fn number_chapter(
        &mut self,
        ci: usize,
        ch: &mut Chapter,
        counters: &mut ChapterCounters,
    ) {
        let labels = self.labels(ch);
        let number = chapter_number(ch, &labels, counters);
        // secnolevel 0 shows no numbers and drops the chapter prefix from object numbers.
        let show = self.book.secnolevel >= 1;
        let prefix = number
            .as_ref()
            .and_then(|n| n.prefix.clone())
            .filter(|_| show);
        ch.number = number.as_ref().map(|n| n.label.clone());
        let mut numbering = Numbering {
            secnolevel: self.book.secnolevel as usize,
            toc_depth: self.book.toc_depth,
            r: self,
            counters,
            ci,
            stem: ch.stem.clone(),
            shown: ch.source.rel.clone(),
            labels,
            number,
            show,
            prefix,
            sections: [0u32; 7],
            objects: HashMap::new(),
            ancestors: Vec::new(),
            toc: Vec::new(),
            title: None,
            title_id: None,
            columns: 0,
            example: None,
            docbook: ch.source.format == Format::DocBook,
        };
        let mut blocks = std::mem::take(&mut ch.doc.blocks);
        visit_blocks_mut(&mut blocks, &mut |b| numbering.block(b));
        ch.doc.blocks = blocks;
        numbering.claim_inline_ids(&mut ch.doc);
        let Numbering {
            labels,
            toc,
            title,
            title_id,
            ..
        } = numbering;
        ch.toc = toc;
        // No title heading: the title the source gives otherwise (md `title:` front matter),
        // in the contents as a heading's line would be, the text left as written.
        let title = title.or_else(|| {
            let given = ch.doc.title.clone().filter(|t| !t.trim().is_empty())?;
            ch.toc.insert(
                0,
                TocEntry {
                    level: 1,
                    id: String::new(),
                    label: given.clone(),
                },
            );
            Some(given)
        });
        ch.title = title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| ch.stem.clone());
        // The book's own page is named as Re:VIEW names it (大扉, 著者紹介), whatever its
        // headings; its headings are its XHTML, not the book's.
        if let Some(page) = ch.source.page {
            ch.title = labels.m.get(page.title()).to_string();
            ch.toc = if page.replaces_generated() {
                Vec::new()
            } else {
                vec![TocEntry {
                    level: 1,
                    id: String::new(),
                    label: ch.title.clone(),
                }]
            };
        }
        let info = &mut self.infos[ci];
        info.number = ch.number.clone();
        info.title = ch.title.clone();
        info.title_id = title_id;
        info.ja = labels.ja();
        info.appendix = ch.source.role == Role::Appendix;
    }

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
    pub(super) fn generate(&mut self, base: &str, ci: usize) -> String {
        let mut id = base.to_string();
        let mut n = 1;
        while self.ids.contains_key(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        self.ids.insert(id.clone(), ci);
        id
    }

    /// Records a referable object by the id its author wrote (the first one so written wins).
    fn index(
        &mut self,
        ci: usize,
        kind: ObjectKind,
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

/// The chapter's number from its role, counted book-wide; only a chapter whose title is
/// numbered takes one.
fn chapter_number(
    ch: &Chapter,
    labels: &Labels,
    counters: &mut ChapterCounters,
) -> Option<ChapterNumber> {
    let numbered = ch.doc.blocks.iter().find_map(|b| match &b.kind {
        BlockKind::Heading(h) if h.level == 1 => Some(h.numbered),
        _ => None,
    }) == Some(true);
    match (ch.source.role, numbered) {
        (Role::Body, true) => {
            counters.body += 1;
            Some(ChapterNumber {
                label: labels.chapter(counters.body),
                prefix: Some(counters.body.to_string()),
            })
        }
        (Role::Appendix, true) => {
            counters.appendix += 1;
            Some(ChapterNumber {
                label: labels.appendix(counters.appendix),
                prefix: Some(labels.appendix_prefix(counters.appendix)),
            })
        }
        (Role::Part, true) => {
            counters.part += 1;
            Some(ChapterNumber {
                label: labels.part(counters.part),
                prefix: None,
            })
        }
        _ => None,
    }
}

impl Numbering<'_, '_> {
    /// Where a block or inline is, made only when needed: most blocks have no id.
    fn loc(&self, pos: Pos) -> Location {
        Location::new(&self.shown, pos.line, pos.col)
    }

    /// Claims an id written in this chapter (see [`Resolver::claim`]).
    fn claim(&mut self, id: String, pos: Pos) -> String {
        let loc = self.loc(pos);
        self.r.claim(id, self.ci, &loc)
    }

    /// The next number of a kind of object in this chapter (`図1.2`).
    fn count(&mut self, kind: ObjectKind) -> Number {
        let n = self.objects.entry(kind).or_insert(0);
        *n += 1;
        self.labels.object(kind, self.prefix.as_deref(), *n)
    }

    /// Numbers one block and claims its ids.
    fn block(&mut self, b: &mut Block) {
        let pos = b.pos;
        match &mut b.kind {
            BlockKind::Heading(h) => self.heading(h, pos),
            BlockKind::Figure(f) => {
                let kind = if f.as_table {
                    ObjectKind::Table
                } else {
                    ObjectKind::Image
                };
                let (numbered, caption) = (Numbered::If(f.numbered), f.caption.as_deref());
                self.object(kind, &mut f.id, &mut f.number, numbered, caption, pos);
            }
            BlockKind::Table(t) => {
                let (kind, numbered) = (ObjectKind::Table, Numbered::WithId);
                let caption = t.caption.as_deref();
                self.object(kind, &mut t.id, &mut t.number, numbered, caption, pos);
            }
            BlockKind::Code(c) => {
                let numbered = Numbered::If(c.style == CodeStyle::List);
                let (kind, caption) = (ObjectKind::Listing, c.caption.as_deref());
                self.object(kind, &mut c.id, &mut c.number, numbered, caption, pos);
            }
            BlockKind::Math(m) => {
                let (kind, numbered) = (ObjectKind::Equation, Numbered::WithId);
                let caption = m.caption.as_deref();
                self.object(kind, &mut m.id, &mut m.number, numbered, caption, pos);
            }
            BlockKind::Sidebar { id, title, .. } => self.column(id, title.as_deref(), pos),
            BlockKind::BibItem(item) => self.bib_item(item, pos),
            BlockKind::Div { class, blocks } if self.docbook && class == "example" => {
                self.example(blocks, ObjectKind::Example)
            }
            BlockKind::Div { class, blocks } if self.docbook && class == "procedure" => {
                self.example(blocks, ObjectKind::Procedure)
            }
            BlockKind::Anchor(id) => {
                let written = std::mem::take(id);
                *id = self.claim(written.clone(), pos);
                if let Some((w, number, caption, kind)) =
                    self.example.take_if(|(w, ..)| *w == written)
                {
                    let target = Some(id.clone());
                    self.r
                        .index(self.ci, kind, Some(w), &target, &Some(number), caption);
                }
            }
            BlockKind::Raw(nodes) => self.claim_raw_ids(nodes, pos),
            BlockKind::PrintPage(p) => self.claim_page_id(p, pos),
            _ => {}
        }
    }

    /// A heading: its id, number, place among the sections and line in the table of contents.
    fn heading(&mut self, h: &mut Heading, pos: Pos) {
        let text = plain_text(&h.content);
        let is_title = h.level == 1 && self.title.is_none();
        if is_title {
            self.title = Some(text.clone());
        }
        let label = h.id.clone();
        let id = match h.id.take() {
            Some(id) => self.claim(id, pos),
            None => self.r.generate(&slug(&text, &self.stem), self.ci),
        };
        h.id = Some(id.clone());
        if is_title {
            self.title_id = Some(id.clone());
        }
        self.number_heading(h);
        self.record_heading(h, &id, label, &text);
        if h.in_toc && h.level <= self.toc_depth {
            let postfix = self.labels.m.get(crate::i18n::Msg::ChapterPostfix);
            self.toc.push(toc_entry(h, id, &text, postfix));
        }
    }

    /// The chapter title shows the chapter's number; a numbered section counts at its level
    /// and shows `1.2.3` down to `secnolevel`.
    fn number_heading(&mut self, h: &mut Heading) {
        let level = h.level as usize;
        if level == 1 {
            h.number = self
                .number
                .as_ref()
                .filter(|_| self.show)
                .map(|n| n.label.clone());
        } else if h.numbered && level < self.sections.len() {
            self.sections[level] += 1;
            self.sections[level + 1..].iter_mut().for_each(|c| *c = 0);
            if level <= self.secnolevel
                && let Some(p) = self.number.as_ref().and_then(|n| n.prefix.as_ref())
            {
                let parts: Vec<String> = self.sections[2..=level]
                    .iter()
                    .map(u32::to_string)
                    .collect();
                h.number = Some(format!("{p}.{}", parts.join(".")));
            }
        }
    }

    /// A section (below the chapter title) becomes a target for `@<hd>`, with its enclosing
    /// sections for `parent|child` paths.
    fn record_heading(&mut self, h: &Heading, id: &str, label: Option<String>, text: &str) {
        self.ancestors.retain(|(l, _, _)| *l < h.level);
        if h.level > 1 {
            self.r.headings[self.ci].push(HeadingTarget {
                id: id.to_string(),
                label: label.clone(),
                caption: text.to_string(),
                number: h.number.clone(),
                ancestors: self
                    .ancestors
                    .iter()
                    .map(|(_, l, c)| (l.clone(), c.clone()))
                    .collect(),
            });
            self.ancestors.push((h.level, label, text.to_string()));
        }
    }

    /// A figure, table, listing or equation: its id claimed, numbered when it takes a number,
    /// and recorded as a target by the id as written (references name it so).
    fn object(
        &mut self,
        kind: ObjectKind,
        id: &mut Option<String>,
        number: &mut Option<Number>,
        numbered: Numbered,
        caption: Option<&[Inline]>,
        pos: Pos,
    ) {
        let written = id.clone();
        *id = id.take().map(|id| self.claim(id, pos));
        let numbered = match numbered {
            Numbered::If(numbered) => numbered,
            Numbered::WithId => id.is_some(),
        };
        if numbered {
            *number = Some(self.count(kind));
        }
        let caption = caption.map(plain_text).unwrap_or_default();
        let label = number.as_ref().map(|n| n.label.clone());
        self.r.index(self.ci, kind, written, id, &label, caption);
    }

    /// A DocBook example with a title is numbered (`Example 2.1.`, `例2.1`): its caption
    /// starts with the number, and an xref to its id shows it.
    fn example(&mut self, blocks: &mut [Block], kind: ObjectKind) {
        let (anchor, rest) = match blocks {
            [
                Block {
                    kind: BlockKind::Anchor(id),
                    ..
                },
                rest @ ..,
            ] => (Some(id.clone()), rest),
            rest => (None, rest),
        };
        let Some(Block {
            kind: BlockKind::StyledPara { class, content },
            pos,
        }) = rest.first_mut()
        else {
            return;
        };
        if class != "caption" {
            return;
        }
        let number = self.count(kind);
        let caption = plain_text(content);
        let prefix = self.labels.m.get(crate::i18n::Msg::CaptionPrefix);
        content.insert(0, Inline::text(format!("{}{prefix}", number.head), *pos));
        if let Some(written) = anchor {
            self.example = Some((written, number.label, caption, kind));
        }
    }

    /// A column always has an id (generated when none is written), so it can be linked to.
    fn column(&mut self, id: &mut Option<String>, title: Option<&[Inline]>, pos: Pos) {
        self.columns += 1;
        let written = id.clone();
        *id = Some(match id.take() {
            Some(i) => self.claim(i, pos),
            None => {
                let base = format!("{}-column-{}", self.stem, self.columns);
                self.r.generate(&base, self.ci)
            }
        });
        let caption = title.map(plain_text).unwrap_or_default();
        self.r
            .index(self.ci, ObjectKind::Column, written, id, &None, caption);
    }

    /// A bibliography entry: numbered book-wide, its id unique in the bibliography.
    fn bib_item(&mut self, item: &mut BibItem, pos: Pos) {
        self.counters.bib += 1;
        // A label the reader gave (db: the entry's `abbrev`) stands in for the ordinal.
        if item.number.is_none() {
            item.number = Some(self.counters.bib.to_string());
        }
        let output = self.r.generate(&format!("bib-{}", item.id), self.ci);
        let target = Target {
            chapter: self.ci,
            id: output,
            number: item.number.clone(),
            caption: plain_text(&item.caption),
        };
        if self.r.bib.insert(item.id.clone(), target).is_some() {
            let loc = self.loc(pos);
            self.r.warnings.push(Finding::warning(
                codes::DUPLICATE_ID,
                loc,
                format!("the bibliography id `{}` is used twice", item.id),
            ));
        }
    }

    /// Ids written inline (DocBook anchors in terms and table cells, raw XHTML) are link
    /// targets too.
    fn claim_inline_ids(&mut self, doc: &mut Document) {
        visit_all_inlines_mut(doc, &mut |inline| match &mut inline.kind {
            InlineKind::Raw(nodes) => self.claim_raw_ids(nodes, inline.pos),
            InlineKind::PrintPage(p) => self.claim_page_id(p, inline.pos),
            _ => {}
        });
    }

    /// The id an author gave a page-break marker (db `anchor`); the others get theirs with
    /// the page list.
    fn claim_page_id(&mut self, p: &mut PrintPage, pos: Pos) {
        if let Some(id) = p.id.take() {
            p.id = Some(self.claim(id, pos));
        }
    }

    /// The ids on raw XHTML elements claimed in document order; one used before in the
    /// chapter (reported) is renamed, so the page never holds an id twice.
    fn claim_raw_ids(&mut self, nodes: &mut [dom::Node], pos: Pos) {
        for node in nodes {
            if let dom::Node::Element(e) = node {
                e.walk_mut(&mut |el| {
                    if let Some(id) = el.attr("id").map(str::to_string) {
                        let output = self.claim(id.clone(), pos);
                        if output != id {
                            el.set_attr("id", output);
                        }
                    }
                });
            }
        }
    }
}

/// A heading's line in the table of contents: number and title, or a dash for an empty one.
fn toc_entry(h: &Heading, id: String, text: &str, postfix: &str) -> TocEntry {
    let label = match &h.number {
        Some(n) => format!("{n}{postfix}{text}").trim().to_string(),
        None => text.to_string(),
    };
    TocEntry {
        level: h.level,
        id,
        label: if label.is_empty() {
            "—".into()
        } else {
            label
        },
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
