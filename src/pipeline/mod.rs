//! The pipeline: one book from its folder to `dist/<id>.epub`, stage by stage.
//!
//! load → pre-build hook → read → resolve → write and filter (chapters in parallel) →
//! assemble the package → built-in checks → stage → post-convert and pre-pack hooks → check
//! programs → pack (post-pack hook, epubcheck); a book without hooks or check programs is
//! checked beside staging and packing, and its EPUB replaced only once the checks pass. Each
//! stage is a module of its own with one entry point; [`run`] only passes one stage's output
//! to the next and gathers the findings, each of which [`gate`] lets through or stops the
//! build on.
mod assemble;
mod chapters;
mod checking;
mod claims;
mod fonts;
mod load;
mod pack;
mod page;
mod read;
mod staging;

use std::path::{Path, PathBuf};

use crate::book::{Book, Role};
use crate::error::{Error, Finding, Result, Severity};
use crate::hooks;
use crate::project::Project;

pub use assemble::{OPF, PACKAGE_DIR};
pub use pack::checksum_path;
pub use read::read_docbook_metadata;

/// What a successful build produced.
#[derive(Debug)]
pub struct Built {
    pub id: String,
    pub epub: PathBuf,
    pub chapters: usize,
    pub warnings: Vec<Finding>,
    /// What the book's hooks printed, for the build log.
    pub log: Vec<String>,
    /// Whether the EPUB was written (not for `seihon check`).
    pub packed: bool,
    /// What the build learnt that the preview would otherwise look up again.
    pub known: Known,
}

/// What a build learnt that the preview would otherwise look up again.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// The book's title and language, when the build loaded the book (else the preview opens
    /// it again to learn them).
    pub heading: Option<BookHeading>,
    /// The stamps of staged files known without a look (see [`crate::stage::Staged::stamps`]).
    pub stamps: std::collections::HashMap<String, crate::cache::FileStamp>,
}

/// What the preview's index is headed with: the book's title, in its language.
#[derive(Debug, Clone)]
pub struct BookHeading {
    pub title: String,
    pub language: String,
}

/// The build's fixed time (`dcterms:modified`, the EPUB's entry times): `SOURCE_DATE_EPOCH`
/// when set, else the time of the last commit of the book's folder (when it is in a git
/// repository), else the book's date, else 2000-01-01. Never the clock or a file's mtime: the
/// same sources give the same bytes.
fn build_time(book: &Book, commit: CommitTime) -> i64 {
    if let Some(t) = source_date_epoch() {
        return t;
    }
    if let Some(t) = commit.time() {
        return t;
    }
    book.meta
        .date
        .as_deref()
        .and_then(crate::book::Date::parse)
        .map_or(946_684_800, |d| d.unix_seconds())
}

fn source_date_epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
}

/// The time of the last commit under the book's folder, asked of git as the build starts, on
/// a thread of its own: `git log` takes milliseconds (more in a long history), which reading
/// and resolving the book hide.
enum CommitTime {
    /// `SOURCE_DATE_EPOCH` decides: git is not asked.
    NotNeeded,
    Asked(std::thread::JoinHandle<Option<i64>>),
    /// No thread could be started: git is asked when the time is needed.
    Later(PathBuf),
}

impl CommitTime {
    fn ask(dir: &Path) -> CommitTime {
        if source_date_epoch().is_some() {
            return CommitTime::NotNeeded;
        }
        let owned = dir.to_path_buf();
        match std::thread::Builder::new()
            .name("git log".into())
            .spawn(move || commit_time(&owned))
        {
            Ok(asked) => CommitTime::Asked(asked),
            Err(_) => CommitTime::Later(dir.to_path_buf()),
        }
    }

    fn time(self) -> Option<i64> {
        match self {
            CommitTime::NotNeeded => None,
            CommitTime::Asked(asked) => asked.join().ok().flatten(),
            CommitTime::Later(dir) => commit_time(&dir),
        }
    }
}

