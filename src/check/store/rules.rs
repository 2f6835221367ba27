//! The stores' rules, each citing the document and section it comes from.
use super::package::{Item, Package};
use super::{Places, Profile, Tree, parse};
use crate::check::{local, walk_path};
use crate::codes;
use crate::dom::Element;
use crate::error::{Finding, Location};

const KPG: &str = "Kindle Publishing Guidelines 2019.2";
const KDP_COVER: &str = "KDP Help, Cover Image Guidelines";
const APPLE_IMAGES: &str = "Apple Books Asset Guide, Images";
const EBPAJ: &str = "EBPAJ EPUB 3 制作ガイド ver.1.1.3";
const KOBO: &str = "Kobo EPUB Guidelines";

/// Kobo's advised largest image file.
pub const KOBO_MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

/// Apple's limit on the pixels of any image inside the EPUB (width × height).
pub const APPLE_MAX_PIXELS: u64 = 5_600_000;
/// KDP's cover: the ideal height/width ratio, and the shortest side below which the store
/// refuses the image.
const KDP_COVER_RATIO: f64 = 1.6;
const KDP_COVER_MIN_SIDE: usize = 625;

fn is_remote(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    u.starts_with("http://") || u.starts_with("https://") || u.starts_with("//")
}

fn is_markup(item: &Item) -> bool {
    item.media_type == "application/xhtml+xml" || item.media_type == "image/svg+xml"
}

