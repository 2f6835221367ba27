//! DocBook reader: a DocBook 4.x or 5 book (one main file plus everything it pulls in through
//! external entities and XInclude) → chapters of [`Document`]s and the book's metadata.
//!
//! The XML layer ([`xml`]) builds a [`crate::dom`] tree with a file, line and column on every
//! element (text is placed at its element's); the converter walks it once per chapter.
//! Everything keeps its text: an element we do not handle gives one warning per name and is
//! read for its text. Every element id is kept (on the model node that has an `id` field, else
//! as an anchor), because links point at them.
//!
//! # Coverage
//!
//! | DocBook | becomes |
//! | --- | --- |
//! | `book`, `set`, `part` (+`partintro`), `chapter`, `appendix`, `preface`, `article`, `reference`, `refentry`, `glossary`, `bibliography`, `index`, `colophon`, `dedication`, `acknowledgements`, `legalnotice`, `abstract` (of the book) | one chapter each, with its role (front, body, part, appendix, back); a glossary, bibliography or index has that `epub:type` (and `doc-…` role) |
//! | `section`, `sect1`–`sect5`, `simplesect`, `refsect1`–`refsect3`, `refsynopsisdiv`, `bridgehead` | headings with their ids (an untitled one: a warning and its first words); links in a title kept (the contents get its text) |
//! | `subtitle` (of a chapter or section, or in its `info`) | a `subtitle` paragraph under the heading |
//! | `info`, `bookinfo`, `articleinfo` (`title`, `subtitle`, `author`, `editor`, `othercredit` (role from `class`, `role` or `contrib`), `collab`, `affiliation`, `email`, `publisher`, `pubdate`, `date`, `copyright`, `isbn`, `releaseinfo`, `legalnotice`, `revhistory`) | the book's metadata (under book.yml's), the title page's affiliations and addresses, the colophon's history |
//! | a division's `info` (`chapterinfo`, `sect1info`, …): `author`/`corpauthor`/`othercredit`/`authorgroup` (with `affiliation`, `email`, `contrib`), `releaseinfo`, `copyright`, `legalnotice`, `pubdate`, `revhistory`, `abstract` | its title page under its heading, in DocBook XSL's order (`titlepage.rs`); the root's own authors, copyright and legal notice are metadata only; a book's `abstract` and `legalnotice` are front pages, its `revhistory` the colophon's history |
//! | `para`, `simpara`, `formalpara` | paragraphs |
//! | `itemizedlist`, `orderedlist`, `variablelist`, `simplelist`, `segmentedlist`, `procedure`/`step`/`substeps`, `qandaset` | lists, definition lists, a table (segmented lists) |
//! | `calloutlist`/`callout`, `co`, `coref`, `areaspec` | a definition list of each callout's marks (linking back to them) and text; each `co` links to its callout (`linkends`, else the callout naming it in `arearefs`) |
//! | `programlisting`, `screen`, `synopsis`, `literallayout`, `address` | listings, markup kept |
//! | `cmdsynopsis` (`command`, `arg`, `group` by `choice` and `rep`, `sbr`, `synopfragment`), `funcsynopsis` (`funcsynopsisinfo`, `funcprototype`, `funcdef`, `paramdef`, `void`, `varargs`) | listings with DocBook XSL's marks: `[opt]`, `{req}`, `a \| b`, `file...`; prototypes in its default K&R style (`synopsis.rs`) |
//! | `table`, `informaltable` (CALS `tgroup`/`colspec`/`spanspec`/`row`/`entry` with `morerows`, `namest`/`nameend`; HTML `tr`/`td`/`th`, mixed) | tables; an entry holding a `programlisting`, `screen` or `literallayout` keeps its blocks |
//! | `figure`, `informalfigure`, `mediaobject`, `imageobject`, `imagedata`, `graphic`, `inlinemediaobject`, `textobject`, `caption` | figures and images (best format, never EPS/PDF; the text object is the alt text); a media object's `caption` is the caption of an untitled figure, else a `caption` box under the image |
//! | `example`, `informalexample`, `sidebar`, `note`, `tip`, `warning`, `caution`, `important`, `blockquote`, `epigraph`, `attribution` | examples, sidebars, note boxes, quotations |
//! | `footnote`, `footnoteref` | footnotes |
//! | `equation`, `informalequation`, `inlineequation`, `mml:math`, `mathphrase` | MathML, else the TeX/text form |
//! | `glossentry`, `glossterm`, `glossdef`, `anchor` | definitions, anchors |
//! | `revhistory` (`revision`: `revnumber`, `date`, `authorinitials`, `revremark`, `revdescription`) | a table captioned `Revision History`/`改訂履歴`, a row per revision (`Revision N`/`改訂 N`), a description keeping its blocks |
//! | `biblioentry`, `bibliomixed`, `author`/`editor`/`othercredit`/`personname` (`honorific`, `firstname`, `othername`, `surname`, `lineage`), `authorgroup` | bibliography entries labelled `[abbrev]`, `[xreflabel]` or `[n]` (an xref shows the same, an `xreflabel` as written); names spaced and ordered as DocBook XSL's `person.name` (surname first in Japanese) |
//! | `indexterm` (`primary`/`secondary`/`tertiary` with `sortas`, `see`, `seealso`, `significance`, `startofrange`/`endofrange`) | index terms, never text; the index is made where the book has an `<index/>` (`indexterms.rs`, `xref::index`) |
//! | `index` with `indexentry` (`primaryie`, `secondaryie`, `tertiaryie`, `seeie`, `seealsoie`) | a written index, kept as written |
//! | `emphasis` (`role="bold"`), `literal`, `code`, `command`, `filename`, `option`, `envar`, `varname`, `function`, `parameter`, `classname`, `constant`, `type`, `replaceable`, `userinput`, `computeroutput`, `prompt`, `systemitem`, `uri`, `markup` | emphasis and code |
//! | `tag`, `sgmltag` by `class` (`starttag` `<x>`, `endtag` `</x>`, `emptytag` `<x/>`, `genentity` `&x;`, `paramentity` `%x;`, `numcharref` `&#x;`, `comment`/`sgmlcomment` `<!--x-->`, `pi` `<?x>`, `xmlpi` `<?x?>`; `element`, `attribute`, `attvalue`, `prefix`, `localname`, `namespace` bare) | `<code class="tt sgmltag-CLASS">`, brackets generated as DocBook XSL 1.79 does |
//! | `guimenu`, `guibutton`, `guilabel`, `guimenuitem`, `guisubmenu`, `menuchoice`, `keycap`, `keycombo`, `keysym`, `mousebutton`, `acronym`, `abbrev`, `quote`, `citetitle`, `firstterm`, `foreignphrase`, `wordasword`, `subscript`, `superscript`, `phrase`, `trademark`, `email` | styled text |
//! | `xref` (`endterm`, `xreflabel`), `link` (`linkend`, `xlink:href`), `ulink`, `olink` (text and a warning), `co` | cross-references and links; an xref to a `cmdsynopsis`/`funcsynopsis` shows its first `command`/`function`, one to the `book` its title |
//!
//! Anything else keeps its text and gives one warning per element name with file:line.
mod blocks;
mod callouts;
pub mod catalog;
mod entities;
mod indexterms;
mod inlines;
mod meta;
mod pages;
mod synopsis;
mod tables;
#[cfg(test)]
mod tests;
mod titlepage;
mod xml;

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::book::Role;
use crate::codes;
use crate::doc::*;
use crate::dom::{Element, Node};
use crate::error::{Finding, Location, Severity};
use xml::{Files, pos_of};

