//! The XML layer of the DocBook reader: quick-xml events → a [`crate::dom`] tree with the
//! manuscript position (`src`: file, line, column) of every element, after expanding entities
//! (internal, external parsed, parameter entities in the internal subset, the DocBook character
//! entities) and XInclude. Comments and processing instructions are dropped, but for the page-break
//! instructions `<?page N?>` and `<?pagebreak N?>`, kept as the `beginpage` they stand for.
//!
//! The external DTD subset a DOCTYPE names and external parameter entities are read for their
//! entity declarations (element and attribute-list declarations are skipped, conditional
//! sections honoured), found through the XML catalogs ([`super::catalog`]) or beside the file
//! that names them. DocBook's own DTDs and entity sets are never read: their entities are
//! built in. Nothing is fetched from the network. Every file read must stay inside the book
//! folder or a shared folder (or, for a file a catalog maps, the catalog's folder).
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use quick_xml::events::Event;
use quick_xml::reader::Reader;

use super::catalog::{self, Catalogs};
use super::entities;
use crate::codes::{self, Code};
use crate::doc::Pos;
use crate::dom::{Element, LineIndex, Node, Src};
use crate::error::{Finding, Location};

pub const NS_XINCLUDE: &str = "http://www.w3.org/2001/XInclude";
const NS_XINCLUDE_OLD: &str = "http://www.w3.org/2003/XInclude";
const NS_XML: &str = "http://www.w3.org/XML/1998/namespace";

/// Entity expansion limits (a "billion laughs" file must be refused quickly).
const MAX_ENTITY_DEPTH: usize = 16;
const MAX_EXPANDED_BYTES: usize = 16 * 1024 * 1024;
const MAX_ENTITY_REFS: usize = 1_000_000;
/// Elements nested deeper than this are refused (the converter walks the tree recursively).
const MAX_ELEMENT_DEPTH: usize = 400;
/// XInclude limits: a file included over and over (each including the next several times)
/// grows as fast as a "billion laughs".
const MAX_INCLUDED_BYTES: usize = 128 * 1024 * 1024;
const MAX_INCLUDES: usize = 10_000;

const TOO_LARGE: &str = "entity expansion is too large (a 'billion laughs' file?)";

/// The files of a book, in the order first read: relative to the book folder, or real paths
/// for those from a shared folder.
#[derive(Default)]
pub struct Files {
    paths: Vec<PathBuf>,
    /// Each path as text: the `src.file` of every element from that file, one shared string.
    names: Vec<Arc<str>>,
    /// Each file's digest (of its bytes), once read.
    digests: Vec<String>,
    /// Whether each was included as text (an XInclude with `parse="text"`): no element says
    /// where its text went.
    textual: Vec<bool>,
}

impl Files {
    fn push(&mut self, path: PathBuf) -> u32 {
        self.names.push(Arc::from(path.to_string_lossy()));
        self.paths.push(path);
        self.digests.push(String::new());
        self.textual.push(false);
        (self.paths.len() - 1) as u32
    }

    /// How many files were read.
    pub fn len(&self) -> u32 {
        self.paths.len() as u32
    }

    /// The digest of a file's bytes ("" when it could not be read).
    pub fn digest(&self, file: u32) -> &str {
        self.digests.get(file as usize).map_or("", String::as_str)
    }

    /// Whether a file was included as text.
    pub fn textual(&self, file: u32) -> bool {
        self.textual.get(file as usize).copied().unwrap_or(false)
    }

    /// The file an element's `src` names (its shared string, else its text).
    pub fn index_of(&self, name: &Arc<str>) -> Option<u32> {
        (self.names.iter().position(|n| Arc::ptr_eq(n, name)))
            .or_else(|| self.names.iter().position(|n| n == name))
            .map(|i| i as u32)
    }

    /// Every file, in the order first read.
    pub fn all(&self) -> &[PathBuf] {
        &self.paths
    }

    pub fn path(&self, file: u32) -> &Path {
        self.paths
            .get(file as usize)
            .map_or(Path::new(""), PathBuf::as_path)
    }

    /// The file holding an element's start tag (the main file for an element without `src`,
    /// which the loader never makes).
    pub fn of(&self, e: &Element) -> u32 {
        e.src
            .as_ref()
            .and_then(|s| self.names.iter().position(|n| *n == s.file))
            .map_or(0, |i| i as u32)
    }

    /// The manuscript position of a start tag at `pos` in `file`.
    fn src(&self, file: u32, pos: Pos) -> Src {
        Src {
            file: self.names[file as usize].clone(),
            line: pos.line,
            col: pos.col,
        }
    }
}

/// Where an element's start tag is (see [`Files::of`] for its file).
pub fn pos_of(e: &Element) -> Pos {
    e.src
        .as_ref()
        .map_or(Pos::new(1, 1), |s| Pos::new(s.line, s.col))
}

/// The result of loading a DocBook document with everything it includes.
pub struct Loaded {
    pub root: Option<Element>,
    /// Every file read; each element's `src` names one.
    pub files: Files,
    /// The book folder's real path.
    pub folder: PathBuf,
    pub findings: Vec<Finding>,
}

/// Reads `main` and everything it pulls in, which must be inside `root` or one of the folders
/// `shared` (the project's `shared_dirs`, real paths). Never panics; problems become findings.
/// `named` are the catalogs the book's settings and the environment name, in their order; the
/// `catalog.xml` files of the book's folders come after book.yml's.
pub fn load(main: &Path, root: &Path, shared: &[PathBuf], named: &[catalog::Named]) -> Loaded {
    let root_canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let main_dir = if main.is_absolute() {
        main.to_path_buf()
    } else {
        root.join(main)
    }
    .canonicalize()
    .ok()
    .and_then(|m| m.parent().map(Path::to_path_buf))
    .unwrap_or_else(|| root_canon.clone());
    let (book, others): (Vec<_>, Vec<_>) = named
        .iter()
        .cloned()
        .partition(|n| n.origin == catalog::Origin::BookSettings);
    let mut all = book;
    all.extend(catalog::in_folders(&main_dir, &root_canon));
    all.extend(others);
    let mut allowed = vec![root_canon.clone()];
    allowed.extend(shared.iter().cloned());
    let mut l = Loader {
        catalogs: Catalogs::new(all, allowed),
        root: root_canon,
        shared: shared.to_vec(),
        files: Files::default(),
        abs: Vec::new(),
        findings: Vec::new(),
        open: Vec::new(),
        expanded: 0,
        refs: 0,
        blown: false,
        included_bytes: 0,
        includes: 0,
        includes_blown: false,
        named_include: false,
    };
    let main_abs = if main.is_absolute() {
        main.to_path_buf()
    } else {
        root.join(main)
    };
    let canon = match main_abs.canonicalize() {
        Ok(c) => c,
        Err(e) => {
            let shown = main.strip_prefix(root).unwrap_or(main).to_path_buf();
            l.findings.push(Finding::error(
                codes::SOURCE_FILE,
                Location::file(shown),
                format!("cannot read the DocBook file: {e}"),
            ));
            return l.finish(None);
        }
    };
    let file = l.register(&canon);
    let text = match crate::source::read(&canon) {
        Ok(bytes) => l.decode(file, bytes),
        Err(why) => {
            let loc = Location::file(l.files.path(file));
            l.findings.push(why.finding(loc, "DocBook file"));
            return l.finish(None);
        }
    };
    l.open.push(canon);
    let mut root_el = l.parse_document(file, &text);
    if let Some(r) = root_el.as_mut()
        && l.named_include
    {
        let mut scope = vec![("xml".to_string(), NS_XML.to_string())];
        l.resolve(r, &mut scope);
    }
    l.finish(root_el)
}

#[derive(Debug, Clone)]
enum EntityValue {
    Internal(String),
    /// An external parsed entity: its system id as written, and where it leads (through the
    /// catalogs, else against the declaring file).
    External(String, Lead),
    /// An unparsed (NDATA) entity: not usable in content.
    Unparsed,
}

