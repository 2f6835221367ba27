//! Stage: the book's files → `build/<id>/`, exactly the EPUB's tree.
//!
//! The tree is written to a temporary sibling folder and swapped in whole, so hooks, checks and
//! the packer always see one complete build, and an interrupted build leaves the previous one.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cache::{FileStamp, ListedInputs, TwoTrees};
use crate::error::{Error, Result};
use crate::files::{Later, Source, mirror, parent, swap_in_keeping, sweep, temp_dir};

/// Files of the EPUB, by path inside it. Sorted, so staging and packing are deterministic.
#[derive(Debug, Default)]
pub struct Tree {
    files: BTreeMap<String, Content>,
    /// Copies may be hard links to their source: nothing will write to the staged files in
    /// place (the book has no hooks), and a link costs no new file.
    link_copies: bool,
    /// For files whose bytes a cache key stands for (the key of what made them: a page the
    /// page cache keeps), that key: what the bytes are known by without hashing them.
    identities: std::collections::HashMap<String, String>,
}

#[derive(Debug)]
pub enum Content {
    Bytes(Vec<u8>),
    /// Copied from the book folder when staged (images can be large; no need to hold them).
    Copy(PathBuf),
    /// Kept elsewhere (a page the page cache keeps), known by its identity, and read only
    /// when something must have its bytes.
    Later(Later),
}

impl Tree {
    pub fn add(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.add_known(path, bytes, None);
    }

    /// Adds a file with the key its bytes are known by, if there is one (see
    /// [`Tree::identity`]).
    pub fn add_known(
        &mut self,
        path: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
        identity: Option<String>,
    ) {
        let path = path.into();
        match identity {
            Some(identity) => self.identities.insert(path.clone(), identity),
            None => self.identities.remove(&path),
        };
        self.files.insert(path, Content::Bytes(bytes.into()));
    }

    /// Adds a file whose bytes `identity` stands for, read only when they are needed (see
    /// [`Content::Later`]).
    pub fn add_later(&mut self, path: impl Into<String>, bytes: Later, identity: String) {
        let path = path.into();
        self.identities.insert(path.clone(), identity);
        self.files.insert(path, Content::Later(bytes));
    }

    pub fn copy(&mut self, path: impl Into<String>, from: impl Into<PathBuf>) {
        let path = path.into();
        self.identities.remove(&path);
        self.files.insert(path, Content::Copy(from.into()));
    }

    /// The key a file's bytes are known by: one key, one content (the cache's contract), so
    /// two files with the same identity are the same bytes.
    pub fn identity(&self, path: &str) -> Option<&str> {
        self.identities.get(path).map(String::as_str)
    }

    /// Every file's identity, by path (see [`Tree::identity`]).
    pub fn identities(&self) -> &std::collections::HashMap<String, String> {
        &self.identities
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
    stage_keeping(tree, dir, None, None, None).map(|_| ())
}

/// What staging wrote, and what it knows of the staged files without looking at them.
#[derive(Debug, Default)]
pub struct Staged {
    /// How many files were written.
    pub written: usize,
    /// The stamps of staged files that are links to files the listing stamped (by path in the
    /// tree): the same files, so the same stamps. A book of thousands of images is not
    /// looked at again, image by image, to be packed.
    pub stamps: std::collections::HashMap<String, FileStamp>,
}

/// Like [`stage`], starting from `spare` (the tree before last, kept there by the previous
/// build) and leaving the replaced tree there for the next: only the files that changed are
/// written (see [`crate::files::mirror`]). A file the `listed` inputs stamped is known by
/// that stamp: a link to it that is already there is left without a look. A page known by its
/// identity (see [`Tree::identity`]) that staging left in either tree is known there by the
/// stamp it had then, kept in `known`: it is not read to be compared.
pub fn stage_keeping(
    tree: &Tree,
    dir: &Path,
    spare: Option<&Path>,
    listed: Option<&ListedInputs>,
    known: Option<&Path>,
) -> Result<Staged> {
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
    let stamp = |from: &Path| listed.and_then(|l| l.stamp_of(from));
    let identified = (known.map(|dir| TwoTrees::load(dir, IDENTIFIED))).unwrap_or_default();
    // Whether the file at `rel` is the one staging left there with the bytes its identity
    // stands for. (A link a program left there is not the file staging left.)
    let left_as_it_was = |rel: &str| {
        let id = tree.identities.get(rel);
        let was = id.and_then(|id| identified.stamp_of(rel, id));
        was.is_some_and(|was| {
            let meta = std::fs::symlink_metadata(tmp.path().join(rel)).ok();
            let file = meta.filter(|m| m.is_file());
            let stamp = file.and_then(|m| FileStamp::of_meta(&m));
            stamp.is_some_and(|s| s.unchanged_since(&was))
        })
    };
    let files: BTreeMap<&str, Source> = tree
        .files
        .iter()
        .map(|(rel, content)| {
            let source = match content {
                Content::Bytes(b) => Source::Bytes(b, left_as_it_was(rel)),
                Content::Later(later) => Source::Later(later, left_as_it_was(rel)),
                Content::Copy(from) if tree.link_copies => {
                    Source::Link(from, stamp(from).and_then(|s| s.file_id()))
                }
                Content::Copy(from) => Source::Copy(from),
            };
            (rel.as_str(), source)
        })
        .collect();
    let mirrored = mirror(tmp.path(), &files)?;
    let stamps = (mirrored.linked.iter())
        .filter_map(|rel| match tree.files.get(*rel) {
            Some(Content::Copy(from)) => Some((rel.to_string(), stamp(from)?)),
            _ => None,
        })
        .collect();
    if let Some(known) = known {
        keep_identities(&identified, tree, tmp.path(), known);
    }
    swap_in_keeping(tmp, dir, spare)?;
    Ok(Staged {
        written: mirrored.written,
        stamps,
    })
}

/// The identities of the pages staged into the last two trees, each with the stamp its file
/// had when it was staged (a tree's files are left as they are by the next staging into it
/// when unchanged: see [`crate::files::mirror`]).
const IDENTIFIED: &str = "staged identities";

/// Keeps the identities of `tree`'s pages as just staged in `staged` with the other tree's.
fn keep_identities(kept: &TwoTrees<String>, tree: &Tree, staged: &Path, dir: &Path) {
    let now = (tree.identities.iter())
        .filter_map(|(rel, id)| Some((rel.clone(), FileStamp::of(&staged.join(rel))?, id.clone())))
        .collect();
    kept.save_with(now, dir, IDENTIFIED);
}

#[cfg(test)]
mod tests {
    use super::Tree;

    #[test]
    fn a_file_is_known_by_its_identity_until_it_is_replaced() {
        let mut tree = Tree::default();
        tree.add_known("a.xhtml", "<p>a</p>", Some("key-a".into()));
        tree.add_known("b.xhtml", "<p>b</p>", Some("key-b".into()));
        tree.add("c.css", "p {}");
        assert_eq!(tree.identity("a.xhtml"), Some("key-a"));
        assert_eq!(tree.identity("c.css"), None);
        // Other bytes under the same path (a hook's, a filter's) are not what the key made.
        tree.add("a.xhtml", "<p>changed</p>");
        assert_eq!(tree.identity("a.xhtml"), None);
        tree.copy("b.xhtml", "/elsewhere/b.xhtml");
        assert_eq!(tree.identity("b.xhtml"), None);
        assert!(tree.identities().is_empty());
    }
}
