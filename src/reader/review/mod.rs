//! Re:VIEW reader: one `.re` chapter → [`Document`].
//!
//! Re:VIEW is line-oriented: each line is dispatched on how it starts (`#@`, `=`, a list
//! marker, `//`, blank, text), in the order Re:VIEW's own compiler uses. Block commands
//! (`//list{ … //}`) live in [`block`], inline commands (`@<b>{…}`) in [`inline`], table bodies
//! in [`table`]. Mini-columns (`//note{`), `[column]` headings and `//beginchild` are containers
//! whose content is parsed as ordinary document content; they are tracked on a stack of
//! [`Frame`]s so a `//}`, `//endchild` or heading closes the right one.
//!
//! The reader never stops at the first problem: every finding is collected and returned beside
//! the document, and whatever text could be kept is kept.
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::codes;
use crate::doc::*;
use crate::error::{Finding, Location};

mod block;
mod inline;
pub mod preproc;
mod table;
#[cfg(test)]
mod tests;

/// Lists and `//beginchild` blocks nested deeper than this are refused: the reader and every step
/// after it walk the document recursively, and no manuscript nests anywhere near this deep.
pub(super) const MAX_DEPTH: usize = 100;

/// Options from the book's config.yml that change how a chapter reads.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    /// `@<w>{key}` / `@<wb>{key}` dictionary (from `words_file` CSVs; the loader fills it).
    pub words: HashMap<String, String>,
    /// `draft: true` shows `//comment` and `@<comment>`.
    pub draft: bool,
    /// Tab width for code bodies (default 8 when 0).
    pub tabwidth: usize,
    /// `join_lines_by_lang: true`: a paragraph's lines are joined with a space where neither
    /// side of the break is East Asian wide; by default they are joined with nothing.
    pub join_lines_by_lang: bool,
    /// Block commands the book's `review-ext.rb` defines (seihon cannot run it: their content
    /// is kept, and the warning says where the command comes from).
    pub extension_blocks: Vec<String>,
}

/// Reads one `.re` file. `shown` is the path for messages. Returns the document and every
/// problem found (errors and warnings); the reader never stops at the first error and never panics.
pub fn read(text: &str, shown: &Path, opts: &ReviewOptions) -> (Document, Vec<Finding>) {
    read_lines_of(text, shown, opts, &[])
}

/// [`read`] of a chapter whose preprocessor directives were carried out ([`preproc::expand`]):
/// `origin[i]` is the source line the text's line `i` stands for, which findings name.
pub fn read_lines_of(
    text: &str,
    shown: &Path,
    opts: &ReviewOptions,
    origin: &[u32],
) -> (Document, Vec<Finding>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(f) = crate::error::nul_finding(text, shown) {
        return (Document::new(shown), vec![f]);
    }
    let lines = source_lines(text);
    let mut p = Parser {
        lines,
        origin,
        i: 0,
        shown,
        opts,
        findings: Vec::new(),
        doc: Document::new(shown),
        stack: Vec::new(),
        noindent: false,
        olnum: None,
        firstlinenum: None,
        fn_refs: HashSet::new(),
        endnote_refs: HashSet::new(),
        printendnotes: false,
        gave_up: false,
        unknown_blocks: Default::default(),
    };
    let (blocks, _) = p.blocks();
    p.doc.blocks = blocks;
    p.check_notes();
    (p.doc, p.findings)
}

/// A chapter's lines, without their line ends (`\n` or `\r\n`) and without the empty one
/// after a final line end.
fn source_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// A container whose end is marked by a later line.
#[derive(Debug, Clone)]
enum Frame {
    /// A tagged heading section (`[column]`, `[xcolumn]`, `[ref]`, `[sup]`) at this level.
    Section { level: usize, tag: String },
    /// A mini-column (`//note{`), closed by `//}`.
    Mini { name: String, pos: Pos },
    /// `//beginchild`, closed by `//endchild`.
    Child,
}

