//! Load an unmodified Re:VIEW project: `config.yml` (with `inherit:` and `epubmaker:`
//! overrides) and `catalog.yml` (PREDEF, CHAPS with parts, APPENDIX, POSTDEF) → [`Book`].
//!
//! Re:VIEW's config has hundreds of keys, most for its PDF maker, so it is read untyped and only
//! the keys that matter for an EPUB are taken; a setting seihon cannot honour is a warning at
//! its line, never a silent change of output.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    Book, COLOPHON_ORDER, ChapterSource, ColophonRow, Cover, Creator, Direction, Format,
    GeneratedPages, HistoryEntry, Metadata, ProjectConfig, Role, StaticPage, Writing,
    check_book_file, display_path,
};
use crate::codes;
use crate::error::{Error, Finding, Location, Result};

/// What the Re:VIEW reader needs from the project besides the chapter text.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ReviewSettings {
    /// Where images are looked up (`imagedir`, default `images`), relative to the book folder.
    pub imagedir: PathBuf,
    /// `@<w>` dictionary from `words_file`.
    #[serde(serialize_with = "sorted")]
    pub words: HashMap<String, String>,
    pub draft: bool,
    pub tabwidth: usize,
    /// `join_lines_by_lang: true` (see `reader::review::ReviewOptions`).
    pub join_lines_by_lang: bool,
    /// Block commands the book's `review-ext.rb` defines.
    pub extension_blocks: Vec<String>,
}

/// A map in key order: the same settings always serialize alike (the chapter cache keys on them).
fn sorted<S: serde::Serializer>(map: &HashMap<String, String>, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&map.iter().collect::<std::collections::BTreeMap<_, _>>(), s)
}

/// The block commands a `review-ext.rb` defines: the names after `defblock`, `defsingle`,
/// `defminicolumn` and `defcodeblock` (`defblock :imagetalkl, 2..3`,
/// `ReVIEW::Compiler.defblock(:note, 0..1)`), sorted.
pub fn extension_blocks(ruby: &str) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for kind in ["defblock", "defsingle", "defminicolumn", "defcodeblock"] {
        for (at, _) in ruby.match_indices(kind) {
            let rest = ruby[at + kind.len()..].trim_start_matches([' ', '\t', '(']);
            let rest = rest.trim_start_matches([':', '\'', '"']);
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names.into_iter().collect()
}

/// Whether `dir` is a Re:VIEW project folder (a `config.yml` and a `catalog.yml`).
pub fn is_review_project(dir: &Path) -> bool {
    dir.join("config.yml").is_file() && dir.join("catalog.yml").is_file()
}

/// Reads a YAML file into a JSON value, with YAML 1.1 surprises turned off (`no` stays a
/// string, ISBNs keep leading zeros). A text read before is not parsed again: one build asks
/// for the book's settings several times (its id, its metadata, its preview), and parsing a
/// large config.yml took a millisecond each time.
fn read_yaml(path: &Path, shown: &Path) -> Result<(Value, String)> {
    static PARSED: Memo<Value> = Memo::new();
    let bytes = std::fs::read(path).map_err(|e| {
        Error::Config(Finding::error(
            codes::SETTINGS_SYNTAX,
            Location::file(shown),
            format!("cannot read this file: {e}"),
        ))
    })?;
    let text = crate::error::decode_text(bytes, shown).map_err(Error::Config)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
    let value = PARSED.get_or(shown, &text, || {
        let opts =
            serde_saphyr::options! { strict_booleans: true, leading_zero_numbers_as_strings: true };
        let value: Value = serde_saphyr::from_str_with_options(&text, opts).map_err(|e| {
            let loc = e.location().map_or_else(
                || Location::file(shown),
                |l| Location::new(shown, l.line() as u32, l.column() as u32),
            );
            let msg = e.without_snippet().to_string();
            let first = msg.lines().next().unwrap_or("").to_string();
            Error::Config(Finding::error(
                codes::SETTINGS_SYNTAX,
                loc,
                format!("this is not valid YAML: {first}"),
            ))
        })?;
        Ok(if value.is_null() {
            Value::Object(Default::default())
        } else {
            value
        })
    })?;
    Ok((value, text))
}

/// What was made of each file's text, by the path it is shown as: the last text alone, so an
/// edited file is made again and the memo holds one entry per file.
struct Memo<T>(std::sync::Mutex<Vec<(PathBuf, String, T)>>);

impl<T: Clone> Memo<T> {
    const fn new() -> Self {
        Memo(std::sync::Mutex::new(Vec::new()))
    }

    fn get_or(&self, shown: &Path, text: &str, make: impl FnOnce() -> Result<T>) -> Result<T> {
        let known = self.0.lock().ok().and_then(|memo| {
            (memo.iter())
                .find(|(path, was, _)| path == shown && was == text)
                .map(|(_, _, made)| made.clone())
        });
        if let Some(made) = known {
            return Ok(made);
        }
        let made = make()?;
        if let Ok(mut memo) = self.0.lock() {
            memo.retain(|(path, _, _)| path != shown);
            memo.push((shown.to_path_buf(), text.to_string(), made.clone()));
        }
        Ok(made)
    }
}

/// Where `key:` is written in a YAML file (first occurrence), for messages about its value.
fn key_location(text: &str, shown: &Path, key: &str) -> Location {
    let (plain, item) = (format!("{key}:"), format!("- {key}:"));
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with(&plain) || trimmed.starts_with(&item) {
            let col = line.len() - trimmed.len() + 1;
            return Location::new(shown, i as u32 + 1, col as u32);
        }
    }
    Location::file(shown)
}

/// Deep merge: `over` wins; mappings merge key by key (Re:VIEW's `inherit:` semantics).
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Reads a config file and the files it inherits, depth first, refusing cycles.
///
/// `from` is the `inherit:` line that named `file` (unknown for the book's own config file):
/// a loop or a missing file is reported there.
fn load_config(
    dir: &Path,
    file: &Path,
    from: Option<&Location>,
    chain: &mut Vec<PathBuf>,
    texts: &mut Vec<(PathBuf, String)>,
    found: &mut Vec<Finding>,
) -> Result<Value> {
    let shown = display_path(Path::new("."), &dir.join(file));
    let here = || from.cloned().unwrap_or_else(|| Location::file(&shown));
    if chain.contains(&file.to_path_buf()) {
        return Err(Error::Config(Finding::error(
            codes::SETTINGS_SYNTAX,
            here(),
            format!(
                "`inherit:` makes a loop: {}",
                chain
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" → ")
            ),
        )));
    }
    let path = check_book_file(dir, file).map_err(|why| {
        Error::Config(Finding::error(
            codes::SETTINGS_SYNTAX,
            here(),
            format!("the settings file `{}` {why}", file.display()),
        ))
    })?;
    let (mut value, text) = read_yaml(&path, &shown)?;
    static CHECKED: Memo<Vec<Finding>> = Memo::new();
    found.extend(CHECKED.get_or(&shown, &text, || {
        Ok(super::review_keys::check(&value, &text, &shown))
    })?);
    chain.push(file.to_path_buf());
    let mut merged = Value::Object(Default::default());
    if let Some(inherit) = value.as_object_mut().and_then(|o| o.remove("inherit")) {
        let inherit_at = key_location(&text, &shown, "inherit");
        for parent in strings(&inherit) {
            let parent_value = load_config(
                dir,
                Path::new(&parent),
                Some(&inherit_at),
                chain,
                texts,
                found,
            )?;
            merge(&mut merged, parent_value);
        }
    }
    merge(&mut merged, value);
    chain.pop();
    texts.push((shown, text));
    Ok(merged)
}

