//! Pages: metadata and resolved chapters → cover, title page, colophon (奥付), nav, package
//! document and NCX, through Tera templates.
//!
//! The house templates in `templates/` are embedded in the binary; a project's or a book's own
//! `templates/` folder overrides them file by file (the book's wins).
use std::path::Path;

use serde::Serialize;
use tera::{Context, Tera};

use crate::book::{Book, Cover, Date, Direction, GeneratedPages, StaticPage, Writing};
use crate::error::{Error, Result};
use crate::i18n::{Messages, Msg};
use crate::xref::{BookIndex, Chapter, TocEntry};

pub mod toc;

/// Every template seihon renders, with the built-in text.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("chapter.xhtml", include_str!("../templates/chapter.xhtml")),
    ("cover.xhtml", include_str!("../templates/cover.xhtml")),
    (
        "titlepage.xhtml",
        include_str!("../templates/titlepage.xhtml"),
    ),
    (
        "colophon.xhtml",
        include_str!("../templates/colophon.xhtml"),
    ),
    ("nav.xhtml", include_str!("../templates/nav.xhtml")),
    ("index.xhtml", include_str!("../templates/index.xhtml")),
    ("package.opf", include_str!("../templates/package.opf")),
    ("toc.ncx", include_str!("../templates/toc.ncx")),
    ("cover.svg", include_str!("../templates/cover.svg")),
    ("book.css", include_str!("../templates/book.css")),
    ("preview.html", include_str!("../templates/preview.html")),
];

/// Generated cover size: 1600×2400 px, the 1:1.5 ratio stores ask for.
pub const COVER_WIDTH: u32 = 1600;
pub const COVER_HEIGHT: u32 = 2400;

/// Paths inside the package folder (`item/`) of the generated pages.
pub const COVER_PAGE: &str = "xhtml/cover.xhtml";
pub const TITLE_PAGE: &str = "xhtml/titlepage.xhtml";
pub const COLOPHON_PAGE: &str = "xhtml/colophon.xhtml";
/// The index page, when it does not take a chapter's place (see [`index_page`]).
pub const INDEX_PAGE: &str = "xhtml/bookindex.xhtml";
pub const NAV: &str = "nav.xhtml";
pub const NCX: &str = "toc.ncx";
pub const CSS: &str = crate::xref::HOUSE_STYLE;
pub const GENERATED_COVER: &str = "image/cover.png";

/// The templates' texts as found (built-in, then `<project>/templates/`, then
/// `<book>/templates/`), each parsed the first time a page
/// is rendered with it: a rebuild whose pages all come from the cache parses none, and one
/// that writes a chapter parses the chapter's template alone.
pub struct TemplateTexts {
    /// Each template's name, text and where the text came from (for messages).
    texts: Vec<(&'static str, String, String)>,
    /// A hash of the texts: what the page cache keys on, so that editing a template renders
    /// every page again.
    pub digest: String,
    /// Each template parsed alone, by its place in `texts`; a template that names another
    /// (`include`, `extends`, `import`) is parsed with all of them.
    alone: Vec<std::sync::OnceLock<Parsed>>,
    all: std::sync::OnceLock<Parsed>,
}

/// Templates parsed, or the first that does not parse (its file and message).
type Parsed = std::result::Result<Tera, (String, String)>;

impl TemplateTexts {
    /// Every template's text.
    pub fn read_all(project_root: &Path, book_root: &Path) -> Self {
        let mut digest = crate::cache::Key::new("templates");
        let mut texts = Vec::new();
        for (name, builtin) in TEMPLATES {
            let mut text = builtin.to_string();
            let mut origin = format!("built-in template {name}");
            for dir in [project_root.join("templates"), book_root.join("templates")] {
                let path = dir.join(name);
                if let Ok(own) = std::fs::read_to_string(&path) {
                    text = own;
                    origin = path.display().to_string();
                }
            }
            digest = digest.bytes(name.as_bytes()).bytes(text.as_bytes());
            texts.push((*name, text, origin));
        }
        // Bytes alone always make a key.
        let digest = digest.finish().unwrap_or_default();
        TemplateTexts {
            alone: texts.iter().map(|_| Default::default()).collect(),
            all: Default::default(),
            texts,
            digest,
        }
    }

