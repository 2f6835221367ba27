//! Check programs: a house's own checks, in any language, in `checks/`.
//!
//! Every program in the project's `checks/` folder and in the book's own `checks/` folder (a
//! book's program replaces the project's of the same name) runs on the staged tree, with the
//! tree as working folder and the book in the environment (as hooks get it). It reports one
//! problem per line of standard output or error, the way compilers do:
//!
//! ```text
//! item/xhtml/ch01.xhtml:12: warning: the word `サーバ` should be `サーバー`
//! ch01.re:3:5: error: chapter titles end without a full stop
//! ```
//!
//! A staged page's line is reported at the source line it came from; other paths are taken as
//! they are (a source file of the book, a generated file). Other lines go to the build log. A
//! program that exits non-zero without reporting anything failed, and fails the book.
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Level, SourceMap};
use crate::codes;
use crate::error::{Finding, Location, Severity};
use crate::runner::{self, RunSpec};

/// One check program: its name (the file name without extension) and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckProgram {
    pub name: String,
    pub path: PathBuf,
}

/// How much a check program may print before it is stopped.
const OUTPUT_LIMIT: usize = 16 << 20;

/// The check programs of a project and a book, sorted by name; the book's replace the
/// project's of the same name. Documentation and settings files in the folders are not programs.
pub fn discover(project_root: &Path, book_root: &Path) -> Vec<CheckProgram> {
    let mut found: std::collections::BTreeMap<String, PathBuf> = Default::default();
    for root in [project_root, book_root] {
        let Ok(entries) = std::fs::read_dir(root.join("checks")) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !path.is_file()
                || file_name.starts_with('.')
                || file_name.starts_with("README")
                || matches!(ext, "yml" | "yaml" | "md" | "txt" | "json")
            {
                continue;
            }
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or(file_name)
                .to_string();
            found.insert(name, path);
        }
    }
    found
        .into_iter()
        .map(|(name, path)| CheckProgram { name, path })
        .collect()
}

/// A line a check program printed, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reported {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub severity: Severity,
    pub message: String,
}

/// Reads `file:line: severity: message`, `file:line:col: severity: message` or
/// `file: severity: message`; severity is `error` or `warning` (any case).
pub fn parse_line(line: &str) -> Option<Reported> {
    let mut parts = line.splitn(5, ':');
    let file = parts.next()?.trim();
    if file.is_empty() {
        return None;
    }
    let fields: Vec<&str> = parts.collect();
    let number = |s: &str| s.trim().parse::<u32>().ok();
    let severity = |s: &str| match s.trim().to_ascii_lowercase().as_str() {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        _ => None,
    };
    let rest = |from: usize| fields[from..].join(":").trim().to_string();
    let (line_no, col, sev, message) = match fields.as_slice() {
        [l, c, s, ..] if number(l).is_some() && number(c).is_some() && severity(s).is_some() => {
            (number(l)?, number(c)?, severity(s)?, rest(3))
        }
        [l, s, ..] if number(l).is_some() && severity(s).is_some() => {
            (number(l)?, 0, severity(s)?, rest(2))
        }
        [s, ..] if severity(s).is_some() => (0, 0, severity(s)?, rest(1)),
        _ => return None,
    };
    if message.is_empty() {
        return None;
    }
    Some(Reported {
        file: file.trim_start_matches("./").to_string(),
        line: line_no,
        col,
        severity: sev,
        message,
    })
}

/// What one program run gave: findings, and the lines that were not findings (for the log).
pub struct ProgramRun {
    pub findings: Vec<Finding>,
    pub log: String,
}

/// Runs one check program on the staged tree. `level` is its configured level (never `Off`:
/// those are not run); `warning` lowers its errors.
pub fn run(
    program: &CheckProgram,
    stage_dir: &Path,
    env: Vec<(String, String)>,
    time_limit: Duration,
    level: Level,
    map: &SourceMap,
) -> ProgramRun {
    let shown = crate::book::display_path(Path::new("."), &program.path);
    let spec = RunSpec {
        program: std::path::absolute(&program.path).unwrap_or_else(|_| program.path.clone()),
        env,
        cwd: Some(stage_dir.to_path_buf()),
        timeout: time_limit,
        max_output: OUTPUT_LIMIT,
        ..RunSpec::new(&program.path)
    };
    let (text, failure) = match runner::run(&spec) {
        Ok(out) => (
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            None,
        ),
        // A program that found problems may well exit non-zero; what it printed counts.
        Err(runner::RunError::Failed { output, stderr, .. }) => (
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
            Some(if stderr.trim().is_empty() {
                "it exited with an error".to_string()
            } else {
                format!("it said: {}", stderr.trim())
            }),
        ),
        Err(e) => (String::new(), Some(e.to_string())),
    };
    let mut findings = Vec::new();
    let mut log = String::new();
    for line in text.lines() {
        match parse_line(line) {
            Some(r) => findings.push(finding(program, r, level, stage_dir, map)),
            None if line.trim().is_empty() => {}
            None => {
                log.push_str(&format!("[{}] {line}\n", program.name));
            }
        }
    }
    if let Some(why) = failure
        && findings.is_empty()
    {
        findings.push(
            Finding::error(
                codes::CHECK_PROGRAM,
                Location::file(&shown),
                format!(
                    "the check program `{}` failed without reporting a problem: {why}",
                    program.name
                ),
            )
            .with_hint(format!(
                "a check program prints `file:line: error: message` lines; fix it, or set the check `{}` to `off`",
                program.name
            )),
        );
    }
    ProgramRun { findings, log }
}

