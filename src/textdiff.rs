//! What changed in a page's running text, word by word: for the preview's index, so that an
//! author sees the passages an edit touched rather than only the files it touched.
//!
//! Pure: [`page_text`] takes an XHTML page's text to its visible words, [`diff`] two texts to
//! the edits between them (Myers' algorithm over tokens), [`passages`] those edits to the few
//! changed passages worth showing, each with a little context.
use quick_xml::events::Event;
use quick_xml::reader::Reader;
use serde::{Deserialize, Serialize};

/// Past this many tokens on either side of the part that differs, the texts are not compared
/// word by word: the page counts as rewritten.
pub const MAX_TOKENS: usize = 20_000;
/// Past this many inserted and removed tokens, likewise: Myers' work and memory grow with it.
const MAX_EDITS: usize = 2_000;
/// How much unchanged text is shown on each side of a change, in columns: about five English
/// words or sixteen Japanese characters (full-width, two columns each).
const CONTEXT: usize = 32;
/// Passages shown per page; the rest are counted.
pub const MAX_PASSAGES: usize = 20;

/// A word, one CJK character or one punctuation mark, and whether white space came before it
/// (to put the text back together as it read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub spaced: bool,
}

/// Splits running text into tokens. Japanese and Chinese have no spaces between words, so
/// each ideograph or kana is a token of its own; runs of other letters and digits are words
/// (with an apostrophe or hyphen inside a word kept in it); any other mark stands alone.
pub fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut spaced = false;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            spaced = true;
            continue;
        }
        let mut end = start + c.len_utf8();
        if is_word_char(c) {
            while let Some(&(i, next)) = chars.peek() {
                let joins = is_word_char(next)
                    || (is_word_joiner(next)
                        && text[i + next.len_utf8()..]
                            .chars()
                            .next()
                            .is_some_and(is_word_char));
                if !joins {
                    break;
                }
                end = i + next.len_utf8();
                chars.next();
            }
        }
        tokens.push(Token {
            text: &text[start..end],
            spaced,
        });
        spaced = false;
    }
    tokens
}

/// A letter or digit of a spaced script (CJK characters are tokens by themselves).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// Marks that belong inside a word: `don't`, `e-book`.
fn is_word_joiner(c: char) -> bool {
    matches!(c, '\'' | '’' | '-' | '‐')
}

/// Han ideographs, kana (and the long-vowel mark) and their half-width forms.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'     // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}'   // katakana extensions
        | '\u{3400}'..='\u{4DBF}'   // Han extension A
        | '\u{4E00}'..='\u{9FFF}'   // Han
        | '\u{F900}'..='\u{FAFF}'   // compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'   // half-width katakana
        | '\u{20000}'..='\u{3FFFF}' // Han extensions B and later
        | '々' | '〆' | '〇')
}

/// One step of an edit script, in tokens: kept, taken out of the old text, put into the new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Same(usize),
    Removed(usize),
    Added(usize),
}

/// The edits from one text to another, or, when they are too far apart to compare within the
/// bounds, how many tokens differ on each side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Script {
    Ops(Vec<Op>),
    Rewritten { removed: usize, added: usize },
}

/// The shortest edit script from `old` to `new` (tokens equal by their text; spacing alone is
/// no change). In each change the removed tokens come before the added ones.
pub fn diff(old: &[Token], new: &[Token]) -> Script {
    let prefix = old
        .iter()
        .zip(new)
        .take_while(|(a, b)| a.text == b.text)
        .count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a.text == b.text)
        .count();
    let a: Vec<&str> = old[prefix..old.len() - suffix]
        .iter()
        .map(|t| t.text)
        .collect();
    let b: Vec<&str> = new[prefix..new.len() - suffix]
        .iter()
        .map(|t| t.text)
        .collect();
    let rewritten = Script::Rewritten {
        removed: a.len(),
        added: b.len(),
    };
    if a.len() > MAX_TOKENS || b.len() > MAX_TOKENS {
        return rewritten;
    }
    let Some(middle) = myers(&a, &b, MAX_EDITS) else {
        return rewritten;
    };
    let mut ops = vec![Op::Same(prefix)];
    ops.extend(middle);
    ops.push(Op::Same(suffix));
    Script::Ops(normalize(ops))
}

