//! resources and image-alt.
use super::{Book, Target, resolve};
use crate::error::{Finding, Location, line_col};

/// Why a resource reference from `file` does not resolve to a file in the EPUB and manifest.
fn resource_problem(book: &Book, file: &str, what: &str, value: &str) -> Option<String> {
    match resolve(file, value) {
        Target::External => None,
        Target::Outside => Some(format!(
            "the {what} `{value}` points outside the book; resources must be inside the EPUB"
        )),
        Target::Local { path, .. } => {
            if !book.has_file(&path) {
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
    // A page's findings are kept: they change with its resources, the book's files and the
    // manifest.
    let targets = book.resource_targets();
    for (file, page) in &book.pages {
        out.extend(
            book.kept_findings("resources", file, targets.as_deref(), || {
                (book.refs(file, page).resources.iter())
                    .filter_map(|res| {
                        let r = &res.reference;
                        let problem = resource_problem(book, file, &res.what, &r.value)?;
                        Some(r.place.finding(problem, None))
                    })
                    .collect()
            }),
        );
    }
    for (file, bytes) in book.files {
        if !file.to_ascii_lowercase().ends_with(".css") {
            continue;
        }
        let text = String::from_utf8_lossy(bytes.get().unwrap_or_default());
        for (offset, url) in css_urls(&text) {
            if let Some(problem) = resource_problem(book, file, "resource", &url) {
                let (line, col) = line_col(&text, offset);
                out.push(super::found(Location::new(file, line, col), problem));
            }
        }
    }
    if let Some(opf) = &book.opf_path {
        for item in &book.manifest {
            let missing = match &item.path {
                Some(p) => !book.has_file(p),
                None => matches!(resolve(opf, &item.href), Target::Outside),
            };
            if missing {
                let pos = item.pos.unwrap_or_default();
                out.push(super::found(
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
    book.pages
        .values()
        .flat_map(|p| p.image_alt.iter().cloned())
        .collect()
}

#[cfg(test)]
pub(super) fn css_urls_for_test(css: &str) -> Vec<(usize, String)> {
    css_urls(css)
}