pub use crate::doc::{DocBookMeta, MetaPerson, Revision};

/// One output chapter (a chapter, preface, appendix, part, glossary, bibliography, index,
/// colophon, dedication, article body, …).
#[derive(Debug, Clone)]
pub struct DocBookChapter<D = Document> {
    /// Front (preface, dedication, legal notice…), Body (chapter, article, reference, refentry),
    /// Part, Appendix, Back (glossary, bibliography, index, colophon).
    pub role: Role,
    /// `doc.source` is the file (relative to `root`) where this chapter's element starts.
    /// [`read_keeping`] gives a [`ChapterDoc`]: a kept conversion is read only when asked for.
    pub doc: D,
    /// The `epub:type` its element names beyond its role: `glossary`, `bibliography`, `index`.
    pub division: Option<&'static str>,
    /// Whether it was converted by this reading (not taken as an earlier build converted it).
    pub converted: bool,
    /// The digest of its document (by value), when it is exactly what its kept conversion
    /// gave (kept conversions in use, nothing added after): kept with the conversion, so that
    /// it is not hashed again.
    pub digest: Option<String>,
}

#[derive(Debug, Clone)]
pub struct DocBookBook<D = Document> {
    pub meta: DocBookMeta,
    pub chapters: Vec<DocBookChapter<D>>,
    /// For every id in the book, the text an `xref` to it shows: its `xreflabel`, else its
    /// title (plain text), else the term of a `varlistentry`/`glossentry`, else "" (the
    /// resolver then falls back to a number or the enclosing chapter).
    pub xref_texts: HashMap<String, String>,
    /// Every file read (the main file, entities, XIncludes, DTDs), as [`xml::Files`] names
    /// them: relative to the book folder, or real paths for those from shared folders. What
    /// they hold is all in the chapters, the metadata and `xref_texts`.
    pub files: Vec<PathBuf>,
}

/// Reads a DocBook 4.x or 5 document: `main` is the main file, `root` the book folder that
/// every included file must stay inside. Returns everything it could read plus every problem
/// (errors and warnings). Never panics, never touches the network.
pub fn read(main: &Path, root: &Path) -> (DocBookBook, Vec<Finding>) {
    read_sharing(main, root, &[])
}

/// Like [`read`], letting included files (XIncludes, external entities) come from the folders
/// `shared` too: the project's `shared_dirs`, real paths.
pub fn read_sharing(
    main: &Path,
    root: &Path,
    shared: &[std::path::PathBuf],
) -> (DocBookBook, Vec<Finding>) {
    read_with(main, root, shared, &[])
}

/// Like [`read_sharing`], with the XML catalogs the settings and the environment name (the
/// `catalog.xml` files of the book's folders are found by themselves).
pub fn read_with(
    main: &Path,
    root: &Path,
    shared: &[std::path::PathBuf],
    catalogs: &[catalog::Named],
) -> (DocBookBook, Vec<Finding>) {
    let (book, findings) = read_keeping(main, root, shared, catalogs, None);
    let chapters = (book.chapters.into_iter())
        .map(|c| DocBookChapter {
            doc: c.doc.read_without_cache(),
            role: c.role,
            division: c.division,
            converted: c.converted,
            digest: c.digest,
        })
        .collect();
    let book = DocBookBook {
        meta: book.meta,
        chapters,
        xref_texts: book.xref_texts,
        files: book.files,
    };
    (book, findings)
}

/// A chapter's document: converted by this reading, or one an earlier build converted, kept
/// in the [`ConvertedCache`] and read from it only when asked for (a rebuild that resolves
/// only the changed chapters never reads the others: reading them all back was a tenth of a
/// one-file rebuild of svnbook).
#[derive(Debug, Clone)]
pub enum ChapterDoc {
    Here(Document),
    Kept {
        /// Where its element starts (the document's `source`).
        source: PathBuf,
        /// Its entry in the cache.
        key: String,
    },
}

