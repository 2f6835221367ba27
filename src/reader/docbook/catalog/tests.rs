use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn catalog(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<catalog xmlns=\"urn:oasis:names:tc:entity:xmlns:xml:catalog\">\n{body}\n</catalog>\n"
    )
}

fn catalogs(paths: &[PathBuf]) -> Catalogs {
    let named = paths
        .iter()
        .map(|p| Named {
            path: p.clone(),
            origin: Origin::Environment,
        })
        .collect();
    Catalogs::new(named, Vec::new())
}

fn file(r: Option<Resolved>) -> PathBuf {
    match r.map(|r| r.target) {
        Some(Target::File(p)) => p,
        other => panic!("not a file: {other:?}"),
    }
}

#[test]
fn uris_join_as_rfc_3986_says() {
    let base = "file:///books/a/catalog.xml";
    assert_eq!(join(base, "dtd/x.dtd"), "file:///books/a/dtd/x.dtd");
    assert_eq!(join(base, "../x.dtd"), "file:///books/x.dtd");
    assert_eq!(join(base, "./y/../x.dtd"), "file:///books/a/x.dtd");
    assert_eq!(join(base, "/etc/x.dtd"), "file:///etc/x.dtd");
    assert_eq!(join(base, "http://e.org/x.dtd"), "http://e.org/x.dtd");
    assert_eq!(join("http://e.org/a/b.xml", "c/d"), "http://e.org/a/c/d");
    assert_eq!(join("file:///books/a/", "x"), "file:///books/a/x");
    assert_eq!(
        to_target("file:///a%20b/c.dtd"),
        Target::File("/a b/c.dtd".into())
    );
    assert_eq!(to_target("file://localhost/x"), Target::File("/x".into()));
    assert!(matches!(to_target("https://e.org/x"), Target::Remote(_)));
    assert!(matches!(to_target("file://server/x"), Target::Remote(_)));
}

#[test]
fn the_environment_takes_paths_and_file_uris_never_the_web() {
    let named = parse_env("/a/catalog.xml  file:///b/c.xml\thttp://e.org/catalog.xml");
    let paths: Vec<_> = named.iter().map(|n| n.path.clone()).collect();
    assert_eq!(
        paths,
        [PathBuf::from("/a/catalog.xml"), PathBuf::from("/b/c.xml")]
    );
}

#[test]
fn public_system_rewrite_and_suffix_entries_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let c = write(
        &d,
        "catalog.xml",
        &catalog(
            r#"<public publicId="-//X//DTD  Layer//EN" uri="dtd/layer.dtd"/>
<system systemId="layer.dtd" uri="dtd/by-system.dtd"/>
<rewriteSystem systemIdStartString="http://x.org/" rewritePrefix="mirror/"/>
<rewriteSystem systemIdStartString="http://x.org/long/" rewritePrefix="longer/"/>
<systemSuffix systemIdSuffix="/layer.dtd" uri="dtd/suffix.dtd"/>
<uri name="chapter.xml" uri="real/chapter.xml"/>
<rewriteURI uriStartString="urn:x:" rewritePrefix="urn-x/"/>
<uriSuffix uriSuffix="/legal.xml" uri="common/legal.xml"/>"#,
        ),
    );
    let mut cats = catalogs(&[c]);
    // A system match comes before a public one; public ids compare with spaces collapsed.
    assert_eq!(
        file(cats.external(Some("-//X//DTD Layer//EN"), Some("layer.dtd"))),
        d.join("dtd/by-system.dtd")
    );
    assert_eq!(
        file(cats.external(Some("-//X//DTD Layer//EN"), None)),
        d.join("dtd/layer.dtd")
    );
    assert_eq!(
        file(cats.external(None, Some("http://x.org/long/a/b.ent"))),
        d.join("longer/a/b.ent"),
        "the longest rewrite prefix wins"
    );
    assert_eq!(
        file(cats.external(None, Some("http://x.org/a.ent"))),
        d.join("mirror/a.ent")
    );
    assert_eq!(
        file(cats.external(None, Some("file:///somewhere/layer.dtd"))),
        d.join("dtd/suffix.dtd")
    );
    assert_eq!(file(cats.uri("chapter.xml")), d.join("real/chapter.xml"));
    assert_eq!(file(cats.uri("urn:x:y.xml")), d.join("urn-x/y.xml"));
    assert_eq!(
        file(cats.uri("file:///a/b/legal.xml")),
        d.join("common/legal.xml")
    );
    // A system id no system entry maps is tried as a URI.
    assert_eq!(
        file(cats.external(None, Some("chapter.xml"))),
        d.join("real/chapter.xml")
    );
    assert_eq!(cats.external(None, Some("other.dtd")), None);
    assert!(cats.take_findings().is_empty());
}