struct Parser<'a> {
    lines: Vec<&'a str>,
    /// The source line of each of `lines`, when the preprocessor changed them (else `i + 1`).
    origin: &'a [u32],
    /// Index of the next line to read.
    i: usize,
    shown: &'a Path,
    opts: &'a ReviewOptions,
    findings: Vec<Finding>,
    doc: Document,
    stack: Vec<Frame>,
    /// `//noindent` seen: the next paragraph gets class `noindent`.
    noindent: bool,
    /// `//olnum[n]`: the next numbered list starts at n.
    olnum: Option<u64>,
    /// `//firstlinenum[n]`: the next numbered listing starts at n.
    firstlinenum: Option<u32>,
    fn_refs: HashSet<String>,
    endnote_refs: HashSet<String>,
    printendnotes: bool,
    /// Reading stopped early (see [`Parser::too_deep`]): blocks left open are not reported.
    gave_up: bool,
    /// Unknown block commands already reported in this chapter.
    unknown_blocks: std::collections::HashSet<String>,
}

/// Text with the source position of every character, so inline markup parsed from joined
/// lines or unescaped arguments still reports exact lines and columns.
#[derive(Debug, Clone, Default)]
struct Src {
    chars: Vec<char>,
    pos: Vec<Pos>,
    /// Position just after the last character.
    end: Pos,
}

impl Src {
    fn new(s: &str, at: Pos) -> Src {
        let mut src = Src {
            end: at,
            ..Src::default()
        };
        src.push_str(s, at);
        src
    }

    fn empty_at(at: Pos) -> Src {
        Src {
            end: at,
            ..Src::default()
        }
    }

    fn push_str(&mut self, s: &str, at: Pos) {
        let mut p = at;
        for c in s.chars() {
            self.push(c, p);
            p.col += 1;
        }
        self.end = p;
    }

    fn push(&mut self, c: char, p: Pos) {
        self.chars.push(c);
        self.pos.push(p);
        self.end = Pos::new(p.line, p.col + 1);
    }

    fn append(&mut self, other: &Src) {
        self.chars.extend_from_slice(&other.chars);
        self.pos.extend_from_slice(&other.pos);
        self.end = other.end;
    }

    fn len(&self) -> usize {
        self.chars.len()
    }

    fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    fn text(&self) -> String {
        self.chars.iter().collect()
    }

    fn at(&self, i: usize) -> Pos {
        self.pos.get(i).copied().unwrap_or(self.end)
    }

    fn slice(&self, a: usize, b: usize) -> Src {
        Src {
            chars: self.chars[a..b].to_vec(),
            pos: self.pos[a..b].to_vec(),
            end: self.at(b),
        }
    }

    fn trim(&self) -> Src {
        let a = self
            .chars
            .iter()
            .position(|c| !c.is_whitespace())
            .unwrap_or(self.len());
        let b = self
            .chars
            .iter()
            .rposition(|c| !c.is_whitespace())
            .map_or(a, |i| i + 1);
        self.slice(a, b.max(a))
    }

    /// Lines joined the way Re:VIEW 5.11 joins the lines of a paragraph (`join_lines_to_paragraph`):
    /// with nothing at all; with `by_lang`, with a space unless the character before or after
    /// the break is East Asian wide (F, W or H) and not Hangul, the "lazy" rule Re:VIEW applies
    /// to Japanese. A break next to inline markup sees the markup's own narrow character
    /// (`}`, `@`), as Re:VIEW sees its tags.
    fn join(lines: &[Src], by_lang: bool) -> Src {
        let cjk = |c: char| crate::eaw::is_wide(c) && !crate::eaw::is_hangul(c);
        let mut out = Src::default();
        for line in lines {
            if by_lang
                && let (Some(&a), Some(&b)) = (out.chars.last(), line.chars.first())
                && !cjk(a)
                && !cjk(b)
            {
                let at = out.end;
                out.push(' ', at);
            }
            out.append(line);
        }
        out
    }

    /// Trailing white space removed, leading kept: a line of a block's body, as Re:VIEW reads
    /// it (`rstrip`).
    fn trim_end(&self) -> Src {
        let b = self
            .chars
            .iter()
            .rposition(|c| !c.is_whitespace())
            .map_or(0, |i| i + 1);
        self.slice(0, b)
    }
}

