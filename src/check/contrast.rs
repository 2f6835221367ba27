//! Contrast: the house style sheet and the highlighting palette held to WCAG AA (4.5:1 for
//! text) in light and dark reading modes.

#[cfg(test)]
mod tests {
    use crate::colour::{AA_TEXT, ratio};
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
