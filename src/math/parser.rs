//! Tokens → MathML elements, by recursive descent: a sequence is atoms with their scripts; an
//! atom is a character, a group or a command with its arguments. Each level of nesting is
//! counted, so that no input can overflow the stack.
use super::lexer::{Tok, Token, lex};
use super::symbols::{self, Class, Font};
use super::{ErrorKind, MAX_DEPTH, MathError};
use crate::dom::Element;

type Result<T> = std::result::Result<T, MathError>;

/// The MathML elements of `tex`, the children of its `math` element.
pub(super) fn parse(tex: &str) -> Result<Vec<Element>> {
    let toks = lex(tex)?;
    let mut p = Parser {
        tex,
        toks,
        i: 0,
        depth: 0,
        font: None,
    };
    p.sequence(Stop::End)
}

/// What ends a sequence; each carries the offset of what opened it, for the error when the
/// TeX ends first.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    End,
    /// `}`.
    Close(usize),
    /// `\right`.
    Right(usize),
    /// `]` of `\sqrt[…]`.
    Bracket(usize),
    /// A table cell: `&`, `\\`, `\end`, `\hline` or the `}` of `\substack`.
    Cell,
}

/// How an atom takes its scripts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Ordinary,
    /// `\sin`: followed by an invisible function application.
    Function,
    /// `\sum`, `\lim`, `\underbrace`: limits above and below (inline, MathML's
    /// `movablelimits` moves them to the side, as TeX does).
    Limits,
    /// `\int`: limits to the side.
    Integral,
}

struct Parser<'a> {
    tex: &'a str,
    toks: Vec<Token>,
    i: usize,
    depth: usize,
    /// The font `\bf` or `\mathbf{…}` set, until the group ends.
    font: Option<Font>,
}

fn err(offset: usize, kind: ErrorKind) -> MathError {
    MathError { offset, kind }
}

fn token(name: &str, text: &str) -> Element {
    Element::new(name).with_text(text)
}

fn mo(text: &str) -> Element {
    token("mo", text)
}

/// A delimiter standing alone: TeX does not stretch `(` to its neighbours' height, MathML would.
fn fixed(text: &str) -> Element {
    mo(text).with_attr("stretchy", "false")
}

fn space(width: &str) -> Element {
    Element::new("mspace").with_attr("width", width)
}

/// One element for a list: the element itself, or an `mrow` of them.
fn row(mut items: Vec<Element>) -> Element {
    if items.len() == 1 {
        items.pop().expect("one item")
    } else {
        let mut r = Element::new("mrow");
        items.into_iter().for_each(|e| r.push(e));
        r
    }
}

