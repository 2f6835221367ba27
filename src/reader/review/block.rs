//! Block commands: `//name[arg]…` with an optional `{ … //}` body.
use super::{Frame, Parser, Src};
use crate::codes;
use crate::doc::push_merged;
use crate::doc::*;
use crate::dom;
use crate::math::Display;

/// Whether a command takes a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyRule {
    Required,
    Optional,
    None,
}

use BodyRule::{None as NoBody, Optional, Required};

/// Every command Re:VIEW knows (and seihon reads): name, fewest and most arguments, body.
const COMMANDS: &[(&str, usize, usize, BodyRule)] = &[
    ("list", 2, 3, Required),
    ("listnum", 2, 3, Required),
    ("emlist", 0, 2, Required),
    ("emlistnum", 0, 2, Required),
    ("cmd", 0, 1, Required),
    ("source", 0, 2, Required),
    ("box", 0, 1, Required),
    ("insn", 0, 1, Required),
    ("image", 2, 3, Optional),
    ("indepimage", 1, 3, Optional),
    ("numberlessimage", 1, 3, Optional),
    ("imgtable", 1, 3, Required),
    ("graph", 1, 3, Required),
    ("table", 0, 2, Required),
    ("emtable", 0, 1, Required),
    ("tsize", 1, 1, NoBody),
    ("texequation", 0, 2, Required),
    ("quote", 0, 0, Required),
    ("doorquote", 1, 1, Required),
    ("lead", 0, 0, Required),
    ("read", 0, 0, Required),
    ("flushright", 0, 0, Required),
    ("centering", 0, 0, Required),
    ("talk", 0, 0, Required),
    ("bpo", 0, 0, Required),
    ("address", 0, 0, Required),
    ("blockquote", 0, 0, Required),
    ("noindent", 0, 0, NoBody),
    ("blankline", 0, 0, NoBody),
    ("pagebreak", 0, 0, NoBody),
    ("hr", 0, 0, NoBody),
    ("parasep", 0, 0, NoBody),
    ("label", 1, 1, NoBody),
    ("olnum", 1, 1, NoBody),
    ("firstlinenum", 1, 1, NoBody),
    ("note", 0, 1, Required),
    ("memo", 0, 1, Required),
    ("tip", 0, 1, Required),
    ("info", 0, 1, Required),
    ("warning", 0, 1, Required),
    ("important", 0, 1, Required),
    ("caution", 0, 1, Required),
    ("notice", 0, 1, Required),
    ("point", 0, 1, Required),
    ("shoot", 0, 1, Required),
    ("planning", 0, 1, Required),
    ("best", 0, 1, Required),
    ("security", 0, 1, Required),
    ("footnote", 2, 2, NoBody),
    ("endnote", 2, 2, NoBody),
    ("printendnotes", 0, 0, NoBody),
    ("bibpaper", 2, 2, Optional),
    ("raw", 1, 1, NoBody),
    ("embed", 0, 1, Required),
    ("comment", 0, 1, Optional),
    ("include", 1, 1, NoBody),
    ("beginchild", 0, 0, NoBody),
    ("endchild", 0, 0, NoBody),
];

fn admonition(name: &str) -> Option<AdmonitionKind> {
    Some(match name {
        "note" => AdmonitionKind::Note,
        "memo" => AdmonitionKind::Memo,
        "tip" => AdmonitionKind::Tip,
        "info" => AdmonitionKind::Info,
        "warning" => AdmonitionKind::Warning,
        "important" => AdmonitionKind::Important,
        "caution" => AdmonitionKind::Caution,
        "notice" => AdmonitionKind::Notice,
        _ => return None,
    })
}

/// A parsed command line.
struct Cmd {
    name: String,
    args: Vec<Src>,
    body: bool,
    pos: Pos,
}

impl Cmd {
    /// Argument `i` as text (empty when absent).
    fn text(&self, i: usize) -> String {
        self.args.get(i).map(Src::text).unwrap_or_default()
    }

    /// Argument `i`, `None` when absent or empty (`[]` skips an optional argument).
    fn opt(&self, i: usize) -> Option<&Src> {
        self.args.get(i).filter(|a| !a.is_empty())
    }
}

