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

/// MARC relator code for an `othercredit` class (DocBook 5) or role.
fn marc(class: Option<&str>) -> &'static str {
    match class.unwrap_or("").to_ascii_lowercase().as_str() {
        "translator" => "trl",
        "copyeditor" | "editor" => "edt",
        "graphicdesigner" => "ill",
        "technicaleditor" => "edt",
        "proofreader" => "pfr",
        "reviewer" => "rev",
        "indexer" => "ind",
        "typesetter" | "productioneditor" => "bkp",
        _ => "ctb",
    }
}

impl<'a> Conv<'a> {
    pub(super) fn meta(&mut self, root: &'a Element) -> DocBookMeta {
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
            "author" | "corpauthor" => {
                let p = person(c);
                if !p.is_empty() {
                    m.authors.push(p);
                }
            }
            "authorgroup" => {
                for a in c.child_elements() {
                    self.meta_child(a, m, rights);
                }
            }
            "editor" => {
                let p = person(c);
                if !p.is_empty() {
                    m.editors.push(p);
                }
            }
            "othercredit" | "collab" => {
                let p = if c.local_name() == "collab" {
                    c.child("collabname")
                        .map(|n| squash(&n.text()))
                        .unwrap_or_else(|| person(c))
                } else {
                    person(c)
                };
                if !p.is_empty() {
                    m.others.push((
                        p,
                        marc(c.attr("class").or_else(|| c.attr("role"))).to_string(),
                    ));
                }
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
            _ => {}
        }
    }
}
