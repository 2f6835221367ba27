//! Fonts a book embeds: what kind of font file a file is, what embedding its licence permits
//! (the OS/2 table's `fsType`), the characters a book's pages show, and the font subset to
//! them.
//!
//! Subsetting is skera's (fontations' port of HarfBuzz's hb-subset): unlike subsetters made for
//! PDF it keeps `cmap` and the layout tables a reader shapes text with. It subsets TrueType
//! (`glyf`) outlines; skera 0.9 has no CFF subsetter and leaves a `CFF `/`CFF2` table out of
//! the subset, so fonts with those outlines are packed whole ([`has_cff_outlines`]). Every
//! subset is parsed again and must keep the original's outline tables and map each character
//! the original mapped, or it is not used.
use std::collections::BTreeSet;

use read_fonts::collections::IntSet;
use read_fonts::types::{GlyphId, NameId, Tag};
use read_fonts::{FontRef, TableProvider};

/// What kind of font file a file is, by its first bytes (not its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A TrueType (glyf) or OpenType (CFF) font: what seihon subsets.
    Sfnt,
    /// WOFF: a font for the web, its tables zlib-compressed; packed as it is.
    Woff,
    /// WOFF2: a font for the web, Brotli-compressed and transformed; packed as it is.
    Woff2,
    /// A font collection (`ttcf`) or anything else: packed as it is.
    Other,
}

impl Format {
    pub fn of(bytes: &[u8]) -> Format {
        match bytes.get(..4) {
            Some([0, 1, 0, 0] | b"OTTO" | b"true") => Format::Sfnt,
            Some(b"wOFF") => Format::Woff,
            Some(b"wOF2") => Format::Woff2,
            _ => Format::Other,
        }
    }
}

/// What embedding a font's licence permits, as its OS/2 `fsType` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Embedding(pub u16);

impl Embedding {
    /// "Restricted License embedding" (bit 1) and no less restrictive usage bit beside it (the
    /// OpenType spec lets the least restrictive bit set win): the font may not be embedded.
    pub fn restricted(self) -> bool {
        self.0 & 0x0002 != 0 && self.0 & 0x000C == 0
    }

    /// "Bitmap embedding only" (bit 9): only the font's bitmaps may be embedded, and an EPUB
    /// reader draws outlines.
    pub fn bitmap_only(self) -> bool {
        self.0 & 0x0200 != 0
    }

    /// "No subsetting" (bit 8): the font may be embedded only whole.
    pub fn no_subsetting(self) -> bool {
        self.0 & 0x0100 != 0
    }
}

