//! TeX source → tokens, each with its byte range, so that every error names the place in the
//! TeX (and the reader, the place in the manuscript).
use super::{ErrorKind, MathError};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// `\name` (a control word, letters only) or `\,` (a control symbol: the one character).
    Command(String),
    Char(char),
    Open,
    Close,
    Sup,
    Sub,
    Amp,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    /// Byte range in the TeX.
    pub start: usize,
    pub end: usize,
}

/// The tokens of `tex`. White space is dropped (math mode ignores it; `\text` reads its
/// argument from the source by the tokens' ranges) and so are `%` comments.
pub(super) fn lex(tex: &str) -> Result<Vec<Token>, MathError> {
    let mut out = Vec::new();
    let mut it = tex.char_indices().peekable();
    while let Some((start, c)) = it.next() {
        let tok = match c {
            c if c.is_whitespace() => continue,
            '%' => {
                while it.next_if(|&(_, c)| c != '\n').is_some() {}
                continue;
            }
            '{' => Tok::Open,
            '}' => Tok::Close,
            '^' => Tok::Sup,
            '_' => Tok::Sub,
            '&' => Tok::Amp,
            '\\' => match it.next() {
                Some((_, c)) if c.is_ascii_alphabetic() => {
                    let mut name = c.to_string();
                    while let Some((_, c)) = it.next_if(|&(_, c)| c.is_ascii_alphabetic()) {
                        name.push(c);
                    }
                    Tok::Command(name)
                }
                Some((_, c)) => Tok::Command(c.to_string()),
                None => {
                    return Err(MathError {
                        offset: start,
                        kind: ErrorKind::TrailingBackslash,
                    });
                }
            },
            c => Tok::Char(c),
        };
        let end = it.peek().map_or(tex.len(), |&(i, _)| i);
        out.push(Token { tok, start, end });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_symbols_and_comments() {
        let toks: Vec<Tok> = lex("\\alpha_1 % note\n\\, x^{2}")
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect();
        assert_eq!(
            toks,
            [
                Tok::Command("alpha".into()),
                Tok::Sub,
                Tok::Char('1'),
                Tok::Command(",".into()),
                Tok::Char('x'),
                Tok::Sup,
                Tok::Open,
                Tok::Char('2'),
                Tok::Close,
            ]
        );
    }

    #[test]
    fn ranges_are_bytes_of_the_source() {
        let toks = lex("α\\beta").unwrap();
        assert_eq!((toks[0].start, toks[0].end), (0, 2));
        assert_eq!((toks[1].start, toks[1].end), (2, 7));
        assert_eq!(lex("x\\").unwrap_err().offset, 1);
    }
}
