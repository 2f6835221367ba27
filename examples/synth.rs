//! Writes a synthetic book (see `seihon::synth`):
//!
//! ```sh
//! cargo run --release --example synth -- review 50 2000 /tmp/synth-review
//! cargo run --release --example synth -- docbook 20 3000 /tmp/synth-docbook
//! cargo run --release --example synth -- markdown 10 1000 /tmp/synth-md
//! ```
use std::path::Path;

use seihon::synth::{Format, generate};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: synth markdown|review|docbook CHAPTERS LINES OUT_DIR";
    let parsed = match args.as_slice() {
        [format, chapters, lines, out] => Format::from_name(format)
            .zip(chapters.parse::<usize>().ok())
            .zip(lines.parse::<usize>().ok())
            .map(|((f, c), l)| (f, c, l, out)),
        _ => None,
    };
    let Some((format, chapters, lines, out)) = parsed else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    if let Err(e) = generate(format, chapters, lines, Path::new(out)) {
        eprintln!("synth: {e}");
        std::process::exit(1);
    }
}
