//! How long reading a DocBook book takes (loading every file, then converting), in process:
//! the build's `read` step without the rest, for measuring the reader alone (issue 22).
//!
//!   cargo run --release --example docbook_read -- MAIN.xml [RUNS]
//!
//! Prints the fastest and the median of RUNS (default 15) readings, and the chapters read.
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(main) = args.next().map(PathBuf::from) else {
        eprintln!("usage: docbook_read MAIN.xml [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(15);
    let root = main
        .parent()
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let mut times = Vec::with_capacity(runs);
    let mut chapters = 0;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let (book, _findings) = seihon::reader::docbook::read(&main, &root);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        chapters = book.chapters.len();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{}: {chapters} chapters; fastest {:.2} ms, median {:.2} ms of {} runs",
        main.display(),
        times[0],
        times[times.len() / 2],
        times.len()
    );
}
