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
    SETTINGS_SYNTAX = "settings-syntax", false, "a settings file (book.yml, seihon.yml, config.yml, catalog.yml, locale.yml, a filter's rule file) that cannot be read: not YAML, the wrong shape, a key written twice, an `inherit:` loop";
    UNKNOWN_KEY = "unknown-key", false, "an unknown key in book.yml, seihon.yml or a rule file (with the key meant)";
    UNKNOWN_SETTING = "unknown-setting", true, "a key in a Re:VIEW config.yml that Re:VIEW does not have either (with the key meant): as if it were not there";
    MISSING_KEY = "missing-key", false, "a key the file must have is missing";
    BAD_VALUE = "bad-value", false, "a value that is not what its key needs (a date, an ISBN, a language tag, a name, a role)";
    NOT_HONOURED = "not-honoured", true, "a Re:VIEW setting seihon does not honour";
    CHAPTER_FILE = "chapter-file", false, "a chapter file that is missing, outside the book folder, listed twice, or of no format seihon reads; a book that lists no chapters";
    DEFAULT_USED = "default-used", true, "a setting left out, for which Re:VIEW's default is used (a book with no `booktitle`)";
    MISSING_FILE = "missing-file", true, "a file a setting names (a words file, an index dictionary) that cannot be read: the book is built without it";
    MISSING_STYLESHEET = "missing-stylesheet", true, "a style sheet named in book.yml or config.yml that is missing, or (config.yml) is not CSS";
    COVER_IMAGE = "cover-image", false, "a cover image that is missing or not an image";
    OUTPUTS_OVERLAP = "outputs-overlap", false, "an output folder (build_dir, dist_dir, preview_dir) that overlaps the manuscripts or lies outside the project, or a folder in its place that seihon did not make";
    INVISIBLE_CHARACTER = "invisible-character", false, "a character no EPUB can carry in the book's metadata";
    SOURCE_FILE = "source-file", false, "a manuscript file that cannot be read: too large, unreadable, not UTF-8";
    CONTROL_CHARACTER = "control-character", true, "a control character in a chapter (shown as U+FFFD)";
    // Reading.
    REVIEW_SYNTAX = "review-syntax", false, "Re:VIEW markup that is wrong: a block never closed, a command with the wrong arguments";
    UNKNOWN_COMMAND = "unknown-command", false, "a Re:VIEW inline command that does not exist (`@<bb>`), as in Re:VIEW";
    UNKNOWN_BLOCK = "unknown-block", true, "a Re:VIEW block command or heading tag seihon does not know (`//imgae`, or one only the book's review-ext.rb defines): its content is kept in a `div` classed with its name";
    UNSUPPORTED = "unsupported", true, "a feature seihon does not carry out (a Re:VIEW preprocessor directive, review-ext.rb, an `olink`): its text is kept";
    MARKDOWN_SYNTAX = "markdown-syntax", false, "Markdown front matter that cannot be read";
    FRONT_MATTER_KEY = "front-matter-key", true, "a Markdown front matter key seihon does not use (Jekyll's `layout`, Zenn's `emoji`): ignored, warned once per key in a book";
    RAW_HTML = "raw-html", false, "raw HTML nested deeper than seihon can read (ill-formed raw HTML is repaired or shown as text: `html-repaired`)";
    HTML_REPAIRED = "html-repaired", true, "raw HTML seihon renders around: a tag that is no HTML element (`<blog.example.com>`) or does not close kept as text, an unknown entity kept as written, an attribute EPUB does not allow dropped or made CSS, an element closed in a later block";
    DOCBOOK_XML = "docbook-xml", false, "a DocBook file that is not well-formed XML, or an entity that cannot be expanded";
    DOCBOOK_INCLUDE = "docbook-include", false, "an XInclude or external entity that is missing, outside the book, or past the bounds";
    UNKNOWN_ENTITY = "unknown-entity", true, "an entity a DocBook file uses but never declares (or an unparsed one in text): it is kept as written";
    UNREAD_DTD = "unread-dtd", true, "a DTD or external parameter entity a DocBook file names that seihon does not read (on the web, missing, outside the book, not well-formed): the entities it declares are unknown";
    XML_CATALOG = "xml-catalog", true, "an XML catalog that is missing, unreadable or not well-formed, or a next catalog outside where it may be: it is skipped";
    MISSING_TITLE = "missing-title", true, "a heading, section or equation with no text: the table of contents shows what it can";
    DEPRECATED_SYNTAX = "deprecated-syntax", true, "markup its format deprecates (a Re:VIEW definition term at column 1), or a line that is not a command and is ignored";
    AUTHOR_WARNING = "author-warning", true, "a warning the manuscript itself asks for (Re:VIEW `#@warn`)";
    UNCONVERTED_MATH = "unconverted-math", true, "TeX math (Re:VIEW `//texequation`, `@<m>`; Markdown `$…$`) that seihon cannot convert to MathML (a command or environment outside the subset it knows): the TeX is shown as written";
    UNKNOWN_ELEMENT = "unknown-element", true, "a DocBook element or raw HTML element seihon does not know: its text is kept";
    // Resolving.
    BROKEN_LINK = "broken-link", true, "a link to a file that is not in the book, or to no web address: its text is kept without the link";
    BROKEN_FRAGMENT = "broken-fragment", true, "a link to an id that is not there: its text is kept without the link";
    UNKNOWN_REFERENCE = "unknown-reference", true, "a reference (`@<list>{x}`, `xref`, `@<chap>{x}`) to an id that is not there, or to a target with no title or number: the id is shown";
    UNUSED_NOTE = "unused-note", true, "a note defined but never referred to: it is printed after the others";
    REPAIRED_LINK = "repaired-link", true, "a web address seihon repaired (a space in its host name): the link goes to the repaired address";
    UNDEFINED_NOTE = "undefined-note", true, "a note reference to a note never defined: the reference is shown as written";
    DUPLICATE_ID = "duplicate-id", true, "an id used twice in a chapter, or a bibliography id twice in the book";
    PAGE_NUMBER = "page-number", true, "a print page-break marker with no page number, a page number the book uses twice (the marker gets an id of its own), or a book marking print pages with no `print_isbn` or `page_source` to say which edition they follow";
    CLEANED_IMAGE = "cleaned-image", true, "an SVG image holding what an EPUB may not carry (scripts, a DOCTYPE): it is packed without";
    MISNAMED_IMAGE = "misnamed-image", true, "an image whose content is of another type than its name says (a JPEG named `.png`): it is packed as what it is, under a name that says so";
    CSS_RESOURCE = "css-resource", true, "a file a style sheet of the book refers to (`url()`, `@import`) that is missing, outside the book, on the web, or of a type an EPUB cannot carry: the reference is dropped";
    LOW_CONTRAST = "low-contrast", true, "a text colour in a style sheet of the book that reads under WCAG AA's 4.5:1 on its rule's background (white when it sets none): the EPUB has the nearest shade of it that reads";
    FONT_LICENCE = "font-licence", false, "a font a style sheet embeds whose licence forbids embedding it (OS/2 `fsType`: restricted licence, or bitmaps only)";
    FONT_FILE = "font-file", true, "a font a style sheet embeds that seihon cannot read or subset: it is packed as it is";
    STATIC_PAGE = "static-page", true, "a page of the book's own XHTML (Re:VIEW's `titlefile:`, `profile:`, `advfile:`, `backcover:`, …) that is missing, outside the book or not well-formed XHTML: the book is made without it (with the generated title page or colophon, where it stood for one)";
    MISSING_IMAGE = "missing-image", true, "an image that is missing, damaged, outside the book, or of a type an EPUB cannot show: its text alternative is shown, marked";
    INDEX_READING = "index-reading", true, "index terms in kanji with no reading in the makeindex dictionary: the index lists them under 漢字, in character order";
    REMOTE_RESOURCE = "remote-resource", true, "an image or raw XHTML loading from the web (`video`, `iframe`, `srcset`, `url()`), or a `file:` link: a link to it, or its text";
    // Store profiles (`--profile`): warnings, errors in a release.
    STORE_REMOTE_RESOURCE = "store-remote-resource", true, "a resource the EPUB loads from the web (an image, style sheet, font, audio or video, an `@import` or `url()`), which no store fetches (`--profile`, every store)";
    STORE_IMAGE_SIZE = "store-image-size", true, "an image of more than 5.6 million pixels (`--profile apple`), or a file of more than 5 MB (`--profile kobo`)";
    STORE_COVER = "store-cover", true, "no cover image, or one under 625 pixels on its short side or far from KDP's 1.6 height/width ratio (`--profile kdp`); a GIF cover, one no `<meta name=\"cover\">` names, or one sharing its page (`--profile kobo`)";
    STORE_SVG_RASTER = "store-svg-raster", true, "an SVG holding a raster image as `data:` or mixed with drawing (`--profile kdp`)";
    STORE_NCX = "store-ncx", true, "no NCX, or an NCX flatter than the nav's table of contents, to two levels (`--profile kdp`)";
    STORE_FIXED_LAYOUT = "store-fixed-layout", true, "a fixed-layout book without Kindle's `original-resolution` meta (`--profile kdp`)";
    STORE_WRITING_MODE = "store-writing-mode", true, "a vertical or right-to-left book without Kindle's `primary-writing-mode` meta (`--profile kdp`)";
    STORE_STYLE_LINK = "store-style-link", true, "a style sheet linked without `type=\"text/css\"` (`--profile kdp`)";
    STORE_METADATA = "store-metadata", true, "a package without the `ebpaj:` prefix and `ebpaj:guide-version` meta (`--profile ebpaj`)";
    STORE_LAYOUT = "store-layout", true, "files outside the guide's folders: `item/standard.opf`, pages in `item/xhtml/`, style sheets in `item/style/`, images in `item/image/` (`--profile ebpaj`)";
    // Making the EPUB.
    TOO_DEEP = "too-deep", false, "markup nested past seihon's bound (lists, blocks, elements, raw HTML)";
    TEMPLATE = "template", false, "a template that fails, or makes a page that is not well-formed XHTML";
    FILTER = "filter", false, "a filter that cannot be told from another of its name, fails, runs too long, or prints what is not XHTML";
    HOOK = "hook", false, "a hook that fails or runs too long, or leaves a link or a special file in the staged tree";
    CHECK_PROGRAM = "check-program", false, "a check program that fails without reporting a problem";
    MISSING_TOOL = "missing-tool", false, "a program seihon was asked to run is not installed (epubcheck, Java)";
    PREVIEW = "preview", true, "a preview that could not be laid out (the EPUB is built either way)";
    BAD_ARGUMENT = "bad-argument", false, "a command-line argument seihon cannot use (a book id, a book that exists already)";
    FILE_SYSTEM = "file-system", false, "a file seihon could not read or write (a full disk, no permission)";
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

    /// The README's table of findings is this table.
    #[test]
    fn the_readme_lists_every_code_with_its_level() {
        let readme = include_str!("../README.md");
        for k in ALL {
            let level = if k.degrades { "warning" } else { "error" };
            let row = format!("| `{}` | {} | {level} |", k.code, k.what);
            assert!(readme.contains(&row), "README.md lacks the row\n{row}");
        }
    }
}
