//! Re:VIEW's preprocessor directives (what `review-preproc` does before a book is compiled):
//! `#@mapfile(path)` and `#@maprange(path, name)` replace the lines up to their `#@end` with a
//! file of the book, or with the part of it between `#@range_begin(name)` and
//! `#@range_end(name)`; `#@defvar(name, value)` sets a `$name` those paths may use.
//! `#@mapoutput(command)` and `#@mapfile(…)[eval]` would run a program, which seihon never
//! does: their lines are kept as written, with a warning.
//!
//! The expanded text keeps, for each of its lines, the source line it stands for (a mapped
//! line stands for its directive), so that everything the reader reports after a mapped block
//! is at its own line.
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::codes;
use crate::error::{Finding, Location};

/// A chapter with its preprocessor directives carried out.
pub struct Expanded {
    pub text: String,
    /// For each line of `text`, the line of the chapter it stands for (1-based).
    pub origin: Vec<u32>,
    pub findings: Vec<Finding>,
}

/// Where mapped files are looked up: the book folder (as `review-preproc` runs there), with
/// the same limits as images.
pub struct Files<'a> {
    pub root: &'a Path,
    pub shared: &'a [PathBuf],
}

/// Whether the text has a directive this module carries out (most chapters have none, and
/// are read as they are).
pub fn has_directives(text: &str) -> bool {
    text.contains("#@map")
}

/// Carries out the chapter's directives (see the module comment).
pub fn expand(text: &str, shown: &Path, files: &Files) -> Expanded {
    let lines = super::source_lines(text);
    let mut out = Expander {
        shown,
        files,
        vars: HashMap::new(),
        text: String::with_capacity(text.len()),
        origin: Vec::with_capacity(lines.len()),
        findings: Vec::new(),
        cache: HashMap::new(),
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let ln = i as u32 + 1;
        i += 1;
        let Some(d) = Directive::parse(line) else {
            out.push(line, ln);
            continue;
        };
        match d.name.as_str() {
            "defvar" => {
                if let [name, value] = d.args.as_slice() {
                    out.vars.insert(name.clone(), value.clone());
                }
                out.push(line, ln);
            }
            "mapfile" | "maprange" => {
                // A mapped `.re` file's old lines hold blocks of their own: only `#@end` ends
                // them (review-preproc's `leave_content`).
                let re_file = d
                    .args
                    .first()
                    .is_some_and(|p| out.expand_vars(p).ends_with(".re"));
                let Some(end) = block_end(&lines, i, re_file) else {
                    out.warn(
                        ln,
                        format!(
                            "`#@{}` has no `#@end` after it: its lines are kept as written",
                            d.name
                        ),
                        "end the mapped lines with a line `#@end`",
                    );
                    out.push(line, ln);
                    continue;
                };
                match out.mapped(&d, ln) {
                    Some(mapped) => {
                        for m in mapped {
                            out.push(&m, ln);
                        }
                        // The directive and its `#@end` go: the reader sees the file's lines.
                        i = end.line + 1;
                        if end.closing_block {
                            // A `//}` before any `#@end`: the mapped lines end the block's body.
                            i = end.line;
                            out.warn(
                                ln,
                                format!(
                                    "`#@{}` has no `#@end` before the `//}}` that closes its block",
                                    d.name
                                ),
                                "end the mapped lines with a line `#@end`",
                            );
                        }
                    }
                    None => out.push(line, ln),
                }
            }
            "mapoutput" => {
                out.warn(
                    ln,
                    "`#@mapoutput` runs a program, which seihon never does: the lines up to its `#@end` are kept as written".into(),
                    "run `review-preproc --replace` yourself and commit the result, or paste the output in",
                );
            }
            _ => out.push(line, ln),
        }
    }
    if out.text.ends_with('\n') && !text.ends_with('\n') {
        out.text.pop();
    }
    Expanded {
        text: out.text,
        origin: out.origin,
        findings: out.findings,
    }
}

/// Where a mapped block's old lines end.
struct BlockEnd {
    /// The index of the `#@end` line (or of the `//}` that came first).
    line: usize,
    /// Whether a `//}` came before any `#@end` (Re:VIEW warns and stops there).
    closing_block: bool,
}

fn block_end(lines: &[&str], from: usize, re_file: bool) -> Option<BlockEnd> {
    for (k, l) in lines.iter().enumerate().skip(from) {
        if l.starts_with("#@end") {
            return Some(BlockEnd {
                line: k,
                closing_block: false,
            });
        }
        if l.starts_with("//}") && !re_file {
            return Some(BlockEnd {
                line: k,
                closing_block: true,
            });
        }
    }
    None
}

/// `#@name(arg, arg)[opt, opt=value]`.
struct Directive {
    name: String,
    args: Vec<String>,
    opts: Vec<(String, Option<String>)>,
}

