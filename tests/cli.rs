//! The command line as people meet it: finding the project from any folder inside it, what
//! is printed and how much, and the help agreeing with the README.
use crate::support;

use support::*;

/// The folders a build writes, which must only ever appear at the project root.
const OUTPUTS: [&str; 3] = ["build", "dist", "public"];

fn no_outputs_in(dir: &std::path::Path) {
    for out in OUTPUTS {
        assert!(
            !dir.join(out).exists(),
            "{out}/ was written in {}",
            dir.display()
        );
    }
}

#[test]
fn inside_a_book_folder_build_builds_that_book_with_outputs_at_the_project_root() {
    let project = TempProject::new();
    let neko = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    project.add_book(&repo().join("books/review-nyumon"), "rv");
    let out = project.seihon_in(&neko, &["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("[1/1] building books/neko"),
        "that book only: {all}"
    );
    assert!(project.epub("neko").is_file(), "{all}");
    assert!(
        !project.epub("review-nyumon").exists(),
        "not the other book: {all}"
    );
    no_outputs_in(&neko);
    // `.` there is that book too, not a project of its own.
    let out = project.seihon_in(&neko, &["build", "--force", "."]);
    assert!(out.status.success(), "{}", text(&out));
    no_outputs_in(&neko);
}

#[test]
fn from_a_nested_folder_the_project_and_its_book_are_found() {
    let project = TempProject::new();
    let neko = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    project.add_book(&repo().join("books/review-nyumon"), "rv");
    let images = neko.join("images");
    assert!(images.is_dir());
    let out = project.seihon_in(&images, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("[1/1] building books/neko"),
        "{}",
        text(&out)
    );
    no_outputs_in(&images);
    no_outputs_in(&neko);

    // From the books folder (no book of its own), every book; a path is taken from there.
    let books = project.path().join("books");
    let out = project.seihon_in(&books, &["build", "--force", "rv"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("building books/rv"), "{}", text(&out));
    let out = project.seihon_in(&books, &["list"]);
    assert!(out.status.success(), "{}", text(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("neko") && listed.contains("review-nyumon"),
        "{listed}"
    );
    no_outputs_in(&books);

    // A seihon.yml marks the root, even where books_dir is another folder.
    std::fs::write(project.path().join("seihon.yml"), "books_dir: books\n").unwrap();
    let out = project.seihon_in(&images, &["build", "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    no_outputs_in(&neko);
}

#[test]
fn a_folder_beside_books_stays_its_own_project() {
    // A project with a bare books/ (no seihon.yml) and a scratch folder beside it holding a
    // book given by path: the scratch folder is its own project, as it always was; the
    // books/ above claims only the folders inside it.
    let project = TempProject::new();
    project.add_book(&repo().join("books/neko-no-hon"), "neko");
    let scratch = project.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    copy_dir(&repo().join("books/neko-no-hon"), &scratch.join("alone"));
    let out = project.seihon_in(&scratch, &["build", "alone"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(scratch.join("dist/alone.epub").is_file(), "{all}");
    no_outputs_in(project.path());
    // With nothing named, it has no books of its own: it says so, and builds nothing above.
    let out = project.seihon_in(&scratch, &["build"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    no_outputs_in(project.path());
}

/// A project with two books: `warn` builds with a warning (a link to no id), `bad` fails (a
/// quotation nested past the bound no reader renders around).
fn warn_and_bad() -> TempProject {
    let project = TempProject::new();
    let warn = project.add_book(&repo().join("books/neko-no-hon"), "warn");
    append(&warn.join("ch01.md"), "\n[どこへも](#nowhere)\n");
    let bad = project.add_book(&repo().join("books/neko-no-hon"), "bad");
    append(
        &bad.join("ch01.md"),
        &format!("\n{}壊れた引用\n", "> ".repeat(101)),
    );
    project
}

fn append(file: &std::path::Path, text: &str) {
    let mut all = std::fs::read_to_string(file).unwrap();
    all.push_str(text);
    std::fs::write(file, all).unwrap();
}

#[test]
fn quiet_prints_errors_only_and_verbose_adds_each_step_with_its_time() {
    let project = warn_and_bad();
    let out = project.seihon(&["build", "--quiet"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stdout, "", "no result lines");
    assert!(stderr.contains(": error: "), "the error: {stderr}");
    assert!(stderr.contains("levels deep"), "{stderr}");
    assert!(stderr.contains("the book was not built"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    for chatter in ["[1/2]", "read ", "wrote ", "built "] {
        assert!(
            !stderr.lines().any(|l| l.starts_with(chatter)),
            "`{chatter}` under --quiet: {stderr}"
        );
    }
    // What the command is run for is still printed.
    let out = project.seihon(&["-q", "list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("warn\t"));

    let out = project.seihon(&["build", "--verbose", "--force", "warn"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for step in ["read", "convert", "checks", "stage", "pack", "preview"] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(&format!("timing: {step} ")) && l.contains(" ms")),
            "{step}'s time: {stderr}"
        );
    }
    assert!(stderr.contains("warning:"), "and all the rest: {stderr}");
    let out = project.seihon(&["build", "--quiet", "--verbose"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn output_that_is_not_a_terminal_has_no_control_sequences() {
    let project = warn_and_bad();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_seihon"))
        .arg("build")
        .current_dir(project.path())
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .env("SEIHON_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    let all = text(&out);
    assert!(all.contains("warning:") && all.contains("error:"), "{all}");
    assert!(!all.contains('\x1b') && !all.contains('\r'), "{all:?}");
}

/// Runs seihon in a pseudo-terminal (util-linux's `script`), as a person at a terminal would,
/// with `env` set; all it printed, as the terminal got it.
fn at_a_terminal(project: &TempProject, args: &str, env: &[(&str, &str)]) -> String {
    let script = std::process::Command::new("script")
        .arg("--version")
        .output();
    assert!(
        script.is_ok_and(|o| o.status.success()),
        "`script` (util-linux) is needed to run seihon in a terminal: apt-get install -y bsdutils"
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-q", "-e", "-c"])
        .arg(format!("'{}' {args}", env!("CARGO_BIN_EXE_seihon")))
        .arg("/dev/null")
        .current_dir(project.path())
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run script");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn at_a_terminal_severities_are_coloured_unless_no_color_is_set() {
    let project = warn_and_bad();
    let seen = at_a_terminal(&project, "build", &[]);
    assert!(seen.contains("\x1b[1;33mwarning\x1b[0m: "), "{seen:?}");
    assert!(seen.contains("\x1b[1;31merror\x1b[0m: "), "{seen:?}");
    assert!(
        seen.contains("\x1b[1mbooks/warn/ch01.md:"),
        "the place: {seen:?}"
    );
    let seen = at_a_terminal(&project, "build --force", &[("NO_COLOR", "1")]);
    assert!(
        seen.contains("warning: ") && seen.contains("error: "),
        "{seen}"
    );
    assert!(!seen.contains('\x1b'), "{seen:?}");
}

#[test]
fn at_a_terminal_long_work_shows_its_progress_and_ci_logs_get_plain_lines() {
    let project = TempProject::new();
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    // A step that takes a while, whatever the machine: the line is shown after
    // SEIHON_PROGRESS_AFTER_MS (a second by default).
    write_exec(&book.join("hooks/pre-pack"), "#!/bin/sh\nsleep 1\n");
    let now = [("SEIHON_PROGRESS_AFTER_MS", "0")];
    let seen = at_a_terminal(&project, "build", &now);
    assert!(
        seen.contains("\r\x1b[2Kneko: pre-pack hook · "),
        "the book and its step: {seen:?}"
    );
    assert!(seen.contains("neko → dist/neko.epub"), "{seen:?}");
    // Under NO_COLOR, no control sequence: the line is overwritten with spaces.
    let seen = at_a_terminal(&project, "build --force", &[now[0], ("NO_COLOR", "1")]);
    assert!(seen.contains("\rneko: pre-pack hook · "), "{seen:?}");
    assert!(!seen.contains('\x1b'), "{seen:?}");
    // In CI (and under --quiet) no line is drawn.
    for (args, env) in [
        ("build --force", ("CI", "true")),
        ("build -q --force", now[0]),
    ] {
        let seen = at_a_terminal(&project, args, &[now[0], env]);
        assert!(
            !seen.contains("pre-pack hook ·"),
            "{args} {env:?}: {seen:?}"
        );
        assert!(!seen.contains("\x1b[2K"), "{args} {env:?}: {seen:?}");
    }
}

/// `seihon <command> --help`, as printed.
fn help(command: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_seihon"))
        .args(command)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{command:?} --help: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A help section (`Options:`, `Arguments:`, `Commands:`): each entry's name and whether it
/// is explained, on its line or the lines under it.
fn entries(help: &str, section: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            inside = line == section;
            continue;
        }
        let trimmed = line.trim_start();
        if !inside || trimmed.is_empty() {
            continue;
        }
        let indent = line.len() - trimmed.len();
        // An entry starts at the section's indent (2, or 6 for a long flag without a short);
        // what it says runs on below, further in.
        let starts = if section == "Options:" {
            indent <= 6 && trimmed.starts_with("-") && !trimmed.starts_with("- ")
        } else {
            indent == 2
        };
        if starts {
            // `-q, --quiet`: the long name.
            let long = match trimmed.split_once(", ") {
                Some((short, long)) if !short.starts_with("--") && short.starts_with('-') => long,
                _ => trimmed,
            };
            let name = long.split_whitespace().next().unwrap().to_string();
            let said = trimmed.contains("  ");
            out.push((name, said));
        } else if let Some(last) = out.last_mut() {
            last.1 = true;
        }
    }
    out
}

/// The README's "Every flag, command by command": each item's commands and the flags it names.
fn readme_flags() -> Vec<(Vec<String>, std::collections::BTreeSet<String>)> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme
        .find("**Every flag, command by command**")
        .expect("the README lists every flag");
    let list = &readme[start..];
    let list = &list[..list.find("\n\n").unwrap()];
    let mut items: Vec<String> = Vec::new();
    for line in list.lines().skip(2) {
        match line.strip_prefix("- ") {
            Some(item) => items.push(item.to_string()),
            None => items.last_mut().unwrap().push_str(line),
        }
    }
    items
        .iter()
        .map(|item| {
            let (head, rest) = item.split_once(": ").unwrap();
            let commands = head
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|c| c.split_whitespace().next().unwrap().to_string())
                .collect::<Vec<_>>();
            let commands = if head == "every command" {
                vec!["*".to_string()]
            } else {
                commands
            };
            let flags = rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .filter(|w| w.starts_with("--") && w.len() > 2)
                .map(str::to_string)
                .collect();
            (commands, flags)
        })
        .collect()
}

#[test]
fn the_help_explains_every_flag_and_argument_and_agrees_with_the_readme() {
    let readme = readme_flags();
    let listed = |command: &str| {
        readme
            .iter()
            .find(|(c, _)| c.iter().any(|c| c == command))
            .unwrap_or_else(|| panic!("the README's flag list has no `{command}`"))
            .1
            .clone()
    };
    let global: std::collections::BTreeSet<String> =
        ["--quiet", "--verbose", "--help"].map(String::from).into();
    assert!(listed("*").is_superset(&global), "{:?}", listed("*"));

    let top = help(&[]);
    let commands: Vec<String> = entries(&top, "Commands:")
        .into_iter()
        .map(|(name, said)| {
            assert!(said, "`{name}` has no help text");
            name
        })
        .filter(|name| name != "help")
        .collect();
    assert_eq!(
        commands,
        ["build", "check", "ci", "release", "watch", "list", "new"]
    );
    for command in &commands {
        let help = help(&[command.as_str()]);
        let mut flags = std::collections::BTreeSet::new();
        for (name, said) in entries(&help, "Options:") {
            assert!(said, "`{command} {name}` has no help text:\n{help}");
            flags.insert(name);
        }
        for (name, said) in entries(&help, "Arguments:") {
            assert!(said, "`{command} {name}` has no help text:\n{help}");
        }
        assert!(flags.is_superset(&global), "{command}: {flags:?}");
        let own: std::collections::BTreeSet<String> = flags.difference(&global).cloned().collect();
        assert_eq!(
            own,
            listed(command),
            "`seihon {command} --help` and the README's flag list differ"
        );
    }
}
