//! Which Deflate level the EPUB's entries are packed at, by measurement (issue 22, item 1):
//! every entry seihon deflates, from the EPUBs given, compressed again at each level with the
//! backend packing uses (flate2 on zlib-rs), best of 3 timings per entry and level.
//!
//!   cargo run --release --example deflate_levels -- EPUB_OR_FOLDER…
//!
//! `bash bench/deflate-levels` runs it on the corpus's EPUBs (built first with
//! `examples/corpus --keep`).
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const LEVELS: [u32; 7] = [1, 3, 4, 5, 6, 7, 9];

fn main() {
    let mut epubs: Vec<PathBuf> = Vec::new();
    for arg in std::env::args().skip(1) {
        let path = PathBuf::from(arg);
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&path)
                .map(|d| d.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            found.retain(|p| p.extension().is_some_and(|x| x == "epub"));
            found.sort();
            epubs.extend(found);
        } else {
            epubs.push(path);
        }
    }
    if epubs.is_empty() {
        eprintln!("usage: deflate_levels EPUB_OR_FOLDER…");
        std::process::exit(2);
    }
    let mut entries: Vec<Vec<u8>> = Vec::new();
    for epub in &epubs {
        let file = match std::fs::File::open(epub) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{}: {e}", epub.display());
                std::process::exit(1);
            }
        };
        let mut zip = zip::ZipArchive::new(file).expect("an EPUB is a ZIP archive");
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).expect("a readable entry");
            if entry.compression() != zip::CompressionMethod::Deflated {
                continue;
            }
            let mut data = Vec::new();
            entry
                .read_to_end(&mut data)
                .expect("an entry that inflates");
            entries.push(data);
        }
    }
    let raw: usize = entries.iter().map(Vec::len).sum();
    println!(
        "{} EPUBs, {} deflated entries, {:.1} MiB uncompressed",
        epubs.len(),
        entries.len(),
        raw as f64 / 1048576.0
    );
    let mut rows = Vec::new();
    for level in LEVELS {
        let mut size = 0usize;
        let mut time = Duration::ZERO;
        for data in &entries {
            let (mut best, mut last) = (Duration::MAX, 0);
            for _ in 0..3 {
                let start = Instant::now();
                let mut enc = flate2::write::DeflateEncoder::new(
                    Vec::with_capacity(data.len() / 3),
                    flate2::Compression::new(level),
                );
                enc.write_all(data).unwrap();
                let out = enc.finish().unwrap();
                best = best.min(start.elapsed());
                // The same bytes each time: the size of the last run is the size.
                last = out.len();
            }
            size += last;
            time += best;
        }
        rows.push((level, size, time));
    }
    let (_, size9, time9) = *rows.last().unwrap();
    println!("level   compressed   vs level 9   time (ms)   vs level 9");
    for (level, size, time) in rows {
        println!(
            "{level:>5}   {:>7.2} MiB   {:>+9.2}%   {:>9.1}   {:>9.2}×",
            size as f64 / 1048576.0,
            (size as f64 / size9 as f64 - 1.0) * 100.0,
            time.as_secs_f64() * 1000.0,
            time.as_secs_f64() / time9.as_secs_f64()
        );
    }
}
