//! Walks over a document's blocks and inlines, for the passes that change them in place.
use crate::doc::*;

/// Visits every block, depth first, including those nested in lists, quotes and footnotes.
pub fn visit_blocks_mut(blocks: &mut [Block], f: &mut dyn FnMut(&mut Block)) {
    for b in blocks {
        f(b);
        match &mut b.kind {
            BlockKind::List(l) => l.items.iter_mut().for_each(|i| visit_blocks_mut(i, f)),
            BlockKind::DefinitionList(items) => items
                .iter_mut()
                .flat_map(|i| i.definitions.iter_mut())
                .for_each(|d| visit_blocks_mut(d, f)),
            BlockKind::Quote { blocks, .. }
            | BlockKind::Admonition { blocks, .. }
            | BlockKind::Sidebar { blocks, .. }
            | BlockKind::Div { blocks, .. }
            | BlockKind::Wrapped { blocks, .. } => visit_blocks_mut(blocks, f),
            BlockKind::BibItem(item) => visit_blocks_mut(&mut item.blocks, f),
            BlockKind::Table(t) => t
                .head
                .iter_mut()
                .chain(t.body.iter_mut())
                .flat_map(|r| r.cells.iter_mut())
                .for_each(|c| visit_blocks_mut(&mut c.blocks, f)),
            _ => {}
        }
    }
}

pub fn visit_inlines_mut(inlines: &mut [Inline], f: &mut dyn FnMut(&mut Inline)) {
    for i in inlines {
        f(i);
        if let Some(children) = i.kind.children_mut() {
            visit_inlines_mut(children, f);
        }
    }
}

/// Visits every inline of a document: in blocks, captions, table cells and footnotes.
pub fn visit_all_inlines_mut(doc: &mut Document, f: &mut dyn FnMut(&mut Inline)) {
    let mut each_block = |b: &mut Block| visit_own_inlines_mut(b, f);
    visit_blocks_mut(&mut doc.blocks, &mut each_block);
    for note in doc.footnotes.iter_mut().chain(doc.endnotes.iter_mut()) {
        visit_blocks_mut(&mut note.blocks, &mut each_block);
    }
}

/// Visits the inlines of one block itself (its text, caption, cells), not those of the blocks
/// nested in it: with [`visit_blocks_mut`], for a pass that needs to know which block an
/// inline is in.
pub fn visit_own_inlines_mut(b: &mut Block, f: &mut dyn FnMut(&mut Inline)) {
    // Exhaustive on purpose: a new block kind with inline content must be added here.
    match &mut b.kind {
        BlockKind::Heading(h) => visit_inlines_mut(&mut h.content, f),
        BlockKind::Para(c) | BlockKind::StyledPara { content: c, .. } => visit_inlines_mut(c, f),
        BlockKind::DefinitionList(items) => items
            .iter_mut()
            .for_each(|i| visit_inlines_mut(&mut i.term, f)),
        BlockKind::Code(code) => {
            for c in code.caption.iter_mut().chain(code.markup.iter_mut()) {
                visit_inlines_mut(c, f);
            }
        }
        BlockKind::Figure(figure) => {
            if let Some(c) = &mut figure.caption {
                visit_inlines_mut(c, f);
            }
        }
        BlockKind::Math(math) => {
            if let Some(c) = &mut math.caption {
                visit_inlines_mut(c, f);
            }
        }
        BlockKind::Quote { attribution: c, .. } | BlockKind::Sidebar { title: c, .. } => {
            if let Some(c) = c {
                visit_inlines_mut(c, f);
            }
        }
        BlockKind::Admonition { title, .. } => {
            if let Some(c) = title.inlines_mut() {
                visit_inlines_mut(c, f);
            }
        }
        BlockKind::BibItem(item) => visit_inlines_mut(&mut item.caption, f),
        BlockKind::Table(t) => {
            if let Some(c) = &mut t.caption {
                visit_inlines_mut(c, f);
            }
            for row in t.head.iter_mut().chain(t.body.iter_mut()) {
                row.cells
                    .iter_mut()
                    .for_each(|cell| visit_inlines_mut(&mut cell.content, f));
            }
        }
        BlockKind::List(_)
        | BlockKind::Div { .. }
        | BlockKind::Wrapped { .. }
        | BlockKind::Rule
        | BlockKind::PageBreak
        | BlockKind::PrintPage(_)
        | BlockKind::Anchor(_)
        | BlockKind::Endnotes
        | BlockKind::Index
        | BlockKind::Raw(_) => {}
    }
}
