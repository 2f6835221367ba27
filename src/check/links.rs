//! internal-links, empty-link-text and unresolved-references.
use super::{Book, Target, finding_at, local, resolve, walk_path};
use crate::error::{Finding, Location};
use crate::xhtml::dom::Node;

/// Every relative `href` of an `a` (in chapters and in the nav) and every `content src` of the
/// NCX points to a file in the EPUB, and its fragment to an id in that file.
pub(super) fn internal_links(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            if el.name != "a" && el.name != "area" {
                return;
            }
            let Some(href) = el.attr("href") else { return };
            if let Some(problem) = link_problem(book, file, href) {
                out.push(finding_at(file, path, problem, None));
            }
        });
    }
    for (file, doc) in &book.ncx {
        doc.root.walk(&mut |el| {
            if local(&el.name) != "content" {
                return;
            }
            let Some(src) = el.attr("src") else { return };
            if let Some(problem) = link_problem(book, file, src) {
                let pos = el.pos.unwrap_or_default();
                out.push(Finding::error(
                    Location::new(file, pos.line, pos.col),
                    problem,
                ));
            }
        });
    }
    out
}

/// Why a link from `file` to `href` does not resolve, if it does not.
fn link_problem(book: &Book, file: &str, href: &str) -> Option<String> {
    match resolve(file, href) {
        Target::External => None,
        Target::Outside => Some(format!(
            "the link `{href}` points outside the book; links must stay inside the EPUB"
        )),
        Target::Local { path, fragment } => {
            if !book.files.contains_key(&path) {
                return Some(format!(
                    "the link `{href}` points to `{path}`, which is not in the book"
                ));
            }
            let fragment = fragment.filter(|f| !f.is_empty())?;
            let ids = book.ids_of(&path)?;
            if ids.contains(fragment.as_str()) {
                None
            } else if path == file {
                Some(format!(
                    "the link `{href}` points to nothing: no element on this page has the id `{fragment}`"
                ))
            } else {
                Some(format!(
                    "the link `{href}` points to `#{fragment}`, but `{path}` has no such id"
                ))
            }
        }
    }
}

fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// An `a` with an `href` that shows nothing: no text, no image with alt text, no label.
pub(super) fn empty_link_text(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            if el.name != "a" || el.attr("href").is_none() {
                return;
            }
            if !is_blank(&el.text_content()) {
                return;
            }
            let labelled = ["aria-label", "title"]
                .iter()
                .any(|a| el.attr(a).is_some_and(|v| !is_blank(v)));
            let mut image_alt = false;
            el.walk(&mut |d| {
                if d.name == "img" && d.attr("alt").is_some_and(|a| !is_blank(a)) {
                    image_alt = true;
                }
            });
            if !labelled && !image_alt {
                let href = el.attr("href").unwrap_or("");
                out.push(finding_at(
                    file,
                    path,
                    format!("the link to `{href}` has no text, so readers show nothing to tap"),
                    Some("give the link (or the cross-reference's target) a text"),
                ));
            }
        });
    }
    out
}

/// Elements whose text is code, where reference-like text is meant literally.
const LITERAL: &[&str] = &["code", "pre", "kbd", "samp", "tt", "script", "style"];

/// Text left over from a reference that was not resolved: the pipeline's `span.unresolved`,
/// Re:VIEW inline commands such as `@<list>{…}`, and DocBook's `???`.
pub(super) fn unresolved_references(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            if el.name == "span" && el.has_class("unresolved") {
                out.push(finding_at(
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
                LITERAL.contains(&e.name.as_str())
                    || (e.name == "span" && e.has_class("unresolved"))
            });
            if literal {
                return;
            }
            for child in &el.children {
                if let Node::Text(text) = child
                    && let Some(leftover) = leftover_in(text)
                {
                    out.push(finding_at(
                        file,
                        path,
                        format!("`{leftover}` looks like a reference that was not converted"),
                        Some("check the markup of the reference in the manuscript"),
                    ));
                }
            }
        });
    }
    out
}

/// The first leftover reference in a text: `@<name>{…}` or `???`.
fn leftover_in(text: &str) -> Option<String> {
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
pub(super) fn leftover_for_test(text: &str) -> Option<String> {
    leftover_in(text)
}
