//! Load: a book folder → [`Book`] (metadata, chapter list, assets), from `book.yml`, and the
//! optional project `seihon.yml`.
//!
//! Both files are read into typed structs that deny unknown keys, so a typo is an error at its
//! line and column with the nearest valid key suggested, never a silently ignored setting.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_saphyr::Spanned;

pub use accessibility::Accessibility;

use crate::codes;
use crate::error::{Error, Finding, Location, Result};

pub mod accessibility;
pub mod docbook;
pub mod docbook_info;
pub mod id;
pub mod index;
pub mod outputs;
pub mod review;
mod review_keys;
pub mod sniff;

/// The project's `seihon.yml` (optional): folders and defaults for every book.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProjectConfig {
    /// Where books live, one folder each (default `books`).
    pub books_dir: PathBuf,
    /// Where each book's EPUB tree is staged (default `build`).
    pub build_dir: PathBuf,
    /// Where EPUBs are written (default `dist`).
    pub dist_dir: PathBuf,
    /// The preview area: each book's EPUB, unpacked pages and index (default `public`).
    pub preview_dir: PathBuf,
    /// Table of contents depth for books that do not set one (default 2).
    pub toc_depth: u8,
    /// The house filter chain every book runs, in order (default: `[house]`).
    pub filters: Vec<String>,
    /// Seconds an external filter may run on one chapter (default 30).
    pub filter_timeout: u64,
    /// Seconds a hook may run (default 120).
    pub hook_timeout: u64,
    /// Check levels for every book: check name → `error`, `warning` or `off`.
    pub checks: std::collections::BTreeMap<String, crate::config::Level>,
    /// Who gets the log when a book fails in `seihon ci`, and through which server.
    pub mail: Option<crate::mail::MailConfig>,
    /// Folders outside the books (relative to the project) that every book may take images
    /// and hook programs from, e.g. a house image library. Anything else outside a book's
    /// folder, through `..` or a symlink, is refused.
    pub shared_dirs: Vec<PathBuf>,
    /// Lets `build_dir`, `dist_dir` and `preview_dir` lie outside the project folder (never
    /// over the sources).
    pub outputs_outside_project: bool,
    /// XML catalogs for every DocBook book (relative to the project, inside it).
    pub catalogs: Vec<PathBuf>,
}

impl Default for ProjectConfig {
    fn default() -> Self {
        ProjectConfig {
            books_dir: "books".into(),
            build_dir: "build".into(),
            dist_dir: "dist".into(),
            preview_dir: "public".into(),
            toc_depth: 2,
            filters: vec!["house".into()],
            filter_timeout: 30,
            hook_timeout: 120,
            checks: Default::default(),
            mail: None,
            shared_dirs: Vec::new(),
            outputs_outside_project: false,
            catalogs: Vec::new(),
        }
    }
}

impl ProjectConfig {
    /// Reads `<root>/seihon.yml` if it exists; defaults otherwise.
    pub fn load(root: &Path) -> Result<Self> {
        let path = root.join("seihon.yml");
        match std::fs::read(&path) {
            Ok(bytes) => {
                let shown = display_path(root, &path);
                let text = crate::error::decode_text(bytes, &shown).map_err(Error::Config)?;
                let mut config: ProjectConfig = parse_yaml(&text, &shown).map_err(Error::Config)?;
                if let Some(mail) = &mut config.mail {
                    mail.resolve_paths(root);
                }
                for dir in &mut config.shared_dirs {
                    *dir = root.join(&*dir);
                }
                for catalog in &mut config.catalogs {
                    *catalog = root.join(&*catalog);
                }
                outputs::check_catalogs(root, &config, &text, &shown).map_err(Error::Config)?;
                outputs::check(root, &config, &text, &shown).map_err(Error::Config)?;
                Ok(config)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ProjectConfig::default()),
            Err(e) => Err(Error::Config(Finding::error(
                codes::SETTINGS_SYNTAX,
                Location::file(&path),
                format!("cannot read the project settings: {e}"),
            ))),
        }
    }
}

/// `books/<id>/book.yml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BookFile {
    /// Required, except of a DocBook book, whose `info` may give it.
    title: Option<String>,
    subtitle: Option<String>,
    /// Required, except of a DocBook book (its root's `xml:lang`, else `en`).
    language: Option<Spanned<String>>,
    identifier: Option<String>,
    #[serde(default)]
    authors: Vec<PersonEntryOrName>,
    #[serde(default)]
    translators: Vec<PersonEntryOrName>,
    #[serde(default)]
    editors: Vec<PersonEntryOrName>,
    #[serde(default)]
    contributors: Vec<PersonEntryOrName>,
    publisher: Option<String>,
    date: Option<Spanned<String>>,
    #[serde(default)]
    history: Vec<HistoryEntry>,
    isbn: Option<Spanned<String>>,
    /// The print edition's ISBN: what the page list follows.
    print_isbn: Option<Spanned<String>>,
    /// What the print page numbers follow, when not the print ISBN (`none`: the e-book's own).
    page_source: Option<Spanned<String>>,
    rights: Option<String>,
    /// What the book is about, for stores and catalogs (`dc:description`).
    description: Option<String>,
    /// Each a `dc:subject`.
    #[serde(default)]
    subjects: Vec<String>,
    series: Option<SeriesEntry>,
    cover: Option<Spanned<String>>,
    #[serde(default)]
    writing: Writing,
    direction: Option<Direction>,
    /// A DocBook book's main file: the one document the book is (its `info` under this
    /// file's metadata).
    main: Option<Spanned<String>>,
    #[serde(default)]
    frontmatter: Vec<Spanned<String>>,
    #[serde(default)]
    chapters: Vec<Spanned<String>>,
    #[serde(default)]
    appendices: Vec<Spanned<String>>,
    #[serde(default)]
    backmatter: Vec<Spanned<String>>,
    toc_depth: Option<u8>,
    /// Unset: 0 (no numbers), 2 for a DocBook book, as DocBook XSL numbers it here.
    secnolevel: Option<u8>,
    #[serde(default)]
    stylesheets: Vec<Spanned<String>>,
    /// This book's filter chain; `default` stands for the project's chain.
    filters: Option<Vec<String>>,
    /// This book's check levels, over the project's.
    #[serde(default)]
    checks: std::collections::BTreeMap<String, crate::config::Level>,
    /// XML catalogs for a DocBook book (relative to the book folder, inside it or a shared
    /// folder).
    #[serde(default)]
    catalogs: Vec<Spanned<String>>,
    /// Whether the book gets an index page (Re:VIEW's key): `false` none, `true` one even
    /// where no DocBook `<index/>` places it.
    makeindex: Option<bool>,
    #[serde(default)]
    typography: Typography,
    #[serde(default)]
    accessibility: accessibility::AccessibilityFile,
    #[serde(default)]
    fonts: FontSettings,
}

/// book.yml's `fonts:`: what is done to the fonts the book's style sheets embed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FontSettings {
    /// Subset each font to the characters the book shows; unset: only in `seihon release`.
    pub subset: Option<bool>,
}

/// How a Markdown book's punctuation is read: as written (the default: seihon never changes
/// the author's characters on its own), or `smart` (straight quotes curled, `--`/`---` as
/// dashes, `...` as an ellipsis, as pandoc's `smart` extension does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Typography {
    #[default]
    AsWritten,
    Smart,
}

/// `series: {name: …, position: 2}` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeriesEntry {
    name: Spanned<String>,
    position: Option<Spanned<f64>>,
}

/// The series a book belongs to (`belongs-to-collection` of type `series`), and where in it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Series {
    pub name: String,
    /// The book's number in the series as the package writes it (`2`, `2.5`).
    pub position: Option<String>,
}

/// A person as written: `Name` or `{name: Name, role: trl, file_as: …}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PersonEntry {
    name: String,
    role: Option<Spanned<String>>,
    file_as: Option<String>,
    affiliation: Option<String>,
    email: Option<String>,
}

// Not `#[serde(untagged)]`: its one message ("did not match any variant") would hide which key
// was mistyped; going through the map keeps serde-saphyr's located unknown-key error.
impl<'de> Deserialize<'de> for PersonEntryOrName {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PersonEntryOrName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a name, or a mapping with `name`, `role`, `file_as`, `affiliation` and `email`",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Self::Value, E> {
                Ok(PersonEntryOrName(PersonEntry {
                    name: s.to_string(),
                    role: None,
                    file_as: None,
                    affiliation: None,
                    email: None,
                }))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                m: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                PersonEntry::deserialize(de::value::MapAccessDeserializer::new(m))
                    .map(PersonEntryOrName)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug)]
