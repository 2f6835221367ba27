use std::collections::BTreeMap;

use super::*;
use crate::error::Severity;

type Files = BTreeMap<String, Vec<u8>>;

const CONTAINER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">
<rootfiles>
<rootfile full-path=\"item/standard.opf\" media-type=\"application/oebps-package+xml\"/>
</rootfiles>
</container>
";

const OPF: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\">
<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"id\">urn:uuid:x</dc:identifier></metadata>
<manifest>
<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>
<item id=\"ch01\" href=\"xhtml/ch01.xhtml\" media-type=\"application/xhtml+xml\"/>
<item id=\"ch02\" href=\"xhtml/ch02.xhtml\" media-type=\"application/xhtml+xml\"/>
<item id=\"css\" href=\"style/book.css\" media-type=\"text/css\"/>
<item id=\"fig\" href=\"image/fig.png\" media-type=\"image/png\"/>
<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>
</manifest>
<spine toc=\"ncx\">
<itemref idref=\"nav\"/>
<itemref idref=\"ch01\"/>
<itemref idref=\"ch02\"/>
</spine>
</package>
";

const NCX: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<ncx xmlns=\"http://www.daisy.org/z3986/2005/ncx/\" version=\"2005-1\">
<navMap>
<navPoint id=\"n1\"><navLabel><text>One</text></navLabel><content src=\"xhtml/ch01.xhtml#sec1\"/></navPoint>
</navMap>
</ncx>
";

const CSS: &str = "body { background: url(\"../image/fig.png\"); }\n/* url(missing.png) */\n";

/// An XHTML page whose body starts on line 9.
fn page(css: &str, class: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<!DOCTYPE html>
<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" class=\"{class}\">
<head>
<title>t</title>
<link rel=\"stylesheet\" type=\"text/css\" href=\"{css}\"/>
</head>
<body>
{body}
</body>
</html>
"
    )
}

const NAV_BODY: &str = "<nav epub:type=\"toc\" id=\"toc\">
<ol>
<li><a href=\"xhtml/ch01.xhtml\">One</a>
<ol><li><a href=\"xhtml/ch01.xhtml#sec1\">1.1 Section</a></li></ol></li>
<li><a href=\"xhtml/ch02.xhtml\">Two</a></li>
</ol>
</nav>";

const CH01_BODY: &str = "<section data-seihon-src=\"ch01.md:1:1\">
<h1 id=\"sec1\" data-seihon-src=\"ch01.md:1:1\">One</h1>
<p data-seihon-src=\"ch01.md:3:1\">See <a href=\"ch02.xhtml#fig\" data-seihon-src=\"ch01.md:3:5\">figure 1</a> and <a href=\"#sec1\">above</a>, <span class=\"tcy\">12</span>.</p>
<p data-seihon-src=\"ch01.md:5:1\"><img src=\"../image/fig.png\" alt=\"A cat\"/><img class=\"inline\" src=\"../image/fig.png\" alt=\"\"/></p>
</section>";

const CH02_BODY: &str = "<figure id=\"fig\"><img src=\"../image/fig.png\" alt=\"fig\"/></figure>
<p>External <a href=\"https://example.com/\">site</a>, <a href=\"mailto:a@example.com\">mail</a>, <code>@&lt;list&gt;{x}</code>.</p>";

fn clean() -> Files {
    let mut files = Files::new();
    let mut add = |p: &str, s: &str| {
        files.insert(p.to_string(), s.as_bytes().to_vec());
    };
    add("mimetype", "application/epub+zip");
    add("META-INF/container.xml", CONTAINER);
    add("item/standard.opf", OPF);
    add("item/toc.ncx", NCX);
    add("item/style/book.css", CSS);
    add("item/nav.xhtml", &page("style/book.css", "hltr", NAV_BODY));
    add(
        "item/xhtml/ch01.xhtml",
        &page("../style/book.css", "hltr", CH01_BODY),
    );
    add(
        "item/xhtml/ch02.xhtml",
        &page("../style/book.css", "hltr", CH02_BODY),
    );
    files.insert("item/image/fig.png".into(), vec![0x89, b'P', b'N', b'G']);
    files
}

