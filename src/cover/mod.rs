//! Generated cover images.
//!
//! When a book's metadata names no cover image, seihon renders `templates/cover.svg` with Tera and
//! rasterizes the result here with resvg. Text is drawn only with the embedded, pinned IPAexGothic
//! font (no system font lookup), so the PNG is byte-identical on every machine and Japanese titles
//! always have glyphs.

use std::fmt;
use std::sync::{Arc, OnceLock};

mod encode;

use encode::Channels;
use resvg::tiny_skia;
use resvg::usvg;
use resvg::usvg::fontdb;

/// The family name of the embedded font; templates must use it in `font-family`. The generic
/// families (serif, sans-serif, monospace, cursive, fantasy) also resolve to it.
pub const COVER_FONT_FAMILY: &str = "IPAexGothic";

/// IPAexGothic, see `fonts/README.md` for provenance and licence.
static COVER_FONT: &[u8] = include_bytes!("../../fonts/ipaexg.ttf");

/// Rows of the cover drawn at a time (a 1600-pixel-wide band of 128 rows is 800 KB).
const BAND_ROWS: u32 = 128;

/// Largest accepted width or height in pixels; keeps a bad template from allocating gigabytes.
const MAX_SIDE: u32 = 4000;

/// A rasterized cover.
#[derive(Debug)]
pub struct RenderedCover {
    /// PNG-encoded image: RGB when every pixel is opaque, else RGBA.
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Why a cover could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoverError {
    /// The SVG could not be parsed or has an unusable size.
    Svg(String),
    /// Rasterizing or PNG encoding failed.
    Render(String),
}

impl fmt::Display for CoverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoverError::Svg(msg) => write!(f, "the generated cover SVG is not usable: {msg}"),
            CoverError::Render(msg) => write!(f, "could not draw the cover image: {msg}"),
        }
    }
}

impl std::error::Error for CoverError {}

/// The font database shared by all renders: only the embedded font, generics mapped to it.
fn font_database() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        // The embedded bytes themselves, not a 6 MB copy of them.
        db.load_font_source(fontdb::Source::Binary(Arc::new(COVER_FONT)));
        db.set_serif_family(COVER_FONT_FAMILY);
        db.set_sans_serif_family(COVER_FONT_FAMILY);
        db.set_monospace_family(COVER_FONT_FAMILY);
        db.set_cursive_family(COVER_FONT_FAMILY);
        db.set_fantasy_family(COVER_FONT_FAMILY);
        Arc::new(db)
    })
    .clone()
}

fn options() -> usvg::Options<'static> {
    let mut opt = usvg::Options {
        font_family: COVER_FONT_FAMILY.to_owned(),
        fontdb: font_database(),
        ..usvg::Options::default()
    };
    // Never read files named by `<image href>`: output must not depend on the working directory.
    opt.image_href_resolver.resolve_string = Box::new(|_, _| None);
    opt
}

/// Rasterize an SVG to PNG. The pixel size comes from the SVG's `width`/`height` (or `viewBox`);
/// text is drawn with the embedded font only.
pub fn render_png(svg: &str) -> Result<RenderedCover, CoverError> {
    // resvg is a large third-party parser and renderer; a panic inside it on odd input must
    // become an error rather than abort the book build.
    std::panic::catch_unwind(|| render_png_inner(svg)).unwrap_or_else(|_| {
        Err(CoverError::Render(
            "the SVG renderer failed unexpectedly".to_owned(),
        ))
    })
}

fn render_png_inner(svg: &str) -> Result<RenderedCover, CoverError> {
    render_in_bands(svg, BAND_ROWS)
}

