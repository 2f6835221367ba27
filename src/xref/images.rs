//! Images, in pass 2. In goes an image as written (a path relative to the chapter, or a
//! Re:VIEW image id); out comes its path relative to the chapter's XHTML and a [`Resource`] to
//! pack, or, for an image that is missing, on the web, outside the book, of a type an EPUB
//! cannot show or damaged, a warning at its use (its text alternative stands in).
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ids::has_scheme;
use super::{AssetKind, Linker, Resource, asset_path, in_folder, media_type, normalize, svg};
use crate::book::{FoundFile, check_book_file_in};
use crate::codes;
use crate::doc::Image;
use crate::dom::Node;
use crate::error::{Finding, Location};
use crate::href::written_path;

impl Linker<'_, '_> {
    /// Maps an image to its place in the EPUB, relative to the chapter's XHTML. `None` when it
    /// cannot be used (reported here).
    pub(super) fn image(
        &mut self,
        img: &Image,
        ci: usize,
        dir: &Path,
        loc: &Location,
    ) -> Option<String> {
        let (rel, found) = self.image_file(img, ci, dir, loc)?;
        if let Some(res) = self.resources.get(&rel) {
            return Some(format!("../{}", crate::href::href(&res.href)));
        }
        let src = &img.src;
        let FoundFile { path, meta } = self.checked_image(&rel, found, src, loc)?;
        let (media_type, misnamed) = self.image_type(&rel, &path, &meta, src, loc)?;
        let mut href = match self.shared_href(&rel, &path) {
            Some(href) => href,
            None => asset_path(&rel, AssetKind::Image),
        };
        // Readers (and epubcheck) go by the name too: a JPEG named `.png` goes in as `.png.jpg`.
        if let Some(ext) = misnamed {
            href = format!("{href}.{ext}");
        }
        let bytes = self.cleaned_svg(&path, media_type, src, loc);
        self.resources.insert(
            rel.clone(),
            Resource {
                source: path,
                href: href.clone(),
                media_type,
                first_use: loc.clone(),
                bytes,
            },
        );
        Some(format!("../{}", crate::href::href(&href)))
    }

    /// The book's images that raw XHTML shows (`<img src>`, an SVG `<image>`; Markdown's
    /// HTML, Re:VIEW's `//raw`, a page of the book's own): packed as the manuscript's images
    /// are and referred to by their place in the EPUB. One that cannot be used is reported
    /// here, and an `<img>` shows its alt text instead.
    pub(super) fn raw_images(
        &mut self,
        nodes: &mut Vec<Node>,
        ci: usize,
        dir: &Path,
        loc: &Location,
    ) {
        let mut i = 0;
        while i < nodes.len() {
            let Node::Element(e) = &mut nodes[i] else {
                i += 1;
                continue;
            };
            let attr = match e.local_name() {
                "img" => "src",
                "image" if e.attr("href").is_some() => "href",
                "image" => "xlink:href",
                _ => {
                    self.raw_images(&mut e.children, ci, dir, loc);
                    i += 1;
                    continue;
                }
            };
            let src = e.attr(attr).unwrap_or_default().trim().to_string();
            if src.is_empty() || has_scheme(&src) || src.starts_with('#') || src.starts_with('/') {
                i += 1;
                continue;
            }
            let img = Image {
                src,
                alt: e.attr("alt").unwrap_or_default().to_string(),
                by_id: false,
            };
            match self.image(&img, ci, dir, loc) {
                Some(new) => {
                    e.set_attr(attr, new);
                    i += 1;
                }
                None if e.local_name() == "img" && !img.alt.is_empty() => {
                    nodes[i] = Node::Text(img.alt);
                    i += 1;
                }
                None => {
                    nodes.remove(i);
                }
            }
        }
    }