struct PersonEntryOrName(PersonEntry);

/// An edition history line: `"2011-10-01: 初版第1刷発行"` or, unquoted, a one-key mapping.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HistoryEntry {
    pub date: String,
    pub text: String,
}

impl<'de> Deserialize<'de> for HistoryEntry {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HistoryEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a line like \"2011-10-01: 初版第1刷発行\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<HistoryEntry, E> {
                match s.split_once(':') {
                    Some((date, text)) => Ok(HistoryEntry {
                        date: date.trim().to_string(),
                        text: text.trim().to_string(),
                    }),
                    None => Ok(HistoryEntry {
                        date: String::new(),
                        text: s.trim().to_string(),
                    }),
                }
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<HistoryEntry, A::Error> {
                let Some((date, text)) = m.next_entry::<String, String>()? else {
                    return Err(de::Error::custom("an empty history entry"));
                };
                if m.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom(
                        "a history entry has one date and one text: write \"2011-10-01: 初版第1刷発行\"",
                    ));
                }
                Ok(HistoryEntry { date, text })
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Writing {
    #[default]
    Horizontal,
    Vertical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Ltr,
    Rtl,
}

/// A contributor with a MARC relator role (`aut`, `trl`, `edt`, `ill`, …).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Creator {
    pub name: String,
    pub role: String,
    pub file_as: Option<String>,
    /// Where the person works (DocBook `affiliation`: job title, division, organization),
    /// shown under the name on the title page.
    pub affiliation: Option<String>,
    pub email: Option<String>,
}

/// Which of the generated pages a book has besides the cover and the table of contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct GeneratedPages {
    pub title_page: bool,
    pub colophon: bool,
}

impl Default for GeneratedPages {
    /// Both, for every book but a Re:VIEW one whose config says otherwise.
    fn default() -> Self {
        GeneratedPages {
            title_page: true,
            colophon: true,
        }
    }
}

/// One line of the colophon: a role and the names under it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ColophonRow {
    /// A MARC relator code, or `contact`.
    pub role: String,
    pub names: Vec<String>,
}

/// The roles a colophon lists first, in Re:VIEW's default `colophon_order`.
pub const COLOPHON_ORDER: &[&str] = &[
    "aut", "csl", "trl", "dsr", "ill", "cov", "edt", "pbl", "contact", "prt",
];

/// A calendar date (`YYYY-MM-DD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl Date {
    pub fn parse(s: &str) -> Option<Date> {
        let mut parts = s.trim().splitn(3, '-');
        let year: i32 = parts.next()?.parse().ok()?;
        let month: u32 = parts.next()?.parse().ok()?;
        let day: u32 = parts.next()?.parse().ok()?;
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if !(1..=9999).contains(&year) || !(1..=12).contains(&month) {
            return None;
        }
        (1..=days[month as usize - 1])
            .contains(&day)
            .then_some(Date { year, month, day })
    }

    /// Seconds since 1970-01-01T00:00:00Z at midnight of this date.
    pub fn unix_seconds(self) -> i64 {
        // Days from civil (proleptic Gregorian), after H. Hinnant's well-known algorithm.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        (era * 146_097 + doe - 719_468) * 86_400
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// Book metadata, validated.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Metadata {
    pub title: String,
    pub subtitle: Option<String>,
    pub language: String,
    /// The package's unique identifier (`urn:isbn:…` or `urn:uuid:…`), stable across builds.
    pub identifier: String,
    pub creators: Vec<Creator>,
    pub publisher: Option<String>,
    /// Publication date, `YYYY-MM-DD`.
    pub date: Option<String>,
    pub history: Vec<HistoryEntry>,
    pub isbn: Option<String>,
    /// The print edition's ISBN (`print_isbn:`), as written, its check digit checked: the
    /// package's `dc:source`, what the page list follows.
    pub print_isbn: Option<String>,
    /// What the print page numbers follow (`page_source:`): a URN or URL, or `none` for page
    /// breaks of the e-book's own; unset, the print edition's ISBN.
    pub page_source: Option<String>,
    pub rights: Option<String>,
    /// What the book is about (`dc:description`).
    pub description: Option<String>,
    /// Its subjects, each a `dc:subject`.
    pub subjects: Vec<String>,
    pub series: Option<Series>,
    pub writing: Writing,
    pub direction: Direction,
}

/// Where a source file sits in the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Front,
    Body,
    /// A part title page (Re:VIEW catalog parts); its chapters follow it.
    Part,
    Appendix,
    Back,
}

/// The markup of a source file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Markdown,
    Review,
    DocBook,
    /// A page of the book's own XHTML, taken in as written (Re:VIEW's `titlefile:`,
    /// `profile:`, …); never a chapter of a catalog or book.yml.
    Xhtml,
}

impl Format {
    pub(crate) fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Format::Markdown),
            "re" => Some(Format::Review),
            "xml" | "docbook" | "dbk" => Some(Format::DocBook),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ChapterSource {
    /// Path relative to the book folder, as listed.
    pub rel: PathBuf,
    pub path: PathBuf,
    pub role: Role,
    pub format: Format,
    /// A part page with only a title (a Re:VIEW catalog part named by its title): there is no
    /// source file, the page is made from this title.
    pub part_title: Option<String>,
    /// The front or back matter page this file is (format [`Format::Xhtml`]), if it is one.
    pub page: Option<StaticPage>,
    /// The `epub:type` of a division that says more than its role (db `glossary`,
    /// `bibliography`, `index`).
    pub division: Option<&'static str>,
}

/// A page of front or back matter a Re:VIEW book gives as an XHTML file of its own, in
/// reading order (Re:VIEW's `copy_frontmatter` and `copy_backmatter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum StaticPage {
    /// `titlefile:`, in place of the generated title page.
    TitlePage,
    /// `originaltitlefile:`, the title page of the original (of a translation).
    OriginalTitle,
    /// `creditfile:`, the rights and credits.
    Credit,
    /// `profile:`, about the authors.
    Profile,
    /// `advfile:`, advertisements.
    Advertisement,
    /// `colophon:` naming a file, in place of the generated colophon.
    Colophon,
    /// `backcover:`.
    BackCover,
}

impl StaticPage {
    /// Every page, in reading order, with the config key that names its file.
    pub const ALL: [(StaticPage, &'static str); 7] = [
        (StaticPage::TitlePage, "titlefile"),
        (StaticPage::OriginalTitle, "originaltitlefile"),
        (StaticPage::Credit, "creditfile"),
        (StaticPage::Profile, "profile"),
        (StaticPage::Advertisement, "advfile"),
        (StaticPage::Colophon, "colophon"),
        (StaticPage::BackCover, "backcover"),
    ];

    /// Whether it comes before the table of contents (else after the book's chapters and
    /// its index).
    pub fn is_front(self) -> bool {
        self <= StaticPage::Credit
    }

    /// Whether it stands in for a page seihon would generate (the title page, the colophon),
    /// which the contents do not list either; the others are listed by their titles.
    pub fn replaces_generated(self) -> bool {
        matches!(self, StaticPage::TitlePage | StaticPage::Colophon)
    }

    /// Its name in the contents and the page title (Re:VIEW's message for it).
    pub fn title(self) -> crate::i18n::Msg {
        use crate::i18n::Msg;
        match self {
            StaticPage::TitlePage => Msg::TitlePageTitle,
            StaticPage::OriginalTitle => Msg::OriginalTitle,
            StaticPage::Credit => Msg::CreditTitle,
            StaticPage::Profile => Msg::ProfileTitle,
            StaticPage::Advertisement => Msg::AdvTitle,
            StaticPage::Colophon => Msg::ColophonTitle,
            StaticPage::BackCover => Msg::BackCoverTitle,
        }
    }

    /// Its structural semantics (`epub:type`).
    pub fn epub_type(self) -> &'static str {
        match self {
            StaticPage::TitlePage | StaticPage::OriginalTitle => "titlepage",
            StaticPage::Credit => "credits",
            StaticPage::Profile => "contributors",
            StaticPage::Colophon => "colophon",
            StaticPage::Advertisement | StaticPage::BackCover => "backmatter",
        }
    }
}

#[derive(Debug, Clone)]
pub enum Cover {
    /// An image file of the book's, relative to the book folder.
    Image(PathBuf),
    /// Rendered from the metadata through `templates/cover.svg`.
    Generated,
}

