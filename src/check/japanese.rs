//! Checks for Japanese typesetting: tcy-length, nav-ruby-tcy, vertical-spine.
use super::{Book, finding_at, walk_path};
use crate::error::{Finding, Location};

/// Tate-chu-yoko (horizontal-in-vertical) suits 2–4 half-width characters.
const TCY_MAX: usize = 4;

pub(super) fn tcy_length(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            if el.name != "span" || !el.has_class("tcy") {
                return;
            }
            let text = el.text_content();
            let text = text.trim();
            let n = text.chars().count();
            if n > TCY_MAX {
                out.push(finding_at(
                    file,
                    path,
                    format!(
                        "`{text}` is {n} characters long; tate-chu-yoko suits 2 to {TCY_MAX} \
                         half-width characters"
                    ),
                    Some("set longer text upright or sideways instead"),
                ));
            }
        });
    }
    out
}

pub(super) fn nav_ruby_tcy(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(nav) = &book.nav else { return out };
    let Some(doc) = book.docs.get(nav) else {
        return out;
    };
    walk_path(&doc.root, &mut |path| {
        let el = path[path.len() - 1];
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
        out.push(finding_at(
            nav,
            path,
            format!(
                "the table of contents contains {what} (`{}`), which many readers show badly there",
                el.text_content().trim()
            ),
            Some("keep headings in the table of contents plain"),
        ));
    });
    out
}

pub(super) fn vertical_spine(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(opf) = &book.opf_path else {
        return out;
    };
    let mut any_vertical = false;
    for path in &book.spine {
        let Some(doc) = book.docs.get(path) else {
            continue;
        };
        if !doc.root.has_class("vrtl") {
            continue;
        }
        any_vertical = true;
        if !book.spine_rtl {
            out.push(finding_at(
                path,
                &[&doc.root],
                "this page is written vertically (`vrtl`), but the spine's page progression \
                 is not right-to-left",
                Some("set `writing: vertical` for the whole book in book.yml"),
            ));
        }
    }
    if book.spine_rtl && !any_vertical && !book.spine.is_empty() {
        let pos = book.spine_pos.unwrap_or_default();
        out.push(
            Finding::error(
                Location::new(opf.as_str(), pos.line, pos.col),
                "the spine's page progression is right-to-left, but no page is written vertically",
            )
            .with_hint("set `writing: horizontal` in book.yml, or mark the pages `vrtl`"),
        );
    }
    out
}
