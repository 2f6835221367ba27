//! The book's index: every index term the manuscripts mark (re `@<idx>`, `@<hidx>`; db
//! `indexterm`) is given an anchor id, unique in the book, and the terms are gathered into one
//! index, sorted by reading and grouped ([`collate`](super::collate)), each entry linking to
//! every place it is marked. `pages` makes the index page from it.
//!
//! It runs after numbering: anchors then never take an id the author wrote, and each place is
//! named by the number of the section it is in.
use std::collections::{BTreeMap, HashSet};

use super::collate::{Group, SortKey, sort_key};
use super::{Chapter, Resolver, visit::visit_own_inlines_mut, visit_blocks_mut};
use crate::codes;
use crate::doc::*;
use crate::error::{Finding, Location};

pub use crate::doc::INDEX_LEVEL_SEPARATOR as LEVEL_SEPARATOR;

/// The index of a book, ready for its page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BookIndex {
    pub groups: Vec<IndexGroup>,
    /// The chapter whose place the index page takes (db: an `index` holding nothing but its
    /// title), when there is one; else the index goes after the last chapter.
    #[serde(skip)]
    pub place: Option<usize>,
}

/// Entries under one heading: a kana row (あ), a letter (A), symbols.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct IndexGroup {
    pub label: String,
    /// The heading's id in the index page.
    pub id: String,
    pub entries: Vec<IndexEntry>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct IndexEntry {
    pub term: String,
    /// Where the term is marked, in reading order.
    pub locators: Vec<Locator>,
    /// The terms it sends the reader to instead (db `see`), sorted: "Foo (see Bar)".
    pub see: Vec<String>,
    /// Related terms (db `seealso`), sorted, shown after its places.
    pub see_also: Vec<String>,
    /// Its subentries (re `親<<>>子`), sorted alike.
    pub children: Vec<IndexEntry>,
    /// What it sorts and is grouped by (db `sortas`, else the dictionary's reading, else
    /// the term).
    #[serde(skip)]
    pub reading: String,
}

/// One place a term is marked.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Locator {
    /// The chapter's page inside the package folder, with the anchor's id
    /// (`xhtml/ch01.xhtml#idx-ch01-3`).
    pub href: String,
    /// Where that is, for the reader: the number of the numbered section it is in (`1.2`,
    /// `第1章`), else the chapter's title.
    pub label: String,
    /// The main place of the term (db `significance="preferred"`), shown bold.
    pub preferred: bool,
    /// Where a range of pages that starts here ends (db `startofrange` … `endofrange`).
    pub end: Option<Box<Locator>>,
}

/// A marked term, on the way into the index (kept in the resolve memo for the chapters not
/// resolved again).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Mark {
    levels: Vec<String>,
    locator: Locator,
    loc: Location,
    details: Option<Box<IndexDetails>>,
}

/// A term's path of levels and what it adds to its entry, on the way into the entries.
#[derive(Default)]
struct Placed {
    levels: Vec<String>,
    sort_as: Vec<Option<String>>,
    /// None for a `see` term (it marks no place).
    locator: Option<Locator>,
    see: Option<String>,
    see_also: Vec<String>,
}

