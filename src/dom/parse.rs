//! The parser: text → [`Document`] or nodes, over quick-xml's event reader, every error at a
//! line and column in plain words.
use quick_xml::errors::{Error as XmlError, IllFormedError, SyntaxError};
use quick_xml::events::Event;
use quick_xml::events::attributes::AttrError;
use quick_xml::reader::Reader;

use super::entities::resolve_reference;
use super::*;

// ---------------------------------------------------------------------------
// Parsing

/// Deeper trees are refused: serialization, `Drop` and `walk` recurse, and a
/// hostile input must not overflow the stack.
pub(super) const MAX_DEPTH: usize = 1000;

/// A fragment (raw HTML in a chapter) must leave room for the page around it, so that a fragment
/// that parses also fits in its page: the error is then reported at the chapter's own line.
const MAX_FRAGMENT_DEPTH: usize = MAX_DEPTH - 100;

/// Maps byte offsets to line and column.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    index: crate::lines::LineIndex,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        LineIndex {
            text,
            index: crate::lines::LineIndex::new(text),
        }
    }

    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let (line, col) = self.index.line_col(self.text, offset);
        Pos { line, col }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Document,
    Fragment,
}

struct Parser<'a> {
    text: &'a str,
    lines: LineIndex<'a>,
    mode: Mode,
    /// Open elements, innermost last.
    stack: Vec<Element>,
    /// Completed top-level nodes.
    top: Vec<Node>,
    doctype: Option<String>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, mode: Mode) -> Self {
        Parser {
            text,
            lines: LineIndex::new(text),
            mode,
            stack: Vec::new(),
            top: Vec::new(),
            doctype: None,
        }
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            pos: self.lines.pos(offset),
            message: message.into(),
        }
    }

    /// Byte offset of a slice borrowed from the input, if it is one.
    fn offset_of(&self, s: &str) -> Option<usize> {
        let base = self.text.as_ptr() as usize;
        let p = s.as_ptr() as usize;
        (p >= base && p + s.len() <= base + self.text.len()).then(|| p - base)
    }

    fn root_seen(&self) -> bool {
        self.top.iter().any(|n| matches!(n, Node::Element(_)))
    }

    fn run(&mut self) -> Result<(), ParseError> {
        let mut reader = Reader::from_str(self.text);
        {
            // We match end tags ourselves to give better messages.
            let config = reader.config_mut();
            config.check_end_names = false;
            config.allow_unmatched_ends = true;
            config.expand_empty_elements = false;
            config.trim_text(false);
        }
        loop {
            let start = to_usize(reader.buffer_position());
            let event = match reader.read_event() {
                Ok(ev) => ev,
                Err(e) => {
                    let at = to_usize(reader.error_position());
                    return Err(self.error(at, reader_error_message(&e)));
                }
            };
            match event {
                Event::Start(e) => {
                    let el = self.start_element(start, &e)?;
                    let max = match self.mode {
                        Mode::Document => MAX_DEPTH,
                        Mode::Fragment => MAX_FRAGMENT_DEPTH,
                    };
                    if self.stack.len() >= max {
                        return Err(self.error(
                            start,
                            format!("elements are nested more than {max} levels deep"),
                        ));
                    }
                    self.stack.push(el);
                }
                Event::Empty(e) => {
                    let el = self.start_element(start, &e)?;
                    self.finish_element(el);
                }
                Event::End(e) => self.end_element(start, e.name().0)?,
                Event::Text(e) => {
                    let raw: &str = &e;
                    self.check_chars(start, raw)?;
                    let text = e.xml10_content();
                    self.add_text(start, &text)?;
                }
                Event::CData(e) => {
                    let raw: &str = &e;
                    // Content begins after `<![CDATA[`.
                    self.check_chars(start + 9, raw)?;
                    let text = e.xml10_content();
                    if self.outside_root() && !text.is_empty() {
                        return Err(self.text_outside_root(start));
                    }
                    self.append_text(&text);
                }
                Event::GeneralRef(e) => {
                    let c = resolve_reference(&e).map_err(|m| self.error(start, m))?;
                    let mut buf = [0u8; 4];
                    self.add_text(start, c.encode_utf8(&mut buf))?;
                }
                Event::Comment(e) => {
                    let raw: &str = &e;
                    self.check_chars(start + 4, raw)?;
                    let text = e.xml10_content().into_owned();
                    match self.stack.last_mut() {
                        Some(parent) => parent.children.push(Node::Comment(text)),
                        // A Document has no place for comments outside the root.
                        None if self.mode == Mode::Document => {}
                        None => self.top.push(Node::Comment(text)),
                    }
                }
                Event::DocType(e) => self.doctype(start, &e)?,
                Event::Decl(_) | Event::PI(_) => {}
                Event::Eof => return self.finish(),
            }
        }
    }

    fn outside_root(&self) -> bool {
        self.mode == Mode::Document && self.stack.is_empty()
    }

    fn text_outside_root(&self, offset: usize) -> ParseError {
        if self.root_seen() {
            self.error(
                offset,
                "there is text after the end of the root element; everything must be inside it",
            )
        } else {
            self.error(
                offset,
                "there is text before the root element; everything must be inside it",
            )
        }
    }

    fn check_chars(&self, offset: usize, raw: &str) -> Result<(), ParseError> {
        match raw.char_indices().find(|&(_, c)| !is_xml_char(c)) {
            Some((i, c)) => Err(self.error(
                offset + i,
                format!(
                    "the control character U+{:04X} is not allowed in XHTML",
                    u32::from(c)
                ),
            )),
            None => Ok(()),
        }
    }

    fn add_text(&mut self, offset: usize, text: &str) -> Result<(), ParseError> {
        if self.outside_root() {
            // Whitespace around the root is layout, not content.
            return match text.find(|c| !is_xml_space(c)) {
                Some(i) => Err(self.text_outside_root(offset + i)),
                None => Ok(()),
            };
        }
        self.append_text(text);
        Ok(())
    }

    fn append_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.stack.last_mut() {
            Some(parent) => parent.push_text(text),
            None => match self.top.last_mut() {
                Some(Node::Text(t)) => t.push_str(text),
                _ => self.top.push(Node::Text(text.to_string())),
            },
        }
    }

    fn start_element(
        &self,
        start: usize,
        e: &quick_xml::events::BytesStart<'_>,
    ) -> Result<Element, ParseError> {
        let name = e.name().0;
        if name.is_empty() {
            return Err(self.error(
                start,
                "`<` must be followed by an element name; to write the `<` character itself, write `&lt;`",
            ));
        }
        if !is_xml_name(name) {
            return Err(self.error(
                start,
                format!(
                    "`<{name}` is not a valid tag name; to write the `<` character itself, write `&lt;`"
                ),
            ));
        }
        if self.mode == Mode::Document
            && self.stack.is_empty()
            && let Some(root) = self.top.iter().find_map(|n| match n {
                Node::Element(r) => Some(r),
                _ => None,
            })
        {
            return Err(self.error(
                start,
                format!(
                    "a document must have exactly one root element, but `<{name}>` comes after \
                     the root `<{}>` was closed",
                    root.name
                ),
            ));
        }
        let mut el = Element::new(name);
        el.pos = Some(self.lines.pos(start));
        // Attribute error positions are relative to the byte after `<`.
        let content: &str = e;
        for attr in e.attributes() {
            let attr = attr.map_err(|err| self.attr_error(start + 1, content, &err))?;
            let key = attr.key.0;
            let key_offset = self.offset_of(key).unwrap_or(start);
            if !is_xml_name(key) {
                return Err(
                    self.error(key_offset, format!("`{key}` is not a valid attribute name"))
                );
            }
            let value_offset = self.offset_of(&attr.value).unwrap_or(key_offset);
            let value = self.attr_value(value_offset, &attr.value)?;
            el.attrs.push((key.to_string(), value));
        }
        Ok(el)
    }

    fn attr_error(&self, base: usize, content: &str, err: &AttrError) -> ParseError {
        match *err {
            AttrError::Duplicated(at, prev) => {
                let name = content
                    .get(at..)
                    .and_then(|s| s.split(|c: char| c == '=' || is_xml_space(c)).next())
                    .unwrap_or("");
                let first = self.lines.pos(base + prev);
                self.error(
                    base + at,
                    format!(
                        "the attribute `{name}` appears twice in the same tag (first at {first}); \
                         keep only one"
                    ),
                )
            }
            AttrError::ExpectedEq(at) => {
                // The attribute without `=` is the last word before the error position.
                let before = content
                    .get(..at)
                    .unwrap_or("")
                    .trim_end_matches(is_xml_space);
                let word_start = before.rfind(is_xml_space).map_or(0, |i| i + 1);
                let word = &before[word_start..];
                if is_xml_name(word) {
                    self.error(
                        base + word_start,
                        format!(
                            "the attribute `{word}` has no value; in XHTML every attribute needs \
                             one, for example `{word}=\"{word}\"`"
                        ),
                    )
                } else {
                    self.error(
                        base + at,
                        "bad attribute syntax: write attributes as name=\"value\"",
                    )
                }
            }
            AttrError::ExpectedValue(at) => self.error(
                base + at,
                "`=` must be followed by a quoted attribute value, as in name=\"value\"",
            ),
            AttrError::UnquotedValue(at) => self.error(
                base + at,
                "attribute values must be in quotes, as in name=\"value\"",
            ),
            AttrError::ExpectedQuote(at, q) => self.error(
                base + at,
                format!(
                    "an attribute value is missing its closing `{}`",
                    char::from(q)
                ),
            ),
        }
    }

    /// Unescapes and normalizes an attribute value as XML requires: literal
    /// tabs and line breaks become spaces, references are resolved.
    fn attr_value(&self, offset: usize, raw: &str) -> Result<String, ParseError> {
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw.char_indices().peekable();
        while let Some((i, c)) = rest.next() {
            match c {
                '<' => {
                    return Err(self.error(
                        offset + i,
                        "`<` is not allowed in attribute values; write `&lt;`",
                    ));
                }
                '&' => {
                    let Some(len) = raw[i..].find(';') else {
                        return Err(self.error(
                            offset + i,
                            "a `&` must start an entity such as `&amp;`; to write the `&` character itself, write `&amp;`",
                        ));
                    };
                    let name = &raw[i + 1..i + len];
                    let ch = resolve_reference(name).map_err(|m| self.error(offset + i, m))?;
                    out.push(ch);
                    while rest.peek().is_some_and(|&(j, _)| j <= i + len) {
                        rest.next();
                    }
                }
                '\r' => {
                    if rest.peek().is_some_and(|&(_, n)| n == '\n') {
                        rest.next();
                    }
                    out.push(' ');
                }
                '\n' | '\t' => out.push(' '),
                c if !is_xml_char(c) => {
                    return Err(self.error(
                        offset + i,
                        format!(
                            "the control character U+{:04X} is not allowed in XHTML",
                            u32::from(c)
                        ),
                    ));
                }
                c => out.push(c),
            }
        }
        Ok(out)
    }

    fn finish_element(&mut self, el: Element) {
        match self.stack.last_mut() {
            Some(parent) => parent.children.push(Node::from(el)),
            None => self.top.push(Node::from(el)),
        }
    }

    fn end_element(&mut self, start: usize, name: &str) -> Result<(), ParseError> {
        if name.is_empty() {
            return Err(self.error(
                start,
                "`</` must be followed by the name of the element it closes",
            ));
        }
        let Some(open) = self.stack.last() else {
            return Err(self.error(
                start,
                format!("`</{name}>` closes nothing: there is no open `<{name}>` here"),
            ));
        };
        if open.name != name {
            let opened = open.pos.unwrap_or_default();
            let mut message = format!(
                "`</{0}>` expected to close `<{0}>` opened at {opened}, but found `</{name}>`",
                open.name
            );
            if is_void(&open.name) {
                message.push_str(&format!(
                    "; `<{0}>` has no end tag in HTML, so in XHTML write it as `<{0}/>`",
                    open.name
                ));
            }
            return Err(self.error(start, message));
        }
        if let Some(el) = self.stack.pop() {
            self.finish_element(el);
        }
        Ok(())
    }

    fn doctype(&mut self, start: usize, content: &str) -> Result<(), ParseError> {
        if self.mode == Mode::Fragment {
            return Err(self.error(
                start,
                "a DOCTYPE is only allowed at the start of a whole document, not in an HTML fragment",
            ));
        }
        if content.contains('[') || content.contains("<!ENTITY") {
            return Err(self.error(
                start,
                "DOCTYPE declarations with entities are not allowed in XHTML",
            ));
        }
        if self.doctype.is_some() || self.root_seen() || !self.stack.is_empty() {
            return Err(self.error(
                start,
                "a document may have only one DOCTYPE, before the root element",
            ));
        }
        self.doctype = Some(content.trim_matches(is_xml_space).to_string());
        Ok(())
    }

    fn finish(&mut self) -> Result<(), ParseError> {
        if let Some(open) = self.stack.last() {
            let at = open.pos.unwrap_or_default();
            let message = if is_void(&open.name) {
                format!(
                    "`<{0}>` is never closed; in XHTML write it as `<{0}/>`",
                    open.name
                )
            } else {
                format!(
                    "`<{0}>` is never closed; add `</{0}>` where the element ends",
                    open.name
                )
            };
            return Err(ParseError { pos: at, message });
        }
        if self.mode == Mode::Document && !self.root_seen() {
            return Err(self.error(
                self.text.len(),
                "the document has no root element (such as `<html>`)",
            ));
        }
        Ok(())
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn reader_error_message(e: &XmlError) -> String {
    match e {
        XmlError::Syntax(s) => match s {
            SyntaxError::InvalidBangMarkup => {
                "`<!` must start a comment `<!--`, a CDATA section `<![CDATA[` or a `<!DOCTYPE`"
                    .into()
            }
            SyntaxError::UnclosedPI | SyntaxError::UnclosedXmlDecl => {
                "this `<?` is never closed with `?>`".into()
            }
            SyntaxError::UnclosedComment => "this comment is never closed with `-->`".into(),
            SyntaxError::UnclosedDoctype => "this DOCTYPE is never closed with `>`".into(),
            SyntaxError::UnclosedCData => "this CDATA section is never closed with `]]>`".into(),
            SyntaxError::UnclosedTag => "this tag is never closed with `>`; to write the `<` \
                                         character itself, write `&lt;`"
                .into(),
            SyntaxError::UnclosedSingleQuotedAttributeValue => {
                "an attribute value in this tag is missing its closing `'`".into()
            }
            SyntaxError::UnclosedDoubleQuotedAttributeValue => {
                "an attribute value in this tag is missing its closing `\"`".into()
            }
        },
        XmlError::IllFormed(i) => match i {
            IllFormedError::UnclosedReference => "a `&` must start an entity such as `&amp;`; \
                                                   to write the `&` character itself, write `&amp;`"
                .into(),
            IllFormedError::MissingDoctypeName => {
                "the DOCTYPE has no name; write `<!DOCTYPE html>`".into()
            }
            IllFormedError::MissingDeclVersion(_) | IllFormedError::UnknownVersion => {
                "the XML declaration is malformed; write `<?xml version=\"1.0\" encoding=\"UTF-8\"?>`"
                    .into()
            }
            other => format!("the XHTML is malformed: {other}"),
        },
        XmlError::Encoding(_) => "the text is not valid UTF-8".into(),
        other => format!("the XHTML is malformed: {other}"),
    }
}

/// Parses a whole XHTML document. Comments outside the root element are dropped.
pub fn parse_document(text: &str) -> Result<Document, ParseError> {
    let mut parser = Parser::new(text, Mode::Document);
    parser.run()?;
    let doctype = parser.doctype.take();
    let root = parser.top.into_iter().find_map(|n| match n {
        Node::Element(e) => Some(e),
        _ => None,
    });
    match root {
        Some(root) => Ok(Document {
            doctype,
            root: *root,
        }),
        // `finish` already reports a missing root; this is a defensive fallback.
        None => Err(ParseError {
            pos: Pos { line: 1, col: 1 },
            message: "the document has no root element (such as `<html>`)".into(),
        }),
    }
}

/// A fragment: zero or more elements/text/comments at top level (used for raw HTML in Markdown).
pub fn parse_fragment(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut parser = Parser::new(text, Mode::Fragment);
    parser.run()?;
    Ok(parser.top)
}
