//! Tables: CALS (`tgroup`, `colspec`, `spanspec`, `row`, `entry` with `morerows`,
//! `namest`/`nameend`, `spanname`) and HTML (`tr`, `td`, `th` with `colspan`/`rowspan`), also
//! mixed; segmented lists and revision histories, which are tables too.
use std::collections::HashMap;

use super::blocks::{anchor_inline, flatten_blocks, trim_inlines};
use super::*;

/// Column names of one `tgroup`.
#[derive(Default)]
struct Cols {
    names: HashMap<String, usize>,
    spans: HashMap<String, (String, String)>,
    align: HashMap<usize, Align>,
}

/// Cells still covered by a cell with `morerows`/`rowspan` from a row above: rows left per
/// column.
#[derive(Default)]
struct Grid {
    covered: Vec<u32>,
}

impl Grid {
    fn is_covered(&self, col: usize) -> bool {
        self.covered.get(col).is_some_and(|&n| n > 0)
    }

    fn cover(&mut self, col: usize, span: usize, rows: u32) {
        if self.covered.len() < col + span {
            self.covered.resize(col + span, 0);
        }
        for c in &mut self.covered[col..col + span] {
            *c = (*c).max(rows);
        }
    }

    fn next_row(&mut self) {
        for c in &mut self.covered {
            *c = c.saturating_sub(1);
        }
    }
}

fn parse_align(s: Option<&str>) -> Option<Align> {
    match s?.trim().to_ascii_lowercase().as_str() {
        "left" | "justify" => Some(Align::Left),
        "center" => Some(Align::Center),
        "right" => Some(Align::Right),
        _ => None,
    }
}

