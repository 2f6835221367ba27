//! Stage: the book's files → `build/<id>/`, exactly the EPUB's tree.
//!
//! The tree is written to a temporary sibling folder and swapped in whole, so hooks, checks and
//! the packer always see one complete build, and an interrupted build leaves the previous one.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Files of the EPUB, by path inside it. Sorted, so staging and packing are deterministic.
#[derive(Debug, Default)]
pub struct Tree {
    files: BTreeMap<String, Content>,
}

#[derive(Debug)]
pub enum Content {
    Bytes(Vec<u8>),
    /// Copied from the book folder when staged (images can be large; no need to hold them).
    Copy(PathBuf),
}

impl Tree {
    pub fn add(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), Content::Bytes(bytes.into()));
    }

    pub fn copy(&mut self, path: impl Into<String>, from: impl Into<PathBuf>) {
        self.files.insert(path.into(), Content::Copy(from.into()));
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub fn entries(&self) -> impl Iterator<Item = (&str, &Content)> {
        self.files.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Writes `tree` as the folder `dir`, replacing what was there only once it is complete.
pub fn stage(tree: &Tree, dir: &Path) -> Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::io(parent, "cannot create the build folder", e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".seihon-stage-")
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, "cannot create a temporary folder", e))?;
    for (rel, content) in &tree.files {
        let path = tmp.path().join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| Error::io(p, "cannot create a folder", e))?;
        }
        match content {
            Content::Bytes(b) => std::fs::write(&path, b).map(|_| ()),
            Content::Copy(from) => std::fs::copy(from, &path).map(|_| ()),
        }
        .map_err(|e| Error::io(&path, "cannot write a staged file", e))?;
    }
    swap_in(tmp, dir)
}

/// Puts the complete folder `new` (made beside `dir`) in the place of `dir`: the old one is
/// moved aside, the new one renamed in, the old one deleted. A reader of `dir` sees the old
/// folder or the new one, never a half-written one.
pub fn swap_in(new: tempfile::TempDir, dir: &Path) -> Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let old = tempfile::Builder::new()
        .prefix(".seihon-old-")
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, "cannot create a temporary folder", e))?;
    let aside = old.path().join("previous");
    if dir.exists() {
        std::fs::rename(dir, &aside)
            .map_err(|e| Error::io(dir, "cannot replace the previous build", e))?;
    }
    let new = new.keep();
    if let Err(e) = std::fs::rename(&new, dir) {
        // Put the previous build back rather than leave nothing.
        let _ = std::fs::rename(&aside, dir);
        let _ = std::fs::remove_dir_all(&new);
        return Err(Error::io(dir, "cannot move the new build into place", e));
    }
    Ok(())
}

/// Writes a file whole or not at all: to a temporary file beside it, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "cannot create the folder", e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".seihon-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, "cannot create a temporary file", e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(path, "cannot write", e))?;
    tmp.persist(path)
        .map_err(|e| Error::io(path, "cannot move the new file into place", e.error))?;
    Ok(())
}
