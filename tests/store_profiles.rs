//! Store profiles (`--profile kdp|apple|kobo|ebpaj`): each profile's rules tripped one by one
//! on a book seihon built (its EPUB edited the way books that stores refuse are made), each
//! finding with its code and the store document it cites; the sample books pass every profile;
//! and `check` warns where `release` fails.
use std::path::Path;

use seihon::check::store::{self, Profile, Tree};

use crate::support::{TempProject, repo, text, write_exec};

/// Builds a sample book (with the given profiles) and returns its EPUB's path.
fn build(project: &TempProject, id: &str, profiles: &str) -> std::path::PathBuf {
    project.add_book(&repo().join("books").join(id), id);
    let out = project.seihon(&["build", id, "--profile", profiles]);
    assert!(out.status.success(), "{}", text(&out));
    project.epub(id)
}

fn codes_and_messages(found: &[seihon::error::Finding]) -> Vec<(String, String)> {
    found
        .iter()
        .map(|f| (f.code.to_string(), f.message.clone()))
        .collect()
}

/// The one finding of `code` among `found`, whose message cites `rule`.
#[track_caller]
fn assert_one(found: &[seihon::error::Finding], code: &str, rule: &str) {
    let of: Vec<_> = found.iter().filter(|f| f.code == code).collect();
    assert_eq!(
        of.len(),
        1,
        "one {code} in {:#?}",
        codes_and_messages(found)
    );
    assert!(
        of[0].message.contains(rule),
        "{code} cites {rule}: {}",
        of[0].message
    );
}

fn edit(tree: &mut Tree, path: &str, from: &str, to: &str) {
    let text = String::from_utf8(tree[path].clone()).unwrap();
    assert!(text.contains(from), "{path} has {from}");
    tree.insert(path.to_string(), text.replacen(from, to, 1).into_bytes());
}

/// A PNG's signature and header: all that is read of an image for its size.
fn png(width: u32, height: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(width.to_be_bytes());
    b.extend(height.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

/// The sample book review-nyumon, built, as a tree to edit.
fn sample_tree() -> Tree {
    let project = TempProject::new();
    let epub = build(&project, "review-nyumon", "kobo");
    store::read_epub(&epub).unwrap()
}

const OPF: &str = "item/standard.opf";
const CH: &str = "item/xhtml/ch01.xhtml";

#[test]
fn every_profile_reports_remote_resources_citing_its_own_document() {
    let mut tree = sample_tree();
    edit(
        &mut tree,
        CH,
        "</body>",
        "<video src=\"https://example.com/a.mp4\" controls=\"controls\"></video></body>",
    );
    let css = "item/style/book.css";
    let sheet = String::from_utf8(tree[css].clone()).unwrap();
    tree.insert(
        css.into(),
        format!("@import url(\"http://example.com/x.css\");\n{sheet}").into_bytes(),
    );
    for (profile, rule) in [
        (Profile::Kdp, "Kindle Publishing Guidelines 2019.2 §7"),
        (Profile::Apple, "Apple Books Asset Guide"),
        (Profile::Kobo, "Kobo EPUB Guidelines, External Resources"),
        (Profile::Ebpaj, "EBPAJ EPUB 3 制作ガイド ver.1.1.3"),
    ] {
        let found = store::lint(&tree, &[profile], None);
        let remote: Vec<_> = found
            .iter()
            .filter(|f| f.code == "store-remote-resource")
            .collect();
        assert_eq!(
            remote.len(),
            2,
            "{profile:?}: {:#?}",
            codes_and_messages(&found)
        );
        assert!(
            remote.iter().all(|f| f.message.contains(rule)),
            "{remote:#?}"
        );
        assert!(remote.iter().any(|f| {
            f.message
                .contains("`<video>` loads `https://example.com/a.mp4`")
        }));
        assert!(
            remote
                .iter()
                .any(|f| f.location.file == Path::new(css) && f.location.line == 1)
        );
    }
}

#[test]
fn the_apple_profile_reports_images_over_its_pixel_limit() {
    let mut tree = sample_tree();
    let image = "item/image/images/flow.png";
    tree.insert(image.into(), png(2000, 2801));
    let found = store::lint(&tree, &[Profile::Apple], None);
    assert_one(
        &found,
        "store-image-size",
        "Apple Books Asset Guide, Images",
    );
    assert!(
        found[0].message.contains("2000×2801 = 5602000 pixels"),
        "{}",
        found[0].message
    );
    assert_eq!(found[0].location.file, Path::new(image));
    // At the limit, it passes.
    tree.insert(image.into(), png(2000, 2800));
    assert!(store::lint(&tree, &[Profile::Apple], None).is_empty());
}

#[test]
fn the_kobo_profile_reports_each_of_its_rules() {
    let clean = sample_tree();
    let kobo = |tree: &Tree| store::lint(tree, &[Profile::Kobo], None);
    assert!(
        kobo(&clean).is_empty(),
        "{:#?}",
        codes_and_messages(&kobo(&clean))
    );

    // An image file over 5 MB.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        OPF,
        "</manifest>",
        "<item id=\"big\" href=\"image/big.png\" media-type=\"image/png\"/></manifest>",
    );
    let mut big = png(100, 100);
    big.resize(5 * 1024 * 1024 + 1, 0);
    tree.insert("item/image/big.png".into(), big);
    assert_one(
        &kobo(&tree),
        "store-image-size",
        "Kobo EPUB Guidelines, Image Formatting",
    );

    // A GIF cover.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        OPF,
        "media-type=\"image/png\" properties=\"cover-image\"",
        "media-type=\"image/gif\" properties=\"cover-image\"",
    );
    assert_one(
        &kobo(&tree),
        "store-cover",
        "GIF files are not supported for covers",
    );

    // No `<meta name="cover">`.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        OPF,
        "<meta name=\"cover\" content=\"cover-image\"/>",
        "",
    );
    assert_one(
        &kobo(&tree),
        "store-cover",
        "Kobo EPUB Guidelines, Cover Images",
    );

    // The cover's page holds text too.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        "item/xhtml/cover.xhtml",
        "</section>",
        "</section><p>Chapter 1</p>",
    );
    assert_one(
        &kobo(&tree),
        "store-cover",
        "Cover images must be contained in their own XHTML files",
    );
}

