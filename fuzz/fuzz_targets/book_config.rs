//! Loading book.yml, or a Re:VIEW config.yml and catalog.yml, never panics: bad settings are
//! errors with a location.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let dir = tempfile_dir();
    // The same bytes as each kind of settings file.
    let _ = std::fs::write(dir.join("book.yml"), text);
    let _ = seihon::book::Book::open(&dir, &seihon::book::ProjectConfig::default());
    let _ = std::fs::remove_file(dir.join("book.yml"));
    let _ = std::fs::write(dir.join("config.yml"), text);
    let _ = std::fs::write(dir.join("catalog.yml"), text);
    let _ = seihon::book::Book::open(&dir, &seihon::book::ProjectConfig::default());
});

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("seihon-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}
