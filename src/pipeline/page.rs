//! A page's last step before the package: parsed (a template that breaks XHTML is caught
//! here, named), given its body (a chapter's written nodes, with their source positions), run
//! through the filter chain, and measured for the manifest properties it needs. Out comes the
//! page's text as it ships and, beside it, where its elements came from.
use std::path::Path;

use crate::codes;
use crate::dom::{self, Element, Node, PageSources};
use crate::error::{Error, Finding, Location, Result};
use crate::filter::{Chain, FilterContext};

/// A rendered page, checked to be well-formed XHTML, with the manifest properties it needs.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Checked {
    /// The page as it ships.
    pub text: String,
    pub properties: String,
    /// What the package's accessibility metadata is derived from.
    pub facts: Facts,
    /// Where its elements came from in the manuscript. Last: a page's text is read from the
    /// page cache without them (see [`TextOf`]).
    pub sources: PageSources,
}

impl Checked {
    /// The page as the package takes it, made now: with its source positions, and the key
    /// the page cache keeps it under (when it does).
    pub fn shipped(self, key: Option<String>) -> Shipped {
        let Checked {
            text,
            properties,
            facts,
            sources,
        } = self;
        Shipped {
            head: Head { properties, facts },
            body: Body::Made { text, sources, key },
        }
    }

    /// What the package takes of the page but its text.
    pub fn head(&self) -> Head {
        Head {
            properties: self.properties.clone(),
            facts: self.facts,
        }
    }
}

/// A checked page as the package takes it: what the manifest and the accessibility metadata
/// need of it, and its text with its source positions.
pub(super) struct Shipped {
    pub head: Head,
    pub body: Body,
}

/// A page's text and source positions.
pub(super) enum Body {
    /// Made by this build, with the key the page cache keeps the page under (when it does).
    Made {
        text: String,
        sources: PageSources,
        key: Option<String>,
    },
    /// Taken from the page cache, where its text and positions are left under `key`: the text
    /// is read only when staging must write the file, or a check or the font subsetter must
    /// read it; the positions only when a finding must be placed.
    Kept {
        text: crate::files::Later,
        key: String,
    },
}

/// What the package needs of a page but its text, kept apart for pages the page cache keeps.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Head {
    pub properties: String,
    pub facts: Facts,
}

/// The first field of a [`Checked`]: a kept page's text, read without the rest (bincode
/// writes a struct as its fields one after the other; see [`crate::cache::Cache::get_head`]).
#[derive(serde::Deserialize)]
pub(super) struct TextOf {
    pub text: String,
}

/// What a page holds that the package's accessibility metadata speaks of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Facts {
    /// Images (`img`, SVG `image`), decorative ones included.
    pub images: usize,
    /// Images without alternative text that are not marked decorative: the book cannot claim
    /// `alternativeText` or conformance while there is one.
    pub unlabelled_images: usize,
    pub math: bool,
    pub ruby: bool,
    /// Sound or moving pictures (`audio`, `video`): hazards cannot be assumed away.
    pub media: bool,
    /// A `page-list` nav with at least one link: what `pageNavigation` claims (a nav template
    /// of the book's own may leave it out).
    #[serde(default)]
    pub page_list: bool,
}

impl Facts {
    pub fn add(&mut self, other: Facts) {
        self.images += other.images;
        self.unlabelled_images += other.unlabelled_images;
        self.math |= other.math;
        self.ruby |= other.ruby;
        self.media |= other.media;
        self.page_list |= other.page_list;
    }
}

/// What a chapter template is given for `{{ body }}`: a comment the page's parsed tree has in
/// the body's place, so that the written nodes (and their source positions) go in as they are.
pub(super) const BODY_MARK: &str = "<!--seihon:body-->";

/// Every page goes through our parser: a template override that breaks XHTML is caught here,
/// named, instead of by epubcheck or a reader.
pub(super) fn checked_xhtml(text: &str, template: &str) -> Result<Checked> {
    let doc = parse(text, template)?;
    Ok(measured(doc))
}

/// A chapter's page: the template's output `text` with `body` in the place of [`BODY_MARK`]
/// (or, when the template did something else with it, `text` rendered again with the body as
/// text by `with_body_text`), run through the book's filter chain.
pub(super) fn chapter_page(
    text: &str,
    body: Vec<Node>,
    with_body_text: impl FnOnce(&str) -> Result<String>,
    template: &str,
    (chain, ctx, source): (&Chain, &FilterContext, &Path),
) -> Result<Checked> {
    let mut doc = parse(text, template)?;
    if let Err(body) = splice(&mut doc.root, body) {
        doc = parse(&with_body_text(&dom::serialize_nodes(&body))?, template)?;
    }
    chain.apply(&mut doc, ctx).map_err(|e| {
        Error::Book(vec![
            Finding::error(codes::FILTER, Location::file(source), e.to_string()).with_hint(
                "fix the filter, or take it out of the chain (`filters:` in book.yml or seihon.yml)",
            ),
        ])
    })?;
    Ok(measured(doc))
}