#[test]
fn the_kdp_profile_reports_each_of_its_rules() {
    let clean = sample_tree();
    let kdp = |tree: &Tree| store::lint(tree, &[Profile::Kdp], None);
    let baseline: Vec<_> = kdp(&clean).into_iter().map(|f| f.code).collect();
    let new_findings = |tree: &Tree| -> Vec<seihon::error::Finding> {
        kdp(tree)
            .into_iter()
            .filter(|f| !baseline.contains(&f.code))
            .collect()
    };

    // A cover too small, then one of the wrong shape.
    let mut tree = clean.clone();
    tree.insert("item/image/cover.png".into(), png(600, 960));
    assert_one(
        &new_findings(&tree),
        "store-cover",
        "KDP Help, Cover Image Guidelines",
    );
    assert!(kdp(&tree).iter().any(|f| f.message.contains("600×960")));
    tree.insert("item/image/cover.png".into(), png(1600, 1600));
    assert_one(&new_findings(&tree), "store-cover", "ratio of 1.6:1");

    // No cover at all.
    let mut tree = clean.clone();
    edit(&mut tree, OPF, " properties=\"cover-image\"", "");
    edit(
        &mut tree,
        OPF,
        "<meta name=\"cover\" content=\"cover-image\"/>",
        "",
    );
    assert_one(
        &new_findings(&tree),
        "store-cover",
        "§4.2 Internal Content Cover Image",
    );

    // An SVG with a raster image embedded as data:, in a page.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        CH,
        "</body>",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><image href=\"data:image/png;base64,iVBORw0KGgo=\" width=\"10\" height=\"10\"/></svg></body>",
    );
    assert_one(
        &new_findings(&tree),
        "store-svg-raster",
        "§10.4.11 Use Supported SVG Tags and Elements",
    );
    // An SVG wrapping one image of the book is what Kindle supports.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        CH,
        "</body>",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 10 10\"><image xlink:href=\"../image/cover.png\" width=\"10\" height=\"10\"/></svg></body>",
    );
    assert!(
        new_findings(&tree).is_empty(),
        "{:#?}",
        codes_and_messages(&new_findings(&tree))
    );
    // The same image beside drawing is not.
    edit(
        &mut tree,
        CH,
        "height=\"10\"/></svg>",
        "height=\"10\"/><rect width=\"5\" height=\"5\"/></svg>",
    );
    assert_one(
        &new_findings(&tree),
        "store-svg-raster",
        "mixed with vector drawing",
    );

    // A raster image inside an SVG file of the book.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        OPF,
        "</manifest>",
        "<item id=\"fig\" href=\"image/fig.svg\" media-type=\"image/svg+xml\"/></manifest>",
    );
    tree.insert(
        "item/image/fig.svg".into(),
        b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><image href=\"cover.png\" width=\"10\" height=\"10\"/></svg>".to_vec(),
    );
    assert_one(
        &new_findings(&tree),
        "store-svg-raster",
        "inside an SVG file",
    );

    // No NCX.
    let mut tree = clean.clone();
    edit(&mut tree, OPF, "<spine toc=\"ncx\"", "<spine");
    edit(
        &mut tree,
        OPF,
        "<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>",
        "",
    );
    assert_one(&kdp(&tree), "store-ncx", "§5.2 NCX Guidelines");
    assert!(kdp(&tree).iter().any(|f| f.message.contains("has no NCX")));

    // Fixed layout without Kindle's original-resolution.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        OPF,
        "</metadata>",
        "<meta property=\"rendition:layout\">pre-paginated</meta></metadata>",
    );
    assert_one(
        &new_findings(&tree),
        "store-fixed-layout",
        "original-resolution",
    );
    edit(
        &mut tree,
        OPF,
        "</metadata>",
        "<meta name=\"original-resolution\" content=\"1600x2560\"/></metadata>",
    );
    assert!(new_findings(&tree).is_empty());

    // A vertical book without primary-writing-mode.
    let mut tree = clean.clone();
    edit(&mut tree, CH, "class=\"hltr\"", "class=\"vrtl\"");
    edit(
        &mut tree,
        OPF,
        "<spine toc=\"ncx\"",
        "<spine toc=\"ncx\" page-progression-direction=\"rtl\"",
    );
    assert_one(
        &new_findings(&tree),
        "store-writing-mode",
        "primary-writing-mode",
    );
    assert!(
        kdp(&tree)
            .iter()
            .any(|f| f.message.contains("content=\"vertical-rl\""))
    );

    // A style sheet linked without its type.
    let mut tree = clean.clone();
    edit(
        &mut tree,
        CH,
        "<link rel=\"stylesheet\" type=\"text/css\"",
        "<link rel=\"stylesheet\"",
    );
    assert_one(
        &new_findings(&tree),
        "store-style-link",
        "type=\"text/css\"",
    );
}

