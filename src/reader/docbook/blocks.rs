//! Block elements: divisions and sections, paragraphs, lists, listings, figures, admonitions…
use super::*;

/// Elements read in block context (everything else in a block container is inline content
/// and gathered into a paragraph).
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "para"
            | "simpara"
            | "formalpara"
            | "itemizedlist"
            | "orderedlist"
            | "variablelist"
            | "simplelist"
            | "segmentedlist"
            | "calloutlist"
            | "programlisting"
            | "screen"
            | "synopsis"
            | "literallayout"
            | "address"
            | "example"
            | "informalexample"
            | "figure"
            | "informalfigure"
            | "mediaobject"
            | "graphic"
            | "screenshot"
            | "table"
            | "informaltable"
            | "sidebar"
            | "note"
            | "tip"
            | "warning"
            | "caution"
            | "important"
            | "blockquote"
            | "epigraph"
            | "procedure"
            | "equation"
            | "informalequation"
            | "qandaset"
            | "glosslist"
            | "glossentry"
            | "bibliolist"
            | "biblioentry"
            | "bibliomixed"
            | "bridgehead"
            | "section"
            | "sect1"
            | "sect2"
            | "sect3"
            | "sect4"
            | "sect5"
            | "simplesect"
            | "refsect1"
            | "refsect2"
            | "refsect3"
            | "refsection"
            | "refsynopsisdiv"
            | "refnamediv"
            | "refentry"
            | "reference"
            | "glossary"
            | "bibliography"
            | "index"
            | "setindex"
            | "glossdiv"
            | "bibliodiv"
            | "indexdiv"
            | "qandadiv"
            | "chapter"
            | "appendix"
            | "preface"
            | "article"
            | "part"
            | "colophon"
            | "dedication"
            | "acknowledgements"
            | "legalnotice"
            | "partintro"
            | "task"
            | "revhistory"
            | "cmdsynopsis"
            | "funcsynopsis"
            | "classsynopsis"
            | "abstract"
            | "highlights"
            | "programlistingco"
            | "screenco"
            | "mediaobjectco"
            | "toc"
            | "lot"
            | "msgset"
            | "productionset"
            | "informalexample_"
            | "refmeta"
            | "indexentry"
    )
}

/// Children that belong to their parent's heading or metadata, not to its content.
fn is_heading_part(name: &str) -> bool {
    matches!(name, "title" | "subtitle" | "titleabbrev") || super::is_info(name)
}

fn is_section(name: &str) -> bool {
    matches!(
        name,
        "section"
            | "sect1"
            | "sect2"
            | "sect3"
            | "sect4"
            | "sect5"
            | "simplesect"
            | "refsect1"
            | "refsect2"
            | "refsect3"
            | "refsection"
            | "refsynopsisdiv"
            | "glossdiv"
            | "bibliodiv"
            | "indexdiv"
            | "chapter"
            | "appendix"
            | "preface"
            | "article"
            | "glossary"
            | "bibliography"
            | "index"
            | "setindex"
            | "colophon"
            | "dedication"
            | "acknowledgements"
            | "legalnotice"
            | "refentry"
            | "reference"
            | "part"
    )
}

/// The title a division may go without.
fn default_title(name: &str) -> Option<&'static str> {
    Some(match name {
        "glossary" => "Glossary",
        "bibliography" => "Bibliography",
        "index" | "setindex" => "Index",
        "preface" => "Preface",
        "dedication" => "Dedication",
        "colophon" => "Colophon",
        "legalnotice" => "Legal Notice",
        "acknowledgements" => "Acknowledgements",
        "refsynopsisdiv" => "Synopsis",
        "abstract" => "Abstract",
        "revhistory" => "Revision History",
        _ => return None,
    })
}

