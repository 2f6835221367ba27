//! What Markdown book authors write for pandoc: display math as a block of its own, and
//! pandoc-crossref's numbered objects and references — `![cap](a.png){#fig:id}`,
//! `$$…$$ {#eq:id}`, a table captioned `: Caption {#tbl:id}`, a code block
//! `` ```{#lst:id .rust caption="…"} ``, a heading `{#sec:id}` — referred to as `@fig:id`,
//! `@eq:id`, `@tbl:id`, `@lst:id`, `@sec:id` (alone, or in brackets: `[@fig:a]`,
//! `[@fig:a; @fig:b]`). References become seihon's references, whose text is the book's own
//! (図1.1, Figure 1.1); ids are the whole book's, as pandoc-crossref's are.
use crate::doc::*;
use crate::dom::Pos;

/// The id of an attribute block `{#id …}` at the start of `text` (after white space), and
/// where the block ends; `None` when there is none.
pub fn leading_id(text: &str) -> Option<(String, usize)> {
    let trimmed = text.trim_start();
    let start = text.len() - trimmed.len();
    let inner = trimmed.strip_prefix('{')?;
    let close = inner.find('}')?;
    let attrs = &inner[..close];
    let id = attrs
        .split_whitespace()
        .find_map(|a| a.strip_prefix('#'))
        .filter(|id| !id.is_empty())?;
    Some((id.to_string(), start + 1 + close + 1))
}

/// The id of an attribute block `{#id …}` ending `text` (before white space), and where
/// the block starts.
pub fn trailing_id(text: &str) -> Option<(String, usize)> {
    let trimmed = text.trim_end();
    let body = trimmed.strip_suffix('}')?;
    let open = body.rfind('{')?;
    let (id, _) = leading_id(&trimmed[open..])?;
    Some((id, open))
}

/// A fenced code block's info string: its language, and, in pandoc's attribute form
/// (`{#lst:id .rust caption="Main"}`, or `rust {#lst:id}`), its id and caption.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CodeAttrs {
    pub language: Option<String>,
    pub id: Option<String>,
    pub caption: Option<String>,
}

pub fn code_attrs(info: &str) -> CodeAttrs {
    let info = info.trim();
    let (lead, attrs) = match info.find('{') {
        Some(open) if info.ends_with('}') => (info[..open].trim(), &info[open + 1..info.len() - 1]),
        _ => {
            return CodeAttrs {
                language: info.split_whitespace().next().map(str::to_string),
                ..CodeAttrs::default()
            };
        }
    };
    let mut out = CodeAttrs {
        language: lead.split_whitespace().next().map(str::to_string),
        ..CodeAttrs::default()
    };
    for (key, value) in attr_pairs(attrs) {
        match key {
            "#" if out.id.is_none() => out.id = Some(value),
            "." if out.language.is_none() => out.language = Some(value),
            "caption" => out.caption = Some(value),
            _ => {}
        }
    }
    out
}

/// The attributes of `#id .class key="value" key=value`: (`#`, id), (`.`, class), (key, value).
fn attr_pairs(s: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if let Some(id) = rest.strip_prefix('#') {
            out.push(("#", id[..end - 1].to_string()));
        } else if let Some(class) = rest.strip_prefix('.') {
            out.push((".", class[..end - 1].to_string()));
        } else if let Some(eq) = rest[..end].find('=') {
            let key = &rest[..eq];
            let after = &rest[eq + 1..];
            if let Some(quoted) = after.strip_prefix('"') {
                let close = quoted.find('"').unwrap_or(quoted.len());
                out.push((key, quoted[..close].to_string()));
                rest = quoted.get(close + 1..).unwrap_or("").trim_start();
                continue;
            }
            let v_end = after.find(char::is_whitespace).unwrap_or(after.len());
            out.push((key, after[..v_end].to_string()));
            rest = after[v_end..].trim_start();
            continue;
        }
        rest = rest[end..].trim_start();
    }
    out
}

/// The kind of object a pandoc-crossref prefix names.
fn ref_kind(prefix: &str) -> Option<RefKind> {
    Some(match prefix {
        "fig" => RefKind::Image,
        "tbl" => RefKind::Table,
        "lst" => RefKind::Listing,
        "eq" => RefKind::Equation,
        "sec" => RefKind::Heading,
        _ => return None,
    })
}

