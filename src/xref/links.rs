//! Links, in pass 2. In goes a link as written; out comes what the EPUB carries ([`LinkTo`]):
//! a web address as it is or repaired, a link between source files as one between XHTML files
//! with its fragment as the id in the output, or, for a link that cannot be used, a warning at
//! it (its text stays, without the link).
use std::path::Path;

use super::ids::{has_scheme, percent_decode};
use super::{LinkTo, Linker, normalize};
use crate::codes;
use crate::dom::Node;
use crate::error::{Finding, Location};

impl Linker<'_, '_> {
    /// Where a link goes in the EPUB; what cannot be used is reported here.
    pub(super) fn link_to(&mut self, href: &str, ci: usize, dir: &Path, loc: &Location) -> LinkTo {
        match self.external_link(href, loc) {
            Some(to) => to,
            None => match self.link(href, ci, dir, loc) {
                Some(new) => LinkTo::Rewritten(new),
                None => LinkTo::Nowhere,
            },
        }
    }

    /// Checks a link with a URL scheme: `None` when it has none (a link inside the book).
    /// epubcheck rejects URLs with unregistered schemes or with spaces in the host, which real
    /// books have (`localhost:631/help`, `http://example .net/`): those are fixed or unlinked,
    /// with a warning at the link.
    fn external_link(&mut self, href: &str, loc: &Location) -> Option<LinkTo> {
        if !has_scheme(href) {
            return None;
        }
        const SCHEMES: &[&str] = &[
            "http", "https", "mailto", "ftp", "ftps", "sftp", "tel", "sms", "urn", "news", "nntp",
            "irc", "ircs", "git", "ssh", "doi", "geo", "xmpp",
        ];
        let scheme = href.split(':').next().unwrap_or("").to_ascii_lowercase();
        // epubcheck refuses `file:` addresses (RSC-030): they point into one computer's files.
        if scheme == "file" {
            self.warnings.push(
                Finding::warning(codes::REMOTE_RESOURCE, loc.clone(), format!("the link `{href}` points into a computer's files, which no reader has; its text is kept without the link"))
                    .with_hint("link to a web address, or to a chapter or section of the book"),
            );
            return Some(LinkTo::Nowhere);
        }
        if !SCHEMES.contains(&scheme.as_str()) {
            self.warnings.push(
                Finding::warning(codes::BROKEN_LINK, loc.clone(), format!("`{href}` is not a web address (`{scheme}:` is not a URL scheme); its text is kept without the link"))
                    .with_hint("write the full address, e.g. http://localhost:631/"),
            );
            return Some(LinkTo::Nowhere);
        }
        let Some(rest) = href.strip_prefix(&format!("{}://", &href[..scheme.len()])) else {
            // `http:golang.org/x`, `https:/x.org`: the URL standard reads the host after the
            // scheme of a web address whatever the slashes; epubcheck refuses it (RSC-020).
            if ["http", "https", "ftp"].contains(&scheme.as_str()) {
                let after = href[scheme.len() + 1..].trim_start_matches(['/', '\\']);
                if after.is_empty() {
                    self.warnings.push(Finding::warning(
                        codes::BROKEN_LINK,
                        loc.clone(),
                        format!("`{href}` names no address; its text is kept without the link"),
                    ));
                    return Some(LinkTo::Nowhere);
                }
                let fixed = format!("{scheme}://{after}");
                self.warnings.push(Finding::warning(
                    codes::REPAIRED_LINK,
                    loc.clone(),
                    format!("the address `{href}` lacks the `//` after `{scheme}:`; the link goes to `{fixed}`"),
                ));
                return Some(LinkTo::Rewritten(fixed));
            }
            return Some(LinkTo::Written);
        };
        let (authority, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
        if authority.contains(' ') || authority.contains("%20") {
            let host: String = authority.replace("%20", "").split_whitespace().collect();
            let fixed = format!("{}://{host}{path}", &href[..scheme.len()]);
            self.warnings.push(Finding::warning(
                codes::REPAIRED_LINK,
                loc.clone(),
                format!(
                    "the address `{href}` has a space in its host name; the link goes to `{fixed}`"
                ),
            ));
            return Some(LinkTo::Rewritten(fixed));
        }
        if path.contains(' ') {
            return Some(LinkTo::Rewritten(href.replace(' ', "%20")));
        }
        Some(LinkTo::Written)
    }

    /// Rewrites a link between source files into one between XHTML files.
    fn link(&mut self, href: &str, ci: usize, dir: &Path, loc: &Location) -> Option<String> {
        if has_scheme(href) {
            return None;
        }
        let (path, fragment) = match href.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (href, None),
        };
        let target = if path.is_empty() {
            ci
        } else {
            self.linked_chapter(path, dir, loc)?
        };
        let fragment = match fragment {
            Some(frag) => Some(self.fragment(frag, target, loc)?),
            None => None,
        };
        // A bare `#id` stays within the page; anything else names the target's file.
        let file = if path.is_empty() {
            String::new()
        } else {
            format!("{}.xhtml", self.infos[target].stem)
        };
        Some(match fragment {
            Some(f) => format!("{file}#{f}"),
            None => file,
        })
    }