/// Myers' O((N+M)·D) shortest edit script, or `None` when it needs more than `max_edits`
/// insertions and deletions. Keeps each round's frontier (for k in −d..=d) to walk back.
fn myers(a: &[&str], b: &[&str], max_edits: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let offset = n + m + 1;
    let mut v = vec![0isize; 2 * offset as usize + 1];
    let at = |k: isize| (k + offset) as usize;
    let mut trace: Vec<Vec<u32>> = Vec::new();
    for d in 0..=(n + m).min(max_edits as isize) {
        // The frontier after d − 1 edits, over k in −(d−1)..=(d−1).
        trace.push(
            v[at(-d + 1).min(at(d))..at(d)]
                .iter()
                .map(|&x| x as u32)
                .collect(),
        );
        for k in (-d..=d).step_by(2) {
            let mut x = if k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]) {
                v[at(k + 1)]
            } else {
                v[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                return Some(walk_back(&trace, n, m));
            }
        }
    }
    None
}

/// The edit script from the frontiers Myers kept, last edit first, then reversed.
fn walk_back(trace: &[Vec<u32>], n: isize, m: isize) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..trace.len() as isize).rev() {
        let frontier = &trace[d as usize];
        let before = |k: isize| frontier[(k + d - 1) as usize] as isize;
        let k = x - y;
        let down = k == -d || (k != d && before(k - 1) < before(k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = before(prev_k);
        let prev_y = prev_x - prev_k;
        let same = (x - prev_x).min(y - prev_y);
        ops.push(Op::Same(same as usize));
        ops.push(if down { Op::Added(1) } else { Op::Removed(1) });
        (x, y) = (prev_x, prev_y);
    }
    ops.push(Op::Same(x as usize));
    ops.reverse();
    ops
}

/// Merges neighbouring steps: one `Same` between changes, and in each change one `Removed`
/// then one `Added`; no empty steps.
fn normalize(ops: Vec<Op>) -> Vec<Op> {
    let mut out = Vec::new();
    let (mut removed, mut added) = (0, 0);
    let mut same = 0;
    let flush_change = |out: &mut Vec<Op>, removed: &mut usize, added: &mut usize| {
        if *removed > 0 {
            out.push(Op::Removed(std::mem::take(removed)));
        }
        if *added > 0 {
            out.push(Op::Added(std::mem::take(added)));
        }
    };
    for op in ops {
        match op {
            Op::Same(0) | Op::Removed(0) | Op::Added(0) => {}
            Op::Same(n) => {
                flush_change(&mut out, &mut removed, &mut added);
                same += n;
            }
            Op::Removed(n) | Op::Added(n) => {
                if same > 0 {
                    out.push(Op::Same(std::mem::take(&mut same)));
                }
                if matches!(op, Op::Removed(_)) {
                    removed += n;
                } else {
                    added += n;
                }
            }
        }
    }
    flush_change(&mut out, &mut removed, &mut added);
    if same > 0 {
        out.push(Op::Same(same));
    }
    out
}

/// What changed in a page's text, as the index shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextChange {
    /// The first [`MAX_PASSAGES`] changed passages.
    pub passages: Vec<Passage>,
    /// Changed passages past those.
    #[serde(default)]
    pub more: usize,
    /// Set instead when the texts were too different to compare word by word.
    #[serde(default)]
    pub rewritten: Option<Rewritten>,
}

impl TextChange {
    /// The texts read the same (the markup alone changed).
    pub fn is_empty(&self) -> bool {
        self.passages.is_empty() && self.rewritten.is_none()
    }
}

/// The tokens that differ when a page was rewritten beyond comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rewritten {
    pub removed: usize,
    pub added: usize,
}

/// A run of changes close together, with unchanged text around them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passage {
    pub parts: Vec<Part>,
    /// Text comes before the passage (it starts mid-text) and after it.
    pub cut_before: bool,
    pub cut_after: bool,
}

/// Text kept, removed or added, and whether a space goes before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub kind: Kind,
    pub text: String,
    pub spaced: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Same,
    Removed,
    Added,
}

/// The changed passages between two texts, each with up to [`CONTEXT`] columns of unchanged
/// text on either side; changes closer than twice that share a passage.
pub fn passages(old: &str, new: &str) -> TextChange {
    // Only the stretch between the first and the last difference (with a margin for the
    // context) is tokenized: a one-word edit to a long page compares a few hundred bytes.
    let (lead, trail) = shared_ends(old, new);
    passages_between(old, new, lead, trail)
}

