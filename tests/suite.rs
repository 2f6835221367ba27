//! Every integration test, in one test binary: one link of the library and its dependencies
//! instead of one per file (19 binaries took ~650 MB and relinked them all on every library
//! edit). Each file below is a module; `support` is their shared helpers.
mod support;

mod accessibility;
mod bad_input;
mod bad_inputs;
mod browser;
mod build;
mod cache;
mod cli;
mod corpus;
mod crash_safety;
mod docbook_book_yml;
mod docbook_catalogs;
mod docbook_findings;
mod fonts;
mod golden;
mod hrefs;
mod index;
mod layers;
mod limits;
mod mail;
mod navigation;
mod options;
mod page_list;
mod preview;
mod quality;
mod release;
mod review_errors;
mod sarif;
mod static_pages;
mod store_profiles;
mod synth;
mod watch;
mod workflow;
