//! Write: a resolved chapter → the XHTML nodes of its `<body>`.
//!
//! The one writer for every source format. Class names are Re:VIEW's (`caption-code`,
//! `emlist-code`, `secno`, `noteref`, `footnote`, `note`, `column`, …) wherever Re:VIEW has one,
//! so an author's existing `style.css` keeps working; the house style sheet
//! (`templates/book.css`) styles the same names. `epub:type` marks chapters and notes.
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

use crate::book::{ChapterSource, Role};
use crate::doc::*;
use crate::dom::{Element, Node, Src};
use crate::i18n::{Arg, Messages, Msg};
use crate::xref::{Chapter, endnote_ids, footnote_ids};

use super::aria;

/// The `epub:type` of a chapter's section: its place in the book, or what page of the
/// front or back matter it is.
pub fn section_type(source: &ChapterSource) -> &'static str {
    if let Some(page) = source.page {
        return page.epub_type();
    }
    if let Some(division) = source.division {
        return division;
    }
    match source.role {
        Role::Front => "preface",
        Role::Body => "chapter",
        Role::Part => "part",
        Role::Appendix => "appendix",
        Role::Back => "afterword",
    }
}

/// A print page-break marker, as EPUB Accessibility asks: `epub:type` and its ARIA role, the
/// page number as its accessible name, and the id the page list links to.
fn print_page(p: &PrintPage) -> Element {
    let mut e = el("span")
        .with_attr("epub:type", "pagebreak")
        .with_attr("role", "doc-pagebreak");
    if let Some(id) = &p.id {
        e.set_attr("id", id.as_str());
    }
    e.with_attr("aria-label", p.label.as_str())
}

/// Writes a chapter as one `<section>` followed by its footnotes, with the generated words
/// (note marks, caption and number separators) of `m`.
pub fn write_chapter(ch: &Chapter, m: &Messages) -> Vec<Node> {
    write_chapter_with(ch, m, &crate::highlight::Highlights::default())
}

/// [`write_chapter`], with its listings taken from those highlighted ahead (`hl`).
pub fn write_chapter_with(
    ch: &Chapter,
    m: &Messages,
    hl: &crate::highlight::Highlights,
) -> Vec<Node> {
    let w = Writer {
        ch,
        ja: m.ja,
        m,
        hl,
        file: ch.source.rel.display().to_string().into(),
        anchored: RefCell::default(),
    };
    let kind = section_type(&ch.source);
    let mut section = Element::new("section")
        .with_attr("epub:type", kind)
        .with_attr("class", kind);
    if let Some(lang) = &ch.lang {
        section.set_attr("xml:lang", lang.as_str());
        section.set_attr("lang", lang.as_str());
    }
    w.blocks(&ch.doc.blocks, &mut section);
    let mut out = vec![Node::from(section)];
    if !ch.footnotes.is_empty() {
        let mut notes = Element::new("div").with_attr("class", "footnotes");
        for (label, n) in &ch.footnotes {
            if let Some(note) = ch.doc.footnotes.iter().find(|f| &f.label == label) {
                notes.push(w.note(note, *n, NoteKind::Foot));
            }
        }
        out.push(Node::Text("\n".into()));
        out.push(Node::from(notes));
    }
    // What each marked element is, said to assistive technology too (raw HTML included).
    let mut outline = aria::outline_levels();
    for node in &mut out {
        if let Node::Element(e) = node {
            // One pass over the page: what each element says, and its level in the outline.
            e.walk_mut(&mut |e| {
                aria::make_accessible(e);
                outline(e);
            });
        }
    }
    out
}

#[derive(Clone, Copy)]
enum NoteKind {
    Foot,
    End,
}

struct Writer<'a> {
    ch: &'a Chapter,
    ja: bool,
    m: &'a Messages,
    hl: &'a crate::highlight::Highlights,
    /// The chapter's file, as the positions of what it produced name it.
    file: Arc<str>,
    /// Note references already given their anchor id: a note referred to twice keeps one.
    anchored: RefCell<HashSet<(bool, u32)>>,
}

fn el(name: &str) -> Element {
    Element::new(name)
}

fn with_id(mut e: Element, id: &Option<String>) -> Element {
    if let Some(id) = id {
        e.set_attr("id", id.as_str());
    }
    e
}

