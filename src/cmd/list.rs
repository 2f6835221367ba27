//! `seihon list [--json]`: every book of the project; one that cannot be loaded is named with
//! its error, never left out.
use crate::batch;
use crate::error::Exit;
use crate::pipeline;
use crate::project::Project;
use crate::term::{self, Kind};

pub fn run(project: &Project, json: bool) -> Exit {
    let mut rows = Vec::new();
    let mut exit = Exit::Success;
    for dir in project.book_dirs() {
        match project.open_book(&dir) {
            Ok((mut book, _)) => {
                pipeline::read_docbook_metadata(&mut book);
                rows.push(serde_json::json!({
                    "id": book.id,
                    "path": dir.to_string_lossy(),
                    "title": book.meta.title,
                    "language": book.meta.language,
                    "chapters": book.chapters.len(),
                }));
            }
            Err(e) => {
                let line = batch::prefixed(&dir, &e.to_string());
                term::err_line(Kind::Error, &line);
                exit = Exit::Failed;
            }
        }
    }
    if json {
        // As it is: JSON for a CI matrix, never altered for the log it is not printed to.
        println!("{}", serde_json::Value::Array(rows));
    } else {
        for r in &rows {
            let line = format!(
                "{}\t{}",
                r["id"].as_str().unwrap_or(""),
                r["title"].as_str().unwrap_or("")
            );
            term::out_line(Kind::Data, &line);
        }
    }
    exit
}
