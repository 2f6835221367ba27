//! A division's title page, as DocBook XSL 1.79 shows it under the title
//! (`titlepage.templates.xml`): from its `info` (DocBook 4: `chapterinfo`, `sect1info`,
//! `articleinfo`, …) the authors with their affiliations, other credits, release information,
//! copyright, legal notice, publication date, revision history and abstract, in that order.
//! Without this, a chapter's revision history or an article's abstract is text no reader sees.
//!
//! The root's authors, credits, copyright and legal notice are the book's metadata, which
//! seihon's own title page and colophon show: they are not repeated. A `book`'s title-page
//! parts are pages of their own ([`Conv::top`]).
use super::blocks::trim_inlines;
use super::*;

/// The title-page parts of an `info`, by their place on the page; `None`: not shown.
fn rank(name: &str, root: bool) -> Option<u8> {
    Some(match name {
        "corpauthor" | "authorgroup" | "author" | "othercredit" if !root => 0,
        "releaseinfo" => 1,
        "copyright" if !root => 2,
        "legalnotice" if !root => 3,
        "pubdate" => 4,
        "revhistory" => 5,
        "abstract" => 6,
        _ => return None,
    })
}

impl Conv<'_> {
    /// The title-page blocks of `el` (a division or section), after its heading.
    pub(super) fn titlepage(&mut self, el: &Element, out: &mut Vec<Block>) {
        let root = std::ptr::eq(el, self.root);
        let mut parts: Vec<(u8, &Element)> = el
            .child_elements()
            .filter(|e| is_info(e.local_name()))
            .flat_map(|info| info.child_elements())
            .filter_map(|c| rank(c.local_name(), root).map(|r| (r, c)))
            .collect();
        parts.sort_by_key(|(r, _)| *r);
        for (_, c) in parts {
            self.titlepage_part(c, out);
        }
    }

    fn titlepage_part(&mut self, el: &Element, out: &mut Vec<Block>) {
        let styled = |class: &str, content: Inlines| {
            Block::new(
                BlockKind::StyledPara {
                    class: class.to_string(),
                    content,
                },
                pos_of(el),
            )
        };
        match el.local_name() {
            "authorgroup" => {
                for a in el.child_elements() {
                    if matches!(a.local_name(), "author" | "corpauthor" | "othercredit") {
                        self.titlepage_part(a, out);
                    }
                }
            }
            "author" | "corpauthor" | "othercredit" => self.titlepage_person(el, out),
            "copyright" => {
                let text = copyright_text(el);
                out.push(styled("copyright", vec![Inline::text(text, pos_of(el))]));
            }
            "legalnotice" | "abstract" => {
                let mut blocks = Vec::new();
                self.anchor_block(el, &mut blocks);
                if el.child("title").or_else(|| title_el(el)).is_some() {
                    self.caption(el, &mut blocks);
                } else if el.local_name() == "abstract" {
                    // DocBook XSL titles an untitled abstract on a title page.
                    let title = vec![Inline::text("Abstract", pos_of(el))];
                    blocks.push(styled("caption", title));
                }
                self.blocks_into(el, 6, &mut blocks);
                let class = el.local_name().to_string();
                out.push(Block::new(BlockKind::Div { class, blocks }, pos_of(el)));
            }
            "revhistory" => self.revhistory(el, true, out),
            // releaseinfo, pubdate: a line of text.
            name => {
                self.anchor_block(el, out);
                let mut content = self.inlines(el);
                trim_inlines(&mut content);
                if !content.is_empty() {
                    out.push(styled(name, content));
                }
            }
        }
    }

    /// A person's name, then what DocBook XSL shows with it: the credit's role and
    /// contribution, the affiliation and the e-mail address.
    fn titlepage_person(&mut self, el: &Element, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        let name = super::meta::person(el);
        let pos = pos_of(el);
        if !name.is_empty() {
            let content = vec![Inline::text(name, pos)];
            out.push(Block::new(
                BlockKind::StyledPara {
                    class: el.local_name().to_string(),
                    content,
                },
                pos,
            ));
        }
        for c in el.child_elements() {
            if !matches!(
                c.local_name(),
                "contrib" | "affiliation" | "email" | "address"
            ) {
                continue;
            }
            let mut text = String::new();
            spaced_text(c, &mut text);
            let text = squash(&text);
            if text.is_empty() {
                continue;
            }
            let content = vec![Inline::text(text, pos_of(c))];
            let class = c.local_name().to_string();
            out.push(Block::new(
                BlockKind::StyledPara { class, content },
                pos_of(c),
            ));
        }
    }
}

/// The text of `el`, its elements' edges made spaces (`orgname` and `email` of an
/// `affiliation` are two words).
fn spaced_text(el: &Element, out: &mut String) {
    for n in &el.children {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Element(c) => {
                out.push(' ');
                spaced_text(c, out);
                out.push(' ');
            }
            Node::Comment(_) => {}
        }
    }
}

/// `Copyright © 2004, 2005 Holder`, as DocBook XSL writes it.
pub(super) fn copyright_text(el: &Element) -> String {
    let of = |name: &str| -> Vec<String> {
        el.child_elements()
            .filter(|e| e.local_name() == name)
            .map(|e| squash(&e.text()))
            .collect()
    };
    let mut s = "Copyright ©".to_string();
    for part in [of("year"), of("holder")] {
        if !part.is_empty() {
            s.push(' ');
            s.push_str(&part.join(", "));
        }
    }
    s
}
