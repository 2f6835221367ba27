//! The commands: symbols, functions, accents, fonts, fractions, roots, fences, text and
//! spacing, each with the arguments it takes.
use super::ErrorKind;
use super::lexer::Tok;
use super::parser::{Kind, Parser, Result, Stop, err, fixed, mo, row, space, styled, token};
use super::symbols::{self, Class, Font};
use super::tables::table;
use crate::dom::Element;

impl Parser<'_> {
    pub(super) fn command(&mut self, name: &str, at: usize) -> Result<(Element, Kind)> {
        if let Some(done) = self.named(name) {
            return done;
        }
        self.layout_command(name, at)
    }

    /// A command that stands for a symbol, a function name, an accent over its argument or
    /// a font for it; `None` for any other.
    fn named(&mut self, name: &str) -> Option<Result<(Element, Kind)>> {
        let ordinary = |e| Some(Ok((e, Kind::Ordinary)));
        if let Some((c, class)) = symbols::symbol(name) {
            let c = c.to_string();
            return match class {
                Class::Ident => ordinary(self.identifier(&c, false)),
                Class::Upright => ordinary(self.identifier(&c, true)),
                Class::Op => ordinary(mo(&c)),
                Class::Fence => ordinary(fixed(&c)),
                Class::BigOp => Some(Ok((mo(&c), Kind::Limits))),
                Class::Integral => Some(Ok((mo(&c), Kind::Integral))),
            };
        }
        if let Some((f, limits)) = symbols::function(name) {
            return Some(Ok(if limits {
                (limit_op(f), Kind::Limits)
            } else {
                (token("mi", f), Kind::Function)
            }));
        }
        if let Some((mark, stretchy, below)) = symbols::accent(name) {
            let base = match self.argument(&format!("\\{name}")) {
                Ok(b) => b,
                Err(e) => return Some(Err(e)),
            };
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
            return Some(Ok((el, if brace { Kind::Limits } else { Kind::Ordinary })));
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
            return Some(el.map(|e| (e, Kind::Ordinary)));
        }
        None
    }

    /// The commands that lay out their arguments (fractions, roots, fences, text, stacked
    /// and boxed material, environments), then [`Self::spacing_command`].
    fn layout_command(&mut self, name: &str, at: usize) -> Result<(Element, Kind)> {
        let ordinary = |e| Ok((e, Kind::Ordinary));
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
            _ => self.spacing_command(name, at),
        }
    }

    /// Operator names, negation and `mod`, spacing, and the commands that only make sense
    /// elsewhere (`\right` without `\left`, `\hline` outside a table), which are errors here.
    fn spacing_command(&mut self, name: &str, at: usize) -> Result<(Element, Kind)> {
        let ordinary = |e| Ok((e, Kind::Ordinary));
        let arg = |p: &mut Self| p.argument(&format!("\\{name}"));
        match name {
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
    pub(super) fn identifier(&self, c: &str, upright: bool) -> Element {
        let mi = token("mi", c);
        match self.font {
            Some(f) => mi.with_attr("mathvariant", f.variant()),
            None if upright => mi.with_attr("mathvariant", "normal"),
            None => mi,
        }
    }

    /// The delimiter after `\left`, `\right`, `\middle` or `\big`: its character, or nothing
    /// for `.`.
    pub(super) fn delimiter(&mut self, of: &str) -> Result<String> {
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
}

/// `\lim`, `\max`, `\operatorname*`: an operator whose limits go below it in display.
fn limit_op(name: &str) -> Element {
    mo(name)
        .with_attr("movablelimits", "true")
        .with_attr("form", "prefix")
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