fn styled(displaystyle: bool, el: Element) -> Element {
    Element::new("mstyle")
        .with_attr("displaystyle", if displaystyle { "true" } else { "false" })
        .with_child(el)
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn peek_command(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Command(c)) => Some(c),
            _ => None,
        }
    }

    /// Where the next token starts (the end of the TeX after the last).
    fn offset(&self) -> usize {
        self.toks.get(self.i).map_or(self.tex.len(), |t| t.start)
    }

    /// The next token as written.
    fn written(&self) -> String {
        self.toks
            .get(self.i)
            .map_or(String::new(), |t| self.tex[t.start..t.end].to_string())
    }

    /// Runs `f` one level deeper, refusing past [`MAX_DEPTH`].
    fn nested<T>(&mut self, at: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(err(at, ErrorKind::TooDeep));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Atoms until `stop` (not consumed).
    fn sequence(&mut self, stop: Stop) -> Result<Vec<Element>> {
        let at = self.offset();
        self.nested(at, |p| p.sequence_inner(stop))
    }

    fn sequence_inner(&mut self, stop: Stop) -> Result<Vec<Element>> {
        let mut out = Vec::new();
        loop {
            let at = self.offset();
            let Some(tok) = self.peek().cloned() else {
                return match stop {
                    Stop::End | Stop::Cell => Ok(out),
                    Stop::Close(open) => Err(err(open, ErrorKind::Unclosed)),
                    Stop::Right(open) => Err(err(open, ErrorKind::UnclosedLeft)),
                    Stop::Bracket(open) => Err(err(open, ErrorKind::UnclosedBracket)),
                };
            };
            match tok {
                Tok::Close => {
                    return match stop {
                        Stop::Close(_) | Stop::Cell => Ok(out),
                        _ => Err(err(at, ErrorKind::UnmatchedClose)),
                    };
                }
                Tok::Char(']') if matches!(stop, Stop::Bracket(_)) => return Ok(out),
                Tok::Amp if stop == Stop::Cell => return Ok(out),
                Tok::Amp => return Err(err(at, ErrorKind::OutsideTable("&".into()))),
                Tok::Command(c) => match c.as_str() {
                    "right" if matches!(stop, Stop::Right(_)) => return Ok(out),
                    "right" => return Err(err(at, ErrorKind::UnmatchedRight)),
                    "\\" | "end" | "hline" if stop == Stop::Cell => return Ok(out),
                    "end" => return Err(err(at, ErrorKind::UnmatchedEnd)),
                    "\\" | "hline" => {
                        return Err(err(at, ErrorKind::OutsideTable(self.written())));
                    }
                    "middle" if matches!(stop, Stop::Right(_)) => {
                        self.i += 1;
                        let d = self.delimiter("\\middle")?;
                        out.push(mo(&d).with_attr("stretchy", "true"));
                    }
                    "displaystyle" | "textstyle" => {
                        self.i += 1;
                        let rest = self.sequence(stop)?;
                        out.push(styled(c == "displaystyle", row(rest)));
                        return Ok(out);
                    }
                    "scriptstyle" | "scriptscriptstyle" => {
                        self.i += 1;
                        let rest = self.sequence(stop)?;
                        let level = if c == "scriptstyle" { "1" } else { "2" };
                        out.push(
                            Element::new("mstyle")
                                .with_attr("displaystyle", "false")
                                .with_attr("scriptlevel", level)
                                .with_child(row(rest)),
                        );
                        return Ok(out);
                    }
                    "over" => {
                        self.i += 1;
                        let den = self.sequence(stop)?;
                        let num = std::mem::take(&mut out);
                        out.push(
                            Element::new("mfrac")
                                .with_child(row(num))
                                .with_child(row(den)),
                        );
                        return Ok(out);
                    }
                    // The old font switches last until the group ends.
                    "rm" | "bf" | "it" | "cal" | "sf" | "tt" => {
                        self.i += 1;
                        self.font = Font::of(&c);
                    }
                    // Numbering inside `align` is the reader's, not the equation's.
                    "nonumber" | "notag" => self.i += 1,
                    _ => out.extend(self.scripted()?),
                },
                _ => out.extend(self.scripted()?),
            }
        }
    }

    /// An atom with its scripts (and primes); a function name with its function application.
    fn scripted(&mut self) -> Result<Vec<Element>> {
        let (base, kind) = self.atom()?;
        let mut limits = kind == Kind::Limits;
        while let Some(c @ ("limits" | "nolimits")) = self.peek_command() {
            if !matches!(kind, Kind::Limits | Kind::Integral) {
                return Err(err(
                    self.offset(),
                    ErrorKind::LimitsWithoutOperator(c.to_string()),
                ));
            }
            limits = c == "limits";
            self.i += 1;
        }
        let (mut sub, mut sup, mut primes) = (None, None, 0usize);
        loop {
            let at = self.offset();
            match self.peek() {
                Some(Tok::Sub) => {
                    if sub.is_some() {
                        return Err(err(at, ErrorKind::DoubleScript("sub")));
                    }
                    self.i += 1;
                    sub = Some(self.argument("_")?);
                }
                Some(Tok::Sup) => {
                    if sup.is_some() {
                        return Err(err(at, ErrorKind::DoubleScript("super")));
                    }
                    self.i += 1;
                    sup = Some(self.argument("^")?);
                }
                Some(Tok::Char('\'')) => {
                    if sup.is_some() {
                        return Err(err(at, ErrorKind::DoubleScript("super")));
                    }
                    self.i += 1;
                    primes += 1;
                }
                _ => break,
            }
        }
        // `f''^2` is `f^{\prime\prime 2}`.
        if primes > 0 {
            let marks = match primes {
                1 => "′".to_string(),
                2 => "″".to_string(),
                3 => "‴".to_string(),
                n => "′".repeat(n),
            };
            sup = Some(match sup {
                None => mo(&marks),
                Some(s) => row(vec![mo(&marks), s]),
            });
        }
        let (under, over, both) = if limits {
            ("munder", "mover", "munderover")
        } else {
            ("msub", "msup", "msubsup")
        };
        let el = match (sub, sup) {
            (None, None) => base,
            (Some(b), None) => Element::new(under).with_child(base).with_child(b),
            (None, Some(p)) => Element::new(over).with_child(base).with_child(p),
            (Some(b), Some(p)) => Element::new(both)
                .with_child(base)
                .with_child(b)
                .with_child(p),
        };
        let mut out = vec![el];
        if kind == Kind::Function {
            out.extend(self.application());
        }
        Ok(out)
    }

    /// After a function name: U+2061 (what tells a reader `sin x` is sin applied to x), and
    /// TeX's thin space unless a parenthesis follows; nothing at the end of a group.
    fn application(&self) -> Vec<Element> {
        match self.peek() {
            None | Some(Tok::Close | Tok::Amp) => Vec::new(),
            Some(Tok::Command(c)) if matches!(c.as_str(), "\\" | "end" | "right" | "middle") => {
                Vec::new()
            }
            Some(Tok::Char('(' | '[')) => vec![mo("\u{2061}")],
            Some(Tok::Command(c)) if c == "left" || c == "begin" => vec![mo("\u{2061}")],
            _ => vec![mo("\u{2061}"), space("0.1667em")],
        }
    }

    /// A script's or a command's argument: a group, or one token (`x^2`, `\frac12`).
    fn argument(&mut self, of: &str) -> Result<Element> {
        let at = self.offset();
        match self.peek() {
            Some(Tok::Open) => self.group(),
            Some(Tok::Char(c)) => {
                let c = *c;
                self.i += 1;
                self.nested(at, |p| p.character(c, at, false))
            }
            Some(Tok::Command(c)) if !matches!(c.as_str(), "\\" | "end" | "right" | "hline") => {
                Ok(self.atom()?.0)
            }
            _ => Err(err(at, ErrorKind::MissingArgument(of.to_string()))),
        }
    }

    /// `{…}` as one element; a font switched inside ends with it.
    fn group(&mut self) -> Result<Element> {
        let open = self.offset();
        self.i += 1;
        let font = self.font;
        let items = self.sequence(Stop::Close(open))?;
        self.i += 1;
        self.font = font;
        Ok(row(items))
    }

    fn atom(&mut self) -> Result<(Element, Kind)> {
        let at = self.offset();
        self.nested(at, |p| p.atom_inner(at))
    }

    fn atom_inner(&mut self, at: usize) -> Result<(Element, Kind)> {
        match self.peek().cloned() {
            Some(Tok::Open) => Ok((self.group()?, Kind::Ordinary)),
            // A script with no base (`^2`, `{}^{14}C`): an empty one.
            Some(Tok::Sup | Tok::Sub) => Ok((Element::new("mrow"), Kind::Ordinary)),
            Some(Tok::Char(c)) => {
                self.i += 1;
                Ok((self.character(c, at, true)?, Kind::Ordinary))
            }
            Some(Tok::Command(name)) => {
                self.i += 1;
                self.command(&name, at)
            }
            Some(Tok::Close) => Err(err(at, ErrorKind::UnmatchedClose)),
            Some(Tok::Amp) => Err(err(at, ErrorKind::OutsideTable("&".into()))),
            None => Err(err(at, ErrorKind::MissingArgument(String::new()))),
        }
    }

    /// A character: a number (all its digits when `whole`, one in a script), a letter, an
    /// operator.
    fn character(&mut self, c: char, at: usize, whole: bool) -> Result<Element> {
        let digit_at = |p: &Self, k: usize| matches!(p.toks.get(k).map(|t| &t.tok), Some(Tok::Char(d)) if d.is_ascii_digit());
        if c.is_ascii_digit() || (c == '.' && whole && digit_at(self, self.i)) {
            let mut n = c.to_string();
            while whole && let Some(Tok::Char(d)) = self.peek() {
                let d = *d;
                if !(d.is_ascii_digit() || (d == '.' && digit_at(self, self.i + 1))) {
                    break;
                }
                n.push(d);
                self.i += 1;
            }
            let n: String = match self.font {
                Some(f) => n.chars().map(|d| f.styled(d).unwrap_or(d)).collect(),
                None => n,
            };
            return Ok(token("mn", &n));
        }
        if c.is_ascii_alphabetic() {
            return Ok(self.letters(c, whole));
        }
        Ok(match c {
            '+' | '=' | '<' | '>' | ',' | ';' | ':' | '!' | '?' | '.' | '@' | '"' => {
                mo(&c.to_string())
            }
            '-' => mo("−"),
            '*' => mo("∗"),
            '\'' => mo("′"),
            '(' | ')' | '[' | ']' | '|' | '/' => fixed(&c.to_string()),
            '~' => token("mtext", "\u{a0}"),
            '#' => {
                return Err(err(
                    at,
                    ErrorKind::Unsupported("`#` (a macro parameter)".into()),
                ));
            }
            '$' => return Err(err(at, ErrorKind::Unsupported("`$` inside math".into()))),
            c if c.is_alphabetic() => self.identifier(&c.to_string(), false),
            c if c.is_numeric() => token("mn", &c.to_string()),
            c => mo(&c.to_string()),
        })
    }

    /// A Latin letter in the current font; `\mathrm{max}` makes one upright identifier of its
    /// run of letters.
    fn letters(&mut self, c: char, whole: bool) -> Element {
        match self.font {
            None => token("mi", &c.to_string()),
            Some(Font::Roman) => {
                let mut word = c.to_string();
                while whole && let Some(Tok::Char(l)) = self.peek() {
                    if !l.is_ascii_alphabetic() {
                        break;
                    }
                    word.push(*l);
                    self.i += 1;
                }
                let mi = token("mi", &word);
                // One letter would be italic without it; several are upright anyway.
                if word.len() == 1 {
                    mi.with_attr("mathvariant", "normal")
                } else {
                    mi
                }
            }
            Some(f) => token("mi", &f.styled(c).unwrap_or(c).to_string()),
        }
    }

    fn command(&mut self, name: &str, at: usize) -> Result<(Element, Kind)> {
        let ordinary = |e| Ok((e, Kind::Ordinary));
        if let Some((c, class)) = symbols::symbol(name) {
            let c = c.to_string();
            return match class {
                Class::Ident => ordinary(self.identifier(&c, false)),
                Class::Upright => ordinary(self.identifier(&c, true)),
                Class::Op => ordinary(mo(&c)),
                Class::Fence => ordinary(fixed(&c)),
                Class::BigOp => Ok((mo(&c), Kind::Limits)),
                Class::Integral => Ok((mo(&c), Kind::Integral)),
            };
        }
        if let Some((f, limits)) = symbols::function(name) {
            return Ok(if limits {
                (limit_op(f), Kind::Limits)
            } else {
                (token("mi", f), Kind::Function)
            });
        }
        if let Some((mark, stretchy, below)) = symbols::accent(name) {
            let base = self.argument(&format!("\\{name}"))?;
            let brace = matches!(name, "overbrace" | "underbrace");
            let mut mark = mo(&mark.to_string()).with_attr("stretchy", stretchy.to_string());
            if brace {
                // A brace is not an accent: its limits (`\underbrace{…}_{n}`) go beyond it.
                mark.attrs.clear();
            }
            let mut el = Element::new(if below { "munder" } else { "mover" });
            if !brace {
                el.set_attr(if below { "accentunder" } else { "accent" }, "true");
            }
            let el = el.with_child(base).with_child(mark);
            return Ok((el, if brace { Kind::Limits } else { Kind::Ordinary }));
        }
        // `\mathbf{…}` (the switches, `\bf`, are the sequence's).
        let font_of_argument = if name.starts_with("math") || matches!(name, "boldsymbol" | "bm") {
            Font::of(name)
        } else {
            None
        };
        if let Some(font) = font_of_argument {
            let saved = self.font;
            self.font = Some(font);
            let el = self.argument(&format!("\\{name}"));
            self.font = saved;
            return ordinary(el?);
        }
        let arg = |p: &mut Self| p.argument(&format!("\\{name}"));
        match name {
            "frac" | "dfrac" | "tfrac" | "cfrac" => {
                let num = arg(self)?;
                let den = arg(self)?;
                let frac = Element::new("mfrac").with_child(num).with_child(den);
                ordinary(match name {
                    "dfrac" | "cfrac" => styled(true, frac),
                    "tfrac" => styled(false, frac),
                    _ => frac,
                })
            }
            "binom" | "dbinom" | "tbinom" => {
                let top = arg(self)?;
                let bottom = arg(self)?;
                let frac = Element::new("mfrac")
                    .with_attr("linethickness", "0")
                    .with_child(top)
                    .with_child(bottom);
                let b = row(vec![mo("("), frac, mo(")")]);
                ordinary(match name {
                    "dbinom" => styled(true, b),
                    "tbinom" => styled(false, b),
                    _ => b,
                })
            }
            "sqrt" => {
                let index = if matches!(self.peek(), Some(Tok::Char('['))) {
                    let open = self.offset();
                    self.i += 1;
                    let index = self.sequence(Stop::Bracket(open))?;
                    self.i += 1;
                    Some(row(index))
                } else {
                    None
                };
                let body = arg(self)?;
                ordinary(match index {
                    Some(n) => Element::new("mroot").with_child(body).with_child(n),
                    None => Element::new("msqrt").with_child(body),
                })
            }
            "left" => ordinary(self.fenced(at)?),
            "big" | "Big" | "bigg" | "Bigg" | "bigl" | "Bigl" | "biggl" | "Biggl" | "bigr"
            | "Bigr" | "biggr" | "Biggr" | "bigm" | "Bigm" | "biggm" | "Biggm" => {
                let size = match name.trim_end_matches(['l', 'r', 'm']) {
                    "big" => "1.2em",
                    "Big" => "1.8em",
                    "bigg" => "2.4em",
                    _ => "3em",
                };
                let d = self.delimiter(&format!("\\{name}"))?;
                ordinary(if d.is_empty() {
                    Element::new("mrow")
                } else {
                    mo(&d)
                        .with_attr("stretchy", "true")
                        .with_attr("minsize", size)
                        .with_attr("maxsize", size)
                })
            }
            "text" | "textrm" | "textup" | "textnormal" | "mbox" | "textbf" | "textit"
            | "texttt" | "textsf" => {
                let (raw, start) = self.raw_group(name)?;
                let mut t = token("mtext", &text_of(raw, start)?);
                let variant = match name {
                    "textbf" => Some("bold"),
                    "textit" => Some("italic"),
                    "texttt" => Some("monospace"),
                    "textsf" => Some("sans-serif"),
                    _ => None,
                };
                if let Some(v) = variant {
                    t.set_attr("mathvariant", v);
                }
                ordinary(t)
            }
            "operatorname" => {
                let star = matches!(self.peek(), Some(Tok::Char('*')));
                if star {
                    self.i += 1;
                }
                let (raw, start) = self.raw_group(name)?;
                let word = raw.trim();
                if word.is_empty()
                    || !word
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-'))
                {
                    return Err(err(
                        start,
                        ErrorKind::Unsupported(format!("`\\operatorname{{{raw}}}`")),
                    ));
                }
                Ok(if star {
                    (limit_op(word), Kind::Limits)
                } else {
                    (token("mi", word), Kind::Function)
                })
            }
            "overset" | "stackrel" | "underset" => {
                let script = arg(self)?;
                let base = arg(self)?;
                let el = if name == "underset" {
                    "munder"
                } else {
                    "mover"
                };
                ordinary(Element::new(el).with_child(base).with_child(script))
            }
            "boxed" => ordinary(
                Element::new("menclose")
                    .with_attr("notation", "box")
                    .with_child(arg(self)?),
            ),
            "phantom" => ordinary(Element::new("mphantom").with_child(arg(self)?)),
            "not" => {
                let (mut el, _) = self.atom()?;
                let negatable = matches!(el.name.as_str(), "mo" | "mi")
                    && el.text_content().chars().count() == 1;
                if !negatable {
                    return Err(err(
                        at,
                        ErrorKind::Unsupported("`\\not` before what is not a symbol".into()),
                    ));
                }
                let c = el.text_content().chars().next().expect("one character");
                el.children.clear();
                el.push_text(&symbols::negated(c));
                ordinary(el)
            }
            "mod" | "bmod" => ordinary(mo("mod")),
            "pmod" => {
                let n = arg(self)?;
                ordinary(row(vec![
                    space("1em"),
                    fixed("("),
                    token("mi", "mod"),
                    space("0.3333em"),
                    n,
                    fixed(")"),
                ]))
            }
            "begin" => ordinary(self.environment(at)?),
            "substack" => {
                if !matches!(self.peek(), Some(Tok::Open)) {
                    return Err(err(at, ErrorKind::MissingArgument("\\substack".into())));
                }
                let open = self.offset();
                self.i += 1;
                let rows = self.rows()?;
                match self.peek() {
                    Some(Tok::Close) => self.i += 1,
                    None => return Err(err(open, ErrorKind::Unclosed)),
                    Some(_) => return Err(self.misplaced()),
                }
                ordinary(table(rows, &[], None).with_attr("displaystyle", "false"))
            }
            "," | "thinspace" => ordinary(space("0.1667em")),
            ":" | ">" | "medspace" => ordinary(space("0.2222em")),
            ";" | "thickspace" => ordinary(space("0.2778em")),
            "!" | "negthinspace" => ordinary(space("-0.1667em")),
            "enspace" => ordinary(space("0.5em")),
            "quad" => ordinary(space("1em")),
            "qquad" => ordinary(space("2em")),
            " " | "\n" | "\t" => ordinary(token("mtext", "\u{a0}")),
            "hspace" => {
                if matches!(self.peek(), Some(Tok::Char('*'))) {
                    self.i += 1;
                }
                let (raw, start) = self.raw_group(name)?;
                match length(raw) {
                    Some(w) => ordinary(space(&w)),
                    None => Err(err(
                        start,
                        ErrorKind::Unsupported(format!("the length `{raw}`")),
                    )),
                }
            }
            "limits" | "nolimits" => {
                Err(err(at, ErrorKind::LimitsWithoutOperator(name.to_string())))
            }
            "middle" => Err(err(
                at,
                ErrorKind::Unsupported("`\\middle` outside `\\left … \\right`".into()),
            )),
            "right" => Err(err(at, ErrorKind::UnmatchedRight)),
            "end" => Err(err(at, ErrorKind::UnmatchedEnd)),
            "\\" | "hline" => Err(err(at, ErrorKind::OutsideTable(format!("\\{name}")))),
            _ => Err(err(at, ErrorKind::UnknownCommand(name.to_string()))),
        }
    }

    /// `\alpha`, `\Gamma`, `\infty`, a letter other than Latin: an identifier in the current
    /// font, named (Unicode styles only Latin letters and digits for every font); `upright`:
    /// TeX's capital Greek.
    fn identifier(&self, c: &str, upright: bool) -> Element {
        let mi = token("mi", c);
        match self.font {
            Some(f) => mi.with_attr("mathvariant", f.variant()),
            None if upright => mi.with_attr("mathvariant", "normal"),
            None => mi,
        }
    }

    /// The delimiter after `\left`, `\right`, `\middle` or `\big`: its character, or nothing
    /// for `.`.
    fn delimiter(&mut self, of: &str) -> Result<String> {
        let at = self.offset();
        let d = match self.peek() {
            Some(Tok::Char('.')) => Some(String::new()),
            Some(Tok::Char(c)) => symbols::delimiter_char(*c).map(String::from),
            Some(Tok::Command(c)) => match symbols::symbol(c) {
                Some((c, Class::Fence)) => Some(c.to_string()),
                _ => None,
            },
            _ => None,
        };
        match d {
            Some(d) => {
                self.i += 1;
                Ok(d)
            }
            None if self.peek().is_none() => {
                Err(err(at, ErrorKind::MissingArgument(of.to_string())))
            }
            None => Err(err(at, ErrorKind::NotADelimiter(self.written()))),
        }
    }

    /// `\left( … \right)`, the `\left` read: the fences stretch to what they enclose.
    fn fenced(&mut self, at: usize) -> Result<Element> {
        let open = self.delimiter("\\left")?;
        let inner = self.sequence(Stop::Right(at))?;
        self.i += 1;
        let close = self.delimiter("\\right")?;
        let mut items = Vec::new();
        if !open.is_empty() {
            items.push(mo(&open).with_attr("stretchy", "true"));
        }
        items.extend(inner);
        if !close.is_empty() {
            items.push(mo(&close).with_attr("stretchy", "true"));
        }
        let mut r = Element::new("mrow");
        items.into_iter().for_each(|e| r.push(e));
        Ok(r)
    }

    /// The source text of a `{…}` argument (for `\text`, `\begin`, `\operatorname`), and its
    /// offset; the tokens inside are skipped.
    fn raw_group(&mut self, of: &str) -> Result<(&'a str, usize)> {
        let at = self.offset();
        if !matches!(self.peek(), Some(Tok::Open)) {
            return Err(err(at, ErrorKind::MissingArgument(format!("\\{of}"))));
        }
        let start = self.toks[self.i].end;
        let mut depth = 0usize;
        for j in self.i..self.toks.len() {
            match self.toks[j].tok {
                Tok::Open => depth += 1,
                Tok::Close => {
                    depth -= 1;
                    if depth == 0 {
                        let end = self.toks[j].start;
                        self.i = j + 1;
                        return Ok((&self.tex[start..end], start));
                    }
                }
                _ => {}
            }
        }
        Err(err(at, ErrorKind::Unclosed))
    }

    /// An error for the token where a table's end was expected.
    fn misplaced(&self) -> MathError {
        let at = self.offset();
        match self.peek() {
            Some(Tok::Close) => err(at, ErrorKind::UnmatchedClose),
            _ => err(
                at,
                ErrorKind::Unsupported(format!("`{}` here", self.written())),
            ),
        }
    }

    /// `\begin{name}` read: the environment to its `\end{name}`.
    fn environment(&mut self, at: usize) -> Result<Element> {
        let (name, _) = self.raw_group("begin")?;
        let name = name.trim().to_string();
        let (columns, lines) = if name == "array" {
            let (spec, start) = self.raw_group("begin{array}")?;
            column_spec(spec, start)?
        } else {
            (Vec::new(), Vec::new())
        };
        let el = match name.as_str() {
            "matrix" | "smallmatrix" | "pmatrix" | "bmatrix" | "Bmatrix" | "vmatrix"
            | "Vmatrix" | "array" | "cases" | "dcases" | "aligned" | "align" | "align*"
            | "split" | "eqnarray" | "eqnarray*" | "gathered" | "gather" | "gather*"
            | "multline" | "multline*" => {
                let rows = self.rows()?;
                self.end_of(&name, at)?;
                let cols = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
                let aligned = matches!(
                    name.as_str(),
                    "aligned" | "align" | "align*" | "split" | "eqnarray" | "eqnarray*"
                );
                let align: Vec<&str> = if name == "array" {
                    columns
                } else if aligned {
                    (0..cols)
                        .map(|i| if i % 2 == 0 { "right" } else { "left" })
                        .collect()
                } else if name.ends_with("cases") {
                    vec!["left"; cols]
                } else {
                    Vec::new()
                };
                let mut t = table(rows, &align, (!lines.is_empty()).then_some(&lines[..]));
                if aligned {
                    // The columns of `a &= b` meet at the `=`; pairs are spaced apart.
                    let spacing: Vec<&str> = (1..cols)
                        .map(|i| if i % 2 == 1 { "0em" } else { "2em" })
                        .collect();
                    if !spacing.is_empty() {
                        t.set_attr("columnspacing", spacing.join(" "));
                    }
                }
                if aligned || name.starts_with("gather") || name.starts_with("multline") {
                    t.set_attr("displaystyle", "true");
                }
                if name == "dcases" {
                    t.set_attr("displaystyle", "true");
                }
                let fences = match name.as_str() {
                    "pmatrix" => Some(("(", ")")),
                    "bmatrix" => Some(("[", "]")),
                    "Bmatrix" => Some(("{", "}")),
                    "vmatrix" => Some(("|", "|")),
                    "Vmatrix" => Some(("‖", "‖")),
                    "cases" | "dcases" => Some(("{", "")),
                    _ => None,
                };
                match fences {
                    Some((open, close)) => {
                        let mut r = Element::new("mrow").with_child(mo(open)).with_child(t);
                        if !close.is_empty() {
                            r.push(mo(close));
                        }
                        r
                    }
                    None => t,
                }
            }
            "equation" | "equation*" => {
                let items = self.sequence(Stop::Cell)?;
                self.end_of(&name, at)?;
                row(items)
            }
            _ => return Err(err(at, ErrorKind::UnknownEnvironment(name))),
        };
        Ok(el)
    }

    /// `\end{name}`, where an environment's rows end.
    fn end_of(&mut self, name: &str, at: usize) -> Result<()> {
        match self.peek_command() {
            Some("end") => {
                self.i += 1;
                let (found, _) = self.raw_group("end")?;
                let found = found.trim();
                if found != name {
                    return Err(err(
                        at,
                        ErrorKind::WrongEnd {
                            open: name.to_string(),
                            found: found.to_string(),
                        },
                    ));
                }
                Ok(())
            }
            None if self.peek().is_none() => {
                Err(err(at, ErrorKind::UnclosedEnvironment(name.to_string())))
            }
            _ => Err(self.misplaced()),
        }
    }

    /// Rows of cells split by `&` and `\\`, with the `\hline`s between them, up to what ends
    /// the table (not consumed).
    fn rows(&mut self) -> Result<Vec<Row>> {
        let mut rows = Vec::new();
        loop {
            let mut rule_above = false;
            while self.peek_command() == Some("hline") {
                self.i += 1;
                rule_above = true;
            }
            let mut cells = vec![self.sequence(Stop::Cell)?];
            while matches!(self.peek(), Some(Tok::Amp)) {
                self.i += 1;
                cells.push(self.sequence(Stop::Cell)?);
            }
            rows.push(Row { rule_above, cells });
            if self.peek_command() != Some("\\") {
                break;
            }
            self.i += 1;
            // `\\[4pt]`: extra space under the row, which MathML leaves to the renderer.
            if matches!(self.peek(), Some(Tok::Char('['))) {
                while let Some(t) = self.peek() {
                    let end = *t == Tok::Char(']');
                    self.i += 1;
                    if end {
                        break;
                    }
                }
            }
        }
        // `\\` after the last row starts no row.
        // (A rule under the last row is at the outer edge, left out.)
        if rows.len() > 1
            && rows
                .last()
                .is_some_and(|r| r.cells.len() == 1 && r.cells[0].is_empty())
        {
            rows.pop();
        }
        Ok(rows)
    }
}

