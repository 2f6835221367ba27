//! Footnotes and endnotes, in pass 2. In go a chapter's notes and the references to them in
//! reading order; out come the notes' numbers, with a warning for a reference to a note never
//! defined (shown as its author wrote it) and for a note nobody refers to (printed last).
use std::path::Path;

use super::Linker;
use crate::book::Format;
use crate::codes;
use crate::doc::Footnote;
use crate::error::{Finding, Location};

impl Linker<'_, '_> {
    /// Notes are numbered in order of first reference; references to undefined notes are
    /// reported; notes never referred to are printed after the others, with a warning.
    pub(super) fn number_notes(
        &mut self,
        defined: &[Footnote],
        refs: Vec<(String, Location)>,
        format: Format,
        shown: &Path,
        end: bool,
    ) -> Vec<(String, u32)> {
        let syntax = |label: &str| note_syntax(format, label, end);
        let kind = if end { "endnote" } else { "footnote" };
        let mut numbers: Vec<(String, u32)> = Vec::new();
        for (label, loc) in refs {
            if !defined.iter().any(|f| f.label == label) {
                let hint = match format {
                    Format::Review => format!("add `//{kind}[{label}][…]` with the note's text"),
                    _ => format!("add a line `[^{label}]: …` with the note's text"),
                };
                self.warnings.push(
                    Finding::warning(
                        codes::UNDEFINED_NOTE,
                        loc,
                        format!(
                            "the {kind} `{}` is never defined; it is shown as written",
                            syntax(&label)
                        ),
                    )
                    .with_hint(hint),
                );
            } else if !numbers.iter().any(|(l, _)| *l == label) {
                let n = numbers.len() as u32 + 1;
                numbers.push((label, n));
            }
        }
        // A note nobody refers to is still printed, after the others: text is never dropped.
        for f in defined {
            if !numbers.iter().any(|(l, _)| *l == f.label) {
                self.warnings.push(Finding::warning(
                    codes::UNUSED_NOTE,
                    Location::new(shown, f.pos.line, f.pos.col),
                    format!(
                        "the {kind} `{}` is never referred to; it is printed after the others",
                        f.label
                    ),
                ));
                let n = numbers.len() as u32 + 1;
                numbers.push((f.label.clone(), n));
            }
        }
        numbers
    }
}

/// A note reference as its author wrote it (`[^1]`, `@<fn>{x}`): what is shown for one whose
/// note is never defined.
pub(super) fn note_syntax(format: Format, label: &str, end: bool) -> String {
    match (format, end) {
        (Format::Review, false) => format!("@<fn>{{{label}}}"),
        (Format::Review, true) => format!("@<endnote>{{{label}}}"),
        _ => format!("[^{label}]"),
    }
}
