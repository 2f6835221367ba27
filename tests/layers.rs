//! The shape of `src/`: which top-level module may import which. Reads the sources (no build
//! needed) and fails on an import cycle between top-level modules, on a module importing one of
//! a later layer (a stage importing a later stage), and on a module missing from the table.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::repo;

/// Every top-level module of `src/`, by layer: a module may import modules of its own layer
/// or of a lower one. The stages come in build order.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundations: no stage, no book",
        &[
            "lines",
            "eaw",
            "i18n",
            "dom",
            "error",
            "codes",
            "files",
            "href",
            "config",
            "runner",
            "mail",
            "source",
            "cover",
            "synth",
            "report",
            "console",
            "highlight",
            "linkcheck",
            "math",
            "fonts",
            "colour",
            "textdiff",
            "term",
            "memory",
        ],
    ),
    ("the document model and the caches", &["doc", "cache"]),
    ("load", &["book", "project"]),
    ("read", &["reader"]),
    ("resolve", &["xref"]),
    ("write", &["xhtml"]),
    ("filter", &["filter"]),
    ("pages", &["pages"]),
    ("check", &["check", "epubcheck"]),
    ("stage and hooks", &["stage", "hooks"]),
    ("pack", &["epub"]),
    ("the build of one book", &["pipeline"]),
    (
        "commands and what they share",
        &["batch", "publish", "fresh", "serve", "scaffold", "cmd"],
    ),
];

/// The files of each top-level module (a file `src/x.rs`, or a folder `src/x/`), without
/// `lib.rs` and `main.rs`.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let mut files = Vec::new();
            collect_rs(&path, &mut files);
            // `src/x.rs` and its submodules in `src/x/` are one module.
            out.entry(name).or_insert_with(Vec::new).extend(files);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" && name != "main" {
            out.entry(name).or_insert_with(Vec::new).push(path);
        }
    }
    out
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("tests.rs") {
            // A `tests.rs` is a test module in a file of its own.
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its test module (tests may reach anywhere).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file's code names: `crate::x` paths, and the names inside a
/// `use crate::{…}` group.
fn imports(code: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find(';').unwrap_or(group.len());
            let mut depth = 0;
            let mut word = String::new();
            let mut after_colons = false;
            for c in group[..end].chars() {
                if c.is_alphanumeric() || c == '_' {
                    word.push(c);
                    continue;
                }
                // A name at the group's top level that starts a path or stands alone.
                if depth == 0 && !after_colons && known.contains(&word) {
                    found.insert(word.clone());
                }
                if !word.is_empty() || c != ':' {
                    after_colons = c == ':';
                }
                word.clear();
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => after_colons = false,
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if known.contains(&name) {
                found.insert(name);
            }
        }
    }
    found
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(&repo().join("src"));
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(name, files)| {
            let mut deps = BTreeSet::new();
            for file in files {
                let text = std::fs::read_to_string(file).unwrap();
                deps.extend(imports(&code(&text), &known));
            }
            deps.remove(name);
            (name.clone(), deps)
        })
        .collect()
}

/// A cycle through `start`, if there is one: the modules on it, in order.
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((at, path)) = stack.pop() {
        for next in graph.get(&at).into_iter().flatten() {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let graph = graph();
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_from(&graph, m))
        .map(|c| c.join(" → "))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn no_module_imports_a_later_layer() {
    let graph = graph();
    let layer_of: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, names))| names.iter().map(move |n| (*n, i)))
        .collect();
    let mut problems = Vec::new();
    for (module, deps) in &graph {
        let Some(&mine) = layer_of.get(module.as_str()) else {
            problems.push(format!(
                "`{module}` is not in the layer table of tests/layers.rs: put it in its layer"
            ));
            continue;
        };
        for dep in deps {
            if let Some(&theirs) = layer_of.get(dep.as_str())
                && theirs > mine
            {
                problems.push(format!(
                    "`{module}` ({}) imports `{dep}` ({}), a later layer",
                    LAYERS[mine].0, LAYERS[theirs].0
                ));
            }
        }
    }
    for (_, names) in LAYERS {
        for name in *names {
            if !graph.contains_key(*name) {
                problems.push(format!("`{name}` is in the layer table but not in src/"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reader of imports itself: what the two tests above rest on.
#[test]
fn imports_are_read_from_paths_and_groups_not_comments_or_tests() {
    let known: BTreeSet<String> = ["book", "check", "doc", "xref", "stage"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = "use crate::book::Book;\nuse crate::{check::{Level, xref}, doc};\n// crate::xref in a comment\nfn f() { crate::stage::sweep(); }\n#[cfg(test)]\nmod tests {\n use crate::xref;\n}\n";
    let found = imports(&code(text), &known);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["book", "check", "doc", "stage"]);
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        cycle_from(&g, "a"),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
}

/// The kinds of finding (src/codes.rs) by constant name: whether each degrades.
fn kinds() -> BTreeMap<String, bool> {
    let text = std::fs::read_to_string(repo().join("src/codes.rs")).unwrap();
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" = \"")?;
            let (_, rest) = rest.split_once("\", ")?;
            let degrades = rest.split(',').next()? == "true";
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c == '_')
                .then(|| (name.to_string(), degrades))
        })
        .collect()
}

/// Each place a finding is made, as `(file:line, made as a warning, code)`: a call such as
/// `Finding::warning(codes::X, …)` or a reader's `self.error(codes::Y, …)`.
fn made(kinds: &BTreeMap<String, bool>) -> Vec<(String, bool, String)> {
    let mut out = Vec::new();
    for (_, files) in modules(&repo().join("src")) {
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut at = 0;
            while let Some(i) = text[at..].find("codes::") {
                let start = at + i;
                at = start + "codes::".len();
                let name: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect();
                let Some(before) = text[..start].trim_end().strip_suffix('(') else {
                    continue;
                };
                let call: String = before
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect();
                let warning = call.contains("warn");
                if !(warning || call.contains("error")) || !kinds.contains_key(&name) {
                    continue;
                }
                let line = text[..start].matches('\n').count() + 1;
                out.push((format!("{}:{line}", file.display()), warning, name));
            }
        }
    }
    out
}

/// A warning is of a kind seihon renders around, an error of one that stops the build: so
/// that `checks:` can turn off every warning and lower none of the errors.
#[test]
fn findings_are_made_at_the_level_of_their_kind() {
    let kinds = kinds();
    assert!(kinds.len() > 30, "{kinds:?}");
    let made = made(&kinds);
    assert!(made.len() > 150, "{}", made.len());
    let wrong: Vec<String> = made
        .iter()
        .filter(|(_, warning, name)| kinds[name] != *warning)
        .map(|(at, warning, name)| {
            let what = if *warning { "a warning" } else { "an error" };
            format!("{at}: {what} of the kind {name}")
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
