//! Callouts: the `co` marks in a listing and the `calloutlist` that explains them, linked both
//! ways as DocBook XSL links them — a mark to its callout (`co linkends`, else the callout whose
//! `arearefs` names it), a callout's marks back to the places in the listing.
use super::blocks::anchor_inline;
use super::*;

impl Conv<'_> {
    /// Notes which callout explains each mark (run over every element before converting).
    pub(super) fn note_callout(&mut self, el: &Element) {
        match el.local_name() {
            "callout" => {
                let refs = arearefs(el);
                let Some(own) = callout_id(el) else { return };
                for r in refs {
                    self.callout_of.entry(r.to_string()).or_insert(own.clone());
                }
            }
            // Areas are numbered in their areaspec's order (the listing has no marks).
            "areaspec" => {
                for (n, a) in el.child_elements().enumerate() {
                    // An areaset's areas share its number.
                    let ids = std::iter::once(a).chain(a.child_elements());
                    for id in ids.filter_map(|e| e.id()) {
                        self.areas.insert(id.to_string(), n + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// A `co` (a mark in a listing: its anchor, linking to its callout) or a `coref` (another
    /// mark for the same callout).
    pub(super) fn co(&mut self, el: &Element, out: &mut Inlines) {
        let pos = pos_of(el);
        let id = if el.local_name() == "co" {
            el.id()
        } else {
            el.attr("linkend").map(str::trim)
        };
        let n = id.and_then(|i| self.callouts.get(i)).copied();
        if el.local_name() == "co"
            && let Some(id) = el.id()
        {
            out.push(anchor_inline(id, pos));
        }
        let label = match n {
            Some(n) => format!("({n})"),
            None => el
                .attr("label")
                .map(|l| format!("({l})"))
                .unwrap_or_else(|| "(*)".into()),
        };
        let target = el
            .attr("linkends")
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
            .or_else(|| id.and_then(|i| self.callout_of.get(i)).cloned());
        match target {
            Some(target) => out.push(Inline::new(
                InlineKind::Ref {
                    kind: RefKind::Any,
                    target,
                    content: Some(vec![Inline::text(label, pos)]),
                },
                pos,
            )),
            None => push_merged(out, Inline::text(label, pos)),
        }
    }

    /// A `calloutlist`: each callout's marks (linking back to them in the listing), then its
    /// explanation, as DocBook XSL lists them.
    pub(super) fn calloutlist(&mut self, el: &Element, level: u8, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        self.caption(el, out);
        let mut items = Vec::new();
        for (i, c) in el
            .child_elements()
            .filter(|c| c.local_name() == "callout")
            .enumerate()
        {
            let pos = pos_of(c);
            let mut term = Vec::new();
            if let Some(id) = callout_id(c) {
                term.push(anchor_inline(&id, pos));
            }
            let refs = arearefs(c);
            for (k, r) in refs.iter().enumerate() {
                if k > 0 {
                    term.push(Inline::text(" ", pos));
                }
                match self.callouts.get(*r) {
                    Some(n) => term.push(Inline::new(
                        InlineKind::Ref {
                            kind: RefKind::Any,
                            target: r.to_string(),
                            content: Some(vec![Inline::text(format!("({n})"), pos)]),
                        },
                        pos,
                    )),
                    None => {
                        let n = self.areas.get(*r).copied().unwrap_or(i + 1);
                        term.push(Inline::text(format!("({n})"), pos));
                    }
                }
            }
            if refs.is_empty() {
                term.push(Inline::text(format!("({})", i + 1), pos));
            }
            let mut blocks = Vec::new();
            self.blocks_into(c, level, &mut blocks);
            items.push(DefinitionItem {
                term,
                definitions: vec![blocks],
            });
        }
        out.push(Block::new(BlockKind::DefinitionList(items), pos_of(el)));
    }
}

/// The marks a callout explains.
fn arearefs(el: &Element) -> Vec<&str> {
    el.attr("arearefs")
        .map(|a| a.split_whitespace().collect())
        .unwrap_or_default()
}

/// A callout's id: its own, else one made from its first mark's, so the marks can link to it.
fn callout_id(el: &Element) -> Option<String> {
    el.id()
        .map(str::to_string)
        .or_else(|| arearefs(el).first().map(|r| format!("callout-{r}")))
}