/// The clean book with `from` replaced by `to` in the file at `path`.
fn edit(mut files: Files, path: &str, from: &str, to: &str) -> Files {
    let text = String::from_utf8(files[path].clone()).unwrap();
    assert!(text.contains(from), "{from:?} not in {path}");
    files.insert(path.into(), text.replacen(from, to, 1).into_bytes());
    files
}

/// The files as the checks take them, and the source positions of the pages written with
/// them in the text.
fn view(files: &Files) -> (super::Files<'static>, super::Sources) {
    let mut sources = super::Sources::new();
    let view = files
        .iter()
        .map(|(path, bytes)| {
            let bytes = match std::str::from_utf8(bytes) {
                Ok(text) if text.contains("data-seihon-src") => {
                    let (text, marks) = crate::dom::from_marked(text);
                    sources.insert(path.clone(), marks);
                    text.into_bytes()
                }
                _ => bytes.clone(),
            };
            (path.clone(), bytes.into())
        })
        .collect();
    (view, sources)
}

fn run(files: &Files) -> Vec<Finding> {
    let (files, sources) = view(files);
    run_checks(
        &EpubFiles {
            files: &files,
            sources: &sources,
            kept_marks: None,
            cache: None,
            known: None,
        },
        &CheckSettings::default(),
    )
}

fn run_with(files: &Files, name: &str, level: Level) -> Vec<Finding> {
    let mut settings = CheckSettings::default();
    settings.set(name, level).unwrap();
    let (files, sources) = view(files);
    run_checks(
        &EpubFiles {
            files: &files,
            sources: &sources,
            kept_marks: None,
            cache: None,
            known: None,
        },
        &settings,
    )
}

/// The one finding of a run, or a panic listing them all.
fn one(findings: Vec<Finding>) -> Finding {
    assert_eq!(findings.len(), 1, "{findings:#?}");
    findings.into_iter().next().unwrap()
}

fn loc(f: &Finding) -> String {
    f.location.to_string()
}

#[test]
fn clean_book_has_no_findings() {
    assert_eq!(run(&clean()), vec![]);
}

#[test]
fn names_round_trip_and_default_levels() {
    for &id in CheckId::all() {
        assert_eq!(CheckId::from_name(id.name()), Some(id));
    }
    assert_eq!(CheckId::all().len(), 12);
    assert_eq!(CheckId::Epubcheck.default_level(), Level::Error);
    assert_eq!(CheckId::from_name("nope"), None);
    assert_eq!(CheckId::InternalLinks.default_level(), Level::Error);
    assert_eq!(CheckId::ImageAlt.default_level(), Level::Warning);
    let err = CheckSettings::default()
        .set("image-alts", Level::Off)
        .unwrap_err();
    assert!(err.contains("(did you mean `image-alt`?)"), "{err}");
    // Check programs are named by their file name.
    let mut with_program = CheckSettings {
        programs: vec!["words".into()],
        ..Default::default()
    };
    assert_eq!(with_program.program_level("words"), Level::Error);
    with_program.set("words", Level::Warning).unwrap();
    assert_eq!(with_program.program_level("words"), Level::Warning);
    assert!(
        with_program
            .set("word", Level::Off)
            .unwrap_err()
            .contains("`words`")
    );
    let level: Level = serde_json::from_str("\"off\"").unwrap();
    assert_eq!(level, Level::Off);
}

#[test]
fn source_of_takes_the_innermost_position() {
    let at = |name: &str, file: &str, line, col| Element {
        src: Some(crate::dom::Src {
            file: file.into(),
            line,
            col,
        }),
        ..Element::new(name)
    };
    let outer = at("p", "ch01.md", 12, 1);
    let inner = at("a", "ch01.md", 12, 3);
    let plain = Element::new("b");
    assert_eq!(
        source_of(&[&outer, &inner, &plain]),
        Some(Location::new("ch01.md", 12, 3))
    );
    assert_eq!(
        source_of(&[&outer, &plain]),
        Some(Location::new("ch01.md", 12, 1))
    );
    assert_eq!(source_of(&[&plain]), None);
    let odd = at("p", "c:/x.md", 4, 2);
    assert_eq!(source_of(&[&odd]), Some(Location::new("c:/x.md", 4, 2)));
}