impl Conv<'_> {
    /// A division or section: its heading at `level`, then its content one level down.
    pub(super) fn section(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        let level = level.clamp(1, 6);
        let heading = self.heading(el, level);
        out.push(heading);
        // The subtitle is shown under the title, as DocBook XSL shows it; not in the contents.
        if let Some(sub) = subtitle_el(el) {
            let content = self.inlines(sub);
            if !plain_text(&content).trim().is_empty() {
                let class = "subtitle".to_string();
                out.push(Block::new(
                    BlockKind::StyledPara { class, content },
                    pos_of(sub),
                ));
            }
        }
        self.titlepage(el, out);
        let next = (level + 1).min(6);
        match el.local_name() {
            "refentry" => self.refentry_body(el, next, out),
            // A book's revision history as a page of its own, under its heading.
            "revhistory" => self.revhistory(el, false, out),
            "part" => {
                if let Some(pi) = el.child("partintro") {
                    self.anchor_block(pi, out);
                    self.blocks_into(pi, next, out);
                }
                // Nested parts' chapters inside a chapter-level part (rare) keep their text.
                if level > 1 {
                    for c in el
                        .child_elements()
                        .filter(|c| c.local_name() != "partintro")
                    {
                        if !is_heading_part(c.local_name()) {
                            self.block(c, next, out);
                        }
                    }
                }
            }
            // An index without entries of its own is where the book's generated index goes.
            "index" | "setindex" => {
                let has_entries = el
                    .child_elements()
                    .any(|c| matches!(c.local_name(), "indexentry" | "indexdiv"));
                if !has_entries {
                    out.push(Block::new(BlockKind::Index, pos_of(el)));
                }
                self.blocks_into(el, next, out);
            }
            _ => self.blocks_into(el, next, out),
        }
    }

    fn heading(&mut self, el: &Element, level: u8) -> Block {
        let mut content = match title_el(el) {
            Some(t) => self.inlines(t),
            None => Vec::new(),
        };
        if el.local_name() == "refentry" && plain_text(&content).trim().is_empty() {
            let name = xref_text(el);
            if !name.is_empty() {
                content = vec![Inline::text(name, pos_of(el))];
            }
        }
        if plain_text(&content).trim().is_empty() {
            let text = match default_title(el.local_name()) {
                Some(_) if el.local_name() == "revhistory" => self.revhistory_words().0.into(),
                Some(t) => t.to_string(),
                None => {
                    let words = first_words(el);
                    let what = if title_el(el).is_some() {
                        "an empty title"
                    } else {
                        "no title"
                    };
                    self.warn(
                        codes::MISSING_TITLE,
                        el,
                        format!(
                            "this `<{}>` has {what}; the table of contents shows “{words}” instead",
                            el.local_name()
                        ),
                    );
                    words
                }
            };
            content.retain(|i| !matches!(i.kind, InlineKind::Text(_)));
            content.insert(0, Inline::text(text, pos_of(el)));
        }
        Block::new(
            BlockKind::Heading(Heading {
                level,
                id: el.id().map(str::to_string),
                numbered: true,
                in_toc: true,
                shown: true,
                number: None,
                content,
            }),
            pos_of(el),
        )
    }

    fn refentry_body(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        for c in el.child_elements() {
            match c.local_name() {
                "refmeta" | "indexterm" => {}
                "refnamediv" => {
                    self.anchor_block(c, out);
                    let names: Vec<String> = c
                        .child_elements()
                        .filter(|e| e.local_name() == "refname")
                        .map(|e| squash(&e.text()))
                        .collect();
                    let mut content = vec![Inline::text(names.join(", "), pos_of(c))];
                    if let Some(p) = c.child("refpurpose") {
                        content.push(Inline::text(" — ", pos_of(p)));
                        content.extend(self.inlines(p));
                    }
                    trim_inlines(&mut content);
                    out.push(Block::new(BlockKind::Para(content), pos_of(c)));
                }
                _ if is_heading_part(c.local_name()) => {}
                _ => self.block(c, level, out),
            }
        }
    }

    /// An `Anchor` block for an element whose model node has no id field.
    pub(super) fn anchor_block(&mut self, el: &Element, out: &mut Vec<Block>) {
        if let Some(id) = el.id() {
            out.push(Block::new(BlockKind::Anchor(id.to_string()), pos_of(el)));
        }
    }

    /// The content of a block container: block children converted, runs of inline content
    /// (text, inline elements) gathered into paragraphs.
    pub(super) fn blocks_into(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        self.mixed(el, level, out, None);
    }

    /// Mixed content; `para` gives the class and id of the first paragraph when `el` is a para.
    fn mixed(&mut self, el: &Element, level: u8, out: &mut Vec<Block>, para: Option<&Element>) {
        let mut pending: Inlines = Vec::new();
        let pos = pos_of(el);
        let mut pending_pos = pos;
        let mut gloss: Vec<&Element> = Vec::new();
        let mut first_para = para;
        for n in &el.children {
            match n {
                Node::Text(t) => {
                    // Text has no position of its own: it is at its element's.
                    if pending.is_empty() {
                        pending_pos = pos;
                    }
                    self.text(t, pos, &mut pending);
                }
                Node::Comment(_) => {}
                Node::Element(c) if para.is_none() && is_heading_part(c.local_name()) => {}
                Node::Element(c) if c.local_name() == "glossentry" => {
                    self.flush_para(&mut pending, pending_pos, out, &mut first_para);
                    gloss.push(c);
                }
                Node::Element(c) if is_block(c.local_name()) || self.has_block_child(c) => {
                    self.flush_gloss(&mut gloss, out);
                    self.flush_para(&mut pending, pending_pos, out, &mut first_para);
                    self.block(c, level, out);
                }
                Node::Element(c) => {
                    self.flush_gloss(&mut gloss, out);
                    if pending.is_empty() {
                        pending_pos = pos_of(c);
                    }
                    self.inline(c, &mut pending);
                }
            }
        }
        self.flush_gloss(&mut gloss, out);
        self.flush_para(&mut pending, pending_pos, out, &mut first_para);
        if let Some(p) = first_para {
            // A para with no inline text at all still keeps its id.
            self.anchor_block(p, out);
        }
    }

    /// An element we do not know that holds blocks is read as a block container.
    fn has_block_child(&self, el: &Element) -> bool {
        !inlines::is_inline(el.local_name())
            && el.child_elements().any(|c| {
                is_block(c.local_name()) && !matches!(c.local_name(), "graphic" | "mediaobject")
            })
    }

    fn flush_gloss(&mut self, gloss: &mut Vec<&Element>, out: &mut Vec<Block>) {
        if gloss.is_empty() {
            return;
        }
        let pos = pos_of(gloss[0]);
        let items = gloss.drain(..).map(|g| self.glossentry(g)).collect();
        out.push(Block::new(BlockKind::DefinitionList(items), pos));
    }

    fn flush_para(
        &mut self,
        pending: &mut Inlines,
        pos: Pos,
        out: &mut Vec<Block>,
        first_para: &mut Option<&Element>,
    ) {
        if pending.is_empty() {
            return;
        }
        let mut content = std::mem::take(pending);
        trim_inlines(&mut content);
        if content.is_empty() {
            return;
        }
        // Raw markup with no text is an anchor; math and generated code (a `tag`) are seen.
        let visible = content.iter().any(|i| !is_mark(&i.kind));
        if !visible {
            // Only index terms and anchors: anchors become blocks, index terms join the
            // previous paragraph when there is one.
            let mut terms = Vec::new();
            let mut pages = Vec::new();
            for i in content {
                match i.kind {
                    InlineKind::PrintPage(p) => {
                        pages.push(Block::new(BlockKind::PrintPage(p), i.pos));
                    }
                    InlineKind::Raw(nodes) => {
                        for n in nodes {
                            if let crate::dom::Node::Element(e) = n
                                && let Some(id) = e.attr("id")
                            {
                                out.push(Block::new(BlockKind::Anchor(id.to_string()), i.pos));
                            }
                        }
                    }
                    _ => terms.push(i),
                }
            }
            if terms.is_empty() {
                out.append(&mut pages);
                return;
            }
            if let Some(Block {
                kind: BlockKind::Para(c) | BlockKind::StyledPara { content: c, .. },
                ..
            }) = out.last_mut()
            {
                c.extend(terms);
            } else {
                out.push(Block::new(BlockKind::Para(terms), pos));
            }
            out.append(&mut pages);
            return;
        }
        let mut class = None;
        let mut pos = pos;
        if let Some(p) = first_para.take() {
            pos = pos_of(p);
            self.anchor_block(p, out);
            class = p.attr("role").map(str::to_string).filter(|r| !r.is_empty());
        }
        let kind = match class {
            Some(class) => BlockKind::StyledPara { class, content },
            None => BlockKind::Para(content),
        };
        out.push(Block::new(kind, pos));
    }

    /// One block-level element.
    pub(super) fn block(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        let name = el.local_name();
        if inlines::is_inline(name) && !is_block(name) {
            let mut pending = Vec::new();
            self.inline(el, &mut pending);
            self.flush_para(&mut pending, pos_of(el), out, &mut None);
            return;
        }
        match name {
            "para" | "simpara" => self.mixed(el, level, out, Some(el)),
            "formalpara" => self.formalpara(el, level, out),
            "itemizedlist" | "orderedlist" => {
                self.anchor_block(el, out);
                self.caption(el, out);
                let start = (name == "orderedlist").then(|| {
                    el.attr("startingnumber")
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(1)
                });
                let mut items: Vec<Vec<Block>> = Vec::new();
                // A print page break between items starts the next one (a list holds items).
                let mut held = Vec::new();
                for li in el.child_elements() {
                    if li.local_name() == "listitem" {
                        let mut b = std::mem::take(&mut held);
                        self.anchor_block(li, &mut b);
                        self.blocks_into(li, level, &mut b);
                        items.push(b);
                    } else if !is_heading_part(li.local_name()) {
                        let mut b = Vec::new();
                        self.block(li, level, &mut b);
                        let pages = b.iter().all(|b| matches!(b.kind, BlockKind::PrintPage(_)));
                        match pages && !items.is_empty() {
                            true => held.extend(b),
                            false => out.extend(b),
                        }
                    }
                }
                if let Some(last) = items.last_mut() {
                    last.append(&mut held);
                }
                out.push(Block::new(
                    BlockKind::List(List { start, items }),
                    pos_of(el),
                ));
            }
            "variablelist" => {
                self.anchor_block(el, out);
                self.caption(el, out);
                let mut items = Vec::new();
                for e in el.child_elements() {
                    if e.local_name() == "varlistentry" {
                        items.push(self.varlistentry(e, level));
                    } else if !is_heading_part(e.local_name()) {
                        self.block(e, level, out);
                    }
                }
                out.push(Block::new(BlockKind::DefinitionList(items), pos_of(el)));
            }
            "simplelist" => self.simplelist(el, out),
            "segmentedlist" => self.segmentedlist(el, out),
            "calloutlist" => self.calloutlist(el, level, out),
            "procedure" => self.procedure(el, level, out),
            "programlisting" => self.code(el, CodeStyle::Example, out),
            "screen" => self.code(el, CodeStyle::Command, out),
            "synopsis" | "literallayout" | "address" => self.code(el, CodeStyle::Box, out),
            "cmdsynopsis" | "funcsynopsis" | "classsynopsis" => {
                let text = match name {
                    "cmdsynopsis" => super::synopsis::cmdsynopsis(el),
                    "funcsynopsis" => super::synopsis::funcsynopsis(el),
                    _ => squash(&el.text()),
                };
                out.push(Block::new(
                    BlockKind::Code(Box::new(Code {
                        style: CodeStyle::Box,
                        id: el.id().map(str::to_string),
                        number: None,
                        caption: None,
                        language: None,
                        first_line_number: None,
                        text,
                        markup: None,
                    })),
                    pos_of(el),
                ));
            }
            "programlistingco" | "screenco" | "mediaobjectco" => {
                self.anchor_block(el, out);
                for c in el.child_elements().filter(|c| c.local_name() != "areaspec") {
                    self.block(c, level, out);
                }
            }
            "example" | "informalexample" | "task" | "abstract" | "highlights" => {
                let mut blocks = Vec::new();
                self.anchor_block(el, &mut blocks);
                self.caption(el, &mut blocks);
                self.blocks_into(el, level, &mut blocks);
                let class = if name == "informalexample" {
                    "example".to_string()
                } else {
                    name.to_string()
                };
                out.push(Block::new(BlockKind::Div { class, blocks }, pos_of(el)));
            }
            "figure" | "informalfigure" | "mediaobject" | "graphic" | "screenshot" => {
                self.figure(el, level, out)
            }
            "table" | "informaltable" => self.table(el, out),
            "sidebar" => {
                let title = title_el(el).map(|t| self.inlines(t));
                let mut blocks = Vec::new();
                self.blocks_into(el, level, &mut blocks);
                out.push(Block::new(
                    BlockKind::Sidebar {
                        id: el.id().map(str::to_string),
                        title,
                        heading: None,
                        blocks,
                    },
                    pos_of(el),
                ));
            }
            "note" | "tip" | "warning" | "caution" | "important" => {
                let kind = match name {
                    "note" => AdmonitionKind::Note,
                    "tip" => AdmonitionKind::Tip,
                    "warning" => AdmonitionKind::Warning,
                    "caution" => AdmonitionKind::Caution,
                    _ => AdmonitionKind::Important,
                };
                self.anchor_block(el, out);
                let title = title_el(el).map(|t| self.inlines(t));
                let mut blocks = Vec::new();
                self.blocks_into(el, level, &mut blocks);
                out.push(Block::new(
                    BlockKind::Admonition {
                        kind,
                        // DocBook's stylesheets head an untitled note with its kind.
                        title: AdmonitionTitle::or_kind_word(title),
                        blocks,
                    },
                    pos_of(el),
                ));
            }
            "blockquote" | "epigraph" => {
                self.anchor_block(el, out);
                let attribution = el.child("attribution").map(|a| {
                    let mut i = self.inlines(a);
                    trim_inlines(&mut i);
                    i
                });
                let mut blocks = Vec::new();
                self.caption(el, &mut blocks);
                for n in &el.children {
                    if let Node::Element(c) = n
                        && (c.local_name() == "attribution" || is_heading_part(c.local_name()))
                    {
                        continue;
                    }
                    self.mixed_child(n, pos_of(el), level, &mut blocks);
                }
                out.push(Block::new(
                    BlockKind::Quote {
                        blocks,
                        attribution,
                    },
                    pos_of(el),
                ));
            }
            "equation" | "informalequation" => {
                let caption = title_el(el).map(|t| self.inlines(t));
                let mut math = self.math(el);
                math.id = el.id().map(str::to_string);
                math.caption = caption;
                out.push(Block::new(BlockKind::Math(Box::new(math)), pos_of(el)));
            }
            "qandaset" | "qandadiv" => self.qanda(el, level, out),
            "glosslist" => {
                self.anchor_block(el, out);
                self.caption(el, out);
                let items = el
                    .child_elements()
                    .filter(|e| e.local_name() == "glossentry")
                    .map(|g| self.glossentry(g))
                    .collect();
                out.push(Block::new(BlockKind::DefinitionList(items), pos_of(el)));
            }
            "glossentry" => {
                let item = self.glossentry(el);
                out.push(Block::new(
                    BlockKind::DefinitionList(vec![item]),
                    pos_of(el),
                ));
            }
            "bibliolist" => {
                self.anchor_block(el, out);
                self.caption(el, out);
                self.blocks_into(el, level, out);
            }
            "biblioentry" | "bibliomixed" => self.bibitem(el, out),
            "bridgehead" => {
                let mut content = self.inlines(el);
                trim_inlines(&mut content);
                if content.is_empty() {
                    content.push(Inline::text(first_words(el), pos_of(el)));
                }
                out.push(Block::new(
                    BlockKind::Heading(Heading {
                        level: 4,
                        id: el.id().map(str::to_string),
                        numbered: false,
                        in_toc: false,
                        shown: true,
                        number: None,
                        content,
                    }),
                    pos_of(el),
                ));
            }
            "revhistory" => self.revhistory(el, true, out),
            "refnamediv" | "refmeta" => {
                let mut tmp = Vec::new();
                self.anchor_block(el, out);
                let text = squash(&el.text());
                if !text.is_empty() {
                    tmp.push(Block::new(
                        BlockKind::Para(vec![Inline::text(text, pos_of(el))]),
                        pos_of(el),
                    ));
                }
                out.extend(tmp);
            }
            "partintro" => {
                self.anchor_block(el, out);
                self.blocks_into(el, level, out);
            }
            "toc" | "lot" => {}
            // A written index, kept as written: each line a paragraph of its level's class
            // (`primaryie`, `secondaryie`, `seeie`…), its links kept.
            "indexentry" => {
                self.anchor_block(el, out);
                for c in el.child_elements() {
                    let content = self.inlines(c);
                    if !plain_text(&content).trim().is_empty() {
                        let class = c.local_name().to_string();
                        out.push(Block::new(
                            BlockKind::StyledPara { class, content },
                            pos_of(c),
                        ));
                    }
                }
            }
            _ if is_section(name) => self.section(el, level, out),
            _ => {
                // An element we do not know: its content is kept.
                self.unhandled(el);
                self.anchor_block(el, out);
                self.blocks_into(el, level, out);
            }
        }
    }

    /// A `title` of a list, procedure or example, as a caption paragraph.
    pub(super) fn caption(&mut self, el: &Element, out: &mut Vec<Block>) {
        if let Some(t) = el.child("title").or_else(|| title_el(el)) {
            let mut content = self.inlines(t);
            trim_inlines(&mut content);
            if !content.is_empty() {
                out.push(Block::new(
                    BlockKind::StyledPara {
                        class: "caption".into(),
                        content,
                    },
                    pos_of(t),
                ));
            }
        }
    }

    fn formalpara(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        let mut title = match el.child("title") {
            Some(t) => self.inlines(t),
            None => Vec::new(),
        };
        trim_inlines(&mut title);
        let mut blocks = Vec::new();
        for c in el
            .child_elements()
            .filter(|c| !is_heading_part(c.local_name()))
        {
            self.block(c, level, &mut blocks);
        }
        if !title.is_empty() {
            let bold = Inline::new(InlineKind::Bold(title), pos_of(el));
            match blocks
                .iter_mut()
                .find(|b| matches!(b.kind, BlockKind::Para(_) | BlockKind::StyledPara { .. }))
            {
                Some(Block {
                    kind: BlockKind::Para(c) | BlockKind::StyledPara { content: c, .. },
                    ..
                }) => {
                    c.insert(0, Inline::text(" ", pos_of(el)));
                    c.insert(0, bold);
                }
                _ => blocks.insert(0, Block::new(BlockKind::Para(vec![bold]), pos_of(el))),
            }
        }
        out.extend(blocks);
    }

    fn varlistentry(&mut self, e: &Element, level: u8) -> DefinitionItem {
        let mut term: Inlines = Vec::new();
        if let Some(id) = e.id() {
            term.push(anchor_inline(id, pos_of(e)));
        }
        let mut first = true;
        let mut definitions = Vec::new();
        for c in e.child_elements() {
            match c.local_name() {
                "term" => {
                    if !first {
                        term.push(Inline::text(", ", pos_of(c)));
                    }
                    first = false;
                    let mut t = Vec::new();
                    self.inline_children_with_id(c, &mut t);
                    trim_inlines(&mut t);
                    term.extend(t);
                }
                "listitem" => {
                    let mut b = Vec::new();
                    self.anchor_block(c, &mut b);
                    self.blocks_into(c, level, &mut b);
                    definitions.push(b);
                }
                _ => {
                    let mut b = Vec::new();
                    self.block(c, level, &mut b);
                    definitions.push(b);
                }
            }
        }
        if definitions.is_empty() {
            definitions.push(Vec::new());
        }
        DefinitionItem { term, definitions }
    }

    fn simplelist(&mut self, el: &Element, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        let members: Vec<&Element> = el
            .child_elements()
            .filter(|m| m.local_name() == "member")
            .collect();
        if el.attr("type") == Some("inline") {
            let mut content = Vec::new();
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    content.push(Inline::text(", ", pos_of(m)));
                }
                let mut t = Vec::new();
                self.inline_children_with_id(m, &mut t);
                trim_inlines(&mut t);
                content.extend(t);
            }
            out.push(Block::new(BlockKind::Para(content), pos_of(el)));
            return;
        }
        let items = members
            .iter()
            .map(|m| {
                let mut t = Vec::new();
                self.inline_children_with_id(m, &mut t);
                trim_inlines(&mut t);
                vec![Block::new(BlockKind::Para(t), pos_of(m))]
            })
            .collect();
        out.push(Block::new(
            BlockKind::List(List { start: None, items }),
            pos_of(el),
        ));
    }

    fn procedure(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        // A titled procedure is numbered as DocBook XSL numbers it (`Procedure 2.1.`): in a
        // `div.procedure` whose anchor and caption the resolver numbers, as an example's.
        if title_el(el).is_some() {
            let mut blocks = Vec::new();
            self.procedure_blocks(el, level, &mut blocks);
            let class = "procedure".to_string();
            out.push(Block::new(BlockKind::Div { class, blocks }, pos_of(el)));
        } else {
            self.procedure_blocks(el, level, out);
        }
    }

    fn procedure_blocks(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        self.caption(el, out);
        let mut items = Vec::new();
        for c in el.child_elements() {
            match c.local_name() {
                "step" => items.push(self.step(c, level)),
                _ if is_heading_part(c.local_name()) => {}
                _ => {
                    if !items.is_empty() {
                        out.push(Block::new(
                            BlockKind::List(List {
                                start: Some(1),
                                items: std::mem::take(&mut items),
                            }),
                            pos_of(el),
                        ));
                    }
                    self.block(c, level, out);
                }
            }
        }
        out.push(Block::new(
            BlockKind::List(List {
                start: Some(1),
                items,
            }),
            pos_of(el),
        ));
    }

    fn step(&mut self, step: &Element, level: u8) -> Vec<Block> {
        let mut b = Vec::new();
        self.anchor_block(step, &mut b);
        if let Some(t) = step.child("title") {
            let mut content = self.inlines(t);
            trim_inlines(&mut content);
            b.push(Block::new(
                BlockKind::Para(vec![Inline::new(InlineKind::Bold(content), pos_of(t))]),
                pos_of(t),
            ));
        }
        for c in &step.children {
            match c {
                Node::Element(s)
                    if s.local_name() == "substeps" || s.local_name() == "stepalternatives" =>
                {
                    self.anchor_block(s, &mut b);
                    let items = s
                        .child_elements()
                        .filter(|x| x.local_name() == "step")
                        .map(|x| self.step(x, level))
                        .collect();
                    let start = (s.local_name() == "substeps").then_some(1);
                    b.push(Block::new(
                        BlockKind::List(List { start, items }),
                        pos_of(s),
                    ));
                }
                Node::Element(s) if is_heading_part(s.local_name()) => {}
                other => self.mixed_child(other, pos_of(step), level, &mut b),
            }
        }
        b
    }

    /// One child of mixed content (a quote, a step): a block as a block, loose inline markup
    /// or text as a paragraph of its own. Text is placed at `pos`, its parent's.
    fn mixed_child(&mut self, node: &Node, pos: Pos, level: u8, out: &mut Vec<Block>) {
        match node {
            Node::Element(c) if is_block(c.local_name()) => self.block(c, level, out),
            Node::Element(c) => {
                let mut i = Vec::new();
                self.inline(c, &mut i);
                trim_inlines(&mut i);
                if !i.is_empty() {
                    out.push(Block::new(BlockKind::Para(i), pos_of(c)));
                }
            }
            Node::Text(t) if !t.trim().is_empty() => {
                out.push(Block::new(
                    BlockKind::Para(vec![Inline::text(squash(t), pos)]),
                    pos,
                ));
            }
            Node::Text(_) | Node::Comment(_) => {}
        }
    }

    fn code(&mut self, el: &Element, style: CodeStyle, out: &mut Vec<Block>) {
        let saved = self.verbatim;
        self.verbatim = true;
        let mut markup = Vec::new();
        for n in &el.children {
            match n {
                Node::Text(t) => push_merged(&mut markup, Inline::text(t.clone(), pos_of(el))),
                Node::Element(c) => self.inline(c, &mut markup),
                Node::Comment(_) => {}
            }
        }
        self.verbatim = saved;
        // One line break right after the start tag and trailing blank space are layout.
        if let Some(Inline {
            kind: InlineKind::Text(t),
            ..
        }) = markup.first_mut()
            && let Some(rest) = t.strip_prefix("\r\n").or_else(|| t.strip_prefix('\n'))
        {
            *t = rest.to_string();
        }
        if let Some(Inline {
            kind: InlineKind::Text(t),
            ..
        }) = markup.last_mut()
        {
            let trimmed = t.trim_end().len();
            t.truncate(trimmed);
        }
        markup.retain(|i| !matches!(&i.kind, InlineKind::Text(t) if t.is_empty()));
        let text = plain_text(&markup);
        let has_markup = markup
            .iter()
            .any(|i| !matches!(i.kind, InlineKind::Text(_)));
        let first_line_number = (el.attr("linenumbering") == Some("numbered")).then(|| {
            el.attr("startinglinenumber")
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(1)
        });
        out.push(Block::new(
            BlockKind::Code(Box::new(Code {
                style,
                id: el.id().map(str::to_string),
                number: None,
                caption: None,
                language: el
                    .attr("language")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
                first_line_number,
                text,
                markup: has_markup.then_some(markup),
            })),
            pos_of(el),
        ));
    }

    fn figure(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        let title = title_el(el).map(|t| {
            let mut c = self.inlines(t);
            trim_inlines(&mut c);
            c
        });
        let media: Option<&Element> = if matches!(el.local_name(), "mediaobject" | "graphic") {
            Some(el)
        } else {
            find_media(el)
        };
        let Some(media) = media else {
            // A figure holding something else (a table, a listing): keep it as a captioned box.
            let mut blocks = Vec::new();
            self.anchor_block(el, &mut blocks);
            self.caption(el, &mut blocks);
            self.blocks_into(el, level, &mut blocks);
            out.push(Block::new(
                BlockKind::Div {
                    class: "figure".into(),
                    blocks,
                },
                pos_of(el),
            ));
            return;
        };
        let (image, fallback) = self.pick_image(media);
        let mut caption = title.filter(|t| !t.is_empty());
        let numbered = el.local_name() == "figure" && caption.is_some();
        // The media object's own caption: the figure's caption when it has no title, else
        // shown under the image as DocBook XSL shows it (`div class="caption"`).
        let mut media_caption = None;
        if let Some(c) = media.child("caption") {
            if caption.is_none() {
                let mut i = Vec::new();
                self.inline_children_with_id(c, &mut i);
                trim_inlines(&mut i);
                if !i.is_empty() {
                    caption = Some(i);
                }
            } else {
                let mut blocks = Vec::new();
                self.anchor_block(c, &mut blocks);
                self.blocks_into(c, level, &mut blocks);
                let class = "caption".to_string();
                if !blocks.is_empty() {
                    media_caption = Some(Block::new(BlockKind::Div { class, blocks }, pos_of(c)));
                }
            }
        }
        let mut id = el.id().map(str::to_string);
        if !std::ptr::eq(media, el) {
            if id.is_none() {
                id = media.id().map(str::to_string);
            } else {
                self.anchor_block(media, out);
            }
        }
        out.push(Block::new(
            BlockKind::Figure(Box::new(Figure {
                numbered,
                as_table: false,
                class: None,
                fallback,
                id,
                number: None,
                caption,
                image,
            })),
            pos_of(el),
        ));
        out.extend(media_caption);
        // Anything else in a figure (more images, paragraphs) follows it.
        if !std::ptr::eq(media, el) {
            for c in el.child_elements() {
                if std::ptr::eq(c, media) || is_heading_part(c.local_name()) {
                    continue;
                }
                if c.local_name() == "screenshot"
                    && find_media(c).is_some_and(|m| std::ptr::eq(m, media))
                {
                    continue;
                }
                self.block(c, level, out);
            }
        }
    }

    /// The best image of a `mediaobject` (or a `graphic`/`imagedata`): PNG, JPEG, GIF, SVG or
    /// WebP; never EPS/PDF/PS. Returns the image and, when none is usable, the fallback text.
    pub(super) fn pick_image(&mut self, media: &Element) -> (Image, Option<String>) {
        let mut candidates: Vec<&Element> = Vec::new();
        match media.local_name() {
            "graphic" | "inlinegraphic" | "imagedata" => candidates.push(media),
            _ => {
                for o in media.child_elements() {
                    if o.local_name() == "imageobject" || o.local_name() == "imageobjectco" {
                        let io = if o.local_name() == "imageobjectco" {
                            o.child("imageobject").unwrap_or(o)
                        } else {
                            o
                        };
                        if let Some(d) = io.child("imagedata") {
                            candidates.push(d);
                        }
                    }
                }
            }
        }
        let alt = media
            .child("alt")
            .map(|a| squash(&a.text()))
            .or_else(|| {
                media
                    .child_elements()
                    .filter(|e| e.local_name() == "textobject")
                    .map(|t| squash(&t.text()))
                    .find(|s| !s.is_empty())
            })
            .or_else(|| media.attr("srccredit").map(squash))
            .unwrap_or_default();
        let best = candidates
            .iter()
            .filter_map(|d| {
                let src = d.attr("fileref").map(str::trim).filter(|s| !s.is_empty())?;
                Some((image_rank(d.attr("format"), src)?, *d, src))
            })
            .min_by_key(|(rank, _, _)| *rank);
        let fallback_text = if alt.is_empty() {
            "(image)".to_string()
        } else {
            alt.clone()
        };
        let Some((_, d, src)) = best else {
            let (code, what) = if candidates.iter().any(|d| d.attr("entityref").is_some()) {
                (
                    codes::UNSUPPORTED,
                    "images given by `entityref` are not supported".to_string(),
                )
            } else if candidates.is_empty() {
                (
                    codes::MISSING_IMAGE,
                    "this has no image; its text is shown instead".to_string(),
                )
            } else {
                let names: Vec<&str> = candidates
                    .iter()
                    .filter_map(|d| d.attr("fileref"))
                    .collect();
                (
                    codes::MISSING_IMAGE,
                    format!(
                        "none of the images ({}) is in a format EPUB readers show (PNG, JPEG, GIF, SVG, WebP); its text is shown instead",
                        names.join(", ")
                    ),
                )
            };
            if !candidates.is_empty() {
                self.warn(code, media, what);
            }
            return (
                Image {
                    src: String::new(),
                    alt,
                    by_id: false,
                },
                Some(fallback_text),
            );
        };
        match self.rebase(self.files.of(d), src) {
            Some(src) => (
                Image {
                    src,
                    alt,
                    by_id: false,
                },
                None,
            ),
            None => {
                self.warn(
                    codes::MISSING_IMAGE,
                    d,
                    format!(
                        "the image `{src}` is outside the book folder; its text is shown instead"
                    ),
                );
                (
                    Image {
                        src: String::new(),
                        alt,
                        by_id: false,
                    },
                    Some(fallback_text),
                )
            }
        }
    }

    pub(super) fn math(&mut self, el: &Element) -> Math {
        let mathml = find_math(el).map(|m| vec![crate::dom::Node::from(to_mathml(m, true))]);
        let tex = ["mathphrase", "texmath", "alt"]
            .iter()
            .find_map(|n| find_desc(el, n))
            .map(|e| e.text().trim().to_string())
            .unwrap_or_else(|| {
                if mathml.is_none() {
                    squash(&el.text())
                } else {
                    String::new()
                }
            });
        if mathml.is_none() && tex.is_empty() {
            self.warn(
                codes::MISSING_TITLE,
                el,
                "this equation has neither MathML nor text",
            );
        }
        Math {
            id: None,
            caption: None,
            number: None,
            tex,
            mathml,
        }
    }

    fn qanda(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        self.caption(el, out);
        let mut items = Vec::new();
        for c in el.child_elements() {
            match c.local_name() {
                "qandaentry" => {
                    let mut term = Vec::new();
                    if let Some(id) = c.id() {
                        term.push(anchor_inline(id, pos_of(c)));
                    }
                    let mut definitions = Vec::new();
                    for q in c.child_elements() {
                        match q.local_name() {
                            "question" => {
                                if let Some(id) = q.id() {
                                    term.push(anchor_inline(id, pos_of(q)));
                                }
                                let mut b = Vec::new();
                                self.blocks_into(q, level, &mut b);
                                term.extend(flatten_blocks(b));
                            }
                            "answer" => {
                                let mut b = Vec::new();
                                self.anchor_block(q, &mut b);
                                self.blocks_into(q, level, &mut b);
                                definitions.push(b);
                            }
                            _ => {}
                        }
                    }
                    if definitions.is_empty() {
                        definitions.push(Vec::new());
                    }
                    items.push(DefinitionItem { term, definitions });
                }
                "qandadiv" => {
                    if !items.is_empty() {
                        out.push(Block::new(
                            BlockKind::DefinitionList(std::mem::take(&mut items)),
                            pos_of(el),
                        ));
                    }
                    self.qanda(c, level, out);
                }
                _ if is_heading_part(c.local_name()) => {}
                _ => {
                    if !items.is_empty() {
                        out.push(Block::new(
                            BlockKind::DefinitionList(std::mem::take(&mut items)),
                            pos_of(el),
                        ));
                    }
                    self.block(c, level, out);
                }
            }
        }
        if !items.is_empty() {
            out.push(Block::new(BlockKind::DefinitionList(items), pos_of(el)));
        }
    }

    fn glossentry(&mut self, g: &Element) -> DefinitionItem {
        let mut term = Vec::new();
        if let Some(id) = g.id() {
            term.push(anchor_inline(id, pos_of(g)));
        }
        let mut definitions = Vec::new();
        for c in g.child_elements() {
            match c.local_name() {
                "glossterm" => {
                    let mut t = Vec::new();
                    self.inline_children_with_id(c, &mut t);
                    trim_inlines(&mut t);
                    term.extend(t);
                }
                "acronym" | "abbrev" => {
                    let mut t = Vec::new();
                    self.inline_children_with_id(c, &mut t);
                    trim_inlines(&mut t);
                    term.push(Inline::text(" (", pos_of(c)));
                    term.extend(t);
                    term.push(Inline::text(")", pos_of(c)));
                }
                "glossdef" => {
                    let mut b = Vec::new();
                    self.anchor_block(c, &mut b);
                    for x in c.child_elements() {
                        if x.local_name() == "glossseealso" {
                            b.push(self.glosssee(x, "See also"));
                        }
                    }
                    let mut body = Vec::new();
                    self.blocks_into(c, 2, &mut body);
                    body.retain(|_| true);
                    b.splice(0..0, body);
                    definitions.push(b);
                }
                "glosssee" | "glossseealso" => {
                    let label = if c.local_name() == "glosssee" {
                        "See"
                    } else {
                        "See also"
                    };
                    definitions.push(vec![self.glosssee(c, label)]);
                }
                "indexterm" => {
                    let mut t = Vec::new();
                    self.inline(c, &mut t);
                    term.extend(t);
                }
                _ => {}
            }
        }
        if definitions.is_empty() {
            definitions.push(Vec::new());
        }
        DefinitionItem { term, definitions }
    }

    fn glosssee(&mut self, c: &Element, label: &str) -> Block {
        let mut content = vec![Inline::text(format!("{label} "), pos_of(c))];
        let target = c.attr("otherterm").map(str::trim).filter(|s| !s.is_empty());
        let mut text = self.inlines(c);
        trim_inlines(&mut text);
        match target {
            Some(t) => content.push(Inline::new(
                InlineKind::Ref {
                    kind: RefKind::Any,
                    target: t.to_string(),
                    content: (!text.is_empty()).then_some(text),
                },
                pos_of(c),
            )),
            None => content.extend(text),
        }
        content.push(Inline::text(".", pos_of(c)));
        Block::new(BlockKind::Para(content), pos_of(c))
    }

    fn bibitem(&mut self, el: &Element, out: &mut Vec<Block>) {
        self.bib_count += 1;
        let id = match el.id() {
            Some(id) => id.to_string(),
            None => format!("bibitem-{}", self.bib_count),
        };
        let mut caption = Vec::new();
        if el.local_name() == "bibliomixed" {
            for n in &el.children {
                match n {
                    Node::Text(t) => self.text(t, pos_of(el), &mut caption),
                    Node::Element(c) if c.local_name() == "abbrev" => {}
                    Node::Element(c) => {
                        let mut tmp = Vec::new();
                        self.inline_quiet(c, &mut tmp);
                        caption.extend(tmp);
                    }
                    Node::Comment(_) => {}
                }
            }
        } else {
            let mut first = true;
            for c in el.child_elements().filter(|c| c.local_name() != "abbrev") {
                let mut part = Vec::new();
                self.inline_quiet(c, &mut part);
                trim_inlines(&mut part);
                // Anchors and index terms have no text: kept, with no separator.
                if plain_text(&part).trim().is_empty() {
                    caption.extend(part);
                    continue;
                }
                if !first {
                    caption.push(Inline::text(", ", pos_of(c)));
                }
                first = false;
                if matches!(c.local_name(), "title" | "citetitle") {
                    caption.push(Inline::new(InlineKind::Italic(part), pos_of(c)));
                } else {
                    caption.extend(part);
                }
            }
        }
        trim_inlines(&mut caption);
        out.push(Block::new(
            BlockKind::BibItem(Box::new(BibItem {
                id,
                number: bib_label(el),
                caption,
                blocks: Vec::new(),
            })),
            pos_of(el),
        ));
    }
}