#[test]
fn the_ebpaj_profile_reports_the_guides_metadata_and_folders() {
    let project = TempProject::new();
    // Built without the profile: the package does not declare the guide.
    let epub = build(&project, "review-nyumon", "kobo");
    let mut tree = store::read_epub(&epub).unwrap();
    let found = store::lint(&tree, &[Profile::Ebpaj], None);
    assert_one(&found, "store-metadata", "ebpaj:guide-version");
    // A page outside item/xhtml/ and a file outside item/.
    let page = tree.remove(CH).unwrap();
    tree.insert("item/ch01.xhtml".into(), page);
    edit(
        &mut tree,
        OPF,
        "href=\"xhtml/ch01.xhtml\"",
        "href=\"ch01.xhtml\"",
    );
    tree.insert("extra/notes.txt".into(), b"x".to_vec());
    let found = store::lint(&tree, &[Profile::Ebpaj], None);
    let layout: Vec<_> = found.iter().filter(|f| f.code == "store-layout").collect();
    assert!(
        layout.iter().any(|f| f
            .message
            .contains("`item/ch01.xhtml` first) are not in `item/xhtml/`")),
        "{layout:#?}"
    );
    assert!(layout.iter().any(|f| f.message.contains("outside `item/`")));
    assert!(layout.iter().all(|f| {
        f.message
            .contains("EBPAJ EPUB 3 制作ガイド ver.1.1.3, 基本的なフォルダ構成")
    }));
}

#[test]
fn the_sample_books_pass_every_profile_and_stay_epubcheck_clean() {
    let all = [Profile::Kdp, Profile::Apple, Profile::Kobo, Profile::Ebpaj];
    for id in ["docbook-guide", "neko-no-hon", "review-nyumon"] {
        let project = TempProject::new();
        let epub = build(&project, id, "kdp,apple,kobo,ebpaj");
        let tree = store::read_epub(&epub).unwrap();
        let opf = String::from_utf8_lossy(&tree[OPF]).to_string();
        assert!(
            opf.contains("prefix=\"ebpaj: http://www.ebpaj.jp/\""),
            "{opf}"
        );
        assert!(opf.contains("<meta property=\"ebpaj:guide-version\">1.1.3</meta>"));
        let found = store::lint(&tree, &all, None);
        assert!(found.is_empty(), "{id}: {:#?}", codes_and_messages(&found));
        assert_eq!(
            crate::support::epubcheck(&epub),
            Vec::<String>::new(),
            "{id}"
        );
    }
}

