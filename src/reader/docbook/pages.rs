//! Print page-break markers: `<beginpage pagenum="N"/>` (DocBook 4), `<anchor role="pagebreak"
//! xreflabel="N"/>` (DocBook 5) and the `<?page N?>` instruction (which the XML layer turns
//! into a `beginpage`), as [`InlineKind::PrintPage`]s.
use super::{ChapterDoc, Conv, DocBookChapter, DocBookElement};
use crate::codes;
use crate::doc::{Block, Inline, InlineKind, Inlines, PrintPage};
use crate::dom::Element;

use super::xml::pos_of;

/// An `anchor` that marks a print page break rather than a link target.
pub(super) fn is_page_anchor(el: &Element) -> bool {
    el.attr("role")
        .is_some_and(|r| r.split_whitespace().any(|t| t == "pagebreak"))
}

/// A page-break marker element (`beginpage`, or its `anchor`).
pub(super) fn is_page_marker(el: &Element) -> bool {
    match el.local_name() {
        "beginpage" => true,
        "anchor" => is_page_anchor(el),
        _ => false,
    }
}

impl Conv<'_> {
    /// The chapter with the page breaks written before it (between chapters) at its start.
    pub(super) fn starting_with(
        &mut self,
        pages: &mut Vec<Block>,
        mut chapter: DocBookChapter<ChapterDoc>,
    ) -> DocBookChapter<ChapterDoc> {
        if !pages.is_empty() {
            self.edit_document(&mut chapter, |doc| {
                doc.blocks.splice(0..0, pages.drain(..));
            });
        }
        chapter
    }

    /// A page-break marker with the page number `written`; with none, the page after the last
    /// one (the first page of the book is 1). The author's id, if any, stays its id.
    pub(super) fn print_page(&mut self, el: &Element, written: Option<&str>, out: &mut Inlines) {
        let label = match written.map(str::trim).filter(|l| !l.is_empty()) {
            Some(l) => l.to_string(),
            None => match self.last_page.as_deref().map(str::parse::<u64>) {
                None => "1".to_string(),
                Some(Ok(n)) => (n + 1).to_string(),
                Some(Err(_)) => {
                    let last = self.last_page.clone().unwrap_or_default();
                    self.warn(
                        codes::PAGE_NUMBER,
                        el,
                        format!(
                            "this `<{}>` gives no page number, and the page before (`{last}`) is not a number to count on from: it is left out of the page list",
                            el.local_name()
                        ),
                    );
                    return;
                }
            },
        };
        self.last_page = Some(label.clone());
        let id = el.id().map(str::to_string);
        out.push(Inline::new(
            InlineKind::PrintPage(PrintPage { label, id }),
            pos_of(el),
        ));
    }
}
