//! Book metadata from `info`/`bookinfo`/`articleinfo` and the root's own title.
use super::*;

/// A person's name: `personname`, or `firstname`/`surname`/`othername`, or the text.
pub(super) fn person(el: &Element) -> String {
    let el = el.child("personname").unwrap_or(el);
    let parts: Vec<String> = el
        .child_elements()
        .filter(|e| {
            matches!(
                e.local_name(),
                "honorific" | "firstname" | "givenname" | "othername" | "surname" | "lineage"
            )
        })
        .map(|e| squash(&e.text()))
        .filter(|s| !s.is_empty())
        .collect();
    if !parts.is_empty() {
        return parts.join(" ");
    }
    if let Some(o) = el.child("orgname") {
        return squash(&o.text());
    }
    squash(&el.text())
}

/// Text content, with the URL of an empty `ulink`/`link` in its place (legal notices).
fn text_with_urls(el: &Element, out: &mut String) {
    for n in &el.children {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Element(c) if c.local_name() == "ulink" || c.local_name() == "link" => {
                let t = c.text();
                if t.trim().is_empty() {
                    out.push_str(c.attr("url").or_else(|| c.attr_local("href")).unwrap_or(""));
                } else {
                    out.push_str(&t);
                }
            }
            Node::Element(c) => text_with_urls(c, out),
            Node::Comment(_) => {}
        }
    }
}

/// MARC relator code for an `othercredit`: its `class` (DocBook 5's list), else its `role` or
/// `contrib` (DocBook 4's free text: `role="translator"`, `<contrib>Translation</contrib>`).
fn marc(el: &Element) -> &'static str {
    let said = [el.attr("class"), el.attr("role")]
        .into_iter()
        .flatten()
        .map(str::to_string)
        .chain(el.child("contrib").map(|c| squash(&c.text())));
    said.map(|s| relator_of(&s.to_ascii_lowercase()))
        .find(|r| *r != "ctb")
        .unwrap_or("ctb")
}

/// The relator a word for a credit means (`translator`, `Translated by`, `copyeditor`).
fn relator_of(word: &str) -> &'static str {
    const BY_WORD: &[(&str, &str)] = &[
        ("transl", "trl"),
        ("proofread", "pfr"),
        ("review", "rev"),
        ("coverdesign", "cov"),
        ("cover", "cov"),
        ("illustr", "ill"),
        ("graphicdesign", "dsr"),
        ("interiordesign", "dsr"),
        ("design", "dsr"),
        ("typeset", "cmt"),
        ("productioneditor", "bkp"),
        ("edit", "edt"),
        ("photo", "pht"),
        ("other", "oth"),
    ];
    let word: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    BY_WORD
        .iter()
        .find(|(w, _)| word.contains(w))
        .map_or("ctb", |(_, r)| r)
}

/// An `affiliation`'s words as DocBook XSL's title page shows them: job title, division,
/// organization.
fn affiliation(person: &Element) -> Option<String> {
    let each: Vec<String> = person
        .child_elements()
        .filter(|e| e.local_name() == "affiliation")
        .map(|a| {
            let words = |names: &[&str]| -> Vec<String> {
                names
                    .iter()
                    .filter_map(|n| a.child(n))
                    .map(|e| squash(&e.text()))
                    .filter(|s| !s.is_empty())
                    .collect()
            };
            let long = words(&["jobtitle", "orgdiv", "orgname"]);
            // A short affiliation stands in only when nothing longer is given.
            if long.is_empty() {
                words(&["shortaffil"]).join(", ")
            } else {
                long.join(", ")
            }
        })
        .filter(|s| !s.is_empty())
        .collect();
    (!each.is_empty()).then(|| each.join("; "))
}

/// The first `email` of a person: its own, or its affiliation's `address`.
fn email(el: &Element) -> Option<String> {
    let mut found = None;
    el.walk(&mut |e| {
        if found.is_none() && e.local_name() == "email" {
            found = Some(squash(&e.text())).filter(|s| !s.is_empty());
        }
    });
    found
}

/// A credited person of the `info`, with the role given.
fn credited(el: &Element, name: String, role: &str) -> Option<MetaPerson> {
    (!name.is_empty()).then(|| MetaPerson {
        name,
        role: role.to_string(),
        affiliation: affiliation(el),
        email: email(el),
    })
}

/// An element's text with each empty `xref` or `link` as the text of its target (its
/// title), so that a remark such as "Improved the example in <xref/>." keeps its words.
fn text_with_xrefs(el: &Element, xref_texts: &HashMap<String, String>, out: &mut String) {
    for n in &el.children {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Element(c) if c.local_name() == "indexterm" => {}
            Node::Element(c)
                if matches!(c.local_name(), "xref" | "link") && c.text().trim().is_empty() =>
            {
                let target = c.attr("linkend").and_then(|id| xref_texts.get(id.trim()));
                out.push_str(target.map_or("", String::as_str));
            }
            Node::Element(c) => {
                // Blocks (the paragraphs and list items of a `revdescription`) stay apart.
                let block = matches!(
                    c.local_name(),
                    "para"
                        | "simpara"
                        | "formalpara"
                        | "listitem"
                        | "member"
                        | "itemizedlist"
                        | "orderedlist"
                        | "simplelist"
                        | "variablelist"
                        | "varlistentry"
                        | "term"
                        | "note"
                        | "tip"
                        | "warning"
                        | "important"
                        | "caution"
                );
                if block {
                    out.push(' ');
                }
                text_with_xrefs(c, xref_texts, out);
                if block {
                    out.push(' ');
                }
            }
            Node::Comment(_) => {}
        }
    }
}

