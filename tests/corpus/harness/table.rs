//! The per-book table: one line a book and a summary line; `detail` adds structure counts side
//! by side with the reference's, the findings by kind, and the first source text not found.
use std::collections::BTreeMap;
use std::fmt::Write;

use super::epub::Counts;
use super::manifest::Expected;
use super::measure::floor_tenth;
use super::run::Outcome;

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.1}%", floor_tenth(v)))
}

fn expected_word(e: Option<&Expected>) -> &'static str {
    match e {
        Some(Expected::Pass(_)) => "pass",
        Some(Expected::Fail(_)) => "fail",
        None => "?",
    }
}

/// Findings by kind, most frequent first: `34 image-alt, 2 the image … is outside …`.
pub fn by_kind(o: &Outcome, errors: bool) -> Vec<(String, usize)> {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for f in o.findings.iter().filter(|f| f.error == errors) {
        *kinds.entry(&f.kind).or_default() += 1;
    }
    let mut kinds: Vec<(String, usize)> =
        kinds.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    kinds
}

pub fn render(outcomes: &[Outcome], expected: &BTreeMap<String, Expected>, detail: bool) -> String {
    let mut out = String::new();
    let width = outcomes
        .iter()
        .map(|o| o.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:width$}  {:8}  {:>4}  {:>7}  {:>9}  {:>4}  {:>6}  {:>6}  {:>5}  {:8}  first error / most frequent warnings",
        "book", "format", "exit", "time", "epubcheck", "ace", "ref", "source", "warn", "expected"
    );
    for o in outcomes {
        let check = o.epubcheck.as_ref().map_or("-".into(), |c| {
            format!("{}/{}/{}", c.fatal, c.error, c.warning)
        });
        let ace = o.ace.as_ref().map_or("-".into(), |a| a.total().to_string());
        let warnings = o.findings.iter().filter(|f| !f.error).count();
        let note = match (&o.first_error, o.built) {
            (Some(e), false) => e.clone(),
            _ => by_kind(o, false)
                .iter()
                .take(3)
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join("; "),
        };
        let _ = writeln!(
            out,
            "{:width$}  {:8}  {:>4}  {:>5.2} s  {:>9}  {:>4}  {:>6}  {:>6}  {:>5}  {:8}  {}",
            o.name,
            o.format.name(),
            o.exit.map_or("-".into(), |c| c.to_string()),
            o.seconds,
            check,
            ace,
            pct(o.reference_text),
            pct(o.source_text.as_ref().ok().copied()),
            warnings,
            expected_word(expected.get(&o.name)),
            note
        );
    }
    if detail {
        out.push('\n');
        out.push_str(&structure(outcomes, width));
        for o in outcomes {
            let _ = writeln!(out, "\n{} ({})", o.name, o.format.name());
            if let Some(v) = o.reference_source_text {
                let _ = writeln!(
                    out,
                    "  the reference keeps {} of the source's text",
                    pct(Some(v))
                );
            }
            if let Some(first) = o.epubcheck.as_ref().and_then(|c| c.first.as_ref()) {
                let _ = writeln!(out, "  epubcheck, first message: {first}");
            }
            if let Some(ace) = o.ace.as_ref().filter(|a| a.total() > 0) {
                let _ = writeln!(out, "  DAISY Ace: {}", ace.summary());
                let _ = writeln!(out, "    first: {}", ace.first.as_deref().unwrap_or("-"));
            }
            if let Err(why) = &o.source_text {
                let _ = writeln!(out, "  source text not measured: {why}");
            }
            for (errors, label) in [(true, "errors"), (false, "warnings")] {
                let kinds = by_kind(o, errors);
                if !kinds.is_empty() {
                    let _ = writeln!(out, "  {label} by kind:");
                    for (k, n) in kinds {
                        let _ = writeln!(out, "    {n:>5}  {k}");
                    }
                }
            }
            if !o.lost.is_empty() {
                let (what, first) = if o.format == super::manifest::Format::Docbook {
                    ("words, most missed first", 12)
                } else {
                    ("chunks", 5)
                };
                let _ = writeln!(
                    out,
                    "  source text not found in the EPUB ({} {what}; first {first}):",
                    o.lost.len()
                );
                for l in o.lost.iter().take(first) {
                    let l: String = l.chars().take(150).collect();
                    let _ = writeln!(out, "    {l}");
                }
            }
        }
    }
    let _ = writeln!(out, "\n{}", summary(outcomes));
    out
}

/// seihon's counts over the reference's, a column per structure.
fn structure(outcomes: &[Outcome], width: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "structure: seihon's count / the reference's");
    let _ = write!(out, "{:width$}", "book");
    for name in Counts::NAMES {
        let _ = write!(out, "  {name:>11}");
    }
    out.push('\n');
    for o in outcomes {
        let _ = write!(out, "{:width$}", o.name);
        let ours = o.counts.map(|c| c.values());
        let theirs = o.reference_counts.map(|c| c.values());
        for i in 0..Counts::NAMES.len() {
            let a = ours.map_or("-".into(), |v| v[i].to_string());
            let b = theirs.map_or("-".into(), |v| v[i].to_string());
            let _ = write!(out, "  {:>11}", format!("{a}/{b}"));
        }
        out.push('\n');
    }
    out
}

/// `N/24 built, N epubcheck-clean, N Ace-clean, N at >= 99% of the reference's text`.
pub fn summary(outcomes: &[Outcome]) -> String {
    let built = outcomes.iter().filter(|o| o.built).count();
    let clean = outcomes
        .iter()
        .filter(|o| o.epubcheck.as_ref().is_some_and(|c| c.clean()))
        .count();
    let ace = outcomes
        .iter()
        .filter(|o| o.ace.as_ref().is_some_and(|a| a.total() == 0))
        .count();
    let near = outcomes
        .iter()
        .filter(|o| o.clean().is_ok() && o.reference_text.is_some_and(|v| v >= 99.0))
        .count();
    format!(
        "{built}/{} built, {clean} epubcheck-clean, {ace} Ace-clean, {near} at >= 99% of the reference's text",
        outcomes.len()
    )
}
