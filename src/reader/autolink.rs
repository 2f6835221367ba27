//! GFM's extended autolinks: bare web addresses (`https://…`, `www.…`) and e-mail addresses in
//! running text become links, as GitHub and pandoc's `gfm` make them (GFM spec 0.29, §6.9).
//! pulldown-cmark does not implement the extension, so the Markdown reader applies this to the
//! text it reads outside links and code. The link's text is the address exactly as written.
//!
//! One deliberate difference: an address ends at the first character that is not ASCII, since
//! Japanese prose runs on after an address without a space (`https://example.com を` is written
//! `https://example.comを`); GFM would take the kana into the address.
use std::ops::Range;

/// A bare address found in a text: where it is, and the link it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Autolink {
    pub range: Range<usize>,
    pub href: String,
}

/// Every extended autolink of `text`, in order.
pub fn find(text: &str) -> Vec<Autolink> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let found = if bytes[i] == b'@' {
            email(text, i, out.last().map_or(0, |l: &Autolink| l.range.end))
        } else if may_start(text, i) {
            web(text, i)
        } else {
            None
        };
        match found {
            Some(link) => {
                i = link.range.end;
                out.push(link);
            }
            None => i += 1,
        }
    }
    out
}

/// Whether an address may start at byte `i`: at the start, after white space, after `*`, `_`,
/// `~` or `(` (GFM), or after a character that is not ASCII (Japanese has no spaces).
fn may_start(text: &str, i: usize) -> bool {
    if !text.is_char_boundary(i) {
        return false;
    }
    match text[..i].chars().next_back() {
        None => true,
        Some(c) => c.is_whitespace() || "*_~(".contains(c) || !c.is_ascii(),
    }
}

/// A `http://`, `https://` or `www.` address starting at `i`.
fn web(text: &str, i: usize) -> Option<Autolink> {
    let rest = &text[i..];
    let starts = |p: &str| {
        rest.get(..p.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(p))
    };
    let (scheme_len, www) = if starts("https://") {
        (8, false)
    } else if starts("http://") {
        (7, false)
    } else if starts("www.") {
        (0, true)
    } else {
        return None;
    };
    let domain_len = domain(&rest[scheme_len..], www)?;
    let mut end = scheme_len + domain_len;
    end += rest[end..]
        .find(|c: char| c.is_whitespace() || c == '<' || !c.is_ascii())
        .unwrap_or(rest.len() - end);
    let end = trim_end(&rest[..end]);
    if end <= scheme_len {
        return None;
    }
    let written = &rest[..end];
    let href = if www {
        format!("http://{written}")
    } else {
        written.to_string()
    };
    Some(Autolink {
        range: i..i + end,
        href,
    })
}

/// The length of a valid domain at the start of `s`: segments of letters, digits, `_` and
/// `-` separated by periods, no `_` in the last two; a period is required after `www.` only
/// (`http://localhost` links, as in cmark-gfm).
fn domain(s: &str, need_period: bool) -> Option<usize> {
    let is_part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut len = 0;
    let mut segments: Vec<&str> = Vec::new();
    loop {
        let seg = s[len..]
            .find(|c: char| !is_part(c))
            .unwrap_or(s.len() - len);
        if seg == 0 {
            break;
        }
        segments.push(&s[len..len + seg]);
        len += seg;
        // A period continues the domain only when a segment follows it.
        if s[len..].starts_with('.') && s[len + 1..].starts_with(is_part) {
            len += 1;
        } else {
            break;
        }
    }
    if segments.is_empty() || (need_period && segments.len() < 2) {
        return None;
    }
    let last_two = &segments[segments.len().saturating_sub(2)..];
    if last_two.iter().any(|seg| seg.contains('_')) {
        return None;
    }
    Some(len)
}

/// The end of an address once GFM's trailing punctuation, unbalanced closing parentheses and
/// a trailing entity-like `&name;` are left out.
fn trim_end(link: &str) -> usize {
    let mut end = link.len();
    loop {
        let s = &link[..end];
        let Some(last) = s.chars().next_back() else {
            return 0;
        };
        let unbalanced = || s.matches(')').count() > s.matches('(').count();
        if "?!.,:*_~'\"".contains(last) || (last == ')' && unbalanced()) {
            end -= 1;
        } else if last == ';' {
            let body = s[..end - 1].trim_end_matches(|c: char| c.is_ascii_alphanumeric());
            end = if body.ends_with('&') && body.len() < end - 1 {
                body.len() - 1
            } else {
                end - 1
            };
        } else {
            return end;
        }
    }
}

