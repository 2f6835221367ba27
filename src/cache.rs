//! The build caches: what a build keeps so that the next does no work twice. All of it is under
//! `build/.cache/` and safe to delete; a cache can only make a build faster, never different,
//! because every entry is found by a [`Key`] of everything it depends on, and seihon's own
//! executable is part of every key.
//!
//! | what (where) | kept by | why it is safe |
//! |---|---|---|
//! | a chapter's reading: document and findings (`chapters/<id>/`) | the file's name, format and bytes, the Re:VIEW settings | reading depends on nothing else; a chapter with errors is never kept, so its messages come fresh |
//! | a DocBook chapter's conversion: document, findings, the counters after it (`docbook/<id>/`) | where its element starts, the name and bytes of every file its elements come from, the counters and warnings before it, and what the whole book gives every chapter: the files no element comes from (the main file with its DTD subset, text entities, text XIncludes), the xref, endterm, range and callout tables, the language | converting a chapter reads nothing else of the tree |
//! | the resolve memo: what resolving each chapter gave, with its reading's key and findings and the stamp its file had before it was read (`resolve/<id>/`, see [`crate::xref::memo`]) | the book's settings and the name, size and time of every file of the book but its chapters | a chapter file with the stamp it had is known by the key of the bytes read then, as the up-to-date check knows every input by its stamp; a chapter that maps other files in (`#@mapfile`) is always read |
//! | a chapter's finished page (`pages/<id>/`), and apart what the package takes of it but its text (`page-heads/<id>/`: a kept page's text is read only when needed) | the resolved chapter (every field, by value), the page context, the templates' texts, the filter chain's fingerprint, the style sheets | no entry at all with an external filter, whose output may depend on anything |
//! | a generated page or file: cover page, title page, nav, colophon, index, style sheet, NCX, OPF (`generated/<id>/`) | the templates' texts, the template's name and everything its context holds ([`crate::pages::Keyed`]) | no filter runs on them; a template renders nothing but its context |
//! | what the checks gathered from a page or an NCX, and what the link and resource checks found in it (`checks/<id>/`) | the page's path, bytes and source positions (or the key of what made it); for the findings also every file's path and every page's ids (links), or every file's path and the manifest (resources) | the facts are a function of these, and the findings of the facts and these |
//! | a highlighted listing (`highlights/<id>/`) | its language and text (and this seihon, whose grammars and classes made it) | highlighting depends on nothing else |
//! | image checks (`images/<id>/`) | each image's [`FileStamp`] | a file written again has a new modification time, one replaced a new inode ([`FileStamp::unchanged_since`]) |
//! | CRC-32s of the last packed tree (`crcs/<id>/`) | each staged file's [`FileStamp`] | as above |
//! | the generated cover as PNG (`covers/`) | the cover's SVG text | rendering depends on nothing else |
//! | the last EPUB's stamp (`packed-by/<id>`) | this seihon, the EPUB's path and [`FileStamp`] | an EPUB a hook or anything else touched is packed anew |
//! | the up-to-date stamp of a book (`fresh/`, see [`crate::fresh`]) | every input file's [`FileStamp`], the target, `SOURCE_DATE_EPOCH`, the commit | a book with hooks is always built |
//! | answers of web addresses (`external-links.json`) | the address, for a day | only with `--external-links` |
//! | the staged tree and preview before last (`spare/`, `spare-preview/`) | — | only a starting point: every file is compared before it is kept |
//!
//! Each cache is one file (`entries.bin` in its folder), not a file per entry: a book of 100,000
//! chapters made 300,000 cache files a build, and creating them took most of its time. A build
//! that adds a few entries appends them to the file (writing it whole again cost a one-chapter
//! rebuild of a 50-chapter book 16 ms); the file is written whole (temporary file, then rename)
//! only when entries no longer used would make up more than half of it. Each entry carries a
//! CRC-32 of its bytes and a damaged file reads as far as it is whole, so the cache can never
//! make a build wrong, only faster (two builds appending at once included).
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::Digest;

use crate::doc::Document;
use crate::error::Finding;

/// What reading one chapter gives.
pub type Read = (Document, Vec<Finding>);

/// The one file of a cache, in its folder.
const STORE: &str = "entries.bin";
/// What the store file starts with; a file that does not is not read.
const MAGIC: &[u8] = b"seihon cache 2\n";
/// An entry's header after its key: its length (u64) and the CRC-32 of its bytes (u32).
const LEN_AND_CRC: u64 = 12;
/// Entries are at most this long (a reading of a chapter of this size is never cached).
const MAX_ENTRY: u64 = 1 << 32;

/// Where an entry's bytes are: in the store as it was read, or in this run's pending file.
#[derive(Clone, Copy)]
enum At {
    Old { offset: u64, len: u64, crc: u32 },
    New { offset: u64, len: u64 },
}

/// The store as it was read: its entries, and how many of its bytes they span (a run cut
/// short leaves a tail after them, which is never appended to).
#[derive(Default)]
struct Stored {
    index: HashMap<String, (u64, u64, u32)>,
    /// The end of the last whole entry.
    end: u64,
    /// The file's length when it was read.
    len: u64,
}

/// Entries of one kind (`T`) kept by key in one file, as bincode.
pub struct Cache<T> {
    dir: PathBuf,
    /// The store as it was when the cache was opened, and where each of its entries is.
    old: Option<File>,
    old_index: HashMap<String, (u64, u64, u32)>,
    old_end: u64,
    old_len: u64,
    /// What this run added: a temporary file the entries are appended to as they come (so a
    /// large reading is not held in memory until the end), and where each is in it.
    new: Mutex<Pending>,
    kind: std::marker::PhantomData<fn() -> T>,
}

