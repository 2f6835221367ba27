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
    "bookname",
    "language",
    "date",
    "history",
    "rights",
    "description",
    "subject",
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
/// runs, which make no difference to an EPUB: accepted without a word. The sections
/// `pdfmaker:`, `webmaker:` and `textmaker:` are accepted whole (seihon reads only the index
/// settings of `pdfmaker:`).
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
    "debug",
    "params",
    // The names of the files inside the EPUB.
    "htmlext",
    "ext",
    // What Re:VIEW copies into the EPUB: seihon packs the images, fonts and style sheets the
    // book refers to, wherever they are.
    "image_ext",
    "image_types",
    "font_ext",
    "fontdir",
    "image_maxpixels",
    // Re:VIEW 2's catalog files (CHAPS, PREDEF…), which catalog.yml replaced.
    "chapter_file",
    "part_file",
    "reject_file",
    "predef_file",
    "postdef_file",
    "bib_file",
    // seihon highlights every listing with a language, whichever highlighter is named.
    "highlight",
    // Unused by Re:VIEW 5.11's EPUB maker (a default only).
    "toc",
];

/// Whether a value is one seihon's EPUB agrees with.
type Agrees = fn(&Value) -> bool;

fn null_or_true(v: &Value) -> bool {
    v.is_null() || v.as_bool() == Some(true)
}

fn null_or_false(v: &Value) -> bool {
    v.is_null() || v.as_bool() == Some(false)
}

/// Keys seihon honours for some values only: (key, what seihon does, whether a value is one
/// seihon's EPUB agrees with).
const BY_VALUE: &[(&str, &str, Agrees)] = &[
    ("epubversion", "seihon makes EPUB 3", |v| {
        v.is_null() || v.as_u64() == Some(3) || v.as_str() == Some("3")
    }),
    ("htmlversion", "seihon writes XHTML 5", |v| {
        v.is_null() || v.as_u64() == Some(5) || v.as_str() == Some("5")
    }),
    (
        "chapterlink",
        "references to chapters are always links",
        null_or_true,
    ),
    (
        "externallink",
        "web addresses are always links",
        null_or_true,
    ),
    (
        "mytoc",
        "the table of contents is seihon's navigation document; no page of it is put in the text",
        null_or_false,
    ),
    (
        "table_row_separator",
        "table cells are separated by tabs",
        |v| v.is_null() || v.as_str() == Some("tabs"),
    ),
    (
        "caption_position",
        "captions of listings, tables and equations go above them, of figures below",
        |v| {
            let Some(map) = v.as_object() else {
                return v.is_null();
            };
            map.iter().all(|(k, pos)| {
                let seihons = if k == "image" { "bottom" } else { "top" };
                pos.is_null() || pos.as_str() == Some(seihons)
            })
        },
    ),
    (
        "imgmath",
        "seihon never makes images of equations: they become MathML (`math_format:` is the setting)",
        null_or_false,
    ),
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
    (
        "modified",
        "`dcterms:modified` is the build's time: SOURCE_DATE_EPOCH, else the last commit of the book's folder, else the book's date",
    ),
    (
        "imgmath_options",
        "seihon never makes images of equations: they become MathML",
    ),
    (
        "locale",
        "Re:VIEW reads its words from locale.yml (which seihon honours), not from config.yml",
    ),
    ("relation", "it is left out of the package metadata"),
    ("coverage", "it is left out of the package metadata"),
    ("format", "it is left out of the package metadata"),
    ("source", "it is left out of the package metadata"),
    ("type", "it is left out of the package metadata"),
    ("use_part", "parts are made from the catalog"),
    (
        "chapter_quote",
        "Re:VIEW reads it from locale.yml (which seihon honours), not from config.yml",
    ),
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
    // How Re:VIEW packs and names the EPUB's files.
    "zip_stage1",
    "zip_stage2",
    "zip_addpath",
    "rename_for_legacy",
    // `flattoc:`'s indentation, which seihon's nested table of contents does not need.
    "flattocindent",
];

