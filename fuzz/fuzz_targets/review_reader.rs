//! The Re:VIEW reader never panics, whatever the text, and its findings stay inside the text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let opts = seihon::reader::review::ReviewOptions::default();
    let (_doc, findings) = seihon::reader::review::read(text, std::path::Path::new("fuzz.re"), &opts);
    let lines = text.lines().count() as u32 + 1;
    for f in findings {
        assert!(f.location.line <= lines, "finding past the end: {f}");
    }
});