/// The attributes through which an element loads a resource (not `a href`: a link is a link).
fn loading_attrs(e: &Element) -> Vec<(&str, &str)> {
    let name = local(&e.name);
    e.attrs
        .iter()
        .filter(|(k, _)| {
            let k = local(k);
            match k {
                "src" | "poster" | "data" | "srcset" => true,
                "href" => matches!(name, "link" | "image" | "use" | "feImage"),
                _ => false,
            }
        })
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// Every `url(…)` and `@import "…"` of a style sheet, with its line and column.
pub(super) fn css_urls(css: &str) -> Vec<(u32, u32, String)> {
    let mut out = Vec::new();
    let bytes = css.as_bytes();
    let lower = css.to_ascii_lowercase();
    let mut at = 0;
    while at < css.len() {
        let next = [lower[at..].find("url("), lower[at..].find("@import")]
            .into_iter()
            .flatten()
            .min();
        let Some(off) = next else { break };
        let start = at + off;
        let mut i = start
            + if lower[start..].starts_with("url(") {
                4
            } else {
                7
            };
        while i < css.len() && (bytes[i] as char).is_ascii_whitespace() {
            i += 1;
        }
        if lower[i..].starts_with("url(") {
            i += 4;
        }
        let rest = &css[i..];
        let end = rest.find([')', ';', '\n']).unwrap_or(rest.len());
        let url = rest[..end].trim().trim_matches(['"', '\'']).to_string();
        let (line, col) = crate::error::line_col(css, start);
        out.push((line, col, url));
        at = i + end.max(1).min(rest.len().max(1));
    }
    out
}

/// Every store: nothing loaded from the web. One finding per reference, citing the document
/// of every profile asked for.
pub(super) fn remote_resources(
    tree: &Tree,
    pkg: &Package,
    profiles: &[Profile],
    at: &Places,
) -> Vec<Finding> {
    let cites: Vec<&str> = profiles.iter().map(|p| p.remote_rule()).collect();
    let why = format!(
        "stores fetch nothing from the web while a book is read ({})",
        cites.join("; ")
    );
    let hint = "put the file in the book and refer to it by a relative path";
    let mut found = Vec::new();
    for item in &pkg.items {
        if item.path.is_none() && is_remote(&item.href) {
            found.push(
                Finding::warning(
                    codes::STORE_REMOTE_RESOURCE,
                    Location::file(&pkg.path),
                    format!("the manifest lists `{}`, on the web: {why}", item.href),
                )
                .with_hint(hint),
            );
        }
        let Some(path) = &item.path else { continue };
        if item.media_type == "text/css" {
            let css = String::from_utf8_lossy(tree.get(path).map_or(&[][..], |b| b));
            for (line, col, url) in css_urls(&css) {
                if is_remote(&url) {
                    found.push(
                        Finding::warning(
                            codes::STORE_REMOTE_RESOURCE,
                            Location::new(path, line, col),
                            format!("the style sheet loads `{url}` from the web: {why}"),
                        )
                        .with_hint(hint),
                    );
                }
            }
            continue;
        }
        if !is_markup(item) {
            continue;
        }
        let Some(doc) = parse(tree, path) else {
            continue;
        };
        doc.root.walk(&mut |e| {
            let mut urls: Vec<String> = loading_attrs(e)
                .into_iter()
                .flat_map(|(k, v)| {
                    if k == "srcset" {
                        (v.split(','))
                            .filter_map(|c| c.split_whitespace().next())
                            .map(str::to_string)
                            .collect()
                    } else {
                        vec![v.to_string()]
                    }
                })
                .collect();
            let css = match local(&e.name) {
                "style" => e.text_content(),
                _ => e.attr("style").unwrap_or("").to_string(),
            };
            urls.extend(css_urls(&css).into_iter().map(|(_, _, u)| u));
            for url in urls.into_iter().filter(|u| is_remote(u)) {
                let msg = format!("`<{}>` loads `{url}` from the web: {why}", local(&e.name));
                found.push(at.warning(codes::STORE_REMOTE_RESOURCE, path, e, msg, hint));
            }
        });
    }
    found
}

/// An image's width and height, read from its header.
fn dimensions(tree: &Tree, item: &Item) -> Option<(usize, usize)> {
    let bytes = tree.get(item.path.as_ref()?)?;
    let size = imagesize::blob_size(bytes).ok()?;
    Some((size.width, size.height))
}

/// Apple Books: no image of more than 5.6 million pixels.
pub(super) fn apple(tree: &Tree, pkg: &Package) -> Vec<Finding> {
    let mut found = Vec::new();
    for item in pkg.items_of("image/") {
        let Some((w, h)) = dimensions(tree, item) else {
            continue;
        };
        let pixels = (w as u64) * (h as u64);
        if pixels > APPLE_MAX_PIXELS {
            found.push(
                Finding::warning(
                    codes::STORE_IMAGE_SIZE,
                    Location::file(item.path.as_deref().unwrap_or(&item.href)),
                    format!(
                        "the image is {w}×{h} = {pixels} pixels; Apple Books takes none above {APPLE_MAX_PIXELS} ({APPLE_IMAGES}: \"Images within the EPUB cannot exceed 5.6 million pixels\")"
                    ),
                )
                .with_hint("scale the image down (Apple advises 1.5 times the size it is shown at)"),
            );
        }
    }
    found
}

/// Kindle: the cover, SVG with raster images, the NCX, fixed layout, writing mode and style
/// links.
pub(super) fn kdp(tree: &Tree, pkg: &Package, at: &Places) -> Vec<Finding> {
    let mut found = kdp_cover(tree, pkg);
    found.extend(kdp_ncx(tree, pkg));
    let opf = Location::new(&pkg.path, pkg.metadata_pos.line, pkg.metadata_pos.col);
    if pkg.fixed_layout() && pkg.named("original-resolution").is_none() {
        found.push(Finding::warning(
            codes::STORE_FIXED_LAYOUT,
            opf.clone(),
            format!(
                "the book is fixed-layout but its package has no `<meta name=\"original-resolution\" content=\"WIDTHxHEIGHT\"/>`, which Kindle requires ({KPG}, fixed-layout metadata: original-resolution \"Required\")"
            ),
        ).with_hint("add it with the pixel size the pages were designed at"));
    }
    let wanted = if vertical(tree, pkg) {
        Some("vertical-rl")
    } else if pkg.rtl {
        Some("horizontal-rl")
    } else {
        None
    };
    if let Some(mode) = wanted
        && pkg.named("primary-writing-mode") != Some(mode)
    {
        found.push(Finding::warning(
            codes::STORE_WRITING_MODE,
            opf,
            format!(
                "the book is written {} but its package lacks `<meta name=\"primary-writing-mode\" content=\"{mode}\"/>`: Kindle lays it out left to right without it ({KPG}, metadata primary-writing-mode: horizontal-lr by default)",
                if mode == "vertical-rl" { "vertically" } else { "right to left" }
            ),
        ));
    }
    for item in pkg
        .items_of("application/xhtml+xml")
        .chain(pkg.items_of("image/svg+xml"))
    {
        let (Some(path), Some(doc)) = (&item.path, item.path.as_ref().and_then(|p| parse(tree, p)))
        else {
            continue;
        };
        let svg_file = item.media_type == "image/svg+xml";
        walk_path(&doc.root, &mut |chain| {
            let e = chain[chain.len() - 1];
            match local(&e.name) {
                "link" => found.extend(style_link_type(path, e, at)),
                "image" => found.extend(svg_raster(path, chain, svg_file, at)),
                _ => {}
            }
        });
    }
    found
}

fn kdp_cover(tree: &Tree, pkg: &Package) -> Vec<Finding> {
    let Some(cover) = pkg.cover() else {
        return vec![Finding::warning(
            codes::STORE_COVER,
            Location::file(&pkg.path),
            format!(
                "the package names no cover image (`properties=\"cover-image\"`); Kindle books carry one ({KPG} §4.2 Internal Content Cover Image Is Mandatory)"
            ),
        )];
    };
    let Some((w, h)) = dimensions(tree, cover) else {
        return Vec::new();
    };
    let at = Location::file(cover.path.as_deref().unwrap_or(&cover.href));
    let short = w.min(h);
    let mut found = Vec::new();
    if short < KDP_COVER_MIN_SIDE {
        found.push(Finding::warning(
            codes::STORE_COVER,
            at.clone(),
            format!("the cover is {w}×{h}; KDP takes no cover under 625×1000 pixels and recommends 1600×2560 ({KDP_COVER}: \"The minimum image size allowed is 1,000 x 625 pixels\")"),
        ).with_hint("make the cover 1600×2560 pixels"));
    }
    let ratio = h as f64 / w.max(1) as f64;
    if (ratio - KDP_COVER_RATIO).abs() > KDP_COVER_RATIO * 0.1 {
        found.push(Finding::warning(
            codes::STORE_COVER,
            at,
            format!("the cover is {w}×{h}, a height/width ratio of {ratio:.2}; KDP's is 1.6 ({KDP_COVER}: \"The ideal size of your eBook cover art is a height/width ratio of 1.6:1\", ideally 1600×2560)"),
        ).with_hint("make the cover 1600×2560 pixels"));
    }
    found
}

/// The depth of nested `tag` elements under `root` (1: flat).
fn depth(root: &Element, tag: &str) -> usize {
    fn go(e: &Element, tag: &str) -> usize {
        let below = e.child_elements().map(|c| go(c, tag)).max().unwrap_or(0);
        below + usize::from(local(&e.name) == tag)
    }
    go(root, tag)
}

fn kdp_ncx(tree: &Tree, pkg: &Package) -> Vec<Finding> {
    let opf = Location::file(&pkg.path);
    let ncx = (pkg.spine_toc.as_ref())
        .and_then(|id| pkg.items.iter().find(|i| &i.id == id))
        .or_else(|| pkg.items_of("application/x-dtbncx+xml").next())
        .and_then(|i| i.path.clone())
        .and_then(|p| Some((parse(tree, &p)?, p)));
    let Some((ncx, ncx_path)) = ncx else {
        return vec![Finding::warning(
            codes::STORE_NCX,
            opf,
            format!("the EPUB has no NCX; Kindle builds its logical table of contents from the NCX or the nav, and older devices only from the NCX ({KPG} §5.2 NCX Guidelines)"),
        ).with_hint("seihon writes item/toc.ncx: a hook may have removed it")];
    };
    let nav = pkg.items.iter().find(|i| i.has_property("nav"));
    let nav_depth = nav
        .and_then(|n| parse(tree, n.path.as_ref()?))
        .map(|doc| {
            let mut toc = 0;
            doc.root.walk(&mut |e| {
                if local(&e.name) == "nav"
                    && e.attr_local("type")
                        .is_some_and(|t| t.split_whitespace().any(|t| t == "toc"))
                {
                    toc = toc.max(depth(e, "ol"));
                }
            });
            toc
        })
        .unwrap_or(0);
    // Kindle shows two levels: the NCX should have them when the nav has.
    let wanted = nav_depth.min(2);
    let got = depth(&ncx.root, "navPoint");
    if got < wanted {
        return vec![Finding::warning(
            codes::STORE_NCX,
            Location::file(&ncx_path),
            format!(
                "the NCX is {got} level(s) deep where the nav's table of contents has {nav_depth}; Kindle devices show two levels of the NCX ({KPG} §5.2 NCX Guidelines: \"Kindle devices and applications support two levels of nesting\")"
            ),
        )];
    }
    Vec::new()
}

/// Whether the book is set vertically: its spine turns right to left and a page is
/// `writing-mode: vertical-rl` (seihon's `vrtl` class, a `style` attribute, or a rule for
/// `html`/`body` in a style sheet).
fn vertical(tree: &Tree, pkg: &Package) -> bool {
    let css_vertical = pkg.items_of("text/css").any(|i| {
        let css = String::from_utf8_lossy(
            i.path
                .as_ref()
                .and_then(|p| tree.get(p))
                .map_or(&[][..], |b| b),
        );
        css.split('}').any(|rule| {
            let Some((sel, decl)) = rule.split_once('{') else {
                return false;
            };
            let bare = sel
                .split(',')
                .any(|s| matches!(s.trim(), "html" | "body" | ":root"));
            bare && decl.contains("writing-mode") && decl.contains("vertical-rl")
        })
    });
    css_vertical
        || pkg.items_of("application/xhtml+xml").any(|i| {
            i.path
                .as_ref()
                .and_then(|p| parse(tree, p))
                .is_some_and(|doc| {
                    doc.root.has_class("vrtl")
                        || doc
                            .root
                            .child_elements()
                            .any(|b| b.attr("style").is_some_and(|s| s.contains("vertical-rl")))
                        || doc
                            .root
                            .attr("style")
                            .is_some_and(|s| s.contains("vertical-rl"))
                })
        })
}

fn style_link_type(path: &str, e: &Element, at: &Places) -> Option<Finding> {
    let sheet = e.attr("rel").is_some_and(|r| {
        r.split_whitespace()
            .any(|r| r.eq_ignore_ascii_case("stylesheet"))
    });
    if !sheet || e.attr("type").is_some_and(|t| t.trim() == "text/css") {
        return None;
    }
    Some(at.warning(
        codes::STORE_STYLE_LINK,
        path,
        e,
        format!("a style sheet is linked without `type=\"text/css\"`; Kindle's conversion may skip it ({KPG} §6.1 Constructing Well-Formed HTML Documents (XHTML))"),
        "add type=\"text/css\" to the link",
    ))
}

/// An SVG `<image>` with a raster image: KDP supports an `<svg>` whose one child is an
/// `<image>` (a wrapped cover or figure), never one embedded as `data:` or mixed with drawing.
fn svg_raster(path: &str, chain: &[&Element], svg_file: bool, at: &Places) -> Option<Finding> {
    let e = chain[chain.len() - 1];
    let href = e.attr_local("href")?;
    let lower = href.trim().to_ascii_lowercase();
    let data = lower.starts_with("data:");
    let raster = data
        || [".png", ".jpg", ".jpeg", ".gif", ".webp"]
            .iter()
            .any(|x| lower.split(['?', '#']).next().unwrap_or("").ends_with(x));
    if !raster {
        return None;
    }
    let svg = chain.iter().rev().find(|p| local(&p.name) == "svg")?;
    let alone = !svg_file
        && svg.child_elements().count() == 1
        && chain.len() >= 2
        && std::ptr::eq(chain[chain.len() - 2], *svg);
    if alone && !data {
        return None;
    }
    let what = if data {
        "a raster image embedded as `data:`"
    } else if svg_file {
        "a raster image inside an SVG file"
    } else {
        "a raster image mixed with vector drawing"
    };
    Some(at.warning(
        codes::STORE_SVG_RASTER,
        path,
        e,
        format!("an SVG holds {what}; Kindle supports an `<svg>` with only one `<image>` child, from a file of the book ({KPG} §10.4.11 Use Supported SVG Tags and Elements)"),
        "use the raster image as an `<img>` of its own, or draw the figure in SVG without it",
    ))
}

/// EBPAJ: the guide's folders and its version in the metadata.
pub(super) fn ebpaj(tree: &Tree, pkg: &Package) -> Vec<Finding> {
    let mut found = Vec::new();
    let opf = Location::new(&pkg.path, pkg.metadata_pos.line, pkg.metadata_pos.col);
    if !pkg.prefix.contains("ebpaj: http://www.ebpaj.jp/")
        || pkg.property("ebpaj:guide-version").is_none()
    {
        found.push(Finding::warning(
            codes::STORE_METADATA,
            opf,
            format!("the package does not declare the guide it follows: `prefix=\"ebpaj: http://www.ebpaj.jp/\"` on `<package>` and `<meta property=\"ebpaj:guide-version\">1.1.3</meta>` ({EBPAJ}, OPF メタデータ)"),
        ).with_hint("seihon writes both when it builds with `--profile ebpaj`"));
    }
    if pkg.path != "item/standard.opf" {
        found.push(Finding::warning(
            codes::STORE_LAYOUT,
            Location::file(&pkg.path),
            format!("the package document is `{}`, not `item/standard.opf` ({EBPAJ}, 基本的なフォルダ構成)", pkg.path),
        ));
    }
    // One finding per kind of file out of its folder, naming the first and the count.
    let folders = [
        ("application/xhtml+xml", "item/xhtml/", "pages"),
        ("text/css", "item/style/", "style sheets"),
        ("image/", "item/image/", "images"),
    ];
    for (media, folder, what) in folders {
        let astray: Vec<&str> = pkg
            .items_of(media)
            .filter(|i| !i.has_property("nav"))
            .filter_map(|i| i.path.as_deref())
            .filter(|p| !p.starts_with(folder))
            .collect();
        if let Some(first) = astray.first() {
            found.push(Finding::warning(
                codes::STORE_LAYOUT,
                Location::file(first),
                format!("{} of the book's {what} (`{first}` first) are not in `{folder}`, where the guide puts them ({EBPAJ}, 基本的なフォルダ構成: item/xhtml, item/style, item/image)", astray.len()),
            ));
        }
    }
    let outside: Vec<&String> = (tree.keys())
        .filter(|p| *p != "mimetype" && !p.starts_with("META-INF/") && !p.starts_with("item/"))
        .collect();
    if let Some(first) = outside.first() {
        found.push(Finding::warning(
            codes::STORE_LAYOUT,
            Location::file(first.as_str()),
            format!("{} file(s) lie outside `item/` (`{first}` first) ({EBPAJ}, 基本的なフォルダ構成: every file of the book under item/)", outside.len()),
        ));
    }
    found
}

/// Kobo: images of at most 5 MB; a cover that is no GIF, named by `<meta name="cover">`, alone
/// in its page.
pub(super) fn kobo(tree: &Tree, pkg: &Package) -> Vec<Finding> {
    let mut found = Vec::new();
    for item in pkg.items_of("image/") {
        let Some(path) = &item.path else { continue };
        let Some(size) = tree.size(path) else {
            continue;
        };
        if size > KOBO_MAX_IMAGE_BYTES {
            found.push(Finding::warning(
                codes::STORE_IMAGE_SIZE,
                Location::file(path),
                format!("the image is {:.1} MB; Kobo advises no image above 5 MB ({KOBO}, Image Formatting: \"The advised maximum size for all image types is 5 MB\")", size as f64 / 1_048_576.0),
            ).with_hint("compress the image, or scale it down"));
        }
    }
    let Some(cover) = pkg.cover() else {
        return found;
    };
    let at = Location::file(cover.path.as_deref().unwrap_or(&cover.href));
    if cover.media_type == "image/gif" {
        found.push(Finding::warning(
            codes::STORE_COVER,
            at,
            format!("the cover is a GIF; Kobo does not take GIF covers ({KOBO}, Cover Images: \"GIF files are not supported for covers\")"),
        ).with_hint("save the cover as JPEG or PNG"));
    }
    if pkg.named("cover") != Some(cover.id.as_str()) {
        found.push(Finding::warning(
            codes::STORE_COVER,
            Location::file(&pkg.path),
            format!("the package has no `<meta name=\"cover\" content=\"{}\"/>`, by which Kobo finds the cover for its libraries ({KOBO}, Cover Images)", cover.id),
        ));
    }
    found.extend(kobo_cover_page(tree, pkg, cover));
    found
}

/// The page showing the cover image holds nothing else: Kobo's e-ink readers show it as
/// fixed layout.
fn kobo_cover_page(tree: &Tree, pkg: &Package, cover: &Item) -> Option<Finding> {
    let cover_path = cover.path.as_deref()?;
    for item in pkg.items_of("application/xhtml+xml") {
        let Some(path) = &item.path else { continue };
        let Some(doc) = parse(tree, path) else {
            continue;
        };
        let (mut shows, mut images, mut text) = (false, 0, String::new());
        doc.root.walk(&mut |e| match local(&e.name) {
            "img" | "image" => {
                images += 1;
                let src = e.attr("src").or_else(|| e.attr_local("href")).unwrap_or("");
                shows |= matches!(crate::check::resolve(path, src),
                    crate::check::Target::Local { path: p, .. } if p == cover_path);
            }
            "body" => text = e.text_content(),
            _ => {}
        });
        if shows && (images > 1 || !text.trim().is_empty()) {
            return Some(Finding::warning(
                codes::STORE_COVER,
                Location::file(path),
                format!("the page with the cover image holds other text or images; Kobo's e-ink readers show that page as fixed layout ({KOBO}, Cover Images: \"Cover images must be contained in their own XHTML files\")"),
            ).with_hint("give the cover a page of its own"));
        }
    }
    None
}