/// Where an external identifier leads.
#[derive(Debug, Clone)]
enum Lead {
    /// A local file; `scope` is the folder of the catalog that mapped it, where it may lie
    /// besides the book and shared folders.
    File {
        path: PathBuf,
        scope: Option<PathBuf>,
    },
    /// On the web (or another scheme): never read.
    Remote(String),
    /// DocBook's own DTD or an entity set it ships: its entities are built in.
    Known,
    /// A public id alone, which no catalog maps.
    Unresolved,
}

/// Whether a DTD or entity set is DocBook's own (4.x DTDs, their ISO and W3C entity sets),
/// whose entities the reader knows, so nothing needs reading.
fn is_docbook_dtd(public: Option<&str>, system: &str) -> bool {
    const PUBLIC: &[&str] = &[
        "-//OASIS//DTD DocBook",
        "-//OASIS//ENTITIES DocBook",
        "-//OASIS//ELEMENTS DocBook",
        "-//Norman Walsh//DTD DocBk",
        "-//Norman Walsh//ENTITIES DocBk",
        "-//Norman Walsh//ELEMENTS DocBk",
        "ISO 8879:1986//ENTITIES",
        "-//W3C//ENTITIES",
    ];
    let public = public.map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "));
    if public.is_some_and(|p| PUBLIC.iter().any(|k| p.starts_with(k))) {
        return true;
    }
    let s = system.trim();
    let web = ["oasis-open.org/docbook/", "docbook.org/xml/"];
    (s.contains("://") && web.iter().any(|w| s.contains(w)))
        || matches!(s.rsplit('/').next(), Some("docbookx.dtd"))
}

#[derive(Debug, Clone)]
struct EntityDecl {
    value: EntityValue,
    file: u32,
    pos: Pos,
}

#[derive(Default)]
struct Entities {
    general: HashMap<String, EntityDecl>,
    parameter: HashMap<String, EntityDecl>,
    size: RefCell<HashMap<String, usize>>,
}

impl Entities {
    /// The size of an entity's full expansion, without expanding it (saturating; a recursive
    /// entity is infinitely large).
    fn expanded_size(&self, name: &str, visiting: &mut Vec<String>) -> usize {
        if let Some(&s) = self.size.borrow().get(name) {
            return s;
        }
        if visiting.iter().any(|v| v == name) || visiting.len() > MAX_ENTITY_DEPTH {
            return usize::MAX;
        }
        let size = match self.general.get(name).map(|d| &d.value) {
            Some(EntityValue::Internal(v)) => {
                visiting.push(name.to_string());
                let mut total = v.len();
                for r in references(v) {
                    if self.general.contains_key(r) {
                        total = total.saturating_add(self.expanded_size(r, visiting));
                    }
                }
                visiting.pop();
                total
            }
            Some(EntityValue::External(_, Lead::File { path, .. })) => std::fs::metadata(path)
                .map(|m| usize::try_from(m.len()).unwrap_or(usize::MAX))
                .unwrap_or(0),
            _ => name.len() + 2,
        };
        self.size.borrow_mut().insert(name.to_string(), size);
        size
    }
}

impl Entities {
    /// A loop of internal entities reachable from `name` (`a → b → a`), if there is one
    /// within the nesting limit: what makes an expansion infinite rather than only large.
    fn cycle(&self, name: &str) -> Option<Vec<String>> {
        fn walk<'a>(
            ents: &'a Entities,
            name: &'a str,
            path: &mut Vec<&'a str>,
            done: &mut std::collections::HashSet<&'a str>,
        ) -> Option<Vec<String>> {
            if let Some(i) = path.iter().position(|n| *n == name) {
                let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
                cycle.push(name.to_string());
                return Some(cycle);
            }
            if done.contains(name) || path.len() > MAX_ENTITY_DEPTH {
                return None;
            }
            if let Some(EntityValue::Internal(v)) = ents.general.get(name).map(|d| &d.value) {
                path.push(name);
                for r in references(v) {
                    if let Some((r, _)) = ents.general.get_key_value(r)
                        && let Some(cycle) = walk(ents, r, path, done)
                    {
                        return Some(cycle);
                    }
                }
                path.pop();
            }
            done.insert(name);
            None
        }
        let (name, _) = self.general.get_key_value(name)?;
        walk(self, name, &mut Vec::new(), &mut Default::default())
    }
}

/// Names of the general entity references (`&name;`) in a text.
fn references(text: &str) -> impl Iterator<Item = &str> {
    text.split('&').skip(1).filter_map(|s| {
        let end = s.find(';')?;
        let name = &s[..end];
        (!name.is_empty() && !name.starts_with('#') && is_name(name)).then_some(name)
    })
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '-' | '.'))
}

/// The position of a byte offset in the text `lines` was made from.
fn pos_at(lines: &LineIndex, offset: usize) -> Pos {
    let p = lines.pos(offset);
    Pos::new(p.line, p.col)
}

/// Where the text being parsed sits: a file (positions computed from offsets), or the
/// replacement text of an internal entity (every element takes the reference's position).
#[derive(Clone, Copy)]
struct Place<'a> {
    file: u32,
    /// The whole file's line index, with the offset of the parsed slice in the file.
    whole: Option<(&'a LineIndex<'a>, usize)>,
    fixed: Pos,
}

impl Place<'_> {
    fn pos(&self, rel: usize) -> Pos {
        match self.whole {
            Some((lines, base)) => pos_at(lines, base + rel),
            None => self.fixed,
        }
    }
}

struct Loader {
    catalogs: Catalogs,
    root: PathBuf,
    /// Folders outside `root` that included files may come from.
    shared: Vec<PathBuf>,
    files: Files,
    /// The real path of each of `files`.
    abs: Vec<PathBuf>,
    findings: Vec<Finding>,
    /// Files being read, outermost first (to report loops).
    open: Vec<PathBuf>,
    expanded: usize,
    refs: usize,
    blown: bool,
    /// Bytes and files XInclude has brought in so far, and whether that went past the limits.
    included_bytes: usize,
    includes: usize,
    includes_blown: bool,
    /// Whether an element named `include` (whatever its prefix) was made: without one, XInclude
    /// has nothing to do, and the tree is not walked for it.
    named_include: bool,
}

impl Loader {
    fn finish(mut self, root: Option<Element>) -> Loaded {
        self.findings.extend(self.catalogs.take_findings());
        Loaded {
            root,
            files: self.files,
            folder: self.root,
            findings: self.findings,
        }
    }

    fn loc(&self, file: u32, pos: Pos) -> Location {
        Location::new(self.files.path(file), pos.line, pos.col)
    }

    fn error(&mut self, code: Code, file: u32, pos: Pos, message: impl Into<String>) {
        let loc = self.loc(file, pos);
        self.findings.push(Finding::error(code, loc, message));
    }

    fn warning(&mut self, code: Code, file: u32, pos: Pos, message: impl Into<String>) {
        let loc = self.loc(file, pos);
        self.findings.push(Finding::warning(code, loc, message));
    }

    fn register(&mut self, canon: &Path) -> u32 {
        if let Some(i) = self.abs.iter().position(|p| p == canon) {
            return i as u32;
        }
        let shown = canon
            .strip_prefix(&self.root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| canon.to_path_buf());
        self.files.push(shown);
        self.abs.push(canon.to_path_buf());
        (self.abs.len() - 1) as u32
    }

    fn shown(&self, canon: &Path) -> String {
        canon
            .strip_prefix(&self.root)
            .unwrap_or(canon)
            .display()
            .to_string()
    }

    /// Resolves `href` (through the catalogs, else against the file `from`), checks it stays
    /// in the book and is not being read already, and reads it. `what` names the mechanism in
    /// messages ("XInclude", "entity").
    fn open_file(
        &mut self,
        from: u32,
        pos: Pos,
        href: &str,
        what: &str,
    ) -> Result<(u32, String), Finding> {
        let lead = self.lead(from, None, href, false);
        self.open_lead(from, pos, href, what, &lead)
    }