impl Writer<'_> {
    fn blocks(&self, blocks: &[Block], parent: &mut Element) {
        for b in blocks {
            self.block(b, parent);
        }
    }

    /// What follows a heading's number (`chapter_postfix`).
    fn separator(&self) -> &str {
        self.m.get(Msg::ChapterPostfix)
    }

    /// Writes a block and gives what it produced the source position it came from, so checks
    /// and epubcheck findings can point at the source.
    fn block(&self, b: &Block, parent: &mut Element) {
        let before = parent.children.len();
        self.block_kind(b, parent);
        self.mark(b.pos, &mut parent.children[before..]);
    }

    fn mark(&self, pos: Pos, nodes: &mut [Node]) {
        if pos.line == 0 {
            return;
        }
        for node in nodes {
            if let Node::Element(e) = node
                && e.src.is_none()
            {
                e.src = Some(Src {
                    file: self.file.clone(),
                    line: pos.line,
                    col: pos.col,
                });
            }
        }
    }

    /// Writes what a block is, without its source mark.
    fn block_kind(&self, b: &Block, parent: &mut Element) {
        match &b.kind {
            BlockKind::Heading(h) => parent.push(self.heading(h)),
            BlockKind::Para(content) => {
                let mut p = el("p");
                self.inlines(content, &mut p);
                parent.push(p);
            }
            BlockKind::StyledPara { class, content } => {
                let mut p = el("p").with_attr("class", class.as_str());
                self.inlines(content, &mut p);
                parent.push(p);
            }
            BlockKind::List(l) => parent.push(self.list(l)),
            BlockKind::DefinitionList(items) => parent.push(self.definition_list(items)),
            BlockKind::Code(c) => parent.push(self.code(c)),
            BlockKind::Table(t) => parent.push(self.table(t)),
            BlockKind::Figure(f) => parent.push(self.figure(f)),
            BlockKind::Quote {
                blocks,
                attribution,
            } => parent.push(self.quote(blocks, attribution)),
            BlockKind::Admonition {
                kind,
                title,
                blocks,
            } => parent.push(self.admonition(*kind, title, blocks)),
            BlockKind::Sidebar {
                id,
                title,
                heading,
                blocks,
            } => {
                parent.push(self.sidebar(id, title, *heading, blocks));
            }
            BlockKind::Math(m) => parent.push(self.math(m)),
            BlockKind::Div { class, blocks } => {
                let mut d = el("div").with_attr("class", class.as_str());
                self.blocks(blocks, &mut d);
                parent.push(d);
            }
            BlockKind::Wrapped { element, blocks } => {
                let mut d = (**element).clone();
                self.blocks(blocks, &mut d);
                parent.push(d);
            }
            BlockKind::Rule => parent.push(el("hr")),
            BlockKind::PageBreak => parent.push(el("div").with_attr("class", "pagebreak")),
            // Phrasing content, which every element the writer puts blocks in (section, div,
            // li, dd, td, blockquote, aside) may hold beside its blocks: an empty span there
            // takes no room.
            BlockKind::PrintPage(p) => parent.push(print_page(p)),
            BlockKind::Anchor(id) => parent.push(el("a").with_attr("id", id.as_str())),
            BlockKind::Endnotes => parent.push(self.endnotes()),
            // The index is a page of its own (`pages`), put in this chapter's place.
            BlockKind::Index => {}
            BlockKind::BibItem(item) => parent.push(self.bib_item(item)),
            BlockKind::Raw(nodes) => nodes.iter().cloned().for_each(|n| parent.push(n)),
        }
    }

    /// `<hN>`, with its section number as Re:VIEW's `secno`.
    fn heading(&self, h: &Heading) -> Element {
        let mut e = with_id(el(&format!("h{}", h.level.clamp(1, 6))), &h.id);
        if !h.shown {
            e.set_attr("hidden", "hidden");
        }
        if let Some(n) = &h.number {
            e.push(
                el("span")
                    .with_attr("class", "secno")
                    .with_text(format!("{n}{}", self.separator())),
            );
        }
        self.inlines(&h.content, &mut e);
        e
    }

    /// `<ul>`, or `<ol>` with its start number when it is not 1.
    fn list(&self, l: &List) -> Element {
        let mut list = match l.start {
            None => el("ul"),
            Some(1) => el("ol"),
            Some(n) => el("ol").with_attr("start", n.to_string()),
        };
        for item in &l.items {
            let mut li = el("li");
            self.item(item, &mut li);
            list.push(li);
        }
        list
    }

    /// `<dl>`: each term, then its definitions.
    fn definition_list(&self, items: &[DefinitionItem]) -> Element {
        let mut dl = el("dl");
        for item in items {
            let mut dt = el("dt");
            self.inlines(&item.term, &mut dt);
            dl.push(dt);
            for definition in &item.definitions {
                let mut dd = el("dd");
                self.item(definition, &mut dd);
                dl.push(dd);
            }
        }
        dl
    }

    /// `<blockquote>`, its attribution last.
    fn quote(&self, blocks: &[Block], attribution: &Option<Inlines>) -> Element {
        let mut q = el("blockquote");
        self.blocks(blocks, &mut q);
        if let Some(a) = attribution {
            let mut p = el("p").with_attr("class", "attribution");
            self.inlines(a, &mut p);
            q.push(p);
        }
        q
    }

    /// A note, a tip, a warning…: its title, the kind's word (`ノート`) where the reader says
    /// its format shows one, or nothing (Re:VIEW's caption-less `//info`).
    fn admonition(
        &self,
        kind: AdmonitionKind,
        title: &AdmonitionTitle,
        blocks: &[Block],
    ) -> Element {
        let mut d = el("div").with_attr("class", kind.class());
        let mut t = el("p").with_attr("class", "caption");
        match title {
            AdmonitionTitle::Written(title) => {
                self.inlines(title, &mut t);
                d.push(t);
            }
            AdmonitionTitle::KindWord => {
                t.push_text(admonition_label(kind, self.ja));
                d.push(t);
            }
            AdmonitionTitle::Untitled => {}
        }
        self.blocks(blocks, &mut d);
        d
    }

    /// A sidebar, as Re:VIEW's `column`: its title a heading of the column's level when it
    /// comes from a `==[column]` heading, as Re:VIEW writes it.
    fn sidebar(
        &self,
        id: &Option<String>,
        title: &Option<Inlines>,
        heading: Option<u8>,
        blocks: &[Block],
    ) -> Element {
        let mut d = with_id(el("div").with_attr("class", "column"), id);
        if let Some(title) = title {
            let name = heading.map_or("p".to_string(), |l| format!("h{}", l.clamp(1, 6)));
            let mut t = el(&name).with_attr("class", "column-title");
            self.inlines(title, &mut t);
            d.push(t);
        }
        self.blocks(blocks, &mut d);
        d
    }

    /// A display equation: its caption, then its MathML (or its TeX source).
    fn math(&self, m: &Math) -> Element {
        let mut d = with_id(el("div").with_attr("class", "caption-equation"), &m.id);
        if m.caption.is_some() || m.number.is_some() {
            let mut cap = el("p").with_attr("class", "caption");
            self.caption(&m.number, &m.caption, &mut cap);
            d.push(cap);
        }
        let mut eq = el("div").with_attr("class", "equation");
        match &m.mathml {
            Some(nodes) => nodes.iter().cloned().for_each(|n| eq.push(n)),
            // No MathML: the TeX source, marked as such for readers and style sheets.
            None => eq.push(
                el("pre")
                    .with_attr("class", "tex")
                    .with_text(m.tex.as_str()),
            ),
        }
        d.push(eq);
        d
    }

    /// The chapter's endnotes, where the manuscript asked for them.
    fn endnotes(&self) -> Element {
        let mut d = el("div")
            .with_attr("class", "endnotes")
            .with_attr("epub:type", "endnotes");
        for (label, n) in &self.ch.endnotes {
            if let Some(note) = self.ch.doc.endnotes.iter().find(|f| &f.label == label) {
                d.push(self.note(note, *n, NoteKind::End));
            }
        }
        d
    }

    /// A bibliography entry, as Re:VIEW's `bibpaper`: `[n]` (the target of citations), its
    /// caption, then its blocks.
    fn bib_item(&self, item: &BibItem) -> Element {
        let mut d = el("div").with_attr("class", "bibpaper");
        let mut p = el("p").with_attr("class", "bibpaper-title");
        let number = item.number.clone().unwrap_or_default();
        p.push(
            el("a")
                .with_attr("id", format!("bib-{}", item.id))
                .with_text(format!("[{number}]")),
        );
        p.push_text(" ");
        self.inlines(&item.caption, &mut p);
        d.push(p);
        self.blocks(&item.blocks, &mut d);
        d
    }

    /// A list item or definition: a lone paragraph is written without `<p>` (tight lists).
    fn item(&self, blocks: &[Block], parent: &mut Element) {
        match blocks {
            [
                Block {
                    kind: BlockKind::Para(content),
                    ..
                },
            ] => self.inlines(content, parent),
            _ => self.blocks(blocks, parent),
        }
    }

    /// `リスト1.1: caption`, as Re:VIEW writes numbered captions (`format_number_header` and
    /// `caption_prefix`); the number alone when there is no caption.
    fn caption(&self, number: &Option<Number>, caption: &Option<Inlines>, into: &mut Element) {
        match (number, caption) {
            (Some(n), Some(_)) => {
                into.push_text(&n.head);
                into.push_text(self.m.get(Msg::CaptionPrefix));
            }
            (Some(n), None) => into.push_text(&n.label),
            (None, _) => {}
        }
        if let Some(c) = caption {
            self.inlines(c, into);
        }
    }

    fn code(&self, c: &Code) -> Element {
        let (wrapper, pre_class) = match (c.style, c.first_line_number.is_some()) {
            (CodeStyle::List, false) => ("caption-code", "list"),
            (CodeStyle::List, true) => ("code", "list"),
            (CodeStyle::Example, false) => ("emlist-code", "emlist"),
            (CodeStyle::Example, true) => ("emlistnum-code", "emlist"),
            (CodeStyle::Command, _) => ("cmd-code", "cmd"),
            (CodeStyle::Source, _) => ("source-code", "source"),
            (CodeStyle::Box, _) => ("syntax", "syntax"),
        };
        let mut pre = el("pre");
        pre.set_attr(
            "class",
            match &c.language {
                Some(lang) => format!("{pre_class} language-{lang}"),
                None => pre_class.to_string(),
            },
        );
        let mut body = el("code");
        match (&c.markup, &c.language) {
            (Some(markup), _) => self.inlines(markup, &mut body),
            // Highlighted at build time, as classes the style sheet colours.
            (None, Some(lang)) => match self.hl.get(&c.text, lang) {
                Some(nodes) => body.children = nodes,
                None => body.push_text(&c.text),
            },
            (None, None) => body.push_text(&c.text),
        }
        let body = match c.first_line_number {
            Some(first) => number_lines(body, first),
            None => body,
        };
        pre.children = body.children;
        let mut d = with_id(el("div").with_attr("class", wrapper), &c.id);
        if c.caption.is_some() || c.number.is_some() {
            let mut p = el("p").with_attr("class", "caption");
            self.caption(&c.number, &c.caption, &mut p);
            d.push(p);
        }
        d.push(pre);
        d
    }

    fn table(&self, t: &Table) -> Element {
        let mut d = with_id(el("div").with_attr("class", "table"), &t.id);
        if t.caption.is_some() || t.number.is_some() {
            let mut cap = el("p").with_attr("class", "caption");
            self.caption(&t.number, &t.caption, &mut cap);
            d.push(cap);
        }
        let mut table = el("table");
        for (rows, group, head) in [(&t.head, "thead", true), (&t.body, "tbody", false)] {
            if rows.is_empty() {
                continue;
            }
            let mut g = el(group);
            for row in rows {
                let mut tr = el("tr");
                // What each header cell heads, for assistive technology: its column in the
                // head or a row of headers, else its row.
                let header_row = head || row.cells.iter().all(|c| c.header);
                for cell in &row.cells {
                    let mut c = el(if head || cell.header { "th" } else { "td" });
                    if head || cell.header {
                        c.set_attr("scope", if header_row { "col" } else { "row" });
                    }
                    match cell.align {
                        Align::Default => {}
                        Align::Left => c.set_attr("class", "align-left"),
                        Align::Center => c.set_attr("class", "align-center"),
                        Align::Right => c.set_attr("class", "align-right"),
                    }
                    if cell.colspan > 1 {
                        c.set_attr("colspan", cell.colspan.to_string());
                    }
                    if cell.rowspan > 1 {
                        c.set_attr("rowspan", cell.rowspan.to_string());
                    }
                    if cell.blocks.is_empty() {
                        self.inlines(&cell.content, &mut c);
                    } else {
                        self.blocks(&cell.blocks, &mut c);
                    }
                    tr.push(c);
                }
                g.push(tr);
            }
            table.push(g);
        }
        d.push(table);
        d
    }

    fn figure(&self, f: &Figure) -> Element {
        let class = match (&f.class, f.as_table) {
            (Some(extra), true) => format!("imgtable image {extra}"),
            (Some(extra), false) => format!("image {extra}"),
            (None, true) => "imgtable image".to_string(),
            (None, false) => "image".to_string(),
        };
        let mut d = with_id(el("div").with_attr("class", class), &f.id);
        let caption = (f.caption.is_some() || f.number.is_some()).then(|| {
            let mut cap = el("p").with_attr("class", "caption");
            self.caption(&f.number, &f.caption, &mut cap);
            cap
        });
        // Re:VIEW puts a table's caption above its image, a figure's below.
        if f.as_table {
            d.children.extend(caption.clone().map(Node::from));
        }
        match &f.fallback {
            // The image is missing: show the text the author gave for that case, marked.
            Some(text) if f.image.src.is_empty() => {
                d.push(
                    el("pre")
                        .with_attr("class", "dummyimage")
                        .with_text(text.as_str()),
                );
            }
            _ if f.image.src.is_empty() => {
                d.push(
                    el("p")
                        .with_attr("class", "missing-image")
                        .with_text(format!("[{}]", f.image.alt)),
                );
            }
            _ => d.push(
                el("img")
                    .with_attr("src", f.image.src.as_str())
                    .with_attr("alt", f.image.alt.as_str()),
            ),
        }
        if !f.as_table {
            d.children.extend(caption.map(Node::from));
        }
        d
    }

    fn note(&self, note: &Footnote, n: u32, kind: NoteKind) -> Element {
        let (id, ref_id, class, mark) = match kind {
            NoteKind::Foot => {
                let (id, r) = footnote_ids(&self.ch.stem, n);
                (id, r, "footnote", Msg::FootnoteTextmark)
            }
            NoteKind::End => {
                let (id, r) = endnote_ids(&self.ch.stem, n);
                (id, r, "endnote", Msg::EndnoteTextmark)
            }
        };
        // A footnote is an `aside` (EPUB readers may pop it up and skip it in the reading
        // order); an endnote stays in the flow of its list of notes.
        let name = if class == "footnote" { "aside" } else { "div" };
        let mut d = el(name)
            .with_attr("class", class)
            .with_attr("epub:type", class)
            .with_attr("id", id);
        // `[*1] `: the mark links back, the space after it (part of the format) does not.
        let written = self.m.t(mark, &[Arg::S(&n.to_string())]);
        let mark = written.trim_end();
        let space = &written[mark.len()..];
        // Only a note referred to in the text links back to its reference.
        let referred = self
            .anchored
            .borrow()
            .contains(&(matches!(kind, NoteKind::End), n));
        let back = if referred {
            el("a")
                .with_attr("href", format!("#{ref_id}"))
                .with_attr("class", "noteback")
                .with_text(mark)
        } else {
            el("span").with_attr("class", "noteback").with_text(mark)
        };
        let mut body = el("div");
        self.blocks(&note.blocks, &mut body);
        let mut blocks = body.children.into_iter();
        // The mark goes at the start of the note's first paragraph, as printed books do.
        match blocks.next() {
            Some(Node::Element(mut p)) if p.name == "p" => {
                p.set_attr("class", class);
                if !space.is_empty() {
                    p.children.insert(0, Node::Text(space.into()));
                }
                p.children.insert(0, Node::from(back));
                d.push(p);
            }
            first => {
                d.push(el("p").with_attr("class", class).with_child(back));
                d.children.extend(first);
            }
        }
        d.children.extend(blocks);
        d
    }

    fn inlines(&self, inlines: &[Inline], parent: &mut Element) {
        for i in inlines {
            self.inline(i, parent);
        }
    }

    fn wrap(&self, name: &str, content: &[Inline], parent: &mut Element) {
        let mut e = el(name);
        self.inlines(content, &mut e);
        parent.push(e);
    }

    fn span(&self, class: &str, content: &[Inline], parent: &mut Element) {
        let mut e = el("span").with_attr("class", class);
        self.inlines(content, &mut e);
        parent.push(e);
    }

    fn noteref(&self, n: u32, kind: NoteKind, parent: &mut Element) {
        let ((id, ref_id), mark, end) = match kind {
            NoteKind::Foot => (footnote_ids(&self.ch.stem, n), Msg::FootnoteRefmark, false),
            NoteKind::End => (endnote_ids(&self.ch.stem, n), Msg::EndnoteRefmark, true),
        };
        let mut a = el("a")
            .with_attr("href", format!("#{id}"))
            .with_attr("class", "noteref")
            .with_attr("epub:type", "noteref");
        if self.anchored.borrow_mut().insert((end, n)) {
            a.set_attr("id", ref_id);
        }
        a.push_text(&self.m.t(mark, &[Arg::S(&n.to_string())]));
        parent.push(a);
    }

    fn inline(&self, i: &Inline, parent: &mut Element) {
        let before = parent.children.len();
        self.inline_kind(i, parent);
        // Links and images are where most findings are; mark them too.
        if matches!(i.kind, InlineKind::Link { .. } | InlineKind::Image(_)) {
            self.mark(i.pos, &mut parent.children[before..]);
        }
    }

    fn inline_kind(&self, i: &Inline, parent: &mut Element) {
        match &i.kind {
            InlineKind::Text(t) => parent.push_text(t),
            InlineKind::Emphasis(c) => self.wrap("em", c, parent),
            InlineKind::Strong(c) => self.wrap("strong", c, parent),
            InlineKind::Bold(c) => self.wrap("b", c, parent),
            InlineKind::Italic(c) => self.wrap("i", c, parent),
            InlineKind::Keyword { word, alt } => {
                let mut b = el("b").with_attr("class", "kw");
                self.inlines(word, &mut b);
                if let Some(alt) = alt {
                    b.push_text(&format!(" ({alt})"));
                }
                parent.push(b);
            }
            InlineKind::Code(t) => {
                parent.push(el("code").with_attr("class", "tt").with_text(t.as_str()))
            }
            InlineKind::Superscript(c) => self.wrap("sup", c, parent),
            InlineKind::Subscript(c) => self.wrap("sub", c, parent),
            InlineKind::Deleted(c) => self.wrap("del", c, parent),
            InlineKind::Inserted(c) => self.wrap("ins", c, parent),
            InlineKind::Underline(c) => self.wrap("u", c, parent),
            InlineKind::Span { class, content } => self.span(class, content, parent),
            InlineKind::Lang { lang, content } => {
                let mut e = el("span")
                    .with_attr("xml:lang", lang.as_str())
                    .with_attr("lang", lang.as_str());
                self.inlines(content, &mut e);
                parent.push(e);
            }
            InlineKind::Link { href, content } => {
                let mut a = el("a")
                    .with_attr("href", href.as_str())
                    .with_attr("class", "link");
                self.inlines(content, &mut a);
                parent.push(a);
            }
            // The resolver turns every reference into a link; one left here was reported.
            InlineKind::Ref {
                target, content, ..
            } => match content {
                Some(c) => self.inlines(c, parent),
                None => parent.push_text(target),
            },
            InlineKind::Image(img) => parent.push(
                el("img")
                    .with_attr("src", img.src.as_str())
                    .with_attr("alt", img.alt.as_str())
                    .with_attr("class", "inline"),
            ),
            InlineKind::FootnoteRef(label) => {
                if let Some((_, n)) = self.ch.footnotes.iter().find(|(l, _)| l == label) {
                    self.noteref(*n, NoteKind::Foot, parent);
                }
            }
            InlineKind::EndnoteRef(label) => {
                if let Some((_, n)) = self.ch.endnotes.iter().find(|(l, _)| l == label) {
                    self.noteref(*n, NoteKind::End, parent);
                }
            }
            InlineKind::Ruby { base, text } => parent.push(
                el("ruby")
                    .with_text(base.as_str())
                    .with_child(el("rp").with_text(self.m.get(Msg::RubyPrefix)))
                    .with_child(el("rt").with_text(text.as_str()))
                    .with_child(el("rp").with_text(self.m.get(Msg::RubyPostfix))),
            ),
            InlineKind::EmphasisDots(c) => self.span("bou", c, parent),
            InlineKind::TateChuYoko(t) => {
                let class = if t.chars().count() == 1 {
                    "upright"
                } else {
                    "tcy"
                };
                parent.push(el("span").with_attr("class", class).with_text(t.as_str()))
            }
            InlineKind::Math {
                mathml: Some(nodes),
                ..
            } => nodes.iter().cloned().for_each(|n| parent.push(n)),
            // No MathML: the TeX source, marked as such.
            InlineKind::Math { tex, mathml: None } => parent.push(
                el("span")
                    .with_attr("class", "equation")
                    .with_text(tex.as_str()),
            ),
            // An empty span, not an `a`: a term may sit inside a link. Without an id (the book
            // makes no index) there is nothing to link to, so nothing is written.
            InlineKind::IndexTerm { id, .. } => {
                if let Some(id) = id {
                    parent.push(
                        el("span")
                            .with_attr("id", id.as_str())
                            .with_attr("class", "index-term"),
                    );
                }
            }
            InlineKind::LineBreak => parent.push(el("br")),
            InlineKind::PrintPage(p) => parent.push(print_page(p)),
            InlineKind::Raw(nodes) => nodes.iter().cloned().for_each(|n| parent.push(n)),
        }
    }
}