fn render_in_bands(svg: &str, band_rows: u32) -> Result<RenderedCover, CoverError> {
    let xml_options = usvg::roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = usvg::roxmltree::Document::parse_with_options(svg, xml_options)
        .map_err(|e| CoverError::Svg(format!("it is not well-formed XML ({e})")))?;
    let root = doc.root_element();
    // usvg would silently assume 100×100 for a root without any size.
    if root.attribute("viewBox").is_none()
        && (root.attribute("width").is_none() || root.attribute("height").is_none())
    {
        return Err(CoverError::Svg(
            "its svg element has neither a viewBox nor both width and height".to_owned(),
        ));
    }
    let tree =
        usvg::Tree::from_xmltree(&doc, &options()).map_err(|e| CoverError::Svg(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (size.width().ceil(), size.height().ceil());
    // usvg already rejects sizes <= 0; checked again so an empty pixmap is impossible.
    if w < 1.0 || h < 1.0 {
        return Err(CoverError::Svg(format!(
            "its size {w}×{h} is empty; give the svg element a width and height"
        )));
    }
    if w > MAX_SIDE as f32 || h > MAX_SIDE as f32 {
        return Err(CoverError::Svg(format!(
            "its size {w}×{h} is larger than the {MAX_SIDE}×{MAX_SIDE} pixel limit"
        )));
    }
    // Both are whole numbers in 1..=MAX_SIDE here, so the casts are exact.
    let (width, height) = (w as u32, h as u32);
    // Covers are nearly always opaque: without an alpha channel the image takes a quarter
    // less to compress and comes out smaller. One that is not is drawn again with it.
    let png = match encode_bands(&tree, (width, height), band_rows, Channels::Rgb)? {
        Some(png) => png,
        // (With an alpha channel every band can be given: there is no `None`.)
        None => encode_bands(&tree, (width, height), band_rows, Channels::Rgba)?
            .ok_or_else(|| CoverError::Render("PNG encoding failed".to_owned()))?,
    };
    Ok(RenderedCover { png, width, height })
}

/// The cover drawn a band of rows at a time (the whole image at once was 16 MB, the largest
/// thing a cold build held) and encoded with `channels`; `None` when asked for RGB and a pixel
/// is not opaque.
fn encode_bands(
    tree: &usvg::Tree,
    (width, height): (u32, u32),
    band_rows: u32,
    channels: Channels,
) -> Result<Option<Vec<u8>>, CoverError> {
    let bands = Bands {
        tree,
        width,
        channels,
    };
    encode::png((width, height), band_rows, channels, &bands)
}

/// The cover's pixels, drawn a band of rows at a time.
struct Bands<'a> {
    tree: &'a usvg::Tree,
    width: u32,
    channels: Channels,
}

impl encode::Draw for Bands<'_> {
    /// One surface a part, cleared for each band.
    type Scratch = Option<tiny_skia::Pixmap>;

    fn draw(
        &self,
        surface: &mut Self::Scratch,
        top: u32,
        rows: u32,
        pixels: &mut Vec<u8>,
    ) -> Result<bool, CoverError> {
        let width = self.width;
        let band = match surface {
            Some(band) if band.height() == rows => {
                band.fill(tiny_skia::Color::TRANSPARENT);
                band
            }
            _ => surface.insert(tiny_skia::Pixmap::new(width, rows).ok_or_else(|| {
                CoverError::Render(format!("cannot allocate a {width}×{rows} image"))
            })?),
        };
        resvg::render(
            self.tree,
            tiny_skia::Transform::from_translate(0.0, -(top as f32)),
            &mut band.as_mut(),
        );
        Ok(match self.channels {
            // Opaque pixels are the same premultiplied or not: the alpha byte just goes.
            Channels::Rgb => without_alpha(band.data(), pixels),
            Channels::Rgba => {
                pixels.clear();
                pixels.extend(band.pixels().iter().flat_map(|p| {
                    let c = p.demultiply();
                    [c.red(), c.green(), c.blue(), c.alpha()]
                }));
                true
            }
        })
    }
}

