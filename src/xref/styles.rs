//! The book's own style sheets and what they bring in: each `url()` and `@import` of a style
//! sheet is a resource of the book (a font, an image, another style sheet), packed beside it
//! with its media type; one that cannot be packed (missing, outside the book, on the web, of a
//! type an EPUB cannot carry) is a located warning at the style sheet's own line, and the
//! reference is dropped so the EPUB stays valid. A reference to a file whose name changes in
//! the container, or that is not written as a valid URL (`url("my font.woff")`), is written
//! again as the URL of the packed file.
use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};

use super::Resource;
use super::ids::{has_scheme, percent_decode};
use crate::book::Book;
use crate::codes;
use crate::error::{Finding, Location};
use crate::href::written_path;

/// A style sheet going into the EPUB.
#[derive(Debug, Clone)]
pub struct StyleSheet {
    /// The file in the book.
    pub source: PathBuf,
    /// Where it goes in the package folder (`style/style.css`).
    pub href: String,
    /// Its text with what could not be packed dropped and references written as the packed
    /// files' URLs; `None` when it goes in as it is.
    pub text: Option<String>,
}

/// The book's style sheets (`stylesheet:`/`stylesheets:`), each with the files it refers to
/// added to `resources` (keyed by their path in the book, as images are).
pub(super) fn collect(
    book: &Book,
    real_root: &Path,
    resources: &mut BTreeMap<PathBuf, Resource>,
    warnings: &mut Vec<Finding>,
) -> Vec<StyleSheet> {
    let mut out = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut todo: Vec<PathBuf> = book.stylesheets.clone();
    let listed: HashSet<PathBuf> = book.stylesheets.iter().cloned().collect();
    while let Some(rel) = todo.pop() {
        if !seen.insert(rel.clone()) {
            continue;
        }
        let source = book.root.join(&rel);
        let Ok(bytes) = std::fs::read(&source) else {
            // A listed style sheet that cannot be read was reported when the book was loaded.
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let shown = crate::book::display_path(Path::new("."), &source);
        let mut sheet = Sheet {
            book,
            real_root,
            dir: rel.parent().map(Path::to_path_buf).unwrap_or_default(),
            href: super::asset_path(&rel, super::AssetKind::Style),
            shown: &shown,
            text: &text,
            warnings,
        };
        let mut changed = false;
        let mut kept = String::with_capacity(text.len());
        let mut at = 0;
        for r in references(&text) {
            let target = match sheet.target(&r) {
                Outcome::Kept => continue,
                Outcome::Pack(t) => t,
                Outcome::Dropped => {
                    kept.push_str(&text[at..r.start]);
                    kept.push_str(if r.import { "" } else { "none" });
                    at = r.end;
                    changed = true;
                    continue;
                }
            };
            if let Some(url) = &target.url {
                kept.push_str(&text[at..r.start]);
                if r.import {
                    kept.push_str(&format!("@import url(\"{url}\")"));
                    kept.push_str(&text[r.url_end..r.end]);
                } else {
                    kept.push_str(&format!("url(\"{url}\")"));
                }
                at = r.end;
                changed = true;
            }
            if target.media_type == "text/css" {
                todo.push(target.rel.clone());
            }
            resources
                .entry(target.rel.clone())
                .or_insert_with(|| Resource {
                    source: book.root.join(&target.rel),
                    href: super::asset_path(&target.rel, super::AssetKind::of(target.media_type)),
                    media_type: target.media_type,
                    first_use: Location::new(&shown, line_of(&text, r.start), 1),
                    bytes: None,
                });
        }
        kept.push_str(&text[at..]);
        let (legible, low) = super::contrast::legible(&kept, &shown);
        warnings.extend(low);
        if let Some(legible) = legible {
            kept = legible;
            changed = true;
        }
        let href = super::asset_path(&rel, super::AssetKind::Style);
        let sheet = StyleSheet {
            source,
            href,
            text: changed.then_some(kept),
        };
        if listed.contains(&rel) {
            out.push(sheet);
        } else if let Some(res) = resources.get_mut(&rel) {
            // An imported style sheet is a resource; what it dropped goes in with it.
            res.bytes = sheet.text.map(String::into_bytes);
        }
    }
    // In the order the book lists them (the work list took them from the end).
    out.sort_by_key(|s| {
        book.stylesheets
            .iter()
            .position(|r| book.root.join(r) == s.source)
    });
    out
}

/// One `url(…)` or `@import "…"` in a style sheet.
struct Reference {
    /// The byte range to drop when it cannot be packed: the `url(…)`, or the whole `@import`
    /// rule.
    start: usize,
    end: usize,
    url: String,
    import: bool,
    /// Just past the address itself (its closing quote or parenthesis): what follows it in an
    /// `@import` rule (media queries) is kept when it is written again.
    url_end: usize,
}

/// What becomes of a reference.
enum Outcome {
    /// Not a file (a data URL, a fragment): it stays, packing nothing.
    Kept,
    /// A file of the book, packed beside the style sheet.
    Pack(Target),
    /// It cannot be packed (warned): it is dropped.
    Dropped,
}

/// A reference that can be packed: the file in the book, its media type, and the URL to
/// write instead of the one written when they differ.
struct Target {
    rel: PathBuf,
    media_type: &'static str,
    url: Option<String>,
}

struct Sheet<'a> {
    book: &'a Book,
    real_root: &'a Path,
    /// The style sheet's folder in the book, which its references are relative to.
    dir: PathBuf,
    /// Where it goes in the package folder, which the packed references are relative to.
    href: String,
    shown: &'a Path,
    text: &'a str,
    warnings: &'a mut Vec<Finding>,
}

