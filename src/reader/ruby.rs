//! Ruby in Markdown as Japanese Markdown writes it (denden markdown, VFM): `{漢字|かんじ}` is
//! group ruby over the whole base, `{漢字|かん|じ}` mono ruby, one reading per character of the
//! base. A `{…|…}` written only in ASCII (`{a|b}`, a regular expression, a set) is left as the
//! text it is, as is one whose readings do not match its base, or that is escaped (`\{`).
use std::ops::Range;

/// A part of a text: as written, or ruby (a base with its reading).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(Range<usize>),
    /// `at`: where the base starts.
    Ruby {
        at: usize,
        base: &'a str,
        reading: &'a str,
    },
}

/// The text cut into its plain parts and its ruby. `escaped(i)`: whether the character at byte
/// `i` was written after a backslash.
pub fn split(text: &str, escaped: impl Fn(usize) -> bool) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut plain = 0;
    let mut i = 0;
    while let Some(off) = text[i..].find('{') {
        let open = i + off;
        i = open + 1;
        if escaped(open) {
            continue;
        }
        let Some(len) = text[open + 1..].find(['}', '{', '\n']) else {
            break;
        };
        let close = open + 1 + len;
        if text.as_bytes()[close] != b'}' {
            continue;
        }
        let Some(rubies) = parse(&text[open + 1..close], open + 1) else {
            continue;
        };
        if open > plain {
            out.push(Piece::Text(plain..open));
        }
        out.extend(rubies);
        plain = close + 1;
        i = close + 1;
    }
    if plain < text.len() {
        out.push(Piece::Text(plain..text.len()));
    }
    out
}

/// The ruby of `inner` (what is between the braces, at byte `at`), or `None` when it is no
/// ruby.
fn parse(inner: &str, at: usize) -> Option<Vec<Piece<'_>>> {
    let mut parts = inner.split('|');
    let base = parts.next()?;
    let readings: Vec<&str> = parts.collect();
    let blank = |s: &str| {
        s.is_empty() || s.starts_with(char::is_whitespace) || s.ends_with(char::is_whitespace)
    };
    if readings.is_empty() || blank(base) || readings.iter().any(|r| blank(r)) || inner.is_ascii() {
        return None;
    }
    if readings.len() == 1 {
        return Some(vec![Piece::Ruby {
            at,
            base,
            reading: readings[0],
        }]);
    }
    let chars: Vec<(usize, char)> = base.char_indices().collect();
    if chars.len() != readings.len() {
        return None;
    }
    Some(
        chars
            .iter()
            .zip(readings)
            .map(|(&(i, c), reading)| Piece::Ruby {
                at: at + i,
                base: &base[i..i + c.len_utf8()],
                reading,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        split(text, |i| i > 0 && text.as_bytes()[i - 1] == b'\\')
            .into_iter()
            .map(|p| match p {
                Piece::Text(r) => text[r].to_string(),
                Piece::Ruby { base, reading, .. } => format!("<{base}/{reading}>"),
            })
            .collect()
    }

    #[test]
    fn group_and_mono_ruby() {
        assert_eq!(show("{漢字|かんじ}を読む"), "<漢字/かんじ>を読む");
        assert_eq!(show("{東京|とう|きょう}へ"), "<東/とう><京/きょう>へ");
        assert_eq!(
            show("{Tokyo|とうきょう} and {漢|kan}"),
            "<Tokyo/とうきょう> and <漢/kan>"
        );
    }

    #[test]
    fn what_is_not_ruby_stays_as_written() {
        for text in [
            "{a|b} and {x | x > 0}",
            "{東京|と|う|きょう}",
            "{漢字|}",
            "{|かんじ}",
            "{漢字}",
            "\\{漢字|かんじ}",
            "{漢字|かん\nじ}",
            "{ 漢字|かんじ}",
            "{{漢字|かんじ}",
        ] {
            let want = if text == "{{漢字|かんじ}" {
                "{<漢字/かんじ>"
            } else {
                text
            };
            assert_eq!(show(text), want, "{text}");
        }
    }
}