/// `//name[a][b]{` → the command, or a message and the column it refers to.
fn parse_cmd(line: &str, ln: u32) -> Result<Cmd, (String, u32)> {
    let chars: Vec<char> = line.trim_end().chars().collect();
    let mut k = 2;
    while k < chars.len() && chars[k].is_ascii_lowercase() {
        k += 1;
    }
    let name: String = chars[2..k].iter().collect();
    let mut args = Vec::new();
    while chars.get(k) == Some(&'[') {
        let open = k;
        k += 1;
        let mut arg = Src::default();
        let mut closed = false;
        while k < chars.len() {
            let p = Pos::new(ln, k as u32 + 1);
            match chars[k] {
                '\\' if matches!(chars.get(k + 1), Some(']' | '\\')) => {
                    arg.push(chars[k + 1], p);
                    k += 2;
                }
                ']' => {
                    closed = true;
                    k += 1;
                    break;
                }
                c => {
                    arg.push(c, p);
                    k += 1;
                }
            }
        }
        if !closed {
            return Err((
                format!("the argument of `//{name}` opened here is never closed with `]`"),
                open as u32 + 1,
            ));
        }
        if arg.is_empty() {
            arg.end = Pos::new(ln, k as u32);
        }
        args.push(arg);
    }
    let rest: String = chars[k..].iter().collect();
    let body = match rest.trim() {
        "" => false,
        "{" => true,
        other => {
            return Err((
                format!(
                    "argument syntax error in `//{name}`: `{other}` after the arguments (arguments are `[…]` written back to back)"
                ),
                k as u32 + 1,
            ));
        }
    };
    Ok(Cmd {
        name,
        args,
        body,
        pos: Pos::new(ln, 1),
    })
}

fn count(n: usize) -> String {
    match n {
        0 => "no arguments".into(),
        1 => "1 argument".into(),
        n => format!("{n} arguments"),
    }
}

/// `scale=0.5` in an image metric → `width-050per`; other builders' entries are ignored.
fn metric_class(metric: &str) -> Option<String> {
    metric.split(',').find_map(|entry| {
        let entry = entry.trim();
        let value = entry.strip_prefix("scale=")?;
        let scale: f64 = value.trim().parse().ok()?;
        Some(format!("width-{:03}per", (scale * 100.0).round() as i64))
    })
}

/// A builder list at the start of a raw argument: `|html,latex|rest` → (builders, rest).
pub(super) fn builders(s: &str) -> (Option<Vec<String>>, &str) {
    if let Some(rest) = s.strip_prefix('|')
        && let Some(end) = rest.find('|')
    {
        let list = rest[..end]
            .split(',')
            .map(|b| b.trim().to_string())
            .collect();
        return (Some(list), &rest[end + 1..]);
    }
    (None, s)
}

fn for_html(list: &Option<Vec<String>>) -> bool {
    list.as_ref()
        .is_none_or(|l| l.iter().any(|b| b == "html" || b == "xhtml"))
}

/// Tabs expanded to `width` columns; each character keeps the position of its source.
fn expand_tabs(line: &str, ln: u32, width: usize, out: &mut Src) {
    let mut col = 0;
    for (k, c) in line.chars().enumerate() {
        let p = Pos::new(ln, k as u32 + 1);
        if c == '\t' {
            let n = width - col % width;
            for _ in 0..n {
                out.push(' ', p);
            }
            col += n;
        } else {
            out.push(c, p);
            col += 1;
        }
    }
}

impl<'a> Parser<'a> {
    /// Body lines after the command line, up to `//}` (consumed). `#@` lines are dropped unless
    /// `verbatim`.
    fn read_body(&mut self, name: &str, at: Pos, verbatim: bool) -> Vec<(u32, &'a str)> {
        let mut out = Vec::new();
        while let Some(&line) = self.lines.get(self.i) {
            let ln = self.line_at(self.i);
            self.i += 1;
            if line.starts_with("//}") {
                return out;
            }
            if !verbatim && line.starts_with("#@") {
                self.directive(line, ln);
                continue;
            }
            out.push((ln, line));
        }
        self.error_hint(
            codes::REVIEW_SYNTAX,
            at,
            format!("`//{name}` opened here is never closed with `//}}`"),
            "add a line `//}` where the block ends",
        );
        out
    }