fn parse(text: &str, template: &str) -> Result<dom::Document> {
    dom::parse_document(text).map_err(|e| Error::Template {
        name: template.into(),
        message: format!("the page it made is not well-formed XHTML: {e}"),
    })
}

/// Puts `body` in the place of the one body mark in the tree; gives it back when the mark is
/// not there as a comment (escaped, in an attribute, or repeated by the template).
fn splice(root: &mut Element, body: Vec<Node>) -> std::result::Result<(), Vec<Node>> {
    let mark = &BODY_MARK[4..BODY_MARK.len() - 3];
    fn find<'a>(el: &'a mut Element, mark: &str) -> Option<(&'a mut Element, usize)> {
        if let Some(i) = el
            .children
            .iter()
            .position(|n| matches!(n, Node::Comment(c) if c == mark))
        {
            return Some((el, i));
        }
        el.children.iter_mut().find_map(|n| match n {
            Node::Element(e) => find(e, mark),
            _ => None,
        })
    }
    let mut marks = 0;
    root.walk(&mut |e| {
        marks += e
            .children
            .iter()
            .filter(|n| matches!(n, Node::Comment(c) if c == mark))
            .count()
    });
    match find(root, mark) {
        Some((parent, i)) if marks == 1 => {
            parent.children.splice(i..=i, body);
            Ok(())
        }
        _ => Err(body),
    }
}

/// The page's text and positions, and the manifest properties its content needs.
fn measured(doc: dom::Document) -> Checked {
    let (mut svg, mut script) = (false, false);
    let mut facts = Facts::default();
    doc.root.walk(&mut |e| match e.name.as_str() {
        "svg" => svg = true,
        "ruby" => facts.ruby = true,
        "math" | "m:math" | "mml:math" => facts.math = true,
        "script" | "form" => script = true,
        "audio" | "video" => facts.media = true,
        "nav"
            if e.attr("epub:type")
                .is_some_and(|t| t.split_whitespace().any(|t| t == "page-list")) =>
        {
            let mut links = false;
            e.walk(&mut |a| links |= a.name == "a" && a.attr("href").is_some());
            facts.page_list |= links;
        }
        "img" => {
            facts.images += 1;
            let labelled = e.attr("alt").is_some_and(|a| !a.trim().is_empty());
            if !labelled && !crate::xhtml::aria::is_decorative(e) {
                facts.unlabelled_images += 1;
            }
        }
        "image" | "svg:image" => facts.images += 1,
        _ => {}
    });
    let props: Vec<&str> = [(facts.math, "mathml"), (script, "scripted"), (svg, "svg")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    let (text, sources) = dom::serialize_document_with_sources(&doc);
    Checked {
        text,
        sources,
        properties: props.join(" "),
        facts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Vec<Node> {
        let mut p = Element::new("p").with_text("text");
        p.src = Some(dom::Src {
            file: "ch01.re".into(),
            line: 3,
            col: 1,
        });
        vec![Node::from(p)]
    }

    fn page(template_body: &str) -> Checked {
        let shell = |body: &str| {
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t</title></head><body>\n{}\n</body></html>",
                template_body.replace("BODY", body)
            )
        };
        let ctx = FilterContext {
            book_id: "b".into(),
            chapter: "xhtml/ch01.xhtml".into(),
            language: "ja".into(),
            book_root: ".".into(),
        };
        chapter_page(
            &shell(BODY_MARK),
            body(),
            |text| Ok(shell(text)),
            "chapter.xhtml",
            (&Chain::new(), &ctx, Path::new("ch01.re")),
        )
        .unwrap()
    }

    #[test]
    fn the_body_goes_in_with_its_positions() {
        let checked = page("<main>BODY</main>");
        assert!(
            checked.text.contains("<main>\n<p>text</p>\n</main>"),
            "{}",
            checked.text
        );
        assert!(!checked.text.contains("seihon"), "{}", checked.text);
        let line = checked
            .text
            .lines()
            .position(|l| l.contains("<p>"))
            .unwrap() as u32
            + 1;
        let at = |line| checked.sources.line(line).map(|s| s.to_string());
        assert_eq!(at(line).as_deref(), Some("ch01.re:3:1"));
        assert_eq!(at(line - 1), None);
    }

    #[test]
    fn a_template_that_uses_the_body_otherwise_gets_it_as_text() {
        // Twice, or not as it is: the page is made again from the body's text, without
        // positions, rather than with a mark left in it.
        let twice = page("BODY<div>BODY</div>");
        assert!(!twice.text.contains("seihon:body"), "{}", twice.text);
        assert_eq!(
            twice.text.matches("<p>text</p>").count(),
            2,
            "{}",
            twice.text
        );
        assert!(twice.sources.is_empty());
        let escaped = page("<pre>&lt;!--seihon:body--&gt;</pre>");
        assert!(
            escaped.text.contains("<pre>&lt;!--seihon:body--&gt;</pre>"),
            "{}",
            escaped.text
        );
    }
}
