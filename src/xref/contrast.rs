//! Contrast: a text colour of the book's own style sheets that reads under WCAG AA (4.5:1) on
//! its rule's background — white, the reader's page, when the rule sets none — goes into the
//! EPUB as the nearest shade of it that reads, with a warning at its line. The author's design
//! keeps its hue; readers with low vision can read the text (DAISY Ace's `color-contrast`).
use std::path::Path;

use crate::codes;
use crate::colour::{AA_TEXT, Rgb, WHITE};
use crate::error::{Finding, Location};

/// `css` with its unreadable text colours made readable (`None` when none was), and a warning
/// for each.
pub(super) fn legible(css: &str, shown: &Path) -> (Option<String>, Vec<Finding>) {
    let clean = without_comments(css);
    let mut repairs: Vec<(usize, usize, String)> = Vec::new();
    let mut warnings = Vec::new();
    let mut open = Vec::new();
    for (i, b) in clean.bytes().enumerate() {
        match b {
            b'{' => open.push(i),
            b'}' => {
                let Some(start) = open.pop() else { continue };
                let body = &clean[start + 1..i];
                // Only the innermost blocks hold declarations (not `@media … { … }`).
                if !body.contains('{') {
                    rule(css, start + 1, body, shown, &mut repairs, &mut warnings);
                }
            }
            _ => {}
        }
    }
    if repairs.is_empty() {
        return (None, warnings);
    }
    repairs.sort();
    let mut out = String::with_capacity(css.len());
    let mut at = 0;
    for (start, end, colour) in repairs {
        out.push_str(&css[at..start]);
        out.push_str(&colour);
        at = end;
    }
    out.push_str(&css[at..]);
    (Some(out), warnings)
}

/// One rule's declarations (`body`, at byte `offset` of the sheet).
fn rule(
    css: &str,
    offset: usize,
    body: &str,
    shown: &Path,
    repairs: &mut Vec<(usize, usize, String)>,
    warnings: &mut Vec<Finding>,
) {
    let mut colours = Vec::new();
    let mut background = Some(WHITE);
    let mut at = offset;
    for decl in body.split(';') {
        let here = at;
        at += decl.len() + 1;
        let Some((property, value)) = decl.split_once(':') else {
            continue;
        };
        let value_at = here + property.len() + 1;
        let property = property.trim().to_ascii_lowercase();
        let value = value.trim_end();
        let value = value.strip_suffix("!important").unwrap_or(value).trim_end();
        let lead = value.len() - value.trim_start().len();
        let value = value.trim_start();
        match property.as_str() {
            "color" => colours.push((value_at + lead, value)),
            // A background seihon cannot read (an image, a variable) leaves the rule unjudged.
            "background-color" => background = Rgb::parse(value),
            "background" => {
                background = value.split_whitespace().find_map(Rgb::parse);
                if background.is_none() && !value.trim().eq_ignore_ascii_case("none") {
                    return;
                }
                background.get_or_insert(WHITE);
            }
            _ => {}
        }
    }
    let Some(bg) = background else { return };
    for (start, value) in colours {
        let Some(colour) = Rgb::parse(value) else {
            continue;
        };
        let ratio = colour.contrast(bg);
        if ratio >= AA_TEXT {
            continue;
        }
        let fixed = colour.readable_on(bg, AA_TEXT);
        let on = if bg == WHITE {
            "white".to_string()
        } else {
            bg.hex()
        };
        let (line, col) = crate::error::line_col(css, start);
        warnings.push(
            Finding::warning(
                codes::LOW_CONTRAST,
                Location::new(shown, line, col),
                format!(
                    "`color: {value}` on {on} reads at {ratio:.2}:1, under WCAG AA's 4.5:1: the EPUB has {}, the nearest shade of it that reads",
                    fixed.hex()
                ),
            )
            .with_hint("choose a darker colour (or a lighter one on a dark background)"),
        );
        repairs.push((start, start + value.len(), fixed.hex()));
    }
}

/// `css` with its comments blanked out, byte for byte (offsets stay).
fn without_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("*/").map_or(rest.len(), |j| i + j + 2);
        out.extend(rest[i..end].chars().map(|c| " ".repeat(c.len_utf8())));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_colours_become_the_nearest_readable_shade() {
        let css = "/* color: gray */\np.caption {\n  text-align: center;\n  color: gray;\n}\n\
                   @media screen { .note { color: #999 !important; background: #fff; } }\n\
                   pre { color: #666; background: #222; }\n\
                   .ok { color: #333; }\n.hero { color: #eee; background: url(x.png); }\n";
        let (fixed, found) = legible(css, Path::new("style.css"));
        let fixed = fixed.expect("repaired");
        assert!(fixed.contains("/* color: gray */"), "{fixed}");
        assert!(!fixed.contains("color: gray;"), "{fixed}");
        assert!(fixed.contains("!important"), "{fixed}");
        assert!(fixed.contains(".ok { color: #333; }"), "{fixed}");
        assert!(
            fixed.contains("color: #eee; background: url(x.png)"),
            "{fixed}"
        );
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].location.to_string(), "style.css:4:10");
        assert!(
            found[0]
                .message
                .contains("`color: gray` on white reads at 3.95:1"),
            "{}",
            found[0].message
        );
        // Every colour written reads at AA on its background.
        for (colour, bg) in [("gray", "#fff"), ("#999", "#fff"), ("#666", "#222")] {
            let written = found
                .iter()
                .find(|f| f.message.contains(&format!("`color: {colour}`")))
                .and_then(|f| f.message.split("the EPUB has ").nth(1))
                .and_then(|m| m.split(',').next())
                .unwrap();
            let r = crate::colour::ratio(written, bg).unwrap();
            assert!(r >= AA_TEXT, "{colour} → {written}: {r}");
            assert!(fixed.contains(written), "{fixed}");
        }
    }

    #[test]
    fn a_readable_sheet_is_left_as_it_is() {
        let (fixed, found) = legible("body { color: #222; }\n", Path::new("s.css"));
        assert_eq!(fixed, None);
        assert!(found.is_empty());
    }
}