#[test]
fn resolve_paths() {
    let base = "item/xhtml/ch01.xhtml";
    assert_eq!(
        resolve(base, "../image/a%20b.png"),
        Target::Local {
            path: "item/image/a b.png".into(),
            fragment: None
        }
    );
    assert_eq!(
        resolve(base, "#x"),
        Target::Local {
            path: base.into(),
            fragment: Some("x".into())
        }
    );
    assert_eq!(resolve(base, "https://x/y"), Target::External);
    assert_eq!(resolve(base, "../../../etc"), Target::Outside);
    // Plain relative paths (the quick way) and those with steps, empty segments or escapes.
    let local = |path: &str, fragment: Option<&str>| Target::Local {
        path: path.into(),
        fragment: fragment.map(Into::into),
    };
    for (base, href, path, fragment) in [
        (
            base,
            "ch02.xhtml#s%201",
            "item/xhtml/ch02.xhtml",
            Some("s 1"),
        ),
        (base, "sub/x.png?v=1", "item/xhtml/sub/x.png", None),
        ("nav.xhtml", "ch01.xhtml#a", "ch01.xhtml", Some("a")),
        ("nav.xhtml", "./ch01.xhtml", "ch01.xhtml", None),
        (base, "./sub//x.png", "item/xhtml/sub/x.png", None),
        (base, "sub/../x%2Ey.png", "item/xhtml/x.y.png", None),
        ("a//b.xhtml", "c.xhtml", "a//c.xhtml", None),
    ] {
        assert_eq!(
            resolve(base, href),
            local(path, fragment),
            "{href} from {base}"
        );
    }
    assert_eq!(resolve(base, "/abs"), Target::Outside);
}

#[test]
fn well_formed_reports_the_parser_position() {
    let files = edit(
        clean(),
        "item/xhtml/ch02.xhtml",
        "<p>External",
        "<p><b>External",
    );
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.message.starts_with("[well-formed] `</b>` expected"),
        "{}",
        f.message
    );
    assert_eq!(f.location.file.to_str(), Some("item/xhtml/ch02.xhtml"));
    assert_eq!(f.location.line, 10);

    let files = edit(clean(), "item/standard.opf", "</spine>", "</spin>");
    let f = one(run(&files));
    assert!(f.message.starts_with("[well-formed]"), "{}", f.message);
    assert_eq!(f.location.file.to_str(), Some("item/standard.opf"));
    assert_eq!(f.location.line, 16);

    let files = edit(clean(), "item/toc.ncx", "</navMap>", "");
    let f = one(run(&files));
    assert!(f.message.starts_with("[well-formed]"), "{}", f.message);
    assert_eq!(f.location.file.to_str(), Some("item/toc.ncx"));

    let mut files = clean();
    files.remove("META-INF/container.xml");
    let f = one(run(&files));
    assert!(
        f.message.contains("no META-INF/container.xml"),
        "{}",
        f.message
    );
}

#[test]
fn unique_ids_at_source_position() {
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "<p data-seihon-src=\"ch01.md:5:1\">",
        "<p id=\"sec1\" data-seihon-src=\"ch01.md:5:1\">",
    );
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.message,
        "[unique-ids] the id `sec1` is used twice in one page (first at ch01.md:1:1)"
    );
    assert_eq!(loc(&f), "ch01.md:5:1");
    let hint = f.hint.unwrap();
    assert!(hint.starts_with("in item/xhtml/ch01.xhtml:12:1"), "{hint}");
}

#[test]
fn internal_links_missing_fragment_and_file() {
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "ch02.xhtml#fig",
        "ch02.xhtml#fgi",
    );
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.message,
        "[internal-links] the link `ch02.xhtml#fgi` points to `#fgi`, but `item/xhtml/ch02.xhtml` has no such id"
    );
    assert_eq!(loc(&f), "ch01.md:3:5");
    assert_eq!(f.hint.as_deref(), Some("in item/xhtml/ch01.xhtml:11:8"));

    // Within the page: the position of the enclosing paragraph.
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "href=\"#sec1\"",
        "href=\"#sec2\"",
    );
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[internal-links] the link `#sec2` points to nothing: no element on this page has the id `sec2`"
    );
    assert_eq!(loc(&f), "ch01.md:3:1");
    assert!(f.hint.unwrap().starts_with("in item/xhtml/ch01.xhtml:11:"));

    // In the nav, which has no source positions: the XHTML position.
    let files = edit(
        clean(),
        "item/nav.xhtml",
        "xhtml/ch02.xhtml",
        "xhtml/ch03.xhtml",
    );
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[internal-links] the link `xhtml/ch03.xhtml` points to `item/xhtml/ch03.xhtml`, which is not in the book"
    );
    assert_eq!(loc(&f), "item/nav.xhtml:13:5");
    assert_eq!(f.hint, None);

    // In the NCX.
    let files = edit(clean(), "item/toc.ncx", "#sec1", "#nope");
    let f = one(run(&files));
    assert!(f.message.starts_with("[internal-links]"), "{}", f.message);
    assert_eq!(loc(&f), "item/toc.ncx:4:56");
}

