//! `seihon build` and `seihon check`: the named books (or every book), one after another, each
//! through the shared runner; the reports asked for at the end.
use super::BookRun;
use crate::batch;
use crate::error::Exit;
use crate::pipeline::BuildOptions;
use crate::project::Project;
use crate::term::{self, Kind};

/// What `build` and `check` are asked to do.
pub struct Request<'a> {
    pub books: &'a [String],
    /// `--report KIND:PATH`, as written.
    pub reports: &'a [String],
    pub force: bool,
}

pub fn run(project: &Project, req: &Request, opts: &BuildOptions) -> Exit {
    let targets = match batch::report_targets(req.reports) {
        Ok(t) => t,
        Err(why) => return super::refuse(&why),
    };
    let dirs = match batch::book_dirs(project, req.books) {
        Ok(d) => d,
        Err(why) => return super::refuse(&why),
    };
    let commit = if opts.pack {
        super::Commit::ask(&project.root)
    } else {
        super::Commit::known(None)
    };
    let runner = BookRun {
        project,
        opts,
        commit: &commit,
        force: req.force,
        publish: true,
    };
    let mut exit = Exit::Success;
    let mut book_reports = Vec::new();
    crate::term::progress::books(dirs.len());
    for (i, dir) in dirs.iter().enumerate() {
        let doing = if opts.pack { "building" } else { "checking" };
        let line = format!("[{}/{}] {doing} {}", i + 1, dirs.len(), dir.display());
        let outcome = runner.run(dir, || term::err_line(Kind::Info, &line));
        outcome.print();
        exit = exit.max(outcome.exit);
        book_reports.push(outcome.report);
    }
    exit.max(batch::write_reports(&targets, &book_reports))
}
