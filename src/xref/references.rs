//! Cross-references (`@<list>{id}`, `@<chap>{ch02}`, `@<hd>{a|b}`, DocBook `xref`). In goes
//! a reference as written, with the targets pass 1 gathered; out comes a link whose text is
//! the target's number or title in Re:VIEW's wording, or, for a target that is not there, the
//! id as written with a warning at the reference.
use super::labels::{Labels, ObjectKind};
use super::{HeadingTarget, Linker, Resolver, Target};
use crate::book::Format;
use crate::codes;
use crate::doc::*;
use crate::error::{Finding, Location};

/// A reference found: where it links, what it shows, and the class of the span around it
/// (empty for none).
struct Found {
    href: String,
    text: String,
    class: &'static str,
}

/// A reference being resolved: where it is written and what it names.
struct Written<'w> {
    /// The chapter the reference is in.
    from: usize,
    /// The chapter it names (`ch02|id`), else the one it is in.
    chapter: usize,
    /// The id within that chapter.
    id: &'w str,
    labels: &'w Labels,
    loc: &'w Location,
}

impl Linker<'_, '_> {
    /// Turns a cross-reference into a link with generated text (Re:VIEW's wording).
    pub(super) fn reference(
        &mut self,
        ci: usize,
        labels: &Labels,
        kind: RefKind,
        target: &str,
        content: Option<Inlines>,
        loc: &Location,
    ) -> InlineKind {
        let (chapter, id) = self.chapter_and_id(ci, target);
        let written = Written {
            from: ci,
            chapter,
            id,
            labels,
            loc,
        };
        let found = match kind {
            RefKind::Chapter | RefKind::ChapterTitle | RefKind::ChapterRef => {
                self.chapter_ref(kind, target.trim(), labels)
            }
            RefKind::Listing
            | RefKind::Image
            | RefKind::ImageRef
            | RefKind::Table
            | RefKind::Equation
            | RefKind::Column => self.object_ref(kind, &written),
            RefKind::Heading | RefKind::SectionNumber | RefKind::SectionTitle => {
                self.heading_ref(kind, &written)
            }
            RefKind::Bib => self.bib_ref(&written),
            RefKind::Any => self.any_ref(&written),
        };
        // pandoc-crossref's ids are the whole book's: a Markdown reference finds its target
        // in any chapter.
        let found = match found {
            Err(message) if self.format_of(ci) == Format::Markdown && !target.contains('|') => self
                .in_any_chapter(ci, kind, target.trim(), labels, loc)
                .ok_or(message),
            found => found,
        };
        match found {
            Ok(found) => found.into_link(content, Pos::new(loc.line, loc.col)),
            // The DocBook reader already reported the missing target; the text stays.
            Err(_) if self.format_of(ci) == Format::DocBook => InlineKind::Text(target.to_string()),
            Err(message) => {
                self.warnings.push(Finding::warning(codes::UNKNOWN_REFERENCE, loc.clone(), format!("cannot resolve the reference `{target}`: {message}; its id is shown in its place")).with_hint(
                    "check the id (it is case-sensitive); for another chapter write `chapter|id`, e.g. `@<list>{ch02|sample}`",
                ));
                InlineKind::Text(target.to_string())
            }
        }
    }

    /// An object or section `id` in another chapter than `from`; a section not found so (a
    /// chapter's own heading) by its id anywhere.
    fn in_any_chapter(
        &mut self,
        from: usize,
        kind: RefKind,
        id: &str,
        labels: &Labels,
        loc: &Location,
    ) -> Option<Found> {
        let heading = matches!(
            kind,
            RefKind::Heading | RefKind::SectionNumber | RefKind::SectionTitle
        );
        for chapter in (0..self.infos.len()).filter(|&c| c != from) {
            let w = Written {
                from,
                chapter,
                id,
                labels,
                loc,
            };
            let found = if heading {
                self.heading_ref(kind, &w).ok()
            } else {
                self.object_ref(kind, &w).ok()
            };
            if found.is_some() {
                return found;
            }
        }
        let w = Written {
            from,
            chapter: from,
            id,
            labels,
            loc,
        };
        heading.then(|| self.any_ref(&w).ok()).flatten()
    }

    /// `@<chap>`, `@<title>`, `@<chapref>`: a chapter by its Re:VIEW id.
    fn chapter_ref(&self, kind: RefKind, target: &str, labels: &Labels) -> Result<Found, String> {
        let Some(&c) = self.by_review_id.get(target) else {
            return Err(format!("there is no chapter `{target}` in the catalog"));
        };
        let info = &self.infos[c];
        let text = match (kind, &info.number) {
            (RefKind::Chapter, Some(n)) => n.clone(),
            (RefKind::ChapterRef, n) => labels.chapter_quote(n.as_deref(), &info.title),
            _ => info.title.clone(),
        };
        Ok(Found {
            href: format!("{}.xhtml", info.stem),
            text,
            class: "",
        })
    }