    /// `name` rendered with `ctx`.
    pub fn render(&self, name: &str, ctx: &Context) -> Result<String> {
        let place = self.texts.iter().position(|(n, _, _)| *n == name);
        let parsed = match place {
            Some(i) if !names_another(&self.texts[i].1) => {
                self.alone[i].get_or_init(|| compile(&self.texts[i..=i]))
            }
            _ => self.all.get_or_init(|| compile(&self.texts)),
        };
        let tera = parsed.as_ref().map_err(|e| template_error(e.clone()))?;
        render(tera, name, ctx)
    }
}

fn compile(texts: &[(&'static str, String, String)]) -> Parsed {
    let mut tera = Tera::default();
    tera.autoescape_on([".xhtml", ".opf", ".ncx", ".svg", ".html"]);
    // All at once, so that a template may include one listed after it.
    let all = texts.iter().map(|(name, text, _)| (*name, text.as_str()));
    tera.add_raw_templates(all).map_err(|e| {
        let message = error_chain(&e);
        // Tera's message points into the template at fault (`--> name:line:col`).
        let origin = (texts.iter())
            .find(|(name, _, _)| message.contains(&format!("--> {name}:")))
            .map_or_else(
                || String::from("templates"),
                |(_, _, origin)| origin.clone(),
            );
        (origin, message)
    })?;
    Ok(tera)
}

fn template_error((name, message): (String, String)) -> Error {
    Error::Template { name, message }
}

/// Whether a template's text names another template (which it then needs parsed beside it).
fn names_another(text: &str) -> bool {
    text.match_indices("{%").any(|(at, _)| {
        let tag = text[at + 2..].trim_start_matches('-').trim_start();
        ["include", "extends", "import"]
            .iter()
            .any(|word| tag.starts_with(word))
    })
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

pub fn render(tera: &Tera, name: &str, ctx: &Context) -> Result<String> {
    tera.render(name, ctx).map_err(|e| Error::Template {
        name: name.to_string(),
        message: error_chain(&e),
    })
}

/// One line of the colophon's contributor list (`山田太郎 訳`).
#[derive(Serialize)]
struct CreatorLine {
    name: String,
    role: String,
    /// How the title page names the role beside the name (`著`, `translated by`).
    role_label: String,
    /// How the colophon heads the role (`著　者`, `印刷所`, `Printer`).
    colophon_label: String,
    affiliation: Option<String>,
    email: Option<String>,
    /// `mailto:` the address, when it is one a link can hold as it is (not `a (at) b.org`).
    email_href: Option<String>,
}

#[derive(Serialize)]
struct HistoryLine {
    date: String,
    /// The date as the book's language writes it (`2011年10月1日`).
    date_label: String,
    text: String,
}

#[derive(Serialize, Clone)]
pub struct ManifestItem {
    pub id: String,
    /// A URL ([`crate::href::href`] of the file's path in the package folder).
    pub href: String,
    pub media_type: String,
    pub properties: String,
}

#[derive(Serialize, Clone)]
pub struct SpineItem {
    pub idref: String,
    pub linear: bool,
}

#[derive(Serialize)]
struct NavPoint {
    href: String,
    label: String,
}

#[derive(Serialize)]
struct Landmark {
    epub_type: &'static str,
    href: String,
    label: String,
}

/// A context and the key of what was put in it: whatever a template is given is in the key
/// of what it renders. A page's context is what every page sees (`base`, not copied) and what
/// the page adds; a large value may go into the key alone, to be given to the template only
/// when the page is rendered (see [`Keyed::note`]): most builds render nothing.
pub struct Keyed<'a> {
    base: Option<&'a Context>,
    ctx: Context,
    key: crate::cache::Key,
}

impl Keyed<'_> {
    pub fn insert<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        self.note(name, value);
        self.ctx.insert(name, value);
    }

    /// Puts `value` in the key as [`Keyed::insert`] would, but not in the context: whoever
    /// renders the page inserts it (see [`Keyed::context_with`]). Turning thousands of lines
    /// into template values costs more than hashing them.
    pub fn note<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        self.key = self.key.clone().bytes(name.as_bytes()).value(&value);
    }

    /// Puts `bytes` in the key under `name`, as what a value only given to the template when
    /// the page is rendered is made from (see [`Keyed::note`]).
    pub fn note_bytes(&mut self, name: &'static str, bytes: &[u8]) {
        self.key = self.key.clone().bytes(name.as_bytes()).bytes(bytes);
    }

    /// The whole context, for rendering.
    pub fn context(&self) -> std::borrow::Cow<'_, Context> {
        match self.base {
            None => std::borrow::Cow::Borrowed(&self.ctx),
            Some(base) => {
                let mut all = base.clone();
                all.extend(self.ctx.clone());
                std::borrow::Cow::Owned(all)
            }
        }
    }

    /// The whole context, with what was only noted in the key put in by `fill`.
    pub fn context_with(&self, fill: impl FnOnce(&mut Context)) -> Context {
        let mut all = self.context().into_owned();
        fill(&mut all);
        all
    }

    pub fn key(&self) -> &crate::cache::Key {
        &self.key
    }
}

