//! Fonts a book embeds: subset to the characters the book shows (`fonts: {subset: true}`, the
//! default of a release), their size before and after in the log, and their licence's
//! embedding permission (OS/2 `fsType`) checked. The font is IPAexGothic (fonts/ipaexg.ttf,
//! whose licence permits embedding), copied into the test's book; the other permissions are
//! the same font with its `fsType` patched in memory.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::*;

const CSS: &str = "/* the book's font */\n@font-face {\n  font-family: body;\n  src: url(fonts/body.ttf) format(\"truetype\");\n}\nbody { font-family: body, sans-serif; }\np.note::before { content: \"\\2192  \"; }\n";
/// The line of `src: url(fonts/body.ttf)` in [`CSS`].
const SRC_LINE: usize = 4;

fn ipaex() -> Vec<u8> {
    std::fs::read(repo().join("fonts/ipaexg.ttf")).unwrap()
}

/// The sample book with [`CSS`] as its style sheet and `font` as `fonts/body.ttf`; `yml` is
/// added to its book.yml.
fn book_with_font(project: &TempProject, font: &[u8], yml: &str) -> PathBuf {
    let book = project.add_book(&repo().join("books/neko-no-hon"), "neko");
    std::fs::create_dir_all(book.join("fonts")).unwrap();
    std::fs::write(book.join("fonts/body.ttf"), font).unwrap();
    std::fs::write(book.join("fonts.css"), CSS).unwrap();
    let base = std::fs::read_to_string(book.join("book.yml")).unwrap();
    std::fs::write(
        book.join("book.yml"),
        format!("{base}stylesheets: [fonts.css]\n{yml}"),
    )
    .unwrap();
    book
}

/// The font with its OS/2 `fsType` set to `fs_type`, the table's checksum made right again.
fn with_fs_type(font: &[u8], fs_type: u16) -> Vec<u8> {
    let mut out = font.to_vec();
    let be32 = |b: &[u8], at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    let tables = u16::from_be_bytes([font[4], font[5]]) as usize;
    let record = (0..tables)
        .map(|i| 12 + 16 * i)
        .find(|&r| &font[r..r + 4] == b"OS/2")
        .expect("an OS/2 table");
    let (offset, length) = (
        be32(font, record + 8) as usize,
        be32(font, record + 12) as usize,
    );
    out[offset + 8..offset + 10].copy_from_slice(&fs_type.to_be_bytes());
    let mut table = out[offset..offset + length].to_vec();
    table.resize(length.div_ceil(4) * 4, 0);
    let sum = (0..table.len())
        .step_by(4)
        .fold(0u32, |s, at| s.wrapping_add(be32(&table, at)));
    out[record + 4..record + 8].copy_from_slice(&sum.to_be_bytes());
    out
}

/// Every character the EPUB's pages show, read from the EPUB itself.
fn characters_of(epub: &Path) -> BTreeSet<char> {
    let mut chars = BTreeSet::new();
    for name in entry_names(epub).iter().filter(|n| n.ends_with(".xhtml")) {
        seihon::fonts::add_page_text(&read_entry(epub, name), &mut chars);
    }
    chars
}

