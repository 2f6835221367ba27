//! A small owned XML tree for XHTML content documents.
//!
//! Parsing is built on quick-xml's event reader, with our own checks layered
//! on top so that every error names a line and column and explains the fix in
//! plain words (the people reading them write manuscripts, not XML parsers).
//! Serialization always produces well-formed XML suitable for EPUB 3 content
//! documents, adding line breaks only where they cannot change the meaning.

use quick_xml::errors::{Error as XmlError, IllFormedError, SyntaxError};
use quick_xml::events::Event;
use quick_xml::events::attributes::AttrError;
use quick_xml::reader::Reader;
use std::fmt;

/// 1-based line and column (column counts Unicode scalar values) in the parsed text.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.col)
    }
}

/// A node of the tree.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub enum Node {
    Element(Element),
    Text(String),
    Comment(String),
}

/// An element with its attributes and children.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Element {
    /// Qualified name as written, e.g. "html", "epub:switch", "svg".
    pub name: String,
    /// In order, unescaped values; names as written ("xml:lang", "epub:type").
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
    /// Where the start tag was, when parsed.
    pub pos: Option<Pos>,
}

impl Element {
    pub fn new(name: impl Into<String>) -> Self {
        Element {
            name: name.into(),
            attrs: Vec::new(),
            children: Vec::new(),
            pos: None,
        }
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Replaces the value of an existing attribute (keeping its place) or appends it.
    pub fn set_attr(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        let value = value.into();
        match self.attrs.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.attrs.push((name, value)),
        }
    }

    pub fn remove_attr(&mut self, name: &str) -> Option<String> {
        let i = self.attrs.iter().position(|(n, _)| n == name)?;
        Some(self.attrs.remove(i).1)
    }

    pub fn with_attr(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.set_attr(name, value);
        self
    }

    pub fn with_child(mut self, node: impl Into<Node>) -> Self {
        self.push(node);
        self
    }

    /// Appends a Text child (merged with a trailing Text child).
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.push_text(&text);
        self
    }

    pub fn push(&mut self, node: impl Into<Node>) {
        self.children.push(node.into());
    }

    /// Appends text, merging with a trailing Text child so that text stays in one node.
    pub fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(Node::Text(last)) = self.children.last_mut() {
            last.push_str(text);
        } else {
            self.children.push(Node::Text(text.to_string()));
        }
    }

    /// Concatenated text of all descendants (comments excluded).
    pub fn text_content(&self) -> String {
        fn collect(el: &Element, out: &mut String) {
            for child in &el.children {
                match child {
                    Node::Text(t) => out.push_str(t),
                    Node::Element(e) => collect(e, out),
                    Node::Comment(_) => {}
                }
            }
        }
        let mut out = String::new();
        collect(self, &mut out);
        out
    }

    pub fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|v| v.split_ascii_whitespace().any(|c| c == class))
    }

    /// Adds a class unless it is already present.
    pub fn add_class(&mut self, class: &str) {
        if self.has_class(class) {
            return;
        }
        let value = match self.attr("class") {
            Some(v) if !v.trim().is_empty() => format!("{} {class}", v.trim_end()),
            _ => class.to_string(),
        };
        self.set_attr("class", value);
    }

    /// Depth-first visits of elements (self included), for checks and filters.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Element)) {
        f(self);
        for child in &self.children {
            if let Node::Element(e) = child {
                e.walk(f);
            }
        }
    }

    /// Like [`Element::walk`], mutably. The parent is visited before its children,
    /// so children added or changed by `f` are visited too.
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Element)) {
        f(self);
        for child in &mut self.children {
            if let Node::Element(e) = child {
                e.walk_mut(f);
            }
        }
    }

    /// Child elements, skipping text and comments.
    pub fn child_elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            _ => None,
        })
    }
}

impl From<Element> for Node {
    fn from(e: Element) -> Self {
        Node::Element(e)
    }
}

impl From<String> for Node {
    fn from(s: String) -> Self {
        Node::Text(s)
    }
}

impl From<&str> for Node {
    fn from(s: &str) -> Self {
        Node::Text(s.to_string())
    }
}

/// A whole XHTML document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The text inside `<!DOCTYPE ...>`, e.g. "html".
    pub doctype: Option<String>,
    pub root: Element,
}

/// A parse failure, located in the input, with a message for non-programmers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for ParseError {}

// ---------------------------------------------------------------------------
// Parsing

