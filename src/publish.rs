//! Publish: a book's result → its preview area `<preview_dir>/<id>/` (default `public/<id>/`).
//!
//! The area holds the EPUB, its unpacked tree under `book/`, `index.html` (cover, pages, build
//! status with time and commit, findings, log, and what changed since the previous build),
//! `status.json` and `build.log`. It is written beside the old one and swapped in, so a reader
//! never sees half of it. A failed build keeps the last good EPUB and pages byte for byte, and
//! only the index and status say that they are stale and why.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dom;
use crate::error::{Error, Result};
use crate::files::Source;
use crate::project::{Kept, Project};
use crate::report::{BookReport, ReportFinding};
use crate::textdiff::{TextChange, page_text, passages};

/// `status.json`: what the index shows, for tools and for the watch server.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Status {
    pub book: String,
    pub ok: bool,
    /// The pages are from an earlier good build (this one failed).
    pub stale: bool,
    /// When this build ran (UTC).
    pub time: String,
    pub commit: Option<String>,
    pub failed_stage: Option<String>,
    /// When the pages shown were built, and from which commit.
    pub last_good_time: Option<String>,
    pub last_good_commit: Option<String>,
    pub findings: Vec<ReportFinding>,
    /// Paths under `book/` added, removed and changed since the previous good build; `None`
    /// for the first one.
    pub changes: Option<Changes>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
    /// The changed pages whose text changed, with the passages that did (a status.json of
    /// before these has none).
    #[serde(default)]
    pub pages: Vec<PageChange>,
    /// Changed pages past the first [`PAGES_COMPARED`], whose text is not compared: a new
    /// template changes every page, and nobody reads thousands of diffs in an index.
    #[serde(default)]
    pub pages_not_compared: usize,
}

/// How many changed pages have their text compared in one preview.
pub const PAGES_COMPARED: usize = 50;

/// What changed in the running text of one changed page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageChange {
    /// Under `book/`.
    pub path: String,
    /// Its title, else its first heading, else its path.
    pub title: String,
    pub text: TextChange,
}

/// The unpacked EPUB's folder inside a book's preview.
const TREE: &str = "book";

/// What a preview shows of one build: its report and its log.
pub struct Published<'a> {
    pub report: &'a BookReport,
    pub log: &'a str,
    /// What the build learnt that the preview would otherwise look up again.
    pub known: &'a crate::pipeline::Known,
}

