use super::*;

fn sniff_file(bytes: &[u8]) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.xml");
    std::fs::write(&p, bytes).unwrap();
    root_element(&p)
}

fn utf16(text: &str, little: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
    for u in units {
        out.extend(if little {
            u.to_le_bytes()
        } else {
            u.to_be_bytes()
        });
    }
    out
}

#[test]
fn comments_and_pis_before_the_root_may_hold_tags() {
    assert_eq!(
        root_name("<!-- <chapter> -- not yet -->\n<book/>").as_deref(),
        Some("book")
    );
    assert_eq!(
        root_name("<?xml version=\"1.0\"?><?pi <article> ?><!----><book>").as_deref(),
        Some("book")
    );
    assert_eq!(
        root_name("<!--> <chapter> -->\n<book>").as_deref(),
        Some("book")
    );
}

#[test]
fn the_internal_subset_may_hold_brackets_quotes_comments_and_markup() {
    let cases = [
        "<!DOCTYPE book [<!ENTITY a \"]>\"> <!ENTITY b '<chapter>x</chapter>'>]><book>",
        "<!DOCTYPE book [<!-- ]> it's a <chapter> --> <?pi ]> ?>]>\n<book>",
        "<!DOCTYPE book [<!ATTLIST book x CDATA \"]>\">]><book>",
        "<!DOCTYPE book PUBLIC \"-//X//DTD [>//EN\" 'a>b.dtd' [ %pe; ]><book>",
        "<!DOCTYPE book SYSTEM \"x.dtd\"><!-- <article> --><book>",
    ];
    for text in cases {
        assert_eq!(root_name(text).as_deref(), Some("book"), "{text}");
    }
}

#[test]
fn a_bom_and_utf16_in_either_order_are_read() {
    let doc = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!-- 本 <x> -->\n<article>";
    assert_eq!(
        sniff_file(&[b"\xEF\xBB\xBF", doc.as_bytes()].concat()).as_deref(),
        Some("article")
    );
    for (little, bom) in [(true, true), (false, true), (true, false), (false, false)] {
        assert_eq!(
            sniff_file(&utf16(doc, little, bom)).as_deref(),
            Some("article"),
            "little {little}, bom {bom}"
        );
    }
}

#[test]
fn characters_split_between_pieces_are_whole() {
    // A multi-byte name and an astral character across the 8 KiB piece boundary.
    let pad = " ".repeat(CHUNK - 3);
    let text = format!("<!--{pad}𝄞 -->\n<本>");
    assert_eq!(sniff_file(text.as_bytes()).as_deref(), Some("本"));
    assert_eq!(sniff_file(&utf16(&text, true, true)).as_deref(), Some("本"));
}

#[test]
fn a_subset_of_any_size_is_read_through() {
    let subset = "<!ENTITY e \"<para>]></para>\">\n".repeat(20_000);
    let text = format!("<!DOCTYPE book [{subset}]>\n<book/>");
    assert!(text.len() > 512 * 1024);
    assert_eq!(sniff_file(text.as_bytes()).as_deref(), Some("book"));
}

#[test]
fn a_huge_file_is_not_read_past_its_root() {
    // A sparse file far larger than any manuscript: sniffing reads only its first piece.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.xml");
    let f = std::fs::File::create(&p).unwrap();
    std::io::Write::write_all(&mut &f, b"<?xml version=\"1.0\"?>\n<book>").unwrap();
    f.set_len(64 * 1024 * 1024 * 1024).unwrap();
    let started = std::time::Instant::now();
    assert_eq!(root_element(&p).as_deref(), Some("book"));
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    // A prolog that never ends gives up at the manuscript bound, not at the file's end.
    let q = dir.path().join("endless.xml");
    let f = std::fs::File::create(&q).unwrap();
    std::io::Write::write_all(&mut &f, b"<!--").unwrap();
    f.set_len(crate::source::MAX_SOURCE_BYTES * 4).unwrap();
    assert_eq!(root_element(&q), None);
}

#[test]
fn what_is_not_xml_has_no_root() {
    for text in [
        "text first <book/>",
        "<!-- never closed <book/>",
        "<!DOCTYPE book [<!ENTITY a \"<book>\">",
        "<!ELEMENT book ANY><book/>",
        "< book/>",
        "",
    ] {
        assert_eq!(root_name(text), None, "{text}");
    }
    assert_eq!(sniff_file(b"\x89PNG\r\n\x1a\n\0\0"), None);
}
