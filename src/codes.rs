//! The kinds of finding, each with a stable code: what reports carry (the SARIF rule id, the
//! JSON `code`), what `checks:` in seihon.yml or book.yml sets a level by, and what the
//! README's table of findings lists. A code never changes meaning once released.
//!
//! The built-in checks' names (`internal-links`, `image-alt`, …, see [`crate::check::CheckId`])
//! and the check programs' names are codes too; this table holds every other kind.

/// A kind of finding. Made only from the constants below, so a code is never misspelt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code(&'static str);

impl Code {
    pub fn name(self) -> &'static str {
        self.0
    }

    /// This kind's entry in the table.
    pub fn kind(self) -> &'static Kind {
        ALL.iter()
            .find(|k| k.code == self)
            .expect("every Code constant is in ALL")
    }

    /// The kind whose code users wrote, if there is one.
    pub fn from_name(name: &str) -> Option<Code> {
        ALL.iter().map(|k| k.code).find(|c| c.0 == name)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// One kind of finding, as the README's table shows it.
#[derive(Debug)]
pub struct Kind {
    pub code: Code,
    /// A defect seihon renders around (its findings are warnings, and `checks:` may turn them
    /// off); the others stop the build, and can only be raised, never lowered.
    pub degrades: bool,
    /// What it is, for the table.
    pub what: &'static str,
}

macro_rules! kinds {
    ($($name:ident = $code:literal, $degrades:literal, $what:literal;)*) => {
        $(pub const $name: Code = Code($code);)*
        /// Every kind, in the order of the README's table.
        pub static ALL: &[Kind] = &[
            $(Kind { code: $name, degrades: $degrades, what: $what },)*
        ];
    };
}

kinds! {
    // The book's settings and files.
    NOT_A_BOOK = "not-a-book", false, "a folder or file that is not a book, or a folder holding two DocBook main files";
    SETTINGS_SYNTAX = "settings-syntax", false, "a settings file (book.yml, seihon.yml, config.yml, catalog.yml, locale.yml) that cannot be read: not YAML, the wrong shape, a key written twice";
    UNKNOWN_KEY = "unknown-key", false, "an unknown key: an error in book.yml and seihon.yml, a warning in a Re:VIEW config.yml";
    MISSING_KEY = "missing-key", false, "a key the file must have is missing";
    BAD_VALUE = "bad-value", false, "a value that is not what its key needs (a date, an ISBN, a language tag, a name, a role)";
    NOT_HONOURED = "not-honoured", true, "a Re:VIEW setting seihon does not honour";
    CHAPTER_FILE = "chapter-file", false, "a chapter file that is missing, outside the book folder, listed twice, or of no format seihon reads";
    MISSING_STYLESHEET = "missing-stylesheet", true, "a style sheet named in book.yml or config.yml that is missing";
    COVER_IMAGE = "cover-image", false, "a cover image that is missing or not an image";
    OUTPUTS_OVERLAP = "outputs-overlap", false, "an output folder (build_dir, dist_dir, preview_dir) that overlaps the manuscripts or lies outside the project";
    INVISIBLE_CHARACTER = "invisible-character", false, "a character no EPUB can carry in the book's metadata";
    SOURCE_FILE = "source-file", false, "a manuscript file that cannot be read: too large, unreadable, not UTF-8";
    CONTROL_CHARACTER = "control-character", true, "a control character in a chapter (shown as U+FFFD)";
    // Reading.
    REVIEW_SYNTAX = "review-syntax", false, "Re:VIEW markup that is wrong: a block never closed, a command with the wrong arguments";
    UNKNOWN_COMMAND = "unknown-command", false, "a Re:VIEW command that does not exist (`//imgae`), as in Re:VIEW";
    UNSUPPORTED = "unsupported", true, "a feature seihon does not carry out (a Re:VIEW preprocessor directive, review-ext.rb, an `olink`): its text is kept";
    MARKDOWN_SYNTAX = "markdown-syntax", false, "Markdown front matter that cannot be read";
    RAW_HTML = "raw-html", false, "raw HTML in a manuscript that is not well-formed XHTML";
    DOCBOOK_XML = "docbook-xml", false, "a DocBook file that is not well-formed XML, or an entity that cannot be expanded";
    DOCBOOK_INCLUDE = "docbook-include", false, "an XInclude or external entity that is missing, outside the book, or past the bounds";
    UNKNOWN_ELEMENT = "unknown-element", true, "a DocBook element or raw HTML element seihon does not know: its text is kept";
    // Resolving.
    BROKEN_LINK = "broken-link", true, "a link to a file that is not in the book, or to no web address: its text is kept without the link";
    BROKEN_FRAGMENT = "broken-fragment", true, "a link to an id that is not there: its text is kept without the link";
    UNKNOWN_REFERENCE = "unknown-reference", true, "a reference (`@<list>{x}`, `xref`, `@<chap>{x}`) to an id that is not there, or to a target with no title: the id is shown";
    UNDEFINED_NOTE = "undefined-note", true, "a note reference to a note never defined: the reference is shown as written";
    DUPLICATE_ID = "duplicate-id", true, "an id used twice in a chapter";
    MISSING_IMAGE = "missing-image", true, "an image that is missing, damaged, outside the book, or of a type an EPUB cannot show: its text alternative is shown, marked";
    REMOTE_RESOURCE = "remote-resource", true, "raw XHTML loading from the web (`video`, `iframe`, `srcset`, `url()`) or a `file:` link: a link to it, or its text";
    // Making the EPUB.
    TEMPLATE = "template", false, "a template that fails, or makes a page that is not well-formed XHTML";
    FILTER = "filter", false, "a filter that fails, runs too long, or prints what is not XHTML";
    HOOK = "hook", false, "a hook that fails or runs too long";
    CHECK_PROGRAM = "check-program", false, "a check program that fails without reporting a problem";
    PREVIEW = "preview", true, "a preview that could not be laid out (the EPUB is built either way)";
    INTERNAL = "internal", false, "a fault in seihon itself: please report it";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_and_found_by_name() {
        let mut seen = std::collections::HashSet::new();
        for k in ALL {
            let name = k.code.name();
            assert!(seen.insert(name), "`{name}` twice");
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
            assert_eq!(Code::from_name(name), Some(k.code));
            assert_eq!(k.code.kind().code, k.code);
        }
        assert_eq!(Code::from_name("no-such-code"), None);
    }
}
