//! Where seihon may write: its output folders (`build_dir`, `dist_dir`, `preview_dir`) are
//! replaced and emptied as builds go, so none of them may be, hold or lie inside what a person
//! wrote (the books, the shared folders, the project's templates, filters and checks), nor
//! another output folder, nor (unless the project says so) lie outside the project.
use std::path::{Component, Path, PathBuf};

use super::ProjectConfig;
use crate::codes;
use crate::error::{Finding, Location};

/// The output folders, by their key in `seihon.yml`.
fn outputs(config: &ProjectConfig) -> [(&'static str, &Path); 3] {
    [
        ("build_dir", config.build_dir.as_path()),
        ("dist_dir", config.dist_dir.as_path()),
        ("preview_dir", config.preview_dir.as_path()),
    ]
}

/// Checks the output folders of `seihon.yml` (`text`, shown as `shown`) against the project
/// at `root`; `shared_dirs` are already joined to the root.
pub fn check(root: &Path, config: &ProjectConfig, text: &str, shown: &Path) -> Result<(), Finding> {
    let root = real(Path::new("."), root);
    let mut kept: Vec<(String, PathBuf)> = vec![
        ("the project folder".into(), root.clone()),
        (
            format!(
                "the books folder (books_dir `{}`)",
                config.books_dir.display()
            ),
            real(&root, &config.books_dir),
        ),
    ];
    for dir in &config.shared_dirs {
        kept.push((
            format!(
                "the shared folder `{}` (shared_dirs)",
                shown_rel(&root, dir)
            ),
            real(&root, dir),
        ));
    }
    for name in ["templates", "filters", "checks"] {
        kept.push((
            format!("the project's `{name}/` folder"),
            real(&root, Path::new(name)),
        ));
    }
    let outs = outputs(config);
    for (i, (key, value)) in outs.iter().enumerate() {
        let out = real(&root, value);
        let at = Location::new(shown, line_of_key(text, key), 1);
        let written = format!("`{key}: {}`", value.display());
        if !out.starts_with(&root) && !config.outputs_outside_project {
            return Err(Finding::error(
                codes::OUTPUTS_OVERLAP,
                at,
                format!("{written} is outside the project folder"),
            )
            .with_hint(
                "seihon writes only inside the project; set `outputs_outside_project: true` in seihon.yml to allow it",
            ));
        }
        for (what, dir) in &kept {
            let relation = if out == *dir {
                "is"
            } else if out.starts_with(dir) && what != "the project folder" {
                "lies inside"
            } else if dir.starts_with(&out) {
                "holds"
            } else {
                continue;
            };
            return Err(Finding::error(
                codes::OUTPUTS_OVERLAP,
                at,
                format!("{written} {relation} {what}"),
            )
            .with_hint(format!(
                "seihon replaces and deletes what is in its output folders, so they must be apart from the manuscripts: use a folder of its own, such as `{}`",
                default_of(key)
            )));
        }
        for (other_key, other_value) in &outs[..i] {
            let other = real(&root, other_value);
            let relation = if out == other {
                "is"
            } else if out.starts_with(&other) {
                "lies inside"
            } else if other.starts_with(&out) {
                "holds"
            } else {
                continue;
            };
            return Err(Finding::error(
                codes::OUTPUTS_OVERLAP,
                at,
                format!(
                    "{written} {relation} {other_key} (`{}`)",
                    other_value.display()
                ),
            )
            .with_hint("each output folder must be a folder of its own, side by side"));
        }
    }
    Ok(())
}

/// A book named by its path must not lie in an output folder, where builds replace folders.
pub fn check_book(root: &Path, config: &ProjectConfig, book: &Path) -> Result<(), Finding> {
    let root = real(Path::new("."), root);
    let book_real = real(Path::new("."), book);
    for (key, value) in outputs(config) {
        let out = real(&root, value);
        if book_real.starts_with(&out) {
            return Err(Finding::error(
                codes::OUTPUTS_OVERLAP,
                Location::file(book),
                format!(
                    "this book lies inside {key} (`{}`), which builds replace and delete",
                    value.display()
                ),
            )
            .with_hint("keep manuscripts apart from seihon's output folders"));
        }
    }
    Ok(())
}

fn default_of(key: &str) -> &'static str {
    match key {
        "build_dir" => "build",
        "dist_dir" => "dist",
        _ => "public",
    }
}

fn shown_rel(root: &Path, dir: &Path) -> String {
    dir.strip_prefix(root).unwrap_or(dir).display().to_string()
}

