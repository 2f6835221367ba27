//! The serializer: a tree → well-formed XML for EPUB 3 content documents, with line breaks
//! only where they cannot change the meaning.
use super::*;

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

/// `text` as the serializer writes it inside an element: for writers of a known shape that
/// write their text directly, with the same escaping.
pub fn push_text(out: &mut String, text: &str) {
    escape_text(out, text);
}

/// `value` as the serializer writes it inside an attribute's quotes (see [`push_text`]).
pub fn push_attr(out: &mut String, value: &str) {
    escape_attr(out, value);
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

/// The text being written, and where each element with a manuscript position starts in it.
#[derive(Default)]
struct Out {
    text: String,
    marks: Vec<(usize, Src)>,
}

fn write_node(out: &mut Out, node: &Node, verbatim: bool) {
    match node {
        Node::Element(e) => write_element(out, e, verbatim),
        Node::Text(t) => escape_text(&mut out.text, t),
        Node::Comment(c) => write_comment(&mut out.text, c),
    }
}

fn write_element(o: &mut Out, el: &Element, verbatim: bool) {
    if let Some(src) = &el.src {
        o.marks.push((o.text.len(), src.clone()));
    }
    let out = &mut o.text;
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
                o.text.push('\n');
            }
            broke = true;
        }
        write_node(o, child, verbatim);
        prev = Some(child);
    }
    let out = &mut o.text;
    if broke && !ends_with_space(prev) {
        out.push('\n');
    }
    out.push_str("</");
    out.push_str(&el.name);
    out.push('>');
}

/// `<?xml version="1.0" encoding="UTF-8"?>\n`, then `<!DOCTYPE …>\n` if any, then the root, then "\n".
/// Manuscript positions are not written (see [`serialize_document_with_sources`]).
pub fn serialize_document(doc: &Document) -> String {
    write_document(doc).text
}

/// Like [`serialize_document`], with the manuscript positions of the elements that have one,
/// by where each start tag is in the text.
pub fn serialize_document_with_sources(doc: &Document) -> (String, PageSources) {
    let out = write_document(doc);
    let sources = PageSources::from_offsets(&out.text, out.marks);
    (out.text, sources)
}

fn write_document(doc: &Document) -> Out {
    let mut out = Out {
        text: String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
        marks: Vec::new(),
    };
    if let Some(doctype) = &doc.doctype {
        out.text.push_str("<!DOCTYPE ");
        out.text.push_str(doctype);
        out.text.push_str(">\n");
    }
    write_element(&mut out, &doc.root, false);
    out.text.push('\n');
    out
}

/// Serializes one element, without an XML declaration.
pub fn serialize_element(el: &Element) -> String {
    let mut out = Out::default();
    write_element(&mut out, el, false);
    out.text
}

/// Serializes a sequence of nodes as they are, e.g. a parsed fragment.
pub fn serialize_nodes(nodes: &[Node]) -> String {
    let mut out = Out::default();
    for node in nodes {
        write_node(&mut out, node, false);
    }
    out.text
}