impl Directive {
    fn parse(line: &str) -> Option<Directive> {
        let rest = line.trim_end().strip_prefix("#@")?;
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !matches!(
            name.as_str(),
            "mapfile" | "maprange" | "mapoutput" | "defvar"
        ) {
            return None;
        }
        let rest = rest[name.len()..].strip_prefix('(')?;
        let close = rest.find(')')?;
        let args = rest[..close]
            .split(',')
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
            .collect();
        let after = &rest[close + 1..];
        let opts = after
            .strip_prefix('[')
            .and_then(|o| o.strip_suffix(']'))
            .map(|o| {
                o.split(',')
                    .map(|kv| match kv.split_once('=') {
                        Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
                        None => (kv.trim().to_string(), None),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Directive { name, args, opts })
    }

    fn opt(&self, name: &str) -> Option<Option<&str>> {
        self.opts
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_deref())
    }
}

struct Expander<'a> {
    shown: &'a Path,
    files: &'a Files<'a>,
    vars: HashMap<String, String>,
    text: String,
    origin: Vec<u32>,
    findings: Vec<Finding>,
    /// Files already read, by path as written after `$var` expansion.
    cache: HashMap<String, Option<Mapped>>,
}

/// A mapped file's lines (markers left out) and its named ranges.
#[derive(Clone)]
struct Mapped {
    whole: Vec<String>,
    ranges: HashMap<String, Vec<String>>,
}

impl Expander<'_> {
    fn push(&mut self, line: &str, origin: u32) {
        self.text.push_str(line);
        self.text.push('\n');
        self.origin.push(origin);
    }

    fn warn(&mut self, ln: u32, message: String, hint: &str) {
        self.findings.push(
            Finding::warning(
                codes::UNSUPPORTED,
                Location::new(self.shown, ln, 1),
                message,
            )
            .with_hint(hint),
        );
    }

