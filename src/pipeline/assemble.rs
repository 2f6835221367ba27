//! Assemble the package: the written chapters → the EPUB's whole tree in memory, with the
//! generated pages (cover, title page, nav, colophon from the templates), style sheets, images,
//! the NCX and the package document listing them in its manifest and spine.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::book::Book;
use crate::book::StaticPage;
use crate::epub;
use crate::error::{Error, Location, Result};
use crate::pages::toc::{self, TocNode};
use crate::pages::{self, Keyed, ManifestItem, Slot, SpineItem};
use crate::project::{Kept, Project};
use crate::stage::{self, Tree};
use crate::xref::{self, Chapter, Resolved};

use super::chapters::{CoverImage, Templates, Written, WrittenPage};
use super::claims;
use super::page::{Body, Checked, Shipped, checked_xhtml};

/// The book's EPUB, assembled from its written chapters: cover, title page, nav, chapters and
/// colophon in reading order, then the style sheets, images, NCX and package document.
pub(super) fn package(
    project: &Project,
    book: &Book,
    resolved: &Resolved,
    templates: &Templates,
    written: Written,
    log: &mut Vec<String>,
) -> Result<Package> {
    let mut made = Made::new(project, book, templates);
    let mut pkg = package_with(&mut made, book, resolved, templates, written)?;
    pkg.page_cache = project.kept_dir(Kept::Pages, &book.id);
    // How much was made again, as for the chapters' pages.
    log.push(super::read::how_much_again(
        "rendered",
        "generated file",
        &made.rendered,
        made.used.len(),
        "the others are as they were",
    ));
    made.finish();
    Ok(pkg)
}

