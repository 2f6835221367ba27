//! Stage: the assembled package → its tree on disk, where hooks and check programs see it.
//! A build stages into `build/<id>/` (writing only the files that changed since the tree
//! before last); `seihon check` stages into a scratch folder that goes when the check ends.
use std::path::Path;

use crate::error::{Error, Result};
use crate::project::{Kept, Project};
use crate::stage;

use super::assemble::Package;
use super::load::Loaded;

/// The staged tree.
pub(super) enum Staged {
    /// `build/<id>/`, packed into the EPUB.
    Build(std::path::PathBuf),
    /// A scratch tree (`seihon check`): `tree/` in a temporary folder deleted when dropped.
    Scratch {
        _folder: tempfile::TempDir,
        tree: std::path::PathBuf,
    },
}

impl Staged {
    /// The staged tree's folder.
    pub fn dir(&self) -> &Path {
        match self {
            Staged::Build(dir) => dir,
            Staged::Scratch { tree, .. } => tree,
        }
    }
}

/// Stages the package: into `build/<id>/` when it is to be packed, else into a scratch
/// folder. Images may be linked rather than copied when no program of the book's will touch
/// the tree (a hook editing a linked image in place would edit the manuscript's).
pub(super) fn stage(
    project: &Project,
    loaded: &Loaded,
    pkg: &mut Package,
    pack: bool,
    programs_touch_it: bool,
) -> Result<Staged> {
    pkg.tree.link_copies(!programs_touch_it);
    if !pack {
        let scratch = tempfile::tempdir()
            .map_err(|e| Error::io(std::env::temp_dir(), "cannot create a temporary folder", e))?;
        let tree = scratch.path().join("tree");
        stage::stage(&pkg.tree, &tree)?;
        return Ok(Staged::Scratch {
            _folder: scratch,
            tree,
        });
    }
    // The tree before last is kept, so that only the files that changed are written again.
    stage::stage_keeping(
        &pkg.tree,
        &loaded.stage_dir,
        Some(&project.kept_dir(Kept::Spare, &loaded.book.id)),
    )?;
    Ok(Staged::Build(loaded.stage_dir.clone()))
}