impl Conv<'_> {
    pub(super) fn table(&mut self, el: &Element, out: &mut Vec<Block>) {
        let mut caption = title_el(el).map(|t| self.inlines(t));
        if caption.is_none()
            && let Some(c) = el.child("caption")
        {
            let mut i = Vec::new();
            self.inline_children_with_id(c, &mut i);
            trim_inlines(&mut i);
            caption = Some(i);
        }
        let caption = caption.filter(|c| !c.is_empty());
        // A formal table is numbered (the resolver numbers tables that have an id); an
        // informal one keeps its id as an anchor.
        let id = if caption.is_some() && el.local_name() == "table" {
            Some(match el.id() {
                Some(id) => id.to_string(),
                None => {
                    self.table_count += 1;
                    format!("dbtable-{}", self.table_count)
                }
            })
        } else {
            self.anchor_block(el, out);
            None
        };
        let mut head = Vec::new();
        let mut body = Vec::new();
        let groups: Vec<&Element> = el
            .child_elements()
            .filter(|e| e.local_name() == "tgroup")
            .collect();
        if groups.is_empty() {
            self.rows_of(el, &Cols::default(), false, &mut head, &mut body);
        } else {
            for g in groups {
                let cols = self.cols(g);
                self.rows_of(g, &cols, false, &mut head, &mut body);
            }
            // HTML rows mixed into a CALS table directly.
            self.rows_of_direct(el, &mut head, &mut body);
        }
        if let Some(m) = el.child("mediaobject").or_else(|| el.child("graphic")) {
            // A table given as an image.
            let (image, fallback) = self.pick_image(m);
            out.push(Block::new(
                BlockKind::Figure(Box::new(Figure {
                    numbered: id.is_some(),
                    as_table: true,
                    class: None,
                    fallback,
                    id: id.clone(),
                    number: None,
                    caption: caption.clone(),
                    image,
                })),
                pos_of(el),
            ));
            if head.is_empty() && body.is_empty() {
                return;
            }
        }
        out.push(Block::new(
            BlockKind::Table(Box::new(Table {
                id,
                number: None,
                caption,
                head,
                body,
            })),
            pos_of(el),
        ));
    }

    fn cols(&mut self, g: &Element) -> Cols {
        let mut cols = Cols::default();
        let mut next = 0usize;
        for c in g.child_elements() {
            match c.local_name() {
                "colspec" => {
                    let n = c
                        .attr("colnum")
                        .and_then(|s| s.trim().parse::<usize>().ok())
                        .filter(|&n| n >= 1)
                        .map(|n| n - 1)
                        .unwrap_or(next);
                    if let Some(name) = c.attr("colname") {
                        cols.names.insert(name.trim().to_string(), n);
                    }
                    if let Some(a) = parse_align(c.attr("align")) {
                        cols.align.insert(n, a);
                    }
                    next = n + 1;
                }
                "spanspec" => {
                    if let (Some(name), Some(s), Some(e)) =
                        (c.attr("spanname"), c.attr("namest"), c.attr("nameend"))
                    {
                        cols.spans
                            .insert(name.trim().into(), (s.trim().into(), e.trim().into()));
                    }
                }
                _ => {}
            }
        }
        cols
    }

    /// Rows of `thead`/`tbody`/`tfoot`/`row`/`tr` under `el` (a `tgroup` or an HTML table).
    fn rows_of(
        &mut self,
        el: &Element,
        cols: &Cols,
        in_head: bool,
        head: &mut Vec<Row>,
        body: &mut Vec<Row>,
    ) {
        let mut grid = Grid::default();
        for c in el.child_elements() {
            match c.local_name() {
                "thead" | "tbody" | "tfoot" => {
                    let is_head = c.local_name() == "thead";
                    let mut g = Grid::default();
                    let mut rows = Vec::new();
                    for r in c
                        .child_elements()
                        .filter(|r| r.local_name() == "row" || r.local_name() == "tr")
                    {
                        rows.push(self.row(r, cols, &mut g, is_head));
                    }
                    // Cells written straight into the group, without a row (real books do
                    // this): the group is one row, so no cell is lost.
                    if c.child_elements()
                        .any(|e| matches!(e.local_name(), "entry" | "td" | "th"))
                    {
                        rows.push(self.row(c, cols, &mut g, is_head));
                    }
                    if is_head {
                        head.extend(rows)
                    } else {
                        body.extend(rows)
                    }
                }
                "row" | "tr" => {
                    let row = self.row(c, cols, &mut grid, in_head);
                    if in_head {
                        head.push(row);
                    } else {
                        body.push(row);
                    }
                }
                _ => {}
            }
        }
    }

    fn rows_of_direct(&mut self, el: &Element, head: &mut Vec<Row>, body: &mut Vec<Row>) {
        let mut grid = Grid::default();
        for c in el
            .child_elements()
            .filter(|c| c.local_name() == "tr" || c.local_name() == "row")
        {
            let row = self.row(c, &Cols::default(), &mut grid, false);
            body.push(row);
        }
        let _ = head;
    }

    fn row(&mut self, r: &Element, cols: &Cols, grid: &mut Grid, in_head: bool) -> Row {
        let mut cells = Vec::new();
        let mut col = 0usize;
        let mut row_anchor = r.id().map(|id| anchor_inline(id, pos_of(r)));
        for e in r.child_elements() {
            if !matches!(e.local_name(), "entry" | "td" | "th" | "entrytbl") {
                continue;
            }
            while grid.is_covered(col) {
                col += 1;
            }
            // CALS placement by column name.
            let (start, end) =
                if let Some(span) = e.attr("spanname").and_then(|s| cols.spans.get(s.trim())) {
                    (
                        cols.names.get(&span.0).copied(),
                        cols.names.get(&span.1).copied(),
                    )
                } else {
                    (
                        e.attr("namest")
                            .or_else(|| e.attr("colname"))
                            .and_then(|n| cols.names.get(n.trim()).copied()),
                        e.attr("nameend")
                            .and_then(|n| cols.names.get(n.trim()).copied()),
                    )
                };
            if let Some(s) = start
                && s > col
            {
                // Columns skipped by name are empty cells.
                while col < s {
                    if !grid.is_covered(col) {
                        cells.push(empty_cell(pos_of(e)));
                    }
                    col += 1;
                }
            }
            let colspan = match (start, end) {
                (Some(s), Some(e)) if e >= s => (e - s + 1) as u32,
                _ => e
                    .attr("colspan")
                    .and_then(|s| s.trim().parse().ok())
                    .filter(|&n| n >= 1)
                    .unwrap_or(1),
            };
            let rowspan = match e.attr("morerows") {
                Some(m) => m.trim().parse::<u32>().unwrap_or(0) + 1,
                None => e
                    .attr("rowspan")
                    .and_then(|s| s.trim().parse().ok())
                    .filter(|&n| n >= 1)
                    .unwrap_or(1),
            };
            let align = parse_align(e.attr("align"))
                .or_else(|| cols.align.get(&col).copied())
                .unwrap_or_default();
            let (mut content, mut blocks) = self.cell_content(e);
            if let Some(a) = row_anchor.take() {
                if blocks.is_empty() {
                    content.insert(0, a);
                } else {
                    blocks.insert(0, Block::new(BlockKind::Para(vec![a]), pos_of(e)));
                }
            }
            cells.push(Cell {
                content,
                blocks,
                header: e.local_name() == "th" && !in_head,
                align,
                colspan,
                rowspan,
            });
            if rowspan > 1 {
                grid.cover(col, colspan as usize, rowspan);
            }
            col += colspan as usize;
        }
        if let Some(a) = row_anchor {
            cells.push(Cell {
                content: vec![a],
                ..empty_cell(pos_of(r))
            });
        }
        grid.next_row();
        Row { cells }
    }

    /// A cell's content as inlines: paragraphs and other blocks joined by line breaks; or, when
    /// it holds a listing (whose lines a line of text would run together), as its blocks.
    fn cell_content(&mut self, e: &Element) -> (Inlines, Vec<Block>) {
        let mut prefix = Vec::new();
        if let Some(id) = e.id() {
            prefix.push(anchor_inline(id, pos_of(e)));
        }
        if e.local_name() == "entrytbl" {
            let cols = self.cols(e);
            let (mut head, mut body) = (Vec::new(), Vec::new());
            self.rows_of(e, &cols, false, &mut head, &mut body);
            let t = Block::new(
                BlockKind::Table(Box::new(Table {
                    id: None,
                    number: None,
                    caption: None,
                    head,
                    body,
                })),
                pos_of(e),
            );
            prefix.extend(flatten_blocks(vec![t]));
            return (prefix, Vec::new());
        }
        let mut blocks = Vec::new();
        self.blocks_into(e, 6, &mut blocks);
        if blocks.iter().any(|b| matches!(b.kind, BlockKind::Code(_))) {
            if let Some(id) = e.id() {
                blocks.insert(0, Block::new(BlockKind::Anchor(id.to_string()), pos_of(e)));
            }
            return (Vec::new(), blocks);
        }
        let mut flat = flatten_blocks(blocks);
        trim_inlines(&mut flat);
        prefix.extend(flat);
        (prefix, Vec::new())
    }

    pub(super) fn segmentedlist(&mut self, el: &Element, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        let caption = el.child("title").map(|t| self.inlines(t));
        let head_cells: Vec<Cell> = el
            .child_elements()
            .filter(|e| e.local_name() == "segtitle")
            .map(|t| Cell {
                content: self.inlines(t),
                ..empty_cell(pos_of(t))
            })
            .collect();
        let mut body = Vec::new();
        for item in el
            .child_elements()
            .filter(|e| e.local_name() == "seglistitem")
        {
            let cells = item
                .child_elements()
                .filter(|e| e.local_name() == "seg")
                .map(|s| Cell {
                    content: self.inlines(s),
                    ..empty_cell(pos_of(s))
                })
                .collect();
            body.push(Row { cells });
        }
        let head = if head_cells.is_empty() {
            Vec::new()
        } else {
            vec![Row { cells: head_cells }]
        };
        out.push(Block::new(
            BlockKind::Table(Box::new(Table {
                id: None,
                number: None,
                caption,
                head,
                body,
            })),
            pos_of(el),
        ));
    }

    /// DocBook XSL's `RevHistory` and `Revision` words in the book's language (English
    /// elsewhere).
    pub(super) fn revhistory_words(&self) -> (&'static str, &'static str) {
        match self.lang.as_deref() {
            Some(l) if l.starts_with("ja") => ("改訂履歴", "改訂 "),
            _ => ("Revision History", "Revision "),
        }
    }

    /// A revision history as DocBook XSL's table: a row per revision (`Revision N`, date,
    /// author's initials, remark), a `revdescription` keeping its blocks (lists, paragraphs);
    /// the caption is its title, else the generated `Revision History` (`captioned`: not when
    /// it is a page whose heading says so).
    pub(super) fn revhistory(&mut self, el: &Element, captioned: bool, out: &mut Vec<Block>) {
        self.anchor_block(el, out);
        let (history, revision) = self.revhistory_words();
        let mut body = Vec::new();
        for rev in el.child_elements().filter(|e| e.local_name() == "revision") {
            let mut cells = Vec::new();
            for names in [
                &["revnumber"][..],
                &["date"],
                &["authorinitials", "author"],
                &["revremark", "revdescription"],
            ] {
                let mut cell = empty_cell(pos_of(rev));
                match rev
                    .child_elements()
                    .find(|e| names.contains(&e.local_name()))
                {
                    Some(c) if c.local_name() == "revdescription" => {
                        self.blocks_into(c, 6, &mut cell.blocks);
                    }
                    Some(c) => {
                        let mut text = squash(&c.text());
                        if c.local_name() == "revnumber" && !text.is_empty() {
                            text.insert_str(0, revision);
                        }
                        cell.content = vec![Inline::text(text, pos_of(c))];
                        trim_inlines(&mut cell.content);
                    }
                    None => {}
                }
                cells.push(cell);
            }
            body.push(Row { cells });
        }
        let caption = match el.child("title") {
            Some(t) if captioned => Some(self.inlines(t)),
            None if captioned => Some(vec![Inline::text(history, pos_of(el))]),
            _ => None,
        };
        out.push(Block::new(
            BlockKind::Table(Box::new(Table {
                id: None,
                number: None,
                caption,
                head: Vec::new(),
                body,
            })),
            pos_of(el),
        ));
    }
}

fn empty_cell(_pos: Pos) -> Cell {
    Cell {
        content: Vec::new(),
        blocks: Vec::new(),
        header: false,
        align: Align::Default,
        colspan: 1,
        rowspan: 1,
    }
}
