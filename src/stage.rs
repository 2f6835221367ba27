//! Stage: the book's files → `build/<id>/`, exactly the EPUB's tree.
//!
//! The tree is written to a temporary sibling folder and swapped in whole, so hooks, checks and
//! the packer always see one complete build, and an interrupted build leaves the previous one.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::{Source, mirror, parent, swap_in_keeping, sweep, temp_dir};

/// Files of the EPUB, by path inside it. Sorted, so staging and packing are deterministic.
#[derive(Debug, Default)]
pub struct Tree {
    files: BTreeMap<String, Content>,
    /// Copies may be hard links to their source: nothing will write to the staged files in
    /// place (the book has no hooks), and a link costs no new file.
    link_copies: bool,
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

    /// Lets staging hard-link the copied files (see [`Tree::link_copies`]).
    pub fn link_copies(&mut self, yes: bool) {
        self.link_copies = yes;
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
    stage_keeping(tree, dir, None).map(|_| ())
}

/// Like [`stage`], starting from `spare` (the tree before last, kept there by the previous
/// build) and leaving the replaced tree there for the next: only the files that changed are
/// written (see [`crate::files::mirror`]). Returns how many files were written.
pub fn stage_keeping(tree: &Tree, dir: &Path, spare: Option<&Path>) -> Result<usize> {
    let parent = parent(dir);
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::io(parent, "cannot create the build folder", e))?;
    sweep(parent);
    let tmp = temp_dir("stage-", parent)?;
    if let Some(spare) = spare {
        // Taken by renaming it over the new, empty folder; when that cannot be done (no
        // spare, another file system), the tree is written whole.
        let _ = std::fs::rename(spare, tmp.path());
    }
    let files: BTreeMap<&str, Source> = tree
        .files
        .iter()
        .map(|(rel, content)| {
            let source = match content {
                Content::Bytes(b) => Source::Bytes(b),
                Content::Copy(from) if tree.link_copies => Source::Link(from, None),
                Content::Copy(from) => Source::Copy(from),
            };
            (rel.as_str(), source)
        })
        .collect();
    let written = mirror(tmp.path(), &files)?;
    swap_in_keeping(tmp, dir, spare)?;
    Ok(written)
}
