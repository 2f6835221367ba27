//! Pack: the staged tree → `.epub`, reproducibly and atomically.
//!
//! `mimetype` comes first, stored, with no extra field (readers sniff bytes 30..58); every other
//! entry follows in sorted order with a fixed timestamp, permissions and compression level, so
//! the same inputs give the same bytes. The archive is written to a temporary file beside the
//! target and renamed over it only when complete: a failed build never leaves a broken EPUB and
//! never destroys the last good one.
use std::io::Write;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

mod splice;

use crate::cache::FileStamp;
use crate::codes::{self, Code};
use crate::error::{Error, Finding, Location, Result};

pub const MIMETYPE: &[u8] = b"application/epub+zip";

/// Seconds since the Unix epoch → a ZIP timestamp (ZIP cannot go before 1980).
pub fn zip_time(unix: i64) -> DateTime {
    let (y, mo, d, h, mi, s) = civil(unix.max(315_532_800));
    DateTime::from_date_and_time(y as u16, mo as u8, d as u8, h as u8, mi as u8, s as u8)
        .unwrap_or_default()
}

/// Seconds since the Unix epoch → `YYYY-MM-DDThh:mm:ssZ` (for `dcterms:modified`).
pub fn iso8601(unix: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(unix);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// Civil date and time (UTC) from Unix seconds.
fn civil(unix: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    // Civil from days, after H. Hinnant's well-known algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (secs / 3600) as u32,
        (secs % 3600 / 60) as u32,
        (secs % 60) as u32,
    )
}