/// Deeper trees are refused: serialization, `Drop` and `walk` recurse, and a
/// hostile input must not overflow the stack.
const MAX_DEPTH: usize = 1000;

/// A fragment (raw HTML in a chapter) must leave room for the page around it, so that a fragment
/// that parses also fits in its page: the error is then reported at the chapter's own line.
const MAX_FRAGMENT_DEPTH: usize = MAX_DEPTH - 100;

const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

fn is_void(name: &str) -> bool {
    VOID_ELEMENTS.contains(&name)
}

/// Common HTML named entities, so the error can say which character was meant.
const HTML_ENTITIES: &[(&str, u32)] = &[
    ("nbsp", 0xA0),
    ("iexcl", 0xA1),
    ("cent", 0xA2),
    ("pound", 0xA3),
    ("curren", 0xA4),
    ("yen", 0xA5),
    ("brvbar", 0xA6),
    ("sect", 0xA7),
    ("uml", 0xA8),
    ("copy", 0xA9),
    ("ordf", 0xAA),
    ("laquo", 0xAB),
    ("not", 0xAC),
    ("shy", 0xAD),
    ("reg", 0xAE),
    ("macr", 0xAF),
    ("deg", 0xB0),
    ("plusmn", 0xB1),
    ("sup2", 0xB2),
    ("sup3", 0xB3),
    ("acute", 0xB4),
    ("micro", 0xB5),
    ("para", 0xB6),
    ("middot", 0xB7),
    ("cedil", 0xB8),
    ("sup1", 0xB9),
    ("ordm", 0xBA),
    ("raquo", 0xBB),
    ("frac14", 0xBC),
    ("frac12", 0xBD),
    ("frac34", 0xBE),
    ("iquest", 0xBF),
    ("Auml", 0xC4),
    ("Eacute", 0xC9),
    ("Ouml", 0xD6),
    ("times", 0xD7),
    ("Uuml", 0xDC),
    ("szlig", 0xDF),
    ("agrave", 0xE0),
    ("aacute", 0xE1),
    ("auml", 0xE4),
    ("ccedil", 0xE7),
    ("egrave", 0xE8),
    ("eacute", 0xE9),
    ("ntilde", 0xF1),
    ("ouml", 0xF6),
    ("divide", 0xF7),
    ("uuml", 0xFC),
    ("alpha", 0x3B1),
    ("beta", 0x3B2),
    ("mu", 0x3BC),
    ("pi", 0x3C0),
    ("ensp", 0x2002),
    ("emsp", 0x2003),
    ("thinsp", 0x2009),
    ("zwnj", 0x200C),
    ("zwj", 0x200D),
    ("lrm", 0x200E),
    ("rlm", 0x200F),
    ("ndash", 0x2013),
    ("mdash", 0x2014),
    ("lsquo", 0x2018),
    ("rsquo", 0x2019),
    ("sbquo", 0x201A),
    ("ldquo", 0x201C),
    ("rdquo", 0x201D),
    ("bdquo", 0x201E),
    ("dagger", 0x2020),
    ("Dagger", 0x2021),
    ("bull", 0x2022),
    ("hellip", 0x2026),
    ("permil", 0x2030),
    ("prime", 0x2032),
    ("Prime", 0x2033),
    ("lsaquo", 0x2039),
    ("rsaquo", 0x203A),
    ("euro", 0x20AC),
    ("trade", 0x2122),
    ("larr", 0x2190),
    ("uarr", 0x2191),
    ("rarr", 0x2192),
    ("darr", 0x2193),
    ("harr", 0x2194),
    ("minus", 0x2212),
    ("infin", 0x221E),
    ("ne", 0x2260),
    ("le", 0x2264),
    ("ge", 0x2265),
    ("hearts", 0x2665),
];

/// XML 1.0 `Char` production; Rust `char` already excludes surrogates.
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FFFD}' | '\u{10000}'..)
}

fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

fn is_blank(s: &str) -> bool {
    s.chars().all(is_xml_space)
}

/// Approximates the XML `Name` production; lenient for non-ASCII letters.
fn is_xml_name(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let start_ok = |c: char| c == ':' || c == '_' || c.is_alphabetic();
    start_ok(first)
        && chars
            .all(|c| start_ok(c) || c.is_ascii_digit() || matches!(c, '-' | '.') || !c.is_ascii())
}

