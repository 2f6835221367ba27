//! Packing by splicing: the new EPUB made of byte ranges of the previous one (its unchanged
//! entries, copied by the kernel without passing through seihon) and of one-entry archives
//! the ZIP writer made for the rest, with a central directory assembled from theirs.
//!
//! What comes out is what writing every entry with the ZIP writer gives: an entry's local
//! record (header and data) holds no offset, and its central record differs only in the offset
//! of its local record, which is set here. Only the plain archives seihon writes are spliced
//! (no ZIP64, no data descriptors, no comments, entries back to back); anything else is packed
//! the ordinary way.
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;

const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
/// The end record's length without a comment.
const END_LEN: usize = 22;
/// Where a central record holds its local record's offset.
const OFFSET_AT: usize = 42;

/// An entry of an archive: where its local record lies, and its central record.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEntry {
    pub local: Range<u64>,
    pub central: Vec<u8>,
}

impl RawEntry {
    /// The entry's name, as its central record has it.
    pub fn name(&self) -> &[u8] {
        let len = u16::from_le_bytes([self.central[28], self.central[29]]);
        self.central
            .get(46..46 + usize::from(len))
            .unwrap_or_default()
    }
}

/// The entries of a plain archive (see the module comment) of `len` bytes whose central
/// directory and end record are `tail` (the archive's last bytes), in the directory's order;
/// `None` for any other archive.
fn entries(len: u64, tail: &[u8]) -> Option<Vec<RawEntry>> {
    let end = tail.get(tail.len().checked_sub(END_LEN)?..)?;
    let u16_at = |b: &[u8], at: usize| -> Option<u16> {
        Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
    };
    let u32_at = |b: &[u8], at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    // One disk, no comment, and counts and offsets that are not ZIP64 markers.
    if u32_at(end, 0)? != END
        || u16_at(end, 4)? != 0
        || u16_at(end, 6)? != 0
        || u16_at(end, 20)? != 0
        || u16_at(end, 8)? != u16_at(end, 10)?
    {
        return None;
    }
    let count = u16_at(end, 10)?;
    let (cd_len, cd_at) = (u32_at(end, 12)?, u32_at(end, 16)?);
    if count == u16::MAX || cd_len == u32::MAX || cd_at == u32::MAX {
        return None;
    }
    // The directory ends where the end record begins.
    if u64::from(cd_at) + u64::from(cd_len) + END_LEN as u64 != len {
        return None;
    }
    let cd = tail.get(tail.len() - END_LEN - cd_len as usize..tail.len() - END_LEN)?;
    let mut found: Vec<(u64, Vec<u8>)> = Vec::with_capacity(count.into());
    let mut at = 0;
    while at < cd.len() {
        let flags = u16_at(cd, at + 8)?;
        let record = 46
            + usize::from(u16_at(cd, at + 28)?)
            + usize::from(u16_at(cd, at + 30)?)
            + usize::from(u16_at(cd, at + 32)?);
        // A data descriptor (bit 3) or encryption (bit 0): not an archive seihon wrote.
        if u32_at(cd, at)? != CENTRAL || flags & 0b1001 != 0 {
            return None;
        }
        let offset = u32_at(cd, at + OFFSET_AT)?;
        if offset == u32::MAX {
            return None;
        }
        found.push((offset.into(), cd.get(at..at + record)?.to_vec()));
        at += record;
    }
    if found.len() != usize::from(count) {
        return None;
    }
    // Back to back: each local record runs to the next one, the last to the directory.
    let mut starts: Vec<u64> = found.iter().map(|(o, _)| *o).collect();
    starts.push(cd_at.into());
    if starts.first() != Some(&0) || starts.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    Some(
        found
            .into_iter()
            .zip(starts.windows(2))
            .map(|((_, central), w)| RawEntry {
                local: w[0]..w[1],
                central,
            })
            .collect(),
    )
}

/// The previous EPUB, to copy entries from.
pub struct Previous {
    file: File,
    pub entries: Vec<RawEntry>,
    /// Each entry's index by name.
    by_name: std::collections::HashMap<Vec<u8>, usize>,
}

impl Previous {
    /// The archive at `path`, when it is a plain one.
    pub fn open(path: &std::path::Path) -> Option<Previous> {
        let mut file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        // The directory is read from the end: at most 64 KiB of records per thousand entries
        // in practice; read once more when the end record says it is longer.
        let mut tail_len = len.min(1 << 16);
        loop {
            let mut tail = vec![0; tail_len as usize];
            file.seek(SeekFrom::Start(len - tail_len)).ok()?;
            file.read_exact(&mut tail).ok()?;
            let end = tail.get(tail.len().checked_sub(END_LEN)?..)?;
            let cd_len = u64::from(u32::from_le_bytes(end.get(12..16)?.try_into().ok()?));
            let wanted = cd_len + END_LEN as u64;
            if wanted <= tail_len {
                let tail = &tail[(tail_len - wanted) as usize..];
                let entries = entries(len, tail)?;
                let by_name = (entries.iter().enumerate())
                    .map(|(i, e)| (e.name().to_vec(), i))
                    .collect();
                return Some(Previous {
                    file,
                    entries,
                    by_name,
                });
            }
            if wanted > len || tail_len == len {
                return None;
            }
            tail_len = wanted;
        }
    }
}

