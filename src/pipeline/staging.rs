//! Stage: the assembled package → its tree on disk, where hooks and check programs see it.
//! A build stages into `build/<id>/` (writing only the files that changed since the tree
//! before last); `seihon check` stages into a scratch folder that goes when the check ends.
use std::path::Path;

use crate::cache::{FileStamp, ListedInputs};
use crate::error::{Error, Result};
use crate::project::{Kept, Project};
use crate::stage;

use super::assemble::Package;
use super::load::Loaded;

/// The staged tree.
pub(super) enum Staged {
    /// `build/<id>/`, packed into the EPUB, with the stamps of the files staging knows (see
    /// [`stage::Staged::stamps`]).
    Build(
        std::path::PathBuf,
        std::collections::HashMap<String, FileStamp>,
    ),
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
            Staged::Build(dir, _) => dir,
            Staged::Scratch { tree, .. } => tree,
        }
    }

    /// The stamps of staged files known without a look, when no program of the book's
    /// touched the tree since it was staged.
    pub fn known_stamps(&self) -> Option<&std::collections::HashMap<String, FileStamp>> {
        match self {
            Staged::Build(_, stamps) => Some(stamps),
            Staged::Scratch { .. } => None,
        }
    }

    /// The stamps [`Staged::known_stamps`] gives, taken.
    pub fn into_stamps(self) -> std::collections::HashMap<String, FileStamp> {
        match self {
            Staged::Build(_, stamps) => stamps,
            Staged::Scratch { .. } => Default::default(),
        }
    }
}

/// Stages the package: into `build/<id>/` when it is to be packed, else into a scratch
/// folder. (Whether images are linked rather than copied, the package's tree says: see
/// [`crate::stage::Tree::link_copies`].)
pub(super) fn stage(
    project: &Project,
    loaded: &Loaded,
    pkg: &Package,
    pack: bool,
    listed: Option<&ListedInputs>,
) -> Result<Staged> {
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
    let staged = stage::stage_keeping(
        &pkg.tree,
        &loaded.stage_dir,
        Some(&project.kept_dir(Kept::Spare, &loaded.book.id)),
        listed,
        Some(&project.kept_dir(Kept::Staged, &loaded.book.id)),
    )?;
    Ok(Staged::Build(loaded.stage_dir.clone(), staged.stamps))
}
