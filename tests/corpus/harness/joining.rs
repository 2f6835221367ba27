//! The author's text across line breaks: every plain paragraph of a Re:VIEW book, its lines
//! joined as Re:VIEW 5.11 joins them (`join_lines_to_paragraph`: with nothing, or with
//! `join_lines_by_lang: true` by the characters either side), must be in the EPUB character
//! for character, spaces included. Read from the sources independently of seihon's reader.
//!
//! A plain paragraph is one outside every block, with no inline command (`@<…>`) and no line
//! starting with white space (which may continue a list item): its text is exactly what the
//! author typed.
use std::path::Path;

use super::source::review_files;

/// A paragraph: file, first line, and its text joined the Re:VIEW way.
pub type Paragraph = (String, usize, String);

/// The plain paragraphs of a Re:VIEW book, in order.
pub fn review_paragraphs(book: &Path) -> Vec<Paragraph> {
    let config = std::fs::read_to_string(book.join("config.yml")).unwrap_or_default();
    let by_lang = config.lines().any(|l| {
        l.strip_prefix("join_lines_by_lang:")
            .is_some_and(|v| v.split('#').next().unwrap_or("").trim() == "true")
    });
    let mut out = Vec::new();
    for file in review_files(book) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        let name = file
            .strip_prefix(book)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        for (line, lines) in paragraphs(&text) {
            if lines
                .iter()
                .any(|l| l.contains("@<") || l.starts_with([' ', '\t']))
            {
                continue;
            }
            out.push((name.clone(), line, join(&lines, by_lang)));
        }
    }
    out
}

/// The paragraphs of a chapter outside blocks: (first line, lines), as Re:VIEW's compiler
/// finds them (a paragraph runs until a blank line, a `//` or a `#@` line).
fn paragraphs(source: &str) -> Vec<(usize, Vec<&str>)> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mut out: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut open = false;
    let mut in_block = false;
    for (i, line) in source.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if in_block {
            in_block = !line.starts_with("//}");
            continue;
        }
        let starts_syntax = line.trim().is_empty()
            || line.starts_with("//")
            || line.starts_with("#@")
            || (!open && is_other_syntax(line));
        if starts_syntax {
            open = false;
            if line.starts_with("//") && !line.starts_with("//}") && line.trim_end().ends_with('{')
            {
                in_block = true;
            }
            continue;
        }
        if open {
            out.last_mut().expect("an open paragraph").1.push(line);
        } else {
            out.push((i + 1, vec![line]));
            open = true;
        }
    }
    out
}

/// Headings and list items, which start what is not a paragraph.
fn is_other_syntax(line: &str) -> bool {
    let heading = line.starts_with('=')
        && line
            .trim_start_matches('=')
            .starts_with([' ', '\t', '[', '{']);
    heading || line.starts_with([' ', '\t', ':'])
}

/// Re:VIEW's joining: each line stripped (tabs that start it kept), then joined with nothing,
/// or by language: a space unless the character either side is East Asian wide and not Hangul.
fn join(lines: &[&str], by_lang: bool) -> String {
    let mut out = String::new();
    for line in lines {
        let tabs = line.len() - line.trim_start_matches('\t').len();
        let line = format!("{}{}", &line[..tabs], line[tabs..].trim());
        if by_lang
            && let (Some(a), Some(b)) = (out.chars().last(), line.chars().next())
            && !cjk(a)
            && !cjk(b)
        {
            out.push(' ');
        }
        out.push_str(&line);
    }
    out
}

/// East Asian wide (F, W, H) and not Hangul, in the blocks books use.
fn cjk(c: char) -> bool {
    let hangul = matches!(c as u32, 0x1100..=0x11FF | 0x3131..=0x318E | 0xAC00..=0xD7A3);
    let wide = matches!(c as u32,
        0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F | 0xFF01..=0xFFEE | 0x20000..=0x3FFFD);
    wide && !hangul
}

/// The paragraphs `text` (the EPUB's running text, blocks separated by line breaks) does not
/// hold as written, as `file:line: text`.
pub fn missing(paragraphs: &[Paragraph], text: &str) -> Vec<String> {
    paragraphs
        .iter()
        .filter(|(_, _, p)| !text.contains(p.as_str()))
        .map(|(f, l, p)| format!("{f}:{l}: {p}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_outside_blocks_joined_both_ways() {
        let source = "= T\n\n存在します。\nAndroidで\n\n//note{\n中\n//}\nOne\ntwo\n * item\n   more\n\n\tTabbed\n";
        let found = paragraphs(source);
        let lines: Vec<_> = found.iter().map(|(l, p)| (*l, p.clone())).collect();
        assert_eq!(
            lines,
            [
                (3, vec!["存在します。", "Androidで"]),
                (9, vec!["One", "two", " * item", "   more"]),
            ]
        );
        assert_eq!(
            join(&["存在します。", "Androidで"], false),
            "存在します。Androidで"
        );
        assert_eq!(
            join(&["存在します。", "Androidで"], true),
            "存在します。Androidで"
        );
        assert_eq!(join(&["One", "two"], true), "One two");
        assert_eq!(join(&["One", "two"], false), "Onetwo");
        assert_eq!(join(&["\tTabbed  "], false), "\tTabbed");
        assert_eq!(
            missing(&[("a.re".into(), 3, "One two".into())], "x\nOne two\n"),
            Vec::<String>::new()
        );
        assert_eq!(
            missing(&[("a.re".into(), 3, "One two".into())], "x\nOnetwo\n"),
            ["a.re:3: One two"]
        );
    }
}