/// [`passages`], comparing the texts without their first `lead` and last `trail` bytes (the
/// same in both, cut where a token starts).
fn passages_between(old: &str, new: &str, lead: usize, trail: usize) -> TextChange {
    let (old, new) = (&old[lead..old.len() - trail], &new[lead..new.len() - trail]);
    let (a, b) = (tokenize(old), tokenize(new));
    let ops = match diff(&a, &b) {
        Script::Ops(ops) => ops,
        Script::Rewritten { removed, added } => {
            return TextChange {
                rewritten: Some(Rewritten { removed, added }),
                ..TextChange::default()
            };
        }
    };
    let groups = group(&hunks(&ops), &b);
    let mut change = TextChange {
        more: groups.len().saturating_sub(MAX_PASSAGES),
        ..TextChange::default()
    };
    change.passages = groups
        .iter()
        .take(MAX_PASSAGES)
        .map(|g| {
            let mut p = passage(g, &a, &b);
            p.cut_before |= lead > 0;
            p.cut_after |= trail > 0;
            p
        })
        .collect();
    change
}

/// Bytes the texts share at their start and at their end, each cut where a token starts (so
/// that the rest tokenizes as it would whole) and a margin of bytes away from the first
/// and last difference (so that the context shown around a change is all there).
fn shared_ends(old: &str, new: &str) -> (usize, usize) {
    /// More than [`CONTEXT`] columns of any text (a column is at most 4 bytes, and white
    /// space is collapsed to one space between tokens).
    const MARGIN: usize = 16 * CONTEXT;
    // (A cut next to a change must be one in both texts.)
    let cut_before = |at: usize| {
        (0..=at)
            .rev()
            .find(|&i| starts_token(old, i) && starts_token(new, i))
    };
    let first = (old.bytes().zip(new.bytes()))
        .take_while(|(x, y)| x == y)
        .count();
    // The changed token may start well before the first changed byte (a long word).
    let lead = cut_before(first)
        .and_then(|start| cut_before(start.saturating_sub(MARGIN)))
        .unwrap_or(0);
    let (old_rest, new_rest) = (&old[lead..], &new[lead..]);
    let last = (old_rest.bytes().rev().zip(new_rest.bytes().rev()))
        .take_while(|(x, y)| x == y)
        .count()
        .min(old_rest.len().min(new_rest.len()));
    // Counted from the end: the changed token may end well after the last changed byte.
    let cut_after = |k: usize| {
        (0..=k).rev().find(|&k| {
            starts_token(old_rest, old_rest.len() - k) && starts_token(new_rest, new_rest.len() - k)
        })
    };
    let trail = cut_after(last)
        .and_then(|end| cut_after(end.saturating_sub(MARGIN)))
        .unwrap_or(0);
    (lead, trail)
}

/// Whether [`tokenize`] cuts the text at byte `i` whatever comes before and after, with the
/// same spacing: at the text's ends, at white space, or just after a CJK character (which
/// never joins a word). Elsewhere a word may run on.
fn starts_token(text: &str, i: usize) -> bool {
    if i == 0 || i == text.len() {
        return true;
    }
    if !text.is_char_boundary(i) {
        return false;
    }
    text[i..].starts_with(char::is_whitespace) || text[..i].ends_with(is_cjk)
}

/// One change: the token ranges it replaces in the old text and puts in the new.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk {
    old: std::ops::Range<usize>,
    new: std::ops::Range<usize>,
}

fn hunks(ops: &[Op]) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open = false;
    for op in ops {
        let (i0, j0) = (i, j);
        match *op {
            Op::Same(n) => {
                (i, j) = (i + n, j + n);
                open = false;
                continue;
            }
            Op::Removed(n) => i += n,
            Op::Added(n) => j += n,
        }
        match out.last_mut() {
            Some(h) if open => (h.old.end, h.new.end) = (i, j),
            _ => {
                out.push(Hunk {
                    old: i0..i,
                    new: j0..j,
                });
                open = true;
            }
        }
    }
    out
}

/// Hunks whose unchanged text between them is short enough to show whole, together.
fn group(hunks: &[Hunk], new: &[Token]) -> Vec<Vec<Hunk>> {
    let mut groups: Vec<Vec<Hunk>> = Vec::new();
    for h in hunks {
        match groups.last_mut() {
            Some(g) if fits(&new[g[g.len() - 1].new.end..h.new.start], 2 * CONTEXT) => {
                g.push(h.clone())
            }
            _ => groups.push(vec![h.clone()]),
        }
    }
    groups
}