/// RGBA `data` as RGB in `rgb`, four pixels (three words) at a time; `false` when a pixel is
/// not fully opaque (then `rgb` is of no use). Words, not bytes: the loop is then a few
/// instructions a pixel.
fn without_alpha(data: &[u8], rgb: &mut Vec<u8>) -> bool {
    rgb.resize(data.len() / 4 * 3, 0);
    let word = |p: &[u8]| u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
    let (fours, rest) = data.split_at(data.len() / 16 * 16);
    let (twelves, rest_rgb) = rgb.split_at_mut(fours.len() / 4 * 3);
    let mut all = u32::MAX;
    for (to, four) in twelves.chunks_exact_mut(12).zip(fours.chunks_exact(16)) {
        let (a, b, c, d) = (
            word(&four[0..]),
            word(&four[4..]),
            word(&four[8..]),
            word(&four[12..]),
        );
        all &= a & b & c & d;
        to[0..4].copy_from_slice(&((a & 0xff_ffff) | (b << 24)).to_le_bytes());
        to[4..8].copy_from_slice(&(((b >> 8) & 0xffff) | (c << 16)).to_le_bytes());
        to[8..12].copy_from_slice(&(((c >> 16) & 0xff) | (d << 8)).to_le_bytes());
    }
    for (to, p) in rest_rgb.chunks_exact_mut(3).zip(rest.chunks_exact(4)) {
        all &= word(p);
        to.copy_from_slice(&p[..3]);
    }
    all >> 24 == 0xff
}

/// Break `text` into lines for SVG `<text>` elements, which do not wrap.
///
/// `max_em` is the line length in ems: a full-width character (CJK ideographs, kana, Hangul,
/// full-width forms) counts 1, anything else 0.5. Lines break preferably at spaces between Latin
/// words and anywhere next to a full-width character, except that closing punctuation (`。」ー！`,
/// `,.!?)` …) never starts a line and opening brackets (`「（`, `([{` …) never end one (simple
/// kinsoku). A word longer than a whole line is split. `'\n'` forces a break.
///
/// Lines are trimmed and blank lines dropped, so text with no visible characters (including
/// `""`) gives an **empty vec**; any other text gives at least one line.
pub fn wrap_lines(text: &str, max_em: f32) -> Vec<String> {
    // NaN would make every width comparison false; treat it as "no limit".
    let max_em = if max_em.is_nan() {
        f32::INFINITY
    } else {
        max_em
    };
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let chars: Vec<char> = paragraph.trim().chars().collect();
        if !chars.is_empty() {
            wrap_paragraph(&chars, max_em, &mut lines);
        }
    }
    lines
}

/// Greedy line filling over unbreakable segments of a trimmed, non-empty paragraph.
fn wrap_paragraph(chars: &[char], max_em: f32, lines: &mut Vec<String>) {
    let mut line = String::new();
    let mut line_em = 0.0_f32; // includes trailing spaces, which vanish if the line breaks there
    for seg in segments(chars) {
        let ink = seg.trim_end();
        let ink_em = em_width(ink);
        if !line.is_empty() && line_em + ink_em > max_em {
            push_line(lines, &mut line);
        }
        if line.is_empty() && ink_em > max_em {
            // Too long for any line: split it hard, keep the last piece open for what follows.
            let mut pieces = split_hard(ink, max_em);
            let last = pieces.pop().unwrap_or_default();
            for piece in pieces {
                lines.push(piece);
            }
            line = last;
            line.push_str(&seg[ink.len()..]);
        } else {
            line.push_str(&seg);
        }
        line_em = em_width(&line);
    }
    push_line(lines, &mut line);
}

fn push_line(lines: &mut Vec<String>, line: &mut String) {
    let trimmed = line.trim_end();
    if !trimmed.is_empty() {
        lines.push(trimmed.to_owned());
    }
    line.clear();
}

/// Split a paragraph at every allowed break; each segment keeps its trailing whitespace.
fn segments(chars: &[char]) -> Vec<String> {
    let mut segs = Vec::new();
    let mut current = String::new();
    // Last non-space character, for "no opening bracket at line end" across spaces.
    let mut last_ink: Option<char> = None;
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && can_break_before(chars[i - 1], c, last_ink) {
            segs.push(std::mem::take(&mut current));
        }
        current.push(c);
        if !c.is_whitespace() {
            last_ink = Some(c);
        }
    }
    if !current.is_empty() {
        segs.push(current);
    }
    segs
}

