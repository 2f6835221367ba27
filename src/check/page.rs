//! One XHTML page as the checks see it, gathered in one walk of its tree: the findings that
//! depend on the page alone, and what the checks across pages look up (its ids, links and
//! resources). The tree itself is dropped after the walk, so a book's checks hold one tree per
//! thread, not every page's; and the facts of a page are kept by the hash of its text, so a
//! rebuild walks only the pages that changed.
use std::collections::HashSet;

use super::{finding_at, source_of, walk_path};
use crate::dom::{Document, Element, Node};
use crate::error::{Finding, Location, Severity};

/// Where something is on a page: its source position when it has one, and its XHTML position.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Place {
    source: Option<Location>,
    xhtml: Location,
}

impl Place {
    /// The place of the last element of `path` in the page `file`.
    pub fn of(file: &str, path: &[&Element]) -> Place {
        let xhtml = path.last().map_or_else(
            || Location::file(file),
            |e| {
                let pos = e.pos.unwrap_or_default();
                Location::new(file, pos.line, pos.col)
            },
        );
        Place {
            source: source_of(path),
            xhtml,
        }
    }

    /// A finding here: at the source position with the XHTML position in the hint ("in
    /// item/xhtml/ch01.xhtml:34:5", then `advice`), or at the XHTML position when the element has
    /// no source position.
    pub fn finding(&self, message: impl Into<String>, advice: Option<&str>) -> Finding {
        match &self.source {
            Some(src) => {
                let mut hint = format!("in {}", self.xhtml);
                if let Some(a) = advice {
                    hint.push_str("; ");
                    hint.push_str(a);
                }
                super::found(src.clone(), message).with_hint(hint)
            }
            None => {
                let f = super::found(self.xhtml.clone(), message);
                match advice {
                    Some(a) => f.with_hint(a),
                    None => f,
                }
            }
        }
    }
}

/// A reference made by an element: the value of its `href` or `src`, and where it is.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Reference {
    pub value: String,
    pub place: Place,
}

/// The `content src` links of an NCX, in order, each at its XHTML position.
pub(crate) fn ncx_links(file: &str, doc: &Document) -> Vec<Reference> {
    let mut links = Vec::new();
    doc.root.walk(&mut |el| {
        if super::local(&el.name) != "content" {
            return;
        }
        let Some(src) = el.attr("src") else { return };
        let pos = el.pos.unwrap_or_default();
        links.push(Reference {
            value: src.to_string(),
            place: Place {
                source: None,
                xhtml: Location::new(file, pos.line, pos.col),
            },
        });
    });
    links
}

/// A resource a page loads, with what it is ("image", "style sheet", "resource").
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Resource {
    pub what: String,
    pub reference: Reference,
}

/// A page's ids, sorted, in one text: what the checks keep of each page is read back on
/// every rebuild, and a set of thousands of strings was thousands of allocations a page.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct IdSet {
    text: String,
    /// Where each id ends in `text` (each begins where the one before it ends).
    ends: Vec<u32>,
}

impl IdSet {
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> IdSet {
        let sorted: std::collections::BTreeSet<&str> = ids.into_iter().collect();
        let mut set = IdSet::default();
        for id in sorted {
            set.text.push_str(id);
            set.ends.push(set.text.len() as u32);
        }
        set
    }

    fn get(&self, i: usize) -> &str {
        let start = i
            .checked_sub(1)
            .map_or(0, |before| self.ends[before] as usize);
        &self.text[start..self.ends[i] as usize]
    }

    /// `key` with the set added.
    pub fn hashed(&self, key: crate::cache::Key) -> crate::cache::Key {
        let ends: Vec<u8> = self.ends.iter().flat_map(|e| e.to_le_bytes()).collect();
        key.bytes(self.text.as_bytes()).bytes(&ends)
    }

    pub fn contains(&self, id: &str) -> bool {
        let (mut low, mut high) = (0, self.ends.len());
        while low < high {
            let mid = (low + high) / 2;
            match self.get(mid).cmp(id) {
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
            }
        }
        false
    }

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.get(i))
    }
}

/// What the checks need of one page.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct PageFacts {
    /// Every id on the page, for links into it.
    pub ids: IdSet,
    /// unique-ids, empty-link-text, unresolved-references, image-alt, tcy-length: findings that
    /// depend on the page alone, in the order of the page.
    pub unique_ids: Vec<Finding>,
    pub empty_link_text: Vec<Finding>,
    pub unresolved_references: Vec<Finding>,
    pub image_alt: Vec<Finding>,
    pub tcy_length: Vec<Finding>,
    /// What nav-ruby-tcy reports when this page is the navigation document.
    pub nav_ruby_tcy: Vec<Finding>,
    /// Where the page's root is, when it is written vertically (class `vrtl`).
    pub vertical: Option<Place>,
    /// The page's links and resources: gathered with the rest, but kept apart from it (most
    /// of a page's facts, and all of a nav's), and read back only when a check needs them
    /// (see [`super::Book::refs`]).
    #[serde(skip)]
    pub refs: std::sync::OnceLock<Refs>,
}

