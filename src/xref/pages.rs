//! The print page list: every page-break marker of the book, in reading order, given an id
//! unique in the book (`page-12`) and the markup EPUB Accessibility asks for.
//!
//! Markers come from the readers ([`PrintPage`]: DocBook `beginpage`, `<?page N?>`, `anchor
//! role="pagebreak"`) or are raw XHTML the author wrote (Markdown inline HTML, Re:VIEW
//! `@<embed>{|html|…}`): an element whose `epub:type` says `pagebreak` or whose `role` says
//! `doc-pagebreak`, numbered by its `aria-label`, else its `title`, else its text. Raw markers
//! are completed in place (`epub:type`, `role`, `aria-label`, `id`).
use std::collections::HashMap;
use std::path::Path;

use super::{Chapter, Resolver, visit_blocks_mut, visit_own_inlines_mut};
use crate::codes;
use crate::doc::*;
use crate::dom::{self, Element};
use crate::error::{Finding, Location};

/// One entry of the page list: the marker's id in its chapter's page, and its page number.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageTarget {
    pub id: String,
    pub label: String,
}

/// What the walk over the book's markers keeps: where each page number was first marked.
struct Walk<'w, 'a> {
    r: &'w mut Resolver<'a>,
    ci: usize,
    shown: &'w Path,
    first: &'w mut HashMap<String, Location>,
    found: Vec<PageTarget>,
}

impl Resolver<'_> {
    /// Gives every marker its id and each chapter its list of pages, in reading order (after
    /// the ids the author wrote are claimed, so a marker never takes one).
    pub(super) fn number_pages(&mut self, chapters: &mut [Chapter]) {
        let mut first = HashMap::new();
        for (ci, ch) in chapters.iter_mut().enumerate() {
            let shown = ch.source.rel.clone();
            let mut w = Walk {
                r: self,
                ci,
                shown: &shown,
                first: &mut first,
                found: Vec::new(),
            };
            let doc = &mut ch.doc;
            // The order the writer writes them in: the text, then the notes.
            for blocks in std::iter::once(&mut doc.blocks).chain(
                (doc.footnotes.iter_mut())
                    .chain(doc.endnotes.iter_mut())
                    .map(|n| &mut n.blocks),
            ) {
                visit_blocks_mut(blocks, &mut |b| w.block(b));
            }
            ch.pages = w.found;
        }
        let meta = &self.book.meta;
        let marked = chapters.iter().any(|c| !c.pages.is_empty());
        if marked && meta.print_isbn.is_none() && meta.page_source.is_none() {
            self.warnings.push(
                Finding::warning(codes::PAGE_NUMBER, Location::file(&self.book.config_path), "the book marks print page numbers but does not say which edition they follow")
                    .with_hint("add `print_isbn: …` (the print edition's ISBN), or `page_source: none` when the page breaks are the e-book's own"),
            );
        }
    }
}

impl Walk<'_, '_> {
    fn block(&mut self, b: &mut Block) {
        let pos = b.pos;
        match &mut b.kind {
            BlockKind::PrintPage(p) => self.marker(p, pos),
            BlockKind::Raw(nodes) => self.raw(nodes, pos),
            _ => {}
        }
        visit_own_inlines_mut(b, &mut |i| {
            let pos = i.pos;
            match &mut i.kind {
                InlineKind::PrintPage(p) => self.marker(p, pos),
                InlineKind::Raw(nodes) => self.raw(nodes, pos),
                _ => {}
            }
        });
    }

    fn loc(&self, pos: Pos) -> Location {
        Location::new(self.shown, pos.line, pos.col)
    }

    /// A marker of the model: its id (the author's, claimed already, else a new one), and its
    /// line in the page list.
    fn marker(&mut self, p: &mut PrintPage, pos: Pos) {
        let id = match p.id.clone() {
            Some(id) => id,
            None => self.new_id(&p.label, pos),
        };
        p.id = Some(id.clone());
        self.found.push(PageTarget {
            id,
            label: p.label.clone(),
        });
    }