impl ChapterDoc {
    /// The file where the chapter's element starts.
    pub fn source(&self) -> &Path {
        match self {
            ChapterDoc::Here(doc) => &doc.source,
            ChapterDoc::Kept { source, .. } => source,
        }
    }

    /// The document of a reading that kept nothing (no cache): every one is here.
    pub fn read_without_cache(self) -> Document {
        match self {
            ChapterDoc::Here(doc) => doc,
            ChapterDoc::Kept { source, .. } => Document::new(source),
        }
    }

    /// The document, read from `cache` when it was kept there; `None` when the entry can no
    /// longer be read (then the book must be read again without the cache).
    pub fn load(self, cache: &ConvertedCache) -> Option<Document> {
        match self {
            ChapterDoc::Here(doc) => Some(doc),
            ChapterDoc::Kept { key, .. } => cache.get(&key).map(|c| c.doc),
        }
    }
}

/// What converting one chapter gave, kept in a [`ConvertedCache`] by everything it depends
/// on (see [`Conv::chapter`]).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Converted {
    /// The document's digest ([`DocBookChapter::digest`]).
    digest: String,
    findings: Vec<Finding>,
    after: State,
    /// Last: [`ConvertedHead`] reads what comes before it alone.
    doc: Document,
}

/// The start of a [`Converted`] entry: what reading a book needs of a kept chapter.
#[derive(serde::Deserialize)]
struct ConvertedHead {
    digest: String,
    findings: Vec<Finding>,
    after: State,
}

/// Chapters converted by earlier builds. Only ever a speed-up: every entry is found by a key
/// of all its chapter's conversion depends on.
pub type ConvertedCache = crate::cache::Cache<Converted>;

/// What converting a chapter reads of the book-wide state and changes in it: the counters of
/// generated labels, the last print page, and the element names warned about already.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct State {
    bib_count: usize,
    table_count: usize,
    last_page: Option<String>,
    unhandled: Vec<String>,
}

/// Like [`read_with`], taking the chapters whose conversion is in `kept` from it (the files
/// are read and parsed whole all the same: ids, links and callouts are book-wide). Keeps in it
/// what this reading converted, and nothing else.
pub fn read_keeping(
    main: &Path,
    root: &Path,
    shared: &[std::path::PathBuf],
    catalogs: &[catalog::Named],
    kept: Option<&ConvertedCache>,
) -> (DocBookBook<ChapterDoc>, Vec<Finding>) {
    let loaded = xml::load(main, root, shared, catalogs);
    let mut findings = loaded.findings;
    let mut book = DocBookBook {
        meta: DocBookMeta::default(),
        chapters: Vec::new(),
        xref_texts: HashMap::new(),
        files: loaded.files.all().to_vec(),
    };
    let Some(mut root_el) = loaded.root else {
        return (book, findings);
    };
    let mut conv = Conv::new(&loaded.files, &loaded.folder, &root_el);
    // Two walks of the whole tree side by side: the ids and links, and the files each
    // chapter comes from (for the cache's keys).
    let mut links = || {
        // The ids point into the whole tree, which is let go chapter by chapter as it is
        // converted: what converting needs of them is kept on its own (see `check_links`).
        let mut ids = HashMap::new();
        conv.collect_ids(&root_el, &mut ids);
        conv.check_links(&root_el, &ids);
    };
    let mut runs = None;
    rayon::in_place_scope(|s| {
        if kept.is_some() {
            s.spawn(|_| runs = Some(FileRuns::of(&loaded.files, &root_el)));
        }
        links();
    });
    if let (Some(kept), Some(runs)) = (kept, runs) {
        conv.kept = conv.context(&runs).map(|context| Keeping {
            cache: kept,
            context,
            used: std::collections::HashSet::new(),
            runs,
        });
    }
    book.meta = conv.meta(&root_el);
    book.chapters = conv.top(&mut root_el);
    if let Some(keeping) = conv.kept.take() {
        keeping.cache.keep_only(&keeping.used);
    }
    // (A file that did not parse has said so already.)
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    if book.chapters.is_empty() && !failed {
        conv.findings.push(
            Finding::error(
                codes::NOT_A_BOOK,
                conv.loc(&root_el),
                format!(
                    "this <{}> has no chapters: the book would be empty",
                    root_el.local_name()
                ),
            )
            .with_hint("add a <chapter> (or <preface>, <appendix>, <section>) with some text"),
        );
    }
    book.xref_texts = std::mem::take(&mut conv.xref_texts);
    findings.append(&mut conv.findings);
    (book, findings)
}

/// Where an id was first seen.
struct IdSite<'a> {
    el: &'a Element,
}

/// The cache of converted chapters in use, with the part of every key that is the same for all
/// chapters of the book.
struct Keeping<'a> {
    cache: &'a ConvertedCache,
    context: String,
    /// The keys of this reading's chapters.
    used: HashSet<String>,
    runs: FileRuns,
}

/// The files the tree's elements come from, by subtree: the files met in one walk of the
/// whole tree (each time the file changes), and, for each element near the top (where the
/// chapters are), the stretch of that list its subtree spans. (Walking each chapter, and each
/// part again, took a twentieth of a rebuild.)
struct FileRuns {
    met: Vec<u32>,
    /// By element, by its address (a boxed element stays where it is while the tree is taken
    /// apart; an address, not a pointer, so that the tree can be walked on another thread).
    spans: HashMap<usize, (usize, usize)>,
}

impl FileRuns {
    /// How deep the elements whose stretches are kept go (the root is 0): set, book, part,
    /// chapter; a book's info, its abstract.
    const DEPTH: usize = 4;

