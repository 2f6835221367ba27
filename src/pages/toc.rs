//! The table of contents as one tree, which both the nav's `<ol>` and the NCX's `navMap` are
//! made from, so that the two never differ (EPUB 3 readers show the one, EPUB 2 readers and
//! Kindle's converter the other).
use serde::Serialize;

use super::{IndexPage, Slot};
use crate::dom;
use crate::xref::{Chapter, TocEntry};

/// A line of the table of contents: its words, where it goes (relative to the package folder,
/// where the nav and the NCX both are) and the lines under it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TocNode {
    pub label: String,
    pub href: String,
    pub children: Vec<TocNode>,
}

impl TocNode {
    pub fn leaf(label: impl Into<String>, href: impl Into<String>) -> Self {
        TocNode {
            label: label.into(),
            href: href.into(),
            children: Vec::new(),
        }
    }

    /// How many levels deep the tree under (and with) this line goes.
    pub fn depth(&self) -> usize {
        1 + self.children.iter().map(TocNode::depth).max().unwrap_or(0)
    }
}

/// The table of contents: its top lines in reading order, each with the page of the reading
/// order it comes from (a chapter, or the index as a page of its own).
pub type Toc = Vec<(Slot, TocNode)>;

/// The table of contents of the chapters in `order`, their headings down to level `depth`,
/// and the index where it comes when it is a page of its own.
pub fn toc(chapters: &[Chapter], order: &[Slot], depth: u8, index: Option<&IndexPage>) -> Toc {
    let mut toc = Vec::new();
    for slot in order {
        match *slot {
            Slot::Chapter(ci) => toc.extend(
                chapter_lines(&chapters[ci], depth)
                    .into_iter()
                    .map(|n| (*slot, n)),
            ),
            Slot::Index => {
                if let Some(page) = index.filter(|p| p.chapter.is_none()) {
                    toc.push((*slot, TocNode::leaf(&page.title, &page.href)));
                }
            }
            _ => {}
        }
    }
    toc
}

/// A chapter's lines in the contents: its title, with its sections under it.
fn chapter_lines(ch: &Chapter, depth: u8) -> Vec<TocNode> {
    let entries: Vec<&TocEntry> = ch.toc.iter().filter(|e| e.level <= depth).collect();
    let rest: Vec<&TocEntry> = entries
        .iter()
        .copied()
        .skip_while(|e| e.level == 1)
        .collect();
    let sections = nested(&rest, &ch.href());
    match super::chapter_entry(ch) {
        Some(top) => vec![TocNode {
            label: top.label.clone(),
            href: ch.href(),
            children: sections,
        }],
        // A chapter with no title in the contents (no heading, or `[notoc]`) is not listed by
        // its file name, as Re:VIEW lists it not at all; its sections are.
        None => sections,
    }
}

/// Builds nested lines from a flat run of headings: each entry's children are the following
/// entries of a deeper level.
fn nested(entries: &[&TocEntry], href: &str) -> Vec<TocNode> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let e = entries[i];
        let mut j = i + 1;
        while j < entries.len() && entries[j].level > e.level {
            j += 1;
        }
        out.push(TocNode {
            label: e.label.clone(),
            href: format!("{href}#{}", e.id),
            children: nested(&entries[i + 1..j], href),
        });
        i = j;
    }
    out
}

/// The nav's nested `<ol>` of the table of contents, as the DOM's serializer writes it (a
/// line break before each block, `li` and `ol`, and before the end tag of an element that
/// has one), written directly: a book's contents run to thousands of lines, made on every
/// build.
pub fn html(toc: &Toc) -> String {
    let mut out = String::with_capacity(64 * toc.len());
    ol(&mut out, toc.iter().map(|(_, node)| node));
    out
}

fn ol<'a>(out: &mut String, nodes: impl Iterator<Item = &'a TocNode>) {
    out.push_str("<ol>");
    let mut any = false;
    for node in nodes {
        out.push('\n');
        li(out, node);
        any = true;
    }
    if any {
        out.push('\n');
    }
    out.push_str("</ol>");
}

