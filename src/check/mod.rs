//! Checks: the EPUB's tree (before staging) → findings.
//!
//! Every check is built in and reads the tree in memory: the package document (found through
//! `META-INF/container.xml`) for the manifest and spine, and every XHTML file. A problem in an
//! element is reported at the element's source position (the nearest of the element or its
//! ancestors that has one; the positions come beside the pages, as [`dom::PageSources`]), with
//! the XHTML position as a note in the hint, so that the people who write the manuscripts see
//! their own file and line.
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::dom::{self, Document, Element, Pos};
use crate::error::{Finding, Location, Severity};

#[cfg_attr(
    not(test),
    allow(dead_code, reason = "the style sheets check comes next")
)]
mod contrast;
mod external;
mod ids;
mod japanese;
mod links;
mod page;
pub mod programs;
mod resources;
pub mod store;

/// One check's identity and default severity; `CheckId::name()` is what users write in settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckId {
    WellFormed,
    UniqueIds,
    InternalLinks,
    Resources,
    EmptyLinkText,
    UnresolvedReferences,
    ImageAlt,
    TcyLength,
    NavRubyTcy,
    VerticalSpine,
    /// On request (`--external-links`): every web address answers.
    ExternalLinks,
    /// On request (`--epubcheck`): the packed EPUB passes epubcheck.
    Epubcheck,
}

impl CheckId {
    /// The name users write in their check settings.
    pub fn name(self) -> &'static str {
        match self {
            CheckId::WellFormed => "well-formed",
            CheckId::UniqueIds => "unique-ids",
            CheckId::InternalLinks => "internal-links",
            CheckId::Resources => "resources",
            CheckId::EmptyLinkText => "empty-link-text",
            CheckId::UnresolvedReferences => "unresolved-references",
            CheckId::ImageAlt => "image-alt",
            CheckId::TcyLength => "tcy-length",
            CheckId::NavRubyTcy => "nav-ruby-tcy",
            CheckId::VerticalSpine => "vertical-spine",
            CheckId::ExternalLinks => "external-links",
            CheckId::Epubcheck => "epubcheck",
        }
    }

    /// Every check, in the order they run.
    pub fn all() -> &'static [CheckId] {
        &[
            CheckId::WellFormed,
            CheckId::UniqueIds,
            CheckId::InternalLinks,
            CheckId::Resources,
            CheckId::EmptyLinkText,
            CheckId::UnresolvedReferences,
            CheckId::ImageAlt,
            CheckId::TcyLength,
            CheckId::NavRubyTcy,
            CheckId::VerticalSpine,
            CheckId::ExternalLinks,
            CheckId::Epubcheck,
        ]
    }

    /// Structural problems that make an invalid EPUB are errors; the rest are warnings.
    pub fn default_level(self) -> Level {
        match self {
            CheckId::WellFormed
            | CheckId::UniqueIds
            | CheckId::InternalLinks
            | CheckId::Resources
            | CheckId::Epubcheck => Level::Error,
            _ => Level::Warning,
        }
    }

    pub fn from_name(s: &str) -> Option<CheckId> {
        CheckId::all().iter().copied().find(|c| c.name() == s)
    }
}

pub use crate::config::Level;

/// A finding of a built-in check as the check makes it: [`run_checks`] gives it its check's
/// code and level.
pub(crate) fn found(location: Location, message: impl Into<String>) -> Finding {
    Finding::of("", Severity::Error, location, message)
}

/// Overrides of the checks' default levels.
#[derive(Debug, Clone, Default)]
pub struct CheckSettings {
    pub levels: HashMap<CheckId, Level>,
    /// The names of the check programs found (`checks/<name>`), which settings may name too.
    pub programs: Vec<String>,
    /// Levels set for check programs; a program's own `error`/`warning` stands otherwise.
    pub program_levels: HashMap<String, Level>,
    /// Levels set for the other kinds of finding, by code.
    pub codes: HashMap<crate::codes::Code, Level>,
    /// Set when external links are to be checked (`--external-links`), with how.
    pub external_links: Option<crate::linkcheck::LinkCheckOptions>,
}

impl CheckSettings {
    /// The level a check runs at: the override, else its default.
    pub fn level(&self, id: CheckId) -> Level {
        self.levels
            .get(&id)
            .copied()
            .unwrap_or_else(|| id.default_level())
    }

