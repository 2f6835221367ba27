//! Store profiles (`--profile kdp|apple|kobo|ebpaj`): what the stores document and epubcheck
//! does not check, linted on the EPUB as it will ship (the staged tree, or a packed EPUB).
//!
//! Every finding names the store's document and section it comes from (see [`Rule`]); the
//! README's "Store profiles" section lists the rules and where each was read.
use std::collections::BTreeMap;
use std::path::Path;

use crate::dom::{self, Element};
use crate::error::{Finding, Location};

mod package;
mod rules;

pub use package::Package;

/// A store whose documented requirements the EPUB is linted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Profile {
    /// Amazon Kindle Direct Publishing.
    Kdp,
    /// Apple Books.
    Apple,
    /// Rakuten Kobo.
    Kobo,
    /// The Japanese publishers' production guide (電書協 EBPAJ EPUB 3 制作ガイド).
    Ebpaj,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Kdp => "kdp",
            Profile::Apple => "apple",
            Profile::Kobo => "kobo",
            Profile::Ebpaj => "ebpaj",
        }
    }

    /// The document a profile's rule that every store shares (no remote resources) cites.
    fn remote_rule(self) -> &'static str {
        match self {
            Profile::Kdp => {
                "Kindle Publishing Guidelines 2019.2 §7.2 External Link Guidelines: the web is reached through links only"
            }
            Profile::Apple => {
                "Apple Books Asset Guide 5.3, Audio and Video, Links: media inside the EPUB, the web through links"
            }
            Profile::Kobo => "Kobo EPUB Guidelines, External Resources",
            Profile::Ebpaj => {
                "EBPAJ EPUB 3 制作ガイド ver.1.1.3, 基本的なフォルダ構成: every file under item/"
            }
        }
    }
}

/// The files of an EPUB by path inside it (a map of path → bytes). Images are read only as far
/// as their headers; the size of a file read in part is kept beside it.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    files: BTreeMap<String, Vec<u8>>,
    sizes: BTreeMap<String, u64>,
}

impl Tree {
    /// The size of a file in bytes (that of the whole file when only its head was read).
    pub fn size(&self, path: &str) -> Option<u64> {
        let read = self.files.get(path)?.len() as u64;
        Some(self.sizes.get(path).copied().unwrap_or(read).max(read))
    }

    fn add(&mut self, path: String, bytes: Vec<u8>, size: u64) {
        if size > bytes.len() as u64 {
            self.sizes.insert(path.clone(), size);
        }
        self.files.insert(path, bytes);
    }
}

impl std::ops::Deref for Tree {
    type Target = BTreeMap<String, Vec<u8>>;
    fn deref(&self) -> &Self::Target {
        &self.files
    }
}

/// Edits go to the bytes; the sizes of files read in part are forgotten (a file replaced must
/// not keep the size of the one before).
impl std::ops::DerefMut for Tree {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.sizes.clear();
        &mut self.files
    }
}

impl<const N: usize> From<[(String, Vec<u8>); N]> for Tree {
    fn from(files: [(String, Vec<u8>); N]) -> Self {
        Tree {
            files: BTreeMap::from(files),
            sizes: BTreeMap::new(),
        }
    }
}

/// How much of an image is read for its dimensions: a JPEG's frame header may come after
/// 64 KiB of EXIF and colour profile.
const IMAGE_HEAD: u64 = 256 * 1024;

fn is_image(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".png", ".jpg", ".jpeg", ".gif", ".webp"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// The staged tree at `dir`.
pub fn read_dir(dir: &Path) -> std::io::Result<Tree> {
    use std::io::Read;
    let mut tree = Tree::default();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at)? {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            // A link is read when it leads to a regular file (staged images may be links);
            // a FIFO or a link to a folder is left to packing, which refuses it by name.
            if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let Ok(rel) = path.strip_prefix(dir) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            let mut bytes = Vec::new();
            let file = std::fs::File::open(&path)?;
            let size = file.metadata()?.len();
            let limit = if is_image(&rel) { IMAGE_HEAD } else { u64::MAX };
            file.take(limit).read_to_end(&mut bytes)?;
            tree.add(rel, bytes, size);
        }
    }
    Ok(tree)
}

/// A packed EPUB's entries.
pub fn read_epub(epub: &Path) -> std::io::Result<Tree> {
    use std::io::Read;
    let file = std::fs::File::open(epub)?;
    let mut zip = zip::ZipArchive::new(file).map_err(std::io::Error::other)?;
    let mut tree = Tree::default();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(std::io::Error::other)?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map_err(std::io::Error::other)?.to_string();
        let limit = if is_image(&name) {
            IMAGE_HEAD
        } else {
            u64::MAX
        };
        let size = entry.size();
        let mut bytes = Vec::new();
        entry.take(limit).read_to_end(&mut bytes)?;
        tree.add(name, bytes, size);
    }
    Ok(tree)
}

/// Lints `tree` for every profile asked for. `map` finds the manuscript line of a page's
/// element (the staged position goes into the hint). Findings are warnings: a release makes
/// them errors, like every other warning.
pub fn lint(tree: &Tree, profiles: &[Profile], map: Option<&super::SourceMap>) -> Vec<Finding> {
    if profiles.is_empty() {
        return Vec::new();
    }
    let mut profiles = profiles.to_vec();
    profiles.sort();
    profiles.dedup();
    let Some(pkg) = Package::read(tree) else {
        // The built-in checks and epubcheck report an EPUB with no package document.
        return Vec::new();
    };
    let at = Places { map };
    let mut found = rules::remote_resources(tree, &pkg, &profiles, &at);
    for &p in &profiles {
        match p {
            Profile::Kdp => found.extend(rules::kdp(tree, &pkg, &at)),
            Profile::Apple => found.extend(rules::apple(tree, &pkg)),
            Profile::Kobo => found.extend(rules::kobo(tree, &pkg)),
            Profile::Ebpaj => found.extend(rules::ebpaj(tree, &pkg)),
        }
    }
    found
}

/// Where a finding about a file of the EPUB is reported.
struct Places<'a> {
    map: Option<&'a super::SourceMap<'a>>,
}

impl Places<'_> {
    /// A warning about the element `e` of the file `file`, with what to do: at its manuscript
    /// line when the page is one seihon wrote (the page's own position in the hint), else at
    /// the file's own position.
    fn warning(
        &self,
        code: crate::codes::Code,
        file: &str,
        e: &Element,
        msg: String,
        advice: &str,
    ) -> Finding {
        let pos = e.pos.unwrap_or_default();
        let staged = Location::new(file, pos.line, pos.col);
        match self.map.and_then(|m| m.source(file, pos.line)) {
            Some(src) => {
                Finding::warning(code, src, msg).with_hint(format!("in {staged}; {advice}"))
            }
            None => Finding::warning(code, staged, msg).with_hint(advice),
        }
    }
}

/// Parses an XML file of the tree (None when it is not well-formed: other checks say so).
fn parse(tree: &Tree, path: &str) -> Option<dom::Document> {
    let text = std::str::from_utf8(tree.get(path)?).ok()?;
    dom::parse_document(text).ok()
}

#[cfg(test)]
mod tests;