#[derive(Default)]
struct Pending {
    file: Option<tempfile::NamedTempFile>,
    len: u64,
    index: HashMap<String, (u64, u64)>,
    /// Whether writing the pending file failed (then nothing more is added to it).
    broken: bool,
}

/// Readings of chapters, by the hash of what reading depends on.
pub type ChapterCache = Cache<Read>;

impl<T: serde::Serialize + serde::de::DeserializeOwned> Cache<T> {
    /// The cache in `dir` (created when the first entry is kept). Only the store's index is
    /// read now; an entry's bytes when it is asked for.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        let (old, stored) = match File::open(dir.join(STORE)) {
            Ok(file) => {
                let stored = read_index(&file).unwrap_or_default();
                (Some(file), stored)
            }
            Err(_) => (None, Stored::default()),
        };
        Cache {
            dir,
            old,
            old_index: stored.index,
            old_end: stored.end,
            old_len: stored.len,
            new: Mutex::new(Pending::default()),
            kind: std::marker::PhantomData,
        }
    }

    pub fn get(&self, key: &str) -> Option<T> {
        use bincode::Options;
        let bytes = self.entry(key)?;
        // A damaged entry cannot make reading it claim more memory than a few times its size.
        bincode::DefaultOptions::new()
            .with_limit(bytes.len() as u64 * 16 + 4096)
            .deserialize(&bytes)
            .ok()
    }

    /// The start of the entry under `key`, read as `H`: a struct whose fields are the first
    /// fields of `T`, in order (bincode writes a struct as its fields one after the other), so
    /// that what follows them is never decoded.
    pub fn get_head<H: serde::de::DeserializeOwned>(&self, key: &str) -> Option<H> {
        use bincode::Options;
        let bytes = self.entry(key)?;
        bincode::DefaultOptions::new()
            .with_limit(bytes.len() as u64 * 16 + 4096)
            .allow_trailing_bytes()
            .deserialize(&bytes)
            .ok()
    }

    /// The bytes of the entry under `key`, whole (its CRC checked).
    fn entry(&self, key: &str) -> Option<Vec<u8>> {
        Some(match self.find(key)? {
            At::Old { offset, len, crc } => {
                let bytes = read_at(self.old.as_ref()?, offset, len)?;
                // A damaged entry, or one another build was appending as this one read.
                if crc32fast::hash(&bytes) != crc {
                    return None;
                }
                bytes
            }
            At::New { offset, len } => {
                let pending = self.new.lock().ok()?;
                read_at(pending.file.as_ref()?.as_file(), offset, len)?
            }
        })
    }

    /// Whether an entry is kept under `key` (without reading it).
    pub fn contains(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    fn find(&self, key: &str) -> Option<At> {
        if let Some(&(offset, len, crc)) = self.old_index.get(key) {
            return Some(At::Old { offset, len, crc });
        }
        let pending = self.new.lock().ok()?;
        let &(offset, len) = pending.index.get(key)?;
        Some(At::New { offset, len })
    }

    /// Keeps an entry (in the store once [`Cache::keep_only`] writes it); a cache that cannot
    /// be written only costs speed.
    pub fn put(&self, key: &str, value: &T) {
        use bincode::Options;
        if key.len() > u16::MAX as usize {
            return;
        }
        let Ok(mut pending) = self.new.lock() else {
            return;
        };
        if pending.broken {
            return;
        }
        if pending.file.is_none() {
            let made = std::fs::create_dir_all(&self.dir)
                .ok()
                .and_then(|()| crate::files::temp_file(&self.dir, ".tmp").ok());
            match made {
                Some(f) => pending.file = Some(f),
                None => {
                    pending.broken = true;
                    return;
                }
            }
        }
        let offset = pending.len;
        // Serialized straight into the file: a large reading is not copied into memory first.
        let wrote = pending.file.as_mut().map(|f| {
            let file = f.as_file_mut();
            let mut w = BufWriter::with_capacity(64 * 1024, &*file);
            let done = bincode::DefaultOptions::new()
                .serialize_into(&mut w, value)
                .map_err(std::io::Error::other)
                .and_then(|()| w.flush());
            drop(w);
            done.and_then(|()| std::io::Seek::stream_position(file))
        });
        match wrote {
            Some(Ok(end)) if end - offset < MAX_ENTRY => {
                pending.len = end;
                pending
                    .index
                    .insert(key.to_string(), (offset, end - offset));
            }
            _ => pending.broken = true,
        }
    }

    /// Keeps in the store the entries this build used (old versions of chapters go), and
    /// removes what killed runs left half-written. New entries are appended to the store as it
    /// is, unless entries no longer used would then make up more than half of it: then it is
    /// written anew with the used ones only. Nothing is written when no entry is new.
    pub fn keep_only(&self, used: &HashSet<String>) {
        crate::files::sweep(&self.dir);
        let Ok(mut pending) = self.new.lock() else {
            return;
        };
        let kept: Vec<(&String, At)> = {
            let mut v: Vec<(&String, At)> = used
                .iter()
                .filter_map(|k| {
                    // What this run put under a key is newer than what the store holds
                    // ([`keep_one`] replaces a value under the same key).
                    if let Some(&(offset, len)) = pending.index.get(k) {
                        Some((k, At::New { offset, len }))
                    } else {
                        let &(offset, len, crc) = self.old_index.get(k)?;
                        Some((k, At::Old { offset, len, crc }))
                    }
                })
                .collect();
            // In key order: the same entries make the same file.
            v.sort_by(|a, b| a.0.cmp(b.0));
            v
        };
        let size = |key: &String, len: u64| 2 + key.len() as u64 + LEN_AND_CRC + len;
        let (mut live, mut added) = (0, 0);
        for (key, at) in &kept {
            match *at {
                At::Old { len, .. } => live += size(key, len),
                At::New { len, .. } => added += size(key, len),
            }
        }
        let unused = self.old_end.saturating_sub(MAGIC.len() as u64 + live);
        let pending_file = pending.file.as_ref().map(|f| f.as_file());
        let appendable = self.old.is_some() && self.old_end == self.old_len;
        if unused > live + added || !appendable {
            if !(kept.is_empty() && self.old.is_none()) {
                let _ = write_store(&self.dir, self.old.as_ref(), pending_file, &kept);
            }
        } else if added > 0 {
            let new: Vec<_> = kept
                .iter()
                .filter(|(_, at)| matches!(at, At::New { .. }))
                .copied()
                .collect();
            if append_to_store(&self.dir, self.old_len, pending_file, &new).is_err() {
                let _ = write_store(&self.dir, self.old.as_ref(), pending_file, &kept);
            }
        }
        pending.file = None;
        pending.index.clear();
        pending.len = 0;
        // What an earlier seihon kept here, a file an entry.
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.ends_with(".bin") && name != STORE && !name.starts_with('.') {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Removes the store, for an entry found damaged after the build took it as kept: the
    /// next build finds the cache empty and makes its entries again, rather than trusting the
    /// damaged one each time. (This build keeps reading the store it opened.)
    pub fn discard(&self) {
        let _ = std::fs::remove_file(self.dir.join(STORE));
    }

    /// The keys of the entries the store held when the cache was opened.
    #[cfg(test)]
    pub fn keys(&self) -> impl Iterator<Item = String> + '_ {
        self.old_index.keys().cloned()
    }

    /// How many entries the store held when the cache was opened.
    pub fn len(&self) -> usize {
        self.old_index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.old_index.is_empty()
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The store's index: each entry is `[key length: u16][key][length: u64][CRC-32: u32][bytes]`;
/// a key kept twice is the later entry. A store cut short (a full disk, a killed run) gives the
/// entries before the cut. Only the headers are read: a store of large entries (pages, chapter
/// readings) is not read through to find them.
fn read_index(file: &File) -> Option<Stored> {
    let total = file.metadata().ok()?.len();
    let mut headers = Headers {
        file,
        total,
        buf: Vec::new(),
        start: 0,
    };
    if headers.bytes(0, MAGIC.len(), Headers::WIDE)? != MAGIC {
        return None;
    }
    let mut index = HashMap::new();
    let mut at = MAGIC.len() as u64;
    // How much is read at a time: a window of many entries while they are small, only a
    // header's worth after a large one.
    let mut span = Headers::WIDE;
    while let Some(klen) = headers.bytes(at, 2, span) {
        let klen = u16::from_le_bytes([klen[0], klen[1]]) as usize;
        let Some(head) = headers.bytes(at, 2 + klen + LEN_AND_CRC as usize, span) else {
            break;
        };
        let (key, rest) = head[2..].split_at(klen);
        let (len, crc) = rest.split_at(8);
        let len = u64::from_le_bytes(len.try_into().ok()?);
        let crc = u32::from_le_bytes(crc.try_into().ok()?);
        let offset = at + 2 + klen as u64 + LEN_AND_CRC;
        if len >= MAX_ENTRY || offset + len > total {
            break;
        }
        let Ok(key) = String::from_utf8(key.to_vec()) else {
            break;
        };
        index.insert(key, (offset, len, crc));
        span = match len > Headers::WIDE as u64 / 8 {
            true => Headers::NARROW,
            false => Headers::WIDE,
        };
        at = offset + len;
    }
    Some(Stored {
        index,
        end: at,
        len: total,
    })
}

/// The part of a store last read, for finding its entries' headers.
struct Headers<'a> {
    file: &'a File,
    total: u64,
    buf: Vec<u8>,
    /// Where `buf` starts in the file.
    start: u64,
}

impl Headers<'_> {
    const WIDE: usize = 64 * 1024;
    /// More than a header: a length, a 64-character key and the length and CRC.
    const NARROW: usize = 512;

    /// The `n` bytes at `at`, from what was read when they are in it, else reading `span`
    /// bytes (at least `n`) from `at`; `None` past the end of the file.
    fn bytes(&mut self, at: u64, n: usize, span: usize) -> Option<&[u8]> {
        let end = at.checked_add(n as u64)?;
        if end > self.total {
            return None;
        }
        let held = self.start + self.buf.len() as u64;
        if at < self.start || end > held {
            let want = (span.max(n) as u64).min(self.total - at) as usize;
            self.buf.resize(want, 0);
            self.start = at;
            read_exact_at(self.file, &mut self.buf, at).ok()?;
        }
        let from = (at - self.start) as usize;
        Some(&self.buf[from..from + n])
    }
}

fn read_at(file: &File, offset: u64, len: u64) -> Option<Vec<u8>> {
    let mut bytes = vec![0; usize::try_from(len).ok()?];
    read_exact_at(file, &mut bytes, offset).ok()?;
    Some(bytes)
}

fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            match file.seek_read(&mut buf[done..], offset + done as u64)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
}