    /// A block command seihon does not know (a typo, or one the book's review-ext.rb defines):
    /// real books degrade, so its body is kept in a `div` classed with its name, and a warning
    /// (once per name in a chapter) says what to do.
    fn unknown_block(&mut self, cmd: &Cmd, at: Pos, out: &mut Vec<Block>) {
        let name = cmd.name.as_str();
        if self.unknown_blocks.insert(name.to_string()) {
            let kept = if cmd.body {
                format!("its content is kept in a `div` of class `{name}`")
            } else {
                "the line is left out".to_string()
            };
            if self.opts.extension_blocks.iter().any(|n| n == name) {
                self.warning_hint(
                    codes::UNKNOWN_BLOCK,
                    at,
                    format!("`//{name}` is defined by the book's review-ext.rb, which seihon cannot run: {kept}"),
                    format!("style `div.{name}` in the book's CSS, or write it with Re:VIEW's own commands; `seihon release` refuses this"),
                );
            } else {
                let nearest = COMMANDS
                    .iter()
                    .map(|c| c.0)
                    .min_by_key(|c| strsim::levenshtein(c, name))
                    .unwrap_or("list");
                self.warning_hint(
                    codes::UNKNOWN_BLOCK,
                    at,
                    format!("unknown command `//{name}`: {kept}"),
                    format!("did you mean `//{nearest}`? `seihon release` refuses this"),
                );
            }
        }
        self.i += 1;
        if cmd.body {
            let lines = self.read_body(name, at, false);
            let blocks = self.body_paras(&lines);
            out.push(Block::new(
                BlockKind::Div {
                    class: name.to_string(),
                    blocks,
                },
                at,
            ));
        }
    }

    /// A line starting with `//` (not `//}`, `//beginchild`, `//endchild`).
    pub(super) fn command(&mut self, line: &str, ln: u32, out: &mut Vec<Block>) {
        let at = Pos::new(ln, 1);
        if !line[2..].starts_with(|c: char| c.is_ascii_lowercase()) {
            self.warning(
                codes::DEPRECATED_SYNTAX,
                at,
                "`//` is not followed by a command name in lowercase letters; the line is ignored",
            );
            self.i += 1;
            if line.trim_end().ends_with('{') {
                self.read_body("", at, true);
            }
            return;
        }
        let cmd = match parse_cmd(line, ln) {
            Ok(cmd) => cmd,
            Err((msg, col)) => {
                self.error(codes::REVIEW_SYNTAX, Pos::new(ln, col), msg);
                self.i += 1;
                if line.trim_end().ends_with('{') {
                    self.read_body("", at, true);
                }
                return;
            }
        };
        let Some(&(_, min, max, rule)) = COMMANDS.iter().find(|c| c.0 == cmd.name) else {
            self.unknown_block(&cmd, at, out);
            return;
        };
        let n = cmd.args.len();
        if n < min || n > max {
            let range = if min == max {
                count(min)
            } else {
                format!("{min} to {max} arguments")
            };
            self.error(
                codes::REVIEW_SYNTAX,
                at,
                format!("`//{}` takes {range}, found {n}", cmd.name),
            );
        }
        self.i += 1;
        if rule == NoBody && cmd.body {
            self.error(
                codes::REVIEW_SYNTAX,
                at,
                format!(
                    "`//{}` takes no body; its `{{ … //}}` is left out",
                    cmd.name
                ),
            );
            self.read_body(&cmd.name, at, true);
        }
        if rule == Required && !cmd.body {
            self.error_hint(
                codes::REVIEW_SYNTAX,
                at,
                format!("`//{}` needs a body", cmd.name),
                "end the line with `{` and close the block with a line `//}`",
            );
        }
        if let Some(kind) = admonition(&cmd.name) {
            let b = self.mini_column(&cmd, kind);
            out.push(b);
            return;
        }
        let verbatim = matches!(cmd.name.as_str(), "embed" | "texequation" | "graph");
        let body = if cmd.body && rule != NoBody {
            Some(self.read_body(&cmd.name, at, verbatim))
        } else {
            None
        };
        self.run(cmd, body, out);
    }

