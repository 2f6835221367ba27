//! Contrast: WCAG 2.x contrast ratios of CSS colours, which hold the house style sheet and the
//! highlighting palette to AA (4.5:1 for text) in light and dark reading modes.

/// WCAG AA's minimum for body text.
pub const AA_TEXT: f64 = 4.5;

/// The contrast ratio (1 to 21) of two `#rgb`/`#rrggbb` colours; `None` for anything else.
pub fn ratio(a: &str, b: &str) -> Option<f64> {
    let (la, lb) = (luminance(a)?, luminance(b)?);
    let (hi, lo) = if la > lb { (la, lb) } else { (lb, la) };
    Some((hi + 0.05) / (lo + 0.05))
}

/// Relative luminance (WCAG 2.x, sRGB).
fn luminance(colour: &str) -> Option<f64> {
    let hex = colour.strip_prefix('#')?;
    let digits: Vec<u32> = hex.chars().map(|c| c.to_digit(16)).collect::<Option<_>>()?;
    let rgb = match digits.as_slice() {
        [r, g, b] => [r * 17, g * 17, b * 17],
        [r1, r2, g1, g2, b1, b2] => [r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2],
        _ => return None,
    };
    let [r, g, b] = rgb.map(|c| {
        let c = f64::from(c) / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    });
    Some(0.2126 * r + 0.7152 * g + 0.0722 * b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::highlight::CLASSES;

    const HOUSE: &str = include_str!("../../templates/book.css");

    /// The value of `property` in the last rule (the one that wins) of the house style whose
    /// selector list holds `selector`, within the dark-mode block when `dark`.
    fn value<'a>(selector: &str, property: &str, dark: bool) -> &'a str {
        let (light, dark_block) = HOUSE
            .split_once("@media (prefers-color-scheme: dark)")
            .expect("the house style has a dark-mode block");
        let css = if dark { dark_block } else { light };
        let mut found = None;
        for rule in css.split('}') {
            let Some((selectors, body)) = rule.rsplit_once('{') else {
                continue;
            };
            // Past a comment or an enclosing `@media … {`.
            let selectors = selectors.rsplit(['{', '/']).next().unwrap_or(selectors);
            if !selectors.split(',').any(|s| s.trim() == selector) {
                continue;
            }
            for decl in body.split(';') {
                if let Some((p, v)) = decl.split_once(':')
                    && p.trim() == property
                {
                    let v = v.trim();
                    found = Some(v.split_whitespace().next().unwrap_or(v));
                }
            }
        }
        found.unwrap_or_else(|| {
            panic!("no {property} for {selector} in the house style (dark: {dark})")
        })
    }

    #[test]
    fn ratios_are_wcags() {
        assert_eq!(ratio("#000", "#fff").map(|r| r.round()), Some(21.0));
        assert_eq!(ratio("#777777", "#777"), Some(1.0));
        // The figure Ace reported for the old line numbers.
        let old = ratio("#777", "#f6f6f6").unwrap();
        assert!((old - 4.14).abs() < 0.01, "{old}");
        assert_eq!(ratio("red", "#fff"), None);
    }

    #[test]
    fn the_house_style_is_at_aa_contrast_in_light_and_dark_modes() {
        let pre = value("pre.list", "background", false);
        let cmd = value("pre.cmd", "background", false);
        let dark_pre = value("pre.list", "background", true);
        let pairs = [
            ("line numbers", value(".lineno", "color", false), pre),
            ("commands", value("pre.cmd", "color", false), cmd),
            ("links in commands", value("pre.cmd a", "color", false), cmd),
            (
                "line numbers in commands",
                value("pre.cmd .lineno", "color", false),
                cmd,
            ),
            ("table headers", "#000", value("th", "background", false)),
            (
                "shaded text",
                "#000",
                value("span.ami", "background", false),
            ),
            (
                "missing images",
                value("p.missing-image", "color", false),
                "#fff",
            ),
            ("dark listings", value("pre.list", "color", true), dark_pre),
            (
                "dark links in listings",
                value("pre a", "color", true),
                dark_pre,
            ),
            (
                "dark line numbers",
                value(".lineno", "color", true),
                dark_pre,
            ),
            (
                "dark table headers",
                value("th", "color", true),
                value("th", "background", true),
            ),
            (
                "dark shaded text",
                value("span.ami", "color", true),
                value("span.ami", "background", true),
            ),
            (
                "dark missing images",
                value("p.missing-image", "color", true),
                "#121212",
            ),
        ];
        for (what, fg, bg) in pairs {
            let r = ratio(fg, bg).unwrap_or_else(|| panic!("{what}: {fg} on {bg}"));
            assert!(
                r >= AA_TEXT,
                "{what}: {fg} on {bg} is {r:.2}:1, under AA's 4.5:1"
            );
        }
    }

    #[test]
    fn every_highlighting_colour_is_at_aa_contrast_on_its_background() {
        for c in CLASSES {
            for bg in ["#fff", "#f6f6f6"] {
                let r = ratio(c.light, bg).unwrap();
                assert!(r >= AA_TEXT, "{} {} on {bg}: {r:.2}", c.name, c.light);
            }
            for bg in ["#222", "#1e1e1e", "#121212"] {
                let r = ratio(c.dark, bg).unwrap();
                assert!(r >= AA_TEXT, "{} {} on {bg}: {r:.2}", c.name, c.dark);
            }
        }
        // And the style sheet says so.
        let css = crate::highlight::stylesheet();
        assert!(
            css.contains("pre.cmd .hl-string { color: #a5d6a7; }"),
            "{css}"
        );
        assert!(css.contains("@media (prefers-color-scheme: dark)"), "{css}");
    }
}
