//! The build caches. The chapter cache: what reading a chapter gave (its document and findings),
//! kept by the hash of everything reading depends on (seihon's version, the file's name, format
//! and bytes, the reader's settings). A rebuild reads only the chapters whose hash is new; `build`
//! and `watch` share it. The page cache: a chapter's finished page (written, templated, filtered),
//! kept by the hash of the resolved chapter and everything the page depends on ([`PageKeys`]). Entries are written whole (temporary file, then rename) and a damaged one is
//! simply read again, so the cache can never make a build wrong, only faster.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sha2::Digest;

use crate::doc::Document;
use crate::error::Finding;

/// What reading one chapter gives.
pub type Read = (Document, Vec<Finding>);

/// Entries are bincode.
const EXTENSION: &str = "bin";

/// Entries of one kind (`T`) kept by key in one folder, as bincode.
pub struct Cache<T> {
    dir: PathBuf,
    kind: std::marker::PhantomData<fn() -> T>,
}

/// Readings of chapters, by the hash of what reading depends on.
pub type ChapterCache = Cache<Read>;

impl<T: serde::Serialize + serde::de::DeserializeOwned> Cache<T> {
    /// The cache in `dir` (created when the first entry is written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Cache {
            dir: dir.into(),
            kind: std::marker::PhantomData,
        }
    }

    /// The key of an entry: a hash of this seihon ([`exe_identity`]: entries are bincode, which
    /// another build of the types could misread) and of the parts (each length-prefixed, so
    /// that parts cannot run into each other).
    pub fn key(parts: &[&[u8]]) -> String {
        let mut h = sha2::Sha256::new();
        let exe = exe_identity();
        for p in std::iter::once(exe.as_bytes()).chain(parts.iter().copied()) {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.{EXTENSION}"))
    }

    pub fn get(&self, key: &str) -> Option<T> {
        use bincode::Options;
        let bytes = std::fs::read(self.path(key)).ok()?;
        // A damaged entry cannot make reading it claim more memory than a few times its size.
        bincode::DefaultOptions::new()
            .with_limit(bytes.len() as u64 * 16 + 4096)
            .deserialize(&bytes)
            .ok()
    }

    /// Keeps an entry; a cache that cannot be written only costs speed.
    pub fn put(&self, key: &str, read: &T) {
        use bincode::Options;
        if let Ok(bytes) = bincode::DefaultOptions::new().serialize(read) {
            let _ = crate::stage::write_atomic(&self.path(key), &bytes);
        }
    }

    /// Removes the entries this build did not use (old versions of chapters), and what killed
    /// runs left half-written.
    pub fn keep_only(&self, used: &HashSet<String>) {
        crate::stage::sweep(&self.dir);
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            // Whatever else is here is an old entry, of this format or an earlier one; hidden
            // names are other runs' temporaries, which `sweep` sees to.
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if !hidden && path.is_file() && !used.contains(stem) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// One value of a kind (`name`) kept in `dir` for this seihon: none when there is none, or it
/// does not read, or another seihon kept it.
pub fn load_one<T: serde::de::DeserializeOwned + serde::Serialize>(
    dir: &Path,
    name: &str,
) -> Option<T> {
    Cache::<T>::new(dir).get(&Cache::<T>::key(&[name.as_bytes()]))
}

/// Keeps `value` as the one value of its kind in `dir` (see [`load_one`]), in place of any
/// earlier one.
pub fn keep_one<T: serde::de::DeserializeOwned + serde::Serialize>(
    dir: &Path,
    name: &str,
    value: &T,
) {
    let cache = Cache::<T>::new(dir);
    let key = Cache::<T>::key(&[name.as_bytes()]);
    cache.put(&key, value);
    cache.keep_only(&HashSet::from([key]));
}

/// What a file looked like: its size, times and inode. A file written again gets a new change
/// time (which tools cannot set back), so a stamp that matches is the same file, unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
    inode: u64,
}

impl FileStamp {
    pub fn of(path: &Path) -> Option<FileStamp> {
        std::fs::metadata(path).ok().and_then(|m| Self::of_meta(&m))
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }

    pub fn of_meta(meta: &std::fs::Metadata) -> Option<FileStamp> {
        let modified_ns = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(-1, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let (changed_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (
                meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
                meta.ino(),
            )
        };
        #[cfg(not(unix))]
        let (changed_ns, inode) = (modified_ns, 0);
        Some(FileStamp {
            len: meta.len(),
            modified_ns,
            changed_ns,
            inode,
        })
    }
}

/// This seihon: its version and its executable's size and time. What one seihon cached, another
/// (even of the same version, rebuilt) does not take.
pub fn exe_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| format!("{:?} {:?}", m.len(), m.modified().ok()))
        .unwrap_or_default();
    format!("{} {exe}", env!("CARGO_PKG_VERSION"))
}

/// Keys of a build's pages: a hash of what every page of the build shares (seihon's executable,
/// templates, filters, the book's page context), extended per page with everything about the
/// page (the resolved chapter, by its `Debug` form, which shows every field).
#[derive(Clone)]
pub struct PageKeys {
    base: sha2::Sha256,
}

impl PageKeys {
    pub fn new(parts: &[&[u8]]) -> Self {
        let mut base = sha2::Sha256::new();
        // A rebuilt seihon may write pages differently under the same version number.
        let exe = exe_identity();
        for p in std::iter::once(exe.as_bytes()).chain(parts.iter().copied()) {
            base.update((p.len() as u64).to_le_bytes());
            base.update(p);
        }
        PageKeys { base }
    }

    /// The key of a thing given by its bytes.
    pub fn key_of(&self, parts: &[&[u8]]) -> String {
        let mut h = self.base.clone();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The key of one page: its bulk (a chapter's document) by its serialized form, the rest by
    /// its `Debug` form (which shows every field).
    pub fn key(&self, bulk: &impl serde::Serialize, rest: &dyn std::fmt::Debug) -> String {
        struct Hashing(sha2::Sha256);
        impl std::fmt::Write for Hashing {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0.update(s.as_bytes());
                Ok(())
            }
        }
        impl std::io::Write for Hashing {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.update(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut h = Hashing(self.base.clone());
        // Writing to a hash cannot fail; a value that cannot be serialized is hashed as far as
        // it went, and its `Debug` form follows.
        let _ = bincode::Options::serialize_into(bincode::DefaultOptions::new(), &mut h, bulk);
        let _ = std::fmt::write(&mut h, format_args!("{rest:?}"));
        h.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_unused_ones_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ChapterCache::new(dir.path().join("c"));
        let (doc, found) =
            crate::reader::markdown::read("# 見出し\n\n本文[^x]。\n", Path::new("a.md"));
        let k1 = ChapterCache::key(&[b"a.md", b"# x"]);
        assert_ne!(
            k1,
            ChapterCache::key(&[b"a.m", b"d# x"]),
            "parts are delimited"
        );
        assert!(cache.get(&k1).is_none());
        cache.put(&k1, &(doc.clone(), found.clone()));
        assert_eq!(cache.get(&k1), Some((doc.clone(), found)));
        let k2 = ChapterCache::key(&[b"b.md"]);
        cache.put(&k2, &(doc, Vec::new()));
        // A damaged entry is a miss, not an error.
        std::fs::write(cache.path(&k2), b"{").unwrap();
        assert!(cache.get(&k2).is_none());
        cache.keep_only(&HashSet::from([k1.clone()]));
        assert!(cache.path(&k1).is_file());
        assert!(!cache.path(&k2).exists());
    }
}
