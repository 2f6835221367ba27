//! The package document as the store rules read it: the manifest, the metadata they look at,
//! the spine's direction and its NCX.
use super::{Tree, parse};
use crate::check::{Target, local, resolve};
use crate::dom::Pos;

/// One manifest item.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    /// Resolved to a path inside the EPUB (None when remote or outside it).
    pub path: Option<String>,
    pub href: String,
    pub media_type: String,
    pub properties: String,
}

impl Item {
    pub fn has_property(&self, p: &str) -> bool {
        self.properties.split_ascii_whitespace().any(|x| x == p)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Package {
    /// Where the package document is, inside the EPUB.
    pub path: String,
    /// `package/@prefix`, as written.
    pub prefix: String,
    pub items: Vec<Item>,
    /// `<meta property="…">text</meta>`, by property.
    pub properties: Vec<(String, String)>,
    /// `<meta name="…" content="…"/>`, by name.
    pub named: Vec<(String, String)>,
    pub rtl: bool,
    /// The id `spine/@toc` names.
    pub spine_toc: Option<String>,
    /// Where `<metadata>` starts, for findings about what it lacks.
    pub metadata_pos: Pos,
}

impl Package {
    /// The package document named by `META-INF/container.xml`.
    pub fn read(tree: &Tree) -> Option<Package> {
        let container = parse(tree, "META-INF/container.xml")?;
        let mut path = None;
        container.root.walk(&mut |e| {
            if path.is_none() && local(&e.name) == "rootfile" {
                path = e.attr("full-path").map(str::to_string);
            }
        });
        let path = path?;
        let opf = parse(tree, &path)?;
        let mut pkg = Package {
            prefix: opf.root.attr("prefix").unwrap_or("").to_string(),
            path,
            ..Default::default()
        };
        opf.root.walk(&mut |e| match local(&e.name) {
            "metadata" => pkg.metadata_pos = e.pos.unwrap_or_default(),
            "item" => {
                let href = e.attr("href").unwrap_or("").to_string();
                pkg.items.push(Item {
                    id: e.attr("id").unwrap_or("").to_string(),
                    path: match resolve(&pkg.path, &href) {
                        Target::Local { path, .. } => Some(path),
                        _ => None,
                    },
                    href,
                    media_type: e.attr("media-type").unwrap_or("").to_string(),
                    properties: e.attr("properties").unwrap_or("").to_string(),
                });
            }
            "meta" => {
                if let Some(p) = e.attr("property") {
                    pkg.properties
                        .push((p.to_string(), e.text_content().trim().to_string()));
                } else if let (Some(n), Some(c)) = (e.attr("name"), e.attr("content")) {
                    pkg.named.push((n.to_string(), c.to_string()));
                }
            }
            "spine" => {
                pkg.rtl = e.attr("page-progression-direction") == Some("rtl");
                pkg.spine_toc = e.attr("toc").map(str::to_string);
            }
            _ => {}
        });
        Some(pkg)
    }

    /// The text of `<meta property=name>`.
    pub fn property(&self, name: &str) -> Option<&str> {
        (self.properties.iter())
            .find(|(p, _)| p == name)
            .map(|(_, v)| v.as_str())
    }

    /// The content of `<meta name=name>`.
    pub fn named(&self, name: &str) -> Option<&str> {
        (self.named.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The items of a media type family (`image/`), or one media type.
    pub fn items_of<'a>(&'a self, media: &'a str) -> impl Iterator<Item = &'a Item> + 'a {
        self.items
            .iter()
            .filter(move |i| i.media_type.starts_with(media))
    }

    /// The cover image: the item with `properties="cover-image"`, else the one EPUB 2's
    /// `<meta name="cover">` names.
    pub fn cover(&self) -> Option<&Item> {
        (self.items.iter().find(|i| i.has_property("cover-image"))).or_else(|| {
            let id = self.named("cover")?;
            self.items.iter().find(|i| i.id == id)
        })
    }

    /// Whether the book is laid out in fixed pages (`rendition:layout pre-paginated`, or
    /// Kindle's own `fixed-layout` meta).
    pub fn fixed_layout(&self) -> bool {
        self.property("rendition:layout") == Some("pre-paginated")
            || self.named("fixed-layout") == Some("true")
    }
}