/// Resolves the name of a reference (`amp`, `#160`, `#xA0`) to its text.
fn resolve_reference(name: &str) -> Result<char, String> {
    if let Some(num) = name.strip_prefix('#') {
        let parsed = match num.strip_prefix('x') {
            Some(hex) if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).ok()
            }
            None if !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()) => num.parse().ok(),
            _ => {
                return Err(format!(
                    "`&{name};` is not a valid character reference; write `&#` with decimal \
                     digits or `&#x` with hexadecimal digits, then `;` (for example `&#160;` or `&#xA0;`)"
                ));
            }
        };
        return match parsed.and_then(char::from_u32).filter(|&c| is_xml_char(c)) {
            Some(c) => Ok(c),
            None => Err(format!(
                "`&{name};` refers to a code point that is not a character allowed in XHTML"
            )),
        };
    }
    match name {
        "amp" => Ok('&'),
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        "quot" => Ok('"'),
        "apos" => Ok('\''),
        _ if !is_xml_name(name) => Err(
            "a `&` must start an entity such as `&amp;`; to write the `&` character itself, write `&amp;`"
                .to_string(),
        ),
        _ => match HTML_ENTITIES.iter().find(|(n, _)| *n == name) {
            Some((_, cp)) => Err(format!(
                "the entity `&{name};` is not defined in XHTML; write the character itself \
                 (U+{cp:04X}) or `&#{cp};`"
            )),
            None => Err(format!(
                "the entity `&{name};` is not defined in XHTML; only `&amp;`, `&lt;`, `&gt;`, \
                 `&quot;` and `&apos;` are, plus numeric references such as `&#160;`"
            )),
        },
    }
}

/// Maps byte offsets to line and column.
struct LineIndex<'a> {
    text: &'a str,
    index: crate::lines::LineIndex,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        LineIndex {
            text,
            index: crate::lines::LineIndex::new(text),
        }
    }

    fn pos(&self, offset: usize) -> Pos {
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
            Some(parent) => parent.children.push(Node::Element(el)),
            None => self.top.push(Node::Element(el)),
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
        Some(root) => Ok(Document { doctype, root }),
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

// ---------------------------------------------------------------------------
// Serialization

const BLOCK_ELEMENTS: &[&str] = &[
    "html",
    "head",
    "body",
    "title",
    "meta",
    "link",
    "style",
    "section",
    "nav",
    "article",
    "aside",
    "header",
    "footer",
    "div",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "caption",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "th",
    "td",
    "colgroup",
    "col",
    "figure",
    "figcaption",
    "blockquote",
    "pre",
    "hr",
    "hgroup",
    "details",
    "summary",
    "main",
    "address",
];

/// Phrasing elements: whitespace inside them can be visible, so never add any.
const INLINE_ELEMENTS: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "br", "button", "cite", "code", "data", "del", "dfn", "em",
    "i", "img", "ins", "kbd", "label", "mark", "q", "rp", "rt", "ruby", "s", "samp", "small",
    "span", "strong", "sub", "sup", "time", "u", "var",
];

/// Elements whose whole subtree must be written exactly as built.
const VERBATIM_ELEMENTS: &[&str] = &["pre", "script", "style", "textarea", "code", "math"];

fn is_block(node: &Node) -> bool {
    matches!(node, Node::Element(e) if BLOCK_ELEMENTS.contains(&e.name.as_str()))
}

fn ends_with_space(node: Option<&Node>) -> bool {
    matches!(node, Some(Node::Text(t)) if t.ends_with(is_xml_space))
}

/// Characters XML cannot carry at all become U+FFFD, visible rather than lost.
fn push_char_or_replacement(out: &mut String, c: char) {
    out.push(if is_xml_char(c) { c } else { '\u{FFFD}' });
}

fn escape_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // A raw CR would be turned into LF by the next XML parser.
            '\r' => out.push_str("&#13;"),
            c => push_char_or_replacement(out, c),
        }
    }
}

fn escape_attr(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Literal whitespace would be normalized to spaces by XML parsers.
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => push_char_or_replacement(out, c),
        }
    }
}

fn write_comment(out: &mut String, text: &str) {
    // XML forbids `--` inside comments and a `-` right before `-->`.
    let mut body = text.to_string();
    while body.contains("--") {
        body = body.replace("--", "- -");
    }
    if body.ends_with('-') {
        body.push(' ');
    }
    out.push_str("<!--");
    for c in body.chars() {
        push_char_or_replacement(out, c);
    }
    out.push_str("-->");
}