/// A `Raw` `<a id="…"/>` for an id in inline context.
pub(super) fn anchor_inline(id: &str, pos: Pos) -> Inline {
    Inline::new(
        InlineKind::Raw(vec![crate::dom::Node::from(
            crate::dom::Element::new("a").with_attr("id", id),
        )]),
        pos,
    )
}

/// Blocks → inline content (for table cells and questions): paragraphs joined by line breaks.
pub(super) fn flatten_blocks(blocks: Vec<Block>) -> Inlines {
    let mut out: Inlines = Vec::new();
    for b in blocks {
        let pos = b.pos;
        let mut part: Inlines = match b.kind {
            BlockKind::Para(c) | BlockKind::StyledPara { content: c, .. } => c,
            BlockKind::Heading(h) => vec![Inline::new(InlineKind::Bold(h.content), pos)],
            // Keep the listing's markup (a footnote inside a screen is still referred to).
            BlockKind::Code(c) => match c.markup {
                Some(markup) => vec![Inline::new(
                    InlineKind::Span {
                        class: "tt".into(),
                        content: markup,
                    },
                    pos,
                )],
                None => vec![Inline::new(InlineKind::Code(c.text), pos)],
            },
            BlockKind::Figure(f) => vec![Inline::new(InlineKind::Image(f.image), pos)],
            BlockKind::Anchor(id) => {
                out.push(anchor_inline(&id, pos));
                continue;
            }
            BlockKind::List(l) => {
                let mut v = Vec::new();
                for (i, item) in l.items.into_iter().enumerate() {
                    if i > 0 {
                        v.push(Inline::new(InlineKind::LineBreak, pos));
                    }
                    let marker = match l.start {
                        Some(s) => format!("{}. ", s + i as u64),
                        None => "• ".to_string(),
                    };
                    v.push(Inline::text(marker, pos));
                    v.extend(flatten_blocks(item));
                }
                v
            }
            BlockKind::DefinitionList(items) => {
                let mut v = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        v.push(Inline::new(InlineKind::LineBreak, pos));
                    }
                    v.push(Inline::new(InlineKind::Bold(item.term), pos));
                    for d in item.definitions {
                        v.push(Inline::text(" ", pos));
                        v.extend(flatten_blocks(d));
                    }
                }
                v
            }
            BlockKind::Admonition { blocks, .. }
            | BlockKind::Quote { blocks, .. }
            | BlockKind::Sidebar { blocks, .. }
            | BlockKind::Div { blocks, .. }
            | BlockKind::Wrapped { blocks, .. } => flatten_blocks(blocks),
            BlockKind::Math(m) => match m.mathml {
                Some(n) => vec![Inline::new(InlineKind::Raw(n), pos)],
                None => vec![Inline::new(
                    InlineKind::Math {
                        tex: m.tex,
                        mathml: None,
                    },
                    pos,
                )],
            },
            BlockKind::BibItem(b) => b.caption,
            BlockKind::Raw(n) => vec![Inline::new(InlineKind::Raw(n), pos)],
            BlockKind::Table(t) => {
                let mut v = Vec::new();
                for row in t.head.into_iter().chain(t.body) {
                    if !v.is_empty() {
                        v.push(Inline::new(InlineKind::LineBreak, pos));
                    }
                    for (i, c) in row.cells.into_iter().enumerate() {
                        if i > 0 {
                            v.push(Inline::text(" | ", pos));
                        }
                        v.extend(c.content);
                        v.extend(flatten_blocks(c.blocks));
                    }
                }
                v
            }
            BlockKind::PrintPage(p) => vec![Inline::new(InlineKind::PrintPage(p), pos)],
            BlockKind::Rule | BlockKind::PageBreak | BlockKind::Endnotes | BlockKind::Index => {
                continue;
            }
        };
        if part.is_empty() {
            continue;
        }
        let only_anchors = out
            .iter()
            .all(|i| is_mark(&i.kind) || matches!(i.kind, InlineKind::Raw(_)));
        if !out.is_empty() && !only_anchors {
            out.push(Inline::new(InlineKind::LineBreak, pos));
        }
        out.append(&mut part);
    }
    out
}

