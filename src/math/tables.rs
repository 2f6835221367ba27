//! The environments with rows and columns (`array`, `matrix` and its fenced kin, `cases`,
//! `aligned`…) and `\substack`'s rows: cells split by `&` and `\\`, as an `mtable`.
use super::lexer::Tok;
use super::parser::{Parser, Result, Stop, err, mo, row};
use super::{ErrorKind, MathError};
use crate::dom::Element;

impl Parser<'_> {
    /// An error for the token where a table's end was expected.
    pub(super) fn misplaced(&self) -> MathError {
        let at = self.offset();
        match self.peek() {
            Some(Tok::Close) => err(at, ErrorKind::UnmatchedClose),
            _ => err(
                at,
                ErrorKind::Unsupported(format!("`{}` here", self.written())),
            ),
        }
    }

    /// `\begin{name}` read: the environment to its `\end{name}`.
    pub(super) fn environment(&mut self, at: usize) -> Result<Element> {
        let (name, _) = self.raw_group("begin")?;
        let name = name.trim().to_string();
        let (columns, lines) = if name == "array" {
            let (spec, start) = self.raw_group("begin{array}")?;
            column_spec(spec, start)?
        } else {
            (Vec::new(), Vec::new())
        };
        let el = match name.as_str() {
            "matrix" | "smallmatrix" | "pmatrix" | "bmatrix" | "Bmatrix" | "vmatrix"
            | "Vmatrix" | "array" | "cases" | "dcases" | "aligned" | "align" | "align*"
            | "split" | "eqnarray" | "eqnarray*" | "gathered" | "gather" | "gather*"
            | "multline" | "multline*" => {
                let rows = self.rows()?;
                self.end_of(&name, at)?;
                let cols = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
                let aligned = matches!(
                    name.as_str(),
                    "aligned" | "align" | "align*" | "split" | "eqnarray" | "eqnarray*"
                );
                let align: Vec<&str> = if name == "array" {
                    columns
                } else if aligned {
                    (0..cols)
                        .map(|i| if i % 2 == 0 { "right" } else { "left" })
                        .collect()
                } else if name.ends_with("cases") {
                    vec!["left"; cols]
                } else {
                    Vec::new()
                };
                let mut t = table(rows, &align, (!lines.is_empty()).then_some(&lines[..]));
                if aligned {
                    // The columns of `a &= b` meet at the `=`; pairs are spaced apart.
                    let spacing: Vec<&str> = (1..cols)
                        .map(|i| if i % 2 == 1 { "0em" } else { "2em" })
                        .collect();
                    if !spacing.is_empty() {
                        t.set_attr("columnspacing", spacing.join(" "));
                    }
                }
                if aligned || name.starts_with("gather") || name.starts_with("multline") {
                    t.set_attr("displaystyle", "true");
                }
                if name == "dcases" {
                    t.set_attr("displaystyle", "true");
                }
                let fences = match name.as_str() {
                    "pmatrix" => Some(("(", ")")),
                    "bmatrix" => Some(("[", "]")),
                    "Bmatrix" => Some(("{", "}")),
                    "vmatrix" => Some(("|", "|")),
                    "Vmatrix" => Some(("‖", "‖")),
                    "cases" | "dcases" => Some(("{", "")),
                    _ => None,
                };
                match fences {
                    Some((open, close)) => {
                        let mut r = Element::new("mrow").with_child(mo(open)).with_child(t);
                        if !close.is_empty() {
                            r.push(mo(close));
                        }
                        r
                    }
                    None => t,
                }
            }
            "equation" | "equation*" => {
                let items = self.sequence(Stop::Cell)?;
                self.end_of(&name, at)?;
                row(items)
            }
            _ => return Err(err(at, ErrorKind::UnknownEnvironment(name))),
        };
        Ok(el)
    }

    /// `\end{name}`, where an environment's rows end.
    fn end_of(&mut self, name: &str, at: usize) -> Result<()> {
        match self.peek_command() {
            Some("end") => {
                self.i += 1;
                let (found, _) = self.raw_group("end")?;
                let found = found.trim();
                if found != name {
                    return Err(err(
                        at,
                        ErrorKind::WrongEnd {
                            open: name.to_string(),
                            found: found.to_string(),
                        },
                    ));
                }
                Ok(())
            }
            None if self.peek().is_none() => {
                Err(err(at, ErrorKind::UnclosedEnvironment(name.to_string())))
            }
            _ => Err(self.misplaced()),
        }
    }

    /// Rows of cells split by `&` and `\\`, with the `\hline`s between them, up to what ends
    /// the table (not consumed).
    pub(super) fn rows(&mut self) -> Result<Vec<Row>> {
        let mut rows = Vec::new();
        loop {
            let mut rule_above = false;
            while self.peek_command() == Some("hline") {
                self.i += 1;
                rule_above = true;
            }
            let mut cells = vec![self.sequence(Stop::Cell)?];
            while matches!(self.peek(), Some(Tok::Amp)) {
                self.i += 1;
                cells.push(self.sequence(Stop::Cell)?);
            }
            rows.push(Row { rule_above, cells });
            if self.peek_command() != Some("\\") {
                break;
            }
            self.i += 1;
            // `\\[4pt]`: extra space under the row, which MathML leaves to the renderer.
            if matches!(self.peek(), Some(Tok::Char('['))) {
                while let Some(t) = self.peek() {
                    let end = *t == Tok::Char(']');
                    self.i += 1;
                    if end {
                        break;
                    }
                }
            }
        }
        // `\\` after the last row starts no row.
        // (A rule under the last row is at the outer edge, left out.)
        if rows.len() > 1
            && rows
                .last()
                .is_some_and(|r| r.cells.len() == 1 && r.cells[0].is_empty())
        {
            rows.pop();
        }
        Ok(rows)
    }
}

