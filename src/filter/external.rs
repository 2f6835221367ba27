//! External filters: a program `filters/<name>` or `filters/<name>.<ext>`, in any language.
//!
//! The program gets the chapter's whole XHTML document on standard input and must print the new
//! XHTML document on standard output. Its environment names the book and chapter:
//!
//! | variable | value |
//! | --- | --- |
//! | `SEIHON_BOOK` | the book's id |
//! | `SEIHON_CHAPTER` | the chapter's file in the EPUB, e.g. `xhtml/ch01.xhtml` |
//! | `SEIHON_LANGUAGE` | the book's language, e.g. `ja` |
//! | `SEIHON_BOOK_ROOT` | the book's folder (also the program's working folder) |
//! | `SEIHON_FILTER` | the filter's name |
//!
//! The page it gets is the page as it will ship (seihon keeps source positions beside the
//! tree, not in it); the elements it prints take back the positions of those they came from
//! (see [`super::positions`]).
//!
//! It runs through [`crate::runner::run`], with a time limit ([`TIME_LIMIT`]) and an output
//! limit ([`OUTPUT_LIMIT`]). A program that fails, runs too long, prints too much, or prints
//! something that is not a well-formed XHTML document fails the chapter with a [`FilterError`]
//! naming the filter, the chapter and the reason.
//!
//! A script need not be executable: `.rb`, `.py`, `.sh`, `.pl`, `.js` and `.php` files run
//! through their interpreter, others through their `#!` line (see [`crate::runner::command_for`]).
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::dom::{Document, parse_document, serialize_document};
use crate::runner::{self, RunSpec};

use super::positions::Positions;
use super::{Filter, FilterContext, FilterError};

/// How long one run of an external filter on one chapter may take.
pub const TIME_LIMIT: Duration = Duration::from_secs(30);

/// How much an external filter may print, on standard output and on standard error each.
pub const OUTPUT_LIMIT: usize = 64 << 20;

/// Extensions that are never filter programs (documentation, rule files).
const NOT_PROGRAMS: &[&str] = &["yml", "yaml", "md", "txt", "json", "bak", "orig"];

/// An external filter program.
#[derive(Debug, Clone)]
pub struct ExternalFilter {
    pub name: String,
    pub program: PathBuf,
    pub timeout: Duration,
}

impl ExternalFilter {
    pub fn new(name: impl Into<String>, program: impl Into<PathBuf>) -> Self {
        ExternalFilter {
            name: name.into(),
            program: program.into(),
            timeout: TIME_LIMIT,
        }
    }
}

/// The program for filter `name` in `dir`: `dir/<name>` itself, or `dir/<name>.<ext>` where the
/// extension is a known script type or the file is executable. `Err` lists the candidates when
/// more than one file fits.
pub fn find_program(dir: &Path, name: &str) -> Result<Option<PathBuf>, Vec<PathBuf>> {
    let exact = dir.join(name);
    if exact.is_file() {
        return Ok(Some(exact));
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let prefix = format!("{name}.");
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let Some(file) = p.file_name().and_then(|f| f.to_str()) else {
                return false;
            };
            let Some(ext) = file.strip_prefix(&prefix) else {
                return false;
            };
            !ext.is_empty()
                && !ext.contains('.')
                && !NOT_PROGRAMS.contains(&ext.to_ascii_lowercase().as_str())
                && p.is_file()
                && (runner::interpreter_for_extension(ext).is_some() || runner::is_executable(p))
        })
        .collect();
    found.sort();
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => Err(found),
    }
}

impl Filter for ExternalFilter {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, doc: &mut Document, ctx: &FilterContext) -> Result<(), FilterError> {
        let fail = |message: String| FilterError {
            filter: self.name.clone(),
            chapter: ctx.chapter.clone(),
            message,
        };
        let mut new = self.run(doc, ctx).map_err(fail)?;
        Positions::of(doc).restore(&mut new);
        *doc = new;
        Ok(())
    }
}

