//! Colour: CSS colours as WCAG reads them — relative luminance and contrast ratio — and the
//! nearest shade of a colour that reads at a given contrast on a background.

/// WCAG AA's minimum contrast for body text.
pub const AA_TEXT: f64 = 4.5;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// White: the page a reader shows when a style sheet sets no background.
pub const WHITE: Rgb = Rgb(255, 255, 255);

impl Rgb {
    /// `#rgb`, `#rrggbb`, `rgb(r, g, b)` (opaque `rgba`) and the common colour names; `None`
    /// for anything else (variables, `currentColor`, translucent colours), which cannot be
    /// judged on their own.
    pub fn parse(value: &str) -> Option<Rgb> {
        let v = value.trim().to_ascii_lowercase();
        if let Some(hex) = v.strip_prefix('#') {
            let d: Vec<u8> = hex
                .chars()
                .map(|c| c.to_digit(16).map(|d| d as u8))
                .collect::<Option<_>>()?;
            return match d.as_slice() {
                [r, g, b] => Some(Rgb(r * 17, g * 17, b * 17)),
                [r1, r2, g1, g2, b1, b2] => Some(Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
                _ => None,
            };
        }
        if let Some(args) = v
            .strip_prefix("rgba(")
            .or_else(|| v.strip_prefix("rgb("))
            .and_then(|a| a.strip_suffix(')'))
        {
            let parts: Vec<&str> = args
                .split([',', ' ', '/'])
                .filter(|p| !p.is_empty())
                .collect();
            let channel = |p: &str| p.parse::<u8>().ok();
            return match parts.as_slice() {
                [r, g, b] => Some(Rgb(channel(r)?, channel(g)?, channel(b)?)),
                [r, g, b, a] if a.parse::<f64>().ok() == Some(1.0) => {
                    Some(Rgb(channel(r)?, channel(g)?, channel(b)?))
                }
                _ => None,
            };
        }
        NAMED.iter().find(|(name, _)| *name == v).map(|(_, c)| *c)
    }

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// Relative luminance (WCAG 2.x, sRGB).
    pub fn luminance(self) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }

    /// The contrast ratio of two colours, 1 to 21.
    pub fn contrast(self, other: Rgb) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
        (hi + 0.05) / (lo + 0.05)
    }

    /// The shade of this colour nearest to it (same hue, darker on a light background, lighter
    /// on a dark one) that reads at `ratio` on `background`.
    pub fn readable_on(self, background: Rgb, ratio: f64) -> Rgb {
        if self.contrast(background) >= ratio {
            return self;
        }
        let towards = if background.luminance() > 0.18 {
            0.0
        } else {
            255.0
        };
        let mix = |c: u8, t: f64| (f64::from(c) + (towards - f64::from(c)) * t).round() as u8;
        (1..=100)
            .map(|step| {
                let t = f64::from(step) / 100.0;
                Rgb(mix(self.0, t), mix(self.1, t), mix(self.2, t))
            })
            .find(|c| c.contrast(background) >= ratio)
            .unwrap_or(if towards == 0.0 { Rgb(0, 0, 0) } else { WHITE })
    }
}

/// The contrast ratio of two CSS colours; `None` when one cannot be read.
pub fn ratio(a: &str, b: &str) -> Option<f64> {
    Some(Rgb::parse(a)?.contrast(Rgb::parse(b)?))
}

/// The colour names style sheets use most (CSS Color 4).
const NAMED: &[(&str, Rgb)] = &[
    ("black", Rgb(0, 0, 0)),
    ("white", Rgb(255, 255, 255)),
    ("gray", Rgb(128, 128, 128)),
    ("grey", Rgb(128, 128, 128)),
    ("darkgray", Rgb(169, 169, 169)),
    ("darkgrey", Rgb(169, 169, 169)),
    ("dimgray", Rgb(105, 105, 105)),
    ("dimgrey", Rgb(105, 105, 105)),
    ("lightgray", Rgb(211, 211, 211)),
    ("lightgrey", Rgb(211, 211, 211)),
    ("silver", Rgb(192, 192, 192)),
    ("gainsboro", Rgb(220, 220, 220)),
    ("whitesmoke", Rgb(245, 245, 245)),
    ("slategray", Rgb(112, 128, 144)),
    ("lightslategray", Rgb(119, 136, 153)),
    ("red", Rgb(255, 0, 0)),
    ("maroon", Rgb(128, 0, 0)),
    ("orange", Rgb(255, 165, 0)),
    ("yellow", Rgb(255, 255, 0)),
    ("olive", Rgb(128, 128, 0)),
    ("lime", Rgb(0, 255, 0)),
    ("green", Rgb(0, 128, 0)),
    ("aqua", Rgb(0, 255, 255)),
    ("cyan", Rgb(0, 255, 255)),
    ("teal", Rgb(0, 128, 128)),
    ("blue", Rgb(0, 0, 255)),
    ("navy", Rgb(0, 0, 128)),
    ("fuchsia", Rgb(255, 0, 255)),
    ("magenta", Rgb(255, 0, 255)),
    ("purple", Rgb(128, 0, 128)),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_ratios_are_as_wcag_reads_them() {
        assert_eq!(ratio("#000", "#fff").map(f64::round), Some(21.0));
        assert_eq!(ratio("#777777", "#777"), Some(1.0));
        // The figures Ace reported: old line numbers, a book's grey captions.
        assert!((ratio("#777", "#f6f6f6").unwrap() - 4.14).abs() < 0.01);
        assert!((ratio("gray", "white").unwrap() - 3.95).abs() < 0.01);
        assert_eq!(Rgb::parse("rgb(128, 0, 0)"), Some(Rgb(128, 0, 0)));
        assert_eq!(Rgb::parse("rgba(0,0,0,0.5)"), None);
        assert_eq!(Rgb::parse("var(--ink)"), None);
    }

    #[test]
    fn the_nearest_readable_shade_keeps_the_hue() {
        let grey = Rgb::parse("gray").unwrap();
        let fixed = grey.readable_on(WHITE, AA_TEXT);
        assert!(fixed.contrast(WHITE) >= AA_TEXT);
        assert!(fixed.contrast(WHITE) < 4.7, "{}", fixed.hex());
        assert_eq!(
            (fixed.0, fixed.0),
            (fixed.1, fixed.2),
            "still a grey: {}",
            fixed.hex()
        );
        // Light on dark is made lighter.
        let dark = Rgb(0x22, 0x22, 0x22);
        let light = Rgb(0x66, 0x66, 0x66).readable_on(dark, AA_TEXT);
        assert!(light.luminance() > Rgb(0x66, 0x66, 0x66).luminance());
        assert!(light.contrast(dark) >= AA_TEXT);
        // What already reads is left alone.
        assert_eq!(Rgb(0, 0, 0).readable_on(WHITE, AA_TEXT), Rgb(0, 0, 0));
    }
}
