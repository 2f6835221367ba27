//! A small owned XML tree for XHTML content documents, with the source position of each
//! element: the tree here, the parser in `parse`, the serializer in `serialize`, HTML's named
//! entities (for the messages that name them) in `entities`.
//!
//! Parsing is built on quick-xml's event reader, with our own checks layered
//! on top so that every error names a line and column and explains the fix in
//! plain words (the people reading them write manuscripts, not XML parsers).
//! Serialization always produces well-formed XML suitable for EPUB 3 content
//! documents, adding line breaks only where they cannot change the meaning.

use std::fmt;
use std::sync::Arc;

mod entities;
mod parse;
mod serialize;
mod sources;

pub use entities::html_entity;
pub(crate) use parse::LineIndex;
pub use parse::{parse_document, parse_fragment};
pub use serialize::{
    push_attr, push_text, serialize_document, serialize_document_with_sources, serialize_element,
    serialize_nodes,
};
pub use sources::PageSources;
#[cfg(test)]
pub(crate) use sources::from_marked;

/// 1-based line and column (column counts Unicode scalar values) in a text: the parsed XHTML,
/// or a manuscript (the document model's positions are these too).
#[derive(
    serde::Serialize,
    serde::Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    pub fn new(line: u32, col: u32) -> Self {
        Pos { line, col }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.col)
    }
}

/// Where an element came from in the manuscript: the file as the book names it, and the
/// 1-based line and column there. Kept on the element beside the tree, never as an attribute,
/// so that what filters, hooks and check programs see is exactly the XHTML that ships.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Src {
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A node of the tree. An element is boxed: a node is then 24 bytes, not an element's 112, and
/// most nodes are text (a 5 MB DocBook book holds 150,000 text nodes beside 140,000 elements).
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub enum Node {
    Element(Box<Element>),
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
    /// Where it came from in the manuscript, when known (not serialized into the XHTML).
    pub src: Option<Src>,
}

impl Element {
    pub fn new(name: impl Into<String>) -> Self {
        Element {
            name: name.into(),
            attrs: Vec::new(),
            children: Vec::new(),
            pos: None,
            src: None,
        }
    }

    /// The local part of the name: `include` of `xi:include`.
    pub fn local_name(&self) -> &str {
        // A plain loop over the few bytes of a name: `rfind` sets up a fast search meant for
        // long texts, and this is asked for all the time (an eighth of reading a DocBook book).
        match self.name.bytes().rposition(|b| b == b':') {
            Some(i) => &self.name[i + 1..],
            None => &self.name,
        }
    }

    /// An attribute by its local name, whatever its prefix (`xlink:href`, `href`); namespace
    /// declarations are not attributes here.
    pub fn attr_local(&self, local: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| {
                !k.starts_with("xmlns") && (k == local || k.rsplit(':').next() == Some(local))
            })
            .map(|(_, v)| v.as_str())
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
            Node::Element(e) => Some(&**e),
            _ => None,
        })
    }
}

impl From<Element> for Node {
    fn from(e: Element) -> Self {
        Node::Element(Box::new(e))
    }
}

impl From<Box<Element>> for Node {
    fn from(e: Box<Element>) -> Self {
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

/// XML 1.0 `Char` production; Rust `char` already excludes surrogates.
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FFFD}' | '\u{10000}'..)
}

const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

fn is_void(name: &str) -> bool {
    VOID_ELEMENTS.contains(&name)
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

#[cfg(test)]
mod tests;
