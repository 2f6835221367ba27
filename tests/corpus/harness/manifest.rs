//! What the corpus holds (`manifest.json`, the corpus's own description of every book) and what
//! the project expects of each book (`tests/corpus/expected.yml`).
use std::collections::BTreeMap;
use std::path::Path;

#[derive(serde::Deserialize)]
pub struct Manifest {
    pub books: Vec<Book>,
}

/// One book as the manifest describes it (only the fields a build needs).
#[derive(serde::Deserialize, Clone, Debug)]
pub struct Book {
    pub name: String,
    pub format: Format,
    /// What to build, relative to the corpus: a folder, or a DocBook main file.
    pub build: String,
    /// The EPUB the original tool made, relative to the corpus.
    pub reference: Option<String>,
    #[serde(default)]
    pub stand_ins: Vec<StandIn>,
    /// An XML catalog the book needs (relative to the corpus), used as `XML_CATALOG_FILES`.
    pub catalog: Option<String>,
}

#[derive(serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Review,
    Docbook,
    Markdown,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Review => "review",
            Format::Docbook => "docbook",
            Format::Markdown => "markdown",
        }
    }
}

/// A file a build needs that the corpus does not ship, or ships written for the corpus.
#[derive(serde::Deserialize, Clone, Debug)]
pub struct StandIn {
    /// Relative to the book's folder.
    pub path: String,
    /// `shipped` (already in the corpus), or what to put there (e.g. "any PNG").
    #[serde(rename = "use")]
    pub use_: String,
    pub why: String,
}

impl Book {
    /// The book's own folder in the corpus (`docbook/svnbook`): what a build copies, and what
    /// stand-in paths are relative to.
    pub fn folder(&self) -> &str {
        let mut slashes = self.build.match_indices('/').map(|(i, _)| i);
        match (slashes.next(), slashes.next()) {
            (Some(_), Some(second)) => &self.build[..second],
            _ => &self.build,
        }
    }

    /// The build path inside the book's folder (`book/book.xml`; empty for the folder itself).
    pub fn within(&self) -> &str {
        self.build[self.folder().len()..].trim_start_matches('/')
    }
}

pub fn load(corpus: &Path) -> Result<Manifest, String> {
    let path = corpus.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// What the project expects of one book.
#[derive(serde::Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Expected {
    /// Builds, epubcheck finds nothing, and the text measures reach at least these figures.
    Pass(Thresholds),
    /// Not supported yet, for this reason (one line).
    Fail(String),
}

/// The least share (in %) of each text measure a passing book must keep.
#[derive(serde::Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    pub reference_text: Option<f64>,
    pub source_text: Option<f64>,
}

/// `tests/corpus/expected.yml`: a map from book name to its expected outcome.
pub fn load_expected(path: &Path) -> Result<BTreeMap<String, Expected>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_expected(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse_expected(text: &str) -> Result<BTreeMap<String, Expected>, String> {
    serde_saphyr::from_str(text).map_err(|e| e.to_string())
}

/// The project's expected file.
pub fn expected_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/expected.yml")
}
