//! Tokens → MathML elements, by recursive descent: a sequence is atoms with their scripts; an
//! atom is a character, a group or a command with its arguments. Each level of nesting is
//! counted, so that no input can overflow the stack.
use super::lexer::{Tok, Token, lex};
use super::symbols::Font;
use super::{ErrorKind, MAX_DEPTH, MathError};
use crate::dom::Element;

pub(super) type Result<T> = std::result::Result<T, MathError>;

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
pub(super) enum Stop {
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
pub(super) enum Kind {
    Ordinary,
    /// `\sin`: followed by an invisible function application.
    Function,
    /// `\sum`, `\lim`, `\underbrace`: limits above and below (inline, MathML's
    /// `movablelimits` moves them to the side, as TeX does).
    Limits,
    /// `\int`: limits to the side.
    Integral,
}

pub(super) struct Parser<'a> {
    pub(super) tex: &'a str,
    pub(super) toks: Vec<Token>,
    pub(super) i: usize,
    pub(super) depth: usize,
    /// The font `\bf` or `\mathbf{…}` set, until the group ends.
    pub(super) font: Option<Font>,
}

pub(super) fn err(offset: usize, kind: ErrorKind) -> MathError {
    MathError { offset, kind }
}

pub(super) fn token(name: &str, text: &str) -> Element {
    Element::new(name).with_text(text)
}

pub(super) fn mo(text: &str) -> Element {
    token("mo", text)
}

/// A delimiter standing alone: TeX does not stretch `(` to its neighbours' height, MathML would.
pub(super) fn fixed(text: &str) -> Element {
    mo(text).with_attr("stretchy", "false")
}

pub(super) fn space(width: &str) -> Element {
    Element::new("mspace").with_attr("width", width)
}

/// One element for a list: the element itself, or an `mrow` of them.
pub(super) fn row(mut items: Vec<Element>) -> Element {
    if items.len() == 1 {
        items.pop().expect("one item")
    } else {
        let mut r = Element::new("mrow");
        items.into_iter().for_each(|e| r.push(e));
        r
    }
}

pub(super) fn styled(displaystyle: bool, el: Element) -> Element {
    Element::new("mstyle")
        .with_attr("displaystyle", if displaystyle { "true" } else { "false" })
        .with_child(el)
}

impl<'a> Parser<'a> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    pub(super) fn peek_command(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Command(c)) => Some(c),
            _ => None,
        }
    }

    /// Where the next token starts (the end of the TeX after the last).
    pub(super) fn offset(&self) -> usize {
        self.toks.get(self.i).map_or(self.tex.len(), |t| t.start)
    }

    /// The next token as written.
    pub(super) fn written(&self) -> String {
        self.toks
            .get(self.i)
            .map_or(String::new(), |t| self.tex[t.start..t.end].to_string())
    }

    /// Runs `f` one level deeper, refusing past [`MAX_DEPTH`].
    pub(super) fn nested<T>(
        &mut self,
        at: usize,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(err(at, ErrorKind::TooDeep));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Atoms until `stop` (not consumed).
    pub(super) fn sequence(&mut self, stop: Stop) -> Result<Vec<Element>> {
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
    pub(super) fn argument(&mut self, of: &str) -> Result<Element> {
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

    pub(super) fn atom(&mut self) -> Result<(Element, Kind)> {
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

    /// The source text of a `{…}` argument (for `\text`, `\begin`, `\operatorname`), and its
    /// offset; the tokens inside are skipped.
    pub(super) fn raw_group(&mut self, of: &str) -> Result<(&'a str, usize)> {
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
}