#[test]
fn a_release_subsets_the_font_to_the_characters_of_the_book() {
    let font = ipaex();
    let project = TempProject::new();
    book_with_font(&project, &font, "");
    // An everyday build packs the font whole.
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.contains("subset "), "{all}");
    let epub = project.epub("neko");
    assert_eq!(read_entry_bytes(&epub, "item/font/fonts/body.ttf"), font);

    let out = project.seihon(&["release", "neko", "--version", "1.0"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let epub = project.path().join("dist/release/neko-1.0.epub");
    let packed = read_entry_bytes(&epub, "item/font/fonts/body.ttf");
    assert!(
        packed.len() * 20 < font.len(),
        "{} bytes of {}",
        packed.len(),
        font.len()
    );
    let line = all
        .lines()
        .find(|l| l.starts_with("subset fonts/body.ttf: 5.8 MiB → "))
        .unwrap_or_else(|| panic!("no size line:\n{all}"));
    assert!(line.ends_with(" characters)"), "{line}");
    // The subset still parses, and maps every character the whole font has of those the
    // pages show (the text, the generated pages, the nav) and the CSS `content:` arrow.
    let mut shown = characters_of(&epub);
    shown.insert('→');
    let whole = seihon::fonts::covered(&font, &shown).unwrap();
    assert!(whole.contains(&'製') && whole.contains(&'→') && whole.len() > 200);
    assert_eq!(seihon::fonts::covered(&packed, &shown).unwrap(), whole);
    // The count is of the characters kept: those shown, and what every font keeps.
    let count: usize = line
        .rsplit_once('(')
        .and_then(|(_, n)| n.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(count >= whole.len() && count < whole.len() + 400, "{line}");
    // A character the book never shows is gone.
    assert!(
        seihon::fonts::covered(&packed, &"鬱".chars().collect())
            .unwrap()
            .is_empty()
    );
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));

    // The same inputs give the same font, in another folder too.
    let other = TempProject::new();
    book_with_font(&other, &font, "fonts: {subset: true}\n");
    let out = other.seihon(&["build", "neko"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        read_entry_bytes(&other.epub("neko"), "item/font/fonts/body.ttf"),
        packed
    );
}

#[test]
fn a_font_whose_licence_forbids_embedding_is_refused_at_its_style_sheet_line() {
    for (fs_type, says) in [
        (
            0x0002,
            "the font's licence forbids embedding (OS/2 fsType = restricted)",
        ),
        (
            0x0200,
            "the font's licence allows embedding only its bitmaps (OS/2 fsType bit 0x0200)",
        ),
    ] {
        let project = TempProject::new();
        book_with_font(&project, &with_fs_type(&ipaex(), fs_type), "");
        let out = project.seihon(&["build", "neko"]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{all}");
        let at = format!("books/neko/fonts.css:{SRC_LINE}:1: error: `fonts/body.ttf`: {says}");
        assert!(all.contains(&at), "{at}\nnot in:\n{all}");
        assert!(
            all.contains("use another font or remove the @font-face"),
            "{all}"
        );
        assert!(!project.epub("neko").exists());
    }
    // A file that is no font is packed as it is, with a warning at the same line.
    let project = TempProject::new();
    book_with_font(&project, b"\0\x01\0\0 not really a font", "");
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!(
            "books/neko/fonts.css:{SRC_LINE}:1: warning: `fonts/body.ttf`: not a font seihon can read"
        )) && all.contains("it is packed as it is"),
        "{all}"
    );
    // Preview & print beside the restricted bit: the less restrictive permission wins.
    let project = TempProject::new();
    book_with_font(&project, &with_fs_type(&ipaex(), 0x0006), "");
    let out = project.seihon(&["build", "neko"]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_font_whose_licence_forbids_subsetting_is_packed_whole_with_a_note() {
    let font = with_fs_type(&ipaex(), 0x0108);
    let project = TempProject::new();
    book_with_font(&project, &font, "fonts: {subset: true}\n");
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("packed fonts/body.ttf whole: the font's licence forbids subsetting it"),
        "{all}"
    );
    let epub = project.epub("neko");
    assert_eq!(read_entry_bytes(&epub, "item/font/fonts/body.ttf"), font);
    // `subset: false` is honoured by a release too.
    let project = TempProject::new();
    book_with_font(&project, &ipaex(), "fonts: {subset: false}\n");
    let out = project.seihon(&["release", "neko", "--version", "1.0"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let epub = project.path().join("dist/release/neko-1.0.epub");
    assert_eq!(read_entry_bytes(&epub, "item/font/fonts/body.ttf"), ipaex());
    // An unknown key under `fonts:` is an error.
    let project = TempProject::new();
    book_with_font(&project, &ipaex(), "fonts: {subsets: true}\n");
    let out = project.seihon(&["build", "neko"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("subsets"), "{}", text(&out));
}

/// Whether an OpenType font has the table `tag` (in its table directory).
fn has_table(font: &[u8], tag: &[u8; 4]) -> bool {
    let tables = u16::from_be_bytes([font[4], font[5]]) as usize;
    (0..tables).any(|i| &font[12 + 16 * i..16 + 16 * i] == tag)
}

/// An OpenType font with CFF outlines (seihon's own box font, tests/fixtures/fonts/, made by
/// the script beside it) cannot be subset yet (skera 0.9 has no CFF subsetter and drops the
/// outlines): it is packed whole, the log says why, and the EPUB stays valid. The subsetter
/// refusing a subset without outlines is a unit test of src/fonts.rs.
#[test]
fn a_cff_font_is_packed_whole_with_a_note_instead_of_without_its_outlines() {
    let font = std::fs::read(repo().join("tests/fixtures/fonts/boxes-cff.otf")).unwrap();
    assert!(has_table(&font, b"CFF ") && !has_table(&font, b"glyf"));
    let project = TempProject::new();
    let book = book_with_font(&project, &font, "fonts: {subset: true}\n");
    std::fs::rename(book.join("fonts/body.ttf"), book.join("fonts/body.otf")).unwrap();
    std::fs::write(
        book.join("fonts.css"),
        CSS.replace(
            "body.ttf) format(\"truetype\")",
            "body.otf) format(\"opentype\")",
        ),
    )
    .unwrap();
    let out = project.seihon(&["build", "neko"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("packed fonts/body.otf whole: its glyphs are CFF outlines"),
        "{all}"
    );
    assert!(!all.contains("subset fonts/body.otf"), "{all}");
    let epub = project.epub("neko");
    assert_eq!(read_entry_bytes(&epub, "item/font/fonts/body.otf"), font);
    let messages = epubcheck(&epub);
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}
