//! The cover's PNG, written here rather than by an encoder that works row after row: the image
//! is cut into a few parts of whole bands, and each part is drawn, filtered and compressed on
//! a thread of its own as a piece of the one zlib stream PNG holds (every piece but the last
//! ends in a sync flush, at a byte boundary, so the pieces follow each other as they are). A
//! cover then takes about the time of one part: on a small book it was what the build waited
//! for. The cut depends on the image's size only, never on the number of cores, so that a
//! cover is the same bytes on every machine.
use flate2::{Compress, Compression, FlushCompress, Status};
use rayon::prelude::*;

use super::CoverError;

/// Parts of the image compressed side by side.
const PARTS: u32 = 4;

/// zlib's level 6, its default: level 9 took eight times as long for 4% less.
const LEVEL: u32 = 6;

/// The colour channels a cover's PNG has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Channels {
    /// Red, green and blue: only for a cover with no pixel that is not fully opaque.
    Rgb,
    /// With alpha, not premultiplied.
    Rgba,
}

impl Channels {
    fn bytes_per_pixel(self) -> usize {
        match self {
            Channels::Rgb => 3,
            Channels::Rgba => 4,
        }
    }

    /// The PNG colour type.
    fn colour_type(self) -> u8 {
        match self {
            Channels::Rgb => 2,
            Channels::Rgba => 6,
        }
    }
}

/// What the image is made of: `draw(scratch, top, rows, pixels)` puts rows `top..top + rows`
/// into `pixels` in the layout of `channels`, and says `false` when the rows cannot be given
/// so (a pixel that is not opaque, for RGB). Each part keeps its own `scratch` from band to
/// band (a drawing surface made once, not once a band).
pub(super) trait Draw: Sync {
    type Scratch: Default;

    fn draw(
        &self,
        scratch: &mut Self::Scratch,
        top: u32,
        rows: u32,
        pixels: &mut Vec<u8>,
    ) -> Result<bool, CoverError>;
}