    fn of(files: &Files, root: &Element) -> FileRuns {
        fn walk<'e>(
            files: &Files,
            el: &'e Element,
            depth: usize,
            last: &mut Option<&'e Arc<str>>,
            out: &mut FileRuns,
        ) {
            let kept = depth <= FileRuns::DEPTH;
            if kept {
                // Its own stretch names its first file, whatever came before.
                *last = None;
            }
            let start = out.met.len();
            if let Some(src) = &el.src
                && !last.is_some_and(|l| Arc::ptr_eq(l, &src.file))
            {
                *last = Some(&src.file);
                out.met.extend(files.index_of(&src.file));
            }
            for c in el.child_elements() {
                walk(files, c, depth + 1, last, out);
            }
            if kept {
                out.spans
                    .insert(el as *const Element as usize, (start, out.met.len()));
            }
        }
        let mut out = FileRuns {
            met: Vec::new(),
            spans: HashMap::new(),
        };
        walk(files, root, 0, &mut None, &mut out);
        out
    }

    /// The files the elements under `el` (and `el`) come from, sorted; walked when `el` is
    /// deeper than the kept stretches.
    fn under(&self, files: &Files, el: &Element) -> Vec<u32> {
        let mut found = match self.spans.get(&(el as *const Element as usize)) {
            Some(&(start, end)) => self.met[start..end].to_vec(),
            None => {
                let mut found = Vec::new();
                files_under(files, el, &mut found);
                found
            }
        };
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// The converter's state for one book.
struct Conv<'a> {
    files: &'a Files,
    /// The book folder's real path (files from shared folders are named by their real paths).
    folder: &'a Path,
    findings: Vec<Finding>,
    lang: Option<String>,
    unhandled: HashSet<String>,
    /// The text of each element an `endterm` names (an xref shows it).
    endterm_texts: HashMap<String, String>,
    /// The levels of each index term a range's end names by `startref`.
    range_starts: HashMap<String, Vec<String>>,
    xref_texts: HashMap<String, String>,
    /// Callout numbers by `co` id (book-wide).
    callouts: HashMap<String, usize>,
    /// The callout explaining each `co` (by `co` id; book-wide).
    callout_of: HashMap<String, String>,
    /// Callout numbers of `area`s (by id), in their `areaspec`'s order.
    areas: HashMap<String, usize>,
    /// Per chapter: footnote bodies and the counter for generated labels.
    footnotes: Vec<Footnote>,
    footnote_count: usize,
    /// The file of the chapter being converted (image paths are relative to it).
    chapter_file: u32,
    /// Inside programlisting/screen…: whitespace is kept.
    verbatim: bool,
    /// Nesting of `quote` elements (outer “…”, inner ‘…’).
    quote_depth: usize,
    bib_count: usize,
    table_count: usize,
    /// The document element (its title-page parts are the book's metadata).
    root: *const Element,
    /// The last print page number (a `beginpage` without one counts on from it).
    last_page: Option<String>,
    /// Chapters converted before, when they are kept.
    kept: Option<Keeping<'a>>,
}

impl<'a> Conv<'a> {
    fn new(files: &'a Files, folder: &'a Path, root: &Element) -> Self {
        Conv {
            files,
            folder,
            findings: Vec::new(),
            lang: lang_of(root).map(str::to_string),
            unhandled: HashSet::new(),
            endterm_texts: HashMap::new(),
            range_starts: HashMap::new(),
            xref_texts: HashMap::new(),
            callouts: HashMap::new(),
            callout_of: HashMap::new(),
            areas: HashMap::new(),
            footnotes: Vec::new(),
            footnote_count: 0,
            chapter_file: files.of(root),
            verbatim: false,
            quote_depth: 0,
            bib_count: 0,
            table_count: 0,
            root,
            last_page: None,
            kept: None,
        }
    }

    fn state(&self) -> State {
        let mut unhandled: Vec<String> = self.unhandled.iter().cloned().collect();
        unhandled.sort();
        State {
            bib_count: self.bib_count,
            table_count: self.table_count,
            last_page: self.last_page.clone(),
            unhandled,
        }
    }

    fn set_state(&mut self, state: State) {
        self.bib_count = state.bib_count;
        self.table_count = state.table_count;
        self.last_page = state.last_page;
        self.unhandled = state.unhandled.into_iter().collect();
    }

    /// What converting any chapter depends on besides its own files and the state: the book
    /// folder, the book's language, the texts and numbers the whole tree gave (xref texts,
    /// endterms, index ranges, callouts), and the files no element of the tree comes from (the
    /// main file with its DTD subset and the root's info, DTDs, entities of text alone, text
    /// XIncludes), whose text may be anywhere.
    fn context(&self, runs: &FileRuns) -> Option<String> {
        fn sorted<V: serde::Serialize>(m: &HashMap<String, V>) -> Vec<(&String, &V)> {
            let mut v: Vec<(&String, &V)> = m.iter().collect();
            v.sort_by(|a, b| a.0.cmp(b.0));
            v
        }
        let loose: Vec<(&Path, &str)> = (0..self.files.len())
            .filter(|&f| f == 0 || self.files.textual(f) || !runs.met.contains(&f))
            .map(|f| (self.files.path(f), self.files.digest(f)))
            .collect();
        crate::cache::Key::new("docbook conversion context")
            .value(&self.folder)
            .value(&self.lang)
            .value(&loose)
            .value(&sorted(&self.xref_texts))
            .value(&sorted(&self.endterm_texts))
            .value(&sorted(&self.range_starts))
            .value(&sorted(&self.callouts))
            .value(&sorted(&self.callout_of))
            .value(&sorted(&self.areas))
            .finish()
    }

