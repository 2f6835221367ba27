//! seihon (製本): turns Re:VIEW, DocBook and Markdown manuscripts into valid, reproducible EPUB 3.
//!
//! The pipeline, one module per stage: [`book`] (load) → [`reader`] (read) → [`xref`] (resolve)
//! → [`xhtml::write`] (write) → [`pages`] (cover, title page, colophon, nav, package document)
//! → [`stage`] → [`epub`] (pack). [`pipeline`] runs them in order for one book.
pub mod batch;
pub mod book;
pub mod cache;
pub mod check;
pub mod cmd;
pub mod codes;
pub mod colour;
pub mod config;
pub mod console;
pub mod cover;
pub mod doc;
pub mod dom;
pub mod eaw;
pub mod epub;
pub mod epubcheck;
pub mod error;
pub mod files;
pub mod filter;
pub mod fonts;
pub mod fresh;
pub mod highlight;
pub mod hooks;
pub mod href;
pub mod i18n;
pub mod lines;
pub mod linkcheck;
pub mod mail;
pub mod math;
pub mod memory;
pub mod pages;
pub mod pipeline;
pub mod project;
pub mod publish;
pub mod reader;
pub mod report;
pub mod runner;
pub mod scaffold;
pub mod serve;
pub mod source;
pub mod stage;
pub mod synth;
pub mod term;
pub mod textdiff;
pub mod xhtml;
pub mod xref;