/// Every file under `dir`, as sorted `/`-separated relative paths.
pub fn list_files(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let abs = dir.join(&rel);
        let entries = std::fs::read_dir(&abs)
            .map_err(|e| Error::io(&abs, "cannot list the staged book", e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&abs, "cannot list the staged book", e))?;
            let name = rel.join(entry.file_name());
            let kind = entry
                .file_type()
                .map_err(|e| Error::io(entry.path(), "cannot read", e))?;
            let shown = name.to_string_lossy().replace('\\', "/");
            if kind.is_dir() {
                stack.push(name);
            } else if kind.is_file() {
                out.push(shown);
            } else if kind.is_symlink() {
                // A link (a hook's) is read only when it leads to a file inside the tree.
                let target = entry.path().canonicalize();
                let inside = dir
                    .canonicalize()
                    .is_ok_and(|root| target.as_ref().is_ok_and(|t| t.starts_with(root)));
                if !inside || !target.as_ref().is_ok_and(|t| t.is_file()) {
                    let to = std::fs::read_link(entry.path()).unwrap_or_default();
                    return Err(not_regular(
                        codes::HOOK,
                        dir,
                        &shown,
                        &format!(
                            "a link to `{}`, which is not a file inside the book's tree",
                            to.display()
                        ),
                    ));
                }
                out.push(shown);
            } else {
                return Err(not_regular(
                    codes::HOOK,
                    dir,
                    &shown,
                    "not a regular file (a FIFO, a device or a socket)",
                ));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A staged entry seihon will not read: only regular files go into an EPUB or a preview.
fn not_regular(code: Code, dir: &Path, rel: &str, what: &str) -> Error {
    Error::Book(vec![
        Finding::error(
            code,
            Location::file(dir.join(rel)),
            format!("the staged tree holds `{rel}`, {what}; seihon packs only regular files"),
        )
        .with_hint("a hook (pre-pack or post-convert) probably left it there: make the hook write a plain file instead"),
    ])
}

/// Packs the staged tree in `stage` into `output`, replacing it only on success.
pub fn pack(stage: &Path, output: &Path, unix_time: i64) -> Result<()> {
    pack_with(stage, output, unix_time, |_| Ok(()))
}

/// Packs like [`pack`], and lets `verify` read the complete EPUB (at a temporary path) before
/// it replaces `output`: when `verify` fails, `output` is left as it was.
pub fn pack_with(
    stage: &Path,
    output: &Path,
    unix_time: i64,
    verify: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    pack_reusing(stage, output, unix_time, None, None, None, verify).map(|_| ())
}

/// Packs like [`pack_with`], copying from `previous` (an EPUB this same seihon packed) every
/// entry whose name, content (CRC-32 and size), compression and time are unchanged, as it is
/// compressed there: a rebuild compresses only the files that changed. The others are
/// compressed in parallel. Either way each entry's bytes are what compressing it gives, so the
/// EPUB is the same as one packed from nothing. `stamps` are the stamps of staged files known
/// without a look (see [`crate::stage::Staged::stamps`]). Returns how many entries were copied.
pub fn pack_reusing(
    stage: &Path,
    output: &Path,
    unix_time: i64,
    previous: Option<&Path>,
    crcs: Option<&Path>,
    stamps: Option<&std::collections::HashMap<String, FileStamp>>,
    verify: impl FnOnce(&Path) -> Result<()>,
) -> Result<usize> {
    let out_dir = output_dir(output)?;
    let names: Vec<String> = list_files(stage)?
        .into_iter()
        .filter(|rel| rel != "mimetype")
        .collect();
    let mut packing = Packing::new(stage, output, unix_time, crcs);
    packing.stamps = stamps;
    // Ends in .epub: epubcheck tells an EPUB from a single file by its name.
    let tmp = crate::files::temp_file(out_dir, ".tmp.epub")?;
    if let Some(spliced) = previous.and_then(splice::Previous::open) {
        // What is kept of the previous EPUB is found by its directory, not read.
        let lookup = previous.and_then(|p| open_previous_as(p, false));
        let reused = packing.splice(&names, &spliced, lookup.as_ref(), tmp.as_file(), crcs)?;
        verify(tmp.path())?;
        tmp.persist(output)
            .map_err(|e| Error::io(output, "cannot move the new EPUB into place", e.error))?;
        return Ok(reused);
    }
    let mut previous = previous.and_then(|p| open_previous_as(p, true));
    // Never dropped unfinished: the zip crate's drop finishes the archive and prints its own
    // message to stderr when that fails (a full disk). On an error the writer (which holds
    // only a buffer, the file being the temporary's) is left, and the temporary removed.
    let mut zip = ManuallyDrop::new(ZipWriter::new(Positioned::new(tmp.as_file())));
    packing.write_mimetype(&mut zip)?;
    let mut reused = 0;
    let mut kept: Vec<(String, FileStamp, u32)> = Vec::new();
    // A batch at a time, made in parallel and written in order: a build holds a batch's files,
    // not every image of the book at once.
    for batch in names.chunks(PACK_BATCH) {
        let found = packing.make_batch(batch, previous.as_ref())?;
        for (rel, (entry, known)) in batch.iter().zip(found) {
            if let Some((stamp, crc)) = known {
                kept.push((rel.clone(), stamp, crc));
            }
            if matches!(entry, Entry::Reused(_)) {
                reused += 1;
            }
            packing.write_entry(&mut zip, previous.as_mut(), rel, entry)?;
        }
    }
    if let Some(dir) = crcs {
        packing.memo.save_with(kept, dir);
    }
    packing.finish(zip, tmp.as_file())?;
    verify(tmp.path())?;
    tmp.persist(output)
        .map_err(|e| Error::io(output, "cannot move the new EPUB into place", e.error))?;
    Ok(reused)
}

/// The folder the EPUB goes into, made if missing and swept of what killed runs left there
/// (a temporary EPUB is never taken for a book).
fn output_dir(output: &Path) -> Result<&Path> {
    let out_dir = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Error::io(out_dir, "cannot create the output folder", e))?;
    crate::files::sweep(out_dir);
    Ok(out_dir)
}

/// An EPUB packed before.
type Previous = zip::ZipArchive<PreviousBytes>;

/// The EPUB being written, into the temporary file.
type Epub<'f> = ManuallyDrop<ZipWriter<Positioned<'f>>>;

/// The previous EPUB, when there is one and it is an archive: anything else is ignored. Read
/// into memory when `whole` and it is not large (its entries are copied from it).
fn open_previous_as(path: &Path, whole: bool) -> Option<Previous> {
    let mut file = std::fs::File::open(path).ok()?;
    let bytes = if whole && file.metadata().ok()?.len() <= PREVIOUS_IN_MEMORY {
        let mut all = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut all).ok()?;
        PreviousBytes::Memory(std::io::Cursor::new(all))
    } else {
        PreviousBytes::File(std::io::BufReader::new(file))
    };
    zip::ZipArchive::new(bytes).ok()
}