/// What every template sees.
pub struct PageContext {
    ctx: Context,
    /// Everything in `ctx`, for the page cache (see [`PageContext::key`]).
    key: crate::cache::Key,
    labels: Labels,
    creators_line: String,
    /// The table of contents the nav shows, which the NCX is made from too.
    toc: toc::Toc,
}

impl PageContext {
    pub fn new(
        book: &Book,
        chapters: &[Chapter],
        index: Option<&BookIndex>,
        modified: &str,
    ) -> Self {
        let meta = &book.meta;
        let ja = meta.language.starts_with("ja");
        let messages = book.locale.messages(&meta.language);
        let mut ctx = Keyed {
            base: None,
            ctx: Context::new(),
            key: crate::cache::Key::new("page context"),
        };
        ctx.insert("book", meta);
        ctx.insert("lang", &meta.language);
        ctx.insert("ja", &ja);
        ctx.insert("vertical", &(meta.writing == Writing::Vertical));
        ctx.insert("rtl", &(meta.direction == Direction::Rtl));
        ctx.insert("modified", modified);
        ctx.insert("version", &None::<String>);
        ctx.insert("profiles", &Vec::<&str>::new());
        ctx.insert("css", CSS);
        let creators: Vec<CreatorLine> = meta
            .creators
            .iter()
            .map(|c| CreatorLine {
                name: c.name.clone(),
                role: c.role.clone(),
                role_label: title_page_role(&c.role, ja, &messages),
                colophon_label: colophon_label(&c.role, &messages),
                affiliation: c.affiliation.clone(),
                email: c.email.clone(),
                email_href: c
                    .email
                    .as_deref()
                    .filter(|e| is_plain_address(e))
                    .map(|e| format!("mailto:{e}")),
            })
            .collect();
        // A publisher among the creators is not listed again from `publisher:`.
        let publisher_listed = meta.publisher.as_ref().is_some_and(|p| {
            meta.creators
                .iter()
                .any(|c| c.role == "pbl" && c.name.trim() == p.trim())
        });
        ctx.insert("publisher_listed", &publisher_listed);
        ctx.insert(
            "colophon",
            &colophon_lines(book.colophon.as_deref(), meta, &messages),
        );
        let line = creators_line(&creators, ja);
        ctx.insert("creators_line", &line);
        ctx.insert("creators", &creators);
        // A DocBook book's history that comes from its revhistory shows the dates as written,
        // as DocBook XSL does (book.yml's are the house's `2011年10月1日`).
        let as_written = book.docbook.is_some() && !book.given.history;
        let history: Vec<HistoryLine> = meta
            .history
            .iter()
            .map(|h| HistoryLine {
                date: h.date.clone(),
                date_label: match as_written {
                    true => h.date.clone(),
                    false => date_label(&h.date, ja),
                },
                text: h.text.clone(),
            })
            .collect();
        ctx.insert("history", &history);
        ctx.insert(
            "date_label",
            &meta
                .date
                .as_deref()
                .map(|d| date_label(d, ja))
                .unwrap_or_default(),
        );
        let labels = Labels::new(&messages);
        ctx.insert("labels", &labels);
        ctx.insert("messages", &messages);
        // The authors as one line, as Re:VIEW's title page shows them.
        let authors: Vec<&str> = (meta.creators.iter())
            .filter(|c| c.role == "aut")
            .map(|c| c.name.as_str())
            .collect();
        ctx.insert(
            "authors_line",
            &authors.join(messages.get(Msg::NamesSplitter)),
        );
        // A Re:VIEW book's generated pages are made as Re:VIEW makes them.
        ctx.insert(
            "review_style",
            &(book.locale.style == crate::i18n::Style::Review),
        );

        let chapter_links: Vec<NavPoint> = chapters
            .iter()
            .map(|c| NavPoint {
                href: c.href(),
                label: c.title.clone(),
            })
            .collect();
        ctx.insert("chapters", &chapter_links);
        let index = index.map(|i| index_page(chapters, i, &messages));
        let own_index = index.as_ref().is_some_and(|i| i.chapter.is_none());
        let order = reading_order(chapters, book.generated, own_index);
        let toc = toc::toc(chapters, &order, book.toc_depth, index.as_ref());
        ctx.insert("toc_html", &toc::html(&toc));
        let landmarks = landmarks(book, chapters, &labels, index.as_ref());
        ctx.insert("guide", &guide(&landmarks));
        ctx.insert("landmarks", &landmarks);
        let page_list = page_list(chapters, &order);
        ctx.insert("has_page_list", &!page_list.is_empty());
        ctx.insert("page_list", &page_list);
        PageContext {
            ctx: ctx.ctx,
            key: ctx.key,
            labels,
            creators_line: line,
            toc,
        }
    }

