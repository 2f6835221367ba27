//! A DocBook book's metadata: its `info` (`bookinfo`, `articleinfo`) under what book.yml gives.
//! book.yml is read when the book is loaded, the `info` only when the document is read, so the
//! book remembers which values book.yml gave ([`Given`]) and [`apply_info`] fills in the rest.
use super::{Book, Creator, Date, HistoryEntry, Metadata, normalize_isbn};
use crate::doc::{DocBookMeta, MetaPerson, Revision};

/// Which metadata book.yml gave; the `info` does not change these.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    pub title: bool,
    pub subtitle: bool,
    pub language: bool,
    /// An `identifier:` or an `isbn:` (which the identifier is made from).
    pub identifier: bool,
    pub isbn: bool,
    pub publisher: bool,
    pub date: bool,
    pub history: bool,
    pub rights: bool,
    pub description: bool,
    pub subjects: bool,
    /// The roles book.yml names people for (`authors:` → `aut`, `translators:` → `trl`, a
    /// contributor's own `role:`): the `info`'s people of these roles are replaced, the others
    /// kept.
    pub roles: Vec<String>,
    /// book.yml's people, which the `info`'s join each time the document is read.
    pub creators: Vec<Creator>,
}

/// Fills in the book's metadata from the document's `info` where book.yml left it out. A book
/// with no book.yml takes everything the `info` has.
pub fn apply_info(book: &mut Book, info: DocBookMeta) {
    let given = &book.given;
    let meta = &mut book.meta;
    let text = |s: Option<String>| s.filter(|t| !t.trim().is_empty());
    if !given.title
        && let Some(title) = text(info.title)
    {
        meta.title = title;
    }
    if !given.subtitle {
        meta.subtitle = text(info.subtitle).or(meta.subtitle.take());
    }
    if !given.language
        && let Some(lang) = text(info.language)
    {
        meta.language = lang;
    }
    people(meta, given, info.people);
    if !given.publisher {
        meta.publisher = text(info.publisher).or(meta.publisher.take());
    }
    if !given.date
        && let Some(date) = info.date.filter(|d| Date::parse(d).is_some())
    {
        meta.date = Some(date);
    }
    if !given.rights {
        meta.rights = text(info.rights).or(meta.rights.take());
    }
    if !given.description {
        meta.description = text(info.description).or(meta.description.take());
    }
    if !given.subjects && !info.subjects.is_empty() {
        meta.subjects = info.subjects;
    }
    if !given.isbn
        && let Some(isbn) = info.isbn.filter(|i| normalize_isbn(i).is_ok())
    {
        meta.isbn = Some(isbn);
    }
    if !given.history && !info.revisions.is_empty() {
        meta.history = history(&info.revisions, &meta.language);
    }
    if !given.identifier {
        meta.identifier = identifier(meta);
    }
}

/// book.yml's people, with the `info`'s of the roles book.yml does not name; authors first, as
/// the title page and the package document list them.
fn people(meta: &mut Metadata, given: &Given, info: Vec<MetaPerson>) {
    let from_info = info
        .into_iter()
        .filter(|p| !given.roles.contains(&p.role))
        .map(|p| Creator {
            name: p.name,
            role: p.role,
            file_as: None,
            affiliation: p.affiliation,
            email: p.email,
        });
    meta.creators = given.creators.clone();
    meta.creators.extend(from_info);
    // Stable: within each group, book.yml's order, then the info's.
    meta.creators.sort_by_key(|c| c.role != "aut");
}

/// The package's identifier when book.yml gives none: from the ISBN, else a UUID from the
/// title (stable across builds).
fn identifier(meta: &Metadata) -> String {
    match &meta.isbn {
        Some(isbn) => format!("urn:isbn:{}", isbn.replace(['-', ' '], "")),
        None => {
            let seed = format!("seihon:docbook:{}", meta.title);
            format!(
                "urn:uuid:{}",
                uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, seed.as_bytes())
            )
        }
    }
}

