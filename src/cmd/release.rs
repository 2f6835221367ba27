//! `seihon release BOOK --version V`: the EPUB for sale, with its SHA-256 beside it.
use crate::batch;
use crate::error::Exit;
use crate::pipeline::{self, BuildOptions};
use crate::project::Project;
use crate::term::{self, Kind};

pub fn run(
    project: &Project,
    book: &str,
    version: &str,
    profiles: &[crate::check::store::Profile],
) -> Exit {
    if version.is_empty()
        || version.starts_with(['.', '-'])
        || !version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    {
        return super::refuse(&format!(
            "error: `--version {version}` is not a version: use letters, digits, `.`, `-` and `_` (e.g. 1.0.2)"
        ));
    }
    let dir = match batch::book_dirs(project, &[book.to_string()]) {
        Ok(d) => match d.into_iter().next() {
            Some(dir) => dir,
            None => return super::refuse(&format!("error: there is no book `{book}`")),
        },
        Err(why) => return super::refuse(&why),
    };
    let opts = BuildOptions {
        hooks: true,
        pack: true,
        epubcheck: true,
        external_links: false,
        release: Some(version.to_string()),
        profiles: profiles.to_vec(),
        inputs: None,
    };
    let line = format!("releasing {} version {version}", dir.display());
    term::err_line(Kind::Info, &line);
    let building = term::progress::begin(&dir);
    let outcome = batch::run_book(project, &dir, &opts);
    drop(building);
    outcome.print_log();
    if outcome.exit.is_success()
        && let Some(epub) = &outcome.report.epub
    {
        let sums = pipeline::checksum_path(std::path::Path::new(epub));
        let sum = std::fs::read_to_string(&sums).unwrap_or_default();
        term::out_line(Kind::Data, &format!("released {epub}"));
        let sum = sum.split_whitespace().next().unwrap_or("");
        term::out_line(Kind::Data, &format!("sha256 {sum}"));
    }
    outcome.exit
}
