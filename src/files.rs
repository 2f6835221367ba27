//! Files seihon writes, written so that nothing is ever half there and nothing it did not
//! make is removed: atomic writes, temporary files and folders named for the process that made
//! them (and swept once it has ended), folders mirrored and swapped in whole.
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::codes;
use crate::error::{Error, Finding, Location, Result};

/// What a file of a mirrored folder is made of.
pub enum Source<'a> {
    /// These bytes; `true` when the caller knows the file at its path holds them already (it
    /// found the file as it left it with them): then they are not read to be compared.
    Bytes(&'a [u8], bool),
    /// Bytes read only when they must be (see [`Later`]), with the same `true` as `Bytes`.
    Later(&'a Later, bool),
    /// A hard link to this file (a copy where links are not possible): only for files nothing
    /// will write to in place. With the file's identity when the caller already has it (it has
    /// just looked at the file): a mirror of thousands of images is not a stat of each.
    Link(&'a Path, Option<FileId>),
    /// A copy of this file.
    Copy(&'a Path),
}

/// A file's bytes, read the first time they are asked for: a page a cache keeps, which most
/// builds need only by its identity (staging finds it already there, the checks know its
/// facts), not by its megabytes.
pub struct Later {
    load: Box<dyn Fn() -> Option<Vec<u8>> + Send + Sync>,
    bytes: std::sync::OnceLock<Option<Vec<u8>>>,
}

impl Later {
    /// Bytes `load` gives when first asked (`None`: they could not be read).
    pub fn new(load: impl Fn() -> Option<Vec<u8>> + Send + Sync + 'static) -> Later {
        Later {
            load: Box::new(load),
            bytes: std::sync::OnceLock::new(),
        }
    }

    /// The bytes, read now if they were not before; `None` when they cannot be read.
    pub fn get(&self) -> Option<&[u8]> {
        self.bytes.get_or_init(|| (self.load)()).as_deref()
    }

    /// The error of bytes that could not be read for `path`.
    pub fn lost(path: &Path) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            message: "a kept page went missing during the build",
            source: std::io::Error::other("build again: the pages are made anew"),
        }
    }
}

impl std::fmt::Debug for Later {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let read = self.bytes.get().map(|b| b.as_ref().map(Vec::len));
        f.debug_struct("Later").field("read", &read).finish()
    }
}

/// Which file a path is: its device and inode. Two paths with the same are hard links to one
/// file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// From a device and an inode (`None` off Unix, where they are not known).
    pub fn new(dev: u64, ino: u64) -> Option<FileId> {
        cfg!(unix).then_some(FileId { dev, ino })
    }

    /// The identity of the file `path` leads to (`None` where it cannot be read, or off Unix).
    pub fn of(path: &Path) -> Option<FileId> {
        Self::of_meta(&std::fs::metadata(path).ok()?)
    }

    pub fn of_meta(meta: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// The inode a folder entry names, as the folder listing gives it (no stat of the file).
fn entry_inode(entry: &std::fs::DirEntry) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirEntryExt;
        Some(entry.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = entry;
        None
    }
}

