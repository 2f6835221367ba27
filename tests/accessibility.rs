//! Accessibility (issue 21): DAISY Ace finds nothing in the sample books, and the package's
//! accessibility metadata is what the book holds — golden for a text-only book, an illustrated
//! one, and one with math and a page list — with conformance claimed only when every image
//! that is not decorative is described.
//!
//! Needs DAISY Ace (`npm ci --prefix tests/ace`) and Debian's chromium; `bash .ci/run` installs
//! them. Without them the Ace test fails and says how to get them.
use std::path::{Path, PathBuf};

use crate::corpus::harness::ace::Ace;
use crate::support::*;

fn ace() -> Ace {
    Ace::find(&repo()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn daisy_ace_finds_nothing_in_the_sample_books() {
    let ace = ace();
    let project = TempProject::new();
    for book in ["neko-no-hon", "review-nyumon", "docbook-guide"] {
        project.add_book(&repo().join("books").join(book), book);
    }
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    for book in ["neko-no-hon", "review-nyumon", "docbook-guide"] {
        let verdict = ace
            .check(&project.epub(book))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            verdict.total(),
            0,
            "{book}: Ace found {} (first: {:?})",
            verdict.summary(),
            verdict.first
        );
    }
}

/// A grey PNG, to be an illustration.
fn png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 40, 30);
    enc.set_color(png::ColorType::Grayscale);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&[0x80; 40 * 30]).unwrap();
    drop(w);
    out
}

/// A one-chapter Markdown book `id` with `chapter` as its text (and `fig.png` beside it).
fn book(project: &TempProject, id: &str, extra_yml: &str, chapter: &str) -> PathBuf {
    let dir = project.path().join("books").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("book.yml"),
        format!("title: {id}\nlanguage: en\nchapters: [ch01.md]\n{extra_yml}"),
    )
    .unwrap();
    std::fs::write(dir.join("ch01.md"), chapter).unwrap();
    std::fs::write(dir.join("fig.png"), png()).unwrap();
    dir
}

/// The package's accessibility lines: what the golden holds.
fn a11y_metadata(epub: &Path) -> String {
    let opf = read_entry(epub, "item/standard.opf");
    let wanted = [
        "schema:access",
        "dcterms:conformsTo",
        "a11y:",
        "pageBreakSource",
        "<dc:source",
        "source-of",
    ];
    let mut out: Vec<&str> = opf
        .lines()
        .filter(|l| wanted.iter().any(|w| l.contains(w)))
        .collect();
    out.push("");
    out.join("\n")
}

fn golden(name: &str) -> PathBuf {
    repo()
        .join("tests/fixtures/opf")
        .join(format!("{name}.txt"))
}

#[test]
fn the_package_claims_what_the_book_holds() {
    let project = TempProject::new();
    book(&project, "text-only", "", "# One\n\nJust words.\n");
    book(
        &project,
        "illustrated",
        "",
        "# One\n\n![A grey square](fig.png)\n\nWords.\n",
    );
    book(
        &project,
        "math-and-pages",
        "print_isbn: 978-4-87311-532-0\n",
        "# One\n\nThe square $x^2$ grows.\n\n<span epub:type=\"pagebreak\" title=\"12\"/>\n\n$$\ny = x^2\n$$\n",
    );
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let ace = ace();
    for id in ["text-only", "illustrated", "math-and-pages"] {
        let epub = project.epub(id);
        assert_eq!(epubcheck(&epub), Vec::<String>::new(), "{id}");
        let got = a11y_metadata(&epub);
        if let Some(expected) = against_golden(&got, &golden(id)) {
            panic!(
                "{id}: the package's accessibility metadata differs:\n--- expected\n{expected}\n--- got\n{got}"
            );
        }
        let verdict = ace.check(&epub).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(verdict.total(), 0, "{id}: {}", verdict.summary());
    }
}

#[test]
fn an_image_without_alt_text_takes_away_alternative_text_and_conformance() {
    let project = TempProject::new();
    book(
        &project,
        "undescribed",
        "",
        "# One\n\nWords.\n\n![](fig.png)\n",
    );
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("books/undescribed/ch01.md:5:1: warning: [image-alt]"),
        "{said}"
    );
    let epub = project.epub("undescribed");
    let meta = a11y_metadata(&epub);
    assert!(!meta.contains("conformsTo"), "{meta}");
    assert!(!meta.contains("alternativeText"), "{meta}");
    assert!(
        meta.contains("<meta property=\"schema:accessModeSufficient\">textual,visual</meta>"),
        "{meta}"
    );
    assert!(
        !meta.contains("<meta property=\"schema:accessModeSufficient\">textual</meta>"),
        "{meta}"
    );
    assert!(
        meta.contains("Some images have no alternative text"),
        "{meta}"
    );

    // A release admits no such warning.
    let out = project.seihon(&["release", "undescribed", "--version", "1.0"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("ch01.md:5:1: error: [image-alt]"),
        "{}",
        text(&out)
    );

    // Described, the same book claims both.
    std::fs::write(
        project.path().join("books/undescribed/ch01.md"),
        "# One\n\nWords.\n\n![A grey square](fig.png)\n",
    )
    .unwrap();
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let meta = a11y_metadata(&epub);
    assert!(meta.contains("<meta property=\"dcterms:conformsTo\" id=\"conformance\">EPUB Accessibility 1.1 - WCAG 2.1 Level AA</meta>"), "{meta}");
    assert!(
        meta.contains("<meta property=\"schema:accessibilityFeature\">alternativeText</meta>"),
        "{meta}"
    );
}

#[test]
fn the_author_says_hazards_summary_and_certifier() {
    let project = TempProject::new();
    let yml = "accessibility:\n  summary: Read aloud well.\n  hazards: [noFlashingHazard, noMotionSimulationHazard, noSoundHazard]\n  certified_by: A11y Lab\n  certifier_credential: DAISY Ace Certified\n";
    book(&project, "said", yml, "# One\n\nWords.\n");
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let epub = project.epub("said");
    assert_eq!(epubcheck(&epub), Vec::<String>::new());
    let meta = a11y_metadata(&epub);
    for line in [
        "<meta property=\"schema:accessibilityHazard\">noFlashingHazard</meta>",
        "<meta property=\"schema:accessibilityHazard\">noSoundHazard</meta>",
        "<meta property=\"schema:accessibilitySummary\">Read aloud well.</meta>",
        "<meta property=\"a11y:certifiedBy\" id=\"certifier\">A11y Lab</meta>",
        "<meta property=\"a11y:certifierCredential\" refines=\"#certifier\">DAISY Ace Certified</meta>",
    ] {
        assert!(meta.contains(line), "{line}\nnot in\n{meta}");
    }
    assert!(!meta.contains(">none</meta>"), "{meta}");

    // A term that is not schema.org's is an error at its line.
    let yml = "accessibility:\n  hazards: [none, flashy]\n";
    book(&project, "said", yml, "# One\n\nWords.\n");
    let out = project.seihon(&["build"]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains(
            "books/said/book.yml:5:19: error: `flashy` is not an accessibility hazard term"
        ),
        "{said}"
    );
}
