//! Pack: the staged tree → the EPUB. The new EPUB is written at a temporary path and replaces
//! the last one only once the post-pack hook and epubcheck (when asked for) have passed; a
//! release gets a SHA-256 file beside it. `seihon check --epubcheck` packs into a scratch file
//! for epubcheck alone.
use std::path::{Path, PathBuf};

use crate::epub;
use crate::error::{Error, Finding, Result};
use crate::hooks;
use crate::project::Kept;

use super::checking::EpubcheckRun;
use super::load::Loaded;
use super::{Run, Step};

/// Packs `tree` into the book's EPUB. The last EPUB's compressed entries are copied when this
/// seihon packed it and nothing has touched it since (another version's Deflate, or a hook
/// re-zipping it, might compress differently, and the EPUB must not depend on that).
/// `checked` runs first once the new EPUB is packed, before the post-pack hook, epubcheck
/// and the replacing of the last EPUB: the checks that ran beside packing stop it there.
pub(super) fn pack(
    r: &mut Run,
    loaded: &Loaded,
    tree: &Path,
    time: i64,
    stamps: Option<&std::collections::HashMap<String, crate::cache::FileStamp>>,
    epubcheck: &EpubcheckRun,
    checked: impl FnOnce(&mut Run) -> Result<()>,
) -> Result<()> {
    let project = r.project;
    let output = &loaded.output;
    let packed_by = project.cache_file("packed-by").join(&loaded.book.id);
    // This seihon, the EPUB's path and its file as this build leaves it (by size and time: the
    // preview hard-links the EPUB, which changes its change time, not its bytes).
    let stamp = || {
        crate::cache::Key::new("packed by")
            .bytes(output.as_os_str().as_encoded_bytes())
            .value(&crate::cache::FileStamp::of(output).map(|s| s.written()))
            .finish()
            .unwrap_or_default()
    };
    let previous = std::fs::read_to_string(&packed_by)
        .is_ok_and(|last| last == stamp())
        .then_some(output.as_path());
    // The post-pack hook and epubcheck take the new EPUB at its temporary path: it replaces
    // the last one only once both have passed, and epubcheck reads what the hook left.
    let mut post_pack_ran = false;
    epub::pack_reusing(
        tree,
        output,
        time,
        previous,
        Some(&project.kept_dir(Kept::Crcs, &loaded.book.id)),
        stamps,
        |packed| {
            // The checks' findings, when they ran beside packing, stop the build first.
            checked(r)?;
            r.enter(Step::Hook(hooks::Stage::PostPack));
            if loaded.has_hooks() {
                crate::term::progress::step(Step::Hook(hooks::Stage::PostPack).name());
            }
            let ran = loaded.hook_at(hooks::Stage::PostPack, tree, packed)?;
            post_pack_ran = !ran.is_empty();
            r.log.extend(ran);
            if r.opts.epubcheck {
                r.enter(Step::Epubcheck);
                r.gate(epubcheck.run(packed)?)?;
            }
            Ok(())
        },
    )?;
    // Only a speed-up: when it cannot be noted, the next build compresses everything. An EPUB
    // a hook may have rewritten is never taken for one seihon packed.
    if post_pack_ran {
        let _ = std::fs::remove_file(&packed_by);
    } else {
        let _ = crate::files::write_note(&packed_by, stamp().as_bytes());
    }
    if r.opts.release.is_some() {
        write_checksum(output)?;
    }
    Ok(())
}

/// `seihon check --epubcheck`: packs `tree` into a scratch file only for epubcheck to read.
pub(super) fn epubcheck_scratch(
    loaded: &Loaded,
    tree: &Path,
    time: i64,
    epubcheck: &EpubcheckRun,
) -> Result<Vec<Finding>> {
    let scratch = tempfile::tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), "cannot create a temporary folder", e))?;
    let packed = scratch.path().join(format!("{}.epub", loaded.book.id));
    epub::pack(tree, &packed, time)?;
    epubcheck.run(&packed)
}

/// `<epub>.sha256` beside a release EPUB, in `sha256sum` format, written atomically.
fn write_checksum(epub: &Path) -> Result<()> {
    use sha2::Digest;
    let bytes = std::fs::read(epub).map_err(|e| Error::io(epub, "cannot read the EPUB", e))?;
    let digest = sha2::Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let name = epub.file_name().unwrap_or_default().to_string_lossy();
    let path = checksum_path(epub);
    crate::files::write_atomic(&path, format!("{hex}  {name}\n").as_bytes())
}

/// Where the checksum of a release EPUB goes: `<name>.epub.sha256`.
pub fn checksum_path(epub: &Path) -> PathBuf {
    let mut name = epub.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}