/// Writes the store anew from the entries kept (from the old store or this run's pending file).
fn write_store(
    dir: &Path,
    old: Option<&File>,
    pending: Option<&File>,
    kept: &[(&String, At)],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = crate::files::temp_file(dir, ".tmp").map_err(std::io::Error::other)?;
    let mut w = BufWriter::with_capacity(256 * 1024, tmp.as_file());
    w.write_all(MAGIC)?;
    let mut buf = vec![0u8; 256 * 1024];
    for (key, at) in kept {
        match *at {
            At::Old { offset, len, crc } => {
                let file = old.ok_or_else(|| std::io::Error::other("no store"))?;
                write_header(&mut w, key, len, crc)?;
                let mut done = 0u64;
                while done < len {
                    let n = (len - done).min(buf.len() as u64) as usize;
                    read_exact_at(file, &mut buf[..n], offset + done)?;
                    w.write_all(&buf[..n])?;
                    done += n as u64;
                }
            }
            At::New { offset, len } => w.write_all(&new_entry(pending, key, offset, len)?)?,
        }
    }
    w.flush()?;
    drop(w);
    tmp.persist(dir.join(STORE)).map_err(|e| e.error)?;
    Ok(())
}

/// Appends this run's entries to the store, when it is still the file of `len` bytes this run
/// read. Each entry goes in one write at the end of the file (two builds appending at once
/// interleave whole entries; the CRC-32s catch anything else).
fn append_to_store(
    dir: &Path,
    len: u64,
    pending: Option<&File>,
    new: &[(&String, At)],
) -> std::io::Result<()> {
    let mut store = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(STORE))?;
    if store.metadata()?.len() != len {
        return Err(std::io::Error::other("the store changed since it was read"));
    }
    for (key, at) in new {
        if let At::New { offset, len } = *at {
            store.write_all(&new_entry(pending, key, offset, len)?)?;
        }
    }
    Ok(())
}

