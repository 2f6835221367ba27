//! Reading a manuscript file, within the size bound. Reading a chapter holds several times its
//! size (the text, the parser's events, the document, its page), so a chapter of hundreds of
//! megabytes would take gigabytes; above [`MAX_SOURCE_BYTES`] a file is refused, at the file,
//! before it is read (`bash bench/limits` measures the peak below the bound).
use std::io::Read;
use std::path::Path;

/// The largest manuscript file seihon reads: a chapter, or one file of a DocBook book.
pub const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;

pub enum ReadError {
    Io(std::io::Error),
    /// The file's size, over the bound.
    TooLarge(u64),
}

impl ReadError {
    /// The message, in plain words, for the file (`what`: "file", "DocBook file", …).
    pub fn message(&self, what: &str) -> String {
        match self {
            ReadError::Io(e) => format!("cannot read this {what}: {}", crate::error::plain_io(e)),
            ReadError::TooLarge(len) => format!(
                "this {what} is {:.1} MiB; seihon reads files of up to {} MiB",
                *len as f64 / (1024.0 * 1024.0),
                MAX_SOURCE_BYTES / (1024 * 1024)
            ),
        }
    }

    pub fn hint(&self) -> Option<&'static str> {
        match self {
            ReadError::TooLarge(_) => Some("split it into several chapters (or included files)"),
            ReadError::Io(_) => None,
        }
    }

    /// The error at `at`, with its hint.
    pub fn finding(&self, at: crate::error::Location, what: &str) -> crate::error::Finding {
        let f = crate::error::Finding::error(crate::codes::SOURCE_FILE, at, self.message(what));
        match self.hint() {
            Some(h) => f.with_hint(h),
            None => f,
        }
    }
}

/// The bytes of `path`, or why not. A file that grows while it is read is cut at the bound
/// plus one byte, and refused.
pub fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let len = file.metadata().map_err(ReadError::Io)?.len();
    if len > MAX_SOURCE_BYTES {
        return Err(ReadError::TooLarge(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}