    /// The chapter a link's path names, by its source file; `None` (reported) for none.
    fn linked_chapter(&mut self, path: &str, dir: &Path, loc: &Location) -> Option<usize> {
        let rel = normalize(&dir.join(percent_decode(path)));
        // Re:VIEW authors link to the output name (`ch02.xhtml#x`), and references this pass
        // generated name the output file; accept both.
        let by_output = || self.by_output.get(path).copied();
        // A chapter file really named with a `%` (`100%25.md`) is found by its name as written.
        let as_written = || self.by_source.get(&normalize(&dir.join(path))).copied();
        let found = (self.by_source.get(&rel).copied())
            .or_else(as_written)
            .or_else(by_output);
        if found.is_none() {
            self.warnings.push(
                Finding::warning(codes::BROKEN_LINK, loc.clone(), format!("this link points to `{path}`, which is not a chapter of this book; its text is shown without the link"))
                    .with_hint("link to a chapter's source file (e.g. `ch02.md#section`), or write a full URL starting with https://"),
            );
        }
        found
    }

    /// A link's fragment as the id in the output of chapter `target`; `None` (reported, with
    /// the nearest id for a typo) when no element there has it.
    fn fragment(&mut self, frag: &str, target: usize, loc: &Location) -> Option<String> {
        let written = percent_decode(frag);
        let in_target = |(_, c): &(&String, &usize)| **c == target;
        if let Some(output) = self.local[target].get(&written).or_else(|| {
            self.ids
                .get_key_value(&written)
                .filter(in_target)
                .map(|(k, _)| k)
        }) {
            return Some(output.clone());
        }
        // The nearest id of the chapter linked to, for a typo (`#setpu`).
        let nearest = self.local[target]
            .keys()
            .chain(self.ids.iter().filter(in_target).map(|(k, _)| k))
            .map(|id| (strsim::jaro_winkler(&written, id), id))
            .filter(|(score, _)| *score > 0.85)
            .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)));
        let hint = match nearest {
            Some((_, id)) => format!("did you mean `#{id}`?"),
            None => {
                "give the heading an id (`## Title {#id}`, `=={id} Title`) and link to it".into()
            }
        };
        self.warnings.push(
            Finding::warning(codes::BROKEN_FRAGMENT, loc.clone(), format!("this link points to `#{written}`, but no heading or element has that id there; its text is shown without the link"))
                .with_hint(hint),
        );
        None
    }

    /// The links of raw XHTML (`<a href>` in Markdown's inline HTML, in `//raw`) resolved as
    /// the manuscript's own are: a link to a source file goes to its page, and one that cannot
    /// be used (reported) keeps its text in a `span.unlinked`, so the EPUB never carries a link
    /// to nowhere. SVG and MathML links are left as written.
    pub(super) fn raw_links(&mut self, nodes: &mut [Node], ci: usize, dir: &Path, loc: &Location) {
        for node in nodes {
            let Node::Element(e) = node else { continue };
            match e.local_name() {
                "svg" | "math" => continue,
                "a" => {
                    let href = e.attr("href").unwrap_or_default().trim().to_string();
                    if !href.is_empty() {
                        match self.link_to(&href, ci, dir, loc) {
                            LinkTo::Written => {}
                            LinkTo::Rewritten(new) => e.set_attr("href", new),
                            LinkTo::Nowhere => {
                                e.name = "span".into();
                                for attr in
                                    ["href", "target", "rel", "hreflang", "type", "download"]
                                {
                                    e.remove_attr(attr);
                                }
                                e.add_class("unlinked");
                            }
                        }
                    }
                }
                _ => {}
            }
            self.raw_links(&mut e.children, ci, dir, loc);
        }
    }
}