/// Publishes one book's result into its preview folder, which it returns.
pub fn publish(
    project: &Project,
    book_dir: &Path,
    built: &Published,
    commit: Option<&str>,
) -> Result<PathBuf> {
    // Named by the book's id, as its EPUB is (and its report, when the build got that far).
    let id = match built.report.book.as_str() {
        "" => project.book_id(book_dir).0,
        id => id.to_string(),
    };
    let area = project.preview_dir();
    let dest = area.join(&id);
    std::fs::create_dir_all(&area)
        .map_err(|e| Error::io(&area, "cannot create the preview folder", e))?;
    let previous: Option<Status> = std::fs::read(dest.join("status.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    crate::files::sweep(&area);
    let new = crate::files::temp_dir("preview-", &area)?;
    // The preview before last, kept by the previous publish: its unchanged pages and images
    // stay as they are (see `stage::mirror`). Everything but its tree goes.
    let spare = project.kept_dir(Kept::SparePreview, &id);
    if std::fs::rename(&spare, new.path()).is_ok() {
        for entry in std::fs::read_dir(new.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if entry.file_name() != TREE || !path.is_dir() {
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    }
    let epub_name = format!("{id}.epub");
    let now = crate::epub::iso8601(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    );
    let r = built.report;
    let mut status = Status {
        book: id.clone(),
        ok: r.ok,
        stale: false,
        time: now.clone(),
        commit: commit.map(str::to_string),
        failed_stage: r.failed_stage.clone(),
        last_good_time: None,
        last_good_commit: None,
        findings: r.findings.clone(),
        changes: None,
    };
    // The pages and cover the index links to, when known before the index is laid out.
    let mut listed = None;
    match (&r.epub, r.ok) {
        (Some(epub), true) => {
            let epub = Path::new(epub);
            link_or_copy(epub, &new.path().join(&epub_name))?;
            let tree = new.path().join(TREE);
            let entries = unpack(
                epub,
                &tree,
                &project.stage_dir(&id),
                &crate::epub::Crcs::load(&project.kept_dir(Kept::Crcs, &id)),
                &built.known.stamps,
            )?;
            let previous = dest.join(TREE).is_dir().then(|| dest.join(&epub_name));
            // The text changes of the pages (a diff of each) beside the index's list of them.
            (status.changes, listed) = rayon::join(
                || changes_since(&entries, &tree, previous.as_deref()),
                || Some(pages_and_cover(&tree)),
            );
            status.last_good_time = Some(now);
            status.last_good_commit = status.commit.clone();
        }
        _ => {
            // Keep the last good EPUB and pages exactly as they were.
            if dest.join(&epub_name).is_file() {
                link_or_copy(&dest.join(&epub_name), &new.path().join(&epub_name))?;
                let tree = dest.join(TREE);
                let files = crate::epub::list_files(&tree)?;
                let paths: Vec<PathBuf> = files.iter().map(|rel| tree.join(rel)).collect();
                crate::files::mirror(
                    &new.path().join(TREE),
                    &files
                        .iter()
                        .zip(&paths)
                        .map(|(rel, path)| (rel.as_str(), Source::Link(path, None)))
                        .collect(),
                )?;
                status.stale = true;
                if let Some(prev) = &previous {
                    status.last_good_time = prev.last_good_time.clone();
                    status.last_good_commit = prev.last_good_commit.clone();
                    status.changes = prev.changes.clone();
                }
            }
        }
    }
    write(&new.path().join("build.log"), built.log.as_bytes())?;
    let json = serde_json::to_vec_pretty(&status).expect("status serializes");
    write(&new.path().join("status.json"), &json)?;
    let tree = new.path().join(TREE);
    let listed = listed.unwrap_or_else(|| pages_and_cover(&tree));
    let index = index_html(project, book_dir, &status, listed, built)?;
    write(&new.path().join("index.html"), index.as_bytes())?;
    crate::files::swap_in_keeping(new, &dest, Some(&spare))?;
    Ok(dest)
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(|e| Error::io(path, "cannot write the preview", e))
}

/// Preview files are never written in place (a new preview is a new folder), so a file can be
/// a hard link to the one it copies; a copy where links are not possible.
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    crate::files::link_or_copy(from, to)
        .map_err(|e| Error::io(from, "cannot copy into the preview", e))
}

/// Unpacks the EPUB as packed (what readers get) into `to`, refusing names that leave the
/// folder; returns its entries with their sizes and CRC-32s. A file the staged tree holds as
/// packed (its CRC known from `crcs`, its stamp unchanged) is hard-linked rather than written
/// again, and one `to` already links to is left alone: on large books, creating files was
/// most of the time publishing took.
fn unpack(
    epub: &Path,
    to: &Path,
    staged: &Path,
    crcs: &crate::epub::Crcs,
    stamps: &std::collections::HashMap<String, crate::cache::FileStamp>,
) -> Result<Vec<(String, (u64, u32))>> {
    let zip = open_zip(epub)?;
    let entries = zip_files(&zip);
    let mut unvouched: Vec<(usize, &String)> = Vec::new();
    let mut links: Vec<(&String, PathBuf, Option<crate::files::FileId>)> = Vec::new();
    // Looked at in parallel: a book of images is thousands of stats.
    let held: Vec<Option<Option<crate::files::FileId>>> = {
        use rayon::prelude::*;
        (entries.par_iter())
            .map(|(rel, (size, crc))| {
                // Only a regular file of the staged tree vouches for an entry (a link a hook
                // left there never goes into the preview: the EPUB's bytes do). Staging knows
                // the files it linked.
                let (stamp, id) = match stamps.get(rel) {
                    Some(stamp) => (*stamp, stamp.file_id()),
                    None => {
                        let meta = std::fs::symlink_metadata(staged.join(rel)).ok()?;
                        let stamp =
                            crate::cache::FileStamp::of_meta(&meta).filter(|_| meta.is_file())?;
                        (stamp, crate::files::FileId::of_meta(&meta))
                    }
                };
                (stamp.size() == *size && crcs.get(rel, &stamp) == Some(*crc)).then_some(id)
            })
            .collect()
    };
    for (i, ((rel, _), held)) in entries.iter().zip(held).enumerate() {
        let path = staged.join(rel);
        match held {
            Some(id) => links.push((rel, path, id)),
            None => unvouched.push((i, rel)),
        }
    }
    // The others are unzipped one at a time into a scratch folder beside the tree and linked
    // from there: a book's files are never all in memory at once.
    let beside = to.parent().unwrap_or(Path::new("."));
    let scratch = tempfile::tempdir_in(beside)
        .map_err(|e| Error::io(beside, "cannot create a temporary folder", e))?;
    let mut zip = zip;
    let mut unpacked: Vec<(&String, PathBuf)> = Vec::new();
    for (n, (i, rel)) in unvouched.into_iter().enumerate() {
        let bad = |e: std::io::Error| Error::io(epub, "cannot read the EPUB", e);
        let mut entry = zip.by_index(i).map_err(|e| bad(std::io::Error::other(e)))?;
        let path = scratch.path().join(n.to_string());
        let mut out = std::fs::File::create(&path)
            .map_err(|e| Error::io(&path, "cannot write the preview", e))?;
        std::io::copy(&mut entry, &mut out)
            .map_err(|e| Error::io(&path, "cannot write the preview", e))?;
        unpacked.push((rel, path));
    }
    let files: BTreeMap<&str, Source> = (links.iter())
        .map(|(rel, path, id)| (rel.as_str(), Source::Link(path, *id)))
        .chain(
            unpacked
                .iter()
                .map(|(rel, path)| (rel.as_str(), Source::Link(path, None))),
        )
        .collect();
    crate::files::mirror(to, &files)?;
    drop(scratch);
    Ok(entries)
}

/// What changed in the EPUB whose `entries` are unpacked in `tree` since the `previous`
/// preview's EPUB (by the entries' sizes and CRC-32s), when there was one.
fn changes_since(
    entries: &[(String, (u64, u32))],
    tree: &Path,
    previous: Option<&Path>,
) -> Option<Changes> {
    let mut before_zip = open_zip(previous?).ok()?;
    let before = zip_files(&before_zip);
    let before: BTreeMap<&String, &(u64, u32)> = before.iter().map(|(k, v)| (k, v)).collect();
    let now: BTreeMap<&String, &(u64, u32)> = entries.iter().map(|(k, v)| (k, v)).collect();
    let mut changes = Changes::default();
    for (rel, entry) in &now {
        match before.get(rel) {
            None => changes.added.push(rel.to_string()),
            Some(old) if old != entry => changes.changed.push(rel.to_string()),
            Some(_) => {}
        }
    }
    changes.removed = before
        .keys()
        .filter(|rel| !now.contains_key(*rel))
        .map(|rel| rel.to_string())
        .collect();
    (changes.pages, changes.pages_not_compared) =
        page_changes(&mut before_zip, tree, &changes.changed);
    Some(changes)
}

/// The text changes of the `changed` pages, old from the `previous` EPUB (what the preview
/// showed, whatever became of the files it was unpacked to), new from the unpacked `tree`.
/// Pages whose text reads the same (the markup alone changed) are left out; a page that
/// cannot be read is, too: this is a courtesy of the index, never a reason to fail. Only the
/// first [`PAGES_COMPARED`] pages are compared; how many more changed comes second.
fn page_changes(previous: &mut Zip, tree: &Path, changed: &[String]) -> (Vec<PageChange>, usize) {
    let mut pages: Vec<&String> = changed.iter().filter(|rel| is_page(rel)).collect();
    let more = pages.len().saturating_sub(PAGES_COMPARED);
    pages.truncate(PAGES_COMPARED);
    if pages.is_empty() {
        return (Vec::new(), more);
    }
    let compared = pages
        .into_iter()
        .filter_map(|rel| {
            let old = page_text(&read_entry(previous, rel)?);
            let new = page_text(&String::from_utf8_lossy(
                &std::fs::read(tree.join(rel)).ok()?,
            ));
            let text = passages(&old.text, &new.text);
            (!text.is_empty()).then(|| PageChange {
                path: rel.clone(),
                title: new.title.or(old.title).unwrap_or_else(|| rel.clone()),
                text,
            })
        })
        .collect();
    (compared, more)
}

/// An XHTML content document, by its name (the nav and the cover page are pages too).
fn is_page(rel: &str) -> bool {
    [".xhtml", ".html", ".htm"]
        .iter()
        .any(|ext| rel.to_ascii_lowercase().ends_with(ext))
}

fn read_entry(zip: &mut Zip, rel: &str) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    zip.by_name(rel).ok()?.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

type Zip = zip::ZipArchive<std::io::BufReader<std::fs::File>>;

fn open_zip(epub: &Path) -> Result<Zip> {
    let file = std::fs::File::open(epub).map_err(|e| Error::io(epub, "cannot read the EPUB", e))?;
    zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| Error::io(epub, "cannot read the EPUB", std::io::Error::other(e)))
}

/// The files of an EPUB, from its central directory alone, in its order: `/`-separated path
/// (only those that stay inside the folder), size and CRC-32.
fn zip_files(zip: &Zip) -> Vec<(String, (u64, u32))> {
    (0..zip.len())
        .filter_map(|i| {
            let entry = zip.by_index_data(i).ok()?;
            if entry.is_dir() {
                return None;
            }
            // A plain relative name is its own path; the zip crate's check of every name
            // (thousands in a book of images) took a quarter of a preview.
            let name = entry.name().ok()?;
            let rel = match is_plain_name(&name) {
                true => name.into_owned(),
                false => entry.enclosed_name()?.to_string_lossy().replace('\\', "/"),
            };
            Some((rel, (entry.size(), entry.crc32())))
        })
        .collect()
}

/// A `/`-separated relative name whose every part is a plain file or folder name: what
/// stays inside the folder it is unpacked into, as it is.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('/')
            .all(|part| !matches!(part, "" | "." | "..") && !part.contains(['\\', ':', '\0']))
}

#[derive(Serialize)]
struct PageLink {
    title: String,
    href: String,
}

/// The pages in reading order (from the package document's spine) with their titles, and the
/// cover image, as links from the index.
fn pages_and_cover(tree: &Path) -> (Vec<PageLink>, Option<String>) {
    let read = |rel: &str| std::fs::read_to_string(tree.join(rel)).ok();
    let Some(opf_path) = read("META-INF/container.xml").and_then(|c| {
        let doc = dom::parse_document(&c).ok()?;
        let mut found = None;
        doc.root.walk(&mut |e| {
            if found.is_none() && e.name.ends_with("rootfile") {
                found = e.attr("full-path").map(str::to_string);
            }
        });
        found
    }) else {
        return (Vec::new(), None);
    };
    let Some((listed, spine)) = read(&opf_path).and_then(|t| manifest_and_spine(&t)) else {
        return (Vec::new(), None);
    };
    let base = Path::new(&opf_path)
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let join = |href: &str| {
        if base.is_empty() {
            href.to_string()
        } else {
            format!("{base}/{href}")
        }
    };
    let mut items: BTreeMap<String, String> = BTreeMap::new();
    let mut cover = None;
    for item in listed {
        if item.cover {
            cover = Some(format!("{TREE}/{}", join(&item.href)));
        }
        items.insert(item.id, join(&item.href));
    }
    let pages = spine
        .iter()
        .filter_map(|idref| items.get(idref))
        .map(|rel| {
            let title = read_head(&tree.join(rel))
                .and_then(|t| page_title(&t))
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| rel.clone());
            PageLink {
                title,
                href: format!("{TREE}/{rel}"),
            }
        })
        .collect();
    (pages, cover)
}

