//! Each book's outcome held to what the project expects of it. A `pass` book that fails, a
//! `fail` book that now passes, a book with no entry and an entry with no book are all
//! problems: the expected file can only say what is true.
use std::collections::BTreeMap;

use super::manifest::{Expected, Thresholds};
use super::measure::floor_tenth;
use super::run::Outcome;

/// The problems, one line each, naming the book.
pub fn judge(outcomes: &[Outcome], expected: &BTreeMap<String, Expected>) -> Vec<String> {
    let mut problems = Vec::new();
    for o in outcomes {
        if let Some(crash) = &o.crash {
            problems.push(format!("{}: seihon crashed: {crash}", o.name));
        }
        match expected.get(&o.name) {
            None => problems.push(match o.clean() {
                Ok(()) => format!(
                    "{}: no entry in tests/corpus/expected.yml; add `pass: {}`",
                    o.name,
                    figures(o)
                ),
                Err(why) => format!(
                    "{}: no entry in tests/corpus/expected.yml; add `fail: <why, one line>` (it {why})",
                    o.name
                ),
            }),
            Some(Expected::Pass(t)) => problems.extend(
                pass_problems(o, t)
                    .into_iter()
                    .map(|p| format!("{}: expected to pass, but {p}", o.name)),
            ),
            Some(Expected::Fail(why)) => {
                if o.clean().is_ok() {
                    problems.push(format!(
                        "{}: expected to fail ({why}), but it now builds and epubcheck finds nothing: flip its entry to `pass: {}`",
                        o.name,
                        figures(o)
                    ));
                }
            }
        }
    }
    for name in expected.keys() {
        if !outcomes.iter().any(|o| &o.name == name) {
            problems.push(format!(
                "{name}: in tests/corpus/expected.yml but not in the corpus manifest; remove the entry"
            ));
        }
    }
    problems
}

/// Why a book does not meet `pass` with these thresholds (nothing when it does).
pub fn pass_problems(o: &Outcome, t: &Thresholds) -> Vec<String> {
    if let Err(why) = o.clean() {
        return vec![why];
    }
    let mut out = Vec::new();
    if let Some(first) = o.unjoined.first() {
        out.push(format!(
            "{} of its {} plain paragraphs are not in the EPUB as the author wrote them, joined the Re:VIEW way (first: {first})",
            o.unjoined.len(),
            o.paragraphs
        ));
    }
    let measures = [
        (
            "reference_text",
            "of the reference's text",
            o.reference_text
                .ok_or_else(|| "the book has no reference EPUB".to_string()),
            t.reference_text,
        ),
        (
            "source_text",
            "of the source's text",
            o.source_text.clone(),
            t.source_text,
        ),
    ];
    for (key, what, measured, least) in measures {
        match (measured, least) {
            (Ok(v), Some(least)) if floor_tenth(v) < least => out.push(format!(
                "it keeps {:.1}% {what}, below the {least:.1}% expected",
                floor_tenth(v)
            )),
            (Ok(_), Some(_)) => {}
            (Ok(v), None) => out.push(format!(
                "{key} is measured ({:.1}%) but has no threshold: add `{key}: {:.1}`",
                floor_tenth(v),
                floor_tenth(v)
            )),
            (Err(why), Some(_)) => out.push(format!("{key} could not be measured: {why}")),
            (Err(_), None) => {}
        }
    }
    out
}

