//! `seihon list [--json]`: every book of the project; one that cannot be loaded is named with
//! its error, never left out.
use crate::batch;
use crate::console::safe;
use crate::error::Exit;
use crate::pipeline;
use crate::project::Project;

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
                eprintln!("{}", safe(&line));
                exit = Exit::Failed;
            }
        }
    }
    if json {
        println!("{}", serde_json::Value::Array(rows));
    } else {
        for r in &rows {
            let line = format!(
                "{}\t{}",
                r["id"].as_str().unwrap_or(""),
                r["title"].as_str().unwrap_or("")
            );
            println!("{}", safe(&line));
        }
    }
    exit
}