/// What a page points to.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Refs {
    /// `a` and `area` links (`href`), or an NCX's `content src`, in order.
    pub links: Vec<Reference>,
    /// Resources the page loads, in order.
    pub resources: Vec<Resource>,
}

impl PageFacts {
    /// The facts of the parsed file at `path`: an NCX's (see [`PageFacts::of_ncx`]) or a
    /// page's.
    pub fn of_file(path: &str, doc: &Document) -> PageFacts {
        match path.to_ascii_lowercase().ends_with(".ncx") {
            true => PageFacts::of_ncx(ncx_links(path, doc)),
            false => PageFacts::gather(path, doc),
        }
    }

    /// An NCX's facts: its links, and nothing else.
    pub fn of_ncx(links: Vec<Reference>) -> PageFacts {
        let refs = Refs {
            links,
            resources: Vec::new(),
        };
        PageFacts {
            refs: std::sync::OnceLock::from(refs),
            ..Default::default()
        }
    }
}

/// Tate-chu-yoko (horizontal-in-vertical) suits 2–4 half-width characters.
const TCY_MAX: usize = 4;

/// Elements whose text is code, where reference-like text is meant literally.
const LITERAL: &[&str] = &["code", "pre", "kbd", "samp", "tt", "script", "style"];

impl PageFacts {
    /// Walks the page `file` once.
    pub fn gather(file: &str, doc: &Document) -> PageFacts {
        let mut facts = PageFacts::default();
        if doc.root.has_class("vrtl") {
            facts.vertical = Some(Place::of(file, &[&doc.root]));
        }
        // id → where it is first used
        let mut seen: std::collections::HashMap<&str, String> = Default::default();
        let mut ids: HashSet<&str> = HashSet::new();
        let mut refs = Refs::default();
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            if let Some(id) = el.attr("id") {
                ids.insert(id);
                match seen.get(id) {
                    Some(first) => facts.unique_ids.push(finding_at(
                        file,
                        path,
                        format!("the id `{id}` is used twice in one page (first at {first})"),
                        Some("give each heading, figure or anchor its own label"),
                    )),
                    None => {
                        let first = source_of(path).map_or_else(
                            || format!("{file}:{}", el.pos.unwrap_or_default().line),
                            |l| l.to_string(),
                        );
                        seen.insert(id, first);
                    }
                }
            }
            if (el.name == "a" || el.name == "area")
                && let Some(href) = el.attr("href")
            {
                refs.links.push(Reference {
                    value: href.to_string(),
                    place: Place::of(file, path),
                });
            }
            if el.name == "a" && el.attr("href").is_some() {
                facts.empty_link_text(file, path, el);
            }
            if let Some((_, value)) = resource_ref(el) {
                let what = match el.name.as_str() {
                    "img" | "image" | "svg:image" => "image",
                    "link" if el.attr("rel").is_some_and(|r| r.contains("stylesheet")) => {
                        "style sheet"
                    }
                    _ => "resource",
                };
                refs.resources.push(Resource {
                    what: what.to_string(),
                    reference: Reference {
                        value: value.to_string(),
                        place: Place::of(file, path),
                    },
                });
            }
            facts.unresolved_references(file, path, el);
            if el.name == "img" {
                facts.image_alt(file, path, el);
            }
            if el.name == "span" && el.has_class("tcy") {
                facts.tcy_length(file, path, el);
            }
            facts.nav_ruby_tcy(file, path, el);
        });
        facts.ids = IdSet::new(ids);
        facts.refs = std::sync::OnceLock::from(refs);
        facts
    }

    /// An `a` with an `href` that shows nothing: no text, no image with alt text, no label.
    fn empty_link_text(&mut self, file: &str, path: &[&Element], el: &Element) {
        if !is_blank(&el.text_content()) {
            return;
        }
        // A name that only repeats the URL (what seihon gives a link the manuscript left
        // without text) is no text to see: still reported.
        let href = el.attr("href");
        let labelled = ["aria-label", "title"]
            .iter()
            .any(|a| el.attr(a).is_some_and(|v| !is_blank(v) && Some(v) != href));
        let mut image_alt = false;
        el.walk(&mut |d| {
            if d.name == "img" && d.attr("alt").is_some_and(|a| !is_blank(a)) {
                image_alt = true;
            }
        });
        if !labelled && !image_alt {
            let href = href.unwrap_or("");
            self.empty_link_text.push(finding_at(
                file,
                path,
                format!("the link to `{href}` has no text, so readers show nothing to tap"),
                Some("give the link (or the cross-reference's target) a text"),
            ));
        }
    }

    /// Text left over from a reference that was not resolved: the pipeline's
    /// `span.unresolved`, Re:VIEW inline commands such as `@<list>{…}`, and DocBook's `???`.
    fn unresolved_references(&mut self, file: &str, path: &[&Element], el: &Element) {
        if el.name == "span" && el.has_class("unresolved") {
            self.unresolved_references.push(finding_at(
                file,
                path,
                format!(
                    "the reference `{}` was not resolved",
                    el.text_content().trim()
                ),
                Some("check the label it refers to"),
            ));
            return;
        }
        let literal = path.iter().any(|e| {
            LITERAL.contains(&e.name.as_str()) || (e.name == "span" && e.has_class("unresolved"))
        });
        if literal {
            return;
        }
        for child in &el.children {
            if let Node::Text(text) = child
                && let Some(leftover) = leftover_in(text)
            {
                self.unresolved_references.push(finding_at(
                    file,
                    path,
                    format!("`{leftover}` looks like a reference that was not converted"),
                    Some("check the markup of the reference in the manuscript"),
                ));
            }
        }
    }

    /// Every `img` has an `alt`; an empty `alt` is fine only on decorative images.
    fn image_alt(&mut self, file: &str, path: &[&Element], el: &Element) {
        let src = el.attr("src").unwrap_or("");
        match el.attr("alt") {
            None => self.image_alt.push(finding_at(
                file,
                path,
                format!("the image `{src}` has no alternative text (`alt`)"),
                Some("describe the image for readers who cannot see it"),
            )),
            Some(alt) if alt.trim().is_empty() => {
                if !crate::xhtml::aria::is_decorative(el) {
                    let mut f = finding_at(
                        file,
                        path,
                        format!("the image `{src}` has an empty alternative text"),
                        Some("describe the image, or mark it as decorative"),
                    );
                    f.severity = Severity::Warning;
                    self.image_alt.push(f);
                }
            }
            Some(_) => {}
        }
    }

    fn tcy_length(&mut self, file: &str, path: &[&Element], el: &Element) {
        let text = el.text_content();
        let text = text.trim();
        let n = text.chars().count();
        if n > TCY_MAX {
            self.tcy_length.push(finding_at(
                file,
                path,
                format!(
                    "`{text}` is {n} characters long; tate-chu-yoko suits 2 to {TCY_MAX} \
                     half-width characters"
                ),
                Some("set longer text upright or sideways instead"),
            ));
        }
    }

    fn nav_ruby_tcy(&mut self, file: &str, path: &[&Element], el: &Element) {
        let what = if el.name == "ruby" {
            "ruby"
        } else if el.name == "span" && el.has_class("tcy") {
            "tate-chu-yoko"
        } else if el.name == "span" && el.has_class("upright") {
            "upright text"
        } else {
            return;
        };
        // Report the ruby, not its parts again.
        if path[..path.len() - 1].iter().any(|e| e.name == "ruby") {
            return;
        }
        self.nav_ruby_tcy.push(finding_at(
            file,
            path,
            format!(
                "the table of contents contains {what} (`{}`), which many readers show badly there",
                el.text_content().trim()
            ),
            Some("keep headings in the table of contents plain"),
        ));
    }
}

