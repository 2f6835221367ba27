//! OASIS XML Catalogs (1.1): how a book's public and system identifiers (the DTD a DOCTYPE
//! names, external parameter and general entities) and URIs (XInclude hrefs) find local files.
//!
//! Catalogs come, in this order: `catalogs:` in book.yml, the `catalog.xml` files of the main
//! file's folder and its ancestors up to the book folder (nearest first), `catalogs:` in
//! seihon.yml, then `XML_CATALOG_FILES` (space-separated paths or `file:` URIs, as libxml2
//! reads it; the system's default catalog is not read when it is unset, so a build does not
//! depend on what the machine has installed). Entries: `public`, `system`, `rewriteSystem`,
//! `systemSuffix`, `uri`, `rewriteURI`, `uriSuffix`, `delegatePublic`, `delegateSystem`,
//! `delegateURI`, `nextCatalog`, inside `group`s with `prefer` and `xml:base`.
//!
//! Nothing is ever fetched: a catalog or target on the web is never read. Every file reached
//! through a catalog (a next or delegated catalog, a DTD, an entity) must lie in the folder of
//! the catalog first named (or below), in the book folder or in a shared folder; the loader
//! checks the targets, this module the catalogs. A catalog that cannot be read or is not
//! well-formed is a warning at its place and is skipped.
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::codes;
use crate::dom::{Element, Node};
use crate::error::{Finding, Location};

const NS_CATALOG: &str = "urn:oasis:names:tc:entity:xmlns:xml:catalog";
/// How many catalog files one book may load, and how deep `nextCatalog` chains may go.
const MAX_CATALOGS: usize = 256;
const MAX_DEPTH: usize = 16;
/// Catalogs are small; a larger file is not one.
const MAX_CATALOG_BYTES: u64 = 4 * 1024 * 1024;

/// Who named a catalog (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    BookSettings,
    Folder,
    ProjectSettings,
    Environment,
}

impl Origin {
    fn says(self) -> &'static str {
        match self {
            Origin::BookSettings => "`catalogs:` in book.yml",
            Origin::Folder => "the book's folder",
            Origin::ProjectSettings => "`catalogs:` in seihon.yml",
            Origin::Environment => "XML_CATALOG_FILES",
        }
    }
}

/// A catalog named by a setting, the environment or the book's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub path: PathBuf,
    pub origin: Origin,
}

/// The catalogs `XML_CATALOG_FILES` names (none when it is unset or empty).
pub fn from_env() -> Vec<Named> {
    std::env::var("XML_CATALOG_FILES")
        .map(|v| parse_env(&v))
        .unwrap_or_default()
}

/// `XML_CATALOG_FILES`'s value: paths or `file:` URIs separated by white space; a URI on the
/// web is left out (never fetched).
fn parse_env(value: &str) -> Vec<Named> {
    value
        .split_whitespace()
        .filter_map(|item| match to_target(item) {
            Target::File(path) => Some(Named {
                path,
                origin: Origin::Environment,
            }),
            Target::Remote(_) => None,
        })
        .collect()
}

/// The `catalog.xml` files of `folder` and its ancestors up to `root` (both real paths),
/// nearest first.
pub fn in_folders(folder: &Path, root: &Path) -> Vec<Named> {
    let mut found = Vec::new();
    let mut dir = Some(folder);
    while let Some(d) = dir.filter(|d| d.starts_with(root)) {
        let candidate = d.join("catalog.xml");
        if candidate.is_file() && is_catalog_file(&candidate) {
            found.push(Named {
                path: candidate,
                origin: Origin::Folder,
            });
        }
        dir = d.parent();
    }
    found
}

/// Whether the file's root element is a catalog (a `catalog.xml` may be a DocBook file too).
fn is_catalog_file(path: &Path) -> bool {
    crate::book::docbook::root_element(path)
        .is_some_and(|name| name.rsplit(':').next() == Some("catalog"))
}

/// Where an identifier leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    File(PathBuf),
    /// A URI of another scheme (http, https, …): never read.
    Remote(String),
}