fn package_with(
    made: &mut Made,
    book: &Book,
    resolved: &Resolved,
    templates: &Templates,
    written: Written,
) -> Result<Package> {
    let page_ctx = &templates.ctx;
    let mut pkg = Package::default();
    pkg.tree.add("mimetype", epub::MIMETYPE);
    pkg.tree.add("META-INF/container.xml", CONTAINER_XML);

    let cover_href = pkg.add_cover(book, written.cover)?;
    let mut ctx = page_ctx.for_page_keyed(pages::COVER_PAGE);
    ctx.insert("cover_href", &crate::href::href(&cover_href));
    let cover = made.page("cover.xhtml", &ctx)?;
    pkg.add_checked("cover", pages::COVER_PAGE, cover);
    let messages = book.locale.messages(&book.meta.language);
    let index =
        (resolved.index.as_ref()).map(|i| (i, pages::index_page(&resolved.chapters, i, &messages)));
    let own_index = index.as_ref().is_some_and(|(_, at)| at.chapter.is_none());
    let order = pages::reading_order(&resolved.chapters, book.generated, own_index);
    let mut written: Vec<Option<_>> = written.pages.into_iter().map(Some).collect();
    // What the content pages hold, for the accessibility claims.
    let mut facts = super::page::Facts::default();
    let mut nav_has_pages = false;
    for slot in &order {
        match *slot {
            Slot::Cover => {}
            Slot::TitlePage => {
                pkg.add_generated(made, templates, "titlepage", pages::TITLE_PAGE)?
            }
            Slot::Nav => {
                let (nav, key) =
                    made.page_known("nav.xhtml", &page_ctx.for_page_keyed(pages::NAV))?;
                nav_has_pages = nav.facts.page_list;
                let mut nav = nav.shipped(key);
                nav.head.properties = join_props("nav", &nav.head.properties);
                pkg.add_shipped("nav", pages::NAV, nav);
            }
            Slot::Chapter(ci) => {
                let ch = &resolved.chapters[ci];
                let Some(page) = written[ci].take() else {
                    continue;
                };
                let WrittenPage { href, page } = page?;
                // The index takes the place of the chapter that marks where it goes.
                if let Some((i, at)) = index.as_ref().filter(|(_, at)| at.chapter == Some(ci)) {
                    let title_id = pages::chapter_entry(ch).map(|e| e.id.as_str());
                    pkg.add_index(made, templates, i, at, title_id)?;
                    continue;
                }
                facts.add(page.head.facts);
                pkg.add_shipped(&chapter_id(ch), &href, page);
            }
            Slot::Index => {
                if let Some((i, at)) = &index {
                    pkg.add_index(made, templates, i, at, None)?;
                }
            }
            Slot::Colophon => {
                pkg.add_generated(made, templates, "colophon", pages::COLOPHON_PAGE)?;
            }
        }
    }

    // Style sheets and images.
    let css = made.text("book.css", &page_ctx.for_page_keyed(pages::CSS))?
        + &crate::highlight::stylesheet();
    pkg.tree.add(format!("{PACKAGE_DIR}/{}", pages::CSS), css);
    pkg.manifest.push(item("css", pages::CSS, "text/css", ""));
    for (i, sheet) in resolved.stylesheets.iter().enumerate() {
        let at = format!("{PACKAGE_DIR}/{}", sheet.href);
        match &sheet.text {
            Some(text) => pkg.tree.add(at, text.clone()),
            None => pkg.tree.copy(at, &sheet.source),
        }
        pkg.manifest
            .push(item(&format!("css-{}", i + 1), &sheet.href, "text/css", ""));
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
    let mut ctx = page_ctx.for_page_keyed(pages::NCX);
    let tree = ncx_tree(resolved, page_ctx, &order, index.as_ref().map(|(_, at)| at));
    let depth = tree.iter().map(TocNode::depth).max().unwrap_or(1);
    // Keyed by the tree they are numbered from; made only when the NCX is rendered.
    ctx.note_bytes("ncx_points", &toc::tree_bytes(&tree));
    ctx.insert("ncx_depth", &depth);
    let (ncx, known) = made.text_known_with("toc.ncx", &ctx, |c| {
        c.insert("ncx_points", &toc::ncx_points(&tree))
    })?;
    pkg.tree
        .add_known(format!("{PACKAGE_DIR}/{}", pages::NCX), ncx, known);
    pkg.manifest
        .push(item("ncx", pages::NCX, "application/x-dtbncx+xml", ""));

    let mut ctx = page_ctx.for_page_keyed(OPF);
    ctx.note("manifest", &pkg.manifest);
    ctx.note("spine", &pkg.spine);
    let nav = claims::Navigation {
        index: index.is_some(),
        page_list: nav_has_pages,
        page_breaks: resolved.chapters.iter().any(|c| !c.pages.is_empty()),
        vertical: book.meta.writing == crate::book::Writing::Vertical,
    };
    let ja = book.meta.language.starts_with("ja");
    ctx.insert(
        "a11y",
        &claims::claims(&facts, nav, &book.accessibility, ja),
    );
    let isbn_identifier = book
        .meta
        .isbn
        .as_ref()
        .map(|i| format!("urn:isbn:{}", i.replace(['-', ' '], "")))
        .filter(|urn| *urn != book.meta.identifier);
    ctx.insert("isbn_identifier", &isbn_identifier);
    // What the page list follows: `page_source:`, else the print edition's ISBN.
    let print_isbn =
        (book.meta.print_isbn.as_ref()).map(|i| format!("urn:isbn:{}", i.replace(['-', ' '], "")));
    let page_source = book.meta.page_source.clone().or_else(|| print_isbn.clone());
    ctx.insert("print_isbn", &print_isbn);
    ctx.insert("page_source", &page_source);
    let (opf, known) = made.text_known_with("package.opf", &ctx, |c| {
        c.insert("manifest", &pkg.manifest);
        c.insert("spine", &pkg.spine);
    })?;
    pkg.tree
        .add_known(format!("{PACKAGE_DIR}/{OPF}"), opf, known);
    Ok(pkg)
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
pub(super) struct Package {
    pub tree: Tree,
    manifest: Vec<ManifestItem>,
    spine: Vec<SpineItem>,
    /// Where the elements of the XHTML pages seihon wrote came from, by path in the EPUB (an
    /// entry for every such page but those in `kept_sources`): how a finding in a page finds
    /// its source.
    sources: crate::check::Sources,
    /// The pages taken from the page cache, whose source positions were left there: each
    /// one's key in the cache, by path in the EPUB.
    kept_sources: BTreeMap<String, String>,
    /// The page cache's folder.
    page_cache: PathBuf,
    /// The page cache, opened the first time kept source positions are asked for.
    opened: std::sync::OnceLock<crate::cache::Cache<Checked>>,
}

impl Package {
    /// The EPUB's files as checks see them: pages, style sheets and documents as text, other
    /// resources only by name.
    pub fn check_view(&self) -> crate::check::Files<'_> {
        use crate::check::FileBytes;
        use std::borrow::Cow;
        self.tree
            .entries()
            .map(|(path, content)| {
                let bytes = match content {
                    stage::Content::Bytes(b) => b.as_slice().into(),
                    stage::Content::Copy(from) if path.ends_with(".css") => {
                        std::fs::read(from).unwrap_or_default().into()
                    }
                    stage::Content::Copy(_) => FileBytes::Here(Cow::Borrowed(&[][..])),
                    stage::Content::Later(later) => FileBytes::Later(later),
                };
                (path.to_string(), bytes)
            })
            .collect()
    }

    /// The page cache the kept pages' source positions are read from.
    fn page_cache(&self) -> &crate::cache::Cache<Checked> {
        (self.opened).get_or_init(|| crate::cache::Cache::new(&self.page_cache))
    }

    /// The source positions of the pages that have them here (all but the kept pages').
    pub fn sources_here(&self) -> &crate::check::Sources {
        &self.sources
    }

    /// The source positions of the page at `path` that were left in the page cache, read now.
    pub fn kept_sources_of(&self, path: &str) -> crate::check::KeptMarks {
        use crate::check::KeptMarks;
        let Some(key) = self.kept_sources.get(path) else {
            return KeptMarks::NotKept;
        };
        match self.page_cache().get(key) {
            Some(page) => KeptMarks::Read(page.sources),
            None => KeptMarks::Lost,
        }
    }

    /// The source positions of every page, those left in the page cache read now: what the
    /// book's programs, the store profiles and epubcheck map their findings with.
    pub fn all_sources(&mut self) -> Result<&crate::check::Sources> {
        if !self.kept_sources.is_empty() {
            for (path, key) in std::mem::take(&mut self.kept_sources) {
                let Some(page) = self.page_cache().get(&key) else {
                    return Err(super::chapters::page_gone(&self.page_cache));
                };
                self.sources.insert(path, page.sources);
            }
        }
        Ok(&self.sources)
    }

    /// Adds an XHTML page; its source positions go beside it, or stay where they are kept.
    fn add_xhtml(&mut self, path: String, body: Body) {
        match body {
            Body::Made { text, sources, key } => {
                self.tree.add_known(path.clone(), text, key);
                self.kept_sources.remove(&path);
                self.sources.insert(path, sources);
            }
            Body::Kept { text, key } => {
                self.tree.add_later(path.clone(), text, key.clone());
                self.sources.remove(&path);
                self.kept_sources.insert(path, key);
            }
        }
    }
}

impl Package {
    /// Adds a page made from the template named `<id>.xhtml` and the page context alone (the
    /// title page, the colophon).
    fn add_generated(
        &mut self,
        made: &mut Made,
        templates: &Templates,
        id: &str,
        href: &str,
    ) -> Result<()> {
        let page = made.page(&format!("{id}.xhtml"), &templates.ctx.for_page_keyed(href))?;
        self.add_checked(id, href, page);
        Ok(())
    }

    /// Adds the index page, made from the book's index through `index.xhtml`; `title_id` is
    /// the id of the title of the chapter whose place it takes, which links may go to.
    fn add_index(
        &mut self,
        made: &mut Made,
        templates: &Templates,
        index: &xref::BookIndex,
        at: &pages::IndexPage,
        title_id: Option<&str>,
    ) -> Result<()> {
        let mut ctx = templates.ctx.for_page_keyed(&at.href);
        ctx.insert("index", index);
        ctx.insert("index_title", &at.title);
        ctx.insert("index_id", &title_id);
        ctx.insert("index_see", &at.see);
        ctx.insert("index_see_also", &at.see_also);
        ctx.insert("stylesheets", &templates.stylesheets);
        let page = made.page("index.xhtml", &ctx)?;
        self.add_checked("bookindex", &at.href, page);
        Ok(())
    }

    /// Adds a checked page to the tree, the manifest and (in reading order) the spine.
    fn add_checked(&mut self, id: &str, href: &str, checked: Checked) {
        self.add_shipped(id, href, checked.shipped(None));
    }

    /// [`Package::add_checked`], for a page as the package takes it (see [`Shipped`]).
    fn add_shipped(&mut self, id: &str, href: &str, page: Shipped) {
        self.manifest.push(ManifestItem {
            id: id.into(),
            href: crate::href::href(href),
            media_type: "application/xhtml+xml".into(),
            properties: page.head.properties,
        });
        self.spine.push(SpineItem {
            idref: id.into(),
            linear: true,
        });
        self.add_xhtml(format!("{PACKAGE_DIR}/{href}"), page.body);
    }

    /// Adds the cover image: the rendered one, or the book's own once it is found to be an
    /// image an EPUB can carry. Gives its href in the package.
    fn add_cover(&mut self, book: &Book, cover: CoverImage) -> Result<String> {
        match cover {
            CoverImage::Rendered(png) => {
                let png = png?;
                self.tree
                    .add(format!("{PACKAGE_DIR}/{}", pages::GENERATED_COVER), png);
                self.manifest.push(item(
                    "cover-image",
                    pages::GENERATED_COVER,
                    "image/png",
                    "cover-image",
                ));
                Ok(pages::GENERATED_COVER.to_string())
            }
            CoverImage::File(rel) => {
                let href = cover_file(book, rel)?;
                let media_type = xref::media_type(rel).unwrap_or("image/png");
                self.tree
                    .copy(format!("{PACKAGE_DIR}/{href}"), book.root.join(rel));
                self.manifest
                    .push(item("cover-image", &href, media_type, "cover-image"));
                Ok(href)
            }
        }
    }
}

/// Where the book's own cover image goes in the package, once it is found to be a PNG, JPEG,
/// GIF, SVG or WebP image that can be read.
fn cover_file(book: &Book, rel: &Path) -> Result<String> {
    let loc = Location::file(&book.config_path);
    let Some(media_type) = xref::media_type(rel).filter(|t| t.starts_with("image/")) else {
        return Err(Error::at(
            crate::codes::COVER_IMAGE,
            loc,
            format!(
                "the cover `{}` is not a PNG, JPEG, GIF, SVG or WebP image",
                rel.display()
            ),
        ));
    };
    if media_type != "image/svg+xml" && imagesize::size(book.root.join(rel)).is_err() {
        return Err(Error::at(
            crate::codes::COVER_IMAGE,
            loc,
            format!(
                "the cover image `{}` cannot be read: the file is damaged or not an image",
                rel.display()
            ),
        ));
    }
    Ok(format!(
        "image/cover.{}",
        rel.extension()
            .and_then(|e| e.to_str())
            .unwrap_or("png")
            .to_ascii_lowercase()
    ))
}

/// The NCX's tree: the nav's table of contents, with the pages the nav lists apart (the cover,
/// the contents themselves, the colophon) in their places of the reading order.
fn ncx_tree(
    resolved: &Resolved,
    page_ctx: &pages::PageContext,
    order: &[Slot],
    index: Option<&pages::IndexPage>,
) -> Vec<TocNode> {
    let toc = page_ctx.toc();
    let mut tree = Vec::new();
    for slot in order {
        let from_toc: Vec<TocNode> = (toc.iter())
            .filter(|(s, _)| s == slot)
            .map(|(_, n)| n.clone())
            .collect();
        if !from_toc.is_empty() {
            tree.extend(from_toc);
            continue;
        }
        let (href, label) = match *slot {
            Slot::Cover => (pages::COVER_PAGE.into(), page_ctx.label("cover")),
            Slot::Nav => (pages::NAV.into(), page_ctx.label("toc")),
            // The book's own colophon, which the contents do not list.
            Slot::Chapter(ci)
                if resolved.chapters[ci].source.page == Some(StaticPage::Colophon) =>
            {
                let c = &resolved.chapters[ci];
                (c.href(), c.title.clone())
            }
            Slot::Index => match index {
                Some(at) if at.chapter.is_none() => (at.href.clone(), at.title.clone()),
                _ => continue,
            },
            Slot::Colophon => (pages::COLOPHON_PAGE.into(), page_ctx.label("colophon")),
            Slot::Chapter(_) | Slot::TitlePage => continue,
        };
        tree.push(TocNode::leaf(label, href));
    }
    tree
}

/// A manifest item for the file at `path` inside the package folder.
fn item(id: &str, path: &str, media_type: &str, properties: &str) -> ManifestItem {
    ManifestItem {
        id: id.into(),
        href: crate::href::href(path),
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

/// The generated pages and files, rendered from the templates or taken from
/// `build/.cache/generated/`, where they are kept by the templates' texts and everything their
/// context holds ([`Keyed`]): an edit to a chapter's running text leaves the nav, the NCX and
/// the package document as they were, and they are neither rendered nor parsed again. No
/// filter runs on them, so nothing else goes into what they are.
struct Made<'t> {
    /// Parsed only when something is rendered.
    templates: &'t Templates,
    /// XHTML pages, checked.
    pages: crate::cache::Cache<Checked>,
    /// Style sheets, the NCX, the package document.
    texts: crate::cache::Cache<String>,
    used: std::collections::HashSet<String>,
    /// The templates this build rendered (not taken from the cache).
    rendered: Vec<String>,
}

impl<'t> Made<'t> {
    fn new(project: &Project, book: &Book, templates: &'t Templates) -> Self {
        let dir = project.kept_dir(Kept::Generated, &book.id);
        Made {
            templates,
            pages: crate::cache::Cache::new(dir.join("pages")),
            texts: crate::cache::Cache::new(dir.join("texts")),
            used: Default::default(),
            rendered: Vec::new(),
        }
    }

    /// The key of what `template` makes from `ctx`, noted as used by this build.
    fn key(&mut self, template: &str, ctx: &Keyed) -> Option<String> {
        let key = (ctx.key().clone())
            .bytes(b"generated")
            .bytes(self.templates.digest().as_bytes())
            .bytes(template.as_bytes())
            .finish()?;
        self.used.insert(key.clone());
        Some(key)
    }

    /// The XHTML page `template` makes from `ctx`, checked.
    fn page(&mut self, template: &str, ctx: &Keyed) -> Result<Checked> {
        self.page_known(template, ctx).map(|(page, _)| page)
    }

    /// [`Made::page`], with the key it is kept under: what its bytes are known by.
    fn page_known(&mut self, template: &str, ctx: &Keyed) -> Result<(Checked, Option<String>)> {
        let key = self.key(template, ctx);
        let (templates, rendered) = (self.templates, &mut self.rendered);
        let page = kept(&self.pages, key.clone(), || {
            rendered.push(template.to_string());
            checked_xhtml(&templates.texts.render(template, &ctx.context())?, template)
        })?;
        Ok((page, key))
    }

    /// The text `template` makes from `ctx`.
    fn text(&mut self, template: &str, ctx: &Keyed) -> Result<String> {
        self.text_known(template, ctx).map(|(text, _)| text)
    }

    /// [`Made::text`], with the key it is kept under.
    fn text_known(&mut self, template: &str, ctx: &Keyed) -> Result<(String, Option<String>)> {
        self.text_known_with(template, ctx, |_| {})
    }

    /// [`Made::text_known`] from a context `fill` completes with what was only noted in its
    /// key (see [`Keyed::note`]), when the text is rendered.
    fn text_known_with(
        &mut self,
        template: &str,
        ctx: &Keyed,
        fill: impl FnOnce(&mut tera::Context),
    ) -> Result<(String, Option<String>)> {
        let key = self.key(template, ctx);
        let (templates, rendered) = (self.templates, &mut self.rendered);
        let text = kept(&self.texts, key.clone(), || {
            rendered.push(template.to_string());
            templates.texts.render(template, &ctx.context_with(fill))
        })?;
        Ok((text, key))
    }

    /// Keeps what this build used, and only that.
    fn finish(self) {
        self.pages.keep_only(&self.used);
        self.texts.keep_only(&self.used);
    }
}

/// What `cache` keeps under `key`, else what `make` makes (kept there when it is made).
fn kept<T: serde::Serialize + serde::de::DeserializeOwned>(
    cache: &crate::cache::Cache<T>,
    key: Option<String>,
    make: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if let Some(hit) = key.as_ref().and_then(|k| cache.get(k)) {
        return Ok(hit);
    }
    let made = make()?;
    if let Some(key) = key {
        cache.put(&key, &made);
    }
    Ok(made)
}