#[test]
fn resources_missing_unlisted_and_css() {
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "alt=\"A cat\"",
        "alt=\"A cat\" data-x=\"\"",
    );
    assert_eq!(run(&files), vec![]);

    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "../image/fig.png\" alt=\"A cat\"",
        "../image/dog.png\" alt=\"A cat\"",
    );
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[resources] the image `../image/dog.png` is not in the book (looked for `item/image/dog.png`)"
    );
    assert_eq!(loc(&f), "ch01.md:5:1");
    assert_eq!(f.hint.as_deref(), Some("in item/xhtml/ch01.xhtml:12:4"));

    // In the book but not in the manifest.
    let mut files = clean();
    files.insert("item/image/extra.png".into(), vec![1]);
    let files = edit(
        files,
        "item/xhtml/ch02.xhtml",
        "../image/fig.png",
        "../image/extra.png",
    );
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[resources] the image `../image/extra.png` is in the book but not listed in the package document's manifest"
    );
    assert_eq!(loc(&f), "item/xhtml/ch02.xhtml:9:18");

    // A manifest item that is not there.
    let mut files = clean();
    files.remove("item/toc.ncx");
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[resources] the manifest lists `toc.ncx` (id `ncx`), but it is not in the book"
    );
    assert_eq!(loc(&f), "item/standard.opf:10:1");

    // CSS url(), comments ignored.
    let files = edit(
        clean(),
        "item/style/book.css",
        "../image/fig.png",
        "../image/bg.png",
    );
    let f = one(run(&files));
    assert_eq!(loc(&f), "item/style/book.css:1:20");
    assert!(f.message.contains("`../image/bg.png`"), "{}", f.message);
    assert_eq!(
        resources::css_urls_for_test("@import 'a.css'; p{background:URL( b.png )}"),
        vec![(0, "a.css".to_string()), (30, "b.png".to_string())]
    );

    // The style sheet link of a page.
    let files = edit(
        clean(),
        "item/xhtml/ch02.xhtml",
        "../style/book.css",
        "../style/bok.css",
    );
    let f = one(run(&files));
    assert!(
        f.message
            .starts_with("[resources] the style sheet `../style/bok.css`"),
        "{}",
        f.message
    );
    assert_eq!(loc(&f), "item/xhtml/ch02.xhtml:6:1");
}

#[test]
fn empty_link_text() {
    let files = edit(clean(), "item/xhtml/ch01.xhtml", ">figure 1</a>", "> </a>");
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.message,
        "[empty-link-text] the link to `ch02.xhtml#fig` has no text, so readers show nothing to tap"
    );
    assert_eq!(loc(&f), "ch01.md:3:5");
    assert!(
        f.hint
            .unwrap()
            .starts_with("in item/xhtml/ch01.xhtml:11:8; ")
    );

    // An image with alt text is text enough.
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        ">figure 1</a>",
        "><img src=\"../image/fig.png\" alt=\"figure\"/></a>",
    );
    assert_eq!(run(&files), vec![]);
}

#[test]
fn unresolved_references() {
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "<span class=\"tcy\">12</span>",
        "<span class=\"unresolved\">fig:cat</span>",
    );
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.message,
        "[unresolved-references] the reference `fig:cat` was not resolved"
    );
    assert_eq!(loc(&f), "ch01.md:3:1");

    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        " and <a",
        " and @&lt;list&gt;{sample} ??? <a",
    );
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[unresolved-references] `@<list>{sample}` looks like a reference that was not converted"
    );
    assert_eq!(loc(&f), "ch01.md:3:1");
    assert_eq!(links::leftover_for_test("see ??? here"), Some("???".into()));
    assert_eq!(links::leftover_for_test("mail@<b> {x}"), None);
}

