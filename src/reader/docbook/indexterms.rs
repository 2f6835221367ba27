//! `indexterm` → an index term of the model: its levels (`primary`, `secondary`,
//! `tertiary`, each with its `sortas`), `see` and `seealso`, `significance`, and the ranges
//! `class="startofrange"` … `class="endofrange" startref` make. The index itself is built from
//! them by the index (`xref::index`), as for Re:VIEW's `@<idx>`.
use super::*;

const LEVELS: [&str; 3] = ["primary", "secondary", "tertiary"];

impl Conv<'_> {
    pub(super) fn indexterm(&mut self, el: &Element, out: &mut Inlines) {
        let pos = pos_of(el);
        if el.attr("class") == Some("endofrange") {
            let start = el.attr("startref").map(str::trim).unwrap_or_default();
            let Some(levels) = self.range_starts.get(start).cloned() else {
                self.warn(
                    codes::UNKNOWN_REFERENCE,
                    el,
                    format!(
                        "this index range ends a range `{start}` that no `indexterm` starts; the index shows its start alone"
                    ),
                );
                return;
            };
            if !levels.is_empty() {
                let details = IndexDetails {
                    range_end: Some(start.to_string()),
                    ..Default::default()
                };
                out.push(index_term(levels, Some(details), pos));
            }
            return;
        }
        let (levels, sort_as) = levels_of(el);
        if levels.is_empty() {
            return;
        }
        let see = el
            .child("see")
            .map(|s| squash(&s.text()))
            .filter(|s| !s.is_empty());
        let see_also: Vec<String> = el
            .child_elements()
            .filter(|c| c.local_name() == "seealso")
            .map(|c| squash(&c.text()))
            .filter(|s| !s.is_empty())
            .collect();
        let details = IndexDetails {
            sort_as,
            see,
            see_also,
            preferred: el.attr("significance").map(str::trim) == Some("preferred"),
            range_start: (el.attr("class") == Some("startofrange"))
                .then(|| el.id().map(str::to_string))
                .flatten(),
            range_end: None,
        };
        let plain = details.sort_as.iter().all(Option::is_none)
            && details.see.is_none()
            && details.see_also.is_empty()
            && !details.preferred
            && details.range_start.is_none();
        out.push(index_term(levels, (!plain).then_some(details), pos));
    }
}

/// A term's levels as the index joins them, and what each sorts as.
pub(super) fn levels_of(el: &Element) -> (Vec<String>, Vec<Option<String>>) {
    let mut levels = Vec::new();
    let mut sort_as = Vec::new();
    for level in LEVELS.iter().filter_map(|n| el.child(n)) {
        let text = squash(&level.text());
        if text.is_empty() {
            continue;
        }
        levels.push(text);
        sort_as.push(level.attr("sortas").map(squash).filter(|s| !s.is_empty()));
    }
    (levels, sort_as)
}

fn index_term(levels: Vec<String>, details: Option<IndexDetails>, pos: Pos) -> Inline {
    Inline::new(
        InlineKind::IndexTerm {
            term: levels.join(crate::doc::INDEX_LEVEL_SEPARATOR),
            id: None,
            details: details.map(Box::new),
        },
        pos,
    )
}
