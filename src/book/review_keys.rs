//! The keys of a Re:VIEW `config.yml` (Re:VIEW 5.11's `ReVIEW::Configure` and its samples):
//! what seihon does with each, so that a typo (`bootitle:`) is a warning at its line with the
//! key meant, and a setting Re:VIEW knows but seihon does not honour is named as such rather
//! than silently doing nothing.
use std::path::Path;

use serde_json::Value;

use crate::codes;
use crate::error::{Finding, Location};

/// Keys seihon reads (see `review::load`), with the creator roles (`aut`, `a-aut`, …).
const HONOURED: &[&str] = &[
    "booktitle",
    "subtitle",
    "language",
    "date",
    "history",
    "rights",
    "isbn",
    "urnid",
    "direction",
    "contentdir",
    "imagedir",
    "coverimage",
    "stylesheet",
    "words_file",
    "math_format",
    "catalogfile",
    "draft",
    "secnolevel",
    "toclevel",
    "tabwidth",
    "join_lines_by_lang",
    "colophon_order",
    "contact",
    "inherit",
    "epubmaker",
    "imgmath_options",
    "titlepage",
    "titlefile",
    "titlepagefile",
    "originaltitlefile",
    "creditfile",
    "profile",
    "advfile",
    "colophon",
    "backcover",
    "backcoverfile",
];

/// Keys for Re:VIEW's other outputs (PDF, LaTeX, web, text, InDesign XML) or for how Re:VIEW
/// runs, which make no difference to an EPUB: accepted without a word.
const OTHER_OUTPUTS: &[&str] = &[
    "pdfmaker",
    "webmaker",
    "textmaker",
    "texcommand",
    "texoptions",
    "texdocumentclass",
    "_texdocumentclass",
    "texstyle",
    "dvicommand",
    "dvioptions",
    "playwright_options",
    "page_metric",
    "tableopt",
    "listinfo",
    "nolf",
    "chapref",
    "structuredxml",
    "pt_to_mm_unit",
    "footnotetext",
    "usepackage",
    "review_version",
    "bookname",
    "debug",
    "params",
    "htmlext",
    "htmlversion",
    "epubversion",
    "ext",
    "image_ext",
    "image_types",
    "font_ext",
    "fontdir",
    "image_maxpixels",
    "chapter_file",
    "part_file",
    "reject_file",
    "predef_file",
    "postdef_file",
    "bib_file",
    "modified",
    "highlight",
    "toc",
];

/// Whether a value is one seihon's EPUB agrees with.
type Agrees = fn(&Value) -> bool;

/// Keys seihon honours for some values only: (key, what seihon does, whether a value is one
/// seihon's EPUB agrees with).
const BY_VALUE: &[(&str, &str, Agrees)] = &[
    ("epubversion", "seihon makes EPUB 3", |v| {
        v.is_null() || v.as_u64() == Some(3) || v.as_str() == Some("3")
    }),
    ("htmlversion", "seihon writes XHTML 5", |v| {
        v.is_null() || v.as_u64() == Some(5) || v.as_str() == Some("5")
    }),
];

/// Keys Re:VIEW reads for an EPUB that seihon does not honour (yet), with what seihon does.
const NOT_HONOURED: &[(&str, &str)] = &[
    ("title", "the title is `booktitle:`"),
    (
        "cover",
        "seihon makes the cover page from `coverimage:` or generates one",
    ),
    (
        "coverfile",
        "seihon makes the cover page from `coverimage:` or generates one",
    ),
    (
        "profiletitle",
        "the profile page is named by `profiletitle:` in locale.yml, as Re:VIEW names it",
    ),
    ("pubhistory", "the colophon's history is `history:`"),
    ("opf_meta", "no extra package metadata is written"),
    ("opf_prefix", "no extra package prefixes are written"),
    ("mytoc", "the table of contents is seihon's"),
    ("chapterlink", "references to chapters are always links"),
    ("externallink", "web addresses are always links"),
    ("caption_position", "captions stay where seihon puts them"),
    ("table_row_separator", "table cells are separated by tabs"),
    (
        "locale",
        "Re:VIEW reads its words from locale.yml (which seihon honours), not from config.yml",
    ),
    ("description", "it is left out of the package metadata"),
    ("subject", "it is left out of the package metadata"),
    ("relation", "it is left out of the package metadata"),
    ("coverage", "it is left out of the package metadata"),
    ("format", "it is left out of the package metadata"),
    ("source", "it is left out of the package metadata"),
    ("type", "it is left out of the package metadata"),
    ("use_part", "parts are made from the catalog"),
    ("chapter_quote", "chapter references use seihon's quotes"),
    ("appendix_format", "appendices are numbered seihon's way"),
    (
        "mathml",
        "`math_format:` is the setting (and seihon makes MathML either way)",
    ),
    (
        "pygments",
        "listings are highlighted by seihon's highlighter",
    ),
];

