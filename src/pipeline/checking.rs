//! Check: the assembled package → findings. The built-in checks read the pages with their
//! source positions before anything is staged (a book that fails them leaves the previous
//! build as it was); the house's and the book's check programs read the staged tree; epubcheck
//! reads the packed EPUB.
use std::path::Path;

use crate::book::Book;
use crate::check::programs::CheckProgram;
use crate::check::{self, CheckSettings, Level};
use crate::codes;
use crate::error::{Error, Finding, Location, Result, Severity};
use crate::project::{Kept, Project};

use super::BuildOptions;
use super::assemble::Package;
use super::load::Loaded;

/// The checks a book runs, at the levels its project and book set.
pub(super) struct Checks {
    pub settings: CheckSettings,
    programs: Vec<CheckProgram>,
}

impl Checks {
    /// The book's checks: the built-in ones and the check programs found, at the levels the
    /// project's and the book's `checks:` set (by check, program or finding code).
    pub fn new(project: &Project, book: &Book, opts: &BuildOptions) -> Result<Checks> {
        let programs = check::programs::discover(&project.root, &book.root);
        let mut settings = settings(project, book, &programs)?;
        if opts.external_links {
            settings.external_links = Some(crate::linkcheck::LinkCheckOptions {
                // One cache for the project: books often link to the same pages.
                cache_path: Some(project.cache_file("external-links.json")),
                ..Default::default()
            });
        }
        Ok(Checks { settings, programs })
    }

    /// Whether there are check programs (which read the staged tree, so images there must be
    /// copies, not links into the manuscript).
    pub fn has_programs(&self) -> bool {
        !self.programs.is_empty()
    }
}

/// Runs the built-in checks (and, on request, the external link check) over the package.
pub(super) fn built_in(
    project: &Project,
    book: &Book,
    pkg: &Package,
    checks: &Checks,
) -> Vec<Finding> {
    let kept_marks = |path: &str| pkg.kept_sources_of(path);
    check::run_checks(
        &check::EpubFiles {
            files: &pkg.check_view(),
            sources: pkg.sources_here(),
            kept_marks: Some(&kept_marks),
            cache: Some(&project.kept_dir(Kept::Checks, &book.id)),
            known: Some(pkg.tree.identities()),
        },
        &checks.settings,
    )
}

/// Runs the check programs over the staged `tree`, their findings mapped back to the source
/// lines of the pages they name. What they print goes to the log.
pub(super) fn programs(
    loaded: &Loaded,
    checks: &Checks,
    tree: &Path,
    sources: &check::Sources,
    log: &mut Vec<String>,
) -> Vec<Finding> {
    let map = check::SourceMap::new(sources);
    let mut found = Vec::new();
    for program in &checks.programs {
        let level = checks.settings.program_level(&program.name);
        if level == Level::Off {
            continue;
        }
        let ran = check::programs::run(
            program,
            tree,
            crate::hooks::environment(&loaded.book, tree, &loaded.output),
            loaded.program_limit,
            level,
            &map,
        );
        log.push(ran.log);
        found.extend(ran.findings);
    }
    found
}

/// The store profiles asked for, on the staged `tree` (what will be packed, hooks' edits
/// included), their findings at the manuscript lines of the pages they name.
pub(super) fn store_profiles(
    opts: &BuildOptions,
    tree: &Path,
    sources: &check::Sources,
) -> Result<Vec<Finding>> {
    let files = check::store::read_dir(tree)
        .map_err(|e| Error::io(tree, "cannot read the staged EPUB", e))?;
    let map = check::SourceMap::new(sources);
    let mut found = check::store::lint(&files, &opts.profiles, Some(&map));
    // Findings not mapped to a manuscript name a file inside the EPUB, not one of the book.
    for f in &mut found {
        if files.contains_key(&*f.location.file.to_string_lossy()) {
            let note = "a file inside the EPUB";
            f.hint = Some(match f.hint.take() {
                Some(h) => format!("{note}; {h}"),
                None => note.to_string(),
            });
        }
    }
    Ok(found)
}

/// epubcheck on a packed EPUB, its findings at their source lines.
pub(super) struct EpubcheckRun<'a> {
    settings: &'a CheckSettings,
    book: &'a Book,
    sources: &'a check::Sources,
    /// The EPUB's final path, named by findings that have no place of their own.
    output: &'a Path,
}

impl<'a> EpubcheckRun<'a> {
    pub fn new(checks: &'a Checks, loaded: &'a Loaded, sources: &'a check::Sources) -> Self {
        EpubcheckRun {
            settings: &checks.settings,
            book: &loaded.book,
            sources,
            output: &loaded.output,
        }
    }

    pub fn run(&self, packed: &Path) -> Result<Vec<Finding>> {
        let level = self.settings.level(check::CheckId::Epubcheck);
        if level == Level::Off {
            return Ok(Vec::new());
        }
        let checker = crate::epubcheck::Epubcheck::locate().map_err(|why| {
            Error::Config(
                Finding::error(
                    codes::MISSING_TOOL,
                    Location::file(&self.book.config_path),
                    format!("epubcheck was asked for, but {why}"),
                )
                .with_hint(crate::epubcheck::INSTALL_HINT),
            )
        })?;
        let messages = checker
            .run(packed, std::time::Duration::from_secs(EPUBCHECK_TIME_LIMIT))
            .map_err(|why| {
                Error::Book(vec![
                    Finding::error(
                        codes::MISSING_TOOL,
                        Location::file(self.output),
                        format!("epubcheck could not check the EPUB: {why}"),
                    )
                    .with_hint(crate::epubcheck::INSTALL_HINT),
                ])
            })?;
        let mut found = crate::epubcheck::findings(&messages, self.sources, self.output);
        if level == Level::Warning {
            for f in &mut found {
                f.severity = Severity::Warning;
            }
        }
        Ok(found)
    }
}

/// How long epubcheck may take on one book (seconds); large books take about a minute.
const EPUBCHECK_TIME_LIMIT: u64 = 900;

/// Check levels: the project's, then the book's own.
fn settings(project: &Project, book: &Book, programs: &[CheckProgram]) -> Result<CheckSettings> {
    let mut settings = CheckSettings {
        programs: programs.iter().map(|p| p.name.clone()).collect(),
        ..Default::default()
    };
    for (name, level) in project.config.checks.iter().chain(&book.checks) {
        settings.set(name, *level).map_err(|why| {
            Error::Config(
                Finding::error(codes::UNKNOWN_KEY, Location::file(&book.config_path), why)
                    .with_hint("see the README for the check names"),
            )
        })?;
    }
    Ok(settings)
}