/// A string, or each string of a list.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Number(n) => vec![n.to_string()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

fn string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A name as Re:VIEW writes it: `Name` or `{name: Name, file-as: …}`.
fn names(v: &Value) -> Vec<(String, Option<String>)> {
    match v {
        Value::String(s) if !s.trim().is_empty() => vec![(s.trim().to_string(), None)],
        Value::Object(o) => string(o.get("name"))
            .map(|n| vec![(n, string(o.get("file-as")))])
            .unwrap_or_default(),
        Value::Array(a) => a.iter().flat_map(names).collect(),
        _ => Vec::new(),
    }
}

/// What a value is, in words, for messages about its shape.
fn shape(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "it is a mapping",
        Value::Array(_) => "it is a list holding something else",
        Value::Bool(_) => "it is true or false",
        _ => "it is something else",
    }
}

/// Whether `v` is a name as Re:VIEW takes one: a string, `{name: …, file-as: …}`, or a list of
/// those.
fn is_names(v: &Value) -> bool {
    match v {
        Value::Null | Value::String(_) | Value::Number(_) => true,
        Value::Object(o) => {
            o.get("name")
                .is_some_and(|n| n.is_string() || n.is_number())
                && o.keys().all(|k| k == "name" || k == "file-as")
                && o.get("file-as")
                    .is_none_or(|f| f.is_string() || f.is_null())
        }
        Value::Array(a) => a.iter().all(|v| !v.is_array() && is_names(v)),
        Value::Bool(_) => false,
    }
}

/// MARC relator codes Re:VIEW accepts as config keys (`aut:` and `a-aut:`), in its colophon
/// order first; every one goes into the package document with its role.
pub(super) const ROLES: &[&str] = &[
    "aut", "csl", "trl", "dsr", "ill", "cov", "edt", "pbl", "prt", "pht", "adp", "ann", "arr",
    "art", "asn", "aqt", "aft", "aui", "ant", "bkp", "clb", "cmm", "lyr", "mdc", "mus", "nrt",
    "oth", "red", "rev", "spn", "ths", "trc",
];

/// The config's `bookname:` (what review-epubmaker names the EPUB), as the config loaded
/// gives it (`inherit:` applied, and `epubmaker:` over the top level, as Re:VIEW's
/// `Configure#[]` looks there first), and where it is written. Reads only the config files, so
/// that the ids of a project's books are known before any of them is loaded; `None` when the
/// config does not set it or cannot be read (loading the book says why).
pub(super) fn bookname(dir: &Path, config: &Path) -> Option<(Value, Location)> {
    let mut texts = Vec::new();
    let values = load_config(
        dir,
        config,
        None,
        &mut Vec::new(),
        &mut texts,
        &mut Vec::new(),
    )
    .ok()?;
    let over = values.get("epubmaker").and_then(|m| m.get("bookname"));
    let value = over.or_else(|| values.get("bookname"))?.clone();
    let parent = over.is_some().then_some("epubmaker");
    // The file that set it: the book's own file is read last.
    let at = texts
        .iter()
        .rev()
        .map(|(shown, text)| super::review_keys::key_at(text, shown, "bookname", parent))
        .find(|l| l.line > 0)
        .unwrap_or_else(|| Location::file(display_path(Path::new("."), &dir.join(config))));
    Some((value, at))
}

/// Loads the Re:VIEW project in `dir` with the config file `config` (relative to `dir`).
/// Warnings (settings seihon does not honour) are returned beside the book.
pub fn load(dir: &Path, config: &Path, project: &ProjectConfig) -> Result<(Book, Vec<Finding>)> {
    let mut warnings = Vec::new();
    let cfg = Config::read(dir, config, &mut warnings)?;
    let mut errors = Vec::new();
    cfg.check_names(&mut errors);
    let title = cfg.title(&mut warnings);
    let language = cfg.language(&mut errors);
    cfg.check_numbers(&mut errors);
    cfg.check_bookname(&mut errors);
    let meta = cfg.metadata(title, language, &mut errors);

    let contentdir = PathBuf::from(cfg.string("contentdir").unwrap_or_else(|| ".".into()));
    let imagedir = PathBuf::from(cfg.string("imagedir").unwrap_or_else(|| "images".into()));
    let cover = cfg.cover(dir, &imagedir, &mut errors);
    let stylesheets = cfg.stylesheets(dir, &mut warnings);
    let words = cfg.words(dir, &mut warnings);
    let locale = locale_file(&dir.join("locale.yml"), &mut errors)?;
    let colophon = cfg.colophon_rows(&mut errors);
    let index = cfg.index(dir, &mut warnings);
    cfg.warn_not_honoured(dir, &mut warnings);
    let mut chapters = cfg.catalog(dir, &contentdir, &mut errors)?;
    let mut generated = cfg.generated_pages();
    let pages = cfg.static_pages(dir, generated, &mut errors, &mut warnings);
    add_static_pages(&mut chapters, &mut generated, pages);

    if !errors.is_empty() {
        return Err(Error::Book(errors));
    }
    let id = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "book".into());
    let toc_depth = cfg
        .get("toclevel")
        .and_then(Value::as_u64)
        .map_or(3, |n| n as u8)
        .clamp(1, 6);
    let secnolevel = cfg
        .get("secnolevel")
        .and_then(Value::as_u64)
        .map_or(2, |n| n.min(6) as u8);
    let book = Book {
        id,
        root: dir.to_path_buf(),
        config_path: cfg.shown.clone(),
        meta,
        chapters,
        cover,
        stylesheets,
        toc_depth: toc_depth.max(1),
        secnolevel,
        docbook: None,
        given: Default::default(),
        filters: None,
        checks: Default::default(),
        shared_dirs: Vec::new(),
        catalogs: Default::default(),
        colophon: Some(colophon),
        generated,
        locale: crate::i18n::Locale {
            style: crate::i18n::Style::Review,
            overrides: std::sync::Arc::new(locale),
        },
        index,
        typography: Default::default(),
        accessibility: Default::default(),
        fonts: Default::default(),
        review: Some(ReviewSettings {
            imagedir,
            words,
            draft: cfg.get("draft").and_then(Value::as_bool).unwrap_or(false),
            tabwidth: cfg
                .get("tabwidth")
                .and_then(Value::as_u64)
                .map_or(8, |n| n as usize),
            join_lines_by_lang: cfg
                .get("join_lines_by_lang")
                .is_some_and(|v| v.as_bool() == Some(true)),
            extension_blocks: std::fs::read(dir.join("review-ext.rb"))
                .map(|b| extension_blocks(&String::from_utf8_lossy(&b)))
                .unwrap_or_default(),
        }),
    };
    let _ = project;
    Ok((book, warnings))
}

