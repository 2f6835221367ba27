//! Filter: Dom → Dom through the book's chain of filters (the house style).
//!
//! Three kinds of filter mix freely in one chain, named in `book.yml` or `seihon.yml`
//! (`filters: [house, my-rules]`). A name is resolved in this order:
//!
//! 1. a built-in filter ([`builtin`]: `external-links`, `ja-spacing`, `image-size`,
//!    `table-wrap`, `house`);
//! 2. a rule file `filters/<name>.yml` ([`rules`]), in the book's folder first, then in the
//!    project's;
//! 3. a program `filters/<name>` or `filters/<name>.<ext>` ([`external`]), in the book's folder
//!    first, then in the project's.
//!
//! A name that is none of these, or a rule file with a mistake, is a [`Finding`] at its place;
//! a filter that fails while a chapter is built is a [`FilterError`] naming the filter, the
//! chapter and the reason.
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::codes::{self, Code};
use crate::dom::Document;
use crate::error::{Finding, Location};

pub mod builtin;
pub mod external;
mod positions;
pub mod rules;

/// What a filter knows about the chapter it is given.
#[derive(Debug, Clone)]
pub struct FilterContext {
    /// The book's id (its folder name).
    pub book_id: String,
    /// The chapter's file in the EPUB, e.g. `xhtml/ch01.xhtml`.
    pub chapter: String,
    /// The book's language, e.g. `ja`.
    pub language: String,
    /// The book's folder.
    pub book_root: PathBuf,
}

/// A filter failed on a chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    pub filter: String,
    pub chapter: String,
    pub message: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "filter `{}` failed on {}: {}",
            self.filter, self.chapter, self.message
        )
    }
}

impl std::error::Error for FilterError {}

/// One step of the chain: changes a chapter's XHTML tree in place.
pub trait Filter: Send + Sync {
    fn name(&self) -> &str;
    fn apply(&self, doc: &mut Document, ctx: &FilterContext) -> Result<(), FilterError>;
}

enum Step {
    Plain(Box<dyn Filter>),
    External(external::ExternalFilter),
}

impl Step {
    fn filter(&self) -> &dyn Filter {
        match self {
            Step::Plain(f) => f.as_ref(),
            Step::External(f) => f,
        }
    }
}

/// The ordered filters of a book.
#[derive(Default)]
pub struct Chain {
    steps: Vec<Step>,
    /// What the chain's output depends on besides the page: the filters' names and the texts
    /// of their rule files (see [`Chain::fingerprint`]).
    sources: Vec<u8>,
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Chain").field(&self.names()).finish()
    }
}

/// A folder to look for filters in, with the name shown in messages.
struct Place {
    dir: PathBuf,
    shown: PathBuf,
}

impl Chain {
    /// An empty chain (changes nothing).
    pub fn new() -> Self {
        Chain::default()
    }

    /// Adds a filter at the end.
    pub fn push(&mut self, filter: Box<dyn Filter>) {
        self.note_source(filter.name().as_bytes(), b"");
        self.steps.push(Step::Plain(filter));
    }

    fn note_source(&mut self, name: &[u8], text: &[u8]) {
        for part in [name, text] {
            self.sources
                .extend_from_slice(&(part.len() as u64).to_le_bytes());
            self.sources.extend_from_slice(part);
        }
    }

    /// What the chain's output depends on besides the page and its context, when that is known:
    /// the built-in filters by name and the rule filters by the text of their files. `None` when
    /// the chain runs an external program, whose output may depend on anything.
    pub fn fingerprint(&self) -> Option<&[u8]> {
        let external = self.steps.iter().any(|s| matches!(s, Step::External(_)));
        (!external).then_some(self.sources.as_slice())
    }