/// Makes the folder `dir` hold exactly `files` (by `/`-separated path inside it), leaving
/// alone what is already right: a file with the same bytes, a link to the same file. Whatever
/// else is there is removed. A file is never written in place (it may be a link to a
/// manuscript's image): it is removed and made again.
pub fn mirror<'a>(dir: &Path, files: &BTreeMap<&'a str, Source>) -> Result<Mirrored<'a>> {
    use rayon::prelude::*;
    let io = |path: &Path, e| Error::io(path, "cannot write the build folder", e);
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let (present, folders) = walk(dir).map_err(|e| io(dir, e))?;
    // Files in the folder are on its device: a link there is the same file as its source when
    // the device is the source's and the listing's inode its inode.
    let here = FileId::of(dir);
    let wanted_folders: std::collections::BTreeSet<&str> = files
        .keys()
        .flat_map(|rel| rel.match_indices('/').map(move |(i, _)| &rel[..i]))
        .collect();
    for (rel, _) in present
        .iter()
        .filter(|(r, _)| !files.contains_key(r.as_str()))
    {
        std::fs::remove_file(dir.join(rel)).map_err(|e| io(&dir.join(rel), e))?;
    }
    // Deepest first, so a folder is empty of folders when it goes.
    for rel in folders.iter().rev() {
        if !wanted_folders.contains(rel.as_str()) {
            let path = dir.join(rel);
            std::fs::remove_dir_all(&path).map_err(|e| io(&path, e))?;
        }
    }
    for rel in &wanted_folders {
        if folders.binary_search_by(|f| f.as_str().cmp(rel)).is_err() {
            let path = dir.join(rel);
            std::fs::create_dir_all(&path).map_err(|e| io(&path, e))?;
        }
    }
    let present: std::collections::HashMap<&str, Option<u64>> = present
        .iter()
        .map(|(rel, ino)| (rel.as_str(), *ino))
        .collect();
    let made: Vec<Made> = files
        .par_iter()
        .map(|(rel, source)| {
            let path = dir.join(rel);
            let there = present.get(rel);
            let linked = |from: Option<FileId>| {
                let (Some(from), Some(here), Some(Some(ino))) = (from, here, there) else {
                    return false;
                };
                from.dev == here.dev && from.ino == *ino
            };
            let current = there.is_some()
                && match source {
                    Source::Bytes(b, known) => *known || same_bytes(&path, b),
                    Source::Later(later, known) => {
                        *known || later.get().is_some_and(|b| same_bytes(&path, b))
                    }
                    Source::Link(from, id) => linked(id.or_else(|| FileId::of(from))),
                    Source::Copy(_) => false,
                };
            if current {
                return Ok(match source {
                    Source::Link(_, Some(_)) => Made::KeptLink(rel),
                    _ => Made::Kept,
                });
            }
            if there.is_some() {
                std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
            }
            match source {
                Source::Bytes(b, _) => std::fs::write(&path, b),
                Source::Later(later, _) => match later.get() {
                    Some(b) => std::fs::write(&path, b),
                    None => return Err(Later::lost(Path::new(rel))),
                },
                Source::Link(from, _) => link_or_copy(from, &path),
                Source::Copy(from) => std::fs::copy(from, &path).map(|_| ()),
            }
            .map_err(|e| Error::io(&path, "cannot write a staged file", e))?;
            Ok(Made::Written)
        })
        .collect::<Result<_>>()?;
    Ok(Mirrored {
        written: made.iter().filter(|m| matches!(m, Made::Written)).count(),
        linked: (made.into_iter())
            .filter_map(|m| match m {
                Made::KeptLink(rel) => Some(rel),
                _ => None,
            })
            .collect(),
    })
}

/// What [`mirror`] did.
pub struct Mirrored<'a> {
    /// How many files it wrote.
    pub written: usize,
    /// The files it found already linked to the file their [`Source::Link`] named by its
    /// identity: each is that file, as the caller saw it.
    pub linked: Vec<&'a str>,
}

/// What [`mirror`] did with one file.
enum Made<'a> {
    Written,
    Kept,
    KeptLink(&'a str),
}

/// The regular files (sorted, with their inodes) and folders (sorted, parents before children)
/// under `dir`, as `/`-separated paths; anything else (a link a hook made) is removed.
type Listed = (Vec<(String, Option<u64>)>, Vec<String>);
fn walk(dir: &Path) -> std::io::Result<Listed> {
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    let mut stack = vec![String::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let kind = entry.file_type()?;
            if kind.is_dir() {
                folders.push(path.clone());
                stack.push(path);
            } else if kind.is_file() {
                files.push((path, entry_inode(&entry)));
            } else {
                std::fs::remove_file(entry.path())?;
            }
        }
    }
    files.sort();
    folders.sort();
    Ok((files, folders))
}

fn same_bytes(path: &Path, bytes: &[u8]) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
        && std::fs::read(path).is_ok_and(|b| b == bytes)
}

/// A hard link to `from` at `to` (no new file), or a copy where links are not possible (another
/// file system). Only for files nothing will write to in place.
pub fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    // A hard link to a symlink would be a symlink (one into a shared folder, say): link to the
    // file it leads to, so that what is staged is always a regular file.
    let linked = std::fs::symlink_metadata(from).is_ok_and(|m| m.file_type().is_symlink());
    let real = if linked {
        std::fs::canonicalize(from)?
    } else {
        from.to_path_buf()
    };
    std::fs::hard_link(&real, to).or_else(|_| std::fs::copy(&real, to).map(|_| ()))
}

/// The folder a path is in (`.` for a bare name).
pub fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Puts the complete folder `new` (made beside `dir`) in the place of `dir`, and deletes the
/// old one. A reader of `dir` sees the old folder or the new one, never a half-written one and
/// never none: where the system can (Linux), the two are exchanged in one step; elsewhere the
/// old one is moved aside and the new one renamed in, and only a crash between those two
/// renames leaves no `dir` (the next run puts a new one in place).
pub fn swap_in(new: tempfile::TempDir, dir: &Path) -> Result<()> {
    let parent = parent(dir);
    refuse_unless_replaceable(dir)?;
    if exchange(new.path(), dir)? {
        // `new` now holds the previous folder, which its drop deletes.
        mark(dir);
        return Ok(());
    }
    let old = temp_dir("old-", parent)?;
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
    mark(dir);
    Ok(())
}