/// An identifier a catalog mapped, with the catalog that did it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub target: Target,
    pub catalog: PathBuf,
    /// The folder the target may lie in (the folder of the catalog first named).
    pub scope: PathBuf,
}

#[derive(Debug, Clone)]
enum Entry {
    Public {
        id: String,
        uri: String,
        prefer_public: bool,
    },
    System {
        id: String,
        uri: String,
    },
    RewriteSystem {
        start: String,
        prefix: String,
    },
    SystemSuffix {
        suffix: String,
        uri: String,
    },
    DelegatePublic {
        start: String,
        catalog: String,
        prefer_public: bool,
    },
    DelegateSystem {
        start: String,
        catalog: String,
    },
    Uri {
        name: String,
        uri: String,
    },
    RewriteUri {
        start: String,
        prefix: String,
    },
    UriSuffix {
        suffix: String,
        uri: String,
    },
    DelegateUri {
        start: String,
        catalog: String,
    },
    Next {
        catalog: String,
    },
}

/// One catalog file, read.
struct Loaded {
    path: PathBuf,
    scope: PathBuf,
    entries: Vec<Entry>,
}

/// What looking in one catalog gave: a target, a delegation that found nothing (which ends
/// the resolution, as the standard says), or nothing.
enum Step {
    Found(Resolved),
    Stop,
    Continue,
}

/// The catalogs of one book, each read when first consulted.
pub struct Catalogs {
    named: Vec<Named>,
    /// Folders besides a catalog's scope its next catalogs may lie in (the book, shared folders).
    allowed: Vec<PathBuf>,
    loaded: Vec<Option<Loaded>>,
    by_path: HashMap<PathBuf, usize>,
    findings: Vec<Finding>,
}