    /// The level of a check program: as set, else `Error` (its findings keep the severity it
    /// printed).
    pub fn program_level(&self, name: &str) -> Level {
        self.program_levels
            .get(name)
            .copied()
            .unwrap_or(Level::Error)
    }

    /// Sets a check's level by the name users write: a built-in check, a check program, or
    /// the code of a kind of finding (see [`crate::codes`]). An unknown name is refused with
    /// the list of known names; a kind that stops the build cannot be lowered.
    pub fn set(&mut self, name: &str, level: Level) -> Result<(), String> {
        if let Some(id) = CheckId::from_name(name) {
            self.levels.insert(id, level);
            return Ok(());
        }
        if let Some(code) = crate::codes::Code::from_name(name) {
            if !code.kind().degrades && level != Level::Error {
                return Err(format!(
                    "`{name}` findings stop the build (seihon cannot make a book around them), so they cannot be set to `{}`",
                    level.name()
                ));
            }
            self.codes.insert(code, level);
            return Ok(());
        }
        if self.programs.iter().any(|p| p == name) {
            self.program_levels.insert(name.to_string(), level);
            return Ok(());
        }
        let known: Vec<String> = CheckId::all()
            .iter()
            .map(|c| c.name().to_string())
            .chain(self.programs.iter().cloned())
            .collect();
        let mut why = format!(
            "there is no check named `{name}`; the checks are {}",
            known
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if let Some(near) = known
            .iter()
            .filter(|k| strsim::jaro_winkler(k, name) > 0.8)
            .max_by(|a, b| strsim::jaro_winkler(a, name).total_cmp(&strsim::jaro_winkler(b, name)))
        {
            why.push_str(&format!(" (did you mean `{near}`?)"));
        }
        Err(why)
    }
}

impl CheckSettings {
    /// Findings at the levels set for their kinds: a kind turned off goes, one raised to
    /// `error` stops the build. A kind that degrades can be set back to `warning`; a warning
    /// made an error for a release stays one.
    pub fn apply(&self, found: Vec<Finding>) -> Vec<Finding> {
        if self.codes.is_empty() {
            return found;
        }
        found
            .into_iter()
            .filter_map(|mut f| {
                let level = crate::codes::Code::from_name(&f.code).and_then(|c| self.codes.get(&c));
                match level {
                    Some(Level::Off) => return None,
                    Some(Level::Error) => f.severity = Severity::Error,
                    Some(Level::Warning) | None => {}
                }
                Some(f)
            })
            .collect()
    }
}

/// An EPUB's files by path inside it: bytes, borrowed where the caller holds them already.
pub type Files<'a> = BTreeMap<String, FileBytes<'a>>;

/// A file's bytes as the checks are given them.
pub enum FileBytes<'a> {
    Here(std::borrow::Cow<'a, [u8]>),
    /// Read when a check first needs them: a page kept by the page cache, whose facts the
    /// checks usually keep too (by its identity, see [`EpubFiles::known`]).
    Later(&'a crate::files::Later),
}

impl FileBytes<'_> {
    /// The bytes; `None` when bytes to be read later could not be read.
    pub fn get(&self) -> Option<&[u8]> {
        match self {
            FileBytes::Here(bytes) => Some(bytes),
            FileBytes::Later(later) => later.get(),
        }
    }
}

impl From<Vec<u8>> for FileBytes<'static> {
    fn from(bytes: Vec<u8>) -> Self {
        FileBytes::Here(std::borrow::Cow::Owned(bytes))
    }
}

impl<'a> From<&'a [u8]> for FileBytes<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        FileBytes::Here(std::borrow::Cow::Borrowed(bytes))
    }
}

/// Where the elements of each page seihon wrote came from, by the page's path inside the EPUB.
pub type Sources = BTreeMap<String, dom::PageSources>;

/// Reads the source positions kept for a page, by its path inside the EPUB.
pub type KeptMarksOf<'a> = dyn Fn(&str) -> KeptMarks + Sync + 'a;

/// A page's source positions outside [`Sources`].
pub enum KeptMarks {
    /// None are kept for the page (it has none, or they are in `Sources`).
    NotKept,
    Read(dom::PageSources),
    /// They were kept, and are gone (another build of the book, or the cache removed).
    Lost,
}

