//! ARIA: the DPUB-ARIA role that goes beside an `epub:type`, so that assistive technology,
//! which reads roles and not `epub:type`, learns what the element is (EPUB Accessibility 1.1
//! via the EPUB Type to ARIA Role Authoring Guide; DAISY Ace's `epub-type-has-matching-role`).
//!
//! Only where ARIA in HTML allows the role on that element: `doc-cover` only on an image,
//! nothing on `body`, and none of the roles DPUB-ARIA 1.1 deprecated (`doc-endnote`,
//! `doc-biblioentry`).
use crate::dom::Element;

/// Makes `e` say what it is to assistive technology, where the manuscript left it unsaid: the
/// role of its `epub:type` (the first type that has one, as Ace reads them); `alt=""` on an
/// image without `alt` (the `image-alt` check reports it, and the book then claims neither
/// `alternativeText` nor conformance); the URL as the accessible name of a link without text;
/// an empty header cell as a data cell (a header must name its column).
pub fn make_accessible(e: &mut Element) {
    match e.local_name() {
        "img" if e.attr("alt").is_none() => e.set_attr("alt", ""),
        "a" if e.attr("aria-label").is_none() && has_no_name(e) => {
            if let Some(href) = e.attr("href").map(str::to_string) {
                e.set_attr("aria-label", href);
            }
        }
        "th" if has_no_name(e) => {
            e.name = "td".into();
            e.remove_attr("scope");
        }
        _ => {}
    }
    if e.attr("role").is_some() {
        return;
    }
    let Some(types) = e.attr("epub:type") else {
        return;
    };
    let role = types
        .split_ascii_whitespace()
        .find_map(role_of)
        .filter(|r| allowed(e.local_name(), r));
    if let Some(role) = role {
        e.set_attr("role", role);
    }
}

/// Gives a heading that skips levels (`###` right under `#`, a Re:VIEW column's `h4` under an
/// `h2`) the level of the outline as `aria-level`: the element, and so how it looks, stays as
/// the manuscript has it; assistive technology hears an outline without gaps.
pub fn outline_levels() -> impl FnMut(&mut Element) {
    let mut previous: Option<u8> = None;
    move |e: &mut Element| {
        let Some(level) = heading_level(e) else {
            return;
        };
        let level = match previous {
            Some(p) if level > p + 1 => {
                e.set_attr("aria-level", (p + 1).to_string());
                p + 1
            }
            _ => level,
        };
        previous = Some(level);
    }
}

fn heading_level(e: &Element) -> Option<u8> {
    match e.local_name().as_bytes() {
        [b'h', d @ b'1'..=b'6'] if e.attr("aria-level").is_none() => Some(d - b'0'),
        _ => None,
    }
}

/// No text and no image that speaks for it.
fn has_no_name(e: &Element) -> bool {
    if !e.text_content().trim().is_empty() {
        return false;
    }
    let mut named = false;
    e.walk(&mut |d| {
        named |= d.local_name() == "img" && d.attr("alt").is_some_and(|a| !a.trim().is_empty())
            || d.local_name() == "svg"
    });
    !named
}

/// The role for an element `name` of `epub:type` `epub_type`, when it has one there.
pub fn role(name: &str, epub_type: &str) -> Option<&'static str> {
    role_of(epub_type).filter(|r| allowed(name, r))
}

/// The DPUB-ARIA role of an `epub:type`, wherever it may go.
fn role_of(epub_type: &str) -> Option<&'static str> {
    Some(match epub_type {
        "abstract" => "doc-abstract",
        "acknowledgments" => "doc-acknowledgments",
        "afterword" => "doc-afterword",
        "appendix" => "doc-appendix",
        "bibliography" => "doc-bibliography",
        "biblioref" => "doc-biblioref",
        "chapter" => "doc-chapter",
        "colophon" => "doc-colophon",
        "conclusion" => "doc-conclusion",
        "cover" => "doc-cover",
        "credit" => "doc-credit",
        "credits" => "doc-credits",
        "dedication" => "doc-dedication",
        "endnotes" => "doc-endnotes",
        "epigraph" => "doc-epigraph",
        "epilogue" => "doc-epilogue",
        "errata" => "doc-errata",
        "footnote" => "doc-footnote",
        "foreword" => "doc-foreword",
        "glossary" => "doc-glossary",
        "glossref" => "doc-glossref",
        "index" => "doc-index",
        "introduction" => "doc-introduction",
        "noteref" => "doc-noteref",
        "notice" => "doc-notice",
        "page-list" => "doc-pagelist",
        "pagebreak" => "doc-pagebreak",
        "part" => "doc-part",
        "preface" => "doc-preface",
        "prologue" => "doc-prologue",
        "pullquote" => "doc-pullquote",
        "qna" => "doc-qna",
        "referrer" => "doc-backlink",
        "subtitle" => "doc-subtitle",
        "tip" | "help" => "doc-tip",
        "toc" => "doc-toc",
        _ => return None,
    })
}