impl Resolver<'_> {
    /// Anchors every index term and builds the index; `None` when the book makes none (it
    /// marks no term, or turned the index off), and then no anchor is written. Also returns
    /// each chapter's marks (none when no anchor is written).
    pub(super) fn build_index(
        &mut self,
        chapters: &mut [Chapter],
    ) -> (Option<BookIndex>, Vec<Vec<Mark>>) {
        let places: Vec<bool> = chapters.iter().map(is_index_place).collect();
        if !self.makes_index(&places) {
            return (None, vec![Vec::new(); chapters.len()]);
        }
        let marks: Vec<Vec<Mark>> = (chapters.iter_mut().enumerate())
            .map(|(ci, ch)| self.chapter_marks(ci, ch))
            .collect();
        (self.index_of(&marks, &places), marks)
    }

    /// Whether index terms are anchored and gathered: the book wants an index, and has a
    /// place for it or lets it go after the last chapter. `places` says which chapters are
    /// the index's place ([`is_index_place`]).
    pub(super) fn makes_index(&self, places: &[bool]) -> bool {
        self.book.index.enabled && (places.contains(&true) || !self.book.index.placed_only)
    }

    /// Gives each index term of chapter `ci` its anchor id; returns where each is marked.
    pub(super) fn chapter_marks(&mut self, ci: usize, ch: &mut Chapter) -> Vec<Mark> {
        let mut marks = Vec::new();
        self.anchor_terms(ci, ch, &mut marks);
        marks
    }

    /// The index of every chapter's marks, in reading order (`None` when there are none).
    pub(super) fn index_of(&mut self, marks: &[Vec<Mark>], places: &[bool]) -> Option<BookIndex> {
        let place = places.iter().position(|&p| p);
        let marks: Vec<Mark> = marks.iter().flatten().cloned().collect();
        if marks.is_empty() {
            return None;
        }
        let ja = self.book.meta.language.starts_with("ja");
        self.warn_unread(&marks, ja);
        let readings = &self.book.index.readings;
        let entries = entries(placed(marks), readings);
        let mut groups: Vec<IndexGroup> = Vec::new();
        let mut last = None;
        for entry in entries {
            let group = Group::of(&entry.reading);
            if last != Some(group) {
                groups.push(IndexGroup {
                    label: group.label(ja),
                    id: group.id(),
                    entries: Vec::new(),
                });
                last = Some(group);
            }
            if let Some(g) = groups.last_mut() {
                g.entries.push(entry);
            }
        }
        Some(BookIndex { groups, place })
    }

    /// Gives each index term of a chapter its anchor id, and notes where it is.
    fn anchor_terms(&mut self, ci: usize, ch: &mut Chapter, marks: &mut Vec<Mark>) {
        let chapter_label = ch.number.clone().unwrap_or_else(|| ch.title.clone());
        let (stem, href, shown) = (ch.stem.clone(), ch.href(), ch.source.rel.clone());
        let mut count = 0;
        // The headings around the block being visited: (level, number).
        let mut sections: Vec<(u8, Option<String>)> = Vec::new();
        let mut anchor = |r: &mut Self, inline: &mut Inline, label: &str| {
            let InlineKind::IndexTerm { term, id, details } = &mut inline.kind else {
                return;
            };
            let levels = levels(term);
            if levels.is_empty() {
                return;
            }
            count += 1;
            let new = r.generate(&format!("idx-{stem}-{count}"), ci);
            marks.push(Mark {
                levels,
                locator: Locator {
                    href: format!("{href}#{new}"),
                    label: label.to_string(),
                    preferred: details.as_ref().is_some_and(|d| d.preferred),
                    end: None,
                },
                loc: Location::new(&shown, inline.pos.line, inline.pos.col),
                details: details.clone(),
            });
            *id = Some(new);
        };
        let mut blocks = std::mem::take(&mut ch.doc.blocks);
        visit_blocks_mut(&mut blocks, &mut |b| {
            if let BlockKind::Heading(h) = &b.kind {
                sections.retain(|(level, _)| *level < h.level);
                sections.push((h.level, h.number.clone()));
            }
            let label = sections
                .iter()
                .rev()
                .find_map(|(_, n)| n.clone())
                .unwrap_or_else(|| chapter_label.clone());
            visit_own_inlines_mut(b, &mut |i| anchor(self, i, &label));
        });
        ch.doc.blocks = blocks;
        // A note is named by its chapter: it is printed apart from the section it belongs to.
        for note in ch
            .doc
            .footnotes
            .iter_mut()
            .chain(ch.doc.endnotes.iter_mut())
        {
            visit_blocks_mut(&mut note.blocks, &mut |b| {
                visit_own_inlines_mut(b, &mut |i| anchor(self, i, &chapter_label));
            });
        }
    }

    /// In a Japanese Re:VIEW book, one warning for the terms in kanji that have no reading:
    /// they cannot be put in a kana row, and their order is the characters'.
    fn warn_unread(&mut self, marks: &[Mark], ja: bool) {
        if !ja || self.book.review.is_none() {
            return;
        }
        let readings = &self.book.index.readings;
        let mut seen = HashSet::new();
        let mut unread: Vec<(&str, &Location)> = Vec::new();
        for m in marks {
            for level in &m.levels {
                if !readings.contains_key(level)
                    && Group::of(level) == Group::Kanji
                    && seen.insert(level.as_str())
                {
                    unread.push((level, &m.loc));
                }
            }
        }
        let Some((first, loc)) = unread.first() else {
            return;
        };
        let what = match unread.len() {
            1 => format!("the index term `{first}` has no reading: the index lists it"),
            n => format!(
                "{n} index terms in kanji, `{first}` the first, have no reading: the index lists them"
            ),
        };
        // Re:VIEW may guess them with MeCab; seihon runs no such program.
        let hint = match &self.book.index.dictionary {
            Some(dic) => format!(
                "seihon does not guess readings (Re:VIEW's MeCab); add a `term<TAB>reading` line for each to {} (`{first}\tよみ`)",
                dic.display()
            ),
            None => format!(
                "seihon does not guess readings (Re:VIEW's MeCab); name a dictionary in config.yml (`pdfmaker:` → `makeindex_dic: sakuin.dic`) with a `term<TAB>reading` line for each (`{first}\tよみ`)"
            ),
        };
        let finding = Finding::warning(
            codes::INDEX_READING,
            (*loc).clone(),
            format!("{what} under 漢字, in character order"),
        )
        .with_hint(hint);
        self.warnings.push(finding);
    }
}