/// The EPUB's files in memory (path inside the EPUB → bytes), before staging.
pub struct EpubFiles<'a> {
    pub files: &'a Files<'a>,
    /// The source positions of the pages' elements.
    pub sources: &'a Sources,
    /// The source positions of a page whose positions are not in `sources`, read from where
    /// they are kept: asked for only when the page's facts are gathered.
    pub kept_marks: Option<&'a KeptMarksOf<'a>>,
    /// Where what the checks gathered from each page is kept, by the hash of the page: a
    /// rebuild parses only the pages that changed. None: every page is parsed.
    pub cache: Option<&'a std::path::Path>,
    /// For pages whose bytes a key of what made them stands for (see
    /// [`crate::stage::Tree::identity`]), that key: their facts are kept by it, so the pages
    /// need not be hashed (ten megabytes of pages took a tenth of a rebuild).
    pub known: Option<&'a std::collections::HashMap<String, String>>,
}

/// Runs every enabled check; each finding gets its check's level as severity and the check's
/// name in brackets at the start of the message ("[internal-links] …").
///
/// A few findings are only ever warnings (an empty `alt` on an image that may be decorative):
/// raising their check to `error` does not raise them.
pub fn run_checks(epub: &EpubFiles, settings: &CheckSettings) -> Vec<Finding> {
    let book = Book::load(
        epub.files,
        epub.sources,
        epub.kept_marks,
        epub.cache,
        epub.known,
    );
    let mut out = Vec::new();
    for &id in CheckId::all() {
        let level = settings.level(id);
        if level == Level::Off {
            continue;
        }
        let found = match id {
            CheckId::WellFormed => book.parse_errors.clone(),
            CheckId::UniqueIds => ids::unique_ids(&book),
            CheckId::InternalLinks => links::internal_links(&book),
            CheckId::Resources => resources::resources(&book),
            CheckId::EmptyLinkText => links::empty_link_text(&book),
            CheckId::UnresolvedReferences => links::unresolved_references(&book),
            CheckId::ImageAlt => resources::image_alt(&book),
            CheckId::TcyLength => japanese::tcy_length(&book),
            CheckId::NavRubyTcy => japanese::nav_ruby_tcy(&book),
            CheckId::VerticalSpine => japanese::vertical_spine(&book),
            // On request only.
            CheckId::ExternalLinks => match &settings.external_links {
                Some(opts) => external::external_links(&book, opts),
                None => Vec::new(),
            },
            // Run by the pipeline on the packed EPUB.
            CheckId::Epubcheck => Vec::new(),
        };
        for mut f in found {
            // Checks mark their findings Error ("as bad as the level says") or Warning
            // ("never more than a warning").
            if level == Level::Warning {
                f.severity = Severity::Warning;
            }
            f.message = format!("[{}] {}", id.name(), f.message);
            f.code = id.name().into();
            out.push(f);
        }
    }
    book.finish();
    out
}

// ---------------------------------------------------------------------------
// The book as the checks see it

/// One manifest item of the package document.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Item {
    pub id: String,
    /// As written in the manifest.
    pub href: String,
    /// Resolved to a path inside the EPUB (None when it points outside it or is remote).
    pub path: Option<String>,
    pub properties: String,
    pub pos: Option<Pos>,
}

/// What the checks keep of a file, all in one store per book: a page's (or an NCX's) facts, or
/// the package document's.
#[derive(serde::Serialize, serde::Deserialize)]
enum KeptFacts {
    /// A page's facts but its links and resources, which are kept under a key of their own
    /// (see [`refs_key`]).
    Page(Box<page::PageFacts>),
    Refs(page::Refs),
    Package(PackageFacts),
    /// What a check found in a page (see [`Book::kept_findings`]).
    Findings(Vec<Finding>),
}

/// The key a page's links and resources are kept under, beside its other facts (`key`).
fn refs_key(key: &str) -> String {
    format!("{key} refs")
}

/// What the checks read of the package document.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct PackageFacts {
    manifest: Vec<Item>,
    /// The spine's `idref`s, in order.
    spine_refs: Vec<String>,
    spine_rtl: bool,
    spine_pos: Option<Pos>,
}