/// The label a bibliography entry shows (and an xref to it), as DocBook XSL makes it: its
/// `abbrev` when that comes first, else its `xreflabel`; `None` leaves it its ordinal.
fn bib_label(el: &Element) -> Option<String> {
    el.child_elements()
        .next()
        .filter(|c| c.local_name() == "abbrev")
        .map(|c| squash(&c.text()))
        .or_else(|| el.attr("xreflabel").map(squash))
        .filter(|l| !l.is_empty())
}

/// The subtitle of a titled element: `subtitle`, or `subtitle` in its `info`.
fn subtitle_el(el: &Element) -> Option<&Element> {
    el.child("subtitle").or_else(|| {
        el.child_elements()
            .filter(|e| super::is_info(e.local_name()))
            .find_map(|i| i.child("subtitle"))
    })
}

/// The first few words of an element's text, for a missing title.
fn first_words(el: &Element) -> String {
    let text = el
        .child_elements()
        .filter(|e| !is_heading_part(e.local_name()) && e.local_name() != "indexterm")
        .map(|e| squash(&e.text()))
        .find(|t| !t.is_empty())
        .unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return "(untitled section)".to_string();
    }
    let mut s = words[..words.len().min(6)].join(" ");
    if words.len() > 6 {
        s.push('…');
    }
    s
}