fn write_node(out: &mut String, node: &Node, verbatim: bool) {
    match node {
        Node::Element(e) => write_element(out, e, verbatim),
        Node::Text(t) => escape_text(out, t),
        Node::Comment(c) => write_comment(out, c),
    }
}

fn write_element(out: &mut String, el: &Element, verbatim: bool) {
    out.push('<');
    out.push_str(&el.name);
    for (name, value) in &el.attrs {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        escape_attr(out, value);
        out.push('"');
    }
    if el.children.is_empty() {
        if is_void(&el.name) {
            out.push_str("/>");
        } else {
            // `<p/>` confuses browsers that parse the file as HTML.
            out.push_str("></");
            out.push_str(&el.name);
            out.push('>');
        }
        return;
    }
    out.push('>');
    let name = el.name.as_str();
    let verbatim = verbatim || VERBATIM_ELEMENTS.contains(&name);
    let mixed = el
        .children
        .iter()
        .any(|n| matches!(n, Node::Text(t) if !is_blank(t)));
    let format = !verbatim && !mixed && !INLINE_ELEMENTS.contains(&name);
    let mut broke = false;
    let mut prev: Option<&Node> = None;
    for child in &el.children {
        // Existing whitespace before a block already separates it; adding more
        // would make parse→serialize grow the text on every round.
        if format && is_block(child) {
            if !ends_with_space(prev) {
                out.push('\n');
            }
            broke = true;
        }
        write_node(out, child, verbatim);
        prev = Some(child);
    }
    if broke && !ends_with_space(prev) {
        out.push('\n');
    }
    out.push_str("</");
    out.push_str(&el.name);
    out.push('>');
}

/// `<?xml version="1.0" encoding="UTF-8"?>\n`, then `<!DOCTYPE …>\n` if any, then the root, then "\n".
pub fn serialize_document(doc: &Document) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    if let Some(doctype) = &doc.doctype {
        out.push_str("<!DOCTYPE ");
        out.push_str(doctype);
        out.push_str(">\n");
    }
    write_element(&mut out, &doc.root, false);
    out.push('\n');
    out
}

/// Serializes one element, without an XML declaration.
pub fn serialize_element(el: &Element) -> String {
    let mut out = String::new();
    write_element(&mut out, el, false);
    out
}