/// A row of a table: its cells' elements, and whether `\hline` drew a rule above it.
struct Row {
    rule_above: bool,
    cells: Vec<Vec<Element>>,
}

/// An `mtable` of `rows`; `align` and `lines` (between columns) as the column specification
/// says. Rules between rows come from `\hline`; one at the table's outer edge is left out,
/// since MathML frames a table on all four sides or none.
fn table(rows: Vec<Row>, align: &[&str], lines: Option<&[&str]>) -> Element {
    let mut t = Element::new("mtable");
    if !align.is_empty() {
        t.set_attr("columnalign", align.join(" "));
    }
    if let Some(lines) = lines {
        t.set_attr("columnlines", lines.join(" "));
    }
    let rules: Vec<&str> = rows
        .iter()
        .skip(1)
        .map(|r| if r.rule_above { "solid" } else { "none" })
        .collect();
    if rules.contains(&"solid") {
        t.set_attr("rowlines", rules.join(" "));
    }
    for r in rows {
        let mut tr = Element::new("mtr");
        for cell in r.cells {
            let mut td = Element::new("mtd");
            cell.into_iter().for_each(|e| td.push(e));
            tr.push(td);
        }
        t.push(tr);
    }
    t
}

/// `\lim`, `\max`, `\operatorname*`: an operator whose limits go below it in display.
fn limit_op(name: &str) -> Element {
    mo(name)
        .with_attr("movablelimits", "true")
        .with_attr("form", "prefix")
}