#[test]
fn image_alt() {
    let files = edit(clean(), "item/xhtml/ch01.xhtml", " alt=\"A cat\"", "");
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.message,
        "[image-alt] the image `../image/fig.png` has no alternative text (`alt`)"
    );
    assert_eq!(loc(&f), "ch01.md:5:1");
    assert_eq!(
        f.hint.as_deref(),
        Some("in item/xhtml/ch01.xhtml:12:4; describe the image for readers who cannot see it")
    );

    // Raised to error: the missing alt is an error; an empty alt stays a warning.
    let files = edit(files, "item/xhtml/ch02.xhtml", "alt=\"fig\"", "alt=\"\"");
    let found = run_with(&files, "image-alt", Level::Error);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].severity, Severity::Error);
    assert_eq!(found[1].severity, Severity::Warning);
    assert_eq!(
        found[1].message,
        "[image-alt] the image `../image/fig.png` has an empty alternative text"
    );
    assert_eq!(loc(&found[1]), "item/xhtml/ch02.xhtml:9:18");

    // Off silences it.
    assert_eq!(run_with(&files, "image-alt", Level::Off), vec![]);
}

#[test]
fn tcy_length() {
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        ">12</span>",
        ">2024</span>",
    );
    assert_eq!(run(&files), vec![]);
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        ">12</span>",
        ">12345</span>",
    );
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.message,
        "[tcy-length] `12345` is 5 characters long; tate-chu-yoko suits 2 to 4 half-width characters"
    );
    assert_eq!(loc(&f), "ch01.md:3:1");
    let f = one(run_with(&files, "tcy-length", Level::Error));
    assert_eq!(f.severity, Severity::Error);
}

#[test]
fn nav_ruby_tcy() {
    let files = edit(
        clean(),
        "item/nav.xhtml",
        ">Two<",
        "><ruby>二<rt>に</rt></ruby> <span class=\"tcy\">12</span><",
    );
    let found = run(&files);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(
        found[0].message,
        "[nav-ruby-tcy] the table of contents contains ruby (`二に`), which many readers show badly there"
    );
    assert_eq!(loc(&found[0]), "item/nav.xhtml:13:32");
    assert!(
        found[1].message.contains("tate-chu-yoko (`12`)"),
        "{}",
        found[1].message
    );
    assert_eq!(run_with(&files, "nav-ruby-tcy", Level::Off), vec![]);
}

#[test]
fn vertical_spine() {
    let files = edit(
        clean(),
        "item/xhtml/ch02.xhtml",
        "class=\"hltr\"",
        "class=\"vrtl\"",
    );
    let f = one(run(&files));
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.message
            .starts_with("[vertical-spine] this page is written vertically"),
        "{}",
        f.message
    );
    assert_eq!(loc(&f), "item/xhtml/ch02.xhtml:3:1");

    let files = edit(
        clean(),
        "item/standard.opf",
        "<spine toc=\"ncx\">",
        "<spine toc=\"ncx\" page-progression-direction=\"rtl\">",
    );
    let f = one(run(&files));
    assert_eq!(
        f.message,
        "[vertical-spine] the spine's page progression is right-to-left, but no page is written vertically"
    );
    assert_eq!(loc(&f), "item/standard.opf:12:1");

    // Both vertical and rtl: fine.
    let files = edit(
        files,
        "item/xhtml/ch02.xhtml",
        "class=\"hltr\"",
        "class=\"vrtl\"",
    );
    assert_eq!(run(&files), vec![]);
}

