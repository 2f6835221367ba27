//! The pipeline: one book from its folder to `dist/<id>.epub`, stage by stage.
//!
//! load → read (chapters in parallel) → resolve → write → pages → stage → pack. Each stage is
//! its own module; this file only passes one stage's result to the next and gathers findings.
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::book::{Book, ChapterSource, Cover, Format, ProjectConfig, Role};
use crate::doc::Document;
use crate::epub;
use crate::error::{Error, Finding, Location, Result, Severity};
use crate::filter::{Chain, FilterContext};
use crate::hooks::{self, HookRun};
use crate::pages::{self, ManifestItem, PageContext, SpineItem};
use crate::reader;
use crate::stage::{self, Tree};
use crate::xhtml::{dom, write};
use crate::xref::{self, Chapter};

/// Where a build runs and writes.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    pub config: ProjectConfig,
}

impl Project {
    pub fn load(root: &Path) -> Result<Project> {
        Ok(Project {
            root: root.to_path_buf(),
            config: ProjectConfig::load(root)?,
        })
    }

    pub fn books_dir(&self) -> PathBuf {
        self.path(&self.config.books_dir)
    }

    /// A path under the project root, without a leading `./` in messages.
    fn path(&self, rel: &Path) -> PathBuf {
        if self.root == Path::new(".") {
            rel.to_path_buf()
        } else {
            self.root.join(rel)
        }
    }

    pub fn epub_path(&self, id: &str) -> PathBuf {
        self.path(&self.config.dist_dir).join(format!("{id}.epub"))
    }

    /// Where a book keeps `what` between builds: `build/.cache/<what>/<id>/`.
    pub fn kept_dir(&self, what: Kept, id: &str) -> PathBuf {
        self.path(&self.config.build_dir)
            .join(".cache")
            .join(what.folder())
            .join(id)
    }

    /// The preview area (`public/`).
    pub fn preview_dir(&self) -> PathBuf {
        self.path(&self.config.preview_dir)
    }

    /// `dist/release/<id>-<version>.epub`.
    pub fn release_path(&self, id: &str, version: &str) -> PathBuf {
        self.path(&self.config.dist_dir)
            .join("release")
            .join(format!("{id}-{version}.epub"))
    }

    pub fn stage_dir(&self, id: &str) -> PathBuf {
        self.path(&self.config.build_dir).join(id)
    }

    /// Every folder under the books folder that is or looks like a book, sorted by name: one
    /// that cannot be loaded is listed too, so that `list`, `build` and `ci` report it rather
    /// than leave it out.
    pub fn book_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.books_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| p.is_dir() && (Book::is_book(p) || Book::looks_like_book(p)))
            .collect();
        dirs.sort();
        dirs
    }
}

/// What a book keeps between builds under `build/.cache/` (see [`Project::kept_dir`]). All of
/// it is safe to delete: it only saves work.
#[derive(Debug, Clone, Copy)]
pub enum Kept {
    /// What reading each chapter gave ([`crate::cache::ChapterCache`]).
    Chapters,
    /// Finished chapter pages.
    Pages,
    /// What the checks gathered from each page.
    Checks,
    /// Image checks ([`xref::ImageChecks`]).
    Images,
    /// The CRC-32s of the last staged tree packed ([`epub::Crcs`]).
    Crcs,
    /// The staged tree before last, to be made the next one.
    Spare,
    /// The preview before last, to be made the next one.
    SparePreview,
}

impl Kept {
    fn folder(self) -> &'static str {
        match self {
            Kept::Chapters => "chapters",
            Kept::Pages => "pages",
            Kept::Checks => "checks",
            Kept::Images => "images",
            Kept::Crcs => "crcs",
            Kept::Spare => "spare",
            Kept::SparePreview => "spare-preview",
        }
    }
}

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
}

/// The build's fixed time: `SOURCE_DATE_EPOCH` when set, else the book's date, else 2000-01-01.
pub fn build_time(book: &Book) -> i64 {
    if let Some(t) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
    {
        return t;
    }
    book.meta
        .date
        .as_deref()
        .and_then(crate::book::Date::parse)
        .map_or(946_684_800, |d| d.unix_seconds())
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
            Step::Pack => "pack",
            Step::Epubcheck => "epubcheck",
        }
    }
}

/// A build that failed: at which step, and why.
#[derive(Debug)]
pub struct Failure {
    pub step: Step,
    pub error: Error,
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
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            hooks: true,
            pack: true,
            epubcheck: false,
            external_links: false,
            release: None,
        }
    }
}