fn find_media(el: &Element) -> Option<&Element> {
    for c in el.child_elements() {
        match c.local_name() {
            "mediaobject" | "graphic" => return Some(c),
            "screenshot" => {
                if let Some(m) = find_media(c) {
                    return Some(m);
                }
            }
            _ => {}
        }
    }
    None
}

fn find_math(el: &Element) -> Option<&Element> {
    for c in el.child_elements() {
        if c.local_name() == "math" {
            return Some(c);
        }
        if let Some(m) = find_math(c) {
            return Some(m);
        }
    }
    None
}

pub(super) fn find_desc<'x>(el: &'x Element, name: &str) -> Option<&'x Element> {
    for c in el.child_elements() {
        if c.local_name() == name {
            return Some(c);
        }
        if c.local_name() != "math"
            && let Some(m) = find_desc(c, name)
        {
            return Some(m);
        }
    }
    None
}

/// A MathML element → the XHTML DOM, unprefixed, with the MathML namespace on the root.
pub(super) fn to_mathml(el: &Element, root: bool) -> Element {
    let mut out = Element::new(el.local_name());
    if root {
        out.set_attr("xmlns", "http://www.w3.org/1998/Math/MathML");
    }
    for (k, v) in &el.attrs {
        if k.starts_with("xmlns") || k.contains(':') {
            continue;
        }
        out.set_attr(k.clone(), v.clone());
    }
    for n in &el.children {
        match n {
            Node::Element(c) => out.children.push(Node::from(to_mathml(c, false))),
            Node::Text(t) => out.push_text(t),
            Node::Comment(_) => {}
        }
    }
    out
}