impl PackageFacts {
    fn of(opf_path: &str, root: &Element) -> PackageFacts {
        let mut facts = PackageFacts {
            manifest: Vec::new(),
            spine_refs: Vec::new(),
            spine_rtl: false,
            spine_pos: None,
        };
        root.walk(&mut |e| match local(&e.name) {
            "item" => {
                let href = e.attr("href").unwrap_or("").to_string();
                let path = match resolve(opf_path, &href) {
                    Target::Local { path, .. } => Some(path),
                    _ => None,
                };
                facts.manifest.push(Item {
                    id: e.attr("id").unwrap_or("").to_string(),
                    href,
                    path,
                    properties: e.attr("properties").unwrap_or("").to_string(),
                    pos: e.pos,
                });
            }
            "spine" => {
                facts.spine_rtl = e.attr("page-progression-direction") == Some("rtl");
                facts.spine_pos = e.pos;
            }
            "itemref" => {
                if let Some(idref) = e.attr("idref") {
                    facts.spine_refs.push(idref.to_string());
                }
            }
            _ => {}
        });
        facts
    }
}

/// The parsed EPUB tree shared by all checks.
/// A file the checks parse, kept as its facts: a page, or an NCX (its links alone).
enum Parsed {
    Page(Box<page::PageFacts>),
    Ncx(Box<page::PageFacts>),
}

pub(crate) struct Book<'a> {
    pub files: &'a Files<'a>,
    /// The files' paths, for the links and resources of every page to be looked up in.
    names: std::collections::HashSet<&'a str>,
    /// What the checks need of each XHTML page, by path (the pages' trees are not kept).
    pub pages: BTreeMap<String, page::PageFacts>,
    /// Findings of the well-formed check (parse errors, missing package document).
    pub parse_errors: Vec<Finding>,
    pub opf_path: Option<String>,
    /// Whether the package document parsed, so that the manifest and spine are known.
    pub package_read: bool,
    /// Each NCX's facts (its `content src` links), by path.
    pub ncx: BTreeMap<String, page::PageFacts>,
    pub manifest: Vec<Item>,
    /// The paths the manifest lists (a book with thousands of images asks for each).
    manifest_paths: std::collections::HashSet<String>,
    /// Paths of the spine's items, in order.
    pub spine: Vec<String>,
    pub spine_rtl: bool,
    pub spine_pos: Option<Pos>,
    /// Path of the navigation document.
    pub nav: Option<String>,
    /// The store the facts were kept in, for what a check keeps of its own.
    kept: Option<Kept>,
}

/// The book's store of check facts as a run uses it: the keys it used (the store keeps only
/// those when the run ends), and the key each page's facts are kept under.
struct Kept {
    cache: crate::cache::Cache<KeptFacts>,
    used: std::sync::Mutex<std::collections::HashSet<String>>,
    facts_keys: HashMap<String, String>,
}

pub(crate) fn is_xhtml_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".xhtml") || lower.ends_with(".html") || lower.ends_with(".htm")
}

/// The local part of a qualified name: "opf:item" → "item".
pub(crate) fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// [`parse_file`] on a file's bytes as given, which may be lost since (see [`FileBytes`]).
fn parse_given(path: &str, bytes: &FileBytes) -> Result<Document, Finding> {
    match bytes.get() {
        Some(bytes) => parse_file(path, bytes),
        None => Err(found(
            Location::file(path),
            "the page kept for this file went missing during the build",
        )
        .with_hint("build again: the pages are made anew")),
    }
}

fn parse_file(path: &str, bytes: &[u8]) -> Result<Document, Finding> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = String::from_utf8_lossy(&bytes[..e.valid_up_to()]);
            let (line, col) = crate::error::line_col(&valid, valid.len());
            return Err(found(
                Location::new(path, line, col),
                "the file is not valid UTF-8 text",
            )
            .with_hint("save the file as UTF-8"));
        }
    };
    dom::parse_document(text)
        .map_err(|e| found(Location::new(path, e.pos.line, e.pos.col), e.message))
}