    /// A generated page's name in the book's language (`cover`, `toc`, `colophon`).
    pub fn label(&self, which: &str) -> String {
        let l = &self.labels;
        match which {
            "cover" => &l.cover,
            "toc" => &l.toc,
            "titlepage" => &l.titlepage,
            "index" => &l.index,
            _ => &l.colophon,
        }
        .clone()
    }

    /// Stamps a release's version into every page (the colophon and package document show it).
    pub fn with_version(mut self, version: Option<&str>) -> Self {
        self.ctx.insert("version", &version);
        self.key = self.key.bytes(b"version").value(&version);
        self
    }

    /// The table of contents, as the nav shows it.
    pub fn toc(&self) -> &toc::Toc {
        &self.toc
    }

    /// The store profiles the build is for (`profiles` in templates: `"ebpaj" in profiles`).
    pub fn with_profiles(mut self, names: &[&str]) -> Self {
        self.ctx.insert("profiles", &names);
        self.key = self.key.bytes(b"profiles").value(&names);
        self
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// A key of everything every page sees, by value: what the page cache starts from.
    pub fn key(&self) -> &crate::cache::Key {
        &self.key
    }

    /// The context for one page: `page_href` is where the page sits inside the package folder,
    /// so templates can link to the style sheet and images relative to it.
    pub fn for_page(&self, page_href: &str) -> Context {
        let mut ctx = self.ctx.clone();
        let (root, css_href) = page_paths(page_href);
        ctx.insert("root", &root);
        ctx.insert("css_href", &css_href);
        ctx
    }

    /// [`PageContext::for_page`], with the key of everything in it.
    pub fn for_page_keyed(&self, page_href: &str) -> Keyed<'_> {
        let mut ctx = Keyed {
            base: Some(&self.ctx),
            ctx: Context::new(),
            key: self.key.clone(),
        };
        let (root, css_href) = page_paths(page_href);
        ctx.insert("root", &root);
        ctx.insert("css_href", &css_href);
        ctx
    }
}

/// What a page at `page_href` (inside the package folder) gets to the package folder and to
/// the style sheet: `root` (`../` a level) and `css_href`.
fn page_paths(page_href: &str) -> (String, String) {
    let up = "../".repeat(page_href.matches('/').count());
    let css = format!("{up}{CSS}");
    (up, css)
}

/// The generated pages' names and the colophon's words, as templates see them (`labels.toc`).
#[derive(Serialize, Clone)]
struct Labels {
    toc: String,
    cover: String,
    titlepage: String,
    colophon: String,
    index: String,
    isbn: &'static str,
    /// The heading of the nav's page list.
    pages: &'static str,
    /// The heading of the nav's landmarks (hidden, but read out by some readers).
    landmarks: &'static str,
    publisher: String,
    version: &'static str,
}

impl Labels {
    fn new(m: &Messages) -> Self {
        Labels {
            toc: m.get(Msg::TocTitle).into(),
            cover: m.get(Msg::CoverTitle).into(),
            titlepage: m.get(Msg::TitlePageTitle).into(),
            colophon: m.get(Msg::ColophonTitle).into(),
            index: m.get(Msg::IndexTitle).into(),
            isbn: "ISBN",
            pages: if m.ja { "ページ" } else { "Pages" },
            landmarks: if m.ja {
                "ランドマーク"
            } else {
                "Landmarks"
            },
            publisher: m.get(Msg::Pbl).into(),
            version: if m.ja { "電子版" } else { "Version" },
        }
    }
}

fn role_label(role: &str, ja: bool) -> &'static str {
    match (role, ja) {
        ("aut", true) => "著",
        ("trl", true) => "訳",
        ("edt", true) => "編",
        ("ill", true) => "イラスト",
        ("pht", true) => "写真",
        ("aut", false) => "",
        ("trl", false) => "translated by",
        ("edt", false) => "edited by",
        ("ill", false) => "illustrated by",
        ("pht", false) => "photographs by",
        (_, true) => "",
        (_, false) => "",
    }
}

/// Whether an e-mail address is `local@domain` in the characters a URL holds as they are.
fn is_plain_address(addr: &str) -> bool {
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._%+-".contains(c))
    };
    matches!(addr.split_once('@'), Some((local, domain)) if plain(local) && plain(domain) && domain.contains('.'))
}