/// A new entry as the store holds it: header and bytes, read from the pending file.
fn new_entry(pending: Option<&File>, key: &str, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let file = pending.ok_or_else(|| std::io::Error::other("no pending file"))?;
    let bytes = read_at(file, offset, len).ok_or_else(|| std::io::Error::other("cut short"))?;
    let mut entry = Vec::with_capacity(bytes.len() + key.len() + 14);
    write_header(&mut entry, key, len, crc32fast::hash(&bytes))?;
    entry.extend_from_slice(&bytes);
    Ok(entry)
}

fn write_header(w: &mut impl std::io::Write, key: &str, len: u64, crc: u32) -> std::io::Result<()> {
    w.write_all(&(key.len() as u16).to_le_bytes())?;
    w.write_all(key.as_bytes())?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&crc.to_le_bytes())
}

/// A `T` kept as its bincode bytes inside a larger kept value: decoded only when it is wanted
/// (several side by side), and written back as the same bytes when it has not changed.
pub struct Encoded<T> {
    bytes: Vec<u8>,
    kind: std::marker::PhantomData<fn() -> T>,
}

impl<T: serde::Serialize + serde::de::DeserializeOwned> Encoded<T> {
    /// `value`'s bytes; `None` only when it cannot be written as bincode.
    pub fn new(value: &T) -> Option<Encoded<T>> {
        use bincode::Options;
        let bytes = bincode::DefaultOptions::new().serialize(value).ok()?;
        Some(Encoded {
            bytes,
            kind: std::marker::PhantomData,
        })
    }

    /// The value, or `None` when the bytes do not read as one (a damaged cache); they cannot
    /// make reading claim more memory than a few times their size.
    pub fn decode(&self) -> Option<T> {
        use bincode::Options;
        bincode::DefaultOptions::new()
            .with_limit(self.bytes.len() as u64 * 16 + 4096)
            .deserialize(&self.bytes)
            .ok()
    }
}

impl<T> Clone for Encoded<T> {
    fn clone(&self) -> Self {
        Encoded {
            bytes: self.bytes.clone(),
            kind: std::marker::PhantomData,
        }
    }
}

impl<T> PartialEq for Encoded<T> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<T> std::fmt::Debug for Encoded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Encoded({} bytes)", self.bytes.len())
    }
}

// As bytes: a sequence of numbers would be decoded one number at a time.
impl<T> serde::Serialize for Encoded<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.bytes)
    }
}

impl<'de, T> serde::Deserialize<'de> for Encoded<T> {
    fn deserialize<D>(d: D) -> std::result::Result<Encoded<T>, D::Error>
    where
        D: serde::Deserializer<'de>,
    {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> std::result::Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> std::result::Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        Ok(Encoded {
            bytes: d.deserialize_byte_buf(Bytes)?,
            kind: std::marker::PhantomData,
        })
    }
}

/// Values kept by path for the files of the last two trees staged, each with the
/// [`FileStamp`] its file had when the value was kept: a value holds for the file only while
/// its stamp is that one. Two trees, because a build stages into the tree before last (see
/// [`crate::stage::stage_keeping`]): the files it finds there are the ones two builds made.
#[derive(Debug)]
pub struct TwoTrees<V>(HashMap<String, Vec<(FileStamp, V)>>);

impl<V> Default for TwoTrees<V> {
    fn default() -> Self {
        TwoTrees(HashMap::new())
    }
}

impl<V: serde::Serialize + serde::de::DeserializeOwned + Clone> TwoTrees<V> {
    /// The values kept as `name` in `dir` (none when there are none or they do not read).
    pub fn load(dir: &Path, name: &str) -> TwoTrees<V> {
        let mut kept = TwoTrees::default();
        for (rel, stamp, value) in load_one::<Vec<(String, FileStamp, V)>>(dir, name)
            .into_iter()
            .flatten()
        {
            kept.0.entry(rel).or_default().push((stamp, value));
        }
        kept
    }

    /// The value kept for the file at `rel` when it is as it was then (`stamp`).
    pub fn get(&self, rel: &str, stamp: &FileStamp) -> Option<&V> {
        (self.0.get(rel).into_iter().flatten())
            .find(|(was, _)| stamp.unchanged_since(was))
            .map(|(_, value)| value)
    }

