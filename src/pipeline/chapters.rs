//! Write and filter: the resolved chapters → one finished XHTML page each (written, put in the
//! chapter template, run through the filter chain and checked), in parallel, with the cover
//! image rendered beside them. Pages are kept in `build/.cache/pages/` by what they depend on.
use std::path::Path;

use rayon::prelude::*;

use crate::book::{Book, Cover};
use crate::doc::Document;
use crate::error::{Error, Result};
use crate::filter::{Chain, FilterContext};
use crate::pages::{self, PageContext};
use crate::project::{Kept, Project};
use crate::xhtml::write;
use crate::xref::{Chapter, Resolved};

use super::BuildOptions;
use super::page::{BODY_MARK, Body, Checked, Head, Shipped, TextOf, chapter_page};
use super::read::how_much_again;

/// What every page of a book is made with: the templates and the book's page context.
pub(super) struct Templates {
    pub texts: pages::TemplateTexts,
    pub ctx: PageContext,
    /// The book's own style sheets, as linked from its pages (URLs relative to the package
    /// folder).
    pub stylesheets: Vec<String>,
}

impl Templates {
    /// The project's and the book's templates, and the context of the build at `time`.
    pub fn load(
        project: &Project,
        book: &Book,
        resolved: &Resolved,
        time: i64,
        opts: &BuildOptions,
    ) -> Result<Self> {
        let texts = pages::TemplateTexts::read_all(&project.root, &book.root);
        let modified = crate::epub::iso8601(time);
        let index = resolved.index.as_ref();
        let ctx = PageContext::new(book, &resolved.chapters, index, &modified)
            .with_version(opts.release.as_deref())
            .with_profiles(&opts.profiles.iter().map(|p| p.name()).collect::<Vec<_>>());
        let stylesheets = book
            .stylesheets
            .iter()
            .map(|s| crate::href::href(&crate::xref::asset_path(s, crate::xref::AssetKind::Style)))
            .collect();
        Ok(Templates {
            texts,
            ctx,
            stylesheets,
        })
    }

    /// A hash of the templates' texts.
    pub fn digest(&self) -> &str {
        &self.texts.digest
    }
}

/// The cover going into the EPUB: rendered from the cover template, or the book's own image.
pub(super) enum CoverImage<'a> {
    Rendered(Result<Vec<u8>>),
    File(&'a Path),
}

/// The written chapters, in reading order, and the cover.
pub(super) struct Written<'a> {
    pub pages: Vec<Result<WrittenPage>>,
    pub cover: CoverImage<'a>,
}

/// A chapter's page: its href, and the page, made now or taken from the page cache (with the
/// key the cache keeps it under: what its bytes are known by).
pub(super) struct WrittenPage {
    pub href: String,
    pub page: Shipped,
}