/// A loaded book: everything later stages need, all paths checked.
#[derive(Debug, Clone)]
pub struct Book {
    /// What names its outputs (`dist/<id>.epub`, `build/<id>/`, `public/<id>/`): the folder's
    /// name, or a Re:VIEW config's `bookname:` as [`crate::project::Project::open_book`]
    /// settles it (see [`id`]).
    pub id: String,
    pub root: PathBuf,
    /// The metadata file, for messages.
    pub config_path: PathBuf,
    pub meta: Metadata,
    pub chapters: Vec<ChapterSource>,
    pub cover: Cover,
    pub stylesheets: Vec<PathBuf>,
    pub toc_depth: u8,
    pub secnolevel: u8,
    /// Settings of a Re:VIEW project (image folder, dictionary), when the book is one.
    pub review: Option<review::ReviewSettings>,
    /// The main file of a DocBook book (relative to `root`): its chapters come from reading it.
    pub docbook: Option<PathBuf>,
    /// What book.yml says of the metadata, which a DocBook book's `info` does not change.
    pub given: docbook_info::Given,
    /// The filter chain, when the book sets its own (`default` stands for the project's chain).
    pub filters: Option<Vec<String>>,
    /// The book's own check levels (over the project's).
    pub checks: std::collections::BTreeMap<String, crate::config::Level>,
    /// The project's `shared_dirs`, symlinks resolved: the only places outside `root` the
    /// book's images and hooks may come from.
    pub shared_dirs: Vec<PathBuf>,
    /// The XML catalogs book.yml names, then those seihon.yml names (for a DocBook book).
    pub catalogs: Catalogs,
    /// Generated words: whose defaults, and a Re:VIEW book's `locale.yml` over them.
    pub locale: crate::i18n::Locale,
    /// The colophon's lines as a Re:VIEW config gives them (`colophon_order`, each role's own
    /// key, `contact`); `None` for other books, whose colophon lists their creators.
    pub colophon: Option<Vec<ColophonRow>>,
    /// Whether the title page and the colophon are made.
    pub generated: GeneratedPages,
    /// Whether the book gets an index page, and the readings its terms sort by.
    pub index: index::IndexSettings,
    /// book.yml's `typography:` (Markdown chapters).
    pub typography: Typography,
    /// book.yml's `accessibility:`: what only the author can say.
    pub accessibility: Accessibility,
    /// book.yml's `fonts:`.
    pub fonts: FontSettings,
}

/// The XML catalogs a book's settings name, as paths: book.yml's, and seihon.yml's.
#[derive(Debug, Clone, Default)]
pub struct Catalogs {
    pub book: Vec<PathBuf>,
    pub project: Vec<PathBuf>,
}

/// The MARC relator codes a creator's role may be, with their terms (the Library of
/// Congress's list: those of books, and every one Re:VIEW takes as a config key). A colophon
/// shows a role with no word of the book's language by its term.
pub const RELATORS: &[(&str, &str)] = &[
    ("adp", "Adapter"),
    ("aft", "Author of afterword, colophon, etc."),
    ("ann", "Annotator"),
    ("ant", "Bibliographic antecedent"),
    ("aqt", "Author in quotations or text abstracts"),
    ("arr", "Arranger"),
    ("art", "Artist"),
    ("asn", "Associated name"),
    ("aui", "Author of introduction, etc."),
    ("aut", "Author"),
    ("bkp", "Book producer"),
    ("clb", "Collaborator"),
    ("cmm", "Commentator"),
    ("cmt", "Compositor"),
    ("com", "Compiler"),
    ("cov", "Cover designer"),
    ("csl", "Consultant"),
    ("ctb", "Contributor"),
    ("dsr", "Designer"),
    ("edt", "Editor"),
    ("ill", "Illustrator"),
    ("lyr", "Lyricist"),
    ("mdc", "Metadata contact"),
    ("mus", "Musician"),
    ("nrt", "Narrator"),
    ("oth", "Other"),
    ("pbl", "Publisher"),
    ("pfr", "Proofreader"),
    ("pht", "Photographer"),
    ("prt", "Printer"),
    ("red", "Redaktor"),
    ("rev", "Reviewer"),
    ("spn", "Sponsor"),
    ("ths", "Thesis advisor"),
    ("trc", "Transcriber"),
    ("trl", "Translator"),
];

/// The term of a MARC relator code (`lyr` → Lyricist).
pub fn relator_term(code: &str) -> Option<&'static str> {
    RELATORS.iter().find(|(c, _)| *c == code).map(|(_, t)| *t)
}

impl Book {
    /// Opens a book given as a folder (with a `book.yml`, or a Re:VIEW `config.yml` and
    /// `catalog.yml`) or as a Re:VIEW config file. Warnings found while loading come back
    /// beside the book.
    pub fn open(path: &Path, project: &ProjectConfig) -> Result<(Book, Vec<Finding>)> {
        let (mut book, warnings) = Self::open_any(path, project)?;
        book.catalogs.project = project.catalogs.clone();
        if let Some(f) = unusable_metadata(&book) {
            return Err(Error::Book(vec![f]));
        }
        Ok((book, warnings))
    }

    fn open_any(path: &Path, project: &ProjectConfig) -> Result<(Book, Vec<Finding>)> {
        if path.is_dir() && path.join("book.yml").is_file() {
            return Book::load(path, project);
        }
        if path.is_dir() && review::is_review_project(path) {
            return review::load(path, Path::new("config.yml"), project);
        }
        if path.is_dir()
            && let Some(main) = docbook::find_main(path)
        {
            let id = path
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
            return docbook::load(&main, id).map(|b| (b, Vec::new()));
        }
        if docbook::is_docbook_file(path) {
            // A book.yml beside the main file gives its metadata over the `info`'s; the book
            // keeps the file's name, as without one.
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if dir.join("book.yml").is_file() && docbook::is_root_document(path) {
                let (mut book, warnings) = Book::load_with(dir, project, Some(path))?;
                if let Some(stem) = path.file_stem() {
                    book.id = stem.to_string_lossy().into_owned();
                }
                return Ok((book, warnings));
            }
            return docbook::load(path, None).map(|b| (b, Vec::new()));
        }
        let is_yaml = path.extension().is_some_and(|e| e == "yml" || e == "yaml");
        if path.is_file() && is_yaml {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let file = path.file_name().map(PathBuf::from).unwrap_or_default();
            return review::load(dir, &file, project);
        }
        if path.is_dir()
            && let Some(finding) = docbook::why_no_main(path)
        {
            return Err(Error::Config(finding));
        }
        if path.is_dir() {
            let has = |ext: &[&str]| holds_files_ending(path, ext);
            let config = path.join("config.yml").is_file();
            let catalog = path.join("catalog.yml").is_file();
            let why = if config != catalog {
                let (has, lacks) = if config {
                    ("config.yml", "catalog.yml")
                } else {
                    ("catalog.yml", "config.yml")
                };
                Some(format!(
                    "this Re:VIEW project has a {has} but no {lacks}; a Re:VIEW book needs both"
                ))
            } else if has(&["re"]) {
                Some(
                    "this folder holds Re:VIEW chapters (.re) but no config.yml and catalog.yml"
                        .into(),
                )
            } else if has(&["md", "markdown"]) {
                Some("this folder holds Markdown chapters but no book.yml, which gives the book's title, language and chapter order".into())
            } else {
                None
            };
            if let Some(why) = why {
                return Err(Error::Config(
                    Finding::error(codes::NOT_A_BOOK, Location::file(path), why).with_hint(
                        "`seihon new <id> --format markdown|review|docbook` shows a book's files",
                    ),
                ));
            }
        }
        Err(Error::Config(
            Finding::error(codes::NOT_A_BOOK, Location::file(path), "this is not a book")
                .with_hint("a book is a folder with a book.yml, a Re:VIEW folder with config.yml and catalog.yml, a Re:VIEW config file, or a DocBook main file (or a folder holding one)"),
        ))
    }

    /// Whether `path` looks like something [`Book::open`] can open.
    pub fn is_book(path: &Path) -> bool {
        docbook::is_docbook_file(path)
            || (path.is_dir() && docbook::find_main(path).is_some())
            // A DocBook book whose main file is broken is still a book (and says why).
            || (path.is_dir() && docbook::why_no_main(path).is_some())
            || (path.is_dir()
                && (path.join("book.yml").is_file() || review::is_review_project(path)))
            || (path.is_file()
                && path.extension().is_some_and(|e| e == "yml" || e == "yaml")
                && path
                    .parent()
                    .is_some_and(|d| d.join("catalog.yml").is_file()))
    }