/// Whether a line may end between `prev` and `c`. `last_ink` is the last non-space character
/// before `c`.
fn can_break_before(prev: char, c: char, last_ink: Option<char>) -> bool {
    if c.is_whitespace() || is_combining(c) || prev == '\u{200D}' {
        return false;
    }
    if is_closing(c) || last_ink.is_some_and(is_opening) {
        return false;
    }
    prev.is_whitespace() || is_wide(prev) || is_wide(c)
}

/// Split an over-long word into pieces of at most `max_em` (at least one character each).
/// Closing punctuation and combining marks stay with the preceding piece even if it overflows.
fn split_hard(word: &str, max_em: f32) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut piece_em = 0.0_f32;
    for c in word.chars() {
        let w = char_em(c);
        let glued = is_closing(c) || is_combining(c) || piece.ends_with('\u{200D}');
        if !piece.is_empty() && !glued && piece_em + w > max_em {
            pieces.push(std::mem::take(&mut piece));
            piece_em = 0.0;
        }
        piece.push(c);
        piece_em += w;
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

fn em_width(s: &str) -> f32 {
    s.chars().map(char_em).sum()
}

fn char_em(c: char) -> f32 {
    if is_combining(c) {
        0.0
    } else if is_wide(c) {
        1.0
    } else {
        0.5
    }
}

/// East Asian Wide/Fullwidth, approximated by the blocks a book title realistically uses.
fn is_wide(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{115F}'     // Hangul Jamo initials
        | '\u{2E80}'..='\u{303E}'   // CJK radicals, ideographic description, CJK symbols/punct.
        | '\u{3041}'..='\u{33FF}'   // kana, bopomofo, Hangul compat., kanbun, CJK compatibility
        | '\u{3400}'..='\u{4DBF}'   // CJK Extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK Unified Ideographs
        | '\u{A000}'..='\u{A4CF}'   // Yi
        | '\u{AC00}'..='\u{D7A3}'   // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FE30}'..='\u{FE4F}'   // CJK compatibility forms
        | '\u{FF00}'..='\u{FF60}'   // full-width forms
        | '\u{FFE0}'..='\u{FFE6}'   // full-width signs
        | '\u{1F300}'..='\u{1F64F}' // pictographs and emoji
        | '\u{20000}'..='\u{3FFFD}' // CJK Extensions B and later
    )
}

/// Marks that attach to the preceding character (never a line start, zero width).
fn is_combining(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{200C}'..='\u{200D}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{3099}'..='\u{309A}'   // combining (han)dakuten
        | '\u{FE00}'..='\u{FE0F}'   // variation selectors
        | '\u{FE20}'..='\u{FE2F}'
        | '\u{E0100}'..='\u{E01EF}' // ideographic variation selectors
    )
}

/// Characters that must not start a line.
fn is_closing(c: char) -> bool {
    "、。，．・：；」』）｝〕〉》】］〙〗〟’”ー…‥ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ！？々ゝゞヽヾ,.;:!?)]}"
        .contains(c)
}