impl Sheet<'_> {
    fn warn(&mut self, r: &Reference, message: String) {
        let loc = Location::new(self.shown, line_of(self.text, r.start), 1);
        self.warnings.push(
            Finding::warning(codes::CSS_RESOURCE, loc, message)
                .with_hint("put the file in the book folder and refer to it relative to the style sheet, or remove the reference"),
        );
    }

    /// What a reference brings in. Data URLs and fragments (`url(#gradient)`) are not files:
    /// kept as they are, packing nothing.
    fn target(&mut self, r: &Reference) -> Outcome {
        let url = r.url.trim();
        if url.is_empty() || url.starts_with('#') || url.starts_with("data:") {
            return Outcome::Kept;
        }
        if url.contains("://") || url.starts_with("//") || has_scheme(url) {
            self.warn(
                r,
                format!("the style sheet loads `{url}` from the web, which an EPUB must not: the reference is dropped"),
            );
            return Outcome::Dropped;
        }
        // `font.eot?#iefix`, `sprite.svg#icon`: the file is what comes before.
        let path = url.split(['?', '#']).next().unwrap_or(url);
        let (written, rest) = url.split_at(path.len());
        let path = written_path(&self.book.root.join(&self.dir), path);
        let Some(rel) = normalized(&self.dir.join(&path)) else {
            self.warn(
                r,
                format!("`{url}` is outside the book folder: the reference is dropped"),
            );
            return Outcome::Dropped;
        };
        let Some(media_type) = resource_type(&rel) else {
            self.warn(
                r,
                format!("`{url}` is not a kind of file an EPUB can carry (fonts: OTF, TTF, WOFF, WOFF2; images: PNG, JPEG, GIF, SVG, WebP): the reference is dropped"),
            );
            return Outcome::Dropped;
        };
        match crate::book::check_book_file_under(
            &self.book.root,
            self.real_root,
            &self.book.shared_dirs,
            &rel,
        ) {
            Ok(_) => {
                // Written again only when it must be: the file lands elsewhere relative to the
                // style sheet (images, fonts and style sheets have folders of their own), its
                // name changes, or what is written is not a valid URL (`bg image.png`).
                let packed = crate::href::relative_href(
                    &self.href,
                    &super::asset_path(&rel, super::AssetKind::of(media_type)),
                );
                let same = crate::href::percent_decode(&packed) == percent_decode(written);
                let url = (!same || !crate::href::is_valid(written)).then(|| packed + rest);
                Outcome::Pack(Target {
                    rel,
                    media_type,
                    url,
                })
            }
            Err(why) => {
                self.warn(
                    r,
                    format!(
                        "the file `{url}` the style sheet refers to {why}: the reference is dropped"
                    ),
                );
                Outcome::Dropped
            }
        }
    }
}