impl ExternalFilter {
    /// Runs the program on `doc`; gives the document it printed, or why it failed.
    fn run(&self, doc: &Document, ctx: &FilterContext) -> Result<Document, String> {
        // The program runs in the book's folder: name it by an absolute path.
        let program = std::path::absolute(&self.program).unwrap_or_else(|_| self.program.clone());
        let book_root =
            std::path::absolute(&ctx.book_root).unwrap_or_else(|_| ctx.book_root.clone());
        let spec = RunSpec {
            program,
            args: Vec::new(),
            env: vec![
                ("SEIHON_BOOK".into(), ctx.book_id.clone()),
                ("SEIHON_CHAPTER".into(), ctx.chapter.clone()),
                ("SEIHON_LANGUAGE".into(), ctx.language.clone()),
                ("SEIHON_BOOK_ROOT".into(), book_root.display().to_string()),
                ("SEIHON_FILTER".into(), self.name.clone()),
            ],
            cwd: ctx.book_root.is_dir().then(|| ctx.book_root.clone()),
            stdin: Some(serialize_document(doc).into_bytes()),
            timeout: self.timeout,
            max_output: OUTPUT_LIMIT,
        };
        let out = runner::run(&spec).map_err(|e| e.to_string())?;
        let text = String::from_utf8(out.stdout).map_err(|e| {
            format!(
                "its output is not UTF-8 text (at byte {})",
                e.utf8_error().valid_up_to()
            )
        })?;
        if text.trim().is_empty() {
            return Err("it printed nothing; a filter must print the whole XHTML document".into());
        }
        parse_document(&text).map_err(|e| format!("its output is not well-formed XHTML: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Chain;
    use crate::filter::tests::{body, ctx, doc, write};
    use std::time::Instant;

    fn chain(program_file: &str, text: &str, executable: bool) -> (tempfile::TempDir, Chain) {
        let root = tempfile::tempdir().unwrap();
        let book = root.path().join("books/b");
        write(
            &root.path().join("filters").join(program_file),
            text,
            executable,
        );
        let name = program_file.split('.').next().unwrap().to_string();
        let chain = Chain::resolve(&[name], root.path(), &book).unwrap();
        (root, chain)
    }

    const UPPER_H1_PY: &str = r#"import os, re, sys
text = sys.stdin.read()
text = re.sub(r"<h1>(.*?)</h1>", lambda m: "<h1>" + m.group(1).upper() + "</h1>", text)
text = text.replace("</body>", "<p>" + os.environ["SEIHON_BOOK"] + " " + os.environ["SEIHON_CHAPTER"] + " " + os.environ["SEIHON_LANGUAGE"] + "</p></body>")
sys.stdout.write(text)
"#;

    #[test]
    fn python_filter_upper_cases_headings_and_sees_the_environment() {
        // Not executable: run through its extension.
        let (_root, chain) = chain("upper-h1.py", UPPER_H1_PY, false);
        assert_eq!(chain.names(), ["upper-h1"]);
        let mut d = doc("<h1>Hello, world</h1><p>text</p>");
        chain.apply(&mut d, &ctx("ja")).unwrap();
        assert_eq!(
            body(&d),
            "<h1>HELLO, WORLD</h1><p>text</p><p>sample xhtml/ch01.xhtml ja</p>"
        );
    }

    #[test]
    fn ruby_filter_when_installed() {
        // Ruby is not installed everywhere these tests run; the Ruby case runs only where it is.
        let have_ruby = std::process::Command::new("sh")
            .args(["-c", "command -v ruby"])
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !have_ruby {
            return;
        }
        let (_root, chain) = chain(
            "up.rb",
            "print STDIN.read.gsub(%r{<h1>(.*?)</h1>}) { \"<h1>#{$1.upcase}</h1>\" }\n",
            false,
        );
        let mut d = doc("<h1>ruby</h1>");
        chain.apply(&mut d, &ctx("ja")).unwrap();
        assert_eq!(body(&d), "<h1>RUBY</h1>");
    }

    #[test]
    fn failing_filter_names_filter_chapter_and_reason() {
        let (_root, chain) = chain(
            "broken.sh",
            "#!/bin/sh\necho 'cannot parse chapter' >&2\nexit 2\n",
            true,
        );
        let mut d = doc("<p>x</p>");
        let before = d.clone();
        let err = chain.apply(&mut d, &ctx("ja")).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("filter `broken` failed on xhtml/ch01.xhtml: the program "),
            "{msg}"
        );
        assert!(msg.contains("failed (exit code 2)"), "{msg}");
        assert!(msg.contains("cannot parse chapter"), "{msg}");
        assert_eq!(d, before, "a failed filter leaves the document as it was");
    }

    #[test]
    fn hanging_filter_is_stopped() {
        let (_root, chain) = chain("slow.sh", "#!/bin/sh\nsleep 30\n", true);
        let chain = chain.with_timeout(Duration::from_secs(1));
        let t = Instant::now();
        let err = chain.apply(&mut doc("<p>x</p>"), &ctx("ja")).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(10));
        let msg = err.to_string();
        assert!(
            msg.starts_with("filter `slow` failed on xhtml/ch01.xhtml: the program "),
            "{msg}"
        );
        assert!(
            msg.contains("did not finish within 1 s and was stopped"),
            "{msg}"
        );
    }

    #[test]
    fn malformed_output_names_line_and_column() {
        let (_root, chain) = chain(
            "bad.py",
            "import sys\nsys.stdin.read()\nprint('<p>unclosed')\n",
            false,
        );
        let err = chain.apply(&mut doc("<p>x</p>"), &ctx("ja")).unwrap_err();
        assert_eq!(err.filter, "bad");
        assert_eq!(err.chapter, "xhtml/ch01.xhtml");
        let msg = err.to_string();
        assert!(
            msg.starts_with(
                "filter `bad` failed on xhtml/ch01.xhtml: its output is not well-formed XHTML: line "
            ),
            "{msg}"
        );
        assert!(msg.contains("column"), "{msg}");
    }

    #[test]
    fn empty_output_is_an_error() {
        let (_root, chain) = chain("quiet.sh", "#!/bin/sh\ncat >/dev/null\n", true);
        let err = chain.apply(&mut doc("<p>x</p>"), &ctx("ja")).unwrap_err();
        assert!(err.message.contains("printed nothing"), "{err}");
    }

    #[test]
    fn find_program_ignores_documents_and_takes_executables() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("x.md"), "doc", false);
        write(&dir.path().join("x.yml.bak"), "old", false);
        assert_eq!(find_program(dir.path(), "x"), Ok(None));
        write(&dir.path().join("x.exe"), "#!/bin/sh\n", true);
        assert_eq!(
            find_program(dir.path(), "x"),
            Ok(Some(dir.path().join("x.exe")))
        );
        write(&dir.path().join("x"), "#!/bin/sh\n", true);
        assert_eq!(
            find_program(dir.path(), "x"),
            Ok(Some(dir.path().join("x")))
        );
    }

    #[test]
    fn fixture_filter_from_the_project_folder() {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/filters/upper-h1.py");
        let root = tempfile::tempdir().unwrap();
        let filters = root.path().join("filters");
        std::fs::create_dir_all(&filters).unwrap();
        std::fs::copy(&fixture, filters.join("upper-h1.py")).unwrap();
        let chain = Chain::resolve(
            &["house".to_string(), "upper-h1".to_string()],
            root.path(),
            &root.path().join("books/b"),
        )
        .unwrap();
        let mut d = doc("<h1>Scaling MongoDB</h1><table><tr><td>1</td></tr></table>");
        chain.apply(&mut d, &ctx("ja")).unwrap();
        assert_eq!(
            body(&d),
            r#"<h1>SCALING MONGODB</h1><div class="table"><table><tr><td>1</td></tr></table></div>"#
        );
    }

    #[test]
    fn chains_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Chain>();
    }
}