#[test]
fn off_silences_an_error_check_and_svg_images_and_encoded_names_resolve() {
    let files = edit(
        clean(),
        "item/xhtml/ch01.xhtml",
        "ch02.xhtml#fig",
        "ch09.xhtml",
    );
    assert_eq!(run(&files).len(), 1);
    assert_eq!(run_with(&files, "internal-links", Level::Off), vec![]);

    // An SVG `image` and a percent-encoded Japanese file name.
    let mut files = clean();
    files.insert("item/image/猫.png".into(), vec![1]);
    let files = edit(
        files,
        "item/standard.opf",
        "</manifest>",
        "<item id=\"neko\" href=\"image/%E7%8C%AB.png\" media-type=\"image/png\"/>\n</manifest>",
    );
    let files = edit(
        files,
        "item/xhtml/ch02.xhtml",
        "<figure id=\"fig\">",
        "<figure id=\"fig\"><svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><image xlink:href=\"../image/%E7%8C%AB.png\"/></svg>",
    );
    assert_eq!(run(&files), vec![]);
    let files = edit(files, "item/xhtml/ch02.xhtml", "%E7%8C%AB", "%E7%8C%AC");
    let f = one(run(&files));
    assert!(
        f.message
            .starts_with("[resources] the image `../image/%E7%8C%AC.png` is not in the book"),
        "{}",
        f.message
    );
    assert_eq!(loc(&f), "item/xhtml/ch02.xhtml:9:101");
}

#[test]
fn kept_page_facts_give_the_same_findings_and_follow_edits() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("facts");
    let cached = |files: &Files| {
        let (files, sources) = view(files);
        run_checks(
            &EpubFiles {
                files: &files,
                sources: &sources,
                kept_marks: None,
                cache: Some(&cache),
                known: None,
            },
            &CheckSettings::default(),
        )
    };
    let entries = || crate::cache::Cache::<super::KeptFacts>::new(&cache).len();
    // A book with findings of several kinds, in several pages.
    let broken = edit(
        edit(
            clean(),
            "item/xhtml/ch01.xhtml",
            "<p data-seihon-src=\"ch01.md:5:1\">",
            "<p id=\"sec1\" data-seihon-src=\"ch01.md:5:1\">",
        ),
        "item/xhtml/ch02.xhtml",
        "</body>",
        "<p data-seihon-src=\"ch02.md:9:1\"><a href=\"ch01.xhtml#nowhere\">x</a><img src=\"../image/fig.png\"/></p></body>",
    );
    let expected = run(&broken);
    assert!(
        (expected.iter()).any(|f| f.location.file.to_str() == Some("ch02.md")),
        "{expected:#?}"
    );
    assert!(expected.len() >= 3, "{expected:#?}");
    assert_eq!(cached(&broken), expected, "first run, filling the cache");
    assert_eq!(
        entries(),
        16,
        "per page its facts, its links and resources, and what the link and resource checks \
         found in it; the NCX's facts, links and links' findings; the package's facts"
    );
    assert_eq!(cached(&broken), expected, "from the cache");
    // An edit is seen, and entries of pages that are no more are dropped.
    let fixed = edit(broken.clone(), "item/xhtml/ch02.xhtml", "#nowhere", "#sec1");
    assert_eq!(cached(&fixed), run(&fixed));
    assert_eq!(cached(&fixed).len(), expected.len() - 1);
    // Entries of pages that are no more stay until they would make up half the store (a
    // build appends its new entries rather than writing the store again): never more than
    // twice the entries in use, however many edits.
    assert!((16..=32).contains(&entries()), "{}", entries());
    for n in 0..10 {
        let edited = edit(
            fixed.clone(),
            "item/xhtml/ch02.xhtml",
            "#sec1",
            &format!("#sec1-{n}"),
        );
        cached(&edited);
        assert!((16..=32).contains(&entries()), "edit {n}: {}", entries());
    }
    assert_eq!(cached(&fixed), run(&fixed));
    // Pages whose links and resources the store no longer holds are read again, their
    // findings at their source positions.
    assert_eq!(cached(&broken), expected);
    let store = crate::cache::Cache::<super::KeptFacts>::new(&cache);
    let facts_alone: Vec<(String, super::KeptFacts)> = (store.keys())
        .map(|k| (k.clone(), store.get(&k).unwrap()))
        .filter(|(_, facts)| {
            matches!(
                facts,
                super::KeptFacts::Page(_) | super::KeptFacts::Package(_)
            )
        })
        .collect();
    assert!(facts_alone.len() < entries());
    drop(store);
    std::fs::remove_dir_all(&cache).unwrap();
    let store = crate::cache::Cache::<super::KeptFacts>::new(&cache);
    for (key, facts) in &facts_alone {
        store.put(key, facts);
    }
    store.keep_only(&facts_alone.iter().map(|(k, _)| k.clone()).collect());
    assert_eq!(entries(), facts_alone.len());
    assert_eq!(cached(&broken), expected, "no links kept");
    // A damaged entry is read again.
    let store = cache.join("entries.bin");
    let mut bytes = std::fs::read(&store).unwrap();
    let n = bytes.len();
    bytes[n - 8..].copy_from_slice(b"{{{{{{{{");
    std::fs::write(&store, bytes).unwrap();
    assert_eq!(cached(&fixed), run(&fixed));
    // The NCX's links are kept too, and still checked against the pages as they are.
    let ncx_broken = edit(fixed.clone(), "item/toc.ncx", "#sec1", "#nope");
    let expected = run(&ncx_broken);
    assert!(
        expected
            .iter()
            .any(|f| f.location.file.to_str() == Some("item/toc.ncx")),
        "{expected:#?}"
    );
    assert_eq!(cached(&ncx_broken), expected, "the NCX read");
    assert_eq!(cached(&ncx_broken), expected, "the NCX from the cache");
    let renamed = edit(
        ncx_broken,
        "item/xhtml/ch01.xhtml",
        "id=\"sec1\"",
        "id=\"nope\"",
    );
    assert_eq!(
        cached(&renamed),
        run(&renamed),
        "a page's new ids, the NCX kept"
    );
    // The package document's manifest and spine are kept too, and follow its edits.
    let unlisted = edit(
        renamed,
        "item/standard.opf",
        "<item id=\"fig\" href=\"image/fig.png\" media-type=\"image/png\"/>",
        "",
    );
    let expected = run(&unlisted);
    assert_ne!(
        expected,
        run(&fixed),
        "the image is no longer in the manifest"
    );
    assert_eq!(cached(&unlisted), expected, "the package read");
    assert_eq!(cached(&unlisted), expected, "the package from the cache");
    // A file a link points to goes: the page is as it was, its link is not.
    let mut linked = edit(
        unlisted,
        "item/xhtml/ch02.xhtml",
        "</body>",
        "<p><a href=\"../image/extra.png\">x</a></p></body>",
    );
    linked.insert("item/image/extra.png".into(), vec![0x89]);
    assert_eq!(cached(&linked), run(&linked), "a link to a file");
    linked.remove("item/image/extra.png");
    let expected = run(&linked);
    assert!(
        expected.iter().any(|f| f.message.contains("extra.png")),
        "{expected:#?}"
    );
    assert_eq!(cached(&linked), expected, "the file linked to is gone");
}