    /// `$name` replaced by what `#@defvar` set (again, for a value that names another).
    fn expand_vars(&self, s: &str) -> String {
        let mut out = s.to_string();
        for _ in 0..8 {
            let mut changed = false;
            for (k, v) in &self.vars {
                let pat = format!("${k}");
                if out.contains(&pat) {
                    out = out.replace(&pat, v);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        out
    }

    /// The lines a `#@mapfile` or `#@maprange` stands for, or `None` (with a warning) when they
    /// cannot be had: the old lines are then kept.
    fn mapped(&mut self, d: &Directive, ln: u32) -> Option<Vec<String>> {
        if d.opt("eval").is_some() {
            self.warn(
                ln,
                "`#@mapfile(…)[eval]` runs the file with Ruby, which seihon never does: the lines up to its `#@end` are kept as written".into(),
                "run `review-preproc --replace` yourself and commit the result",
            );
            return None;
        }
        let want = if d.name == "maprange" { 2 } else { 1 };
        if d.args.len() != want {
            let form = if want == 2 {
                "`#@maprange(path, name)`"
            } else {
                "`#@mapfile(path)`"
            };
            self.warn(
                ln,
                format!(
                    "`#@{}` takes {want} argument(s) here: its lines are kept as written",
                    d.name
                ),
                &format!("write {form}"),
            );
            return None;
        }
        let path = self.expand_vars(&d.args[0]);
        let file = self.read(&path, ln)?;
        let lines = if d.name == "maprange" {
            let name = &d.args[1];
            match file.ranges.get(name) {
                Some(r) => r.clone(),
                None => {
                    self.warn(
                        ln,
                        format!("`{path}` has no range `{name}`: the lines up to `#@end` are kept as written"),
                        &format!("mark it in `{path}` with lines holding `#@range_begin({name})` and `#@range_end({name})`"),
                    );
                    return None;
                }
            }
        } else {
            file.whole
        };
        Some(match d.opt("unindent") {
            Some(n) => unindent(lines, n.and_then(|n| n.parse().ok())),
            None => lines,
        })
    }

    fn read(&mut self, path: &str, ln: u32) -> Option<Mapped> {
        if let Some(hit) = self.cache.get(path) {
            return hit.clone();
        }
        let found = crate::book::check_book_file_under(
            self.files.root,
            &self
                .files
                .root
                .canonicalize()
                .unwrap_or_else(|_| self.files.root.to_path_buf()),
            self.files.shared,
            Path::new(path),
        )
        .map_err(|why| why.to_string())
        .and_then(|p| std::fs::read(&p).map_err(|e| format!("cannot be read ({e})")))
        .and_then(|b| String::from_utf8(b).map_err(|_| "is not UTF-8 text".to_string()));
        let mapped = match found {
            Ok(text) => Some(parse_file(&text)),
            Err(why) => {
                self.warn(
                    ln,
                    format!("the file `{path}` to map {why}: the lines up to `#@end` are kept as written"),
                    "paths are relative to the book folder, as review-preproc runs there",
                );
                None
            }
        };
        self.cache.insert(path.to_string(), mapped.clone());
        mapped
    }
}

/// A mapped file's lines, with its range markers (`#@range_begin(x)` at a line's start, or
/// `#@@range_begin(x)` anywhere in it, e.g. after a comment sign) left out.
fn parse_file(text: &str) -> Mapped {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut whole = Vec::new();
    let mut ranges: HashMap<String, Vec<String>> = HashMap::new();
    let mut open: Vec<String> = Vec::new();
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match marker(line) {
            Some((name, true)) => {
                ranges.entry(name.clone()).or_default().clear();
                open.push(name);
            }
            Some((name, false)) => open.retain(|n| *n != name),
            None => {
                whole.push(line.to_string());
                for name in &open {
                    ranges
                        .entry(name.clone())
                        .or_default()
                        .push(line.to_string());
                }
            }
        }
    }
    Mapped { whole, ranges }
}

/// `(name, true)` for a range's begin marker, `(name, false)` for its end.
fn marker(line: &str) -> Option<(String, bool)> {
    let at = if line.starts_with("#@") {
        2
    } else {
        line.find("#@@")? + 3
    };
    let rest = &line[at..];
    let (kind, rest) = rest.split_once('_')?;
    if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let (begin, rest) = if let Some(r) = rest.strip_prefix("begin(") {
        (true, r)
    } else {
        (false, rest.strip_prefix("end(")?)
    };
    let name = &rest[..rest.find(')')?];
    Some((name.trim().to_string(), begin))
}

/// Removes `n` leading spaces from each line, or the least indentation of the non-empty ones.
fn unindent(lines: Vec<String>, n: Option<usize>) -> Vec<String> {
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let n = n.unwrap_or_else(|| {
        lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| indent(l))
            .min()
            .unwrap_or(0)
    });
    lines
        .into_iter()
        .map(|l| {
            let cut = indent(&l).min(n);
            l[cut..].to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chapter: &str, files: &[(&str, &str)]) -> Expanded {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let files = Files {
            root: dir.path(),
            shared: &[],
        };
        expand(chapter, Path::new("ch.re"), &files)
    }

    #[test]
    fn mapfile_replaces_the_old_lines_and_keeps_later_lines_where_they_were() {
        let ch = "= T\n\n//list[a][A]{\n#@mapfile(src/a.rb)\nold\nold\nold\n#@end\n//}\n\nafter\n";
        let e = run(ch, &[("src/a.rb", "puts 1\nputs 2\n")]);
        assert_eq!(
            e.text,
            "= T\n\n//list[a][A]{\nputs 1\nputs 2\n//}\n\nafter\n"
        );
        assert_eq!(e.origin, [1, 2, 3, 4, 4, 9, 10, 11]);
        assert!(e.findings.is_empty(), "{:?}", e.findings);
    }

    #[test]
    fn maprange_takes_the_marked_lines_unindented_on_request() {
        let src = "class A\n  # #@@range_begin(body)\n  def x\n    1\n  end\n  # #@@range_end(body)\nend\n";
        let ch = "//emlist{\n#@maprange(a.rb, body)[unindent]\n#@end\n//}\n";
        let e = run(ch, &[("a.rb", src)]);
        assert_eq!(e.text, "//emlist{\ndef x\n  1\nend\n//}\n");
        // Markers never show, not even in the whole file.
        let e = run("#@mapfile(a.rb)\n#@end\n", &[("a.rb", src)]);
        assert!(!e.text.contains("range_"), "{}", e.text);
    }

    #[test]
    fn defvar_names_a_folder() {
        let ch = "#@defvar(dir, code)\n//emlist{\n#@mapfile($dir/x.txt)\n#@end\n//}\n";
        let e = run(ch, &[("code/x.txt", "x\n")]);
        assert!(e.text.contains("//emlist{\nx\n//}"), "{}", e.text);
    }

    #[test]
    fn what_cannot_be_mapped_keeps_its_lines_with_a_located_warning() {
        let ch = "//emlist{\n#@mapfile(missing.rb)\nkept\n#@end\n//}\n";
        let e = run(ch, &[]);
        assert!(e.text.contains("kept"));
        assert_eq!(e.findings.len(), 1);
        assert_eq!(e.findings[0].location.line, 2);
        // Outside the book folder: refused like an image would be.
        let e = run("#@mapfile(../etc/passwd)\nkept\n#@end\n", &[]);
        assert!(e.text.contains("kept") && e.findings[0].message.contains("outside"));
        // A program is never run.
        let e = run("#@mapoutput(ls)\nkept\n#@end\n", &[]);
        assert!(e.text.contains("kept") && e.findings[0].message.contains("never"));
        let e = run("#@maprange(a.rb, nope)\nkept\n#@end\n", &[("a.rb", "x\n")]);
        assert!(e.text.contains("kept") && e.findings[0].message.contains("no range"));
    }

    #[test]
    fn a_mapped_re_file_ends_only_at_end() {
        let ch = "#@mapfile(part.re)\n//emlist{\nold\n//}\n#@end\nafter\n";
        let e = run(ch, &[("part.re", "//note{\nnew\n//}\n")]);
        assert_eq!(e.text, "//note{\nnew\n//}\nafter\n");
        assert!(e.findings.is_empty(), "{:?}", e.findings);
    }

    #[test]
    fn a_block_closed_before_end_takes_the_mapped_lines() {
        let e = run(
            "//emlist{\n#@mapfile(a.txt)\nold\n//}\n",
            &[("a.txt", "new\n")],
        );
        assert_eq!(e.text, "//emlist{\nnew\n//}\n");
        assert_eq!(e.findings.len(), 1, "{:?}", e.findings);
    }
}
