//! Inline commands: `@<name>{…}`, `@<name>$…$`, `@<name>|…|`.
use super::block::builders;
use super::{Parser, Src};
use crate::codes;
use crate::doc::*;
use crate::math::Display;

/// Every inline command Re:VIEW knows.
const INLINES: &[&str] = &[
    "b", "i", "strong", "em", "tt", "code", "ttb", "tti", "u", "ins", "del", "sup", "sub", "ami",
    "bou", "kw", "ruby", "tcy", "balloon", "abbr", "acronym", "cite", "dfn", "kbd", "samp", "var",
    "big", "small", "q", "recipe", "fn", "endnote", "chap", "title", "chapref", "list", "img",
    "imgref", "table", "eq", "hd", "secref", "sec", "sectitle", "column", "bib", "labelref", "ref",
    "href", "uchar", "m", "br", "idx", "hidx", "w", "wb", "raw", "embed", "comment", "icon", "dtp",
    "include", "pageref",
];

/// Names authors write from HTML or Markdown habits, and the Re:VIEW command they mean.
const ALIASES: &[(&str, &str)] = &[
    ("bold", "b"),
    ("italic", "i"),
    ("underline", "u"),
    ("emph", "em"),
    ("s", "del"),
    ("strike", "del"),
    ("image", "img"),
    ("link", "href"),
    ("url", "href"),
    ("footnote", "fn"),
    ("math", "m"),
    ("index", "idx"),
];

/// An index term as written (`親<<>>子`), its anchor id still to be given.
fn index_term(text: &str) -> InlineKind {
    InlineKind::IndexTerm {
        term: text.to_string(),
        id: None,
        details: None,
    }
}

/// At `c[i]`: `@<name>` followed by a fence → (name, index of the fence).
fn command_at(c: &[char], i: usize) -> Option<(String, usize)> {
    if c.get(i) != Some(&'@') || c.get(i + 1) != Some(&'<') {
        return None;
    }
    let mut j = i + 2;
    while j < c.len() && (c[j].is_ascii_alphanumeric() || c[j] == '_') {
        j += 1;
    }
    if j == i + 2 || c.get(j) != Some(&'>') {
        return None;
    }
    matches!(c.get(j + 1), Some('{' | '$' | '|')).then(|| (c[i + 2..j].iter().collect(), j + 1))
}

/// Content after the fence at `open`: the unescaped content and the index of the closing fence.
fn content(src: &Src, open: usize) -> Option<(Src, usize)> {
    let c = &src.chars;
    let fence = c[open];
    let mut out = Src::empty_at(src.at(open + 1));
    let mut k = open + 1;
    while k < c.len() {
        match c[k] {
            '\\' if fence == '{' && matches!(c.get(k + 1), Some('}' | '\\')) => {
                out.push(c[k + 1], src.at(k));
                k += 2;
            }
            '\\' if fence == '{' && k + 1 < c.len() => {
                // Any other escape is kept as written, and does not end the content.
                out.push('\\', src.at(k));
                out.push(c[k + 1], src.at(k + 1));
                k += 2;
            }
            ch if (fence == '{' && ch == '}') || (fence != '{' && ch == fence) => {
                out.end = src.at(k);
                return Some((out, k));
            }
            ch => {
                out.push(ch, src.at(k));
                k += 1;
            }
        }
    }
    None
}

/// Splits `a, b` on the first unescaped comma (`\,` is a literal comma); both sides trimmed.
fn split_pair(src: &Src) -> (Src, Option<Src>) {
    let mut first = Src::empty_at(src.at(0));
    let c = &src.chars;
    let mut k = 0;
    while k < c.len() {
        if c[k] == '\\' && c.get(k + 1) == Some(&',') {
            first.push(',', src.at(k));
            k += 2;
            continue;
        }
        if c[k] == ',' {
            let mut second = Src::empty_at(src.at(k + 1));
            let mut j = k + 1;
            while j < c.len() {
                if c[j] == '\\' && c.get(j + 1) == Some(&',') {
                    second.push(',', src.at(j));
                    j += 2;
                } else {
                    second.push(c[j], src.at(j));
                    j += 1;
                }
            }
            return (first.trim(), Some(second.trim()));
        }
        first.push(c[k], src.at(k));
        k += 1;
    }
    (first.trim(), None)
}