/// An item of a package document's manifest, as the index needs it.
#[derive(Debug, PartialEq)]
struct ManifestEntry {
    id: String,
    href: String,
    /// Whether it has the `cover-image` property.
    cover: bool,
}

/// The manifest's items and the spine's `idref`s of a package document, read as a stream of
/// tags (its tree is of no use here, and a book of thousands of images has a large one);
/// `None` when it is not well-formed.
fn manifest_and_spine(opf: &str) -> Option<(Vec<ManifestEntry>, Vec<String>)> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::reader::Reader::from_str(opf);
    let (mut items, mut spine) = (Vec::new(), Vec::new());
    loop {
        let tag = match reader.read_event().ok()? {
            Event::Start(tag) | Event::Empty(tag) => tag,
            Event::Eof => return Some((items, spine)),
            _ => continue,
        };
        let attr = |name: &str| {
            let found = tag.try_get_attribute(name).ok().flatten()?;
            let value = found
                .normalized_value(quick_xml::XmlVersion::default())
                .ok()?;
            Some(value.into_owned())
        };
        match tag.local_name().into_inner() {
            "item" => {
                let (Some(id), Some(href)) = (attr("id"), attr("href")) else {
                    continue;
                };
                let properties = attr("properties").unwrap_or_default();
                let cover = properties.split_whitespace().any(|p| p == "cover-image");
                items.push(ManifestEntry { id, href, cover });
            }
            "itemref" => spine.extend(attr("idref")),
            _ => {}
        }
    }
}