    /// Markers in raw XHTML, completed in place.
    fn raw(&mut self, nodes: &mut [dom::Node], pos: Pos) {
        for node in nodes {
            if let dom::Node::Element(e) = node {
                e.walk_mut(&mut |el| {
                    if is_marker(el) {
                        self.raw_marker(el, pos);
                    }
                });
            }
        }
    }

    fn raw_marker(&mut self, el: &mut Element, pos: Pos) {
        let label = ["aria-label", "title"]
            .iter()
            .find_map(|a| el.attr(a).map(str::trim).filter(|l| !l.is_empty()))
            .map(str::to_string)
            .unwrap_or_else(|| el.text_content().trim().to_string());
        if label.is_empty() {
            self.r.warnings.push(
                Finding::warning(codes::PAGE_NUMBER, self.loc(pos), "this page-break marker gives no page number: it is left out of the page list")
                    .with_hint("give the page number as its `title` (`<span epub:type=\"pagebreak\" title=\"12\"></span>`)"),
            );
            return;
        }
        if !has_token(el.attr("epub:type"), "pagebreak") {
            let value = join_token(el.attr("epub:type"), "pagebreak");
            el.set_attr("epub:type", value);
        }
        if !has_token(el.attr("role"), "doc-pagebreak") {
            el.set_attr("role", "doc-pagebreak");
        }
        el.set_attr("aria-label", label.as_str());
        // An id the author wrote was claimed with the others.
        let id = match el.attr("id") {
            Some(id) => id.to_string(),
            None => {
                let id = self.new_id(&label, pos);
                el.set_attr("id", id.as_str());
                id
            }
        };
        self.found.push(PageTarget { id, label });
    }

    /// A new id for the marker of page `label`, unique in the book; a page number marked
    /// before is reported (its markers can no longer share an id).
    fn new_id(&mut self, label: &str, pos: Pos) -> String {
        let loc = self.loc(pos);
        let id = self.r.generate(&page_id(label), self.ci);
        match self.first.get(label) {
            Some(first) => self.r.warnings.push(
                Finding::warning(
                    codes::PAGE_NUMBER,
                    loc,
                    format!("page {label} is marked a second time (first at {first}): this marker's id is `{id}`"),
                )
                .with_hint("a book whose volumes or parts each start at 1 can number them apart (`I-1`, `II-1`)"),
            ),
            None => {
                self.first.insert(label.to_string(), loc);
            }
        }
        id
    }
}

/// Whether raw XHTML is a page-break marker: `epub:type="pagebreak"` or
/// `role="doc-pagebreak"` (a `class="pagebreak"` alone is a forced break, as Re:VIEW writes).
pub fn is_marker(el: &Element) -> bool {
    has_token(el.attr("epub:type"), "pagebreak") || has_token(el.attr("role"), "doc-pagebreak")
}

fn has_token(value: Option<&str>, token: &str) -> bool {
    value.is_some_and(|v| v.split_ascii_whitespace().any(|t| t == token))
}

fn join_token(value: Option<&str>, token: &str) -> String {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => format!("{v} {token}"),
        None => token.to_string(),
    }
}

/// `page-<label>`, with what an id cannot hold (spaces, `/`, `#`) as `-`.
fn page_id(label: &str) -> String {
    let safe: String = label
        .chars()
        .map(|c| match c {
            c if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') => c,
            _ => '-',
        })
        .collect();
    format!("page-{safe}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ids_hold_only_what_an_id_may() {
        assert_eq!(page_id("12"), "page-12");
        assert_eq!(page_id("xiv"), "page-xiv");
        assert_eq!(page_id("A 3/4"), "page-A-3-4");
        assert_eq!(page_id("十二"), "page-十二");
    }

    #[test]
    fn only_pagebreak_semantics_make_a_marker() {
        let span = |k: &str, v: &str| Element::new("span").with_attr(k, v);
        assert!(is_marker(&span("epub:type", "pagebreak")));
        assert!(is_marker(&span("role", "doc-pagebreak")));
        assert!(!is_marker(&span("class", "pagebreak")));
        assert!(!is_marker(&span("epub:type", "noteref")));
    }
}