/// The previous EPUB is read whole into memory up to this size. Copying its unchanged entries
/// is then a copy of bytes; from the file, each entry costs a seek and a read of its header
/// and another of its data (3,000 entries took 20 ms of a 50 ms packing).
const PREVIOUS_IN_MEMORY: u64 = 32 << 20;

/// The previous EPUB's bytes: in memory when small (see [`PREVIOUS_IN_MEMORY`]), else its file.
enum PreviousBytes {
    Memory(std::io::Cursor<Vec<u8>>),
    File(std::io::BufReader<std::fs::File>),
}

impl std::io::Read for PreviousBytes {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            PreviousBytes::Memory(m) => m.read(buf),
            PreviousBytes::File(f) => f.read(buf),
        }
    }
}

impl std::io::Seek for PreviousBytes {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        match self {
            PreviousBytes::Memory(m) => m.seek(to),
            PreviousBytes::File(f) => f.seek(to),
        }
    }
}

/// The EPUB's file behind a buffer that knows its own position: the ZIP writer asks for it at
/// every entry, and a buffered file answers that by flushing and asking the kernel.
struct Positioned<'f> {
    file: std::io::BufWriter<&'f std::fs::File>,
    at: u64,
}

impl<'f> Positioned<'f> {
    fn new(file: &'f std::fs::File) -> Self {
        Positioned {
            file: std::io::BufWriter::with_capacity(1 << 16, file),
            at: 0,
        }
    }
}

impl Write for Positioned<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.at += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl std::io::Seek for Positioned<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        if to == std::io::SeekFrom::Current(0) {
            return Ok(self.at);
        }
        self.at = self.file.seek(to)?;
        Ok(self.at)
    }
}

/// Each entry as it goes in: copied from the previous EPUB, or made here.
enum Entry {
    /// At this index in the previous EPUB.
    Reused(usize),
    Stored(Vec<u8>),
    /// A one-entry archive holding the entry compressed.
    Compressed(Vec<u8>),
}

/// An entry made for the EPUB, with its file's stamp and CRC-32 when known (to be kept).
type Made = (Entry, Option<(FileStamp, u32)>);

/// What every entry of one packing shares: where it comes from and goes, its fixed options,
/// and the CRC-32s kept from the last packing.
struct Packing<'a> {
    stage: &'a Path,
    output: &'a Path,
    time: DateTime,
    stored: SimpleFileOptions,
    deflated: SimpleFileOptions,
    memo: Crcs,
    stamps: Option<&'a std::collections::HashMap<String, FileStamp>>,
}

impl<'a> Packing<'a> {
    /// The fixed timestamp, permissions and compression level that make packing reproducible.
    fn new(stage: &'a Path, output: &'a Path, unix_time: i64, crcs: Option<&Path>) -> Self {
        let stored = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .last_modified_time(zip_time(unix_time))
            .system(System::Unix)
            .unix_permissions(0o644);
        let deflated = stored
            .compression_method(CompressionMethod::Deflated)
            .compression_level(Some(DEFLATE_LEVEL));
        Packing {
            stage,
            output,
            time: zip_time(unix_time),
            stored,
            deflated,
            memo: crcs.map(Crcs::load).unwrap_or_default(),
            stamps: None,
        }
    }

