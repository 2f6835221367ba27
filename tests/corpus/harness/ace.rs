//! DAISY Ace, the accessibility checker publishers and distributors run, on one EPUB: run as
//! `ace-puppeteer` (from `tests/ace/node_modules`, which `.ci/run` installs) on Debian's
//! chromium, its `report.json` read for the violations it found.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to get Ace when it is missing.
pub const HOW: &str = "run `bash .ci/run` (it installs it), or by hand: `ELECTRON_SKIP_BINARY_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix tests/ace` and `apt-get install -y chromium`";

/// The checker: its launcher and the browser it drives.
#[derive(Debug, Clone)]
pub struct Ace {
    launcher: PathBuf,
    chromium: PathBuf,
}

/// Ace's verdict on one EPUB.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// Violations by `rule (impact)`.
    pub violations: BTreeMap<String, usize>,
    /// The first violation, as `rule (impact) in page: element`.
    pub first: Option<String>,
}

impl Verdict {
    pub fn total(&self) -> usize {
        self.violations.values().sum()
    }

    /// `3 × epub-type-has-matching-role (moderate); 1 × image-alt (critical)`.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = (self.violations.iter())
            .map(|(rule, n)| format!("{n} × {rule}"))
            .collect();
        parts.join("; ")
    }
}

impl Ace {
    /// Ace as `.ci/run` installs it under `repo`, or why it cannot run.
    pub fn find(repo: &Path) -> Result<Ace, String> {
        let launcher = repo.join("tests/ace/node_modules/.bin/ace-puppeteer");
        let chromium = std::env::var_os("SEIHON_CHROMIUM")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
        if !launcher.is_file() {
            return Err(format!(
                "DAISY Ace is not installed at {}; {HOW}",
                launcher.display()
            ));
        }
        if !chromium.is_file() {
            return Err(format!(
                "Chromium is not at {} (set SEIHON_CHROMIUM to another one); {HOW}",
                chromium.display()
            ));
        }
        Ok(Ace { launcher, chromium })
    }

    /// Checks `epub`. `Err` is Ace's own failure (it did not run or wrote no report).
    pub fn check(&self, epub: &Path) -> Result<Verdict, String> {
        let out_dir = tempfile::tempdir().map_err(|e| format!("Ace's folder: {e}"))?;
        let out = Command::new(&self.launcher)
            .args(["--force", "--silent", "--outdir"])
            .arg(out_dir.path())
            .arg(epub)
            .env("PUPPETEER_EXECUTABLE_PATH", &self.chromium)
            .output()
            .map_err(|e| format!("running {}: {e}; {HOW}", self.launcher.display()))?;
        let report = out_dir.path().join("report.json");
        let bytes = std::fs::read(&report).map_err(|_| {
            format!(
                "Ace wrote no report for {} ({}): {}{}",
                epub.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        parse(&bytes)
    }
}

/// The violations of an Ace `report.json`.
pub fn parse(report: &[u8]) -> Result<Verdict, String> {
    let json: serde_json::Value =
        serde_json::from_slice(report).map_err(|e| format!("Ace's report: {e}"))?;
    let mut verdict = Verdict::default();
    for page in json["assertions"].as_array().into_iter().flatten() {
        let url = page["earl:testSubject"]["url"].as_str().unwrap_or("?");
        for a in page["assertions"].as_array().into_iter().flatten() {
            let test = &a["earl:test"];
            let rule = format!(
                "{} ({})",
                test["dct:title"].as_str().unwrap_or("?"),
                test["earl:impact"].as_str().unwrap_or("?")
            );
            if verdict.first.is_none() {
                let html = a["earl:result"]["html"].as_str().unwrap_or("");
                let html: String = html.chars().take(160).collect();
                verdict.first = Some(format!("{rule} in {url}: {html}"));
            }
            *verdict.violations.entry(rule).or_default() += 1;
        }
    }
    Ok(verdict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_are_counted_by_rule_and_impact() {
        let report = br#"{"assertions": [
          {"earl:testSubject": {"url": "nav.xhtml"}, "assertions": []},
          {"earl:testSubject": {"url": "xhtml/ch01.xhtml"}, "assertions": [
            {"earl:test": {"dct:title": "image-alt", "earl:impact": "critical"},
             "earl:result": {"html": "<img src=\"a.png\"/>"}},
            {"earl:test": {"dct:title": "image-alt", "earl:impact": "critical"},
             "earl:result": {"html": "<img src=\"b.png\"/>"}}]}]}"#;
        let v = parse(report).unwrap();
        assert_eq!(v.total(), 2);
        assert_eq!(v.summary(), "2 × image-alt (critical)");
        let first = v.first.unwrap();
        assert_eq!(
            first,
            "image-alt (critical) in xhtml/ch01.xhtml: <img src=\"a.png\"/>"
        );
    }
}