/// Like [`swap_in`], keeping the replaced folder at `spare` (when given) instead of deleting it.
pub fn swap_in_keeping(new: tempfile::TempDir, dir: &Path, spare: Option<&Path>) -> Result<()> {
    let Some(spare) = spare else {
        return swap_in(new, dir);
    };
    refuse_unless_replaceable(dir)?;
    if !exchange(new.path(), dir)? {
        return swap_in(new, dir);
    }
    mark(dir);
    // `new` now holds the previous folder. Named for this process until it is in place, so
    // that a run killed here leaves a temporary that `sweep` removes.
    let old = new.keep();
    let kept = spare
        .parent()
        .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
        && std::fs::rename(&old, spare).is_ok();
    if !kept {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// `<parent>/.<name>.seihon`: the mark by which seihon knows that it put the folder `dir` in
/// place. It holds the folder's device and inode, so a folder put there by anyone else (or by
/// a misconfigured output folder) never carries it.
fn mark_path(dir: &Path) -> Option<PathBuf> {
    let name = dir.file_name()?.to_str()?;
    Some(parent(dir).join(format!(".{name}.seihon")))
}

#[cfg(unix)]
fn identity(dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir).ok()?;
    Some(format!("{}:{}\n", meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &Path) -> Option<String> {
    None
}

/// Marks `dir` as put in place by seihon (a mark that cannot be written only means the next
/// build asks more of the folder's look, see [`replaceable`]).
fn mark(dir: &Path) {
    if let (Some(path), Some(id)) = (mark_path(dir), identity(dir)) {
        let _ = write_note(&path, id.as_bytes());
    }
}

/// Whether seihon may replace the folder `dir`: nothing is there, or an empty folder, or the
/// folder seihon marked when it put it there; or, for folders made before seihon marked them,
/// one that is plainly seihon's own (a staged EPUB tree, a preview with its status). Anything
/// else — a book, a web site's folder, a file, a link — is never replaced.
pub fn replaceable(dir: &Path) -> bool {
    let meta = match std::fs::symlink_metadata(dir) {
        Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
        Ok(meta) => meta,
    };
    if !meta.is_dir() {
        return false;
    }
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none()) {
        return true;
    }
    if let (Some(path), Some(id)) = (mark_path(dir), identity(dir))
        && std::fs::read_to_string(path).is_ok_and(|mark| mark == id)
    {
        return true;
    }
    // An EPUB's tree (its `mimetype` file says so), or a preview seihon laid out.
    let staged = std::fs::read(dir.join("mimetype")).is_ok_and(|b| b == b"application/epub+zip")
        && dir.join("META-INF/container.xml").is_file();
    let preview = std::fs::read(dir.join("status.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| v.get("book").is_some() && v.get("ok").is_some())
        && dir.join("index.html").is_file();
    staged || preview
}

fn refuse_unless_replaceable(dir: &Path) -> Result<()> {
    if replaceable(dir) {
        return Ok(());
    }
    Err(Error::Config(
        Finding::error(
            codes::OUTPUTS_OVERLAP,
            Location::file(dir),
            "this folder was not made by seihon, so seihon does not replace it",
        )
        .with_hint(
            "seihon puts a book's staged tree or preview here; move the folder away, or choose other output folders (build_dir, preview_dir) in seihon.yml",
        ),
    ))
}

/// Exchanges the folders `a` and `dir` atomically: true when done, false when `dir` does not
/// exist or the system or file system cannot exchange (the caller then renames).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn exchange(a: &Path, dir: &Path) -> Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, dir, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        // No `dir` yet; or no renameat2 (old kernels, seccomp), or a file system without
        // RENAME_EXCHANGE.
        Err(Errno::NOENT | Errno::NOSYS | Errno::INVAL | Errno::PERM | Errno::OPNOTSUPP) => {
            Ok(false)
        }
        Err(e) => Err(Error::io(
            dir,
            "cannot move the new build into place",
            e.into(),
        )),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn exchange(_: &Path, _: &Path) -> Result<bool> {
    Ok(false)
}

/// A temporary folder in `parent` named for this process (see [`sweep`]).
pub fn temp_dir(kind: &str, parent: &Path) -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&temp_prefix(kind))
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, "cannot create a temporary folder", e))
}