    /// Whether the folder holds what books are made of (manuscripts in any of the formats, or
    /// Re:VIEW's settings) though [`Book::is_book`] does not take it: a book with a mistake,
    /// such as a missing `book.yml` or `catalog.yml`.
    pub fn looks_like_book(dir: &Path) -> bool {
        dir.join("config.yml").is_file()
            || dir.join("catalog.yml").is_file()
            || holds_files_ending(dir, &["md", "markdown", "re", "xml", "docbook", "dbk"])
    }

    /// Loads `root/book.yml`, with the warnings about it (settings the book is built without).
    pub fn load(root: &Path, project: &ProjectConfig) -> Result<(Book, Vec<Finding>)> {
        Book::load_with(root, project, None)
    }

    /// [`Book::load`], for a DocBook book given by its main file `main` (in `root`).
    fn load_with(
        root: &Path,
        project: &ProjectConfig,
        main: Option<&Path>,
    ) -> Result<(Book, Vec<Finding>)> {
        let config_path = root.join("book.yml");
        let shown = display_path(Path::new("."), &config_path);
        let bytes = std::fs::read(&config_path).map_err(|e| {
            let (code, message) = if e.kind() == std::io::ErrorKind::NotFound {
                (codes::NOT_A_BOOK, "this book has no book.yml".to_string())
            } else {
                (codes::SETTINGS_SYNTAX, format!("cannot read book.yml: {e}"))
            };
            Error::Config(
                Finding::error(code, Location::file(&shown), message).with_hint(
                    "create it with `seihon new <id> --format markdown`, or see the README",
                ),
            )
        })?;
        let text = crate::error::decode_text(bytes, &shown).map_err(|f| Error::Book(vec![f]))?;
        let file: BookFile = parse_yaml(&text, &shown).map_err(|f| Error::Book(vec![f]))?;
        let id = root
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "book".into());
        resolve_with(file, id, root, &shown, Lines::of(&text), project, main)
    }
}

/// Where book.yml's mistakes of a missing key are reported.
#[derive(Debug, Clone, Copy)]
struct Lines {
    /// A book with no chapters: its `chapters:` key, else the top.
    chapters: u32,
    /// A required key left out: after the last line, where it would be added.
    end: u32,
}

impl Lines {
    fn of(text: &str) -> Lines {
        let chapters = text
            .lines()
            .position(|l| l.trim_start_matches('\u{feff}').starts_with("chapters:"))
            .map_or(1, |i| i as u32 + 1);
        let end = text.lines().count() as u32 + u32::from(text.ends_with('\n'));
        Lines {
            chapters,
            end: end.max(1),
        }
    }
}

fn at(file: &Path, span: &serde_saphyr::Location) -> Location {
    Location::new(file, span.line() as u32, span.column() as u32)
}

/// Checks a parsed book.yml value by value and turns it into a [`Book`]; every mistake found
/// is reported at once, with the warnings beside the book.
#[cfg(test)]
fn resolve(
    file: BookFile,
    id: String,
    root: &Path,
    shown: &Path,
    chapters_line: u32,
    project: &ProjectConfig,
) -> Result<(Book, Vec<Finding>)> {
    let lines = Lines {
        chapters: chapters_line,
        end: 1,
    };
    resolve_with(file, id, root, shown, lines, project, None)
}

/// [`resolve`], for the DocBook main file `given_main` when the book was given by it.
fn resolve_with(
    mut file: BookFile,
    id: String,
    root: &Path,
    shown: &Path,
    lines: Lines,
    project: &ProjectConfig,
    given_main: Option<&Path>,
) -> Result<(Book, Vec<Finding>)> {
    let mut findings = Vec::new();
    let mut warnings = Vec::new();
    let main = docbook::main_of(&file, root, shown, given_main, &mut findings);
    // A book.yml that means a DocBook book (even with a mistake in `main:`) needs no title or
    // language: the `info` gives them.
    let is_docbook = main.is_some() || file.main.is_some();
    let title = match &file.title {
        Some(t) => t.clone(),
        None if is_docbook => id.clone(),
        None => {
            findings.push(missing_key("title", shown, lines.end));
            String::new()
        }
    };
    let language = match &file.language {
        Some(l) => language_tag(l, shown, &mut findings),
        None if is_docbook => "en".into(),
        None => {
            findings.push(missing_key("language", shown, lines.end));
            String::new()
        }
    };
    let creators = creators(&file, shown, &mut findings);
    let date = publication_date(file.date.as_ref(), shown, &mut findings);
    let isbn = checked_isbn(file.isbn.as_ref(), shown, &mut findings);
    let accessibility = std::mem::take(&mut file.accessibility).checked(shown, &mut findings);
    let series = series(file.series.as_ref(), shown, &mut findings);
    let print_isbn = checked_isbn(file.print_isbn.as_ref(), shown, &mut findings);
    let page_source = checked_page_source(file.page_source.as_ref(), shown, &mut findings);
    let identifier = match (&file.identifier, &isbn) {
        // Made from the `info` once the document is read.
        (None, None) if is_docbook => String::new(),
        _ => identifier(&file, &title, isbn.as_deref(), &creators),
    };
    let chapters = if is_docbook {
        Vec::new()
    } else {
        listed_chapters(&file, root, shown, &mut findings)
    };
    let docbook_chapters = chapters.iter().any(|c| c.format == Format::DocBook);
    if chapters.is_empty() && !is_docbook && findings.is_empty() {
        findings.push(
            Finding::error(
                codes::CHAPTER_FILE,
                Location::new(shown, lines.chapters, 1),
                "this book lists no chapters",
            )
            .with_hint("add `chapters: [ch01.md]` with the book's source files in reading order (a DocBook book: `main: book.xml`)"),
        );
    }
    let cover = cover_image(file.cover.as_ref(), root, shown, &mut findings);
    let stylesheets = stylesheets(&file.stylesheets, root, shown, &mut findings, &mut warnings);
    let catalogs = catalog_paths(&file.catalogs, root, project, shown, &mut findings);

    if !findings.is_empty() {
        return Err(Error::Book(findings));
    }
    let direction = file.direction.unwrap_or(match file.writing {
        Writing::Vertical => Direction::Rtl,
        Writing::Horizontal => Direction::Ltr,
    });
    let given = given_of(&file, &creators, isbn.is_some());
    // Generated text follows the format of the chapters, not where the metadata comes from: a
    // DocBook book's captions and cross-references are DocBook XSL's, with or without book.yml.
    let locale = match is_docbook {
        true => crate::i18n::Locale {
            style: crate::i18n::Style::DocBook,
            overrides: Default::default(),
        },
        false => Default::default(),
    };
    Ok((
        Book {
            id,
            root: root.to_path_buf(),
            config_path: shown.to_path_buf(),
            meta: Metadata {
                title,
                subtitle: file.subtitle,
                language,
                identifier,
                creators,
                publisher: file.publisher,
                date,
                history: file.history,
                isbn,
                print_isbn,
                page_source,
                rights: file.rights,
                description: file.description.filter(|d| !d.trim().is_empty()),
                subjects: (file.subjects.iter())
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect(),
                series,
                writing: file.writing,
                direction,
            },
            chapters,
            cover,
            stylesheets,
            toc_depth: file.toc_depth.unwrap_or(project.toc_depth).clamp(1, 6),
            secnolevel: file.secnolevel.unwrap_or(if is_docbook { 2 } else { 0 }),
            review: None,
            docbook: main,
            given,
            filters: file.filters,
            checks: file.checks,
            shared_dirs: Vec::new(),
            catalogs: Catalogs {
                book: catalogs,
                project: Vec::new(),
            },
            locale,
            colophon: None,
            generated: Default::default(),
            index: index::IndexSettings::from_book_yml(
                file.makeindex,
                docbook_chapters || is_docbook,
            ),
            typography: file.typography,
            accessibility,
            fonts: file.fonts,
        },
        warnings,
    ))
}

/// A required key book.yml leaves out, at `line` (its end, where the key would go).
fn missing_key(key: &str, shown: &Path, line: u32) -> Finding {
    Finding::error(
        codes::MISSING_KEY,
        Location::new(shown, line, 1),
        format!("the required key `{key}` is missing"),
    )
    .with_hint(format!("add a line `{key}: …`"))
}

