//! Readers: one source file → `doc::Document`. Each format has its own module; all produce the
//! same model, so the writer and everything after it is shared.
pub mod docbook;
pub mod markdown;
pub mod review;