/// The entry a passing book would have: `{reference_text: …, source_text: …}`.
pub fn figures(o: &Outcome) -> String {
    let mut parts = Vec::new();
    if let Some(v) = o.reference_text {
        parts.push(format!("reference_text: {:.1}", floor_tenth(v)));
    }
    if let Ok(v) = &o.source_text {
        parts.push(format!("source_text: {:.1}", floor_tenth(*v)));
    }
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::manifest::{Format, parse_expected};
    use super::super::run::{Epubcheck, Outcome};
    use super::*;

    fn outcome(name: &str, built: bool) -> Outcome {
        Outcome {
            name: name.into(),
            format: Format::Review,
            exit: Some(if built { 0 } else { 1 }),
            seconds: 0.1,
            built,
            epubcheck: built.then(Epubcheck::default),
            ace: None,
            findings: Vec::new(),
            first_error: (!built).then(|| "ch01.re:3: error: unknown block //foo".into()),
            crash: None,
            reference_text: built.then_some(98.46),
            source_text: if built {
                Ok(100.0)
            } else {
                Err("no EPUB".into())
            },
            reference_source_text: None,
            lost: Vec::new(),
            paragraphs: 0,
            unjoined: Vec::new(),
            counts: None,
            reference_counts: None,
        }
    }

    fn expected(yaml: &str) -> BTreeMap<String, Expected> {
        parse_expected(yaml).unwrap()
    }

    #[test]
    fn the_expected_file_reads_pass_with_figures_and_fail_with_a_reason() {
        let e = expected(
            "good:\n  pass: {reference_text: 98.4, source_text: 100}\nbad:\n  fail: unknown block //foo\n",
        );
        assert_eq!(
            e["good"],
            Expected::Pass(Thresholds {
                reference_text: Some(98.4),
                source_text: Some(100.0)
            })
        );
        assert_eq!(e["bad"], Expected::Fail("unknown block //foo".into()));
        assert!(parse_expected("x:\n  pass: {refrence_text: 1}\n").is_err());
        assert!(parse_expected("x:\n  maybe: yes\n").is_err());
    }

    #[test]
    fn books_meeting_their_entries_raise_nothing() {
        let e = expected(
            "good:\n  pass: {reference_text: 98.4, source_text: 100}\nbad:\n  fail: unknown block\n",
        );
        assert_eq!(
            judge(&[outcome("good", true), outcome("bad", false)], &e),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_pass_book_that_fails_is_named() {
        let e = expected("good:\n  pass: {reference_text: 98.4, source_text: 100}\n");
        let problems = judge(&[outcome("good", false)], &e);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with("good: expected to pass, but did not build (exit 1)"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_fail_book_that_passes_is_named_with_its_figures() {
        let e = expected("bad:\n  fail: unknown block\n");
        let problems = judge(&[outcome("bad", true)], &e);
        assert_eq!(
            problems,
            [
                "bad: expected to fail (unknown block), but it now builds and epubcheck finds nothing: flip its entry to `pass: {reference_text: 98.4, source_text: 100.0}`"
            ]
        );
    }

    #[test]
    fn text_below_its_threshold_or_unheld_fails() {
        let e = expected("good:\n  pass: {reference_text: 98.5}\n");
        let problems = judge(&[outcome("good", true)], &e);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("keeps 98.4% of the reference's text, below the 98.5%"));
        assert!(problems[1].contains("source_text is measured (100.0%) but has no threshold"));
    }

    #[test]
    fn a_paragraph_not_as_written_fails_a_pass_book() {
        let e = expected("good:\n  pass: {reference_text: 98.4, source_text: 100}\n");
        let mut o = outcome("good", true);
        o.paragraphs = 40;
        o.unjoined = vec!["ch01.re:7: 存在します。Androidで".into()];
        let problems = judge(&[o], &e);
        assert_eq!(
            problems,
            [
                "good: expected to pass, but 1 of its 40 plain paragraphs are not in the EPUB as the author wrote them, joined the Re:VIEW way (first: ch01.re:7: 存在します。Androidで)"
            ]
        );
    }

    #[test]
    fn epubcheck_findings_fail_a_pass_book() {
        let e = expected("good:\n  pass: {reference_text: 98.4, source_text: 100}\n");
        let mut o = outcome("good", true);
        o.epubcheck = Some(Epubcheck {
            fatal: 0,
            error: 0,
            warning: 1,
            first: Some("OPF-085: x".into()),
        });
        let problems = judge(&[o], &e);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0]
                .contains("epubcheck found 0 fatal, 0 errors, 1 warning (first: OPF-085: x)")
        );
    }

    #[test]
    fn a_crash_fails_even_a_fail_book() {
        let e = expected("bad:\n  fail: unknown block\n");
        let mut o = outcome("bad", false);
        o.exit = Some(101);
        o.crash = Some("thread 'main' panicked at src/doc.rs:1:1".into());
        assert_eq!(
            judge(&[o], &e),
            ["bad: seihon crashed: thread 'main' panicked at src/doc.rs:1:1"]
        );
    }

    #[test]
    fn missing_and_stale_entries_are_named() {
        let e = expected("gone:\n  fail: removed\n");
        let problems = judge(&[outcome("new", true)], &e);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].starts_with("new: no entry in tests/corpus/expected.yml"));
        assert!(
            problems[1]
                .starts_with("gone: in tests/corpus/expected.yml but not in the corpus manifest")
        );
    }
}
