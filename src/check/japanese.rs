//! Checks for Japanese typesetting: tcy-length, nav-ruby-tcy, vertical-spine.
use super::Book;
use crate::error::{Finding, Location};

pub(super) fn tcy_length(book: &Book) -> Vec<Finding> {
    book.pages
        .values()
        .flat_map(|p| p.tcy_length.iter().cloned())
        .collect()
}

pub(super) fn nav_ruby_tcy(book: &Book) -> Vec<Finding> {
    book.nav
        .as_ref()
        .and_then(|nav| book.pages.get(nav))
        .map(|p| p.nav_ruby_tcy.clone())
        .unwrap_or_default()
}

pub(super) fn vertical_spine(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(opf) = &book.opf_path else {
        return out;
    };
    let mut any_vertical = false;
    for path in &book.spine {
        let Some(root) = book.pages.get(path).and_then(|p| p.vertical.as_ref()) else {
            continue;
        };
        any_vertical = true;
        if !book.spine_rtl {
            out.push(root.finding(
                "this page is written vertically (`vrtl`), but the spine's page progression \
                 is not right-to-left",
                Some("set `writing: vertical` for the whole book in book.yml"),
            ));
        }
    }
    if book.spine_rtl && !any_vertical && !book.spine.is_empty() {
        let pos = book.spine_pos.unwrap_or_default();
        out.push(
            super::found(
                Location::new(opf.as_str(), pos.line, pos.col),
                "the spine's page progression is right-to-left, but no page is written vertically",
            )
            .with_hint("set `writing: horizontal` in book.yml, or mark the pages `vrtl`"),
        );
    }
    out
}