    /// The image's path in the book, and the file when a Re:VIEW image id was looked up (the
    /// one found is checked already); `None` for an id with no file or an image on the web.
    fn image_file(
        &mut self,
        img: &Image,
        ci: usize,
        dir: &Path,
        loc: &Location,
    ) -> Option<(PathBuf, Option<FoundFile>)> {
        if img.by_id {
            return match self.find_review_image(&img.src, ci) {
                Ok((rel, file)) => Some((rel, Some(file))),
                Err(tried) => {
                    self.warnings.push(
                        Finding::warning(
                            codes::MISSING_IMAGE,
                            loc.clone(),
                            format!("no image file for `{}`", img.src),
                        )
                        .with_hint(format!(
                            "looked for {}; the text is shown in its place",
                            tried.join(", ")
                        )),
                    );
                    None
                }
            };
        }
        if has_scheme(&img.src) {
            self.warnings.push(
                Finding::warning(
                    codes::REMOTE_RESOURCE,
                    loc.clone(),
                    format!(
                        "the image `{}` is on the web; an EPUB must contain its images, so its text alternative is shown in its place",
                        img.src
                    ),
                )
                .with_hint("download the image into the book folder and refer to it by its path"),
            );
            return None;
        }
        let path = written_path(&self.book.root.join(dir), &img.src);
        Some((normalize(&dir.join(path)), None))
    }

    /// The image file, checked to be in the book (or a shared folder) and a file.
    fn checked_image(
        &mut self,
        rel: &Path,
        found: Option<FoundFile>,
        src: &str,
        loc: &Location,
    ) -> Option<FoundFile> {
        let checked = match found {
            Some(file) => Ok(file),
            None => check_book_file_in(
                &self.r.book.root,
                &self.r.real_root,
                &self.r.book.shared_dirs,
                rel,
                &mut self.real_dirs,
            ),
        };
        match checked {
            Ok(file) => Some(file),
            // Real books name images they do not ship, or keep them beside the book folder: the
            // alt text stands in, marked (an image outside is never read, let alone packed).
            Err(why) => {
                self.warnings.push(
                    Finding::warning(
                        codes::MISSING_IMAGE,
                        loc.clone(),
                        format!("the image `{src}` {why}"),
                    )
                    .with_hint(
                        "its text alternative is shown in its place; `seihon release` refuses this",
                    ),
                );
                None
            }
        }
    }

    /// The image's media type, when it is one an EPUB can show and the file reads as one, and
    /// the extension to add to its name when its content is of another such type than its name
    /// says (packed as what it is, with a warning).
    fn image_type(
        &mut self,
        rel: &Path,
        path: &Path,
        meta: &std::fs::Metadata,
        src: &str,
        loc: &Location,
    ) -> Option<(&'static str, Option<&'static str>)> {
        let Some(media_type) = media_type(rel).filter(|t| t.starts_with("image/")) else {
            self.warnings.push(
                Finding::warning(
                    codes::MISSING_IMAGE,
                    loc.clone(),
                    format!("`{src}` is not an image type an EPUB can show; its text alternative is shown in its place"),
                )
                .with_hint("use PNG, JPEG, GIF, SVG or WebP"),
            );
            return None;
        };
        if media_type != "image/svg+xml" && !self.readable(path, meta, media_type) {
            if let Some((actual, ext)) = sniff_image(path).filter(|(t, _)| *t != media_type)
                && self.readable(path, meta, actual)
            {
                let named = media_type.trim_start_matches("image/").to_uppercase();
                let is = actual.trim_start_matches("image/").to_uppercase();
                self.warnings.push(
                    Finding::warning(
                        codes::MISNAMED_IMAGE,
                        loc.clone(),
                        format!("the image `{src}` is a {is} file, though its name says {named}; it is packed as the {is} it is"),
                    )
                    .with_hint(format!("rename the file to end in `.{ext}`")),
                );
                return Some((actual, Some(ext)));
            }
            self.warnings.push(
                Finding::warning(codes::MISSING_IMAGE, loc.clone(), format!("the image `{src}` cannot be read: the file is damaged or is not really a {} file; its text alternative is shown in its place", media_type.trim_start_matches("image/").to_uppercase()))
                    .with_hint("export the image again from its original"),
            );
            return None;
        }
        Some((media_type, None))
    }

    /// An SVG loses what an EPUB may not carry, said once at its first use: the bytes to pack
    /// instead of the file, when any were taken out.
    fn cleaned_svg(
        &mut self,
        path: &Path,
        media_type: &str,
        src: &str,
        loc: &Location,
    ) -> Option<Vec<u8>> {
        if media_type != "image/svg+xml" {
            return None;
        }
        let cleaned = std::fs::read(path).ok().and_then(|b| svg::clean(&b));
        cleaned.map(|c| {
            self.warnings.push(
                Finding::warning(
                    codes::CLEANED_IMAGE,
                    loc.clone(),
                    format!("the image `{src}` has {}, which an EPUB may not carry; it is packed without", join_words(&c.removed)),
                )
                .with_hint("save the SVG again without scripts (e.g. as plain SVG) to keep the file as it is"),
            );
            c.bytes
        })
    }