    /// `@<list>`, `@<img>`, `@<imgref>`, `@<table>`, `@<eq>`, `@<column>`: a numbered object.
    fn object_ref(&self, kind: RefKind, w: &Written) -> Result<Found, String> {
        let (object, class, what) = match kind {
            RefKind::Listing => (ObjectKind::Listing, "listref", "listing"),
            RefKind::Image | RefKind::ImageRef => (ObjectKind::Image, "imgref", "figure"),
            RefKind::Table => (ObjectKind::Table, "tableref", "table"),
            RefKind::Equation => (ObjectKind::Equation, "eqref", "equation"),
            _ => (ObjectKind::Column, "columnref", "column"),
        };
        let Some(t) = self.find_object(w.chapter, object, w.id) else {
            let place = self.chapter_name(w.chapter, w.from);
            return Err(format!("there is no {what} `{}` in {place}", w.id));
        };
        let number = t.number.clone().unwrap_or_default();
        let text = match kind {
            RefKind::ImageRef => format!("{number}{}", w.labels.image_quote(&t.caption)),
            RefKind::Column => w.labels.column(&t.caption),
            _ if number.is_empty() => w.labels.image_quote(&t.caption),
            _ => number,
        };
        Ok(Found {
            href: self.ref_href(w.from, t.chapter, &t.id),
            text,
            class,
        })
    }

    /// `@<hd>`, `@<sec>`, `@<sectitle>`: a section by label, caption or `parent|child` path.
    fn heading_ref(&mut self, kind: RefKind, w: &Written) -> Result<Found, String> {
        let h = self.find_heading(w.chapter, w.id)?;
        let text = match (kind, &h.number) {
            (RefKind::SectionNumber, Some(n)) => n.clone(),
            (RefKind::SectionNumber, None) => {
                self.warnings.push(Finding::warning(
                    codes::UNKNOWN_REFERENCE,
                    w.loc.clone(),
                    format!("the section `{}` has no number; its title is shown", w.id),
                ));
                h.caption.clone()
            }
            (RefKind::SectionTitle, _) => h.caption.clone(),
            (_, n) => w.labels.heading_quote(n.as_deref(), &h.caption),
        };
        Ok(Found {
            href: self.ref_href(w.from, w.chapter, &h.id),
            text,
            class: "hd",
        })
    }

    /// `@<bib>`: a bibliography entry, shown as its number in brackets.
    fn bib_ref(&self, w: &Written) -> Result<Found, String> {
        let Some(t) = self.bib.get(w.id) else {
            let id = w.id;
            return Err(format!(
                "there is no bibliography entry `{id}` (`//bibpaper[{id}]…`)"
            ));
        };
        Ok(Found {
            href: self.ref_href(w.from, t.chapter, &t.id),
            text: format!("[{}]", t.number.clone().unwrap_or_default()),
            class: "bibref",
        })
    }

    /// A DocBook `xref`: any element by id, showing its number or title, else its id.
    fn any_ref(&mut self, w: &Written) -> Result<Found, String> {
        let Some((target_chapter, id, text)) = self.any_target(w.chapter, w.id, w.labels) else {
            // A bibliography entry (db `biblioentry`): its label in brackets, as its entry
            // shows it, unless the reader gave a text (an `xreflabel`).
            if let Some(t) = self.bib.get(w.id) {
                let given = self.xref_texts.get(w.id).filter(|t| !t.trim().is_empty());
                let text = given
                    .cloned()
                    .unwrap_or_else(|| format!("[{}]", t.number.clone().unwrap_or_default()));
                return Ok(Found {
                    href: self.ref_href(w.from, t.chapter, &t.id),
                    text,
                    class: "",
                });
            }
            return Err(format!("no element in the book has the id `{}`", w.id));
        };
        let docbook = self.infos[w.from].format == Format::DocBook;
        let text = text.unwrap_or_else(|| {
            // The DocBook reader has already reported a target without text.
            if docbook {
                return w.id.to_string();
            }
            self.warnings.push(
                Finding::warning(
                    codes::UNKNOWN_REFERENCE,
                    w.loc.clone(),
                    format!(
                        "the target `{}` has no title or label, so the link shows its id",
                        w.id
                    ),
                )
                .with_hint(
                    "give the target an xreflabel or a title, or write the link text yourself",
                ),
            );
            w.id.to_string()
        });
        Ok(Found {
            href: self.ref_href(w.from, target_chapter, &id),
            text,
            class: "",
        })
    }
}

impl Found {
    /// The link, with the author's text when they wrote one, in a span of its class.
    fn into_link(self, content: Option<Inlines>, pos: Pos) -> InlineKind {
        let link = Inline::new(
            InlineKind::Link {
                href: self.href,
                content: content.unwrap_or_else(|| vec![Inline::text(self.text, pos)]),
            },
            pos,
        );
        if self.class.is_empty() {
            link.kind
        } else {
            InlineKind::Span {
                class: self.class.into(),
                content: vec![link],
            }
        }
    }
}