/// A file name to show in a hint about `page`'s key.
fn example_name(page: StaticPage) -> &'static str {
    match page {
        StaticPage::TitlePage => "title",
        StaticPage::OriginalTitle => "original",
        StaticPage::Credit => "credit",
        StaticPage::Profile => "profile",
        StaticPage::Advertisement => "ad",
        StaticPage::Colophon => "colophon",
        StaticPage::BackCover => "backcover",
    }
}

/// Puts the book's own pages where Re:VIEW puts them — the title page, the original's title
/// page and the credits before the chapters; the profile, advertisements, colophon and back
/// cover after them — in place of the generated title page and colophon they stand for. A
/// colophon file makes the colophon whatever `colophon:` said of generating one.
fn add_static_pages(
    chapters: &mut Vec<ChapterSource>,
    generated: &mut GeneratedPages,
    pages: Vec<ChapterSource>,
) {
    let (front, back): (Vec<_>, Vec<_>) = pages
        .into_iter()
        .partition(|p| p.page.is_some_and(StaticPage::is_front));
    for p in front.iter().chain(&back) {
        match p.page {
            Some(StaticPage::TitlePage) => generated.title_page = false,
            Some(StaticPage::Colophon) => generated.colophon = false,
            _ => {}
        }
    }
    chapters.splice(0..0, front);
    chapters.extend(back);
}

/// The book's `locale.yml` (Re:VIEW's message overrides), by language: either `locale: ja`
/// with keys beside it, or a mapping of keys under each language. Keys seihon does not show
/// (Re:VIEW's command-line messages, which `review-init -l` copies in) are left alone; a value
/// for one it shows must be text.
pub fn locale_file(path: &Path, errors: &mut Vec<Finding>) -> Result<crate::i18n::Overrides> {
    let mut out = crate::i18n::Overrides::new();
    if !path.is_file() {
        return Ok(out);
    }
    let shown = display_path(Path::new("."), path);
    let (value, text) = read_yaml(path, &shown)?;
    let Value::Object(top) = value else {
        errors.push(Finding::error(
            codes::SETTINGS_SYNTAX,
            Location::file(&shown),
            "locale.yml must map keys to their words (`chapter: 第%pJ章`), or languages to such maps",
        ));
        return Ok(out);
    };
    let shown_keys: std::collections::HashSet<&str> =
        crate::i18n::Msg::ALL.iter().map(|m| m.key()).collect();
    let mut take = |lang: &str, map: &serde_json::Map<String, Value>, errors: &mut Vec<Finding>| {
        let words = out.entry(lang.to_string()).or_default();
        for (k, v) in map {
            if !shown_keys.contains(k.as_str()) {
                continue;
            }
            match v {
                Value::String(s) => {
                    words.insert(k.clone(), s.clone());
                }
                Value::Number(n) => {
                    words.insert(k.clone(), n.to_string());
                }
                other => errors.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        key_location(&text, &shown, k),
                        format!(
                            "`{k}` must be text (the words seihon shows), but {}",
                            shape(other)
                        ),
                    )
                    .with_hint(format!("write it as text, e.g. `{k}: \"…\"`")),
                ),
            }
        }
    };
    match top.get("locale") {
        Some(Value::String(lang)) => take(lang, &top, errors),
        Some(other) => errors.push(Finding::error(
            codes::BAD_VALUE,
            key_location(&text, &shown, "locale"),
            format!(
                "`locale` must name a language (`locale: ja`), but {}",
                shape(other)
            ),
        )),
        None => {
            for (lang, v) in &top {
                match v {
                    Value::Object(map) => take(lang, map, errors),
                    other => errors.push(
                        Finding::error(
                            codes::SETTINGS_SYNTAX,
                            key_location(&text, &shown, lang),
                            format!("`{lang}` must be a language with its words under it, but {}", shape(other)),
                        )
                        .with_hint("write `locale: ja` first and the words beside it, or put the words under their language (`ja:`)"),
                    ),
                }
            }
        }
    }
    Ok(out)
}

/// A book's config as an EPUB is built from it: the files it inherits merged in and
/// `epubmaker:` applied, with the text of the book's own file to find keys in for messages.
struct Config {
    values: Value,
    /// The book's own config file, as written.
    text: String,
    /// Its path, for messages.
    shown: PathBuf,
}

impl Config {
    /// Reads `config` (relative to `dir`) and what it inherits; warnings about their keys go to
    /// `warnings`.
    fn read(dir: &Path, config: &Path, warnings: &mut Vec<Finding>) -> Result<Config> {
        let mut texts = Vec::new();
        let mut found = Vec::new();
        let mut values = load_config(dir, config, None, &mut Vec::new(), &mut texts, &mut found)?;
        // A key written in the book's file and in a file it inherits is warned about once, at
        // the book's own line (checked first).
        let mut seen = HashSet::new();
        warnings.extend(found.into_iter().filter(|f| seen.insert(f.message.clone())));
        // `epubmaker:` settings override the top level when building an EPUB.
        if let Some(epub) = values.get("epubmaker").cloned().filter(Value::is_object) {
            merge(&mut values, epub);
        }
        Ok(Config {
            values,
            // The book's own file is read last, after the files it inherits.
            text: texts.pop().map(|(_, t)| t).unwrap_or_default(),
            shown: display_path(Path::new("."), &dir.join(config)),
        })
    }