/// A chapter that is only the place of the index: its title, anchors and the mark.
pub(super) fn is_index_place(ch: &Chapter) -> bool {
    let blocks = &ch.doc.blocks;
    blocks.iter().any(|b| matches!(b.kind, BlockKind::Index))
        && blocks.iter().all(|b| {
            matches!(
                b.kind,
                BlockKind::Index | BlockKind::Heading(_) | BlockKind::Anchor(_)
            )
        })
}

/// A term's levels, trimmed, empty ones left out (`a<<>><<>>b` is `a`, `b`).
fn levels(term: &str) -> Vec<String> {
    term.split(LEVEL_SEPARATOR)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The marks as paths into the entries: a range's end becomes the end of its start's
/// place, a `see` term marks no place.
fn placed(marks: Vec<Mark>) -> Vec<Placed> {
    let mut starts: BTreeMap<String, usize> = BTreeMap::new();
    let mut out: Vec<Placed> = Vec::with_capacity(marks.len());
    for m in marks {
        let d = m.details.map(|d| *d).unwrap_or_default();
        if let Some(start) = &d.range_end {
            if let Some(&i) = starts.get(start)
                && let Some(l) = out[i].locator.as_mut()
                && l.end.is_none()
                && m.locator.label != l.label
            {
                l.end = Some(Box::new(m.locator));
            }
            continue;
        }
        if let Some(start) = d.range_start {
            starts.insert(start, out.len());
        }
        let mut sort_as = d.sort_as;
        sort_as.resize(m.levels.len(), None);
        out.push(Placed {
            levels: m.levels,
            sort_as,
            locator: d.see.is_none().then_some(m.locator),
            see: d.see,
            see_also: d.see_also,
        });
    }
    out
}

/// What a term sorts by: its reading in the dictionary, else itself.
fn reading<'r>(readings: &'r BTreeMap<String, String>, term: &'r str) -> &'r str {
    readings.get(term).map_or(term, String::as_str)
}

/// The entries of one level from the marks below it (each a path of levels under this one and
/// what it adds), merged by term and sorted.
fn entries(marks: Vec<Placed>, readings: &BTreeMap<String, String>) -> Vec<IndexEntry> {
    // Term → what its own marks add and the marks below it, in reading order.
    #[derive(Default)]
    struct Slot {
        entry: Option<IndexEntry>,
        sort_as: Option<String>,
        below: Vec<Placed>,
    }
    let mut by_term: BTreeMap<String, Slot> = BTreeMap::new();
    for mut p in marks {
        if p.levels.is_empty() {
            continue;
        }
        let term = p.levels.remove(0);
        let sort_as = p.sort_as.drain(..1).next().flatten();
        let slot = by_term.entry(term.clone()).or_default();
        slot.sort_as = slot.sort_as.take().or(sort_as);
        if !p.levels.is_empty() {
            slot.below.push(p);
            continue;
        }
        let e = slot.entry.get_or_insert_with(|| IndexEntry {
            term,
            locators: Vec::new(),
            see: Vec::new(),
            see_also: Vec::new(),
            children: Vec::new(),
            reading: String::new(),
        });
        e.locators.extend(p.locator);
        e.see.extend(p.see);
        e.see_also.append(&mut p.see_also);
    }
    let mut out: Vec<(Group, SortKey, IndexEntry)> = by_term
        .into_iter()
        .map(|(term, slot)| {
            let r = slot
                .sort_as
                .unwrap_or_else(|| reading(readings, &term).to_string());
            let (group, key) = (Group::of(&r), sort_key(&r));
            let mut entry = slot.entry.unwrap_or_else(|| IndexEntry {
                term: term.clone(),
                locators: Vec::new(),
                see: Vec::new(),
                see_also: Vec::new(),
                children: Vec::new(),
                reading: String::new(),
            });
            entry.children = entries(slot.below, readings);
            entry.reading = r;
            for words in [&mut entry.see, &mut entry.see_also] {
                // DocBook XSL sorts them regardless of case.
                words.sort_by_key(|w| w.to_lowercase());
                words.dedup();
            }
            (group, key, entry)
        })
        .collect();
    // The term itself breaks ties (a term and its katakana spelling).
    out.sort_by(|a, b| (a.0, &a.1, &a.2.term).cmp(&(b.0, &b.1, &b.2.term)));
    out.into_iter().map(|(_, _, e)| e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(n: u32) -> Locator {
        Locator {
            href: format!("xhtml/ch.xhtml#idx-ch-{n}"),
            label: n.to_string(),
            preferred: false,
            end: None,
        }
    }

    fn path(term: &str) -> Vec<String> {
        levels(term)
    }

    fn entries(
        marks: Vec<(Vec<String>, Locator)>,
        r: &BTreeMap<String, String>,
    ) -> Vec<IndexEntry> {
        let placed = marks
            .into_iter()
            .map(|(levels, l)| Placed {
                sort_as: vec![None; levels.len()],
                levels,
                locator: Some(l),
                ..Default::default()
            })
            .collect();
        super::entries(placed, r)
    }

    /// Terms and their places, nested by indentation.
    fn shape(entries: &[IndexEntry], depth: usize, out: &mut Vec<String>) {
        for e in entries {
            let places: Vec<&str> = e.locators.iter().map(|l| l.label.as_str()).collect();
            out.push(format!(
                "{}{} {}",
                "  ".repeat(depth),
                e.term,
                places.join(",")
            ));
            shape(&e.children, depth + 1, out);
        }
    }

    #[test]
    fn levels_nest_and_the_same_term_merges_its_places() {
        let marks = vec![
            (path("親<<>>子"), at(1)),
            (path("親"), at(2)),
            (path("親<<>>子"), at(3)),
            (path("親<<>>子<<>>孫"), at(4)),
            (path("親<<>>あ"), at(5)),
            (path("  <<>>親"), at(6)),
        ];
        let mut out = Vec::new();
        shape(&entries(marks, &BTreeMap::new()), 0, &mut out);
        assert_eq!(out, ["親 2,6", "  あ 5", "  子 1,3", "    孫 4"]);
    }

    #[test]
    fn readings_from_the_dictionary_decide_the_order() {
        let readings: BTreeMap<String, String> = [("索引", "さくいん"), ("辞書", "じしょ")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let marks = vec![
            (path("辞書"), at(1)),
            (path("索引"), at(2)),
            (path("かな"), at(3)),
            (path("Rust"), at(4)),
            (path("漢字"), at(5)),
        ];
        let terms: Vec<String> = entries(marks, &readings)
            .into_iter()
            .map(|e| e.term)
            .collect();
        // Latin first, then か, さ (さくいん), さ (じしょ), then kanji without a reading.
        assert_eq!(terms, ["Rust", "かな", "索引", "辞書", "漢字"]);
    }

    #[test]
    fn a_chapter_of_only_a_title_and_the_mark_is_the_index_place() {
        let pos = Pos::new(1, 1);
        let mut doc = Document::new("book.xml");
        doc.blocks.push(Block::new(
            BlockKind::Heading(Heading {
                level: 1,
                id: Some("ix".into()),
                numbered: false,
                in_toc: true,
                shown: true,
                number: None,
                content: vec![Inline::text("Index", pos)],
            }),
            pos,
        ));
        doc.blocks.push(Block::new(BlockKind::Index, pos));
        let mut ch = Chapter {
            doc,
            source: crate::book::ChapterSource {
                rel: "book.xml".into(),
                path: "book.xml".into(),
                role: crate::book::Role::Back,
                format: crate::book::Format::DocBook,
                part_title: None,
                page: None,
                division: None,
            },
            stem: "index".into(),
            title: "Index".into(),
            toc: Vec::new(),
            footnotes: Vec::new(),
            endnotes: Vec::new(),
            lang: None,
            number: None,
            pages: Vec::new(),
        };
        assert!(is_index_place(&ch));
        ch.doc.blocks.push(Block::new(
            BlockKind::Para(vec![Inline::text("x", pos)]),
            pos,
        ));
        assert!(!is_index_place(&ch), "a chapter with text of its own stays");
    }
}
