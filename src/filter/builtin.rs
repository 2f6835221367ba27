//! The built-in filters, written in Rust over the XHTML tree.
//!
//! | name | what it does |
//! | --- | --- |
//! | `external-links` | an `a` whose `href` has a scheme (`https:`, `mailto:`) gets class `external` and, when it has no `rel`, `rel="external"` |
//! | `ja-spacing` | Japanese punctuation and spacing in text outside `pre`, `code`, `kbd`, `samp`, `script`, `style` (see [`ja_spacing`]) |
//! | `image-size` | an `img` in a `div.image` gets class `fit` when the figure has no size class (`width-…`, `height-…`) and the image no `width`/`height` |
//! | `table-wrap` | each `table` whose parent is not a `div.table` is wrapped in one |
//! | `house` | the house style: `table-wrap`, `image-size`, `external-links`; it never changes a character of the text, so `ja-spacing` (which does) is only ever run when a book asks for it |
use crate::dom::{Document, Element, Node};

use super::{Filter, FilterContext, FilterError};

/// The names of the built-in filters, sorted.
pub const NAMES: &[&str] = &[
    "external-links",
    "house",
    "image-size",
    "ja-spacing",
    "table-wrap",
];

/// The built-in filter of that name.
pub fn lookup(name: &str) -> Option<Box<dyn Filter>> {
    Some(match name {
        "external-links" => Box::new(ExternalLinks),
        "ja-spacing" => Box::new(JaSpacing),
        "image-size" => Box::new(ImageSize),
        "table-wrap" => Box::new(TableWrap),
        "house" => Box::new(House),
        _ => return None,
    })
}

/// `external-links`.
pub struct ExternalLinks;

impl Filter for ExternalLinks {
    fn name(&self) -> &str {
        "external-links"
    }

    fn apply(&self, doc: &mut Document, _ctx: &FilterContext) -> Result<(), FilterError> {
        doc.root.walk_mut(&mut |e| {
            if e.name == "a" && e.attr("href").is_some_and(has_scheme) {
                e.add_class("external");
                if e.attr("rel").is_none() {
                    e.set_attr("rel", "external");
                }
            }
        });
        Ok(())
    }
}

/// Whether a URL starts with a scheme (`https:`, `mailto:`), i.e. leaves the book.
pub fn has_scheme(href: &str) -> bool {
    let Some((scheme, _)) = href.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `ja-spacing`.
pub struct JaSpacing;

/// Text in these elements is left exactly as written.
const VERBATIM: &[&str] = &["pre", "code", "kbd", "samp", "script", "style"];

impl Filter for JaSpacing {
    fn name(&self) -> &str {
        "ja-spacing"
    }

    fn apply(&self, doc: &mut Document, _ctx: &FilterContext) -> Result<(), FilterError> {
        fn visit(e: &mut Element) {
            if VERBATIM.contains(&e.name.as_str()) {
                return;
            }
            for child in &mut e.children {
                match child {
                    Node::Text(t) => {
                        let fixed = ja_spacing(t);
                        if fixed != *t {
                            *t = fixed;
                        }
                    }
                    Node::Element(c) => visit(c),
                    Node::Comment(_) => {}
                }
            }
        }
        visit(&mut doc.root);
        Ok(())
    }
}

/// Whether a character is Japanese text or Japanese punctuation: kana, kanji, the CJK symbols
/// (`、。「」々〆`, but not the ideographic space) and the full-width forms (`！？（）`).
pub fn is_japanese(c: char) -> bool {
    matches!(c,
        '\u{3001}'..='\u{303F}'   // CJK symbols and punctuation, except U+3000
        | '\u{3040}'..='\u{309F}' // hiragana
        | '\u{30A0}'..='\u{30FF}' // katakana (with ー and ・)
        | '\u{31F0}'..='\u{31FF}' // katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF01}'..='\u{FF60}' // full-width forms
        | '\u{FF61}'..='\u{FF9F}' // half-width katakana
        | '\u{20000}'..='\u{2FA1F}' // CJK extensions B and later
    )
}

/// The `ja-spacing` normalisation of one text node. Conservative on purpose:
///
/// 1. a run of full-width spaces (U+3000) becomes one;
/// 2. a half-width `!` or `?` right after Japanese text becomes `！` or `？` (so `本当?!` →
///    `本当？！`); after Latin text it is left alone;
/// 3. a run of ASCII dots whose length is a multiple of three becomes `…` per three dots
///    (`...` → `…`, `......` → `……`); other runs (`..`, `....`) are left alone;
/// 4. ASCII spaces, tabs and line breaks between two Japanese characters are removed
///    (`日本 語` → `日本語`, `です。 次に` → `です。次に`); between Japanese and Latin text
///    (`日本語 Rust`) they stay.
///
/// Each text node is treated on its own: a space next to an inline element (`語 <em>…`) stays.
pub fn ja_spacing(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\u{3000}' => {
                out.push(c);
                while chars.get(i + 1) == Some(&'\u{3000}') {
                    i += 1;
                }
            }
            '!' | '?' if out.last().is_some_and(|&p| is_japanese(p)) => {
                out.push(if c == '!' { '！' } else { '？' });
            }
            '.' => {
                let run = chars[i..].iter().take_while(|&&d| d == '.').count();
                if run % 3 == 0 {
                    out.extend(std::iter::repeat_n('…', run / 3));
                } else {
                    out.extend(std::iter::repeat_n('.', run));
                }
                i += run;
                continue;
            }
            ' ' | '\t' | '\n' | '\r' => {
                let run = chars[i..]
                    .iter()
                    .take_while(|d| matches!(d, ' ' | '\t' | '\n' | '\r'))
                    .count();
                let before = out.last().is_some_and(|&p| is_japanese(p));
                let after = chars.get(i + run).is_some_and(|&n| is_japanese(n));
                if !(before && after) {
                    out.extend_from_slice(&chars[i..i + run]);
                }
                i += run;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// `image-size`.
pub struct ImageSize;

fn has_size_class(e: &Element) -> bool {
    e.attr("class").is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|c| c.starts_with("width-") || c.starts_with("height-"))
    })
}