    /// The key of a chapter's conversion: the context, where its element is, the name and bytes
    /// of every file its elements come from, its role and the state before it.
    fn chapter_key(&self, keeping: &Keeping, el: &Element, role: Role) -> Option<String> {
        let under = keeping.runs.under(self.files, el);
        let files: Vec<(&Path, &str)> = (under.iter())
            .map(|&f| (self.files.path(f), self.files.digest(f)))
            .collect();
        let at = el.src.as_ref().map(|s| (&*s.file, s.line, s.col));
        crate::cache::Key::new("docbook chapter")
            .bytes(keeping.context.as_bytes())
            .value(&at)
            .value(&files)
            .value(&role)
            .value(&self.state())
            .finish()
    }

    /// Where an element's start tag is.
    fn loc(&self, el: &Element) -> Location {
        let pos = pos_of(el);
        Location::new(self.files.path(self.files.of(el)), pos.line, pos.col)
    }

    fn warn(&mut self, code: codes::Code, el: &Element, message: impl Into<String>) {
        let loc = self.loc(el);
        self.findings.push(Finding::warning(code, loc, message));
    }

    /// One warning per element name per book.
    fn unhandled(&mut self, el: &Element) {
        if self.unhandled.insert(el.local_name().to_string()) {
            self.warn(
                codes::UNKNOWN_ELEMENT,
                el,
                format!(
                    "`<{}>` is not handled by seihon yet; its text is kept",
                    el.local_name()
                ),
            );
        }
    }

