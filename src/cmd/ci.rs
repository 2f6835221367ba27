//! `seihon ci`: the whole CI job. Every book is built (books in parallel where cores allow),
//! its preview published (`public/<id>/`), each book's log written to `build/logs/<id>.log`, the reports to `build/reports/`
//! (`seihon.json`, `junit.xml`, and any `--report`), annotations under GitHub Actions, and the log
//! of a failed book is mailed to the production list. Mail never changes the result: a mail
//! server that is down only adds a warning, and the log stays on disk.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::batch::{self, Outcome};
use crate::error::Exit;
use crate::pipeline::BuildOptions;
use crate::project::Project;
use crate::report;
use crate::term::{self, Kind};

/// Where the last run's result per book is kept, to tell a "fixed" book from one that was
/// always fine.
const STATE_FILE: &str = "ci-state.json";

pub fn run(project: &Project, books: &[String], opts: &BuildOptions, reports: &[String]) -> Exit {
    let mut targets = match batch::report_targets(reports) {
        Ok(t) => t,
        Err(why) => {
            return super::refuse(&why);
        }
    };
    let dirs = match batch::book_dirs(project, books) {
        Ok(d) => d,
        Err(why) => {
            return super::refuse(&why);
        }
    };
    let build_dir = project.root.join(&project.config.build_dir);
    let reports_dir = build_dir.join("reports");
    let logs_dir = build_dir.join("logs");
    targets.push(("json".into(), reports_dir.join("seihon.json")));
    targets.push(("junit".into(), reports_dir.join("junit.xml")));
    for dir in [&reports_dir, &logs_dir] {
        if let Err(e) = std::fs::create_dir_all(dir) {
            let line = format!("error: cannot create {}: {e}", dir.display());
            term::err_line(Kind::Error, &line);
            return Exit::Failed;
        }
    }
    let commit = crate::mail::commit_id(&project.root);
    let threads = rayon::current_num_threads();
    let line = format!(
        "seihon ci: {} on {}{}",
        report::plural(dirs.len(), "book"),
        report::plural(threads, "thread"),
        commit
            .as_deref()
            .map(|c| format!(", commit {c}"))
            .unwrap_or_default()
    );
    term::err_line(Kind::Info, &line);
    // Every book is built (never skipped as up to date); the previews are published below, one
    // after another.
    let known = super::Commit::known(commit.clone());
    let runner = super::BookRun {
        project,
        opts,
        commit: &known,
        force: true,
        publish: false,
    };
    term::progress::books(dirs.len());
    let outcomes: Vec<Outcome> = dirs.par_iter().map(|dir| runner.run(dir, || {})).collect();

    let mut code = Exit::Success;
    let mut logs = Vec::new();
    for (i, (dir, outcome)) in dirs.iter().zip(&outcomes).enumerate() {
        let log = book_log(dir, outcome, commit.as_deref());
        let line = format!("[{}/{}] {}", i + 1, dirs.len(), dir.display());
        term::err_line(Kind::Info, &line);
        outcome.print();
        let path = logs_dir.join(format!("{}.log", outcome.report.book));
        if let Err(e) = crate::files::write_atomic(&path, log.as_bytes()) {
            let line = format!("warning: cannot write the log {}: {e}", path.display());
            term::err_line(Kind::Info, &line);
        }
        if !outcome.exit.is_success() {
            code = Exit::Failed;
        }
        batch::publish_preview(project, dir, outcome, commit.as_deref());
        logs.push((path, log));
    }
    let reports: Vec<report::BookReport> = outcomes.iter().map(|o| o.report.clone()).collect();
    code = code.max(batch::write_reports(&targets, &reports));
    term::say(term::Stream::Err, Kind::Info, &summary(&reports));

    let state_path = build_dir.join(STATE_FILE);
    let previous = read_state(&state_path);
    notify(project, &outcomes, &logs, &previous, commit.as_deref());
    let state: BTreeMap<String, bool> = outcomes
        .iter()
        .map(|o| (o.report.book.clone(), o.report.ok))
        .collect();
    let mut merged = previous;
    merged.extend(state);
    if let Ok(json) = serde_json::to_vec_pretty(&merged)
        && let Err(e) = crate::files::write_atomic(&state_path, &json)
    {
        term::err_line(
            Kind::Info,
            &format!("warning: cannot keep this run's results: {e}"),
        );
    }
    code
}

/// The log file of one book: a header saying what was built and how it went, then the log.
fn book_log(dir: &Path, outcome: &Outcome, commit: Option<&str>) -> String {
    let r = &outcome.report;
    let result = match &r.failed_stage {
        None => "ok".to_string(),
        Some(step) => format!("FAILED at the {step} step"),
    };
    let mut log = format!(
        "seihon {} — book {} ({})\ncommit: {}\nresult: {result} in {:.1} s\n\n{}{}",
        env!("CARGO_PKG_VERSION"),
        r.book,
        dir.display(),
        commit.unwrap_or("unknown"),
        r.seconds,
        outcome.log,
        outcome.summary
    );
    if !log.ends_with('\n') {
        log.push('\n');
    }
    log
}

/// One line per book, for the end of the job's output.
fn summary(reports: &[report::BookReport]) -> String {
    let failed = reports.iter().filter(|r| !r.ok).count();
    let mut out: String = reports
        .iter()
        .map(|r| match &r.failed_stage {
            Some(step) => format!("✗ {}: failed at {step}\n", r.book),
            None => format!("✓ {}\n", r.book),
        })
        .collect();
    out.push_str(&format!(
        "{} of {} book{} built{}\n",
        reports.len() - failed,
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        if failed > 0 {
            format!("; {failed} failed")
        } else {
            String::new()
        }
    ));
    out
}

fn read_state(path: &Path) -> BTreeMap<String, bool> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Mails each book that the settings say to mail about. A mail that cannot be sent is a
/// warning; the build's result stands.
fn notify(
    project: &Project,
    outcomes: &[Outcome],
    logs: &[(PathBuf, String)],
    previous: &BTreeMap<String, bool>,
    commit: Option<&str>,
) {
    let Some(cfg) = &project.config.mail else {
        return;
    };
    let run = crate::mail::RunInfo {
        commit: commit.map(str::to_string),
        project: std::path::absolute(&project.root)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default(),
    };
    for (outcome, (path, log)) in outcomes.iter().zip(logs) {
        let r = &outcome.report;
        if !crate::mail::should_mail(cfg, previous.get(&r.book).copied(), r.ok) {
            continue;
        }
        let book = crate::mail::BookRun {
            book: r.book.clone(),
            ok: r.ok,
            failed_stage: r.failed_stage.clone(),
            findings_text: report::findings_text(&r.findings),
            log: log.clone(),
        };
        let sent = crate::mail::compose(cfg, &run, &book)
            .and_then(|message| crate::mail::send(cfg, &message));
        let line = match sent {
            Ok(sent) => format!("mailed the log of {} ({sent})", r.book),
            Err(e) => format!(
                "warning: the mail about {} was not sent: {e}; the log is in {}",
                r.book,
                path.display()
            ),
        };
        // A mail that was not sent is not the book's error: the log is kept either way.
        term::err_line(Kind::Info, &line);
    }
}