/// How the title page names a role beside a name: [`role_label`]'s words, else (a reviewer,
/// a proofreader) the colophon's heading for it, so that nobody looks like an author.
fn title_page_role(role: &str, ja: bool, m: &Messages) -> String {
    match role_label(role, ja) {
        "" if role == "aut" => String::new(),
        "" if ja => format!("（{}）", colophon_label(role, m).replace('\u{3000}', "")),
        "" => format!("{}:", colophon_label(role, m)),
        word => word.to_string(),
    }
}

/// The colophon's heading for a role: Re:VIEW's words (its `i18n.yml`, the book's
/// `locale.yml` over it) for the roles of its `colophon_order`, the MARC relator term for any
/// other; never "Author" for what is not one.
fn colophon_label(role: &str, m: &Messages) -> String {
    if let Some(k) = Msg::of_role(role) {
        return m.get(k).to_string();
    }
    crate::book::relator_term(role)
        .unwrap_or("Other")
        .to_string()
}

/// A line of the colophon as templates see it (`colophon`): the role's heading and its names,
/// joined by the locale's `names_splitter`.
#[derive(Serialize)]
struct ColophonLine {
    role: String,
    label: String,
    names: String,
}

/// The colophon's lines: a Re:VIEW book's as its config gives them; for other books, the
/// creators grouped by role, the roles of Re:VIEW's `colophon_order` first and in it, then the
/// others as they come, with `publisher:` among the publishers.
fn colophon_lines(
    given: Option<&[crate::book::ColophonRow]>,
    meta: &crate::book::Metadata,
    m: &Messages,
) -> Vec<ColophonLine> {
    let rows = given.map(<[_]>::to_vec).unwrap_or_else(|| {
        let mut rows: Vec<crate::book::ColophonRow> = Vec::new();
        let creators = meta.creators.iter().map(|c| (c.role.as_str(), &c.name));
        let publisher = meta.publisher.iter().map(|p| ("pbl", p));
        for (role, name) in creators.chain(publisher) {
            match rows.iter_mut().find(|r| r.role == role) {
                Some(r) if r.names.iter().any(|n| n.trim() == name.trim()) => {}
                Some(r) => r.names.push(name.clone()),
                None => rows.push(crate::book::ColophonRow {
                    role: role.to_string(),
                    names: vec![name.clone()],
                }),
            }
        }
        let rank = |role: &str| {
            crate::book::COLOPHON_ORDER
                .iter()
                .position(|r| *r == role)
                .unwrap_or(usize::MAX)
        };
        // Stable: roles outside the order keep the order they came in.
        rows.sort_by_key(|r| rank(&r.role));
        rows
    });
    rows.into_iter()
        .map(|r| ColophonLine {
            label: colophon_label(&r.role, m),
            names: r.names.join(m.get(Msg::NamesSplitter)),
            role: r.role,
        })
        .collect()
}

fn creators_line(creators: &[CreatorLine], ja: bool) -> String {
    let parts: Vec<String> = creators
        .iter()
        .map(|c| match (ja, c.role_label.is_empty()) {
            (_, true) => c.name.clone(),
            (true, false) => format!("{} {}", c.name, c.role_label),
            (false, false) => format!("{} {}", c.role_label, c.name),
        })
        .collect();
    parts.join(if ja { "／" } else { "; " })
}

/// `2011-10-01` → `2011年10月1日` (ja) or `October 1, 2011`; anything else as written.
pub fn date_label(date: &str, ja: bool) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    match Date::parse(date) {
        Some(d) if ja => format!("{}年{}月{}日", d.year, d.month, d.day),
        Some(d) => format!("{} {}, {}", MONTHS[d.month as usize - 1], d.day, d.year),
        None => date.to_string(),
    }
}

/// Where the index page is and what it is called.
pub struct IndexPage {
    /// Inside the package folder.
    pub href: String,
    pub title: String,
    /// The chapter whose place it takes (db `<index/>`): the page gets its href, title and
    /// title's id, and the chapter's lines in the nav and NCX are the index's.
    pub chapter: Option<usize>,
    /// The words of "Foo (see Bar)" and "(see also Bar)" in the book's language.
    pub see: String,
    pub see_also: String,
}

/// The index's page: in the place of the chapter it takes, else a page of its own after the
/// chapters, called 索引 or Index.
pub fn index_page(chapters: &[Chapter], index: &BookIndex, m: &Messages) -> IndexPage {
    match index
        .place
        .and_then(|ci| chapters.get(ci).map(|ch| (ci, ch)))
    {
        Some((ci, ch)) => IndexPage {
            href: ch.href(),
            title: ch.title.clone(),
            chapter: Some(ci),
            see: m.get(Msg::IndexSee).into(),
            see_also: m.get(Msg::IndexSeeAlso).into(),
        },
        None => IndexPage {
            href: INDEX_PAGE.into(),
            title: m.get(Msg::IndexTitle).into(),
            chapter: None,
            see: m.get(Msg::IndexSee).into(),
            see_also: m.get(Msg::IndexSeeAlso).into(),
        },
    }
}