/// Writes every chapter's page, taking unchanged ones from the page cache. A chapter's
/// document is let go once its page is made: the documents are the largest thing a build
/// holds, and nothing after this reads them.
pub(super) fn write<'a>(
    project: &Project,
    book: &'a Book,
    chain: &Chain,
    templates: &Templates,
    resolved: &mut Resolved,
    log: &mut Vec<String>,
) -> Written<'a> {
    let messages = book.locale.messages(&book.meta.language);
    let page_cache = page_cache(project, book, chain, templates);
    let keys = page_keys(&page_cache, resolved);
    let to_write: Vec<bool> = keys
        .iter()
        .map(|key| match (&page_cache, key) {
            (Some(cache), Some(key)) => !cache.holds(key),
            _ => true,
        })
        .collect();
    let highlights = highlight_listings(project, book, resolved, &to_write);
    if highlights.wanted > 0 {
        let rest = if highlights.made == highlights.wanted {
            String::new()
        } else {
            "; the others were highlighted before".to_string()
        };
        log.push(format!(
            "highlighted {} of {}{rest}\n",
            highlights.made,
            crate::report::plural(highlights.wanted, "listing")
        ));
    }
    let highlights = highlights.listings;
    let write_page = |ch: &Chapter| -> Result<Checked> {
        let mut ctx = templates.ctx.for_page(&ch.href());
        ctx.insert("title", &ch.title);
        ctx.insert("body_class", write::section_type(&ch.source));
        ctx.insert("stylesheets", &templates.stylesheets);
        let body = match ch.lang.as_deref() {
            Some(lang) if lang != book.meta.language => {
                write::write_chapter_with(ch, &book.locale.messages(lang), &highlights)
            }
            _ => write::write_chapter_with(ch, &messages, &highlights),
        };
        ctx.insert("body", BODY_MARK);
        let text = templates.texts.render("chapter.xhtml", &ctx)?;
        let with_body_text = |body: &str| {
            ctx.insert("body", body);
            templates.texts.render("chapter.xhtml", &ctx)
        };
        let fctx = FilterContext {
            book_id: book.id.clone(),
            chapter: ch.href(),
            language: ch
                .lang
                .clone()
                .unwrap_or_else(|| book.meta.language.clone()),
            book_root: book.root.clone(),
        };
        chapter_page(
            &text,
            body,
            with_body_text,
            "chapter.xhtml",
            (chain, &fctx, &ch.source.rel),
        )
    };
    // Each page, and whether it was written (not taken from the cache). A chapter's document
    // comes back to this thread once its page is made, to be freed and given back here, while
    // the pages are written (see `crate::memory`).
    // Counted from here: the closure may run on another thread, which builds no book.
    let tick = crate::term::progress::count("pages written", resolved.chapters.len());
    let (done_with, read_back) = std::sync::mpsc::channel::<Document>();
    let mut write_chapters = |done_with: std::sync::mpsc::Sender<Document>| {
        resolved
            .chapters
            .par_iter_mut()
            .zip(&keys)
            .zip(&resolved.unloaded)
            .map_with(done_with, |done_with, ((ch, key), unloaded)| {
                let made = match (&page_cache, key) {
                    (Some(cache), Some(key)) if let Some(page) = cache.kept(key) => {
                        let href = ch.href();
                        (Ok(WrittenPage { href, page }), false)
                    }
                    // Checked before (`unloaded_pages_kept`): gone since.
                    _ if *unloaded => (
                        Err(page_gone(&project.kept_dir(Kept::Pages, &book.id))),
                        false,
                    ),
                    _ => {
                        let page = write_page(ch);
                        if let (Some(cache), Some(key), Ok(page)) = (&page_cache, key, &page) {
                            cache.put(key, page);
                        }
                        let written = page.map(|page| {
                            // (A page only stands for its key when the cache holds it.)
                            let key = key.clone().filter(|_| page_cache.is_some());
                            WrittenPage {
                                href: ch.href(),
                                page: page.shipped(key),
                            }
                        });
                        (written, true)
                    }
                };
                let emptied = Document::new(&ch.doc.source);
                let doc = std::mem::replace(&mut ch.doc, emptied);
                // Only a way to free memory sooner: a document not sent is freed here.
                let _ = done_with.send(doc);
                // And what this thread read of the documents freed so far is freed now.
                crate::memory::collect();
                tick.tick();
                made
            })
            .collect::<Vec<(Result<WrittenPage>, bool)>>()
    };
    // The generated cover is rendered beside the chapters: it takes as long as a dozen.
    let make_cover = || match &book.cover {
        Cover::Generated => CoverImage::Rendered(
            pages::cover_svg(&templates.texts, &templates.ctx, book)
                .and_then(|svg| cover_png(project, &svg)),
        ),
        Cover::Image(rel) => CoverImage::File(rel),
    };
    let mut write_both = |done_with| rayon::join(make_cover, || write_chapters(done_with));
    let (cover, chapter_pages) = if rayon::current_thread_index().is_some() {
        // On a worker of the pool (`seihon ci` builds books side by side), this thread must
        // not wait on the channel: the work it waits for may be queued behind it. The
        // documents are freed where their pages are made.
        drop(read_back);
        write_both(done_with)
    } else {
        let mut made = None;
        rayon::in_place_scope(|s| {
            s.spawn(|_| made = Some(write_both(done_with)));
            // Given back at most every few milliseconds: a book of thousands of small
            // chapters would otherwise make thousands of system calls.
            let mut given_back = std::time::Instant::now();
            for doc in read_back {
                drop(doc);
                if given_back.elapsed() >= std::time::Duration::from_millis(5) {
                    crate::memory::give_back();
                    given_back = std::time::Instant::now();
                }
            }
        });
        let Some(made) = made else {
            unreachable!("in_place_scope returns once what it spawned has run")
        };
        // The workers' share too: what they freed (the documents read there, the pages' trees)
        // would stay resident while this thread assembles the package.
        crate::memory::give_back_everywhere();
        made
    };
    if let Some(cache) = &page_cache {
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
        "chapter page",
        &written,
        chapter_pages.len(),
        "the others are as they were",
    ));
    let pages = chapter_pages.into_iter().map(|(page, _)| page).collect();
    Written { pages, cover }
}

