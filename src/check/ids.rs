//! unique-ids: no id twice in one XHTML file.
use super::Book;
use crate::error::Finding;

pub(super) fn unique_ids(book: &Book) -> Vec<Finding> {
    book.pages
        .values()
        .flat_map(|p| p.unique_ids.iter().cloned())
        .collect()
}