fn li(out: &mut String, node: &TocNode) {
    out.push_str("<li><a href=\"");
    dom::push_attr(out, &node.href);
    out.push_str("\">");
    dom::push_text(out, &node.label);
    out.push_str("</a>");
    if !node.children.is_empty() {
        out.push('\n');
        ol(out, node.children.iter());
        out.push('\n');
    }
    out.push_str("</li>");
}

/// The tree as bytes that tell every tree apart (each line's label, target and number of
/// lines under it, length-prefixed, in document order): what a key of what is made from the
/// tree takes, cheaper than the tree's serialized form.
pub fn tree_bytes(nodes: &[TocNode]) -> Vec<u8> {
    fn put(out: &mut Vec<u8>, node: &TocNode) {
        for part in [&node.label, &node.href] {
            out.extend_from_slice(&(part.len() as u64).to_le_bytes());
            out.extend_from_slice(part.as_bytes());
        }
        out.extend_from_slice(&(node.children.len() as u64).to_le_bytes());
        for child in &node.children {
            put(out, child);
        }
    }
    let mut out = Vec::with_capacity(64 * nodes.len());
    out.extend_from_slice(&(nodes.len() as u64).to_le_bytes());
    for node in nodes {
        put(&mut out, node);
    }
    out
}

/// A `navPoint` of the NCX as `toc.ncx` renders it: numbered in reading order (`playOrder`,
/// and the id made from it), its lines under it.
#[derive(Debug, Serialize)]
pub struct NcxPoint {
    pub id: String,
    pub play_order: usize,
    pub label: String,
    pub href: String,
    pub children: Vec<NcxPoint>,
}

/// The NCX's points of `nodes`, numbered in document order from 1; a point to a place an
/// earlier one goes to has its `playOrder` (as the NCX asks, and epubcheck checks), and an id
/// of its own.
pub fn ncx_points(nodes: &[TocNode]) -> Vec<NcxPoint> {
    let mut numbers = Numbers::default();
    nodes.iter().map(|n| ncx_point(n, &mut numbers)).collect()
}

#[derive(Default)]
struct Numbers {
    points: usize,
    orders: std::collections::HashMap<String, usize>,
}

