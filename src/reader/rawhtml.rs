//! Raw HTML the way real manuscripts write it, made XHTML an EPUB can carry without changing
//! the author's text: a "tag" that names no HTML, SVG or MathML element (`Vec<T>`,
//! `<blog.example.com>`) is text; a bare `&` is `&amp;`; an HTML entity (`&nbsp;`) is its
//! character; an unknown entity is kept as written; a void element (`<br>`) is closed; an
//! attribute EPUB does not allow is dropped, or made CSS where that is plain (`align`).
use crate::dom::{self, Element, Node};

/// Something repaired, at a byte offset of the raw text, for a warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    pub offset: usize,
    pub message: String,
    pub hint: &'static str,
}

/// HTML, SVG and MathML element names, as XHTML spells them (case matters).
const ELEMENTS: &[&str] = &[
    // HTML
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rb",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
    "center",
    "font",
    "big",
    "tt",
    "strike", // obsolete, but HTML: the checks name them
    // SVG
    "svg",
    "g",
    "defs",
    "desc",
    "symbol",
    "use",
    "image",
    "switch",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "textPath",
    "marker",
    "linearGradient",
    "radialGradient",
    "stop",
    "pattern",
    "clipPath",
    "mask",
    "filter",
    "foreignObject",
    "animate",
    "animateMotion",
    "animateTransform",
    "set",
    "view",
    "feBlend",
    "feColorMatrix",
    "feComposite",
    "feFlood",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feOffset",
    "feTurbulence",
    // MathML
    "math",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "mrow",
    "mfrac",
    "msqrt",
    "mroot",
    "mstyle",
    "merror",
    "mpadded",
    "mphantom",
    "menclose",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mmultiscripts",
    "mprescripts",
    "none",
    "mtable",
    "mtr",
    "mtd",
    "mlabeledtr",
    "semantics",
    "annotation",
    "annotation-xml",
    "maction",
];

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Whether `name` is an element that never has content (`br`, `img`).
pub fn is_void(name: &str) -> bool {
    VOID.contains(&name)
}

/// Whether `name` (as written, with any prefix) is an element of HTML, SVG or MathML.
pub fn is_element(name: &str) -> bool {
    let local = name.rsplit(':').next().unwrap_or(name);
    ELEMENTS.contains(&local)
}

fn name_char(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '>' | '/' | '<' | '"' | '\'' | '=' | '&')
}

/// The name a tag (`<x …>` or `</x>`) starts with, as far as it goes: `blog.example.com` in
/// `<blog.example.com>`.
pub fn tag_name(tag: &str) -> Option<&str> {
    let rest = tag.strip_prefix('<')?;
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let end = rest.find(|c: char| !name_char(c)).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Where the tag starting at `s[0] == '<'` ends (just after its `>`), quotes respected.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(i + 1),
            (None, '<') => return None,
            _ => {}
        }
    }
    None
}

/// Text that is XML text as written: `&` that starts no entity escaped, HTML's entities as
/// character references, unknown ones kept as written.
fn push_amp(out: &mut String, rest: &str, at: usize, repairs: &mut Vec<Repair>) -> usize {
    // `rest` starts with `&`.
    let body_end = rest[1..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
        .map(|i| i + 1)
        .unwrap_or(rest.len());
    let name = &rest[1..body_end];
    if name.is_empty() || !rest[body_end..].starts_with(';') {
        out.push_str("&amp;");
        return 1;
    }
    let len = body_end + 1;
    if matches!(name, "amp" | "lt" | "gt" | "quot" | "apos") {
        out.push_str(&rest[..len]);
        return len;
    }
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => num.parse().ok(),
        };
        if code.and_then(char::from_u32).is_some_and(dom::is_xml_char) {
            out.push_str(&rest[..len]);
        } else {
            out.push_str("&amp;");
            out.push_str(&rest[1..len]);
            repairs.push(Repair {
                offset: at,
                message: format!("`&{name};` is no character; it is shown as written"),
                hint: "write a character reference as `&#160;` or `&#xA0;`",
            });
        }
        return len;
    }
    match dom::html_entity(name) {
        Some(c) => out.push_str(&format!("&#x{:X};", c as u32)),
        None => {
            out.push_str("&amp;");
            out.push_str(&rest[1..len]);
            repairs.push(Repair {
                offset: at,
                message: format!("`&{name};` is no entity seihon knows; it is shown as written"),
                hint: "write the character itself, or `&amp;` for a `&`",
            });
        }
    }
    len
}