    /// A ZIP error as an error writing the EPUB.
    fn zip_err(&self, e: zip::result::ZipError) -> Error {
        let e = match e {
            zip::result::ZipError::Io(e) => e,
            other => std::io::Error::other(other),
        };
        self.write_err(e)
    }

    /// An I/O error as an error writing the EPUB.
    fn write_err(&self, e: std::io::Error) -> Error {
        Error::io(self.output, "cannot write the EPUB", e)
    }

    /// The first entry: `mimetype`, stored.
    fn write_mimetype(&self, zip: &mut Epub<'_>) -> Result<()> {
        zip.start_file("mimetype", self.stored)
            .map_err(|e| self.zip_err(e))?;
        zip.write_all(MIMETYPE).map_err(|e| self.write_err(e))
    }

    /// A batch's entries, made in parallel, in the batch's order.
    fn make_batch(&self, batch: &[String], prev: Option<&Previous>) -> Result<Vec<Made>> {
        use rayon::prelude::*;
        batch
            .par_iter()
            .map(|rel| self.make_entry(rel, prev))
            .collect::<Result<_>>()
    }

    /// Where the entry is in the previous EPUB, when it can be copied from there: same name,
    /// compression, time, size and CRC-32. The CRC of a file this seihon packed before and
    /// that has not changed since is known without reading it. Otherwise its bytes, read here.
    fn make_entry(&self, rel: &str, prev: Option<&Previous>) -> Result<Made> {
        let path = self.stage.join(rel);
        let known = self.stamps.and_then(|s| s.get(rel)).copied();
        let stamp = known.or_else(|| FileStamp::of(&path));
        let known = stamp.and_then(|s| self.memo.get(rel, &s).map(|crc| (s, crc)));
        let image = is_compressed_image(rel);
        let method = if image {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        let old = prev.and_then(|prev| self.previous_entry(prev, rel, method));
        if let (Some((index, size, crc)), Some((stamp, known))) = (old, known)
            && size == stamp.size()
            && crc == known
        {
            return Ok((Entry::Reused(index), Some((stamp, crc))));
        }
        let data =
            std::fs::read(&path).map_err(|e| Error::io(&path, "cannot read the staged file", e))?;
        let crc = crc32fast::hash(&data);
        let entry = match old {
            Some((index, size, old_crc)) if size == data.len() as u64 && old_crc == crc => {
                Entry::Reused(index)
            }
            _ if image => Entry::Stored(data),
            _ => Entry::Compressed(self.compress_alone(rel, &data)?),
        };
        Ok((entry, stamp.map(|s| (s, crc))))
    }

    /// The index, size and CRC-32 of `rel` in the previous EPUB, when it was packed there with
    /// this compression and time.
    fn previous_entry(
        &self,
        prev: &Previous,
        rel: &str,
        method: CompressionMethod,
    ) -> Option<(usize, u64, u32)> {
        let index = prev.index_for_name(rel)?;
        let old = prev.by_index_data(index).ok()?;
        (old.compression() == method && old.last_modified() == Some(self.time))
            .then(|| (index, old.size(), old.crc32()))
    }

    /// A one-entry archive holding `data` compressed as `rel`: compressed off the writer's
    /// thread, then copied into the EPUB as it is.
    fn compress_alone(&self, rel: &str, data: &[u8]) -> Result<Vec<u8>> {
        self.one_entry(rel, self.deflated, data)
    }

    /// A one-entry archive holding `data` as `rel`, written with `options`.
    fn one_entry(&self, rel: &str, options: SimpleFileOptions, data: &[u8]) -> Result<Vec<u8>> {
        // Never dropped unfinished, for the same reason as the EPUB's writer.
        let mut one = ManuallyDrop::new(ZipWriter::new(std::io::Cursor::new(Vec::new())));
        one.start_file(rel, options).map_err(|e| self.zip_err(e))?;
        one.write_all(data).map_err(|e| self.write_err(e))?;
        let one = ManuallyDrop::into_inner(one);
        Ok(one.finish().map_err(|e| self.zip_err(e))?.into_inner())
    }

    /// Writes one made entry into the EPUB: copied raw from the previous EPUB or from its
    /// one-entry archive, or stored.
    fn write_entry(
        &self,
        zip: &mut Epub<'_>,
        previous: Option<&mut Previous>,
        rel: &str,
        entry: Entry,
    ) -> Result<()> {
        match entry {
            Entry::Reused(index) => {
                let prev =
                    previous.ok_or_else(|| self.zip_err(zip::result::ZipError::FileNotFound))?;
                zip.raw_copy_file(prev.by_index_raw(index).map_err(|e| self.zip_err(e))?)
                    .map_err(|e| self.zip_err(e))?;
            }
            Entry::Stored(data) => {
                zip.start_file(rel, self.stored)
                    .map_err(|e| self.zip_err(e))?;
                zip.write_all(&data).map_err(|e| self.write_err(e))?;
            }
            Entry::Compressed(one) => {
                let mut one =
                    zip::ZipArchive::new(std::io::Cursor::new(one)).map_err(|e| self.zip_err(e))?;
                zip.raw_copy_file(one.by_index_raw(0).map_err(|e| self.zip_err(e))?)
                    .map_err(|e| self.zip_err(e))?;
            }
        }
        Ok(())
    }

    /// Packs the EPUB into `out` by splicing (see [`splice`]): the entries of the previous
    /// EPUB that are unchanged are copied from it as they are, the others made here. Returns
    /// how many were copied.
    fn splice(
        &self,
        names: &[String],
        spliced: &splice::Previous,
        lookup: Option<&Previous>,
        out: &std::fs::File,
        crcs: Option<&Path>,
    ) -> Result<usize> {
        let mut splice = splice::Splice::new(out);
        let io = |e| self.write_err(e);
        splice
            .add(&self.one_entry("mimetype", self.stored, MIMETYPE)?)
            .map_err(io)?;
        let mut reused = 0;
        let mut kept: Vec<(String, FileStamp, u32)> = Vec::new();
        for batch in names.chunks(PACK_BATCH) {
            let found = self.make_batch(batch, lookup)?;
            for (rel, (entry, known)) in batch.iter().zip(found) {
                if let Some((stamp, crc)) = known {
                    kept.push((rel.clone(), stamp, crc));
                }
                match entry {
                    Entry::Reused(_) => {
                        reused += 1;
                        splice.copy(spliced, rel).map_err(io)?;
                    }
                    Entry::Stored(data) => splice
                        .add(&self.one_entry(rel, self.stored, &data)?)
                        .map_err(io)?,
                    Entry::Compressed(one) => splice.add(&one).map_err(io)?,
                }
            }
        }
        if let Some(dir) = crcs {
            self.memo.save_with(kept, dir);
        }
        splice.finish().map_err(io)?;
        out.sync_all().map_err(io)?;
        Ok(reused)
    }

    /// Finishes the archive and puts it on disk (flushed and synced) before it is verified.
    fn finish(&self, zip: Epub<'_>, file: &std::fs::File) -> Result<()> {
        let mut buf = ManuallyDrop::into_inner(zip)
            .finish()
            .map_err(|e| self.zip_err(e))?;
        buf.flush().map_err(|e| self.write_err(e))?;
        drop(buf);
        file.sync_all().map_err(|e| self.write_err(e))
    }
}

/// The CRC-32s of the files of the last two trees packed, by path and [`FileStamp`], kept in
/// a folder between builds: packing and the preview learn an unchanged file's CRC without
/// reading it. Two, because a build stages into the tree before last (see
/// [`crate::stage::stage_keeping`]): with the last tree's alone, every page kept there was
/// read again and its CRC taken, on every build.
#[derive(Debug, Default)]
pub struct Crcs(crate::cache::TwoTrees<u32>);

const CRCS: &str = "packed CRC-32s";

impl Crcs {
    pub fn load(dir: &Path) -> Crcs {
        Crcs(crate::cache::TwoTrees::load(dir, CRCS))
    }