    /// Where an identifier written in the file `from` leads: through the catalogs first (as
    /// XML Catalogs has it), else the system id against the file. For a DTD or parameter
    /// entity (`dtd`), DocBook's own identifiers are known without reading anything.
    fn lead(&mut self, from: u32, public: Option<&str>, system: &str, dtd: bool) -> Lead {
        if dtd && is_docbook_dtd(public, system) {
            return Lead::Known;
        }
        let base = self.abs[from as usize]
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let local = |system: &str| {
            let written = system.strip_prefix("file:").unwrap_or(system);
            base.join(crate::href::written_path(&base, written))
        };
        let system = Some(system).filter(|s| !s.trim().is_empty());
        if !self.catalogs.is_empty() {
            let mut found = self.catalogs.external(public, system);
            if found.is_none()
                && let Some(sys) = system.filter(|s| !s.contains(':'))
            {
                let absolute = catalog::file_uri(&local(sys));
                found = self.catalogs.external(None, Some(&absolute));
            }
            if let Some(r) = found {
                return match r.target {
                    catalog::Target::File(path) => Lead::File {
                        path,
                        scope: Some(r.scope),
                    },
                    catalog::Target::Remote(url) => Lead::Remote(url),
                };
            }
        }
        match system {
            None => Lead::Unresolved,
            Some(s) if s.starts_with("file:") => match catalog::to_target(s) {
                catalog::Target::File(path) => Lead::File { path, scope: None },
                catalog::Target::Remote(url) => Lead::Remote(url),
            },
            Some(s) if s.contains("://") => Lead::Remote(s.to_string()),
            Some(s) => Lead::File {
                path: local(s),
                scope: None,
            },
        }
    }

    /// Reads the file `lead` names (`href` as written, for messages), checking that it stays in
    /// the book, a shared folder or the folder of the catalog that mapped it.
    fn open_lead(
        &mut self,
        from: u32,
        pos: Pos,
        href: &str,
        what: &str,
        lead: &Lead,
    ) -> Result<(u32, String), Finding> {
        let loc = self.loc(from, pos);
        let (path, scope) = match lead {
            Lead::File { path, scope } => (path, scope),
            Lead::Remote(url) => {
                let mapped = if url != href {
                    format!(" (a catalog maps it to `{url}`)")
                } else {
                    String::new()
                };
                return Err(Finding::error(
                    codes::DOCBOOK_INCLUDE,
                    loc,
                    format!("the {what} `{href}` is a URL{mapped}; seihon never downloads anything"),
                )
                .with_hint("copy the file into the book folder and refer to it by a relative path, or map it to a local copy with an XML catalog"));
            }
            Lead::Known | Lead::Unresolved => {
                return Err(Finding::error(
                    codes::DOCBOOK_INCLUDE,
                    loc,
                    format!("the {what} `{href}` names no file (no catalog maps it)"),
                ));
            }
        };
        let canon = match path.canonicalize() {
            Ok(c) => c,
            Err(_) => {
                return Err(Finding::error(
                    codes::DOCBOOK_INCLUDE,
                    loc,
                    format!("the {what} file `{href}` does not exist"),
                ));
            }
        };
        let in_scope = scope.as_ref().is_some_and(|s| canon.starts_with(s));
        if !in_scope
            && !canon.starts_with(&self.root)
            && !self.shared.iter().any(|s| canon.starts_with(s))
        {
            let (message, hint) = if let Some(scope) = scope {
                (
                    format!(
                        "the {what} `{href}` is mapped by an XML catalog to {}, outside the book folder, the shared folders and the catalog's folder {}",
                        canon.display(),
                        scope.display()
                    ),
                    "keep the files a catalog maps beside the catalog (or below it), or in the book folder",
                )
            } else if self.shared.is_empty() {
                (
                    format!("the {what} file `{href}` is outside the book folder"),
                    "every file of the book must be inside the book folder, or in a folder \
                     the project shares with its books (`shared_dirs` in seihon.yml)",
                )
            } else {
                (
                    format!(
                        "the {what} file `{href}` is outside the book folder and the project's `shared_dirs`"
                    ),
                    "move the file into the book folder or into one of the shared folders",
                )
            };
            return Err(Finding::error(codes::DOCBOOK_INCLUDE, loc, message).with_hint(hint));
        }
        if let Some(i) = self.open.iter().position(|p| *p == canon) {
            let mut chain: Vec<String> = self.open[i..].iter().map(|p| self.shown(p)).collect();
            chain.push(self.shown(&canon));
            let kind = if what == "XInclude" {
                "XInclude loop"
            } else {
                "entity loop"
            };
            return Err(Finding::error(
                codes::DOCBOOK_INCLUDE,
                loc,
                format!("{kind}: {}", chain.join(" → ")),
            ));
        }
        if canon.is_dir() {
            return Err(Finding::error(
                codes::DOCBOOK_INCLUDE,
                loc,
                format!("the {what} `{href}` is a folder, not a file"),
            ));
        }
        let bytes = crate::source::read(&canon).map_err(|why| match why {
            crate::source::ReadError::Io(e) => Finding::error(
                codes::DOCBOOK_INCLUDE,
                loc.clone(),
                format!(
                    "cannot read the {what} file `{href}`: {}",
                    crate::error::plain_io(&e)
                ),
            ),
            too_large => Finding::error(
                codes::DOCBOOK_INCLUDE,
                loc.clone(),
                format!("the {what} file `{href}`: {}", too_large.message("file")),
            )
            .with_hint(too_large.hint().unwrap_or_default()),
        })?;
        let file = self.register(&canon);
        let text = self.decode(file, bytes);
        Ok((file, text))
    }