/// `epubmaker:` keys seihon honours for some values only, as [`BY_VALUE`].
const EPUBMAKER_BY_VALUE: &[(&str, &str, Agrees)] = &[
    (
        "flattoc",
        "the table of contents is nested by heading level",
        null_or_false,
    ),
    (
        "ncxindent",
        "the table of contents' entries are not prefixed",
        |v| v.is_null() || v.as_array().is_some_and(Vec::is_empty),
    ),
    (
        "ncx_indent",
        "the table of contents' entries are not prefixed",
        |v| v.is_null() || v.as_array().is_some_and(Vec::is_empty),
    ),
    (
        "cover_linear",
        "the cover page is in the reading order (linear)",
        |v| !(v.is_null() || v.as_bool() == Some(false) || v.as_str() == Some("no")),
    ),
    (
        "back_footnote",
        "a footnote's own mark links back to its reference; no separate back mark is written",
        null_or_false,
    ),
    (
        "use_section",
        "headings are not wrapped in `<section>` elements",
        null_or_false,
    ),
    (
        "verify_target_images",
        "seihon packs exactly the images the book refers to",
        |v| !null_or_false(v),
    ),
    (
        "force_include_images",
        "seihon packs exactly the images the book refers to",
        |v| v.is_null() || v.as_array().is_some_and(Vec::is_empty),
    ),
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
    if let Some((_, what, agrees)) = EPUBMAKER_BY_VALUE.iter().find(|(k, _, _)| *k == key) {
        return Some(if agrees(value) {
            Known::Quietly
        } else {
            Known::NotHonoured(what)
        });
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
                    .chain(EPUBMAKER_BY_VALUE.iter().map(|(k, _, _)| *k))
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
                format!("seihon does not use Re:VIEW's `{key}:` setting"),
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
pub(super) fn key_at(text: &str, shown: &Path, key: &str, parent: Option<&str>) -> Location {
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
                "10:3 seihon does not use Re:VIEW's `hook_prepack:` setting (Re:VIEW's hooks are not run; seihon's are `hooks/` in the book folder)",
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
        assert!(found[0].starts_with("2:1 seihon does not use Re:VIEW's `opf_meta:` setting"));
        assert!(
            found[1].starts_with("7:1 seihon does not use Re:VIEW's `mytoc:`"),
            "{found:#?}"
        );
        // Every relator is read now (the package document carries them all).
        assert!(!found.iter().any(|f| f.contains("`lyr:`")), "{found:#?}");
    }

    /// Every key of Re:VIEW 5.11's doc/config.yml.sample (set or commented out) and of
    /// lib/review/configure.rb's defaults, by section.
    const SAMPLE_TOP_LEVEL: &[&str] = &[
        "review_version",
        "inherit",
        "bookname",
        "language",
        "booktitle",
        "aut",
        "a-adp",
        "adp",
        "a-ann",
        "ann",
        "a-arr",
        "arr",
        "a-art",
        "art",
        "a-asn",
        "asn",
        "a-aqt",
        "aqt",
        "a-aft",
        "aft",
        "a-aui",
        "aui",
        "a-ant",
        "ant",
        "a-bkp",
        "bkp",
        "a-clb",
        "clb",
        "a-cmm",
        "cmm",
        "a-csl",
        "csl",
        "a-dsr",
        "dsr",
        "a-edt",
        "edt",
        "a-ill",
        "ill",
        "a-lyr",
        "lyr",
        "a-mdc",
        "mdc",
        "a-mus",
        "mus",
        "a-nrt",
        "nrt",
        "a-oth",
        "oth",
        "a-pht",
        "pht",
        "a-pbl",
        "pbl",
        "a-prt",
        "prt",
        "a-red",
        "red",
        "a-rev",
        "rev",
        "a-spn",
        "spn",
        "a-ths",
        "ths",
        "a-trc",
        "trc",
        "a-trl",
        "trl",
        "contact",
        "date",
        "history",
        "rights",
        "description",
        "subject",
        "type",
        "format",
        "source",
        "relation",
        "coverage",
        "debug",
        "urnid",
        "isbn",
        "chapterlink",
        "htmlext",
        "stylesheet",
        "epubversion",
        "htmlversion",
        "toclevel",
        "secnolevel",
        "toc",
        "mytoc",
        "cover",
        "coverimage",
        "titlepage",
        "titlefile",
        "originaltitlefile",
        "creditfile",
        "colophon",
        "colophon_order",
        "backcover",
        "profile",
        "profiletitle",
        "advfile",
        "imagedir",
        "fontdir",
        "image_ext",
        "font_ext",
        "highlight",
        "catalogfile",
        "contentdir",
        "words_file",
        "table_row_separator",
        "join_lines_by_lang",
        "caption_position",
        "page_metric",
        "math_format",
        "imgmath_options",
        "direction",
        "opf_prefix",
        "opf_meta",
        "playwright_options",
        "epubmaker",
        "texstyle",
        "texdocumentclass",
        "texcommand",
        "texoptions",
        "dvicommand",
        "dvioptions",
        "pdfmaker",
        "textmaker",
        // configure.rb's defaults beyond the sample, and the keys it migrates.
        "title",
        "coverfile",
        "params",
        "ext",
        "image_types",
        "chapter_file",
        "part_file",
        "reject_file",
        "predef_file",
        "postdef_file",
        "bib_file",
        "externallink",
        "tableopt",
        "listinfo",
        "nolf",
        "chapref",
        "structuredxml",
        "pt_to_mm_unit",
        "footnotetext",
        "_texdocumentclass",
        "modified",
        "image_maxpixels",
        "mathml",
        "imgmath",
    ];
    const SAMPLE_EPUBMAKER: &[&str] = &[
        "htmlext",
        "flattoc",
        "flattocindent",
        "ncxindent",
        "ncx_indent",
        "hook_beforeprocess",
        "hook_afterfrontmatter",
        "hook_afterbody",
        "hook_afterbackmatter",
        "hook_aftercopyimage",
        "hook_prepack",
        "verify_target_images",
        "force_include_images",
        "image_maxpixels",
        "rename_for_legacy",
        "zip_stage1",
        "zip_stage2",
        "zip_addpath",
        "cover_linear",
        "externallink",
        "back_footnote",
        "use_section",
    ];
    const SAMPLE_PDFMAKER: &[&str] = &[
        "coverimage",
        "hook_beforetexcompile",
        "hook_beforemakeindex",
        "hook_aftermakeindex",
        "hook_aftertexcompile",
        "hook_afterdvipdf",
        "image_scale2width",
        "use_original_image_size",
        "bbox",
        "makeindex",
        "makeindex_command",
        "makeindex_options",
        "makeindex_sty",
        "makeindex_dic",
        "makeindex_mecab",
        "makeindex_mecab_opts",
        "colophon",
        "use_cover_nombre",
        "boxsetting",
    ];
    const SAMPLE_TEXTMAKER: &[&str] = &["th_bold"];

    #[test]
    fn every_key_of_the_sample_is_classified_and_none_is_taken_for_a_typo() {
        for key in SAMPLE_TOP_LEVEL {
            assert!(top_level(key, &Value::Null).is_some(), "top level `{key}:`");
        }
        for key in SAMPLE_EPUBMAKER {
            assert!(
                in_epubmaker(key, &Value::Null).is_some(),
                "epubmaker `{key}:`"
            );
        }
        // The whole sample, every key written: no `did you mean`, each not-honoured key once
        // with its reason.
        let mut text: String = SAMPLE_TOP_LEVEL
            .iter()
            .filter(|k| !["epubmaker", "pdfmaker", "textmaker"].contains(k))
            .map(|k| format!("{k}: x\n"))
            .collect();
        for (section, keys) in [
            ("epubmaker", SAMPLE_EPUBMAKER),
            ("pdfmaker", SAMPLE_PDFMAKER),
            ("textmaker", SAMPLE_TEXTMAKER),
        ] {
            text.push_str(&format!("{section}:\n"));
            for k in keys {
                text.push_str(&format!("  {k}: x\n"));
            }
        }
        let value: Value = serde_saphyr::from_str(&text).unwrap();
        let found = check(&value, &text, Path::new("config.yml"));
        assert!(
            found.iter().all(|f| f.code == codes::NOT_HONOURED.name()),
            "{found:#?}"
        );
        let mut lines: Vec<u32> = found.iter().map(|f| f.location.line).collect();
        lines.dedup();
        assert_eq!(lines.len(), found.len(), "one warning a key: {found:#?}");
        for f in &found {
            assert!(f.location.line > 0, "{f:?}");
            assert!(f.hint.as_deref().is_some_and(|h| !h.is_empty()), "{f:?}");
        }
        let named = |key: &str| {
            found
                .iter()
                .any(|f| f.message.contains(&format!("`{key}:`")))
        };
        // Read, or no difference to an EPUB: quiet.
        for key in [
            "bookname",
            "booktitle",
            "aut",
            "a-trl",
            "stylesheet",
            "review_version",
            "profile",
            "titlefile",
            "backcover",
            "description",
            "subject",
        ] {
            assert!(!named(key), "`{key}:` {found:#?}");
        }
        // Ignored by seihon: named, whatever the value.
        for key in ["opf_meta", "imgmath_options", "modified", "hook_prepack"] {
            assert!(named(key), "`{key}:` {found:#?}");
        }
    }

    #[test]
    fn defaults_are_quiet_and_other_values_are_named() {
        let quiet = check_text(
            "chapterlink: true\nexternallink: null\nmytoc: null\ntable_row_separator: tabs\n\
             caption_position: {image: bottom, table: top}\nepubmaker:\n  flattoc: null\n  \
             cover_linear: true\n  back_footnote: null\n  externallink: true\n  \
             force_include_images: []\n",
        );
        assert_eq!(quiet, Vec::<String>::new());
        let named = check_text(
            "chapterlink: false\nmytoc: true\ntable_row_separator: verticalbar\n\
             caption_position: {image: top}\nimgmath: true\nepubmaker:\n  flattoc: true\n  \
             cover_linear: null\n  use_section: true\n  externallink: false\n",
        );
        assert_eq!(named.len(), 9, "{named:#?}");
        assert!(
            named[8].starts_with("10:3 seihon does not use Re:VIEW's `externallink:`"),
            "{named:#?}"
        );
    }
}