/// `a/../b/./c` → `b/c`; `None` when it climbs out of the book folder.
fn normalized(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// The media type of a file a style sheet may bring in: an image, a font (EPUB 3.3's core
/// font types) or another style sheet.
fn resource_type(rel: &Path) -> Option<&'static str> {
    let ext = rel.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "otf" => "font/otf",
        "ttf" => "font/ttf",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        _ => return super::media_type(rel),
    })
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, at: usize) -> u32 {
    text[..at].matches('\n').count() as u32 + 1
}

/// Every `url(…)` and `@import` in a style sheet, outside comments and strings, in order.
fn references(css: &str) -> Vec<Reference> {
    let b = css.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = css[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            }
            b'"' | b'\'' => i = string_end(b, i),
            b'@' if css[i..].len() >= 7 && css[i + 1..i + 7].eq_ignore_ascii_case("import") => {
                let start = i;
                let mut j = i + 7;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                let url = if b.get(j).is_some_and(|c| *c == b'"' || *c == b'\'') {
                    let e = string_end(b, j);
                    Some((css[j + 1..e.saturating_sub(1).max(j + 1)].to_string(), e))
                } else if css[j..].len() >= 4 && css[j..j + 4].eq_ignore_ascii_case("url(") {
                    url_at(css, j)
                } else {
                    None
                };
                // The rule ends at the first `;` after its address (one may hold a `;`).
                let from = url.as_ref().map_or(i, |(_, e)| *e);
                let end = css[from..].find(';').map_or(b.len(), |e| from + e + 1);
                if let Some((url, url_end)) = url {
                    out.push(Reference {
                        start,
                        end,
                        url,
                        import: true,
                        url_end,
                    });
                }
                i = end;
            }
            b'u' | b'U'
                if css[i..].len() >= 4
                    && css[i..i + 4].eq_ignore_ascii_case("url(")
                    && (i == 0 || !is_ident(b[i - 1])) =>
            {
                match url_at(css, i) {
                    Some((url, end)) => {
                        out.push(Reference {
                            start: i,
                            end,
                            url,
                            import: false,
                            url_end: end,
                        });
                        i = end;
                    }
                    None => i += 4,
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// The index just past a quoted string starting at `b[start]`.
fn string_end(b: &[u8], start: usize) -> usize {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// At `url(`: the address and the index just past the closing `)`.
fn url_at(css: &str, at: usize) -> Option<(String, usize)> {
    let b = css.as_bytes();
    let mut i = at + 4;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let url = if b.get(i).is_some_and(|c| *c == b'"' || *c == b'\'') {
        let e = string_end(b, i);
        let u = css.get(i + 1..e.saturating_sub(1))?.to_string();
        i = e;
        u
    } else {
        let e = css[i..].find(')')? + i;
        let u = css[i..e].trim().to_string();
        i = e;
        u
    };
    let close = css[i..].find(')')? + i;
    Some((url, close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_urls_and_imports_outside_comments() {
        let css = "/* url(no.png) */\n@import \"base.css\";\n@import url(more.css) screen;\nbody { background: URL( 'bg.png' ) }\n@font-face { src: url(f.woff2) format(\"woff2\"), url(\"f.ttf\"); }\n.a::before { content: \"url(x)\" }\n";
        let found: Vec<(String, bool, u32)> = references(css)
            .into_iter()
            .map(|r| (r.url, r.import, line_of(css, r.start)))
            .collect();
        assert_eq!(
            found,
            [
                ("base.css".to_string(), true, 2),
                ("more.css".to_string(), true, 3),
                ("bg.png".to_string(), false, 4),
                ("f.woff2".to_string(), false, 5),
                ("f.ttf".to_string(), false, 5),
            ]
        );
    }

    #[test]
    fn paths_stay_in_the_book() {
        assert_eq!(
            normalized(Path::new("css/../images/./a.png")),
            Some(PathBuf::from("images/a.png"))
        );
        assert_eq!(normalized(Path::new("../a.png")), None);
        assert_eq!(resource_type(Path::new("a.WOFF2")), Some("font/woff2"));
        assert_eq!(resource_type(Path::new("a.eot")), None);
    }

    #[test]
    fn what_follows_an_imports_address_is_kept() {
        let css = "@import \"a b.css\" screen;\n@import url( 'c;d.css' ) print;";
        let refs = references(css);
        assert_eq!(&css[refs[0].url_end..refs[0].end], " screen;");
        assert_eq!(refs[1].url, "c;d.css");
        assert_eq!(&css[refs[1].url_end..refs[1].end], " print;");
    }
}
