//! CJK-friendly emphasis: `**「強調」**の` is strong, as Japanese and Chinese authors mean it.
//!
//! CommonMark's flanking rules treat CJK punctuation like any punctuation, so a `**` between
//! `」` and `の` can neither open nor close, and the asterisks are printed
//! (commonmark-spec#650). The CommonMark CJK-friendly amendments (tats-u/markdown-cjk-friendly,
//! adopted by comrak and merged into pulldown-cmark but not released in 0.13) relax them next
//! to CJK characters. seihon applies them after pulldown-cmark: in a block where a delimiter
//! run's flanking differs under the amendments, the emphasis pulldown-cmark found is undone
//! into its delimiter runs and CommonMark's process of emphasis runs again with the amended
//! rules; every other block keeps pulldown-cmark's events untouched. Escaped delimiters (`\*`),
//! code and text that is not the source as written (entities) are never touched.
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

use crate::eaw;

type Events<'a> = Vec<(Event<'a>, Range<usize>)>;

/// The events with emphasis as the amendments find it.
pub fn apply<'a>(mut events: Events<'a>, source: &'a str) -> Events<'a> {
    if !source.contains(['*', '_']) {
        return events;
    }
    let affected = affected(&events, source);
    if !affected.iter().any(|&a| a) {
        return events;
    }
    undo_emphasis(&mut events, &affected, source);
    let (events, affected) = merged(events, affected, source);
    let mut delims = runs(&events, &affected, source);
    pair(&mut delims);
    rewrite(events, &delims, source)
}

/// Whether each event is in a block (paragraph, heading, cell, tight list item, term) whose
/// source holds a delimiter run the amendments read differently from CommonMark.
fn affected(events: &[(Event, Range<usize>)], source: &str) -> Vec<bool> {
    let mut out = Vec::with_capacity(events.len());
    let mut blocks: Vec<bool> = Vec::new();
    for (event, range) in events {
        match event {
            Event::Start(tag) if is_inline_block(tag) => {
                blocks.push(differs(source, range.clone()));
            }
            Event::End(end) if is_inline_block_end(end) => {
                out.push(blocks.pop().unwrap_or(false));
                continue;
            }
            _ => {}
        }
        out.push(blocks.last().copied().unwrap_or(false));
    }
    out
}

fn is_inline_block(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::TableCell
            | Tag::Item
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
    )
}

fn is_inline_block_end(end: &TagEnd) -> bool {
    matches!(
        end,
        TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::TableCell
            | TagEnd::Item
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
    )
}

/// Whether the block at `block` holds an unescaped delimiter run that can open or close under
/// the amendments and not under CommonMark, or the other way round.
fn differs(source: &str, block: Range<usize>) -> bool {
    delimiter_runs(source, block).into_iter().any(|(ch, run)| {
        neighbours(source, run, ch).is_some_and(|(prev, next)| {
            abilities(ch, &prev, next, true) != abilities(ch, &prev, next, false)
        })
    })
}

/// The runs of `*` and `_` within `within` of `source` (a run may not end inside it).
fn delimiter_runs(source: &str, within: Range<usize>) -> Vec<(u8, Range<usize>)> {
    let bytes = &source.as_bytes()[..within.end];
    let mut out = Vec::new();
    let mut j = within.start;
    while j < bytes.len() {
        let ch = bytes[j];
        if ch != b'*' && ch != b'_' {
            j += 1;
            continue;
        }
        let start = j;
        while j < bytes.len() && bytes[j] == ch {
            j += 1;
        }
        out.push((ch, start..j));
    }
    out
}

/// The emphasis pulldown-cmark found in the affected blocks turned back into the text of its
/// delimiters, for [`pair`] to do again.
fn undo_emphasis<'a>(events: &mut [(Event<'a>, Range<usize>)], affected: &[bool], source: &'a str) {
    for (i, (event, range)) in events.iter_mut().enumerate() {
        if !affected[i] {
            continue;
        }
        let (n, opening) = match event {
            Event::Start(Tag::Emphasis) => (1, true),
            Event::End(TagEnd::Emphasis) => (1, false),
            Event::Start(Tag::Strong) => (2, true),
            Event::End(TagEnd::Strong) => (2, false),
            _ => continue,
        };
        let at = if opening {
            range.start..range.start + n
        } else {
            range.end - n..range.end
        };
        *event = Event::Text(CowStr::Borrowed(&source[at.clone()]));
        *range = at;
    }
}

