//! Inline elements: emphasis, code-like elements, links and cross-references, footnotes…
use super::blocks::{anchor_inline, find_desc, to_mathml, trim_inlines};
use super::*;

/// Elements that render as code (their text content).
fn is_code(name: &str) -> bool {
    matches!(
        name,
        "literal"
            | "code"
            | "command"
            | "filename"
            | "option"
            | "envar"
            | "varname"
            | "function"
            | "parameter"
            | "classname"
            | "constant"
            | "type"
            | "methodname"
            | "property"
            | "systemitem"
            | "computeroutput"
            | "prompt"
            | "markup"
            | "tag"
            | "sgmltag"
            | "uri"
            | "token"
            | "symbol"
            | "structname"
            | "structfield"
            | "returnvalue"
            | "errorcode"
            | "errorname"
            | "errortype"
            | "errortext"
            | "interfacename"
            | "exceptionname"
            | "ooclass"
            | "ooexception"
            | "oointerface"
            | "initializer"
            | "modifier"
            | "varargs"
            | "void"
            | "literallayout_"
            | "package"
            | "namespace"
            | "macroname"
            | "database"
            | "keycode"
            | "msgtext"
    )
}

fn is_span(name: &str) -> bool {
    matches!(
        name,
        "guimenu"
            | "guibutton"
            | "guilabel"
            | "guimenuitem"
            | "guisubmenu"
            | "guiicon"
            | "keycap"
            | "keysym"
            | "accel"
            | "mousebutton"
            | "acronym"
            | "abbrev"
            | "application"
            | "productname"
            | "productnumber"
            | "hardware"
            | "interface"
            | "orgname"
            | "personname"
            | "author"
            | "editor"
            | "othercredit"
            | "firstname"
            | "surname"
            | "honorific"
            | "lineage"
            | "othername"
            | "remark"
            | "comment"
            | "citation"
            | "date"
            | "pubdate"
            | "edition"
            | "publishername"
            | "holder"
            | "year"
            | "street"
            | "city"
            | "country"
            | "postcode"
            | "state"
            | "pob"
            | "phone"
            | "fax"
            | "shortaffil"
            | "jobtitle"
            | "label"
            | "revnumber"
            | "authorinitials"
            | "keywordset"
            | "keyword"
            | "subjectset"
            | "orgdiv"
            | "contrib"
            | "affiliation"
            | "corpauthor"
            | "collab"
            | "publisher"
            | "issuenum"
            | "volumenum"
            | "pagenums"
            | "isbn"
            | "issn"
            | "biblioid"
            | "releaseinfo"
            | "refentrytitle"
            | "manvolnum"
            | "refname"
            | "refpurpose"
            | "lineannotation"
    )
}

/// Elements read in inline context.
pub(super) fn is_inline(name: &str) -> bool {
    is_code(name)
        || is_span(name)
        || matches!(
            name,
            "emphasis"
                | "userinput"
                | "replaceable"
                | "menuchoice"
                | "keycombo"
                | "shortcut"
                | "quote"
                | "citetitle"
                | "firstterm"
                | "foreignphrase"
                | "wordasword"
                | "glossterm"
                | "trademark"
                | "subscript"
                | "superscript"
                | "phrase"
                | "xref"
                | "link"
                | "ulink"
                | "olink"
                | "email"
                | "footnote"
                | "footnoteref"
                | "anchor"
                | "beginpage"
                | "indexterm"
                | "inlinemediaobject"
                | "inlinegraphic"
                | "inlineequation"
                | "co"
                | "coref"
                | "citerefentry"
                | "optional"
                | "term"
                | "member"
                | "alt"
                | "mathphrase"
                | "title"
                | "attribution"
                | "biblioref"
                | "ref"
                | "authorgroup"
        )
}