impl Parser<'_> {
    /// Inline markup of `src`.
    pub(super) fn inlines(&mut self, src: &Src) -> Inlines {
        let c = &src.chars;
        let mut out = Inlines::new();
        let mut text_start = 0;
        let mut i = 0;
        while i < c.len() {
            let Some((name, open)) = command_at(c, i) else {
                i += 1;
                continue;
            };
            let at = src.at(i);
            let Some((body, close)) = content(src, open) else {
                let fence = match c[open] {
                    '{' => '}',
                    f => f,
                };
                self.error_hint(
                    codes::REVIEW_SYNTAX,
                    at,
                    format!("`@<{name}>` is never closed"),
                    format!("end it with `{fence}` on the same paragraph line"),
                );
                break;
            };
            if text_start < i {
                push_merged(
                    &mut out,
                    Inline::text(src.slice(text_start, i).text(), src.at(text_start)),
                );
            }
            i = close + 1;
            text_start = i;
            if !matches!(name.as_str(), "raw" | "embed")
                && let Some(inner) = (0..body.len()).find(|&k| command_at(&body.chars, k).is_some())
            {
                self.error_hint(
                    codes::REVIEW_SYNTAX,
                    body.at(inner),
                    "inline commands cannot be nested in Re:VIEW",
                    format!("close `@<{name}>` before starting another inline command"),
                );
                push_merged(&mut out, Inline::text(body.text(), body.at(0)));
                continue;
            }
            for inline in self.inline_command(&name, &body, at) {
                push_merged(&mut out, inline);
            }
        }
        if text_start < c.len() {
            push_merged(
                &mut out,
                Inline::text(src.slice(text_start, c.len()).text(), src.at(text_start)),
            );
        }
        out
    }

    fn inline_command(&mut self, name: &str, body: &Src, at: Pos) -> Vec<Inline> {
        let text = body.text();
        let inner = || vec![Inline::text(text.clone(), body.at(0))];
        let one = |kind| vec![Inline::new(kind, at)];
        let span = |class: &str| {
            one(InlineKind::Span {
                class: class.into(),
                content: inner(),
            })
        };
        let reference = |kind| {
            one(InlineKind::Ref {
                kind,
                target: text.clone(),
                content: None,
            })
        };
        match name {
            "b" => one(InlineKind::Bold(inner())),
            "i" => one(InlineKind::Italic(inner())),
            "strong" => one(InlineKind::Strong(inner())),
            "em" => one(InlineKind::Emphasis(inner())),
            "tt" | "code" => one(InlineKind::Code(text.clone())),
            "ttb" => one(InlineKind::Bold(vec![Inline::new(
                InlineKind::Code(text.clone()),
                at,
            )])),
            "tti" => one(InlineKind::Italic(vec![Inline::new(
                InlineKind::Code(text.clone()),
                at,
            )])),
            "u" => one(InlineKind::Underline(inner())),
            "ins" => one(InlineKind::Inserted(inner())),
            "del" => one(InlineKind::Deleted(inner())),
            "sup" => one(InlineKind::Superscript(inner())),
            "sub" => one(InlineKind::Subscript(inner())),
            "bou" => one(InlineKind::EmphasisDots(inner())),
            "tcy" => one(InlineKind::TateChuYoko(text.clone())),
            "ami" | "balloon" | "recipe" | "abbr" | "acronym" | "cite" | "dfn" | "kbd" | "samp"
            | "var" | "big" | "small" => span(name),
            "q" => one(InlineKind::Text(format!("「{text}」"))),
            // Not an index term: Re:VIEW's index (its LaTeX builder's) lists only `@<idx>`
            // and `@<hidx>`, though its HTML leaves a comment for a keyword.
            "kw" => {
                let (word, alt) = split_pair(body);
                one(InlineKind::Keyword {
                    word: vec![Inline::text(word.text(), word.at(0))],
                    alt: alt.map(|a| a.text()).filter(|a| !a.is_empty()),
                })
            }
            "ruby" => {
                let (base, reading) = split_pair(body);
                one(InlineKind::Ruby {
                    base: base.text(),
                    text: reading.map(|r| r.text()).unwrap_or_default(),
                })
            }
            "fn" => {
                self.fn_refs.insert(text.clone());
                one(InlineKind::FootnoteRef(text.clone()))
            }
            "endnote" => {
                self.endnote_refs.insert(text.clone());
                one(InlineKind::EndnoteRef(text.clone()))
            }
            "chap" => reference(RefKind::Chapter),
            "title" => reference(RefKind::ChapterTitle),
            "chapref" => reference(RefKind::ChapterRef),
            "list" => reference(RefKind::Listing),
            "img" => reference(RefKind::Image),
            "imgref" => reference(RefKind::ImageRef),
            "table" => reference(RefKind::Table),
            "eq" => reference(RefKind::Equation),
            "hd" | "secref" => reference(RefKind::Heading),
            "sec" => reference(RefKind::SectionNumber),
            "sectitle" => reference(RefKind::SectionTitle),
            "column" => reference(RefKind::Column),
            "bib" => reference(RefKind::Bib),
            "labelref" | "ref" => reference(RefKind::Any),
            "href" => {
                let (url, label) = split_pair(body);
                let shown = label
                    .filter(|l| !l.is_empty())
                    .unwrap_or_else(|| url.clone());
                one(InlineKind::Link {
                    href: url.text(),
                    content: vec![Inline::text(shown.text(), shown.at(0))],
                })
            }
            "uchar" => match u32::from_str_radix(text.trim(), 16)
                .ok()
                .and_then(char::from_u32)
            {
                Some(ch) => one(InlineKind::Text(ch.to_string())),
                None => {
                    self.error_hint(
                        codes::REVIEW_SYNTAX,
                        at,
                        format!("`@<uchar>{{{text}}}` is not a Unicode code point"),
                        "write the code point in hexadecimal, e.g. `@<uchar>{2460}` for ①",
                    );
                    Vec::new()
                }
            },
            "m" => {
                // `\}` in the source is `}` in the TeX: a position is found by character.
                let mathml = self.math(&text, Display::Inline, |offset| {
                    body.at(text.get(..offset).map_or(0, |s| s.chars().count()))
                });
                one(InlineKind::Math {
                    tex: text.clone(),
                    mathml,
                })
            }
            "br" => one(InlineKind::LineBreak),
            // The anchor before the term: the index's link lands where the term starts.
            "idx" => vec![
                Inline::new(index_term(&text), at),
                Inline::text(text.clone(), body.at(0)),
            ],
            "hidx" => one(index_term(&text)),
            "w" | "wb" => {
                let key = text.trim();
                match self.opts.words.get(key) {
                    Some(value) => {
                        let t = Inline::text(value.clone(), at);
                        if name == "wb" {
                            one(InlineKind::Bold(vec![t]))
                        } else {
                            vec![t]
                        }
                    }
                    None => {
                        self.error_hint(
                            codes::REVIEW_SYNTAX,
                            at,
                            format!("unknown word key `{key}` in `@<{name}>`"),
                            "add it to a CSV file named by `words_file` in config.yml",
                        );
                        Vec::new()
                    }
                }
            }
            "raw" | "embed" => {
                let (list, rest) = builders(&text);
                let html = list
                    .as_ref()
                    .is_none_or(|l| l.iter().any(|b| b == "html" || b == "xhtml"));
                if !html {
                    return Vec::new();
                }
                let skipped = text.chars().count() - rest.chars().count();
                let at = |i: usize| body.at(skipped + i);
                match self.raw_html(rest, name == "raw", &at) {
                    Some(nodes) => one(InlineKind::Raw(nodes)),
                    None => Vec::new(),
                }
            }
            "comment" => {
                if self.opts.draft {
                    span("draft-comment")
                } else {
                    Vec::new()
                }
            }
            "icon" => one(InlineKind::Image(Image {
                src: text.clone(),
                alt: format!("[{text}]"),
                by_id: true,
            })),
            "dtp" => Vec::new(),
            "include" | "pageref" => {
                self.warning(
                    codes::UNSUPPORTED,
                    at,
                    format!(
                        "`@<{name}>` has no HTML form in Re:VIEW; seihon leaves it out of the book"
                    ),
                );
                Vec::new()
            }
            _ => {
                let nearest = ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == name)
                    .map(|(_, n)| *n)
                    .or_else(|| {
                        INLINES
                            .iter()
                            .min_by_key(|n| strsim::levenshtein(n, name))
                            .copied()
                    })
                    .unwrap_or("b");
                self.error_hint(
                    codes::UNKNOWN_COMMAND,
                    at,
                    format!("unknown inline command `@<{name}>`"),
                    format!("did you mean `@<{nearest}>`?"),
                );
                inner()
            }
        }
    }
}
