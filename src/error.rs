//! Errors and findings as typed values with source positions.
//!
//! Users are editors, not programmers: every message names the file, line and column, says what
//! is wrong in plain words and, where we can, what to do about it.
use std::fmt;
use std::path::{Path, PathBuf};

use crate::codes::Code;

/// A place in a source file. Line and column are 1-based; 0 means "unknown".
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Location {
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
}

impl Location {
    pub fn new(file: impl Into<PathBuf>, line: u32, col: u32) -> Self {
        Location {
            file: file.into(),
            line,
            col,
        }
    }

    /// A location naming only a file.
    pub fn file(file: impl Into<PathBuf>) -> Self {
        Location {
            file: file.into(),
            line: 0,
            col: 0,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.col > 0 {
                write!(f, ":{}", self.col)?;
            }
        }
        Ok(())
    }
}

/// How bad a finding is.
#[derive(
    serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum Severity {
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One problem found in a book, at a place in its sources.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Its kind: a [`crate::codes`] code, a built-in check's name or a check program's name.
    pub code: std::borrow::Cow<'static, str>,
    pub severity: Severity,
    pub location: Location,
    pub message: String,
    /// What the user can do about it, when we know.
    pub hint: Option<String>,
}

impl Finding {
    /// An error of the kind `code`.
    pub fn error(code: Code, location: Location, message: impl Into<String>) -> Self {
        Finding::of(code.name(), Severity::Error, location, message)
    }

    /// A warning of the kind `code`.
    pub fn warning(code: Code, location: Location, message: impl Into<String>) -> Self {
        Finding::of(code.name(), Severity::Warning, location, message)
    }

    /// A finding of a built-in check or a check program, by its name.
    pub fn of(
        code: impl Into<std::borrow::Cow<'static, str>>,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code: code.into(),
            severity,
            location,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.severity, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  help: {hint}")?;
        }
        Ok(())
    }
}

/// Why a book could not be built.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Problems in the book's own sources or metadata: the user can fix them.
    #[error("{}", display_findings(.0))]
    Book(Vec<Finding>),
    /// The book's configuration cannot be used at all (exit code 2).
    #[error("{0}")]
    Config(Finding),
    /// The machine failed us: a file could not be written, a temporary folder not made.
    #[error("{}: {message}: {}", .path.display(), plain_io(.source))]
    Io {
        path: PathBuf,
        message: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// A template (ours or the book's override) failed to render.
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
}

/// What went wrong with a file, in plain words where the system's are obscure.
pub fn plain_io(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::StorageFull => "the disk is full; free some space and build again".into(),
        K::QuotaExceeded => "the disk quota is used up; free some space and build again".into(),
        K::ReadOnlyFilesystem => "the disk is read-only".into(),
        K::PermissionDenied => "permission denied (seihon may not write or read here)".into(),
        K::NotFound => "it does not exist".into(),
        _ => {
            // The system's words, without Rust's `(os error N)`.
            let text = e.to_string();
            match text.rfind(" (os error ") {
                Some(i) => text[..i].to_string(),
                None => text,
            }
        }
    }
}

fn display_findings(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl Error {
    pub fn io(path: impl AsRef<Path>, message: &'static str, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            message,
            source,
        }
    }

    /// One error of the kind `code` in the book's sources.
    pub fn at(code: Code, location: Location, message: impl Into<String>) -> Self {
        Error::Book(vec![Finding::error(code, location, message)])
    }

    /// How a command that met this error before any book was built ends (the project's
    /// settings, the command's arguments): it cannot run at all.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Config(_) => Exit::Unusable,
            _ => Exit::Failed,
        }
    }

    /// How a command ends when this error stopped one of its books. One rule whatever the
    /// file: a mistake in the book — its manuscript or its own settings (`book.yml`, Re:VIEW's
    /// `config.yml` and `catalog.yml`, a DocBook main file) — fails the book (1); what no book
    /// could get past — a tool that is missing, output folders that cannot be used — is the
    /// set-up's (2).
    pub fn book_exit(&self) -> Exit {
        match self {
            Error::Config(f)
                if [crate::codes::MISSING_TOOL, crate::codes::OUTPUTS_OVERLAP]
                    .iter()
                    .any(|c| c.name() == f.code) =>
            {
                Exit::Unusable
            }
            _ => Exit::Failed,
        }
    }
}

/// How a command ends: the process's exit status, decided here for every command. When a
/// command does several things (books, reports), the worst of their ends is its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: everything asked for was done.
    Success,
    /// 1: a book failed (its errors were printed), or a report could not be written.
    Failed,
    /// 2: the command cannot run at all: its arguments or the project's settings are wrong.
    Unusable,
    /// 130: stopped by Ctrl-C (`seihon watch`).
    Interrupted,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failed => 1,
            Exit::Unusable => 2,
            Exit::Interrupted => 130,
        }
    }

    pub fn is_success(self) -> bool {
        self == Exit::Success
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// 1-based line and column of a byte offset in `text` (column counts characters).
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line as u32, col as u32)
}