impl Filter for ImageSize {
    fn name(&self) -> &str {
        "image-size"
    }

    fn apply(&self, doc: &mut Document, _ctx: &FilterContext) -> Result<(), FilterError> {
        doc.root.walk_mut(&mut |e| {
            if e.name == "div" && e.has_class("image") && !has_size_class(e) {
                for child in &mut e.children {
                    if let Node::Element(c) = child {
                        c.walk_mut(&mut |img| {
                            if img.name == "img"
                                && img.attr("width").is_none()
                                && img.attr("height").is_none()
                                && !has_size_class(img)
                            {
                                img.add_class("fit");
                            }
                        });
                    }
                }
            }
        });
        Ok(())
    }
}

/// `table-wrap`.
pub struct TableWrap;

impl Filter for TableWrap {
    fn name(&self) -> &str {
        "table-wrap"
    }

    fn apply(&self, doc: &mut Document, _ctx: &FilterContext) -> Result<(), FilterError> {
        fn visit(e: &mut Element) {
            let is_wrapper = e.name == "div" && e.has_class("table");
            for child in &mut e.children {
                let Node::Element(c) = child else { continue };
                if c.name == "table" && !is_wrapper {
                    let table = std::mem::replace(&mut **c, Element::new("div"));
                    c.set_attr("class", "table");
                    c.push(table);
                }
                visit(c);
            }
        }
        visit(&mut doc.root);
        Ok(())
    }
}

/// `house`: the house style, a fixed composition of the built-ins that change markup only. The
/// author's text is theirs: `ja-spacing` rewrites characters, so it runs only where a book's
/// `filters:` names it.
pub struct House;

impl Filter for House {
    fn name(&self) -> &str {
        "house"
    }

