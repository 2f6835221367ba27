//! external-links: the book's web links, asked of their servers (opt-in: it needs the network).
use super::Book;
use super::page::Place;
use crate::error::Finding;
use crate::linkcheck::{LinkCheckOptions, LinkStatus, check_urls, status_text};

/// Every http(s) link of the book's pages (a/@href, area/@href), checked once each; a finding
/// (severity Error — the caller lowers it to the configured level) for each place that links to
/// a URL that is Broken or Failed.
pub(crate) fn external_links(book: &Book, opts: &LinkCheckOptions) -> Vec<Finding> {
    // Every place first, so that each address is asked once however often the book links it.
    let mut places: Vec<(&Place, String)> = Vec::new();
    for (path, page) in &book.pages {
        for link in &book.refs(path, page).links {
            let href = link.value.trim();
            if is_web(href) {
                places.push((&link.place, href.to_string()));
            }
        }
    }
    let urls: Vec<String> = places.iter().map(|(_, href)| href.clone()).collect();
    let statuses = check_urls(&urls, opts);

    let mut out = Vec::new();
    for (place, href) in &places {
        let (message, advice) = match statuses.get(href) {
            Some(LinkStatus::Broken { status }) => (
                format!(
                    "the link `{href}` is broken: the server answers {}",
                    status_text(*status)
                ),
                "correct the address, or set the check `external-links` to `warning` or `off`",
            ),
            Some(LinkStatus::Failed { reason }) => (
                format!("the link `{href}` could not be checked: {reason}"),
                "check the address, or try again later; or set the check `external-links` to `warning` or `off`",
            ),
            Some(LinkStatus::Ok) | None => continue,
        };
        out.push(place.finding(message, Some(advice)));
    }
    out
}

fn is_web(href: &str) -> bool {
    let scheme = href.get(..8).unwrap_or(href).to_ascii_lowercase();
    scheme.starts_with("http://") || scheme.starts_with("https://")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::error::Severity;
    use crate::linkcheck::tests::{TestServer, closed_port, quick};

    /// A one-page book (no package document: the checks read the pages all the same).
    fn book_files(body: &str) -> (crate::check::Files<'static>, crate::check::Sources) {
        let page = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<html xmlns=\"http://www.w3.org/1999/xhtml\">
<head><title>t</title></head>
<body>
{body}
</body>
</html>
"
        );
        let path = "item/xhtml/ch01.xhtml".to_string();
        let (text, sources) = crate::dom::from_marked(&page);
        (
            BTreeMap::from([(path.clone(), text.into_bytes().into())]),
            BTreeMap::from([(path, sources)]),
        )
    }

    #[test]
    fn broken_and_unreachable_links_are_reported_at_their_source() {
        let server = TestServer::start();
        let refused = format!("http://127.0.0.1:{}/gone", closed_port());
        let body = format!(
            "<p data-seihon-src=\"ch01.md:3:1\">See <a href=\"{missing}\" data-seihon-src=\"ch01.md:3:5\">this</a>,
<a href=\"{ok}\">that</a> and <a href=\"{missing}#part\">this again</a>.</p>
<p data-seihon-src=\"ch01.md:7:1\"><a href=\"{refused}\">gone</a> <a href=\"mailto:a@example.com\">mail</a> <a href=\"../nav.xhtml\">nav</a></p>",
            missing = server.url("/missing"),
            ok = server.url("/ok"),
        );
        let (files, sources) = book_files(&body);
        let book = Book::load(&files, &sources, None, None, None);
        let found = external_links(&book, &quick());

        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found.iter().all(|f| f.severity == Severity::Error));

        let first = &found[0];
        assert_eq!(first.location.to_string(), "ch01.md:3:5");
        assert_eq!(
            first.message,
            format!(
                "the link `{}` is broken: the server answers 404 Not Found",
                server.url("/missing")
            )
        );
        let hint = first.hint.as_deref().unwrap();
        assert!(hint.starts_with("in item/xhtml/ch01.xhtml:5:"), "{hint}");
        assert!(hint.contains("`external-links`"), "{hint}");

        // No position of its own: the paragraph's.
        assert_eq!(found[1].location.to_string(), "ch01.md:3:1");
        assert!(found[1].message.contains("#part"), "{}", found[1].message);

        assert_eq!(found[2].location.to_string(), "ch01.md:7:1");
        assert_eq!(
            found[2].message,
            format!("the link `{refused}` could not be checked: connection refused")
        );

        // Each address asked once, whatever the fragments.
        let mut lines = server.lines();
        lines.sort();
        assert_eq!(lines, ["HEAD /missing", "HEAD /ok"]);
    }

    #[test]
    fn a_book_without_web_links_asks_nothing() {
        let (files, sources) =
            book_files("<p><a href=\"#x\">x</a> <a href=\"mailto:a@b\">m</a></p>");
        let book = Book::load(&files, &sources, None, None, None);
        assert_eq!(external_links(&book, &quick()), vec![]);
    }
}
