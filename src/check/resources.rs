//! resources and image-alt.
use super::{Book, Target, finding_at, resolve, walk_path};
use crate::error::{Finding, Location, Severity, line_col};
use crate::xhtml::dom::Element;

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

/// Why a resource reference from `file` does not resolve to a file in the EPUB and manifest.
fn resource_problem(book: &Book, file: &str, what: &str, value: &str) -> Option<String> {
    match resolve(file, value) {
        Target::External => None,
        Target::Outside => Some(format!(
            "the {what} `{value}` points outside the book; resources must be inside the EPUB"
        )),
        Target::Local { path, .. } => {
            if !book.files.contains_key(&path) {
                Some(format!(
                    "the {what} `{value}` is not in the book (looked for `{path}`)"
                ))
            } else if book.package_read && !book.in_manifest(&path) {
                Some(format!(
                    "the {what} `{value}` is in the book but not listed in the package document's manifest"
                ))
            } else {
                None
            }
        }
    }
}

pub(super) fn resources(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            let Some((_, value)) = resource_ref(el) else {
                return;
            };
            let what = match el.name.as_str() {
                "img" | "image" | "svg:image" => "image",
                "link" if el.attr("rel").is_some_and(|r| r.contains("stylesheet")) => "style sheet",
                _ => "resource",
            };
            if let Some(problem) = resource_problem(book, file, what, value) {
                out.push(finding_at(file, path, problem, None));
            }
        });
    }
    for (file, bytes) in book.files {
        if !file.to_ascii_lowercase().ends_with(".css") {
            continue;
        }
        let text = String::from_utf8_lossy(bytes);
        for (offset, url) in css_urls(&text) {
            if let Some(problem) = resource_problem(book, file, "resource", &url) {
                let (line, col) = line_col(&text, offset);
                out.push(Finding::error(Location::new(file, line, col), problem));
            }
        }
    }
    if let Some(opf) = &book.opf_path {
        for item in &book.manifest {
            let missing = match &item.path {
                Some(p) => !book.files.contains_key(p),
                None => matches!(resolve(opf, &item.href), Target::Outside),
            };
            if missing {
                let pos = item.pos.unwrap_or_default();
                out.push(Finding::error(
                    Location::new(opf.as_str(), pos.line, pos.col),
                    format!(
                        "the manifest lists `{}` (id `{}`), but it is not in the book",
                        item.href, item.id
                    ),
                ));
            }
        }
    }
    out
}

/// `url(...)` and `@import "..."` references in a style sheet, with their byte offsets.
fn css_urls(css: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // Comments may mention url() without loading anything.
    let mut cleaned = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(i) = rest.find("/*") {
        cleaned.push_str(&rest[..i]);
        let end = rest[i..].find("*/").map_or(rest.len(), |j| i + j + 2);
        cleaned.extend(std::iter::repeat_n(' ', rest[i..end].len()));
        rest = &rest[end..];
    }
    cleaned.push_str(rest);
    let lower = cleaned.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("url(") {
        let start = from + i + 4;
        let Some(len) = cleaned[start..].find(')') else {
            break;
        };
        let raw = cleaned[start..start + len].trim();
        let value = raw.trim_matches(|c| c == '"' || c == '\'').trim();
        if !value.is_empty() {
            out.push((from + i, value.to_string()));
        }
        from = start + len;
    }
    let mut from = 0;
    while let Some(i) = lower[from..].find("@import") {
        let start = from + i + 7;
        let after = cleaned[start..].trim_start();
        if let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'')
            && let Some(end) = after[1..].find(q)
        {
            out.push((from + i, after[1..1 + end].to_string()));
        }
        from = start;
    }
    out.sort();
    out
}

/// Every `img` has an `alt`; an empty `alt` is fine only on decorative images.
pub(super) fn image_alt(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            if el.name != "img" {
                return;
            }
            let src = el.attr("src").unwrap_or("");
            match el.attr("alt") {
                None => out.push(finding_at(
                    file,
                    path,
                    format!("the image `{src}` has no alternative text (`alt`)"),
                    Some("describe the image for readers who cannot see it"),
                )),
                Some(alt) if alt.trim().is_empty() => {
                    let decorative =
                        el.has_class("inline") || el.attr("role") == Some("presentation");
                    if !decorative {
                        let mut f = finding_at(
                            file,
                            path,
                            format!("the image `{src}` has an empty alternative text"),
                            Some("describe the image, or mark it as decorative"),
                        );
                        f.severity = Severity::Warning;
                        out.push(f);
                    }
                }
                Some(_) => {}
            }
        });
    }
    out
}

#[cfg(test)]
pub(super) fn css_urls_for_test(css: &str) -> Vec<(usize, String)> {
    css_urls(css)
}
