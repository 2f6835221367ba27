//! Reports of a run over one or more books: JSON, JUnit XML, SARIF 2.1.0, GitHub Actions
//! annotations and plain text for people.

use crate::dom::{self, Document, Element};
use crate::error::Finding;

/// How one book's build went.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BookReport {
    pub book: String,
    pub ok: bool,
    /// The stage that failed, e.g. "read", "checks", "pack".
    pub failed_stage: Option<String>,
    /// The EPUB written, when one was.
    pub epub: Option<String>,
    pub findings: Vec<ReportFinding>,
    pub seconds: f64,
}

/// A finding as reports show it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ReportFinding {
    /// "error" or "warning".
    pub severity: String,
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: u32,
    pub col: u32,
    pub message: String,
    pub hint: Option<String>,
    /// The finding's stable code (SARIF's `ruleId`), when it has one. Absent from reports
    /// written before codes existed, hence the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl From<&Finding> for ReportFinding {
    fn from(f: &Finding) -> Self {
        ReportFinding {
            severity: f.severity.to_string(),
            file: f.location.file.to_string_lossy().replace('\\', "/"),
            line: f.location.line,
            col: f.location.col,
            message: f.message.clone(),
            hint: f.hint.clone(),
            code: (!f.code.is_empty()).then(|| f.code.to_string()),
        }
    }
}

impl ReportFinding {
    pub fn is_error(&self) -> bool {
        self.severity == "error"
    }

    /// "file:line:col", leaving out what is unknown.
    fn place(&self) -> String {
        let mut s = self.file.clone();
        if self.line > 0 {
            s.push_str(&format!(":{}", self.line));
            if self.col > 0 {
                s.push_str(&format!(":{}", self.col));
            }
        }
        s
    }

    /// "file:line:col: severity: message" (and the hint on its own line).
    fn line_text(&self) -> String {
        let mut s = format!("{}: {}: {}", self.place(), self.severity, self.message);
        if let Some(hint) = &self.hint {
            s.push_str("\n  help: ");
            s.push_str(hint);
        }
        s
    }
}

impl BookReport {
    fn count(&self, errors: bool) -> usize {
        self.findings
            .iter()
            .filter(|f| f.is_error() == errors)
            .count()
    }
}

/// "1 chapter", "4 chapters".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// "ch00.md, ch01.md, ch02.md and 26 more": the first `shown` names, then how many more.
pub fn shortened(names: &[String], shown: usize) -> String {
    if names.len() <= shown + 1 {
        return names.join(", ");
    }
    format!(
        "{} and {} more",
        names[..shown].join(", "),
        names.len() - shown
    )
}

/// `{"books":[…],"ok":bool,"errors":n,"warnings":n}`, pretty-printed.
pub fn json(reports: &[BookReport]) -> String {
    let errors: usize = reports.iter().map(|r| r.count(true)).sum();
    let warnings: usize = reports.iter().map(|r| r.count(false)).sum();
    let value = serde_json::json!({
        "books": reports,
        "ok": reports.iter().all(|r| r.ok),
        "errors": errors,
        "warnings": warnings,
    });
    let mut out = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".into());
    out.push('\n');
    out
}