/// The colophon's edition history from a `revhistory`: one line a revision, oldest first
/// (a revhistory lists the newest first; when every date is a date, they are sorted), each
/// "Revision 1.2: remark" as DocBook XSL words a revision.
pub fn history(revisions: &[Revision], language: &str) -> Vec<HistoryEntry> {
    let word = if language.starts_with("ja") {
        "改訂"
    } else {
        "Revision"
    };
    let mut lines: Vec<HistoryEntry> = revisions
        .iter()
        .map(|r| {
            let number = r.number.as_ref().map(|n| format!("{word} {n}"));
            let text = match (number, &r.remark) {
                (Some(n), Some(remark)) => format!("{n}: {remark}"),
                (Some(n), None) => n,
                (None, Some(remark)) => remark.clone(),
                (None, None) => String::new(),
            };
            HistoryEntry {
                date: r.date.clone().unwrap_or_default(),
                text,
            }
        })
        .collect();
    let dates: Option<Vec<Date>> = lines.iter().map(|h| Date::parse(&h.date)).collect();
    match dates {
        Some(_) => lines.sort_by_key(|h| Date::parse(&h.date)),
        None => lines.reverse(),
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(number: &str, date: &str, remark: &str) -> Revision {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Revision {
            number: some(number),
            date: some(date),
            remark: some(remark),
        }
    }

    #[test]
    fn a_revhistory_becomes_the_history_oldest_first() {
        let revs = [
            rev("1.1", "2020-03-01", "Typos fixed"),
            rev("1.0", "2019-12-24", ""),
        ];
        let h = history(&revs, "en");
        assert_eq!(h[0].date, "2019-12-24");
        assert_eq!(h[0].text, "Revision 1.0");
        assert_eq!(h[1].text, "Revision 1.1: Typos fixed");
        // Dates that are not dates keep the revhistory's order, turned round.
        let revs = [rev("2", "Spring 2004", ""), rev("", "2003", "First draft")];
        let h = history(&revs, "ja");
        assert_eq!(h[0].text, "First draft");
        assert_eq!(h[1].text, "改訂 2");
    }

    #[test]
    fn book_yml_values_stay_and_the_info_fills_in_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("book.xml");
        std::fs::write(&main, "<book/>").unwrap();
        let mut book = crate::book::docbook::load(&main, None).unwrap();
        book.meta.title = "From book.yml".into();
        book.given = Given {
            title: true,
            roles: vec!["trl".into()],
            creators: vec![Creator {
                name: "T".into(),
                role: "trl".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let person = |name: &str, role: &str| MetaPerson {
            name: name.into(),
            role: role.into(),
            affiliation: Some("ACME".into()),
            email: None,
        };
        let info = DocBookMeta {
            title: Some("From info".into()),
            subtitle: Some("Sub".into()),
            language: Some("de".into()),
            people: vec![
                person("A", "aut"),
                person("Old T", "trl"),
                person("R", "rev"),
            ],
            isbn: Some("978-4-87311-532-0".into()),
            ..Default::default()
        };
        apply_info(&mut book, info.clone());
        // Read again (a rebuild, `seihon list`), the same.
        apply_info(&mut book, info);
        let m = &book.meta;
        assert_eq!(m.title, "From book.yml");
        assert_eq!(m.subtitle.as_deref(), Some("Sub"));
        assert_eq!(m.language, "de");
        let names: Vec<(&str, &str)> = m
            .creators
            .iter()
            .map(|c| (c.name.as_str(), c.role.as_str()))
            .collect();
        assert_eq!(names, [("A", "aut"), ("T", "trl"), ("R", "rev")]);
        assert_eq!(m.creators[0].affiliation.as_deref(), Some("ACME"));
        assert_eq!(m.identifier, "urn:isbn:9784873115320");
    }

    #[test]
    fn book_yml_description_and_subjects_win_over_the_infos() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("book.xml");
        std::fs::write(&main, "<book/>").unwrap();
        let info = || DocBookMeta {
            description: Some("From the abstract".into()),
            subjects: vec!["From info".into()],
            ..Default::default()
        };
        let mut book = crate::book::docbook::load(&main, None).unwrap();
        apply_info(&mut book, info());
        assert_eq!(book.meta.description.as_deref(), Some("From the abstract"));
        assert_eq!(book.meta.subjects, ["From info"]);
        book.meta.description = Some("From book.yml".into());
        book.meta.subjects = vec!["Mine".into()];
        book.given = Given {
            description: true,
            subjects: true,
            ..Default::default()
        };
        apply_info(&mut book, info());
        assert_eq!(book.meta.description.as_deref(), Some("From book.yml"));
        assert_eq!(book.meta.subjects, ["Mine"]);
    }
}