/// The committer time of the last commit that changed something under `dir`: `None` outside
/// a git repository, without git, or when nothing under `dir` was ever committed.
fn commit_time(dir: &Path) -> Option<i64> {
    let out = std::process::Command::new("git")
        .args(["log", "-1", "--format=%ct", "--", "."])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// Builds one book folder into its EPUB.
pub fn build(project: &Project, book_dir: &Path) -> std::result::Result<Built, Failure> {
    build_with(project, book_dir, &BuildOptions::default())
}

/// The step of a build, for reports and mail: which one failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Reading book.yml (or config.yml, the DocBook main file) and the project settings.
    Load,
    /// One of the book's hooks.
    Hook(hooks::Stage),
    /// Reading the manuscripts and resolving references.
    Read,
    /// Writing XHTML, running the filters, making the generated pages.
    Convert,
    /// The built-in checks (and external links on request).
    Check,
    /// Writing the EPUB's tree under build/.
    Stage,
    /// The house's and the book's check programs.
    CheckPrograms,
    /// The store profiles asked for (`--profile`), on the staged tree.
    StoreProfiles,
    /// Packing the EPUB.
    Pack,
    /// epubcheck, on request.
    Epubcheck,
}

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::Load => "load",
            Step::Hook(hooks::Stage::PreBuild) => "pre-build hook",
            Step::Hook(hooks::Stage::PostConvert) => "post-convert hook",
            Step::Hook(hooks::Stage::PrePack) => "pre-pack hook",
            Step::Hook(hooks::Stage::PostPack) => "post-pack hook",
            Step::Read => "read",
            Step::Convert => "convert",
            Step::Check => "checks",
            Step::Stage => "stage",
            Step::CheckPrograms => "check programs",
            Step::StoreProfiles => "store profiles",
            Step::Pack => "pack",
            Step::Epubcheck => "epubcheck",
        }
    }
}

/// A build that failed: at which step, and why.
#[derive(Debug)]
pub struct Failure {
    pub step: Step,
    /// Boxed: a failure is rare, and a build's result should stay small.
    pub error: Box<Error>,
    /// What the book's programs printed before it failed, for the build log.
    pub log: Vec<String>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

/// How a build runs (command-line flags).
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Run the book's hooks (`--no-hooks` turns them off).
    pub hooks: bool,
    /// Stage and pack the EPUB; `seihon check` runs everything else.
    pub pack: bool,
    /// Run epubcheck on the packed EPUB (`--epubcheck`); its errors fail the book.
    pub epubcheck: bool,
    /// Check that every web address answers (`--external-links`).
    pub external_links: bool,
    /// A release of this version (`seihon release`): the version stamped into the colophon
    /// and the package, warnings are errors, epubcheck runs, and the EPUB goes to
    /// `dist/release/<id>-<version>.epub` with a SHA-256 file beside it.
    pub release: Option<String>,
    /// The stores whose documented rules the EPUB is linted for (`--profile`); under `ebpaj`
    /// the package also declares the guide's version.
    pub profiles: Vec<crate::check::store::Profile>,
    /// The files of the book as the up-to-date check found them just before this build (see
    /// [`crate::fresh::probe`]): what resolving depends on is known from them without looking
    /// at every file again.
    pub inputs: Option<std::sync::Arc<crate::cache::ListedInputs>>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            hooks: true,
            pack: true,
            epubcheck: false,
            external_links: false,
            release: None,
            profiles: Vec::new(),
            inputs: None,
        }
    }
}

/// Builds one book folder into its EPUB, with options.
pub fn build_with(
    project: &Project,
    book_dir: &Path,
    opts: &BuildOptions,
) -> std::result::Result<Built, Failure> {
    let mut r = Run {
        project,
        opts,
        memory: crate::memory::Build::begin(),
        kept: crate::cache::Deferred::default(),
        at: Progress::new(),
        log: Vec::new(),
        findings: Vec::new(),
        levels: None,
    };
    let result = run(&mut r, book_dir);
    r.kept.finish();
    r.at.finish();
    let log = r.log.into_iter().filter(|l| !l.trim().is_empty()).collect();
    match result {
        Ok(built) => Ok(Built { log, ..built }),
        Err(error) => Err(Failure {
            step: r.at.step,
            error: Box::new(error),
            log,
        }),
    }
}

/// The step a build is at, and, with `SEIHON_TIMINGS=1`, how long each took (on stderr): the
/// figures the benchmark script reads.
struct Progress {
    step: Step,
    since: std::time::Instant,
    report: bool,
}

impl Progress {
    fn new() -> Self {
        Progress {
            step: Step::Load,
            since: std::time::Instant::now(),
            report: timings_on(),
        }
    }

    fn enter(&mut self, step: Step) {
        self.finish();
        self.step = step;
        // A hook is shown only where the book has one (see `Run::hook`).
        if !matches!(step, Step::Hook(_)) {
            crate::term::progress::step(step.name());
        }
    }