/// The nav's landmarks: the cover, the title page (generated or the book's own), the table of
/// contents, where the body begins, the glossaries and bibliographies (DocBook divisions), the
/// index and the colophon. seihon makes no list of figures or tables, so there is no `loi` or
/// `lot` to point to.
fn landmarks(
    book: &Book,
    chapters: &[Chapter],
    labels: &Labels,
    index: Option<&IndexPage>,
) -> Vec<Landmark> {
    let mut landmarks = vec![
        Landmark {
            epub_type: "cover",
            href: COVER_PAGE.into(),
            label: labels.cover.clone(),
        },
        Landmark {
            epub_type: "toc",
            href: format!("{NAV}#toc"),
            label: labels.toc.clone(),
        },
    ];
    // The title page and the colophon: generated, or the book's own.
    let own = |which: StaticPage| {
        chapters
            .iter()
            .find(|c| c.source.page == Some(which))
            .map(Chapter::href)
    };
    let title_page =
        own(StaticPage::TitlePage).or_else(|| book.generated.title_page.then(|| TITLE_PAGE.into()));
    if let Some(href) = title_page {
        landmarks.insert(
            1,
            Landmark {
                epub_type: "titlepage",
                href,
                label: labels.titlepage.clone(),
            },
        );
    }
    if let Some(first) = chapters
        .iter()
        .find(|c| c.source.role == crate::book::Role::Body)
        .or(chapters.iter().find(|c| c.source.page.is_none()))
    {
        landmarks.push(Landmark {
            epub_type: "bodymatter",
            href: first.href(),
            label: first.title.clone(),
        });
    }
    // The first of each kind: a landmark names one place.
    for kind in ["glossary", "bibliography"] {
        if let Some(ch) = chapters
            .iter()
            .find(|c| c.source.page.is_none() && c.source.division == Some(kind))
        {
            landmarks.push(Landmark {
                epub_type: kind,
                href: ch.href(),
                label: ch.title.clone(),
            });
        }
    }
    if let Some(page) = index {
        landmarks.push(Landmark {
            epub_type: "index",
            href: page.href.clone(),
            label: page.title.clone(),
        });
    }
    let colophon =
        own(StaticPage::Colophon).or_else(|| book.generated.colophon.then(|| COLOPHON_PAGE.into()));
    if let Some(href) = colophon {
        landmarks.push(Landmark {
            epub_type: "colophon",
            href,
            label: labels.colophon.clone(),
        });
    }
    landmarks
}

/// A reference of the package's EPUB 2 `<guide>`, for readers that know no landmarks nav.
#[derive(Serialize)]
struct GuideReference {
    /// OPF 2.0.1's type of the landmark (§2.6).
    kind: &'static str,
    href: String,
    title: String,
}

/// The `<guide>`: the landmarks, in OPF 2's words for them (the EPUB 3 types map one to one,
/// `bodymatter` being OPF 2's `text`).
fn guide(landmarks: &[Landmark]) -> Vec<GuideReference> {
    (landmarks.iter())
        .filter_map(|l| {
            let kind = match l.epub_type {
                "titlepage" => "title-page",
                "bodymatter" => "text",
                k @ ("cover" | "toc" | "index" | "colophon" | "glossary" | "bibliography") => k,
                _ => return None,
            };
            Some(GuideReference {
                kind,
                href: l.href.clone(),
                title: l.label.clone(),
            })
        })
        .collect()
}

/// A page of the EPUB, in reading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Cover,
    /// The generated title page.
    TitlePage,
    Nav,
    /// A chapter, or a page of the book's own (its title page, profile, …), by its index.
    Chapter(usize),
    /// The index as a page of its own.
    Index,
    /// The generated colophon.
    Colophon,
}

