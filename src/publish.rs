// STAND-IN: replaced by the lead's publish module at merge
//! The preview area: one book's result laid out under `public/<id>/` for people to browse.
//! This minimal version exists only so that `seihon watch` can be built and tested before the
//! real module lands; it keeps the same signature, layout and `status.json` fields.
use std::path::{Path, PathBuf};

use crate::batch::Outcome;
use crate::error::{Error, Result};
use crate::pipeline::Project;

/// Publishes one book's result into `public/<id>/`, swapped in atomically; a failed build
/// keeps the last good preview, marked stale, with the failure shown. Returns the book's
/// preview folder.
pub fn publish(
    project: &Project,
    book_dir: &Path,
    outcome: &Outcome,
    commit: Option<&str>,
) -> Result<PathBuf> {
    let report = &outcome.report;
    let id = if report.book.is_empty() {
        book_dir
            .file_name()
            .map_or_else(|| "book".to_string(), |n| n.to_string_lossy().into_owned())
    } else {
        report.book.clone()
    };
    let public = project.root.join("public");
    let target = public.join(&id);
    std::fs::create_dir_all(&public)
        .map_err(|e| Error::io(&public, "cannot create the preview folder", e))?;
    let time = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let status = serde_json::json!({
        "book": id,
        "ok": report.ok,
        "stale": !report.ok,
        "time": time,
        "commit": commit,
        "failed_stage": report.failed_stage,
        "findings": report.findings,
        "changes": {},
    });
    let epub = report
        .epub
        .as_ref()
        .filter(|_| report.ok)
        .map(PathBuf::from);
    match epub {
        // A good build: a fresh folder beside the old one, renamed into place.
        Some(epub) => {
            let fresh = tempfile::Builder::new()
                .prefix(&format!(".{id}.new"))
                .tempdir_in(&public)
                .map_err(|e| Error::io(&public, "cannot create a temporary folder", e))?;
            std::fs::copy(&epub, fresh.path().join(format!("{id}.epub")))
                .map_err(|e| Error::io(&epub, "cannot copy the EPUB", e))?;
            let file = std::fs::File::open(&epub)
                .map_err(|e| Error::io(&epub, "cannot open the EPUB", e))?;
            zip::ZipArchive::new(file)
                .and_then(|mut z| z.extract(fresh.path().join("book")))
                .map_err(|e| Error::io(&epub, "cannot unpack the EPUB", e.into()))?;
            write_files(fresh.path(), &id, &status, &outcome.log)?;
            let fresh = fresh.keep();
            let old = public.join(format!(".{id}.old-{}", std::process::id()));
            if target.exists() {
                std::fs::rename(&target, &old)
                    .map_err(|e| Error::io(&target, "cannot move the old preview aside", e))?;
            }
            std::fs::rename(&fresh, &target)
                .map_err(|e| Error::io(&target, "cannot put the preview in place", e))?;
            let _ = std::fs::remove_dir_all(&old);
        }
        // A failed build: the last good tree stays; only the status and index change.
        None => {
            std::fs::create_dir_all(&target)
                .map_err(|e| Error::io(&target, "cannot create the preview folder", e))?;
            write_files(&target, &id, &status, &outcome.log)?;
        }
    }
    Ok(target)
}

/// `index.html`, `status.json` and `build.log`, each written beside and renamed into place.
fn write_files(dir: &Path, id: &str, status: &serde_json::Value, log: &str) -> Result<()> {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let findings: String = status["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "<li>{}:{}:{}: {}</li>",
                esc(f["file"].as_str().unwrap_or("")),
                f["line"],
                f["col"],
                esc(f["message"].as_str().unwrap_or(""))
            )
        })
        .collect();
    let state = if status["ok"] == true {
        "built"
    } else {
        "failed (showing the last good build)"
    };
    let index = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/><title>{id}</title></head><body>\n<h1>{id}</h1>\n<p>{state}</p>\n<p><a href=\"{id}.epub\">{id}.epub</a></p>\n<ul>{findings}</ul>\n<pre>{}</pre>\n</body></html>\n",
        esc(log)
    );
    for (name, text) in [
        ("index.html", index),
        ("status.json", status.to_string()),
        ("build.log", log.to_string()),
    ] {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| Error::io(&path, "cannot write the preview", e))?;
    }
    Ok(())
}