impl Catalogs {
    pub fn new(named: Vec<Named>, allowed: Vec<PathBuf>) -> Self {
        Catalogs {
            named,
            allowed,
            loaded: Vec::new(),
            by_path: HashMap::new(),
            findings: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.named.is_empty()
    }

    /// The warnings about catalogs found so far.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    /// Resolves an external identifier (public and/or system id), then the system id as a URI,
    /// as libxml2 does for every resource it loads.
    pub fn external(&mut self, public: Option<&str>, system: Option<&str>) -> Option<Resolved> {
        let (public, system) = unwrap_urns(public, system);
        if public.is_none() && system.is_none() {
            return None;
        }
        for i in 0..self.named.len() {
            let Some(top) = self.top(i) else { continue };
            let mut budget = MAX_CATALOGS;
            match self.in_catalog(top, public.as_deref(), system.as_deref(), 0, &mut budget) {
                Step::Found(r) => return Some(r),
                Step::Stop => return None,
                Step::Continue => {}
            }
        }
        system.and_then(|s| self.uri(&s))
    }

    /// Resolves a URI reference (an XInclude href).
    pub fn uri(&mut self, uri: &str) -> Option<Resolved> {
        for i in 0..self.named.len() {
            let Some(top) = self.top(i) else { continue };
            let mut budget = MAX_CATALOGS;
            match self.uri_in(top, uri, 0, &mut budget) {
                Step::Found(r) => return Some(r),
                Step::Stop => return None,
                Step::Continue => {}
            }
        }
        None
    }

    /// The catalog named `i`-th, read if not yet.
    fn top(&mut self, i: usize) -> Option<usize> {
        let named = self.named[i].clone();
        let scope = named
            .path
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        self.load(&named.path, scope, None, named.origin.says())
    }

    /// Reads the catalog at `path` (once), checking that it lies where it may.
    fn load(
        &mut self,
        path: &Path,
        scope: PathBuf,
        from: Option<&Path>,
        named_by: &str,
    ) -> Option<usize> {
        let shown_from = || match from {
            Some(f) => format!("the catalog {}", f.display()),
            None => named_by.to_string(),
        };
        if let Some(&i) = self.by_path.get(path) {
            return self.loaded[i].is_some().then_some(i);
        }
        let Ok(canon) = path.canonicalize() else {
            // Said once: a missing catalog is remembered as one.
            self.by_path.insert(path.to_path_buf(), self.loaded.len());
            self.loaded.push(None);
            let loc = Location::file(from.unwrap_or(path));
            self.findings.push(Finding::warning(
                codes::XML_CATALOG,
                loc,
                format!(
                    "the XML catalog {} ({}) does not exist; it is skipped",
                    path.display(),
                    shown_from()
                ),
            ));
            return None;
        };
        if let Some(&i) = self.by_path.get(&canon) {
            return self.loaded[i].is_some().then_some(i);
        }
        if self.loaded.len() >= MAX_CATALOGS {
            return None;
        }
        let i = self.loaded.len();
        self.by_path.insert(canon.clone(), i);
        self.loaded.push(None);
        if from.is_some()
            && !canon.starts_with(&scope)
            && !self.allowed.iter().any(|a| canon.starts_with(a))
        {
            self.findings.push(Finding::warning(
                codes::XML_CATALOG,
                Location::file(from.unwrap_or(path)),
                format!(
                    "the next catalog {} lies outside {}, the book folder and the shared folders; it is not read",
                    canon.display(),
                    scope.display()
                ),
            ));
            return None;
        }
        let text = match read_catalog(&canon) {
            Ok(t) => t,
            Err(why) => {
                self.findings.push(Finding::warning(
                    codes::XML_CATALOG,
                    Location::file(&canon),
                    format!("cannot read this XML catalog ({why}); it is skipped"),
                ));
                return None;
            }
        };
        match parse(&text, &file_uri(&canon)) {
            Ok(entries) => {
                self.loaded[i] = Some(Loaded {
                    path: canon,
                    scope,
                    entries,
                });
                Some(i)
            }
            Err((pos, message)) => {
                self.findings.push(
                    Finding::warning(
                        codes::XML_CATALOG,
                        Location::new(&canon, pos.line, pos.col),
                        format!("this XML catalog is not well-formed: {message}; it is skipped"),
                    )
                    .with_hint(
                        "fix the catalog; until then, the identifiers it maps are not resolved",
                    ),
                );
                None
            }
        }
    }

    /// Another catalog that catalog `from` names (`nextCatalog`, a delegate), read if not yet.
    fn next(&mut self, from: usize, uri: &str) -> Option<usize> {
        let cat = self.loaded[from].as_ref()?;
        let (scope, path) = (cat.scope.clone(), cat.path.clone());
        match to_target(uri) {
            Target::File(p) => self.load(&p, scope, Some(&path), ""),
            Target::Remote(_) => None,
        }
    }

    fn found(&self, cat: usize, uri: &str) -> Step {
        let c = self.loaded[cat]
            .as_ref()
            .expect("consulted catalogs are loaded");
        Step::Found(Resolved {
            target: to_target(uri),
            catalog: c.path.clone(),
            scope: c.scope.clone(),
        })
    }

    /// Looks an external identifier up in one catalog and its next catalogs (XML Catalogs 1.1,
    /// §7.1.2).
    fn in_catalog(
        &mut self,
        cat: usize,
        public: Option<&str>,
        system: Option<&str>,
        depth: usize,
        budget: &mut usize,
    ) -> Step {
        if depth > MAX_DEPTH || *budget == 0 {
            return Step::Continue;
        }
        *budget -= 1;
        let entries = self.loaded[cat]
            .as_ref()
            .map(|c| c.entries.clone())
            .unwrap_or_default();
        if let Some(sys) = system {
            let mut rewrite: Option<(usize, String)> = None;
            let mut suffix: Option<(usize, String)> = None;
            let mut delegates: Vec<(usize, String)> = Vec::new();
            for e in &entries {
                match e {
                    Entry::System { id, uri } if id == sys => return self.found(cat, uri),
                    Entry::RewriteSystem { start, prefix } if sys.starts_with(start.as_str()) => {
                        keep_longest(&mut rewrite, start.len(), || {
                            format!("{prefix}{}", &sys[start.len()..])
                        });
                    }
                    Entry::SystemSuffix { suffix: s, uri } if sys.ends_with(s.as_str()) => {
                        keep_longest(&mut suffix, s.len(), || uri.clone());
                    }
                    Entry::DelegateSystem { start, catalog } if sys.starts_with(start.as_str()) => {
                        delegates.push((start.len(), catalog.clone()));
                    }
                    _ => {}
                }
            }
            if let Some((_, uri)) = rewrite.or(suffix) {
                return self.found(cat, &uri);
            }
            if !delegates.is_empty() {
                return self.delegate(cat, delegates, None, Some(sys), depth, budget);
            }
        }
        if let Some(id) = public {
            let mut delegates: Vec<(usize, String)> = Vec::new();
            for e in &entries {
                match e {
                    Entry::Public {
                        id: p,
                        uri,
                        prefer_public,
                    } if p == id && (system.is_none() || *prefer_public) => {
                        return self.found(cat, uri);
                    }
                    Entry::DelegatePublic {
                        start,
                        catalog,
                        prefer_public,
                    } if id.starts_with(start.as_str()) && (system.is_none() || *prefer_public) => {
                        delegates.push((start.len(), catalog.clone()));
                    }
                    _ => {}
                }
            }
            if !delegates.is_empty() {
                return self.delegate(cat, delegates, Some(id), None, depth, budget);
            }
        }
        for e in &entries {
            if let Entry::Next { catalog } = e
                && let Some(next) = self.next(cat, catalog)
            {
                match self.in_catalog(next, public, system, depth + 1, budget) {
                    Step::Continue => {}
                    done => return done,
                }
            }
        }
        Step::Continue
    }

    /// Consults the delegated catalogs, longest prefix first; only they are asked.
    fn delegate(
        &mut self,
        cat: usize,
        mut delegates: Vec<(usize, String)>,
        public: Option<&str>,
        system: Option<&str>,
        depth: usize,
        budget: &mut usize,
    ) -> Step {
        delegates.sort_by_key(|d| std::cmp::Reverse(d.0));
        for (_, catalog) in delegates {
            if let Some(next) = self.next(cat, &catalog) {
                match self.in_catalog(next, public, system, depth + 1, budget) {
                    Step::Found(r) => return Step::Found(r),
                    Step::Stop | Step::Continue => {}
                }
            }
        }
        Step::Stop
    }

    /// Looks a URI up in one catalog and its next catalogs (§7.2.2).
    fn uri_in(&mut self, cat: usize, uri: &str, depth: usize, budget: &mut usize) -> Step {
        if depth > MAX_DEPTH || *budget == 0 {
            return Step::Continue;
        }
        *budget -= 1;
        let entries = self.loaded[cat]
            .as_ref()
            .map(|c| c.entries.clone())
            .unwrap_or_default();
        let mut rewrite: Option<(usize, String)> = None;
        let mut suffix: Option<(usize, String)> = None;
        let mut delegates: Vec<(usize, String)> = Vec::new();
        for e in &entries {
            match e {
                Entry::Uri { name, uri: to } if name == uri => return self.found(cat, to),
                Entry::RewriteUri { start, prefix } if uri.starts_with(start.as_str()) => {
                    keep_longest(&mut rewrite, start.len(), || {
                        format!("{prefix}{}", &uri[start.len()..])
                    });
                }
                Entry::UriSuffix { suffix: s, uri: to } if uri.ends_with(s.as_str()) => {
                    keep_longest(&mut suffix, s.len(), || to.clone());
                }
                Entry::DelegateUri { start, catalog } if uri.starts_with(start.as_str()) => {
                    delegates.push((start.len(), catalog.clone()));
                }
                _ => {}
            }
        }
        if let Some((_, to)) = rewrite.or(suffix) {
            return self.found(cat, &to);
        }
        if !delegates.is_empty() {
            delegates.sort_by_key(|d| std::cmp::Reverse(d.0));
            for (_, catalog) in delegates {
                if let Some(next) = self.next(cat, &catalog)
                    && let Step::Found(r) = self.uri_in(next, uri, depth + 1, budget)
                {
                    return Step::Found(r);
                }
            }
            return Step::Stop;
        }
        for e in &entries {
            if let Entry::Next { catalog } = e
                && let Some(next) = self.next(cat, catalog)
            {
                match self.uri_in(next, uri, depth + 1, budget) {
                    Step::Continue => {}
                    done => return done,
                }
            }
        }
        Step::Continue
    }
}

/// Keeps the match of the longest prefix or suffix (the standard's rule among rewrites).
fn keep_longest(best: &mut Option<(usize, String)>, len: usize, value: impl FnOnce() -> String) {
    if best.as_ref().is_none_or(|(n, _)| len > *n) {
        *best = Some((len, value()));
    }
}

fn read_catalog(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CATALOG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| crate::error::plain_io(&e))?;
    if bytes.len() as u64 > MAX_CATALOG_BYTES {
        return Err(format!(
            "it is over {} MiB",
            MAX_CATALOG_BYTES / (1024 * 1024)
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    String::from_utf8(bytes.to_vec()).map_err(|_| "it is not UTF-8".to_string())
}

/// A public id as catalogs compare it: white space collapsed (§6.2).
fn normalize_public(id: &str) -> String {
    id.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Public and system ids as resolution takes them: a `urn:publicid:` in either is a public id
/// (§6.4).
fn unwrap_urns(public: Option<&str>, system: Option<&str>) -> (Option<String>, Option<String>) {
    let public = public.map(|p| unwrap_urn(p).unwrap_or_else(|| normalize_public(p)));
    match system.map(|s| (s, unwrap_urn(s))) {
        Some((_, Some(p))) => (public.or(Some(p)), None),
        Some((s, None)) => (public, Some(s.to_string())),
        None => (public, None),
    }
}

fn unwrap_urn(id: &str) -> Option<String> {
    let rest = id
        .get(..13)
        .filter(|p| p.eq_ignore_ascii_case("urn:publicid:"))
        .map(|_| &id[13..])?;
    let mut out = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '+' => out.push(' '),
            ':' => out.push_str("//"),
            ';' => out.push_str("::"),
            '%' => {
                let code: String = chars.by_ref().take(2).collect();
                out.push(match code.to_ascii_uppercase().as_str() {
                    "2B" => '+',
                    "3A" => ':',
                    "2F" => '/',
                    "3B" => ';',
                    "27" => '\'',
                    "3F" => '?',
                    "23" => '#',
                    _ => '%',
                });
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// Reads a catalog's entries, every URI in them made absolute against `base` and `xml:base`.
fn parse(text: &str, base: &str) -> Result<Vec<Entry>, (crate::dom::Pos, String)> {
    let doc = crate::dom::parse_document(text).map_err(|e| (e.pos, e.message))?;
    let mut entries = Vec::new();
    let mut scope = Vec::new();
    collect(&doc.root, base, true, &mut scope, &mut entries);
    Ok(entries)
}

/// The entries of `e` and its children, in document order; `scope` holds the namespace
/// declarations in force.
fn collect(
    e: &Element,
    base: &str,
    prefer_public: bool,
    scope: &mut Vec<(String, String)>,
    out: &mut Vec<Entry>,
) {
    let mark = scope.len();
    super::xml::push_namespaces(e, scope);
    let prefix = e.name.split_once(':').map_or("", |(p, _)| p);
    let ns = scope
        .iter()
        .rev()
        .find(|(p, _)| p == prefix)
        .map(|(_, u)| u.as_str());
    if ns == Some(NS_CATALOG) {
        let base = match e.attr("xml:base") {
            Some(b) => join(base, b.trim()),
            None => base.to_string(),
        };
        let prefer_public = match e.attr("prefer").map(str::trim) {
            Some("system") => false,
            Some("public") => true,
            _ => prefer_public,
        };
        if let Some(entry) = entry(e, &base, prefer_public) {
            out.push(entry);
        }
        if matches!(e.local_name(), "catalog" | "group") {
            for c in &e.children {
                if let Node::Element(c) = c {
                    collect(c, &base, prefer_public, scope, out);
                }
            }
        }
    }
    scope.truncate(mark);
}

/// The entry an element is, if it is a complete one (one missing an attribute is ignored, as
/// the standard says of invalid entries).
fn entry(e: &Element, base: &str, prefer_public: bool) -> Option<Entry> {
    let a = |name: &str| e.attr(name).map(str::trim).map(str::to_string);
    let uri = |name: &str| e.attr(name).map(|v| join(base, v.trim()));
    Some(match e.local_name() {
        "public" => Entry::Public {
            id: normalize_public(&a("publicId")?),
            uri: uri("uri")?,
            prefer_public,
        },
        "system" => Entry::System {
            id: a("systemId")?,
            uri: uri("uri")?,
        },
        "rewriteSystem" => Entry::RewriteSystem {
            start: a("systemIdStartString")?,
            prefix: uri("rewritePrefix")?,
        },
        "systemSuffix" => Entry::SystemSuffix {
            suffix: a("systemIdSuffix")?,
            uri: uri("uri")?,
        },
        "delegatePublic" => Entry::DelegatePublic {
            start: normalize_public(&a("publicIdStartString")?),
            catalog: uri("catalog")?,
            prefer_public,
        },
        "delegateSystem" => Entry::DelegateSystem {
            start: a("systemIdStartString")?,
            catalog: uri("catalog")?,
        },
        "uri" => Entry::Uri {
            name: a("name")?,
            uri: uri("uri")?,
        },
        "rewriteURI" => Entry::RewriteUri {
            start: a("uriStartString")?,
            prefix: uri("rewritePrefix")?,
        },
        "uriSuffix" => Entry::UriSuffix {
            suffix: a("uriSuffix")?,
            uri: uri("uri")?,
        },
        "delegateURI" => Entry::DelegateUri {
            start: a("uriStartString")?,
            catalog: uri("catalog")?,
        },
        "nextCatalog" => Entry::Next {
            catalog: uri("catalog")?,
        },
        _ => return None,
    })
}

/// `file:` URI of an absolute path (the characters a path may hold that a URI may not,
/// percent-encoded).
pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}

/// Whether `s` starts with a URI scheme (`http:`, `file:`); one letter is a Windows drive.
fn scheme(s: &str) -> Option<&str> {
    let colon = s.find(':')?;
    let name = &s[..colon];
    (name.len() > 1
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(name)
}

/// Resolves a URI reference against an absolute base URI (RFC 3986 §5.2, for the hierarchical
/// URIs catalogs use; query and fragment are kept as written).
pub fn join(base: &str, reference: &str) -> String {
    if reference.is_empty() {
        return base.to_string();
    }
    if scheme(reference).is_some() {
        return reference.to_string();
    }
    if Path::new(reference).is_absolute() && scheme(base) == Some("file") {
        return file_uri(Path::new(reference));
    }
    let Some(sch) = scheme(base) else {
        return reference.to_string();
    };
    let after = &base[sch.len() + 1..];
    let (authority, path) = match after.strip_prefix("//") {
        Some(rest) => {
            let end = rest.find('/').unwrap_or(rest.len());
            (format!("//{}", &rest[..end]), &rest[end..])
        }
        None => (String::new(), after),
    };
    let merged = if reference.starts_with('/') {
        reference.to_string()
    } else {
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        format!("{dir}{reference}")
    };
    format!("{sch}:{authority}{}", remove_dot_segments(&merged))
}

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// Where an absolute URI (or a plain path) leads: a local file, or somewhere never read.
pub fn to_target(uri: &str) -> Target {
    match scheme(uri) {
        Some(s) if s.eq_ignore_ascii_case("file") => {
            let rest = &uri[5..];
            let path = match rest.strip_prefix("//") {
                Some(r) => {
                    let end = r.find('/').unwrap_or(r.len());
                    if !r[..end].is_empty() && !r[..end].eq_ignore_ascii_case("localhost") {
                        return Target::Remote(uri.to_string());
                    }
                    &r[end..]
                }
                None => rest,
            };
            let path = path.split(['?', '#']).next().unwrap_or("");
            Target::File(normalize(&PathBuf::from(percent_decode(path))))
        }
        Some(_) => Target::Remote(uri.to_string()),
        None => Target::File(normalize(Path::new(uri))),
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `.` and `..` taken out of a path, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
