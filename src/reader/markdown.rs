//! Markdown reader: pulldown-cmark events → [`Document`].
//!
//! We consume the event stream into our own model rather than pulldown-cmark's HTML writer:
//! raw HTML must be checked to be well-formed XHTML (pulldown-cmark passes `<br>` through), and
//! footnote ids and soft line breaks need book-wide treatment (Japanese lines join without a
//! space).
use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{
    Alignment, BlockQuoteKind, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag,
    TagEnd,
};

use crate::codes;
use crate::doc::*;
use crate::dom;
use crate::error::{Finding, Location};
use crate::math::Display;

/// Per-chapter settings a Markdown file may give in a leading `---` YAML block.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    lang: Option<String>,
}

/// Reads one Markdown file. `shown` is the path used in messages. Problems found are returned
/// beside the document (what could not be read is left out of it), so one build reports every
/// mistake in the book at once.
pub fn read(text: &str, shown: &Path) -> (Document, Vec<Finding>) {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_SUPERSCRIPT
        | Options::ENABLE_SUBSCRIPT;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(f) = crate::error::nul_finding(text, shown) {
        return (Document::new(shown), vec![f]);
    }
    let events: Vec<(Event, Range<usize>)> =
        Parser::new_ext(text, opts).into_offset_iter().collect();
    let lines = LineIndex::new(text);
    if let Some(f) = too_deep(&events, text, &lines, shown) {
        return (Document::new(shown), vec![f]);
    }
    let mut r = Reader {
        text,
        shown,
        events,
        i: 0,
        lines,
        findings: Vec::new(),
        doc: Document::new(shown),
    };
    let blocks = r.blocks(None);
    r.doc.blocks = blocks;
    (r.doc, r.findings)
}

/// Quotes, lists and inline markup nested deeper than this are refused: the reader and every
/// step after it walk the document recursively, and no manuscript nests anywhere near this deep.
const MAX_DEPTH: usize = 100;