/// The resource an element loads, if it loads one: (attribute, value).
fn resource_ref(el: &Element) -> Option<(&'static str, &str)> {
    let attr: &'static str = match el.name.as_str() {
        "img" | "source" | "audio" | "video" | "script" | "track" | "embed" | "iframe" => "src",
        "link" => "href",
        "object" => "data",
        "image" | "svg:image" => {
            return el
                .attr("href")
                .map(|v| ("href", v))
                .or_else(|| el.attr("xlink:href").map(|v| ("xlink:href", v)));
        }
        _ => return None,
    };
    el.attr(attr).map(|v| (attr, v))
}

fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// The first leftover reference in a text: `@<name>{…}` or `???`.
pub(super) fn leftover_in(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find("@<") {
        let after = &rest[i + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len > 0 && after[name_len..].starts_with(">{") {
            let body = &after[name_len + 2..];
            let end = body.find('}').map_or(body.len(), |j| j + 1);
            let shown: String = body[..end].chars().take(40).collect();
            return Some(format!("@<{}>{{{shown}", &after[..name_len]));
        }
        rest = after;
    }
    text.contains("???").then(|| "???".to_string())
}

#[cfg(test)]
mod tests {
    use super::IdSet;

    #[test]
    fn an_id_set_finds_exactly_its_ids() {
        let set = IdSet::new(["b", "ab", "a", "図1", "a", "zz-9"]);
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            ["a", "ab", "b", "zz-9", "図1"]
        );
        for id in ["a", "ab", "b", "zz-9", "図1"] {
            assert!(set.contains(id), "{id}");
        }
        for id in ["", "aa", "abc", "c", "図", "図12", "zz"] {
            assert!(!set.contains(id), "{id}");
        }
        assert!(!IdSet::default().contains("a"));
        let bytes = bincode::serialize(&set).unwrap();
        assert_eq!(bincode::deserialize::<IdSet>(&bytes).unwrap(), set);
    }
}