    fn finish(&mut self) {
        let now = std::time::Instant::now();
        if self.report {
            report_timing(self.step.name(), now.duration_since(self.since));
        }
        self.since = now;
    }
}

/// Whether each step's time is asked for: `--verbose`, or `SEIHON_TIMINGS=1` (the bench).
pub fn timings_on() -> bool {
    crate::term::verbosity() == crate::term::Verbosity::Verbose
        || std::env::var_os("SEIHON_TIMINGS").is_some_and(|v| v == "1")
}

/// One step's time (and the peak memory so far) on stderr, in the form the benchmark reads.
pub fn report_timing(step: &str, took: std::time::Duration) {
    let ms = took.as_secs_f64() * 1000.0;
    let line = format!(
        "timing: {step:<18} {ms:8.1} ms{}",
        peak_memory().map_or(String::new(), |(peak, now)| format!(
            "  (peak {peak} MiB so far, {now} MiB now)"
        ))
    );
    // Asked for: printed even under `--quiet` (the bench sets SEIHON_TIMINGS alone).
    crate::term::err_line(crate::term::Kind::Data, &line);
}

/// The process's peak resident memory so far and its resident memory now, in MiB (Linux), for
/// `SEIHON_TIMINGS`: what a step left held shows beside the peak it reached.
fn peak_memory() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mib = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024)
    };
    Some((mib("VmHWM:")?, mib("VmRSS:")?))
}

/// The build. Each line is a stage taking the output of the one before; the stage modules say
/// what each does.
fn run(r: &mut Run, book_dir: &Path) -> Result<Built> {
    let (project, opts) = (r.project, r.opts);
    let mut loaded = load::load(project, book_dir, opts)?;
    r.hook(&loaded, hooks::Stage::PreBuild, &loaded.stage_dir)?;
    let commit_time = CommitTime::ask(&loaded.book.root);
    r.enter(Step::Load);
    let chain = load::filter_chain(project, &loaded.book)?;
    let checks = checking::Checks::new(project, &loaded.book, opts)?;
    r.levels = Some(checks.settings.clone());
    r.add(std::mem::take(&mut loaded.warnings));
    r.enter(Step::Read);
    let logged = r.log.len();
    let mut resolved = r.read_and_resolve(&mut loaded.book, read::Memo::Use)?;
    // Resolving rewrote the documents on the workers: what it freed goes back before the
    // pages are written.
    r.memory.give_back_everywhere();
    r.enter(Step::Convert);
    let time = build_time(&loaded.book, commit_time);
    let mut templates = chapters::Templates::load(project, &loaded.book, &resolved, time, opts)?;
    if resolved.has_unloaded()
        && !chapters::unloaded_pages_kept(project, &loaded.book, &chain, &templates, &resolved)
    {
        // The memo counts on pages the page cache no longer holds: the whole book again.
        r.log.truncate(logged);
        resolved = r.read_and_resolve(&mut loaded.book, read::Memo::Ignore)?;
        templates = chapters::Templates::load(project, &loaded.book, &resolved, time, opts)?;
    }
    r.add(std::mem::take(&mut resolved.warnings));
    let book = &loaded.book;
    let written = chapters::write(project, book, &chain, &templates, &mut resolved, &mut r.log);
    let mut pkg = assemble::package(project, book, &resolved, &templates, written, &mut r.log)?;
    // The fonts' findings stop the build with the checks', not before them: one build reports
    // every finding it can.
    let mut found = fonts::embed(book, opts, &resolved, &mut pkg, &mut r.log);
    // Staging may hard-link the images rather than copy them only when no program of the
    // book's will touch the tree (a hook editing a linked image in place would edit the
    // manuscript's).
    let touched = checks.has_programs() || loaded.has_hooks();
    pkg.tree.link_copies(!touched);
    // The chapters, but the book's own front and back matter pages.
    let chapters = (resolved.chapters.iter())
        .filter(|c| c.source.page.is_none())
        .count();
    // Not on a thread of the pool (`seihon ci` builds books side by side there): waiting for
    // the checks' thread, whose parallel work waits for the pool, could leave every thread of
    // the pool waiting.
    let beside = rayon::current_thread_index().is_none();
    if beside && opts.pack && !touched && opts.profiles.is_empty() && !opts.epubcheck {
        let stamps = checked_beside_packing(r, &loaded, &pkg, &checks, found, time)?;
        r.memory.drop_aside((resolved, pkg, templates));
        return Ok(r.built(&loaded, chapters, stamps));
    }
    r.enter(Step::Check);
    found.extend(checking::built_in(project, book, &pkg, &checks));
    r.gate(found)?;
    r.enter(Step::Stage);
    let listed = opts.inputs.as_deref();
    let staged = staging::stage(project, &loaded, &pkg, opts.pack, listed)?;
    r.hook(&loaded, hooks::Stage::PostConvert, staged.dir())?;
    r.hook(&loaded, hooks::Stage::PrePack, staged.dir())?;
    r.enter(Step::CheckPrograms);
    // The book's programs, the store profiles and epubcheck find their findings' places in
    // the manuscript by every page's source positions: those of the pages taken from the page
    // cache are read from it only for them.
    let no_sources = crate::check::Sources::new();
    let sources = match checks.has_programs() || !opts.profiles.is_empty() || opts.epubcheck {
        true => pkg.all_sources()?,
        false => &no_sources,
    };
    let found = checking::programs(&loaded, &checks, staged.dir(), sources, &mut r.log);
    r.gate(found)?;
    if !opts.profiles.is_empty() {
        r.enter(Step::StoreProfiles);
        r.gate(checking::store_profiles(opts, staged.dir(), sources)?)?;
    }
    let epubcheck = checking::EpubcheckRun::new(&checks, &loaded, sources);
    if opts.pack {
        r.enter(Step::Pack);
        let stamps = staged.known_stamps();
        pack::pack(r, &loaded, staged.dir(), time, stamps, &epubcheck, |_| {
            Ok(())
        })?;
    } else if opts.epubcheck {
        r.enter(Step::Epubcheck);
        r.gate(pack::epubcheck_scratch(
            &loaded,
            staged.dir(),
            time,
            &epubcheck,
        )?)?;
    }
    // The staged files' stamps hold for the preview when packing left the tree as it was.
    let stamps = staged.into_stamps();
    r.memory.drop_aside((resolved, pkg, templates));
    Ok(r.built(&loaded, chapters, stamps))
}