/// An error at the first element nested more than [`MAX_DEPTH`] levels deep, if any.
fn too_deep(
    events: &[(Event, Range<usize>)],
    text: &str,
    lines: &LineIndex,
    shown: &Path,
) -> Option<Finding> {
    let mut depth = 0usize;
    for (event, range) in events {
        match event {
            Event::Start(_) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    let pos = pos_at(lines, text, range.start);
                    return Some(
                        Finding::error(
                            codes::TOO_DEEP,
                            Location::new(shown, pos.line, pos.col),
                            format!(
                                "this is nested more than {MAX_DEPTH} levels deep (quotes, lists or inline markup)"
                            ),
                        )
                        .with_hint("nest fewer quotes (`>`) or list items inside each other"),
                    );
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

use crate::lines::LineIndex;

fn pos_at(lines: &LineIndex, text: &str, offset: usize) -> Pos {
    let (line, col) = lines.line_col(text, offset);
    Pos::new(line, col)
}

struct Reader<'a> {
    text: &'a str,
    shown: &'a Path,
    events: Vec<(Event<'a>, Range<usize>)>,
    i: usize,
    lines: LineIndex,
    findings: Vec<Finding>,
    doc: Document,
}

fn is_block_start(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::List(_)
            | Tag::Item
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Table(_)
            | Tag::TableHead
            | Tag::TableRow
            | Tag::TableCell
            | Tag::MetadataBlock(_)
    )
}

impl<'a> Reader<'a> {
    fn pos(&self, offset: usize) -> Pos {
        pos_at(&self.lines, self.text, offset)
    }

    fn location(&self, pos: Pos) -> Location {
        Location::new(self.shown, pos.line, pos.col)
    }

    fn error(&mut self, code: codes::Code, pos: Pos, message: impl Into<String>, hint: &str) {
        let f = Finding::error(code, self.location(pos), message);
        self.findings.push(if hint.is_empty() {
            f
        } else {
            f.with_hint(hint)
        });
    }

    /// Blocks until the end tag `end` (consumed) or the end of input.
    fn blocks(&mut self, end: Option<TagEnd>) -> Vec<Block> {
        let mut out = Vec::new();
        while self.i < self.events.len() {
            let (ev, range) = self.events[self.i].clone();
            let pos = self.pos(range.start);
            match ev {
                Event::End(e) if Some(e) == end => {
                    self.i += 1;
                    return out;
                }
                Event::Start(tag) if is_block_start(&tag) => {
                    self.i += 1;
                    if let Some(b) = self.block(tag, pos, range) {
                        out.push(b);
                    }
                }
                Event::Rule => {
                    self.i += 1;
                    out.push(Block::new(BlockKind::Rule, pos));
                }
                Event::End(_) => {
                    // An end we did not open here: leave it to the caller.
                    return out;
                }
                _ => {
                    // Inline content directly in a container (tight list items): an implicit paragraph.
                    let content = self.inlines(None);
                    if !content.is_empty() {
                        out.push(Block::new(BlockKind::Para(content), pos));
                    }
                }
            }
        }
        out
    }

    fn block(&mut self, tag: Tag<'a>, pos: Pos, range: Range<usize>) -> Option<Block> {
        let kind = match tag {
            Tag::Paragraph => {
                let content = self.inlines(Some(TagEnd::Paragraph));
                self.undefined_footnotes(&content, range.clone());
                match lone_image(&content) {
                    Some(image) => BlockKind::Figure(Box::new(Figure {
                        numbered: false,
                        as_table: false,
                        class: None,
                        fallback: None,
                        id: None,
                        number: None,
                        caption: (!image.alt.trim().is_empty())
                            .then(|| vec![Inline::text(image.alt.clone(), pos)]),
                        image,
                    })),
                    None if content.is_empty() => return None,
                    None => BlockKind::Para(content),
                }
            }
            Tag::Heading {
                level,
                id,
                classes,
                attrs: _,
            } => {
                let content = self.inlines(Some(TagEnd::Heading(level)));
                let unnumbered = classes
                    .iter()
                    .any(|c| c.as_ref() == "unnumbered" || c.as_ref() == "-");
                BlockKind::Heading(Heading {
                    level: heading_level(level),
                    id: id.map(|s| s.to_string()),
                    numbered: !unnumbered,
                    in_toc: !classes.iter().any(|c| c.as_ref() == "notoc"),
                    shown: true,
                    number: None,
                    content,
                })
            }
            Tag::BlockQuote(kind) => {
                let blocks = self.blocks(Some(TagEnd::BlockQuote(kind)));
                match kind {
                    None => BlockKind::Quote {
                        blocks,
                        attribution: None,
                    },
                    Some(k) => BlockKind::Admonition {
                        kind: match k {
                            BlockQuoteKind::Note => AdmonitionKind::Note,
                            BlockQuoteKind::Tip => AdmonitionKind::Tip,
                            BlockQuoteKind::Important => AdmonitionKind::Important,
                            BlockQuoteKind::Warning => AdmonitionKind::Warning,
                            BlockQuoteKind::Caution => AdmonitionKind::Caution,
                        },
                        // GitHub heads an alert with its kind.
                        title: AdmonitionTitle::KindWord,
                        blocks,
                    },
                }
            }
            Tag::CodeBlock(kind) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().map(str::to_string)
                    }
                    CodeBlockKind::Indented => None,
                };
                let text = self.plain_until(TagEnd::CodeBlock);
                BlockKind::Code(Box::new(Code {
                    style: CodeStyle::Example,
                    id: None,
                    number: None,
                    caption: None,
                    language,
                    first_line_number: None,
                    text,
                    markup: None,
                }))
            }
            Tag::HtmlBlock => {
                let raw = self.plain_until(TagEnd::HtmlBlock);
                let start = range.start;
                match dom::parse_fragment(&raw) {
                    Ok(nodes) => BlockKind::Raw(nodes),
                    Err(e) => {
                        let at = self.shift(start, e.pos);
                        self.error(codes::RAW_HTML, at, format!("this HTML is not well-formed XHTML: {}", e.message), "an EPUB needs XHTML: close every element (`<br/>`, `<img …/>`) and quote every attribute");
                        return None;
                    }
                }
            }
            Tag::List(start) => {
                let mut items = Vec::new();
                loop {
                    match self.events.get(self.i).map(|(e, _)| e.clone()) {
                        Some(Event::Start(Tag::Item)) => {
                            self.i += 1;
                            items.push(self.blocks(Some(TagEnd::Item)));
                        }
                        Some(Event::End(TagEnd::List(_))) => {
                            self.i += 1;
                            break;
                        }
                        Some(_) => self.i += 1,
                        None => break,
                    }
                }
                BlockKind::List(List { start, items })
            }
            Tag::FootnoteDefinition(label) => {
                let blocks = self.blocks(Some(TagEnd::FootnoteDefinition));
                self.doc.footnotes.push(Footnote {
                    label: label.to_string(),
                    blocks,
                    pos,
                });
                return None;
            }
            Tag::DefinitionList => {
                let mut items: Vec<DefinitionItem> = Vec::new();
                loop {
                    match self.events.get(self.i).map(|(e, _)| e.clone()) {
                        Some(Event::Start(Tag::DefinitionListTitle)) => {
                            self.i += 1;
                            let term = self.inlines(Some(TagEnd::DefinitionListTitle));
                            items.push(DefinitionItem {
                                term,
                                definitions: Vec::new(),
                            });
                        }
                        Some(Event::Start(Tag::DefinitionListDefinition)) => {
                            self.i += 1;
                            let blocks = self.blocks(Some(TagEnd::DefinitionListDefinition));
                            match items.last_mut() {
                                Some(item) => item.definitions.push(blocks),
                                None => items.push(DefinitionItem {
                                    term: Vec::new(),
                                    definitions: vec![blocks],
                                }),
                            }
                        }
                        Some(Event::End(TagEnd::DefinitionList)) => {
                            self.i += 1;
                            break;
                        }
                        Some(_) => self.i += 1,
                        None => break,
                    }
                }
                BlockKind::DefinitionList(items)
            }
            Tag::Table(aligns) => self.table(aligns),
            Tag::MetadataBlock(_) => {
                let yaml = self.plain_until(TagEnd::MetadataBlock(
                    pulldown_cmark::MetadataBlockKind::YamlStyle,
                ));
                match serde_saphyr::from_str::<FrontMatter>(&yaml) {
                    Ok(fm) => self.doc.lang = fm.lang,
                    Err(e) => {
                        let line = e.location().map_or(0, |l| l.line() as u32);
                        // The block starts one line after the opening `---`.
                        let at = Pos::new(
                            pos.line + line,
                            e.location().map_or(1, |l| l.column() as u32),
                        );
                        let msg = match e.without_snippet() {
                            serde_saphyr::Error::SerdeUnknownField { field, .. } => {
                                format!("unknown front matter key `{field}`")
                            }
                            other => format!(
                                "this front matter is not valid YAML: {}",
                                other.to_string().lines().next().unwrap_or("")
                            ),
                        };
                        self.error(
                            codes::MARKDOWN_SYNTAX,
                            at,
                            msg,
                            "a chapter's front matter may set only `lang:` (e.g. `lang: en`)",
                        );
                    }
                }
                return None;
            }
            // Items, rows and cells are consumed by their containers; a stray one is skipped.
            other => {
                let end = other.to_end();
                self.blocks(Some(end));
                return None;
            }
        };
        Some(Block::new(kind, pos))
    }

    fn table(&mut self, aligns: Vec<Alignment>) -> BlockKind {
        let mut head = Vec::new();
        let mut body = Vec::new();
        let mut in_head = false;
        let mut row: Option<Row> = None;
        while let Some((ev, range)) = self.events.get(self.i).cloned() {
            self.i += 1;
            match ev {
                Event::Start(Tag::TableHead) => {
                    in_head = true;
                    row = Some(Row::default());
                }
                Event::End(TagEnd::TableHead) => {
                    in_head = false;
                    head.extend(row.take());
                }
                Event::Start(Tag::TableRow) => row = Some(Row::default()),
                Event::End(TagEnd::TableRow) => {
                    if let Some(r) = row.take() {
                        if in_head { head.push(r) } else { body.push(r) }
                    }
                }
                Event::Start(Tag::TableCell) => {
                    let _ = range;
                    let content = self.inlines(Some(TagEnd::TableCell));
                    let r = row.get_or_insert_with(Row::default);
                    let align = match aligns.get(r.cells.len()) {
                        Some(Alignment::Left) => Align::Left,
                        Some(Alignment::Center) => Align::Center,
                        Some(Alignment::Right) => Align::Right,
                        _ => Align::Default,
                    };
                    r.cells.push(Cell {
                        content,
                        header: false,
                        align,
                        colspan: 1,
                        rowspan: 1,
                    });
                }
                Event::End(TagEnd::Table) => break,
                _ => {}
            }
        }
        BlockKind::Table(Box::new(Table {
            id: None,
            number: None,
            caption: None,
            head,
            body,
        }))
    }

    /// pulldown-cmark leaves a reference to an undefined footnote as literal `[^label]` text;
    /// that is always a mistake in a manuscript, so report it.
    fn undefined_footnotes(&mut self, content: &[Inline], range: Range<usize>) {
        let source = self.text.get(range.clone()).unwrap_or("");
        let mut searched = 0;
        for inline in content {
            let InlineKind::Text(t) = &inline.kind else {
                continue;
            };
            let mut rest = t.as_str();
            while let Some(start) = rest.find("[^") {
                let after = &rest[start + 2..];
                match after.find(']') {
                    Some(end) if end > 0 && !after[..end].contains(char::is_whitespace) => {
                        let label = after[..end].to_string();
                        let written = format!("[^{label}]");
                        // Locate it in the source for an exact line and column.
                        let pos = match source[searched..].find(&written) {
                            Some(at) => {
                                searched += at + written.len();
                                self.pos(range.start + searched - written.len())
                            }
                            None => inline.pos,
                        };
                        // The text stays as written, as for every note to nothing.
                        let f = Finding::warning(
                            codes::UNDEFINED_NOTE,
                            self.location(pos),
                            format!(
                                "the footnote `{written}` is never defined; it is shown as written"
                            ),
                        )
                        .with_hint(format!("add a line `{written}: …` with the note's text"));
                        self.findings.push(f);
                        rest = &after[end..];
                    }
                    _ => rest = after,
                }
            }
        }
    }

    /// Concatenated text until `end`, for code and raw HTML blocks.
    fn plain_until(&mut self, end: TagEnd) -> String {
        let mut s = String::new();
        while let Some((ev, _)) = self.events.get(self.i) {
            self.i += 1;
            match ev {
                Event::End(e) if *e == end => break,
                Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) | Event::Code(t) => {
                    s.push_str(t)
                }
                Event::SoftBreak | Event::HardBreak => s.push('\n'),
                _ => {}
            }
        }
        s
    }

    /// Position in the file of a position inside raw text that starts at byte `start`.
    fn shift(&self, start: usize, inner: dom::Pos) -> Pos {
        let base = self.pos(start);
        if inner.line <= 1 {
            Pos::new(base.line, base.col + inner.col.saturating_sub(1))
        } else {
            Pos::new(base.line + inner.line - 1, inner.col)
        }
    }

    /// `$…$` or `$$…$$` (at `range`, its dollars included) as MathML, or as its TeX with a
    /// warning at the construct that does not convert.
    fn math(&mut self, tex: &str, display: Display, range: Range<usize>) -> InlineKind {
        // The TeX is the source between the dollars, as written.
        let start = range.start + self.text[range].find(tex).unwrap_or(0);
        let mathml = match super::tex_to_mathml(tex, display, |offset| {
            self.location(self.pos(start + offset))
        }) {
            Ok(nodes) => Some(nodes),
            Err(f) => {
                self.findings.push(f);
                None
            }
        };
        InlineKind::Math {
            tex: tex.to_string(),
            mathml,
        }
    }

    /// Inline content until `end` (consumed); with `None`, until the next block-level event.
    fn inlines(&mut self, end: Option<TagEnd>) -> Inlines {
        let mut out: Inlines = Vec::new();
        let mut pending_break: Option<Pos> = None;
        while let Some((ev, range)) = self.events.get(self.i).cloned() {
            let pos = self.pos(range.start);
            match ev {
                Event::End(e) if Some(e) == end => {
                    self.i += 1;
                    break;
                }
                Event::End(_) if end.is_none() => break,
                Event::Start(ref tag) if end.is_none() && is_block_start(tag) => break,
                Event::Rule if end.is_none() => break,
                _ => {}
            }
            self.i += 1;
            let inline = match ev {
                Event::Text(t) => Some(InlineKind::Text(t.to_string())),
                Event::Code(t) => Some(InlineKind::Code(t.to_string())),
                Event::InlineMath(ref t) | Event::DisplayMath(ref t) => {
                    let display = if matches!(ev, Event::DisplayMath(_)) {
                        Display::Block
                    } else {
                        Display::Inline
                    };
                    Some(self.math(t, display, range.clone()))
                }
                Event::FootnoteReference(label) => Some(InlineKind::FootnoteRef(label.to_string())),
                Event::HardBreak => Some(InlineKind::LineBreak),
                Event::SoftBreak => {
                    pending_break = Some(pos);
                    continue;
                }
                Event::TaskListMarker(done) => {
                    Some(InlineKind::Text(if done { "☑ " } else { "☐ " }.into()))
                }
                Event::InlineHtml(_) | Event::Html(_) => {
                    self.inline_html(range.start).map(InlineKind::Raw)
                }
                Event::Start(tag) => self.inline_tag(tag),
                Event::End(_) | Event::Rule => None,
            };
            let Some(kind) = inline else { continue };
            if let Some(at) = pending_break.take() {
                let joins = last_char(&out)
                    .zip(first_char(&kind))
                    .is_some_and(|(a, b)| is_wide(a) && is_wide(b));
                if !joins {
                    out.push(Inline::text(" ", at));
                }
            }
            push_merged(&mut out, Inline::new(kind, pos));
        }
        out
    }

    fn inline_tag(&mut self, tag: Tag<'a>) -> Option<InlineKind> {
        Some(match tag {
            Tag::Emphasis => InlineKind::Emphasis(self.inlines(Some(TagEnd::Emphasis))),
            Tag::Strong => InlineKind::Strong(self.inlines(Some(TagEnd::Strong))),
            Tag::Strikethrough => InlineKind::Deleted(self.inlines(Some(TagEnd::Strikethrough))),
            Tag::Superscript => InlineKind::Superscript(self.inlines(Some(TagEnd::Superscript))),
            Tag::Subscript => InlineKind::Subscript(self.inlines(Some(TagEnd::Subscript))),
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => {
                let content = self.inlines(Some(TagEnd::Link));
                let href = match link_type {
                    LinkType::Email if !dest_url.starts_with("mailto:") => {
                        format!("mailto:{dest_url}")
                    }
                    _ => dest_url.to_string(),
                };
                InlineKind::Link { href, content }
            }
            Tag::Image { dest_url, .. } => {
                let alt = plain_text(&self.inlines(Some(TagEnd::Image)));
                InlineKind::Image(Image {
                    src: dest_url.to_string(),
                    alt,
                    by_id: false,
                })
            }
            other => {
                // A block inside inline context cannot happen in CommonMark; keep its text.
                let end = other.to_end();
                InlineKind::Span {
                    class: "unknown".into(),
                    content: self.inlines(Some(end)),
                }
            }
        })
    }

    /// Inline HTML arrives tag by tag (`<span>`, text, `</span>`). Gather the source from an
    /// opening tag to its balancing close and parse it as one XHTML fragment.
    fn inline_html(&mut self, start: usize) -> Option<Vec<dom::Node>> {
        let first = &self.text[start..self.events[self.i - 1].1.end];
        let mut end = self.events[self.i - 1].1.end;
        if let Some(name) = opening_tag_name(first) {
            let mut depth = 1usize;
            while depth > 0 && self.i < self.events.len() {
                let (ev, range) = &self.events[self.i];
                if matches!(
                    ev,
                    Event::End(TagEnd::Paragraph) | Event::End(TagEnd::TableCell)
                ) {
                    break;
                }
                if let Event::InlineHtml(h) = ev {
                    if opening_tag_name(h).as_deref() == Some(name.as_str()) {
                        depth += 1;
                    } else if closing_tag_name(h).as_deref() == Some(name.as_str()) {
                        depth -= 1;
                    }
                }
                end = range.end;
                self.i += 1;
            }
        }
        let raw = &self.text[start..end];
        match dom::parse_fragment(raw) {
            Ok(nodes) => Some(nodes),
            Err(e) => {
                let at = self.shift(start, e.pos);
                self.error(
                    codes::RAW_HTML,
                    at,
                    format!("this HTML is not well-formed XHTML: {}", e.message),
                    "an EPUB needs XHTML: close every element (`<br/>`) and quote every attribute",
                );
                None
            }
        }
    }
}