/// Which metadata book.yml gives, which a DocBook book's `info` then leaves as it is.
fn given_of(file: &BookFile, creators: &[Creator], isbn: bool) -> docbook_info::Given {
    let mut roles: Vec<String> = creators.iter().map(|c| c.role.clone()).collect();
    roles.sort();
    roles.dedup();
    docbook_info::Given {
        title: file.title.is_some(),
        subtitle: file.subtitle.is_some(),
        language: file.language.is_some(),
        identifier: file.identifier.is_some() || isbn,
        isbn,
        publisher: file.publisher.is_some(),
        date: file.date.is_some(),
        history: !file.history.is_empty(),
        rights: file.rights.is_some(),
        description: file.description.is_some(),
        subjects: !file.subjects.is_empty(),
        roles,
        creators: creators.to_vec(),
    }
}

/// book.yml's `catalogs:`, relative to the book folder; one outside it and the shared folders
/// is an error at its line (what a book reads stays in the book).
fn catalog_paths(
    listed: &[Spanned<String>],
    root: &Path,
    project: &ProjectConfig,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Vec<PathBuf> {
    let inside = |p: &Path| {
        let real = outputs::real(Path::new("."), p);
        real.starts_with(outputs::real(Path::new("."), root))
            || project
                .shared_dirs
                .iter()
                .any(|d| real.starts_with(outputs::real(Path::new("."), d)))
    };
    let mut out = Vec::new();
    for entry in listed {
        let path = root.join(entry.value.trim());
        if inside(&path) {
            out.push(path);
        } else {
            findings.push(
                Finding::error(
                    codes::BAD_VALUE,
                    at(shown, &entry.referenced),
                    format!(
                        "the catalog `{}` is outside the book folder",
                        entry.value.trim()
                    ),
                )
                .with_hint("put the catalog in the book folder, or in a folder of `shared_dirs` in seihon.yml"),
            );
        }
    }
    out
}

/// The book's language, trimmed; one that is not a BCP 47 tag is an error at its line.
fn language_tag(language: &Spanned<String>, shown: &Path, findings: &mut Vec<Finding>) -> String {
    let tag = language.value.trim().to_string();
    if !is_language_tag(&tag) {
        findings.push(
            Finding::error(
                codes::BAD_VALUE,
                at(shown, &language.referenced),
                format!("`{tag}` is not a language tag"),
            )
            .with_hint("write a BCP 47 tag such as `ja`, `en` or `en-US`"),
        );
    }
    tag
}

/// Authors, translators, editors and contributors in that order, each with its list's role
/// unless it names one; a role that is not a MARC relator code is an error at its line.
fn creators(file: &BookFile, shown: &Path, findings: &mut Vec<Finding>) -> Vec<Creator> {
    let mut creators = Vec::new();
    for (list, default_role) in [
        (&file.authors, "aut"),
        (&file.translators, "trl"),
        (&file.editors, "edt"),
        (&file.contributors, "ctb"),
    ] {
        for p in list {
            let p = &p.0;
            let (name, file_as) = (p.name.clone(), p.file_as.clone());
            let role = p
                .role
                .as_ref()
                .map_or(default_role.to_string(), |r| r.value.clone());
            let role_at = p
                .role
                .as_ref()
                .map_or_else(|| Location::file(shown), |r| at(shown, &r.referenced));
            if relator_term(&role).is_none() {
                findings.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        role_at,
                        format!("`{role}` (for {name}) is not a role seihon knows"),
                    )
                    .with_hint(format!(
                        "use a MARC relator code: {}",
                        RELATORS
                            .iter()
                            .map(|(c, _)| *c)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                );
            }
            creators.push(Creator {
                name,
                role,
                file_as,
                affiliation: p.affiliation.clone(),
                email: p.email.clone(),
            });
        }
    }
    creators
}

/// The series, its position written as a number (`2`, not `2.0`); a position that is not a
/// positive number is an error at its line.
fn series(
    entry: Option<&SeriesEntry>,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Option<Series> {
    let entry = entry?;
    let position = entry.position.as_ref().and_then(|p| {
        let n = p.value;
        if n.is_finite() && n > 0.0 {
            return Some(if n.fract() == 0.0 && n < 1e15 {
                format!("{}", n as u64)
            } else {
                n.to_string()
            });
        }
        findings.push(
            Finding::error(
                codes::BAD_VALUE,
                at(shown, &p.referenced),
                format!("the series position `{n}` is not a positive number"),
            )
            .with_hint("write the book's number in the series, e.g. `position: 2`"),
        );
        None
    });
    let name = entry.name.value.trim().to_string();
    if name.is_empty() {
        findings.push(
            Finding::error(
                codes::BAD_VALUE,
                at(shown, &entry.name.referenced),
                "the series has no name",
            )
            .with_hint("write `series: {name: …, position: 2}`"),
        );
        return None;
    }
    Some(Series { name, position })
}

/// The publication date as `YYYY-MM-DD`; one that is not a date is an error at its line.
fn publication_date(
    date: Option<&Spanned<String>>,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let d = date?;
    checked_date(&d.value, at(shown, &d.referenced))
        .map_err(|f| findings.push(f))
        .ok()
        .map(|date| date.to_string())
}

/// The ISBN as written, its check digit checked; a wrong one is an error at its line, with the
/// right check digit as a hint.
fn checked_isbn(
    isbn: Option<&Spanned<String>>,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let s = isbn?;
    valid_isbn(&s.value, at(shown, &s.referenced))
        .map_err(|f| findings.push(f))
        .ok()
}

/// `page_source:` as a URN or URL (an ISBN written as it is becomes `urn:isbn:…`), or `none`;
/// anything else is an error at its line.
fn checked_page_source(
    source: Option<&Spanned<String>>,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let s = source?;
    valid_page_source(&s.value, at(shown, &s.referenced))
        .map_err(|f| findings.push(f))
        .ok()
}

/// A page source as written (book.yml, config.yml): `none`, a URN or URL, or an ISBN (made
/// `urn:isbn:…`); else the error at `loc`.
pub(crate) fn valid_page_source(value: &str, loc: Location) -> Result<String, Finding> {
    let value = value.trim();
    if value == "none" || value.contains(':') && !value.contains(char::is_whitespace) {
        return Ok(value.to_string());
    }
    if value.starts_with(|c: char| c.is_ascii_digit()) {
        return valid_isbn(value, loc).map(|i| format!("urn:isbn:{}", i.replace(['-', ' '], "")));
    }
    Err(Finding::error(
        codes::BAD_VALUE,
        loc,
        format!("`{value}` does not name the edition the page numbers follow"),
    )
    .with_hint("write its ISBN (`urn:isbn:9784873115320`), a URL, or `none` for page breaks of the e-book's own"))
}

/// A date as book.yml and config.yml write it, or the error at `loc` that it is not one.
pub(crate) fn checked_date(value: &str, loc: Location) -> Result<Date, Finding> {
    Date::parse(value).ok_or_else(|| {
        Finding::error(codes::BAD_VALUE, loc, format!("`{value}` is not a date"))
            .with_hint("write the date as YYYY-MM-DD, e.g. 2011-10-01")
    })
}

/// An ISBN normalized, or the error at `loc` saying why it is not one, with the right check
/// digit as a hint.
pub(crate) fn valid_isbn(value: &str, loc: Location) -> Result<String, Finding> {
    normalize_isbn(value).map_err(|why| {
        Finding::error(
            codes::BAD_VALUE,
            loc,
            format!("`{value}` is not a valid ISBN: {why}"),
        )
        .with_hint(isbn_hint(value))
    })
}

/// The package's unique identifier: the one written, else from the ISBN, else a UUID from the
/// title and names.
fn identifier(file: &BookFile, title: &str, isbn: Option<&str>, creators: &[Creator]) -> String {
    // Stable: the identifier never depends on the build, only on what the book says.
    match (&file.identifier, isbn) {
        (Some(id), _) => id.trim().to_string(),
        (None, Some(isbn)) => format!("urn:isbn:{}", isbn.replace('-', "")),
        (None, None) => {
            let seed = format!(
                "seihon:{}:{}",
                title,
                creators
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            format!(
                "urn:uuid:{}",
                uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, seed.as_bytes())
            )
        }
    }
}

/// The source files book.yml lists, in reading order with their roles; a file that cannot be
/// a chapter, or is listed twice, is an error at its line.
fn listed_chapters(
    file: &BookFile,
    root: &Path,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Vec<ChapterSource> {
    let mut chapters = Vec::new();
    // One look-up per chapter, however many there are: a set for the duplicate check, the
    // book folder's real path found once.
    let mut listed: HashSet<PathBuf> = HashSet::new();
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut real_dirs = RealDirs::default();
    for (list, role) in [
        (&file.frontmatter, Role::Front),
        (&file.chapters, Role::Body),
        (&file.appendices, Role::Appendix),
        (&file.backmatter, Role::Back),
    ] {
        for entry in list {
            let rel = PathBuf::from(entry.value.trim());
            let loc = at(shown, &entry.referenced);
            match chapter_file(root, &real_root, &rel, &mut real_dirs, &loc) {
                Err(finding) => findings.push(finding),
                Ok(_) if !listed.insert(rel.clone()) => findings.push(Finding::error(
                    codes::CHAPTER_FILE,
                    loc,
                    format!("`{}` is listed twice", rel.display()),
                )),
                Ok((path, format)) => chapters.push(ChapterSource {
                    rel,
                    path,
                    role,
                    format,
                    part_title: None,
                    page: None,
                    division: None,
                }),
            }
        }
    }
    chapters
}

/// One listed chapter's path and format, or why it cannot be a chapter (reported at `loc`).
fn chapter_file(
    root: &Path,
    real_root: &Path,
    rel: &Path,
    real_dirs: &mut RealDirs,
    loc: &Location,
) -> std::result::Result<(PathBuf, Format), Finding> {
    let FoundFile { path, .. } =
        check_book_file_in(root, real_root, &[], rel, real_dirs).map_err(|why| {
            Finding::error(
                codes::CHAPTER_FILE,
                loc.clone(),
                format!("the chapter file `{}` {why}", rel.display()),
            )
        })?;
    match Format::from_path(rel) {
        // A DocBook book is one document across files, read from its main file: its files are
        // not chapters to list.
        Some(Format::DocBook) => Err(Finding::error(
            codes::CHAPTER_FILE,
            loc.clone(),
            format!(
                "`{}` is a DocBook file; a DocBook book is built from its main file, not from a list of chapters",
                rel.display()
            ),
        )
        .with_hint(
            "name the main file alone (`main: book.xml`); it pulls in the book's other files (XInclude, entities)",
        )),
        Some(format) => Ok((path, format)),
        None => Err(Finding::error(
            codes::CHAPTER_FILE,
            loc.clone(),
            format!("seihon does not know the format of `{}`", rel.display()),
        )
        .with_hint("source files end in .md (Markdown), .re (Re:VIEW) or .xml (DocBook)")),
    }
}

/// The cover image the book names, checked; without one (or with a bad one, an error at its
/// line) the cover is generated.
fn cover_image(
    cover: Option<&Spanned<String>>,
    root: &Path,
    shown: &Path,
    findings: &mut Vec<Finding>,
) -> Cover {
    let Some(c) = cover else {
        return Cover::Generated;
    };
    let rel = PathBuf::from(c.value.trim());
    match check_book_file(root, &rel) {
        Ok(_) => Cover::Image(rel),
        Err(why) => {
            findings.push(Finding::error(
                codes::COVER_IMAGE,
                at(shown, &c.referenced),
                format!("the cover image `{}` {why}", rel.display()),
            ));
            Cover::Generated
        }
    }
}

/// The book's style sheets that exist and are CSS; a missing one is only a warning.
fn stylesheets(
    listed: &[Spanned<String>],
    root: &Path,
    shown: &Path,
    findings: &mut Vec<Finding>,
    warnings: &mut Vec<Finding>,
) -> Vec<PathBuf> {
    let mut stylesheets = Vec::new();
    for s in listed {
        let rel = PathBuf::from(s.value.trim());
        match check_book_file(root, &rel) {
            Ok(_) if rel.extension().is_some_and(|e| e == "css") => stylesheets.push(rel),
            Ok(_) => findings.push(Finding::error(
                codes::BAD_VALUE,
                at(shown, &s.referenced),
                format!("`{}` is not a .css file", rel.display()),
            )),
            // As a missing image: the book is built without it (a release refuses it).
            Err(why) => warnings.push(Finding::warning(
                codes::MISSING_STYLESHEET,
                at(shown, &s.referenced),
                format!(
                    "the style sheet `{}` {why}; the book is built without it",
                    rel.display()
                ),
            )),
        }
    }
    stylesheets
}

/// A path the book names must be a readable file inside the book folder: no `..` or absolute
/// paths (a book must not read other people's files), no symlinks leading out.
pub fn check_book_file(root: &Path, rel: &Path) -> std::result::Result<PathBuf, &'static str> {
    let real_root = root.canonicalize().map_err(|_| "cannot be read")?;
    check_book_file_under(root, &real_root, &[], rel)
}

/// [`check_book_file`] with the book folder's real path (symlinks resolved) already known, and
/// the folders outside it the project allows (`shared_dirs`, real paths).
pub fn check_book_file_under(
    root: &Path,
    real_root: &Path,
    shared: &[PathBuf],
    rel: &Path,
) -> std::result::Result<PathBuf, &'static str> {
    check_book_file_in(root, real_root, shared, rel, &mut RealDirs::default()).map(|f| f.path)
}

/// A file found inside the book folder (or a shared folder), with its metadata (links followed),
/// so that what comes next need not ask the file system again.
pub struct FoundFile {
    pub path: PathBuf,
    pub meta: std::fs::Metadata,
}

/// Real paths of folders, found once: a book's thousand images in one folder need one
/// `canonicalize` of the folder, not one per image.
pub type RealDirs = std::collections::HashMap<PathBuf, Option<PathBuf>>;

/// [`check_book_file_under`], remembering the real paths of the folders it met in `dirs`.
pub fn check_book_file_in(
    root: &Path,
    real_root: &Path,
    shared: &[PathBuf],
    rel: &Path,
    dirs: &mut RealDirs,
) -> std::result::Result<FoundFile, &'static str> {
    use std::path::Component;
    if rel.as_os_str().is_empty() {
        return Err("is empty");
    }
    let climbs = rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if climbs && shared.is_empty() {
        return Err("is outside the book folder (write a path relative to the book, without `..`)");
    }
    let path = root.join(rel);
    let own = std::fs::symlink_metadata(&path).map_err(|_| "does not exist")?;
    let (real, meta) = if own.file_type().is_symlink() {
        let meta = std::fs::metadata(&path).map_err(|_| "does not exist")?;
        if !meta.is_file() {
            return Err("is not a file");
        }
        (path.canonicalize().map_err(|_| "cannot be read")?, meta)
    } else {
        if !own.is_file() {
            return Err("is not a file");
        }
        // Not a link itself: its real path is its folder's real path and its name.
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err("cannot be read");
        };
        let real_dir = dirs
            .entry(dir.to_path_buf())
            .or_insert_with(|| dir.canonicalize().ok());
        (real_dir.as_ref().ok_or("cannot be read")?.join(name), own)
    };
    if !real.starts_with(real_root) && !shared.iter().any(|s| real.starts_with(s)) {
        return Err(if climbs {
            "is outside the book folder and the project's `shared_dirs`"
        } else {
            "is a link to a file outside the book folder"
        });
    }
    Ok(FoundFile { path, meta })
}