    /// The stamp the file at `rel` had when `value` was kept for it.
    pub fn stamp_of(&self, rel: &str, value: &V) -> Option<FileStamp>
    where
        V: PartialEq,
    {
        (self.0.get(rel).into_iter().flatten())
            .find(|(_, v)| v == value)
            .map(|(stamp, _)| *stamp)
    }

    /// Keeps as `name` in `dir` the values of the tree staged now (`now`), each with the one
    /// kept for the same path and another file (the other tree's).
    pub fn save_with(&self, now: Vec<(String, FileStamp, V)>, dir: &Path, name: &str) {
        let mut entries = Vec::with_capacity(now.len() * 2);
        for (rel, stamp, value) in now {
            let before = (self.0.get(&rel).into_iter().flatten())
                .find(|(was, _)| !stamp.unchanged_since(was));
            if let Some((was, was_value)) = before {
                entries.push((rel.clone(), *was, was_value.clone()));
            }
            entries.push((rel, stamp, value));
        }
        // (Stable: a path's entries stay the other tree's first.)
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        keep_one(dir, name, &entries);
    }
}

/// One value of a kind (`name`) kept in `dir` for this seihon: none when there is none, or it
/// does not read, or another seihon kept it.
pub fn load_one<T: serde::de::DeserializeOwned + serde::Serialize>(
    dir: &Path,
    name: &str,
) -> Option<T> {
    Cache::<T>::new(dir).get(&Key::new(name).finish()?)
}

/// Keeps `value` as the one value of its kind in `dir` (see [`load_one`]), in place of any
/// earlier one.
pub fn keep_one<T: serde::de::DeserializeOwned + serde::Serialize>(
    dir: &Path,
    name: &str,
    value: &T,
) {
    let cache = Cache::<T>::new(dir);
    let Some(key) = Key::new(name).finish() else {
        return;
    };
    cache.put(&key, value);
    cache.keep_only(&HashSet::from([key]));
}

