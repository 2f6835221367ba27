//! `//table` bodies: TAB-separated cells, a `------------` line between header and body rows.
use super::{Parser, Src};
use crate::codes;
use crate::doc::*;

/// A header/body separator: 12 or more `-` or `=` at the start of the line.
fn is_separator(line: &str) -> bool {
    line.chars()
        .take(12)
        .filter(|c| matches!(c, '-' | '='))
        .count()
        == 12
}

/// The cells of one row: split on runs of tabs, trailing empty cells dropped.
fn cells(line: &str, ln: u32) -> Vec<Src> {
    let src = Src::new(line, Pos::new(ln, 1)).trim();
    let mut out = Vec::new();
    let mut start = 0;
    let c = &src.chars;
    let mut k = 0;
    while k <= c.len() {
        if k == c.len() || c[k] == '\t' {
            out.push(src.slice(start, k));
            while k < c.len() && c[k] == '\t' {
                k += 1;
            }
            start = k;
            if k == c.len() {
                break;
            }
            continue;
        }
        k += 1;
    }
    while out.last().is_some_and(|s| s.is_empty()) {
        out.pop();
    }
    out
}

impl Parser<'_> {
    pub(super) fn table(
        &mut self,
        id: Option<String>,
        caption: Option<Inlines>,
        lines: &[(u32, &str)],
        at: Pos,
    ) -> Option<BlockKind> {
        let mut rows: Vec<Vec<Src>> = Vec::new();
        let mut head_count: Option<usize> = None;
        for &(ln, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            if is_separator(line.trim_start()) {
                if head_count.is_none() {
                    head_count = Some(rows.len());
                }
                continue;
            }
            rows.push(cells(line, ln));
        }
        if rows.is_empty() {
            self.error_hint(
                codes::REVIEW_SYNTAX,
                at,
                "no rows in the table",
                "write one row per line, cells separated by tabs",
            );
            return None;
        }
        let width = rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut head = Vec::new();
        let mut body = Vec::new();
        for (r, row) in rows.into_iter().enumerate() {
            let in_head = head_count.is_some_and(|h| r < h);
            let mut out = Row::default();
            for (k, cell) in row.iter().enumerate() {
                let cell = if cell.chars.first() == Some(&'.') {
                    cell.slice(1, cell.len())
                } else {
                    cell.clone()
                };
                out.cells.push(Cell {
                    content: self.inlines(&cell),
                    blocks: Vec::new(),
                    header: head_count.is_none() && k == 0,
                    align: Align::Default,
                    colspan: 1,
                    rowspan: 1,
                });
            }
            while out.cells.len() < width {
                out.cells.push(Cell {
                    content: Vec::new(),
                    blocks: Vec::new(),
                    header: head_count.is_none() && out.cells.is_empty(),
                    align: Align::Default,
                    colspan: 1,
                    rowspan: 1,
                });
            }
            if in_head {
                head.push(out);
            } else {
                body.push(out);
            }
        }
        Some(BlockKind::Table(Box::new(Table {
            id,
            number: None,
            caption,
            head,
            body,
        })))
    }
}