pub(crate) fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let Some(primary) = parts.next() else {
        return false;
    };
    (2..=8).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// What to do about an ISBN that does not check: when only the check digit is wrong, the
/// number with the right one (the other digits may be the mistake: compare with the book).
pub fn isbn_hint(written: &str) -> String {
    match corrected_isbn(written) {
        Some(fixed) => format!(
            "if the other digits are right, the ISBN is `{fixed}`; check them against the printed book"
        ),
        None => "an ISBN has 13 digits (or 10, the last may be X), as printed on the book".into(),
    }
}

/// `written` with its check digit made right, when it has the digits of an ISBN-13 or -10.
fn corrected_isbn(written: &str) -> Option<String> {
    let s = written.trim();
    let digits: Vec<u32> = s
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .map(|c| {
            if c == 'X' || c == 'x' {
                Some(10)
            } else {
                c.to_digit(10)
            }
        })
        .collect::<Option<_>>()?;
    let check = match digits.len() {
        13 => {
            let sum: u32 = digits[..12]
                .iter()
                .enumerate()
                .map(|(i, d)| if i % 2 == 0 { *d } else { 3 * d })
                .sum();
            char::from_digit((10 - sum % 10) % 10, 10)?
        }
        10 => {
            let sum: u32 = digits[..9]
                .iter()
                .enumerate()
                .map(|(i, d)| (10 - i as u32) * d)
                .sum();
            match (11 - sum % 11) % 11 {
                10 => 'X',
                d => char::from_digit(d, 10)?,
            }
        }
        _ => return None,
    };
    let end = s.rfind(|c: char| c.is_ascii_alphanumeric())?;
    Some(format!("{}{check}{}", &s[..end], &s[end + 1..]))
}

