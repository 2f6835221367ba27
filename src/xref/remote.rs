//! Raw XHTML in a manuscript (Markdown's inline HTML, Re:VIEW's `//raw`, `//embed`) that
//! would have the reader load something from outside the book — an image, a video or a frame
//! on the web, a style with a remote `url(…)`, a `file:` link — which an EPUB must not do
//! (epubcheck: RSC-006, RSC-008, RSC-030, OPF-014). Each is a located warning, and the page
//! degrades: a remote image shows its alt text, a remote video or frame becomes a link to it,
//! a remote style declaration and a remote `srcset` are dropped, a `file:` link keeps its text.
use crate::codes::{self, Code};
use crate::dom::{Element, Node};
use crate::error::{Finding, Location};

/// Whether `url` leads outside the book: to the web, another host, or the file system.
fn is_outside(url: &str) -> bool {
    let url = url.trim().to_ascii_lowercase();
    url.starts_with("//")
        || ["http:", "https:", "ftp:", "file:"]
            .iter()
            .any(|s| url.starts_with(s))
}

/// The local part of an element's name (`svg:image` → `image`).
fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// Makes `nodes` load nothing from outside the book, reporting each change at `at`.
pub fn keep_inside(nodes: &mut Vec<Node>, at: &Location, warnings: &mut Vec<Finding>) {
    let mut i = 0;
    while i < nodes.len() {
        let Node::Element(e) = &mut nodes[i] else {
            i += 1;
            continue;
        };
        match replacement(e, at, warnings) {
            Some(new) => {
                let n = new.len();
                nodes.splice(i..=i, new);
                i += n;
            }
            None => {
                keep_inside(&mut e.children, at, warnings);
                i += 1;
            }
        }
    }
}

/// What stands in for `e` when it loads something from outside (`None`: `e` stays, perhaps
/// with an attribute dropped).
fn replacement(e: &mut Element, at: &Location, warnings: &mut Vec<Finding>) -> Option<Vec<Node>> {
    let mut warn = |code: Code, message: String| {
        warnings.push(
            Finding::warning(code, at.clone(), message)
                .with_hint("an EPUB must carry what its pages show: put the file into the book folder and refer to it by its path"),
        );
    };
    drop_remote_styles(e, &mut warn);
    let name = local(&e.name).to_string();
    if let Some(srcset) = e.attr("srcset").map(str::to_string)
        && srcset
            .split(',')
            .any(|c| is_outside(c.split_whitespace().next().unwrap_or("")))
    {
        e.remove_attr("srcset");
        warn(
            codes::REMOTE_RESOURCE,
            format!("the `srcset` of this `<{name}>` names files on the web; it is left out"),
        );
    }
    if let Some(poster) = e.attr("poster").map(str::to_string)
        && is_outside(&poster)
    {
        e.remove_attr("poster");
        warn(
            codes::REMOTE_RESOURCE,
            format!("the poster image `{poster}` is on the web; it is left out"),
        );
    }
    let source = ["src", "data", "href", "xlink:href"]
        .into_iter()
        .find_map(|a| {
            e.attr(a)
                .filter(|v| is_outside(v))
                .map(|v| (a, v.to_string()))
        });
    match name.as_str() {
        "img" => {
            let gone = match &source {
                Some((_, url)) => {
                    warn(
                        codes::REMOTE_RESOURCE,
                        format!("the image `{url}` is on the web; its alt text is shown instead"),
                    );
                    true
                }
                // Its srcset went, and nothing else names the picture.
                None => e.attr("src").is_none_or(|s| s.trim().is_empty()),
            };
            gone.then(|| {
                let alt = e.attr("alt").unwrap_or("").to_string();
                let mut span = Element::new("span").with_attr("class", "missing-image");
                span.push_text(&alt);
                vec![Node::from(span)]
            })
        }
        "video" | "audio" | "iframe" | "object" | "embed" => {
            let (_, url) = source?;
            warn(
                codes::REMOTE_RESOURCE,
                format!("this `<{name}>` plays `{url}` from the web; it is shown as a link to it"),
            );
            let text = e.text_content();
            let text = if text.trim().is_empty() {
                url.clone()
            } else {
                text
            };
            let mut a = Element::new("a").with_attr("href", url);
            a.push_text(text.trim());
            Some(vec![Node::from(a)])
        }
        "source" | "track" | "image" | "link" | "script" => {
            let (_, url) = source?;
            warn(
                codes::REMOTE_RESOURCE,
                format!("this `<{name}>` loads `{url}` from outside the book; it is left out"),
            );
            Some(Vec::new())
        }
        "a" => {
            let href = e
                .attr("href")
                .filter(|h| h.trim().to_ascii_lowercase().starts_with("file:"))?;
            warn(
                codes::REMOTE_RESOURCE,
                format!(
                    "the link `{href}` points into a computer's files, which no reader has; its text is kept without the link"
                ),
            );
            Some(std::mem::take(&mut e.children))
        }
        _ => None,
    }
}