/// The EPUB's pages in reading order, as the spine, the contents and the NCX list them: the
/// cover, the title page (generated, or the book's own, then the original's title page and
/// the credits), the table of contents, the chapters, the index, then the profile,
/// advertisements, colophon and back cover. The book's own pages come first and last among
/// `chapters`, in that order (see `book::StaticPage`).
pub fn reading_order(
    chapters: &[Chapter],
    generated: GeneratedPages,
    own_index: bool,
) -> Vec<Slot> {
    let page = |ci: usize| chapters[ci].source.page;
    let n = chapters.len();
    let front = (0..n)
        .take_while(|&ci| page(ci).is_some_and(StaticPage::is_front))
        .count();
    let back = (front..n).find(|&ci| page(ci).is_some()).unwrap_or(n);
    let mut order = vec![Slot::Cover];
    if generated.title_page {
        order.push(Slot::TitlePage);
    }
    order.extend((0..front).map(Slot::Chapter));
    order.push(Slot::Nav);
    order.extend((front..back).map(Slot::Chapter));
    if own_index {
        order.push(Slot::Index);
    }
    let mut colophon = generated.colophon;
    for ci in back..n {
        if colophon && page(ci).is_some_and(|p| p > StaticPage::Colophon) {
            order.push(Slot::Colophon);
            colophon = false;
        }
        order.push(Slot::Chapter(ci));
    }
    if colophon {
        order.push(Slot::Colophon);
    }
    order
}

/// The nav's page list: every print page-break marker of the chapters, in reading order.
fn page_list(chapters: &[Chapter], order: &[Slot]) -> Vec<NavPoint> {
    let chapter = |slot: &Slot| match *slot {
        Slot::Chapter(ci) => Some(&chapters[ci]),
        _ => None,
    };
    (order.iter().filter_map(chapter))
        .flat_map(|ch| {
            ch.pages.iter().map(move |p| NavPoint {
                href: format!("{}#{}", ch.href(), p.id),
                label: p.label.clone(),
            })
        })
        .collect()
}

/// A chapter's line in the contents: its title heading's entry, when it has one there.
pub fn chapter_entry(ch: &Chapter) -> Option<&TocEntry> {
    ch.toc.first().filter(|e| e.level == 1)
}

/// The title broken into lines for the generated cover.
pub fn cover_svg(templates: &TemplateTexts, pages: &PageContext, book: &Book) -> Result<String> {
    let mut ctx = pages.context().clone();
    ctx.insert("width", &COVER_WIDTH);
    ctx.insert("height", &COVER_HEIGHT);
    ctx.insert(
        "title_lines",
        &crate::cover::wrap_lines(&book.meta.title, 8.5),
    );
    ctx.insert(
        "subtitle_lines",
        &book
            .meta
            .subtitle
            .as_deref()
            .map(|s| crate::cover::wrap_lines(s, 16.0))
            .unwrap_or_default(),
    );
    ctx.insert(
        "publisher",
        &book.meta.publisher.clone().unwrap_or_default(),
    );
    ctx.insert("creators", &pages.creators_line);
    ctx.insert("font_family", crate::cover::COVER_FONT_FAMILY);
    templates.render("cover.svg", &ctx)
}