/// The start of a page, up to the end of its `<title>` (the page whole when it has none):
/// reading every page of a large book whole for its title was most of what laying out the
/// index read.
fn read_head(path: &Path) -> Option<String> {
    use std::io::Read;
    const HEAD: u64 = 16 << 10;
    let mut file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    (&mut file).take(HEAD).read_to_end(&mut bytes).ok()?;
    let found = |b: &[u8]| b.windows(8).any(|w| w == b"</title>");
    if bytes.len() as u64 == HEAD && !found(&bytes) {
        file.read_to_end(&mut bytes).ok()?;
    }
    // A cut through a character is left out (the title ended before it).
    Some(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).ok()?
        }
    })
}

/// The text of a page's `<title>`, from that element alone: parsing every page whole for its
/// title was a tenth of a large book's build.
fn page_title(page: &str) -> Option<String> {
    let start = page.find("<title")?;
    // `<title>` or `<title …>`, not `<titlepage`.
    if !matches!(
        page[start + 6..].chars().next(),
        Some('>' | ' ' | '\t' | '\n' | '\r')
    ) {
        return None;
    }
    let end = start + page[start..].find("</title>")? + "</title>".len();
    let doc = dom::parse_document(&page[start..end]).ok()?;
    Some(doc.root.text_content())
}