    /// Keeps the CRCs of the tree packed now (`now`) with the other tree's.
    fn save_with(&self, now: Vec<(String, FileStamp, u32)>, dir: &Path) {
        self.0.save_with(now, dir, CRCS);
    }

    /// The CRC-32 of the file at `rel` when it is as it was packed (`stamp`).
    pub fn get(&self, rel: &str, stamp: &FileStamp) -> Option<u32> {
        self.0.get(rel, stamp).copied()
    }
}

/// The Deflate level, chosen by measurement (`bash bench/deflate-levels`, the 24 corpus books'
/// 581 deflated entries, 10.8 MiB): level 6 packs them 0.98% larger than level 9 in 62% of its
/// time (5: +1.25%, 47%; 1: +43%). zlib's and `zip`'s default too.
const DEFLATE_LEVEL: i64 = 6;

/// Entries made at a time when packing.
const PACK_BATCH: usize = 32;

/// Already-compressed images gain nothing from Deflate: they are stored.
fn is_compressed_image(rel: &str) -> bool {
    [".png", ".jpg", ".jpeg", ".gif", ".webp"]
        .iter()
        .any(|ext| rel.ends_with(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_317_427_200), "2011-10-01T00:00:00Z");
        assert_eq!(iso8601(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn mimetype_is_first_stored_without_extra_field() {
        let dir = tempfile::tempdir().unwrap();
        let stage = dir.path().join("stage");
        std::fs::create_dir_all(stage.join("META-INF")).unwrap();
        std::fs::write(stage.join("mimetype"), MIMETYPE).unwrap();
        std::fs::write(stage.join("META-INF/container.xml"), "<x/>").unwrap();
        let out = dir.path().join("out.epub");
        pack(&stage, &out, 1_317_427_200).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[0..4], b"PK\x03\x04");
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 0, "stored");
        assert_eq!(u16::from_le_bytes([bytes[26], bytes[27]]), 8, "name length");
        assert_eq!(
            u16::from_le_bytes([bytes[28], bytes[29]]),
            0,
            "extra length"
        );
        assert_eq!(&bytes[30..38], b"mimetype");
        assert_eq!(&bytes[38..58], MIMETYPE);
        let again = dir.path().join("again.epub");
        pack(&stage, &again, 1_317_427_200).unwrap();
        assert_eq!(bytes, std::fs::read(&again).unwrap());
    }

    /// Builds stage into two trees in turn: the CRCs of both are known to the next packing,
    /// and a file changed since is not taken for the one packed.
    #[test]
    fn the_crcs_of_the_tree_before_last_are_kept_too() {
        let dir = tempfile::tempdir().unwrap();
        let crcs = dir.path().join("crcs");
        let page = "item/xhtml/ch01.xhtml";
        let tree = |name: &str, text: &[u8]| {
            let stage = dir.path().join(name);
            std::fs::create_dir_all(stage.join("item/xhtml")).unwrap();
            std::fs::write(stage.join("mimetype"), MIMETYPE).unwrap();
            std::fs::write(stage.join(page), text).unwrap();
            stage
        };
        let (a, b) = (tree("a", b"<p>one</p>"), tree("b", b"<p>two</p>"));
        let pack = |stage: &Path| {
            let out = dir.path().join("out.epub");
            pack_reusing(stage, &out, 0, None, Some(&crcs), None, |_| Ok(())).unwrap();
        };
        let known = |stage: &Path| {
            let stamp = FileStamp::of(&stage.join(page)).unwrap();
            Crcs::load(&crcs).get(page, &stamp)
        };
        let (one, two) = (
            crc32fast::hash(b"<p>one</p>"),
            crc32fast::hash(b"<p>two</p>"),
        );
        pack(&a);
        pack(&b);
        assert_eq!((known(&a), known(&b)), (Some(one), Some(two)));
        pack(&a);
        assert_eq!((known(&a), known(&b)), (Some(one), Some(two)));
        // Written again in place: another modification time, so another file.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(a.join(page), b"<p>eno</p>").unwrap();
        assert_eq!(known(&a), None);
        pack(&a);
        assert_eq!(known(&a), Some(crc32fast::hash(b"<p>eno</p>")));
        assert_eq!(known(&b), Some(two));
    }

    #[test]
    fn entries_copied_from_the_previous_epub_give_the_same_bytes_as_packing_anew() {
        let dir = tempfile::tempdir().unwrap();
        let stage = dir.path().join("stage");
        let put = |rel: &str, bytes: &[u8]| {
            let p = stage.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        };
        put("mimetype", MIMETYPE);
        put("META-INF/container.xml", b"<x/>");
        for i in 0..20 {
            put(
                &format!("item/xhtml/ch{i:02}.xhtml"),
                format!("<p>{}</p>", "章".repeat(100 * i)).as_bytes(),
            );
        }
        put("item/image/a.png", b"\x89PNG not really");
        let reused = std::cell::Cell::new(0);
        // With the CRCs of the last tree packed, and without.
        let crcs = dir.path().join("crcs");
        let remember = std::cell::Cell::new(true);
        let packed = |name: &str, previous: Option<&Path>, time: i64| {
            let out = dir.path().join(name);
            let known = remember.get().then_some(crcs.as_path());
            reused
                .set(pack_reusing(&stage, &out, time, previous, known, None, |_| Ok(())).unwrap());
            std::fs::read(out).unwrap()
        };
        let t = 1_700_000_000;
        let first = packed("first.epub", None, t);
        assert_eq!(reused.get(), 0);
        let previous = dir.path().join("first.epub");
        assert_eq!(packed("same.epub", Some(&previous), t), first);
        assert_eq!(reused.get(), 22, "every entry but the mimetype");
        // One page and the image change, one page goes, one comes.
        put("item/xhtml/ch03.xhtml", b"<p>changed</p>");
        put("item/image/a.png", b"\x89PNG changed");
        std::fs::remove_file(stage.join("item/xhtml/ch04.xhtml")).unwrap();
        put("item/xhtml/new.xhtml", b"<p>new</p>");
        let anew = packed("anew.epub", None, t);
        assert_ne!(anew, first);
        assert_eq!(packed("reusing.epub", Some(&previous), t), anew);
        assert_eq!(reused.get(), 19);
        // Another time: nothing can be copied, and nothing wrong is.
        let later = packed("later.epub", Some(&previous), t + 86_400);
        assert_eq!(reused.get(), 0);
        assert_eq!(later, packed("later-anew.epub", None, t + 86_400));
        // Without the CRCs, the same.
        remember.set(false);
        assert_eq!(packed("unremembered.epub", Some(&previous), t), anew);
        assert_eq!(reused.get(), 19);
        remember.set(true);
        // A file changed in place, same size: its kept CRC is not taken.
        let again = dir.path().join("anew.epub");
        assert_eq!(packed("again.epub", Some(&again), t), anew);
        assert_eq!(reused.get(), 22);
        put("item/xhtml/ch05.xhtml", &{
            let mut b = std::fs::read(stage.join("item/xhtml/ch05.xhtml")).unwrap();
            b[3] = b'X';
            b
        });
        let edited = packed("edited.epub", Some(&again), t);
        assert_eq!(reused.get(), 21);
        assert_eq!(edited, packed("edited-anew.epub", None, t));
        // Damaged CRCs are no CRCs.
        for e in std::fs::read_dir(&crcs).unwrap() {
            std::fs::write(e.unwrap().path(), b"junk").unwrap();
        }
        assert_eq!(packed("junk-crcs.epub", Some(&again), t), edited);
        assert_eq!(reused.get(), 21);
        // A previous file that is not an EPUB is ignored.
        std::fs::write(&previous, b"not a zip").unwrap();
        assert_eq!(packed("after-junk.epub", Some(&previous), t), edited);
    }
}