    /// Collects every id (a duplicate is reported) and the text an xref to it shows.
    fn collect_ids<'t>(&mut self, el: &'t Element, ids: &mut HashMap<String, IdSite<'t>>) {
        self.collect_ids_under(el, ids);
        // An xref to a callout mark shows its number, "(2)" (once every mark is numbered:
        // doing it at each element of the tree was a tenth of reading a book).
        for (id, n) in &self.callouts {
            if let Some(t) = self.xref_texts.get_mut(id)
                && t.is_empty()
            {
                *t = format!("({n})");
            }
        }
    }

    fn collect_ids_under<'t>(&mut self, el: &'t Element, ids: &mut HashMap<String, IdSite<'t>>) {
        if let Some(id) = el.id() {
            if let Some(first) = ids.get(id) {
                let msg = format!(
                    "the id `{id}` is used twice; it was first used at {}, and links go there",
                    self.loc(first.el)
                );
                // A real book's defect: reported; the second id is renamed in the EPUB.
                self.warn(codes::DUPLICATE_ID, el, msg);
            } else {
                ids.insert(id.to_string(), IdSite { el });
                let text = xref_text(el);
                self.xref_texts.insert(id.to_string(), text);
            }
        }
        if matches!(
            el.local_name(),
            "programlisting" | "screen" | "programlistingco"
        ) {
            let mut n = 0;
            number_callouts(el, &mut n, &mut self.callouts);
        }
        self.note_callout(el);
        for c in el.child_elements() {
            self.collect_ids_under(c, ids);
        }
        if el.local_name() == "procedure" {
            // An xref to an untitled step shows "Step 2.b" (DocBook XSL's `xref-to`).
            let word = match self.lang.as_deref() {
                Some(l) if l.starts_with("ja") => "ステップ",
                _ => "Step",
            };
            let mut numbers = Vec::new();
            step_numbers(el, "", 0, &mut numbers);
            for (id, n) in numbers {
                if let Some(t) = self.xref_texts.get_mut(id)
                    && t.is_empty()
                {
                    *t = format!("{word} {n}");
                }
            }
        }
    }

    /// Every `linkend`/`endterm` must name an id; an xref target needs text. Keeps what
    /// converting needs of the elements named: an endterm's text, a range start's levels.
    fn check_links<'t>(&mut self, el: &'t Element, ids: &HashMap<String, IdSite<'t>>) {
        if el.local_name() == "indexterm"
            && el.attr("class") == Some("endofrange")
            && let Some(start) = el.attr("startref").map(str::trim)
            && let Some(site) = ids.get(start)
        {
            let (levels, _) = indexterms::levels_of(site.el);
            self.range_starts.insert(start.to_string(), levels);
        }
        // (The attribute first: few elements have one, and it is cheaper than the name.)
        if let Some(target) = el.attr("linkend").map(str::trim)
            && matches!(
                el.local_name(),
                "xref" | "link" | "footnoteref" | "glossterm" | "firstterm"
            )
        {
            let name = el.local_name();
            let target = target.to_string();
            let endterm = el.attr("endterm").map(str::trim).map(str::to_string);
            match ids.get(target.as_str()).map(|s| s.el) {
                None => {
                    let what = if name == "xref" { "xref" } else { "link" };
                    // An xref is a reference, a footnoteref a note reference, the rest links.
                    let code = match name {
                        "xref" => codes::UNKNOWN_REFERENCE,
                        "footnoteref" => codes::UNDEFINED_NOTE,
                        _ => codes::BROKEN_FRAGMENT,
                    };
                    // A real book's defect: reported, and the link shows as plain text.
                    self.warn(
                        code,
                        el,
                        format!("the {what} points to `{target}`, but no element has that id; it is shown as plain text"),
                    );
                }
                Some(t) if name == "xref" => {
                    let has_text = self
                        .xref_texts
                        .get(target.as_str())
                        .is_some_and(|s| !s.trim().is_empty());
                    // A bibliography entry's xref text is its label, made by the resolver.
                    let bib = matches!(t.local_name(), "biblioentry" | "bibliomixed");
                    if endterm.is_none() && !has_text && !bib {
                        let kind = t.local_name().to_string();
                        self.warn(
                            codes::UNKNOWN_REFERENCE,
                            el,
                            format!(
                                "the xref points to `{target}`, a `<{kind}>` with no title or xreflabel, so its link text cannot be generated"
                            ),
                        );
                    }
                }
                Some(_) => {}
            }
            if let Some(e) = endterm {
                let text = ids.get(e.as_str()).map(|s| s.el.text());
                if let Some(t) = &text {
                    self.endterm_texts.insert(e.clone(), squash(t));
                }
                match text {
                    None => self.warn(
                        codes::UNKNOWN_REFERENCE,
                        el,
                        format!("the endterm points to `{e}`, but no element has that id"),
                    ),
                    Some(t) if t.trim().is_empty() => self.warn(
                        codes::UNKNOWN_REFERENCE,
                        el,
                        format!("the endterm `{e}` has no text, so the xref would be empty"),
                    ),
                    Some(_) => {}
                }
            }
        }
        for c in el.child_elements() {
            self.check_links(c, ids);
        }
    }

    /// The top-level element → chapters. Each chapter's elements are let go once it is
    /// converted: the tree and the documents are never held whole at once.
    fn top(&mut self, root: &mut Element) -> Vec<DocBookChapter<ChapterDoc>> {
        let mut out = Vec::new();
        match root.local_name() {
            "book" | "set" => {
                // The book's abstract and legal notice are text readers must see (pandoc drops
                // them): each becomes a front-matter page. (Its revision history is the
                // colophon's history, unless book.yml writes one.)
                for info in root.child_elements().filter(|e| is_info(e.local_name())) {
                    for name in ["abstract", "legalnotice"] {
                        if let Some(el) = info.child(name) {
                            let ch = self.chapter(el, Role::Front);
                            out.push(ch);
                        }
                    }
                }
                self.book_children(root, &mut out);
                // An xref to the book itself shows its title (DocBook XSL) and goes to where
                // the book starts: under its first page's heading.
                if let (Some(id), Some(first)) = (root.id(), out.first_mut()) {
                    let anchor = Block::new(BlockKind::Anchor(id.to_string()), pos_of(root));
                    self.edit_document(first, |doc| {
                        let blocks = &mut doc.blocks;
                        let at = usize::from(
                            (blocks.first())
                                .is_some_and(|b| matches!(b.kind, BlockKind::Heading(_))),
                        );
                        blocks.insert(at, anchor);
                    });
                }
            }
            _ => {
                let role = chapter_role(root.local_name()).unwrap_or(Role::Body);
                out.push(self.chapter(root, role));
            }
        }
        out
    }

    /// The chapters of a book or part, each taken out of the tree to be converted and let go.
    fn book_children(&mut self, el: &mut Element, out: &mut Vec<DocBookChapter<ChapterDoc>>) {
        let mut loose: Vec<Element> = Vec::new();
        // Print page breaks between chapters: the next chapter's first page.
        let mut pages: Vec<Block> = Vec::new();
        for node in &mut el.children {
            let Node::Element(c) = node else { continue };
            let name = c.local_name();
            if is_info(name) || matches!(name, "title" | "subtitle" | "titleabbrev" | "toc" | "lot")
            {
                continue;
            }
            if name == "partintro" {
                // Read with its part.
                continue;
            }
            if loose.is_empty() && pages::is_page_marker(c) {
                self.block(c, 1, &mut pages);
                continue;
            }
            let role = chapter_role(name);
            let taken = std::mem::replace(node, Node::Text(String::new()));
            let Node::Element(mut c) = taken else {
                continue;
            };
            match c.local_name() {
                "part" => {
                    self.flush_loose(&mut loose, out);
                    let part = self.chapter(&c, Role::Part);
                    out.push(self.starting_with(&mut pages, part));
                    self.book_children(&mut c, out);
                }
                "book" => {
                    self.flush_loose(&mut loose, out);
                    self.book_children(&mut c, out);
                }
                _ => match role {
                    Some(role) => {
                        self.flush_loose(&mut loose, out);
                        let chapter = self.chapter(&c, role);
                        out.push(self.starting_with(&mut pages, chapter));
                    }
                    None => loose.push(*c),
                },
            }
        }
        self.flush_loose(&mut loose, out);
        // After the last chapter: the end of it.
        if let Some(last) = out.last_mut()
            && !pages.is_empty()
        {
            self.edit_document(last, |doc| doc.blocks.append(&mut pages));
        }
    }

    /// Content directly in a book or part that is not a chapter: kept in a chapter of its own.
    fn flush_loose(&mut self, loose: &mut Vec<Element>, out: &mut Vec<DocBookChapter<ChapterDoc>>) {
        let Some(first) = loose.first() else {
            return;
        };
        let file = self.files.of(first);
        self.start_chapter(file);
        let mut blocks = Vec::new();
        for el in loose.drain(..) {
            self.block(&el, 1, &mut blocks);
        }
        let mut doc = Document::new(self.files.path(file));
        doc.blocks = blocks;
        doc.footnotes = std::mem::take(&mut self.footnotes);
        doc.shrink_to_fit();
        out.push(DocBookChapter {
            role: Role::Body,
            doc: ChapterDoc::Here(doc),
            division: None,
            converted: true,
            digest: None,
        });
    }

    fn start_chapter(&mut self, file: u32) {
        self.footnotes.clear();
        self.footnote_count = 0;
        self.chapter_file = file;
    }

    /// A chapter (or part, or front page) converted, or taken as an earlier build converted
    /// it when nothing it depends on has changed.
    fn chapter(&mut self, el: &Element, role: Role) -> DocBookChapter<ChapterDoc> {
        let Some(keeping) = &self.kept else {
            return self.convert_chapter(el, role);
        };
        let Some(key) = self.chapter_key(keeping, el, role) else {
            return self.convert_chapter(el, role);
        };
        let cache = keeping.cache;
        if let Some(k) = self.kept.as_mut() {
            k.used.insert(key.clone());
        }
        let division = division_type(el.local_name());
        if let Some(hit) = cache.get_head::<ConvertedHead>(&key) {
            self.findings.extend(hit.findings);
            self.set_state(hit.after);
            let source = self.files.path(self.files.of(el)).to_path_buf();
            return DocBookChapter {
                role,
                doc: ChapterDoc::Kept { source, key },
                division,
                converted: false,
                digest: Some(hit.digest),
            };
        }
        let mark = self.findings.len();
        let chapter = self.convert_chapter(el, role);
        let findings = self.findings[mark..].to_vec();
        // (One with errors is converted again next time: its messages always come fresh.)
        if findings.iter().any(|f| f.severity == Severity::Error) {
            return chapter;
        }
        let ChapterDoc::Here(doc) = chapter.doc else {
            return chapter;
        };
        let Some(digest) = crate::cache::Key::new("docbook document")
            .value(&doc)
            .finish()
        else {
            return DocBookChapter {
                doc: ChapterDoc::Here(doc),
                ..chapter
            };
        };
        let kept = Converted {
            digest,
            findings,
            after: self.state(),
            doc,
        };
        cache.put(&key, &kept);
        DocBookChapter {
            role,
            doc: ChapterDoc::Here(kept.doc),
            division,
            converted: true,
            digest: Some(kept.digest),
        }
    }

    /// Changes a chapter's document, read from the cache first when it was kept there (the
    /// document is then no longer the one its digest is of). An entry that cannot be read
    /// after all is an error: the next build, which keeps nothing of a book with errors,
    /// converts the book again.
    fn edit_document(
        &mut self,
        chapter: &mut DocBookChapter<ChapterDoc>,
        edit: impl FnOnce(&mut Document),
    ) {
        chapter.digest = None;
        let placeholder = ChapterDoc::Here(Document::new(chapter.doc.source()));
        let mut doc = match std::mem::replace(&mut chapter.doc, placeholder) {
            ChapterDoc::Here(doc) => doc,
            ChapterDoc::Kept { source, key } => {
                let read = (self.kept.as_ref()).and_then(|k| k.cache.get(&key).map(|c| c.doc));
                read.unwrap_or_else(|| {
                    self.findings.push(Finding::error(
                        codes::SOURCE_FILE,
                        Location::file(source.clone()),
                        "the conversion an earlier build kept of this chapter could not be read back; build the book again",
                    ));
                    Document::new(source)
                })
            }
        };
        edit(&mut doc);
        chapter.doc = ChapterDoc::Here(doc);
    }

    fn convert_chapter(&mut self, el: &Element, role: Role) -> DocBookChapter<ChapterDoc> {
        let file = self.files.of(el);
        self.start_chapter(file);
        let mut blocks = Vec::new();
        self.section(el, 1, &mut blocks);
        let mut doc = Document::new(self.files.path(file));
        doc.lang = lang_of(el)
            .filter(|l| Some(*l) != self.lang.as_deref())
            .map(str::to_string);
        doc.blocks = blocks;
        doc.footnotes = std::mem::take(&mut self.footnotes);
        doc.shrink_to_fit();
        let division = division_type(el.local_name());
        DocBookChapter {
            role,
            doc: ChapterDoc::Here(doc),
            division,
            converted: true,
            digest: None,
        }
    }

    /// Makes `src` (relative to the file `from`) relative to the chapter's file; `None` when it
    /// leaves the book folder.
    fn rebase(&self, from: u32, src: &str) -> Option<String> {
        if src.contains("://") || src.starts_with("data:") {
            return Some(src.to_string());
        }
        let rel_of = |f: u32| {
            self.files
                .path(f)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        };
        let from_dir = rel_of(from);
        let src = src.strip_prefix("file:").unwrap_or(src);
        if from_dir.is_absolute() || rel_of(self.chapter_file).is_absolute() {
            // A file from a shared folder: its images are found beside it, and the path
            // written climbs out of the book to them (the resolver allows that into shared
            // folders only).
            // The book folder is a real path, so both are too.
            let real = |dir: PathBuf| crate::files::normalize(&self.folder.join(dir));
            let joined = real(from_dir.join(src));
            return Some(relative(&joined, &real(rel_of(self.chapter_file))));
        }
        let joined = normalize(&from_dir.join(src))?;
        let to_dir = normalize(&rel_of(self.chapter_file))?;
        Some(relative(&joined, &to_dir))
    }
}