/// The events with text events that follow each other in the source as one (pulldown-cmark
/// gives each character of a delimiter run it leaves as text an event of its own), and whether
/// each is in an affected block.
fn merged<'a>(events: Events<'a>, affected: Vec<bool>, source: &'a str) -> (Events<'a>, Vec<bool>) {
    let verbatim = |e: &Event, r: &Range<usize>| matches!(e, Event::Text(t) if source.get(r.clone()) == Some(&**t));
    let mut out: Events<'a> = Vec::with_capacity(events.len());
    let mut mask: Vec<bool> = Vec::with_capacity(events.len());
    for ((event, range), a) in events.into_iter().zip(affected) {
        if let (Some((last, last_range)), Some(&true)) = (out.last_mut(), mask.last())
            && a
            && last_range.end == range.start
            && verbatim(last, last_range)
            && verbatim(&event, &range)
        {
            last_range.end = range.end;
            *last = Event::Text(CowStr::Borrowed(&source[last_range.clone()]));
            continue;
        }
        out.push((event, range));
        mask.push(a);
    }
    (out, mask)
}

/// A run of `*` or `_` in an affected block: where it is, what it may do, and what pairing
/// used of it.
#[derive(Debug)]
struct Delim {
    event: usize,
    /// Its bytes in the source.
    range: Range<usize>,
    ch: u8,
    /// The innermost open element it is in (a link, …): runs pair only inside the same one.
    container: usize,
    can_open: bool,
    can_close: bool,
    /// Characters not yet used by a pair.
    left: usize,
    /// Characters used from the start of the run to close and from its end to open, each
    /// pair's count (2: strong), inner first.
    closes: Vec<usize>,
    opens: Vec<usize>,
}

impl Delim {
    fn used(&self) -> bool {
        !self.opens.is_empty() || !self.closes.is_empty()
    }
}