fn finding(
    program: &CheckProgram,
    r: Reported,
    level: Level,
    stage_dir: &Path,
    map: &SourceMap,
) -> Finding {
    let severity = if level == Level::Warning {
        Severity::Warning
    } else {
        r.severity
    };
    let staged = Location::new(&r.file, r.line, r.col);
    let (location, hint) = match map.source(&r.file, r.line) {
        Some(src) => (src, Some(format!("in {staged}"))),
        None if map.has_page(&r.file) || stage_dir.join(&r.file).is_file() => {
            (staged, Some("a file of the EPUB".to_string()))
        }
        None => (staged, None),
    };
    Finding {
        hint,
        ..Finding::of(
            program.name.clone(),
            severity,
            location,
            format!("[{}] {}", program.name, r.message),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn lines_are_read_like_compiler_messages() {
        let r = parse_line("item/xhtml/ch01.xhtml:12: warning: say サーバー").unwrap();
        assert_eq!(
            (r.file.as_str(), r.line, r.col, r.severity),
            ("item/xhtml/ch01.xhtml", 12, 0, Severity::Warning)
        );
        assert_eq!(r.message, "say サーバー");
        let r = parse_line("./ch01.re:3:5: ERROR: a: b").unwrap();
        assert_eq!((r.file.as_str(), r.line, r.col), ("ch01.re", 3, 5));
        assert_eq!((r.severity, r.message.as_str()), (Severity::Error, "a: b"));
        let r = parse_line("book.yml: error: no ISBN").unwrap();
        assert_eq!((r.line, r.message.as_str()), (0, "no ISBN"));
        for not in [
            "checked 12 pages",
            "a:1: note: fine",
            ":1: error: x",
            "a:1: error:",
            "",
        ] {
            assert_eq!(parse_line(not), None, "{not}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_program_reports_at_the_source_line() {
        let dir = tempfile::tempdir().unwrap();
        let checks = dir.path().join("checks");
        std::fs::create_dir(&checks).unwrap();
        std::fs::write(
            checks.join("words.sh"),
            "echo 'checking'\necho 'item/xhtml/ch01.xhtml:3: error: say サーバー'\necho 'item/standard.opf:2: warning: no subject' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::write(checks.join("README.md"), "docs").unwrap();
        let programs = discover(dir.path(), &dir.path().join("no-book"));
        assert_eq!(programs.len(), 1);
        assert_eq!(programs[0].name, "words");
        // Line 3 of the page is the paragraph from ch01.md:7:1.
        let (text, sources) = crate::dom::from_marked(
            "<html>\n<body>\n<p data-seihon-src=\"ch01.md:7:1\">サーバ</p>\n</body></html>\n",
        );
        assert_eq!(text.lines().nth(2), Some("<p>サーバ</p>"), "{text}");
        let sources = BTreeMap::from([("item/xhtml/ch01.xhtml".to_string(), sources)]);
        let map = SourceMap::new(&sources);
        let run = run(
            &programs[0],
            dir.path(),
            Vec::new(),
            Duration::from_secs(20),
            Level::Error,
            &map,
        );
        // Exit code 1 means "found problems": both streams count.
        assert_eq!(run.findings.len(), 2, "{:?}", run.findings);
        let f = &run.findings[0];
        assert_eq!(f.location, Location::new("ch01.md", 7, 1));
        assert_eq!(f.message, "[words] say サーバー");
        assert_eq!(f.hint.as_deref(), Some("in item/xhtml/ch01.xhtml:3"));
        assert_eq!(f.severity, Severity::Error);
        let f = &run.findings[1];
        assert_eq!(f.location, Location::new("item/standard.opf", 2, 0));
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(run.log, "[words] checking\n");

        // At `warning`, its errors are warnings; a program that fails silently is an error.
        let run2 = super::run(
            &programs[0],
            dir.path(),
            Vec::new(),
            Duration::from_secs(20),
            Level::Warning,
            &map,
        );
        assert!(
            run2.findings
                .iter()
                .all(|f| f.severity == Severity::Warning)
        );
        std::fs::write(checks.join("words.sh"), "echo oops >&2; exit 3\n").unwrap();
        let run3 = super::run(
            &programs[0],
            dir.path(),
            Vec::new(),
            Duration::from_secs(20),
            Level::Error,
            &map,
        );
        assert_eq!(run3.findings.len(), 1);
        assert!(
            run3.findings[0]
                .message
                .contains("failed without reporting a problem: it said: oops"),
            "{}",
            run3.findings[0].message
        );
        assert_eq!(run3.findings[0].severity, Severity::Error);
    }
}
