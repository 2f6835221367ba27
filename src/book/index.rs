//! A book's index settings: whether it gets an index page, and the readings its terms sort by
//! (a Re:VIEW project's makeindex dictionary, `pdfmaker: makeindex_dic:`).
use std::collections::BTreeMap;

/// What the index is made with. The index itself is built by `xref::index` from the terms the
/// manuscripts mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSettings {
    /// Whether the book gets an index page when it marks terms (Re:VIEW `makeindex: false`
    /// turns it off).
    pub enabled: bool,
    /// Whether it gets one only where a manuscript places it (a DocBook `<index/>`), as
    /// DocBook XSL makes one; `makeindex: true` in book.yml asks for one regardless.
    pub placed_only: bool,
    /// Term (one level of one) → its reading, which it sorts and is grouped by.
    pub readings: BTreeMap<String, String>,
    /// Where the readings came from, for messages (`sakuin.dic`).
    pub dictionary: Option<std::path::PathBuf>,
}

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            enabled: true,
            placed_only: false,
            readings: BTreeMap::new(),
            dictionary: None,
        }
    }
}

impl IndexSettings {
    /// A book.yml's: `makeindex` as Re:VIEW's config.yml writes it (`false` turns the index
    /// off, `true` asks for one); unset, a book of DocBook chapters gets one where it has
    /// `<index/>`, any other after its last chapter.
    pub fn from_book_yml(makeindex: Option<bool>, docbook: bool) -> Self {
        IndexSettings {
            enabled: makeindex != Some(false),
            placed_only: docbook && makeindex.is_none(),
            ..Default::default()
        }
    }

    /// A DocBook main file's (with no book.yml): an index where it has `<index/>`.
    pub fn docbook() -> Self {
        Self::from_book_yml(None, true)
    }
}

/// The readings of a makeindex dictionary: one `term<TAB>reading` a line. Re:VIEW's LaTeX
/// builder splits at the first run of tabs; mendex, which reads the same file, at white space,
/// and books write either (`索引 さくいん`): a line with no tab is split at its first run of
/// spaces. Lines with no reading are skipped; a term given twice keeps its last reading, as in
/// Re:VIEW.
pub fn parse_dictionary(text: &str) -> BTreeMap<String, String> {
    let mut readings = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        let split = match line.split_once('\t') {
            Some(pair) => Some(pair),
            None => line.split_once([' ', '\u{3000}']),
        };
        if let Some((term, reading)) = split {
            let (term, reading) = (term.trim(), reading.trim());
            if !term.is_empty() && !reading.is_empty() {
                readings.insert(term.to_string(), reading.to_string());
            }
        }
    }
    readings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_lines_split_at_tabs_or_else_spaces() {
        let r = parse_dictionary(
            "索引\tさくいん\n辞書ファイル\t\tじしょふぁいる\n漢字  かんじ\n\nひとり\n読み　よみ\r\n索引\tさくいん2\n",
        );
        assert_eq!(r["辞書ファイル"], "じしょふぁいる");
        assert_eq!(r["漢字"], "かんじ");
        assert_eq!(r["読み"], "よみ");
        assert_eq!(r["索引"], "さくいん2");
        assert!(!r.contains_key("ひとり"));
        assert_eq!(r.len(), 4);
    }

    #[test]
    fn a_term_with_spaces_keeps_them_when_tabs_separate() {
        let r = parse_dictionary("Re VIEW\tりびゅー\n");
        assert_eq!(r["Re VIEW"], "りびゅー");
    }
}