impl Conv<'_> {
    /// The inline content of an element.
    pub(super) fn inlines(&mut self, el: &Element) -> Inlines {
        let mut out = Vec::new();
        self.inline_children(el, &mut out);
        if !self.verbatim {
            trim_inlines(&mut out);
        }
        out
    }

    fn inline_children(&mut self, el: &Element, out: &mut Inlines) {
        for n in &el.children {
            match n {
                // Text has no position of its own: it is at its element's.
                Node::Text(t) => self.text(t, pos_of(el), out),
                Node::Element(c) => self.inline(c, out),
                Node::Comment(_) => {}
            }
        }
    }

    /// The element's own id as an anchor, then its content.
    pub(super) fn inline_children_with_id(&mut self, el: &Element, out: &mut Inlines) {
        if let Some(id) = el.id() {
            out.push(anchor_inline(id, pos_of(el)));
        }
        self.inline_children(el, out);
    }

    /// Like [`Conv::inline`], without the "not handled" warning (bibliography entries hold
    /// many metadata elements we read for their text): an element we do not know is read for
    /// its content, whose anchors and links are kept.
    pub(super) fn inline_quiet(&mut self, el: &Element, out: &mut Inlines) {
        if is_inline(el.local_name()) {
            self.inline(el, out);
            return;
        }
        if let Some(id) = el.id() {
            out.push(anchor_inline(id, pos_of(el)));
        }
        for n in &el.children {
            match n {
                Node::Text(t) => self.text(t, pos_of(el), out),
                Node::Element(c) => self.inline_quiet(c, out),
                Node::Comment(_) => {}
            }
        }
    }

    /// A person's name from its parts, in DocBook XSL's order and spacing (`person.name`):
    /// `Dr. Ken Q Burtch, Jr.` (first-last), surname first where the language's names are
    /// written so (Japanese: family-given). `None` when the element has no name parts.
    fn person_name(&mut self, el: &Element) -> Option<Inlines> {
        let el = el.child("personname").unwrap_or(el);
        let part = |name: &str| find_desc(el, name);
        let (honorific, first, other, surname, lineage) = (
            part("honorific"),
            part("firstname").or_else(|| part("givenname")),
            part("othername"),
            part("surname"),
            part("lineage"),
        );
        if [honorific, first, other, surname, lineage]
            .iter()
            .all(Option::is_none)
        {
            return None;
        }
        let family_given = self.lang.as_deref().is_some_and(|l| l.starts_with("ja"));
        let mut out = Vec::new();
        let pos = pos_of(el);
        let order = if family_given {
            [surname, first, None, None]
        } else {
            [honorific, first, other, surname]
        };
        for (i, p) in order.into_iter().enumerate() {
            let Some(p) = p else { continue };
            if !out.is_empty() {
                push_merged(&mut out, Inline::text(" ", pos));
            }
            out.extend(self.inlines(p));
            if i == 0 && !family_given {
                // DocBook XSL's `punct.honorific`.
                push_merged(&mut out, Inline::text(".", pos));
            }
        }
        if let Some(l) = lineage.filter(|_| !family_given) {
            push_merged(&mut out, Inline::text(", ", pos));
            out.extend(self.inlines(l));
        }
        Some(out)
    }

    /// An `authorgroup`'s people as DocBook XSL lists them (`person.name.list`): `A and B`,
    /// `A, B, and C`.
    fn person_list(&mut self, el: &Element, out: &mut Inlines) {
        let people: Vec<&Element> = el.child_elements().collect();
        let n = people.len();
        for (i, p) in people.into_iter().enumerate() {
            let pos = pos_of(p);
            match (i, n) {
                (0, _) => {}
                (1, 2) => push_merged(out, Inline::text(" and ", pos)),
                (i, n) if i + 1 == n => push_merged(out, Inline::text(", and ", pos)),
                _ => push_merged(out, Inline::text(", ", pos)),
            }
            self.inline_quiet(p, out);
        }
    }

    /// Text: whitespace runs collapse to one space, except in listings. A run that holds a line
    /// break between two East Asian wide characters (not Hangul) goes altogether: it is where
    /// the source was wrapped, not a space the author typed (CSS Text's segment break rule,
    /// which Re:VIEW and pandoc apply to Japanese and Chinese too).
    pub(super) fn text(&mut self, s: &str, pos: Pos, out: &mut Inlines) {
        if s.is_empty() {
            return;
        }
        let t = if self.verbatim {
            s.to_string()
        } else {
            let cjk = |c: char| crate::eaw::is_wide(c) && !crate::eaw::is_hangul(c);
            let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
            let mut t = String::with_capacity(s.len());
            // Inside a whitespace run: whether it holds a line break.
            let mut run: Option<bool> = None;
            // Word by word (white space is ASCII, so a word's bounds are characters' bounds):
            // pushing character by character took a third of converting a book.
            let mut rest = s;
            while let Some(&b) = rest.as_bytes().first() {
                if space(&b) {
                    run = Some(run.unwrap_or(false) || matches!(b, b'\n' | b'\r'));
                    rest = &rest[1..];
                    continue;
                }
                let end = rest.as_bytes().iter().position(space).unwrap_or(rest.len());
                let (word, after) = rest.split_at(end);
                if let Some(wrapped) = run.take()
                    && !(wrapped
                        && t.chars().next_back().is_some_and(cjk)
                        && word.chars().next().is_some_and(cjk))
                {
                    t.push(' ');
                }
                t.push_str(word);
                rest = after;
            }
            if run.is_some() {
                t.push(' ');
            }
            if t.starts_with(' ')
                && let Some(Inline {
                    kind: InlineKind::Text(prev),
                    ..
                }) = out.last()
                && prev.ends_with(' ')
            {
                t.remove(0);
            }
            t
        };
        if !t.is_empty() {
            push_merged(out, Inline::text(t, pos));
        }
    }

    fn code_text(&self, el: &Element) -> String {
        let text = el.text();
        if self.verbatim { text } else { squash(&text) }
    }

    /// The index terms marked inside a code-like element (`<command>ls<indexterm>…`), whose
    /// text is not the code's: they follow the code as terms of their own.
    fn index_terms_in(&mut self, el: &Element, out: &mut Inlines) {
        let mut terms = Vec::new();
        el.walk(&mut |e| {
            if e.local_name() == "indexterm" {
                terms.push(e);
            }
        });
        for term in terms {
            self.inline(term, out);
        }
    }

    /// One inline element.
    pub(super) fn inline(&mut self, el: &Element, out: &mut Inlines) {
        // An element in another language says so around what it becomes.
        let lang = (el.attr("xml:lang").or_else(|| el.attr("lang")))
            .map(str::trim)
            .filter(|l| !l.is_empty());
        let Some(lang) = lang else {
            return self.inline_element(el, out);
        };
        let mut content = Vec::new();
        self.inline_element(el, &mut content);
        let lang = lang.to_string();
        out.push(Inline::new(InlineKind::Lang { lang, content }, pos_of(el)));
    }

    fn inline_element(&mut self, el: &Element, out: &mut Inlines) {
        let name = el.local_name();
        let pos = pos_of(el);
        // Ids of elements whose model node has no id field are kept as anchors.
        if let Some(id) = el.id()
            && !matches!(name, "footnote" | "anchor" | "co" | "beginpage")
        {
            out.push(anchor_inline(id, pos));
        }
        let wrap = |this: &mut Self, f: fn(Inlines) -> InlineKind, out: &mut Inlines| {
            let c = this.inlines(el);
            out.push(Inline::new(f(c), pos));
        };
        match name {
            "emphasis" => match el.attr("role").map(str::to_ascii_lowercase).as_deref() {
                Some("bold" | "strong") => wrap(self, InlineKind::Strong, out),
                Some("underline") => wrap(self, InlineKind::Underline, out),
                Some("strikethrough" | "del") => wrap(self, InlineKind::Deleted, out),
                _ => wrap(self, InlineKind::Emphasis, out),
            },
            "userinput" => {
                let code = Inline::new(InlineKind::Code(self.code_text(el)), pos);
                out.push(Inline::new(InlineKind::Bold(vec![code]), pos));
                self.index_terms_in(el, out);
            }
            "replaceable" | "citetitle" | "firstterm" | "foreignphrase" | "wordasword"
            | "lineannotation" => {
                if name == "firstterm"
                    && let Some(target) = el.attr("linkend")
                {
                    let c = self.inlines(el);
                    let italic = Inline::new(InlineKind::Italic(c), pos);
                    out.push(Inline::new(
                        InlineKind::Ref {
                            kind: RefKind::Any,
                            target: target.trim().to_string(),
                            content: Some(vec![italic]),
                        },
                        pos,
                    ));
                } else {
                    wrap(self, InlineKind::Italic, out);
                }
            }
            "tag" | "sgmltag" => {
                out.push(tag_code(el.attr("class"), &self.code_text(el), pos));
                self.index_terms_in(el, out);
            }
            _ if is_code(name) => {
                out.push(Inline::new(InlineKind::Code(self.code_text(el)), pos));
                self.index_terms_in(el, out);
            }
            "menuchoice" | "keycombo" | "shortcut" => {
                let sep = match name {
                    "menuchoice" => " → ",
                    _ => match el.attr("action") {
                        Some("seq") => " ",
                        _ => "+",
                    },
                };
                let mut content = Vec::new();
                let mut first = true;
                for c in el.child_elements() {
                    if c.local_name() == "shortcut" && name == "menuchoice" {
                        continue;
                    }
                    if !first {
                        content.push(Inline::text(sep, pos_of(c)));
                    }
                    first = false;
                    self.inline(c, &mut content);
                }
                out.push(Inline::new(
                    InlineKind::Span {
                        class: name.to_string(),
                        content,
                    },
                    pos,
                ));
            }
            "quote" => {
                let ja = self.lang.as_deref().is_some_and(|l| l.starts_with("ja"));
                let (open, close) = match (ja, self.quote_depth % 2) {
                    (true, 0) => ("「", "」"),
                    (true, _) => ("『", "』"),
                    (false, 0) => ("“", "”"),
                    (false, _) => ("‘", "’"),
                };
                self.quote_depth += 1;
                let c = self.inlines(el);
                self.quote_depth -= 1;
                push_merged(out, Inline::text(open, pos));
                for i in c {
                    push_merged(out, i);
                }
                push_merged(out, Inline::text(close, pos));
            }
            "trademark" => {
                let mark = match el.attr("class") {
                    Some("registered") => "®",
                    Some("copyright") => "©",
                    Some("service") => "℠",
                    _ => "™",
                };
                for i in self.inlines(el) {
                    push_merged(out, i);
                }
                push_merged(out, Inline::text(mark, pos));
            }
            "subscript" => wrap(self, InlineKind::Subscript, out),
            "superscript" => wrap(self, InlineKind::Superscript, out),
            "phrase" => match el.attr("role").map(str::trim).filter(|r| !r.is_empty()) {
                Some(role) => {
                    let content = self.inlines(el);
                    out.push(Inline::new(
                        InlineKind::Span {
                            class: role.to_string(),
                            content,
                        },
                        pos,
                    ));
                }
                None => self.inline_children(el, out),
            },
            "xref" => {
                let target = el.attr("linkend").map(str::trim).unwrap_or_default();
                if target.is_empty() {
                    self.warn(
                        codes::UNKNOWN_REFERENCE,
                        el,
                        "this `<xref>` has no `linkend`; it is left out",
                    );
                    return;
                }
                let content = el
                    .attr("endterm")
                    .map(str::trim)
                    .and_then(|e| self.endterm_texts.get(e).cloned())
                    .filter(|t| !t.is_empty())
                    .map(|t| vec![Inline::text(t, pos)]);
                out.push(Inline::new(
                    InlineKind::Ref {
                        kind: RefKind::Any,
                        target: target.to_string(),
                        content,
                    },
                    pos,
                ));
            }
            "link" | "ulink" => self.link(el, out),
            "olink" => {
                let c = self.inlines(el);
                self.warn(
                    codes::UNSUPPORTED,
                    el,
                    "`<olink>` (a link to another document) is not supported; its text is kept",
                );
                out.extend(c);
            }
            "email" => {
                let addr = squash(&el.text());
                if addr.contains('@') && !addr.contains(' ') {
                    out.push(Inline::new(
                        InlineKind::Link {
                            href: format!("mailto:{addr}"),
                            content: vec![Inline::text(addr, pos)],
                        },
                        pos,
                    ));
                } else {
                    self.warn(
                        codes::BROKEN_LINK,
                        el,
                        format!("`{addr}` is not an email address; it is kept as text"),
                    );
                    out.push(Inline::new(InlineKind::Code(addr), pos));
                }
            }
            "glossterm" => {
                let c = self.inlines(el);
                match el.attr("linkend").map(str::trim).filter(|s| !s.is_empty()) {
                    Some(t) => out.push(Inline::new(
                        InlineKind::Ref {
                            kind: RefKind::Any,
                            target: t.to_string(),
                            content: Some(c),
                        },
                        pos,
                    )),
                    None => out.push(Inline::new(
                        InlineKind::Span {
                            class: "glossterm".into(),
                            content: c,
                        },
                        pos,
                    )),
                }
            }
            "footnote" => self.footnote(el, out),
            "footnoteref" => {
                let target = el.attr("linkend").map(str::trim).unwrap_or_default();
                out.push(Inline::new(
                    InlineKind::FootnoteRef(target.to_string()),
                    pos,
                ));
            }
            "beginpage" => self.print_page(el, el.attr("pagenum"), out),
            "anchor" if super::pages::is_page_anchor(el) => {
                self.print_page(el, el.attr("xreflabel"), out)
            }
            "anchor" => {
                if let Some(id) = el.id() {
                    out.push(anchor_inline(id, pos));
                }
            }
            "indexterm" => self.indexterm(el, out),
            "inlinemediaobject" | "inlinegraphic" => {
                let (image, fallback) = self.pick_image(el);
                match fallback {
                    None => out.push(Inline::new(InlineKind::Image(image), pos)),
                    Some(t) => self.text(&t, pos, out),
                }
            }
            "inlineequation" => {
                let m = self.math(el);
                match m.mathml {
                    Some(n) => out.push(Inline::new(InlineKind::Raw(n), pos)),
                    None => out.push(Inline::new(
                        InlineKind::Math {
                            tex: m.tex,
                            mathml: None,
                        },
                        pos,
                    )),
                }
            }
            "math" => out.push(Inline::new(
                InlineKind::Raw(vec![crate::dom::Node::from(to_mathml(el, true))]),
                pos,
            )),
            "co" | "coref" => self.co(el, out),
            "citerefentry" => {
                let title = el.child("refentrytitle").map(|t| squash(&t.text()));
                let vol = el.child("manvolnum").map(|t| squash(&t.text()));
                let text = match (title, vol) {
                    (Some(t), Some(v)) => format!("{t}({v})"),
                    (Some(t), None) => t,
                    _ => squash(&el.text()),
                };
                out.push(Inline::new(
                    InlineKind::Span {
                        class: "citerefentry".into(),
                        content: vec![Inline::new(InlineKind::Code(text), pos)],
                    },
                    pos,
                ));
            }
            "optional" => {
                push_merged(out, Inline::text("[", pos));
                self.inline_children(el, out);
                push_merged(out, Inline::text("]", pos));
            }
            "citation" => {
                push_merged(out, Inline::text("[", pos));
                self.inline_children(el, out);
                push_merged(out, Inline::text("]", pos));
            }
            "biblioref" => {
                let target = el.attr("linkend").map(str::trim).unwrap_or_default();
                out.push(Inline::new(
                    InlineKind::Ref {
                        kind: RefKind::Any,
                        target: target.to_string(),
                        content: None,
                    },
                    pos,
                ));
            }
            "term" | "member" | "alt" | "mathphrase" | "title" | "attribution" => {
                self.inline_children(el, out)
            }
            "authorgroup" => self.person_list(el, out),
            "author" | "editor" | "othercredit" | "personname"
                if let Some(content) = self.person_name(el) =>
            {
                let class = name.to_string();
                out.push(Inline::new(InlineKind::Span { class, content }, pos));
            }
            _ if is_span(name) => {
                let content = self.inlines(el);
                out.push(Inline::new(
                    InlineKind::Span {
                        class: name.to_string(),
                        content,
                    },
                    pos,
                ));
            }
            _ => {
                // Not an inline element we know: keep its text (and its footnotes, links…).
                self.unhandled(el);
                if self.verbatim {
                    self.inline_children(el, out);
                } else {
                    let mut blocks = Vec::new();
                    self.blocks_into(el, 6, &mut blocks);
                    let flat = super::blocks::flatten_blocks(blocks);
                    for i in flat {
                        push_merged(out, i);
                    }
                }
            }
        }
    }

    fn link(&mut self, el: &Element, out: &mut Inlines) {
        let pos = pos_of(el);
        let content = self.inlines(el);
        let visible = !plain_text(&content).trim().is_empty()
            || content
                .iter()
                .any(|i| matches!(i.kind, InlineKind::Image(_)));
        if let Some(target) = el.attr("linkend").map(str::trim).filter(|s| !s.is_empty()) {
            out.push(Inline::new(
                InlineKind::Ref {
                    kind: RefKind::Any,
                    target: target.to_string(),
                    content: visible.then_some(content),
                },
                pos,
            ));
            return;
        }
        let href = el
            .attr("url")
            .or_else(|| el.attr_local("href"))
            .map(str::trim)
            .unwrap_or_default();
        if href.is_empty() {
            self.warn(
                codes::BROKEN_LINK,
                el,
                format!(
                    "this `<{}>` has no target; its text is kept",
                    el.local_name()
                ),
            );
            out.extend(content);
            return;
        }
        if let Some(frag) = href.strip_prefix('#') {
            out.push(Inline::new(
                InlineKind::Ref {
                    kind: RefKind::Any,
                    target: frag.to_string(),
                    content: visible.then_some(content),
                },
                pos,
            ));
            return;
        }
        let mut href = href.to_string();
        if href.contains(char::is_whitespace) {
            self.warn(
                codes::REPAIRED_LINK,
                el,
                format!("the URL `{href}` contains spaces; they are written as %20"),
            );
            href = href.split_whitespace().collect::<Vec<_>>().join("%20");
        }
        let content = if visible {
            content
        } else {
            // Empty link text (the checker's finding); readers get the address to see.
            self.warn(
                codes::BROKEN_LINK,
                el,
                format!(
                    "this `<{}>` has no link text; the address `{href}` is shown",
                    el.local_name()
                ),
            );
            vec![Inline::text(href.clone(), pos)]
        };
        if is_relative_file(&href) {
            self.warn(
                codes::BROKEN_LINK,
                el,
                format!(
                    "`{href}` links to a file that is not part of the book; the link is dropped and its text kept"
                ),
            );
            out.extend(content);
            return;
        }
        out.push(Inline::new(InlineKind::Link { href, content }, pos));
    }

    fn footnote(&mut self, el: &Element, out: &mut Inlines) {
        let label = match el.id() {
            Some(id) => id.to_string(),
            None => {
                self.footnote_count += 1;
                format!("fn-{}", self.footnote_count)
            }
        };
        let saved = self.verbatim;
        self.verbatim = false;
        let mut blocks = Vec::new();
        self.blocks_into(el, 6, &mut blocks);
        self.verbatim = saved;
        self.footnotes.push(Footnote {
            label: label.clone(),
            blocks,
            pos: pos_of(el),
        });
        out.push(Inline::new(InlineKind::FootnoteRef(label), pos_of(el)));
    }
}

