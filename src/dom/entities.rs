//! HTML's named entities, which XHTML does not define: a page using one is refused, and the
//! message says which character was meant.
use super::{is_xml_char, is_xml_name};
/// Common HTML named entities, so the error can say which character was meant.
const HTML_ENTITIES: &[(&str, u32)] = &[
    ("nbsp", 0xA0),
    ("iexcl", 0xA1),
    ("cent", 0xA2),
    ("pound", 0xA3),
    ("curren", 0xA4),
    ("yen", 0xA5),
    ("brvbar", 0xA6),
    ("sect", 0xA7),
    ("uml", 0xA8),
    ("copy", 0xA9),
    ("ordf", 0xAA),
    ("laquo", 0xAB),
    ("not", 0xAC),
    ("shy", 0xAD),
    ("reg", 0xAE),
    ("macr", 0xAF),
    ("deg", 0xB0),
    ("plusmn", 0xB1),
    ("sup2", 0xB2),
    ("sup3", 0xB3),
    ("acute", 0xB4),
    ("micro", 0xB5),
    ("para", 0xB6),
    ("middot", 0xB7),
    ("cedil", 0xB8),
    ("sup1", 0xB9),
    ("ordm", 0xBA),
    ("raquo", 0xBB),
    ("frac14", 0xBC),
    ("frac12", 0xBD),
    ("frac34", 0xBE),
    ("iquest", 0xBF),
    ("Auml", 0xC4),
    ("Eacute", 0xC9),
    ("Ouml", 0xD6),
    ("times", 0xD7),
    ("Uuml", 0xDC),
    ("szlig", 0xDF),
    ("agrave", 0xE0),
    ("aacute", 0xE1),
    ("auml", 0xE4),
    ("ccedil", 0xE7),
    ("egrave", 0xE8),
    ("eacute", 0xE9),
    ("ntilde", 0xF1),
    ("ouml", 0xF6),
    ("divide", 0xF7),
    ("uuml", 0xFC),
    ("alpha", 0x3B1),
    ("beta", 0x3B2),
    ("mu", 0x3BC),
    ("pi", 0x3C0),
    ("ensp", 0x2002),
    ("emsp", 0x2003),
    ("thinsp", 0x2009),
    ("zwnj", 0x200C),
    ("zwj", 0x200D),
    ("lrm", 0x200E),
    ("rlm", 0x200F),
    ("ndash", 0x2013),
    ("mdash", 0x2014),
    ("lsquo", 0x2018),
    ("rsquo", 0x2019),
    ("sbquo", 0x201A),
    ("ldquo", 0x201C),
    ("rdquo", 0x201D),
    ("bdquo", 0x201E),
    ("dagger", 0x2020),
    ("Dagger", 0x2021),
    ("bull", 0x2022),
    ("hellip", 0x2026),
    ("permil", 0x2030),
    ("prime", 0x2032),
    ("Prime", 0x2033),
    ("lsaquo", 0x2039),
    ("rsaquo", 0x203A),
    ("euro", 0x20AC),
    ("trade", 0x2122),
    ("larr", 0x2190),
    ("uarr", 0x2191),
    ("rarr", 0x2192),
    ("darr", 0x2193),
    ("harr", 0x2194),
    ("minus", 0x2212),
    ("infin", 0x221E),
    ("ne", 0x2260),
    ("le", 0x2264),
    ("ge", 0x2265),
    ("hearts", 0x2665),
];

/// The character of one of HTML's common named entities (`nbsp`), which XHTML does not define.
pub fn html_entity(name: &str) -> Option<char> {
    HTML_ENTITIES
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, cp)| char::from_u32(*cp))
}

/// Resolves the name of a reference (`amp`, `#160`, `#xA0`) to its text.
pub(super) fn resolve_reference(name: &str) -> Result<char, String> {
    if let Some(num) = name.strip_prefix('#') {
        let parsed = match num.strip_prefix('x') {
            Some(hex) if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).ok()
            }
            None if !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()) => num.parse().ok(),
            _ => {
                return Err(format!(
                    "`&{name};` is not a valid character reference; write `&#` with decimal \
                     digits or `&#x` with hexadecimal digits, then `;` (for example `&#160;` or `&#xA0;`)"
                ));
            }
        };
        return match parsed.and_then(char::from_u32).filter(|&c| is_xml_char(c)) {
            Some(c) => Ok(c),
            None => Err(format!(
                "`&{name};` refers to a code point that is not a character allowed in XHTML"
            )),
        };
    }
    match name {
        "amp" => Ok('&'),
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        "quot" => Ok('"'),
        "apos" => Ok('\''),
        _ if !is_xml_name(name) => Err(
            "a `&` must start an entity such as `&amp;`; to write the `&` character itself, write `&amp;`"
                .to_string(),
        ),
        _ => match HTML_ENTITIES.iter().find(|(n, _)| *n == name) {
            Some((_, cp)) => Err(format!(
                "the entity `&{name};` is not defined in XHTML; write the character itself \
                 (U+{cp:04X}) or `&#{cp};`"
            )),
            None => Err(format!(
                "the entity `&{name};` is not defined in XHTML; only `&amp;`, `&lt;`, `&gt;`, \
                 `&quot;` and `&apos;` are, plus numeric references such as `&#160;`"
            )),
        },
    }
}