    /// Bytes → text: UTF-8 (BOM skipped) or ISO-8859-1 when declared; anything else is an error.
    fn decode(&mut self, file: u32, bytes: Vec<u8>) -> String {
        if let Some(d) = self.files.digests.get_mut(file as usize) {
            let key = crate::cache::Key::new("docbook file").bytes(&bytes);
            *d = key.finish().unwrap_or_default();
        }
        let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => rest.to_vec(),
            None => bytes,
        };
        if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
            self.error(
                codes::SOURCE_FILE,
                file,
                Pos::new(1, 1),
                "this file is UTF-16; save it as UTF-8",
            );
            return String::new();
        }
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
        let encoding = head
            .starts_with("<?xml")
            .then(|| head.find("?>").map(|end| &head[..end]))
            .flatten()
            .and_then(|decl| {
                let i = decl.find("encoding")?;
                let rest = decl[i + 8..].trim_start().strip_prefix('=')?.trim_start();
                // Only a quote can open the value (found by fuzzing: a multi-byte character here).
                let q = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
                let rest = &rest[q.len_utf8()..];
                Some(rest[..rest.find(q)?].to_ascii_lowercase())
            });
        match encoding.as_deref() {
            None | Some("utf-8" | "utf8" | "us-ascii" | "ascii") => {}
            Some("iso-8859-1" | "iso_8859-1" | "latin1" | "latin-1" | "l1" | "iso8859-1") => {
                return bytes.iter().map(|&b| char::from(b)).collect();
            }
            Some(other) => {
                self.error(
                    codes::SOURCE_FILE,
                    file,
                    Pos::new(1, 1),
                    format!("this file is declared as `{other}`; save it as UTF-8"),
                );
            }
        }
        match String::from_utf8(bytes) {
            Ok(s) => {
                // NUL is no XML character: a binary file, or UTF-16 without a byte order mark.
                if let Some(at) = s.find('\0') {
                    let pos = pos_at(&LineIndex::new(&s), at);
                    self.error(
                        codes::SOURCE_FILE,
                        file,
                        pos,
                        "this file holds a NUL character, so it is not text (is it binary, \
                         or UTF-16?); save it as UTF-8",
                    );
                }
                s
            }
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let pos = pos_at(&LineIndex::new(&text), at);
                self.error(
                    codes::SOURCE_FILE,
                    file,
                    pos,
                    "this file is not valid UTF-8; save it as UTF-8 (or declare \
                     encoding=\"ISO-8859-1\" if that is what it is)",
                );
                text
            }
        }
    }

    /// Parses a whole document (prolog, DOCTYPE with its internal subset, one root element).
    fn parse_document(&mut self, file: u32, text: &str) -> Option<Element> {
        let lines = LineIndex::new(text);
        let place = Place {
            file,
            whole: Some((&lines, 0)),
            fixed: Pos::new(1, 1),
        };
        let mut ents = Entities::default();
        let mut i = 0;
        loop {
            let rest = &text[i..];
            let trimmed = rest.trim_start();
            i += rest.len() - trimmed.len();
            if trimmed.starts_with("<?") {
                match trimmed.find("?>") {
                    Some(end) => i += end + 2,
                    None => break,
                }
            } else if trimmed.starts_with("<!--") {
                match trimmed.find("-->") {
                    Some(end) => i += end + 3,
                    None => {
                        self.error(
                            codes::DOCBOOK_XML,
                            file,
                            place.pos(i),
                            "this comment is never closed with `-->`",
                        );
                        return None;
                    }
                }
            } else if trimmed.starts_with("<!DOCTYPE") {
                match self.doctype(&mut ents, place, text, i + 9) {
                    Some(end) => i = end,
                    None => return None,
                }
            } else {
                break;
            }
        }
        let place = Place {
            file,
            whole: Some((&lines, i)),
            fixed: Pos::new(1, 1),
        };
        let mut nodes = Vec::new();
        self.parse_content(&ents, &text[i..], place, 0, &mut nodes, &mut Vec::new());
        // (Anything else at the top level was reported as it was read.)
        let root = nodes.into_iter().find_map(|n| match n {
            Node::Element(e) => Some(e),
            _ => None,
        });
        if root.is_none()
            && !self
                .findings
                .iter()
                .any(|f| f.severity == crate::error::Severity::Error)
        {
            self.error(
                codes::DOCBOOK_XML,
                file,
                Pos::new(1, 1),
                "this file has no root element",
            );
        }
        root.map(|r| *r)
    }

    /// Reads `<!DOCTYPE name ext-id? [subset]? >` starting after `<!DOCTYPE`; returns the offset
    /// after its `>`.
    fn doctype(
        &mut self,
        ents: &mut Entities,
        place: Place,
        text: &str,
        mut i: usize,
    ) -> Option<usize> {
        let bytes = text.as_bytes();
        let (id_start, doctype_pos) = (i, place.pos(i.saturating_sub(9)));
        while i < bytes.len() && bytes[i] != b'[' && bytes[i] != b'>' {
            if bytes[i] == b'"' || bytes[i] == b'\'' {
                let q = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    i += 1;
                }
            }
            i += 1;
        }
        if i >= bytes.len() {
            self.error(
                codes::DOCBOOK_XML,
                place.file,
                place.pos(i.min(text.len())),
                "the DOCTYPE is never closed with `>`",
            );
            return None;
        }
        let (public, system) = external_id(&text[id_start..i]);
        if bytes[i] == b'[' {
            i = self.decls(ents, text, place, i + 1, End::Subset, 0);
            if !text[i..].starts_with(']') {
                self.error(
                    codes::DOCBOOK_XML,
                    place.file,
                    place.pos(i),
                    "the DOCTYPE's internal subset is never closed with `]>`",
                );
                return None;
            }
            i += 1;
            let rest = &text[i..];
            let trimmed = rest.trim_start();
            i += rest.len() - trimmed.len();
        }
        if !text[i..].starts_with('>') {
            self.error(
                codes::DOCBOOK_XML,
                place.file,
                place.pos(i),
                "the DOCTYPE is never closed with `>`",
            );
            return None;
        }
        // The internal subset is read first, so its declarations win (XML 1.0 §4.2).
        if public.is_some() || system.is_some() {
            let (public, system) = (public.as_deref(), system.as_deref().unwrap_or(""));
            self.external_dtd(ents, place.file, doctype_pos, public, system, 0);
        }
        Some(i + 1)
    }

    /// Reads the entity declarations of an external DTD or parameter entity, when it is one
    /// seihon may read; one it may not (on the web, missing, outside the book) is skipped with
    /// a warning, and the entities it would declare stay unknown.
    fn external_dtd(
        &mut self,
        ents: &mut Entities,
        file: u32,
        pos: Pos,
        public: Option<&str>,
        system: &str,
        depth: usize,
    ) {
        let lead = self.lead(file, public, system, true);
        let shown = if system.is_empty() {
            public.unwrap_or_default()
        } else {
            system
        };
        self.read_dtd(ents, file, pos, shown, &lead, depth);
    }

    /// Reads the DTD (or parameter entity) `lead` names (`shown` as written), as
    /// [`Self::external_dtd`] says; its problems are warnings, since a DTD only declares.
    fn read_dtd(
        &mut self,
        ents: &mut Entities,
        file: u32,
        pos: Pos,
        shown: &str,
        lead: &Lead,
        depth: usize,
    ) {
        let why = match lead {
            Lead::Known => return,
            Lead::Remote(url) => {
                format!("`{url}` is on the web, and seihon never downloads anything")
            }
            Lead::Unresolved => "no XML catalog maps its public id".to_string(),
            Lead::File { .. } => match self.open_lead(file, pos, shown, "DTD", lead) {
                Ok((f, text)) => {
                    let canon = self.abs[f as usize].clone();
                    self.open.push(canon);
                    let start = text_decl_end(&text);
                    let lines = LineIndex::new(&text);
                    let place = Place {
                        file: f,
                        whole: Some((&lines, 0)),
                        fixed: Pos::new(1, 1),
                    };
                    let before = self.findings.len();
                    self.decls(ents, &text, place, start, End::Eof, depth + 1);
                    self.open.pop();
                    // A DTD's own defects cost at most the entities it declares: warnings.
                    for f in &mut self.findings[before..] {
                        if f.severity == crate::error::Severity::Error
                            && f.code == codes::DOCBOOK_XML.name()
                        {
                            *f = Finding::warning(
                                codes::UNREAD_DTD,
                                f.location.clone(),
                                format!("in this DTD, {}", f.message),
                            );
                        }
                    }
                    return;
                }
                // Said of the DTD already named: "it is outside …", "it does not exist".
                Err(f) => f
                    .message
                    .replacen(&format!("the DTD file `{shown}` "), "it ", 1)
                    .replacen(&format!("the DTD `{shown}` "), "it ", 1),
            },
        };
        let loc = self.loc(file, pos);
        self.findings.push(
            Finding::warning(
                codes::UNREAD_DTD,
                loc,
                format!("the DTD `{shown}` is not read: {why}; the entities it declares are unknown"),
            )
            .with_hint("put the DTD in the book folder and map its identifier to it with an XML catalog (a catalog.xml in the book folder, `catalogs:` in book.yml or seihon.yml, or XML_CATALOG_FILES)"),
        );
    }

    /// Reads markup declarations from `text[i..]` until `end`; returns where it stopped (at
    /// the `]` or `]]>`).
    fn decls(
        &mut self,
        ents: &mut Entities,
        text: &str,
        place: Place,
        mut i: usize,
        end: End,
        depth: usize,
    ) -> usize {
        if depth > MAX_ENTITY_DEPTH {
            self.error(
                codes::DOCBOOK_XML,
                place.file,
                place.pos(i),
                "parameter entities are nested too deeply",
            );
            return text.len();
        }
        loop {
            let rest = &text[i..];
            let trimmed = rest.trim_start();
            i += rest.len() - trimmed.len();
            if trimmed.is_empty() {
                return i;
            }
            match end {
                End::Subset if trimmed.starts_with(']') => return i,
                End::Section if trimmed.starts_with("]]>") => return i,
                _ => {}
            }
            if let Some(r) = trimmed.strip_prefix('%') {
                let Some(end) = r.find(';') else {
                    self.error(codes::DOCBOOK_XML, place.file, place.pos(i), "a `%` in the DOCTYPE must start a parameter entity reference such as `%name;`");
                    return text.len();
                };
                let name = r[..end].to_string();
                let pos = place.pos(i);
                i += end + 2;
                self.pe_reference(ents, &name, place.file, pos, depth);
            } else if trimmed.starts_with("<!--") {
                match trimmed.find("-->") {
                    Some(end) => i += end + 3,
                    None => {
                        self.error(
                            codes::DOCBOOK_XML,
                            place.file,
                            place.pos(i),
                            "this comment is never closed with `-->`",
                        );
                        return text.len();
                    }
                }
            } else if trimmed.starts_with("<?") {
                match trimmed.find("?>") {
                    Some(end) => i += end + 2,
                    None => return text.len(),
                }
            } else if trimmed.starts_with("<![") {
                i = self.conditional(ents, text, place, i, depth);
            } else if trimmed.starts_with("<!ENTITY") {
                i = self.entity_decl(ents, text, place, i + 8, depth);
            } else if trimmed.starts_with("<!") {
                // ELEMENT, ATTLIST, NOTATION: skipped, honouring quotes.
                let bytes = text.as_bytes();
                let mut j = i + 2;
                while j < bytes.len() && bytes[j] != b'>' {
                    if bytes[j] == b'"' || bytes[j] == b'\'' {
                        let q = bytes[j];
                        j += 1;
                        while j < bytes.len() && bytes[j] != q {
                            j += 1;
                        }
                    }
                    j += 1;
                }
                i = (j + 1).min(text.len());
            } else {
                self.error(
                    codes::DOCBOOK_XML,
                    place.file,
                    place.pos(i),
                    "unexpected text in the DOCTYPE; only declarations such as `<!ENTITY …>` may appear there",
                );
                match text[i..].find('<') {
                    Some(k) => i += k.max(1),
                    None => return text.len(),
                }
            }
        }
    }

    /// A conditional section at `text[i..]` (`<![INCLUDE[ … ]]>` or `<![IGNORE[ … ]]>`, the
    /// keyword perhaps given by a parameter entity); returns the offset after its `]]>`.
    fn conditional(
        &mut self,
        ents: &mut Entities,
        text: &str,
        place: Place,
        i: usize,
        depth: usize,
    ) -> usize {
        let pos = place.pos(i);
        let unclosed = |l: &mut Self| {
            l.error(
                codes::DOCBOOK_XML,
                place.file,
                pos,
                "this conditional section is never closed with `]]>`",
            );
            text.len()
        };
        let Some(k) = text[i + 3..].find('[') else {
            return unclosed(self);
        };
        let written = text[i + 3..i + 3 + k].trim();
        let body = i + 3 + k + 1;
        let keyword = match written.strip_prefix('%').and_then(|r| r.strip_suffix(';')) {
            Some(name) => match ents.parameter.get(name).map(|d| &d.value) {
                Some(EntityValue::Internal(v)) => v.trim().to_string(),
                _ => {
                    self.warning(
                        codes::UNKNOWN_ENTITY,
                        place.file,
                        pos,
                        format!("the parameter entity `%{name};` is not declared; the section it opens is ignored"),
                    );
                    "IGNORE".to_string()
                }
            },
            None => written.to_string(),
        };
        if keyword == "INCLUDE" {
            let end = self.decls(ents, text, place, body, End::Section, depth);
            return if text[end..].starts_with("]]>") {
                end + 3
            } else {
                unclosed(self)
            };
        }
        if keyword != "IGNORE" {
            self.error(
                codes::DOCBOOK_XML,
                place.file,
                pos,
                format!("a conditional section is `INCLUDE` or `IGNORE`, not `{keyword}`"),
            );
        }
        // Ignored: skipped to its `]]>`, past the sections nested in it.
        let mut level = 1usize;
        let mut j = body;
        loop {
            let Some(k) = text[j..].find(['<', ']']) else {
                return unclosed(self);
            };
            j += k;
            if text[j..].starts_with("<![") {
                level += 1;
                j += 3;
            } else if text[j..].starts_with("]]>") {
                level -= 1;
                j += 3;
                if level == 0 {
                    return j;
                }
            } else {
                j += 1;
            }
        }
    }

    fn pe_reference(&mut self, ents: &mut Entities, name: &str, file: u32, pos: Pos, depth: usize) {
        let Some(decl) = ents.parameter.get(name).cloned() else {
            self.warning(
                codes::UNKNOWN_ENTITY,
                file,
                pos,
                format!("the parameter entity `%{name};` is not declared"),
            );
            return;
        };
        match decl.value {
            EntityValue::Internal(v) => {
                let place = Place {
                    file,
                    whole: None,
                    fixed: pos,
                };
                self.decls(ents, &v, place, 0, End::Eof, depth + 1);
            }
            EntityValue::External(href, lead) => {
                if depth > MAX_ENTITY_DEPTH {
                    self.error(
                        codes::DOCBOOK_XML,
                        file,
                        pos,
                        "parameter entities are nested too deeply",
                    );
                    return;
                }
                self.read_dtd(ents, file, pos, &href, &lead, depth);
            }
            EntityValue::Unparsed => {}
        }
    }

    /// `<!ENTITY` already read; returns the offset after the closing `>`.
    fn entity_decl(
        &mut self,
        ents: &mut Entities,
        text: &str,
        place: Place,
        mut i: usize,
        depth: usize,
    ) -> usize {
        let decl_pos = place.pos(i.saturating_sub(8));
        let skip_ws = |i: &mut usize| {
            let rest = &text[*i..];
            *i += rest.len() - rest.trim_start().len();
        };
        let word = |i: &mut usize| -> String {
            let rest = &text[*i..];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '>' || c == '"' || c == '\'')
                .unwrap_or(rest.len());
            *i += end;
            rest[..end].to_string()
        };
        let bad = |l: &mut Self, i: usize| {
            l.error(
                codes::DOCBOOK_XML,
                place.file,
                decl_pos,
                "this `<!ENTITY` declaration is malformed",
            );
            match text[i..].find('>') {
                Some(k) => i + k + 1,
                None => text.len(),
            }
        };
        skip_ws(&mut i);
        let parameter = text[i..].starts_with('%');
        if parameter {
            i += 1;
            skip_ws(&mut i);
        }
        let name = word(&mut i);
        if name.is_empty() {
            return bad(self, i);
        }
        skip_ws(&mut i);
        let quoted = |i: &mut usize| -> Option<String> {
            let q = text[*i..]
                .chars()
                .next()
                .filter(|c| *c == '"' || *c == '\'')?;
            let end = text[*i + 1..].find(q)?;
            let s = text[*i + 1..*i + 1 + end].to_string();
            *i += end + 2;
            Some(s)
        };
        let value = if text[i..].starts_with('"') || text[i..].starts_with('\'') {
            let Some(lit) = quoted(&mut i) else {
                return bad(self, i);
            };
            EntityValue::Internal(self.literal(ents, &lit, place.file, decl_pos, depth))
        } else {
            let kw = word(&mut i);
            skip_ws(&mut i);
            let mut public = None;
            if kw == "PUBLIC" {
                public = quoted(&mut i);
                if public.is_none() {
                    return bad(self, i);
                }
                skip_ws(&mut i);
            } else if kw != "SYSTEM" {
                return bad(self, i);
            }
            let Some(sys) = quoted(&mut i) else {
                return bad(self, i);
            };
            skip_ws(&mut i);
            if text[i..].starts_with("NDATA") {
                i += 5;
                skip_ws(&mut i);
                word(&mut i);
                EntityValue::Unparsed
            } else {
                let lead = self.lead(place.file, public.as_deref(), &sys, parameter);
                EntityValue::External(sys, lead)
            }
        };
        skip_ws(&mut i);
        if !text[i..].starts_with('>') {
            return bad(self, i);
        }
        let map = if parameter {
            &mut ents.parameter
        } else {
            &mut ents.general
        };
        // The first declaration wins (XML 1.0 §4.2).
        map.entry(name).or_insert(EntityDecl {
            value,
            file: place.file,
            pos: decl_pos,
        });
        i + 1
    }

    /// An entity value literal: parameter entity and character references are replaced now,
    /// general entity references are kept for when the entity is used.
    fn literal(
        &mut self,
        ents: &mut Entities,
        lit: &str,
        file: u32,
        pos: Pos,
        depth: usize,
    ) -> String {
        let mut out = String::with_capacity(lit.len());
        let mut rest = lit;
        while let Some(k) = rest.find(['%', '&']) {
            out.push_str(&rest[..k]);
            let r = &rest[k..];
            let end = r.find(';');
            match (r.as_bytes()[0], end) {
                (b'&', Some(end)) if r[1..].starts_with('#') => {
                    match char_ref(&r[1..end]) {
                        Some(c) => out.push(c),
                        None => out.push_str(&r[..=end]),
                    }
                    rest = &r[end + 1..];
                }
                (b'%', Some(end)) if is_name(&r[1..end]) && depth < MAX_ENTITY_DEPTH => {
                    let name = &r[1..end];
                    match ents.parameter.get(name).map(|d| d.value.clone()) {
                        Some(EntityValue::Internal(v)) => out.push_str(&v),
                        Some(EntityValue::External(href, lead)) => {
                            if let Ok((_, t)) = self.open_lead(file, pos, &href, "entity", &lead) {
                                out.push_str(&t[text_decl_end(&t)..]);
                            }
                        }
                        _ => {
                            self.warning(
                                codes::UNKNOWN_ENTITY,
                                file,
                                pos,
                                format!("the parameter entity `%{name};` is not declared"),
                            );
                        }
                    }
                    rest = &r[end + 1..];
                }
                _ => {
                    out.push_str(&r[..1]);
                    rest = &r[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Parses content (elements, text, references) from `text`, appending the nodes to `out`.
    /// Returns false when the text is not well-formed (what was read is still appended).
    fn parse_content(
        &mut self,
        ents: &Entities,
        text: &str,
        place: Place,
        depth: usize,
        out: &mut Vec<Node>,
        expanding: &mut Vec<String>,
    ) -> bool {
        let mut reader = Reader::from_str(text);
        {
            let c = reader.config_mut();
            c.check_end_names = true;
            c.expand_empty_elements = false;
            c.trim_text(false);
        }
        let mut stack: Vec<Element> = Vec::new();
        let mut ok = true;
        let mut top = TopLevel::default();
        loop {
            let start = usize::try_from(reader.buffer_position()).unwrap_or(0);
            let event = match reader.read_event() {
                Ok(ev) => ev,
                Err(e) => {
                    let at = usize::try_from(reader.error_position()).unwrap_or(start);
                    let msg = error_message(&e, &stack);
                    self.error(codes::DOCBOOK_XML, place.file, place.pos(at), msg);
                    ok = false;
                    break;
                }
            };
            match event {
                Event::Start(e) => {
                    if stack.len() >= MAX_ELEMENT_DEPTH {
                        self.error(
                            codes::TOO_DEEP,
                            place.file,
                            place.pos(start),
                            format!(
                                "elements are nested more than {MAX_ELEMENT_DEPTH} levels deep"
                            ),
                        );
                        ok = false;
                        break;
                    }
                    let el = self.start_tag(ents, &e, place, start);
                    stack.push(el);
                }
                Event::Empty(e) => {
                    let el = self.start_tag(ents, &e, place, start);
                    push_node(&mut stack, out, Node::from(el));
                }
                Event::End(_) => {
                    if let Some(mut el) = stack.pop() {
                        el.children.shrink_to_fit();
                        push_node(&mut stack, out, Node::from(el));
                    }
                }
                Event::Text(t) => push_text(&mut stack, out, &t.xml10_content()),
                Event::CData(t) => push_text(&mut stack, out, &t.xml10_content()),
                Event::GeneralRef(r) => {
                    let name: &str = &r;
                    let pos = place.pos(start);
                    self.reference(
                        ents, name, place.file, pos, depth, &mut stack, out, expanding,
                    );
                }
                Event::DocType(_) => {
                    self.error(
                        codes::DOCBOOK_XML,
                        place.file,
                        place.pos(start),
                        "a DOCTYPE may only come before the root element",
                    );
                }
                // A print page break (`<?page 12?>`) inside the document is kept as the
                // `beginpage` it stands for; every other instruction is dropped.
                Event::PI(pi) if !stack.is_empty() => {
                    if let Some(el) = page_pi(pi.target(), pi.content()) {
                        let mut el = el;
                        el.src = Some(self.files.src(place.file, place.pos(start)));
                        push_node(&mut stack, out, Node::from(el));
                    }
                }
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) => {}
                Event::Eof => break,
            }
            // Only a document has a top level (an entity's replacement text has none).
            if depth == 0 && stack.is_empty() {
                self.check_top(out, &mut top, place.file, place.pos(start));
            }
        }
        if ok && let Some(open) = stack.last() {
            let message = format!("`<{}>` is never closed", open.name);
            self.error(codes::DOCBOOK_XML, place.file, pos_of(open), message);
            ok = false;
        }
        while let Some(el) = stack.pop() {
            push_node(&mut stack, out, Node::from(el));
        }
        if depth == 0 {
            // An element left open, closed just now, may come after the root too.
            self.check_top(out, &mut top, place.file, place.pos(text.len()));
        }
        ok
    }

    /// Reports what a document's top level must not hold: an element after the root, text
    /// other than white space (at `pos`, where the event that added it starts).
    fn check_top(&mut self, out: &[Node], top: &mut TopLevel, file: u32, pos: Pos) {
        for n in &out[top.checked..] {
            match n {
                Node::Element(_) if !top.root_seen => top.root_seen = true,
                Node::Element(e) => self.error(
                    codes::DOCBOOK_XML,
                    self.files.of(e),
                    pos_of(e),
                    format!(
                        "a document has one root element, but `<{}>` comes after it",
                        e.name
                    ),
                ),
                Node::Text(t) if !t.trim().is_empty() => self.error(
                    codes::DOCBOOK_XML,
                    file,
                    pos,
                    "there is text outside the root element",
                ),
                _ => {}
            }
        }
        // White space at the end is looked at again: text may join it.
        let blank_end = matches!(out.last(), Some(Node::Text(t)) if t.trim().is_empty());
        top.checked = out.len() - usize::from(blank_end);
    }

    fn start_tag(
        &mut self,
        ents: &Entities,
        e: &quick_xml::events::BytesStart<'_>,
        place: Place,
        start: usize,
    ) -> Element {
        let pos = place.pos(start);
        let mut el = Element::new(e.name().0);
        self.named_include |= el.local_name() == "include";
        el.src = Some(self.files.src(place.file, pos));
        for attr in e.attributes().with_checks(false) {
            match attr {
                Ok(a) => {
                    let value = self.attr_value(ents, &a.value, place.file, pos, 0);
                    el.attrs.push((a.key.0.to_string(), value));
                }
                Err(err) => {
                    self.error(
                        codes::DOCBOOK_XML,
                        place.file,
                        pos,
                        format!("bad attribute syntax in `<{}>`: {err}", el.name),
                    );
                    break;
                }
            }
        }
        el.attrs.shrink_to_fit();
        el
    }

    fn attr_value(
        &mut self,
        ents: &Entities,
        raw: &str,
        file: u32,
        pos: Pos,
        depth: usize,
    ) -> String {
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(k) = rest.find('&') {
            out.push_str(&rest[..k]);
            let r = &rest[k + 1..];
            let Some(end) = r.find(';') else {
                self.error(
                    codes::DOCBOOK_XML,
                    file,
                    pos,
                    "a `&` in an attribute value must start an entity such as `&amp;`",
                );
                out.push('&');
                rest = r;
                continue;
            };
            let name = &r[..end];
            rest = &r[end + 1..];
            if name.starts_with('#') {
                match char_ref(name) {
                    Some(c) => out.push(c),
                    None => {
                        self.error(
                            codes::DOCBOOK_XML,
                            file,
                            pos,
                            format!("`&{name};` is not a valid character reference"),
                        );
                    }
                }
            } else if let Some(v) = ["amp", "lt", "gt", "quot", "apos"]
                .contains(&name)
                .then(|| entities::builtin(name))
                .flatten()
            {
                out.push_str(v);
            } else if let Some(EntityValue::Internal(v)) = ents.general.get(name).map(|d| &d.value)
            {
                if depth >= MAX_ENTITY_DEPTH || self.blown {
                    self.too_large(file, pos);
                } else {
                    let size = ents.expanded_size(name, &mut Vec::new());
                    if size == usize::MAX && self.refuse_cycle(ents, name, file, pos) {
                        // Reported as the loop it is.
                    } else if size > MAX_EXPANDED_BYTES {
                        self.too_large(file, pos);
                    } else {
                        let v = v.clone();
                        let s = self.attr_value(ents, &v, file, pos, depth + 1);
                        out.push_str(&s);
                    }
                }
            } else if let Some(v) = entities::builtin(name) {
                out.push_str(v);
            } else {
                self.warning(
                    codes::UNKNOWN_ENTITY,
                    file,
                    pos,
                    format!("the entity `&{name};` is not defined; it is kept as written"),
                );
                out.push('&');
                out.push_str(name);
                out.push(';');
            }
        }
        out.push_str(rest);
        out.replace(['\t', '\n', '\r'], " ")
    }

    fn too_large(&mut self, file: u32, pos: Pos) {
        if !self.blown {
            self.blown = true;
            self.error(codes::DOCBOOK_XML, file, pos, TOO_LARGE);
        }
    }

    /// Refuses `&name;` when its definition loops back to it; true when it does.
    fn refuse_cycle(&mut self, ents: &Entities, name: &str, file: u32, pos: Pos) -> bool {
        let Some(cycle) = ents.cycle(name) else {
            return false;
        };
        let loc = self.loc(file, pos);
        let shown: Vec<String> = cycle.iter().map(|n| format!("&{n};")).collect();
        self.findings.push(
            Finding::error(
                codes::DOCBOOK_XML,
                loc,
                format!(
                    "the entity `&{name};` cannot be expanded: its definition refers back to itself ({})",
                    shown.join(" → ")
                ),
            )
            .with_hint("change one of these entity definitions so that they no longer loop"),
        );
        self.blown = true;
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn reference(
        &mut self,
        ents: &Entities,
        name: &str,
        file: u32,
        pos: Pos,
        depth: usize,
        stack: &mut [Element],
        out: &mut Vec<Node>,
        expanding: &mut Vec<String>,
    ) {
        if name.starts_with('#') {
            match char_ref(name) {
                Some(c) => push_text(stack, out, c.encode_utf8(&mut [0; 4])),
                None => self.error(
                    codes::DOCBOOK_XML,
                    file,
                    pos,
                    format!("`&{name};` is not a valid character reference"),
                ),
            }
            return;
        }
        if matches!(name, "amp" | "lt" | "gt" | "quot" | "apos") {
            push_text(stack, out, entities::builtin(name).unwrap_or(""));
            return;
        }
        let Some(decl) = ents.general.get(name) else {
            if let Some(v) = entities::builtin(name) {
                push_text(stack, out, v);
            } else {
                self.warning(
                    codes::UNKNOWN_ENTITY,
                    file,
                    pos,
                    format!("the entity `&{name};` is not defined; it is kept as written"),
                );
                push_text(stack, out, &format!("&{name};"));
            }
            return;
        };
        if self.blown {
            return;
        }
        if expanding.iter().any(|n| n == name) {
            self.error(
                codes::DOCBOOK_XML,
                file,
                pos,
                format!("the entity `&{name};` refers to itself"),
            );
            return;
        }
        if depth >= MAX_ENTITY_DEPTH {
            self.too_large(file, pos);
            return;
        }
        let size = ents.expanded_size(name, &mut Vec::new());
        if size == usize::MAX && self.refuse_cycle(ents, name, file, pos) {
            return;
        }
        self.refs += 1;
        self.expanded = self.expanded.saturating_add(size);
        if size > MAX_EXPANDED_BYTES
            || self.expanded > MAX_EXPANDED_BYTES * 4
            || self.refs > MAX_ENTITY_REFS
        {
            self.too_large(file, pos);
            return;
        }
        let mut nodes = Vec::new();
        match decl.value.clone() {
            EntityValue::Internal(v) => {
                let place = Place {
                    file,
                    whole: None,
                    fixed: pos,
                };
                expanding.push(name.to_string());
                if !self.parse_content(ents, &v, place, depth + 1, &mut nodes, expanding) {
                    self.error(
                        codes::DOCBOOK_XML,
                        file,
                        pos,
                        format!("the replacement text of `&{name};` is not well-formed XML"),
                    );
                }
                expanding.pop();
            }
            EntityValue::External(href, lead) => {
                match self.open_lead(decl.file, decl.pos, &href, "entity", &lead) {
                    Ok((f, text)) => {
                        let canon = self.abs[f as usize].clone();
                        self.open.push(canon);
                        let start = text_decl_end(&text);
                        let lines = LineIndex::new(&text);
                        let place = Place {
                            file: f,
                            whole: Some((&lines, start)),
                            fixed: Pos::new(1, 1),
                        };
                        expanding.push(name.to_string());
                        self.parse_content(
                            ents,
                            &text[start..],
                            place,
                            depth + 1,
                            &mut nodes,
                            expanding,
                        );
                        expanding.pop();
                        self.open.pop();
                    }
                    Err(mut finding) => {
                        finding.location = self.loc(file, pos);
                        finding.message = format!("`&{name};`: {}", finding.message);
                        self.findings.push(finding);
                        push_text(stack, out, &format!("&{name};"));
                    }
                }
            }
            EntityValue::Unparsed => {
                self.warning(
                    codes::UNKNOWN_ENTITY,
                    file,
                    pos,
                    format!("`&{name};` is an unparsed (NDATA) entity and cannot be used in text"),
                );
            }
        }
        for n in nodes {
            push_node(stack, out, n);
        }
    }

    /// Performs XInclude, depth first; `scope` holds the namespace declarations in force
    /// (prefix, URI), by which an `include` is known to be XInclude's.
    fn resolve(&mut self, e: &mut Element, scope: &mut Vec<(String, String)>) {
        let mark = scope.len();
        push_namespaces(e, scope);
        let includes = |n: &Node| matches!(n, Node::Element(c) if c.local_name() == "include");
        if !e.children.iter().any(includes) {
            // Nothing to replace here: the children stay where they are (taking every list
            // apart and putting it together again was a tenth of loading a book).
            for child in &mut e.children {
                if let Node::Element(c) = child {
                    self.resolve(c, scope);
                }
            }
            scope.truncate(mark);
            return;
        }
        let children = std::mem::take(&mut e.children);
        let mut out = Vec::with_capacity(children.len());
        for child in children {
            match child {
                Node::Element(mut c) => {
                    let cprefix = c.name.split_once(':').map_or("", |(p, _)| p);
                    let is_xi = c.local_name() == "include" && {
                        let own = c
                            .attrs
                            .iter()
                            .find(|(k, _)| {
                                if cprefix.is_empty() {
                                    k == "xmlns"
                                } else {
                                    k.strip_prefix("xmlns:") == Some(cprefix)
                                }
                            })
                            .map(|(_, v)| v.clone());
                        let ns = own.or_else(|| {
                            scope
                                .iter()
                                .rev()
                                .find(|(p, _)| p == cprefix)
                                .map(|(_, u)| u.clone())
                        });
                        matches!(ns.as_deref(), Some(NS_XINCLUDE | NS_XINCLUDE_OLD))
                    };
                    if is_xi {
                        for n in self.xinclude(&c, scope) {
                            push_node(&mut [], &mut out, n);
                        }
                    } else {
                        self.resolve(&mut c, scope);
                        out.push(Node::Element(c));
                    }
                }
                t => push_node(&mut [], &mut out, t),
            }
        }
        e.children = out;
        scope.truncate(mark);
    }

    fn xinclude(&mut self, inc: &Element, scope: &mut Vec<(String, String)>) -> Vec<Node> {
        let (file, pos) = (self.files.of(inc), pos_of(inc));
        let fallback = inc
            .child_elements()
            .find(|c| c.local_name() == "fallback")
            .cloned();
        let use_fallback = |l: &mut Self, scope: &mut Vec<(String, String)>| -> Vec<Node> {
            let Some(mut fb) = fallback.clone() else {
                return Vec::new();
            };
            l.resolve(&mut fb, scope);
            fb.children
        };
        let Some(href) = inc.attr("href").map(str::trim).filter(|h| !h.is_empty()) else {
            self.warning(
                codes::UNSUPPORTED,
                file,
                pos,
                "an `xi:include` without `href` (an xpointer into the same file) is not supported; it is skipped",
            );
            return use_fallback(self, scope);
        };
        if inc.attr("xpointer").is_some() {
            self.warning(
                codes::UNSUPPORTED,
                file,
                pos,
                "`xpointer` in `xi:include` is not supported; the whole file is included",
            );
        }
        let parse_text = inc.attr("parse") == Some("text");
        if self.includes_blown {
            return Vec::new();
        }
        let opened = self.open_file(file, pos, href, "XInclude");
        if let Ok((f, text)) = &opened {
            self.includes += 1;
            self.included_bytes = self.included_bytes.saturating_add(text.len());
            if self.includes > MAX_INCLUDES || self.included_bytes > MAX_INCLUDED_BYTES {
                self.includes_blown = true;
                let mut chain: Vec<String> = self.open.iter().map(|p| self.shown(p)).collect();
                chain.push(self.shown(&self.abs[*f as usize].clone()));
                let loc = self.loc(file, pos);
                self.findings.push(
                    Finding::error(
                        codes::DOCBOOK_INCLUDE,
                        loc,
                        format!(
                            "XIncludes bring in more than {} MiB or {} files (a file included over and over?), here: {}",
                            MAX_INCLUDED_BYTES / (1024 * 1024),
                            MAX_INCLUDES,
                            chain.join(" → ")
                        ),
                    )
                    .with_hint("include each file once; a part used in several places is better as a link (xref)"),
                );
                return Vec::new();
            }
        }
        match opened {
            Err(finding) => {
                if fallback.is_some() {
                    use_fallback(self, scope)
                } else {
                    self.findings.push(finding);
                    Vec::new()
                }
            }
            Ok((f, text)) if parse_text => {
                if let Some(t) = self.files.textual.get_mut(f as usize) {
                    *t = true;
                }
                vec![Node::Text(text.replace("\r\n", "\n"))]
            }
            Ok((f, text)) => {
                let canon = self.abs[f as usize].clone();
                self.open.push(canon);
                let mut nodes = Vec::new();
                if let Some(mut r) = self.parse_document(f, &text) {
                    self.resolve(&mut r, scope);
                    nodes.push(Node::from(r));
                }
                self.open.pop();
                nodes
            }
        }
    }
}

/// Where a run of markup declarations ends.
#[derive(Clone, Copy)]
enum End {
    /// The end of the text (an external DTD or parameter entity).
    Eof,
    /// The `]` closing the internal subset.
    Subset,
    /// The `]]>` closing an included conditional section.
    Section,
}

/// The public and system ids of a DOCTYPE, given the text between `<!DOCTYPE` and its `[` or
/// `>` (`book PUBLIC "…" "…"`, `book SYSTEM "…"`, or the name alone).
fn external_id(text: &str) -> (Option<String>, Option<String>) {
    let rest = text.trim_start();
    let rest = rest[rest.find(char::is_whitespace).unwrap_or(rest.len())..].trim_start();
    let literal = |s: &str| -> Option<(String, usize)> {
        let q = s.chars().next().filter(|c| matches!(c, '"' | '\''))?;
        let end = s[1..].find(q)?;
        Some((s[1..1 + end].to_string(), end + 2))
    };
    if let Some(r) = rest.strip_prefix("SYSTEM") {
        let r = r.trim_start();
        return (None, literal(r).map(|(s, _)| s));
    }
    if let Some(r) = rest.strip_prefix("PUBLIC") {
        let r = r.trim_start();
        let Some((public, n)) = literal(r) else {
            return (None, None);
        };
        let system = literal(r[n..].trim_start()).map(|(s, _)| s);
        return (Some(public), system);
    }
    (None, None)
}

/// How far a document's top level has been checked.
#[derive(Default)]
struct TopLevel {
    /// Nodes checked so far.
    checked: usize,
    root_seen: bool,
}

/// The namespace declarations of `e` (prefix, URI; `""` for the default) pushed onto `scope`;
/// the caller truncates it back when it leaves `e`.
pub(super) fn push_namespaces(e: &Element, scope: &mut Vec<(String, String)>) {
    for (k, v) in &e.attrs {
        if k == "xmlns" {
            scope.push((String::new(), v.clone()));
        } else if let Some(p) = k.strip_prefix("xmlns:") {
            scope.push((p.to_string(), v.clone()));
        }
    }
}

/// Offset after a leading text declaration (`<?xml … ?>`) of an external entity.
fn text_decl_end(text: &str) -> usize {
    if text.starts_with("<?xml")
        && text[5..].starts_with(|c: char| c.is_whitespace())
        && let Some(end) = text.find("?>")
    {
        return end + 2;
    }
    0
}

fn char_ref(name: &str) -> Option<char> {
    let num = name.strip_prefix('#')?;
    let n = match num.strip_prefix('x').or_else(|| num.strip_prefix('X')) {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => num.parse().ok()?,
    };
    char::from_u32(n).filter(|&c| {
        matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
    })
}

/// Appends a node to the innermost open element, or to `out` when none is open; text joins
/// the text before it, as [`Element::push_text`] does.
/// A `<beginpage pagenum="N"/>` for a page-break processing instruction: `<?page N?>` or
/// `<?pagebreak N?>` (the number may be written `pagenum="N"`); `None` for any other.
fn page_pi(target: &str, content: &str) -> Option<Element> {
    if !matches!(target, "page" | "pagebreak") {
        return None;
    }
    let content = content.trim();
    let number = match content.strip_prefix("pagenum") {
        Some(rest) => rest.trim_start().strip_prefix('=').unwrap_or(rest).trim(),
        None => content,
    };
    let number = number.trim_matches(|c| c == '"' || c == '\'').trim();
    let mut el = Element::new("beginpage");
    // No number: the reader counts on from the page before, as for a `beginpage`.
    if !number.is_empty() {
        el.attrs.push(("pagenum".into(), number.into()));
    }
    Some(el)
}

fn push_node(stack: &mut [Element], out: &mut Vec<Node>, node: Node) {
    let target = match stack.last_mut() {
        Some(e) => &mut e.children,
        None => out,
    };
    if let Node::Text(t) = &node
        && let Some(Node::Text(prev)) = target.last_mut()
    {
        prev.push_str(t);
        return;
    }
    target.push(node);
}

fn push_text(stack: &mut [Element], out: &mut Vec<Node>, text: &str) {
    match stack.last_mut() {
        Some(e) => e.push_text(text),
        None if !text.is_empty() => push_node(stack, out, Node::Text(text.to_string())),
        None => {}
    }
}

fn error_message(e: &quick_xml::Error, stack: &[Element]) -> String {
    use quick_xml::errors::{Error as E, IllFormedError as I, SyntaxError as S};
    match e {
        E::IllFormed(I::MismatchedEndTag { expected, found }) => format!(
            "`</{found}>` does not match the open element `<{expected}>`{}",
            stack
                .last()
                .map(pos_of)
                .map(|p| format!(" (opened at line {}, column {})", p.line, p.col))
                .unwrap_or_default()
        ),
        E::IllFormed(I::UnmatchedEndTag(name)) => {
            format!("`</{name}>` closes an element that was never opened")
        }
        E::IllFormed(I::UnclosedReference) => {
            "a `&` must start an entity such as `&amp;`; to write `&` itself, write `&amp;`".into()
        }
        E::Syntax(S::UnclosedTag) => {
            "this tag is never closed with `>`; to write `<` itself, write `&lt;`".into()
        }
        E::Syntax(S::UnclosedComment) => "this comment is never closed with `-->`".into(),
        E::Syntax(S::UnclosedCData) => "this CDATA section is never closed with `]]>`".into(),
        other => format!("the XML is not well-formed: {other}"),
    }
}