/// The image as PNG, drawn `band_rows` rows at a time; `None` when a band could not be drawn
/// with `channels`.
pub(super) fn png(
    (width, height): (u32, u32),
    band_rows: u32,
    channels: Channels,
    draw: &impl Draw,
) -> Result<Option<Vec<u8>>, CoverError> {
    let band_rows = band_rows.max(1);
    let bands = height.div_ceil(band_rows);
    let parts = PARTS.min(bands);
    let cut = |i: u32| i * bands / parts;
    let made: Vec<Option<Part>> = (0..parts)
        .into_par_iter()
        .map(|i| {
            let last = i + 1 == parts;
            let rows = cut(i) * band_rows..(cut(i + 1) * band_rows).min(height);
            part((width, rows), band_rows, channels, last, draw)
        })
        .collect::<Result<_, _>>()?;
    let Some(made) = made.into_iter().collect::<Option<Vec<Part>>>() else {
        return Ok(None);
    };
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    // 8 bits a channel, deflate, adaptive filtering (per row), no interlacing.
    header.extend_from_slice(&[8, channels.colour_type(), 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    let adler = made
        .iter()
        .fold(1, |sum, p| adler32_combine(sum, p.adler, p.len));
    let count = made.len();
    for (i, part) in made.into_iter().enumerate() {
        let mut data = Vec::with_capacity(part.deflated.len() + 6);
        if i == 0 {
            // zlib: deflate with a 32 KiB window, default level.
            data.extend_from_slice(&[0x78, 0x9c]);
        }
        data.extend_from_slice(&part.deflated);
        if i + 1 == count {
            data.extend_from_slice(&adler.to_be_bytes());
        }
        chunk(&mut png, b"IDAT", &data);
    }
    chunk(&mut png, b"IEND", &[]);
    Ok(Some(png))
}

/// One part of the image, compressed: a piece of the zlib stream's deflate data, and the
/// Adler-32 and length of what it holds.
struct Part {
    deflated: Vec<u8>,
    adler: u32,
    len: u64,
}

/// Draws, filters and compresses `rows` of the image. Each row is filtered "up" (by the row
/// above, which is good and quick on covers), but the part's first row, which is filtered by
/// nothing: the row above belongs to another part.
fn part<D: Draw>(
    (width, rows): (u32, std::ops::Range<u32>),
    band_rows: u32,
    channels: Channels,
    last: bool,
    draw: &D,
) -> Result<Option<Part>, CoverError> {
    let row_bytes = width as usize * channels.bytes_per_pixel();
    let mut z = Compress::new(Compression::new(LEVEL), false);
    let mut deflated = Vec::new();
    let mut adler = simd_adler32::Adler32::new();
    let mut len = 0u64;
    let (mut pixels, mut above, mut filtered) = (Vec::new(), Vec::new(), Vec::new());
    let mut scratch = D::Scratch::default();
    let mut top = rows.start;
    while top < rows.end {
        let count = band_rows.min(rows.end - top);
        if !draw.draw(&mut scratch, top, count, &mut pixels)? {
            return Ok(None);
        }
        if pixels.len() != row_bytes * count as usize {
            return Err(CoverError::Render(
                "a band came out of the wrong size".to_owned(),
            ));
        }
        filtered.clear();
        for row in pixels.chunks_exact(row_bytes) {
            if above.is_empty() {
                filtered.push(0);
                filtered.extend_from_slice(row);
            } else {
                filtered.push(2);
                let at = filtered.len();
                filtered.resize(at + row_bytes, 0);
                for ((to, now), before) in filtered[at..].iter_mut().zip(row).zip(&above) {
                    *to = now.wrapping_sub(*before);
                }
            }
            above.clear();
            above.extend_from_slice(row);
        }
        adler.write(&filtered);
        len += filtered.len() as u64;
        deflate(&mut z, &filtered, &mut deflated, FlushCompress::None)?;
        top += count;
    }
    let end = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    deflate(&mut z, &[], &mut deflated, end)?;
    Ok(Some(Part {
        deflated,
        adler: adler.finish(),
        len,
    }))
}

/// Compresses `input` onto `out`, then flushes as `flush` says.
fn deflate(
    z: &mut Compress,
    mut input: &[u8],
    out: &mut Vec<u8>,
    flush: FlushCompress,
) -> Result<(), CoverError> {
    let failed = |e: flate2::CompressError| CoverError::Render(format!("PNG encoding failed: {e}"));
    loop {
        out.reserve(64 * 1024);
        let room = out.capacity() - out.len();
        let (read, wrote) = (z.total_in(), out.len());
        let status = z.compress_vec(input, out, flush).map_err(failed)?;
        input = &input[(z.total_in() - read) as usize..];
        let filled = out.len() - wrote == room;
        let done = match flush {
            FlushCompress::Finish => status == Status::StreamEnd,
            FlushCompress::None => input.is_empty(),
            _ => input.is_empty() && !filled,
        };
        if done {
            return Ok(());
        }
    }
}

/// A PNG chunk: length, type, data, and the CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.finalize().to_be_bytes());
}

/// The Adler-32 of `a`'s data followed by `b`'s (`len` bytes), from the two sums: the low
/// half adds up the bytes, the high half the low half after every byte.
fn adler32_combine(a: u32, b: u32, len: u64) -> u32 {
    const MOD: u64 = 65521;
    let (a_low, a_high) = (u64::from(a & 0xffff), u64::from(a >> 16));
    let (b_low, b_high) = (u64::from(b & 0xffff), u64::from(b >> 16));
    // Both low halves start at 1; `b`'s bytes each add `a`'s sum to the high half.
    let low = (a_low + b_low + MOD - 1) % MOD;
    let high = (a_high + b_high + (len % MOD) * ((a_low + MOD - 1) % MOD)) % MOD;
    ((high << 16) | low) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adler(data: &[u8]) -> u32 {
        let mut a = simd_adler32::Adler32::new();
        a.write(data);
        a.finish()
    }

    #[test]
    fn adler_sums_combine_as_one_over_both() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        for cut in [0, 1, 5551, 5552, 100_000, 199_999, 200_000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(
                adler32_combine(adler(a), adler(b), b.len() as u64),
                adler(&data),
                "cut at {cut}"
            );
        }
    }

    /// A test pattern: every pixel's bytes from its place, so that a row out of place or a
    /// filter applied wrongly shows. From row `opaque_rows` on, pixels are not opaque.
    struct Pattern {
        width: u32,
        channels: Channels,
        opaque_rows: u32,
    }

    impl Draw for Pattern {
        type Scratch = ();

        fn draw(
            &self,
            _: &mut (),
            top: u32,
            rows: u32,
            pixels: &mut Vec<u8>,
        ) -> Result<bool, CoverError> {
            pixels.clear();
            for y in top..top + rows {
                for x in 0..self.width {
                    let alpha = if y < self.opaque_rows {
                        255
                    } else {
                        255 - (y % 7) as u8
                    };
                    let px = [(x * 3 + y) as u8, (y * 5) as u8, (x ^ y) as u8, alpha];
                    pixels.extend_from_slice(&px[..self.channels.bytes_per_pixel()]);
                }
            }
            Ok(self.channels == Channels::Rgba || top + rows <= self.opaque_rows)
        }
    }

    /// The PNG's chunks, each checked against its CRC.
    fn chunks(png: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let mut found = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let kind: [u8; 4] = png[at + 4..at + 8].try_into().unwrap();
            let data = png[at + 8..at + 8 + len].to_vec();
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            let mut h = crc32fast::Hasher::new();
            h.update(&kind);
            h.update(&data);
            assert_eq!(
                h.finalize(),
                crc,
                "CRC of {}",
                String::from_utf8_lossy(&kind)
            );
            found.push((kind, data));
            at += 12 + len;
        }
        found
    }

    #[test]
    fn parts_make_one_zlib_stream_whose_rows_give_back_the_pixels() {
        for (width, height, band_rows) in [(37, 101, 8), (600, 800, 128), (5, 3, 128), (64, 64, 1)]
        {
            for channels in [Channels::Rgb, Channels::Rgba] {
                let draw = Pattern {
                    width,
                    channels,
                    opaque_rows: u32::MAX,
                };
                let png = png((width, height), band_rows, channels, &draw)
                    .unwrap()
                    .unwrap();
                let chunks = chunks(&png);
                assert_eq!(&chunks[0].0, b"IHDR");
                assert_eq!(chunks[0].1[9], channels.colour_type());
                assert_eq!(&chunks.last().unwrap().0, b"IEND");
                let stream: Vec<u8> = (chunks.iter())
                    .filter(|(k, _)| k == b"IDAT")
                    .flat_map(|(_, d)| d.clone())
                    .collect();
                // A strict inflater: it checks the stream's Adler-32 at its end.
                let mut raw = Vec::new();
                std::io::Read::read_to_end(
                    &mut flate2::read::ZlibDecoder::new(&stream[..]),
                    &mut raw,
                )
                .unwrap_or_else(|e| panic!("{width}×{height}, {channels:?}: {e}"));
                let row_bytes = width as usize * channels.bytes_per_pixel();
                assert_eq!(raw.len(), height as usize * (row_bytes + 1));
                // Undo the filters and compare with the pattern.
                let mut expected = Vec::new();
                draw.draw(&mut (), 0, height, &mut expected).unwrap();
                let mut above = vec![0u8; row_bytes];
                for (y, row) in raw.chunks_exact(row_bytes + 1).enumerate() {
                    let pixels: Vec<u8> = match row[0] {
                        0 => row[1..].to_vec(),
                        2 => row[1..]
                            .iter()
                            .zip(&above)
                            .map(|(f, a)| f.wrapping_add(*a))
                            .collect(),
                        other => panic!("filter {other} on row {y}"),
                    };
                    assert_eq!(
                        pixels,
                        expected[y * row_bytes..(y + 1) * row_bytes],
                        "row {y}"
                    );
                    above = pixels;
                }
                // And a PNG decoder reads it as the same image.
                let mut reader = ::png::Decoder::new(std::io::Cursor::new(&png))
                    .read_info()
                    .unwrap();
                let mut buf = vec![0; reader.output_buffer_size().unwrap()];
                reader.next_frame(&mut buf).unwrap();
                assert_eq!(buf, expected, "{width}×{height}, {channels:?}");
            }
        }
    }

    #[test]
    fn a_band_that_cannot_be_drawn_gives_no_image() {
        let draw = Pattern {
            width: 10,
            channels: Channels::Rgb,
            opaque_rows: 50,
        };
        assert_eq!(png((10, 100), 10, Channels::Rgb, &draw).unwrap(), None);
    }
}