/// The delimiter runs of the verbatim text events of the affected blocks, outside code.
fn runs(events: &[(Event, Range<usize>)], affected: &[bool], source: &str) -> Vec<Delim> {
    let mut out = Vec::new();
    // Each open element: its id, and whether it is code (no emphasis inside).
    let mut stack: Vec<(usize, bool)> = Vec::new();
    let mut next_id = 1;
    for (i, (event, range)) in events.iter().enumerate() {
        match event {
            Event::Start(tag) => {
                let code = matches!(
                    tag,
                    Tag::CodeBlock(_) | Tag::MetadataBlock(_) | Tag::HtmlBlock
                );
                stack.push((next_id, code || stack.last().is_some_and(|s| s.1)));
                next_id += 1;
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Text(text) if affected[i] && !stack.last().is_some_and(|s| s.1) => {
                if source.get(range.clone()) != Some(&**text) {
                    continue;
                }
                let container = stack.last().map_or(0, |s| s.0);
                for (ch, at) in delimiter_runs(source, range.clone()) {
                    if let Some(d) = delim(source, at, ch, i, container) {
                        out.push(d);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The run at `at` with its flanking under the amendments, or `None` when it is escaped or
/// runs on into source outside its text event.
fn delim(source: &str, at: Range<usize>, ch: u8, event: usize, container: usize) -> Option<Delim> {
    let (prev, next) = neighbours(source, at.clone(), ch)?;
    let (can_open, can_close) = abilities(ch, &prev, next, true);
    Some(Delim {
        event,
        left: at.len(),
        range: at,
        ch,
        container,
        can_open,
        can_close,
        closes: Vec::new(),
        opens: Vec::new(),
    })
}

/// The two characters before the run at `at` (nearest first) and the one after it; `None`
/// when the run is escaped or is part of a longer run.
fn neighbours(source: &str, at: Range<usize>, ch: u8) -> Option<(Vec<char>, Option<char>)> {
    let before = &source[..at.start];
    let after = &source[at.end..];
    let backslashes = before.bytes().rev().take_while(|&b| b == b'\\').count();
    if backslashes % 2 == 1 || before.ends_with(ch as char) || after.starts_with(ch as char) {
        return None;
    }
    Some((before.chars().rev().take(2).collect(), after.chars().next()))
}

/// Whether a run of `ch` between `prev` (the characters before it, nearest first) and `next`
/// can open and close emphasis: CommonMark's rules, or with `cjk` the amended ones.
fn abilities(ch: u8, prev: &[char], next: Option<char>, cjk: bool) -> (bool, bool) {
    let space = |c: Option<char>| c.is_none_or(char::is_whitespace);
    let p = prev.first().copied();
    // A variation selector after a character stands for that character (the amendments'
    // sequences).
    let p_seq = match p {
        Some(c) if cjk && is_general_vs(c) => prev.get(1).copied(),
        other => other,
    };
    let (left, right) = if cjk {
        let next_non_cjk_punct = next.is_some_and(|c| is_punct(c) && !is_cjk(c));
        let prev_non_cjk_punct = p_seq.is_some_and(|c| is_punct(c) && !is_cjk(c));
        let left = !space(next)
            && (!next_non_cjk_punct
                || space(p)
                || prev_non_cjk_punct
                || p_seq.is_some_and(is_cjk)
                || p.is_some_and(is_ideographic_vs));
        let right = !space(p)
            && (!prev_non_cjk_punct
                || space(next)
                || next_non_cjk_punct
                || next.is_some_and(is_cjk));
        (left, right)
    } else {
        let punct = |c: Option<char>| c.is_some_and(is_punct);
        let left = !space(next) && (!punct(next) || space(p) || punct(p));
        let right = !space(p) && (!punct(p) || space(next) || punct(next));
        (left, right)
    };
    if ch == b'*' {
        return (left, right);
    }
    let prev_punct = p_seq.is_some_and(is_punct);
    let next_punct = next.is_some_and(is_punct);
    (
        left && (!right || prev_punct),
        right && (!left || next_punct),
    )
}

/// CommonMark's process of emphasis over the runs, with the amended flanking.
fn pair(delims: &mut [Delim]) {
    let mut closer = 0;
    while closer < delims.len() {
        if !delims[closer].can_close || delims[closer].left == 0 {
            closer += 1;
            continue;
        }
        let found = (0..closer).rev().find(|&o| {
            let (a, b) = (&delims[o], &delims[closer]);
            a.left > 0
                && a.can_open
                && a.ch == b.ch
                && a.container == b.container
                && !((a.can_close || b.can_open)
                    && (a.range.len() + b.range.len()) % 3 == 0
                    && !(a.range.len() % 3 == 0 && b.range.len() % 3 == 0))
        });
        let Some(opener) = found else {
            closer += 1;
            continue;
        };
        let n = if delims[opener].left >= 2 && delims[closer].left >= 2 {
            2
        } else {
            1
        };
        delims[opener].left -= n;
        delims[opener].opens.push(n);
        delims[closer].left -= n;
        delims[closer].closes.push(n);
        // Runs between the pair can no longer pair across it.
        for d in &mut delims[opener + 1..closer] {
            d.can_open = false;
            d.can_close = false;
        }
    }
}

/// The events with each used run split into its text and its emphasis events.
fn rewrite<'a>(
    events: Vec<(Event<'a>, Range<usize>)>,
    delims: &[Delim],
    source: &'a str,
) -> Vec<(Event<'a>, Range<usize>)> {
    let mut out = Vec::with_capacity(events.len() + 8);
    let mut d = delims.iter().filter(|d| d.used()).peekable();
    for (i, (event, range)) in events.into_iter().enumerate() {
        if d.peek().is_none_or(|x| x.event != i) {
            out.push((event, range));
            continue;
        }
        let mut at = range.start;
        let text = |r: Range<usize>| (Event::Text(CowStr::Borrowed(&source[r.clone()])), r);
        while let Some(run) = d.next_if(|x| x.event == i) {
            if run.range.start > at {
                out.push(text(at..run.range.start));
            }
            let mut pos = run.range.start;
            for &n in &run.closes {
                let end = if n == 2 {
                    TagEnd::Strong
                } else {
                    TagEnd::Emphasis
                };
                out.push((Event::End(end), pos..pos + n));
                pos += n;
            }
            let opened: usize = run.opens.iter().sum();
            let rest_end = run.range.end - opened;
            if rest_end > pos {
                out.push(text(pos..rest_end));
            }
            let mut pos = rest_end;
            // Used from the end, inner first: the outer one starts first.
            for &n in run.opens.iter().rev() {
                let tag = if n == 2 { Tag::Strong } else { Tag::Emphasis };
                out.push((Event::Start(tag), pos..pos + n));
                pos += n;
            }
            at = run.range.end;
        }
        if range.end > at {
            out.push(text(at..range.end));
        }
    }
    out
}

/// A CJK character of the amendments: East Asian Wide, Fullwidth or Halfwidth and not an
/// emoji, or Hangul.
fn is_cjk(c: char) -> bool {
    (eaw::is_wide(c) && !is_emoji(c)) || eaw::is_hangul(c)
}

/// Characters shown as emoji by default (those East Asian Width calls wide).
fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x231A..=0x23FF | 0x25FD..=0x27BF | 0x2B1B..=0x2B55 | 0x1F000..=0x1FAFF)
}

fn is_general_vs(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0E)
}

fn is_ideographic_vs(c: char) -> bool {
    matches!(c as u32, 0xE0100..=0xE01EF)
}

/// CommonMark's Unicode punctuation (general categories P and S), for the characters books use.
fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c as u32,
        0xA1..=0xBF | 0xD7 | 0xF7
        | 0x2010..=0x2027 | 0x2030..=0x205E | 0x20A0..=0x20C0 | 0x2100..=0x214F
        | 0x2190..=0x23FF | 0x2500..=0x27BF | 0x2E00..=0x2E7F
        | 0x3001..=0x3004 | 0x3008..=0x3020 | 0x3030 | 0x303D | 0x30A0 | 0x30FB
        | 0xFE10..=0xFE19 | 0xFE30..=0xFE6B
        | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65 | 0xFFE0..=0xFFEE)
}

#[cfg(test)]
mod tests {
    use pulldown_cmark::{Options, Parser};

    use super::*;

    /// The paragraph's events as a short HTML-like string.
    fn render(md: &str) -> String {
        let events: Vec<_> = Parser::new_ext(md, Options::ENABLE_STRIKETHROUGH)
            .into_offset_iter()
            .collect();
        let mut out = String::new();
        for (e, _) in apply(events, md) {
            match e {
                Event::Text(t) => out.push_str(&t),
                Event::Code(t) => out.push_str(&format!("`{t}`")),
                Event::Start(Tag::Strong) => out.push_str("<b>"),
                Event::End(TagEnd::Strong) => out.push_str("</b>"),
                Event::Start(Tag::Emphasis) => out.push_str("<i>"),
                Event::End(TagEnd::Emphasis) => out.push_str("</i>"),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn emphasis_next_to_cjk_punctuation() {
        assert_eq!(render("**「強調」**の"), "<b>「強調」</b>の");
        assert_eq!(render("これは**重要。**です"), "これは<b>重要。</b>です");
        assert_eq!(render("*（注）*を見よ"), "<i>（注）</i>を見よ");
        assert_eq!(render("**“quote”**の"), "<b>“quote”</b>の");
        assert_eq!(
            render("패키지를 **`npm publish`**를 실행"),
            "패키지를 <b>`npm publish`</b>를 실행"
        );
        assert_eq!(
            render("前**「一」と「二」**後、*a*"),
            "前<b>「一」と「二」</b>後、<i>a</i>"
        );
    }

    #[test]
    fn what_commonmark_finds_stays_and_what_is_no_emphasis_stays_text() {
        assert_eq!(render("**強調**の *a* b"), "<b>強調</b>の <i>a</i> b");
        assert_eq!(render("a ** b ** c"), "a ** b ** c");
        assert_eq!(
            render("2*3*4 と snake_case_name"),
            "2<i>3</i>4 と snake_case_name"
        );
        assert_eq!(render("\\**「強調」**の"), "**「強調」**の");
        assert_eq!(render("`**「x」**の`"), "`**「x」**の`");
        assert_eq!(render("**「開く」だけ"), "**「開く」だけ");
    }

    #[test]
    fn triple_runs_nest_strong_and_emphasis() {
        assert_eq!(render("***「両方」***の"), "<i><b>「両方」</b></i>の");
        // pulldown-cmark pairs these wrongly under CommonMark's rules; the block is done again.
        assert_eq!(
            render("**“quoted”**の場合、***「両方」***の場合。"),
            "<b>“quoted”</b>の場合、<i><b>「両方」</b></i>の場合。"
        );
    }
}