/// Serializes a sequence of nodes as they are, e.g. a parsed fragment.
pub fn serialize_nodes(nodes: &[Node]) -> String {
    let mut out = String::new();
    for node in nodes {
        write_node(&mut out, node, false);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> ParseError {
        match parse_document(text) {
            Ok(doc) => panic!("expected an error, got {doc:?}"),
            Err(e) => e,
        }
    }

    fn frag_err(text: &str) -> ParseError {
        match parse_fragment(text) {
            Ok(nodes) => panic!("expected an error, got {nodes:?}"),
            Err(e) => e,
        }
    }

    fn at(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    const SAMPLE: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<!DOCTYPE html>\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"ja\" lang=\"ja\">\n\
<head>\n\
<title>吾輩は猫である</title>\n\
</head>\n\
<body>\n\
<section epub:type=\"chapter\">\n\
<!-- 第一章 -->\n\
<h1>一</h1>\n\
<p>吾輩は猫である。<br/>名前はまだ無い。</p>\n\
<ul>\n\
<li>どこで<ul>\n\
<li>生れたか</li>\n\
</ul></li>\n\
</ul>\n\
</section>\n\
</body>\n\
</html>\n";

    #[test]
    fn round_trip_full_document() {
        let doc = parse_document(SAMPLE).expect("parses");
        assert_eq!(doc.doctype.as_deref(), Some("html"));
        assert_eq!(doc.root.attr("xml:lang"), Some("ja"));
        assert_eq!(doc.root.pos, Some(at(3, 1)));
        let mut section = None;
        doc.root.walk(&mut |e| {
            if e.name == "section" {
                section = Some(e);
            }
        });
        let section = section.expect("section");
        assert_eq!(section.attr("epub:type"), Some("chapter"));
        assert!(
            section
                .children
                .contains(&Node::Comment(" 第一章 ".to_string()))
        );
        assert_eq!(serialize_document(&doc), SAMPLE);
        // And parsing the output gives the same tree (positions aside).
        let again = parse_document(&serialize_document(&doc)).expect("reparses");
        assert_eq!(serialize_document(&again), SAMPLE);
    }

    #[test]
    fn golden_built_tree() {
        let body = Element::new("body").with_child(
            Element::new("section")
                .with_attr("epub:type", "chapter")
                .with_child(Element::new("h1").with_text("Title"))
                .with_child(
                    Element::new("p")
                        .with_text("A ")
                        .with_child(Element::new("b").with_text("bold"))
                        .with_text(" & <done>"),
                )
                .with_child(Element::new("hr"))
                .with_child(Element::new("p"))
                .with_child(
                    Element::new("pre").with_child(Element::new("code").with_text("x\n  y")),
                )
                .with_child(Element::new("ul").with_child(
                    Element::new("li").with_text("one").with_child(
                        Element::new("ul").with_child(Element::new("li").with_text("two")),
                    ),
                )),
        );
        let html = Element::new("html")
            .with_attr("xmlns", "http://www.w3.org/1999/xhtml")
            .with_child(
                Element::new("head")
                    .with_child(Element::new("title").with_text("T"))
                    .with_child(
                        Element::new("link")
                            .with_attr("rel", "stylesheet")
                            .with_attr("href", "a.css"),
                    ),
            )
            .with_child(body);
        let doc = Document {
            doctype: Some("html".into()),
            root: html,
        };
        let expected = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<!DOCTYPE html>\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\">\n\
<head>\n\
<title>T</title>\n\
<link rel=\"stylesheet\" href=\"a.css\"/>\n\
</head>\n\
<body>\n\
<section epub:type=\"chapter\">\n\
<h1>Title</h1>\n\
<p>A <b>bold</b> &amp; &lt;done&gt;</p>\n\
<hr/>\n\
<p></p>\n\
<pre><code>x\n  y</code></pre>\n\
<ul>\n\
<li>one<ul>\n\
<li>two</li>\n\
</ul></li>\n\
</ul>\n\
</section>\n\
</body>\n\
</html>\n";
        assert_eq!(serialize_document(&doc), expected);
        // Serializing the parsed output is stable.
        let reparsed = parse_document(expected).expect("parses");
        assert_eq!(serialize_document(&reparsed), expected);
    }

    #[test]
    fn no_whitespace_added_to_mixed_or_verbatim_content() {
        let li = Element::new("li")
            .with_text("text")
            .with_child(Element::new("ul").with_child(Element::new("li").with_text("x")));
        // Whitespace goes inside the list, never between "text" and `<ul>`.
        assert_eq!(
            serialize_element(&li),
            "<li>text<ul>\n<li>x</li>\n</ul></li>"
        );
        let pre = Element::new("pre").with_child(Element::new("div").with_child(Element::new("p")));
        assert_eq!(serialize_element(&pre), "<pre><div><p></p></div></pre>");
        let span = Element::new("span").with_child(Element::new("div"));
        assert_eq!(serialize_element(&span), "<span><div></div></span>");
        let script = Element::new("script");
        assert_eq!(serialize_element(&script), "<script></script>");
    }

    #[test]
    fn unclosed_element_in_multiline_input() {
        let e = err("<html>\n<body>\n<p>one\n    <b>two</p>\n</body>\n</html>");
        assert_eq!(e.pos, at(4, 11));
        assert_eq!(
            e.message,
            "`</b>` expected to close `<b>` opened at line 4, column 5, but found `</p>`"
        );
        assert!(e.to_string().starts_with("line 4, column 11: "));

        let e = frag_err("<p>\n  <b>bold\n</p>");
        assert_eq!(e.pos, at(3, 1));
        assert!(
            e.message.contains("opened at line 2, column 3"),
            "{}",
            e.message
        );

        let e = frag_err("a\n  <b>bold");
        assert_eq!(e.pos, at(2, 3));
        assert!(e.message.contains("`<b>` is never closed"), "{}", e.message);
    }

    #[test]
    fn mismatched_end_tag_column_counts_characters() {
        let e = err("<html><p>日本語</div></p></html>");
        assert_eq!(e.pos, at(1, 13));
        assert!(e.message.contains("found `</div>`"));
        let e = frag_err("x</p>");
        assert_eq!(e.pos, at(1, 2));
        assert!(e.message.contains("closes nothing"));
    }

    #[test]
    fn named_entities_are_rejected() {
        let e = err("<html>\n<p>a&nbsp;b</p></html>");
        assert_eq!(e.pos, at(2, 5));
        assert_eq!(
            e.message,
            "the entity `&nbsp;` is not defined in XHTML; write the character itself (U+00A0) or `&#160;`"
        );
        let e = frag_err("<p title=\"&copy; 2024\">x</p>");
        assert_eq!(e.pos, at(1, 11));
        assert!(e.message.contains("U+00A9"), "{}", e.message);
        let e = frag_err("ok\n &foo;");
        assert_eq!(e.pos, at(2, 2));
        assert!(
            e.message
                .starts_with("the entity `&foo;` is not defined in XHTML")
        );
        assert!(!e.message.contains("U+"));
        let e = frag_err("a & b");
        assert_eq!(e.pos, at(1, 3));
        assert!(e.message.contains("&amp;"));
    }

    #[test]
    fn numeric_references_decode() {
        let nodes =
            parse_fragment("<p a=\"&#x41;&#10;\">&#160;&#x3042;&amp;&lt;&gt;&quot;&apos;</p>")
                .expect("parses");
        let Node::Element(p) = &nodes[0] else {
            panic!("not an element")
        };
        assert_eq!(p.attr("a"), Some("A\n"));
        assert_eq!(p.text_content(), "\u{a0}あ&<>\"'");
        assert_eq!(p.children.len(), 1, "references merge into one text node");
        for bad in [
            "&#xD800;",
            "&#1;",
            "&#x110000;",
            "&#99999999999;",
            "&#12a;",
            "&#;",
        ] {
            let e = frag_err(&format!("<p>{bad}</p>"));
            assert_eq!(e.pos, at(1, 4), "{bad}");
        }
    }

    #[test]
    fn text_outside_root() {
        let e = err("<html></html>\n  oops");
        assert_eq!(e.pos, at(2, 3));
        assert!(e.message.contains("after the end of the root"));
        let e = err("<html></html><body/>");
        assert_eq!(e.pos, at(1, 14));
        assert!(e.message.contains("exactly one root"));
        let e = err("  \n<!-- nothing -->\n");
        assert!(e.message.contains("no root element"));
        assert_eq!(e.pos, at(3, 1));
    }

    #[test]
    fn attribute_errors() {
        let e = frag_err("<p>\n<a href=\"x\" class=\"a\" href=\"y\">t</a></p>");
        assert_eq!(e.pos, at(2, 23));
        assert!(e.message.contains("`href` appears twice"), "{}", e.message);
        assert!(e.message.contains("line 2, column 4"), "{}", e.message);
        let e = frag_err("<input disabled/>");
        assert_eq!(e.pos, at(1, 8));
        assert!(e.message.contains("disabled=\"disabled\""), "{}", e.message);
        let e = frag_err("<p class=x>t</p>");
        assert!(e.message.contains("quotes"), "{}", e.message);
        let e = frag_err("<p title=\"a<b\">t</p>");
        assert_eq!(e.pos, at(1, 12));
    }

    #[test]
    fn doctype_with_entities_is_rejected() {
        let e = err("<?xml version=\"1.0\"?>\n<!DOCTYPE html [<!ENTITY x \"y\">]>\n<html/>");
        assert_eq!(e.pos, at(2, 1));
        assert_eq!(
            e.message,
            "DOCTYPE declarations with entities are not allowed in XHTML"
        );
    }

    #[test]
    fn fragments() {
        let nodes = parse_fragment("<b>x</b> and <i>y</i>").expect("parses");
        assert_eq!(
            nodes,
            vec![
                Node::Element(Element {
                    pos: Some(at(1, 1)),
                    ..Element::new("b").with_text("x")
                }),
                Node::Text(" and ".into()),
                Node::Element(Element {
                    pos: Some(at(1, 14)),
                    ..Element::new("i").with_text("y")
                }),
            ]
        );
        assert_eq!(serialize_nodes(&nodes), "<b>x</b> and <i>y</i>");

        let e = frag_err("<br>");
        assert_eq!(e.pos, at(1, 1));
        assert_eq!(
            e.to_string(),
            "line 1, column 1: `<br>` is never closed; in XHTML write it as `<br/>`"
        );

        let e = frag_err("<p>a<br>b</p>");
        assert!(e.message.contains("write it as `<br/>`"), "{}", e.message);

        assert_eq!(parse_fragment("").expect("empty"), vec![]);
        let nodes = parse_fragment("<![CDATA[a<b]]><?pi x?><!--c-->").expect("parses");
        assert_eq!(
            nodes,
            vec![Node::Text("a<b".into()), Node::Comment("c".into())]
        );
        assert_eq!(serialize_nodes(&nodes), "a&lt;b<!--c-->");
    }

    #[test]
    fn attribute_escaping() {
        let el = Element::new("img")
            .with_attr("alt", "say \"hi\" <now> & then\nnext\ttab\r")
            .with_attr("src", "a.png");
        let out = serialize_element(&el);
        assert_eq!(
            out,
            "<img alt=\"say &quot;hi&quot; &lt;now&gt; &amp; then&#10;next&#9;tab&#13;\" src=\"a.png\"/>"
        );
        let back = parse_fragment(&out).expect("parses");
        assert_eq!(
            back,
            vec![Node::Element(Element {
                pos: Some(at(1, 1)),
                ..el
            })]
        );
        // Literal line breaks in attribute values are normalized, as XML requires.
        let nodes = parse_fragment("<a title='x\r\ny\tz'/>").expect("parses");
        let Node::Element(a) = &nodes[0] else {
            panic!("not an element")
        };
        assert_eq!(a.attr("title"), Some("x y z"));
    }

    #[test]
    fn comments_and_control_characters_are_sanitized() {
        let el = Element::new("div")
            .with_child(Node::Comment("a -- b -".into()))
            .with_text("bad\u{1}char");
        let out = serialize_element(&el);
        assert_eq!(out, "<div><!--a - - b - -->bad\u{FFFD}char</div>");
        assert!(parse_fragment(&out).is_ok());
        let e = frag_err("<p>a\u{7}</p>");
        assert_eq!(e.pos, at(1, 5));
    }

    #[test]
    fn walk_and_walk_mut() {
        let mut root = parse_fragment("<div><p>a<em>b</em></p><p>c</p></div>")
            .expect("parses")
            .remove(0);
        let Node::Element(div) = &mut root else {
            panic!("not an element")
        };
        let mut names = Vec::new();
        div.walk(&mut |e| names.push(e.name.as_str()));
        assert_eq!(names, ["div", "p", "em", "p"]);
        div.walk_mut(&mut |e| {
            if e.name == "p" {
                e.add_class("para");
            }
        });
        assert_eq!(
            serialize_element(div),
            "<div>\n<p class=\"para\">a<em>b</em></p>\n<p class=\"para\">c</p>\n</div>"
        );
        assert_eq!(div.text_content(), "abc");
    }

    #[test]
    fn classes_and_attributes() {
        let mut el = Element::new("p").with_attr("class", "  note  big ");
        assert!(el.has_class("note"));
        assert!(el.has_class("big"));
        assert!(!el.has_class("no"));
        assert!(!el.has_class("not"));
        el.add_class("big");
        assert_eq!(el.attr("class"), Some("  note  big "));
        el.add_class("x");
        assert_eq!(el.attr("class"), Some("  note  big x"));
        let mut plain = Element::new("p");
        plain.add_class("first");
        assert_eq!(plain.attr("class"), Some("first"));
        plain.set_attr("id", "a");
        plain.set_attr("class", "second");
        assert_eq!(
            plain.attrs,
            vec![("class".into(), "second".into()), ("id".into(), "a".into())]
        );
        assert_eq!(plain.remove_attr("class"), Some("second".into()));
        assert_eq!(plain.remove_attr("class"), None);
        let mut t = Element::new("p");
        t.push_text("a");
        t.push_text("b");
        t.push(Element::new("br"));
        t.push_text("");
        t.push("c");
        assert_eq!(t.children.len(), 3);
        assert_eq!(t.text_content(), "abc");
    }

    #[test]
    fn hostile_inputs_do_not_panic() {
        let deep = "<a>".repeat(MAX_DEPTH + 5);
        assert!(frag_err(&deep).message.contains("nested"));
        for s in [
            "<",
            "<>",
            "</>",
            "<a",
            "<!",
            "<!--",
            "<![CDATA[",
            "<?",
            "&",
            "&#",
            "&#x;",
            "<a b",
            "<a b=",
            "<a b='",
            "<!DOCTYPE",
            "<a/><",
            "</>",
            "\u{feff}<a/>",
            "< b>",
            "<a>日本\r\n語",
            "<é/>",
        ] {
            let _ = parse_fragment(s);
            let _ = parse_document(s);
        }
    }
}