/// Whether a heading tag can be a class name as it is (`mycolumn`, `question-box`).
fn is_class_name(tag: &str) -> bool {
    tag.starts_with(|c: char| c.is_ascii_lowercase())
        && tag
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_'))
}

/// A stripped line of text as a [`Src`] (columns counted from the line start).
fn line_src(line: &str, ln: u32) -> Src {
    Src::new(line, Pos::new(ln, 1)).trim()
}

/// A line of a paragraph as Re:VIEW reads it: stripped, except that tabs starting the line are
/// kept (the white space after them goes).
fn paragraph_line_src(line: &str, ln: u32) -> Src {
    let src = Src::new(line, Pos::new(ln, 1));
    let tabs = src.chars.iter().take_while(|&&c| c == '\t').count();
    if tabs == 0 {
        return src.trim();
    }
    let mut out = src.slice(0, tabs);
    out.append(&src.slice(tabs, src.len()).trim());
    out
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// A parsed heading line.
struct HeadLine {
    level: usize,
    tag: Option<String>,
    label: Option<String>,
    caption: Src,
    pos: Pos,
}

/// `=`×N, optional `[tag]`, optional `{label}`, caption; `None` when the line is not a heading.
fn heading_line(line: &str, ln: u32) -> Option<HeadLine> {
    let level = line.chars().take_while(|&c| c == '=').count();
    if level == 0 {
        return None;
    }
    let chars: Vec<char> = line.chars().collect();
    match chars.get(level) {
        Some(' ' | '\t' | '[' | '{') => {}
        _ => return None,
    }
    let mut k = level;
    let mut tag = None;
    if chars[k] == '['
        && let Some(end) = chars[k + 1..].iter().position(|&c| c == ']')
    {
        tag = Some(chars[k + 1..k + 1 + end].iter().collect::<String>());
        k += end + 2;
    }
    let mut label = None;
    if chars.get(k) == Some(&'{')
        && let Some(end) = chars[k + 1..].iter().position(|&c| c == '}')
    {
        label = Some(chars[k + 1..k + 1 + end].iter().collect::<String>());
        k += end + 2;
    }
    let rest: String = chars[k..].iter().collect();
    let caption = Src::new(&rest, Pos::new(ln, k as u32 + 1)).trim();
    Some(HeadLine {
        level,
        tag,
        label,
        caption,
        pos: Pos::new(ln, 1),
    })
}

/// ` *…` → the nesting depth (number of `*`) and the item text's start (in chars).
fn ul_marker(line: &str) -> Option<(usize, usize)> {
    let lead = line.chars().take_while(|c| c.is_whitespace()).count();
    if lead == 0 {
        return None;
    }
    let stars = line.chars().skip(lead).take_while(|&c| c == '*').count();
    (stars > 0).then_some((stars, lead + stars))
}

/// ` 12. …` → the item text's start (in chars).
fn ol_marker(line: &str) -> Option<usize> {
    let lead = line.chars().take_while(|c| c.is_whitespace()).count();
    if lead == 0 {
        return None;
    }
    let digits = line
        .chars()
        .skip(lead)
        .take_while(|c| c.is_ascii_digit())
        .count();
    (digits > 0 && line.chars().nth(lead + digits) == Some('.')).then_some(lead + digits + 1)
}

/// ` : term` (or the deprecated `: term` at column 0) → the term's start (in chars).
fn dl_marker(line: &str) -> Option<usize> {
    let lead = line.chars().take_while(|c| c.is_whitespace()).count();
    let mut it = line.chars().skip(lead);
    (it.next() == Some(':') && it.next().is_some_and(char::is_whitespace)).then_some(lead + 1)
}

fn starts_ws(line: &str) -> bool {
    line.starts_with([' ', '\t'])
}

impl<'a> Parser<'a> {
    /// The source line of `lines[i]` (1-based).
    fn line_at(&self, i: usize) -> u32 {
        self.origin.get(i).copied().unwrap_or(i as u32 + 1)
    }

    fn location(&self, pos: Pos) -> Location {
        Location::new(self.shown, pos.line, pos.col)
    }

    fn error(&mut self, code: codes::Code, pos: Pos, message: impl Into<String>) {
        self.findings
            .push(Finding::error(code, self.location(pos), message));
    }

    fn error_hint(
        &mut self,
        code: codes::Code,
        pos: Pos,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) {
        self.findings
            .push(Finding::error(code, self.location(pos), message).with_hint(hint));
    }

    fn warning(&mut self, code: codes::Code, pos: Pos, message: impl Into<String>) {
        self.findings
            .push(Finding::warning(code, self.location(pos), message));
    }

    fn warning_hint(
        &mut self,
        code: codes::Code,
        pos: Pos,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) {
        self.findings
            .push(Finding::warning(code, self.location(pos), message).with_hint(hint));
    }

    /// TeX as MathML, or `None` (the TeX is shown) with a warning at the manuscript position
    /// `at` gives for the offset in the TeX where conversion failed.
    fn math(
        &mut self,
        tex: &str,
        display: crate::math::Display,
        at: impl FnOnce(usize) -> Pos,
    ) -> Option<Vec<crate::dom::Node>> {
        let shown = self.shown;
        match super::tex_to_mathml(tex, display, |offset| {
            let p = at(offset);
            Location::new(shown, p.line, p.col)
        }) {
            Ok(nodes) => Some(nodes),
            Err(f) => {
                self.findings.push(f);
                None
            }
        }
    }

    fn in_mini(&self) -> Option<(String, Pos)> {
        self.stack.iter().rev().find_map(|f| match f {
            Frame::Mini { name, pos } => Some((name.clone(), *pos)),
            _ => None,
        })
    }

    /// Blocks until the end of the innermost frame (or of the file). Returns the blocks and
    /// whether the frame's own closing line was found (and consumed).
    fn blocks(&mut self) -> (Vec<Block>, bool) {
        let mut out = Vec::new();
        while self.i < self.lines.len() {
            let line = self.lines[self.i];
            let ln = self.line_at(self.i);
            let at = Pos::new(ln, 1);
            if line.starts_with("#@") {
                self.directive(line, ln);
                self.i += 1;
                continue;
            }
            if let Some(h) = heading_line(line, ln) {
                if let Some(tag) = h.tag.as_deref().and_then(|t| t.strip_prefix('/')) {
                    self.i += 1;
                    match self.stack.last() {
                        Some(Frame::Section { tag: open, .. }) => {
                            if open != tag {
                                let msg = format!(
                                    "`[/{tag}]` does not match the open `[{open}]` section"
                                );
                                self.error_hint(
                                    codes::REVIEW_SYNTAX,
                                    at,
                                    msg,
                                    format!("close it with `[/{open}]`"),
                                );
                            }
                            return (out, true);
                        }
                        _ => {
                            self.error(
                                codes::REVIEW_SYNTAX,
                                at,
                                format!(
                                    "`[/{tag}]` closes nothing: no `[{tag}]` section is open here"
                                ),
                            );
                            continue;
                        }
                    }
                }
                if let Some(Frame::Section { level, .. }) = self.stack.last()
                    && h.level <= *level
                {
                    return (out, false);
                }
                self.i += 1;
                self.heading(h, &mut out);
                continue;
            }
            if ul_marker(line).is_some() {
                let b = self.ulist();
                out.push(b);
                continue;
            }
            if ol_marker(line).is_some() {
                let b = self.olist();
                out.push(b);
                continue;
            }
            if dl_marker(line).is_some() {
                let b = self.dlist();
                out.push(b);
                continue;
            }
            if line.starts_with("//}") {
                if matches!(self.stack.last(), Some(Frame::Mini { .. })) {
                    self.i += 1;
                    return (out, true);
                }
                if self.in_mini().is_some() {
                    return (out, false);
                }
                self.error(
                    codes::REVIEW_SYNTAX,
                    at,
                    "`//}` closes nothing: no block is open here",
                );
                self.i += 1;
                continue;
            }
            if line.starts_with("//endchild") {
                if matches!(self.stack.last(), Some(Frame::Child)) {
                    self.i += 1;
                    return (out, true);
                }
                if self.stack.iter().any(|f| matches!(f, Frame::Child)) {
                    return (out, false);
                }
                self.error(
                    codes::REVIEW_SYNTAX,
                    at,
                    "`//endchild` without a `//beginchild` before it",
                );
                self.i += 1;
                continue;
            }
            if line.starts_with("//beginchild") {
                self.i += 1;
                self.beginchild(at, &mut out);
                continue;
            }
            if line.starts_with("//") {
                self.command(line, ln, &mut out);
                continue;
            }
            if is_blank(line) {
                self.i += 1;
                continue;
            }
            let b = self.paragraph();
            out.push(b);
        }
        (out, false)
    }

    /// A `#@` line outside verbatim bodies.
    fn directive(&mut self, line: &str, ln: u32) {
        let rest = &line[2..];
        if rest.starts_with('#') {
            return;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let at = Pos::new(ln, 1);
        match name.as_str() {
            "warn" => {
                let arg = rest[4..].trim();
                let arg = arg
                    .strip_prefix('(')
                    .map(|a| a.strip_suffix(')').unwrap_or(a))
                    .unwrap_or(arg);
                self.warning(codes::AUTHOR_WARNING, at, arg.to_string());
            }
            // Carried out before reading (`preproc`), which reports what it could not map.
            "mapfile" | "maprange" | "mapoutput" | "end" | "defvar" => {}
            "require" | "provide" | "ok" => self.warning(
                codes::UNSUPPORTED,
                at,
                format!(
                    "`#@{name}` is a review-preproc directive; seihon does not run the preprocessor, so it has no effect"
                ),
            ),
            _ => {}
        }
    }

    fn heading(&mut self, h: HeadLine, out: &mut Vec<Block>) {
        let mut level = h.level;
        if level > 6 {
            self.error_hint(
                codes::REVIEW_SYNTAX,
                h.pos,
                format!("a heading has at most 6 `=`, this one has {level}"),
                "use `======` (level 6) or fewer",
            );
            level = 6;
        }
        let caption_empty = h.caption.is_empty();
        let content = self.inlines(&h.caption);
        let mut heading = Heading {
            level: level as u8,
            id: h.label.clone(),
            numbered: true,
            in_toc: true,
            shown: true,
            number: None,
            content,
        };
        let mut section: Option<&'static str> = None;
        let mut class_tag: Option<String> = None;
        match h.tag.as_deref() {
            None => {}
            Some("nonum") => heading.numbered = false,
            Some("nodisp") => {
                heading.numbered = false;
                heading.shown = false;
            }
            Some("notoc") => {
                heading.numbered = false;
                heading.in_toc = false;
            }
            Some("column") => section = Some("column"),
            Some("xcolumn") => section = Some("xcolumn"),
            Some("ref") => section = Some("reference"),
            Some("sup") => section = Some("supplement"),
            // A tag of the book's own (review-ext.rb's `[mycolumn]`), or a typo: real books
            // degrade, so the section is kept, classed with the tag.
            Some(other) if is_class_name(other) => {
                self.warning_hint(
                    codes::UNKNOWN_BLOCK,
                    h.pos,
                    format!("unknown heading tag `[{other}]`: the section is kept in a `div` of class `{other}`"),
                    "Re:VIEW's tags are `[nonum]`, `[nodisp]`, `[notoc]`, `[column]`, `[xcolumn]`, `[ref]` and `[sup]`; `seihon release` refuses this",
                );
                class_tag = Some(other.to_string());
            }
            Some(other) => self.error_hint(
                codes::REVIEW_SYNTAX,
                h.pos,
                format!("unknown heading tag `[{other}]`"),
                "the tags are `[nonum]`, `[nodisp]`, `[notoc]`, `[column]`, `[xcolumn]`, `[ref]` and `[sup]`",
            ),
        }
        if caption_empty {
            self.warning(codes::MISSING_TITLE, h.pos, "this heading has no caption");
        }
        let Some(class) = section.map(str::to_string).or(class_tag) else {
            out.push(Block::new(BlockKind::Heading(heading), h.pos));
            return;
        };
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep(h.pos, "this section");
            return;
        }
        self.stack.push(Frame::Section {
            level,
            tag: h.tag.clone().unwrap_or_default(),
        });
        let (inner, _) = self.blocks();
        self.stack.pop();
        let kind = if class == "column" {
            BlockKind::Sidebar {
                id: h.label,
                title: (!caption_empty).then_some(heading.content),
                heading: Some(level as u8),
                blocks: inner,
            }
        } else {
            heading.numbered = false;
            heading.in_toc = false;
            let mut blocks = vec![Block::new(BlockKind::Heading(heading), h.pos)];
            blocks.extend(inner);
            BlockKind::Div { class, blocks }
        };
        out.push(Block::new(kind, h.pos));
    }

    /// Consecutive text lines until a blank line or a `//` / `#@` line.
    fn paragraph(&mut self) -> Block {
        let at = Pos::new(self.line_at(self.i), 1);
        let mut lines = Vec::new();
        while let Some(&line) = self.lines.get(self.i) {
            if is_blank(line) || line.starts_with("//") || line.starts_with("#@") {
                break;
            }
            lines.push(paragraph_line_src(line, self.line_at(self.i)));
            self.i += 1;
        }
        let src = Src::join(&lines, self.opts.join_lines_by_lang);
        let content = self.inlines(&src);
        let kind = if std::mem::take(&mut self.noindent) {
            BlockKind::StyledPara {
                class: "noindent".into(),
                content,
            }
        } else {
            BlockKind::Para(content)
        };
        Block::new(kind, at)
    }

    /// Paragraphs of a block body: blank lines split them. Each line keeps its leading white
    /// space, as Re:VIEW reads a block's lines (`rstrip`).
    fn body_paragraphs(&mut self, body: &[(u32, &str)]) -> Vec<(Pos, Inlines)> {
        self.paragraphs_of(body, |line, ln| Src::new(line, Pos::new(ln, 1)).trim_end())
    }

    /// Paragraphs of `body`, each line read by `read_line`.
    fn paragraphs_of(
        &mut self,
        body: &[(u32, &str)],
        read_line: fn(&str, u32) -> Src,
    ) -> Vec<(Pos, Inlines)> {
        let mut out = Vec::new();
        let mut cur: Vec<Src> = Vec::new();
        let mut start = Pos::default();
        for &(ln, line) in body.iter().chain(std::iter::once(&(0, ""))) {
            if is_blank(line) {
                if !cur.is_empty() {
                    let src = Src::join(&cur, self.opts.join_lines_by_lang);
                    out.push((start, self.inlines(&src)));
                    cur.clear();
                }
                continue;
            }
            if cur.is_empty() {
                start = Pos::new(ln, 1);
            }
            cur.push(read_line(line, ln));
        }
        out
    }

    fn body_paras(&mut self, body: &[(u32, &str)]) -> Vec<Block> {
        self.body_paragraphs(body)
            .into_iter()
            .map(|(pos, c)| Block::new(BlockKind::Para(c), pos))
            .collect()
    }

    /// Item text plus continuation lines (lines starting with whitespace that are not a
    /// marker of this list, as `is_marker` says).
    fn item_text(&mut self, first: Src, is_marker: impl Fn(&str) -> bool) -> Inlines {
        let mut parts = vec![first];
        while let Some(&line) = self.lines.get(self.i) {
            if line.starts_with("#@") {
                self.directive(line, self.line_at(self.i));
                self.i += 1;
                continue;
            }
            if starts_ws(line) && !is_blank(line) && !is_marker(line) {
                parts.push(line_src(line, self.line_at(self.i)));
                self.i += 1;
                continue;
            }
            break;
        }
        let src = Src::join(&parts, self.opts.join_lines_by_lang);
        self.inlines(&src)
    }

    fn ulist(&mut self) -> Block {
        let at = Pos::new(self.line_at(self.i), 1);
        // (depth, position, text) per item.
        let mut items: Vec<(usize, Pos, Inlines)> = Vec::new();
        while let Some(&line) = self.lines.get(self.i) {
            let ln = self.line_at(self.i);
            if line.starts_with("#@") {
                self.directive(line, ln);
                self.i += 1;
                continue;
            }
            let Some((depth, start)) = ul_marker(line) else {
                break;
            };
            self.i += 1;
            let rest: String = line.chars().skip(start).collect();
            let first = Src::new(&rest, Pos::new(ln, start as u32 + 1)).trim();
            let text = self.item_text(first, |l| ul_marker(l).is_some());
            let prev = items.last().map_or(0, |i| i.0);
            let depth = if depth > prev + 1 {
                self.error_hint(
                    codes::REVIEW_SYNTAX,
                    Pos::new(ln, 1),
                    format!(
                        "this list item is {depth} levels deep, but the item before it is {prev}; a list nests one level at a time"
                    ),
                    format!("write `{}` here", "*".repeat(prev + 1)),
                );
                prev + 1
            } else {
                depth
            };
            if depth > MAX_DEPTH {
                self.too_deep(Pos::new(ln, 1), "this list item");
                break;
            }
            items.push((depth, Pos::new(ln, 1), text));
        }
        let mut k = 0;
        let list = build_ul(&items, &mut k, 1);
        Block::new(BlockKind::List(list), at)
    }

    fn olist(&mut self) -> Block {
        let at = Pos::new(self.line_at(self.i), 1);
        let mut items = Vec::new();
        while let Some(&line) = self.lines.get(self.i) {
            let ln = self.line_at(self.i);
            if line.starts_with("#@") {
                self.directive(line, ln);
                self.i += 1;
                continue;
            }
            let Some(start) = ol_marker(line) else { break };
            self.i += 1;
            let rest: String = line.chars().skip(start).collect();
            let first = Src::new(&rest, Pos::new(ln, start as u32 + 1)).trim();
            let text = self.item_text(first, |l| ol_marker(l).is_some());
            items.push(vec![Block::new(BlockKind::Para(text), Pos::new(ln, 1))]);
        }
        let start = self.olnum.take().unwrap_or(1);
        Block::new(
            BlockKind::List(List {
                start: Some(start),
                items,
            }),
            at,
        )
    }

    fn dlist(&mut self) -> Block {
        let at = Pos::new(self.line_at(self.i), 1);
        let mut items = Vec::new();
        while let Some(&line) = self.lines.get(self.i) {
            let ln = self.line_at(self.i);
            let Some(start) = dl_marker(line) else { break };
            if !starts_ws(line) {
                self.warning(
                    codes::DEPRECATED_SYNTAX,
                    Pos::new(ln, 1),
                    "a definition list term at column 1 (`: term`) is deprecated; write ` : term` with a leading space",
                );
            }
            self.i += 1;
            let rest: String = line.chars().skip(start).collect();
            let term_src = Src::new(&rest, Pos::new(ln, start as u32 + 1)).trim();
            let term = self.inlines(&term_src);
            // Description: following lines up to one that starts non-blank or is a marker.
            let mut desc: Vec<(u32, &str)> = Vec::new();
            while let Some(&l) = self.lines.get(self.i) {
                let dln = self.line_at(self.i);
                if l.starts_with("#@") {
                    self.directive(l, dln);
                    self.i += 1;
                    continue;
                }
                let ends = (!l.is_empty() && !starts_ws(l))
                    || dl_marker(l).is_some()
                    || ol_marker(l).is_some()
                    || ul_marker(l).is_some();
                if ends {
                    break;
                }
                desc.push((dln, l));
                self.i += 1;
            }
            // A description's lines are stripped, as Re:VIEW reads them.
            let definition = self
                .paragraphs_of(&desc, line_src)
                .into_iter()
                .map(|(pos, c)| Block::new(BlockKind::Para(c), pos))
                .collect();
            items.push(DefinitionItem {
                term,
                definitions: vec![definition],
            });
        }
        Block::new(BlockKind::DefinitionList(items), at)
    }

    /// Reports `what` as nested more than [`MAX_DEPTH`] levels deep and stops reading the file:
    /// whatever follows belongs to the nesting, and would only repeat the error.
    pub(super) fn too_deep(&mut self, at: Pos, what: &str) {
        self.error_hint(
            codes::TOO_DEEP,
            at,
            format!("{what} is nested more than {MAX_DEPTH} levels deep"),
            "nest fewer lists or `//beginchild` blocks inside each other",
        );
        self.i = self.lines.len();
        self.gave_up = true;
    }

    /// `//beginchild` … `//endchild`: the blocks between join the last item of the list just
    /// before.
    fn beginchild(&mut self, at: Pos, out: &mut Vec<Block>) {
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep(at, "this `//beginchild`");
            return;
        }
        self.stack.push(Frame::Child);
        let (inner, closed) = self.blocks();
        self.stack.pop();
        if !closed && !self.gave_up {
            self.error_hint(
                codes::REVIEW_SYNTAX,
                at,
                "`//beginchild` opened here is never closed with `//endchild`",
                "add a line `//endchild` after the blocks that belong to the list item",
            );
        }
        match out.last_mut().map(|b| &mut b.kind) {
            Some(BlockKind::List(list)) if !list.items.is_empty() => {
                if let Some(item) = list.items.last_mut() {
                    item.extend(inner);
                }
            }
            Some(BlockKind::DefinitionList(items)) if !items.is_empty() => {
                if let Some(item) = items.last_mut() {
                    match item.definitions.last_mut() {
                        Some(d) => d.extend(inner),
                        None => item.definitions.push(inner),
                    }
                }
            }
            _ => {
                self.error_hint(
                    codes::REVIEW_SYNTAX,
                    at,
                    "`//beginchild` must come right after a list",
                    "put `//beginchild` directly after the list whose last item the blocks belong to",
                );
                out.extend(inner);
            }
        }
    }

    /// End-of-file checks on footnotes and endnotes.
    fn check_notes(&mut self) {
        if !self.printendnotes
            && let Some(first) = self.doc.endnotes.first()
        {
            let pos = first.pos;
            self.error_hint(
                codes::REVIEW_SYNTAX,
                pos,
                "this file defines endnotes but never prints them",
                "add a line `//printendnotes` where the endnotes should appear",
            );
        }
        let unused: Vec<(Pos, String)> = self
            .doc
            .footnotes
            .iter()
            .filter(|f| !self.fn_refs.contains(&f.label))
            .map(|f| {
                (
                    f.pos,
                    format!(
                        "footnote `{0}` is never referenced with `@<fn>{{{0}}}`",
                        f.label
                    ),
                )
            })
            .chain(
                self.doc
                    .endnotes
                    .iter()
                    .filter(|f| !self.endnote_refs.contains(&f.label))
                    .map(|f| {
                        (
                            f.pos,
                            format!(
                                "endnote `{0}` is never referenced with `@<endnote>{{{0}}}`",
                                f.label
                            ),
                        )
                    }),
            )
            .collect();
        for (pos, msg) in unused {
            self.warning(codes::UNUSED_NOTE, pos, msg);
        }
    }
}

/// Builds nested bulleted lists from (depth, pos, text) items, starting at `items[*k]`.
fn build_ul(items: &[(usize, Pos, Inlines)], k: &mut usize, depth: usize) -> List {
    let mut list = List {
        start: None,
        items: Vec::new(),
    };
    while *k < items.len() {
        let (d, pos, text) = &items[*k];
        if *d < depth {
            break;
        }
        if *d > depth {
            let pos = *pos;
            let child = build_ul(items, k, depth + 1);
            let block = Block::new(BlockKind::List(child), pos);
            match list.items.last_mut() {
                Some(item) => item.push(block),
                None => list.items.push(vec![block]),
            }
            continue;
        }
        list.items
            .push(vec![Block::new(BlockKind::Para(text.clone()), *pos)]);
        *k += 1;
    }
    list
}
