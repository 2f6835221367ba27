//! Colour for a terminal, as cargo and rustc use it: the severity of a finding (errors red,
//! warnings yellow, help cyan), its location in bold, and the verb of a result line in green.
//! Lines are coloured by their shape, so the messages themselves stay plain text (logs, the
//! preview and the failure mail get them as they are).
use std::borrow::Cow;

use super::Stream;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const GREEN: &str = "\x1b[1;32m";
const CYAN: &str = "\x1b[1;36m";

/// `text` with its lines coloured.
pub fn paint(text: &str, stream: Stream) -> Cow<'_, str> {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        paint_line(body, stream, &mut out);
        out.push_str(end);
    }
    Cow::Owned(out)
}

fn paint_line(line: &str, stream: Stream, out: &mut String) {
    let mut put = |parts: &[(&str, Option<&str>)]| {
        for (text, style) in parts {
            match style {
                Some(style) if !text.is_empty() => {
                    out.push_str(style);
                    out.push_str(text);
                    out.push_str(RESET);
                }
                _ => out.push_str(text),
            }
        }
    };
    // `  help: …` under a finding.
    if let Some(rest) = line.strip_prefix("  help:") {
        return put(&[
            ("  ", None),
            ("help", Some(CYAN)),
            (":", None),
            (rest, None),
        ]);
    }
    // `── books/neko/ch01.md: 2 warnings`, the head of a file's findings.
    if let Some(rest) = line.strip_prefix("── ") {
        return put(&[("── ", None), (rest, Some(BOLD))]);
    }
    // `path:line:col: error: …`, `error: …`, `warning: …`.
    for (word, style) in [("error", RED), ("warning", YELLOW)] {
        if let Some(rest) = line.strip_prefix(word).and_then(|r| r.strip_prefix(':')) {
            return put(&[(word, Some(style)), (":", None), (rest, None)]);
        }
        let marker = format!(": {word}: ");
        if let Some(at) = line.find(&marker) {
            let (place, rest) = line.split_at(at);
            let rest = &rest[marker.len()..];
            return put(&[
                (place, Some(BOLD)),
                (": ", None),
                (word, Some(style)),
                (": ", None),
                (rest, None),
            ]);
        }
    }
    // `[2/3] building books/neko`.
    if let Some(rest) = line.strip_prefix('[')
        && let Some((count, rest)) = rest.split_once("] ")
        && count
            .split('/')
            .all(|n| n.chars().all(|c| c.is_ascii_digit()))
        && let Some((verb, rest)) = rest.split_once(' ')
    {
        return put(&[
            ("[", None),
            (count, None),
            ("] ", None),
            (verb, Some(GREEN)),
            (" ", None),
            (rest, None),
        ]);
    }
    // Result lines on stdout: `built neko → dist/neko.epub (4 chapters)`.
    if stream == Stream::Out
        && let Some((verb, rest)) = line.split_once(' ')
        && ["built", "checked", "released", "created"].contains(&verb)
    {
        return put(&[(verb, Some(GREEN)), (" ", None), (rest, None)]);
    }
    put(&[(line, None)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_has_its_place_in_bold_and_its_severity_in_colour() {
        let got = paint(
            "── a.md: 1 error\na.md:3:1: error: no such id\n  help: give it one\n",
            Stream::Err,
        );
        assert_eq!(
            got,
            "── \x1b[1ma.md: 1 error\x1b[0m\n\x1b[1ma.md:3:1\x1b[0m: \x1b[1;31merror\x1b[0m: no such id\n  \x1b[1;36mhelp\x1b[0m: give it one\n"
        );
    }

    #[test]
    fn warnings_results_and_counters_are_coloured_and_other_lines_are_not() {
        assert_eq!(
            paint("warning: slow\n", Stream::Err),
            "\x1b[1;33mwarning\x1b[0m: slow\n"
        );
        assert_eq!(
            paint("[1/3] building books/a\n", Stream::Err),
            "[1/3] \x1b[1;32mbuilding\x1b[0m books/a\n"
        );
        assert_eq!(
            paint("built a → dist/a.epub\n", Stream::Out),
            "\x1b[1;32mbuilt\x1b[0m a → dist/a.epub\n"
        );
        assert_eq!(
            paint("read 4 of 4 chapters\n", Stream::Err),
            "read 4 of 4 chapters\n"
        );
        // A message that merely mentions an error is not a finding.
        assert_eq!(
            paint("no errors were found\n", Stream::Err),
            "no errors were found\n"
        );
    }
}