/// Whether the book's cover is generated.
pub fn cover_is_generated(book: &Book) -> bool {
    matches!(book.cover, Cover::Generated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_is_parsed_alone_unless_it_names_another() {
        assert!(!names_another("<p>{{ title }}</p>{% if x %}{% endif %}"));
        assert!(names_another("{% include \"nav.xhtml\" %}"));
        assert!(names_another("{%- extends \"chapter.xhtml\" -%}"));
        assert!(names_another("{%import \"macros\" as m %}"));
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("templates");
        std::fs::create_dir_all(&own).unwrap();
        // A broken template no page renders does not stop the others; one that includes
        // another renders with it.
        std::fs::write(own.join("index.xhtml"), "{% if %}").unwrap();
        std::fs::write(
            own.join("chapter.xhtml"),
            "<h1>{{ title }}</h1>{% include \"toc.ncx\" %}",
        )
        .unwrap();
        std::fs::write(own.join("toc.ncx"), "<ncx>{{ title }}</ncx>").unwrap();
        let texts = TemplateTexts::read_all(dir.path(), dir.path());
        let mut ctx = Context::new();
        ctx.insert("title", "T");
        assert_eq!(texts.render("toc.ncx", &ctx).unwrap(), "<ncx>T</ncx>");
        let err = texts.render("chapter.xhtml", &ctx).unwrap_err().to_string();
        assert!(err.contains("index.xhtml"), "{err}");
        std::fs::remove_file(own.join("index.xhtml")).unwrap();
        let texts = TemplateTexts::read_all(dir.path(), dir.path());
        assert_eq!(
            texts.render("chapter.xhtml", &ctx).unwrap(),
            "<h1>T</h1><ncx>T</ncx>"
        );
    }

    #[test]
    fn the_title_page_names_every_role_but_the_authors() {
        let (ja, en) = (
            &crate::i18n::Locale::default().messages("ja"),
            &crate::i18n::Locale::default().messages("en"),
        );
        assert_eq!(title_page_role("aut", false, en), "");
        assert_eq!(title_page_role("trl", false, en), "translated by");
        assert_eq!(title_page_role("rev", false, en), "Reviewer:");
        assert_eq!(title_page_role("trl", true, ja), "訳");
        assert_eq!(title_page_role("csl", true, ja), "（監修）");
        assert_eq!(title_page_role("pfr", true, ja), "（Proofreader）");
    }

    #[test]
    fn only_a_plain_address_becomes_a_mailto_link() {
        assert!(is_plain_address("ann@example.org"));
        assert!(is_plain_address("a.b+c@mail.example.co.jp"));
        for not in [
            "lars strand (at) gnist org",
            "tille wants no spam _at_ garrels dot be",
            "a@b",
            "<a@b.org>",
            "@b.org",
        ] {
            assert!(!is_plain_address(not), "{not}");
        }
    }

    #[test]
    fn seihons_own_files_are_on_the_paths_kept_free_of_the_books() {
        for path in [CSS, GENERATED_COVER] {
            assert!(crate::xref::is_generated_path(path), "{path}");
        }
    }

    #[test]
    fn colophon_roles_are_named_never_as_authors_by_default() {
        let (ja, en) = (
            &crate::i18n::Locale::default().messages("ja"),
            &crate::i18n::Locale::default().messages("en"),
        );
        assert_eq!(colophon_label("aut", ja), "著　者");
        assert_eq!(colophon_label("prt", ja), "印刷所");
        assert_eq!(colophon_label("pbl", ja), "発行所");
        assert_eq!(colophon_label("dsr", ja), "デザイン");
        assert_eq!(colophon_label("contact", ja), "連絡先");
        assert_eq!(colophon_label("prt", en), "Printer");
        assert_eq!(colophon_label("csl", en), "Consultant");
        // Roles Re:VIEW has no words for: the MARC relator term, in any language.
        assert_eq!(colophon_label("nrt", ja), "Narrator");
        assert_eq!(colophon_label("ctb", en), "Contributor");
        assert_eq!(colophon_label("xyz", ja), "Other");
    }

    #[test]
    fn a_colophon_groups_creators_by_role_in_re_views_order() {
        let creator = |name: &str, role: &str| crate::book::Creator {
            name: name.into(),
            role: role.into(),
            ..Default::default()
        };
        let meta = crate::book::Metadata {
            title: "t".into(),
            subtitle: None,
            language: "ja".into(),
            identifier: "urn:x".into(),
            creators: vec![
                creator("印刷所A", "prt"),
                creator("著者A", "aut"),
                creator("語り手", "nrt"),
                creator("著者B", "aut"),
                creator("版元", "pbl"),
            ],
            publisher: Some("版元".into()),
            date: None,
            history: Vec::new(),
            isbn: None,
            print_isbn: None,
            page_source: None,
            rights: None,
            description: None,
            subjects: Vec::new(),
            series: None,
            writing: Writing::Horizontal,
            direction: Direction::Ltr,
        };
        let m = crate::i18n::Locale::default().messages("ja");
        let lines: Vec<(String, String)> = colophon_lines(None, &meta, &m)
            .into_iter()
            .map(|l| (l.label, l.names))
            .collect();
        let want = [
            ("著　者", "著者A、著者B"),
            ("発行所", "版元"),
            ("印刷所", "印刷所A"),
            ("Narrator", "語り手"),
        ];
        assert_eq!(lines, want.map(|(a, b)| (a.to_string(), b.to_string())));
        // A Re:VIEW book's own lines are kept as given.
        let given = [crate::book::ColophonRow {
            role: "contact".into(),
            names: vec!["desk@example.org".into()],
        }];
        let lines = colophon_lines(Some(&given), &meta, &m);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].label, "連絡先");
    }

    #[test]
    fn japanese_and_english_dates() {
        assert_eq!(date_label("2011-10-01", true), "2011年10月1日");
        assert_eq!(date_label("2011-10-01", false), "October 1, 2011");
        assert_eq!(date_label("2011年秋", true), "2011年秋");
    }

    #[test]
    fn a_page_context_has_one_debug_form() {
        // The page cache keys on it: the maps in it must keep one order (tera's
        // `preserve_order`), not each its own random one.
        #[derive(Serialize)]
        struct Meta {
            title: &'static str,
            lang: &'static str,
            publisher: &'static str,
            date: &'static str,
            rights: &'static str,
        }
        let form = || {
            let mut ctx = Context::new();
            let meta = Meta {
                title: "t",
                lang: "ja",
                publisher: "p",
                date: "2026-11-30",
                rights: "r",
            };
            ctx.insert("book", &meta);
            format!("{ctx:?}")
        };
        let first = form();
        for _ in 0..20 {
            assert_eq!(form(), first);
        }
    }
}