/// The raw HTML as XHTML text to parse, and what was repaired on the way. Offsets in the
/// repairs are the raw text's.
pub fn repair(raw: &str) -> (String, Vec<Repair>) {
    let mut out = String::with_capacity(raw.len() + 16);
    let mut repairs = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let rest = &raw[i..];
        let c = rest.chars().next().unwrap();
        match c {
            '&' => i += push_amp(&mut out, rest, i, &mut repairs),
            '<' => {
                let passthrough = [
                    ("<!--", "-->"),
                    ("<![CDATA[", "]]>"),
                    ("<?", "?>"),
                    ("<!", ">"),
                ];
                if let Some((_, close)) = passthrough.iter().find(|(o, _)| rest.starts_with(o)) {
                    let end = rest.find(close).map_or(rest.len(), |e| e + close.len());
                    out.push_str(&rest[..end]);
                    i += end;
                    continue;
                }
                let name = tag_name(rest);
                let end = tag_end(rest);
                match (name, end) {
                    (Some(name), Some(end)) if is_element(name) => {
                        let tag = &rest[..end];
                        let void = VOID.contains(&name) && !rest.starts_with("</");
                        let body = &tag[..end - 1];
                        // Attribute values may hold a bare `&` too.
                        let mut j = 0;
                        while j < body.len() {
                            if body[j..].starts_with('&') {
                                j += push_amp(&mut out, &body[j..], i + j, &mut repairs);
                            } else {
                                let ch = body[j..].chars().next().unwrap();
                                out.push(ch);
                                j += ch.len_utf8();
                            }
                        }
                        if void && !body.trim_end().ends_with('/') {
                            out.push('/');
                        }
                        out.push('>');
                        i += end;
                    }
                    (name, _) => {
                        if let Some(name) = name.filter(|n| n.contains(['.', '@'])) {
                            repairs.push(Repair {
                                offset: i,
                                message: format!(
                                    "`<{name}>` is no HTML element; it is shown as written"
                                ),
                                hint: "for a link write the address with its scheme, `<https://…>`",
                            });
                        }
                        out.push_str("&lt;");
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    (out, repairs)
}

/// Attributes EPUB's XHTML does not allow, on HTML elements: dropped, or made CSS where the
/// CSS is plain. Returns what was done, one message per attribute.
pub fn clean_attributes(nodes: &mut [Node]) -> Vec<String> {
    let mut done = Vec::new();
    for n in nodes {
        if let Node::Element(e) = n {
            clean_element(e, &mut done);
        }
    }
    done
}

const SIZED: &[&str] = &[
    "img", "video", "canvas", "iframe", "embed", "object", "input", "source",
];

fn clean_element(e: &mut Element, done: &mut Vec<String>) {
    let local = e.local_name().to_string();
    if matches!(local.as_str(), "svg" | "math") {
        return;
    }
    let names: Vec<String> = e.attrs.iter().map(|(k, _)| k.clone()).collect();
    let mut style = Vec::new();
    for name in names {
        let value = e.attr(&name).unwrap_or("").trim().to_string();
        let css = match name.as_str() {
            "align" if local != "img" => match value.to_ascii_lowercase().as_str() {
                v @ ("left" | "right" | "center" | "justify") => Some(format!("text-align:{v}")),
                _ => None,
            },
            "valign" => match value.to_ascii_lowercase().as_str() {
                v @ ("top" | "middle" | "bottom" | "baseline") => {
                    Some(format!("vertical-align:{v}"))
                }
                _ => None,
            },
            "bgcolor" if value.chars().all(|c| c.is_ascii_alphanumeric() || c == '#') => {
                Some(format!("background-color:{value}"))
            }
            _ => None,
        };
        let drop = css.is_some()
            || name.starts_with("on")
            || matches!(
                name.as_str(),
                "align"
                    | "valign"
                    | "bgcolor"
                    | "background"
                    | "cellpadding"
                    | "cellspacing"
                    | "frame"
                    | "rules"
                    | "nowrap"
                    | "hspace"
                    | "vspace"
                    | "clear"
                    | "color"
                    | "face"
                    | "char"
                    | "charoff"
                    | "axis"
                    | "language"
            )
            || (name == "border" && !(local == "table" && matches!(value.as_str(), "" | "1")))
            || (matches!(name.as_str(), "width" | "height") && !SIZED.contains(&local.as_str()));
        if !drop {
            continue;
        }
        e.remove_attr(&name);
        match css {
            Some(css) => {
                done.push(format!(
                    "`{name}=\"{value}\"` on `<{local}>` is written as the CSS `{css}`"
                ));
                style.push(css);
            }
            None => done.push(format!(
                "`{name}` on `<{local}>` is not allowed in an EPUB and is left out"
            )),
        }
    }
    if !style.is_empty() {
        let mut all = e
            .attr("style")
            .map(|s| s.trim().trim_end_matches(';').to_string());
        let joined = style.join(";");
        all = Some(match all.filter(|s| !s.is_empty()) {
            Some(s) => format!("{s};{joined}"),
            None => joined,
        });
        e.set_attr("style", all.unwrap());
    }
    // A `p` holding blocks (`<p><p>…</p></p>`, which HTML would end at the inner `p`) is
    // a `div`: XHTML's `p` holds only phrasing.
    if local == "p"
        && e.child_elements().any(|c| {
            matches!(
                c.local_name(),
                "p" | "div"
                    | "ul"
                    | "ol"
                    | "dl"
                    | "table"
                    | "pre"
                    | "blockquote"
                    | "section"
                    | "figure"
                    | "h1"
                    | "h2"
                    | "h3"
                    | "h4"
                    | "h5"
                    | "h6"
                    | "hr"
            )
        })
    {
        e.name = "div".into();
        done.push("a `<p>` holding blocks is written as a `<div>`".into());
    }
    for c in e.children.iter_mut() {
        if let Node::Element(child) = c {
            clean_element(child, done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_of_no_element_are_text_and_entities_repaired() {
        let (s, r) = repair("<p>Vec<T> at <blog.example.com> &amp; a & b &nbsp;&bogus;<br></p>");
        assert_eq!(
            s,
            "<p>Vec&lt;T> at &lt;blog.example.com> &amp; a &amp; b &#xA0;&amp;bogus;<br/></p>"
        );
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!(r[0].offset, 13);
        assert!(dom::parse_fragment(&s).is_ok());
    }

    #[test]
    fn attributes_epub_does_not_allow_are_dropped_or_css() {
        let mut n = dom::parse_fragment(
            r##"<div align="center" onclick="x()"><img src="a.png" width="10" align="left"/><td width="3" bgcolor="#fff"/></div>"##,
        )
        .unwrap();
        let done = clean_attributes(&mut n);
        assert_eq!(
            dom::serialize_nodes(&n),
            "<div style=\"text-align:center\"><img src=\"a.png\" width=\"10\"/>\n<td style=\"background-color:#fff\"></td>\n</div>"
        );
        assert_eq!(done.len(), 5, "{done:?}");
    }
}