/// The error of a chapter page the page cache (in `dir`) held when the build began and lost
/// since (another build of the same book, or the cache folder removed meanwhile).
pub(super) fn page_gone(dir: &Path) -> Error {
    crate::files::Later::lost(dir)
}

/// The page cache: each page whole, and apart what the package takes of it but its text (so
/// that a kept page is taken without reading its text: see [`super::page::Body::Kept`]), with
/// the key part every page shares.
struct PageCache {
    base: crate::cache::Key,
    pages: std::sync::Arc<crate::cache::Cache<Checked>>,
    heads: crate::cache::Cache<Head>,
}

impl PageCache {
    /// Whether the page under `key` is kept, whole and its head.
    fn holds(&self, key: &str) -> bool {
        self.heads.contains(key) && self.pages.contains(key)
    }

    /// The page under `key` as the package takes it, its text left in the cache.
    fn kept(&self, key: &str) -> Option<Shipped> {
        if !self.pages.contains(key) {
            return None;
        }
        let head = self.heads.get(key)?;
        let (pages, at) = (self.pages.clone(), key.to_string());
        let text = crate::files::Later::new(move || {
            let page = pages.get_head::<TextOf>(&at);
            if page.is_none() {
                // Damaged since it was found: the next build writes every page again.
                pages.discard();
            }
            Some(page?.text.into_bytes())
        });
        let key = key.to_string();
        Some(Shipped {
            head,
            body: Body::Kept { text, key },
        })
    }

    fn put(&self, key: &str, page: &Checked) {
        self.pages.put(key, page);
        self.heads.put(key, &page.head());
    }

    fn keep_only(&self, used: &std::collections::HashSet<String>) {
        self.pages.keep_only(used);
        self.heads.keep_only(used);
    }
}

/// Finished pages are kept by what they depend on: a rebuild writes only the chapters that
/// changed (or whose references into other chapters did). None with an external filter, whose
/// output may depend on anything.
fn page_cache(
    project: &Project,
    book: &Book,
    chain: &Chain,
    templates: &Templates,
) -> Option<PageCache> {
    chain.fingerprint().map(|filters| {
        let base = templates
            .ctx
            .key()
            .clone()
            .bytes(templates.digest().as_bytes())
            .bytes(filters)
            .value(&(
                &templates.stylesheets,
                &book.locale,
                &book.id,
                &book.meta.language,
            ))
            .value(&book.root);
        PageCache {
            base,
            pages: std::sync::Arc::new(crate::cache::Cache::new(
                project.kept_dir(Kept::Pages, &book.id),
            )),
            heads: crate::cache::Cache::new(project.kept_dir(Kept::PageHeads, &book.id)),
        }
    })
}

/// Each chapter's page key (`None` without a page cache): the book's part and the chapter's
/// digest (every field of it as resolved, see [`crate::xref::chapter_digest`]).
fn page_keys(cache: &Option<PageCache>, resolved: &Resolved) -> Vec<Option<String>> {
    (resolved.digests.iter())
        .map(|digest| {
            let cache = cache.as_ref()?;
            cache.base.clone().value(digest.as_ref()?).finish()
        })
        .collect()
}

/// Whether the page cache holds the pages of every chapter resolving left unloaded (see
/// [`Resolved::unloaded`]): they cannot be written again without their documents.
pub(super) fn unloaded_pages_kept(
    project: &Project,
    book: &Book,
    chain: &Chain,
    templates: &Templates,
    resolved: &Resolved,
) -> bool {
    let page_cache = page_cache(project, book, chain, templates);
    let keys = page_keys(&page_cache, resolved);
    (resolved.unloaded.iter().zip(&keys)).all(|(&unloaded, key)| {
        !unloaded || matches!((&page_cache, key), (Some(cache), Some(key)) if cache.holds(key))
    })
}