/// The files the elements under `el` (and `el`) come from, each once, in order of first use.
fn files_under(files: &Files, el: &Element, out: &mut Vec<u32>) {
    fn walk<'e>(
        files: &Files,
        el: &'e Element,
        last: &mut Option<&'e Arc<str>>,
        out: &mut Vec<u32>,
    ) {
        if let Some(src) = &el.src
            && !last.is_some_and(|l| Arc::ptr_eq(l, &src.file))
        {
            *last = Some(&src.file);
            if let Some(f) = files.index_of(&src.file)
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
        for c in el.child_elements() {
            walk(files, c, last, out);
        }
    }
    walk(files, el, &mut None, out);
}

/// Lexically normalizes a path relative to the book folder; `None` when it climbs out.
fn normalize(p: &Path) -> Option<PathBuf> {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// `target` relative to the folder `dir` (both relative to the book folder, normalized, or
/// both absolute).
fn relative(target: &Path, dir: &Path) -> String {
    crate::href::relative_path(&target.to_string_lossy(), &dir.to_string_lossy())
}

fn lang_of(el: &Element) -> Option<&str> {
    el.attr("xml:lang")
        .or_else(|| el.attr("lang"))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn is_info(name: &str) -> bool {
    name == "info" || name.ends_with("info") && name != "releaseinfo"
}

fn chapter_role(name: &str) -> Option<Role> {
    Some(match name {
        "chapter" | "article" | "reference" | "refentry" => Role::Body,
        "appendix" => Role::Appendix,
        "preface" | "dedication" | "acknowledgements" | "legalnotice" => Role::Front,
        "glossary" | "bibliography" | "index" | "setindex" | "colophon" => Role::Back,
        _ => return None,
    })
}

/// The `epub:type` of a division whose kind its role does not say.
fn division_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "glossary" => "glossary",
        "bibliography" => "bibliography",
        "index" | "setindex" => "index",
        _ => return None,
    })
}

