//! Whether an image file is whole, remembered between builds by the file's identity (size,
//! times, inode): a book with thousands of images would otherwise open and read every one of
//! them on every build.
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::cache::FileStamp;

/// The image checks of a book: path → (stamp, whether it read). Only the images this build
/// used are kept.
#[derive(Debug, Default)]
pub struct ImageChecks {
    known: HashMap<PathBuf, (FileStamp, bool)>,
    used: HashMap<PathBuf, (FileStamp, bool)>,
}

type Kept = Vec<(PathBuf, FileStamp, bool)>;
const KIND: &str = "image checks";

impl ImageChecks {
    /// The checks kept in `dir` by an earlier build (none when there are none, or they do not
    /// read: the cache only ever saves work).
    pub fn load(dir: &Path) -> ImageChecks {
        let known = crate::cache::load_one::<Kept>(dir, KIND)
            .unwrap_or_default()
            .into_iter()
            .map(|(path, stamp, ok)| (path, (stamp, ok)))
            .collect();
        ImageChecks {
            known,
            used: HashMap::new(),
        }
    }

    /// Keeps this build's checks in `dir`, when they differ from what was there.
    pub fn save(self, dir: &Path) {
        if self.used == self.known {
            return;
        }
        let mut kept: Kept = self
            .used
            .into_iter()
            .map(|(path, (stamp, ok))| (path, stamp, ok))
            .collect();
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        crate::cache::keep_one(dir, KIND, &kept);
    }

    /// Whether the image at `path` reads ([`image_readable`]), from memory when the file is
    /// the one checked before: the file's stamp and the answer, or `None` when the file has no
    /// stamp (it does not count as readable). `meta` is the file's metadata (links followed),
    /// which finding the file already took. Chapters check side by side; what they checked is
    /// [`ImageChecks::remember`]ed afterwards, in order.
    pub fn check(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        media_type: &str,
    ) -> Option<(FileStamp, bool)> {
        let stamp = FileStamp::of_meta(meta)?;
        let ok = match self.known.get(path) {
            Some(&(was, ok)) if stamp.unchanged_since(&was) => ok,
            _ => image_readable(path, media_type),
        };
        Some((stamp, ok))
    }

    /// How many images this build's checks are kept for.
    #[cfg(test)]
    pub fn remembered(&self) -> usize {
        self.used.len()
    }

    /// Keeps every check of the last build for the next one, as if this build made them again
    /// (the images of the chapters a build takes from the resolve memo are unchanged).
    pub fn keep_known(&mut self) {
        self.used.extend(
            self.known
                .iter()
                .map(|(path, check)| (path.clone(), *check)),
        );
    }

    /// Keeps a check made by [`ImageChecks::check`] for the next build.
    pub fn remember(&mut self, path: PathBuf, stamp: FileStamp, ok: bool) {
        self.used.insert(path, (stamp, ok));
    }
}

/// Whether an image's header gives its size and, for a PNG, whether it is whole: a PNG without
/// its closing `IEND` chunk was cut short (a copy or a download that stopped), though its header
/// still reads. The file is opened once; a PNG's end is looked for in its last few kilobytes, and the
/// whole file is read only when it is not there (data after `IEND` is allowed).
fn image_readable(path: &Path, media_type: &str) -> bool {
    use std::io::{BufReader, Read, Seek, SeekFrom};
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut reader = BufReader::new(file);
    if imagesize::reader_size(&mut reader).is_err() {
        return false;
    }
    if media_type != "image/png" {
        return true;
    }
    let has_end = |bytes: &[u8]| bytes.windows(4).any(|w| w == b"IEND");
    let mut file = reader.into_inner();
    let Ok(len) = file.seek(SeekFrom::End(0)) else {
        return false;
    };
    let tail_from = len.saturating_sub(4096);
    let mut tail = Vec::new();
    if file.seek(SeekFrom::Start(tail_from)).is_err() || file.read_to_end(&mut tail).is_err() {
        return false;
    }
    has_end(&tail) || (tail_from > 0 && std::fs::read(path).is_ok_and(|b| has_end(&b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_png_is_readable_when_whole_even_with_data_after_its_end() {
        // A 1×1 PNG.
        let png: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\xff\xff?\0\x05\xfe\x02\xfe\xa7\x35\x81\x84\0\0\0\0IEND\xaeB`\x82";
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        assert!(image_readable(&file("whole.png", png), "image/png"));
        let cut = &png[..png.len() - 12];
        assert!(!image_readable(&file("cut.png", cut), "image/png"));
        // A large PNG cut short: its end is not in the tail, nor anywhere.
        let mut large_cut = cut.to_vec();
        large_cut.extend(std::iter::repeat_n(0u8, 10_000));
        assert!(!image_readable(
            &file("large-cut.png", &large_cut),
            "image/png"
        ));
        // Data after IEND (some tools append metadata) beyond the tail that is looked at.
        let mut trailing = png.to_vec();
        trailing.extend(std::iter::repeat_n(b'x', 10_000));
        assert!(image_readable(
            &file("trailing.png", &trailing),
            "image/png"
        ));
        assert!(!image_readable(
            &file("text.png", b"not a png"),
            "image/png"
        ));
        assert!(!image_readable(
            &dir.path().join("missing.png"),
            "image/png"
        ));
    }

    #[test]
    fn a_check_is_remembered_until_the_file_changes() {
        let png: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\xff\xff?\0\x05\xfe\x02\xfe\xa7\x35\x81\x84\0\0\0\0IEND\xaeB`\x82";
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let img = dir.path().join("a.png");
        std::fs::write(&img, png).unwrap();
        let mut checks = ImageChecks::load(&cache);
        assert!(readable(&mut checks, &img));
        checks.save(&cache);
        let kept = ImageChecks::load(&cache);
        assert_eq!(kept.known.len(), 1, "the check was kept");
        // The same file: the kept answer stands, even a wrong one planted in the cache.
        let mut planted = ImageChecks::load(&cache);
        planted.known.values_mut().for_each(|(_, ok)| *ok = false);
        assert!(!readable(&mut planted, &img), "the memory is used");
        // The file cut short (same name): checked again, whatever was kept.
        std::fs::write(&img, &png[..png.len() - 12]).unwrap();
        let mut checks = ImageChecks::load(&cache);
        assert!(!readable(&mut checks, &img));
        checks.save(&cache);
        // Whole again: a new stamp, checked again.
        std::fs::write(&img, png).unwrap();
        assert!(readable(&mut ImageChecks::load(&cache), &img));
        // A damaged cache is no cache.
        for e in std::fs::read_dir(&cache).unwrap() {
            std::fs::write(e.unwrap().path(), b"junk").unwrap();
        }
        assert!(ImageChecks::load(&cache).known.is_empty());
    }

    /// Checks a PNG and remembers the answer, as linking a chapter and merging it do.
    fn readable(checks: &mut ImageChecks, path: &Path) -> bool {
        let meta = std::fs::metadata(path).unwrap();
        let Some((stamp, ok)) = checks.check(path, &meta, "image/png") else {
            return false;
        };
        checks.remember(path.to_path_buf(), stamp, ok);
        ok
    }
}