/// A temporary file in `dir` named for this process, ending in `suffix` (`.tmp`, `.tmp.epub`).
pub fn temp_file(dir: &Path, suffix: &str) -> Result<tempfile::NamedTempFile> {
    let prefix = temp_prefix("");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(suffix);
    // Made as any new file is (read and write for all, less the umask), not private as a
    // temporary file is by default: it is renamed into place as the EPUB that others (a web
    // server, a colleague, CI's artifact upload) must read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, "cannot create a temporary file", e))
}

/// The kinds of temporary folders, and the endings of temporary files, that seihon makes.
const TEMP_DIR_KINDS: [&str; 3] = ["stage-", "old-", "preview-"];
const TEMP_FILE_ENDINGS: [&str; 2] = [".tmp.epub", ".tmp"];

/// `.seihon-<kind><pid>-`: the process id tells a later run whose temporary this is.
fn temp_prefix(kind: &str) -> String {
    format!(".seihon-{kind}{}-", std::process::id())
}

/// The process that made a temporary of seihon's named `name` (a folder when `is_dir`), or
/// `None` when the name is not one seihon makes.
fn temp_owner(name: &str, is_dir: bool) -> Option<u32> {
    let rest = name.strip_prefix(".seihon-")?;
    let rest = if is_dir {
        TEMP_DIR_KINDS.iter().find_map(|k| rest.strip_prefix(k))?
    } else {
        TEMP_FILE_ENDINGS
            .iter()
            .find_map(|e| rest.strip_suffix(e))?
    };
    let (pid, random) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let random_ok = !random.is_empty() && random.bytes().all(|b| b.is_ascii_alphanumeric());
    (digits(pid) && random_ok)
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether the process `pid` may still be running (and using its temporaries).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    match i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        // Only "no such process" is proof; a process of another user (EPERM) is running.
        Some(p) => rustix::process::test_kill_process(p) != Err(rustix::io::Errno::SRCH),
        None => true,
    }
}

#[cfg(not(unix))]
fn running(_: u32) -> bool {
    // Without a way to ask, never take another run's temporaries.
    true
}

/// When this process started sweeping: only what is older than that can be a leftover.
fn run_started() -> std::time::SystemTime {
    static STARTED: std::sync::OnceLock<std::time::SystemTime> = std::sync::OnceLock::new();
    *STARTED.get_or_init(std::time::SystemTime::now)
}

/// Removes from `dir` the temporaries that runs of seihon killed on the way (SIGKILL, power
/// loss) left behind: only names seihon makes (`.seihon-stage-<pid>-…`, `.seihon-old-…`,
/// `.seihon-preview-…` folders, `.seihon-<pid>-….tmp` and `….tmp.epub` files), only when the
/// process named has ended, and only when older than this run. Anything else is left alone,
/// and a temporary that cannot be removed only costs space.
pub fn sweep(dir: &Path) {
    let started = run_started();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| temp_owner(n, kind.is_dir())) else {
            continue;
        };
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < started);
        if !old || running(pid) {
            continue;
        }
        let path = entry.path();
        let _ = if kind.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
    }
}

/// Writes a file whole or not at all: to a temporary file beside it, synced to the disk, then
/// renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_file(path, bytes, true)
}

/// Writes a note seihon keeps for itself whole or not at all, like [`write_atomic`] but not
/// synced: for notes checked against what they describe whenever they are read (a folder's
/// mark, the stamps of the last build), which a crash may lose but never make lie. A sync is
/// a journal commit: after a book's images were written, one took as long as the rest of a
/// rebuild's packing.
pub fn write_note(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_file(path, bytes, false)
}

fn replace_file(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    use std::io::Write;
    let dir = parent(path);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "cannot create the folder", e))?;
    let mut tmp = temp_file(dir, ".tmp")?;
    tmp.write_all(bytes)
        .and_then(|()| {
            if sync {
                tmp.as_file().sync_all()
            } else {
                Ok(())
            }
        })
        .map_err(|e| Error::io(path, "cannot write", e))?;
    tmp.persist(path)
        .map_err(|e| Error::io(path, "cannot move the new file into place", e.error))?;
    Ok(())
}

