//! Reading an EPUB the way a reader shows it: its content documents in spine order, their
//! running text and counts of their structures. Used alike on seihon's EPUB and on the
//! reference EPUB the original tool made, so neither side's markup is favoured: navigation
//! (the nav document, tables of contents, lists of figures) and generated indexes are not
//! running text; an index is counted by its entries instead.
use std::io::Read;
use std::path::Path;

use quick_xml::events::{BytesStart, Event};

use super::measure::Bag;

/// Counts of the structures a reader sees.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub headings: usize,
    pub figures: usize,
    pub images: usize,
    pub tables: usize,
    pub listings: usize,
    pub footnotes: usize,
    pub list_items: usize,
    pub links: usize,
    pub ruby: usize,
    pub index_entries: usize,
}

impl Counts {
    pub const NAMES: [&'static str; 10] = [
        "headings", "figures", "images", "tables", "listings", "notes", "items", "links", "ruby",
        "index",
    ];

    pub fn values(&self) -> [usize; 10] {
        [
            self.headings,
            self.figures,
            self.images,
            self.tables,
            self.listings,
            self.footnotes,
            self.list_items,
            self.links,
            self.ruby,
            self.index_entries,
        ]
    }
}

/// What a reader of the EPUB sees.
#[derive(Default, Debug)]
pub struct View {
    pub bag: Bag,
    /// The running text with all whitespace removed, for looking source text up in.
    pub flat: String,
    /// The running text as written, a line break between blocks: where a paragraph's text is
    /// looked up character for character.
    pub running: String,
    pub counts: Counts,
}

pub fn read(epub: &Path) -> Result<View, String> {
    let file = std::fs::File::open(epub).map_err(|e| format!("{}: {e}", epub.display()))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("{}: {e}", epub.display()))?;
    let mut entry = |name: &str| -> Result<String, String> {
        let mut f = zip
            .by_name(name)
            .map_err(|e| format!("{}: {name}: {e}", epub.display()))?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {name}: {e}", epub.display()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let container = entry("META-INF/container.xml")?;
    let opf_path = attribute_of(&container, "rootfile", "full-path")
        .ok_or_else(|| format!("{}: no rootfile in META-INF/container.xml", epub.display()))?;
    let opf = entry(&opf_path)?;
    let base = opf_path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut view = View::default();
    for href in content_documents(&opf) {
        let name = if base.is_empty() {
            href
        } else {
            format!("{base}/{href}")
        };
        let text = entry(&normalize(&name))?;
        walk(&text, &mut view);
    }
    Ok(view)
}

/// `a/../b/c.xhtml` → `b/c.xhtml`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|&b| hex(b)),
            bytes.get(i + 2).and_then(|&b| hex(b)),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The first `name` element's `attr`.
