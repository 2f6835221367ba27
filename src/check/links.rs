//! internal-links, empty-link-text and unresolved-references.
use super::{Book, Target, resolve};
use crate::error::Finding;

/// Every relative `href` of an `a` (in chapters and in the nav) and every `content src` of the
/// NCX points to a file in the EPUB, and its fragment to an id in that file.
pub(super) fn internal_links(book: &Book) -> Vec<Finding> {
    use rayon::prelude::*;
    // A page's findings are kept: they change with its links, the book's files and ids.
    let targets = book.link_targets();
    let page = |file: &str, facts: &super::page::PageFacts| {
        book.kept_findings("internal-links", file, targets.as_deref(), || {
            (book.refs(file, facts).links.iter())
                .filter_map(|link| {
                    let problem = link_problem(book, file, &link.value)?;
                    Some(link.place.finding(problem, None))
                })
                .collect()
        })
    };
    // Page by page in parallel (a nav alone holds thousands of links), in path order.
    let mut out: Vec<Finding> = (book.pages.par_iter())
        .flat_map_iter(|(file, facts)| page(file, facts))
        .collect();
    for (file, facts) in &book.ncx {
        out.extend(page(file, facts));
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
            if !book.has_file(&path) {
                return Some(format!(
                    "the link `{href}` points to `{path}`, which is not in the book"
                ));
            }
            let fragment = fragment.filter(|f| !f.is_empty())?;
            let ids = book.ids_of(&path)?;
            if ids.contains(&fragment) {
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

/// An `a` with an `href` that shows nothing: no text, no image with alt text, no label.
pub(super) fn empty_link_text(book: &Book) -> Vec<Finding> {
    book.pages
        .values()
        .flat_map(|p| p.empty_link_text.iter().cloned())
        .collect()
}

/// Text left over from a reference that was not resolved (see [`super::page`]).
pub(super) fn unresolved_references(book: &Book) -> Vec<Finding> {
    book.pages
        .values()
        .flat_map(|p| p.unresolved_references.iter().cloned())
        .collect()
}

#[cfg(test)]
pub(super) fn leftover_for_test(text: &str) -> Option<String> {
    super::page::leftover_in(text)
}