/// A row of a table: its cells' elements, and whether `\hline` drew a rule above it.
pub(super) struct Row {
    rule_above: bool,
    cells: Vec<Vec<Element>>,
}

/// An `mtable` of `rows`; `align` and `lines` (between columns) as the column specification
/// says. Rules between rows come from `\hline`; one at the table's outer edge is left out,
/// since MathML frames a table on all four sides or none.
pub(super) fn table(rows: Vec<Row>, align: &[&str], lines: Option<&[&str]>) -> Element {
    let mut t = Element::new("mtable");
    if !align.is_empty() {
        t.set_attr("columnalign", align.join(" "));
    }
    if let Some(lines) = lines {
        t.set_attr("columnlines", lines.join(" "));
    }
    let rules: Vec<&str> = rows
        .iter()
        .skip(1)
        .map(|r| if r.rule_above { "solid" } else { "none" })
        .collect();
    if rules.contains(&"solid") {
        t.set_attr("rowlines", rules.join(" "));
    }
    for r in rows {
        let mut tr = Element::new("mtr");
        for cell in r.cells {
            let mut td = Element::new("mtd");
            cell.into_iter().for_each(|e| td.push(e));
            tr.push(td);
        }
        t.push(tr);
    }
    t
}

/// An `array`'s column specification (`{c|cl}`) → the columns' alignments and the rules between
/// them (a rule at the outer edge is left out, as for `\hline`).
fn column_spec(spec: &str, start: usize) -> Result<(Vec<&'static str>, Vec<&'static str>)> {
    let mut align = Vec::new();
    let mut rule_before = Vec::new();
    let mut pending_rule = false;
    for (i, c) in spec.char_indices() {
        match c {
            'l' | 'c' | 'r' => {
                align.push(match c {
                    'l' => "left",
                    'c' => "center",
                    _ => "right",
                });
                rule_before.push(pending_rule);
                pending_rule = false;
            }
            '|' => pending_rule = true,
            c if c.is_whitespace() => {}
            _ => {
                return Err(err(
                    start + i,
                    ErrorKind::Unsupported(format!("the column specification `{spec}`")),
                ));
            }
        }
    }
    let lines: Vec<&str> = rule_before
        .iter()
        .skip(1)
        .map(|&r| if r { "solid" } else { "none" })
        .collect();
    let lines = if lines.contains(&"solid") {
        lines
    } else {
        Vec::new()
    };
    Ok((align, lines))
}
