//! Manuscript positions of a serialized page's elements, kept beside its text: what lets a
//! finding about the page (a check's, epubcheck's, a check program's) name the source line,
//! while the text itself is exactly the XHTML that ships.
use std::sync::Arc;

use super::{Element, Pos, Src};

/// The marked elements of one serialized page: where each start tag is in the page's text, and
/// where it came from, in the order of the page. Kept for every page until the book is packed,
/// so a mark is 20 bytes (its manuscript named by number), not a position and a [`Src`] (32).
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Default, PartialEq)]
pub struct PageSources {
    /// The manuscripts the page's elements came from, each once.
    files: Vec<Arc<str>>,
    marks: Vec<Mark>,
}

/// A start tag's place in the page and in its manuscript (`file` indexes `PageSources::files`).
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq)]
struct Mark {
    at: Pos,
    file: u32,
    line: u32,
    col: u32,
}

impl PageSources {
    /// From the byte offsets of marked start tags in `text`, in increasing order.
    pub(super) fn from_offsets(text: &str, offsets: Vec<(usize, Src)>) -> Self {
        let index = crate::lines::LineIndex::new(text);
        let mut files: Vec<Arc<str>> = Vec::new();
        let mut marks = Vec::with_capacity(offsets.len());
        for (at, src) in offsets {
            let (line, col) = index.line_col(text, at);
            // A page's marks come from one manuscript or a few, mostly in runs.
            let file = match files.iter().rposition(|f| *f == src.file) {
                Some(i) => i,
                None => {
                    files.push(src.file);
                    files.len() - 1
                }
            };
            marks.push(Mark {
                at: Pos { line, col },
                file: file as u32,
                line: src.line,
                col: src.col,
            });
        }
        PageSources { files, marks }
    }

    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    fn src(&self, mark: &Mark) -> Src {
        Src {
            file: self.files[mark.file as usize].clone(),
            line: mark.line,
            col: mark.col,
        }
    }

    /// Gives the elements of the page, parsed again from its text, their manuscript positions:
    /// an element is known by where its start tag is.
    pub fn apply(&self, root: &mut Element) {
        if self.marks.is_empty() {
            return;
        }
        root.walk_mut(&mut |e| {
            if let Some(at) = e.pos
                && let Ok(i) = self.marks.binary_search_by(|m| m.at.cmp(&at))
            {
                e.src = Some(self.src(&self.marks[i]));
            }
        });
    }

    /// The manuscript position of line `line` (1-based) of the page: that of the last marked
    /// element starting on or before it.
    pub fn line(&self, line: u32) -> Option<Src> {
        let n = self.marks.partition_point(|m| m.at.line <= line);
        n.checked_sub(1).map(|i| self.src(&self.marks[i]))
    }
}

/// A test page written with its source positions in the text (`data-seihon-src="file:line:col"`
/// on an element), as the project's own fixtures are: its text without them (otherwise
/// unchanged, so lines and columns stay those of the fixture) and its positions.
#[cfg(test)]
pub(crate) fn from_marked(marked: &str) -> (String, PageSources) {
    const MARK: &str = " data-seihon-src=\"";
    let mut text = String::with_capacity(marked.len());
    let mut offsets = Vec::new();
    let mut rest = marked;
    while let Some(i) = rest.find(MARK) {
        let tag = rest[..i].rfind('<').expect("a mark inside a start tag");
        let after = &rest[i + MARK.len()..];
        let end = after.find('"').expect("a closed mark");
        let mut parts = after[..end].rsplitn(3, ':');
        let (col, line, file) = (parts.next(), parts.next(), parts.next());
        let src = Src {
            file: file.expect("file:line:col").into(),
            line: line.and_then(|l| l.parse().ok()).expect("a line number"),
            col: col.and_then(|c| c.parse().ok()).expect("a column"),
        };
        offsets.push((text.len() + tag, src));
        text.push_str(&rest[..i]);
        rest = &after[end + 1..];
    }
    text.push_str(rest);
    let sources = PageSources::from_offsets(&text, offsets);
    (text, sources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{parse_document, serialize_document_with_sources};

    #[test]
    fn positions_follow_the_serialized_text_and_map_lines() {
        let (text, sources) = from_marked(
            "<html>\n<body>\n<p data-seihon-src=\"ch01.md:3:1\">a\nb</p>\n<p>c</p>\n<h2 id=\"x\" data-seihon-src=\"ch01.md:9:1\">d <em data-seihon-src=\"ch01.md:9:4\">e</em></h2>\n</body></html>\n",
        );
        assert_eq!(
            text,
            "<html>\n<body>\n<p>a\nb</p>\n<p>c</p>\n<h2 id=\"x\">d <em>e</em></h2>\n</body></html>\n"
        );
        let at = |line| sources.line(line).map(|s| s.to_string());
        assert_eq!(at(1), None);
        assert_eq!(at(3).as_deref(), Some("ch01.md:3:1"));
        assert_eq!(at(5).as_deref(), Some("ch01.md:3:1"));
        assert_eq!(at(6).as_deref(), Some("ch01.md:9:4"));
        // Parsed again, the elements take their positions back; the text never had them.
        let mut doc = parse_document(&text).unwrap();
        sources.apply(&mut doc.root);
        let mut found = Vec::new();
        doc.root
            .walk(&mut |e| found.push((e.name.clone(), e.src.clone())));
        let named: Vec<(&str, Option<String>)> = found
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_ref().map(|s| s.to_string())))
            .collect();
        assert_eq!(
            named,
            [
                ("html", None),
                ("body", None),
                ("p", Some("ch01.md:3:1".into())),
                ("p", None),
                ("h2", Some("ch01.md:9:1".into())),
                ("em", Some("ch01.md:9:4".into())),
            ]
        );
        // The serializer finds the same places.
        let (again, same) = serialize_document_with_sources(&doc);
        assert!(!again.contains("ch01.md"), "{again}");
        let mut doc = parse_document(&again).unwrap();
        same.apply(&mut doc.root);
        let mut back = Vec::new();
        doc.root
            .walk(&mut |e| back.push((e.name.clone(), e.src.clone())));
        assert_eq!(back, found);
    }
}
