//! `seihon new`: a new book folder with metadata and a first chapter, ready to build.
use std::path::{Path, PathBuf};

use crate::codes;
use crate::error::{Error, Finding, Location, Result};

/// Source formats `seihon new` can scaffold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NewFormat {
    /// A Markdown book: book.yml (its metadata and chapter list) and .md chapters.
    Markdown,
    /// A Re:VIEW project (config.yml, catalog.yml, .re chapters), as review-init makes.
    Review,
    /// A DocBook 5 book: a main file with its metadata and a chapter pulled in by XInclude.
    Docbook,
}

/// Creates `books_dir/<id>/` with a first chapter and the metadata of its format (`book.yml`
/// for Markdown; `config.yml` and `catalog.yml` for Re:VIEW). Refuses to touch an existing folder.
pub fn new_book(books_dir: &Path, id: &str, format: NewFormat) -> Result<PathBuf> {
    let valid = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && id.starts_with(|c: char| c.is_ascii_alphanumeric());
    if !valid {
        return Err(Error::Config(
            Finding::error(
                codes::BAD_ARGUMENT,
                Location::file(id),
                format!("`{id}` cannot be a book id"),
            )
            .with_hint("use letters, digits, `-` and `_` only, e.g. `scaling-mongodb`"),
        ));
    }
    let dir = books_dir.join(id);
    if dir.exists() {
        return Err(Error::Config(
            Finding::error(
                codes::BAD_ARGUMENT,
                Location::file(&dir),
                "this folder already exists; seihon new never overwrites a book",
            )
            .with_hint("choose another id, or remove the folder first"),
        ));
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::io(&dir, "cannot create the book folder", e))?;
    let uuid = uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_URL,
        format!("seihon:new:{id}").as_bytes(),
    );
    let files: Vec<(&str, String)> = match format {
        NewFormat::Markdown => vec![
            (
                "book.yml",
                format!(
                    "# Book settings: see the README for every key.\n\
                     title: 新しい本\n\
                     language: ja\n\
                     identifier: urn:uuid:{uuid}\n\
                     authors: [著者名]\n\
                     publisher: 出版社名\n\
                     date: 2026-01-01\n\
                     history:\n  - \"2026-01-01: 初版発行\"\n\
                     rights: © 2026 著者名\n\
                     chapters: [ch01.md]\n"
                ),
            ),
            (
                "ch01.md",
                "# 第一章\n\nここに本文を書きます。\n".to_string(),
            ),
        ],
        NewFormat::Review => vec![
            (
                "config.yml",
                format!(
                    "# Re:VIEW settings (review-epubmaker reads the same file).\n\
                     review_version: 5.0\n\
                     bookname: {id}\n\
                     language: ja\n\
                     booktitle: 新しい本\n\
                     aut: [著者名]\n\
                     pbl: 出版社名\n\
                     date: 2026-01-01\n\
                     history: [[\"2026-01-01\"]]\n\
                     rights: (C) 2026 著者名\n\
                     urnid: urn:uuid:{uuid}\n\
                     secnolevel: 2\n\
                     toclevel: 2\n\
                     colophon: true\n\
                     epubmaker:\n  htmlext: xhtml\n"
                ),
            ),
            (
                "catalog.yml",
                "PREDEF:\n\nCHAPS:\n  - ch01.re\n\nAPPENDIX:\n\nPOSTDEF:\n".to_string(),
            ),
            (
                "ch01.re",
                "= 第一章\n\nここに本文を書きます。\n".to_string(),
            ),
        ],
        NewFormat::Docbook => vec![
            (
                "book.xml",
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                     <book xmlns=\"http://docbook.org/ns/docbook\" xmlns:xi=\"http://www.w3.org/2001/XInclude\" \
                     version=\"5.0\" xml:lang=\"ja\" xml:id=\"{id}\">\n  \
                     <info>\n    <title>新しい本</title>\n    \
                     <author><personname>著者名</personname></author>\n    \
                     <publisher><publishername>出版社名</publishername></publisher>\n    \
                     <pubdate>2026-01-01</pubdate>\n    \
                     <copyright><year>2026</year><holder>著者名</holder></copyright>\n  \
                     </info>\n  \
                     <xi:include href=\"ch01.xml\"/>\n</book>\n"
                ),
            ),
            (
                "ch01.xml",
                "<chapter xmlns=\"http://docbook.org/ns/docbook\" version=\"5.0\" xml:id=\"ch01\">\n  \
                 <title>第一章</title>\n  <para>ここに本文を書きます。</para>\n</chapter>\n"
                    .to_string(),
            ),
        ],
    };
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| Error::io(&path, "cannot write", e))?;
    }
    Ok(dir)
}