    /// Where an image from a shared folder (reached through `..`) goes in the EPUB:
    /// `image/shared-N/<path inside the N-th shared folder>`.
    fn shared_href(&self, rel: &Path, path: &Path) -> Option<String> {
        if rel.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        }) {
            return None;
        }
        let real = path.canonicalize().ok()?;
        self.book
            .shared_dirs
            .iter()
            .enumerate()
            .find_map(|(i, dir)| {
                let inside = real.strip_prefix(dir).ok()?;
                Some(in_folder(
                    AssetKind::Image.folder(),
                    &format!(
                        "shared-{}/{}",
                        i + 1,
                        crate::href::container_path(&inside.to_string_lossy())
                    ),
                ))
            })
    }

    /// The names in the folder `dir` (under the book), each folder read once. Keyed by the
    /// path's bytes: hashing them is cheaper than hashing a path's components, and a book with
    /// thousands of images asks thousands of times.
    fn listing(&self, dir: &Path) -> Arc<HashSet<std::ffi::OsString>> {
        let mut listings = self.listings.lock().unwrap_or_else(|e| e.into_inner());
        listings
            .entry(dir.as_os_str().to_os_string())
            .or_insert_with(|| {
                Arc::new(
                    std::fs::read_dir(self.book.root.join(dir))
                        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
                        .unwrap_or_default(),
                )
            })
            .clone()
    }

    /// Whether an image reads: from the last build's checks when the file is the one checked
    /// then, else checked now; remembered either way.
    fn readable(&mut self, path: &Path, meta: &std::fs::Metadata, media_type: &str) -> bool {
        let Some((stamp, ok)) = self.known.check(path, meta, media_type) else {
            return false;
        };
        self.checked.push((path.to_path_buf(), stamp, ok));
        ok
    }

    /// Re:VIEW's image lookup: the first file that exists among
    /// `images/html/CH/id.ext`, `images/html/CH-id.ext`, `images/html/id.ext`, `images/CH/id.ext`,
    /// `images/CH-id.ext`, `images/id.ext`, for ext in png, jpg, jpeg, gif, svg.
    fn find_review_image(
        &mut self,
        id: &str,
        ci: usize,
    ) -> Result<(PathBuf, FoundFile), Vec<String>> {
        let imagedir = self
            .book
            .review
            .as_ref()
            .map_or_else(|| PathBuf::from("images"), |r| r.imagedir.clone());
        let chap = &self.infos[ci].review_id;
        let bases = [
            imagedir.join("html").join(chap).join(id),
            imagedir.join("html").join(format!("{chap}-{id}")),
            imagedir.join("html").join(id),
            imagedir.join(chap).join(id),
            imagedir.join(format!("{chap}-{id}")),
            imagedir.join(id),
        ];
        let mut name = std::ffi::OsString::new();
        for base in &bases {
            let (Some(dir), Some(stem)) = (base.parent(), base.file_name()) else {
                continue;
            };
            // Most candidates do not exist: their folders are listed once, not asked per name.
            let listing = self.listing(dir);
            let found: Vec<PathBuf> = ["png", "jpg", "jpeg", "gif", "svg"]
                .iter()
                .filter_map(|ext| {
                    name.clear();
                    name.push(stem);
                    name.push(".");
                    name.push(ext);
                    listing.contains(&name).then(|| dir.join(&name))
                })
                .collect();
            for rel in found {
                if let Ok(file) = check_book_file_in(
                    &self.r.book.root,
                    &self.r.real_root,
                    &self.r.book.shared_dirs,
                    &rel,
                    &mut self.real_dirs,
                ) {
                    return Ok((rel, file));
                }
            }
        }
        Err(bases
            .iter()
            .map(|base| format!("{}.*", base.display()))
            .collect())
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The raster type a file's first bytes say it is (PNG, JPEG, GIF, WebP), with its extension.
fn sniff_image(path: &Path) -> Option<(&'static str, &'static str)> {
    use std::io::Read as _;
    let mut head = [0u8; 12];
    let mut file = std::fs::File::open(path).ok()?;
    let n = file.read(&mut head).ok()?;
    let head = &head[..n];
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(("image/png", "png"))
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(("image/jpeg", "jpg"))
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some(("image/gif", "gif"))
    } else if head.len() == 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some(("image/webp", "webp"))
    } else {
        None
    }
}
