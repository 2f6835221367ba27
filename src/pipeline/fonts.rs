//! The fonts the book's style sheets embed, once every page is made: each one's embedding
//! permission checked (a font whose licence forbids embedding stops the build, at the style
//! sheet line that brings it in), and, with `fonts: {subset: true}` (the default of a
//! release), each TrueType/OpenType font subset to the characters the book's pages show, its
//! size before and after in the build log.
use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::book::Book;
use crate::codes;
use crate::error::Finding;
use crate::fonts::{self, Format};
use crate::stage::Content;
use crate::xref::{Resolved, Resource};

use super::BuildOptions;
use super::assemble::{PACKAGE_DIR, Package};

/// Checks and (when asked) subsets the book's fonts in `pkg`; what it did goes to `log`.
pub(super) fn embed(
    book: &Book,
    opts: &BuildOptions,
    resolved: &Resolved,
    pkg: &mut Package,
    log: &mut Vec<String>,
) -> Vec<Finding> {
    let mut found = Vec::new();
    // `seihon check` packs nothing: no need to subset (unless epubcheck sees the EPUB).
    let subset =
        book.fonts.subset.unwrap_or(opts.release.is_some()) && (opts.pack || opts.epubcheck);
    let mut shown: Option<Result<Shown, String>> = None;
    for res in resolved.resources.iter().filter(|r| is_font(r)) {
        let Some(bytes) = bytes_of(res) else {
            continue; // Reading it again fails when it is packed, with the file system's words.
        };
        let name = crate::book::display_path(&book.root, &res.source);
        let name = name.display();
        let format = Format::of(&bytes);
        if format == Format::Woff2 {
            if subset {
                log.push(format!(
                    "packed {name} as it is: seihon subsets TrueType and OpenType fonts, and reads no WOFF2 (its embedding permission is not checked)\n"
                ));
            }
            continue;
        }
        let embedding = match fonts::embedding(&bytes) {
            Ok(e) => e,
            Err(why) => {
                found.push(unreadable(res, &name.to_string(), &why.to_string()));
                continue;
            }
        };
        if let Some(refused) = embedding.and_then(|e| refusal(e, &name.to_string(), res)) {
            found.push(refused);
            continue;
        }
        if !subset {
            continue;
        }
        if format == Format::Woff {
            log.push(format!(
                "packed {name} as it is: seihon subsets TrueType and OpenType fonts, not WOFF\n"
            ));
            continue;
        }
        if embedding.is_some_and(fonts::Embedding::no_subsetting) {
            log.push(format!(
                "packed {name} whole: the font's licence forbids subsetting it (OS/2 fsType bit 0x0100)\n"
            ));
            continue;
        }
        if fonts::has_cff_outlines(&bytes) {
            log.push(format!(
                "packed {name} whole: its glyphs are CFF outlines, which seihon's subsetter (skera) cannot subset yet; a TrueType version of the font can be subset\n"
            ));
            continue;
        }
        let Shown { chars, features } = match shown.get_or_insert_with(|| shown_characters(pkg)) {
            Ok(shown) => shown,
            Err(lost) => {
                log.push(format!(
                    "packed {name} whole: the page `{lost}` went missing during the build, so the characters the book shows are not known (build again)\n"
                ));
                continue;
            }
        };
        match fonts::subset(&bytes, chars, features) {
            Ok(out) => {
                let kept = fonts::covered(&out, chars).map_or(0, |c| c.len());
                log.push(format!(
                    "subset {name}: {} → {} ({kept} characters)\n",
                    fonts::human_size(bytes.len()),
                    fonts::human_size(out.len())
                ));
                pkg.tree.add(format!("{PACKAGE_DIR}/{}", res.href), out);
            }
            Err(why) => found.push(unreadable(res, &name.to_string(), &why.to_string())),
        }
    }
    found
}

fn is_font(res: &Resource) -> bool {
    res.media_type.starts_with("font/")
}

fn bytes_of(res: &Resource) -> Option<Cow<'_, [u8]>> {
    match &res.bytes {
        Some(b) => Some(Cow::Borrowed(b)),
        None => std::fs::read(&res.source).ok().map(Cow::Owned),
    }
}

/// The error for a font whose licence forbids embedding it, if it does.
fn refusal(e: fonts::Embedding, name: &str, res: &Resource) -> Option<Finding> {
    let what = if e.restricted() {
        "the font's licence forbids embedding (OS/2 fsType = restricted)"
    } else if e.bitmap_only() {
        "the font's licence allows embedding only its bitmaps (OS/2 fsType bit 0x0200), and EPUB readers draw outlines"
    } else {
        return None;
    };
    let mut f = Finding::error(
        codes::FONT_LICENCE,
        res.first_use.clone(),
        format!("`{name}`: {what}"),
    );
    f.hint = Some(format!(
        "use another font or remove the @font-face (the font's fsType is {:#06x})",
        e.0
    ));
    Some(f)
}

fn unreadable(res: &Resource, name: &str, why: &str) -> Finding {
    Finding::warning(
        codes::FONT_FILE,
        res.first_use.clone(),
        format!("`{name}`: {why}; it is packed as it is"),
    )
}

/// What the book shows: its characters, and the layout features its style sheets ask for.
struct Shown {
    chars: BTreeSet<char>,
    features: BTreeSet<[u8; 4]>,
}

/// Every character the book's pages (chapters, generated pages, nav, SVG images) show, what
/// its style sheets' `content:` strings add, and what every font keeps; the features its
/// style sheets' `font-feature-settings` name.
/// `Err` names a page kept in the page cache that could not be read.
fn shown_characters(pkg: &Package) -> Result<Shown, String> {
    let mut chars: BTreeSet<char> = fonts::always_kept().collect();
    let mut features = BTreeSet::new();
    for (path, content) in pkg.tree.entries() {
        let page = path.ends_with(".xhtml") || path.ends_with(".svg");
        if !page && !path.ends_with(".css") {
            continue;
        }
        let bytes = match content {
            Content::Bytes(b) => Cow::Borrowed(b.as_slice()),
            Content::Copy(from) => Cow::Owned(std::fs::read(from).unwrap_or_default()),
            Content::Later(later) => Cow::Borrowed(later.get().ok_or_else(|| path.to_string())?),
        };
        let text = String::from_utf8_lossy(&bytes);
        if page {
            fonts::add_page_text(&text, &mut chars);
        } else {
            fonts::add_css_strings(&text, &mut chars);
            fonts::add_css_features(&text, &mut features);
        }
    }
    Ok(Shown { chars, features })
}