    /// The key's value, `epubmaker:` applied.
    fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key)
    }

    /// The key's value as one trimmed, non-empty string.
    fn string(&self, key: &str) -> Option<String> {
        string(self.get(key))
    }

    /// Where `key:` is written in the book's own config file.
    fn at(&self, key: &str) -> Location {
        key_location(&self.text, &self.shown, key)
    }

    /// Names of the wrong shape would silently leave the metadata: said at their line, as in
    /// book.yml.
    fn check_names(&self, errors: &mut Vec<Finding>) {
        let name_keys = ["booktitle", "subtitle", "pbl", "a-pbl"]
            .into_iter()
            .map(String::from)
            .chain(ROLES.iter().flat_map(|r| [r.to_string(), format!("a-{r}")]));
        for key in name_keys {
            if let Some(v) = self.get(&key).filter(|v| !is_names(v)) {
                errors.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        self.at(&key),
                        format!("`{key}:` is not a name or a list of names ({})", shape(v)),
                    )
                    .with_hint(format!("write `{key}: 山田太郎`, `{key}: [山田太郎, 佐藤花子]` or `{key}: {{name: 山田太郎, file-as: ヤマダタロウ}}`")),
                );
            }
        }
    }

    /// A `bookname:` that is not one name (a mapping, a list, true or false) is an error: it
    /// names the book's EPUB.
    fn check_bookname(&self, errors: &mut Vec<Finding>) {
        if let Some(v) = self
            .get("bookname")
            .filter(|v| !(v.is_string() || v.is_number() || v.is_null()))
        {
            errors.push(
                Finding::error(
                    codes::BAD_VALUE,
                    self.at("bookname"),
                    format!("`bookname:` is not a name ({})", shape(v)),
                )
                .with_hint("write `bookname: my-book`: it names the book's EPUB (my-book.epub)"),
            );
        }
    }

    /// `booktitle`, or (with a warning) Re:VIEW's default title.
    fn title(&self, warnings: &mut Vec<Finding>) -> String {
        let (title, _) = self
            .get("booktitle")
            .map(names)
            .and_then(|n| n.into_iter().next())
            .unwrap_or_else(|| {
                warnings.push(Finding::warning(
                    codes::DEFAULT_USED,
                    self.at("booktitle"),
                    "this book has no `booktitle`; using Re:VIEW's default title",
                ));
                ("Re:VIEW Sample Book".into(), None)
            });
        title
    }

    /// `language` (default `ja`); one that is not a BCP 47 tag is an error at its line.
    fn language(&self, errors: &mut Vec<Finding>) -> String {
        let language = self.string("language").unwrap_or_else(|| "ja".into());
        if !super::is_language_tag(&language) {
            errors.push(
                Finding::error(
                    codes::BAD_VALUE,
                    self.at("language"),
                    format!("`{language}` is not a language tag"),
                )
                .with_hint("write a BCP 47 tag such as `ja`, `en` or `en-US`"),
            );
        }
        language
    }

    /// The levels and widths must be whole numbers: anything else is an error at its line.
    fn check_numbers(&self, errors: &mut Vec<Finding>) {
        for key in ["secnolevel", "toclevel", "tabwidth"] {
            if self
                .get(key)
                .is_some_and(|v| !v.is_null() && v.as_u64().is_none())
            {
                errors.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        self.at(key),
                        format!("`{key}` must be a whole number"),
                    )
                    .with_hint(format!("write e.g. `{key}: 2`")),
                );
            }
        }
    }

    /// The book's metadata besides its title and language (already read and checked).
    fn metadata(&self, title: String, language: String, errors: &mut Vec<Finding>) -> Metadata {
        let publisher = ["pbl", "a-pbl"]
            .iter()
            .find_map(|k| self.get(k).map(names).and_then(|n| n.into_iter().next()))
            .map(|(n, _)| n);
        let creators = self.creators();
        let date = self.date(errors);
        let rights = self
            .get("rights")
            .map(strings)
            .filter(|r| !r.is_empty())
            .map(|r| r.join(" "));
        let isbn = self.isbn(errors);
        let identifier = match (self.string("urnid"), &isbn) {
            (Some(urn), _) => urn,
            (None, Some(isbn)) => format!("urn:isbn:{}", isbn.replace(['-', ' '], "")),
            (None, None) => {
                let seed = format!("seihon:review:{title}");
                format!(
                    "urn:uuid:{}",
                    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, seed.as_bytes())
                )
            }
        };
        let direction = match self.string("direction").as_deref() {
            Some("rtl") => Direction::Rtl,
            _ => Direction::Ltr,
        };
        // Vertical writing in Re:VIEW is CSS plus `direction: rtl`; the rtl spine implies it.
        let writing = if direction == Direction::Rtl {
            Writing::Vertical
        } else {
            Writing::Horizontal
        };
        Metadata {
            title,
            subtitle: self.string("subtitle"),
            language,
            identifier,
            creators,
            publisher,
            date,
            history: history(self.get("history")),
            isbn,
            // seihon's own keys, as in book.yml (Re:VIEW has none for the page list).
            print_isbn: self.checked("print_isbn", super::valid_isbn, errors),
            page_source: self.checked("page_source", super::valid_page_source, errors),
            rights,
            description: self.string("description"),
            subjects: (self.get("subject").map(strings).unwrap_or_default().iter())
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            series: None,
            writing,
            direction,
        }
    }

    /// The people of each role, in Re:VIEW's colophon order, `a-` keys first.
    fn creators(&self) -> Vec<Creator> {
        let mut creators = Vec::new();
        for role in ROLES {
            for key in [format!("a-{role}"), role.to_string()] {
                for (name, file_as) in self.get(&key).map(names).unwrap_or_default() {
                    creators.push(Creator {
                        name,
                        role: role.to_string(),
                        file_as,
                        ..Default::default()
                    });
                }
            }
        }
        creators
    }

    /// The pages Re:VIEW generates: a title page unless `titlepage:` is false or null, a
    /// colophon only when `colophon:` asks for one (true, or a file, which seihon does not
    /// copy: it generates the colophon, and says so).
    fn generated_pages(&self) -> GeneratedPages {
        let wanted = |key: &str, default: bool| match self.get(key) {
            None => default,
            Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => true,
        };
        GeneratedPages {
            title_page: wanted("titlepage", true),
            colophon: wanted("colophon", false),
        }
    }

    /// The pages the book gives as XHTML files of its own (`titlefile:`, `profile:`, …, and
    /// `colophon:` naming a file), each found in the book folder; a missing one is a warning
    /// and the book is made without it. The title page's file is taken only when there is a
    /// title page (`titlepage:`); Re:VIEW's obsolete `titlepagefile:` and `backcoverfile:`
    /// (the page's body only) stand for `titlefile:` and `backcover:`.
    fn static_pages(
        &self,
        dir: &Path,
        generated: GeneratedPages,
        errors: &mut Vec<Finding>,
        warnings: &mut Vec<Finding>,
    ) -> Vec<ChapterSource> {
        let mut pages = Vec::new();
        for (page, key) in StaticPage::ALL {
            let legacy = match page {
                StaticPage::TitlePage => Some("titlepagefile"),
                StaticPage::BackCover => Some("backcoverfile"),
                _ => None,
            };
            let Some((key, value)) = std::iter::once(key)
                .chain(legacy)
                .find_map(|k| self.get(k).filter(|v| !v.is_null()).map(|v| (k, v)))
            else {
                continue;
            };
            let file = match value {
                Value::String(f) if !f.trim().is_empty() => f.trim(),
                // `colophon: true` asks for the generated one.
                Value::Bool(_) if page == StaticPage::Colophon => continue,
                _ => {
                    errors.push(
                        Finding::error(
                            codes::BAD_VALUE,
                            self.at(key),
                            format!("`{key}:` names a file, and this is not a file name"),
                        )
                        .with_hint(format!("write the XHTML file's path in the book folder, such as `{key}: {}.html`", example_name(page))),
                    );
                    continue;
                }
            };
            if page == StaticPage::TitlePage && !generated.title_page {
                warnings.push(
                    Finding::warning(
                        codes::STATIC_PAGE,
                        self.at(key),
                        format!("the book has no title page (`titlepage:` is off), so `{file}` is not used"),
                    )
                    .with_hint("set `titlepage: true` to have this file as the title page"),
                );
                continue;
            }
            let rel = PathBuf::from(file);
            match check_book_file(dir, &rel) {
                Ok(path) => pages.push(ChapterSource {
                    rel,
                    path,
                    role: if page.is_front() {
                        Role::Front
                    } else {
                        Role::Back
                    },
                    format: Format::Xhtml,
                    part_title: None,
                    page: Some(page),
                    division: None,
                }),
                Err(why) => {
                    let instead = if page.replaces_generated() {
                        "seihon makes its own in its place"
                    } else {
                        "the book is made without it"
                    };
                    warnings.push(
                        Finding::warning(
                            codes::STATIC_PAGE,
                            self.at(key),
                            format!("the page `{file}` named by `{key}:` {why}; {instead}"),
                        )
                        .with_hint("write the path of an XHTML file in the book folder, relative to config.yml"),
                    );
                }
            }
        }
        pages
    }

    /// The colophon's lines as Re:VIEW makes them: for each role of `colophon_order` (its
    /// default when not given), the names of that role's own key (`pbl:`, not `a-pbl:`), and
    /// `contact:`; a role with no names is left out.
    fn colophon_rows(&self, errors: &mut Vec<Finding>) -> Vec<ColophonRow> {
        let order: Vec<String> = match self.get("colophon_order") {
            None | Some(Value::Null) => COLOPHON_ORDER.iter().map(|r| r.to_string()).collect(),
            Some(Value::Array(roles)) if roles.iter().all(Value::is_string) => {
                strings(&Value::Array(roles.clone()))
            }
            Some(other) => {
                errors.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        self.at("colophon_order"),
                        format!("`colophon_order` must list roles, but {}", shape(other)),
                    )
                    .with_hint("write e.g. `colophon_order: [\"aut\", \"edt\", \"pbl\", \"prt\"]`"),
                );
                return Vec::new();
            }
        };
        order
            .into_iter()
            .filter_map(|role| {
                let names: Vec<String> = match role.as_str() {
                    "contact" => self.get("contact").map(strings).unwrap_or_default(),
                    r => self
                        .get(r)
                        .map(names)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(n, _)| n)
                        .collect(),
                };
                (!names.is_empty()).then_some(ColophonRow { role, names })
            })
            .collect()
    }

    /// `date`, as written; one that is not `YYYY-MM-DD` is an error at its line.
    fn date(&self, errors: &mut Vec<Finding>) -> Option<String> {
        let d = self.string("date")?;
        match super::checked_date(&d, self.at("date")) {
            Ok(_) => Some(d),
            Err(f) => {
                errors.push(f);
                None
            }
        }
    }

    /// A string setting checked by `check`; a wrong one is an error at its line.
    fn checked(
        &self,
        key: &str,
        check: fn(&str, Location) -> Result<String, Finding>,
        errors: &mut Vec<Finding>,
    ) -> Option<String> {
        let value = self.string(key)?;
        check(&value, self.at(key)).map_err(|f| errors.push(f)).ok()
    }

    /// `isbn`, its check digit checked; a wrong one is an error at its line.
    fn isbn(&self, errors: &mut Vec<Finding>) -> Option<String> {
        let i = self.string("isbn")?;
        super::valid_isbn(&i, self.at("isbn"))
            .map_err(|f| errors.push(f))
            .ok()
    }

    /// `coverimage` in the image folder, checked; without one (or with a bad one, an error at
    /// its line) the cover is generated.
    fn cover(&self, dir: &Path, imagedir: &Path, errors: &mut Vec<Finding>) -> Cover {
        let Some(file) = self.string("coverimage") else {
            return Cover::Generated;
        };
        let rel = imagedir.join(&file);
        match check_book_file(dir, &rel) {
            Ok(_) => Cover::Image(rel),
            Err(why) => {
                errors.push(
                    Finding::error(
                        codes::COVER_IMAGE,
                        self.at("coverimage"),
                        format!("the cover image `{}` {why}", rel.display()),
                    )
                    .with_hint("put the image in the image folder, or remove `coverimage:` to have a cover generated"),
                );
                Cover::Generated
            }
        }
    }

    /// The `stylesheet` files that exist and are CSS; a missing one, or one in another
    /// language (SCSS, Less: Re:VIEW packs it as it is, and no reader can use it), is only a
    /// warning.
    fn stylesheets(&self, dir: &Path, warnings: &mut Vec<Finding>) -> Vec<PathBuf> {
        let mut stylesheets = Vec::new();
        for css in self.get("stylesheet").map(strings).unwrap_or_default() {
            let rel = PathBuf::from(&css);
            let is_css = rel
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("css"));
            match check_book_file(dir, &rel) {
                Ok(_) if is_css => stylesheets.push(rel),
                Ok(_) => warnings.push(
                    Finding::warning(
                        codes::MISSING_STYLESHEET,
                        self.at("stylesheet"),
                        format!("the style sheet `{css}` is not CSS; the book is built without it"),
                    )
                    .with_hint(
                        "compile it to CSS first (SCSS: `sass style.scss style.css`) and name the .css file here",
                    ),
                ),
                Err(why) => warnings.push(Finding::warning(
                    codes::MISSING_STYLESHEET,
                    self.at("stylesheet"),
                    format!("the style sheet `{css}` {why}; the book is built without it"),
                )),
            }
        }
        stylesheets
    }

    /// The `@<w>` dictionary from the `words_file` CSV files (`key,value` a line); a file that
    /// cannot be read is only a warning.
    fn words(&self, dir: &Path, warnings: &mut Vec<Finding>) -> HashMap<String, String> {
        let mut words = HashMap::new();
        for file in self.get("words_file").map(strings).unwrap_or_default() {
            match check_book_file(dir, Path::new(&file))
                .ok()
                .and_then(|p| std::fs::read_to_string(p).ok())
            {
                Some(text) => {
                    for line in text.lines() {
                        if let Some((k, v)) = line.split_once(',') {
                            words.insert(
                                k.trim().trim_matches('"').to_string(),
                                v.trim().trim_matches('"').to_string(),
                            );
                        }
                    }
                }
                None => warnings.push(Finding::warning(
                    codes::MISSING_FILE,
                    self.at("words_file"),
                    format!("the words file `{file}` cannot be read"),
                )),
            }
        }
        words
    }

    /// The index: made unless `makeindex: false`, its terms read by the `makeindex_dic`
    /// dictionary (Re:VIEW's keys under `pdfmaker:`, where `epubmaker:` may override them). A
    /// dictionary that cannot be read is only a warning.
    fn index(&self, dir: &Path, warnings: &mut Vec<Finding>) -> crate::book::index::IndexSettings {
        let key = |key: &str| {
            ["epubmaker", "pdfmaker"]
                .iter()
                .find_map(|maker| self.get(maker).and_then(|m| m.get(key)))
        };
        let mut index = crate::book::index::IndexSettings {
            // Re:VIEW makes its (PDF) index only when asked; an EPUB gets one whenever the
            // book marks terms, unless the book says no.
            enabled: key("makeindex").and_then(Value::as_bool) != Some(false),
            ..Default::default()
        };
        let Some(file) = key("makeindex_dic").and_then(|v| string(Some(v))) else {
            return index;
        };
        if !index.enabled {
            return index;
        }
        let rel = PathBuf::from(&file);
        let text = check_book_file(dir, &rel).and_then(|p| {
            let bytes = std::fs::read(p).map_err(|_| "cannot be read")?;
            String::from_utf8(bytes).map_err(|_| "is not UTF-8 text")
        });
        match text {
            Ok(text) => {
                index.readings = crate::book::index::parse_dictionary(&text);
                index.dictionary = Some(rel);
            }
            Err(why) => warnings.push(
                Finding::warning(
                    codes::MISSING_FILE,
                    self.at("makeindex_dic"),
                    format!("the index dictionary `{file}` {why}"),
                )
                .with_hint("the index sorts its terms as they are written; a dictionary has a `term<TAB>reading` line for each term"),
            ),
        }
        index
    }

    /// Settings and extensions seihon cannot honour: a warning each, never a silent change of
    /// output.
    fn warn_not_honoured(&self, dir: &Path, warnings: &mut Vec<Finding>) {
        // `mathml` is what seihon makes whatever the setting (and what it makes of no setting).
        if self.string("math_format").as_deref() == Some("imgmath") {
            warnings.push(Finding::warning(
                codes::NOT_HONOURED,
                self.at("math_format"),
                "`math_format: imgmath` needs LaTeX to render equations as images, which seihon does not run; equations become MathML instead",
            ));
        }
        if self.string("math_format").as_deref() == Some("mathjax") {
            warnings.push(Finding::warning(
                codes::NOT_HONOURED,
                self.at("math_format"),
                "`math_format: mathjax` loads a script from the web, which an EPUB must not; equations become MathML instead",
            ));
        }
        if dir.join("review-ext.rb").is_file() {
            warnings.push(Finding::warning(
                codes::UNSUPPORTED,
                Location::file(display_path(Path::new("."), &dir.join("review-ext.rb"))),
                "this book's review-ext.rb (Ruby extensions to Re:VIEW) is not run by seihon; its changes to the output are not made",
            ));
        }
    }

    /// Reads the catalog (`catalogfile`, default `catalog.yml`) into the book's chapters; its
    /// mistakes go to `errors`, a file that is not YAML fails the load.
    fn catalog(
        &self,
        dir: &Path,
        contentdir: &Path,
        errors: &mut Vec<Finding>,
    ) -> Result<Vec<ChapterSource>> {
        let catalog_path = dir.join(
            self.string("catalogfile")
                .unwrap_or_else(|| "catalog.yml".into()),
        );
        let catalog_shown = display_path(Path::new("."), &catalog_path);
        let (catalog, catalog_text) = read_yaml(&catalog_path, &catalog_shown)?;
        Ok(chapters(
            dir,
            contentdir,
            &catalog,
            &catalog_text,
            &catalog_shown,
            errors,
        ))
    }
}