fn attribute_of(xml: &str, name: &str, attr: &str) -> Option<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == name => {
                return get(&e, attr);
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

fn get(e: &BytesStart, attr: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find_map(|a| (a.key.as_ref() == attr).then(|| a.value.clone().into_owned()))
}

/// The package's XHTML content documents in spine order, the nav document left out.
fn content_documents(opf: &str) -> Vec<String> {
    let mut items = std::collections::HashMap::new();
    let mut spine = Vec::new();
    let mut reader = quick_xml::Reader::from_str(opf);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => match e.local_name().as_ref() {
                "item" => {
                    let (Some(id), Some(href)) = (get(&e, "id"), get(&e, "href")) else {
                        continue;
                    };
                    let media = get(&e, "media-type").unwrap_or_default();
                    let nav =
                        get(&e, "properties").is_some_and(|p| p.split(' ').any(|p| p == "nav"));
                    if !nav && (media == "application/xhtml+xml" || media == "text/html") {
                        items.insert(id, percent_decode(&href));
                    }
                }
                "itemref" => spine.extend(get(&e, "idref")),
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    spine
        .iter()
        .filter_map(|id| items.get(id).cloned())
        .collect()
}

/// What an element is to the walk.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Text,
    /// Not running text: head, scripts, navigation.
    Skip,
    /// A generated index: counted by entries, not read as text.
    Index,
}

fn has_token(value: &Option<String>, pred: impl Fn(&str) -> bool) -> bool {
    value
        .as_deref()
        .is_some_and(|v| v.split_whitespace().any(pred))
}

fn walk(xml: &str, view: &mut View) {
    let mut reader = quick_xml::Reader::from_str(xml);
    {
        let config = reader.config_mut();
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        config.trim_text(false);
    }
    // The kind of each open element (the innermost non-text kind wins).
    let mut stack: Vec<Kind> = Vec::new();
    let mut text = String::new();
    let mut running = String::new();
    while let Ok(event) = reader.read_event() {
        let inside = stack.last().copied().unwrap_or(Kind::Text);
        match event {
            Event::Start(e) => {
                let kind = element(&e, inside, &mut view.counts);
                space_unless_inline(&mut text, e.local_name().as_ref());
                break_unless_inline(&mut running, e.local_name().as_ref());
                if let Some(alt) = math_alttext(&e, kind) {
                    text.push_str(&alt);
                    running.push_str(&alt);
                    // Its MathML, to its end tag, is not read.
                    let _ = reader.read_to_end(e.name());
                    continue;
                }
                stack.push(kind);
            }
            Event::Empty(e) => {
                element(&e, inside, &mut view.counts);
                space_unless_inline(&mut text, e.local_name().as_ref());
                break_unless_inline(&mut running, e.local_name().as_ref());
            }
            Event::End(e) => {
                stack.pop();
                space_unless_inline(&mut text, e.local_name().as_ref());
                break_unless_inline(&mut running, e.local_name().as_ref());
            }
            Event::Text(e) if inside == Kind::Text => {
                let t = e.xml10_content();
                text.push_str(&t);
                running.push_str(&t);
            }
            Event::CData(e) if inside == Kind::Text => {
                let t = e.xml10_content();
                text.push_str(&t);
                running.push_str(&t);
            }
            Event::GeneralRef(e) if inside == Kind::Text => {
                let c = match e.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => match e.as_ref() {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        "apos" => "'",
                        _ => " ",
                    }
                    .to_string(),
                };
                text.push_str(&c);
                running.push_str(&c);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    view.bag.add(&text);
    view.flat
        .extend(text.chars().filter(|c| !c.is_whitespace()));
    view.running.push_str(&running);
    view.running.push('\n');
}

/// An equation's TeX, where it keeps it as `alttext`: what the equation is read by, since the
/// TeX is what the author wrote (and what a reference EPUB that shows the TeX has as text), its
/// MathML characters (`∑` for `\sum`) are not.
fn math_alttext(e: &BytesStart, kind: Kind) -> Option<String> {
    let name = e.local_name();
    let name: &str = name.as_ref();
    if kind != Kind::Text || name != "math" {
        return None;
    }
    let raw = get(e, "alttext")?;
    Some(
        quick_xml::escape::unescape(&raw)
            .map(|s| s.into_owned())
            .unwrap_or(raw),
    )
}

/// A line break at a block's edge, where [`space_unless_inline`] puts a space.
fn break_unless_inline(running: &mut String, name: &str) {
    if !is_inline(name) && !running.ends_with('\n') {
        running.push('\n');
    }
}

/// Words of two blocks (or of two cells, or either side of a line break) are two words; an
/// inline element's edges are not word boundaries (`<em>un</em>likely`).
fn space_unless_inline(text: &mut String, name: &str) {
    if !is_inline(name) && !text.ends_with(' ') {
        text.push(' ');
    }
}

fn is_inline(name: &str) -> bool {
    // (`b` and `sub` belong here as much as `strong` and `sup`: without them `H<sub>2</sub>O`
    // counted as three words against the source's one.)
    const INLINE: &[&str] = &[
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "del", "dfn", "em", "i", "ins", "kbd",
        "mark", "q", "r", "rp", "rt", "ruby", "s", "samp", "small", "span", "strong", "sub", "sup",
        "tt", "u", "var", "wbr", "math",
    ];
    INLINE.contains(&name)
}

/// Counts the element and tells what its content is.
fn element(e: &BytesStart, inside: Kind, counts: &mut Counts) -> Kind {
    let name = e.local_name();
    let name: &str = name.as_ref();
    let class = get(e, "class");
    let epub_type = get(e, "epub:type");
    let is_index = has_token(&class, |c| c == "index") || has_token(&epub_type, |t| t == "index");
    if inside == Kind::Skip {
        return Kind::Skip;
    }
    if inside == Kind::Index || is_index {
        if matches!(name, "dt" | "li") && inside == Kind::Index {
            counts.index_entries += 1;
        }
        return Kind::Index;
    }
    let navigation = matches!(name, "head" | "script" | "style" | "nav")
        || has_token(&class, |c| {
            c == "toc" || c == "lot" || c.starts_with("list-of-")
        })
        || has_token(&epub_type, |t| {
            t == "toc" || t == "landmarks" || t == "page-list"
        });
    if navigation {
        return Kind::Skip;
    }
    match name {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => counts.headings += 1,
        "figure" => counts.figures += 1,
        "div"
            if has_token(&class, |c| {
                matches!(c, "figure" | "informalfigure" | "image")
            }) =>
        {
            counts.figures += 1
        }
        "img" | "image" => counts.images += 1,
        "table" => counts.tables += 1,
        "pre" => counts.listings += 1,
        "li" => counts.list_items += 1,
        "ruby" => counts.ruby += 1,
        "a" if get(e, "href").is_some() => counts.links += 1,
        _ => {}
    }
    let note_type = has_token(&epub_type, |t| {
        matches!(t, "footnote" | "endnote" | "rearnote")
    });
    let note_class = has_token(&class, |c| matches!(c, "footnote" | "endnote"));
    // A note is a block; a marker (`a`, `sup`) or a note's paragraph (`p class="footnote"`) is not.
    if (note_type || note_class) && matches!(name, "aside" | "div" | "section" | "li" | "dd") {
        counts.footnotes += 1;
    }
    Kind::Text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_equation_is_read_by_its_tex_where_it_keeps_it() {
        let mut view = View::default();
        walk(
            r#"<p>式<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="\sum_{i=1}^n a &amp; b"><munderover><mo>∑</mo></munderover></math>と。</p>"#,
            &mut view,
        );
        assert_eq!(view.running.trim(), "式\\sum_{i=1}^n a & bと。");
    }
}
