//! The running text of a book's sources, read independently of seihon's readers, so that text a
//! reader drops shows as lost: Re:VIEW and Markdown as text chunks between markup (looked up in
//! the EPUB as written), DocBook as words after `xmllint` has resolved its entities and
//! XIncludes.
use std::path::{Path, PathBuf};
use std::process::Command;

use super::measure::Bag;

/// A chunk of source text: file, line, and the text with its whitespace removed.
pub type Chunk = (String, usize, String);

/// A file's pieces of text, by line number.
pub type Lines = Vec<(usize, Vec<String>)>;

/// Chunks shorter than this are not looked up: they are found anywhere.
const MIN_CHUNK: usize = 4;

fn push_chunks(out: &mut Vec<Chunk>, file: &str, line: usize, pieces: Vec<String>) {
    for piece in pieces {
        let chunk: String = piece.chars().filter(|c| !c.is_whitespace()).collect();
        if chunk.chars().count() >= MIN_CHUNK {
            out.push((file.to_string(), line, chunk));
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

fn display(book: &Path, file: &Path) -> String {
    file.strip_prefix(book)
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned()
}

// ---- Re:VIEW ----

/// The chapters `catalog.yml` lists, under `contentdir` when config.yml names one.
pub fn review_files(book: &Path) -> Vec<PathBuf> {
    let catalog = read(&book.join("catalog.yml"));
    let config = read(&book.join("config.yml"));
    let contentdir = config
        .lines()
        .find_map(|l| l.strip_prefix("contentdir:"))
        .map(|d| d.trim().trim_matches(['"', '\'']).to_string())
        .unwrap_or_else(|| ".".into());
    catalog
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split(|c: char| c.is_whitespace() || "[],:".contains(c)))
        .map(|w| w.trim_matches(['"', '\'']))
        .filter(|w| w.ends_with(".re"))
        .map(|w| book.join(&contentdir).join(w))
        .filter(|p| p.is_file())
        .collect()
}

pub fn review_chunks(book: &Path) -> Vec<Chunk> {
    chunks(book, &review_files(book), review_text)
}

/// The chunks of these files, each read into pieces by line.
fn chunks(book: &Path, files: &[PathBuf], text: fn(&str) -> Lines) -> Vec<Chunk> {
    let mut out = Vec::new();
    for file in files {
        let name = display(book, file);
        for (line, pieces) in text(&read(file)) {
            push_chunks(&mut out, &name, line, pieces);
        }
    }
    out
}

/// Blocks whose bodies are not running text in an EPUB (other builders, drafts, image
/// fallbacks, TeX).
const REVIEW_NOT_TEXT: &[&str] = &[
    "embed",
    "raw",
    "comment",
    "texequation",
    "graph",
    "image",
    "indepimage",
    "numberlessimage",
    "tsize",
];

/// Plain-text pieces of each line of a Re:VIEW chapter.
pub fn review_text(source: &str) -> Lines {
    let mut out = Vec::new();
    let mut skipping = false;
    for (i, line) in source.lines().enumerate() {
        let line_no = i + 1;
        if line.starts_with("#@") {
            continue;
        }
        if line.starts_with("//}") {
            skipping = false;
            continue;
        }
        if skipping {
            continue;
        }
        let mut text = line.to_string();
        if let Some(rest) = line.strip_prefix("//") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            if REVIEW_NOT_TEXT.contains(&name.as_str()) {
                skipping = line.trim_end().ends_with('{');
                continue;
            }
            // Only the text arguments of notes carry running text (`//footnote[id][text]`).
            text = match name.as_str() {
                "footnote" | "endnote" => rest
                    .split_once("][")
                    .map_or("", |(_, t)| t)
                    .trim_end()
                    .strip_suffix(']')
                    .unwrap_or("")
                    .to_string(),
                _ => continue,
            };
        }
        // Table header separators are markup, not text.
        if text.trim().len() >= 12 && text.trim().chars().all(|c| c == '-' || c == '=') {
            continue;
        }
        let text = text.trim_start_matches('=').to_string();
        let text = strip_heading_options(&text);
        out.push((line_no, review_inline(&text)));
    }
    out
}

fn strip_heading_options(s: &str) -> String {
    let mut s = s.trim_start().to_string();
    for (open, close) in [('[', ']'), ('{', '}')] {
        if s.starts_with(open)
            && let Some(end) = s.find(close)
        {
            s = s[end + 1..].to_string();
        }
    }
    s
}

/// The text between inline commands, plus the content of styling commands (whose text shows as
/// written). List markers and table tabs separate pieces.
pub fn review_inline(line: &str) -> Vec<String> {
    const SHOWN: &[&str] = &[
        "b", "i", "tt", "code", "em", "strong", "u", "ami", "bou", "tcy", "sup", "sub", "del",
        "ins", "ttb", "tti", "balloon", "idx",
    ];
    let line = line.trim_start();
    let line = line
        .trim_start_matches('*')
        .strip_prefix(' ')
        .or_else(|| line.strip_prefix(": "))
        .unwrap_or(line);
    // A numbered item (` 1. text`) shows its number only as list markup.
    let line = match line.split_once(". ") {
        Some((n, rest)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => line,
    };
    let mut pieces = vec![String::new()];
    let mut rest = line;
    while let Some(at) = rest.find("@<") {
        pieces.last_mut().unwrap().push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(close) = after.find('>') else { break };
        let name = &after[..close];
        let body = &after[close + 1..];
        let (open, end_char) = match body.chars().next() {
            Some('{') => ('{', '}'),
            Some('$') => ('$', '$'),
            Some('|') => ('|', '|'),
            _ => {
                pieces.last_mut().unwrap().push_str("@<");
                rest = after;
                continue;
            }
        };
        let inner = &body[open.len_utf8()..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in inner.char_indices() {
            if open == '{' && c == '\\' && !escaped {
                escaped = true;
                continue;
            }
            if c == end_char && !escaped {
                end = Some(i);
                break;
            }
            escaped = false;
        }
        let Some(end) = end else { break };
        let content = inner[..end].replace("\\}", "}").replace("\\\\", "\\");
        if SHOWN.contains(&name) {
            pieces.push(content);
        }
        pieces.push(String::new());
        rest = &inner[end + end_char.len_utf8()..];
    }
    pieces.last_mut().unwrap().push_str(rest);
    // Table cells are separated by tabs; a cell's leading `.` is Re:VIEW's escape.
    pieces
        .into_iter()
        .flat_map(|c| {
            c.split('\t')
                .map(|cell| cell.strip_prefix('.').unwrap_or(cell).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

// ---- Markdown ----

/// The Markdown files a `book.yml` names, in the order it names them.
pub fn markdown_files(book: &Path) -> Vec<PathBuf> {
    read(&book.join("book.yml"))
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split(|c: char| c.is_whitespace() || "[],:{}".contains(c)))
        .map(|w| w.trim_matches(['"', '\'']))
        .filter(|w| w.ends_with(".md") || w.ends_with(".markdown"))
        .map(|w| book.join(w))
        .filter(|p| p.is_file())
        .collect()
}

pub fn markdown_chunks(book: &Path) -> Vec<Chunk> {
    chunks(book, &markdown_files(book), markdown_text)
}

/// Plain-text pieces of each line of a Markdown file's paragraphs, headings, list items, quotes,
/// table cells and notes; code blocks, math, comments, front matter and link definitions are
/// not paragraph text.
pub fn markdown_text(source: &str) -> Lines {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut in_comment = false;
    let mut in_math = false;
    let mut front_matter = source.starts_with("---\n") || source.starts_with("---\r\n");
    let mut prev_blank = true;
    let mut in_list = false;
    let mut destination_next = false;
    for (i, raw) in source.lines().enumerate() {
        let line_no = i + 1;
        if front_matter {
            if i > 0 && (raw.trim_end() == "---" || raw.trim_end() == "...") {
                front_matter = false;
            }
            continue;
        }
        let line = strip_comments(raw, &mut in_comment);
        // Inside a block quote, the blocks are the quote's.
        let mut line = line.as_str();
        while let Some(rest) = line.trim_start().strip_prefix('>') {
            line = rest.strip_prefix(' ').unwrap_or(rest);
        }
        let trimmed = line.trim_start();
        // A link definition's destination on the line after its label.
        if std::mem::take(&mut destination_next) && !trimmed.is_empty() && !trimmed.contains(' ') {
            continue;
        }
        if let Some((c, n)) = fence {
            if trimmed.starts_with(&c.to_string().repeat(n))
                && trimmed.trim_matches(c).trim().is_empty()
            {
                fence = None;
            }
            prev_blank = false;
            continue;
        }
        let indent = line.len() - trimmed.len()
            + 3 * line[..line.len() - trimmed.len()].matches('\t').count();
        if trimmed.is_empty() {
            prev_blank = true;
            continue;
        }
        for c in ['`', '~'] {
            let n = trimmed.chars().take_while(|&x| x == c).count();
            if n >= 3 && indent < 4 {
                fence = Some((c, n));
            }
        }
        if fence.is_some() {
            continue;
        }
        if let Some(after) = trimmed.strip_prefix("$$") {
            let closed_here = after.contains("$$");
            if !closed_here {
                in_math = !in_math;
            }
            continue;
        }
        if in_math {
            continue;
        }
        let list_marker = list_item(trimmed).is_some();
        if list_marker {
            in_list = true;
        } else if indent == 0 && prev_blank {
            in_list = false;
        }
        // An indented code block (inside a list, indentation is the item's).
        if indent >= 4 && prev_blank && !in_list {
            continue;
        }
        prev_blank = false;
        if is_markup_line(trimmed) {
            destination_next = trimmed.trim_end().ends_with("]:");
            continue;
        }
        let mut text = trimmed;
        if let Some(rest) = list_item(text) {
            text = rest;
        }
        let text = text.trim_start_matches('#');
        // A footnote definition's label is not text; its body is.
        let text = match text.strip_prefix("[^").and_then(|r| r.split_once("]:")) {
            Some((_, body)) => body,
            None => text,
        };
        out.push((line_no, markdown_inline(text)));
    }
    out
}

/// Lines that are markup only: rules, setext underlines, table separators, link definitions,
/// fenced-div markers (`:::message`).
fn is_markup_line(t: &str) -> bool {
    let t = t.trim_end();
    let rule = |c: char| t.len() >= 3 && t.chars().all(|x| x == c || x == ' ');
    if rule('-') || rule('=') || rule('*') || rule('_') {
        return true;
    }
    if t.starts_with('|') && t.chars().all(|c| "|-: ".contains(c)) {
        return true;
    }
    if t.starts_with(":::") {
        return true;
    }
    // `[label]: url`
    if let Some(rest) = t.strip_prefix('[')
        && !rest.starts_with('^')
        && let Some((_, after)) = rest.split_once("]:")
    {
        return !after.trim().contains(' ') || after.trim().starts_with("http");
    }
    false
}

/// The text after a list marker (`- `, `* `, `+ `, `1. `, `1) `, `- [ ] `, and a definition's
/// `: `).
fn list_item(t: &str) -> Option<&str> {
    let rest = if let Some(r) = t.strip_prefix(['-', '*', '+', ':']) {
        r.strip_prefix(' ')?
    } else {
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        t[digits..].strip_prefix(['.', ')'])?.strip_prefix(' ')?
    };
    let rest = rest.trim_start();
    Some(
        rest.strip_prefix("[ ] ")
            .or_else(|| rest.strip_prefix("[x] "))
            .or_else(|| rest.strip_prefix("[X] "))
            .unwrap_or(rest),
    )
}

/// The line with `<!-- … -->` removed, carrying an open comment over to the next line.
fn strip_comments(line: &str, in_comment: &mut bool) -> String {
    let mut out = String::new();
    let mut rest = line;
    loop {
        if *in_comment {
            match rest.find("-->") {
                Some(end) => {
                    rest = &rest[end + 3..];
                    *in_comment = false;
                    out.push(' ');
                }
                None => return out,
            }
        } else {
            match rest.find("<!--") {
                Some(start) => {
                    out.push_str(&rest[..start]);
                    rest = &rest[start + 4..];
                    *in_comment = true;
                }
                None => {
                    out.push_str(rest);
                    return out;
                }
            }
        }
    }
}

/// The text of one line between inline markup: emphasis, code marks, link targets, HTML tags,
/// footnote references, math and attribute blocks separate pieces or are dropped; escapes and
/// character references become what they show. Straight quotes, `--` and `...` separate pieces
/// too, since smart punctuation may rewrite them.
pub fn markdown_inline(line: &str) -> Vec<String> {
    let mut pieces = vec![String::new()];
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let split = |pieces: &mut Vec<String>| {
        if !pieces.last().is_some_and(String::is_empty) {
            pieces.push(String::new());
        }
    };
    let find = |from: usize, what: char| {
        chars[from..]
            .iter()
            .position(|&c| c == what)
            .map(|p| from + p)
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\\' if next.is_some_and(|n| n.is_ascii_punctuation()) => {
                pieces.last_mut().unwrap().push(next.unwrap());
                i += 2;
                continue;
            }
            // A link's or image's target: `](url)` or `][ref]`.
            ']' if next == Some('(') || next == Some('[') => {
                let close = if next == Some('(') { ')' } else { ']' };
                split(&mut pieces);
                i = find(i + 2, close).map_or(chars.len(), |e| e + 1);
                continue;
            }
            // A footnote reference.
            '[' if next == Some('^') => {
                split(&mut pieces);
                i = find(i, ']').map_or(chars.len(), |e| e + 1);
                continue;
            }
            // Inline math.
            '$' => {
                split(&mut pieces);
                i = find(i + 1, '$').map_or(i + 1, |e| e + 1);
                continue;
            }
            // An attribute block `{#id .class}`.
            '{' if matches!(next, Some('#' | '.')) => {
                split(&mut pieces);
                i = find(i, '}').map_or(chars.len(), |e| e + 1);
                continue;
            }
            // An HTML tag (an autolink's address is shown, so it stays).
            '<' if next.is_some_and(|n| n.is_ascii_alphabetic() || n == '/' || n == '!') => {
                if let Some(end) = find(i, '>') {
                    let inner: String = chars[i + 1..end].iter().collect();
                    split(&mut pieces);
                    let autolink = inner.contains("://") || inner.contains('@');
                    if autolink && !inner.contains(char::is_whitespace) {
                        pieces.last_mut().unwrap().push_str(&inner);
                    }
                    split(&mut pieces);
                    i = end + 1;
                    continue;
                }
            }
            '&' => {
                if let Some(end) = find(i, ';').filter(|&e| e - i <= 10) {
                    let name: String = chars[i + 1..end].iter().collect();
                    let shown = match name.as_str() {
                        "amp" => Some('&'),
                        "lt" => Some('<'),
                        "gt" => Some('>'),
                        "quot" | "nbsp" | "apos" => None,
                        n if n.starts_with("#x") || n.starts_with("#X") => {
                            u32::from_str_radix(&n[2..], 16)
                                .ok()
                                .and_then(char::from_u32)
                        }
                        n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
                        _ => {
                            pieces.last_mut().unwrap().push('&');
                            i += 1;
                            continue;
                        }
                    };
                    match shown {
                        Some(ch) => pieces.last_mut().unwrap().push(ch),
                        None => split(&mut pieces),
                    }
                    i = end + 1;
                    continue;
                }
            }
            // A code span shows its text as written.
            '`' => {
                let run = chars[i..].iter().take_while(|&&c| c == '`').count();
                let body = i + run;
                let close = (body..chars.len()).find(|&j| {
                    chars[j..].iter().take_while(|&&c| c == '`').count() == run
                        && (j == 0 || chars[j - 1] != '`')
                });
                split(&mut pieces);
                match close {
                    Some(end) => {
                        pieces.last_mut().unwrap().extend(&chars[body..end]);
                        i = end + run;
                    }
                    None => i = body,
                }
                split(&mut pieces);
                continue;
            }
            '*' | '_' | '[' | ']' | '|' | '"' | '\'' => {
                split(&mut pieces);
                i += 1;
                continue;
            }
            '!' if next == Some('[') => {
                split(&mut pieces);
                i += 1;
                continue;
            }
            '~' if next == Some('~') => {
                split(&mut pieces);
                i += 2;
                continue;
            }
            // `--` and `---`, which smart punctuation makes dashes.
            '-' if next == Some('-') => {
                split(&mut pieces);
                i += chars[i..].iter().take_while(|&&c| c == '-').count();
                continue;
            }
            '.' if next == Some('.') && chars.get(i + 2) == Some(&'.') => {
                split(&mut pieces);
                i += 3;
                continue;
            }
            _ => {}
        }
        pieces.last_mut().unwrap().push(c);
        i += 1;
    }
    // A closing ATX heading's `#`s are markup.
    if let Some(last) = pieces.last_mut() {
        let kept = last.trim_end().trim_end_matches('#').len();
        last.truncate(kept);
    }
    pieces
}

// ---- DocBook ----

/// The words of a DocBook book's running text: its main file with entities and XIncludes
/// resolved by `xmllint` (never from the network; the book's catalog, when it has one, and the
/// system's), index terms, remarks and comments left out.
pub fn docbook_words(main: &Path, catalog: Option<&Path>) -> Result<Bag, String> {
    docbook_dtds_found()?;
    let mut cmd = Command::new("xmllint");
    cmd.args([
        "--noent",
        "--xinclude",
        "--loaddtd",
        "--nonet",
        "--recover",
        "--encode",
        "UTF-8",
    ])
    .arg(main.file_name().unwrap_or_default())
    .current_dir(main.parent().unwrap_or(Path::new(".")));
    if let Some(catalog) = catalog {
        cmd.env(
            "XML_CATALOG_FILES",
            format!("{} /etc/xml/catalog", catalog.display()),
        );
    }
    let out = cmd.output().map_err(|e| {
        format!(
            "xmllint could not be run ({e}): the DocBook text measure needs it \
             (Debian: apt-get install libxml2-utils docbook-xml; bash .ci/run installs them)"
        )
    })?;
    if out.stdout.is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "xmllint could not resolve {}: {}",
            main.display(),
            err.lines().next().unwrap_or("no output")
        ));
    }
    Ok(Bag::of(&docbook_text(&String::from_utf8_lossy(
        &out.stdout,
    ))))
}

const DOCBOOK_INLINE: &[&str] = &[
    "abbrev",
    "acronym",
    "application",
    "citetitle",
    "classname",
    "code",
    "command",
    "computeroutput",
    "constant",
    "email",
    "emphasis",
    "envar",
    "errorcode",
    "errorname",
    "filename",
    "firstterm",
    "foreignphrase",
    "function",
    "glossterm",
    "guibutton",
    "guilabel",
    "guimenu",
    "guimenuitem",
    "guisubmenu",
    "interface",
    "keycap",
    "keycombo",
    "link",
    "literal",
    "markup",
    "menuchoice",
    "methodname",
    "option",
    "package",
    "parameter",
    "phrase",
    "productname",
    "prompt",
    "property",
    "quote",
    "replaceable",
    "sgmltag",
    "subscript",
    "superscript",
    "systemitem",
    "tag",
    "token",
    "trademark",
    "type",
    "ulink",
    "uri",
    "userinput",
    "varname",
    "wordasword",
];

/// xmllint finds the DocBook DTDs through the system's catalog (without them, `&mdash;` and
/// the like go unresolved and every figure falls): checked once.
fn docbook_dtds_found() -> Result<(), String> {
    static FOUND: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let probe = "<?xml version=\"1.0\"?>\n<!DOCTYPE article PUBLIC \"-//OASIS//DTD DocBook XML V4.2//EN\" \"http://www.oasis-open.org/docbook/xml/4.2/docbookx.dtd\">\n<article><para>&mdash;</para></article>\n";
            let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
            let file = dir.path().join("probe.xml");
            std::fs::write(&file, probe).map_err(|e| e.to_string())?;
            let out = Command::new("xmllint")
                .args(["--noent", "--loaddtd", "--nonet", "--encode", "UTF-8"])
                .arg(&file)
                .output()
                .map_err(|e| format!("xmllint could not be run ({e}): the DocBook text measure needs it (Debian: apt-get install libxml2-utils docbook-xml; bash .ci/run installs them)"))?;
            if String::from_utf8_lossy(&out.stdout).contains('\u{2014}') {
                Ok(())
            } else {
                Err("xmllint does not find the DocBook 4.2 DTD in the system's XML catalog: apt-get install docbook-xml (bash .ci/run installs it)".into())
            }
        })
        .clone()
}

