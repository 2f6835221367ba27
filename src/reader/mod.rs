//! Readers: one source file → `doc::Document`. Each format has its own module; all produce the
//! same model, so the writer and everything after it is shared.
pub mod autolink;
pub mod cjk_emphasis;
pub mod crossref;
pub mod docbook;
pub mod markdown;
pub mod rawhtml;
pub mod review;
pub mod ruby;
pub mod xhtml;

use crate::codes;
use crate::dom::Node;
use crate::error::{Finding, Location};
use crate::math::{self, Display};

/// TeX math as MathML (Re:VIEW and Markdown equations), or the finding to report at
/// `where_(offset)`, the manuscript position of the byte of the TeX where conversion failed:
/// the equation is then shown as its TeX.
pub(crate) fn tex_to_mathml(
    tex: &str,
    display: Display,
    where_: impl FnOnce(usize) -> Location,
) -> Result<Vec<Node>, Finding> {
    math::to_mathml(tex, display)
        .map(|m| vec![Node::from(m)])
        .map_err(|e| {
            Finding::warning(
                codes::UNCONVERTED_MATH,
                where_(e.offset),
                format!("this equation is shown as its TeX: {e}"),
            )
            .with_hint(
                "seihon converts the TeX math books use (README: Re:VIEW); write this part with those commands, or keep it as TeX",
            )
        })
}

/// Each text of `inlines` cut where `find` (given the text and where it is) finds something in
/// it: what it finds (a byte range of the text, and the inline that stands there) replaces that
/// part, the rest stays text.
pub(crate) fn split_texts(
    inlines: &mut crate::doc::Inlines,
    mut find: impl FnMut(&str, crate::dom::Pos) -> Vec<(std::ops::Range<usize>, crate::doc::InlineKind)>,
) {
    use crate::doc::{Inline, InlineKind};
    let mut i = 0;
    while i < inlines.len() {
        let InlineKind::Text(text) = &inlines[i].kind else {
            i += 1;
            continue;
        };
        let pos = inlines[i].pos;
        let found = find(text, pos);
        if found.is_empty() {
            i += 1;
            continue;
        }
        let mut pieces = Vec::new();
        let mut at = 0;
        for (range, kind) in found {
            if range.start > at {
                pieces.push(Inline::text(&text[at..range.start], pos));
            }
            pieces.push(Inline::new(kind, pos));
            at = range.end;
        }
        if at < text.len() {
            pieces.push(Inline::text(&text[at..], pos));
        }
        let n = pieces.len();
        inlines.splice(i..=i, pieces);
        i += n;
    }
}