/// The archive being spliced, written straight into its file.
pub struct Splice<'f> {
    out: &'f File,
    /// Where the next local record goes (the file is behind it by the pending run).
    at: u64,
    central: Vec<u8>,
    count: usize,
    /// Local records copied from one previous archive back to back and not written yet: an
    /// unchanged run of a thousand images is one copy, not a thousand.
    pending: Option<(&'f File, Range<u64>)>,
}

impl<'f> Splice<'f> {
    pub fn new(out: &'f File) -> Self {
        Splice {
            out,
            at: 0,
            central: Vec::new(),
            count: 0,
            pending: None,
        }
    }

    /// The previous EPUB's entry named `name`, copied as it is (when the run of entries it
    /// ends is written).
    pub fn copy(&mut self, prev: &'f Previous, name: &str) -> std::io::Result<()> {
        let index = *prev.by_name.get(name.as_bytes()).ok_or_else(not_found)?;
        let entry = &prev.entries[index];
        let len = entry.local.end - entry.local.start;
        match &mut self.pending {
            Some((file, run))
                if std::ptr::eq(*file, &prev.file) && run.end == entry.local.start =>
            {
                run.end = entry.local.end;
            }
            _ => {
                self.write_pending()?;
                self.pending = Some((&prev.file, entry.local.clone()));
            }
        }
        self.add_central(&entry.central, len)
    }

    /// Writes the run of copied records not written yet.
    fn write_pending(&mut self) -> std::io::Result<()> {
        let Some((mut from, run)) = self.pending.take() else {
            return Ok(());
        };
        let len = run.end - run.start;
        from.seek(SeekFrom::Start(run.start))?;
        // File to file: the kernel copies (and shares the blocks where the file system can).
        let mut out = self.out;
        let copied = std::io::copy(&mut from.take(len), &mut out)?;
        if copied != len {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        Ok(())
    }

    /// The one entry of a one-entry archive (its bytes).
    pub fn add(&mut self, one: &[u8]) -> std::io::Result<()> {
        self.write_pending()?;
        let mut entries =
            entries(one.len() as u64, one).ok_or_else(|| std::io::Error::other("not plain"))?;
        let entry = entries
            .pop()
            .filter(|_| entries.is_empty())
            .ok_or_else(not_found)?;
        let local = &one[entry.local.start as usize..entry.local.end as usize];
        let mut out = self.out;
        out.write_all(local)?;
        self.add_central(&entry.central, local.len() as u64)
    }

    /// Records an entry's central record, its local record (`len` bytes) written at `at`.
    fn add_central(&mut self, central: &[u8], len: u64) -> std::io::Result<()> {
        let offset = u32::try_from(self.at)
            .ok()
            .filter(|&o| o != u32::MAX)
            .ok_or_else(too_large)?;
        let start = self.central.len();
        self.central.extend_from_slice(central);
        self.central[start + OFFSET_AT..start + OFFSET_AT + 4]
            .copy_from_slice(&offset.to_le_bytes());
        self.at += len;
        self.count += 1;
        Ok(())
    }

    /// Writes the central directory and the end record.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.write_pending()?;
        let count = u16::try_from(self.count)
            .ok()
            .filter(|&c| c != u16::MAX)
            .ok_or_else(too_large)?;
        let cd_len = u32::try_from(self.central.len()).map_err(|_| too_large())?;
        let cd_at = u32::try_from(self.at)
            .ok()
            .filter(|&o| o != u32::MAX)
            .ok_or_else(too_large)?;
        let mut tail = self.central;
        tail.extend_from_slice(&END.to_le_bytes());
        tail.extend_from_slice(&[0; 4]);
        tail.extend_from_slice(&count.to_le_bytes());
        tail.extend_from_slice(&count.to_le_bytes());
        tail.extend_from_slice(&cd_len.to_le_bytes());
        tail.extend_from_slice(&cd_at.to_le_bytes());
        tail.extend_from_slice(&[0; 2]);
        let mut out = self.out;
        out.write_all(&tail)
    }
}

fn not_found() -> std::io::Error {
    std::io::Error::other("no such entry in the archive")
}

fn too_large() -> std::io::Error {
    std::io::Error::other("the archive is too large to splice")
}

