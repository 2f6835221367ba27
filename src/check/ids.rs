//! unique-ids: no id twice in one XHTML file.
use std::collections::HashMap;

use super::{Book, finding_at, source_of, walk_path};
use crate::error::Finding;

pub(super) fn unique_ids(book: &Book) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, doc) in &book.docs {
        // id → XHTML position of its first use
        let mut seen: HashMap<&str, String> = HashMap::new();
        walk_path(&doc.root, &mut |path| {
            let el = path[path.len() - 1];
            let Some(id) = el.attr("id") else { return };
            match seen.get(id) {
                Some(first) => out.push(finding_at(
                    file,
                    path,
                    format!("the id `{id}` is used twice in one page (first at {first})"),
                    Some("give each heading, figure or anchor its own label"),
                )),
                None => {
                    let first = source_of(path).map_or_else(
                        || format!("{file}:{}", el.pos.unwrap_or_default().line),
                        |l| l.to_string(),
                    );
                    seen.insert(id, first);
                }
            }
        });
    }
    out
}