impl<'a> Book<'a> {
    pub fn load(
        files: &'a Files<'a>,
        sources: &Sources,
        kept_marks: Option<&KeptMarksOf>,
        cache: Option<&Path>,
        known: Option<&std::collections::HashMap<String, String>>,
    ) -> Book<'a> {
        let mut book = Book {
            files,
            names: files.keys().map(String::as_str).collect(),
            pages: BTreeMap::new(),
            parse_errors: Vec::new(),
            opf_path: None,
            package_read: false,
            ncx: BTreeMap::new(),
            manifest: Vec::new(),
            manifest_paths: Default::default(),
            spine: Vec::new(),
            spine_rtl: false,
            spine_pos: None,
            nav: None,
            kept: None,
        };
        // Pages are read in parallel, then filed in path order (findings stay deterministic);
        // each page's tree is dropped as soon as its facts are gathered.
        use rayon::prelude::*;
        let cache = cache.map(|dir| {
            (
                crate::cache::Key::new("check facts"),
                crate::cache::Cache::<KeptFacts>::new(dir),
            )
        });
        let parsed: Vec<(&String, Result<Parsed, Finding>, Option<String>)> = files
            .par_iter()
            .filter_map(|(path, bytes)| {
                let ncx = path.to_ascii_lowercase().ends_with(".ncx");
                if !ncx && !is_xhtml_path(path) {
                    return None;
                }
                let marks = sources.get(path);
                let key = cache.as_ref().and_then(|(key, _)| {
                    match known.and_then(|k| k.get(path.as_str())) {
                        // What made the page made its source positions too (the page cache
                        // keeps them together): the key stands for both.
                        Some(identity) => crate::cache::Key::new("check facts of a made page")
                            .bytes(path.as_bytes())
                            .bytes(identity.as_bytes()),
                        None => {
                            (key.clone().bytes(path.as_bytes()).bytes(bytes.get()?)).value(&marks)
                        }
                    }
                    .finish()
                });
                // An NCX is kept as the facts of a page with its links and nothing else.
                let filed = |facts: page::PageFacts| match ncx {
                    true => Parsed::Ncx(Box::new(facts)),
                    false => Parsed::Page(Box::new(facts)),
                };
                // Its links and resources are read when a check needs them (see `Book::refs`).
                if let (Some((_, cache)), Some(key)) = (&cache, &key)
                    && cache.contains(&refs_key(key))
                    && let Some(KeptFacts::Page(facts)) = cache.get(key)
                {
                    return Some((path, Ok(filed(*facts)), Some(key.clone())));
                }
                // A made page's positions may have been left where the page is kept. Should
                // they be lost, its facts place findings in the page, and are not kept.
                let kept = match (marks, kept_marks) {
                    (None, Some(read)) => read(path),
                    _ => KeptMarks::NotKept,
                };
                let lost = matches!(kept, KeptMarks::Lost);
                let marks = match &kept {
                    KeptMarks::Read(kept) => Some(kept),
                    _ => marks,
                };
                let facts = parse_given(path, bytes).map(|mut doc| {
                    if let Some(marks) = marks.filter(|_| !ncx) {
                        marks.apply(&mut doc.root);
                    }
                    page::PageFacts::of_file(path, &doc)
                });
                let key = key.filter(|_| !lost);
                if let (Some((_, cache)), Some(key), Ok(facts)) = (&cache, &key, &facts)
                    && let Some(refs) = facts.refs.get()
                {
                    cache.put(key, &KeptFacts::Page(Box::new(facts.clone())));
                    cache.put(&refs_key(key), &KeptFacts::Refs(refs.clone()));
                }
                Some((path, facts.map(filed), key))
            })
            .collect();
        let mut used = std::collections::HashSet::new();
        let mut facts_keys = HashMap::new();
        for (path, parsed, key) in parsed {
            if let Some(key) = key {
                used.insert(key.clone());
                used.insert(refs_key(&key));
                facts_keys.insert(path.clone(), key);
            }
            match parsed {
                Ok(Parsed::Ncx(facts)) => {
                    book.ncx.insert(path.clone(), *facts);
                }
                Ok(Parsed::Page(facts)) => {
                    book.pages.insert(path.clone(), *facts);
                }
                Err(f) => book.parse_errors.push(f),
            }
        }
        book.opf_path = book.find_package();
        if let Some(opf_path) = book.opf_path.clone() {
            let cache = cache.as_ref().map(|(_, cache)| cache);
            used.extend(book.read_package(&opf_path, cache, known));
        }
        book.kept = cache.map(|(_, cache)| Kept {
            cache,
            used: std::sync::Mutex::new(used),
            facts_keys,
        });
        if book.nav.is_none() {
            book.nav = book
                .pages
                .keys()
                .find(|p| p.rsplit('/').next() == Some("nav.xhtml"))
                .cloned();
        }
        book
    }

    /// The package document named by `META-INF/container.xml` (reporting why when there is none).
    fn find_package(&mut self) -> Option<String> {
        const CONTAINER: &str = "META-INF/container.xml";
        let Some(bytes) = self.files.get(CONTAINER) else {
            self.parse_errors.push(
                found(
                    Location::file(CONTAINER),
                    "the EPUB has no META-INF/container.xml, so readers cannot find the package document",
                )
                .with_hint("this file is written by seihon; a hook may have removed it"),
            );
            return None;
        };
        let container = match parse_given(CONTAINER, bytes) {
            Ok(doc) => doc,
            Err(f) => {
                self.parse_errors.push(f);
                return None;
            }
        };
        let mut rootfile = None;
        container.root.walk(&mut |e| {
            if rootfile.is_none() && local(&e.name) == "rootfile" {
                rootfile = Some((e.attr("full-path").map(str::to_string), e.pos));
            }
        });
        match rootfile {
            Some((Some(path), pos)) => {
                if self.has_file(&path) {
                    Some(path)
                } else {
                    let pos = pos.unwrap_or_default();
                    self.parse_errors.push(found(
                        Location::new(CONTAINER, pos.line, pos.col),
                        format!("the package document `{path}` named here is not in the EPUB"),
                    ));
                    None
                }
            }
            _ => {
                self.parse_errors.push(found(
                    Location::file(CONTAINER),
                    "META-INF/container.xml names no package document (`rootfile full-path`)",
                ));
                None
            }
        }
    }

    /// Reads the package document at `opf_path`: what the checks need of it is kept by its
    /// bytes (or the key they are known by), so that a rebuild does not parse the manifest of
    /// a book of thousands of images again.
    /// Gives the key its facts are kept under.
    fn read_package(
        &mut self,
        opf_path: &str,
        kept: Option<&crate::cache::Cache<KeptFacts>>,
        known: Option<&HashMap<String, String>>,
    ) -> Option<String> {
        let bytes = &self.files[opf_path];
        let key = match known.and_then(|k| k.get(opf_path)) {
            Some(identity) => Some(
                crate::cache::Key::new("package facts of a made file")
                    .bytes(opf_path.as_bytes())
                    .bytes(identity.as_bytes()),
            ),
            None => (bytes.get()).map(|bytes| {
                crate::cache::Key::new("package facts")
                    .bytes(opf_path.as_bytes())
                    .bytes(bytes)
            }),
        }
        .and_then(|key| key.finish());
        let hit = (kept.zip(key.as_ref())).and_then(|(kept, key)| match kept.get(key) {
            Some(KeptFacts::Package(facts)) => Some(facts),
            _ => None,
        });
        let facts = match hit {
            Some(facts) => facts,
            None => match parse_given(opf_path, bytes) {
                Ok(opf) => {
                    let facts = PackageFacts::of(opf_path, &opf.root);
                    if let (Some(kept), Some(key)) = (kept, &key) {
                        kept.put(key, &KeptFacts::Package(facts.clone()));
                    }
                    facts
                }
                Err(f) => {
                    self.parse_errors.push(f);
                    return None;
                }
            },
        };
        self.package_read = true;
        let ids: HashMap<&str, &str> = (facts.manifest.iter())
            .filter_map(|i| Some((i.id.as_str(), i.path.as_deref()?)))
            .collect();
        self.spine = (facts.spine_refs.iter())
            .filter_map(|r| ids.get(r.as_str()).map(|p| p.to_string()))
            .collect();
        self.manifest_paths = (facts.manifest.iter())
            .filter_map(|i| i.path.clone())
            .collect();
        self.nav = (facts.manifest.iter())
            .find(|i| i.properties.split_ascii_whitespace().any(|p| p == "nav"))
            .and_then(|i| i.path.clone());
        self.spine_rtl = facts.spine_rtl;
        self.spine_pos = facts.spine_pos;
        self.manifest = facts.manifest;
        key
    }

    /// Whether a path inside the EPUB is listed in the manifest.
    pub fn in_manifest(&self, path: &str) -> bool {
        self.manifest_paths.contains(path)
    }

    /// Keeps only what this run used in the store of check facts.
    fn finish(self) {
        if let Some(kept) = self.kept
            && let Ok(used) = kept.used.into_inner()
        {
            kept.cache.keep_only(&used);
        }
    }

    /// The links and resources of the page (or NCX) at `path`, whose facts are `facts`: as
    /// they were gathered, or read from the store of check facts the first time they are
    /// asked for. Should the store have lost them since the book was loaded (another build of
    /// the same book), the page is read again, and its findings placed in it.
    pub(crate) fn refs<'f>(&self, path: &str, facts: &'f page::PageFacts) -> &'f page::Refs {
        facts.refs.get_or_init(|| {
            let kept = (self.kept.as_ref()).and_then(|kept| {
                let key = kept.facts_keys.get(path)?;
                match kept.cache.get(&refs_key(key)) {
                    Some(KeptFacts::Refs(refs)) => Some(refs),
                    _ => None,
                }
            });
            kept.unwrap_or_else(|| {
                let bytes = self.files.get(path).and_then(FileBytes::get);
                let bytes = bytes.unwrap_or_default();
                let Ok(doc) = parse_file(path, bytes) else {
                    return page::Refs::default();
                };
                let facts = page::PageFacts::of_file(path, &doc);
                facts.refs.into_inner().unwrap_or_default()
            })
        })
    }

    /// What `check` found in the file at `path` last time, when the file's facts and
    /// everything else it depends on (`depends`, a key of what the check reads of the rest of
    /// the book) are as they were; else what `find` finds now, kept for next time.
    fn kept_findings(
        &self,
        check: &str,
        path: &str,
        depends: Option<&str>,
        find: impl FnOnce() -> Vec<Finding>,
    ) -> Vec<Finding> {
        let keyed = self.kept.as_ref().zip(depends).and_then(|(kept, depends)| {
            let facts = kept.facts_keys.get(path)?;
            let key = crate::cache::Key::new("check findings")
                .bytes(check.as_bytes())
                .bytes(facts.as_bytes())
                .bytes(depends.as_bytes())
                .finish()?;
            Some((kept, key))
        });
        let Some((kept, key)) = keyed else {
            return find();
        };
        if let Ok(mut used) = kept.used.lock() {
            used.insert(key.clone());
        }
        if let Some(KeptFacts::Findings(found)) = kept.cache.get(&key) {
            return found;
        }
        let found = find();
        kept.cache.put(&key, &KeptFacts::Findings(found.clone()));
        found
    }

    /// A key of every file's path and every page's ids: all that a link is checked against
    /// besides the page it is in. `None` without a store of check facts.
    fn link_targets(&self) -> Option<String> {
        let names = self.names_key("link targets")?;
        let key = (self.pages.iter()).fold(names.bytes(b"ids"), |key, (path, page)| {
            page.ids.hashed(key.bytes(path.as_bytes()))
        });
        key.finish()
    }

    /// A key of every file's path and of the paths the manifest lists: all that a resource
    /// a page loads is checked against. `None` without a store of check facts.
    fn resource_targets(&self) -> Option<String> {
        let names = self.names_key("resource targets")?;
        // Each path as bytes (a value's key part costs a buffer, and a book lists thousands);
        // one marked apart from the others where the manifest gives none.
        let read: &[u8] = if self.package_read {
            b"read"
        } else {
            b"unread"
        };
        let listed = (self.manifest.iter()).fold(names.bytes(read), |key, item| match &item.path {
            Some(path) => key.bytes(b"path").bytes(path.as_bytes()),
            None => key.bytes(b"none"),
        });
        listed.finish()
    }

    /// A key for `what` of every file's path (`None` without a store of check facts).
    fn names_key(&self, what: &str) -> Option<crate::cache::Key> {
        self.kept.as_ref()?;
        let key = (self.files.keys()).fold(crate::cache::Key::new(what), |key, name| {
            key.bytes(name.as_bytes())
        });
        Some(key)
    }

    /// Whether the book has a file at `path`.
    pub fn has_file(&self, path: &str) -> bool {
        self.names.contains(path)
    }

    pub fn ids_of(&self, path: &str) -> Option<&page::IdSet> {
        self.pages.get(path).map(|p| &p.ids)
    }
}

