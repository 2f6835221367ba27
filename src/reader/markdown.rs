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
use crate::reader::{autolink, cjk_emphasis, crossref, rawhtml, ruby};

/// Per-chapter settings a Markdown file may give in a leading `---` YAML block, as Jekyll,
/// Hugo, Zenn and VFM write it: `lang`, and `title` (the chapter's title when it has no
/// heading of its own). Every other key is read past, with a warning.
#[derive(Debug, Default, serde::Deserialize)]
struct FrontMatter {
    lang: Option<String>,
    title: Option<FrontTitle>,
    #[serde(flatten)]
    other: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
}

/// A `title:` as written: text, or a number or date YAML reads as one.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum FrontTitle {
    Text(String),
    Number(f64),
}

/// Keys other tools' front matter has that say nothing a chapter of an EPUB can show
/// (the book's metadata is book.yml's): named in the warning as such.
const OTHER_TOOLS_KEYS: &[&str] = &[
    "description",
    "date",
    "author",
    "authors",
    "tags",
    "topics",
    "emoji",
    "type",
    "published",
    "layout",
    "permalink",
    "categories",
    "category",
    "slug",
    "draft",
    "weight",
    "summary",
    "keywords",
    "lastmod",
    "toc",
    "sidebar_position",
    "id",
    "image",
    "excerpt",
];

/// How a book asks its Markdown to be read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MarkdownOptions {
    /// `typography: smart`: straight quotes curled, `--` and `---` as dashes, `...` as an
    /// ellipsis (pulldown-cmark's smart punctuation). Off unless asked: seihon never changes
    /// the author's characters on its own.
    pub smart: bool,
}

/// Reads one Markdown file. `shown` is the path used in messages. Problems found are returned
/// beside the document (what could not be read is left out of it), so one build reports every
/// mistake in the book at once.
pub fn read(text: &str, shown: &Path) -> (Document, Vec<Finding>) {
    read_with(text, shown, MarkdownOptions::default())
}

/// [`read`] with the book's options.
pub fn read_with(text: &str, shown: &Path, options: MarkdownOptions) -> (Document, Vec<Finding>) {
    let mut opts = Options::ENABLE_TABLES
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
    if options.smart {
        opts |= Options::ENABLE_SMART_PUNCTUATION;
    }
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
    let events = cjk_emphasis::apply(events, text);
    let events_len = events.len();
    let mut r = Reader {
        text,
        shown,
        events,
        i: 0,
        limit: events_len,
        lines,
        findings: Vec::new(),
        doc: Document::new(shown),
        in_link: 0,
        display_math: Vec::new(),
    };
    let blocks = r.blocks(None);
    r.doc.blocks = blocks;
    (r.doc, r.findings)
}