    fn mini_column(&mut self, cmd: &Cmd, kind: AdmonitionKind) -> Block {
        let at = cmd.pos;
        if self.stack.len() >= super::MAX_DEPTH {
            self.too_deep(at, &format!("this `//{}`", cmd.name));
            return Block::new(
                BlockKind::Admonition {
                    kind,
                    title: AdmonitionTitle::Untitled,
                    blocks: Vec::new(),
                },
                at,
            );
        }
        if let Some((outer, pos)) = self.in_mini() {
            self.error_hint(
                codes::REVIEW_SYNTAX,
                at,
                format!(
                    "mini-columns cannot be nested: `//{}` is inside the `//{outer}` opened at line {}",
                    cmd.name, pos.line
                ),
                format!("close the `//{outer}` with `//}}` first"),
            );
        }
        let title = cmd.opt(0).cloned().map(|s| self.inlines(&s));
        let mut blocks = Vec::new();
        if cmd.body {
            self.stack.push(Frame::Mini {
                name: cmd.name.clone(),
                pos: at,
            });
            let (inner, closed) = self.blocks();
            self.stack.pop();
            if !closed {
                self.error_hint(
                    codes::REVIEW_SYNTAX,
                    at,
                    format!("`//{}` opened here is never closed with `//}}`", cmd.name),
                    "add a line `//}` where the block ends",
                );
            }
            blocks = inner;
        }
        Block::new(
            BlockKind::Admonition {
                kind,
                // Re:VIEW shows no caption where none is written.
                title: AdmonitionTitle::written(title),
                blocks,
            },
            at,
        )
    }

    fn caption(&mut self, cmd: &Cmd, i: usize) -> Option<Inlines> {
        cmd.opt(i).cloned().map(|s| self.inlines(&s))
    }