/// Characters that must not end a line.
fn is_opening(c: char) -> bool {
    "「『（｛〔〈《【［〘〖〝‘“([{".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoded pixels, as RGBA whatever the PNG's channels.
    struct Image {
        width: u32,
        height: u32,
        rgba: Vec<u8>,
        /// Whether the PNG has an alpha channel.
        alpha: bool,
    }

    impl Image {
        /// Pixels in the rectangle `[x0, x1) × [y0, y1)` close to `rgb`.
        fn count(&self, (x0, y0, x1, y1): (u32, u32, u32, u32), rgb: [u8; 3]) -> usize {
            let mut n = 0;
            for y in y0..y1.min(self.height) {
                for x in x0..x1.min(self.width) {
                    let i = ((y * self.width + x) * 4) as usize;
                    let px = &self.rgba[i..i + 3];
                    if px.iter().zip(rgb).all(|(&a, b)| a.abs_diff(b) <= 16) {
                        n += 1;
                    }
                }
            }
            n
        }
    }

    fn decode(png_bytes: &[u8]) -> Image {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().expect("PNG header");
        let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
        let info = reader.next_frame(&mut buf).expect("PNG frame");
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        buf.truncate(info.buffer_size());
        let (rgba, alpha) = match info.color_type {
            png::ColorType::Rgba => (buf, true),
            png::ColorType::Rgb => (
                buf.chunks_exact(3)
                    .flat_map(|p| [p[0], p[1], p[2], u8::MAX])
                    .collect(),
                false,
            ),
            other => panic!("a cover PNG of colour type {other:?}"),
        };
        Image {
            width: info.width,
            height: info.height,
            rgba,
            alpha,
        }
    }

    const WHITE: [u8; 3] = [255, 255, 255];
    /// Where the 60 px title of [`title_svg`] is drawn (7 em centred at x = 300, baseline 200).
    const TITLE_AREA: (u32, u32, u32, u32) = (60, 130, 540, 220);

    /// A 600×800 cover with a white title on a dark background (or no title).
    fn title_svg(title: &str) -> String {
        let text = if title.is_empty() {
            String::new()
        } else {
            format!(
                r##"<text x="300" y="200" font-family="{COVER_FONT_FAMILY}" font-size="60" text-anchor="middle" fill="#ffffff">{title}</text>"##
            )
        };
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800" viewBox="0 0 600 800"><rect width="600" height="800" fill="#1d2b3a"/>{text}</svg>"##
        )
    }

    #[test]
    fn japanese_title_renders_glyphs() {
        let cover = render_png(&title_svg("吾輩は猫である")).unwrap();
        assert_eq!((cover.width, cover.height), (600, 800));
        let image = decode(&cover.png);
        assert_eq!((image.width, image.height), (600, 800));
        let text_pixels = image.count(TITLE_AREA, WHITE);
        assert!(text_pixels > 2000, "only {text_pixels} white pixels");

        let blank = decode(&render_png(&title_svg("")).unwrap().png);
        assert_eq!(blank.count(TITLE_AREA, WHITE), 0);
        // Background untouched outside the text.
        assert_eq!(
            image.count((0, 300, 600, 800), [0x1d, 0x2b, 0x3a]),
            600 * 500
        );
    }

    #[test]
    fn different_kanji_draw_different_glyphs() {
        // Missing glyphs would all draw the same .notdef box.
        let a = decode(&render_png(&title_svg("吾輩")).unwrap().png);
        let b = decode(&render_png(&title_svg("猫猫")).unwrap().png);
        assert!(a.count(TITLE_AREA, WHITE) > 0);
        assert_ne!(a.rgba, b.rgba);
    }

    #[test]
    fn latin_title_and_generic_family_render() {
        let svg = title_svg("The Cat").replace(COVER_FONT_FAMILY, "serif");
        let image = decode(&render_png(&svg).unwrap().png);
        assert!(image.count(TITLE_AREA, WHITE) > 500);
    }

    #[test]
    fn unknown_family_and_no_family_fall_back_to_embedded_font() {
        for family in ["font-family=\"Comic Sans MS\"", ""] {
            let svg =
                title_svg("猫").replace(&format!("font-family=\"{COVER_FONT_FAMILY}\""), family);
            let image = decode(&render_png(&svg).unwrap().png);
            assert!(image.count(TITLE_AREA, WHITE) > 300, "{family:?}");
        }
    }

    #[test]
    fn rendering_is_deterministic() {
        let svg = title_svg("吾輩は猫である Rust");
        let a = render_png(&svg).unwrap();
        let b = render_png(&svg).unwrap();
        assert_eq!(a.png, b.png);
    }

    #[test]
    fn drawing_in_bands_gives_the_picture_of_drawing_whole() {
        // The title straddles band edges (rows 128–256 here); so does a gradient.
        let svg = title_svg("吾輩は猫である Rust").replace(
            "</svg>",
            r##"<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f" stop-opacity="0.5"/></linearGradient></defs><circle cx="300" cy="500" r="170" fill="url(#g)"/></svg>"##,
        );
        let whole = decode(&render_in_bands(&svg, MAX_SIDE).unwrap().png);
        for rows in [BAND_ROWS, 500, 799] {
            let banded = decode(&render_in_bands(&svg, rows).unwrap().png);
            assert_eq!((banded.width, banded.height), (600, 800));
            // A shape cut by a band's edge is anti-aliased along its own edges a little
            // differently (tiny-skia clips it first): only edge pixels may differ, slightly.
            let differ: Vec<u8> = banded
                .rgba
                .iter()
                .zip(&whole.rgba)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| a.abs_diff(*b))
                .collect();
            assert!(
                differ.len() < whole.rgba.len() / 200,
                "bands of {rows} rows: {} of {} bytes differ",
                differ.len(),
                whole.rgba.len()
            );
            assert!(
                differ.iter().all(|&d| d <= 64),
                "bands of {rows} rows: {differ:?}"
            );
            assert_eq!(
                banded.count(TITLE_AREA, WHITE),
                whole.count(TITLE_AREA, WHITE),
                "bands of {rows} rows: the title"
            );
        }
    }

    #[test]
    fn an_opaque_cover_has_no_alpha_channel_one_with_transparency_keeps_it() {
        let opaque = decode(&render_png(&title_svg("猫")).unwrap().png);
        assert!(!opaque.alpha);
        assert_eq!(
            opaque.count((0, 300, 600, 800), [0x1d, 0x2b, 0x3a]),
            600 * 500
        );
        // Transparent below the title band, and half transparent in a circle: found in a
        // later band, after earlier bands were written without alpha.
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800"><rect width="600" height="400" fill="#1d2b3a"/><circle cx="300" cy="600" r="100" fill="#ff0000" fill-opacity="0.5"/></svg>"##;
        for rows in [BAND_ROWS, MAX_SIDE] {
            let image = decode(&render_in_bands(svg, rows).unwrap().png);
            assert!(image.alpha, "bands of {rows} rows");
            let at = |x: u32, y: u32| {
                let i = ((y * image.width + x) * 4) as usize;
                image.rgba[i..i + 4].to_vec()
            };
            assert_eq!(at(10, 10), [0x1d, 0x2b, 0x3a, 255]);
            assert_eq!(
                at(10, 700)[3],
                0,
                "bands of {rows} rows: transparent corner"
            );
            let centre = at(300, 600);
            assert_eq!(centre[..3], [255, 0, 0], "demultiplied: {centre:?}");
            assert!(centre[3].abs_diff(128) <= 1, "half opaque: {centre:?}");
        }
    }

    #[test]
    fn pixels_lose_their_alpha_byte_and_nothing_else() {
        // 6 pixels: one group of four, and two left over.
        let rgba: Vec<u8> = (0..24).map(|i| if i % 4 == 3 { 255 } else { i }).collect();
        let mut rgb = vec![9; 2];
        assert!(without_alpha(&rgba, &mut rgb));
        let expected: Vec<u8> = (0..24).filter(|i| i % 4 != 3).collect();
        assert_eq!(rgb, expected);
        // A pixel not quite opaque, in the group of four and among those left over.
        for at in [7, 23] {
            let mut seen = rgba.clone();
            seen[at] = 254;
            assert!(!without_alpha(&seen, &mut rgb), "alpha at {at}");
        }
    }

    #[test]
    fn size_comes_from_view_box_without_width() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20"/></svg>"#;
        let cover = render_png(svg).unwrap();
        assert_eq!((cover.width, cover.height), (30, 20));
    }

    #[test]
    fn bad_sizes_are_svg_errors() {
        for (w, h) in [
            ("0", "0"),
            ("0", "100"),
            ("5000", "100"),
            ("100", "4001"),
            ("1e30", "1e30"),
        ] {
            let svg = format!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="10" height="10"/></svg>"#
            );
            let err = render_png(&svg).unwrap_err();
            assert!(matches!(err, CoverError::Svg(_)), "{w}×{h}: {err:?}");
            assert!(!err.to_string().is_empty());
        }
        // Exactly at the limit is fine.
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="1"/>"#;
        assert_eq!(render_png(svg).unwrap().width, 4000);
    }

    #[test]
    fn malformed_svg_is_an_error() {
        for svg in [
            "",
            "not xml at all",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">",
            "<html><body/></html>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>",
        ] {
            let err = render_png(svg).unwrap_err();
            assert!(matches!(err, CoverError::Svg(_)), "{svg:?}: {err:?}");
        }
    }

    #[test]
    fn hand_filled_template_renders() {
        let cover = render_png(HAND_FILLED_COVER).unwrap();
        assert_eq!((cover.width, cover.height), (1600, 2400));
        let image = decode(&cover.png);
        // Title lines in white on the dark block, creators in dark ink on the light band.
        assert!(image.count((120, 400, 1480, 800), WHITE) > 20_000);
        assert!(image.count((100, 1850, 1500, 1950), [0x1d, 0x2b, 0x3a]) > 2_000);
        // For looking at the design; failing to write it is not a test failure.
        let _ = std::fs::write(std::env::temp_dir().join("cover-test.png"), &cover.png);
    }

    fn template_context(
        title: &[&str],
        subtitle: &[&str],
        creators: &str,
        publisher: &str,
    ) -> tera::Context {
        let mut ctx = tera::Context::new();
        ctx.insert("width", &1600);
        ctx.insert("height", &2400);
        ctx.insert("title_lines", title);
        ctx.insert("subtitle_lines", subtitle);
        ctx.insert("creators", creators);
        ctx.insert("publisher", publisher);
        ctx.insert("font_family", COVER_FONT_FAMILY);
        ctx.insert("vertical", &true);
        ctx
    }

    const TEMPLATE: &str = include_str!("../../templates/cover.svg");

    #[test]
    fn template_matches_hand_filled_copy() {
        let ctx = template_context(
            &["吾輩は", "猫である"],
            &["名前はまだ無い"],
            "夏目漱石 著 / Natsume Sōseki",
            "seihon 文庫",
        );
        let svg = tera::Tera::one_off(TEMPLATE, &ctx, true).unwrap();
        assert_eq!(svg.trim_end(), HAND_FILLED_COVER);
    }

    #[test]
    fn template_renders_edge_cases() {
        let long_creators =
            "Kristina Chodorow, Michael Dirolf, Shannon Bradshaw 著 / 太郎 & 花子 <訳>";
        let many: Vec<&str> = vec!["吾輩は猫である"; 9];
        for ctx in [
            template_context(&[], &[], "", ""),
            template_context(&["Only a title"], &[], "A \"quoted\" <author> & co", ""),
            template_context(&many, &many, long_creators, "出版社"),
        ] {
            let svg = tera::Tera::one_off(TEMPLATE, &ctx, true).unwrap();
            let cover = render_png(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
            assert_eq!((cover.width, cover.height), (1600, 2400));
        }
    }

    /// `templates/cover.svg` filled in by hand for width 1600, height 2400,
    /// title_lines ["吾輩は", "猫である"], subtitle_lines ["名前はまだ無い"],
    /// creators "夏目漱石 著 / Natsume Sōseki", publisher "seihon 文庫".
    const HAND_FILLED_COVER: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="2400" viewBox="0 0 1600 2400" font-family="IPAexGothic">
<rect width="1600" height="2400" fill="#f3eee4"/>
<rect width="1600" height="1600" fill="#1d2b3a"/>
<rect y="1600" width="1600" height="16" fill="#c8a25a"/>
<text x="800" y="563" font-size="160" text-anchor="middle" fill="#ffffff">吾輩は</text>
<text x="800" y="763" font-size="160" text-anchor="middle" fill="#ffffff">猫である</text>
<rect x="680" y="840" width="240" height="6" fill="#c8a25a"/>
<text x="800" y="963" font-size="80" text-anchor="middle" fill="#e7dcc6">名前はまだ無い</text>
<text x="800" y="1920" font-size="72" text-anchor="middle" fill="#1d2b3a">夏目漱石 著 / Natsume Sōseki</text>
<text x="800" y="2240" font-size="57" text-anchor="middle" fill="#5b6470">seihon 文庫</text>
</svg>"##;

    #[test]
    fn wraps_cjk_at_em_budget() {
        let lines = wrap_lines("吾輩は猫である。名前はまだ無い。", 8.0);
        assert_eq!(lines, ["吾輩は猫である。", "名前はまだ無い。"]);
        for line in wrap_lines("あいうえおかきくけこさしすせそ", 4.0) {
            assert!(em_width(&line) <= 4.0, "{line}");
        }
    }

    #[test]
    fn closing_punctuation_never_starts_a_line() {
        // At 7 em the natural break would put 。 first; it must pull る along instead.
        let lines = wrap_lines("吾輩は猫である。名前はまだ無い。", 7.0);
        assert_eq!(lines[0], "吾輩は猫であ");
        for budget in [2.0, 3.0, 4.0, 5.0, 6.0, 7.0] {
            for line in wrap_lines("「吾輩は猫である」と、彼は言った。「ほんとうに？」", budget)
            {
                assert!(
                    !line.starts_with(['。', '」', '、', '？']),
                    "{budget}: {line}"
                );
                assert!(!line.ends_with('「'), "{budget}: {line}");
            }
        }
        let lines = wrap_lines("Hello, world (again)!", 5.0);
        for line in &lines {
            assert!(!line.starts_with([',', '!', ')']), "{lines:?}");
            assert!(!line.ends_with('('), "{lines:?}");
        }
    }

    #[test]
    fn latin_words_stay_whole_when_they_fit() {
        let lines = wrap_lines("Scaling MongoDB for the web", 6.0);
        assert_eq!(lines, ["Scaling", "MongoDB for", "the web"]);
        // Mixed: break next to kanji, but not inside the word.
        let lines = wrap_lines("入門MongoDB実践", 4.0);
        assert_eq!(lines, ["入門", "MongoDB", "実践"]);
        // A word longer than a line is split rather than overflowing.
        let lines = wrap_lines("Supercalifragilistic", 4.0);
        assert!(
            lines.len() > 1 && lines.iter().all(|l| em_width(l) <= 4.0),
            "{lines:?}"
        );
        assert_eq!(lines.concat(), "Supercalifragilistic");
    }

    #[test]
    fn newline_forces_a_break() {
        assert_eq!(wrap_lines("吾輩は\n猫である", 20.0), ["吾輩は", "猫である"]);
        assert_eq!(wrap_lines("A\r\nB\n\n", 20.0), ["A", "B"]);
    }

    #[test]
    fn empty_text_gives_no_lines() {
        assert!(wrap_lines("", 8.0).is_empty());
        assert!(wrap_lines(" \n　\n", 8.0).is_empty());
        assert_eq!(wrap_lines("猫", 8.0), ["猫"]);
    }

    #[test]
    fn odd_budgets_do_not_panic_or_lose_text() {
        let text = "吾輩は猫である。Name: none (yet)!";
        for budget in [0.0, -1.0, 0.25, f32::NAN, f32::INFINITY] {
            let lines = wrap_lines(text, budget);
            assert!(!lines.is_empty());
            let joined: String = lines.concat();
            let expected: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            assert_eq!(joined.replace(' ', ""), expected, "{budget}");
        }
        // Combining marks and variation selectors stay with their base character.
        let lines = wrap_lines("か\u{3099}葛\u{E0100}", 1.0);
        assert_eq!(lines, ["か\u{3099}", "葛\u{E0100}"]);
    }
}