fn ncx_point(node: &TocNode, numbers: &mut Numbers) -> NcxPoint {
    numbers.points += 1;
    let next = numbers.orders.len() + 1;
    let play_order = *numbers.orders.entry(node.href.clone()).or_insert(next);
    NcxPoint {
        id: format!("navpoint-{}", numbers.points),
        play_order,
        label: node.label.clone(),
        href: node.href.clone(),
        children: (node.children.iter())
            .map(|c| ncx_point(c, numbers))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(level: u8, id: &str) -> TocEntry {
        TocEntry {
            level,
            id: id.into(),
            label: id.into(),
        }
    }

    #[test]
    fn nested_toc_follows_levels() {
        let list = [e(2, "a"), e(3, "a1"), e(3, "a2"), e(2, "b")];
        let refs: Vec<&TocEntry> = list.iter().collect();
        let lines = nested(&refs, "x.xhtml");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].children.len(), 2);
        assert_eq!(lines[0].children[0].href, "x.xhtml#a1");
        assert_eq!(lines[0].depth(), 2);
        assert!(lines[1].children.is_empty());
    }

    #[test]
    fn ncx_points_are_numbered_in_document_order() {
        let tree = vec![
            TocNode {
                label: "1".into(),
                href: "a.xhtml".into(),
                children: vec![TocNode {
                    label: "1.1".into(),
                    href: "a.xhtml#s".into(),
                    children: vec![TocNode::leaf("1.1.1", "a.xhtml#t")],
                }],
            },
            TocNode::leaf("2", "b.xhtml"),
        ];
        let points = ncx_points(&tree);
        let order = |p: &NcxPoint| p.play_order;
        assert_eq!(order(&points[0]), 1);
        assert_eq!(order(&points[0].children[0]), 2);
        assert_eq!(order(&points[0].children[0].children[0]), 3);
        assert_eq!(order(&points[1]), 4);
        assert_eq!(points[1].id, "navpoint-4");
        // A second point to the same place: its playOrder, an id of its own.
        let twice = [
            TocNode::leaf("a", "a.xhtml"),
            TocNode::leaf("b", "b.xhtml"),
            TocNode::leaf("a again", "a.xhtml"),
        ];
        let points = ncx_points(&twice);
        let orders: Vec<usize> = points.iter().map(order).collect();
        assert_eq!(orders, [1, 2, 1]);
        assert_eq!(points[2].id, "navpoint-3");
    }

    #[test]
    fn tree_bytes_tell_trees_apart() {
        let leaf = |l: &str, h: &str| TocNode::leaf(l, h);
        let nested = |l: &str, children| TocNode {
            label: l.into(),
            href: "a.xhtml".into(),
            children,
        };
        let trees = [
            vec![],
            vec![leaf("a", "b")],
            vec![leaf("ab", "")],
            vec![leaf("", "ab")],
            vec![leaf("a", "b"), leaf("c", "d")],
            vec![nested("x", vec![leaf("a", "b"), leaf("c", "d")])],
            vec![nested("x", vec![leaf("a", "b")]), leaf("c", "d")],
            vec![nested("x", vec![nested("y", vec![leaf("a", "b")])])],
        ];
        for (i, a) in trees.iter().enumerate() {
            for (j, b) in trees.iter().enumerate() {
                assert_eq!(tree_bytes(a) == tree_bytes(b), i == j, "{a:?} / {b:?}");
            }
        }
    }

    #[test]
    fn the_nav_list_nests_as_the_tree() {
        let tree = vec![(
            Slot::Chapter(0),
            TocNode {
                label: "1 A".into(),
                href: "a.xhtml".into(),
                children: vec![TocNode::leaf("1.1 B", "a.xhtml#b")],
            },
        )];
        assert_eq!(
            html(&tree),
            "<ol>\n<li><a href=\"a.xhtml\">1 A</a>\n<ol>\n<li><a href=\"a.xhtml#b\">1.1 B</a></li>\n</ol>\n</li>\n</ol>"
        );
    }

    /// The list as the DOM builds and writes it: what [`html`] writes directly.
    fn through_the_dom(toc: &Toc) -> String {
        use crate::dom::Element;
        fn li(node: &TocNode) -> Element {
            let mut item = Element::new("li");
            item.push(
                Element::new("a")
                    .with_attr("href", node.href.as_str())
                    .with_text(node.label.as_str()),
            );
            if !node.children.is_empty() {
                let mut ol = Element::new("ol");
                for child in &node.children {
                    ol.push(li(child));
                }
                item.push(ol);
            }
            item
        }
        let mut root = Element::new("ol");
        for (_, node) in toc {
            root.push(li(node));
        }
        dom::serialize_element(&root)
    }

    #[test]
    fn the_nav_list_is_what_the_dom_writes() {
        let odd = "a&b <c> \"d\" \te\r\n\u{1}f";
        let deep = TocNode {
            label: odd.into(),
            href: format!("x.xhtml#{odd}"),
            children: vec![
                TocNode::leaf("", "x.xhtml#empty"),
                TocNode {
                    label: "2.1".into(),
                    href: "x.xhtml#2-1".into(),
                    children: vec![TocNode::leaf("2.1.1 見出し", "x.xhtml#2-1-1")],
                },
            ],
        };
        for toc in [
            vec![],
            vec![(Slot::Chapter(0), TocNode::leaf("1", "a.xhtml"))],
            vec![
                (Slot::Chapter(0), TocNode::leaf("1", "a.xhtml")),
                (Slot::Chapter(1), deep),
                (Slot::Index, TocNode::leaf("索引", "index.xhtml")),
            ],
        ] {
            assert_eq!(html(&toc), through_the_dom(&toc));
        }
    }
}