/// JUnit XML for Jenkins and GitLab: one test case per book, failed with its errors listed when
/// the book failed, its warnings in `system-out`.
pub fn junit(reports: &[BookReport]) -> String {
    let tests = reports.len().to_string();
    let failures = reports.iter().filter(|r| !r.ok).count().to_string();
    let time = format!("{:.3}", reports.iter().map(|r| r.seconds).sum::<f64>());
    let mut suite = Element::new("testsuite")
        .with_attr("name", "seihon")
        .with_attr("tests", tests.clone())
        .with_attr("failures", failures.clone())
        .with_attr("errors", "0")
        .with_attr("skipped", "0")
        .with_attr("time", time.clone());
    for r in reports {
        let mut case = Element::new("testcase")
            .with_attr("classname", "seihon")
            .with_attr("name", r.book.clone())
            .with_attr("time", format!("{:.3}", r.seconds));
        if !r.ok {
            let stage = r.failed_stage.as_deref().unwrap_or("build");
            let errors: Vec<String> = r
                .findings
                .iter()
                .filter(|f| f.is_error())
                .map(ReportFinding::line_text)
                .collect();
            let message = format!("failed at {stage} ({})", plural(errors.len(), "error"));
            let mut text = errors.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            case.push(
                Element::new("failure")
                    .with_attr("message", message)
                    .with_attr("type", stage)
                    .with_text(text),
            );
        }
        let warnings: Vec<String> = r
            .findings
            .iter()
            .filter(|f| !f.is_error())
            .map(ReportFinding::line_text)
            .collect();
        if !warnings.is_empty() {
            case.push(Element::new("system-out").with_text(warnings.join("\n") + "\n"));
        }
        suite.push(case);
    }
    let root = Element::new("testsuites")
        .with_attr("name", "seihon")
        .with_attr("tests", tests)
        .with_attr("failures", failures)
        .with_attr("errors", "0")
        .with_attr("time", time)
        .with_child(suite);
    dom::serialize_document(&Document {
        doctype: None,
        root,
    })
}

/// The schema a SARIF report names: the OASIS standard's (2.1.0 with Errata 01).
const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The rule of a finding with no code of its own, by severity.
fn fallback_rule(severity: &str) -> &'static str {
    match severity {
        "error" => "seihon.error",
        "warning" => "seihon.warning",
        _ => "seihon.note",
    }
}

/// The rule of a book that failed without any error finding to say why.
const FAILED_RULE: &str = "seihon.build-failed";

/// What a rule is, for `tool.driver.rules`: a kind's entry in the table of codes, else what a
/// rule without a code is. (A built-in check or a check program is named by its id.)
fn rule_description(id: &str) -> Option<&'static str> {
    if let Some(code) = crate::codes::Code::from_name(id) {
        return Some(code.kind().what);
    }
    match id {
        "seihon.error" => Some("An error found by seihon: the book is not built."),
        "seihon.warning" => Some("A warning found by seihon: the book is built around it."),
        "seihon.note" => Some("A note from seihon."),
        FAILED_RULE => Some("The book was not built."),
        _ => None,
    }
}

/// SARIF's `level` for a severity.
fn sarif_level(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warning" => "warning",
        _ => "note",
    }
}

/// A report path as a SARIF `artifactLocation.uri`: a relative reference with forward slashes
/// (relative to the project, `%SRCROOT%`), or a `file:` URI for an absolute path; every byte
/// but the unreserved characters and `/` percent-encoded, so that Japanese names, spaces, `#`,
/// `%` and `:` give a valid URI reference that decodes back to the path.
pub fn sarif_uri(file: &str) -> String {
    fn encode(path: &str, out: &mut String) {
        for b in path.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    let file = file.replace('\\', "/");
    let mut out = String::new();
    let bytes = file.as_bytes();
    if file.starts_with('/') {
        out.push_str("file://");
        encode(&file, &mut out);
    } else if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/" {
        // A Windows drive: file:///C:/…
        out.push_str("file:///");
        out.push_str(&file[..2]);
        encode(&file[2..], &mut out);
    } else {
        encode(&file, &mut out);
    }
    out
}

#[derive(serde::Serialize)]
struct SarifLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'a str,
    version: &'a str,
    runs: Vec<SarifRun<'a>>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun<'a> {
    tool: SarifTool<'a>,
    /// Columns are counted in characters (see lines.rs), not SARIF's default UTF-16 units.
    column_kind: &'a str,
    results: Vec<SarifResult>,
}

#[derive(serde::Serialize)]
struct SarifTool<'a> {
    driver: SarifDriver<'a>,
}