/// Values kept for the next build that nothing later in this one reads, written on threads of
/// their own while the build goes on (a book's resolve memo is a megabyte of bincode, written
/// twice: into a temporary file, then into its store). Every write is waited for by
/// [`Deferred::finish`], or when the `Deferred` goes: a build ends with its kept values written.
#[derive(Default)]
pub struct Deferred {
    running: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl Deferred {
    /// Keeps `value` as [`keep_one`] does, on a thread of its own. When no thread can be
    /// started it is not kept: the next build does without it, as it does after a build that
    /// made none.
    pub fn keep_one<T>(&self, dir: PathBuf, name: &'static str, value: T)
    where
        T: serde::de::DeserializeOwned + serde::Serialize + Send + 'static,
    {
        let write = move || keep_one(&dir, name, &value);
        if let Ok(handle) = std::thread::Builder::new().name("kept".into()).spawn(write)
            && let Ok(mut running) = self.running.lock()
        {
            running.push(handle);
        }
    }

    /// Waits for every write started so far (one that panicked is as if it was not made).
    pub fn finish(&self) {
        let handles = match self.running.lock() {
            Ok(mut running) => std::mem::take(&mut *running),
            Err(_) => return,
        };
        for handle in handles {
            let _ = handle.join();
        }
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Files as a build found them before it began: the folder of the book as it was listed,
/// and each file (its path as listed) with its stamp.
#[derive(Debug, Default)]
pub struct ListedInputs {
    pub book_folder: PathBuf,
    pub files: Vec<(PathBuf, FileStamp)>,
}

impl ListedInputs {
    /// Every file under `roots` (see [`crate::files::list_inputs`]) in the order of their
    /// paths' bytes (a comparison of bytes, not of path components: staging looks up
    /// thousands of images), stamped;
    /// `None` when one cannot be. `book_folder` is the book's folder as `roots` name it.
    pub fn stamp(book_folder: &Path, roots: &[PathBuf], outputs: &[PathBuf]) -> Option<Self> {
        use rayon::prelude::*;
        let mut paths = Vec::new();
        for root in roots {
            crate::files::list_inputs(root, outputs, &mut paths);
        }
        paths.sort_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        paths.dedup();
        // Looked at in parallel, a few hundred files of one folder at a time: a book of
        // images is thousands of stats.
        let runs: Vec<&[PathBuf]> = (paths.chunk_by(|a, b| a.parent() == b.parent()))
            .flat_map(|siblings| siblings.chunks(256))
            .collect();
        let stamps: Vec<Vec<FileStamp>> = (runs.par_iter())
            .map(|siblings| FileStamp::of_siblings(siblings))
            .collect::<Option<_>>()?;
        let files = paths
            .into_iter()
            .zip(stamps.into_iter().flatten())
            .collect();
        Some(ListedInputs {
            book_folder: book_folder.to_path_buf(),
            files,
        })
    }

    /// The stamp `path` (as listed) had when it was listed.
    pub fn stamp_of(&self, path: &Path) -> Option<FileStamp> {
        let at = (self.files)
            .binary_search_by(|(listed, _)| listed.as_os_str().cmp(path.as_os_str()))
            .ok()?;
        Some(self.files[at].1)
    }

    /// `key` with every file's path and stamp but those `left_out`.
    pub fn hashed(&self, key: Key, left_out: impl Fn(&Path) -> bool) -> Key {
        (self.files.iter())
            .filter(|(path, _)| !left_out(path))
            .fold(key, |key, (path, stamp)| {
                key.bytes(path.as_os_str().as_encoded_bytes())
                    .value(&stamp.written())
            })
    }
}

/// What a file looked like: its size, modification time and inode (see
/// [`FileStamp::unchanged_since`]; two stamps are equal when that holds). Not its change
/// time: the build's own hard links to a file change it on every build, and a stamp that kept
/// it made every kept image check differ from the last and be written again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    len: u64,
    modified_ns: i128,
    inode: u64,
    device: u64,
}

impl FileStamp {
    pub fn of(path: &Path) -> Option<FileStamp> {
        std::fs::metadata(path).ok().and_then(|m| Self::of_meta(&m))
    }

    /// The stamps of `paths`, files of one folder: each looked at by its name in the folder,
    /// opened once (not by its whole path, walked again for each). The same stamps as
    /// [`FileStamp::of`] gives; `None` when one cannot be taken.
    #[cfg(target_os = "linux")]
    fn of_siblings(paths: &[PathBuf]) -> Option<Vec<FileStamp>> {
        use rustix::fs::{AtFlags, Mode, OFlags, StatxFlags};
        let folder = paths
            .first()?
            .parent()
            .filter(|p| !p.as_os_str().is_empty());
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let Ok(dir) = rustix::fs::open(folder.unwrap_or(Path::new(".")), flags, Mode::empty())
        else {
            return paths.iter().map(|p| FileStamp::of(p)).collect();
        };
        let mask = StatxFlags::SIZE | StatxFlags::MTIME | StatxFlags::INO;
        let of = |path: &PathBuf| {
            let name = path.file_name()?;
            let Ok(st) = rustix::fs::statx(&dir, name, AtFlags::STATX_SYNC_AS_STAT, mask) else {
                return FileStamp::of(path);
            };
            let (secs, nanos) = (st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec);
            Some(FileStamp {
                len: st.stx_size,
                // As `SystemTime::duration_since(UNIX_EPOCH)` gives it (see `of_meta`).
                modified_ns: match secs {
                    ..0 => -1,
                    _ => secs as i128 * 1_000_000_000 + nanos as i128,
                },
                inode: st.stx_ino,
                device: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
            })
        };
        paths.iter().map(of).collect()
    }

    #[cfg(not(target_os = "linux"))]
    fn of_siblings(paths: &[PathBuf]) -> Option<Vec<FileStamp>> {
        paths.iter().map(|p| FileStamp::of(p)).collect()
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }

    /// Whether the file is as it was when `was` was taken: same size, modification time and
    /// inode. The change time is left out: the build's own hard links to the file (into the
    /// staged tree and the preview, and their removal a build later) change it on every build,
    /// so a check of it made every cache of linked files (images) miss. A file written again
    /// in place gets a new modification time; one replaced (as editors save) a new inode.
    pub fn unchanged_since(&self, was: &FileStamp) -> bool {
        self == was
    }

    /// Its size and modification time only: what a build's own hard links to the file (into
    /// the staged tree or the preview) leave as they were, where they change its change time.
    pub fn written(&self) -> (u64, i128) {
        (self.len, self.modified_ns)
    }

    pub fn of_meta(meta: &std::fs::Metadata) -> Option<FileStamp> {
        let modified_ns = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(-1, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let (inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (meta.ino(), meta.dev())
        };
        #[cfg(not(unix))]
        let (inode, device) = (0, 0);
        Some(FileStamp {
            len: meta.len(),
            modified_ns,
            inode,
            device,
        })
    }

    /// Which file it is (see [`crate::files::FileId`]), where the system tells.
    pub fn file_id(&self) -> Option<crate::files::FileId> {
        crate::files::FileId::new(self.device, self.inode)
    }
}

/// This seihon: its version and its executable's size and time. What one seihon cached, another
/// (even of the same version, rebuilt) does not take.
/// Found once per process: every cache key starts with it.
pub fn exe_identity() -> &'static str {
    static IDENTITY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    IDENTITY.get_or_init(|| {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| FileStamp::of(&p))
            .and_then(|s| serde_json::to_string(&s).ok())
            .unwrap_or_default();
        format!("{} {exe}", env!("CARGO_PKG_VERSION"))
    })
}

/// A cache key under construction: a hash of this seihon ([`exe_identity`]: entries are
/// bincode, which another build of the types could misread, and a rebuilt seihon may write pages
/// differently under the same version), of what the entry is, and of everything it depends on:
/// bytes length-prefixed, values by their serialized form, so that no two parts run into each
/// other and no field of a value is left out. Clone a key to share what many entries depend on.
#[derive(Clone)]
pub struct Key {
    hash: sha2::Sha256,
    /// A value failed to serialize: the key is no key (the entry is not cached).
    broken: bool,
}

impl Key {
    /// A key for entries of the kind `what` (e.g. "chapter", "page").
    pub fn new(what: &str) -> Key {
        Key {
            hash: sha2::Sha256::new(),
            broken: false,
        }
        .bytes(exe_identity().as_bytes())
        .bytes(what.as_bytes())
    }

    /// Adds bytes the entry depends on.
    pub fn bytes(mut self, part: &[u8]) -> Key {
        self.hash.update((part.len() as u64).to_le_bytes());
        self.hash.update(part);
        self
    }

    /// Adds a value the entry depends on, every field of it.
    pub fn value(mut self, value: &impl serde::Serialize) -> Key {
        struct Hashing<'a>(&'a mut sha2::Sha256);
        impl std::io::Write for Hashing<'_> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.update(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        // A value's bincode form is self-delimiting; the marker keeps it apart from bytes.
        self.hash.update(b"\xffvalue");
        let options = bincode::DefaultOptions::new();
        // Buffered: bincode writes a value a field at a time, mostly a few bytes each, and
        // feeding the hash that way took longer than hashing (the same bytes, the same key).
        let mut hashing = std::io::BufWriter::with_capacity(16 << 10, Hashing(&mut self.hash));
        let wrote = bincode::Options::serialize_into(options, &mut hashing, value);
        if wrote.is_err() || std::io::Write::flush(&mut hashing).is_err() {
            self.broken = true;
        }
        drop(hashing);
        self
    }

    /// The key, or `None` when a part could not be taken (then nothing is cached under it).
    pub fn finish(&self) -> Option<String> {
        (!self.broken).then(|| hex(&self.hash.clone().finalize()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one value of a kind is the one kept last, not the first ever kept (the CRC-32s of
    /// the staged tree were stuck at the first build's, and every other rebuild unpacked every
    /// page of the preview again).
    #[test]
    fn keeping_one_value_replaces_the_one_before() {
        let dir = tempfile::tempdir().unwrap();
        for n in 1..=4u32 {
            keep_one(dir.path(), "n", &vec![n; 100]);
            assert_eq!(load_one::<Vec<u32>>(dir.path(), "n"), Some(vec![n; 100]));
        }
    }

    /// A value kept inside another as its bytes comes back as it was, through the store too;
    /// bytes that do not read as one give none.
    #[test]
    fn an_encoded_value_reads_back_and_damaged_bytes_read_as_none() {
        let value = vec![("a".to_string(), 1u64), ("b".to_string(), u64::MAX)];
        let encoded = Encoded::new(&value).unwrap();
        assert_eq!(encoded.decode(), Some(value.clone()));
        let dir = tempfile::tempdir().unwrap();
        keep_one(dir.path(), "e", &(7u8, encoded.clone()));
        let (seven, back) = load_one::<(u8, Encoded<Vec<(String, u64)>>)>(dir.path(), "e").unwrap();
        assert_eq!((seven, back.decode()), (7, Some(value)));
        assert_eq!(back, encoded, "the same bytes");
        let damaged = Encoded::<Vec<(String, u64)>> {
            bytes: vec![0xff; 9],
            kind: std::marker::PhantomData,
        };
        assert_eq!(damaged.decode(), None);
    }

    /// Stamps taken folder by folder are the stamps taken path by path (the listing's and a
    /// build's own must agree, or every cache keyed by them would miss), a symlinked file's
    /// its target's.
    #[test]
    fn a_listing_stamps_each_file_as_it_is_stamped_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("book");
        std::fs::create_dir_all(root.join("images/deep")).unwrap();
        for i in 0..600 {
            std::fs::write(root.join(format!("images/f{i}.png")), vec![0u8; i]).unwrap();
        }
        std::fs::write(root.join("images/deep/a.png"), b"a").unwrap();
        std::fs::write(root.join("ch01.re"), b"= One").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("ch01.re"), root.join("linked.re")).unwrap();
        let listed = ListedInputs::stamp(&root, std::slice::from_ref(&root), &[]).unwrap();
        assert_eq!(listed.files.len(), 602 + cfg!(unix) as usize);
        for (path, stamp) in &listed.files {
            assert_eq!(Some(*stamp), FileStamp::of(path), "{}", path.display());
        }
    }

    /// A value kept on a thread of its own is there once `finish` returns, and once the
    /// `Deferred` is dropped without `finish`: a build never ends with its memo half written.
    #[test]
    fn deferred_values_are_written_by_finish_and_by_drop() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let kept = Deferred::default();
        kept.keep_one(a.clone(), "n", vec![7u32; 100_000]);
        kept.finish();
        assert_eq!(load_one::<Vec<u32>>(&a, "n"), Some(vec![7; 100_000]));
        kept.keep_one(b.clone(), "n", vec![8u32; 100_000]);
        drop(kept);
        assert_eq!(load_one::<Vec<u32>>(&b, "n"), Some(vec![8; 100_000]));
    }

    /// A build that adds entries appends them to the store as it is; one that leaves more than
    /// half of the store unused writes it anew with the used entries only.
    #[test]
    fn new_entries_are_appended_until_unused_ones_make_up_half_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("c");
        let store = at.join(STORE);
        let key = |name: &str| Key::new("test").bytes(name.as_bytes()).finish().unwrap();
        let (a, b, c) = (key("a"), key("b"), key("c"));
        let value = |byte: u8| vec![byte; 1000];
        let run = |put: &[(&String, u8)], used: &[&String]| {
            let cache = Cache::<Vec<u8>>::new(&at);
            for (k, byte) in put {
                cache.put(k, &value(*byte));
            }
            cache.keep_only(&used.iter().map(|k| k.to_string()).collect());
            std::fs::read(&store).unwrap()
        };
        let first = run(&[(&a, 1), (&b, 2)], &[&a, &b]);
        let second = run(&[(&c, 3)], &[&a, &b, &c]);
        assert_eq!(
            &second[..first.len()],
            &first[..],
            "appended, not rewritten"
        );
        let cache = Cache::<Vec<u8>>::new(&at);
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.get(&c), Some(value(3)));

        // Two of three unused: written anew with the third alone.
        let third = run(&[], &[&c]);
        assert!(third.len() < first.len(), "{} bytes", third.len());
        let cache = Cache::<Vec<u8>>::new(&at);
        assert_eq!((cache.len(), cache.get(&a)), (1, None));
        assert_eq!(cache.get(&c), Some(value(3)));

        // Half unused: left as it is (what is left is still right: its key says what it
        // depends on); nothing new, nothing written.
        let fourth = run(&[(&a, 1)], &[&a, &c]);
        assert_eq!(run(&[], &[&a]), fourth);
        assert_eq!(Cache::<Vec<u8>>::new(&at).get(&c), Some(value(3)));

        // A store cut short inside an entry is written anew, not appended to.
        std::fs::write(&store, &fourth[..fourth.len() - 10]).unwrap();
        let cut = run(&[(&b, 2)], &[&b]);
        assert_eq!(&cut[..MAGIC.len()], MAGIC);
        let cache = Cache::<Vec<u8>>::new(&at);
        assert_eq!(cache.get(&b), Some(value(2)));
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn the_index_is_found_among_large_and_small_entries() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("c");
        // Large entries (read past header by header) between runs of small ones (read in
        // windows of many), and a key longer than a narrow read.
        let sizes: Vec<usize> = [100_000, 10, 20, 70_000, 5, 9_000, 0]
            .into_iter()
            .chain((0..300).map(|i| i % 50))
            .chain([200_000, 3])
            .collect();
        let entries: Vec<(String, Vec<u8>)> = (sizes.iter().enumerate())
            .map(|(i, &n)| {
                let key = match i {
                    4 => "k".repeat(700),
                    _ => Key::new("entry").value(&i).finish().unwrap(),
                };
                (key, (0..n).map(|b| (b + i) as u8).collect())
            })
            .collect();
        let cache = Cache::<Vec<u8>>::new(&at);
        for (key, value) in &entries {
            cache.put(key, value);
        }
        cache.keep_only(&entries.iter().map(|(k, _)| k.clone()).collect());
        let cache = Cache::<Vec<u8>>::new(&at);
        assert_eq!(cache.len(), entries.len());
        for (key, value) in &entries {
            assert_eq!(
                cache.get(key).as_ref(),
                Some(value),
                "{} bytes",
                value.len()
            );
        }
        // Cut inside the last header: every entry before it is found.
        let store = at.join(STORE);
        let bytes = std::fs::read(&store).unwrap();
        let (last, &(offset, _, _)) = (cache.old_index.iter()).max_by_key(|(_, at)| at.0).unwrap();
        let cut = (offset - LEN_AND_CRC - 1) as usize;
        std::fs::write(&store, &bytes[..cut]).unwrap();
        let cut = Cache::<Vec<u8>>::new(&at);
        assert_eq!(cut.len(), entries.len() - 1);
        for (key, value) in &entries {
            let found = (key != last).then_some(value);
            assert_eq!(cut.get(key).as_ref(), found, "{} bytes", value.len());
        }
    }