    fn apply(&self, doc: &mut Document, ctx: &FilterContext) -> Result<(), FilterError> {
        TableWrap.apply(doc, ctx)?;
        ImageSize.apply(doc, ctx)?;
        ExternalLinks.apply(doc, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::tests::{ctx, run_filter};

    #[test]
    fn names_are_sorted_and_all_resolve() {
        let mut sorted = NAMES.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, NAMES);
        for name in NAMES {
            assert_eq!(lookup(name).unwrap().name(), *name);
        }
        assert!(lookup("nope").is_none());
    }

    #[test]
    fn external_links_get_class_and_rel() {
        let out = run_filter(
            &ExternalLinks,
            r##"<p><a href="https://example.com/">x</a> <a href="#sec1">y</a> <a href="ch02.xhtml">z</a> <a class="link" rel="nofollow" href="mailto:a@example.com">m</a></p>"##,
            "ja",
        );
        assert_eq!(
            out,
            r##"<p><a href="https://example.com/" class="external" rel="external">x</a> <a href="#sec1">y</a> <a href="ch02.xhtml">z</a> <a class="link external" rel="nofollow" href="mailto:a@example.com">m</a></p>"##
        );
    }

    #[test]
    fn scheme_detection() {
        assert!(has_scheme("http://a"));
        assert!(has_scheme("svn+ssh://a"));
        assert!(!has_scheme("ch01.xhtml#a:b"));
        assert!(!has_scheme(":x"));
        assert!(!has_scheme("images/a.png"));
    }

    #[test]
    fn ja_spacing_rules() {
        assert_eq!(ja_spacing("日本 語"), "日本語");
        assert_eq!(ja_spacing("です。 \n 次に"), "です。次に");
        assert_eq!(ja_spacing("日本語 Rust で"), "日本語 Rust で");
        assert_eq!(ja_spacing("本当?!"), "本当？！");
        assert_eq!(ja_spacing("Really?! 本当!"), "Really?! 本当！");
        assert_eq!(ja_spacing("待って...そして......"), "待って…そして……");
        assert_eq!(ja_spacing("a.. b.... c"), "a.. b.... c");
        assert_eq!(
            ja_spacing("はじめに\u{3000}\u{3000}\u{3000}本書"),
            "はじめに\u{3000}本書"
        );
        assert_eq!(ja_spacing("English text. Fine!"), "English text. Fine!");
    }

    #[test]
    fn ja_spacing_skips_code_and_pre() {
        let out = run_filter(
            &JaSpacing,
            "<div><p>日本 語?<code>a ... b?</code></p><pre>日本 語...</pre></div>",
            "ja",
        );
        assert_eq!(
            out,
            "<div><p>日本語？<code>a ... b?</code></p><pre>日本 語...</pre></div>"
        );
    }

    #[test]
    fn image_size_marks_unsized_images() {
        let out = run_filter(
            &ImageSize,
            r#"<div><div class="image"><img src="a.png" alt="a"/><p class="caption">図</p></div><div class="image width-050per"><img src="b.png" alt="b"/></div><div class="image"><img src="c.png" alt="c" width="10"/></div><p><img src="d.png" alt="d"/></p></div>"#,
            "ja",
        );
        assert_eq!(
            out,
            r#"<div><div class="image"><img src="a.png" alt="a" class="fit"/><p class="caption">図</p></div><div class="image width-050per"><img src="b.png" alt="b"/></div><div class="image"><img src="c.png" alt="c" width="10"/></div><p><img src="d.png" alt="d"/></p></div>"#
        );
    }

    #[test]
    fn table_wrap_wraps_only_bare_tables() {
        let out = run_filter(
            &TableWrap,
            r#"<div><table id="t1"><tr><td>1</td></tr></table><div class="table"><table><tr><td>2</td></tr></table></div></div>"#,
            "ja",
        );
        assert_eq!(
            out,
            r#"<div><div class="table"><table id="t1"><tr><td>1</td></tr></table></div><div class="table"><table><tr><td>2</td></tr></table></div></div>"#
        );
        // Applying it twice changes nothing more.
        let again = run_filter(&TableWrap, &out, "ja");
        assert_eq!(again, out);
    }

    #[test]
    fn house_composes_the_builtins_and_never_changes_the_text() {
        // A name written with a space, punctuation as typed: in every language, as written.
        let input = r#"<div><p>飯田 卓也、第６回 きっと...本当?! <a href="http://x">x</a></p><table><tr><td>1</td></tr></table></div>"#;
        for lang in ["ja", "en"] {
            assert_eq!(
                run_filter(&House, input, lang),
                r#"<div><p>飯田 卓也、第６回 きっと...本当?! <a href="http://x" class="external" rel="external">x</a></p><div class="table"><table><tr><td>1</td></tr></table></div></div>"#
            );
        }
        let _ = ctx("ja");
    }
}