#[test]
fn pages_known_by_a_key_give_the_findings_of_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("facts");
    let broken = edit(
        clean(),
        "item/xhtml/ch02.xhtml",
        "</body>",
        "<p><a href=\"ch01.xhtml#nowhere\">x</a><img src=\"../image/none.png\"/></p></body>",
    );
    let expected = run(&broken);
    assert!(expected.len() >= 2, "{expected:#?}");
    let (files, sources) = view(&broken);
    // Every XHTML page and the package document, known by a key of what made them.
    let known: HashMap<String, String> = (files.keys())
        .filter(|p| p.ends_with(".xhtml") || p.ends_with(".opf"))
        .map(|p| (p.clone(), format!("made {p}")))
        .collect();
    for pass in ["filling the cache", "from the cache"] {
        let found = run_checks(
            &EpubFiles {
                files: &files,
                sources: &sources,
                kept_marks: None,
                cache: Some(&cache),
                known: Some(&known),
            },
            &CheckSettings::default(),
        );
        assert_eq!(found, expected, "{pass}");
    }
}

#[test]
fn a_pages_links_not_kept_are_read_from_the_page() {
    let files = clean();
    let (files, sources) = view(&files);
    let book = Book::load(&files, &sources, None, None, None);
    let (path, gathered) = (book.pages.iter())
        .find(|(_, f)| !f.refs.get().unwrap().links.is_empty())
        .unwrap();
    let bare = page::PageFacts {
        refs: Default::default(),
        ..gathered.clone()
    };
    let read = book.refs(path, &bare);
    assert_eq!(
        format!("{read:?}"),
        format!("{:?}", gathered.refs.get().unwrap())
    );
}