#[cfg(test)]
mod tests {
    use super::*;
    use zip::write::SimpleFileOptions;

    fn options(stored: bool) -> SimpleFileOptions {
        let method = if stored {
            zip::CompressionMethod::Stored
        } else {
            zip::CompressionMethod::Deflated
        };
        SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(crate::epub::zip_time(1_700_000_000))
            .system(zip::System::Unix)
            .unix_permissions(0o644)
    }

    /// An archive of `entries` (name, bytes, stored) as the ZIP writer writes it.
    fn written(entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes, stored) in entries {
            zip.start_file(*name, options(*stored)).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// Entries copied from an old archive and entries made alone, spliced, give the bytes the
    /// ZIP writer gives for the whole archive, and it reads back.
    #[test]
    fn a_spliced_archive_is_the_one_the_zip_writer_writes() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; 100_000];
        let old = written(&[
            ("mimetype", b"application/epub+zip", true),
            ("a.xhtml", b"<p>one</p>", false),
            ("b.png", &big, true),
            ("c.xhtml", b"<p>three</p>", false),
        ]);
        let old_path = dir.path().join("old.zip");
        std::fs::write(&old_path, &old).unwrap();
        let prev = Previous::open(&old_path).expect("a plain archive");
        assert_eq!(prev.entries.len(), 4);
        assert_eq!(prev.entries[2].name(), b"b.png");

        // `a` changed, `n` is new, `c` is gone; the rest are copied.
        let new: &[(&str, &[u8], bool)] = &[
            ("mimetype", b"application/epub+zip", true),
            ("a.xhtml", b"<p>one, edited</p>", false),
            ("b.png", &big, true),
            ("n.xhtml", b"<p>new</p>", false),
        ];
        let out_path = dir.path().join("new.zip");
        let out = File::create(&out_path).unwrap();
        let mut splice = Splice::new(&out);
        splice.copy(&prev, "mimetype").unwrap();
        splice.add(&written(&new[1..2])).unwrap();
        splice.copy(&prev, "b.png").unwrap();
        splice.add(&written(&new[3..4])).unwrap();
        splice.finish().unwrap();
        drop(out);
        let spliced = std::fs::read(&out_path).unwrap();
        assert_eq!(spliced, written(new));
        let mut read = zip::ZipArchive::new(std::io::Cursor::new(spliced)).unwrap();
        let mut text = String::new();
        read.by_name("a.xhtml")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "<p>one, edited</p>");
        assert!(splice_missing(&prev));
    }

    /// Entries copied back to back are copied as one run; entries copied out of their old
    /// order still land where they are asked for.
    #[test]
    fn runs_of_copied_entries_in_any_order_give_the_zip_writers_archive() {
        let dir = tempfile::tempdir().unwrap();
        let entries: &[(&str, &[u8], bool)] = &[
            ("mimetype", b"application/epub+zip", true),
            ("a.xhtml", b"<p>one</p>", false),
            ("b.png", &[1u8; 3000], true),
            ("c.png", &[2u8; 5000], true),
            ("d.xhtml", b"<p>four</p>", false),
        ];
        let old_path = dir.path().join("old.zip");
        std::fs::write(&old_path, written(entries)).unwrap();
        let prev = Previous::open(&old_path).unwrap();
        let order = [0, 2, 3, 4, 1];
        let out_path = dir.path().join("new.zip");
        let out = File::create(&out_path).unwrap();
        let mut splice = Splice::new(&out);
        for &i in &order {
            splice.copy(&prev, entries[i].0).unwrap();
        }
        splice.finish().unwrap();
        drop(out);
        let wanted: Vec<_> = order.iter().map(|&i| entries[i]).collect();
        assert_eq!(std::fs::read(&out_path).unwrap(), written(&wanted));
    }

    /// An entry the old archive does not hold is an error, not a wrong archive.
    fn splice_missing(prev: &Previous) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let out = File::create(dir.path().join("x.zip")).unwrap();
        Splice::new(&out).copy(prev, "nothing.xhtml").is_err()
    }

    /// Archives seihon did not write plainly are not spliced: a comment, a truncated file.
    #[test]
    fn only_plain_archives_are_spliced() {
        let dir = tempfile::tempdir().unwrap();
        let plain = written(&[("a.txt", b"a", false)]);
        let mut commented = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        commented.set_comment("hello").unwrap();
        commented.start_file("a.txt", options(false)).unwrap();
        commented.write_all(b"a").unwrap();
        let commented = commented.finish().unwrap().into_inner();
        for (name, bytes, ok) in [
            ("plain.zip", plain.clone(), true),
            ("commented.zip", commented, false),
            ("cut.zip", plain[..plain.len() - 5].to_vec(), false),
            ("empty.zip", Vec::new(), false),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(Previous::open(&path).is_some(), ok, "{name}");
        }
    }
}