/// A link to a relative file (not a URL, not a fragment) that is not an image.
fn is_relative_file(href: &str) -> bool {
    let scheme = href.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && !s.contains('/')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    if scheme || href.starts_with('#') || href.starts_with("//") {
        return false;
    }
    let lower = href.to_ascii_lowercase();
    let path = lower.split(['#', '?']).next().unwrap_or("");
    ![".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// A `tag` (`sgmltag`) as DocBook XSL writes it: the markup's brackets are generated around
/// its name, in a `code` whose class names the tag's class (`sgmltag-starttag`).
fn tag_code(class: Option<&str>, name: &str, pos: Pos) -> Inline {
    let class = class
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .unwrap_or("element");
    let (open, close) = match class {
        "starttag" => ("<", ">"),
        "endtag" => ("</", ">"),
        "emptytag" => ("<", "/>"),
        "genentity" => ("&", ";"),
        "numcharref" => ("&#", ";"),
        "paramentity" => ("%", ";"),
        // DocBook XSL: a `pi` is an SGML one (`<?x>`), an `xmlpi` an XML one (`<?x?>`).
        "pi" => ("<?", ">"),
        "xmlpi" => ("<?", "?>"),
        "comment" | "sgmlcomment" => ("<!--", "-->"),
        // attribute, attvalue, element, prefix, localname, namespace: the name alone.
        _ => ("", ""),
    };
    let code = crate::dom::Element::new("code")
        .with_attr("class", format!("tt sgmltag-{class}"))
        .with_text(format!("{open}{name}{close}"));
    Inline::new(InlineKind::Raw(vec![Node::from(code)]), pos)
}