/// What to do about a file that is not UTF-8 text.
const SAVE_AS_UTF8: &str = "save the file as UTF-8 (in most editors: Save As… → Encoding: UTF-8)";

/// A file's bytes as text, or an error at the first place that is not UTF-8 text: a UTF-16
/// byte order mark, a byte that is not UTF-8, or a NUL character (see [`nul_finding`]).
/// The files read so are settings files (book.yml, seihon.yml, config.yml…), so its errors
/// are of the kind settings-syntax (a chapter's NUL, from [`nul_finding`], is source-file).
pub fn decode_text(bytes: Vec<u8>, shown: &Path) -> std::result::Result<String, Finding> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(Finding::error(
            crate::codes::SETTINGS_SYNTAX,
            Location::new(shown, 1, 1),
            "this file is UTF-16 text, not UTF-8",
        )
        .with_hint(SAVE_AS_UTF8));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let (line, col) = line_col(&String::from_utf8_lossy(&e.as_bytes()[..valid]), valid);
        Finding::error(
            crate::codes::SETTINGS_SYNTAX,
            Location::new(shown, line, col),
            "this file is not UTF-8 text",
        )
        .with_hint(SAVE_AS_UTF8)
    })?;
    match nul_finding_of(crate::codes::SETTINGS_SYNTAX, &text, shown) {
        Some(f) => Err(f),
        None => Ok(text),
    }
}

/// An error at the first NUL character of `text`, if any. No manuscript holds one: such a file
/// is binary, or text saved as UTF-16 without a byte order mark (which is valid UTF-8 with a NUL
/// beside every ASCII character).
pub fn nul_finding(text: &str, shown: &Path) -> Option<Finding> {
    nul_finding_of(crate::codes::SOURCE_FILE, text, shown)
}

/// [`nul_finding`], as an error of the kind `code`.
fn nul_finding_of(code: Code, text: &str, shown: &Path) -> Option<Finding> {
    let at = text.find('\0')?;
    let (line, col) = line_col(text, at);
    Some(
        Finding::error(
            code,
            Location::new(shown, line, col),
            "this file holds a NUL character, so it is not text (is it binary, or UTF-16?)",
        )
        .with_hint(SAVE_AS_UTF8),
    )
}

/// Warnings at the characters of a manuscript that XHTML cannot carry (control characters
/// other than tab and line ends, U+FFFE, U+FFFF; NUL is an error of its own): they are shown
/// as U+FFFD, so the author hears where. The first few are located, the rest counted.
pub fn unusable_char_findings(text: &str, shown: &Path) -> Vec<Finding> {
    const LOCATED: usize = 3;
    let bad: Vec<(usize, char)> = text
        .char_indices()
        .filter(|&(_, c)| c != '\0' && !crate::dom::is_xml_char(c))
        .collect();
    let mut out: Vec<Finding> = bad
        .iter()
        .take(LOCATED)
        .map(|&(at, c)| {
            let (line, col) = line_col(text, at);
            Finding::warning(
                crate::codes::CONTROL_CHARACTER,
                Location::new(shown, line, col),
                format!(
                    "the invisible character U+{:04X} cannot go into an EPUB; it is shown as \u{FFFD}",
                    u32::from(c)
                ),
            )
            .with_hint("delete it (it is invisible in most editors)")
        })
        .collect();
    if bad.len() > LOCATED
        && let Some(&(at, _)) = bad.get(LOCATED)
    {
        let (line, col) = line_col(text, at);
        out.push(Finding::warning(
            crate::codes::CONTROL_CHARACTER,
            Location::new(shown, line, col),
            format!(
                "{} more invisible characters from here on are shown as \u{FFFD}",
                bad.len() - LOCATED
            ),
        ));
    }
    out
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "一行目\n二行目の途中";
        let off = text.find("途中").unwrap();
        assert_eq!(line_col(text, off), (2, 5));
        assert_eq!(line_col(text, 0), (1, 1));
    }

    #[test]
    fn decode_text_locates_what_is_not_utf8_text() {
        let shown = Path::new("a.yml");
        let at = |bytes: &[u8]| {
            let f = decode_text(bytes.to_vec(), shown).unwrap_err();
            (f.location.line, f.location.col)
        };
        assert_eq!(at(b"title: x\nb: caf\xe9\n"), (2, 7));
        assert_eq!(at(b"\xff\xfet\0"), (1, 1));
        assert_eq!(at(b"t\0i\0"), (1, 2));
        assert_eq!(decode_text(b"ok\n".to_vec(), shown).unwrap(), "ok\n");
    }

    #[test]
    fn finding_display_names_file_line_column() {
        let f = Finding::error(
            crate::codes::UNKNOWN_KEY,
            Location::new("books/a/book.yml", 3, 7),
            "unknown key `titel`",
        )
        .with_hint("did you mean `title`?");
        assert_eq!(
            f.to_string(),
            "books/a/book.yml:3:7: error: unknown key `titel`\n  help: did you mean `title`?"
        );
    }
}