/// A paragraph cut where display math stands (`display` holds where each display math
/// starts): the math becomes a block of its own (numbered with `{#eq:id}` after it), the text
/// around it paragraphs.
pub fn split_display_math(content: Inlines, pos: Pos, display: &[Pos]) -> Vec<Block> {
    if !content
        .iter()
        .any(|i| matches!(i.kind, InlineKind::Math { .. }) && display.contains(&i.pos))
    {
        return vec![Block::new(BlockKind::Para(content), pos)];
    }
    let mut out = Vec::new();
    let mut para: Inlines = Vec::new();
    let mut para_pos = pos;
    let mut rest = content.into_iter().peekable();
    while let Some(inline) = rest.next() {
        let InlineKind::Math { tex, mathml } = inline.kind else {
            para.push(inline);
            continue;
        };
        if !display.contains(&inline.pos) {
            para.push(Inline::new(InlineKind::Math { tex, mathml }, inline.pos));
            continue;
        }
        push_para(&mut out, std::mem::take(&mut para), para_pos);
        let mut id = None;
        if let Some(Inline {
            kind: InlineKind::Text(after),
            ..
        }) = rest.peek_mut()
            && let Some((found, end)) = leading_id(after)
            && found.starts_with("eq:")
        {
            id = Some(found);
            *after = after[end..].to_string();
        }
        out.push(Block::new(
            BlockKind::Math(Box::new(Math {
                id,
                caption: None,
                number: None,
                tex,
                mathml,
            })),
            inline.pos,
        ));
        para_pos = rest.peek().map_or(inline.pos, |i| i.pos);
    }
    push_para(&mut out, para, para_pos);
    out
}

/// `content` as a paragraph, unless it is only white space and breaks.
fn push_para(out: &mut Vec<Block>, content: Inlines, pos: Pos) {
    let blank = content.iter().all(|i| match &i.kind {
        InlineKind::Text(t) => t.trim().is_empty(),
        InlineKind::LineBreak => true,
        _ => false,
    });
    if !blank {
        out.push(Block::new(BlockKind::Para(trim_edges(content)), pos));
    }
}

/// The inlines without the white space and breaks at either end (what stood between the text
/// and the math around it).
fn trim_edges(mut content: Inlines) -> Inlines {
    while content.first().is_some_and(|i| {
        i.kind == InlineKind::LineBreak
            || matches!(&i.kind, InlineKind::Text(t) if t.trim().is_empty())
    }) {
        content.remove(0);
    }
    while content.last().is_some_and(|i| {
        i.kind == InlineKind::LineBreak
            || matches!(&i.kind, InlineKind::Text(t) if t.trim().is_empty())
    }) {
        content.pop();
    }
    if let Some(Inline {
        kind: InlineKind::Text(t),
        ..
    }) = content.first_mut()
    {
        *t = t.trim_start().to_string();
    }
    if let Some(Inline {
        kind: InlineKind::Text(t),
        ..
    }) = content.last_mut()
    {
        *t = t.trim_end().to_string();
    }
    content
}

/// pandoc's table captions: a paragraph `: Caption` or `Table: Caption` just after (or just
/// before) a table is its caption, and a `{#tbl:id}` ending it its id (numbered).
pub fn table_captions(blocks: &mut Vec<Block>) {
    let mut i = 0;
    while i < blocks.len() {
        if !matches!(blocks[i].kind, BlockKind::Table(_)) {
            i += 1;
            continue;
        }
        let after = i + 1;
        let caption_at = [Some(after), i.checked_sub(1)]
            .into_iter()
            .flatten()
            .find(|&j| blocks.get(j).is_some_and(|b| caption_of(b).is_some()));
        if let Some(j) = caption_at
            && let Some((caption, id)) = caption_of(&blocks[j])
            && let BlockKind::Table(t) = &mut blocks[i].kind
            && t.caption.is_none()
        {
            t.caption = Some(caption);
            t.id = id;
            blocks.remove(j);
            if j < i {
                i -= 1;
            }
        }
        i += 1;
    }
}

/// The caption and id a paragraph gives a table, when it is one (`: …`, `Table: …`).
fn caption_of(b: &Block) -> Option<(Inlines, Option<String>)> {
    let BlockKind::Para(content) = &b.kind else {
        return None;
    };
    let mut content = content.clone();
    let Some(Inline {
        kind: InlineKind::Text(first),
        ..
    }) = content.first_mut()
    else {
        return None;
    };
    let rest = first
        .strip_prefix("Table:")
        .or_else(|| first.strip_prefix(':'))
        .filter(|r| r.starts_with(' '))?;
    *first = rest.trim_start().to_string();
    let mut id = None;
    if let Some(Inline {
        kind: InlineKind::Text(last),
        ..
    }) = content.last_mut()
        && let Some((found, at)) = trailing_id(last)
    {
        id = Some(found);
        *last = last[..at].trim_end().to_string();
    }
    Some((content, id))
}

/// pandoc-crossref references in the text of `inlines` made references: `@fig:id` (not inside a
/// word or an e-mail address), and a bracketed group of them, `[@fig:a; @fig:b]`, whose
/// brackets and separators go (pandoc-crossref writes the numbers joined).
pub fn references(inlines: &mut Inlines) {
    super::split_texts(inlines, |text, _| {
        find_refs(text)
            .into_iter()
            .map(|(range, kind, target)| {
                let kind = match kind {
                    Some(kind) => InlineKind::Ref {
                        kind,
                        target,
                        content: None,
                    },
                    // What a group's brackets and separators become.
                    None => InlineKind::Text(target),
                };
                (range, kind)
            })
            .collect()
    });
}