/// `epubmaker:` keys seihon honours (those of the top level it reads, which `epubmaker:`
/// overrides, and the index's, which it reads here over `pdfmaker:`'s) or that make no
/// difference to seihon's EPUB.
const EPUBMAKER_ACCEPTED: &[&str] = &[
    "makeindex",
    "makeindex_dic",
    "htmlext",
    "zip_stage1",
    "zip_stage2",
    "zip_addpath",
    "rename_for_legacy",
    "verify_target_images",
    "force_include_images",
    "image_maxpixels",
    "flattoc",
    "flattocindent",
    "ncx_indent",
    "ncxindent",
    "cover_linear",
    "externallink",
    "back_footnote",
];

/// `epubmaker:` keys seihon does not honour, with what seihon does.
const EPUBMAKER_NOT_HONOURED: &[(&str, &str)] = &[
    (
        "hook_beforeprocess",
        "Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder",
    ),
    (
        "hook_afterfrontmatter",
        "Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder",
    ),
    (
        "hook_afterbody",
        "Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder",
    ),
    (
        "hook_afterbackmatter",
        "Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder",
    ),
    (
        "hook_aftercopyimage",
        "Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder",
    ),
    (
        "hook_prepack",
        "Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder",
    ),
];

/// What seihon does with a top-level key.
enum Known {
    Read,
    Quietly,
    NotHonoured(&'static str),
}

fn top_level(key: &str, value: &Value) -> Option<Known> {
    let role = key.strip_prefix("a-").unwrap_or(key);
    if let Some((_, what, agrees)) = BY_VALUE.iter().find(|(k, _, _)| *k == key) {
        return Some(if agrees(value) {
            Known::Quietly
        } else {
            Known::NotHonoured(what)
        });
    }
    if HONOURED.contains(&key) || super::review::ROLES.contains(&role) {
        Some(Known::Read)
    } else if OTHER_OUTPUTS.contains(&key) {
        Some(Known::Quietly)
    } else {
        NOT_HONOURED
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, what)| Known::NotHonoured(what))
    }
}

fn in_epubmaker(key: &str, value: &Value) -> Option<Known> {
    if EPUBMAKER_ACCEPTED.contains(&key) {
        return Some(Known::Quietly);
    }
    if let Some((_, what)) = EPUBMAKER_NOT_HONOURED.iter().find(|(k, _)| *k == key) {
        return Some(Known::NotHonoured(what));
    }
    // `epubmaker:` may override any top-level setting.
    top_level(key, value)
}

/// Warnings for the keys of one settings file (`value`, read from `text`, shown as `shown`):
/// unknown keys, with the key meant when one is close, and keys seihon does not honour.
pub fn check(value: &Value, text: &str, shown: &Path) -> Vec<Finding> {
    let mut found = Vec::new();
    let Some(map) = value.as_object() else {
        return found;
    };
    for (key, v) in map {
        let at = key_at(text, shown, key, None);
        report(&mut found, at, key, top_level(key, v), all_top_level());
        if key == "epubmaker"
            && let Some(sub) = v.as_object()
        {
            for (sub_key, sub_v) in sub {
                let at = key_at(text, shown, sub_key, Some("epubmaker"));
                let known: Vec<&str> = EPUBMAKER_ACCEPTED
                    .iter()
                    .copied()
                    .chain(EPUBMAKER_NOT_HONOURED.iter().map(|(k, _)| *k))
                    .chain(all_top_level())
                    .collect();
                report(&mut found, at, sub_key, in_epubmaker(sub_key, sub_v), known);
            }
        }
    }
    found.sort_by_key(|f| (f.location.line, f.location.col));
    found
}