fn index_html(
    project: &Project,
    book_dir: &Path,
    status: &Status,
    (pages, cover): (Vec<PageLink>, Option<String>),
    built: &Published,
) -> Result<String> {
    let book_root = if book_dir.is_file() {
        book_dir.parent().unwrap_or(Path::new("."))
    } else {
        book_dir
    };
    let opened = || {
        let book = project.open_book(book_dir).ok()?.0;
        Some(crate::pipeline::BookHeading {
            title: book.meta.title,
            language: book.meta.language,
        })
    };
    let heading = built.known.heading.clone().or_else(opened);
    let mut ctx = tera::Context::new();
    ctx.insert(
        "title",
        &heading.as_ref().map_or(&status.book, |h| &h.title),
    );
    ctx.insert("lang", &heading.as_ref().map_or("en", |h| &h.language));
    ctx.insert("pages_compared", &PAGES_COMPARED);
    ctx.insert("epub", &format!("{}.epub", status.book));
    ctx.insert("ok", &status.ok);
    ctx.insert("stale", &status.stale);
    ctx.insert("time", &status.time);
    ctx.insert("commit", &status.commit);
    ctx.insert("failed_stage", &status.failed_stage);
    ctx.insert("last_good_time", &status.last_good_time);
    ctx.insert("last_good_commit", &status.last_good_commit);
    ctx.insert("findings", &status.findings);
    ctx.insert("changes", &status.changes);
    ctx.insert("pages", &pages);
    ctx.insert("cover", &cover);
    ctx.insert("log", built.log);
    // Its template alone is parsed (with the others only when it names one).
    crate::pages::TemplateTexts::read_all(&project.root, book_root).render(PREVIEW_PAGE, &ctx)
}