/// Why a font could not be read or subset.
#[derive(Debug, thiserror::Error)]
pub enum FontError {
    #[error("not a font seihon can read ({0})")]
    Unreadable(String),
    #[error("the subsetter failed ({0})")]
    Subset(String),
    #[error("the subset font lost {0} of the characters the font has")]
    LostCharacters(usize),
    #[error("the subset font lost its `{0}` table (the glyphs' outlines)")]
    LostOutlines(&'static str),
}

/// The tables that hold a font's outlines: a subset without one the original has draws nothing.
const OUTLINE_TABLES: &[(&[u8; 4], &str)] =
    &[(b"glyf", "glyf"), (b"CFF ", "CFF"), (b"CFF2", "CFF2")];

fn has_table(font: &FontRef, tag: &[u8; 4]) -> bool {
    font.data_for_tag(Tag::new(tag)).is_some()
}

/// Whether the font draws its glyphs with CFF (or CFF2) outlines: OpenType fonts `OTTO`, which
/// the subsetter cannot subset yet.
pub fn has_cff_outlines(bytes: &[u8]) -> bool {
    FontRef::new(bytes).is_ok_and(|f| has_table(&f, b"CFF ") || has_table(&f, b"CFF2"))
}

/// The font's embedding permission (of a TrueType/OpenType or WOFF font); `None` for a font
/// with no OS/2 table (old Mac fonts), which states none.
pub fn embedding(bytes: &[u8]) -> Result<Option<Embedding>, FontError> {
    if Format::of(bytes) == Format::Woff {
        let os2 = woff_table(bytes, *b"OS/2")?;
        return Ok(os2
            .and_then(|t| t.get(8..10).map(|b| u16::from_be_bytes([b[0], b[1]])))
            .map(Embedding));
    }
    let font = FontRef::new(bytes).map_err(|e| FontError::Unreadable(e.to_string()))?;
    // A font no reader can map characters with is no font for an EPUB (nor, often, a font).
    font.cmap()
        .map_err(|e| FontError::Unreadable(format!("no cmap table: {e}")))?;
    Ok(font.os2().ok().map(|os2| Embedding(os2.fs_type())))
}

/// One table of a WOFF (1.0) font, uncompressed; `None` when the font has none.
fn woff_table(bytes: &[u8], tag: [u8; 4]) -> Result<Option<Vec<u8>>, FontError> {
    let bad = || FontError::Unreadable("a WOFF font cut short".into());
    let be32 = |at: usize| -> Result<usize, FontError> {
        let b = bytes.get(at..at + 4).ok_or_else(bad)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let tables = bytes.get(12..14).ok_or_else(bad)?;
    let tables = u16::from_be_bytes([tables[0], tables[1]]) as usize;
    // The header is 44 bytes, then a 20-byte entry per table: tag, offset, compressed
    // length, length, checksum.
    let Some(entry) = (0..tables)
        .map(|i| 44 + 20 * i)
        .find(|&e| bytes.get(e..e + 4) == Some(&tag[..]))
    else {
        return Ok(None);
    };
    let (offset, packed, length) = (be32(entry + 4)?, be32(entry + 8)?, be32(entry + 12)?);
    let data = bytes
        .get(offset..offset.checked_add(packed).ok_or_else(bad)?)
        .ok_or_else(bad)?;
    if packed == length {
        return Ok(Some(data.to_vec()));
    }
    let mut out = Vec::with_capacity(length.min(1 << 20));
    use std::io::Read;
    flate2::read::ZlibDecoder::new(data)
        .take(length as u64)
        .read_to_end(&mut out)
        .map_err(|e| FontError::Unreadable(format!("a WOFF table that does not inflate: {e}")))?;
    Ok(Some(out))
}

/// Which of `chars` the font maps to a glyph.
pub fn covered(bytes: &[u8], chars: &BTreeSet<char>) -> Result<BTreeSet<char>, FontError> {
    let font = FontRef::new(bytes).map_err(|e| FontError::Unreadable(e.to_string()))?;
    let cmap = font
        .cmap()
        .map_err(|e| FontError::Unreadable(format!("no cmap table: {e}")))?;
    Ok(chars
        .iter()
        .copied()
        .filter(|&c| cmap.map_codepoint(c).is_some_and(|g| g != GlyphId::NOTDEF))
        .collect())
}

/// The font with only the glyphs `chars` need (and those its layout rules reach from them:
/// ligatures, vertical forms, the alternates of the features kept), its cmap mapping each of
/// them. The layout features kept are HarfBuzz's defaults (what a reader applies on its own,
/// vertical forms among them), [`ALWAYS_FEATURES`], and `features` (what the book's style
/// sheets ask for, [`add_css_features`]); not every feature of the font: IPAexGothic's
/// JIS78/JIS90, width and traditional forms made a subset four times as large. Hinting and every
/// name record are kept (the licence and copyright are in the name table). The same font and
/// characters give the same bytes.
pub fn subset(
    bytes: &[u8],
    chars: &BTreeSet<char>,
    features: &BTreeSet<[u8; 4]>,
) -> Result<Vec<u8>, FontError> {
    let font = FontRef::new(bytes).map_err(|e| FontError::Unreadable(e.to_string()))?;
    let unicodes: IntSet<u32> = chars.iter().map(|&c| c as u32).collect();
    let drop_tables: IntSet<Tag> = skera::DEFAULT_DROP_TABLES.iter().copied().collect();
    let mut all_scripts = IntSet::<Tag>::empty();
    all_scripts.invert();
    let layout_features: IntSet<Tag> = skera::DEFAULT_LAYOUT_FEATURES
        .iter()
        .copied()
        .chain(ALWAYS_FEATURES.iter().map(|t| Tag::new(t)))
        .chain(features.iter().map(Tag::new))
        .collect();
    let mut all_names = IntSet::<NameId>::empty();
    all_names.invert();
    let mut all_languages = IntSet::<u16>::empty();
    all_languages.invert();
    let plan = skera::Plan::new(
        &IntSet::empty(),
        &unicodes,
        &font,
        skera::SubsetFlags::default(),
        &drop_tables,
        &all_scripts,
        &layout_features,
        &all_names,
        &all_languages,
    );
    let out = skera::subset_font(&font, &plan).map_err(|e| FontError::Subset(e.to_string()))?;
    let subset = FontRef::new(&out).map_err(|e| FontError::Subset(e.to_string()))?;
    if let Some((_, name)) =
        (OUTLINE_TABLES.iter()).find(|(tag, _)| has_table(&font, tag) && !has_table(&subset, tag))
    {
        return Err(FontError::LostOutlines(name));
    }
    // A subset that lost a character would show it as a box: never pack one.
    let wanted = covered(bytes, chars)?;
    let kept = covered(&out, &wanted)?;
    if kept.len() != wanted.len() {
        return Err(FontError::LostCharacters(wanted.len() - kept.len()));
    }
    Ok(out)
}

/// Features kept besides HarfBuzz's defaults: the spacing alternates and ruby forms Japanese
/// text is set with, cheap to keep.
pub const ALWAYS_FEATURES: &[&[u8; 4]] = &[b"palt", b"halt", b"vhal", b"vpal", b"ruby"];

/// The features `font-variant-*` (and `font`) keywords turn on.
const VARIANT_FEATURES: &[(&str, &[&[u8; 4]])] = &[
    ("small-caps", &[b"smcp"]),
    ("all-small-caps", &[b"smcp", b"c2sc"]),
    ("petite-caps", &[b"pcap"]),
    ("all-petite-caps", &[b"pcap", b"c2pc"]),
    ("unicase", &[b"unic"]),
    ("titling-caps", &[b"titl"]),
    ("lining-nums", &[b"lnum"]),
    ("oldstyle-nums", &[b"onum"]),
    ("proportional-nums", &[b"pnum"]),
    ("tabular-nums", &[b"tnum"]),
    ("diagonal-fractions", &[b"frac"]),
    ("stacked-fractions", &[b"afrc"]),
    ("ordinal", &[b"ordn"]),
    ("slashed-zero", &[b"zero"]),
    ("discretionary-ligatures", &[b"dlig"]),
    ("historical-ligatures", &[b"hlig"]),
    ("jis78", &[b"jp78"]),
    ("jis83", &[b"jp83"]),
    ("jis90", &[b"jp90"]),
    ("jis04", &[b"jp04"]),
    ("simplified", &[b"smpl"]),
    ("traditional", &[b"trad"]),
    ("full-width", &[b"fwid"]),
    ("proportional-width", &[b"pwid"]),
    ("ruby", &[b"ruby"]),
    ("sub", &[b"subs"]),
    ("super", &[b"sups"]),
];

/// Adds the layout features a style sheet asks for: the tags `font-feature-settings` names
/// (`"ss01" 1, "salt"`), and those the keywords of `font-variant-*` and `font` turn on.
pub fn add_css_features(css: &str, to: &mut BTreeSet<[u8; 4]>) {
    let lower = css.to_ascii_lowercase();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '-';
    for (at, _) in lower.match_indices("font") {
        if lower[..at].ends_with(ident) {
            continue;
        }
        let name_end = lower[at..]
            .find(|c: char| !ident(c))
            .map_or(lower.len(), |n| at + n);
        let name = &lower[at..name_end];
        let Some(value) = lower[name_end..].trim_start().strip_prefix(':') else {
            continue;
        };
        let value = &value[..value.find([';', '}']).unwrap_or(value.len())];
        if name == "font-feature-settings" {
            for s in css_strings(value) {
                if let Ok(tag) = <[u8; 4]>::try_from(s.as_bytes()) {
                    to.insert(tag);
                }
            }
        } else if name == "font" || name.starts_with("font-variant") {
            for word in value.split(|c: char| !ident(c)) {
                if let Some((_, tags)) = VARIANT_FEATURES.iter().find(|(k, _)| *k == word) {
                    to.extend(tags.iter().map(|t| **t));
                }
            }
        }
    }
}

/// Characters a font keeps whatever the book's text: printable ASCII (list numbers, counters,
/// what a reader's own UI or a user's search shows in the book's font) and the few a reader
/// inserts on its own: the no-break space, hyphens for hyphenation, quotes for `<q>`, an
/// ellipsis for cut text, bullets for lists, the ideographic space and Japanese quotes.
pub fn always_kept() -> impl Iterator<Item = char> {
    const EXTRA: &str = "\u{00A0}\u{00AD}\u{2010}\u{2011}\u{2013}\u{2014}\u{2018}\u{2019}\u{201C}\u{201D}\u{2022}\u{2026}\u{25E6}\u{25AA}\u{3000}\u{3001}\u{3002}\u{300C}\u{300D}\u{300E}\u{300F}";
    (' '..='~').chain(EXTRA.chars())
}

/// Adds the characters an XHTML (or SVG) page shows: its text, with entities and character
/// references read, and both cases of each letter (CSS `text-transform` and small caps draw
/// the other case). Markup, comments and attributes show nothing.
pub fn add_page_text(xml: &str, to: &mut BTreeSet<char>) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Text(t)) => {
                let raw: &str = &t;
                add_with_cases(raw, to);
            }
            Ok(Event::GeneralRef(r)) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    add_with_cases(c.encode_utf8(&mut [0; 4]), to);
                } else if let Some(s) = quick_xml::escape::resolve_predefined_entity({
                    let name: &str = &r;
                    name
                }) {
                    add_with_cases(s, to);
                }
            }
            Ok(Event::CData(t)) => {
                let raw: &str = &t;
                add_with_cases(raw, to);
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

/// Adds the characters a style sheet's `content:` and `quotes:` strings show (CSS escapes
/// such as `\201C` read).
pub fn add_css_strings(css: &str, to: &mut BTreeSet<char>) {
    let lower = css.to_ascii_lowercase();
    for property in ["content", "quotes"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(property) {
            let start = from + at + property.len();
            from = start;
            let rest = css[start..].trim_start();
            let Some(value) = rest.strip_prefix(':') else {
                continue;
            };
            let end = value.find([';', '}']).unwrap_or(value.len());
            for s in css_strings(&value[..end]) {
                add_with_cases(&s, to);
            }
        }
    }
}

fn add_with_cases(text: &str, to: &mut BTreeSet<char>) {
    for c in text.chars().filter(|c| !c.is_control()) {
        to.insert(c);
        if c.is_alphabetic() {
            to.extend(c.to_uppercase().chain(c.to_lowercase()));
        }
    }
}

/// The quoted strings of a CSS value, escapes read.
fn css_strings(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '"' && c != '\'' {
            continue;
        }
        let quote = c;
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                _ if c == quote => break,
                '\\' => {
                    let mut hex = String::new();
                    while hex.len() < 6 && chars.peek().is_some_and(char::is_ascii_hexdigit) {
                        hex.extend(chars.next());
                    }
                    if hex.is_empty() {
                        s.extend(chars.next().filter(|&c| c != '\n'));
                    } else {
                        if chars.peek() == Some(&' ') {
                            chars.next();
                        }
                        s.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                    }
                }
                _ => s.push(c),
            }
        }
        out.push(s);
    }
    out
}