/// The title element of a titled element: `title`, or `title` in its `info`.
fn title_el(el: &Element) -> Option<&Element> {
    el.child("title").or_else(|| {
        el.child_elements()
            .filter(|e| is_info(e.local_name()))
            .find_map(|i| i.child("title"))
    })
}

/// Whitespace collapsed to single spaces, trimmed.
fn squash(s: &str) -> String {
    s.split([' ', '\t', '\n', '\r'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text an xref to `el` shows, or "".
/// The numbers of the steps of a procedure (or of a step's substeps) as DocBook XSL numbers
/// them: `1`, `a`, `i`, `A`, `I` by depth, joined with `.` (`2.b`), for those with an id.
fn step_numbers<'e>(el: &'e Element, prefix: &str, depth: usize, out: &mut Vec<(&'e str, String)>) {
    let steps = el.child_elements().filter(|c| c.local_name() == "step");
    for (i, step) in steps.enumerate() {
        let n = i as u32 + 1;
        let own = match depth % 5 {
            0 => n.to_string(),
            1 => crate::i18n::alpha(n, 'a'),
            2 => crate::i18n::roman_upper(n).to_lowercase(),
            3 => crate::i18n::alpha(n, 'A'),
            _ => crate::i18n::roman_upper(n),
        };
        let number = if prefix.is_empty() {
            own
        } else {
            format!("{prefix}.{own}")
        };
        if let Some(id) = step.id() {
            out.push((id, number.clone()));
        }
        for sub in step
            .child_elements()
            .filter(|c| matches!(c.local_name(), "substeps" | "stepalternatives"))
        {
            step_numbers(sub, &number, depth + 1, out);
        }
    }
}

fn xref_text(el: &Element) -> String {
    if let Some(l) = el.attr("xreflabel").map(squash).filter(|s| !s.is_empty()) {
        return l;
    }
    // A bibliography entry is named by its label, not its title (DocBook XSL).
    if matches!(el.local_name(), "biblioentry" | "bibliomixed") {
        return el
            .child_elements()
            .next()
            .filter(|c| c.local_name() == "abbrev")
            .map(|t| format!("[{}]", squash(&t.text())))
            .unwrap_or_default();
    }
    if let Some(t) = title_el(el)
        .map(|t| squash(&t.text()))
        .filter(|s| !s.is_empty())
    {
        return t;
    }
    match el.local_name() {
        "varlistentry" => el
            .child_elements()
            .filter(|e| e.local_name() == "term")
            .map(|t| squash(&t.text()))
            .collect::<Vec<_>>()
            .join(", "),
        "glossentry" => el
            .child("glossterm")
            .map(|t| squash(&t.text()))
            .unwrap_or_default(),
        "refentry" => el
            .child("refmeta")
            .and_then(|m| m.child("refentrytitle"))
            .or_else(|| el.child("refnamediv").and_then(|d| d.child("refname")))
            .map(|t| squash(&t.text()))
            .unwrap_or_default(),
        "glossterm" | "term" | "refname" | "titleabbrev" | "citetitle" => squash(&el.text()),
        // A synopsis is named by its command or function, as DocBook XSL's `xref-to` names it.
        "cmdsynopsis" => {
            first_descendant(el, "command").map_or_else(String::new, |c| squash(&c.text()))
        }
        "funcsynopsis" => {
            first_descendant(el, "function").map_or_else(String::new, |c| squash(&c.text()))
        }
        _ => String::new(),
    }
}

/// The first element named `name` inside `el`, in document order.
fn first_descendant<'e>(el: &'e Element, name: &str) -> Option<&'e Element> {
    el.child_elements().find_map(|c| {
        if c.local_name() == name {
            Some(c)
        } else {
            first_descendant(c, name)
        }
    })
}

fn number_callouts(el: &Element, n: &mut usize, out: &mut HashMap<String, usize>) {
    for c in el.child_elements() {
        if c.local_name() == "co" {
            *n += 1;
            if let Some(id) = c.id() {
                out.insert(id.to_string(), *n);
            }
        } else {
            number_callouts(c, n, out);
        }
    }
}

/// What DocBook adds to an element of the tree.
trait DocBookElement {
    /// `xml:id` (DocBook 5) or `id` (DocBook 4), trimmed, if not empty.
    fn id(&self) -> Option<&str>;
    /// The first child element with this local name.
    fn child(&self, local: &str) -> Option<&Element>;
    /// The text of the element, without that of the index terms in it (never shown in
    /// place: `<varname>HOME<indexterm>…HOME…</indexterm></varname>` is `HOME`).
    fn text(&self) -> String;
}

impl DocBookElement for Element {
    fn id(&self) -> Option<&str> {
        self.attr("xml:id")
            .or_else(|| self.attr("id"))
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    fn child(&self, local: &str) -> Option<&Element> {
        // A local name ends its element's name: comparing the end first spares finding the
        // local name of every sibling (titles are looked for all the time).
        self.child_elements()
            .find(|e| e.name.ends_with(local) && e.local_name() == local)
    }

    fn text(&self) -> String {
        fn collect(el: &Element, out: &mut String) {
            for child in &el.children {
                match child {
                    Node::Text(t) => out.push_str(t),
                    Node::Element(e) if e.local_name() != "indexterm" => collect(e, out),
                    _ => {}
                }
            }
        }
        let mut out = String::new();
        collect(self, &mut out);
        out
    }
}