fn opening_tag_name(html: &str) -> Option<String> {
    let rest = html.trim().strip_prefix('<')?;
    if rest.starts_with(['/', '!', '?']) || html.trim_end().ends_with("/>") {
        return None;
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-'))
        .collect();
    (!name.is_empty()).then_some(name)
}

fn closing_tag_name(html: &str) -> Option<String> {
    let rest = html.trim().strip_prefix("</")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-'))
        .collect();
    (!name.is_empty()).then_some(name)
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn lone_image(content: &[Inline]) -> Option<Image> {
    let mut found = None;
    for i in content {
        match &i.kind {
            InlineKind::Image(img) if found.is_none() => found = Some(img.clone()),
            InlineKind::Text(t) if t.trim().is_empty() => {}
            _ => return None,
        }
    }
    found
}

fn last_char(out: &Inlines) -> Option<char> {
    match &out.last()?.kind {
        InlineKind::Text(t) | InlineKind::Code(t) => t.chars().last(),
        InlineKind::Emphasis(c) | InlineKind::Strong(c) | InlineKind::Link { content: c, .. } => {
            last_char(c)
        }
        _ => None,
    }
}

fn first_char(kind: &InlineKind) -> Option<char> {
    match kind {
        InlineKind::Text(t) | InlineKind::Code(t) => t.chars().next(),
        InlineKind::Emphasis(c) | InlineKind::Strong(c) | InlineKind::Link { content: c, .. } => {
            c.first().and_then(|i| first_char(&i.kind))
        }
        _ => None,
    }
}

/// East Asian wide characters: a line break between two of them is not a space.
pub fn is_wide(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3040..=0x33FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6 | 0x20000..=0x3FFFD)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_ok(text: &str) -> Document {
        let (doc, findings) = read(text, Path::new("ch.md"));
        assert!(findings.is_empty(), "{findings:?}");
        doc
    }

    fn read_err(text: &str) -> Vec<Finding> {
        read(text, Path::new("ch.md")).1
    }

    #[test]
    fn japanese_lines_join_without_space_and_latin_with_one() {
        let d = read_ok("吾輩は\n猫である。\nCats are\nnice.\n");
        let BlockKind::Para(c) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(plain_text(c), "吾輩は猫である。 Cats are nice.");
    }

    #[test]
    fn heading_attributes_and_unnumbered_class() {
        let d = read_ok("# 序章 {#intro .unnumbered}\n");
        let BlockKind::Heading(h) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(
            (h.level, h.id.as_deref(), h.numbered),
            (1, Some("intro"), false)
        );
    }

    #[test]
    fn dollar_math_becomes_mathml_display_math_block_mathml() {
        let d = read_ok("$x_1$ と\n\n$$\\frac{a}{b}$$\n");
        let math = |i: usize| match &d.blocks[i].kind {
            BlockKind::Para(c) => c
                .iter()
                .find_map(|i| match &i.kind {
                    InlineKind::Math { mathml, .. } => mathml.clone(),
                    _ => None,
                })
                .map(|n| dom::serialize_nodes(&n))
                .expect("MathML"),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            math(0),
            r#"<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="x_1"><msub><mi>x</mi><mn>1</mn></msub></math>"#
        );
        assert!(math(1).starts_with(r#"<math xmlns="http://www.w3.org/1998/Math/MathML" display="block" alttext="\frac{a}{b}"><mfrac>"#), "{}", math(1));
    }

    #[test]
    fn unconverted_math_keeps_its_tex_with_a_warning_at_the_command() {
        let (d, findings) = read("文\n\n前 $a + \\foo$ 後\n", Path::new("ch.md"));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].code, codes::UNCONVERTED_MATH.name());
        assert_eq!(
            (findings[0].location.line, findings[0].location.col),
            (3, 8)
        );
        let BlockKind::Para(c) = &d.blocks[1].kind else {
            panic!()
        };
        assert!(c.iter().any(|i| i.kind
            == InlineKind::Math {
                tex: "a + \\foo".into(),
                mathml: None
            }));
    }

    #[test]
    fn positions_are_line_and_column() {
        let d = read_ok("# A\n\n段落\n\n- x\n");
        assert_eq!(d.blocks[1].pos, Pos::new(3, 1));
        assert_eq!(d.blocks[2].pos, Pos::new(5, 1));
    }

    #[test]
    fn lone_image_is_a_figure_with_caption() {
        let d = read_ok("![猫の写真](images/cat.png)\n");
        let BlockKind::Figure(f) = &d.blocks[0].kind else {
            panic!("{:?}", d.blocks)
        };
        assert_eq!(f.image.src, "images/cat.png");
        assert_eq!(plain_text(f.caption.as_ref().unwrap()), "猫の写真");
    }

    #[test]
    fn footnotes_move_to_the_document() {
        let d = read_ok("本文[^1]。\n\n[^1]: 注の本文。\n");
        assert_eq!(d.footnotes.len(), 1);
        assert_eq!(d.footnotes[0].label, "1");
        let BlockKind::Para(c) = &d.blocks[0].kind else {
            panic!()
        };
        assert!(
            c.iter()
                .any(|i| i.kind == InlineKind::FootnoteRef("1".into()))
        );
    }

    #[test]
    fn table_with_header_and_alignment() {
        let d = read_ok("| a | b |\n|:--|--:|\n| 1 | 2 |\n");
        let BlockKind::Table(t) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(t.head.len(), 1);
        assert_eq!(t.body[0].cells[1].align, Align::Right);
    }

    #[test]
    fn fenced_code_keeps_language_and_text() {
        let d = read_ok("```rust\nfn main() {}\n```\n");
        let BlockKind::Code(c) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(
            (c.language.as_deref(), c.text.as_str()),
            (Some("rust"), "fn main() {}\n")
        );
    }

    #[test]
    fn tight_list_items_become_paragraphs() {
        let d = read_ok("- 一\n- 二\n");
        let BlockKind::List(l) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(l.items.len(), 2);
        assert!(matches!(l.items[1][0].kind, BlockKind::Para(_)));
    }

    #[test]
    fn inline_html_is_parsed_as_one_fragment() {
        let d = read_ok("a <span class=\"x\">b *c*</span> d\n");
        let BlockKind::Para(c) = &d.blocks[0].kind else {
            panic!()
        };
        assert!(
            c.iter()
                .any(|i| matches!(&i.kind, InlineKind::Raw(n) if n.len() == 1)),
            "{c:?}"
        );
    }

    #[test]
    fn html_that_is_not_xhtml_is_rejected_with_its_location() {
        let f = read_err("本文\n\n改行<br>の後\n");
        assert_eq!((f[0].location.line, f[0].location.col), (3, 3), "{f:?}");
    }

    #[test]
    fn front_matter_sets_language_and_rejects_unknown_keys() {
        assert_eq!(
            read_ok("---\nlang: en\n---\n\n# Hi\n").lang.as_deref(),
            Some("en")
        );
        let f = read_err("---\nlang: en\nlnag: x\n---\n");
        assert_eq!(f[0].location.line, 3, "{f:?}");
    }

    #[test]
    fn undefined_footnote_is_located_exactly() {
        let f = read_err("一行目\n二行目に[^nope]がある。\n");
        assert_eq!((f[0].location.line, f[0].location.col), (2, 5), "{f:?}");
        assert!(f[0].message.contains("`[^nope]`"));
    }

    #[test]
    fn every_finding_carries_its_kind() {
        let code = |text: &str| read_err(text)[0].code.to_string();
        assert_eq!(code("---\ntitle: x\n---\n\nA\n"), "markdown-syntax");
        assert_eq!(code("<div>a\n"), "raw-html");
        assert_eq!(code("See [^nope].\n"), "undefined-note");
        assert_eq!(code("a\0b\n"), "source-file");
    }

    #[test]
    fn gfm_alert_is_an_admonition() {
        let d = read_ok("> [!WARNING]\n> 注意\n");
        assert!(matches!(
            d.blocks[0].kind,
            BlockKind::Admonition {
                kind: AdmonitionKind::Warning,
                ..
            }
        ));
    }
}
