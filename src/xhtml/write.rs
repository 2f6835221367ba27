//! Write: a resolved chapter → the XHTML nodes of its `<body>`.
//!
//! The one writer for every source format. Class names follow the house style sheet
//! (`templates/book.css`); `epub:type` marks chapters, footnotes and note references.
use crate::book::Role;
use crate::doc::*;
use crate::xhtml::dom::{Element, Node};
use crate::xref::{Chapter, footnote_ids};

/// The `epub:type` of a chapter's section, from its place in the book.
pub fn section_type(role: Role) -> &'static str {
    match role {
        Role::Front => "preface",
        Role::Body => "chapter",
        Role::Appendix => "appendix",
        Role::Back => "afterword",
    }
}

/// Writes a chapter as one `<section>` followed by its footnotes.
pub fn write_chapter(ch: &Chapter, ja: bool) -> Vec<Node> {
    let w = Writer {
        ch,
        ja,
        anchored: Default::default(),
    };
    let mut section = Element::new("section")
        .with_attr("epub:type", section_type(ch.source.role))
        .with_attr("class", section_type(ch.source.role));
    if let Some(lang) = &ch.lang {
        section.set_attr("xml:lang", lang.as_str());
        section.set_attr("lang", lang.as_str());
    }
    for b in &ch.doc.blocks {
        w.block(b, &mut section);
    }
    let mut out = vec![Node::Element(section)];
    if !ch.footnotes.is_empty() {
        let mut notes = Element::new("section").with_attr("class", "footnotes");
        for (label, n) in &ch.footnotes {
            if let Some(note) = ch.doc.footnotes.iter().find(|f| &f.label == label) {
                notes.push(w.footnote(note, *n));
            }
        }
        out.push(Node::Element(notes));
    }
    out
}