/// The HTML elements that may hold blocks, kept as they are when Markdown stands between
/// their opening and closing tags.
const WRAPPERS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "div",
    "figure",
    "footer",
    "header",
    "main",
    "nav",
    "section",
];

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
    /// Where [`Reader::blocks`] stops: the events' end, or a closing HTML block.
    limit: usize,
    lines: LineIndex,
    findings: Vec<Finding>,
    doc: Document,
    /// How many links (or images) the inlines being read are inside: text there is never
    /// made a link again by [`autolink`].
    in_link: usize,
    /// Where each display math (`$$…$$`) starts: it becomes a block of its own.
    display_math: Vec<Pos>,
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

    /// Blocks until the end tag `end` (consumed) or the end of input, tables with the
    /// captions pandoc reads.
    fn blocks(&mut self, end: Option<TagEnd>) -> Vec<Block> {
        let mut out = self.blocks_as_written(end);
        crossref::table_captions(&mut out);
        out
    }

    fn blocks_as_written(&mut self, end: Option<TagEnd>) -> Vec<Block> {
        let mut out = Vec::new();
        while self.i < self.limit {
            let (ev, range) = self.events[self.i].clone();
            let pos = self.pos(range.start);
            match ev {
                Event::End(e) if Some(e) == end => {
                    self.i += 1;
                    return out;
                }
                Event::Start(tag) if is_block_start(&tag) => {
                    self.i += 1;
                    match self.block(tag, pos, range) {
                        Some(Block {
                            kind: BlockKind::Para(content),
                            pos,
                        }) if !self.display_math.is_empty() => {
                            out.extend(crossref::split_display_math(
                                content,
                                pos,
                                &self.display_math,
                            ));
                        }
                        Some(b) => out.push(b),
                        None => {}
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
                    Some((image, id)) => BlockKind::Figure(Box::new(Figure {
                        numbered: id.is_some(),
                        as_table: false,
                        class: None,
                        fallback: None,
                        id,
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
                let attrs = match kind {
                    CodeBlockKind::Fenced(info) => crossref::code_attrs(&info),
                    CodeBlockKind::Indented => crossref::CodeAttrs::default(),
                };
                let text = self.plain_until(TagEnd::CodeBlock);
                // pandoc-crossref: a listing with an id is numbered, with its caption.
                let numbered = attrs.id.as_deref().is_some_and(|id| id.starts_with("lst:"));
                BlockKind::Code(Box::new(Code {
                    style: if numbered {
                        CodeStyle::List
                    } else {
                        CodeStyle::Example
                    },
                    id: attrs.id,
                    number: None,
                    caption: attrs.caption.map(|c| vec![Inline::text(c, pos)]),
                    language: attrs.language,
                    first_line_number: None,
                    text,
                    markup: None,
                }))
            }
            Tag::HtmlBlock => {
                let raw = self.plain_until(TagEnd::HtmlBlock);
                return self.html_block(&raw, pos, range.start);
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
                match serde_saphyr::from_str::<Option<FrontMatter>>(&yaml) {
                    Ok(fm) => {
                        let fm = fm.unwrap_or_default();
                        self.doc.lang = fm.lang;
                        self.doc.title = fm.title.map(|t| match t {
                            FrontTitle::Text(s) => s,
                            FrontTitle::Number(n) => n.to_string(),
                        });
                        for key in fm.other.keys() {
                            // The key's own line: the block starts one line after `---`.
                            let line = yaml
                                .lines()
                                .position(|l| {
                                    l.strip_prefix(key.as_str())
                                        .is_some_and(|r| r.trim_start().starts_with(':'))
                                })
                                .map_or(pos.line, |n| pos.line + 1 + n as u32);
                            let what = if OTHER_TOOLS_KEYS.contains(&key.as_str()) {
                                "says nothing seihon shows in a chapter"
                            } else {
                                "is not a key seihon knows"
                            };
                            let f = Finding::warning(
                                codes::FRONT_MATTER_KEY,
                                self.location(Pos::new(line, 1)),
                                format!("the front matter key `{key}` {what}; it is ignored"),
                            )
                            .with_hint("a chapter's front matter sets `lang:` and `title:`; the book's metadata is book.yml's");
                            self.findings.push(f);
                        }
                    }
                    Err(e) => {
                        let line = e.location().map_or(0, |l| l.line() as u32);
                        // The block starts one line after the opening `---`.
                        let at = Pos::new(
                            pos.line + line,
                            e.location().map_or(1, |l| l.column() as u32),
                        );
                        let msg = format!(
                            "this front matter is not valid YAML: {}",
                            e.without_snippet().to_string().lines().next().unwrap_or("")
                        );
                        self.error(
                            codes::MARKDOWN_SYNTAX,
                            at,
                            msg,
                            "a chapter's front matter is YAML: `key: value` lines, such as `lang: en`",
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
                        blocks: Vec::new(),
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
        // The parts of a text after its first, when it holds ruby.
        let mut rest: Vec<(Pos, InlineKind)> = Vec::new();
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
                Event::Text(t) if t.contains('{') && self.text.get(range.clone()) == Some(&*t) => {
                    let mut pieces = self.ruby(&t, range.start).into_iter();
                    let first = pieces.next().map(|(_, kind)| kind);
                    rest = pieces.collect();
                    first
                }
                Event::Text(t) => Some(InlineKind::Text(t.to_string())),
                Event::Code(t) => Some(InlineKind::Code(t.to_string())),
                Event::InlineMath(ref t) | Event::DisplayMath(ref t) => {
                    let display = if matches!(ev, Event::DisplayMath(_)) {
                        self.display_math.push(pos);
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
                Event::InlineHtml(_) | Event::Html(_) => self.inline_html(range.start),
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
            for (at, kind) in rest.drain(..) {
                push_merged(&mut out, Inline::new(kind, at));
            }
        }
        if self.in_link == 0 {
            autolinks(&mut out);
            crossref::references(&mut out);
        }
        out
    }

    /// A text as written at byte `start` of the source, with its ruby (`{漢字|かんじ}`) made
    /// ruby: each part with where it starts.
    fn ruby(&self, text: &str, start: usize) -> Vec<(Pos, InlineKind)> {
        let escaped = |i: usize| {
            let before = &self.text.as_bytes()[..start + i];
            before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
        };
        ruby::split(text, escaped)
            .into_iter()
            .map(|piece| match piece {
                ruby::Piece::Text(r) => (
                    self.pos(start + r.start),
                    InlineKind::Text(text[r].to_string()),
                ),
                ruby::Piece::Ruby { at, base, reading } => (
                    self.pos(start + at),
                    InlineKind::Ruby {
                        base: base.to_string(),
                        text: reading.to_string(),
                    },
                ),
            })
            .collect()
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
                self.in_link += 1;
                let content = self.inlines(Some(TagEnd::Link));
                self.in_link -= 1;
                let href = match link_type {
                    LinkType::Email if !dest_url.starts_with("mailto:") => {
                        format!("mailto:{dest_url}")
                    }
                    _ => dest_url.to_string(),
                };
                InlineKind::Link { href, content }
            }
            Tag::Image { dest_url, .. } => {
                self.in_link += 1;
                let alt = plain_text(&self.inlines(Some(TagEnd::Image)));
                self.in_link -= 1;
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

    /// A warning about raw HTML seihon rendered around.
    fn repaired(&mut self, at: Pos, message: impl Into<String>, hint: &str) {
        let f = Finding::warning(codes::HTML_REPAIRED, self.location(at), message);
        self.findings.push(if hint.is_empty() {
            f
        } else {
            f.with_hint(hint)
        });
    }

    /// What [`rawhtml::repair`] did to the raw text starting at byte `start`, as warnings.
    fn report_repairs(&mut self, start: usize, repairs: Vec<rawhtml::Repair>) {
        for r in repairs {
            let at = self.pos((start + r.offset).min(self.text.len()));
            self.repaired(at, r.message, r.hint);
        }
    }

    /// Raw HTML parsed as XHTML, with the attributes EPUB does not allow cleaned (reported at
    /// `at`); the parse error when it is not well-formed even so.
    fn parse_html(&mut self, xhtml: &str, at: Pos) -> Result<Vec<dom::Node>, dom::ParseError> {
        let mut nodes = dom::parse_fragment(xhtml)?;
        for done in rawhtml::clean_attributes(&mut nodes) {
            self.repaired(at, done, "");
        }
        Ok(nodes)
    }

    /// An HTML block: XHTML, repaired as [`rawhtml::repair`] says; an element opened here
    /// and closed in a later HTML block of its own (`<div class="x">` … Markdown …
    /// `</div>`) holds the Markdown between; anything else that is not well-formed is shown
    /// as the text it is, with a warning.
    fn html_block(&mut self, raw: &str, pos: Pos, start: usize) -> Option<Block> {
        let (fixed, repairs) = rawhtml::repair(raw);
        self.report_repairs(start, repairs);
        let err = match self.parse_html(&fixed, pos) {
            Ok(nodes) => return Some(Block::new(BlockKind::Raw(nodes), pos)),
            Err(e) => e,
        };
        if err.message.contains("levels deep") {
            // Past the bound every later step needs: an error, as in every format.
            self.error(
                codes::RAW_HTML,
                Pos::new(pos.line + err.pos.line.saturating_sub(1), err.pos.col),
                format!("this HTML is not well-formed XHTML: {}", err.message),
                "nest fewer elements inside each other",
            );
            return None;
        }
        if let Some(block) = self.wrapping(&fixed, pos) {
            return Some(block);
        }
        let at = self.pos((start + err.pos.col.saturating_sub(1) as usize).min(self.text.len()));
        let at = if err.pos.line > 1 {
            Pos::new(pos.line + err.pos.line - 1, err.pos.col)
        } else {
            at
        };
        self.repaired(
            at,
            format!(
                "this HTML is not well-formed XHTML ({}); it is shown as the text it is",
                err.message
            ),
            "an EPUB needs XHTML: close every element (`<br/>`) and quote every attribute",
        );
        Some(Block::new(
            BlockKind::Para(vec![Inline::text(raw.trim_end(), pos)]),
            pos,
        ))
    }

    /// `<name …>` (with what follows it in its block, such as a `<summary>`) whose
    /// `</name>` is a later HTML block among the same blocks: a `div` holding the blocks
    /// between, classed as the element was (or with its name).
    fn wrapping(&mut self, fixed: &str, pos: Pos) -> Option<Block> {
        let name = opening_tag_name(fixed)?;
        if !rawhtml::is_element(&name) {
            return None;
        }
        let closed = format!("{fixed}</{name}>");
        let nodes = dom::parse_fragment(&closed).ok()?;
        let mut elements = nodes.into_iter().filter_map(|n| match n {
            dom::Node::Element(e) => Some(e),
            _ => None,
        });
        let mut outer = elements.next().filter(|e| e.name == name)?;
        if elements.next().is_some() {
            return None;
        }
        let close = self.closing_block(&name)?;
        // An element that may hold blocks stays what it is; any other (`<span>`, `<font>`
        // across paragraphs) becomes a `div` classed with its name.
        let container = WRAPPERS.contains(&name.as_str());
        if container {
            let mut nodes = vec![dom::Node::Element(outer)];
            for done in rawhtml::clean_attributes(&mut nodes) {
                self.repaired(pos, done, "");
            }
            let Some(dom::Node::Element(e)) = nodes.pop() else {
                return None;
            };
            outer = e;
        }
        let class = outer
            .attr("class")
            .map(str::to_string)
            .unwrap_or_else(|| name.clone());
        if !container && outer.attrs.iter().any(|(k, _)| k != "class") {
            self.repaired(
                pos,
                format!("`<{name}>` spans several blocks: its Markdown is kept in a `div` classed `{class}`, without its other attributes"),
                "",
            );
        }
        let mut blocks = Vec::new();
        let mut head = std::mem::take(&mut outer.children);
        for n in head.iter_mut() {
            if let dom::Node::Element(e) = n
                && e.name == "summary"
                && name != "details"
            {
                // A summary belongs in a `details`; the div shows it as a paragraph.
                e.name = "p".into();
                e.add_class("summary");
            }
        }
        if head
            .iter()
            .any(|n| !matches!(n, dom::Node::Text(t) if t.trim().is_empty()))
        {
            blocks.push(Block::new(BlockKind::Raw(head), pos));
        }
        let limit = std::mem::replace(&mut self.limit, close);
        blocks.extend(self.blocks(None));
        self.limit = limit;
        // Past the closing block.
        self.i = close + 1;
        while self.i < self.events.len() {
            let done = matches!(self.events[self.i].0, Event::End(TagEnd::HtmlBlock));
            self.i += 1;
            if done {
                break;
            }
        }
        if container {
            let element = outer;
            return Some(Block::new(BlockKind::Wrapped { element, blocks }, pos));
        }
        Some(Block::new(BlockKind::Div { class, blocks }, pos))
    }

    /// The index of the `Start(HtmlBlock)` event, among the blocks that follow at this level,
    /// of a block that is `</name>` alone, same-named blocks opened on the way counted.
    fn closing_block(&self, name: &str) -> Option<usize> {
        let mut depth = 0usize;
        let mut open = 0usize;
        let mut j = self.i;
        while j < self.limit {
            match &self.events[j].0 {
                Event::Start(Tag::HtmlBlock) if depth == 0 => {
                    let mut k = j + 1;
                    let mut html = String::new();
                    while let Some((Event::Html(h) | Event::Text(h), _)) = self.events.get(k) {
                        html.push_str(h);
                        k += 1;
                    }
                    let html = html.trim();
                    if html == format!("</{name}>") {
                        if open == 0 {
                            return Some(j);
                        }
                        open -= 1;
                    } else if opening_tag_name(html).as_deref() == Some(name)
                        && !html.contains(&format!("</{name}>"))
                    {
                        open += 1;
                    }
                    j = k;
                    continue;
                }
                Event::Start(_) => depth += 1,
                Event::End(_) => {
                    if depth == 0 {
                        return None;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            j += 1;
        }
        None
    }

    /// Inline HTML arrives tag by tag (`<span>`, text, `</span>`). A "tag" of no HTML element
    /// (`Vec<T>`'s `<T>`) is the text it is. An element's Markdown up to its balancing close is
    /// written as XHTML (emphasis, code, links) and parsed as one fragment; one that does not
    /// close is its text, with a warning.
    fn inline_html(&mut self, start: usize) -> Option<InlineKind> {
        let first_end = self.events[self.i - 1].1.end;
        let first = &self.text[start..first_end];
        let at = self.pos(start);
        if let Some(name) = rawhtml::tag_name(first.trim())
            && !rawhtml::is_element(name)
        {
            if name.contains(['.', '@']) {
                self.repaired(
                    at,
                    format!("`<{name}>` is no HTML element; it is shown as written"),
                    "for a link write the address with its scheme, `<https://…>`",
                );
            }
            return Some(InlineKind::Text(first.to_string()));
        }
        let resume = self.i;
        let mut xhtml = first.to_string();
        if let Some(name) = opening_tag_name(first)
            && !rawhtml::is_void(&name)
        {
            let mut depth = 1usize;
            while depth > 0 && self.i < self.events.len() {
                let (ev, range) = self.events[self.i].clone();
                if matches!(
                    ev,
                    Event::End(TagEnd::Paragraph) | Event::End(TagEnd::TableCell)
                ) {
                    break;
                }
                self.i += 1;
                let source = &self.text[range];
                match ev {
                    Event::InlineHtml(h) | Event::Html(h) => {
                        if opening_tag_name(&h).as_deref() == Some(name.as_str()) {
                            depth += 1;
                        } else if closing_tag_name(&h).as_deref() == Some(name.as_str()) {
                            depth -= 1;
                        }
                        xhtml.push_str(&h);
                    }
                    Event::Text(t) => xhtml.push_str(&escape(&t)),
                    Event::Code(t) => {
                        xhtml.push_str(&format!("<code>{}</code>", escape(&t)));
                    }
                    Event::SoftBreak => xhtml.push('\n'),
                    Event::HardBreak => xhtml.push_str("<br/>"),
                    Event::Start(Tag::Emphasis) => xhtml.push_str("<em>"),
                    Event::End(TagEnd::Emphasis) => xhtml.push_str("</em>"),
                    Event::Start(Tag::Strong) => xhtml.push_str("<strong>"),
                    Event::End(TagEnd::Strong) => xhtml.push_str("</strong>"),
                    Event::Start(Tag::Strikethrough) => xhtml.push_str("<del>"),
                    Event::End(TagEnd::Strikethrough) => xhtml.push_str("</del>"),
                    Event::Start(Tag::Superscript) => xhtml.push_str("<sup>"),
                    Event::End(TagEnd::Superscript) => xhtml.push_str("</sup>"),
                    Event::Start(Tag::Subscript) => xhtml.push_str("<sub>"),
                    Event::End(TagEnd::Subscript) => xhtml.push_str("</sub>"),
                    Event::Start(Tag::Link { dest_url, .. }) => {
                        xhtml.push_str(&format!("<a href=\"{}\">", escape(&dest_url)));
                    }
                    Event::End(TagEnd::Link) => xhtml.push_str("</a>"),
                    Event::Start(_) | Event::End(_) => {}
                    _ => xhtml.push_str(&escape(source)),
                }
            }
        }
        let (fixed, repairs) = rawhtml::repair(&xhtml);
        for r in repairs {
            self.repaired(at, r.message, r.hint);
        }
        match self.parse_html(&fixed, at) {
            Ok(nodes) => Some(InlineKind::Raw(nodes)),
            Err(e) => {
                self.i = resume;
                self.repaired(
                    at,
                    format!(
                        "this HTML is not well-formed XHTML ({}); the tag is shown as written",
                        e.message
                    ),
                    "an EPUB needs XHTML: close every element (`<br/>`) and quote every attribute",
                );
                Some(InlineKind::Text(first.to_string()))
            }
        }
    }
}

/// Text as XML text.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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

/// The image a paragraph holds alone, with the id of the pandoc attributes after it
/// (`![cap](a.png){#fig:id}`: a numbered figure).
fn lone_image(content: &[Inline]) -> Option<(Image, Option<String>)> {
    let mut found = None;
    let mut id = None;
    for i in content {
        match &i.kind {
            InlineKind::Image(img) if found.is_none() => found = Some(img.clone()),
            InlineKind::Text(t) if t.trim().is_empty() => {}
            InlineKind::Text(t) if found.is_some() && id.is_none() => match crossref::leading_id(t)
            {
                Some((written, end)) if t[end..].trim().is_empty() => id = Some(written),
                _ => return None,
            },
            _ => return None,
        }
    }
    found.map(|image| (image, id))
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

/// GFM's bare addresses in the text of `inlines` made links (see [`autolink`]); the link's
/// text is the address as written, so not a character of the text changes.
fn autolinks(inlines: &mut Inlines) {
    super::split_texts(inlines, |text, pos| {
        autolink::find(text)
            .into_iter()
            .map(|link| {
                let content = vec![Inline::text(&text[link.range.clone()], pos)];
                let kind = InlineKind::Link {
                    href: link.href,
                    content,
                };
                (link.range, kind)
            })
            .collect()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Severity;

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
            // Display math is a block of its own.
            BlockKind::Math(m) => dom::serialize_nodes(m.mathml.as_ref().expect("MathML")),
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

    fn read_warned(text: &str) -> (Document, Vec<Finding>) {
        let (doc, findings) = read(text, Path::new("ch.md"));
        assert!(
            findings.iter().all(|f| f.severity == Severity::Warning),
            "{findings:?}"
        );
        (doc, findings)
    }

    fn xhtml_of(blocks: &[Block]) -> String {
        blocks
            .iter()
            .map(|b| match &b.kind {
                BlockKind::Raw(n) => dom::serialize_nodes(n).trim().to_string(),
                BlockKind::Para(c) => c
                    .iter()
                    .map(|i| match &i.kind {
                        InlineKind::Raw(n) => dom::serialize_nodes(n),
                        InlineKind::Text(t) => t.clone(),
                        other => format!("{other:?}"),
                    })
                    .collect(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn a_void_element_not_closed_is_closed() {
        let d = read_ok("本文\n\n改行<br>の後\n");
        assert_eq!(xhtml_of(&d.blocks[1..]), "改行<br/>の後");
    }

    #[test]
    fn a_tag_of_no_html_element_is_the_text_written() {
        let d = read_ok("`Vec` is Vec<T>, and Option<String> too.\n");
        let BlockKind::Para(c) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(plain_text(c), "Vec is Vec<T>, and Option<String> too.");
        // One that looks like an address is warned about, at its line and column.
        let (d, f) = read_warned("<p>Blog:\nat <blog.example.com> .</p>\n");
        assert_eq!(
            xhtml_of(&d.blocks),
            "<p>Blog:\nat &lt;blog.example.com&gt; .</p>"
        );
        assert_eq!(
            (f[0].code.as_ref(), f[0].location.line, f[0].location.col),
            ("html-repaired", 2, 4)
        );
    }

    #[test]
    fn markdown_inside_inline_html_is_written_as_xhtml() {
        let d = read_ok("<span class=\"c\">図: `&String s` の *図*</span>\n");
        assert_eq!(
            xhtml_of(&d.blocks),
            r#"<span class="c">図: <code>&amp;String s</code> の <em>図</em></span>"#
        );
    }

    #[test]
    fn an_inline_element_never_closed_is_its_text_with_a_warning() {
        let (d, f) = read_warned("a <code>b *c*\n");
        assert_eq!(f.len(), 1, "{f:?}");
        let BlockKind::Para(c) = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(c[0].kind, InlineKind::Text("a <code>b ".into()));
        assert!(matches!(c[1].kind, InlineKind::Emphasis(_)), "{c:?}");
    }

    #[test]
    fn bare_ampersands_and_entities_in_html_blocks() {
        let (d, f) = read_warned("<p>A & B&nbsp;&madeup;</p>\n");
        assert_eq!(xhtml_of(&d.blocks), "<p>A &amp; B\u{a0}&amp;madeup;</p>");
        assert_eq!((f.len(), f[0].location.col), (1, 15), "{f:?}");
    }

    #[test]
    fn attributes_epub_does_not_allow_are_dropped_or_css_with_a_warning() {
        let (d, f) = read_warned("<p align=\"center\" onclick=\"x()\">中央</p>\n");
        assert_eq!(
            xhtml_of(&d.blocks),
            r#"<p style="text-align:center">中央</p>"#
        );
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().all(|f| f.location.line == 1));
    }

    #[test]
    fn smart_punctuation_only_when_the_book_asks() {
        let text = "\"Quotes\" -- and --- dashes... it's\n";
        let plain = |d: &Document| match &d.blocks[0].kind {
            BlockKind::Para(c) => plain_text(c),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            plain(&read_ok(text)),
            "\"Quotes\" -- and --- dashes... it's"
        );
        let (d, f) = read_with(text, Path::new("a.md"), MarkdownOptions { smart: true });
        assert!(f.is_empty(), "{f:?}");
        assert_eq!(plain(&d), "“Quotes” – and — dashes… it’s");
    }

    #[test]
    fn an_element_closed_in_a_later_block_holds_the_markdown_between() {
        let (d, f) = read_warned("<div class=\"box\">\n\n*一*\n\n</div>\n\n後\n");
        assert!(f.is_empty(), "{f:?}");
        let BlockKind::Wrapped { element, blocks } = &d.blocks[0].kind else {
            panic!("{:?}", d.blocks)
        };
        assert_eq!(
            (element.name.as_str(), element.attr("class"), blocks.len()),
            ("div", Some("box"), 1)
        );
        assert!(
            matches!(&blocks[0].kind, BlockKind::Para(c) if matches!(c[0].kind, InlineKind::Emphasis(_)))
        );
        assert_eq!(xhtml_of(&d.blocks[1..]), "後");
        let (d, _) = read_warned("<details>\n<summary>要約</summary>\n\n本文\n\n</details>\n");
        let BlockKind::Wrapped { element, blocks } = &d.blocks[0].kind else {
            panic!("{:?}", d.blocks)
        };
        assert_eq!(element.name, "details");
        assert_eq!(xhtml_of(&blocks[..1]).trim(), "<summary>要約</summary>");
        // An element that holds no blocks in HTML becomes a div classed with its name.
        let (d, _) = read_warned("<span>\n\n本文\n\n</span>\n");
        assert!(
            matches!(&d.blocks[0].kind, BlockKind::Div { class, .. } if class == "span"),
            "{:?}",
            d.blocks
        );
    }

    #[test]
    fn html_never_closed_is_its_text_with_a_warning_not_a_failed_book() {
        let (d, f) = read_warned("<div>a\n\n本文\n");
        assert_eq!(f[0].code, codes::HTML_REPAIRED.name());
        assert_eq!(xhtml_of(&d.blocks), "<div>a|本文");
    }

    #[test]
    fn front_matter_sets_language_and_title_and_warns_of_other_keys() {
        let d = read_ok("---\nlang: en\ntitle: The Title\n---\n\nText\n");
        assert_eq!(
            (d.lang.as_deref(), d.title.as_deref()),
            (Some("en"), Some("The Title"))
        );
        // The title is not written into the text.
        assert_eq!(d.blocks.len(), 1);
        let (_, f) = read_warned("---\nlang: en\nemoji: \"📚\"\nlnag: x\n---\n");
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(
            (f[0].code.as_ref(), f[0].location.line),
            ("front-matter-key", 3)
        );
        assert!(f[1].message.contains("`lnag`"), "{f:?}");
        assert_eq!(read_ok("---\n---\n\nA\n").title, None);
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
        assert_eq!(code("---\ntitle: [x\n---\n\nA\n"), "markdown-syntax");
        assert_eq!(code("---\nlayout: post\n---\n\nA\n"), "front-matter-key");
        assert_eq!(code("<div>a\n"), "html-repaired");
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
