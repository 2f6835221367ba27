//! The Markdown reader never panics, whatever the text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = seihon::reader::markdown::read(text, std::path::Path::new("fuzz.md"));
});