/// A vertical book gets Kindle's primary-writing-mode, and passes the KDP profile's
/// writing-mode and style-link rules; the EPUB stays epubcheck-clean.
#[test]
fn a_vertical_book_declares_its_writing_mode_for_kindle() {
    let project = TempProject::new();
    let dir = project.add_book(&repo().join("books/neko-no-hon"), "tate");
    let yml = std::fs::read_to_string(dir.join("book.yml")).unwrap();
    std::fs::write(
        dir.join("book.yml"),
        yml.replace("writing: horizontal", "writing: vertical"),
    )
    .unwrap();
    let out = project.seihon(&["build", "tate", "--profile", "kdp"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("tate");
    let tree = store::read_epub(&epub).unwrap();
    let opf = String::from_utf8_lossy(&tree[OPF]).to_string();
    assert!(
        opf.contains("<meta name=\"primary-writing-mode\" content=\"vertical-rl\"/>"),
        "{opf}"
    );
    assert!(opf.contains("page-progression-direction=\"rtl\""));
    let found = store::lint(&tree, &[Profile::Kdp], None);
    assert!(found.is_empty(), "{:#?}", codes_and_messages(&found));
    assert_eq!(crate::support::epubcheck(&epub), Vec::<String>::new());
}

/// Through the command line: `check --profile` warns at the manuscript's line, citing the rule;
/// `release --profile` fails on the same finding.
#[test]
fn check_warns_and_release_fails_on_a_store_finding() {
    let project = TempProject::new();
    let dir = project.add_book(&repo().join("books/review-nyumon"), "rv");
    write_exec(
        &dir.join("hooks/pre-pack"),
        "#!/bin/sh\nset -e\nsed -i 's|</body>|<audio src=\"https://example.com/a.mp3\"></audio></body>|' item/xhtml/ch01.xhtml\n",
    );
    let report = project.path().join("report.json");
    let arg = format!("json:{}", report.display());
    let out = project.seihon(&["check", "rv", "--profile", "kobo", "--report", &arg]);
    assert!(out.status.success(), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let findings = json["books"][0]["findings"].as_array().unwrap();
    let remote: Vec<_> = findings
        .iter()
        .filter(|f| f["code"] == "store-remote-resource")
        .collect();
    assert_eq!(remote.len(), 1, "{findings:#?}");
    assert_eq!(remote[0]["severity"], "warning");
    let message = remote[0]["message"].as_str().unwrap();
    assert!(
        message.contains("Kobo EPUB Guidelines, External Resources"),
        "{message}"
    );
    assert!(
        message.contains("`<audio>` loads `https://example.com/a.mp3`"),
        "{message}"
    );
    // At the manuscript's line, the page's own place in the hint.
    assert_eq!(remote[0]["file"], "books/rv/ch01.re", "{:#?}", remote[0]);
    let hint = remote[0]["hint"].as_str().unwrap();
    assert!(hint.starts_with("in item/xhtml/ch01.xhtml:"), "{hint}");

    // Without --profile, nothing of the kind.
    let plain = project.seihon(&["check", "rv"]);
    assert!(plain.status.success());
    assert!(
        !text(&plain).contains("stores fetch nothing"),
        "{}",
        text(&plain)
    );

    let release = project.seihon(&["release", "rv", "--version", "1.0", "--profile", "kobo"]);
    assert_eq!(release.status.code(), Some(1), "{}", text(&release));
    let log = text(&release);
    assert!(
        log.contains("error") && log.contains("Kobo EPUB Guidelines, External Resources"),
        "{log}"
    );
    assert!(log.contains("a release admits no warnings"), "{log}");
}

#[test]
fn an_unknown_profile_is_refused_with_the_known_ones() {
    let project = TempProject::new();
    project.add_book(&repo().join("books/review-nyumon"), "rv");
    let out = project.seihon(&["check", "rv", "--profile", "nook"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let log = text(&out);
    assert!(log.contains("kdp") && log.contains("ebpaj"), "{log}");
}