/// The line of a top-level `key:` in the YAML text (0 when it is written some other way).
/// `catalogs:` in seihon.yml may only name files inside the project (refused at the key's
/// line otherwise, like the output folders).
pub fn check_catalogs(
    root: &Path,
    config: &ProjectConfig,
    text: &str,
    shown: &Path,
) -> Result<(), Finding> {
    let project = real(Path::new("."), root);
    for catalog in &config.catalogs {
        if !real(Path::new("."), catalog).starts_with(&project) {
            return Err(Finding::error(
                codes::BAD_VALUE,
                Location::new(shown, line_of_key(text, "catalogs"), 1),
                format!(
                    "the catalog {} is outside the project",
                    catalog.display()
                ),
            )
            .with_hint("put the catalogs the project names inside the project folder; XML_CATALOG_FILES may name any"));
        }
    }
    Ok(())
}

fn line_of_key(text: &str, key: &str) -> u32 {
    text.lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(0, |i| i as u32 + 1)
}

/// `path` (relative to `base`) as the file system will take it: `.` and `..` resolved, and
/// the part that exists with its links followed, so that a link or `..` cannot hide an overlap.
pub(crate) fn real(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let base = if base.is_absolute() {
            base.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|cwd| cwd.join(base))
                .unwrap_or_else(|_| base.to_path_buf())
        };
        base.join(path)
    };
    let mut lexical = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while existing.symlink_metadata().is_err() {
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_os_string());
                existing.pop();
            }
            None => break,
        }
    }
    let mut out = existing.canonicalize().unwrap_or(existing);
    for name in rest.iter().rev() {
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> ProjectConfig {
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn checked(root: &Path, yaml: &str) -> Result<(), Finding> {
        let mut c = config(yaml);
        for d in &mut c.shared_dirs {
            *d = root.join(&*d);
        }
        check(root, &c, yaml, Path::new("seihon.yml"))
    }

    #[test]
    fn output_folders_apart_from_the_sources_pass() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("books/a")).unwrap();
        assert!(checked(dir.path(), "build_dir: out/build\ndist_dir: out/dist\n").is_ok());
        assert!(checked(dir.path(), "{}\n").is_ok());
    }

    #[test]
    fn an_output_folder_over_the_sources_is_refused_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("books/a")).unwrap();
        std::fs::create_dir_all(dir.path().join("art")).unwrap();
        let cases = [
            (
                "filters: [house]\nbuild_dir: books\n",
                2,
                "`build_dir: books` is the books folder",
            ),
            (
                "preview_dir: books/a\n",
                1,
                "`preview_dir: books/a` lies inside the books folder",
            ),
            ("dist_dir: .\n", 1, "`dist_dir: .` is the project folder"),
            (
                "books_dir: manuscripts\nbuild_dir: ./x/..\n",
                2,
                "`build_dir: ./x/..` is the project folder",
            ),
            (
                "build_dir: templates\n",
                1,
                "is the project's `templates/` folder",
            ),
            (
                "shared_dirs: [art]\npreview_dir: art/pub\n",
                2,
                "lies inside the shared folder `art`",
            ),
            (
                "build_dir: ..\n",
                1,
                "`build_dir: ..` is outside the project folder",
            ),
            (
                "dist_dir: build/dist\n",
                1,
                "`dist_dir: build/dist` lies inside build_dir (`build`)",
            ),
            (
                "preview_dir: dist\n",
                1,
                "`preview_dir: dist` is dist_dir (`dist`)",
            ),
        ];
        for (yaml, line, message) in cases {
            let f = checked(dir.path(), yaml).expect_err(yaml);
            assert_eq!(f.location.line, line, "{yaml}: {f}");
            assert!(f.message.contains(message), "{yaml}: {f}");
        }
    }

    #[test]
    fn a_link_cannot_hide_an_overlap() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("books/a")).unwrap();
        std::os::unix::fs::symlink("books", dir.path().join("out")).unwrap();
        let f = checked(dir.path(), "build_dir: out\n").unwrap_err();
        assert!(f.message.contains("is the books folder"), "{f}");
    }

    #[test]
    fn outside_the_project_only_when_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join("books")).unwrap();
        let yaml = "outputs_outside_project: true\nbuild_dir: ../build\n";
        assert!(checked(&project, yaml).is_ok());
        // Allowed outside, still never over the sources.
        let yaml = "outputs_outside_project: true\nbuild_dir: ../p/books\n";
        assert!(checked(&project, yaml).is_err());
    }
}
