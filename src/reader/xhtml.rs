//! A page of the book's own XHTML (Re:VIEW's `titlefile:`, `profile:`, `advfile:`, …) → a
//! document whose blocks are the page's body, as written. The page's head is not kept: the
//! page is written with the book's own head (its language, title and style sheets), as every
//! page of the EPUB is. Re:VIEW copies such a file as it is; a fragment without `<html>` (the
//! body of Re:VIEW's legacy `titlepagefile:`) is taken too.
use std::path::Path;

use crate::codes;
use crate::doc::{Block, BlockKind, Document, Pos};
use crate::dom::{self, Element, Node};
use crate::error::{Finding, Location};

/// Reads the page in `text`. A page that is not well-formed XHTML gives an empty document and
/// a warning at the fault: the book is made without it.
pub fn read(text: &str, file: &Path) -> (Document, Vec<Finding>) {
    let mut doc = Document::new(file);
    let nodes = match dom::parse_document(text) {
        Ok(page) if page.root.local_name() == "html" => body(page.root),
        Ok(page) => vec![Node::from(page.root)],
        // Not a document: a fragment of body content, if it is one.
        Err(whole) => match dom::parse_fragment(text) {
            Ok(nodes) => nodes,
            Err(_) => {
                let f = Finding::warning(
                    codes::STATIC_PAGE,
                    Location::new(file, whole.pos.line, whole.pos.col),
                    format!("this page is not well-formed XHTML ({}); the book is made without it", whole.message),
                )
                .with_hint("an EPUB's pages are XHTML: close every element (`<br/>`), quote every attribute, and write `&amp;` for `&`");
                return (doc, vec![f]);
            }
        },
    };
    // One block per top-level element, so what is found in one is reported at its line.
    let mut pending: Vec<Node> = Vec::new();
    let mut at = Pos::default();
    for node in nodes {
        match node {
            Node::Element(e) => {
                flush(&mut doc, &mut pending, at);
                at = e.pos.map_or(Pos::default(), |p| Pos::new(p.line, p.col));
                doc.blocks
                    .push(Block::new(BlockKind::Raw(vec![Node::Element(e)]), at));
            }
            other => pending.push(other),
        }
    }
    flush(&mut doc, &mut pending, at);
    (doc, Vec::new())
}

/// The text and comments between elements, kept where they were.
fn flush(doc: &mut Document, pending: &mut Vec<Node>, at: Pos) {
    let blank = pending
        .iter()
        .all(|n| matches!(n, Node::Text(t) if t.trim().is_empty()));
    if !blank {
        doc.blocks
            .push(Block::new(BlockKind::Raw(std::mem::take(pending)), at));
    }
    pending.clear();
}

/// What the body holds, inside a `div` keeping the body's class when it has one (the book's
/// style sheet may style the page by it).
fn body(html: Element) -> Vec<Node> {
    let Some(body) = html.children.into_iter().find_map(|n| match n {
        Node::Element(e) if e.local_name() == "body" => Some(e),
        _ => None,
    }) else {
        return Vec::new();
    };
    match body.attr("class").map(str::to_string) {
        Some(class) => {
            let mut div = Element::new("div").with_attr("class", class);
            div.pos = body.pos;
            div.children = body.children;
            vec![Node::from(div)]
        }
        None => body.children,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(doc: &Document) -> String {
        doc.blocks
            .iter()
            .map(|b| match &b.kind {
                BlockKind::Raw(nodes) => dom::serialize_nodes(nodes),
                _ => panic!("only raw blocks"),
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn a_page_gives_its_body_one_block_per_element_at_its_line() {
        let page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head><title>x</title><link rel=\"stylesheet\" href=\"style.css\"/></head>\n<body>\n<h1>著者紹介</h1>\n<p>山田 太郎</p>\n</body>\n</html>\n";
        let (doc, findings) = read(page, Path::new("profile.html"));
        assert!(findings.is_empty());
        assert_eq!(raw(&doc), "<h1>著者紹介</h1>|<p>山田 太郎</p>");
        assert_eq!(doc.blocks[1].pos, Pos::new(6, 1));
    }

    #[test]
    fn the_body_class_is_kept_on_a_div() {
        let page = "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>x</title></head><body class=\"backcover\"><p>x</p></body></html>";
        let (doc, _) = read(page, Path::new("b.html"));
        assert_eq!(raw(&doc), "<div class=\"backcover\">\n<p>x</p>\n</div>");
    }

    #[test]
    fn a_fragment_is_taken_as_body_content() {
        let (doc, findings) = read("<p>a</p>\n<p>b</p>\n", Path::new("t.html"));
        assert!(findings.is_empty());
        assert_eq!(raw(&doc), "<p>a</p>|<p>b</p>");
    }

    #[test]
    fn a_page_that_is_not_xhtml_is_left_out_with_a_warning_at_the_fault() {
        let (doc, findings) = read(
            "<html><body><p>a<br></p></body></html>",
            Path::new("t.html"),
        );
        assert!(doc.blocks.is_empty());
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, codes::STATIC_PAGE.name());
        assert_eq!(findings[0].location.line, 1);
    }
}
