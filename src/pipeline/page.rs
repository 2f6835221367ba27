//! A page's last step before the package: parsed (a template that breaks XHTML is caught
//! here, named), run through the filter chain, and measured for the manifest properties it
//! needs.
use std::path::Path;

use crate::codes;
use crate::dom;
use crate::error::{Error, Finding, Location, Result};
use crate::filter::{Chain, FilterContext};

/// A rendered page, checked to be well-formed XHTML, with the manifest properties it needs.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Checked {
    pub text: String,
    pub properties: String,
    pub ruby: bool,
}

/// Every page goes through our parser: a template override that breaks XHTML is caught here,
/// named, instead of by epubcheck or a reader.
pub(super) fn checked_xhtml(text: &str, template: &str) -> Result<Checked> {
    filtered_xhtml(text, template, None)
}

/// Like [`checked_xhtml`], running the book's filter chain over the page in between.
pub(super) fn filtered_xhtml(
    text: &str,
    template: &str,
    filters: Option<(&Chain, &FilterContext, &Path)>,
) -> Result<Checked> {
    let mut doc = dom::parse_document(text).map_err(|e| Error::Template {
        name: template.into(),
        message: format!("the page it made is not well-formed XHTML: {e}"),
    })?;
    if let Some((chain, ctx, source)) = filters {
        chain.apply(&mut doc, ctx).map_err(|e| {
            Error::Book(vec![
                Finding::error(codes::FILTER, Location::file(source), e.to_string())
                    .with_hint("fix the filter, or take it out of the chain (`filters:` in book.yml or seihon.yml)"),
            ])
        })?;
    }
    let (mut svg, mut math, mut script, mut ruby) = (false, false, false, false);
    doc.root.walk(&mut |e| match e.name.as_str() {
        "svg" => svg = true,
        "ruby" => ruby = true,
        "math" | "m:math" | "mml:math" => math = true,
        "script" | "form" => script = true,
        _ => {}
    });
    let props: Vec<&str> = [(math, "mathml"), (script, "scripted"), (svg, "svg")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    Ok(Checked {
        text: dom::serialize_document(&doc),
        properties: props.join(" "),
        ruby,
    })
}