/// The listings of the chapters to be written (`to_write`), highlighted before any page is:
/// from `build/.cache/highlights/` when this seihon highlighted the same text in the same
/// language before, else all at once in parallel (a chapter of a hundred listings no longer
/// holds one core while the other waits). The cache keeps every listing of the book, so that
/// editing one chapter highlights only the listings that changed.
fn highlight_listings(
    project: &Project,
    book: &Book,
    resolved: &mut Resolved,
    to_write: &[bool],
) -> Highlighted {
    use std::collections::HashSet;
    let mut all: HashSet<(String, String)> = HashSet::new();
    let mut wanted: HashSet<(String, String)> = HashSet::new();
    for (ch, &write) in resolved.chapters.iter_mut().zip(to_write) {
        crate::xref::visit::visit_blocks_mut(&mut ch.doc.blocks, &mut |b| {
            if let crate::doc::BlockKind::Code(c) = &b.kind
                && let (None, Some(lang)) = (&c.markup, &c.language)
            {
                let listing = (lang.clone(), c.text.clone());
                if write {
                    wanted.insert(listing.clone());
                }
                all.insert(listing);
            }
        });
    }
    let mut highlights = crate::highlight::Highlights::default();
    if all.is_empty() {
        return Highlighted {
            listings: highlights,
            made: 0,
            wanted: 0,
        };
    }
    let cache = crate::cache::Cache::<Option<crate::highlight::Spans>>::new(
        project.kept_dir(Kept::Highlights, &book.id),
    );
    let key = |(lang, text): &(String, String)| {
        crate::cache::Key::new("highlight")
            .bytes(lang.as_bytes())
            .bytes(text.as_bytes())
            .finish()
    };
    let wanted: Vec<(String, String)> = wanted.into_iter().collect();
    let tick = crate::term::progress::count("listings highlighted", wanted.len());
    // Each listing's highlighting, and whether it was made now (not taken from the cache).
    let done: Vec<(Option<Option<crate::highlight::Spans>>, bool)> = wanted
        .par_iter()
        .map(|listing| {
            let key = key(listing);
            if let Some(cached) = key.as_ref().and_then(|k| cache.get(k)) {
                tick.tick();
                return (Some(cached), false);
            }
            let spans = crate::highlight::highlight_spans(&listing.1, &listing.0);
            if let (Some(k), Some(spans)) = (&key, &spans) {
                cache.put(k, spans);
            }
            tick.tick();
            (spans, true)
        })
        .collect();
    let made = done.iter().filter(|(_, now)| *now).count();
    let count = wanted.len();
    for ((lang, text), (spans, _)) in wanted.into_iter().zip(done) {
        // Spans that cannot be kept: the listing is highlighted with its page.
        if let Some(spans) = spans {
            highlights.insert(lang, text, spans);
        }
    }
    // Chapters left unloaded have listings too, which `all` does not hold.
    if !resolved.has_unloaded() {
        let used: HashSet<String> = all.par_iter().filter_map(key).collect();
        cache.keep_only(&used);
    }
    Highlighted {
        listings: highlights,
        made,
        wanted: count,
    }
}

/// The listings highlighted ahead of the pages: how many the pages to write show, and how
/// many of those were highlighted now (the rest came from the cache).
struct Highlighted {
    listings: crate::highlight::Highlights,
    made: usize,
    wanted: usize,
}

/// The generated cover as PNG: rendering takes as long as writing a dozen chapters, so the
/// image is kept in `build/.cache/covers/` by the SVG's hash and rendered only when the SVG
/// (title, authors, template) changes.
fn cover_png(project: &Project, svg: &str) -> Result<Vec<u8>> {
    let key = crate::cache::Key::new("cover")
        .bytes(svg.as_bytes())
        .finish();
    let cached = key.map(|key| project.cache_file("covers").join(format!("{key}.png")));
    if let Some(cached) = &cached
        && let Ok(png) = std::fs::read(cached)
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
    if let Some(cached) = &cached {
        let _ = crate::files::write_atomic(cached, &png);
    }
    Ok(png)
}
