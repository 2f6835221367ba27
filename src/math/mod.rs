//! TeX math → presentation MathML, for the subset books use: scripts, fractions, roots, Greek
//! and symbols, large operators with limits, functions, fences, fonts, accents, text, spacing and
//! the array environments (`array`, `matrix` and its fenced kin, `cases`, `aligned`, `align`).
//! Re:VIEW's `//texequation` and `@<m>` and Markdown's `$…$` and `$$…$$` come through here.
//!
//! Whatever is outside the subset is an error with its place in the TeX, never a guess: the
//! reader keeps the TeX as written and warns at the manuscript line. The output is what EPUB
//! 3.3 allows: presentation MathML in the MathML namespace, the TeX kept as `alttext`.
mod commands;
mod lexer;
mod parser;
mod symbols;
mod tables;
#[cfg(test)]
mod tests;

use crate::dom::Element;

/// MathML's namespace, on every `math` element seihon writes.
pub const NAMESPACE: &str = "http://www.w3.org/1998/Math/MathML";

/// Groups, arguments and environments nested deeper than this are refused: the parser and
/// every step after it (the writer, the serializer, the checks) walk the tree recursively, and
/// no equation in a book nests anywhere near this deep.
pub const MAX_DEPTH: usize = 50;

/// Whether an equation stands in the text or is displayed on a line of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    Inline,
    Block,
}

/// TeX that cannot be converted, and where: `offset` is the byte offset in the TeX of the
/// construct (the reader turns it into a line and column of the manuscript).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct MathError {
    pub offset: usize,
    pub kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("`\\{0}` is not a command seihon converts to MathML")]
    UnknownCommand(String),
    #[error("the environment `{0}` is not one seihon converts to MathML")]
    UnknownEnvironment(String),
    #[error("{0} is not converted to MathML")]
    Unsupported(String),
    #[error("a `\\` ends the TeX")]
    TrailingBackslash,
    #[error("`{{` is never closed with `}}`")]
    Unclosed,
    #[error("`}}` closes no `{{`")]
    UnmatchedClose,
    #[error("`[` is never closed with `]`")]
    UnclosedBracket,
    #[error("`\\left` is never closed with `\\right`")]
    UnclosedLeft,
    #[error("`\\right` closes no `\\left`")]
    UnmatchedRight,
    #[error("`\\begin{{{0}}}` is never closed with `\\end{{{0}}}`")]
    UnclosedEnvironment(String),
    #[error("`\\end{{{found}}}` closes `\\begin{{{open}}}`")]
    WrongEnd { open: String, found: String },
    #[error("`\\end` closes no `\\begin`")]
    UnmatchedEnd,
    #[error("`{0}` stands outside an environment that has rows and columns")]
    OutsideTable(String),
    #[error("`{0}` is missing its argument")]
    MissingArgument(String),
    #[error("a double {0}script: use braces, as in `x^{{a}}^{{b}}` → `x^{{ab}}`")]
    DoubleScript(&'static str),
    #[error("`{0}` is not a delimiter")]
    NotADelimiter(String),
    #[error("`\\{0}` must follow a large operator (`\\sum`, `\\int`)")]
    LimitsWithoutOperator(String),
    #[error("the TeX is nested more than {MAX_DEPTH} levels deep")]
    TooDeep,
}

/// `tex` as one `math` element, its TeX kept as `alttext` (white space runs made one space:
/// an attribute value's line breaks are not the reader's).
pub fn to_mathml(tex: &str, display: Display) -> Result<Element, MathError> {
    let children = parser::parse(tex)?;
    let mut math = Element::new("math").with_attr("xmlns", NAMESPACE);
    if display == Display::Block {
        math.set_attr("display", "block");
    }
    let alt = tex.split_whitespace().collect::<Vec<_>>().join(" ");
    math.set_attr("alttext", alt);
    for c in children {
        math.push(c);
    }
    Ok(math)
}