/// An `array`'s column specification (`{c|cl}`) → the columns' alignments and the rules between
/// them (a rule at the outer edge is left out, as for `\hline`).
fn column_spec(spec: &str, start: usize) -> Result<(Vec<&'static str>, Vec<&'static str>)> {
    let mut align = Vec::new();
    let mut rule_before = Vec::new();
    let mut pending_rule = false;
    for (i, c) in spec.char_indices() {
        match c {
            'l' | 'c' | 'r' => {
                align.push(match c {
                    'l' => "left",
                    'c' => "center",
                    _ => "right",
                });
                rule_before.push(pending_rule);
                pending_rule = false;
            }
            '|' => pending_rule = true,
            c if c.is_whitespace() => {}
            _ => {
                return Err(err(
                    start + i,
                    ErrorKind::Unsupported(format!("the column specification `{spec}`")),
                ));
            }
        }
    }
    let lines: Vec<&str> = rule_before
        .iter()
        .skip(1)
        .map(|&r| if r { "solid" } else { "none" })
        .collect();
    let lines = if lines.contains(&"solid") {
        lines
    } else {
        Vec::new()
    };
    Ok((align, lines))
}

/// The text of `\text{…}`: TeX's escapes undone, its braces dropped, spaces at the edges kept
/// (MathML would trim them).
fn text_of(raw: &str, start: usize) -> Result<String> {
    let mut out = String::new();
    let mut it = raw.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '{' | '}' => {}
            '~' => out.push('\u{a0}'),
            '$' => {
                return Err(err(
                    start + i,
                    ErrorKind::Unsupported("math inside `\\text`".into()),
                ));
            }
            '\\' => match it.next() {
                Some((_, e @ ('{' | '}' | '$' | '%' | '&' | '#' | '_'))) => out.push(e),
                Some((_, ' ')) => out.push(' '),
                _ => {
                    let name: String = raw[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphabetic())
                        .collect();
                    return Err(err(
                        start + i,
                        ErrorKind::Unsupported(format!("`\\{name}` inside `\\text`")),
                    ));
                }
            },
            c if c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
    }
    let trimmed = out.trim_matches(' ');
    let lead = out.len() - out.trim_start_matches(' ').len();
    let trail = out.len() - out.trim_end_matches(' ').len();
    if trimmed.is_empty() {
        return Ok("\u{a0}".repeat(lead.min(1)));
    }
    Ok(format!(
        "{}{trimmed}{}",
        "\u{a0}".repeat(lead),
        "\u{a0}".repeat(trail)
    ))
}

/// A TeX length (`1em`, `-3pt`, `18mu`) as a MathML one (math units are 1/18 em).
fn length(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let split = raw
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(raw.len());
    let (num, unit) = raw.split_at(split);
    let value: f64 = num.trim().parse().ok()?;
    match unit {
        "em" | "ex" | "pt" | "px" | "mm" | "cm" | "in" | "pc" => Some(format!("{value}{unit}")),
        "mu" => {
            let em = (value / 18.0 * 10000.0).round() / 10000.0;
            Some(format!("{em}em"))
        }
        _ => None,
    }
}