/// The columns a token takes as shown: CJK characters are full-width; a word takes a space.
fn width(t: &Token) -> usize {
    if t.text.chars().next().is_some_and(is_cjk) {
        2
    } else {
        t.text.chars().count() + usize::from(t.spaced)
    }
}

fn fits(tokens: &[Token], columns: usize) -> bool {
    tokens
        .iter()
        .map(width)
        .try_fold(0, |sum, w| {
            let sum = sum + w;
            (sum <= columns).then_some(sum)
        })
        .is_some()
}

/// How many tokens of `tokens`, taken from its end (or its start), fit in [`CONTEXT`].
fn context<'t>(tokens: impl Iterator<Item = &'t Token<'t>>) -> usize {
    let mut sum = 0;
    tokens
        .take_while(|t| {
            sum += width(t);
            sum <= CONTEXT
        })
        .count()
}

fn passage(hunks: &[Hunk], old: &[Token], new: &[Token]) -> Passage {
    let first = hunks.first().expect("a passage has a change");
    let last = hunks.last().expect("a passage has a change");
    let from = first.new.start - context(new[..first.new.start].iter().rev());
    let to = last.new.end + context(new[last.new.end..].iter());
    let mut parts = Vec::new();
    let mut push = |kind: Kind, tokens: &[Token]| {
        if let Some(part) = part(kind, tokens) {
            parts.push(part);
        }
    };
    push(Kind::Same, &new[from..first.new.start]);
    for (n, h) in hunks.iter().enumerate() {
        push(Kind::Removed, &old[h.old.clone()]);
        push(Kind::Added, &new[h.new.clone()]);
        let until = hunks.get(n + 1).map_or(to, |next| next.new.start);
        push(Kind::Same, &new[h.new.end..until]);
    }
    if let Some(p) = parts.first_mut() {
        p.spaced = false;
    }
    Passage {
        parts,
        cut_before: from > 0,
        cut_after: to < new.len(),
    }
}

fn part(kind: Kind, tokens: &[Token]) -> Option<Part> {
    let first = tokens.first()?;
    let mut text = String::new();
    for (n, t) in tokens.iter().enumerate() {
        if n > 0 && t.spaced {
            text.push(' ');
        }
        text.push_str(t.text);
    }
    Some(Part {
        kind,
        text,
        spaced: first.spaced,
    })
}

/// A page's title and the visible text of its body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageText {
    /// Its `<title>`, else its first heading.
    pub title: Option<String>,
    /// The body's text in reading order, white space collapsed; what scripts, styles and
    /// ruby's fallback parentheses hold left out.
    pub text: String,
}

/// Elements whose content a reader never sees as running text.
const HIDDEN: &[&str] = &["script", "style", "rp", "template"];
/// Elements that end a word where they start and end (`a</p><p>b` is two words).
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "caption",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