/// Drops the declarations of a `style` attribute that load a `url(…)` from outside the book.
fn drop_remote_styles(e: &mut Element, warn: &mut impl FnMut(Code, String)) {
    let Some(style) = e.attr("style").map(str::to_string) else {
        return;
    };
    let remote = |decl: &str| {
        decl.to_ascii_lowercase()
            .match_indices("url(")
            .any(|(i, _)| {
                let rest = decl[i + 4..].trim_start().trim_start_matches(['"', '\'']);
                is_outside(rest)
            })
    };
    if !style.split(';').any(remote) {
        return;
    }
    let kept: Vec<&str> = style
        .split(';')
        .filter(|d| !d.trim().is_empty() && !remote(d))
        .collect();
    if kept.is_empty() {
        e.remove_attr("style");
    } else {
        e.set_attr("style", kept.join(";"));
    }
    warn(
        codes::REMOTE_RESOURCE,
        format!(
            "a style of this `<{}>` loads a file from the web; that declaration is left out",
            local(&e.name)
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom;

    fn fixed(html: &str) -> (String, usize) {
        let mut nodes = dom::parse_fragment(html).unwrap();
        let mut warnings = Vec::new();
        keep_inside(&mut nodes, &Location::new("ch01.md", 3, 1), &mut warnings);
        let out = dom::serialize_nodes(&nodes);
        (out, warnings.len())
    }

    #[test]
    fn nothing_outside_the_book_is_loaded() {
        let cases = [
            (
                r#"<img src="https://x.org/a.png" alt="A cat"/>"#,
                r#"<span class="missing-image">A cat</span>"#,
            ),
            (
                r#"<img srcset="https://x.org/a.png 2x" alt="B"/>"#,
                r#"<span class="missing-image">B</span>"#,
            ),
            (
                r#"<img src="a.png" srcset="https://x.org/a.png 2x" alt="C"/>"#,
                r#"<img src="a.png" alt="C"/>"#,
            ),
            (
                r#"<video src="https://x.org/v.mp4"></video>"#,
                r#"<a href="https://x.org/v.mp4">https://x.org/v.mp4</a>"#,
            ),
            (
                r#"<iframe src="//x.org/">A map</iframe>"#,
                r#"<a href="//x.org/">A map</a>"#,
            ),
            (
                r#"<p style="color: red; background: url('https://x.org/b.png')">t</p>"#,
                r#"<p style="color: red">t</p>"#,
            ),
            (
                r#"<p><a href="file:///etc/passwd">secret</a> end</p>"#,
                r#"<p>secret end</p>"#,
            ),
            (
                r#"<video><source src="https://x.org/v.mp4"/></video>"#,
                r#"<video></video>"#,
            ),
        ];
        for (html, want) in cases {
            let (out, n) = fixed(html);
            assert_eq!(out, want, "{html}");
            assert!(n >= 1, "{html}: no warning");
        }
        // What stays inside is left alone.
        let local =
            r#"<p><img src="images/a.png" alt="A"/><a href="https://x.org/">a web link</a></p>"#;
        assert_eq!(fixed(local), (local.to_string(), 0));
    }
}
