//! `seihon new ID [--format …]`: a new book under books/ with its metadata and a first chapter.
use crate::error::Exit;
use crate::project::Project;
use crate::scaffold::{self, NewFormat};

pub fn run(project: &Project, id: &str, format: NewFormat) -> Exit {
    match scaffold::new_book(&project.books_dir(), id, format) {
        Ok(dir) => {
            let files = match format {
                NewFormat::Markdown => "book.yml and ch01.md",
                NewFormat::Review => "config.yml, catalog.yml and ch01.re",
                NewFormat::Docbook => "book.xml and ch01.xml",
            };
            let line = format!(
                "created {}: edit {files}, then run `seihon build {id}`",
                dir.display()
            );
            crate::term::out_line(crate::term::Kind::Info, &line);
            Exit::Success
        }
        Err(e) => super::fail(&e),
    }
}