/// The built-in checks, on a thread of their own, beside staging and packing, when nothing
/// of the book's own (hooks, check programs) comes between them and no store profile or
/// epubcheck asks for the pages' source positions: the new EPUB replaces the last one only
/// once the checks have passed, and their findings come first, as if they had run before.
/// `found` are the findings made since the last gate. Returns the staged files' stamps.
fn checked_beside_packing(
    r: &mut Run,
    loaded: &load::Loaded,
    pkg: &assemble::Package,
    checks: &checking::Checks,
    found: Vec<Finding>,
    time: i64,
) -> Result<std::collections::HashMap<String, crate::cache::FileStamp>> {
    let (project, book) = (r.project, &loaded.book);
    let check = || checking::built_in(project, book, pkg, checks);
    std::thread::scope(|s| {
        let running = std::thread::Builder::new()
            .name("checks".into())
            .spawn_scoped(s, check);
        let mut pending = Some((running, found));
        // Waits for the checks and lets their findings through or stops the build on them
        // (the first time only).
        let mut checked = |r: &mut Run| -> Result<()> {
            let Some((running, mut found)) = pending.take() else {
                return Ok(());
            };
            r.enter(Step::Check);
            found.extend(match running {
                Ok(running) => running
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread could be started: the checks run here.
                Err(_) => check(),
            });
            r.gate(found)
        };
        // A step that fails before the checks are in reports their errors first.
        let or_checks_first = |r: &mut Run, checked: &mut dyn FnMut(&mut Run) -> Result<()>, e| {
            let step = r.at.step;
            checked(r)?;
            r.at.step = step;
            Err(e)
        };
        r.enter(Step::Stage);
        let listed = r.opts.inputs.as_deref();
        let staged = match staging::stage(project, loaded, pkg, true, listed) {
            Ok(staged) => staged,
            Err(e) => return or_checks_first(r, &mut checked, e),
        };
        r.enter(Step::Pack);
        let no_sources = crate::check::Sources::new();
        let epubcheck = checking::EpubcheckRun::new(checks, loaded, &no_sources);
        let stamps = staged.known_stamps();
        if let Err(e) = pack::pack(
            r,
            loaded,
            staged.dir(),
            time,
            stamps,
            &epubcheck,
            &mut checked,
        ) {
            return or_checks_first(r, &mut checked, e);
        }
        checked(r)?;
        Ok(staged.into_stamps())
    })
}