/// Checks an ISBN-10 or ISBN-13 check digit; returns it as written (hyphens kept).
pub fn normalize_isbn(s: &str) -> std::result::Result<String, &'static str> {
    let s = s.trim();
    let digits: Vec<char> = s.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
    match digits.len() {
        13 => {
            let mut sum = 0;
            for (i, c) in digits.iter().enumerate() {
                let d = c
                    .to_digit(10)
                    .ok_or("it has a character that is not a digit")?;
                sum += if i % 2 == 0 { d } else { 3 * d };
            }
            if sum % 10 != 0 {
                return Err("the check digit does not match");
            }
        }
        10 => {
            let mut sum = 0;
            for (i, c) in digits.iter().enumerate() {
                let d = match c {
                    'X' | 'x' if i == 9 => 10,
                    c => c
                        .to_digit(10)
                        .ok_or("it has a character that is not a digit")?,
                };
                sum += (10 - i as u32) * d;
            }
            if sum % 11 != 0 {
                return Err("the check digit does not match");
            }
        }
        _ => return Err("an ISBN has 13 (or 10) digits"),
    }
    Ok(s.to_string())
}

/// Whether the folder holds a file with one of these extensions (any case).
fn holds_files_ending(dir: &Path, exts: &[&str]) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let path = e.path();
            path.is_file()
                && path
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| exts.contains(&x.to_ascii_lowercase().as_str()))
        })
}

/// A character of the book's metadata that no XML (the package, the pages, the cover) can
/// carry — a control character, U+FFFE, U+FFFF — reported at its place in the settings file,
/// written raw or as a YAML escape (`"\u0001"`), rather than later as a template's problem.
fn unusable_metadata(book: &Book) -> Option<Finding> {
    let m = &book.meta;
    let texts = std::iter::once(m.title.as_str())
        .chain(m.subtitle.as_deref())
        .chain(m.publisher.as_deref())
        .chain(m.rights.as_deref())
        .chain(m.creators.iter().map(|c| c.name.as_str()))
        .chain(m.history.iter().map(|h| h.text.as_str()));
    let bad = texts
        .flat_map(str::chars)
        .find(|&c| !crate::dom::is_xml_char(c))?;
    let code = u32::from(bad);
    let settings = std::fs::read_to_string(&book.config_path).unwrap_or_default();
    let escapes = [
        bad.to_string(),
        format!("\\u{code:04X}"),
        format!("\\u{code:04x}"),
        format!("\\x{code:02X}"),
        format!("\\x{code:02x}"),
    ];
    let at = escapes
        .iter()
        .filter_map(|e| settings.find(e.as_str()))
        .min()
        .map(|i| crate::error::line_col(&settings, i))
        .unwrap_or((0, 0));
    Some(
        Finding::error(
            codes::INVISIBLE_CHARACTER,
            Location::new(&book.config_path, at.0, at.1),
            format!("the book's metadata holds the invisible character U+{code:04X}, which no EPUB can carry"),
        )
        .with_hint("delete it (it is invisible in most editors)"),
    )
}

