//! Source positions across an external filter. The program sees the page exactly as it will
//! ship (positions are kept beside the tree, never written into it); afterwards each element
//! it printed takes the position of the element it came from.
//!
//! An element is matched by its id when it has one that was in the page before; else by
//! walking both pages in document order and taking the next element of the same name within
//! a window (so that a filter adding, removing or changing elements leaves the rest matched).
//! An element matched to nothing has no position of its own and is reported at its nearest
//! positioned ancestor's, as any unmarked element is.
use std::collections::HashMap;

use crate::dom::{Document, Element, Src};

/// How far ahead in the page before a filter an element is looked for by name.
const WINDOW: usize = 256;

/// The elements of a page before a filter ran, in document order, with their positions.
pub(super) struct Positions {
    names: Vec<String>,
    sources: Vec<Option<Src>>,
    by_id: HashMap<String, usize>,
}

impl Positions {
    /// The positions of `doc`'s elements, in document order.
    pub fn of(doc: &Document) -> Self {
        let mut p = Positions {
            names: Vec::new(),
            sources: Vec::new(),
            by_id: HashMap::new(),
        };
        doc.root.walk(&mut |e| {
            let i = p.names.len();
            p.names.push(e.name.clone());
            p.sources.push(e.src.clone());
            if let Some(id) = e.attr("id") {
                p.by_id.entry(id.to_string()).or_insert(i);
            }
        });
        p
    }

    /// Puts positions on `doc`, the filter's output.
    pub fn restore(&self, doc: &mut Document) {
        let mut next = 0;
        doc.root.walk_mut(&mut |e: &mut Element| {
            let by_id = e.attr("id").and_then(|id| self.by_id.get(id)).copied();
            let matched = by_id.or_else(|| {
                let end = (next + WINDOW).min(self.names.len());
                (next..end).find(|&j| self.names[j] == e.name)
            });
            if let Some(j) = matched {
                next = next.max(j + 1);
                e.src.clone_from(&self.sources[j]);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{from_marked, parse_document, serialize_document};

    fn page(body: &str) -> Document {
        parse_document(&format!(
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>{body}</body></html>"
        ))
        .unwrap()
    }

    /// The page with its elements' source positions, as a chapter page is before its filters.
    fn marked(body: &str) -> Document {
        let (text, sources) = from_marked(&serialize_document(&page(body)));
        let mut doc = parse_document(&text).unwrap();
        sources.apply(&mut doc.root);
        doc
    }

    /// Each element's name and source position, in document order.
    fn sources(doc: &Document) -> Vec<(String, Option<String>)> {
        let mut out = Vec::new();
        doc.root.walk(&mut |e| {
            out.push((e.name.clone(), e.src.as_ref().map(|s| s.to_string())));
        });
        out
    }

    #[test]
    fn positions_come_back_after_the_filter() {
        let doc = marked(
            "<p data-seihon-src=\"ch01.md:3:1\">a</p><h2 id=\"s\" data-seihon-src=\"ch01.md:5:1\">b</h2><p data-seihon-src=\"ch01.md:7:1\">c <em data-seihon-src=\"ch01.md:7:3\">d</em></p>",
        );
        let shipped = serialize_document(&doc);
        assert!(!shipped.contains("data-seihon"), "{shipped}");
        assert!(!shipped.contains("ch01.md"), "{shipped}");
        let positions = Positions::of(&doc);
        // What a filter might print: a class added, an element added before the others, the
        // heading moved after a paragraph.
        let mut out = page(
            "<div class=\"note\">new</div><p class=\"x\">a</p><p>c <em>d</em></p><h2 id=\"s\">b</h2>",
        );
        positions.restore(&mut out);
        let at = |s: &str| Some(s.to_string());
        assert_eq!(
            sources(&out),
            [
                ("html".into(), None),
                ("body".into(), None),
                ("div".into(), None),
                ("p".into(), at("ch01.md:3:1")),
                ("p".into(), at("ch01.md:7:1")),
                ("em".into(), at("ch01.md:7:3")),
                ("h2".into(), at("ch01.md:5:1")),
            ]
        );
        assert!(serialize_document(&out).contains("<div class=\"note\">new</div>"));
    }
}