    /// Resolves names in order: a built-in filter; else `filters/<name>.yml` (book folder first,
    /// then project folder); else an executable or script `filters/<name>` or
    /// `filters/<name>.<ext>` (book first, then project).
    ///
    /// An unknown name is a finding naming it, listing the built-in names and where we looked;
    /// a rule file with a mistake is a finding at its file, line and column. Findings about names
    /// are placed at the book's `book.yml` (or its folder when it has none): the caller knowing
    /// the line of the `filters:` key may move them there. All names are resolved before
    /// returning, so every mistake is reported at once.
    pub fn resolve(
        names: &[String],
        project_root: &Path,
        book_root: &Path,
    ) -> Result<Chain, Vec<Finding>> {
        let shown = |p: &Path| crate::book::display_path(project_root, p);
        let mut places = vec![Place {
            dir: book_root.join("filters"),
            shown: shown(&book_root.join("filters")),
        }];
        let project_filters = project_root.join("filters");
        if !same_dir(&project_filters, &places[0].dir) {
            places.push(Place {
                shown: shown(&project_filters),
                dir: project_filters,
            });
        }
        // A name is reported where it is written: in the book's `filters:`, else in the
        // project's (what `default` brings in), else at the book.
        let settings: Vec<(PathBuf, String)> =
            [book_root.join("book.yml"), project_root.join("seihon.yml")]
                .into_iter()
                .filter_map(|f| {
                    let text = std::fs::read(&f).ok()?;
                    Some((shown(&f), String::from_utf8_lossy(&text).into_owned()))
                })
                .collect();
        let book_at = if book_root.join("book.yml").is_file() {
            Location::file(shown(&book_root.join("book.yml")))
        } else {
            Location::file(shown(book_root))
        };
        let name_at = |name: &str| {
            settings
                .iter()
                .find_map(|(file, text)| {
                    let (line, col) = list_item_at(text, "filters", name)?;
                    Some(Location::new(file, line, col))
                })
                .unwrap_or_else(|| book_at.clone())
        };

        let mut chain = Chain::new();
        let mut findings = Vec::new();
        for name in names {
            if !is_valid_name(name) {
                findings.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        name_at(name),
                        format!("`{name}` is not a valid filter name"),
                    )
                    .with_hint(
                        "a filter name is a word such as `house` or `my-rules`: letters, digits, \
                         `-` and `_`, without a folder or an extension",
                    ),
                );
                continue;
            }
            if let Some(f) = builtin::lookup(name) {
                chain.push(f);
                continue;
            }
            if let Some(place) = places
                .iter()
                .find(|p| p.dir.join(format!("{name}.yml")).is_file())
            {
                let file = place.dir.join(format!("{name}.yml"));
                let shown_file = place.shown.join(format!("{name}.yml"));
                match rules::RuleFilter::load(name, &file, &shown_file) {
                    Ok(f) => {
                        chain.push(Box::new(f));
                        // The rules as loaded: an edit to the file is a new chain.
                        chain.note_source(b"rules", &std::fs::read(&file).unwrap_or_default());
                    }
                    Err(mut fs) => findings.append(&mut fs),
                }
                continue;
            }
            let mut found = None;
            for place in &places {
                match external::find_program(&place.dir, name) {
                    Ok(Some(program)) => {
                        found = Some(program);
                        break;
                    }
                    Ok(None) => {}
                    Err(candidates) => {
                        let list: Vec<String> = candidates
                            .iter()
                            .map(|c| shown(c).display().to_string())
                            .collect();
                        findings.push(
                            Finding::error(
                                codes::FILTER,
                                Location::file(&place.shown),
                                format!(
                                    "more than one program could be the filter `{name}`: {}",
                                    list.join(", ")
                                ),
                            )
                            .with_hint("keep one of them, or rename the others"),
                        );
                        found = Some(PathBuf::new());
                        break;
                    }
                }
            }
            match found {
                Some(p) if p.as_os_str().is_empty() => {}
                Some(program) => chain
                    .steps
                    .push(Step::External(external::ExternalFilter::new(name, program))),
                None => findings.push(unknown_name(
                    codes::BAD_VALUE,
                    name,
                    &name_at(name),
                    &places,
                )),
            }
        }
        if findings.is_empty() {
            Ok(chain)
        } else {
            Err(findings)
        }
    }

    /// The filters' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| s.filter().name().to_string())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Sets the time limit of every external filter (default [`external::TIME_LIMIT`]).
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        for step in &mut self.steps {
            if let Step::External(f) = step {
                f.timeout = limit;
            }
        }
        self
    }

    /// Runs every filter in order; stops at the first failure.
    pub fn apply(&self, doc: &mut Document, ctx: &FilterContext) -> Result<(), FilterError> {
        for step in &self.steps {
            step.filter().apply(doc, ctx)?;
        }
        Ok(())
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Letters, digits, `-`, `_` and inner dots; no folder, no hidden file.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Where `item` is written in the YAML list under the top-level `key` of `text` (block
/// `- item` lines or a flow `[a, item]`), as line and column.
fn list_item_at(text: &str, key: &str, item: &str) -> Option<(u32, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| {
        l.trim_start_matches('\u{feff}')
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })?;
    let is_item = |s: &str| {
        s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '[' | ']' | '-'))
            == item
    };
    for (i, line) in lines.iter().enumerate().skip(start) {
        // The key's own line holds a flow list; then come indented or `- ` lines.
        let body = if i == start {
            &line[line.find(':')? + 1..]
        } else if line.starts_with([' ', '\t', '-']) || line.trim().is_empty() {
            line
        } else {
            break;
        };
        let mut offset = line.len() - body.len();
        for part in body.split(',') {
            let part = part.split(" #").next().unwrap_or(part);
            if is_item(part) {
                let lead = part.len()
                    - part
                        .trim_start_matches(|c: char| {
                            c.is_whitespace() || matches!(c, '"' | '\'' | '[' | '-')
                        })
                        .len();
                let col = line[..offset + lead].chars().count() as u32 + 1;
                return Some((i as u32 + 1, col));
            }
            offset += part.len() + 1;
        }
    }
    None
}