/// Re:VIEW history: editions × printings, each `"YYYY-MM-DD"` or `"YYYY-MM-DD free text"`.
fn history(v: Option<&Value>) -> Vec<HistoryEntry> {
    let Some(Value::Array(editions)) = v else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (e, edition) in editions.iter().enumerate() {
        for (p, printing) in strings(edition).into_iter().enumerate() {
            let (date, rest) = match printing.split_once(char::is_whitespace) {
                Some((d, rest)) if super::Date::parse(d).is_some() => {
                    (d.to_string(), rest.trim().to_string())
                }
                _ if super::Date::parse(&printing).is_some() => (printing.clone(), String::new()),
                _ => (String::new(), printing.clone()),
            };
            let text = if !rest.is_empty() {
                rest
            } else if e == 0 {
                format!("初版第{}刷発行", p + 1)
            } else {
                format!("第{}版第{}刷発行", e + 1, p + 1)
            };
            out.push(HistoryEntry { date, text });
        }
    }
    out
}

/// The catalog's files in reading order with their roles; parts become part pages.
fn chapters(
    dir: &Path,
    contentdir: &Path,
    catalog: &Value,
    text: &str,
    shown: &Path,
    errors: &mut Vec<Finding>,
) -> Vec<ChapterSource> {
    let mut files = CatalogFiles::new(dir, contentdir, text, shown);
    let list = |key: &str| -> Vec<Value> {
        catalog
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    files.add_all(list("PREDEF"), Role::Front, errors);
    check_catalog_keys(catalog, text, shown, errors);
    files.add_chaps(list("CHAPS"), errors);
    files.add_all(list("APPENDIX"), Role::Appendix, errors);
    files.add_all(list("POSTDEF"), Role::Back, errors);
    let out = files.out;
    if out.is_empty() && errors.is_empty() {
        let loc = key_location(text, shown, "CHAPS");
        errors.push(
            Finding::error(codes::CHAPTER_FILE, loc, "the catalog lists no chapters")
                .with_hint("list the chapters under `CHAPS:`, one `  - ch01.re` a line"),
        );
    }
    out
}

/// The catalog's keys: only PREDEF, CHAPS, APPENDIX and POSTDEF, each a list, CHAPS present.
fn check_catalog_keys(catalog: &Value, text: &str, shown: &Path, errors: &mut Vec<Finding>) {
    const KEYS: [&str; 4] = ["PREDEF", "CHAPS", "APPENDIX", "POSTDEF"];
    for key in catalog.as_object().into_iter().flat_map(|o| o.keys()) {
        if !KEYS.contains(&key.as_str()) {
            errors.push(
                Finding::error(
                    codes::UNKNOWN_KEY,
                    key_location(text, shown, key),
                    format!("unknown key `{key}` in the catalog"),
                )
                .with_hint("the catalog's keys are PREDEF, CHAPS, APPENDIX and POSTDEF"),
            );
        }
    }
    for key in KEYS {
        if catalog
            .get(key)
            .is_some_and(|v| !v.is_null() && !v.is_array())
        {
            errors.push(
                Finding::error(
                    codes::BAD_VALUE,
                    key_location(text, shown, key),
                    format!("`{key}:` must be a list of .re files"),
                )
                .with_hint(format!(
                    "write one file a line under `{key}:`, as `  - ch01.re`"
                )),
            );
        }
    }
    if catalog.get("CHAPS").is_none() {
        errors.push(
            Finding::error(
                codes::MISSING_KEY,
                Location::new(shown, 1, 1),
                "the catalog has no `CHAPS:` list",
            )
            .with_hint("list the chapters under `CHAPS:`"),
        );
    }
}

/// The chapters of a catalog, gathered in reading order, each file checked as it is added.
struct CatalogFiles<'a> {
    dir: &'a Path,
    contentdir: &'a Path,
    /// The catalog as written, and its path, for messages.
    text: &'a str,
    shown: &'a Path,
    // Each chapter is looked up once (a catalog may list 100,000): a set for the duplicate
    // check, the book folder's real path found once, and a line searched for only when it is
    // reported.
    seen: HashSet<PathBuf>,
    real_root: PathBuf,
    real_dirs: crate::book::RealDirs,
    out: Vec<ChapterSource>,
}