/// A build under way: its project and options, the step it is at, what the book's programs
/// printed, and every finding so far (in order: loading's, reading's, resolving's, the
/// checks').
struct Run<'a> {
    project: &'a Project,
    opts: &'a BuildOptions,
    /// Whether the build reads and writes most of its book (see [`crate::memory::Build`]).
    memory: crate::memory::Build,
    /// What the build keeps for the next one, being written (see [`crate::cache::Deferred`]).
    kept: crate::cache::Deferred,
    at: Progress,
    log: Vec<String>,
    findings: Vec<Finding>,
    /// The levels the book's `checks:` set, once it is loaded.
    levels: Option<crate::check::CheckSettings>,
}

impl Run<'_> {
    /// Adds findings that do not stop the build yet, at the levels the book set for their
    /// kinds (one turned off goes).
    fn add(&mut self, found: Vec<Finding>) {
        let found = self.leveled(found);
        self.findings.extend(found);
    }

    /// Reads and resolves the book (see [`read::read_and_resolve`]); its errors at the levels
    /// the book set.
    fn read_and_resolve(
        &mut self,
        book: &mut Book,
        memo: read::Memo,
    ) -> Result<crate::xref::Resolved> {
        let inputs = self.opts.inputs.as_deref();
        // A memo still being written is not written over (the whole book again).
        self.kept.finish();
        let (project, memory, kept) = (self.project, &self.memory, &self.kept);
        let log = &mut self.log;
        let resolved = read::read_and_resolve(project, book, memo, inputs, memory, kept, log);
        resolved.map_err(|e| self.leveled_error(e))
    }

    /// A stage's failure, its findings at the levels the book set.
    fn leveled_error(&self, e: Error) -> Error {
        match e {
            Error::Book(found) => Error::Book(self.leveled(found)),
            other => other,
        }
    }

    /// Findings at the levels the book set for their kinds.
    fn leveled(&self, found: Vec<Finding>) -> Vec<Finding> {
        match &self.levels {
            Some(levels) => levels.apply(found),
            None => found,
        }
    }

    fn enter(&mut self, step: Step) {
        self.at.enter(step);
    }

    /// Adds a step's findings at the levels the book set: see [`gate`].
    fn gate(&mut self, found: Vec<Finding>) -> Result<()> {
        let found = self.leveled(found);
        gate(self.opts, &mut self.findings, found)
    }

    /// What the build made, with its warnings (the log is added by [`build_with`]).
    fn built(
        &mut self,
        loaded: &load::Loaded,
        chapters: usize,
        stamps: std::collections::HashMap<String, crate::cache::FileStamp>,
    ) -> Built {
        Built {
            id: loaded.book.id.clone(),
            epub: loaded.output.clone(),
            chapters,
            warnings: std::mem::take(&mut self.findings),
            log: Vec::new(),
            packed: self.opts.pack,
            known: Known {
                heading: Some(BookHeading {
                    title: loaded.book.meta.title.clone(),
                    language: loaded.book.meta.language.clone(),
                }),
                stamps,
            },
        }
    }

    /// Runs the book's hook for `stage` in `tree`, if it has one.
    fn hook(&mut self, loaded: &load::Loaded, stage: hooks::Stage, tree: &Path) -> Result<()> {
        self.enter(Step::Hook(stage));
        if loaded.has_hooks() {
            crate::term::progress::step(Step::Hook(stage).name());
        }
        self.log.extend(loaded.hook(stage, tree)?);
        Ok(())
    }
}

/// Adds a step's findings to the build's and stops the build when there is an error among
/// them, or, for a release, any finding at all (a release admits no warnings).
fn gate(opts: &BuildOptions, all: &mut Vec<Finding>, new: Vec<Finding>) -> Result<()> {
    all.extend(new);
    if all.iter().any(|f| f.severity == Severity::Error) {
        return Err(Error::Book(std::mem::take(all)));
    }
    if opts.release.is_some() && !all.is_empty() {
        let promoted = std::mem::take(all)
            .into_iter()
            .map(|mut f| {
                f.severity = Severity::Error;
                let why = "a release admits no warnings";
                f.hint = Some(match f.hint {
                    Some(h) => format!("{h}; {why}"),
                    None => why.to_string(),
                });
                f
            })
            .collect();
        return Err(Error::Book(promoted));
    }
    Ok(())
}

/// Role of a chapter in reading order, for callers that list the book's contents.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Front => "front",
        Role::Body => "body",
        Role::Part => "part",
        Role::Appendix => "appendix",
        Role::Back => "back",
    }
}