type Found = (std::ops::Range<usize>, Option<RefKind>, String);

/// The references of `text`: each with its kind and target, or, for what a group's brackets
/// and separators become, no kind and the text that stands for it.
fn find_refs(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].find('@') {
        let at = i + off;
        i = at + 1;
        // A group: `[@fig:a; @fig:b]`.
        if text[..at].ends_with('[')
            && let Some(close) = text[at..].find(']')
            && let Some(group) = group(&text[at..at + close], at)
        {
            out.push((at - 1..at, None, String::new()));
            out.extend(group);
            out.push((at + close..at + close + 1, None, String::new()));
            i = at + close + 1;
            continue;
        }
        if let Some((len, kind, target)) = one_ref(&text[at..])
            && text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || "._-+".contains(c)))
        {
            out.push((at..at + len, Some(kind), target));
            i = at + len;
        }
    }
    out
}

/// `@prefix:id` at the start of `s`: its length, kind and target id.
fn one_ref(s: &str) -> Option<(usize, RefKind, String)> {
    let body = s.strip_prefix('@')?;
    let (prefix, _) = body.split_once(':')?;
    let kind = ref_kind(prefix)?;
    let id_len = body[prefix.len() + 1..]
        .find(|c: char| !(c.is_alphanumeric() || "_-:.".contains(c)))
        .unwrap_or(body.len() - prefix.len() - 1);
    let mut id = &body[..prefix.len() + 1 + id_len];
    // A sentence's full stop or colon after the id is not part of it.
    id = id.trim_end_matches(['.', ':']);
    (id.len() > prefix.len() + 1).then(|| (1 + id.len(), kind, id.to_string()))
}

/// The references of a bracketed group (without its brackets) at byte `offset`, `;`-separated;
/// `None` unless every part is one.
fn group(inner: &str, offset: usize) -> Option<Vec<Found>> {
    let mut out = Vec::new();
    let mut at = 0;
    for (n, part) in inner.split(';').enumerate() {
        let lead = part.len() - part.trim_start().len();
        let (len, kind, target) = one_ref(part.trim())?;
        if len != part.trim().len() {
            return None;
        }
        if n > 0 {
            // The `;` and the space around: ", " between numbers.
            out.push((offset + at - 1..offset + at + lead, None, ", ".into()));
        } else if lead > 0 {
            return None;
        }
        out.push((
            offset + at + lead..offset + at + lead + len,
            Some(kind),
            target,
        ));
        at += part.len() + 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_block_info_strings() {
        assert_eq!(code_attrs("rust").language.as_deref(), Some("rust"));
        assert_eq!(
            code_attrs(r#"{#lst:main .rust caption="The main function" .numberLines}"#),
            CodeAttrs {
                language: Some("rust".into()),
                id: Some("lst:main".into()),
                caption: Some("The main function".into())
            }
        );
        assert_eq!(
            code_attrs("python {#lst:x caption=Short}"),
            CodeAttrs {
                language: Some("python".into()),
                id: Some("lst:x".into()),
                caption: Some("Short".into())
            }
        );
    }

    #[test]
    fn attribute_blocks() {
        assert_eq!(
            leading_id(" {#eq:einstein} and"),
            Some(("eq:einstein".into(), 15))
        );
        assert_eq!(
            leading_id("{.class #fig:cat width=50%}"),
            Some(("fig:cat".into(), 27))
        );
        assert_eq!(leading_id("no {#x}"), None);
        assert_eq!(
            trailing_id("Caption {#tbl:sizes} "),
            Some(("tbl:sizes".into(), 8))
        );
        assert_eq!(trailing_id("Caption"), None);
    }

    fn refs(text: &str) -> Vec<String> {
        find_refs(text)
            .into_iter()
            .map(|(r, k, t)| match k {
                Some(k) => format!("{k:?}:{t}@{}", r.start),
                None => format!("sep{:?}@{}", t, r.start),
            })
            .collect()
    }

    #[test]
    fn references_alone_and_in_groups() {
        assert_eq!(refs("See @fig:cat."), ["Image:fig:cat@4"]);
        assert_eq!(
            refs("@eq:e と @tbl:t_1、@lst:main"),
            ["Equation:eq:e@0", "Table:tbl:t_1@10", "Listing:lst:main@21"]
        );
        assert_eq!(
            refs("in [@fig:a; @fig:b]"),
            [
                "sep\"\"@3",
                "Image:fig:a@4",
                "sep\", \"@10",
                "Image:fig:b@12",
                "sep\"\"@18"
            ]
        );
        assert_eq!(
            refs("mail me@fig:x or @user or @foo:bar or @fig:"),
            Vec::<String>::new()
        );
        assert_eq!(refs("[@fig:a, see]"), ["Image:fig:a@1"]);
    }
}
