//! `--report sarif:PATH` through the real binary: the log validates against the OASIS SARIF
//! 2.1.0 schema (tests/fixtures/sarif/, checked by Python's jsonschema) and says what the build
//! found, where.
use crate::support;

use std::path::Path;
use std::process::Command;

use support::*;

/// A chapter with a Japanese name and a space in it: its URI must be percent-encoded.
const CHAPTER: &str = "第1章 はじめに.md";

/// Validates `sarif` against the schema with Python's jsonschema, in the schema's own draft
/// (draft-04 for the OASIS file), and checks that every `artifactLocation.uri` is an RFC 3986
/// URI reference. Returns the URIs, percent-decoded, in the order of the results.
const VALIDATE: &str = r#"
import json, re, sys, urllib.parse
try:
    import jsonschema
except ImportError:
    sys.exit(3)
schema = json.load(open(sys.argv[1], encoding="utf-8"))
log = json.load(open(sys.argv[2], encoding="utf-8"))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
for e in errors:
    print("schema (%s): %s at /%s" % (cls.__name__, e.message, "/".join(map(str, e.absolute_path))))
char = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]]|%[0-9A-Fa-f]{2})"
decoded = []
for run in log["runs"]:
    for result in run["results"]:
        for loc in result.get("locations", []):
            uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            scheme = urllib.parse.urlsplit(uri).scheme
            if not re.fullmatch(char + "*", uri):
                print("not a URI reference: %r" % uri)
                errors.append(uri)
            elif not scheme and ":" in uri.split("/")[0]:
                print("a relative reference with a colon in its first segment: %r" % uri)
                errors.append(uri)
            decoded.append(urllib.parse.unquote(uri))
if errors:
    sys.exit(1)
print(json.dumps({"validator": cls.__name__, "uris": decoded}, ensure_ascii=False))
"#;

/// Runs [`VALIDATE`]; fails the test (never skips it) when Python or jsonschema is missing.
fn validate(sarif: &Path) -> serde_json::Value {
    let schema = repo().join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let out = Command::new("python3")
        .arg("-c")
        .arg(VALIDATE)
        .arg(&schema)
        .arg(sarif)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run python3 ({e}): the SARIF test validates with Python's jsonschema; \
                 install Python 3 and `pip install jsonschema` (bash .ci/run does both)"
            )
        });
    match out.status.code() {
        Some(0) => serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("validator output ({e}): {}", text(&out))),
        Some(3) => panic!(
            "Python's jsonschema is not installed: `pip install jsonschema` \
             (bash .ci/run installs it)"
        ),
        _ => panic!(
            "the SARIF report is not valid SARIF 2.1.0:\n{}\n{}",
            text(&out),
            std::fs::read_to_string(sarif).unwrap_or_default()
        ),
    }
}

/// Appends `extra` to a book file after a blank line; the 1-based line where `extra` starts.
fn append_at(path: &Path, extra: &str) -> u64 {
    let mut text_ = std::fs::read_to_string(path).unwrap();
    if !text_.ends_with('\n') {
        text_.push('\n');
    }
    text_.push('\n');
    let line = text_.lines().count() as u64 + 1;
    text_.push_str(extra);
    std::fs::write(path, text_).unwrap();
    line
}

fn results_of<'a>(
    results: &'a [serde_json::Value],
    uri: &str,
    level: &str,
) -> Vec<&'a serde_json::Value> {
    results
        .iter()
        .filter(|r| {
            r["level"] == level
                && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri
        })
        .collect()
}

#[test]
fn sarif_report_of_a_warning_and_a_failed_book_is_valid_sarif_2_1_0() {
    let project = TempProject::new();
    // A book that builds with a warning (an image that is not there), in a chapter whose name
    // needs percent-encoding.
    let neko = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    std::fs::rename(neko.join("ch01.md"), neko.join(CHAPTER)).unwrap();
    let yml = std::fs::read_to_string(neko.join("book.yml")).unwrap();
    assert!(yml.contains("chapters: [ch01.md,"), "{yml}");
    std::fs::write(
        neko.join("book.yml"),
        yml.replace("chapters: [ch01.md,", &format!("chapters: [\"{CHAPTER}\",")),
    )
    .unwrap();
    let image_line = append_at(&neko.join(CHAPTER), "![存在しない図](images/missing.png)\n");
    // A book that fails: raw HTML linking to an id that is nowhere, which its book.yml makes
    // an error.
    let broken = project.add_book(&repo().join("books/neko-no-hon"), "broken");
    let yml = std::fs::read_to_string(broken.join("book.yml")).unwrap();
    std::fs::write(
        broken.join("book.yml"),
        format!("{yml}checks: {{broken-fragment: error}}\n"),
    )
    .unwrap();
    let link_line = append_at(
        &broken.join("ch01.md"),
        "<p><a href=\"#nowhere\">broken</a></p>\n",
    );

    let sarif = project.path().join("reports/seihon.sarif");
    let out = project.seihon(&["build", "--report", &format!("sarif:{}", sarif.display())]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(project.epub("neko").is_file(), "{all}");
    assert!(!project.epub("broken").exists(), "{all}");

    let checked = validate(&sarif);
    assert_eq!(checked["validator"], "Draft4Validator", "{checked}");
    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{log:#}");
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "seihon");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules: Vec<&str> = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let results = runs[0]["results"].as_array().unwrap();
    for r in results {
        let rule = r["ruleId"].as_str().unwrap();
        assert!(rules.contains(&rule), "{rule} not in {rules:?}");
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize], rule);
    }

    // The warning, at its line of the Japanese-named chapter.
    let uri = "books/neko/%E7%AC%AC1%E7%AB%A0%20%E3%81%AF%E3%81%98%E3%82%81%E3%81%AB.md";
    let warnings = results_of(results, uri, "warning");
    let image = warnings
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .contains("missing.png")
        })
        .unwrap_or_else(|| panic!("no warning for the missing image in {log:#}"));
    assert_eq!(image["ruleId"], "missing-image", "{image}");
    let place = &image["locations"][0]["physicalLocation"];
    assert_eq!(place["region"]["startLine"], image_line, "{image}");
    assert!(
        place["region"]["startColumn"].as_u64() >= Some(1),
        "{image}"
    );
    assert!(
        checked["uris"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(format!("books/neko/{CHAPTER}"))),
        "{checked}"
    );

    // The error that failed the other book.
    let errors = results_of(results, "books/broken/ch01.md", "error");
    let link = errors
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("this link points to `#nowhere`")
        })
        .unwrap_or_else(|| panic!("no broken-fragment error in {log:#}"));
    assert_eq!(link["ruleId"], "broken-fragment", "{link}");
    assert_eq!(
        link["locations"][0]["physicalLocation"]["region"]["startLine"], link_line,
        "{link}"
    );
    // Nothing in the log changes from one run to the next but what the books say.
    let first = std::fs::read(&sarif).unwrap();
    let out = project.seihon(&[
        "build",
        "--force",
        "--report",
        &format!("sarif:{}", sarif.display()),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        String::from_utf8(std::fs::read(&sarif).unwrap()).unwrap(),
        String::from_utf8(first).unwrap()
    );
}

#[test]
fn an_unknown_report_kind_names_sarif() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let out = project.seihon(&["build", "--report", "sarf:out.sarif"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("`--report sarf:out.sarif` is not a report")
            && all.contains("`--report sarif:PATH`"),
        "{all}"
    );
}