/// Builds one book folder into its EPUB, with options.
pub fn build_with(
    project: &Project,
    book_dir: &Path,
    opts: &BuildOptions,
) -> std::result::Result<Built, Failure> {
    let mut progress = Progress::new();
    let mut log = Vec::new();
    let result = run(project, book_dir, opts, &mut progress, &mut log);
    progress.finish();
    let log = log.into_iter().filter(|l| !l.trim().is_empty()).collect();
    match result {
        Ok(built) => Ok(Built { log, ..built }),
        Err(error) => Err(Failure {
            step: progress.step,
            error,
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
            report: std::env::var_os("SEIHON_TIMINGS").is_some_and(|v| v == "1"),
        }
    }

    fn enter(&mut self, step: Step) {
        self.finish();
        self.step = step;
    }

    fn finish(&mut self) {
        let now = std::time::Instant::now();
        if self.report {
            let ms = now.duration_since(self.since).as_secs_f64() * 1000.0;
            eprintln!(
                "timing: {:<18} {ms:8.1} ms{}",
                self.step.name(),
                peak_memory().map_or(String::new(), |m| format!("  (peak {m} MiB so far)"))
            );
        }
        self.since = now;
    }
}

/// The process's peak resident memory so far, in MiB (Linux), for `SEIHON_TIMINGS`.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// The build, noting in `at` the step it is at and in `log` what its programs print.
fn run(
    project: &Project,
    book_dir: &Path,
    opts: &BuildOptions,
    at: &mut Progress,
    log: &mut Vec<String>,
) -> Result<Built> {
    crate::book::outputs::check_book(&project.root, &project.config, book_dir)
        .map_err(Error::Config)?;
    let (mut book, load_warnings) = Book::open(book_dir, &project.config)?;
    book.shared_dirs = project
        .config
        .shared_dirs
        .iter()
        .filter_map(|d| d.canonicalize().ok())
        .collect();
    let stage_dir = project.stage_dir(&book.id);
    let output = match &opts.release {
        Some(version) => project.release_path(&book.id, version),
        None => project.epub_path(&book.id),
    };
    let run_hook = |book: &Book, stage: hooks::Stage| {
        HookRun {
            book,
            stage_dir: &stage_dir,
            output: &output,
            enabled: opts.hooks,
            time_limit: std::time::Duration::from_secs(project.config.hook_timeout.max(1)),
        }
        .run(stage)
    };
    at.enter(Step::Hook(hooks::Stage::PreBuild));
    log.extend(run_hook(&book, hooks::Stage::PreBuild)?);
    at.enter(Step::Load);
    // The filter chain: the book's own, where `default` stands for the project's.
    let names: Vec<String> = match &book.filters {
        Some(own) => own
            .iter()
            .flat_map(|n| {
                if n == "default" {
                    project.config.filters.clone()
                } else {
                    vec![n.clone()]
                }
            })
            .collect(),
        None => project.config.filters.clone(),
    };
    let chain = Chain::resolve(&names, &project.root, &book.root)
        .map_err(Error::Book)?
        .with_timeout(std::time::Duration::from_secs(
            project.config.filter_timeout.max(1),
        ));
    at.enter(Step::Read);
    let (docs, mut findings, xref_texts) = match book.docbook.clone() {
        // A DocBook book is one document across files: read whole, then split into chapters.
        Some(main) => read_docbook(&mut book, &main),
        None => {
            let cache = crate::cache::ChapterCache::new(project.kept_dir(Kept::Chapters, &book.id));
            let read: Vec<(crate::cache::Read, Option<String>, bool)> = book
                .chapters
                .par_iter()
                .map(|src| read_cached(&book, src, &cache))
                .collect();
            let fresh: Vec<String> = book
                .chapters
                .iter()
                .zip(&read)
                .filter(|(_, (_, _, hit))| !hit)
                .map(|(src, _)| src.rel.display().to_string())
                .collect();
            // How much was read again: the measure of "work is not done twice".
            log.push(how_much_again(
                "read",
                "chapters",
                &fresh,
                read.len(),
                "the others are unchanged",
            ));
            cache.keep_only(&read.iter().filter_map(|(_, k, _)| k.clone()).collect());
            let read: Vec<(Document, Vec<Finding>)> = read.into_iter().map(|(r, _, _)| r).collect();
            let mut findings = Vec::new();
            let mut docs: Vec<(ChapterSource, Document)> = Vec::new();
            for (src, (doc, found)) in book.chapters.iter().zip(read) {
                findings.extend(found);
                docs.push((src.clone(), doc));
            }
            (docs, findings, Default::default())
        }
    };
    // Resolve even after reading problems, so one build reports every mistake at once.
    let images_kept = project.kept_dir(Kept::Images, &book.id);
    let mut images = xref::ImageChecks::load(&images_kept);
    let resolved = xref::resolve_remembering(&book, docs, &xref_texts, &mut images);
    images.save(&images_kept);
    let has_errors = findings.iter().any(|f| f.severity == Severity::Error);
    let mut resolved = match resolved {
        Ok(r) if !has_errors => r,
        Ok(r) => {
            findings.extend(r.warnings);
            return Err(Error::Book(findings));
        }
        Err(more) => {
            findings.extend(more);
            return Err(Error::Book(findings));
        }
    };
    // Reading warnings come first, in chapter order, then the resolver's.
    findings.append(&mut resolved.warnings);
    resolved.warnings = findings;

    at.enter(Step::Convert);
    let time = build_time(&book);
    let (tera, templates_digest) = pages::load_templates_with_digest(&project.root, &book.root)?;
    let page_ctx = PageContext::new(&book, &resolved.chapters, &epub::iso8601(time))
        .with_version(opts.release.as_deref());
    let ja = book.meta.language.starts_with("ja");

    let mut pkg = Package::default();
    pkg.tree.add("mimetype", epub::MIMETYPE);
    pkg.tree.add("META-INF/container.xml", CONTAINER_XML);

    // Chapters, written in parallel, added in reading order; the generated cover is rendered
    // beside them (it takes as long as a dozen chapters).
    let stylesheets: Vec<String> = book
        .stylesheets
        .iter()
        .map(|s| format!("assets/{}", s.to_string_lossy().replace('\\', "/")))
        .collect();
    let write_page = |ch: &Chapter| -> Result<Checked> {
        let mut ctx = page_ctx.for_page(&ch.href());
        ctx.insert("title", &ch.title);
        ctx.insert("body_class", write::section_type(ch.source.role));
        ctx.insert("stylesheets", &stylesheets);
        let body = dom::serialize_nodes(&write::write_chapter(ch, ja));
        ctx.insert("body", &body);
        let text = pages::render(&tera, "chapter.xhtml", &ctx)?;
        let fctx = FilterContext {
            book_id: book.id.clone(),
            chapter: ch.href(),
            language: ch
                .lang
                .clone()
                .unwrap_or_else(|| book.meta.language.clone()),
            book_root: book.root.clone(),
        };
        filtered_xhtml(
            &text,
            "chapter.xhtml",
            Some((&chain, &fctx, &ch.source.rel)),
        )
    };
    // Finished pages are kept by what they depend on: a rebuild writes only the chapters that
    // changed (or whose references into other chapters did). Not with an external filter,
    // whose output may depend on anything.
    let pages = chain.fingerprint().map(|filters| {
        let keys = crate::cache::PageKeys::new(&[
            templates_digest.as_bytes(),
            filters,
            format!("{:?}", page_ctx.context()).as_bytes(),
            format!(
                "{stylesheets:?} {ja} {:?} {:?}",
                book.id, book.meta.language
            )
            .as_bytes(),
            book.root.as_os_str().as_encoded_bytes(),
        ]);
        (
            keys,
            crate::cache::Cache::<Checked>::new(project.kept_dir(Kept::Pages, &book.id)),
        )
    });
    let keys: Vec<Option<String>> = resolved
        .chapters
        .par_iter()
        .map(|ch| {
            // Every field: a field added to `Chapter` must be added to the key (or this fails
            // to compile).
            let Chapter {
                doc,
                source,
                stem,
                title,
                toc,
                footnotes,
                endnotes,
                lang,
                number,
            } = ch;
            let rest = (source, stem, title, toc, footnotes, endnotes, lang, number);
            pages.as_ref().map(|(keys, _)| keys.key(doc, &rest))
        })
        .collect();
    // Each page, and whether it was written (not taken from the cache).
    // A chapter's document is let go once its page is made: the documents are the largest
    // thing a build holds, and nothing after this reads them.
    let write_chapters = || -> Vec<(Result<(String, Checked)>, bool)> {
        resolved
            .chapters
            .par_iter_mut()
            .zip(&keys)
            .map(|(ch, key)| {
                let made = match (&pages, key) {
                    (Some((_, cache)), Some(key)) if let Some(hit) = cache.get(key) => {
                        (Ok((ch.href(), hit)), false)
                    }
                    _ => {
                        let page = write_page(ch);
                        if let (Some((_, cache)), Some(key), Ok(page)) = (&pages, key, &page) {
                            cache.put(key, page);
                        }
                        (page.map(|p| (ch.href(), p)), true)
                    }
                };
                ch.doc = Document::new(&ch.doc.source);
                made
            })
            .collect()
    };
    let (cover, chapter_pages) = rayon::join(
        || match &book.cover {
            Cover::Generated => CoverImage::Rendered(
                pages::cover_svg(&tera, &page_ctx, &book).and_then(|svg| cover_png(project, &svg)),
            ),
            Cover::Image(rel) => CoverImage::File(rel),
        },
        write_chapters,
    );
    if let Some((_, cache)) = &pages {
        cache.keep_only(&keys.iter().flatten().cloned().collect());
    }
    let written: Vec<String> = resolved
        .chapters
        .iter()
        .zip(&chapter_pages)
        .filter(|(_, (_, written))| *written)
        .map(|(ch, _)| ch.source.rel.display().to_string())
        .collect();
    log.push(how_much_again(
        "wrote",
        "chapter pages",
        &written,
        chapter_pages.len(),
        "the others are as they were",
    ));

    // Cover image and page.
    let cover_href = match cover {
        CoverImage::Rendered(png) => {
            let png = png?;
            pkg.tree
                .add(format!("{PACKAGE_DIR}/{}", pages::GENERATED_COVER), png);
            pkg.manifest.push(item(
                "cover-image",
                pages::GENERATED_COVER,
                "image/png",
                "cover-image",
            ));
            pages::GENERATED_COVER.to_string()
        }
        CoverImage::File(rel) => {
            let path = book.root.join(rel);
            let loc = Location::file(&book.config_path);
            let Some(media_type) = xref::media_type(rel).filter(|t| t.starts_with("image/")) else {
                return Err(Error::at(
                    loc,
                    format!(
                        "the cover `{}` is not a PNG, JPEG, GIF, SVG or WebP image",
                        rel.display()
                    ),
                ));
            };
            if media_type != "image/svg+xml" && imagesize::size(&path).is_err() {
                return Err(Error::at(
                    loc,
                    format!(
                        "the cover image `{}` cannot be read: the file is damaged or not an image",
                        rel.display()
                    ),
                ));
            }
            let href = format!(
                "image/cover.{}",
                rel.extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("png")
                    .to_ascii_lowercase()
            );
            pkg.tree.copy(format!("{PACKAGE_DIR}/{href}"), path);
            pkg.manifest
                .push(item("cover-image", &href, media_type, "cover-image"));
            href
        }
    };
    let mut ctx = page_ctx.for_page(pages::COVER_PAGE);
    ctx.insert("cover_href", &cover_href);
    pkg.add_page(
        "cover",
        pages::COVER_PAGE,
        pages::render(&tera, "cover.xhtml", &ctx)?,
        true,
        "cover.xhtml",
    )?;
    let ctx = page_ctx.for_page(pages::TITLE_PAGE);
    pkg.add_page(
        "titlepage",
        pages::TITLE_PAGE,
        pages::render(&tera, "titlepage.xhtml", &ctx)?,
        true,
        "titlepage.xhtml",
    )?;
    let ctx = page_ctx.for_page(pages::NAV);
    let nav = pages::render(&tera, "nav.xhtml", &ctx)?;
    let nav_checked = checked_xhtml(&nav, "nav.xhtml")?;
    let nav_props = join_props("nav", &nav_checked.properties);
    pkg.manifest
        .push(item("nav", pages::NAV, "application/xhtml+xml", &nav_props));
    pkg.spine.push(SpineItem {
        idref: "nav".into(),
        linear: true,
    });
    pkg.add_xhtml(format!("{PACKAGE_DIR}/{}", pages::NAV), nav_checked.text);

    let mut has_ruby = false;
    for (ch, (page, _)) in resolved.chapters.iter().zip(chapter_pages) {
        let (href, checked) = page?;
        has_ruby |= checked.ruby;
        pkg.manifest.push(ManifestItem {
            id: chapter_id(ch),
            href: href.clone(),
            media_type: "application/xhtml+xml".into(),
            properties: checked.properties,
        });
        pkg.spine.push(SpineItem {
            idref: chapter_id(ch),
            linear: true,
        });
        pkg.add_xhtml(format!("{PACKAGE_DIR}/{href}"), checked.text);
    }
    let ctx = page_ctx.for_page(pages::COLOPHON_PAGE);
    let colophon = pages::render(&tera, "colophon.xhtml", &ctx)?;
    let checked = checked_xhtml(&colophon, "colophon.xhtml")?;
    pkg.manifest.push(ManifestItem {
        id: "colophon".into(),
        href: pages::COLOPHON_PAGE.into(),
        media_type: "application/xhtml+xml".into(),
        properties: checked.properties,
    });
    pkg.spine.push(SpineItem {
        idref: "colophon".into(),
        linear: true,
    });
    pkg.add_xhtml(
        format!("{PACKAGE_DIR}/{}", pages::COLOPHON_PAGE),
        checked.text,
    );

    // Style sheets and images.
    let css = pages::render(&tera, "book.css", &page_ctx.for_page(pages::CSS))?
        + &crate::highlight::stylesheet();
    pkg.tree.add(format!("{PACKAGE_DIR}/{}", pages::CSS), css);
    pkg.manifest.push(item("css", pages::CSS, "text/css", ""));
    for (i, (rel, href)) in book.stylesheets.iter().zip(&stylesheets).enumerate() {
        pkg.tree
            .copy(format!("{PACKAGE_DIR}/{href}"), book.root.join(rel));
        pkg.manifest
            .push(item(&format!("css-{}", i + 1), href, "text/css", ""));
    }
    for (i, res) in resolved.resources.iter().enumerate() {
        let at = format!("{PACKAGE_DIR}/{}", res.href);
        match &res.bytes {
            Some(bytes) => pkg.tree.add(at, bytes.clone()),
            None => pkg.tree.copy(at, &res.source),
        }
        pkg.manifest.push(item(
            &format!("res-{}", i + 1),
            &res.href,
            res.media_type,
            "",
        ));
    }

    // Navigation for EPUB 2 readers, then the package document that lists everything.
    let mut ctx = page_ctx.for_page(pages::NCX);
    let mut points = vec![
        NcxPoint {
            href: pages::COVER_PAGE.into(),
            label: page_ctx.label("cover"),
        },
        NcxPoint {
            href: pages::NAV.into(),
            label: page_ctx.label("toc"),
        },
    ];
    points.extend(resolved.chapters.iter().map(|c| NcxPoint {
        href: c.href(),
        label: c.title.clone(),
    }));
    points.push(NcxPoint {
        href: pages::COLOPHON_PAGE.into(),
        label: page_ctx.label("colophon"),
    });
    ctx.insert("ncx_points", &points);
    pkg.tree.add(
        format!("{PACKAGE_DIR}/{}", pages::NCX),
        pages::render(&tera, "toc.ncx", &ctx)?,
    );
    pkg.manifest
        .push(item("ncx", pages::NCX, "application/x-dtbncx+xml", ""));

    let mut ctx = page_ctx.for_page(OPF);
    ctx.insert("manifest", &pkg.manifest);
    ctx.insert("spine", &pkg.spine);
    ctx.insert("has_images", &(!resolved.resources.is_empty()));
    ctx.insert("has_ruby", &has_ruby);
    let isbn_identifier = book
        .meta
        .isbn
        .as_ref()
        .map(|i| format!("urn:isbn:{}", i.replace(['-', ' '], "")))
        .filter(|urn| *urn != book.meta.identifier);
    ctx.insert("isbn_identifier", &isbn_identifier);
    pkg.tree.add(
        format!("{PACKAGE_DIR}/{OPF}"),
        pages::render(&tera, "package.opf", &ctx)?,
    );

    // Checks read the pages with their source positions, before anything is staged: a book
    // that fails them leaves the previous build and EPUB as they were.
    at.enter(Step::Check);
    let programs = crate::check::programs::discover(&project.root, &book.root);
    let mut settings = check_settings(project, &book, &programs)?;
    if opts.external_links {
        settings.external_links = Some(crate::linkcheck::LinkCheckOptions {
            // One cache for the project: books often link to the same pages.
            cache_path: Some(
                project
                    .path(&project.config.build_dir)
                    .join(".cache/external-links.json"),
            ),
            ..Default::default()
        });
    }
    let found = crate::check::run_checks(
        &crate::check::EpubFiles {
            files: &pkg.check_view(),
            cache: Some(&project.kept_dir(Kept::Checks, &book.id)),
        },
        &settings,
    );
    // From here on, every finding so far is in one list, which each gate checks.
    let mut findings = load_warnings;
    findings.append(&mut resolved.warnings);
    gate(opts, &mut findings, found)?;
    let chapters = resolved.chapters.len();
    let epubcheck = EpubcheckRun {
        settings: &settings,
        book: &book,
        marked: &pkg.marked,
        output: &output,
    };
    if !opts.pack {
        // `check --epubcheck`: pack into a scratch folder only for epubcheck to read.
        if opts.epubcheck {
            at.enter(Step::Epubcheck);
            let scratch = tempfile::tempdir().map_err(|e| {
                Error::io(std::env::temp_dir(), "cannot create a temporary folder", e)
            })?;
            let tree = scratch.path().join("tree");
            stage::stage(&pkg.tree, &tree)?;
            let packed = scratch.path().join(format!("{}.epub", book.id));
            epub::pack(&tree, &packed, time)?;
            gate(opts, &mut findings, epubcheck.run(&packed)?)?;
        }
        return Ok(Built {
            id: book.id.clone(),
            epub: output,
            chapters,
            warnings: findings,
            log: Vec::new(),
            packed: false,
        });
    }
    at.enter(Step::Stage);
    // Images may be linked rather than copied when no program of the book's will touch the
    // staged tree (a hook editing a linked image in place would edit the manuscript's).
    pkg.tree
        .link_copies(programs.is_empty() && !(opts.hooks && hooks::has_any(&book.root)));
    // The tree before last is kept, so that only the files that changed are written again.
    stage::stage_keeping(
        &pkg.tree,
        &stage_dir,
        Some(&project.kept_dir(Kept::Spare, &book.id)),
    )?;
    at.enter(Step::Hook(hooks::Stage::PostConvert));
    log.extend(run_hook(&book, hooks::Stage::PostConvert)?);
    // The final adjustment: what the hook leaves in the staged tree is what gets packed.
    at.enter(Step::Hook(hooks::Stage::PrePack));
    log.extend(run_hook(&book, hooks::Stage::PrePack)?);

    // The house's own checks read the tree that will be packed.
    at.enter(Step::CheckPrograms);
    let mut map = crate::check::SourceMap::new(&pkg.marked);
    let mut found = Vec::new();
    for program in &programs {
        let level = settings.program_level(&program.name);
        if level == crate::check::Level::Off {
            continue;
        }
        let ran = crate::check::programs::run(
            program,
            &stage_dir,
            hooks::environment(&book, &stage_dir, &output),
            std::time::Duration::from_secs(project.config.hook_timeout.max(1)),
            level,
            &mut map,
        );
        log.push(ran.log);
        found.extend(ran.findings);
    }
    gate(opts, &mut findings, found)?;

    // With epubcheck, the packed EPUB replaces the last one only once epubcheck accepts it.
    at.enter(Step::Pack);
    // The last EPUB's compressed entries are copied when this seihon packed it and nothing has
    // touched it since (another version's Deflate, or a hook re-zipping it, might compress
    // differently, and the EPUB must not depend on that).
    let packed_by = project
        .path(&project.config.build_dir)
        .join(".cache/packed-by")
        .join(&book.id);
    let stamp = || {
        let file = std::fs::metadata(&output)
            .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
            .unwrap_or_default();
        let exe = crate::cache::exe_identity();
        format!("{exe}\n{}\n{file}", output.display())
    };
    let previous = std::fs::read_to_string(&packed_by)
        .is_ok_and(|last| last == stamp())
        .then_some(output.as_path());
    // The post-pack hook and epubcheck take the new EPUB at its temporary path: it replaces
    // the last one only once both have passed, and epubcheck reads what the hook left.
    let mut post_pack_ran = false;
    epub::pack_reusing(
        &stage_dir,
        &output,
        time,
        previous,
        Some(&project.kept_dir(Kept::Crcs, &book.id)),
        |packed| {
            at.enter(Step::Hook(hooks::Stage::PostPack));
            let ran = HookRun {
                book: &book,
                stage_dir: &stage_dir,
                output: packed,
                enabled: opts.hooks,
                time_limit: std::time::Duration::from_secs(project.config.hook_timeout.max(1)),
            }
            .run(hooks::Stage::PostPack)?;
            post_pack_ran = ran.is_some();
            log.extend(ran);
            if opts.epubcheck {
                at.enter(Step::Epubcheck);
                gate(opts, &mut findings, epubcheck.run(packed)?)?;
            }
            Ok(())
        },
    )?;
    // Only a speed-up: when it cannot be noted, the next build compresses everything. An EPUB
    // a hook may have rewritten is never taken for one seihon packed.
    if post_pack_ran {
        let _ = std::fs::remove_file(&packed_by);
    } else {
        let _ = stage::write_atomic(&packed_by, stamp().as_bytes());
    }
    if opts.release.is_some() {
        write_checksum(&output)?;
    }
    Ok(Built {
        id: book.id.clone(),
        epub: output,
        chapters,
        warnings: findings,
        log: Vec::new(),
        packed: true,
    })
}

/// "read 1 of 4 chapters (ch02.md); the others are unchanged": how much of a step's work a
/// build did again, naming the files when it was not all or nothing.
fn how_much_again(verb: &str, what: &str, done: &[String], total: usize, rest: &str) -> String {
    let names = if done.is_empty() || done.len() == total {
        String::new()
    } else {
        format!(" ({}); {rest}", done.join(", "))
    };
    format!("{verb} {} of {total} {what}{names}\n", done.len())
}

/// The cover going into the EPUB: rendered from the cover template, or the book's own image.
enum CoverImage<'a> {
    Rendered(Result<Vec<u8>>),
    File(&'a Path),
}

/// The generated cover as PNG: rendering takes as long as writing a dozen chapters, so the
/// image is kept in `build/.cache/covers/` by the SVG's hash and rendered only when the SVG
/// (title, authors, template) changes.
fn cover_png(project: &Project, svg: &str) -> Result<Vec<u8>> {
    let key = crate::cache::ChapterCache::key(&[svg.as_bytes()]);
    let cached = project
        .path(&project.config.build_dir)
        .join(".cache/covers")
        .join(format!("{key}.png"));
    if let Ok(png) = std::fs::read(&cached)
        && png.starts_with(b"\x89PNG\r\n\x1a\n")
    {
        return Ok(png);
    }
    let png = crate::cover::render_png(svg)
        .map_err(|e| Error::Template {
            name: "cover.svg".into(),
            message: e.to_string(),
        })?
        .png;
    // Only a speed-up: a cover that cannot be kept is rendered again next time.
    let _ = stage::write_atomic(&cached, &png);
    Ok(png)
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

/// `<epub>.sha256` beside a release EPUB, in `sha256sum` format, written atomically.
fn write_checksum(epub: &Path) -> Result<()> {
    use sha2::Digest;
    let bytes = std::fs::read(epub).map_err(|e| Error::io(epub, "cannot read the EPUB", e))?;
    let digest = sha2::Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let name = epub.file_name().unwrap_or_default().to_string_lossy();
    let path = checksum_path(epub);
    crate::stage::write_atomic(&path, format!("{hex}  {name}\n").as_bytes())
}

/// Where the checksum of a release EPUB goes: `<name>.epub.sha256`.
pub fn checksum_path(epub: &Path) -> PathBuf {
    let mut name = epub.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// epubcheck on a packed EPUB, its findings at their source lines.
struct EpubcheckRun<'a> {
    settings: &'a crate::check::CheckSettings,
    book: &'a Book,
    marked: &'a std::collections::BTreeMap<String, String>,
    /// The EPUB's final path, named by findings that have no place of their own.
    output: &'a Path,
}

impl EpubcheckRun<'_> {
    fn run(&self, packed: &Path) -> Result<Vec<Finding>> {
        let level = self.settings.level(crate::check::CheckId::Epubcheck);
        if level == crate::check::Level::Off {
            return Ok(Vec::new());
        }
        let checker = crate::epubcheck::Epubcheck::locate().map_err(|why| {
            Error::Config(
                Finding::error(
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
                        Location::file(self.output),
                        format!("epubcheck could not check the EPUB: {why}"),
                    )
                    .with_hint(crate::epubcheck::INSTALL_HINT),
                ])
            })?;
        let mut found = crate::epubcheck::findings(&messages, self.marked, self.output);
        if level == crate::check::Level::Warning {
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
fn check_settings(
    project: &Project,
    book: &Book,
    programs: &[crate::check::programs::CheckProgram],
) -> Result<crate::check::CheckSettings> {
    let mut settings = crate::check::CheckSettings {
        programs: programs.iter().map(|p| p.name.clone()).collect(),
        ..Default::default()
    };
    for (name, level) in project.config.checks.iter().chain(&book.checks) {
        settings.set(name, *level).map_err(|why| {
            Error::Config(
                Finding::error(Location::file(&book.config_path), why)
                    .with_hint("see the README for the check names"),
            )
        })?;
    }
    Ok(settings)
}

/// The package folder inside the EPUB and the package document's name in it.
pub const PACKAGE_DIR: &str = "item";
pub const OPF: &str = "standard.opf";

const CONTAINER_XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles>
<rootfile full-path="item/standard.opf" media-type="application/oebps-package+xml"/>
</rootfiles>
</container>
"#;

/// The EPUB being assembled: its files, and the manifest and spine that list them.
#[derive(Default)]
struct Package {
    tree: Tree,
    manifest: Vec<ManifestItem>,
    spine: Vec<SpineItem>,
    /// XHTML pages as written, with their source positions (`data-seihon-src`), by path in
    /// the EPUB: what checks read, and how a finding in the staged page finds its source.
    marked: std::collections::BTreeMap<String, String>,
}

impl Package {
    /// The EPUB's files as checks see them: pages with their source positions, style sheets
    /// and documents as text, other resources only by name.
    fn check_view(&self) -> crate::check::Files<'_> {
        use std::borrow::Cow;
        self.tree
            .entries()
            .map(|(path, content)| {
                let bytes = match (self.marked.get(path), content) {
                    (Some(marked), _) => Cow::Borrowed(marked.as_bytes()),
                    (None, stage::Content::Bytes(b)) => Cow::Borrowed(b.as_slice()),
                    (None, stage::Content::Copy(from)) if path.ends_with(".css") => {
                        Cow::Owned(std::fs::read(from).unwrap_or_default())
                    }
                    (None, stage::Content::Copy(_)) => Cow::Borrowed(&[][..]),
                };
                (path.to_string(), bytes)
            })
            .collect()
    }

    /// Adds an XHTML page: the marked text is kept for checks, the staged one loses the marks.
    fn add_xhtml(&mut self, path: String, marked: String) {
        self.tree.add(path.clone(), write::strip_sources(&marked));
        self.marked.insert(path, marked);
    }
}

impl Package {
    /// Adds a generated page to the tree, the manifest and (in reading order) the spine.
    fn add_page(
        &mut self,
        id: &str,
        href: &str,
        xhtml: String,
        linear: bool,
        template: &str,
    ) -> Result<()> {
        let checked = checked_xhtml(&xhtml, template)?;
        self.manifest.push(ManifestItem {
            id: id.into(),
            href: href.into(),
            media_type: "application/xhtml+xml".into(),
            properties: checked.properties,
        });
        self.spine.push(SpineItem {
            idref: id.into(),
            linear,
        });
        self.add_xhtml(format!("{PACKAGE_DIR}/{href}"), checked.text);
        Ok(())
    }
}

#[derive(serde::Serialize)]
struct NcxPoint {
    href: String,
    label: String,
}

fn item(id: &str, href: &str, media_type: &str, properties: &str) -> ManifestItem {
    ManifestItem {
        id: id.into(),
        href: href.into(),
        media_type: media_type.into(),
        properties: properties.into(),
    }
}

fn join_props(a: &str, b: &str) -> String {
    if b.is_empty() {
        a.to_string()
    } else {
        format!("{a} {b}")
    }
}

fn chapter_id(ch: &Chapter) -> String {
    format!("c-{}", ch.stem)
}

/// A rendered page, checked to be well-formed XHTML, with the manifest properties it needs.
#[derive(serde::Serialize, serde::Deserialize)]
struct Checked {
    text: String,
    properties: String,
    ruby: bool,
}

/// Every page goes through our parser: a template override that breaks XHTML is caught here,
/// named, instead of by epubcheck or a reader.
fn checked_xhtml(text: &str, template: &str) -> Result<Checked> {
    filtered_xhtml(text, template, None)
}

/// Like [`checked_xhtml`], running the book's filter chain over the page in between.
fn filtered_xhtml(
    text: &str,
    template: &str,
    filters: Option<(&Chain, &FilterContext, &Path)>,
) -> Result<Checked> {
    let mut doc = dom::parse_document(text).map_err(|e| Error::Template {
        name: template.into(),
        message: format!("the page it made is not well-formed XHTML: {e}"),
    })?;
    if let Some((chain, ctx, source)) = filters {
        chain.apply(&mut doc, ctx).map_err(|e| {
            Error::Book(vec![
                Finding::error(Location::file(source), e.to_string())
                    .with_hint("fix the filter, or take it out of the chain (`filters:` in book.yml or seihon.yml)"),
            ])
        })?;
    }
    let (mut svg, mut math, mut script, mut ruby) = (false, false, false, false);
    doc.root.walk(&mut |e| match e.name.as_str() {
        "svg" => svg = true,
        "ruby" => ruby = true,
        "math" | "m:math" | "mml:math" => math = true,
        "script" | "form" => script = true,
        _ => {}
    });
    let props: Vec<&str> = [(math, "mathml"), (script, "scripted"), (svg, "svg")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    Ok(Checked {
        text: dom::serialize_document(&doc),
        properties: props.join(" "),
        ruby,
    })
}

/// Reads one source file with the reader for its format. A file that cannot be read at all
/// gives an empty document and the reason.
/// Reads a chapter, or takes what reading it gave last time when nothing it depends on has
/// changed. Returns the reading, its cache key (None when not cacheable) and whether it was a hit.
fn read_cached(
    book: &Book,
    src: &ChapterSource,
    cache: &crate::cache::ChapterCache,
) -> (crate::cache::Read, Option<String>, bool) {
    if let Some(title) = &src.part_title {
        // Part pages cost nothing.
        return ((part_page(src, title), Vec::new()), None, false);
    }
    let bytes = match crate::source::read(&src.path) {
        Ok(bytes) => bytes,
        Err(why) => {
            let f = why.finding(Location::file(&src.rel), "file");
            return ((Document::new(&src.rel), vec![f]), None, false);
        }
    };
    let settings = match src.format {
        Format::Review => format!("{:?}", book.review.clone().unwrap_or_default()),
        _ => String::new(),
    };
    let key = crate::cache::ChapterCache::key(&[
        src.rel.to_string_lossy().as_bytes(),
        format!("{:?}", src.format).as_bytes(),
        settings.as_bytes(),
        &bytes,
    ]);
    if let Some(hit) = cache.get(&key) {
        return (hit, Some(key), true);
    }
    let mut read = read_chapter(book, src, bytes);
    // Read documents wait in memory for every other chapter (the resolver needs them all).
    read.0.shrink_to_fit();
    // A chapter with errors is read again next time, so its messages always come fresh.
    if !read.1.iter().any(|f| f.severity == Severity::Error) {
        cache.put(&key, &read);
    }
    (read, Some(key), false)
}

/// Reads a chapter from its file's `bytes`.
fn read_chapter(book: &Book, src: &ChapterSource, bytes: Vec<u8>) -> (Document, Vec<Finding>) {
    let empty = || Document::new(&src.rel);
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let (line, col) =
                crate::error::line_col(&String::from_utf8_lossy(&e.as_bytes()[..valid]), valid);
            let f = Finding::error(
                Location::new(&src.rel, line, col),
                "this file is not UTF-8 text",
            )
            .with_hint("save the file as UTF-8 (in most editors: Save As… → Encoding: UTF-8)");
            return (empty(), vec![f]);
        }
    };
    let unusable = crate::error::unusable_char_findings(&text, &src.rel);
    let (doc, mut findings) = match src.format {
        Format::Markdown => reader::markdown::read(&text, &src.rel),
        Format::Review => {
            let settings = book.review.clone().unwrap_or_default();
            let opts = reader::review::ReviewOptions {
                words: settings.words,
                draft: settings.draft,
                tabwidth: settings.tabwidth,
            };
            reader::review::read(&text, &src.rel, &opts)
        }
        Format::DocBook => {
            let f = Finding::error(
                Location::file(&book.config_path),
                format!(
                    "`{}` is a DocBook file; this version of seihon reads Markdown and Re:VIEW",
                    src.rel.display()
                ),
            );
            (empty(), vec![f])
        }
    };
    findings.splice(0..0, unusable);
    (doc, findings)
}

/// What reading a whole book gives: its chapters, the problems found, and the texts of
/// cross-reference targets (see [`xref::resolve_with`]).
type ReadBook = (
    Vec<(ChapterSource, Document)>,
    Vec<Finding>,
    HashMap<String, String>,
);

/// A DocBook book's metadata and chapters, which only reading its document gives (what
/// `seihon list` shows); the document itself is not kept.
pub fn read_docbook_metadata(book: &mut Book) {
    if let Some(main) = book.docbook.clone() {
        let _ = read_docbook(book, &main);
    }
}

/// Reads a DocBook book and fills in its chapters and metadata (the document's `info`).
fn read_docbook(book: &mut Book, main: &Path) -> ReadBook {
    let root = book
        .root
        .canonicalize()
        .unwrap_or_else(|_| book.root.clone());
    let (db, findings) = reader::docbook::read_sharing(&root.join(main), &root, &book.shared_dirs);
    let meta = &mut book.meta;
    let m = db.meta;
    if let Some(title) = m.title.filter(|t| !t.trim().is_empty()) {
        meta.title = title;
    }
    meta.subtitle = m.subtitle.or(meta.subtitle.take());
    if let Some(lang) = m.language.filter(|l| !l.trim().is_empty()) {
        meta.language = lang;
    }
    let people = m.authors.into_iter().map(|n| (n, "aut".to_string()));
    let people = people
        .chain(m.editors.into_iter().map(|n| (n, "edt".to_string())))
        .chain(m.others);
    meta.creators
        .extend(people.map(|(name, role)| crate::book::Creator {
            name,
            role,
            file_as: None,
        }));
    meta.publisher = m.publisher.or(meta.publisher.take());
    meta.date = m
        .date
        .filter(|d| crate::book::Date::parse(d).is_some())
        .or(meta.date.take());
    meta.rights = m.rights.or(meta.rights.take());
    if let Some(isbn) = m.isbn.filter(|i| crate::book::normalize_isbn(i).is_ok()) {
        meta.isbn = Some(isbn);
    }
    if meta.identifier.is_empty() {
        meta.identifier = match &meta.isbn {
            Some(isbn) => format!("urn:isbn:{}", isbn.replace(['-', ' '], "")),
            None => {
                let seed = format!("seihon:docbook:{}", meta.title);
                format!(
                    "urn:uuid:{}",
                    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, seed.as_bytes())
                )
            }
        };
    }
    let docs: Vec<(ChapterSource, Document)> = db
        .chapters
        .into_iter()
        .map(|mut c| {
            c.doc.shrink_to_fit();
            let source = ChapterSource {
                rel: c.doc.source.clone(),
                path: book.root.join(&c.doc.source),
                role: c.role,
                format: Format::DocBook,
                part_title: None,
            };
            (source, c.doc)
        })
        .collect();
    book.chapters = docs.iter().map(|(s, _)| s.clone()).collect();
    (docs, findings, db.xref_texts)
}

/// The page of a part that has only a title (a Re:VIEW catalog part named by its title).
fn part_page(src: &ChapterSource, title: &str) -> Document {
    use crate::doc::{Block, BlockKind, Heading, Inline, Pos};
    let mut doc = Document::new(&src.rel);
    let heading = Heading {
        level: 1,
        id: None,
        numbered: true,
        in_toc: true,
        shown: true,
        number: None,
        content: vec![Inline::text(title, Pos::default())],
    };
    doc.blocks
        .push(Block::new(BlockKind::Heading(heading), Pos::default()));
    doc
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