/// A size for people: `812 B`, `84 KiB`, `5.8 MiB`.
pub fn human_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.0} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / KIB / KIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static IPAEX: &[u8] = include_bytes!("../fonts/ipaexg.ttf");

    #[test]
    fn embedding_bits_read_as_the_opentype_spec_says() {
        assert!(Embedding(0x0002).restricted());
        // Preview & print beside restricted: the less restrictive wins.
        assert!(!Embedding(0x0006).restricted());
        assert!(!Embedding(0x0000).restricted());
        assert!(Embedding(0x0200).bitmap_only());
        assert!(Embedding(0x0108).no_subsetting());
        assert!(!Embedding(0x0008).no_subsetting());
        assert_eq!(Format::of(IPAEX), Format::Sfnt);
        assert_eq!(Format::of(b"wOF2...."), Format::Woff2);
        assert_eq!(Format::of(b"ttcf...."), Format::Other);
        // IPAexGothic permits installable embedding.
        assert_eq!(embedding(IPAEX).unwrap(), Some(Embedding(0)));
        assert!(embedding(b"not a font at all").is_err());
    }

    /// A WOFF font made here: the header, one OS/2 table compressed (fsType 0x0002).
    fn woff_with_fs_type(fs_type: u16) -> Vec<u8> {
        use std::io::Write;
        let mut os2 = vec![0u8; 96];
        os2[8..10].copy_from_slice(&fs_type.to_be_bytes());
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&os2).unwrap();
        let packed = z.finish().unwrap();
        let mut w = b"wOFF".to_vec();
        w.extend([0, 1, 0, 0]); // flavor
        w.extend(0u32.to_be_bytes()); // length (unchecked)
        w.extend(1u16.to_be_bytes());
        w.resize(44, 0);
        w.extend(b"OS/2");
        w.extend(64u32.to_be_bytes());
        w.extend((packed.len() as u32).to_be_bytes());
        w.extend((os2.len() as u32).to_be_bytes());
        w.extend(0u32.to_be_bytes());
        w.extend(&packed);
        w
    }

    /// A vertical book's punctuation needs its vertical forms (GSUB `vert`), glyphs no
    /// character maps to: the subset keeps them.
    #[test]
    fn a_subset_keeps_the_vertical_forms_of_its_characters() {
        let chars: BTreeSet<char> = "「」。、ー".chars().collect();
        let out = subset(IPAEX, &chars, &BTreeSet::new()).unwrap();
        let glyphs = FontRef::new(&out).unwrap().maxp().unwrap().num_glyphs();
        // .notdef, the five characters' glyphs and at least one vertical form of each.
        assert!(glyphs >= 11, "{glyphs} glyphs");
    }

    #[test]
    fn a_woff_fonts_permission_is_read_from_its_compressed_os2_table() {
        let woff = woff_with_fs_type(0x0002);
        assert_eq!(Format::of(&woff), Format::Woff);
        assert_eq!(embedding(&woff).unwrap(), Some(Embedding(0x0002)));
        assert!(embedding(&woff[..60]).is_err());
        let mut no_os2 = woff.clone();
        no_os2[44..48].copy_from_slice(b"head");
        assert_eq!(embedding(&no_os2).unwrap(), None);
    }

    #[test]
    fn page_text_and_css_strings_give_the_characters_shown() {
        let mut chars = BTreeSet::new();
        add_page_text(
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>猫</title></head><body class=\"zz\"><p title=\"ignored\">é &amp; &#x201C;<![CDATA[Ω]]><!-- q --></p></body></html>",
            &mut chars,
        );
        let got: String = chars.iter().collect();
        assert_eq!(got, " &ÉéΩω“猫");
        let mut chars = BTreeSet::new();
        add_css_strings(
            "p::before { content: \"\\2192 \" attr(x) '»'; color: red }\nq { QUOTES: \"\\300C\" \"」\" }\n.content-box { x: 'no' }",
            &mut chars,
        );
        let got: String = chars.iter().collect();
        assert_eq!(got, "»→「」");
        let mut tags = BTreeSet::new();
        add_css_features(
            "h1 { font-feature-settings: \"ss01\" 1, 'salt' on; }\np { Font-Feature-Settings: \"toolong\" }\n.a { font-variant-east-asian: jis78 full-width; font: small-caps 1em serif; vertical-align: super }\nruby { myfont-variant: ordinal }",
            &mut tags,
        );
        let want: BTreeSet<[u8; 4]> = [*b"salt", *b"ss01", *b"jp78", *b"fwid", *b"smcp"].into();
        assert_eq!(tags, want);
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(86_016), "84 KiB");
        assert_eq!(human_size(6_099_900), "5.8 MiB");
    }

    #[test]
    fn a_subset_is_small_maps_every_character_and_is_the_same_each_time() {
        let chars: BTreeSet<char> = "製本入門 Hello, 猫。"
            .chars()
            .chain(always_kept())
            .collect();
        let out = subset(IPAEX, &chars, &BTreeSet::new()).unwrap();
        assert!(out.len() < IPAEX.len() / 20, "{} bytes", out.len());
        let font = FontRef::new(&out).unwrap();
        for tag in [
            b"cmap", b"head", b"hhea", b"hmtx", b"maxp", b"name", b"OS/2", b"post",
        ] {
            assert!(font.table_data(Tag::new(tag)).is_some(), "no {tag:?}");
        }
        assert_eq!(
            covered(&out, &chars).unwrap(),
            covered(IPAEX, &chars).unwrap()
        );
        assert!(covered(&out, &"漢".chars().collect()).unwrap().is_empty());
        assert_eq!(subset(IPAEX, &chars, &BTreeSet::new()).unwrap(), out);
        // A feature the book's CSS names keeps its alternates: the subset grows.
        let more = subset(IPAEX, &chars, &[*b"jp78", *b"hwid"].into()).unwrap();
        assert!(
            more.len() > out.len() * 5 / 4,
            "{} / {}",
            more.len(),
            out.len()
        );
    }
}
