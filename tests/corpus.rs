//! The corpus suite: real books from `$SEIHON_CORPUS` (`.ci/run` sets it; the corpus is other
//! people's work and is never copied into this repository — tests copy a book to a temporary
//! folder and build it there). Every Re:VIEW book must build unmodified, pass epubcheck with
//! no errors and no warnings, and keep all of its running text.
mod support;

use std::path::{Path, PathBuf};

use support::*;

fn corpus() -> Option<PathBuf> {
    match std::env::var_os("SEIHON_CORPUS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!("skipped the corpus suite: SEIHON_CORPUS is not set (bash .ci/run sets it)");
            None
        }
    }
}

fn books(kind: &str) -> Vec<PathBuf> {
    let Some(dir) = corpus() else {
        return Vec::new();
    };
    let mut books: Vec<PathBuf> = std::fs::read_dir(dir.join(kind))
        .unwrap_or_else(|e| panic!("{}/{kind}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    books.sort();
    assert!(!books.is_empty(), "no {kind} books in the corpus");
    books
}

/// A plain grey PNG, standing in for a file a corpus book names but does not ship.
fn grey_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Grayscale);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&vec![0x99; (width * height) as usize])
        .unwrap();
    drop(w);
    out
}

/// Copies a corpus book into `project/<name>`, supplying stand-ins for files it names but lacks.
fn stage_book(project: &TempProject, book: &Path) -> PathBuf {
    let name = book.file_name().unwrap().to_string_lossy().into_owned();
    let to = project.path().join(&name);
    copy_dir(book, &to);
    let config = std::fs::read_to_string(to.join("config.yml")).unwrap_or_default();
    for line in config.lines() {
        if let Some(cover) = line.strip_prefix("coverimage:") {
            let cover = cover.trim().trim_matches('"');
            let path = to.join("images").join(cover);
            if !path.exists() {
                eprintln!(
                    "{name}: the cover image images/{cover} is not in the corpus (too large to ship); using a grey 600×850 stand-in"
                );
                std::fs::write(&path, grey_png(600, 850)).unwrap();
            }
        }
    }
    to
}

#[test]
fn every_review_book_builds_unmodified_and_passes_epubcheck() {
    for book in books("review") {
        let project = TempProject::new();
        let staged = stage_book(&project, &book);
        let name = staged.file_name().unwrap().to_string_lossy().into_owned();
        let out = project.seihon(&["build", &name]);
        assert!(
            out.status.success(),
            "{name} did not build:\n{}",
            text(&out)
        );
        let epub = project.epub(&name);
        let messages = epubcheck(&epub);
        assert!(
            messages.is_empty(),
            "epubcheck on {name}:\n{}",
            messages.join("\n")
        );
        assert_running_text_kept(&staged, &epub);
    }
}

/// Every run of plain text in the book's paragraphs, headings, list items, table cells, notes
/// and listings must appear in the EPUB's XHTML (whitespace aside).
fn assert_running_text_kept(book: &Path, epub: &Path) {
    let mut all_text = String::new();
    for name in entry_names(epub).iter().filter(|n| n.ends_with(".xhtml")) {
        let xhtml = read_entry(epub, name);
        let doc =
            seihon::xhtml::dom::parse_document(&xhtml).unwrap_or_else(|e| panic!("{name}: {e}"));
        all_text.push_str(&doc.root.text_content());
    }
    let all_text: String = all_text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for re in re_files(book) {
        let source = std::fs::read_to_string(&re).unwrap();
        for (line_no, chunk) in running_text(&source) {
            checked += 1;
            if !all_text.contains(&chunk) {
                missing.push(format!("{}:{line_no}: {chunk}", re.display()));
            }
        }
    }
    assert!(
        checked > 20,
        "{}: too little text checked ({checked})",
        book.display()
    );
    assert!(
        missing.is_empty(),
        "text lost from {}:\n{}",
        book.display(),
        missing.join("\n")
    );
}

fn re_files(book: &Path) -> Vec<PathBuf> {
    let catalog = std::fs::read_to_string(book.join("catalog.yml")).unwrap();
    let config = std::fs::read_to_string(book.join("config.yml")).unwrap_or_default();
    let contentdir = config
        .lines()
        .find_map(|l| l.strip_prefix("contentdir:"))
        .map(|d| d.trim().trim_matches('"').to_string())
        .unwrap_or_else(|| ".".into());
    catalog
        .split(|c: char| c.is_whitespace() || c == ':')
        .filter(|w| w.ends_with(".re"))
        .map(|w| {
            book.join(&contentdir)
                .join(w.trim_matches(|c| c == '"' || c == '\''))
        })
        .filter(|p| p.is_file())
        .collect()
}