// ---------------------------------------------------------------------------
// Paths and links

/// What an `href` or `src` points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A URL with a scheme (`https:`, `mailto:`, `data:`), not checked here.
    External,
    /// A file inside the EPUB (the referring file itself for `#x`), with its fragment if any.
    Local {
        path: String,
        fragment: Option<String>,
    },
    /// A relative path climbing out of the EPUB, or an absolute path.
    Outside,
}

/// Resolves `href` as written in the file at `base` (a path inside the EPUB).
pub(crate) fn resolve(base: &str, href: &str) -> Target {
    let href = href.trim();
    let first_special = href.find(['/', '?', '#']).unwrap_or(href.len());
    if href[..first_special].contains(':') {
        return Target::External;
    }
    let (rest, fragment) = match href.split_once('#') {
        Some((r, f)) => (r, Some(crate::href::percent_decode(f))),
        None => (href, None),
    };
    let rest = rest.split('?').next().unwrap_or("");
    if rest.is_empty() {
        return Target::Local {
            path: base.to_string(),
            fragment,
        };
    }
    if rest.starts_with('/') {
        return Target::Outside;
    }
    // Most links name a file by a plain relative path (`ch02.xhtml`, `image/a.png`): the
    // path is the base's folder and it, with nothing to decode or step out of (a large book
    // has tens of thousands of links, each resolved on every build).
    let plain = |seg: &str| !matches!(seg, "" | "." | "..") && !seg.contains('%');
    if rest.split('/').all(plain) {
        let folder = base.rfind('/').map_or("", |i| &base[..=i]);
        return Target::Local {
            path: [folder, rest].concat(),
            fragment,
        };
    }
    let mut parts: Vec<String> = base.split('/').map(str::to_string).collect();
    parts.pop();
    for seg in rest.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Target::Outside;
                }
            }
            s => parts.push(crate::href::percent_decode(s)),
        }
    }
    Target::Local {
        path: parts.join("/"),
        fragment,
    }
}