impl<'a> CatalogFiles<'a> {
    /// No chapters yet, for the book in `dir` with its chapters in `contentdir`.
    fn new(dir: &'a Path, contentdir: &'a Path, text: &'a str, shown: &'a Path) -> Self {
        CatalogFiles {
            dir,
            contentdir,
            text,
            shown,
            seen: HashSet::new(),
            real_root: dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()),
            real_dirs: crate::book::RealDirs::default(),
            out: Vec::new(),
        }
    }

    /// Adds the files of each catalog entry (a file or a list of files), all with `role`.
    fn add_all(&mut self, entries: Vec<Value>, role: Role, errors: &mut Vec<Finding>) {
        for v in entries {
            for f in strings(&v) {
                self.add(&f, role, errors);
            }
        }
    }

    /// Adds CHAPS: chapters, and parts (`{title or file.re: [chapters]}`), each part page
    /// before its chapters.
    fn add_chaps(&mut self, entries: Vec<Value>, errors: &mut Vec<Finding>) {
        let mut parts = 0;
        for v in entries {
            match v {
                Value::Object(part) => {
                    for (title, members) in part {
                        parts += 1;
                        if title.ends_with(".re") {
                            self.add(&title, Role::Part, errors);
                        } else {
                            self.out.push(ChapterSource {
                                rel: PathBuf::from(format!("part_{parts}")),
                                path: PathBuf::new(),
                                role: Role::Part,
                                format: Format::Review,
                                part_title: Some(title.clone()),
                                page: None,
                                division: None,
                            });
                        }
                        for f in strings(&members) {
                            self.add(&f, Role::Body, errors);
                        }
                    }
                }
                other => {
                    for f in strings(&other) {
                        self.add(&f, Role::Body, errors);
                    }
                }
            }
        }
    }

    /// Adds one listed file; one that is missing, not a .re file or listed twice is an error
    /// at its line.
    fn add(&mut self, file: &str, role: Role, errors: &mut Vec<Finding>) {
        // `contentdir: .` must not show up as `./ch01.re` in messages.
        let rel: PathBuf = self
            .contentdir
            .join(file.trim())
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
        let (text, shown) = (self.text, self.shown);
        let found = crate::book::check_book_file_in(
            self.dir,
            &self.real_root,
            &[],
            &rel,
            &mut self.real_dirs,
        );
        match found {
            Ok(found) if rel.extension().is_some_and(|e| e == "re") => {
                if !self.seen.insert(rel.clone()) {
                    let again = nth_line_of(text, shown, file.trim(), 1);
                    errors.push(Finding::error(
                        codes::CHAPTER_FILE,
                        if again.line > 0 {
                            again
                        } else {
                            self.location(file)
                        },
                        format!(
                            "`{file}` is listed twice in the catalog (first at line {})",
                            line_of(text, shown, file.trim()).line
                        ),
                    ));
                } else {
                    self.out.push(ChapterSource {
                        rel,
                        path: found.path,
                        role,
                        format: Format::Review,
                        part_title: None,
                        page: None,
                        division: None,
                    });
                }
            }
            Ok(_) => errors.push(Finding::error(
                codes::CHAPTER_FILE,
                self.location(file),
                format!("`{file}` is not a .re file"),
            )),
            Err(why) => errors.push(Finding::error(
                codes::CHAPTER_FILE,
                self.location(file),
                format!("the chapter file `{}` {why}", rel.display()),
            )),
        }
    }

    /// Where a listed file is written in the catalog: as a key (a part's file), else its line.
    fn location(&self, file: &str) -> Location {
        let loc = key_location(self.text, self.shown, file.trim());
        if loc.line == 0 {
            line_of(self.text, self.shown, file.trim())
        } else {
            loc
        }
    }
}