/// A path for messages: relative to `base` when inside it.
pub fn display_path(base: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(base)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Deserializes book settings YAML (see [`parse_yaml_as`]).
fn parse_yaml<T: serde::de::DeserializeOwned>(
    text: &str,
    file: &Path,
) -> std::result::Result<T, Finding> {
    parse_yaml_as(text, file, "book settings")
}

/// Deserializes YAML, turning serde-saphyr's errors into a finding at the offending line and
/// column, in plain words, with the nearest valid key for a typo. `what` names the kind of file
/// in messages ("book settings", "filter rule file").
pub(crate) fn parse_yaml_as<T: serde::de::DeserializeOwned>(
    text: &str,
    file: &Path,
    what: &str,
) -> std::result::Result<T, Finding> {
    use serde_saphyr::Error as E;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_saphyr::from_str::<T>(text).map_err(|err| {
        let loc = err
            .location()
            .map(|l| at(file, &l))
            .unwrap_or_else(|| Location::file(file));
        match err.without_snippet() {
            E::SerdeUnknownField {
                field, expected, ..
            } => {
                let nearest = expected
                    .iter()
                    .map(|k| (strsim::jaro_winkler(field, k), *k))
                    .filter(|(score, _)| *score > 0.7)
                    .max_by(|a, b| a.0.total_cmp(&b.0));
                let f =
                    Finding::error(codes::UNKNOWN_KEY, loc, format!("unknown key `{field}`"));
                match nearest {
                    Some((_, k)) => f.with_hint(format!("did you mean `{k}`?")),
                    None => f.with_hint(format!("valid keys here: {}", expected.join(", "))),
                }
            }
            E::SerdeMissingField { field, .. } => {
                Finding::error(
                    codes::MISSING_KEY,
                    loc,
                    format!("the required key `{field}` is missing"),
                )
                .with_hint(format!("add a line `{field}: …`"))
            }
            E::SerdeUnknownVariant {
                variant, expected, ..
            } => Finding::error(
                codes::BAD_VALUE,
                loc,
                format!("`{variant}` is not one of the allowed values"),
            )
            .with_hint(format!("write one of: {}", expected.join(", "))),
            E::DuplicateMappingKey { key, .. } => Finding::error(
                codes::SETTINGS_SYNTAX,
                loc,
                match key {
                    Some(k) => format!("the key `{k}` is written twice here"),
                    None => "a key is written twice here".into(),
                },
            )
            .with_hint("keep one of them: YAML takes each key once"),
            E::MultipleDocuments { .. } => Finding::error(
                codes::SETTINGS_SYNTAX,
                loc,
                format!("a second YAML document is here, after a `---` line, but {what} are one document"),
            )
            .with_hint("remove the `---` line, or move what follows into the first document"),
            E::Budget { breach, .. } => Finding::error(
                codes::SETTINGS_SYNTAX,
                loc,
                format!("this {what} file is too large or too deeply nested to read ({})", budget_words(breach)),
            )
            .with_hint("settings are short: this file may be something else, or generated by mistake"),
            other => Finding::error(
                codes::SETTINGS_SYNTAX,
                loc,
                plain_yaml_message(&other.to_string(), what),
            ),
        }
    })
}

/// Which of serde-saphyr's bounds a YAML file went past, in plain words.
fn budget_words(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    match breach {
        B::Events { .. } | B::Nodes { .. } => "too many values".into(),
        B::Aliases { .. } | B::AliasAnchorRatio { .. } | B::Anchors { .. } => {
            "too many anchors and aliases (`&a`, `*a`)".into()
        }
        B::Depth { depth } => format!("lists and mappings nested {depth} deep"),
        B::ScalarBytes { total_scalar_bytes } => {
            format!("{} MB of text", total_scalar_bytes / 1_000_000)
        }
        B::Documents { .. } => "too many documents".into(),
        B::MergeKeys { .. } => "too many merge keys (`<<`)".into(),
        _ => "past a size limit".into(),
    }
}

/// serde-saphyr's messages may carry their own "at line…" suffix; we print the location first.
fn plain_yaml_message(msg: &str, what: &str) -> String {
    let first = msg.lines().next().unwrap_or(msg);
    let cut = first.find(" at line ").map_or(first, |i| &first[..i]);
    let plain = match cut {
        "expected string scalar" => {
            "a piece of text was expected here, but a list or mapping was found"
        }
        "recursion limit exceeded" => "lists and mappings are nested too deeply here",
        other => other,
    };
    format!("this is not valid {what} YAML: {plain}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_mistakes_are_told_in_plain_words() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct S {
            title: Option<String>,
            items: Option<Vec<serde_json::Value>>,
        }
        let deep = format!("items: {}1{}\n", "[".repeat(2000), "]".repeat(2000));
        let cases = [
            (
                "title: a\ntitle: b\n",
                2,
                "the key `title` is written twice here",
            ),
            (
                "title: a\n---\ntitle: b\n",
                3,
                "a second YAML document is here",
            ),
            (deep.as_str(), 1, "nested too deeply"),
        ];
        for (text, line, message) in cases {
            let f = parse_yaml::<S>(text, Path::new("book.yml")).unwrap_err();
            assert!(
                f.message.contains(message),
                "{}: {f}",
                &text[..text.len().min(40)]
            );
            assert_eq!(f.location.line, line, "{f}");
            for internal in [
                "DuplicateKeyPolicy",
                "from_str_multiple",
                "budget breached",
                "Options",
            ] {
                assert!(!f.to_string().contains(internal), "{f}");
            }
        }
    }

    #[test]
    fn io_errors_are_told_in_plain_words() {
        use std::io::{Error as E, ErrorKind as K};
        let e = crate::error::Error::io(
            "dist/b.epub",
            "cannot write the EPUB",
            E::from(K::StorageFull),
        );
        assert_eq!(
            e.to_string(),
            "dist/b.epub: cannot write the EPUB: the disk is full; free some space and build again"
        );
        let e = crate::error::Error::io("x", "cannot read", E::from_raw_os_error(5));
        assert!(!e.to_string().contains("os error"), "{e}");
    }

    #[test]
    fn date_to_unix_seconds() {
        assert_eq!(Date::parse("1970-01-01").unwrap().unix_seconds(), 0);
        assert_eq!(
            Date::parse("2011-10-01").unwrap().unix_seconds(),
            1_317_427_200
        );
        assert!(Date::parse("2011-02-30").is_none());
        assert!(Date::parse("2011-10").is_none());
    }

    #[test]
    fn isbn_check_digits() {
        assert!(normalize_isbn("978-4-87311-532-0").is_ok());
        // The hint gives the number with its check digit right, not a sample.
        assert!(isbn_hint("978-4-87311-532-7").contains("`978-4-87311-532-0`"));
        assert!(isbn_hint("4-87311-532-5").contains("`4-87311-532-9`"));
        assert!(normalize_isbn("4-87311-532-9").is_ok());
        assert!(isbn_hint("12345").contains("13 digits"));
        assert!(normalize_isbn("978-4-87311-532-1").is_err());
        assert!(normalize_isbn("4-87311-532-X").is_err());
        assert!(normalize_isbn("0-306-40615-2").is_ok());
    }

    #[test]
    fn language_tags() {
        assert!(is_language_tag("ja"));
        assert!(is_language_tag("en-US"));
        assert!(!is_language_tag("日本語"));
        assert!(!is_language_tag(""));
    }

    #[test]
    fn unknown_key_names_line_column_and_nearest_key() {
        let text = "title: 本\nlanguage: ja\ntitel: x\nchapters: [a.md]\n";
        let f = parse_yaml::<BookFile>(text, Path::new("book.yml")).unwrap_err();
        assert_eq!((f.location.line, f.location.col), (3, 1), "{f}");
        assert!(f.message.contains("titel"), "{f}");
        assert_eq!(f.hint.as_deref(), Some("did you mean `title`?"));
    }

    #[test]
    fn history_accepts_quoted_and_unquoted_lines() {
        #[derive(Deserialize)]
        struct H {
            history: Vec<HistoryEntry>,
        }
        let h: H = serde_saphyr::from_str(
            "history:\n  - \"2011-10-01: 初版第1刷発行\"\n  - 2012-01-01: 第2刷\n",
        )
        .unwrap();
        assert_eq!(
            h.history[0],
            HistoryEntry {
                date: "2011-10-01".into(),
                text: "初版第1刷発行".into()
            }
        );
        assert_eq!(
            h.history[1],
            HistoryEntry {
                date: "2012-01-01".into(),
                text: "第2刷".into()
            }
        );
    }

    #[test]
    fn person_typo_and_bad_role_are_located() {
        let text = "title: 本\nlanguage: ja\nauthors:\n  - 山田\n  - {nmae: x}\n";
        let f = parse_yaml::<BookFile>(text, Path::new("book.yml")).unwrap_err();
        assert_eq!((f.location.line, f.location.col), (5, 6), "{f}");
        assert_eq!(f.hint.as_deref(), Some("did you mean `name`?"), "{f}");
        let text = "title: 本\nlanguage: ja\nauthors:\n  - {name: x, role: writer}\n";
        let file = parse_yaml::<BookFile>(text, Path::new("book.yml")).unwrap();
        let Err(Error::Book(f)) = resolve(
            file,
            "b".into(),
            Path::new("/nonexistent"),
            Path::new("book.yml"),
            3,
            &ProjectConfig::default(),
        ) else {
            panic!("a bad role must fail")
        };
        let role = f
            .iter()
            .find(|f| f.message.contains("writer"))
            .expect("role finding");
        assert_eq!(role.location.line, 4, "{role}");
    }

    /// Resolves `yml` as the book.yml of the folder `dir`.
    fn resolve_in(dir: &Path, yml: &str) -> std::result::Result<Book, Vec<Finding>> {
        let file = parse_yaml::<BookFile>(yml, Path::new("book.yml")).map_err(|f| vec![f])?;
        match resolve_with(
            file,
            "b".into(),
            dir,
            Path::new("book.yml"),
            Lines::of(yml),
            &ProjectConfig::default(),
            None,
        ) {
            Ok((book, _)) => Ok(book),
            Err(Error::Book(f)) => Err(f),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn missing_title_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n").unwrap();
        let f = resolve_in(dir.path(), "language: ja\nchapters: [a.md]\n").unwrap_err();
        assert!(f[0].message.contains("`title`"), "{}", f[0]);
        // After the last line, where the key would be added.
        assert_eq!((f[0].location.line, f[0].location.col), (3, 1));
    }

    #[test]
    fn a_book_yml_naming_a_docbook_main_file_makes_a_docbook_book() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("book.xml"), "<book><chapter/></book>").unwrap();
        std::fs::write(d.join("ch.xml"), "<chapter/>").unwrap();
        std::fs::write(d.join("a.md"), "# A\n").unwrap();
        for yml in ["main: book.xml\n", "chapters: [book.xml]\n", "title: T\n"] {
            let book = resolve_in(d, yml).unwrap_or_else(|f| panic!("{yml}: {f:?}"));
            assert_eq!(
                book.docbook.as_deref(),
                Some(Path::new("book.xml")),
                "{yml}"
            );
            assert_eq!(book.locale.style, crate::i18n::Style::DocBook, "{yml}");
            assert!(book.index.placed_only, "{yml}");
            assert_eq!(book.secnolevel, 2, "{yml}");
        }
        let book = resolve_in(d, "main: book.xml\nmakeindex: true\nsecnolevel: 1\n").unwrap();
        assert!(!book.index.placed_only && book.index.enabled);
        assert_eq!(book.secnolevel, 1);
        // A Markdown book keeps its own style.
        let book = resolve_in(d, "title: T\nlanguage: en\nchapters: [a.md]\n").unwrap();
        assert_eq!(book.locale.style, crate::i18n::Style::Seihon);
        assert_eq!(book.docbook, None);
    }

    #[test]
    fn a_docbook_main_file_mistake_is_located_in_book_yml() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("book.xml"), "<book><chapter/></book>").unwrap();
        std::fs::write(d.join("ch.xml"), "<chapter/>").unwrap();
        std::fs::write(d.join("a.md"), "# A\n").unwrap();
        let cases = [
            ("title: T\nmain: nope.xml\n", (2, 7), "does not exist"),
            ("title: T\nmain: ch.xml\n", (2, 7), "its root is <chapter>"),
            (
                "main: book.xml\nchapters:\n  - a.md\n",
                (3, 5),
                "lists none beside `main:`",
            ),
            (
                "title: T\nlanguage: en\nchapters: [book.xml, ch.xml]\n",
                (3, 12),
                "DocBook file",
            ),
        ];
        for (yml, at, message) in cases {
            let f = resolve_in(d, yml).expect_err(yml);
            // Each DocBook file listed is refused where it is; one finding each.
            assert_eq!(f.len(), 1 + yml.matches("ch.xml]").count(), "{yml}: {f:?}");
            assert!(f[0].message.contains(message), "{yml}: {}", f[0]);
            assert_eq!(
                (f[0].location.line, f[0].location.col),
                at,
                "{yml}: {}",
                f[0]
            );
        }
    }
}