/// Blocks whose bodies are not running text in an EPUB (other builders, drafts, image
/// fallbacks, TeX).
const NOT_TEXT: &[&str] = &[
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

/// Plain-text chunks (4+ characters, whitespace removed) with their line numbers.
fn running_text(source: &str) -> Vec<(usize, String)> {
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
            if NOT_TEXT.contains(&name.as_str()) {
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
        for chunk in plain_chunks(&text) {
            let chunk: String = chunk.chars().filter(|c| !c.is_whitespace()).collect();
            if chunk.chars().count() >= 4 {
                out.push((line_no, chunk));
            }
        }
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
/// written). List markers and table tabs separate chunks.
fn plain_chunks(line: &str) -> Vec<String> {
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
    let mut chunks = vec![String::new()];
    let mut rest = line;
    while let Some(at) = rest.find("@<") {
        chunks.last_mut().unwrap().push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(close) = after.find('>') else { break };
        let name = &after[..close];
        let body = &after[close + 1..];
        let (open, end_char) = match body.chars().next() {
            Some('{') => ('{', '}'),
            Some('$') => ('$', '$'),
            Some('|') => ('|', '|'),
            _ => {
                chunks.last_mut().unwrap().push_str("@<");
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
            chunks.push(content);
        }
        chunks.push(String::new());
        rest = &inner[end + end_char.len_utf8()..];
    }
    chunks.last_mut().unwrap().push_str(rest);
    // Table cells are separated by tabs; a cell's leading `.` is Re:VIEW's escape.
    chunks
        .into_iter()
        .flat_map(|c| {
            c.split('\t')
                .map(|cell| cell.strip_prefix('.').unwrap_or(cell).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The DocBook main files, as the corpus README lists them.
const DOCBOOK_MAINS: &[&str] = &[
    "svnbook/book/book.xml",
    "intro-linux/abook.xml",
    "linux-ip/linux-ip.xml",
    "lixa-refguide/manuals/LIXA.xml",
    "pandoc-fixtures/docbook-reader.docbook",
    "pandoc-fixtures/docbook-xref.docbook",
];

#[test]
fn every_docbook_document_builds_and_passes_epubcheck_keeping_its_text() {
    let Some(dir) = corpus() else { return };
    for main in DOCBOOK_MAINS {
        let project = TempProject::new();
        let book = main.split('/').next().unwrap();
        copy_dir(&dir.join("docbook").join(book), &project.path().join(book));
        let out = project.seihon(&["build", main]);
        assert!(
            out.status.success(),
            "{main} did not build:\n{}",
            text(&out)
        );
        assert!(!text(&out).contains("panicked"), "{}", text(&out));
        let stem = std::path::Path::new(main)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let epub = project.epub(&stem);
        let messages = epubcheck(&epub);
        assert!(
            messages.is_empty(),
            "epubcheck on {main}:\n{}",
            messages.join("\n")
        );
        assert_docbook_text_kept(&project.path().join(main), &epub);
    }
}

/// The text of every paragraph, list item, listing and table cell of the files the main file
/// pulls in (entities and XInclude, found by scanning for them) must appear in the EPUB.
fn assert_docbook_text_kept(main: &Path, epub: &Path) {
    let all_text = epub_text(epub);
    // Files reached so far, and the comment-free text of all of them: an external entity's file
    // belongs to the book only once some included file refers to the entity.
    let mut files = vec![main.to_path_buf()];
    let mut used = without_comments(&std::fs::read_to_string(main).unwrap_or_default());
    let mut candidates: Vec<(PathBuf, Option<String>)> = Vec::new();
    let mut i = 0;
    loop {
        while i < files.len() {
            let text = std::fs::read_to_string(&files[i]).unwrap_or_default();
            let dir = files[i].parent().unwrap().to_path_buf();
            for (included, reference) in included_files(&text) {
                candidates.push((dir.join(included), reference));
            }
            i += 1;
        }
        let before = files.len();
        for (path, reference) in &candidates {
            let wanted = reference.as_ref().is_none_or(|r| used.contains(r.as_str()));
            if wanted && path.is_file() && !files.contains(path) {
                used.push_str(&without_comments(
                    &std::fs::read_to_string(path).unwrap_or_default(),
                ));
                files.push(path.clone());
            }
        }
        if files.len() == before {
            break;
        }
    }
    let (mut checked, mut missing) = (0, Vec::new());
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap_or_default();
        for (line, chunk) in docbook_text(&source) {
            checked += 1;
            if !all_text.contains(&chunk) {
                missing.push(format!("{}:{line}: {chunk}", file.display()));
            }
        }
    }
    assert!(
        checked >= 10,
        "{}: too little text checked ({checked})",
        main.display()
    );
    assert!(
        missing.is_empty(),
        "text lost from {} ({} of {checked} chunks):\n{}",
        main.display(),
        missing.len(),
        missing.join("\n")
    );
}

fn epub_text(epub: &Path) -> String {
    let mut all = String::new();
    for name in entry_names(epub).iter().filter(|n| n.ends_with(".xhtml")) {
        let doc = seihon::xhtml::dom::parse_document(&read_entry(epub, name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        all.push_str(&doc.root.text_content());
    }
    all.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Comments removed: a commented-out `&chapter;` is not part of the book.
fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        rest = rest[i..].find("-->").map_or("", |e| &rest[i + e + 3..]);
    }
    out.push_str(rest);
    out
}

/// Files the document may use, each with the entity reference that pulls it in (`None` for
/// an XInclude, which is always used).
fn included_files(text: &str) -> Vec<(String, Option<String>)> {
    let text = without_comments(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("<!ENTITY") {
        rest = &rest[i + 8..];
        let decl = &rest[..rest.find('>').unwrap_or(rest.len())];
        let words: Vec<&str> = decl.split_whitespace().collect();
        let reference = match words.as_slice() {
            ["%", name, ..] => format!("%{name};"),
            [name, ..] => format!("&{name};"),
            _ => continue,
        };
        if let Some(file) = decl.split("SYSTEM").nth(1) {
            out.push((
                file.trim()
                    .trim_matches(|c| c == '"' || c == '\'')
                    .to_string(),
                Some(reference),
            ));
        }
    }
    let mut rest = text.as_str();
    while let Some(i) = rest.find("href=\"") {
        rest = &rest[i + 6..];
        let file = &rest[..rest.find('"').unwrap_or(0)];
        if file.ends_with(".xml") || file.ends_with(".docbook") {
            out.push((file.to_string(), None));
        }
    }
    out
}

/// Text runs (6+ characters, whitespace removed) directly inside paragraphs, list items,
/// listings and table cells, with their line numbers. Runs next to entity references are cut
/// there (the entity's text is checked where it is declared, if at all).
fn docbook_text(source: &str) -> Vec<(usize, String)> {
    const TEXT_IN: &[&str] = &[
        "para",
        "simpara",
        "entry",
        "td",
        "th",
        "programlisting",
        "screen",
        "literallayout",
        "member",
        "listitem",
    ];
    let mut out = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut rest = source;
    let mut line = 1;
    while !rest.is_empty() {
        let next = rest.find('<').unwrap_or(rest.len());
        let text = &rest[..next];
        if stack
            .last()
            .is_some_and(|top| TEXT_IN.contains(&top.as_str()))
            && !stack.iter().any(|e| e == "indexterm" || e == "remark")
        {
            let mut start_line = line;
            for piece in text.split('&') {
                // After the first piece, each begins with an entity name up to `;`.
                let piece = if std::ptr::eq(piece.as_ptr(), text.as_ptr()) {
                    piece
                } else {
                    piece.split_once(';').map_or("", |(_, t)| t)
                };
                let chunk: String = piece.chars().filter(|c| !c.is_whitespace()).collect();
                if chunk.chars().count() >= 6 {
                    out.push((start_line, chunk));
                }
                start_line += piece.matches('\n').count();
            }
        }
        line += text.matches('\n').count();
        rest = &rest[next..];
        if rest.is_empty() {
            break;
        }
        // A tag, comment, CDATA section or declaration.
        if let Some(body) = rest.strip_prefix("<![CDATA[") {
            let end = body.find("]]>").unwrap_or(body.len());
            if stack
                .last()
                .is_some_and(|top| TEXT_IN.contains(&top.as_str()))
            {
                let chunk: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
                if chunk.chars().count() >= 6 {
                    out.push((line, chunk));
                }
            }
            line += body[..end].matches('\n').count();
            rest = &body[(end + 3).min(body.len())..];
            continue;
        }
        let close = if rest.starts_with("<!--") {
            rest.find("-->").map(|i| i + 3)
        } else {
            rest.find('>').map(|i| i + 1)
        };
        let close = close.unwrap_or(rest.len());
        let tag = &rest[..close];
        line += tag.matches('\n').count();
        rest = &rest[close..];
        if tag.starts_with("<!") || tag.starts_with("<?") {
            continue;
        }
        let name: String = tag
            .trim_start_matches(['<', '/'])
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == ':' || *c == '_')
            .collect();
        let local = name.rsplit(':').next().unwrap_or("").to_string();
        if tag.starts_with("</") {
            if let Some(at) = stack.iter().rposition(|e| *e == local) {
                stack.truncate(at);
            }
        } else if !tag.ends_with("/>") {
            stack.push(local);
        }
    }
    out
}

#[test]
fn docbook_text_takes_paragraph_runs_and_skips_index_terms() {
    let runs = docbook_text(
        "<chapter><title>Title here</title>\n<para>Some text<indexterm><primary>index words</primary></indexterm> and more &ent; after the entity</para></chapter>",
    );
    let runs: Vec<&str> = runs.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(runs, ["Sometext", "andmore", "aftertheentity"]);
}

#[test]
fn corpus_holds_review_and_docbook_books_with_reference_epubs() {
    let Some(dir) = corpus() else { return };
    assert!(
        dir.is_dir(),
        "SEIHON_CORPUS={} is not a folder",
        dir.display()
    );
    for sub in ["review", "docbook", "reference"] {
        let entries = std::fs::read_dir(dir.join(sub))
            .unwrap_or_else(|e| panic!("{sub}: {e}"))
            .count();
        assert!(entries > 0, "{sub} is empty");
    }
}

#[test]
fn plain_chunks_skip_references_and_keep_styled_text() {
    assert_eq!(
        plain_chunks("本文@<b>{太字}と@<fn>{x}です"),
        ["本文", "太字", "と", "です"]
    );
    assert_eq!(plain_chunks(" * 項目@<code>$a}b$"), ["項目", "a}b", ""]);
}