    fn run(&mut self, cmd: Cmd, body: Option<Vec<(u32, &'a str)>>, out: &mut Vec<Block>) {
        let at = cmd.pos;
        let lines = body.clone().unwrap_or_default();
        let kind = match cmd.name.as_str() {
            "list" | "listnum" => {
                let caption = self.caption(&cmd, 1);
                let numbered = cmd.name == "listnum";
                self.code(
                    CodeStyle::List,
                    Some(cmd.text(0)),
                    caption,
                    cmd.opt(2).map(Src::text),
                    numbered,
                    &lines,
                )
            }
            "emlist" | "emlistnum" | "source" => {
                let caption = self.caption(&cmd, 0);
                let style = if cmd.name == "source" {
                    CodeStyle::Source
                } else {
                    CodeStyle::Example
                };
                let numbered = cmd.name == "emlistnum";
                self.code(
                    style,
                    None,
                    caption,
                    cmd.opt(1).map(Src::text),
                    numbered,
                    &lines,
                )
            }
            "cmd" | "box" | "insn" => {
                let caption = self.caption(&cmd, 0);
                let style = if cmd.name == "cmd" {
                    CodeStyle::Command
                } else {
                    CodeStyle::Box
                };
                self.code(style, None, caption, None, false, &lines)
            }
            "image" | "indepimage" | "numberlessimage" | "imgtable" => {
                let id = cmd.text(0);
                let caption = self.caption(&cmd, 1);
                let alt = caption.as_deref().map(plain_text).unwrap_or_default();
                BlockKind::Figure(Box::new(Figure {
                    numbered: matches!(cmd.name.as_str(), "image" | "imgtable"),
                    as_table: cmd.name == "imgtable",
                    class: cmd.opt(2).and_then(|m| metric_class(&m.text())),
                    fallback: body.as_ref().map(|b| join_lines(b)),
                    id: Some(id.clone()),
                    number: None,
                    caption,
                    image: Image {
                        src: id,
                        alt,
                        by_id: true,
                    },
                }))
            }
            "graph" => {
                let id = cmd.text(0);
                self.warning(
                    codes::UNSUPPORTED,
                    at,
                    format!(
                        "`//graph` needs an external tool ({}); seihon does not run graph tools, so the figure shows its source text",
                        cmd.opt(1).map_or("graphviz, gnuplot…".to_string(), Src::text)
                    ),
                );
                let caption = self.caption(&cmd, 2);
                let alt = caption.as_deref().map(plain_text).unwrap_or_default();
                BlockKind::Figure(Box::new(Figure {
                    numbered: true,
                    as_table: false,
                    class: None,
                    fallback: Some(join_lines(&lines)),
                    id: Some(id.clone()),
                    number: None,
                    caption,
                    image: Image {
                        src: id,
                        alt,
                        by_id: true,
                    },
                }))
            }
            "table" | "emtable" => {
                let (id, caption) = if cmd.name == "table" {
                    (cmd.opt(0).map(Src::text), self.caption(&cmd, 1))
                } else {
                    (None, self.caption(&cmd, 0))
                };
                match self.table(id, caption, &lines, at) {
                    Some(k) => k,
                    None => return,
                }
            }
            "texequation" => {
                let tex = join_lines(&lines);
                let mathml = self.math(&tex, Display::Block, |offset| {
                    position_in_lines(&lines, offset)
                });
                BlockKind::Math(Box::new(Math {
                    id: cmd.opt(0).map(Src::text),
                    caption: self.caption(&cmd, 1),
                    number: None,
                    tex,
                    mathml,
                }))
            }
            "quote" | "doorquote" => {
                let attribution = if cmd.name == "doorquote" {
                    self.caption(&cmd, 0)
                } else {
                    None
                };
                BlockKind::Quote {
                    blocks: self.body_paras(&lines),
                    attribution,
                }
            }
            "lead" | "read" | "talk" => BlockKind::Div {
                class: if cmd.name == "talk" { "talk" } else { "lead" }.into(),
                blocks: self.body_paras(&lines),
            },
            "flushright" | "centering" => {
                let class = if cmd.name == "flushright" {
                    "flushright"
                } else {
                    "center"
                };
                for (pos, content) in self.body_paragraphs(&lines) {
                    out.push(Block::new(
                        BlockKind::StyledPara {
                            class: class.into(),
                            content,
                        },
                        pos,
                    ));
                }
                return;
            }
            "bpo" | "address" | "blockquote" | "include" => {
                self.warning(
                    codes::UNSUPPORTED,
                    at,
                    format!(
                        "`//{}` has no HTML form in Re:VIEW; seihon keeps its text as ordinary paragraphs",
                        cmd.name
                    ),
                );
                out.extend(self.body_paras(&lines));
                return;
            }
            "noindent" => {
                self.noindent = true;
                return;
            }
            "blankline" | "parasep" => {
                BlockKind::Para(vec![Inline::new(InlineKind::LineBreak, at)])
            }
            "pagebreak" => BlockKind::PageBreak,
            "hr" => BlockKind::Rule,
            "label" => BlockKind::Anchor(cmd.text(0)),
            "olnum" => {
                self.olnum = self.number_arg(&cmd);
                return;
            }
            "firstlinenum" => {
                self.firstlinenum = self.number_arg(&cmd).map(|n| n as u32);
                return;
            }
            "tsize" => return,
            "point" | "shoot" | "planning" | "best" | "security" => {
                let mut blocks = Vec::new();
                if let Some(c) = self.caption(&cmd, 0) {
                    blocks.push(Block::new(
                        BlockKind::StyledPara {
                            class: "caption".into(),
                            content: c,
                        },
                        at,
                    ));
                }
                blocks.extend(self.body_paras(&lines));
                BlockKind::Div {
                    class: cmd.name.clone(),
                    blocks,
                }
            }
            "footnote" | "endnote" => {
                self.note(&cmd);
                return;
            }
            "printendnotes" => {
                self.printendnotes = true;
                BlockKind::Endnotes
            }
            "bibpaper" => BlockKind::BibItem(Box::new(BibItem {
                id: cmd.text(0),
                number: None,
                caption: self.caption(&cmd, 1).unwrap_or_default(),
                blocks: self.body_paras(&lines),
            })),
            "raw" => {
                let arg = cmd.text(0);
                let (list, text) = builders(&arg);
                if !for_html(&list) {
                    return;
                }
                let skipped = arg.chars().count() - text.chars().count();
                let at = |i: usize| cmd.args.first().map_or(at, |a| a.at(skipped + i));
                match self.raw_html(text, true, &at) {
                    Some(nodes) => BlockKind::Raw(nodes),
                    None => return,
                }
            }
            "embed" => {
                let arg = cmd.text(0);
                let list = match builders(&arg) {
                    (Some(l), _) => Some(l),
                    (None, s) if s.trim().is_empty() => None,
                    (None, s) => Some(s.split(',').map(|b| b.trim().to_string()).collect()),
                };
                if !for_html(&list) {
                    return;
                }
                let text = join_lines(&lines);
                // The `i`-th character of the joined lines, back in the source.
                let at = |i: usize| {
                    let mut rest = i;
                    for (ln, l) in &lines {
                        let n = l.chars().count();
                        if rest <= n {
                            return Pos::new(*ln, rest as u32 + 1);
                        }
                        rest -= n + 1;
                    }
                    at
                };
                match self.raw_html(&text, false, &at) {
                    Some(nodes) => BlockKind::Raw(nodes),
                    None => return,
                }
            }
            "comment" => {
                if !self.opts.draft {
                    return;
                }
                let mut blocks = Vec::new();
                if let Some(c) = self.caption(&cmd, 0) {
                    blocks.push(Block::new(BlockKind::Para(c), at));
                }
                blocks.extend(self.body_paras(&lines));
                BlockKind::Div {
                    class: "draft-comment".into(),
                    blocks,
                }
            }
            // beginchild / endchild are handled by the block loop; an argument-syntax variant
            // that lands here has already been reported.
            _ => return,
        };
        out.push(Block::new(kind, at));
    }

    fn number_arg(&mut self, cmd: &Cmd) -> Option<u64> {
        let text = cmd.text(0);
        match text.trim().parse() {
            Ok(n) => Some(n),
            Err(_) => {
                self.error(
                    codes::REVIEW_SYNTAX,
                    cmd.pos,
                    format!("`//{}` needs a whole number, found `{text}`", cmd.name),
                );
                None
            }
        }
    }

    fn code(
        &mut self,
        style: CodeStyle,
        id: Option<String>,
        caption: Option<Inlines>,
        language: Option<String>,
        numbered: bool,
        lines: &[(u32, &str)],
    ) -> BlockKind {
        let width = if self.opts.tabwidth == 0 {
            8
        } else {
            self.opts.tabwidth
        };
        let first_line_number = if numbered {
            Some(self.firstlinenum.take().unwrap_or(1))
        } else {
            None
        };
        // Re:VIEW compiles a code body line by line.
        let mut inlines = Inlines::new();
        let mut plain = String::new();
        for &(ln, line) in lines {
            let mut src = Src::default();
            expand_tabs(line.trim_end(), ln, width, &mut src);
            plain.push_str(&src.text());
            plain.push('\n');
            let end = src.end;
            for inline in self.inlines(&src) {
                push_merged(&mut inlines, inline);
            }
            push_merged(&mut inlines, Inline::text("\n", end));
        }
        let plain_only = inlines
            .iter()
            .all(|i| matches!(i.kind, InlineKind::Text(_)));
        let (text, markup) = if plain_only {
            (plain, None)
        } else {
            (plain_text(&inlines), Some(inlines))
        };
        BlockKind::Code(Box::new(Code {
            style,
            id,
            number: None,
            caption,
            language,
            first_line_number,
            text,
            markup,
        }))
    }

    fn note(&mut self, cmd: &Cmd) {
        let label = cmd.text(0);
        let endnote = cmd.name == "endnote";
        let existing = if endnote {
            &self.doc.endnotes
        } else {
            &self.doc.footnotes
        };
        if let Some(first) = existing.iter().find(|f| f.label == label) {
            let line = first.pos.line;
            self.error(
                codes::REVIEW_SYNTAX,
                cmd.pos,
                format!(
                    "{} `{label}` is defined twice (first at line {line})",
                    if endnote { "endnote" } else { "footnote" }
                ),
            );
            return;
        }
        let content = self.caption(cmd, 1).unwrap_or_default();
        let note = Footnote {
            label,
            blocks: vec![Block::new(BlockKind::Para(content), cmd.pos)],
            pos: cmd.pos,
        };
        if endnote {
            self.doc.endnotes.push(note);
        } else {
            self.doc.footnotes.push(note);
        }
    }

    /// Raw XHTML, repaired where seihon can render around it as in Markdown (a void element
    /// closed, a bare `&` escaped, attributes EPUB does not allow dropped), each repair a
    /// warning; HTML that stays ill-formed is shown as the text it is, with a warning at the
    /// parser's position. `written` is the text as written, whose `\n` escapes are line breaks
    /// when `escapes` is set; `at` gives the source position of its `i`-th character.
    pub(super) fn raw_html(
        &mut self,
        written: &str,
        escapes: bool,
        at: &dyn Fn(usize) -> Pos,
    ) -> Option<Vec<dom::Node>> {
        let text = if escapes {
            written.replace("\\n", "\n")
        } else {
            written.to_string()
        };
        let (fixed, repairs) = crate::reader::rawhtml::repair(&text);
        let repaired = !repairs.is_empty();
        for r in repairs {
            let pos = at(written_index(written, escapes, r.offset));
            self.warning_hint(codes::HTML_REPAIRED, pos, r.message, r.hint);
        }
        match dom::parse_fragment(&fixed) {
            Ok(mut nodes) => {
                for done in crate::reader::rawhtml::clean_attributes(&mut nodes) {
                    self.warning(codes::HTML_REPAIRED, at(0), done);
                }
                Some(nodes)
            }
            Err(e) => {
                // Back from the parser's line and column to a character of the text as
                // written (exact unless a repair moved the text).
                let parsed = if repaired { &fixed } else { &text };
                let byte = byte_at(parsed, e.pos.line, e.pos.col).min(text.len());
                let pos = at(written_index(written, escapes, byte));
                if e.message.contains("levels deep") {
                    // Past the bound every later step needs: an error, as in every format.
                    self.error_hint(
                        codes::RAW_HTML,
                        pos,
                        format!("this HTML is not well-formed XHTML: {}", e.message),
                        "nest fewer elements inside each other",
                    );
                    return None;
                }
                self.warning_hint(
                    codes::HTML_REPAIRED,
                    pos,
                    format!(
                        "this HTML is not well-formed XHTML ({}); it is shown as the text it is",
                        e.message
                    ),
                    "an EPUB needs XHTML: close every element (`<br/>`) and quote every attribute",
                );
                Some(vec![dom::Node::Text(text)])
            }
        }
    }
}

fn join_lines(lines: &[(u32, &str)]) -> String {
    lines.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
}

/// Where byte `offset` of [`join_lines`]'s text is in the manuscript.
fn position_in_lines(lines: &[(u32, &str)], mut offset: usize) -> Pos {
    for (ln, line) in lines {
        if offset <= line.len() {
            let col = line.get(..offset).map_or(0, |s| s.chars().count());
            return Pos::new(*ln, col as u32 + 1);
        }
        offset -= line.len() + 1;
    }
    lines.last().map_or(Pos::new(1, 1), |(ln, l)| {
        Pos::new(*ln, l.chars().count() as u32 + 1)
    })
}

/// The byte of `text` at a parser's 1-based line and column (columns count characters).
fn byte_at(text: &str, line: u32, col: u32) -> usize {
    let mut offset = 0;
    for (n, l) in text.split_inclusive('\n').enumerate() {
        if n + 1 == line as usize {
            return offset
                + l.char_indices()
                    .nth(col.saturating_sub(1) as usize)
                    .map_or(l.len(), |(i, _)| i);
        }
        offset += l.len();
    }
    text.len()
}

/// The index of the character of `written` that byte `byte` of its text stands for, where
/// each `\n` escape (with `escapes`) is two characters written and one in the text.
fn written_index(written: &str, escapes: bool, byte: usize) -> usize {
    let mut text_byte = 0;
    let mut index = 0;
    let mut chars = written.chars().peekable();
    while let Some(c) = chars.next() {
        if text_byte >= byte {
            break;
        }
        if escapes && c == '\\' && chars.peek() == Some(&'n') {
            chars.next();
            index += 2;
            text_byte += 1;
            continue;
        }
        index += 1;
        text_byte += c.len_utf8();
    }
    index
}
