//! Source positions across an external filter. The program sees the page exactly as it will
//! ship, without the `data-seihon-src` marks the checks use to find an element's source line;
//! afterwards each element it printed takes the position of the element it came from.
//!
//! An element is matched by its id when it has one that was in the page before; else by
//! walking both pages in document order and taking the next element of the same name within
//! a window (so that a filter adding, removing or changing elements leaves the rest matched).
//! An element matched to nothing has no position of its own and is reported at its nearest
//! positioned ancestor's, as any unmarked element is.
use std::collections::HashMap;

use crate::dom::{Document, Element};
use crate::xhtml::write::SOURCE_ATTR;

/// How far ahead in the page before a filter an element is looked for by name.
const WINDOW: usize = 256;

/// The elements of a page before a filter ran, in document order, with their positions.
pub(super) struct Positions {
    names: Vec<String>,
    sources: Vec<Option<String>>,
    by_id: HashMap<String, usize>,
}

impl Positions {
    /// Takes the positions off `doc`: what is left is the page as it ships.
    pub fn take(doc: &mut Document) -> Self {
        let mut p = Positions {
            names: Vec::new(),
            sources: Vec::new(),
            by_id: HashMap::new(),
        };
        doc.root.walk_mut(&mut |e| {
            let i = p.names.len();
            p.names.push(e.name.clone());
            p.sources.push(e.remove_attr(SOURCE_ATTR));
            if let Some(id) = e.attr("id") {
                p.by_id.entry(id.to_string()).or_insert(i);
            }
        });
        p
    }

    /// Puts positions back on `doc`, the filter's output (or the page itself when the filter
    /// failed). A mark the program printed itself is not trusted and goes.
    pub fn restore(&self, doc: &mut Document) {
        let mut next = 0;
        doc.root.walk_mut(&mut |e: &mut Element| {
            e.remove_attr(SOURCE_ATTR);
            let by_id = e.attr("id").and_then(|id| self.by_id.get(id)).copied();
            let matched = by_id.or_else(|| {
                let end = (next + WINDOW).min(self.names.len());
                (next..end).find(|&j| self.names[j] == e.name)
            });
            if let Some(j) = matched {
                next = next.max(j + 1);
                if let Some(src) = &self.sources[j] {
                    e.set_attr(SOURCE_ATTR, src.clone());
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{parse_document, serialize_document};

    fn page(body: &str) -> Document {
        parse_document(&format!(
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>{body}</body></html>"
        ))
        .unwrap()
    }

    #[test]
    fn marks_go_before_the_filter_and_come_back_after() {
        let mut doc = page(
            "<p data-seihon-src=\"ch01.md:3:1\">a</p><h2 id=\"s\" data-seihon-src=\"ch01.md:5:1\">b</h2><p data-seihon-src=\"ch01.md:7:1\">c <em data-seihon-src=\"ch01.md:7:3\">d</em></p>",
        );
        let positions = Positions::take(&mut doc);
        let shipped = serialize_document(&doc);
        assert!(!shipped.contains("data-seihon"), "{shipped}");
        // What a filter might print: a class added, an element added before the others, the
        // heading moved after a paragraph, a mark of its own.
        let mut out = page(
            "<div class=\"note\">new</div><p class=\"x\">a</p><p data-seihon-src=\"x:1:1\">c <em>d</em></p><h2 id=\"s\">b</h2>",
        );
        positions.restore(&mut out);
        let text = serialize_document(&out);
        assert!(
            text.contains("<p class=\"x\" data-seihon-src=\"ch01.md:3:1\">a</p>"),
            "{text}"
        );
        assert!(
            text.contains("<h2 id=\"s\" data-seihon-src=\"ch01.md:5:1\">"),
            "{text}"
        );
        assert!(
            text.contains("<p data-seihon-src=\"ch01.md:7:1\">c <em data-seihon-src=\"ch01.md:7:3\">d</em></p>"),
            "{text}"
        );
        assert!(text.contains("<div class=\"note\">new</div>"), "{text}");
        assert!(!text.contains("x:1:1"), "{text}");
    }
}