/// Whether ARIA in HTML lets element `name` carry `role`.
fn allowed(name: &str, role: &str) -> bool {
    match name {
        "section" => !matches!(
            role,
            "doc-cover"
                | "doc-noteref"
                | "doc-biblioref"
                | "doc-glossref"
                | "doc-backlink"
                | "doc-footnote"
                | "doc-pagebreak"
                | "doc-subtitle"
                | "doc-tip"
        ),
        "aside" => matches!(
            role,
            "doc-dedication"
                | "doc-example"
                | "doc-footnote"
                | "doc-glossary"
                | "doc-pullquote"
                | "doc-tip"
        ),
        "nav" => matches!(role, "doc-index" | "doc-pagelist" | "doc-toc"),
        "a" => matches!(
            role,
            "doc-noteref" | "doc-biblioref" | "doc-glossref" | "doc-backlink"
        ),
        "img" => role == "doc-cover",
        "span" | "div" => role != "doc-cover",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "p" => role == "doc-subtitle",
        "hr" => role == "doc-pagebreak",
        _ => false,
    }
}

/// An image the reader is told to skip: `role="presentation"`/`"none"`, `aria-hidden`, or an
/// inline icon (`img.inline`), or the class `decorative` an author may give it.
pub fn is_decorative(img: &Element) -> bool {
    matches!(img.attr("role"), Some("presentation" | "none"))
        || img.attr("aria-hidden") == Some("true")
        || img.has_class("inline")
        || img.has_class("decorative")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_go_only_where_aria_in_html_allows_them() {
        assert_eq!(role("section", "chapter"), Some("doc-chapter"));
        assert_eq!(role("section", "colophon"), Some("doc-colophon"));
        assert_eq!(role("aside", "footnote"), Some("doc-footnote"));
        assert_eq!(role("a", "noteref"), Some("doc-noteref"));
        assert_eq!(role("nav", "toc"), Some("doc-toc"));
        assert_eq!(role("span", "pagebreak"), Some("doc-pagebreak"));
        // `body` takes no role; `doc-cover` is for an image; deprecated roles are not written.
        assert_eq!(role("body", "cover"), None);
        assert_eq!(role("section", "cover"), None);
        assert_eq!(role("img", "cover"), Some("doc-cover"));
        assert_eq!(role("div", "endnote"), None);
        assert_eq!(role("section", "titlepage"), None);
        assert_eq!(role("a", "chapter"), None);
    }

    fn heading(name: &str) -> Element {
        Element::new(name).with_text("t")
    }

    #[test]
    fn skipped_heading_levels_are_told_as_the_outline_has_them() {
        let mut section = Element::new("section")
            .with_child(heading("h1"))
            .with_child(Element::new("blockquote").with_child(heading("h3")))
            .with_child(heading("h2"))
            .with_child(heading("h4"))
            .with_child(heading("h4"));
        section.walk_mut(&mut outline_levels());
        let levels: Vec<Option<String>> = section
            .children
            .iter()
            .filter_map(|n| match n {
                crate::dom::Node::Element(e) if e.name == "blockquote" => e
                    .child_elements()
                    .next()
                    .map(|h| h.attr("aria-level").map(String::from)),
                crate::dom::Node::Element(e) => Some(e.attr("aria-level").map(String::from)),
                _ => None,
            })
            .collect();
        let s = |v: &str| Some(v.to_string());
        assert_eq!(levels, [None, s("2"), None, s("3"), None]);
    }

    #[test]
    fn what_the_manuscript_left_unsaid_is_said() {
        let mut e = Element::new("div")
            .with_child(Element::new("img").with_attr("src", "a.png"))
            .with_child(Element::new("a").with_attr("href", "https://example.org/"))
            .with_child(Element::new("th"))
            .with_child(Element::new("th").with_text("Name"))
            .with_child(Element::new("aside").with_attr("epub:type", "footnote"));
        e.walk_mut(&mut make_accessible);
        let kids: Vec<&Element> = e.child_elements().collect();
        assert_eq!(kids[0].attr("alt"), Some(""));
        assert_eq!(kids[1].attr("aria-label"), Some("https://example.org/"));
        assert_eq!(kids[2].name, "td");
        assert_eq!(kids[3].name, "th");
        assert_eq!(kids[4].attr("role"), Some("doc-footnote"));
    }
}