fn all_top_level() -> impl Iterator<Item = &'static str> + Clone {
    HONOURED
        .iter()
        .chain(OTHER_OUTPUTS)
        .copied()
        .chain(NOT_HONOURED.iter().map(|(k, _)| *k))
        .chain(BY_VALUE.iter().map(|(k, _, _)| *k))
        .chain(super::review::ROLES.iter().copied())
}

fn report<'a>(
    found: &mut Vec<Finding>,
    at: Location,
    key: &str,
    known: Option<Known>,
    candidates: impl IntoIterator<Item = &'a str>,
) {
    match known {
        Some(Known::Read | Known::Quietly) => {}
        Some(Known::NotHonoured(what)) => found.push(
            Finding::warning(
                codes::NOT_HONOURED,
                at,
                format!("Re:VIEW's `{key}:` setting is not honoured by seihon"),
            )
            .with_hint(what.to_string()),
        ),
        None => {
            let nearest = candidates
                .into_iter()
                .map(|k| (strsim::jaro_winkler(key, k), k))
                .filter(|(score, _)| *score > 0.85)
                .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)));
            let hint = match nearest {
                Some((_, k)) => format!("did you mean `{k}:`?"),
                None => "Re:VIEW does not know this setting either; it has no effect".into(),
            };
            found.push(
                Finding::warning(
                    codes::UNKNOWN_SETTING,
                    at,
                    format!("unknown setting `{key}:`"),
                )
                .with_hint(hint),
            );
        }
    }
}

/// Where `key:` is written: at the top level (no indentation), or, with `parent`, indented
/// under the top-level `parent:`.
fn key_at(text: &str, shown: &Path, key: &str, parent: Option<&str>) -> Location {
    let mut inside = parent.is_none();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(parent) = parent {
            if indent == 0 && !trimmed.is_empty() && !trimmed.starts_with('#') {
                inside = trimmed
                    .strip_prefix(parent)
                    .is_some_and(|r| r.starts_with(':'));
                continue;
            }
            if !inside || indent == 0 {
                continue;
            }
        } else if indent != 0 {
            continue;
        }
        let bare = trimmed.trim_start_matches(['"', '\'']);
        if bare
            .strip_prefix(key)
            .is_some_and(|r| r.trim_start_matches(['"', '\'']).starts_with(':'))
        {
            return Location::new(shown, i as u32 + 1, indent as u32 + 1);
        }
    }
    Location::file(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_text(text: &str) -> Vec<String> {
        let value: Value = serde_saphyr::from_str(text).unwrap();
        check(&value, text, Path::new("config.yml"))
            .iter()
            .map(|f| {
                format!(
                    "{}:{} {} ({})",
                    f.location.line,
                    f.location.col,
                    f.message,
                    f.hint.clone().unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn typos_are_named_with_the_key_meant_and_others_are_quiet() {
        let found = check_text(
            "booktitle: A\nbootitle: B\naut: [x]\na-trl: [y]\npdfmaker:\n  makeindex: true\ntexcommand: uplatex\nepubmaker:\n  htmlext: xhtml\n  hook_prepack: x.sh\n  secnolevle: 2\nfrobnicate: 1\n",
        );
        assert_eq!(
            found,
            [
                "2:1 unknown setting `bootitle:` (did you mean `booktitle:`?)",
                "10:3 Re:VIEW's `hook_prepack:` setting is not honoured by seihon (Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder)",
                "11:3 unknown setting `secnolevle:` (did you mean `secnolevel:`?)",
                "12:1 unknown setting `frobnicate:` (Re:VIEW does not know this setting either; it has no effect)",
            ]
        );
    }

    #[test]
    fn settings_seihon_does_not_honour_are_named_as_such() {
        let found = check_text(
            "booktitle: A\nopf_meta: {x: y}\nadvfile: ad.html\nlyr: [z]\ncolophon: colophon.html\ntitlepage: false\nmytoc: true\n",
        );
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with("2:1 Re:VIEW's `opf_meta:` setting is not honoured"));
        assert!(found[1].starts_with("7:1 Re:VIEW's `mytoc:`"), "{found:#?}");
        // Every relator is read now (the package document carries them all).
        assert!(!found.iter().any(|f| f.contains("`lyr:`")), "{found:#?}");
    }
}
