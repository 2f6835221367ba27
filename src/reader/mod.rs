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
        .map(|m| vec![Node::Element(m)])
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
