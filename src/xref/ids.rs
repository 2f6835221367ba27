//! Names: heading ids from text, file stems, and the small URL and path helpers links need.
use std::collections::HashSet;
use std::path::Path;

pub use crate::href::percent_decode;

pub fn has_scheme(href: &str) -> bool {
    match href.split_once(':') {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && !href.starts_with('/')
        }
        None => false,
    }
}

/// An ASCII file stem safe in an EPUB (`第1章.md` → `chapter`); duplicates get a suffix.
pub fn file_stem(rel: &Path) -> String {
    let raw = rel
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!("ch-{s}").trim_end_matches('-').to_string()
    } else {
        s
    }
}

pub fn unique(taken: &mut HashSet<String>, base: &str) -> String {
    let mut s = base.to_string();
    let mut n = 1;
    while !taken.insert(s.clone()) {
        n += 1;
        s = format!("{base}-{n}");
    }
    s
}

/// A heading id from its text, GitHub-style: letters and digits kept (Japanese too), spaces to
/// `-`. Prefixed with the chapter stem when nothing usable is left.
pub fn slug(text: &str, stem: &str) -> String {
    let mut s = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if (c == ' ' || c == '-' || c == '_' || c == '\u{3000}') && !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_matches('-').to_string();
    match s.chars().next() {
        None => format!("{stem}-section"),
        // XML ids must not start with a digit.
        Some(c) if !c.is_alphabetic() => format!("{stem}-{s}"),
        Some(_) => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::normalize;
    use std::collections::HashSet;
    use std::path::PathBuf;

    #[test]
    fn slugs_keep_japanese_and_never_start_with_a_digit() {
        assert_eq!(slug("Getting Started", "ch01"), "getting-started");
        assert_eq!(slug("はじめに", "ch01"), "はじめに");
        assert_eq!(slug("1.2 Setup", "ch01"), "ch01-12-setup");
        assert_eq!(slug("!!", "ch01"), "ch01-section");
    }

    #[test]
    fn stems_are_ascii_and_unique() {
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, &file_stem(Path::new("ch01.md"))), "ch01");
        assert_eq!(
            unique(&mut taken, &file_stem(Path::new("other/ch01.md"))),
            "ch01-2"
        );
        assert_eq!(file_stem(Path::new("序章.md")), "ch");
        assert_eq!(file_stem(Path::new("01-intro.md")), "ch-01-intro");
        // A chapter page's name is a URL as it is, whatever its source is called.
        for name in [
            "第1章 はじめに.md",
            "chapter one.re",
            "a#b%c?.xml",
            "100% [x].md",
        ] {
            let stem = file_stem(Path::new(name));
            assert_eq!(crate::href::href(&stem), stem);
            assert_eq!(crate::href::container_name(&stem), stem);
        }
    }

    #[test]
    fn normalize_and_schemes() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.md")),
            PathBuf::from("a/c.md")
        );
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
        assert!(has_scheme("https://example.com"));
        assert!(has_scheme("mailto:a@b"));
        assert!(!has_scheme("ch02.md#x"));
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("%E3%81%82%あ%"), "あ%あ%");
    }
}