#[derive(serde::Serialize)]
struct SarifDriver<'a> {
    name: &'a str,
    version: &'a str,
    rules: Vec<SarifRule>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    short_description: Option<SarifMessage>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: SarifMessage,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<SarifLocation>,
}

#[derive(serde::Serialize)]
struct SarifMessage {
    text: String,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: SarifPhysicalLocation,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysicalLocation {
    artifact_location: SarifArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<SarifRegion>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifArtifactLocation {
    uri: String,
    /// Relative URIs are relative to the project's root.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
}

/// SARIF 2.1.0 for code scanning (GitHub, GitLab, editors): one run of seihon, one result per
/// finding in the order the findings come, book after book, and one error result for a book
/// that failed without an error finding, so that a failed build never gives an empty log. The
/// rule of a result is its finding's code, else `seihon.error`/`seihon.warning`; the rules used
/// are listed in the order they first come up. Deterministic: no times, no absolute paths but
/// those of the findings.
pub fn sarif(reports: &[BookReport]) -> String {
    let mut rules: Vec<SarifRule> = Vec::new();
    let mut rule_index = |id: &str| -> usize {
        if let Some(i) = rules.iter().position(|r| r.id == id) {
            return i;
        }
        rules.push(SarifRule {
            id: id.to_string(),
            short_description: rule_description(id).map(|text| SarifMessage { text: text.into() }),
        });
        rules.len() - 1
    };
    let mut results = Vec::new();
    for r in reports {
        for f in &r.findings {
            let rule_id = f
                .code
                .clone()
                .unwrap_or_else(|| fallback_rule(&f.severity).to_string());
            let mut text = f.message.clone();
            if let Some(hint) = &f.hint {
                text.push_str(&format!(" (help: {hint})"));
            }
            let mut locations = Vec::new();
            if !f.file.is_empty() {
                let uri = sarif_uri(&f.file);
                let relative = !uri.starts_with("file:");
                locations.push(SarifLocation {
                    physical_location: SarifPhysicalLocation {
                        artifact_location: SarifArtifactLocation {
                            uri,
                            uri_base_id: relative.then_some("%SRCROOT%"),
                        },
                        region: (f.line > 0).then(|| SarifRegion {
                            start_line: f.line,
                            start_column: (f.col > 0).then_some(f.col),
                        }),
                    },
                });
            }
            results.push(SarifResult {
                rule_index: rule_index(&rule_id),
                rule_id,
                level: sarif_level(&f.severity),
                message: SarifMessage { text },
                locations,
            });
        }
        if !r.ok && r.count(true) == 0 {
            let stage = r.failed_stage.as_deref().unwrap_or("build");
            results.push(SarifResult {
                rule_index: rule_index(FAILED_RULE),
                rule_id: FAILED_RULE.to_string(),
                level: "error",
                message: SarifMessage {
                    text: format!("{}: failed at {stage}", r.book),
                },
                locations: Vec::new(),
            });
        }
    }
    let log = SarifLog {
        schema: SARIF_SCHEMA,
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "seihon",
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_else(|_| "{}".into());
    out.push('\n');
    out
}

/// GitHub's escaping of a workflow command's message; `##[`, which starts a legacy command
/// anywhere in a line, gets a zero-width space inside.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace("##[", "#\u{200B}#[")
}

/// GitHub's escaping of a workflow command's property values.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands, one line per finding:
/// `::error file=books/a/ch01.md,line=12,col=3,title=seihon::message` (`::warning` for warnings).
/// The hint follows the message on a second line of the annotation. A book that failed without
/// any error finding gets one line naming the stage.
pub fn github_annotations(reports: &[BookReport]) -> String {
    let mut out = String::new();
    for r in reports {
        for f in &r.findings {
            let mut props = Vec::new();
            if !f.file.is_empty() {
                props.push(format!("file={}", escape_property(&f.file)));
                if f.line > 0 {
                    props.push(format!("line={}", f.line));
                    if f.col > 0 {
                        props.push(format!("col={}", f.col));
                    }
                }
            }
            props.push("title=seihon".to_string());
            let mut message = f.message.clone();
            if let Some(hint) = &f.hint {
                message.push('\n');
                message.push_str(hint);
            }
            let command = if f.is_error() { "error" } else { "warning" };
            out.push_str(&format!(
                "::{command} {}::{}\n",
                props.join(","),
                escape_data(&message)
            ));
        }
        if !r.ok && r.count(true) == 0 {
            let stage = r.failed_stage.as_deref().unwrap_or("build");
            out.push_str(&format!(
                "::error title=seihon::{}\n",
                escape_data(&format!("{}: failed at {stage}", r.book))
            ));
        }
    }
    out
}

/// Findings for people: grouped by file (files in the order they first come up, findings by
/// line), each file under a header with its counts, each finding on one line starting with its
/// full `file:line:col` so that terminals and editors open it with a click.
pub fn findings_text(findings: &[ReportFinding]) -> String {
    let mut files: Vec<(&str, Vec<&ReportFinding>)> = Vec::new();
    for f in findings {
        match files.iter_mut().find(|(file, _)| *file == f.file) {
            Some((_, list)) => list.push(f),
            None => files.push((f.file.as_str(), vec![f])),
        }
    }
    let mut out = String::new();
    for (file, mut list) in files {
        list.sort_by_key(|f| (f.line, f.col));
        let errors = list.iter().filter(|f| f.is_error()).count();
        let counts = counts(errors, list.len() - errors);
        let file = if file.is_empty() { "(no file)" } else { file };
        out.push_str(&format!("── {file}: {counts}\n"));
        for f in list {
            out.push_str(&f.line_text());
            out.push('\n');
        }
    }
    out
}

/// "2 errors, 1 warning"; empty when there are none.
fn counts(errors: usize, warnings: usize) -> String {
    let mut parts = Vec::new();
    if errors > 0 {
        parts.push(plural(errors, "error"));
    }
    if warnings > 0 {
        parts.push(plural(warnings, "warning"));
    }
    parts.join(", ")
}

/// A run's summary for people: each book's findings grouped by file, then one line per book.
pub fn human(reports: &[BookReport]) -> String {
    let mut out = String::new();
    for r in reports {
        out.push_str(&findings_text(&r.findings));
    }
    for r in reports {
        let counts = counts(r.count(true), r.count(false));
        let counts = if counts.is_empty() {
            String::new()
        } else {
            format!(" ({counts})")
        };
        if r.ok {
            match &r.epub {
                Some(epub) => out.push_str(&format!("✓ {}: built {epub}{counts}\n", r.book)),
                None => out.push_str(&format!("✓ {}: ok{counts}\n", r.book)),
            }
        } else {
            let stage = r.failed_stage.as_deref().unwrap_or("build");
            out.push_str(&format!("✗ {}: failed at {stage}{counts}\n", r.book));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes;
    use crate::error::{Location, Severity};

    fn finding(sev: Severity, file: &str, line: u32, col: u32, msg: &str) -> ReportFinding {
        ReportFinding::from(&Finding::of("", sev, Location::new(file, line, col), msg))
    }

    #[test]
    fn long_lists_are_shortened_and_counts_agree_with_their_nouns() {
        let names: Vec<String> = (0..29).map(|i| format!("ch{i:02}.md")).collect();
        assert_eq!(
            shortened(&names, 3),
            "ch00.md, ch01.md, ch02.md and 26 more"
        );
        // "and 1 more" says no more than the name would.
        assert_eq!(
            shortened(&names[..4], 3),
            "ch00.md, ch01.md, ch02.md, ch03.md"
        );
        assert_eq!(plural(1, "chapter"), "1 chapter");
        assert_eq!(plural(0, "chapter"), "0 chapters");
    }

    fn sample() -> Vec<BookReport> {
        let mut with_hint = finding(
            Severity::Error,
            "books/a/ch01.md",
            12,
            3,
            "[internal-links] the link `#x` points to nothing",
        );
        with_hint.hint = Some("in item/xhtml/ch01.xhtml:34:5".into());
        vec![
            BookReport {
                book: "a".into(),
                ok: false,
                failed_stage: Some("checks".into()),
                epub: None,
                findings: vec![
                    finding(
                        Severity::Warning,
                        "books/a/ch02.md",
                        3,
                        1,
                        "[image-alt] no <alt> & more",
                    ),
                    with_hint,
                    finding(
                        Severity::Error,
                        "books/a/ch01.md",
                        2,
                        1,
                        "[unique-ids] id `x` twice",
                    ),
                ],
                seconds: 1.5,
            },
            BookReport {
                book: "b".into(),
                ok: true,
                failed_stage: None,
                epub: Some("dist/b.epub".into()),
                findings: vec![],
                seconds: 0.25,
            },
        ]
    }

    #[test]
    fn from_finding() {
        let f = Finding::warning(codes::BROKEN_LINK, Location::new("books/a/x.md", 4, 2), "m")
            .with_hint("h");
        let r = ReportFinding::from(&f);
        assert_eq!(r.code.as_deref(), Some("broken-link"));
        assert_eq!(r.severity, "warning");
        assert_eq!(r.file, "books/a/x.md");
        assert_eq!((r.line, r.col), (4, 2));
        assert_eq!(r.hint.as_deref(), Some("h"));
    }

    #[test]
    fn json_parses_back() {
        let text = json(&sample());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["errors"], 2);
        assert_eq!(v["warnings"], 1);
        let books = v["books"].as_array().unwrap();
        assert_eq!(books.len(), 2);
        assert_eq!(books[0]["book"], "a");
        assert_eq!(books[0]["failed_stage"], "checks");
        assert_eq!(books[0]["epub"], serde_json::Value::Null);
        assert_eq!(books[0]["findings"][1]["file"], "books/a/ch01.md");
        assert_eq!(books[0]["findings"][1]["line"], 12);
        assert_eq!(books[0]["findings"][1]["col"], 3);
        assert_eq!(books[0]["findings"][1]["severity"], "error");
        assert_eq!(
            books[0]["findings"][1]["hint"],
            "in item/xhtml/ch01.xhtml:34:5"
        );
        assert_eq!(books[1]["ok"], true);
        assert_eq!(books[1]["epub"], "dist/b.epub");
        assert_eq!(books[1]["seconds"], 0.25);
        let v: serde_json::Value = serde_json::from_str(&json(&[])).unwrap();
        assert_eq!(v["ok"], true);
        assert_eq!(v["books"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn junit_parses_back() {
        let text = junit(&sample());
        let doc = dom::parse_document(&text).expect("well-formed");
        let root = &doc.root;
        assert_eq!(root.name, "testsuites");
        assert_eq!(root.attr("tests"), Some("2"));
        assert_eq!(root.attr("failures"), Some("1"));
        let suites: Vec<&Element> = root.child_elements().collect();
        assert_eq!(suites.len(), 1);
        let suite = suites[0];
        assert_eq!(suite.attr("name"), Some("seihon"));
        assert_eq!(suite.attr("tests"), Some("2"));
        assert_eq!(suite.attr("failures"), Some("1"));
        assert_eq!(suite.attr("time"), Some("1.750"));
        let cases: Vec<&Element> = suite.child_elements().collect();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].attr("name"), Some("a"));
        assert_eq!(cases[0].attr("time"), Some("1.500"));
        let failure = cases[0]
            .child_elements()
            .find(|e| e.name == "failure")
            .unwrap();
        assert_eq!(failure.attr("message"), Some("failed at checks (2 errors)"));
        assert_eq!(failure.attr("type"), Some("checks"));
        assert_eq!(
            failure.text_content(),
            "books/a/ch01.md:12:3: error: [internal-links] the link `#x` points to nothing\n  \
             help: in item/xhtml/ch01.xhtml:34:5\n\
             books/a/ch01.md:2:1: error: [unique-ids] id `x` twice\n"
        );
        let out = cases[0]
            .child_elements()
            .find(|e| e.name == "system-out")
            .unwrap();
        assert_eq!(
            out.text_content(),
            "books/a/ch02.md:3:1: warning: [image-alt] no <alt> & more\n"
        );
        assert_eq!(cases[1].attr("name"), Some("b"));
        assert_eq!(cases[1].child_elements().count(), 0);
    }

    #[test]
    fn github_annotation_lines() {
        let text = github_annotations(&sample());
        assert_eq!(
            text,
            "::warning file=books/a/ch02.md,line=3,col=1,title=seihon::[image-alt] no <alt> & more\n\
             ::error file=books/a/ch01.md,line=12,col=3,title=seihon::[internal-links] the link `#x` points to nothing%0Ain item/xhtml/ch01.xhtml:34:5\n\
             ::error file=books/a/ch01.md,line=2,col=1,title=seihon::[unique-ids] id `x` twice\n"
        );
        let odd = BookReport {
            book: "c".into(),
            ok: false,
            failed_stage: Some("pack".into()),
            epub: None,
            findings: vec![finding(
                Severity::Warning,
                "books/c/a,b:c.md",
                0,
                0,
                "first line\r\nsecond: 100%",
            )],
            seconds: 0.0,
        };
        assert_eq!(
            github_annotations(&[odd]),
            "::warning file=books/c/a%2Cb%3Ac.md,title=seihon::first line%0D%0Asecond: 100%25\n\
             ::error title=seihon::c: failed at pack\n"
        );
    }

    #[test]
    /// Files in the order they first come up (reading order), findings by line.
    fn human_groups_by_file() {
        let text = human(&sample());
        assert_eq!(
            text,
            "── books/a/ch02.md: 1 warning\n\
             books/a/ch02.md:3:1: warning: [image-alt] no <alt> & more\n\
             ── books/a/ch01.md: 2 errors\n\
             books/a/ch01.md:2:1: error: [unique-ids] id `x` twice\n\
             books/a/ch01.md:12:3: error: [internal-links] the link `#x` points to nothing\n\
             \x20 help: in item/xhtml/ch01.xhtml:34:5\n\
             ✗ a: failed at checks (2 errors, 1 warning)\n\
             ✓ b: built dist/b.epub\n"
        );
    }

    #[test]
    fn sarif_uri_is_a_percent_encoded_reference() {
        assert_eq!(sarif_uri("books/a/ch01.md"), "books/a/ch01.md");
        assert_eq!(
            sarif_uri("books/neko/第1章 はじめに.md"),
            "books/neko/%E7%AC%AC1%E7%AB%A0%20%E3%81%AF%E3%81%98%E3%82%81%E3%81%AB.md"
        );
        // A colon in the first segment would read as a scheme; `#`, `?` and `%` as URI syntax.
        assert_eq!(sarif_uri("a:b#c?d%e.md"), "a%3Ab%23c%3Fd%25e.md");
        assert_eq!(sarif_uri("books\\win\\ch 1.md"), "books/win/ch%201.md");
        assert_eq!(
            sarif_uri("/srv/本/x y.md"),
            "file:///srv/%E6%9C%AC/x%20y.md"
        );
        assert_eq!(sarif_uri("C:\\books\\a.md"), "file:///C:/books/a.md");
    }

    #[test]
    fn sarif_results_rules_and_regions() {
        let mut reports = sample();
        let mut coded = finding(Severity::Warning, "books/b/第1章 はじめに.md", 7, 0, "m");
        coded.code = Some("MD001".into());
        reports[1].findings = vec![
            coded,
            finding(Severity::Warning, "books/b/book.yml", 0, 0, "no line"),
            finding(Severity::Error, "", 0, 0, "no file"),
        ];
        reports.push(BookReport {
            book: "c".into(),
            ok: false,
            failed_stage: Some("pack".into()),
            epub: None,
            findings: vec![],
            seconds: 0.0,
        });
        let text = sarif(&reports);
        assert_eq!(text, sarif(&reports), "deterministic");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["version"], "2.1.0");
        assert!(
            v["$schema"]
                .as_str()
                .unwrap()
                .ends_with("sarif-schema-2.1.0.json")
        );
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        let driver = &runs[0]["tool"]["driver"];
        assert_eq!(driver["name"], "seihon");
        assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
        let rules: Vec<&str> = driver["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            rules,
            [
                "seihon.warning",
                "seihon.error",
                "MD001",
                "seihon.build-failed"
            ]
        );
        let results = runs[0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 7);
        for r in results {
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(r["ruleId"], rules[i], "{r}");
        }
        // In the order the findings come.
        assert_eq!(results[0]["level"], "warning");
        assert_eq!(results[0]["message"]["text"], "[image-alt] no <alt> & more");
        let with_hint = &results[1];
        assert_eq!(with_hint["ruleId"], "seihon.error");
        assert_eq!(with_hint["level"], "error");
        assert_eq!(
            with_hint["message"]["text"],
            "[internal-links] the link `#x` points to nothing (help: in item/xhtml/ch01.xhtml:34:5)"
        );
        let place = &with_hint["locations"][0]["physicalLocation"];
        assert_eq!(place["artifactLocation"]["uri"], "books/a/ch01.md");
        assert_eq!(place["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(
            place["region"],
            serde_json::json!({"startLine": 12, "startColumn": 3})
        );
        // A code is the rule; a column of 0 is left out, a line of 0 leaves out the region.
        assert_eq!(results[3]["ruleId"], "MD001");
        let place = &results[3]["locations"][0]["physicalLocation"];
        assert_eq!(
            place["artifactLocation"]["uri"],
            "books/b/%E7%AC%AC1%E7%AB%A0%20%E3%81%AF%E3%81%98%E3%82%81%E3%81%AB.md"
        );
        assert_eq!(place["region"], serde_json::json!({"startLine": 7}));
        let place = results[4]["locations"][0]["physicalLocation"]
            .as_object()
            .unwrap();
        assert_eq!(place["artifactLocation"]["uri"], "books/b/book.yml");
        assert!(!place.contains_key("region"), "{place:?}");
        // No file, no location.
        assert_eq!(results[5]["message"]["text"], "no file");
        assert!(results[5].get("locations").is_none(), "{}", results[5]);
        // A book that failed without an error finding still gives an error.
        assert_eq!(results[6]["ruleId"], "seihon.build-failed");
        assert_eq!(results[6]["level"], "error");
        assert_eq!(results[6]["message"]["text"], "c: failed at pack");
        assert!(results[6].get("locations").is_none());
        // An empty run is still a valid log with its one run.
        let v: serde_json::Value = serde_json::from_str(&sarif(&[])).unwrap();
        assert_eq!(v["runs"][0]["results"], serde_json::json!([]));
    }

    #[test]
    fn finding_code_is_optional_in_json() {
        let old =
            r#"{"severity":"warning","file":"a.md","line":1,"col":2,"message":"m","hint":null}"#;
        let f: ReportFinding = serde_json::from_str(old).unwrap();
        assert_eq!(f.code, None);
        assert!(!serde_json::to_string(&f).unwrap().contains("code"));
        let mut f = f;
        f.code = Some("X1".into());
        let back: ReportFinding =
            serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(back.code.as_deref(), Some("X1"));
    }
}
