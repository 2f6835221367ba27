//! Which root element an XML file has, read past the whole prolog as XML defines it: the XML
//! declaration, comments and processing instructions (which may hold `<…>`), and a DOCTYPE
//! whose external id and internal subset, of any size, may hold quoted `>` and `]`, entity
//! values with markup, comments and processing instructions. The file is read in small pieces
//! and only up to the root's start tag, so a huge file is never read whole to be sniffed; a
//! prolog longer than a manuscript may be ([`crate::source::MAX_SOURCE_BYTES`]) gives up.
//! UTF-8 (with or without a BOM) and UTF-16 (either byte order, with or without a BOM) are
//! read; any other ASCII-compatible encoding reads as well, since the prolog's syntax is ASCII.
use std::io::Read;
use std::path::Path;

const CHUNK: usize = 8 * 1024;

/// The name of the file's root element; `None` when it cannot be read, is not XML with a root
/// element, or its prolog is past the bound.
pub fn root_element(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut sniffer = Sniffer::default();
    let mut decoder: Option<Decoder> = None;
    let mut buf = vec![0u8; CHUNK];
    let mut read: u64 = 0;
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        read += n as u64;
        let bytes = &buf[..n];
        let d = decoder.get_or_insert_with(|| Decoder::for_start(bytes));
        let mut done = None;
        d.decode(bytes, &mut |c| {
            if done.is_none() {
                done = sniffer.feed(c);
            }
        });
        match done {
            Some(Found::Root(name)) => return Some(name),
            Some(Found::NotXml) => return None,
            None if read > crate::source::MAX_SOURCE_BYTES => return None,
            None => {}
        }
    }
}

/// The root element's name in an XML document's text (see [`root_element`]).
pub fn root_name(text: &str) -> Option<String> {
    let mut sniffer = Sniffer::default();
    for c in text.chars() {
        match sniffer.feed(c) {
            Some(Found::Root(name)) => return Some(name),
            Some(Found::NotXml) => return None,
            None => {}
        }
    }
    // A name running to the end of the text is whole.
    match sniffer.state {
        State::Name if !sniffer.name.is_empty() => Some(sniffer.name),
        _ => None,
    }
}

/// Bytes → characters, a piece at a time (a character split between pieces is kept for the
/// next one).
enum Decoder {
    Utf8 { pending: Vec<u8> },
    Utf16 { little: bool, pending: Vec<u8> },
}

impl Decoder {
    fn for_start(bytes: &[u8]) -> Decoder {
        match bytes {
            [0xFF, 0xFE, ..] | [b'<', 0, ..] => Decoder::Utf16 {
                little: true,
                pending: Vec::new(),
            },
            [0xFE, 0xFF, ..] | [0, b'<', ..] => Decoder::Utf16 {
                little: false,
                pending: Vec::new(),
            },
            _ => Decoder::Utf8 {
                pending: Vec::new(),
            },
        }
    }

    fn decode(&mut self, bytes: &[u8], out: &mut dyn FnMut(char)) {
        match self {
            Decoder::Utf8 { pending } => {
                pending.extend_from_slice(bytes);
                let mut at = 0;
                loop {
                    match std::str::from_utf8(&pending[at..]) {
                        Ok(s) => {
                            s.chars().for_each(&mut *out);
                            at = pending.len();
                            break;
                        }
                        Err(e) => {
                            let good = at + e.valid_up_to();
                            // Checked just above: valid UTF-8.
                            std::str::from_utf8(&pending[at..good])
                                .unwrap_or_default()
                                .chars()
                                .for_each(&mut *out);
                            match e.error_len() {
                                Some(bad) => {
                                    out('\u{FFFD}');
                                    at = good + bad;
                                }
                                // Cut off by the piece's end: kept for the next piece.
                                None => {
                                    at = good;
                                    break;
                                }
                            }
                        }
                    }
                }
                pending.drain(..at);
            }
            Decoder::Utf16 { little, pending } => {
                pending.extend_from_slice(bytes);
                let whole = pending.len() / 2 * 2;
                let mut units: Vec<u16> = pending[..whole]
                    .chunks_exact(2)
                    .map(|c| {
                        if *little {
                            u16::from_le_bytes([c[0], c[1]])
                        } else {
                            u16::from_be_bytes([c[0], c[1]])
                        }
                    })
                    .collect();
                let mut keep = pending[whole..].to_vec();
                // A high surrogate at the end waits for its pair.
                if units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
                    let u = units.pop().unwrap_or_default();
                    let b = if *little {
                        u.to_le_bytes()
                    } else {
                        u.to_be_bytes()
                    };
                    keep.splice(0..0, b);
                }
                for c in char::decode_utf16(units) {
                    out(c.unwrap_or('\u{FFFD}'));
                }
                *pending = keep;
            }
        }
    }
}

