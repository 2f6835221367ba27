//! File names inside the EPUB and the URLs that refer to them, in one place.
//!
//! A file of the book goes into the container under [`container_path`]: its own path, except
//! that a folder or file name epubcheck objects to (a space, PKG-010; a character OCF file names
//! may not hold, PKG-009; a trailing dot, PKG-011) is made safe. Every URL seihon writes to a
//! file of the EPUB (manifest, pages, style sheets) is [`href`] of its path there: a valid URL
//! reference that decodes back to the name, with `%`, `#`, `[`, `^` and the like
//! percent-encoded; non-ASCII letters (Japanese file names) stay as they are, as IRIs, which
//! epubcheck and reading systems take.

/// A URL's path or fragment as the text it stands for: each `%XX` as its byte; text that does
/// not decode to UTF-8 is taken as it is.
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let (b'%', Some(Some(hi)), Some(Some(lo))) = (
            bytes[i],
            bytes.get(i + 1).map(|&b| hex(b)),
            bytes.get(i + 2).map(|&b| hex(b)),
        ) {
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// The file a relative URL path written in a file of the folder `dir` names: the path
/// percent-decoded, as URLs are read (`my%20photo.png` is `my photo.png`); but the path as
/// written when only that file exists (a file really named `x%41.png`).
pub fn written_path(dir: &std::path::Path, written: &str) -> String {
    let decoded = percent_decode(written);
    if decoded != written && !dir.join(&decoded).exists() && dir.join(written).exists() {
        return written.to_string();
    }
    decoded
}

/// A path inside the container (`/`-separated, relative, no `.` or `..`) as a URL reference
/// relative to the folder it is in: every byte a URL path may not hold as it is, and `%`, `#`,
/// `?` and `:` (which would read as an escape, a fragment, a query or a scheme),
/// percent-encoded as UTF-8.
pub fn href(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if keeps(c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// Whether `s` is a valid relative URL path as it is: every character one [`href`] keeps, or a
/// `%` with two hex digits.
pub fn is_valid(s: &str) -> bool {
    let b = s.as_bytes();
    s.char_indices().all(|(i, c)| {
        keeps(c)
            || (c == '%'
                && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    })
}

/// The path, query and fragment of a web address (all after its host) as a valid URL: each
/// character a URL may not hold as it is (a space, `{`, `}`, `|`, `^`, a backquote, a second
/// `#`, a `%` that starts no escape, …) percent-encoded as UTF-8, as browsers send it.
/// epubcheck refuses the address otherwise (RSC-020); what it names does not change.
pub fn web_rest(rest: &str) -> std::borrow::Cow<'_, str> {
    let b = rest.as_bytes();
    let mut fragment = false;
    let mut out = String::with_capacity(rest.len() + 8);
    for (i, c) in rest.char_indices() {
        let kept = match c {
            '%' => {
                b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            }
            '#' => !std::mem::replace(&mut fragment, true),
            ':' | '?' => true,
            c => keeps(c),
        };
        if kept {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    if out == rest {
        std::borrow::Cow::Borrowed(rest)
    } else {
        std::borrow::Cow::Owned(out)
    }
}

/// Whether a character stands as it is in a URL path: ASCII letters, digits, `/` and the
/// punctuation WHATWG and RFC 3987 allow in a path segment, and any other letter or sign (an
/// IRI's `ucschar`), but not spaces, controls or noncharacters.
fn keeps(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || "/-._~!$&'()*+,;=@".contains(c);
    }
    !(c.is_whitespace() || c.is_control() || is_noncharacter(c) || is_private_use(c))
}

/// The path a file of the book takes inside the container: each name of `rel` (a relative,
/// normalised path with `/` or `\` between names) as it is, or, when epubcheck objects to it
/// as a file name, with the offending characters as `_` and a short hash of the original name
/// before its extension, so that two names never meet (`my photo.png` →
/// `my_photo-1f3a9c2e.png`, beside an unrelated `my_photo.png`).
pub fn container_path(rel: &str) -> String {
    rel.split(['/', '\\'])
        .filter(|n| !n.is_empty() && *n != ".")
        .map(container_name)
        .collect::<Vec<_>>()
        .join("/")
}

/// One file or folder name inside the container: see [`container_path`].
pub fn container_name(name: &str) -> String {
    if !name.chars().any(unsafe_in_name) && !name.ends_with('.') {
        return name.to_string();
    }
    let mut safe: String = name
        .chars()
        .map(|c| if unsafe_in_name(c) { '_' } else { c })
        .collect();
    while safe.ends_with('.') {
        safe.pop();
        safe.push('_');
    }
    let tag = format!("-{:08x}", fnv1a(name.as_bytes()));
    // Before the extension (`.png`), which readers and epubcheck go by; a leading dot is not one.
    match safe.rfind('.').filter(|&i| i > 0) {
        Some(i) => safe.insert_str(i, &tag),
        None => safe.push_str(&tag),
    }
    safe
}

/// A character epubcheck refuses or warns about in a file name: spaces of any kind (PKG-010),
/// the ASCII characters OCF forbids and controls, private-use and noncharacters, the specials
/// and tags blocks (PKG-009).
fn unsafe_in_name(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || "\"*:<>?\\|^`{}".contains(c)
        || is_private_use(c)
        || is_noncharacter(c)
        || matches!(c as u32,
            0xFB50..=0xFDFF     // Arabic Presentation Forms-A
            | 0xFFF0..=0xFFFF   // Specials
            | 0xE0000..=0xE007F // Tags
            | 0xE0100..=0xE01EF // Variation Selectors Supplement
        )
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

fn is_noncharacter(c: char) -> bool {
    let u = c as u32;
    (0xFDD0..=0xFDEF).contains(&u) || u & 0xFFFE == 0xFFFE
}

/// The URL of the container path `to` from a file at the container path `from` (both relative
/// to the same folder, `/` between names): `../image/a.png` from `style/book.css`. Percent-encoded
/// as [`href`] makes it.
pub fn relative_href(from: &str, to: &str) -> String {
    let from_dir = from.rsplit_once('/').map_or("", |(dir, _)| dir);
    href(&relative_path(to, from_dir))
}

/// The file path `to` as written from the folder `from_dir` (both relative to the same folder,
/// or both absolute; `/` between names, `""` the folder itself): `../a/b.png` from `c`.
pub fn relative_path(to: &str, from_dir: &str) -> String {
    let dirs: Vec<&str> = match from_dir {
        "" => Vec::new(),
        dir => dir.split('/').collect(),
    };
    let names: Vec<&str> = to.split('/').collect();
    // The file's own name is never taken for a folder both share.
    let common = (dirs.iter().zip(&names))
        .take_while(|(a, b)| a == b)
        .count()
        .min(names.len() - 1);
    let mut parts: Vec<&str> = vec![".."; dirs.len() - common];
    parts.extend(&names[common..]);
    parts.join("/")
}

/// The short hash [`container_name`] tags a renamed name with, for other renamings to share.
pub fn name_hash(name: &str) -> u32 {
    fnv1a(name.as_bytes())
}

/// 32-bit FNV-1a: small, stable across platforms and versions (names must not change between
/// builds).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_hrefs_climb_out_of_the_files_folder_only_as_far_as_needed() {
        assert_eq!(
            relative_href("style/book.css", "image/a.png"),
            "../image/a.png"
        );
        assert_eq!(relative_href("style/css/a.css", "style/css/b.css"), "b.css");
        assert_eq!(relative_href("style/a.css", "style/css/b.css"), "css/b.css");
        assert_eq!(
            relative_href("style/css/a.css", "image/images/猫 1.png"),
            "../../image/images/猫%201.png"
        );
        assert_eq!(relative_href("a.css", "font/f.otf"), "font/f.otf");
        assert_eq!(relative_href("style/a.css", "style/a.css"), "a.css");
        assert_eq!(relative_path("/b/c/d.png", "/b/e"), "../c/d.png");
        assert_eq!(relative_path("c/d.png", ""), "c/d.png");
    }

    #[test]
    fn hrefs_encode_what_a_url_path_may_not_hold_and_keep_japanese() {
        assert_eq!(href("image/images/cat.png"), "image/images/cat.png");
        assert_eq!(href("image/images/写真.png"), "image/images/写真.png");
        assert_eq!(href("a b.png"), "a%20b.png");
        assert_eq!(href("100%.png"), "100%25.png");
        assert_eq!(href("a#b?c.png"), "a%23b%3Fc.png");
        assert_eq!(href("c:d.png"), "c%3Ad.png");
        assert_eq!(href("[x]^{y}|`z`.png"), "%5Bx%5D%5E%7By%7D%7C%60z%60.png");
        assert_eq!(href("a\"<b>\\.png"), "a%22%3Cb%3E%5C.png");
        assert_eq!(href("tab\there"), "tab%09here");
        assert_eq!(href("全角\u{3000}空白"), "全角%E3%80%80空白");
        assert_eq!(
            href("o'neil&co(1)+=,;!$*@~.png"),
            "o'neil&co(1)+=,;!$*@~.png"
        );
        for path in ["a b/c#d%e?.png", "写真 1.png", "%20", "x\u{7f}\u{85}y"] {
            assert_eq!(percent_decode(&href(path)), path);
            assert!(is_valid(&href(path)));
        }
        assert!(is_valid("../images/%E7%8C%AB.png") && is_valid("猫.png"));
        for invalid in ["a b.png", "100%.png", "%2", "%zz", "a#b", "x?y"] {
            assert!(!is_valid(invalid), "{invalid}");
        }
    }

    #[test]
    fn web_addresses_encode_only_what_a_url_may_not_hold() {
        assert_eq!(web_rest("/a/b?q=1&r=(2)#frag:x"), "/a/b?q=1&r=(2)#frag:x");
        assert_eq!(web_rest("/my_light.html}"), "/my_light.html%7D");
        assert_eq!(web_rest("/a b|c^d`e{f}"), "/a%20b%7Cc%5Ed%60e%7Bf%7D");
        assert_eq!(web_rest("/100%/x%41#a#b"), "/100%25/x%41#a%23b");
        assert_eq!(web_rest("/日本語"), "/日本語");
    }

    #[test]
    fn container_names_change_only_when_epubcheck_objects() {
        for ok in [
            "cat.png",
            "写真.png",
            "a#b.png",
            "100%.png",
            "[1]&(2).png",
            ".hidden",
        ] {
            assert_eq!(container_name(ok), ok);
        }
        let renamed = container_name("my photo.png");
        assert!(renamed.starts_with("my_photo-") && renamed.ends_with(".png"));
        assert_eq!(renamed.len(), "my_photo-12345678.png".len());
        // Stable, and two names that would meet stay apart.
        assert_eq!(container_name("my photo.png"), renamed);
        assert_ne!(container_name("my?photo.png"), renamed);
        assert_ne!(container_name("my_photo.png"), renamed);
        assert!(container_name("full\u{3000}width.png").starts_with("full_width-"));
        assert!(container_name("dir name").starts_with("dir_name-"));
        assert!(!container_name("ends.").ends_with('.'));
        assert!(container_name("a:b*c.svg").starts_with("a_b_c-"));
        assert_eq!(
            container_path("css dir/./my style.css"),
            format!(
                "{}/{}",
                container_name("css dir"),
                container_name("my style.css")
            )
        );
        assert_eq!(container_path("images\\猫.png"), "images/猫.png");
        // What a renamed name holds needs no encoding but for `%` and `#`.
        let odd = container_path("a b/c?d%e#f.png");
        assert_eq!(percent_decode(&href(&odd)), odd);
        assert!(!href(&odd).contains(' '));
    }
}
