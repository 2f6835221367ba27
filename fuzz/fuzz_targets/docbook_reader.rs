//! The DocBook reader never panics and never hangs, whatever the main file holds.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("seihon-fuzz-db-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let main = dir.join("book.xml");
    if std::fs::write(&main, data).is_ok() {
        let _ = seihon::reader::docbook::read(&main, &dir);
    }
});