/// Elements whose text DocBook XSL 1.79 never shows as running text: index terms, remarks
/// (draft mode only), a screenshot's `screeninfo` (production notes, suppressed by the
/// stylesheets) and `titleabbrev` (only in tables of contents and running heads, which the
/// EPUB measures leave out as navigation).
fn docbook_hidden(name: &str) -> bool {
    matches!(name, "indexterm" | "remark" | "screeninfo" | "titleabbrev")
}

/// Media objects: a `textobject` beside an image, video or audio object is that object's
/// alternative text (`alt`, an attribute, as DocBook XSL and seihon write it), not running
/// text; only a media object with no other object shows it.
#[derive(Default)]
struct Media {
    depth: usize,
    has_object: bool,
    /// The depth of the `textobject` being read, whose text waits in `pending`.
    textobject: Option<usize>,
    pending: String,
}

/// The text of a resolved DocBook document, without what DocBook XSL does not show (see
/// [`docbook_hidden`], [`Media`]).
pub fn docbook_text(xml: &str) -> String {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    {
        let config = reader.config_mut();
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        config.trim_text(false);
    }
    let mut text = String::new();
    let mut hidden = 0usize;
    let mut depth = 0usize;
    let mut media: Vec<Media> = Vec::new();
    // Where text goes: a media object's pending alternative text, or the running text.
    fn sink<'t>(text: &'t mut String, media: &'t mut [Media]) -> &'t mut String {
        match media.last_mut() {
            Some(m) if m.textobject.is_some() => &mut m.pending,
            _ => text,
        }
    }
    // Inline elements' edges are not word boundaries (`<filename>file</filename>s`).
    let space = |text: &mut String, name: &str| {
        if !DOCBOOK_INLINE.contains(&name) {
            text.push(' ');
        }
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let name = e.local_name();
                let name: &str = name.as_ref();
                depth += 1;
                if hidden > 0 || docbook_hidden(name) {
                    hidden += 1;
                }
                if let Some(m) = media.last_mut().filter(|m| m.depth + 1 == depth) {
                    match name {
                        "imageobject" | "imageobjectco" | "videoobject" | "audioobject" => {
                            m.has_object = true
                        }
                        "textobject" => m.textobject = Some(depth),
                        _ => {}
                    }
                }
                if matches!(name, "mediaobject" | "inlinemediaobject") {
                    media.push(Media {
                        depth,
                        ..Media::default()
                    });
                }
                space(sink(&mut text, &mut media), name);
            }
            Ok(Event::End(e)) => {
                let name = e.local_name();
                let name: &str = name.as_ref();
                hidden = hidden.saturating_sub(1);
                space(sink(&mut text, &mut media), name);
                if let Some(m) = media.last_mut() {
                    if m.textobject == Some(depth) {
                        m.textobject = None;
                    }
                    if m.depth == depth {
                        let m = media.pop().unwrap_or_default();
                        if !m.has_object {
                            sink(&mut text, &mut media).push_str(&m.pending);
                        }
                    }
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Empty(e)) => {
                let name = e.local_name();
                let name: &str = name.as_ref();
                if let Some(m) = media.last_mut().filter(|m| m.depth == depth)
                    && matches!(name, "imageobject" | "videoobject" | "audioobject")
                {
                    m.has_object = true;
                }
                space(sink(&mut text, &mut media), name)
            }
            Ok(Event::Text(e)) if hidden == 0 => {
                sink(&mut text, &mut media).push_str(&e.xml10_content())
            }
            Ok(Event::CData(e)) if hidden == 0 => {
                sink(&mut text, &mut media).push_str(&e.xml10_content())
            }
            Ok(Event::GeneralRef(e)) if hidden == 0 => {
                let out = sink(&mut text, &mut media);
                if let Ok(Some(c)) = e.resolve_char_ref() {
                    out.push(c);
                } else if e.as_ref() == "amp" {
                    out.push('&');
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(line: &str) -> Vec<String> {
        markdown_inline(line)
            .into_iter()
            .map(|p| p.chars().filter(|c| !c.is_whitespace()).collect::<String>())
            .filter(|p| !p.is_empty())
            .collect()
    }

    #[test]
    fn markdown_inline_keeps_text_and_drops_targets_tags_and_notes() {
        assert_eq!(
            pieces("See [the *guide*](http://x.org/a) and `Vec<T>`[^n] &amp; more"),
            ["See", "the", "guide", "and", "Vec<T>", "&more"]
        );
        assert_eq!(
            pieces("a <span class=\"x\">tagged</span> word"),
            ["a", "tagged", "word"]
        );
        assert_eq!(pieces("## Title {#id .c}"), ["##Title"]);
        assert_eq!(
            pieces("<a href=\"http://x.org\">site</a> --- <http://y.org>"),
            ["site", "http://y.org"]
        );
        assert_eq!(
            pieces("math $x^2$ here, \\*not\\* emphasis"),
            ["math", "here,*not*emphasis"]
        );
    }

    #[test]
    fn markdown_text_skips_code_comments_math_and_front_matter() {
        let src = "---\ntitle: T\n---\n# Heading\n\nPara one\n<!-- hidden\nstill -->\n```rust\ncode here\n```\n$$\nx = y\n$$\n- item text\n\n    item paragraph\n\nText\n\n    indented code\n[^1]: note body\n[link]: http://example.com\n: a definition\n[label]:\nch01.html#x\n> ```rust\n> quoted code\n> ```\n> quoted text\n";
        let got: Vec<(usize, Vec<String>)> = markdown_text(src)
            .into_iter()
            .map(|(l, p)| (l, p.into_iter().filter(|s| !s.trim().is_empty()).collect()))
            .filter(|(_, p): &(usize, Vec<String>)| !p.is_empty())
            .collect();
        let lines: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [4, 6, 15, 17, 19, 22, 24, 30], "{got:?}");
        assert_eq!(got[6].1, ["a definition"]);
        assert_eq!(got[5].1, [" note body"]);
    }

    #[test]
    fn review_files_are_the_catalog_chapters_under_contentdir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.yml"), "contentdir: \"src\"\n").unwrap();
        std::fs::write(
            dir.path().join("catalog.yml"),
            "PREDEF:\n  - pre-face.re\n# - old.re\nCHAPS: [ch-01.re, \"ch02.re\"]\nPOSTDEF:\n  - missing.re\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        for f in ["pre-face.re", "old.re", "ch-01.re", "ch02.re"] {
            std::fs::write(dir.path().join("src").join(f), "text\n").unwrap();
        }
        let names: Vec<String> = review_files(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["pre-face.re", "ch-01.re", "ch02.re"]);
    }

    #[test]
    fn review_inline_skips_references_and_keeps_styled_text() {
        assert_eq!(
            review_inline("本文@<b>{太字}と@<fn>{x}です"),
            ["本文", "太字", "と", "です"]
        );
        assert_eq!(review_inline(" * 項目@<code>$a}b$"), ["項目", "a}b", ""]);
    }

    #[test]
    fn docbook_text_leaves_out_index_terms_and_remarks() {
        let text = docbook_text(
            "<?xml version=\"1.0\"?><!DOCTYPE book [<!ENTITY e \"x\">]><book><para>Some text<indexterm><primary>index words</primary></indexterm> and <remark>a draft</remark>more</para></book>",
        );
        let words: Vec<&str> = super::super::measure::tokens(&text).collect();
        assert_eq!(words, ["Some", "text", "and", "more"]);
    }

    #[test]
    fn docbook_text_leaves_out_alt_text_screeninfo_and_titleabbrev() {
        let text = docbook_text(
            "<book><section><title>Long</title><titleabbrev>Short</titleabbrev>\
             <mediaobject><textobject><phrase>alt words</phrase></textobject>\
             <imageobject><imagedata fileref=\"a.png\"/></imageobject></mediaobject>\
             <para>Inline <inlinemediaobject><textobject><phrase>only text</phrase></textobject></inlinemediaobject>.</para>\
             <screenshot><screeninfo>made with xwd</screeninfo><mediaobject><imageobject/><caption><para>Shot</para></caption></mediaobject></screenshot>\
             </section></book>",
        );
        let words: Vec<&str> = super::super::measure::tokens(&text).collect();
        assert_eq!(words, ["Long", "Inline", "only", "text", "Shot"]);
    }
}