impl Resolver<'_> {
    /// Splits `ch02|id` into the chapter and the id when `ch02` is a chapter; anything else is
    /// an id in chapter `ci`.
    fn chapter_and_id<'t>(&self, ci: usize, target: &'t str) -> (usize, &'t str) {
        target
            .split_once('|')
            .and_then(|(c, rest)| Some((*self.by_review_id.get(c.trim())?, rest.trim())))
            .unwrap_or((ci, target.trim()))
    }

    /// The link to an id in `chapter` from chapter `from`: a bare fragment within the page.
    fn ref_href(&self, from: usize, chapter: usize, id: &str) -> String {
        if chapter == from {
            format!("#{id}")
        } else {
            format!("{}.xhtml#{id}", self.infos[chapter].stem)
        }
    }

    /// An object by its written id; an image id can also be a table given as an image
    /// (`//imgtable`).
    fn find_object(&self, chapter: usize, object: ObjectKind, id: &str) -> Option<Target> {
        self.objects
            .get(&(chapter, object, id.to_string()))
            .cloned()
            .or_else(|| {
                (object == ObjectKind::Table)
                    .then(|| {
                        self.objects
                            .get(&(chapter, ObjectKind::Image, id.to_string()))
                            .cloned()
                    })
                    .flatten()
            })
    }

    /// An element by id anywhere in the book (the given chapter first), with the text a link to
    /// it shows: number and title for chapters and sections, the number of a numbered object,
    /// else the reader's text for it (an `xreflabel`), else `None`.
    fn any_target(
        &self,
        chapter: usize,
        written: &str,
        labels: &Labels,
    ) -> Option<(usize, String, Option<String>)> {
        let order = std::iter::once(chapter).chain((0..self.infos.len()).filter(|&c| c != chapter));
        let (c, id) = order
            .into_iter()
            .find_map(|c| self.local[c].get(written).map(|id| (c, id.clone())))?;
        let given = self
            .xref_texts
            .get(written)
            .filter(|t| !t.trim().is_empty())
            .cloned();
        let info = &self.infos[c];
        // An `xreflabel` (a text the reader gives that is not the target's title) is shown
        // as written, as DocBook XSL shows it.
        let label_of = |title: &str| given.clone().filter(|g| squash(g) != squash(title));
        let text = if info.title_id.as_deref() == Some(id.as_str()) {
            Some(match (&info.number, label_of(&info.title)) {
                (_, Some(l)) => l,
                (Some(n), None) => labels.xref_chapter(info.appendix, n, &info.title),
                (None, None) => info.title.clone(),
            })
        } else if let Some(h) = self.headings[c].iter().find(|h| h.id == id) {
            Some(
                label_of(&h.caption)
                    .unwrap_or_else(|| labels.xref_section(h.number.as_deref(), &h.caption)),
            )
        } else if let Some(t) = self
            .objects
            .iter()
            .find(|((oc, _, _), t)| *oc == c && t.id == id)
            .map(|(_, t)| t)
        {
            label_of(&t.caption)
                .or_else(|| t.number.as_ref().map(|n| labels.xref_object(n, &t.caption)))
                .or(given)
                .or_else(|| (!t.caption.is_empty()).then(|| labels.image_quote(&t.caption)))
        } else {
            given
        };
        Some((c, id, text.filter(|t| !t.trim().is_empty())))
    }

    fn format_of(&self, ci: usize) -> Format {
        self.infos[ci].format
    }

    fn chapter_name(&self, chapter: usize, current: usize) -> String {
        if chapter == current {
            "this chapter".into()
        } else {
            format!("chapter `{}`", self.infos[chapter].review_id)
        }
    }

    /// A heading by label or caption, optionally as a `parent|child` path.
    fn find_heading(&self, chapter: usize, path: &str) -> Result<HeadingTarget, String> {
        let parts: Vec<&str> = path.split('|').map(str::trim).collect();
        let Some((last, parents)) = parts.split_last() else {
            return Err("the reference is empty".into());
        };
        let matches = |name: &str, label: &Option<String>, caption: &str| {
            label.as_deref() == Some(name) || caption == name
        };
        let found: Vec<&HeadingTarget> = self.headings[chapter]
            .iter()
            .filter(|h| matches(last, &h.label, &h.caption))
            .filter(|h| {
                parents
                    .iter()
                    .all(|p| h.ancestors.iter().any(|(l, c)| matches(p, l, c)))
            })
            .collect();
        match found.as_slice() {
            [one, ..] => Ok((*one).clone()),
            [] => Err(format!(
                "there is no section `{path}` in {}",
                if chapter == usize::MAX {
                    ""
                } else {
                    "that chapter"
                }
            )),
        }
    }
}

/// Whitespace collapsed, for comparing a reader's text with a title.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