/// Rank of an image by format (lower is better); `None` for formats EPUB readers cannot show.
fn image_rank(format: Option<&str>, src: &str) -> Option<u8> {
    let ext = src
        .rsplit('/')
        .next()
        .and_then(|f| f.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let by_format = format.map(|f| f.trim().to_ascii_lowercase());
    let key = match by_format.as_deref() {
        Some(f) if !f.is_empty() => f.to_string(),
        _ => ext.clone(),
    };
    let rank = |k: &str| match k {
        "png" => Some(0),
        "jpg" | "jpeg" => Some(1),
        "gif" => Some(2),
        "svg" | "svg+xml" => Some(3),
        "webp" => Some(4),
        _ => None,
    };
    // The extension wins over a wrong format attribute (format="PNG" on an .eps file).
    rank(&ext).or_else(|| if ext.is_empty() { rank(&key) } else { None })
}

/// Trims the whitespace at both ends of inline content (and drops empty text runs), looking
/// past invisible index terms and anchors.
/// An inline that shows nothing: an index term, an anchor (raw markup without text).
fn is_mark(kind: &InlineKind) -> bool {
    match kind {
        InlineKind::IndexTerm { .. } | InlineKind::PrintPage(_) => true,
        InlineKind::Raw(n) => !n.iter().any(|n| match n {
            crate::dom::Node::Element(e) => e.name == "math" || !e.text_content().is_empty(),
            crate::dom::Node::Text(t) => !t.is_empty(),
            crate::dom::Node::Comment(_) => false,
        }),
        _ => false,
    }
}

pub(super) fn trim_inlines(inlines: &mut Inlines) {
    let mut i = 0;
    while i < inlines.len() {
        match &mut inlines[i].kind {
            InlineKind::Text(t) => {
                let s = t.trim_start();
                if s.is_empty() {
                    inlines.remove(i);
                    continue;
                }
                *t = s.to_string();
                break;
            }
            k if is_mark(k) => i += 1,
            _ => break,
        }
    }
    let mut j = inlines.len();
    while j > 0 {
        match &mut inlines[j - 1].kind {
            InlineKind::Text(t) => {
                let n = t.trim_end().len();
                if n == 0 {
                    inlines.remove(j - 1);
                    j -= 1;
                    continue;
                }
                t.truncate(n);
                break;
            }
            k if is_mark(k) => j -= 1,
            _ => break,
        }
    }
}