/// Prefixes each line of a listing with its number (`  1: `), keeping inline markup: an
/// element that runs over several lines (a highlighted multi-line comment) is split at each line
/// end into one copy per line, so every source line keeps its own number, as Re:VIEW numbers
/// them.
fn number_lines(body: Element, first: u32) -> Element {
    let mut out = el("code");
    let mut n = first;
    let mut at_line_start = true;
    let mut pieces = Vec::new();
    for child in body.children {
        split_lines(child, &mut pieces);
    }
    // A trailing newline ends the last line; it does not start a new one.
    if let Some(Piece::Break) = pieces.last() {
        pieces.pop();
    }
    let any = !pieces.is_empty();
    for piece in pieces {
        // Every line has its number, an empty one too.
        if at_line_start {
            out.push(line_number(&mut n));
            at_line_start = false;
        }
        match piece {
            Piece::Break => {
                out.push_text("\n");
                at_line_start = true;
            }
            Piece::Node(Node::Text(t)) => out.push_text(&t),
            Piece::Node(other) => out.push(other),
        }
    }
    if at_line_start && any {
        out.push(line_number(&mut n));
    }
    out.push_text("\n");
    out
}

/// A listing's content cut at its line ends.
enum Piece {
    Node(Node),
    Break,
}

/// Appends `node` to `out` as pieces: text split at each `\n`, an element split into one copy
/// (same name and attributes) per line it spans.
fn split_lines(node: Node, out: &mut Vec<Piece>) {
    match node {
        Node::Text(t) => {
            for (i, part) in t.split('\n').enumerate() {
                if i > 0 {
                    out.push(Piece::Break);
                }
                if !part.is_empty() {
                    out.push(Piece::Node(Node::Text(part.to_string())));
                }
            }
        }
        Node::Element(mut e) => {
            let children = std::mem::take(&mut e.children);
            let mut inner = Vec::new();
            for child in children {
                split_lines(child, &mut inner);
            }
            if !inner.iter().any(|p| matches!(p, Piece::Break)) {
                e.children = inner
                    .into_iter()
                    .filter_map(|p| match p {
                        Piece::Node(n) => Some(n),
                        Piece::Break => None,
                    })
                    .collect();
                out.push(Piece::Node(Node::Element(e)));
                return;
            }
            let mut line = Vec::new();
            let flush = |line: &mut Vec<Node>, out: &mut Vec<Piece>| {
                if !line.is_empty() {
                    let mut copy = e.clone();
                    copy.children = std::mem::take(line);
                    out.push(Piece::Node(Node::Element(copy)));
                }
            };
            for p in inner {
                match p {
                    Piece::Node(n) => line.push(n),
                    Piece::Break => {
                        flush(&mut line, out);
                        out.push(Piece::Break);
                    }
                }
            }
            flush(&mut line, out);
        }
        other => out.push(Piece::Node(other)),
    }
}

/// The number at the start of a listing line; advances the count.
fn line_number(n: &mut u32) -> Element {
    let span = el("span")
        .with_attr("class", "lineno")
        .with_text(format!("{n:>2}: "));
    *n += 1;
    span
}

fn admonition_label(kind: AdmonitionKind, ja: bool) -> &'static str {
    use AdmonitionKind::*;
    match (kind, ja) {
        (Note, true) => "ノート",
        (Memo, true) => "メモ",
        (Tip, true) => "TIP",
        (Info, true) => "情報",
        (Warning, true) => "警告",
        (Important, true) => "重要",
        (Caution, true) => "注意",
        (Notice, true) => "注意",
        (Note, false) => "Note",
        (Memo, false) => "Memo",
        (Tip, false) => "Tip",
        (Info, false) => "Information",
        (Warning, false) => "Warning",
        (Important, false) => "Important",
        (Caution, false) => "Caution",
        (Notice, false) => "Notice",
    }
}