enum Found {
    Root(String),
    NotXml,
}

#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Between constructs of the prolog.
    #[default]
    Prolog,
    /// After `<`.
    Open,
    /// After `<!`, collecting `--` or `DOCTYPE`.
    Bang,
    Comment,
    Pi,
    /// Inside `<!DOCTYPE`, outside its subset.
    Doctype,
    /// A quoted literal in the DOCTYPE (`in_subset` says where it returns to).
    Quoted(char),
    Subset,
    /// `<` read in the subset; `<!` read; `<!-` read.
    SubsetOpen,
    SubsetBang,
    SubsetBangDash,
    SubsetComment,
    SubsetPi,
    /// The root element's name.
    Name,
}

/// A state machine over the characters of a document's start, one character at a time.
#[derive(Default)]
struct Sniffer {
    state: State,
    in_subset: bool,
    /// What `<!` has been followed by so far.
    bang: String,
    /// The last two characters (to find `-->` and `?>`).
    last: [char; 2],
    name: String,
    started: bool,
}

impl Sniffer {
    fn feed(&mut self, c: char) -> Option<Found> {
        if !self.started {
            self.started = true;
            if c == '\u{FEFF}' {
                return None;
            }
        }
        let found = self.step(c);
        self.last = [self.last[1], c];
        found
    }

    fn step(&mut self, c: char) -> Option<Found> {
        use State::*;
        match self.state {
            Prolog => match c {
                '<' => self.state = Open,
                c if c.is_ascii_whitespace() => {}
                // Text before the root: not an XML document.
                _ => return Some(Found::NotXml),
            },
            Open => match c {
                '?' => self.enter(Pi),
                '!' => {
                    self.bang.clear();
                    self.state = Bang;
                }
                c if c.is_alphabetic() || c == '_' || c == ':' => {
                    self.name.push(c);
                    self.state = Name;
                }
                _ => return Some(Found::NotXml),
            },
            Bang => {
                self.bang.push(c);
                if self.bang == "--" {
                    self.enter(Comment);
                } else if self.bang == "DOCTYPE" {
                    self.in_subset = false;
                    self.state = Doctype;
                } else if !"--".starts_with(&self.bang) && !"DOCTYPE".starts_with(&self.bang) {
                    return Some(Found::NotXml);
                }
            }
            Comment if c == '>' && self.last == ['-', '-'] => self.state = Prolog,
            Pi if c == '>' && self.last[1] == '?' => self.state = Prolog,
            Comment | Pi => {}
            Doctype => match c {
                '"' | '\'' => self.state = Quoted(c),
                '[' => {
                    self.in_subset = true;
                    self.state = Subset;
                }
                '>' => self.state = Prolog,
                _ => {}
            },
            Quoted(q) if c == q => self.state = if self.in_subset { Subset } else { Doctype },
            Quoted(_) => {}
            Subset => match c {
                '"' | '\'' => self.state = Quoted(c),
                '<' => self.state = SubsetOpen,
                ']' => {
                    self.in_subset = false;
                    self.state = Doctype;
                }
                _ => {}
            },
            SubsetOpen => match c {
                '!' => self.state = SubsetBang,
                '?' => self.enter(SubsetPi),
                _ => return self.back_to_subset(c),
            },
            SubsetBang => match c {
                '-' => self.state = SubsetBangDash,
                _ => return self.back_to_subset(c),
            },
            SubsetBangDash => match c {
                '-' => self.enter(SubsetComment),
                _ => return self.back_to_subset(c),
            },
            SubsetComment if c == '>' && self.last == ['-', '-'] => self.state = Subset,
            SubsetPi if c == '>' && self.last[1] == '?' => self.state = Subset,
            SubsetComment | SubsetPi => {}
            Name => {
                if c.is_alphanumeric() || matches!(c, ':' | '-' | '_' | '.') {
                    self.name.push(c);
                } else {
                    return Some(Found::Root(std::mem::take(&mut self.name)));
                }
            }
        }
        None
    }

    /// Enters a comment or PI, forgetting the characters that opened it (so `<!-->` does not
    /// close at once).
    fn enter(&mut self, state: State) {
        self.state = state;
        self.last = ['\0', '\0'];
    }

    /// A `<` in the subset that opens a declaration: `c` is read as part of it.
    fn back_to_subset(&mut self, c: char) -> Option<Found> {
        self.state = State::Subset;
        self.step(c)
    }
}

#[cfg(test)]
mod tests;