/// The template of the preview's index.
const PREVIEW_PAGE: &str = "preview.html";

#[cfg(test)]
mod tests {
    use super::{ManifestEntry, Status, is_page, manifest_and_spine, page_title, read_head};

    #[test]
    fn an_epubs_files_are_its_names_that_stay_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.epub");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let names = [
            "mimetype",
            "item/xhtml/ch01.xhtml",
            "item/./x.xhtml",
            "../outside.xhtml",
            "/absolute.xhtml",
            "item//double.xhtml",
            "c:/drive.xhtml",
            "back\\slash.xhtml",
            "item/folder/",
        ];
        for name in names {
            let options = zip::write::SimpleFileOptions::default();
            match name.ends_with('/') {
                true => zip.add_directory(name, options).unwrap(),
                false => {
                    zip.start_file(name, options).unwrap();
                    std::io::Write::write_all(&mut zip, name.as_bytes()).unwrap();
                }
            }
        }
        zip.finish().unwrap();
        let files = super::zip_files(&super::open_zip(&path).unwrap());
        let found: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        // Plain names as they are; the others as the zip crate makes them safe, or left out.
        for plain in ["mimetype", "item/xhtml/ch01.xhtml"] {
            assert!(found.contains(&plain), "{found:?}");
        }
        for outside in ["../outside.xhtml", "/absolute.xhtml", "item/folder/"] {
            assert!(!found.contains(&outside), "{found:?}");
        }
        assert!(
            found
                .iter()
                .all(|f| !f.contains("..") && !f.starts_with('/'))
        );
        for name in ["item/./x.xhtml", "item//double.xhtml", "back\\slash.xhtml"] {
            assert!(!super::is_plain_name(name), "{name}");
        }
        assert!(super::is_plain_name("item/xhtml/ch01.xhtml"));
    }

    #[test]
    fn the_manifest_and_spine_are_read_from_the_package_document() {
        let opf = r#"<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" xmlns:opf="http://www.idpf.org/2007/opf">
  <metadata><meta property="dcterms:modified">2026-01-01T00:00:00Z</meta></metadata>
  <manifest>
    <item id="cover-image" href="image/cover.png" media-type="image/png" properties="svg cover-image"/>
    <opf:item id="c1" href="xhtml/a&amp;b.xhtml" media-type="application/xhtml+xml"></opf:item>
    <item href="no-id.xhtml"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref linear="no"/></spine>
</package>"#;
        let entry = |id: &str, href: &str, cover| ManifestEntry {
            id: id.into(),
            href: href.into(),
            cover,
        };
        assert_eq!(
            manifest_and_spine(opf),
            Some((
                vec![
                    entry("cover-image", "image/cover.png", true),
                    entry("c1", "xhtml/a&b.xhtml", false)
                ],
                vec!["c1".to_string()]
            ))
        );
        assert_eq!(manifest_and_spine("<package><manifest></package>"), None);
    }

    #[test]
    fn a_page_is_read_up_to_its_title() {
        let dir = tempfile::tempdir().unwrap();
        let (short, long) = (
            dir.path().join("short.xhtml"),
            dir.path().join("long.xhtml"),
        );
        let body = "<p>本文</p>".repeat(10_000);
        std::fs::write(
            &short,
            format!("<html><head><title>猫</title></head>{body}"),
        )
        .unwrap();
        let head = read_head(&short).unwrap();
        assert!(head.len() < body.len(), "{}", head.len());
        assert_eq!(page_title(&head).as_deref(), Some("猫"));
        // A title past the first bytes read is still found.
        let comment = format!("<!-- {} -->", "x".repeat(40_000));
        std::fs::write(
            &long,
            format!("<html><head>{comment}<title>犬</title></head>{body}"),
        )
        .unwrap();
        assert_eq!(
            page_title(&read_head(&long).unwrap()).as_deref(),
            Some("犬")
        );
    }

    #[test]
    fn a_status_from_before_the_text_changes_still_loads() {
        let old = r#"{"book":"neko","ok":true,"stale":false,"time":"2026-01-01T00:00:00Z",
            "commit":null,"failed_stage":null,"last_good_time":null,"last_good_commit":null,
            "findings":[],"changes":{"added":[],"removed":[],"changed":["item/xhtml/ch01.xhtml"]}}"#;
        let status: Status = serde_json::from_str(old).expect("loads");
        let changes = status.changes.expect("changes");
        assert_eq!(changes.changed, ["item/xhtml/ch01.xhtml"]);
        assert!(changes.pages.is_empty());
    }

    #[test]
    fn at_most_so_many_pages_are_compared_and_the_rest_are_counted() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let (epub, tree) = (dir.path().join("old.epub"), dir.path().join("book"));
        std::fs::create_dir_all(&tree).unwrap();
        let page = |word: &str| format!("<html><body><p>{word} page</p></body></html>");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&epub).unwrap());
        let mut changed = Vec::new();
        for i in 0..super::PAGES_COMPARED + 2 {
            let rel = format!("p{i:03}.xhtml");
            zip.start_file(rel.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(page("old").as_bytes()).unwrap();
            std::fs::write(tree.join(&rel), page("new")).unwrap();
            changed.push(rel);
        }
        zip.finish().unwrap();
        let (pages, more) =
            super::page_changes(&mut super::open_zip(&epub).unwrap(), &tree, &changed);
        assert_eq!((pages.len(), more), (super::PAGES_COMPARED, 2));
        assert_eq!(pages[0].path, "p000.xhtml");
    }

    #[test]
    fn pages_are_told_by_their_names() {
        assert!(is_page("item/xhtml/ch01.xhtml"));
        assert!(is_page("OEBPS/Text/A.HTML"));
        assert!(!is_page("item/style/book.css"));
        assert!(!is_page("item/image/xhtml.png"));
    }

    #[test]
    fn a_page_title_is_read_from_its_element_alone() {
        let page = "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>\
                    <title>猫 &amp; 犬 &#x2014; 第1章</title></head><body><p>…</p></body></html>";
        assert_eq!(page_title(page).as_deref(), Some("猫 & 犬 — 第1章"));
        assert_eq!(
            page_title("<html><head><title lang=\"en\">A</title></head></html>").as_deref(),
            Some("A")
        );
        assert_eq!(page_title("<html><titlepage>x</titlepage></html>"), None);
        assert_eq!(page_title("<html><head></head></html>"), None);
    }
}