/// A `revhistory`'s revisions, each with its number, date and remark as written.
fn revisions(el: &Element, xref_texts: &HashMap<String, String>) -> Vec<Revision> {
    let text = |rev: &Element, names: &[&str]| {
        rev.child_elements()
            .find(|e| names.contains(&e.local_name()))
            .map(|e| {
                let mut t = String::new();
                text_with_xrefs(e, xref_texts, &mut t);
                squash(&t)
            })
            .filter(|s| !s.is_empty())
    };
    el.child_elements()
        .filter(|e| e.local_name() == "revision")
        .map(|rev| Revision {
            number: text(rev, &["revnumber"]),
            date: text(rev, &["date"]),
            remark: text(rev, &["revremark", "revdescription"]),
        })
        .filter(|r| *r != Revision::default())
        .collect()
}

impl Conv<'_> {
    pub(super) fn meta(&mut self, root: &Element) -> DocBookMeta {
        let mut m = DocBookMeta {
            language: lang_of(root).map(str::to_string),
            ..Default::default()
        };
        let infos: Vec<&Element> = root
            .child_elements()
            .filter(|e| is_info(e.local_name()))
            .collect();
        let first_text = |name: &str| -> Option<String> {
            root.child(name)
                .into_iter()
                .chain(infos.iter().filter_map(|i| i.child(name)))
                .map(|e| squash(&e.text()))
                .find(|s| !s.is_empty())
        };
        m.title = first_text("title");
        m.subtitle = first_text("subtitle");
        m.releaseinfo = first_text("releaseinfo");
        m.date = first_text("pubdate").or_else(|| first_text("date"));
        m.isbn = first_text("isbn").or_else(|| {
            infos
                .iter()
                .flat_map(|i| i.child_elements())
                .find(|e| {
                    e.local_name() == "biblioid"
                        && e.attr("class")
                            .is_some_and(|c| c.eq_ignore_ascii_case("isbn"))
                })
                .map(|e| squash(&e.text()))
        });
        let mut rights = Vec::new();
        for info in &infos {
            for c in info.child_elements() {
                self.meta_child(c, &mut m, &mut rights);
            }
        }
        if !rights.is_empty() {
            m.rights = Some(rights.join("\n\n"));
        }
        m
    }

    fn meta_child(&mut self, c: &Element, m: &mut DocBookMeta, rights: &mut Vec<String>) {
        match c.local_name() {
            "author" | "corpauthor" => m.people.extend(credited(c, person(c), "aut")),
            "authorgroup" => {
                for a in c.child_elements() {
                    self.meta_child(a, m, rights);
                }
            }
            "editor" => m.people.extend(credited(c, person(c), "edt")),
            "othercredit" | "collab" => {
                let p = if c.local_name() == "collab" {
                    c.child("collabname")
                        .map(|n| squash(&n.text()))
                        .unwrap_or_else(|| person(c))
                } else {
                    person(c)
                };
                m.people.extend(credited(c, p, marc(c)));
            }
            "revhistory" if m.revisions.is_empty() => {
                m.revisions = revisions(c, &self.xref_texts);
            }
            "publisher" if m.publisher.is_none() => {
                m.publisher = c
                    .child("publishername")
                    .map(|n| squash(&n.text()))
                    .or_else(|| Some(squash(&c.text())))
                    .filter(|s| !s.is_empty());
            }
            "publishername" if m.publisher.is_none() => {
                m.publisher = Some(squash(&c.text())).filter(|s| !s.is_empty());
            }
            "copyright" => rights.push(super::titlepage::copyright_text(c)),
            "legalnotice" => {
                let paras: Vec<String> = c
                    .child_elements()
                    .filter(|e| !matches!(e.local_name(), "title" | "info"))
                    .map(|e| {
                        let mut t = String::new();
                        text_with_urls(e, &mut t);
                        squash(&t)
                    })
                    .filter(|s| !s.is_empty())
                    .collect();
                if !paras.is_empty() {
                    rights.push(paras.join("\n\n"));
                }
            }
            "abstract" if m.description.is_none() => {
                let paras: Vec<String> = (c.child_elements())
                    .filter(|e| !matches!(e.local_name(), "title" | "info"))
                    .map(|e| squash(&e.text()))
                    .filter(|s| !s.is_empty())
                    .collect();
                m.description = Some(paras.join("\n\n")).filter(|d| !d.is_empty());
            }
            // `subjectset/subject/subjectterm`, `keywordset/keyword`.
            "subjectset" | "keywordset" => {
                c.walk(&mut |e| {
                    if matches!(e.local_name(), "subjectterm" | "keyword") {
                        let t = squash(&e.text());
                        if !t.is_empty() && !m.subjects.contains(&t) {
                            m.subjects.push(t);
                        }
                    }
                });
            }
            _ => {}
        }
    }
}
