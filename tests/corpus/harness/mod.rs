//! The corpus harness: every book of `$SEIHON_CORPUS/manifest.json` built by the real binary
//! from a scratch copy, checked by the real epubcheck, and measured against its sources and the
//! reference EPUB. Shared by the corpus suite (`tests/corpus.rs`) and the table anyone can print
//! (`examples/corpus.rs`, run by `bash bench/corpus`).
#![allow(dead_code, reason = "the suite and the table each use a part")]

pub mod ace;
pub mod epub;
pub mod joining;
pub mod manifest;
pub mod measure;
pub mod run;
pub mod source;
pub mod table;
pub mod verdict;