struct Writer<'a> {
    ch: &'a Chapter,
    ja: bool,
    /// Note references already given their anchor id: a note referred to twice keeps one.
    anchored: std::cell::RefCell<std::collections::HashSet<u32>>,
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

    fn block(&self, b: &Block, parent: &mut Element) {
        match &b.kind {
            BlockKind::Heading(h) => {
                let mut e = with_id(el(&format!("h{}", h.level.clamp(1, 6))), &h.id);
                if let Some(n) = &h.number {
                    e.push(el("span").with_attr("class", "secno").with_text(n.as_str()));
                    e.push_text(if self.ja { "\u{3000}" } else { " " });
                }
                self.inlines(&h.content, &mut e);
                parent.push(e);
            }
            BlockKind::Para(content) => {
                let mut p = el("p");
                self.inlines(content, &mut p);
                parent.push(p);
            }
            BlockKind::List(l) => {
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
                parent.push(list);
            }
            BlockKind::DefinitionList(items) => {
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
                parent.push(dl);
            }
            BlockKind::Code(c) => parent.push(self.code(c)),
            BlockKind::Table(t) => parent.push(self.table(t)),
            BlockKind::Figure(f) => {
                let mut fig = with_id(el("figure").with_attr("class", "figure"), &f.id);
                fig.push(
                    el("img")
                        .with_attr("src", f.image.src.as_str())
                        .with_attr("alt", f.image.alt.as_str()),
                );
                if f.caption.is_some() || f.number.is_some() {
                    let mut cap = el("figcaption");
                    self.caption(&f.number, &f.caption, &mut cap);
                    fig.push(cap);
                }
                parent.push(fig);
            }
            BlockKind::Quote {
                blocks,
                attribution,
            } => {
                let mut q = el("blockquote");
                self.blocks(blocks, &mut q);
                if let Some(a) = attribution {
                    let mut p = el("p").with_attr("class", "attribution");
                    self.inlines(a, &mut p);
                    q.push(p);
                }
                parent.push(q);
            }
            BlockKind::Admonition {
                kind,
                title,
                blocks,
            } => {
                let mut d = el("div").with_attr("class", format!("admonition {}", kind.class()));
                let mut t = el("p").with_attr("class", "admonition-title");
                match title {
                    Some(title) => self.inlines(title, &mut t),
                    None => t.push_text(admonition_label(*kind, self.ja)),
                }
                d.push(t);
                self.blocks(blocks, &mut d);
                parent.push(d);
            }
            BlockKind::Sidebar { id, title, blocks } => {
                let mut a = with_id(el("aside").with_attr("class", "column"), id);
                if let Some(title) = title {
                    let mut t = el("p").with_attr("class", "column-title");
                    self.inlines(title, &mut t);
                    a.push(t);
                }
                self.blocks(blocks, &mut a);
                parent.push(a);
            }
            BlockKind::Math(m) => {
                let mut d = with_id(el("div").with_attr("class", "equation"), &m.id);
                match &m.mathml {
                    Some(nodes) => nodes.iter().cloned().for_each(|n| d.push(n)),
                    None => d.push(
                        el("pre")
                            .with_attr("class", "math tex")
                            .with_text(m.tex.as_str()),
                    ),
                }
                if let Some(n) = &m.number {
                    d.push(el("span").with_attr("class", "eqno").with_text(n.as_str()));
                }
                parent.push(d);
            }
            BlockKind::Div { class, blocks } => {
                let mut d = el("div").with_attr("class", class.as_str());
                self.blocks(blocks, &mut d);
                parent.push(d);
            }
            BlockKind::Rule => parent.push(el("hr")),
            BlockKind::PageBreak => parent.push(el("div").with_attr("class", "pagebreak")),
            BlockKind::Raw(nodes) => nodes.iter().cloned().for_each(|n| parent.push(n)),
        }
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

    fn caption(&self, number: &Option<String>, caption: &Option<Inlines>, into: &mut Element) {
        if let Some(n) = number {
            into.push(
                el("span")
                    .with_attr("class", "caption-number")
                    .with_text(n.as_str()),
            );
            if caption.is_some() {
                into.push_text(if self.ja { "\u{3000}" } else { " " });
            }
        }
        if let Some(c) = caption {
            self.inlines(c, into);
        }
    }

    fn code(&self, c: &Code) -> Element {
        let mut code = el("code");
        if let Some(lang) = &c.language {
            code.set_attr("class", format!("language-{lang}"));
        }
        match c.first_line_number {
            Some(first) => {
                let text = c.text.strip_suffix('\n').unwrap_or(&c.text);
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        code.push_text("\n");
                    }
                    code.push(
                        el("span")
                            .with_attr("class", "lineno")
                            .with_text(format!("{:>3}: ", first as usize + i)),
                    );
                    code.push_text(line);
                }
                code.push_text("\n");
            }
            None => code.push_text(&c.text),
        }
        let pre = el("pre").with_attr("class", "code").with_child(code);
        if c.caption.is_none() && c.id.is_none() && c.number.is_none() {
            return pre;
        }
        let mut d = with_id(el("div").with_attr("class", "listing"), &c.id);
        if c.caption.is_some() || c.number.is_some() {
            let mut p = el("p").with_attr("class", "caption");
            self.caption(&c.number, &c.caption, &mut p);
            d.push(p);
        }
        d.push(pre);
        d
    }

    fn table(&self, t: &Table) -> Element {
        let mut table = with_id(el("table"), &t.id);
        if t.caption.is_some() || t.number.is_some() {
            let mut cap = el("caption");
            self.caption(&t.number, &t.caption, &mut cap);
            table.push(cap);
        }
        for (rows, group, cell_name) in [(&t.head, "thead", "th"), (&t.body, "tbody", "td")] {
            if rows.is_empty() {
                continue;
            }
            let mut g = el(group);
            for row in rows {
                let mut tr = el("tr");
                for cell in &row.cells {
                    let mut c = el(cell_name);
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
                    self.inlines(&cell.content, &mut c);
                    tr.push(c);
                }
                g.push(tr);
            }
            table.push(g);
        }
        table
    }

    fn footnote(&self, note: &Footnote, n: u32) -> Element {
        let (id, ref_id) = footnote_ids(&self.ch.stem, n);
        let mut aside = el("aside")
            .with_attr("epub:type", "footnote")
            .with_attr("id", id)
            .with_attr("class", "footnote");
        let back = el("a")
            .with_attr("href", format!("#{ref_id}"))
            .with_attr("class", "footnote-number")
            .with_text(format!("*{n}"));
        let mut body = el("div");
        self.blocks(&note.blocks, &mut body);
        let mut blocks = body.children.into_iter();
        // The number goes at the start of the note's first paragraph, as printed books do.
        match blocks.next() {
            Some(Node::Element(mut p)) if p.name == "p" => {
                p.children.insert(0, Node::Text(" ".into()));
                p.children.insert(0, Node::Element(back));
                aside.push(p);
            }
            first => {
                aside.push(el("p").with_child(back));
                aside.children.extend(first);
            }
        }
        aside.children.extend(blocks);
        aside
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

    fn inline(&self, i: &Inline, parent: &mut Element) {
        match &i.kind {
            InlineKind::Text(t) => parent.push_text(t),
            InlineKind::Emphasis(c) => self.wrap("em", c, parent),
            InlineKind::Strong(c) => self.wrap("strong", c, parent),
            InlineKind::Code(t) => parent.push(el("code").with_text(t.as_str())),
            InlineKind::Superscript(c) => self.wrap("sup", c, parent),
            InlineKind::Subscript(c) => self.wrap("sub", c, parent),
            InlineKind::Deleted(c) => self.wrap("del", c, parent),
            InlineKind::Inserted(c) => self.wrap("ins", c, parent),
            InlineKind::Underline(c) => self.span("underline", c, parent),
            InlineKind::Span { class, content } => self.span(class, content, parent),
            InlineKind::Link { href, content } => {
                let mut a = el("a").with_attr("href", href.as_str());
                self.inlines(content, &mut a);
                parent.push(a);
            }
            InlineKind::Ref { target, content } => match content {
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
                let Some((_, n)) = self.ch.footnotes.iter().find(|(l, _)| l == label) else {
                    return;
                };
                let (id, ref_id) = footnote_ids(&self.ch.stem, *n);
                let first = self.anchored.borrow_mut().insert(*n);
                let mut a = el("a")
                    .with_attr("epub:type", "noteref")
                    .with_attr("class", "noteref")
                    .with_attr("href", format!("#{id}"));
                if first {
                    a.set_attr("id", ref_id);
                }
                a.push_text(&format!("*{n}"));
                parent.push(el("sup").with_child(a));
            }
            InlineKind::Ruby { base, text } => parent.push(
                el("ruby")
                    .with_text(base.as_str())
                    .with_child(el("rt").with_text(text.as_str())),
            ),
            InlineKind::EmphasisDots(c) => self.span("em-sesame", c, parent),
            InlineKind::TateChuYoko(t) => {
                parent.push(el("span").with_attr("class", "tcy").with_text(t.as_str()))
            }
            InlineKind::Math(t) => parent.push(
                el("span")
                    .with_attr("class", "math tex")
                    .with_text(t.as_str()),
            ),
            InlineKind::IndexTerm(_) => {}
            InlineKind::LineBreak => parent.push(el("br")),
            InlineKind::Raw(nodes) => nodes.iter().cloned().for_each(|n| parent.push(n)),
        }
    }
}

fn admonition_label(kind: AdmonitionKind, ja: bool) -> &'static str {
    use AdmonitionKind::*;
    match (kind, ja) {
        (Note, true) => "ノート",
        (Memo, true) => "メモ",
        (Tip, true) => "ヒント",
        (Info, true) => "情報",
        (Warning, true) => "警告",
        (Important, true) => "重要",
        (Caution, true) | (Notice, true) => "注意",
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