    #[test]
    fn entries_round_trip_and_unused_ones_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("c");
        let cache = ChapterCache::new(&at);
        let (doc, found) =
            crate::reader::markdown::read("# 見出し\n\n本文[^x]。\n", Path::new("a.md"));
        let key = |parts: &[&[u8]]| {
            parts
                .iter()
                .fold(Key::new("chapter"), |k, p| k.bytes(p))
                .finish()
                .unwrap()
        };
        let k1 = key(&[b"a.md", b"# x"]);
        assert_ne!(k1, key(&[b"a.m", b"d# x"]), "parts are delimited");
        assert_ne!(
            Key::new("chapter").value(&("a.md", 1u8)).finish(),
            Key::new("chapter").value(&("a.md", 2u8)).finish(),
            "every field of a value counts"
        );
        assert!(cache.get(&k1).is_none());
        cache.put(&k1, &(doc.clone(), found.clone()));
        assert_eq!(
            cache.get(&k1),
            Some((doc.clone(), found.clone())),
            "kept in this run"
        );
        let k2 = key(&[b"b.md"]);
        cache.put(&k2, &(doc.clone(), Vec::new()));
        cache.keep_only(&HashSet::from([k1.clone(), k2.clone()]));
        let names = |d: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(&at), [STORE], "one file, no temporaries left");

        // The next run finds both.
        let cache = ChapterCache::new(&at);
        assert_eq!(cache.get(&k1), Some((doc.clone(), found.clone())));
        assert!(cache.get(&k2).is_some());
        cache.keep_only(&HashSet::from([k1.clone()]));
        let cache = ChapterCache::new(&at);
        assert_eq!(cache.get(&k1), Some((doc.clone(), found.clone())));

        // Keeping nothing empties the store.
        ChapterCache::new(&at).keep_only(&HashSet::new());
        assert!(ChapterCache::new(&at).is_empty());

        // A store cut short keeps what is whole; a damaged one is a miss, not an error.
        let cache = ChapterCache::new(&at);
        cache.put(&k1, &(doc.clone(), found.clone()));
        cache.keep_only(&HashSet::from([k1.clone()]));
        let store = at.join(STORE);
        let bytes = std::fs::read(&store).unwrap();
        std::fs::write(&store, &bytes[..bytes.len() - 1]).unwrap();
        assert!(ChapterCache::new(&at).get(&k1).is_none());
        std::fs::write(&store, b"{").unwrap();
        assert!(ChapterCache::new(&at).get(&k1).is_none());

        // An entry whose bytes changed is a miss (its CRC-32 no longer holds).
        let cache = ChapterCache::new(&at);
        cache.put(&k1, &(doc.clone(), found.clone()));
        cache.keep_only(&HashSet::from([k1.clone()]));
        let mut bytes = std::fs::read(&store).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&store, &bytes).unwrap();
        assert!(ChapterCache::new(&at).get(&k1).is_none());

        // Entries an earlier seihon kept a file each are removed.
        std::fs::write(at.join(format!("{k2}.bin")), b"old").unwrap();
        ChapterCache::new(&at).keep_only(&HashSet::new());
        assert_eq!(names(&at), [STORE]);
    }
}