/// Reads a page's text with quick-xml's event reader (no tree: a changed book can be many
/// pages). A page that stops parsing keeps the text read up to there.
pub fn page_text(xhtml: &str) -> PageText {
    let mut reader = Reader::from_str(xhtml);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.trim_text(false);
    let mut read = Reading::default();
    while let Ok(event) = reader.read_event() {
        match event {
            Event::Start(e) => read.start(local(e.name().0)),
            Event::Empty(e) => {
                let name = local(e.name().0);
                read.start(name);
                read.end(name);
            }
            Event::End(e) => read.end(local(e.name().0)),
            Event::Text(e) => read.text(&e.xml10_content()),
            Event::CData(e) => read.text(&e.xml10_content()),
            Event::GeneralRef(e) => {
                if let Some(c) = reference(&e) {
                    read.text(c.encode_utf8(&mut [0; 4]));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    read.finish()
}

fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// A character reference or one of XML's five named entities (a page declares no others).
fn reference(e: &quick_xml::events::BytesRef) -> Option<char> {
    if let Ok(Some(c)) = e.resolve_char_ref() {
        return Some(c);
    }
    match &**e {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    }
}

/// Where the reader is in a page: inside its title, its body, a hidden element, a heading.
#[derive(Default)]
struct Reading {
    title: Option<String>,
    heading: Option<String>,
    in_title: bool,
    in_body: bool,
    /// Depth inside hidden elements (they may nest, as a `<template>` in a `<template>`).
    hidden: usize,
    /// Inside the first heading, its depth of headings.
    in_heading: usize,
    text: String,
}

impl Reading {
    fn start(&mut self, name: &str) {
        match name {
            "title" if !self.in_body => self.in_title = true,
            "body" => self.in_body = true,
            _ if HIDDEN.contains(&name) => self.hidden += 1,
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                if self.heading.is_none() || self.in_heading > 0 =>
            {
                self.in_heading += 1;
                self.heading.get_or_insert_default();
            }
            _ => {}
        }
        if BLOCKS.contains(&name) {
            self.text.push(' ');
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "title" => self.in_title = false,
            "body" => self.in_body = false,
            _ if HIDDEN.contains(&name) => self.hidden = self.hidden.saturating_sub(1),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.in_heading = self.in_heading.saturating_sub(1)
            }
            _ => {}
        }
        if BLOCKS.contains(&name) {
            self.text.push(' ');
        }
    }

    fn text(&mut self, t: &str) {
        if self.in_title {
            self.title.get_or_insert_default().push_str(t);
        }
        if !self.in_body || self.hidden > 0 {
            return;
        }
        if self.in_heading > 0
            && let Some(h) = &mut self.heading
        {
            h.push_str(t);
        }
        self.text.push_str(t);
    }

    fn finish(self) -> PageText {
        let title = [self.title, self.heading]
            .into_iter()
            .flatten()
            .map(|t| collapse(&t))
            .find(|t| !t.is_empty());
        PageText {
            title,
            text: collapse(&self.text),
        }
    }
}

/// White space runs as one space, none at the ends.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        tokenize(text).iter().map(|t| t.text).collect()
    }

    fn ops(old: &str, new: &str) -> Script {
        diff(&tokenize(old), &tokenize(new))
    }

    /// A passage as the index shows it: `[-removed-]`, `{+added+}`, `…` where cut.
    fn shown(p: &Passage) -> String {
        let mut out = String::from(if p.cut_before { "…" } else { "" });
        for part in &p.parts {
            if part.spaced {
                out.push(' ');
            }
            match part.kind {
                Kind::Same => out.push_str(&part.text),
                Kind::Removed => out.push_str(&format!("[-{}-]", part.text)),
                Kind::Added => out.push_str(&format!("{{+{}+}}", part.text)),
            }
        }
        out + if p.cut_after { "…" } else { "" }
    }

    fn shown_all(old: &str, new: &str) -> Vec<String> {
        passages(old, new).passages.iter().map(shown).collect()
    }

    #[test]
    fn english_splits_into_words_and_marks() {
        assert_eq!(
            words("Don't  stop, e-book readers!"),
            ["Don't", "stop", ",", "e-book", "readers", "!"]
        );
        let t = tokenize("a b,c");
        assert_eq!(
            t.iter().map(|t| t.spaced).collect::<Vec<_>>(),
            [false, true, false, false]
        );
    }

    #[test]
    fn japanese_splits_into_characters() {
        assert_eq!(
            words("猫が好き。カタカナー、EPUB3で"),
            [
                "猫", "が", "好", "き", "。", "カ", "タ", "カ", "ナ", "ー", "、", "EPUB3", "で"
            ]
        );
    }

    #[test]
    fn identical_texts_have_no_changes() {
        assert_eq!(
            ops("the same text", "the  same\ntext"),
            Script::Ops(vec![Op::Same(3)])
        );
        assert_eq!(ops("", ""), Script::Ops(vec![]));
        assert!(passages("猫が好き", "猫が好き").is_empty());
    }

    #[test]
    fn an_insertion() {
        assert_eq!(
            ops("the cat sat", "the black cat sat"),
            Script::Ops(vec![Op::Same(1), Op::Added(1), Op::Same(2)])
        );
        assert_eq!(
            shown_all("the cat sat", "the black cat sat"),
            ["the {+black+} cat sat"]
        );
        assert_eq!(ops("", "new"), Script::Ops(vec![Op::Added(1)]));
    }

    #[test]
    fn a_deletion() {
        assert_eq!(
            ops("the black cat sat", "the cat sat"),
            Script::Ops(vec![Op::Same(1), Op::Removed(1), Op::Same(2)])
        );
        assert_eq!(
            shown_all("the black cat sat", "the cat sat"),
            ["the [-black-] cat sat"]
        );
    }

    #[test]
    fn a_replacement_removes_then_adds() {
        assert_eq!(
            ops("the dog sat down", "the cat sat down"),
            Script::Ops(vec![Op::Same(1), Op::Removed(1), Op::Added(1), Op::Same(2)])
        );
        assert_eq!(
            shown_all("吾輩は猫である。", "吾輩は犬である。"),
            ["吾輩は[-猫-]{+犬+}である。"]
        );
        // Sixteen characters of context in Japanese.
        assert_eq!(
            shown_all(
                "あいうえおかきくけこさしすせそたちつてとなにぬねの猫はまみむめもやゆよらりるれろわをんアイウエオカキクケコ",
                "あいうえおかきくけこさしすせそたちつてとなにぬねの犬はまみむめもやゆよらりるれろわをんアイウエオカキクケコ"
            ),
            ["…こさしすせそたちつてとなにぬねの[-猫-]{+犬+}はまみむめもやゆよらりるれろわを…"]
        );
    }

    #[test]
    fn the_edit_script_is_minimal() {
        // a b c a b b a → c b a b a c (the classic example): 5 edits.
        let Script::Ops(ops) = ops("a b c a b b a", "c b a b a c") else {
            panic!("compared")
        };
        let edits: usize = ops
            .iter()
            .map(|op| match op {
                Op::Same(_) => 0,
                Op::Removed(n) | Op::Added(n) => *n,
            })
            .sum();
        assert_eq!(edits, 5, "{ops:?}");
    }

    /// Random texts over a few words: the script turns the old into the new, and has as few
    /// edits as the longest common subsequence allows.
    #[test]
    fn edit_scripts_are_correct_and_minimal_on_random_texts() {
        let mut seed: u64 = 0x5eed;
        let mut next = move |bound: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % bound
        };
        for _ in 0..300 {
            let mut text = || -> Vec<&str> {
                let len = next(30);
                (0..len)
                    .map(|_| ["a", "b", "c", "d"][next(4) as usize])
                    .collect()
            };
            let (a, b) = (text(), text());
            let Script::Ops(ops) = ops(&a.join(" "), &b.join(" ")) else {
                panic!("compared")
            };
            let (mut i, mut rebuilt, mut edits) = (0, Vec::new(), 0);
            let mut j = 0;
            for op in &ops {
                match *op {
                    Op::Same(n) => {
                        assert_eq!(a[i..i + n], b[j..j + n], "{a:?} {b:?} {ops:?}");
                        rebuilt.extend(&a[i..i + n]);
                        (i, j) = (i + n, j + n);
                    }
                    Op::Removed(n) => (i, edits) = (i + n, edits + n),
                    Op::Added(n) => {
                        rebuilt.extend(&b[j..j + n]);
                        (j, edits) = (j + n, edits + n);
                    }
                }
            }
            assert_eq!((i, &rebuilt), (a.len(), &b), "{a:?} {b:?} {ops:?}");
            let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for x in (0..a.len()).rev() {
                for y in (0..b.len()).rev() {
                    lcs[x][y] = if a[x] == b[y] {
                        lcs[x + 1][y + 1] + 1
                    } else {
                        lcs[x + 1][y].max(lcs[x][y + 1])
                    };
                }
            }
            assert_eq!(edits, a.len() + b.len() - 2 * lcs[0][0], "{a:?} {b:?}");
        }
    }

    #[test]
    fn long_texts_compare_as_whole_ones_with_their_shared_ends_cut() {
        // Pieces of every kind the tokenizer tells apart: words, joined words, CJK, marks,
        // characters of every UTF-8 length, and words longer than the margin kept.
        let long = ["ab".repeat(400), "é".repeat(300)];
        let pieces_of_text: Vec<&str> =
            "word |don't |e-book |猫|が|好き。|ー|「|」|😀|- |x-|'|é|a|1 |, |ｶﾅ| |漢字|well-known "
                .split('|')
                .chain(long.iter().map(String::as_str))
                .collect();
        let kinds = pieces_of_text.len();
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        let mut trimmed = 0;
        for case in 0..300 {
            let len = 50 + next(2000);
            let mut pieces: Vec<&str> = (0..len).map(|_| pieces_of_text[next(kinds)]).collect();
            let old = pieces.concat();
            // One to three edits: a piece changed, taken out or put in.
            for _ in 0..1 + next(3) {
                let at = next(pieces.len());
                match next(3) {
                    0 => pieces[at] = pieces_of_text[next(kinds)],
                    1 => drop(pieces.remove(at)),
                    _ => pieces.insert(at, pieces_of_text[next(kinds)]),
                }
            }
            let new = pieces.concat();
            let (lead, trail) = shared_ends(&old, &new);
            trimmed += usize::from(lead > 0 || trail > 0);
            assert_eq!(
                passages(&old, &new),
                passages_between(&old, &new, 0, 0),
                "case {case}: cut {lead} and {trail} bytes of\n{old}\n→\n{new}"
            );
        }
        assert!(trimmed > 200, "only {trimmed} of 300 texts were cut");
    }

    #[test]
    fn passages_far_apart_are_cut_with_context() {
        let old = (1..=40)
            .map(|n| format!("w{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        let new = old.replace("w5 ", "five ").replace("w30 ", "");
        assert_eq!(
            shown_all(&old, &new),
            [
                "w1 w2 w3 w4 [-w5-] {+five+} w6 w7 w8 w9 w10 w11 w12 w13 w14…",
                "…w22 w23 w24 w25 w26 w27 w28 w29 [-w30-] w31 w32 w33 w34 w35 w36 w37 w38…"
            ]
        );
        // Close changes share a passage.
        let near = old.replace("w5 ", "").replace("w9 ", "");
        assert_eq!(passages(&old, &near).passages.len(), 1);
    }

    #[test]
    fn passages_past_the_limit_are_counted() {
        let old = (1..=1000).map(|n| format!("w{n}")).collect::<Vec<_>>();
        let mut new = old.clone();
        for w in new.iter_mut().step_by(20) {
            w.push('x');
        }
        let change = passages(&old.join(" "), &new.join(" "));
        assert_eq!(change.passages.len(), MAX_PASSAGES);
        assert_eq!(change.more, 50 - MAX_PASSAGES);
    }

    #[test]
    fn large_rewrites_are_bounded() {
        let old: String = (0..MAX_TOKENS + 1).map(|n| format!("a{n} ")).collect();
        let new: String = (0..MAX_TOKENS + 1).map(|n| format!("b{n} ")).collect();
        let started = std::time::Instant::now();
        assert_eq!(
            ops(&format!("same {old} end"), &format!("same {new} end")),
            Script::Rewritten {
                removed: MAX_TOKENS + 1,
                added: MAX_TOKENS + 1
            }
        );
        // Within the token bound, but too many edits for Myers.
        let old: String = (0..5_000).map(|n| format!("a{n} ")).collect();
        let new: String = (0..5_000).map(|n| format!("b{n} ")).collect();
        assert_eq!(
            passages(&old, &new).rewritten,
            Some(Rewritten {
                removed: 5_000,
                added: 5_000
            })
        );
        // A long page with one change far in: the common ends are trimmed, not compared.
        let long: String = (0..200_000).map(|n| format!("w{n} ")).collect();
        let edited = long.replacen("w100000 ", "changed ", 1);
        assert_eq!(
            shown_all(&long, &edited),
            [
                "…w99996 w99997 w99998 w99999 [-w100000-] {+changed+} w100001 w100002 w100003 w100004…"
            ]
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_page_text_is_its_body_visible_text() {
        let page = "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\
            <head><title>第1章 &amp; 猫</title><style>p { color: red }</style></head>\
            <body><h1>Chapter <em>one</em></h1><p>A  &lt;b&gt;\n line</p><p>next</p>\
            <script>var x = 1;</script><p><ruby>猫<rp>(</rp><rt>ねこ</rt><rp>)</rp></ruby>&#x2014;x</p>\
            </body></html>";
        assert_eq!(
            page_text(page),
            PageText {
                title: Some("第1章 & 猫".into()),
                text: "Chapter one A <b> line next 猫ねこ—x".into(),
            }
        );
        // No title: the first heading.
        let page = "<html><head/><body><section><h2>Part <b>2</b></h2><h1>Later</h1></section></body></html>";
        assert_eq!(page_text(page).title.as_deref(), Some("Part 2"));
    }
}