fn unknown_name(code: Code, name: &str, at: &Location, places: &[Place]) -> Finding {
    let mut looked = Vec::new();
    for p in places {
        looked.push(p.shown.join(format!("{name}.yml")).display().to_string());
    }
    for p in places {
        looked.push(format!("{}[.ext]", p.shown.join(name).display()));
    }
    // Nearest known name: a built-in or a file in one of the filter folders.
    let mut known: Vec<String> = builtin::NAMES.iter().map(|s| s.to_string()).collect();
    for p in places {
        if let Ok(entries) = std::fs::read_dir(&p.dir) {
            for entry in entries.flatten() {
                let file = PathBuf::from(entry.file_name());
                if let Some(stem) = file.file_stem().and_then(|s| s.to_str()) {
                    known.push(stem.to_string());
                }
            }
        }
    }
    let nearest = known
        .iter()
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let mut hint = String::new();
    if let Some((_, k)) = nearest {
        hint.push_str(&format!("did you mean `{k}`? "));
    }
    hint.push_str(&format!(
        "the built-in filters are {}; looked for {}",
        builtin::NAMES
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", "),
        looked.join(", ")
    ));
    Finding::error(code, at.clone(), format!("unknown filter `{name}`")).with_hint(hint)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dom::{Node, parse_document, serialize_nodes};
    use std::fs;

    pub(crate) fn ctx(lang: &str) -> FilterContext {
        FilterContext {
            book_id: "sample".into(),
            chapter: "xhtml/ch01.xhtml".into(),
            language: lang.into(),
            book_root: std::env::temp_dir(),
        }
    }

    pub(crate) fn doc(body: &str) -> Document {
        parse_document(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t</title></head><body>{body}</body></html>"
        ))
        .unwrap()
    }

    /// The body's content after the filter, with the serializer's line breaks removed.
    pub(crate) fn body(doc: &Document) -> String {
        let body = doc
            .root
            .children
            .iter()
            .find_map(|n| match n {
                Node::Element(e) if e.name == "body" => Some(e),
                _ => None,
            })
            .expect("a body");
        serialize_nodes(&body.children).replace('\n', "")
    }

    pub(crate) fn run_filter(f: &dyn Filter, input: &str, lang: &str) -> String {
        let mut d = doc(input);
        f.apply(&mut d, &ctx(lang)).unwrap();
        body(&d)
    }

    pub(crate) fn write(path: &Path, text: &str, executable: bool) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = if executable { 0o755 } else { 0o644 };
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn filter_error_display() {
        let e = FilterError {
            filter: "house-links".into(),
            chapter: "xhtml/ch01.xhtml".into(),
            message: "it broke".into(),
        };
        assert_eq!(
            e.to_string(),
            "filter `house-links` failed on xhtml/ch01.xhtml: it broke"
        );
    }

    #[test]
    fn resolution_order_book_before_project_yml_before_program() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path();
        let book = project.join("books/b");
        fs::create_dir_all(&book).unwrap();
        let rule =
            |class: &str| format!("rules:\n  - match: {{element: p}}\n    add_class: [{class}]\n");
        // `a`: in both folders as a rule file → the book's wins.
        write(&book.join("filters/a.yml"), &rule("from-book"), false);
        write(&project.join("filters/a.yml"), &rule("from-project"), false);
        // `b`: a program in the book, a rule file in the project → the rule file wins.
        write(
            &book.join("filters/b.sh"),
            "#!/bin/sh\necho '<p>program</p>'\n",
            true,
        );
        write(&project.join("filters/b.yml"), &rule("b-rule"), false);
        // `c`: programs in both → the book's.
        write(
            &book.join("filters/c.py"),
            "import sys\nsys.stdout.write(sys.stdin.read().replace('<p>', '<p class=\"book-c\">'))\n",
            false,
        );
        write(&project.join("filters/c"), "#!/bin/sh\nexit 1\n", true);
        // A built-in name wins over a file of the same name.
        write(&project.join("filters/house.yml"), "nonsense: [", false);

        let chain = Chain::resolve(&names(&["c", "a", "b", "house"]), project, &book).unwrap();
        assert_eq!(chain.names(), ["c", "a", "b", "house"]);
        let mut d = doc("<p>x</p>");
        chain.apply(&mut d, &ctx("en")).unwrap();
        assert_eq!(body(&d), r#"<p class="book-c from-book b-rule">x</p>"#);
    }

    #[test]
    fn unknown_name_lists_builtins_and_places() {
        let root = tempfile::tempdir().unwrap();
        let book = root.path().join("books/b");
        write(&book.join("book.yml"), "title: x\n", false);
        let err =
            Chain::resolve(&names(&["hous", "../etc/passwd"]), root.path(), &book).unwrap_err();
        assert_eq!(err.len(), 2, "{err:?}");
        let f = &err[0];
        assert_eq!(f.location.file, Path::new("books/b/book.yml"));
        assert_eq!(f.message, "unknown filter `hous`");
        let hint = f.hint.as_deref().unwrap();
        assert!(hint.starts_with("did you mean `house`?"), "{hint}");
        for b in builtin::NAMES {
            assert!(hint.contains(&format!("`{b}`")), "{hint}");
        }
        assert!(hint.contains("books/b/filters/hous.yml"), "{hint}");
        assert!(hint.contains("filters/hous[.ext]"), "{hint}");
        assert!(
            err[1].message.contains("not a valid filter name"),
            "{}",
            err[1]
        );
    }

    #[test]
    fn a_filter_name_is_found_where_it_is_written() {
        let block = "title: x\nfilters:\n  - house\n  - \"hous\"  # typo\nchecks: {}\n";
        assert_eq!(list_item_at(block, "filters", "hous"), Some((4, 6)));
        assert_eq!(list_item_at(block, "filters", "house"), Some((3, 5)));
        assert_eq!(list_item_at(block, "filters", "checks"), None);
        let flow = "filters: [default, 'mine']\n";
        assert_eq!(list_item_at(flow, "filters", "mine"), Some((1, 21)));
        assert_eq!(list_item_at(flow, "filters", "default"), Some((1, 11)));
        assert_eq!(list_item_at("filter: [a]\n", "filters", "a"), None);
        // In seihon.yml when the book's list does not name it.
        let root = tempfile::tempdir().unwrap();
        let book = root.path().join("books/b");
        write(
            &book.join("book.yml"),
            "title: x\nfilters: [default, house]\n",
            false,
        );
        write(
            &root.path().join("seihon.yml"),
            "filters:\n  - house\n  - nosuch\n",
            false,
        );
        let err =
            Chain::resolve(&names(&["house", "nosuch", "hous"]), root.path(), &book).unwrap_err();
        assert_eq!(
            err[0].location,
            Location::new("seihon.yml", 3, 5),
            "{err:?}"
        );
        assert_eq!(
            err[1].location,
            Location::file("books/b/book.yml"),
            "{err:?}"
        );
    }

    #[test]
    fn two_programs_for_one_name_are_reported() {
        let root = tempfile::tempdir().unwrap();
        let book = root.path().join("books/b");
        write(&root.path().join("filters/x.rb"), "puts 1\n", false);
        write(&root.path().join("filters/x.py"), "print(1)\n", false);
        let err = Chain::resolve(&names(&["x"]), root.path(), &book).unwrap_err();
        assert!(
            err[0].message.contains("filters/x.py, filters/x.rb"),
            "{}",
            err[0]
        );
    }
}