/// An e-mail address around the `@` at byte `at`, not reaching back before `floor`.
fn email(text: &str, at: usize, floor: usize) -> Option<Autolink> {
    let bytes = text.as_bytes();
    let is_local = |b: u8| b.is_ascii_alphanumeric() || b".+-_".contains(&b);
    let mut start = at;
    while start > floor && is_local(bytes[start - 1]) {
        start -= 1;
    }
    if start == at {
        return None;
    }
    // The address must not run on from a word of other characters (`a/b@c.d` is no address).
    if start > 0 && (bytes[start - 1] == b'/' || bytes[start - 1] == b':') {
        return None;
    }
    let is_part = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.';
    let mut end = at + 1;
    while end < bytes.len() && is_part(bytes[end]) {
        end += 1;
    }
    while end > at + 1 && bytes[end - 1] == b'.' {
        end -= 1;
    }
    let domain = &text[at + 1..end];
    if !domain.contains('.') || domain.ends_with(['-', '_']) || domain.starts_with('.') {
        return None;
    }
    Some(Autolink {
        range: start..end,
        href: format!("mailto:{}", &text[start..end]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(text: &str) -> Vec<(&str, String)> {
        find(text)
            .into_iter()
            .map(|l| (&text[l.range.clone()], l.href))
            .collect()
    }

    #[test]
    fn web_addresses_as_gfm_finds_them() {
        assert_eq!(
            links("Visit www.commonmark.org/help for more."),
            [(
                "www.commonmark.org/help",
                "http://www.commonmark.org/help".to_string()
            )]
        );
        assert_eq!(
            links("see https://example.com/a?b=c, and http://localhost:8080/x."),
            [
                (
                    "https://example.com/a?b=c",
                    "https://example.com/a?b=c".into()
                ),
                ("http://localhost:8080/x", "http://localhost:8080/x".into()),
            ]
        );
        // Parentheses: balanced ones stay, the unbalanced closing one goes.
        assert_eq!(
            links("(www.google.com/search?q=Markup+(business))")[0].0,
            "www.google.com/search?q=Markup+(business)"
        );
        // A trailing entity-like reference and trailing punctuation are left out.
        assert_eq!(
            links("www.google.com/search?q=commonmark&hl;")[0].0,
            "www.google.com/search?q=commonmark"
        );
        assert_eq!(links("www.example.com/a;")[0].0, "www.example.com/a");
        assert_eq!(links("<www.example.com>"), []);
        assert_eq!(
            links("www.commonmark.org/a.b."),
            [(
                "www.commonmark.org/a.b",
                "http://www.commonmark.org/a.b".into()
            )]
        );
    }

    #[test]
    fn what_is_not_an_address() {
        assert_eq!(links("www. and www"), []);
        assert_eq!(links("www.a_b.c_d"), []);
        assert_eq!(links("xhttp://example.com"), []);
        assert_eq!(links("https://"), []);
        assert_eq!(links("http:golang.org"), []);
        assert_eq!(links("no link here. Really"), []);
    }

    #[test]
    fn an_address_in_japanese_prose_ends_before_the_kana() {
        assert_eq!(
            links("詳しくはhttps://example.com/docsを参照。"),
            [(
                "https://example.com/docs",
                "https://example.com/docs".into()
            )]
        );
        assert_eq!(
            links("（https://example.com/）"),
            [("https://example.com/", "https://example.com/".into())]
        );
    }

    #[test]
    fn email_addresses() {
        assert_eq!(
            links("mail foo@bar.baz or a.b-c+d@x.example.org."),
            [
                ("foo@bar.baz", "mailto:foo@bar.baz".into()),
                (
                    "a.b-c+d@x.example.org",
                    "mailto:a.b-c+d@x.example.org".into()
                ),
            ]
        );
        assert_eq!(links("hello@mail+xyz.example isn't valid"), []);
        assert_eq!(links("a@b-"), []);
        assert_eq!(links("@user"), []);
        assert_eq!(links("git@github"), []);
    }
}