#[test]
fn groups_prefer_and_xml_base_apply_to_their_entries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let c = write(
        &d,
        "catalog.xml",
        &catalog(
            r#"<group prefer="system" xml:base="sys/">
  <public publicId="-//X//A//EN" uri="a.dtd"/>
</group>
<group xml:base="pub/">
  <public publicId="-//X//B//EN" uri="b.dtd"/>
</group>"#,
        ),
    );
    let mut cats = catalogs(&[c]);
    // prefer="system": the public entry is not used when a system id is given.
    assert_eq!(
        cats.external(Some("-//X//A//EN"), Some("nowhere.dtd")),
        None
    );
    assert_eq!(
        file(cats.external(Some("-//X//A//EN"), None)),
        d.join("sys/a.dtd")
    );
    assert_eq!(
        file(cats.external(Some("-//X//B//EN"), Some("nowhere.dtd"))),
        d.join("pub/b.dtd")
    );
    // A urn:publicid: system id is a public id.
    assert_eq!(
        file(cats.external(None, Some("urn:publicid:-:X:B:EN"))),
        d.join("pub/b.dtd")
    );
}

#[test]
fn next_and_delegated_catalogs_are_consulted_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let top = write(
        &d,
        "catalog.xml",
        &catalog(
            r#"<delegatePublic publicIdStartString="-//Y//" catalog="y/catalog.xml"/>
<delegateSystem systemIdStartString="http://y.org/" catalog="y/catalog.xml"/>
<nextCatalog catalog="next/catalog.xml"/>"#,
        ),
    );
    write(
        &d,
        "y/catalog.xml",
        &catalog(
            r#"<public publicId="-//Y//DTD Y//EN" uri="y.dtd"/>
<system systemId="http://y.org/y.dtd" uri="y-sys.dtd"/>"#,
        ),
    );
    write(
        &d,
        "next/catalog.xml",
        &catalog(
            r#"<public publicId="-//Z//DTD Z//EN" uri="z.dtd"/>
<public publicId="-//Y//DTD Other//EN" uri="not-reached.dtd"/>"#,
        ),
    );
    let mut cats = catalogs(&[top]);
    assert_eq!(
        file(cats.external(Some("-//Y//DTD Y//EN"), None)),
        d.join("y/y.dtd")
    );
    assert_eq!(
        file(cats.external(None, Some("http://y.org/y.dtd"))),
        d.join("y/y-sys.dtd")
    );
    assert_eq!(
        file(cats.external(Some("-//Z//DTD Z//EN"), None)),
        d.join("next/z.dtd")
    );
    // A delegation that finds nothing ends the lookup (the next catalog is not asked).
    assert_eq!(cats.external(Some("-//Y//DTD Other//EN"), None), None);
}

#[test]
fn a_catalog_that_is_not_well_formed_is_a_located_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let bad = write(
        &d,
        "bad.xml",
        "<catalog xmlns=\"urn:oasis:names:tc:entity:xmlns:xml:catalog\">\n  <system systemId=\"a\" uri=\"b\">\n</catalog>\n",
    );
    let good = write(
        &d,
        "good.xml",
        &catalog(r#"<system systemId="a" uri="a.dtd"/>"#),
    );
    let mut cats = catalogs(&[bad.clone(), good, d.join("missing.xml")]);
    assert_eq!(file(cats.external(None, Some("a"))), d.join("a.dtd"));
    assert_eq!(cats.external(None, Some("zzz")), None);
    let found = cats.take_findings();
    assert_eq!(found.len(), 2, "{found:?}");
    let f = &found[0];
    assert_eq!(f.code, "xml-catalog");
    assert_eq!(f.severity, crate::error::Severity::Warning);
    assert_eq!(f.location.file, bad);
    assert!(f.location.line >= 2, "{}", f.location);
    assert!(f.message.contains("not well-formed"), "{}", f.message);
    assert!(
        found[1].message.contains("does not exist"),
        "{}",
        found[1].message
    );
}

#[test]
fn a_next_catalog_outside_the_first_ones_folder_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    write(
        &d,
        "elsewhere/catalog.xml",
        &catalog(r#"<system systemId="a" uri="a.dtd"/>"#),
    );
    let top = write(
        &d,
        "book/catalog.xml",
        &catalog(r#"<nextCatalog catalog="../elsewhere/catalog.xml"/>"#),
    );
    let mut cats = catalogs(&[top]);
    assert_eq!(cats.external(None, Some("a")), None);
    let found = cats.take_findings();
    assert!(found[0].message.contains("outside"), "{found:?}");
}

#[test]
fn entries_of_other_namespaces_and_incomplete_ones_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let c = write(
        &d,
        "catalog.xml",
        &catalog(
            r#"<x:system xmlns:x="urn:other" systemId="a" uri="other.dtd"/>
<system systemId="b"/>
<system systemId="a" uri="a.dtd"/>"#,
        ),
    );
    let mut cats = catalogs(&[c]);
    assert_eq!(file(cats.external(None, Some("a"))), d.join("a.dtd"));
    assert_eq!(cats.external(None, Some("b")), None);
}

#[test]
fn catalog_xml_is_found_from_the_main_files_folder_up_to_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().canonicalize().unwrap();
    write(&d, "catalog.xml", &catalog(""));
    write(&d, "book/catalog.xml", &catalog(""));
    write(&d, "book/src/catalog.xml", &catalog(""));
    // A DocBook file named catalog.xml is not a catalog.
    write(
        &d,
        "book/src/deep/catalog.xml",
        "<book><title>T</title></book>",
    );
    let found: Vec<PathBuf> = in_folders(&d.join("book/src/deep"), &d.join("book"))
        .into_iter()
        .map(|n| n.path)
        .collect();
    assert_eq!(
        found,
        [d.join("book/src/catalog.xml"), d.join("book/catalog.xml")]
    );
}
