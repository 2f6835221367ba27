//! Text measures: how much of one text another keeps.
//!
//! Texts are compared as multisets of tokens, so that order (a table of contents, notes placed
//! at the end of a chapter or of the book) does not count as loss, while every dropped word
//! does: a token is a run of letters and digits, or a single CJK character (Japanese has no
//! spaces to split words at). Punctuation and spacing are not compared.
use std::collections::HashMap;

#[derive(Default, Debug, Clone)]
pub struct Bag {
    counts: HashMap<String, u64>,
}

impl Bag {
    pub fn of(text: &str) -> Bag {
        let mut bag = Bag::default();
        bag.add(text);
        bag
    }

    pub fn add(&mut self, text: &str) {
        for token in tokens(text) {
            *self.counts.entry(token.to_string()).or_default() += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How many tokens, or how many characters in them.
    pub fn total(&self, weight: Weight) -> u64 {
        self.counts.iter().map(|(t, n)| n * weight.of(t)).sum()
    }
}

impl Bag {
    /// The tokens `kept` has fewer of than this bag, with how many fewer, most missed first.
    pub fn deficits(&self, kept: &Bag) -> Vec<(&str, u64)> {
        let mut out: Vec<(&str, u64)> = self
            .counts
            .iter()
            .filter_map(|(t, n)| {
                let have = kept.counts.get(t).copied().unwrap_or(0);
                (have < *n).then(|| (t.as_str(), n - have))
            })
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        out
    }
}

/// What a token counts for.
#[derive(Clone, Copy, Debug)]
pub enum Weight {
    /// Each token once: a share of words.
    Tokens,
    /// Each token by its characters: a share of the text.
    Chars,
}

impl Weight {
    fn of(self, token: &str) -> u64 {
        match self {
            Weight::Tokens => 1,
            Weight::Chars => token.chars().count() as u64,
        }
    }
}

/// The share (0–100) of `whole` that `kept` holds; `None` when `whole` is empty.
pub fn kept_share(whole: &Bag, kept: &Bag, weight: Weight) -> Option<f64> {
    let total = whole.total(weight);
    if total == 0 {
        return None;
    }
    let found: u64 = whole
        .counts
        .iter()
        .map(|(t, n)| (*n).min(kept.counts.get(t).copied().unwrap_or(0)) * weight.of(t))
        .sum();
    Some(100.0 * found as f64 / total as f64)
}

pub fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3005..=0x3007 // 々 〆 〇
        | 0x3040..=0x30FF // hiragana, katakana
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xAC00..=0xD7AF // hangul
        | 0xF900..=0xFAFF // compatibility ideographs
        | 0xFF10..=0xFF19 | 0xFF21..=0xFF3A | 0xFF41..=0xFF5A // full-width letters and digits
        | 0xFF66..=0xFF9F // half-width katakana
        | 0x20000..=0x3FFFF) // CJK extensions B and after
}

/// Letters, digits and CJK characters: what the measures count.
pub fn is_counted(c: char) -> bool {
    c.is_alphanumeric() || is_cjk(c)
}

/// The tokens of a text: runs of letters and digits, and single CJK characters.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(is_counted)?;
        rest = &rest[start..];
        let first = rest.chars().next()?;
        let len = if is_cjk(first) {
            first.len_utf8()
        } else {
            rest.find(|c: char| !c.is_alphanumeric() || is_cjk(c))
                .unwrap_or(rest.len())
        };
        let (token, after) = rest.split_at(len);
        rest = after;
        Some(token)
    })
}

/// Text chunks of a source, looked up in a text as written (whitespace aside): the share (0–100)
/// of the chunks' characters found, and the chunks not found.
pub fn chunks_found<'a>(
    chunks: &'a [(String, usize, String)],
    text: &str,
) -> (Option<f64>, Vec<&'a (String, usize, String)>) {
    let total: usize = chunks.iter().map(|(_, _, c)| c.chars().count()).sum();
    if total == 0 {
        return (None, Vec::new());
    }
    let missing: Vec<_> = chunks
        .iter()
        .filter(|(_, _, c)| !text.contains(c.as_str()))
        .collect();
    let lost: usize = missing.iter().map(|(_, _, c)| c.chars().count()).sum();
    (Some(100.0 * (total - lost) as f64 / total as f64), missing)
}

/// A share as the table and the expected file show it: rounded down to a tenth, so that a
/// figure written down is always one the book reaches.
pub fn floor_tenth(share: f64) -> f64 {
    (share * 10.0 + 1e-9).floor() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_words_and_single_cjk_characters() {
        let t: Vec<&str> = tokens("Hello, wörld 42! 日本語のtext。").collect();
        assert_eq!(t, ["Hello", "wörld", "42", "日", "本", "語", "の", "text"]);
    }

    #[test]
    fn share_counts_each_token_as_often_as_the_whole_has_it() {
        let whole = Bag::of("the cat and the elephant");
        let kept = Bag::of("the cat, the end, the cat");
        // "and" and "elephant" are lost: 2 of 5 words, 11 of 17 characters; a third "the" and
        // a second "cat" do not make up for them.
        assert_eq!(kept_share(&whole, &kept, Weight::Tokens), Some(60.0));
        let chars = kept_share(&whole, &kept, Weight::Chars).unwrap();
        assert!((chars - 100.0 * 9.0 / 20.0).abs() < 1e-9, "{chars}");
        assert_eq!(kept_share(&Bag::default(), &kept, Weight::Chars), None);
        assert_eq!(whole.deficits(&kept), [("and", 1), ("elephant", 1)]);
    }

    #[test]
    fn chunks_found_weighs_by_characters() {
        let chunks = vec![
            ("a.re".to_string(), 1, "本文です".to_string()),
            ("a.re".to_string(), 2, "消えた".to_string()),
        ];
        let (share, missing) = chunks_found(&chunks, "前本文です後");
        assert!((share.unwrap() - 400.0 / 7.0).abs() < 1e-9);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].1, 2);
    }

    #[test]
    fn floor_tenth_never_rounds_up() {
        assert_eq!(floor_tenth(99.96), 99.9);
        assert_eq!(floor_tenth(100.0), 100.0);
        assert_eq!(floor_tenth(87.25), 87.2);
    }
}