/// Lexically normalizes a relative path (`a/./b/../c` → `a/c`); `..` past the start is kept so
/// the containment check rejects it.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// Every file under `path` (or `path` itself), not descending into the project's outputs,
/// version-control folders or symlinked folders.
pub fn list_inputs(path: &Path, outputs: &[PathBuf], out: &mut Vec<PathBuf>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return;
    }
    if path.file_name().is_some_and(|n| n == ".git")
        || path.canonicalize().is_ok_and(|c| outputs.contains(&c))
    {
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        // An unreadable folder: its contents cannot be vouched for.
        out.push(path.to_path_buf());
        return;
    };
    for entry in entries.flatten() {
        // The entry's own type comes with the listing: only folders need a look of their own,
        // and every file is looked at once, when it is stamped.
        match entry.file_type() {
            Ok(t) if !t.is_dir() => out.push(entry.path()),
            _ => list_inputs(&entry.path(), outputs, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stage::*;
    use std::time::{Duration, SystemTime};

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn tree(files: &[(&str, &str)]) -> Tree {
        let mut t = Tree::default();
        for (p, b) in files {
            t.add(*p, b.as_bytes());
        }
        t
    }

    #[cfg(unix)]
    fn inode(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).unwrap().ino()
    }

    #[cfg(unix)]
    #[test]
    fn staging_from_the_spare_writes_only_what_changed_and_never_through_a_link() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("build/book");
        let spare = root.path().join("build/.cache/spare/book");
        let image = root.path().join("cat.png");
        std::fs::write(&image, b"the manuscript's image").unwrap();
        let mut t = tree(&[("a.txt", "1"), ("sub/b.txt", "2"), ("old/x.txt", "x")]);
        t.copy("img/cat.png", &image);
        t.link_copies(true);
        assert_eq!(
            stage_keeping(&t, &dir, Some(&spare), None, None)
                .unwrap()
                .written,
            4
        );
        assert!(!spare.exists(), "nothing replaced, nothing kept");
        assert_eq!(
            stage_keeping(&t, &dir, Some(&spare), None, None)
                .unwrap()
                .written,
            4
        );
        assert!(spare.is_dir(), "the replaced tree is kept");
        // From the spare: only what changed is written.
        let kept_a = inode(&spare.join("a.txt"));
        let mut t = tree(&[("a.txt", "1"), ("sub/b.txt", "two"), ("new/c.txt", "3")]);
        t.copy("img/cat.png", &image);
        t.link_copies(true);
        assert_eq!(
            stage_keeping(&t, &dir, Some(&spare), None, None)
                .unwrap()
                .written,
            2
        );
        assert_eq!(inode(&dir.join("a.txt")), kept_a, "left as it was");
        assert_eq!(inode(&dir.join("img/cat.png")), inode(&image));
        assert_eq!(
            crate::epub::list_files(&dir).unwrap(),
            ["a.txt", "img/cat.png", "new/c.txt", "sub/b.txt"]
        );
        assert!(!dir.join("old").exists(), "a folder no file needs goes");
        assert_eq!(std::fs::read(dir.join("sub/b.txt")).unwrap(), b"two");
        // Copies instead of links (a hook will run): the linked image is replaced by a copy,
        // and the manuscript's image is untouched.
        let other = root.path().join("dog.png");
        std::fs::write(&other, b"another image").unwrap();
        for _ in 0..2 {
            let mut t = tree(&[("a.txt", "1")]);
            t.copy("img/cat.png", &other);
            stage_keeping(&t, &dir, Some(&spare), None, None).unwrap();
            assert_eq!(
                std::fs::read(dir.join("img/cat.png")).unwrap(),
                b"another image"
            );
            assert_eq!(std::fs::read(&image).unwrap(), b"the manuscript's image");
            assert_ne!(inode(&dir.join("img/cat.png")), inode(&image));
        }
        // What a hook left in the spare (an edit, a new file, a link) is undone.
        std::fs::write(spare.join("a.txt"), "edited").unwrap();
        std::fs::write(spare.join("extra.txt"), "extra").unwrap();
        std::os::unix::fs::symlink(&image, spare.join("link.png")).unwrap();
        let t = tree(&[("a.txt", "1")]);
        stage_keeping(&t, &dir, Some(&spare), None, None).unwrap();
        assert_eq!(crate::epub::list_files(&dir).unwrap(), ["a.txt"]);
        assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"1");
        assert_eq!(
            names(root.path().join("build").as_path()),
            [".book.seihon", ".cache", "book"]
        );
    }

    /// A page known by its identity is known in either tree by the stamp staging left it with:
    /// it is not read again to be compared (the file below is changed behind staging's back,
    /// its time put back, and left as it is). Another identity, or another stamp, and the
    /// page is written anew.
    #[test]
    #[cfg(unix)]
    fn staging_knows_the_pages_it_left_in_either_tree_by_their_identities() {
        let root = tempfile::tempdir().unwrap();
        let (dir, spare) = (root.path().join("build/book"), root.path().join("spare"));
        let known = root.path().join("staged");
        let stage = |bytes: &str, identity: &str| {
            let mut t = Tree::default();
            t.add_known("p.xhtml", bytes, Some(identity.to_string()));
            stage_keeping(&t, &dir, Some(&spare), None, Some(&known)).unwrap()
        };
        // Written into both trees, then found in each in turn.
        assert_eq!(stage("<p>one</p>", "k1").written, 1);
        assert_eq!(stage("<p>one</p>", "k1").written, 1);
        assert_eq!(stage("<p>one</p>", "k1").written, 0);
        assert_eq!(stage("<p>one</p>", "k1").written, 0);
        // The spare's page, changed with its modification time put back: not read, kept.
        let page = spare.join("p.xhtml");
        let time = std::fs::metadata(&page).unwrap().modified().unwrap();
        std::fs::write(&page, "<p>eno</p>").unwrap();
        let file = std::fs::File::options().write(true).open(&page).unwrap();
        file.set_modified(time).unwrap();
        drop(file);
        assert_eq!(stage("<p>one</p>", "k1").written, 0);
        assert_eq!(std::fs::read(dir.join("p.xhtml")).unwrap(), b"<p>eno</p>");
        // Another identity: written, whatever the stamp.
        assert_eq!(stage("<p>two</p>", "k2").written, 1);
        assert_eq!(std::fs::read(dir.join("p.xhtml")).unwrap(), b"<p>two</p>");
        // The other tree's page edited (another time): compared, found changed, written.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(spare.join("p.xhtml"), "<p>edit</p>").unwrap();
        assert_eq!(stage("<p>two</p>", "k2").written, 1);
        assert_eq!(std::fs::read(dir.join("p.xhtml")).unwrap(), b"<p>two</p>");
    }

    /// A page whose bytes are read later (a page the page cache keeps) is read only when
    /// staging does not find it as it left it; bytes that cannot be read then fail the
    /// staging, naming the page, and leave the last staged tree as it was.
    #[test]
    #[cfg(unix)]
    fn a_page_read_later_is_read_only_when_staging_must_write_it() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let root = tempfile::tempdir().unwrap();
        let (dir, spare) = (root.path().join("build/book"), root.path().join("spare"));
        let known = root.path().join("staged");
        let reads = Arc::new(AtomicUsize::new(0));
        let stage = |bytes: Option<&'static str>, identity: &str| {
            let counted = reads.clone();
            let later = Later::new(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                bytes.map(|b| b.as_bytes().to_vec())
            });
            let mut t = Tree::default();
            t.add_later("p.xhtml", later, identity.to_string());
            t.add("style.css", "p {}");
            stage_keeping(&t, &dir, Some(&spare), None, Some(&known))
        };
        // Written into both trees (read each time), then found in each: not read.
        assert_eq!(stage(Some("<p>one</p>"), "k1").unwrap().written, 2);
        assert_eq!(stage(Some("<p>one</p>"), "k1").unwrap().written, 2);
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        assert_eq!(stage(Some("<p>one</p>"), "k1").unwrap().written, 0);
        assert_eq!(stage(None, "k1").unwrap().written, 0);
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        assert_eq!(std::fs::read(dir.join("p.xhtml")).unwrap(), b"<p>one</p>");
        // Another identity whose bytes are lost: the staging fails, naming the page.
        let Err(e) = stage(None, "k2") else {
            panic!("staged a page it could not read")
        };
        assert!(e.to_string().contains("p.xhtml"), "{e}");
        assert!(e.to_string().contains("went missing"), "{e}");
        assert_eq!(std::fs::read(dir.join("p.xhtml")).unwrap(), b"<p>one</p>");
        // And read, they are written (the spare the failed staging started from is gone).
        assert!(stage(Some("<p>two</p>"), "k2").unwrap().written >= 1);
        assert_eq!(std::fs::read(dir.join("p.xhtml")).unwrap(), b"<p>two</p>");
    }

    #[test]
    #[cfg(unix)]
    fn staging_knows_the_images_it_finds_linked_and_links_a_replaced_one_again() {
        use crate::cache::{FileStamp, ListedInputs};
        let root = tempfile::tempdir().unwrap();
        let (dir, spare) = (root.path().join("build/book"), root.path().join("spare"));
        let book = root.path().join("book");
        std::fs::create_dir_all(&book).unwrap();
        let image = book.join("cat.png");
        std::fs::write(&image, b"a cat").unwrap();
        let stage = || {
            let listed = ListedInputs::stamp(&book, std::slice::from_ref(&book), &[]).unwrap();
            let mut t = tree(&[("a.txt", "1")]);
            t.copy("img/cat.png", &image);
            t.link_copies(true);
            stage_keeping(&t, &dir, Some(&spare), Some(&listed), None).unwrap()
        };
        // Linked by the first two stagings (the second has no spare yet); the third finds
        // the link in the spare and knows it by the listing's stamp.
        assert!(stage().stamps.is_empty());
        assert!(stage().stamps.is_empty());
        let third = stage();
        assert_eq!(third.written, 0);
        assert_eq!(
            third.stamps.get("img/cat.png"),
            FileStamp::of(&dir.join("img/cat.png")).as_ref()
        );
        // Saved as editors save (a new file renamed over the old): linked again, and looked
        // at rather than known.
        std::fs::write(book.join("new.png"), b"another cat").unwrap();
        std::fs::rename(book.join("new.png"), &image).unwrap();
        let fourth = stage();
        assert!(fourth.stamps.is_empty());
        assert_eq!(
            std::fs::read(dir.join("img/cat.png")).unwrap(),
            b"another cat"
        );
        assert_eq!(inode(&dir.join("img/cat.png")), inode(&image));
    }

    #[test]
    fn staging_replaces_the_folder_whole_and_leaves_nothing_beside_it() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("book");
        // The first time there is nothing to replace.
        stage(&tree(&[("a.txt", "1"), ("sub/b.txt", "2")]), &dir).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("sub/b.txt")).unwrap(), "2");
        stage(&tree(&[("c.txt", "3")]), &dir).unwrap();
        assert_eq!(crate::epub::list_files(&dir).unwrap(), ["c.txt"]);
        assert_eq!(
            names(root.path()),
            [".book.seihon", "book"],
            "no temporaries left"
        );
    }

    /// Where the file system can exchange folders, a reader polling the folder while it is
    /// replaced again and again always finds it, whole.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn a_reader_never_finds_the_folder_missing_or_half_replaced() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("book");
        stage(&tree(&[("a.txt", "0"), ("b.txt", "0")]), &dir).unwrap();
        let probe = temp_dir("stage-", root.path()).unwrap();
        if !exchange(probe.path(), &dir).unwrap() {
            eprintln!("this file system cannot exchange folders; skipped");
            return;
        }
        exchange(probe.path(), &dir).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reader = {
            let (dir, stop) = (dir.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut reads = 0u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let a = std::fs::read_to_string(dir.join("a.txt"));
                    let b = std::fs::read_to_string(dir.join("b.txt"));
                    // Two reads may straddle a swap; each finds a file all the same.
                    assert!(a.is_ok() && b.is_ok(), "missing after {reads} reads");
                    reads += 1;
                }
                reads
            })
        };
        for i in 1..=300 {
            let n = i.to_string();
            stage(&tree(&[("a.txt", &n), ("b.txt", &n)]), &dir).unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
        assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "300");
        drop(probe);
        assert_eq!(
            names(root.path()),
            [".book.seihon", "book"],
            "no temporaries left"
        );
    }

    #[test]
    fn only_folders_seihon_put_in_place_are_replaced() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("book");
        // Someone's own folder where a staged tree would go: left as it is.
        std::fs::create_dir_all(dir.join("chapters")).unwrap();
        std::fs::write(dir.join("chapters/ch01.md"), "# mine").unwrap();
        let e = stage(&tree(&[("a.txt", "1")]), &dir).unwrap_err();
        assert!(e.to_string().contains("was not made by seihon"), "{e}");
        assert_eq!(
            std::fs::read(dir.join("chapters/ch01.md")).unwrap(),
            b"# mine"
        );
        assert_eq!(names(root.path()), ["book"], "no temporaries left");
        // A link or a file in its place is not replaced either.
        std::fs::remove_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(root.path(), &dir).unwrap();
        assert!(stage(&tree(&[("a.txt", "1")]), &dir).is_err());
        std::fs::remove_file(&dir).unwrap();
        // What seihon put there (and marked), or an empty folder, is replaced.
        std::fs::create_dir(&dir).unwrap();
        stage(&tree(&[("a.txt", "1")]), &dir).unwrap();
        stage(&tree(&[("a.txt", "2")]), &dir).unwrap();
        assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"2");
        // A folder moved in under the same name does not carry the mark.
        let other = root.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "mine").unwrap();
        std::fs::rename(&dir, root.path().join("moved")).unwrap();
        std::fs::rename(&other, &dir).unwrap();
        assert!(stage(&tree(&[("a.txt", "3")]), &dir).is_err());
        assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"mine");
    }

    #[test]
    fn unmarked_trees_that_are_plainly_seihons_are_replaced() {
        let root = tempfile::tempdir().unwrap();
        let staged = root.path().join("book");
        std::fs::create_dir_all(staged.join("META-INF")).unwrap();
        std::fs::write(staged.join("mimetype"), "application/epub+zip").unwrap();
        std::fs::write(staged.join("META-INF/container.xml"), "<container/>").unwrap();
        assert!(replaceable(&staged));
        let preview = root.path().join("preview");
        std::fs::create_dir_all(&preview).unwrap();
        std::fs::write(preview.join("status.json"), r#"{"book":"b","ok":true}"#).unwrap();
        std::fs::write(preview.join("index.html"), "<html/>").unwrap();
        assert!(replaceable(&preview));
        std::fs::write(preview.join("status.json"), "{}").unwrap();
        assert!(!replaceable(&preview));
    }

    #[test]
    fn temporaries_are_named_for_their_process() {
        let pid = std::process::id();
        let dir = tempfile::tempdir().unwrap();
        let staged = temp_dir("stage-", dir.path()).unwrap();
        let name = staged.path().file_name().unwrap().to_str().unwrap();
        assert_eq!(temp_owner(name, true), Some(pid), "{name}");
        let file = temp_file(dir.path(), ".tmp.epub").unwrap();
        let name = file.path().file_name().unwrap().to_str().unwrap();
        assert_eq!(temp_owner(name, false), Some(pid), "{name}");
        assert_eq!(temp_owner(".seihon-old-12-AbC9", true), Some(12));
        assert_eq!(temp_owner(".seihon-preview-7-x1", true), Some(7));
        assert_eq!(temp_owner(".seihon-7-x1.tmp", false), Some(7));
        // Not seihon's, or not of this kind: never an owner.
        for (name, is_dir) in [
            (".seihon-stage-12-AbC9", false),
            (".seihon-12-AbC9.tmp", true),
            (".seihon-stage-AbC9", true),
            (".seihon-stage-12-", true),
            (".seihon-stage--AbC9", true),
            (".seihon-stage-12-a.b", true),
            (".seihon-other-12-AbC9", true),
            (".seihon-12-AbC9.epub", false),
            (".seihon-12-AbC9.tmp.bak", false),
            ("seihon-stage-12-AbC9", true),
            ("notes.tmp", false),
        ] {
            assert_eq!(temp_owner(name, is_dir), None, "{name}");
        }
    }

    #[test]
    fn sweeping_removes_only_what_ended_runs_of_seihon_left() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // A process that has ended: its pid names no process now.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        let dead = child.id();
        let own = std::process::id();
        let long_ago = SystemTime::now() - Duration::from_secs(86_400);
        let make = |name: &str, is_dir: bool, when: SystemTime| {
            let path = d.join(name);
            if is_dir {
                std::fs::create_dir_all(path.join("sub")).unwrap();
                std::fs::write(path.join("sub/x"), "x").unwrap();
            } else {
                std::fs::write(&path, "x").unwrap();
            }
            std::fs::File::open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        make(&format!(".seihon-stage-{dead}-AbC123"), true, long_ago);
        make(&format!(".seihon-old-{dead}-AbC123"), true, long_ago);
        make(&format!(".seihon-preview-{dead}-AbC123"), true, long_ago);
        make(&format!(".seihon-{dead}-AbC123.tmp.epub"), false, long_ago);
        make(&format!(".seihon-{dead}-AbC123.tmp"), false, long_ago);
        // Kept: this process's own, one newer than this run, names seihon does not make.
        make(&format!(".seihon-stage-{own}-AbC123"), true, long_ago);
        let future = SystemTime::now() + Duration::from_secs(3600);
        make(&format!(".seihon-stage-{dead}-New123"), true, future);
        make(&format!(".seihon-stage-{dead}-AbC123.tmp"), false, long_ago);
        make(&format!(".seihon-{dead}-Dir123.tmp"), true, long_ago);
        make(".seihon-notes", false, long_ago);
        make("book.epub", false, long_ago);
        make("build", true, long_ago);
        sweep(d);
        let mut kept = vec![
            format!(".seihon-stage-{own}-AbC123"),
            format!(".seihon-stage-{dead}-New123"),
            format!(".seihon-stage-{dead}-AbC123.tmp"),
            format!(".seihon-{dead}-Dir123.tmp"),
            ".seihon-notes".to_string(),
            "book.epub".to_string(),
            "build".to_string(),
        ];
        kept.sort();
        assert_eq!(names(d), kept);
        // A folder that does not exist is nothing to sweep.
        sweep(&d.join("missing"));
    }
}