// ---------------------------------------------------------------------------
// Locations

/// The source position of an element: that of the innermost element of the path (root first,
/// element last) that has one.
pub fn source_of(path_to_element: &[&Element]) -> Option<Location> {
    path_to_element
        .iter()
        .rev()
        .find_map(|e| e.src.as_ref())
        .map(location)
}

fn location(src: &dom::Src) -> Location {
    Location::new(&*src.file, src.line, src.col)
}

/// Finds the source line of a line of a staged page, for findings that only know the staged
/// file (epubcheck's, check programs'): that of the last element with a source position that
/// starts on or before it.
pub struct SourceMap<'a> {
    sources: &'a Sources,
}

impl<'a> SourceMap<'a> {
    pub fn new(sources: &'a Sources) -> Self {
        SourceMap { sources }
    }

    /// Whether `path` (inside the EPUB) is a page seihon wrote.
    pub fn has_page(&self, path: &str) -> bool {
        self.sources.contains_key(path)
    }

    /// The source position of line `line` (1-based) of the page at `path` inside the EPUB.
    pub fn source(&self, path: &str, line: u32) -> Option<Location> {
        self.sources.get(path)?.line(line).as_ref().map(location)
    }
}

/// A finding about the last element of `path` in the XHTML file `file`: at its source position
/// with the XHTML position in the hint ("in item/xhtml/ch01.xhtml:34:5", then `advice`), or at
/// the XHTML position when the element has no source position.
pub(crate) fn finding_at(
    file: &str,
    path: &[&Element],
    message: impl Into<String>,
    advice: Option<&str>,
) -> Finding {
    page::Place::of(file, path).finding(message, advice)
}

/// Visits every element with the path from the root to it (root first, element last).
pub(crate) fn walk_path<'a>(root: &'a Element, f: &mut dyn FnMut(&[&'a Element])) {
    fn go<'a>(el: &'a Element, path: &mut Vec<&'a Element>, f: &mut dyn FnMut(&[&'a Element])) {
        path.push(el);
        f(path);
        for child in el.child_elements() {
            go(child, path, f);
        }
        path.pop();
    }
    go(root, &mut Vec::new(), f);
}

#[cfg(test)]
mod tests;