/// The line where `needle` first appears in `text` (catalog entries are list items).
fn line_of(text: &str, shown: &Path, needle: &str) -> Location {
    nth_line_of(text, shown, needle, 0)
}

/// The line of the line (0-based `n`th) holding `needle`.
fn nth_line_of(text: &str, shown: &Path, needle: &str, n: usize) -> Location {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let col = line.find(needle)?;
            Some(Location::new(
                shown,
                i as u32 + 1,
                line[..col].chars().count() as u32 + 1,
            ))
        })
        .nth(n)
        .unwrap_or_else(|| Location::file(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A colophon shows a role with no word by its MARC term: every role Re:VIEW takes has one.
    #[test]
    fn every_role_review_takes_has_a_marc_term() {
        for role in ROLES {
            assert!(super::super::relator_term(role).is_some(), "{role}");
        }
    }

    #[test]
    fn review_ext_rb_block_names() {
        let ruby = "module ReVIEW\n  class Compiler\n    defblock :imagetalkl, 2..3\n    defblock(:imagetalkr, 2..3)\n    defsingle :pagebreakforce, 0\n    ReVIEW::Compiler.defminicolumn('question', 0..1)\n  end\n  def block_talk; end\nend\n";
        assert_eq!(
            extension_blocks(ruby),
            ["imagetalkl", "imagetalkr", "pagebreakforce", "question"]
        );
    }

    #[test]
    fn history_of_editions_and_printings() {
        let v: Value = serde_json::json!([["2017-09-30", "2018-10-16 改訂"], ["2019-01-01"]]);
        let h = history(Some(&v));
        assert_eq!(
            h[0],
            HistoryEntry {
                date: "2017-09-30".into(),
                text: "初版第1刷発行".into()
            }
        );
        assert_eq!(
            h[1],
            HistoryEntry {
                date: "2018-10-16".into(),
                text: "改訂".into()
            }
        );
        assert_eq!(
            h[2],
            HistoryEntry {
                date: "2019-01-01".into(),
                text: "第2版第1刷発行".into()
            }
        );
    }

    #[test]
    fn inherit_merges_deeply_and_later_wins() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("base.yml"),
            "booktitle: Base\nepubmaker:\n  htmlext: html\n  toc: true\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("config.yml"),
            "inherit: [base.yml]\nepubmaker:\n  htmlext: xhtml\n",
        )
        .unwrap();
        let v = load_config(
            dir.path(),
            Path::new("config.yml"),
            None,
            &mut Vec::new(),
            &mut Vec::new(),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(v["booktitle"], "Base");
        assert_eq!(v["epubmaker"]["htmlext"], "xhtml");
        assert_eq!(v["epubmaker"]["toc"], true);
    }

    #[test]
    fn a_settings_file_read_again_is_parsed_again_only_when_its_text_changed() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.yml");
        let load = |found: &mut Vec<Finding>| {
            load_config(
                dir.path(),
                Path::new("config.yml"),
                None,
                &mut Vec::new(),
                &mut Vec::new(),
                found,
            )
        };
        std::fs::write(&config, "bookname: first\nunknown_key: 1\n").unwrap();
        let (mut once, mut twice) = (Vec::new(), Vec::new());
        assert_eq!(load(&mut once).unwrap()["bookname"], "first");
        assert!(!once.is_empty(), "the unknown key is a finding");
        // Read from the memo: the same value and the same findings about the file.
        assert_eq!(load(&mut twice).unwrap()["bookname"], "first");
        assert_eq!(format!("{once:?}"), format!("{twice:?}"));
        // Edited (same length, same second): what the new text says.
        std::fs::write(&config, "bookname: other\nunknown_key: 1\n").unwrap();
        assert_eq!(load(&mut Vec::new()).unwrap()["bookname"], "other");
        std::fs::write(&config, "bookname: [not, valid\n").unwrap();
        assert!(load(&mut Vec::new()).is_err());
    }

    #[test]
    fn inherit_loop_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yml"), "inherit: [b.yml]\n").unwrap();
        std::fs::write(dir.path().join("b.yml"), "inherit: [a.yml]\n").unwrap();
        let err = load_config(
            dir.path(),
            Path::new("a.yml"),
            None,
            &mut Vec::new(),
            &mut Vec::new(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("loop"), "{err}");
        // Reported at the `inherit:` line of b.yml, which closes the loop.
        assert!(err.to_string().contains("b.yml:1:1"), "{err}");
    }

    /// A book folder with this config.yml, one chapter, and `extra` files.
    fn project(config: &str, extra: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.yml"), config).unwrap();
        std::fs::write(dir.path().join("catalog.yml"), "CHAPS:\n  - ch01.re\n").unwrap();
        std::fs::write(dir.path().join("ch01.re"), "= One\n").unwrap();
        for (name, text) in extra {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn load_book(dir: &Path) -> Result<Book> {
        load(dir, Path::new("config.yml"), &ProjectConfig::default()).map(|(b, _)| b)
    }

    #[test]
    fn description_and_subjects_are_read() {
        let dir = project(
            "booktitle: T\ndescription: \" About it. \"\nsubject: [Computers, \" \", Printing]\n",
            &[],
        );
        let meta = load_book(dir.path()).unwrap().meta;
        assert_eq!(meta.description.as_deref(), Some("About it."));
        assert_eq!(meta.subjects, ["Computers", "Printing"]);
        let dir = project("booktitle: T\nsubject: Computers\n", &[]);
        let meta = load_book(dir.path()).unwrap().meta;
        assert_eq!(meta.subjects, ["Computers"]);
        assert_eq!(meta.description, None);
    }

    #[test]
    fn colophon_follows_colophon_order_with_each_roles_own_key() {
        let dir = project(
            "booktitle: T\naut: [A1, A2]\na-pbl: Creator Press\npbl: Press\nprt: Printer Co\n\
             pht: Photo\ncontact: mail@example.org\ncolophon_order: [prt, aut, contact, pht]\n",
            &[],
        );
        let book = load_book(dir.path()).unwrap();
        let rows = book.colophon.unwrap();
        let got: Vec<(&str, Vec<&str>)> = rows
            .iter()
            .map(|r| {
                (
                    r.role.as_str(),
                    r.names.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("prt", vec!["Printer Co"]),
                ("aut", vec!["A1", "A2"]),
                ("contact", vec!["mail@example.org"]),
                ("pht", vec!["Photo"]),
            ]
        );
        // Every role goes into the package document, `a-` ones included.
        let roles: Vec<&str> = book.meta.creators.iter().map(|c| c.role.as_str()).collect();
        assert!(roles.contains(&"pht") && roles.iter().filter(|r| **r == "pbl").count() == 2);
        // The default order leaves out what it does not list.
        let dir = project("booktitle: T\naut: A\npht: Photo\npbl: Press\n", &[]);
        let rows = load_book(dir.path()).unwrap().colophon.unwrap();
        let roles: Vec<&str> = rows.iter().map(|r| r.role.as_str()).collect();
        assert_eq!(roles, ["aut", "pbl"]);
    }

    #[test]
    fn colophon_order_of_the_wrong_shape_is_an_error_at_its_line() {
        let dir = project("booktitle: T\ncolophon_order: aut\n", &[]);
        let err = load_book(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("config.yml:2:1") && err.contains("colophon_order"),
            "{err}"
        );
    }

    #[test]
    fn locale_yml_in_both_shapes() {
        let dir = project(
            "booktitle: T\n",
            &[(
                "locale.yml",
                "locale: ja\nchapter: 第%pJ章\n\"Finished.\": 完了\n",
            )],
        );
        let book = load_book(dir.path()).unwrap();
        let m = book.locale.messages("ja");
        assert_eq!(
            m.t(crate::i18n::Msg::Chapter, &[crate::i18n::Arg::N(3)]),
            "第三章"
        );
        let dir = project(
            "booktitle: T\nlanguage: en\n",
            &[("locale.yml", "ja:\n  image: ず\nen:\n  image: \"Fig. \"\n")],
        );
        let book = load_book(dir.path()).unwrap();
        assert_eq!(
            book.locale.messages("en").get(crate::i18n::Msg::Image),
            "Fig. "
        );
        assert_eq!(
            book.locale.messages("ja").get(crate::i18n::Msg::Image),
            "ず"
        );
    }

    #[test]
    fn locale_yml_mistakes_are_located() {
        let dir = project(
            "booktitle: T\n",
            &[("locale.yml", "locale: ja\nchapter: [a, b]\n")],
        );
        let err = load_book(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("locale.yml:2:1") && err.contains("`chapter` must be text"),
            "{err}"
        );
        let dir = project("booktitle: T\n", &[("locale.yml", "ja: 第%pJ章\n")]);
        let err = load_book(dir.path()).unwrap_err().to_string();
        assert!(err.contains("locale.yml:1:1"), "{err}");
        let dir = project("booktitle: T\n", &[("locale.yml", "ja: [\n")]);
        let err = load_book(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("locale.yml") && err.contains("not valid YAML"),
            "{err}"
        );
    }

    #[test]
    fn a_key_seihon_ignores_is_warned_about_once_at_the_books_own_line() {
        let dir = project(
            "inherit: [base.yml]\nbooktitle: T\nopf_meta: {a: b}\n",
            &[("base.yml", "opf_meta: {c: d}\nbookname: base\n")],
        );
        let (book, warnings) = load(
            dir.path(),
            Path::new("config.yml"),
            &ProjectConfig::default(),
        )
        .unwrap();
        let ignored: Vec<_> = warnings
            .iter()
            .filter(|f| f.message.contains("opf_meta"))
            .collect();
        assert_eq!(ignored.len(), 1, "{warnings:#?}");
        assert_eq!(ignored[0].location.line, 3);
        assert!(ignored[0].location.file.ends_with("config.yml"));
        // The bookname comes from the file inherited, at its line there.
        let (name, at) = bookname(dir.path(), Path::new("config.yml")).unwrap();
        assert_eq!(name, Value::String("base".into()));
        assert!(at.file.ends_with("base.yml") && at.line == 2, "{at:?}");
        // `load` alone names the book by its folder: the project settles the id.
        assert_ne!(book.id, "base");
    }

    #[test]
    fn a_bookname_that_is_not_a_name_is_an_error_at_its_line() {
        let dir = project("booktitle: T\nbookname: {x: 1}\n", &[]);
        let Err(Error::Book(errors)) = load_book(dir.path()) else {
            panic!("a mapping cannot name a book")
        };
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!(errors[0].location.line, 2);
        assert!(errors[0].message.contains("`bookname:` is not a name"));
    }
}
