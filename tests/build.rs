//! `seihon build` end to end: sample books through the real binary, checked by the real
//! epubcheck, byte for byte.
use crate::support;

use support::*;

fn sample_book() -> std::path::PathBuf {
    repo().join("books/neko-no-hon")
}

#[test]
fn every_sample_book_builds_and_passes_epubcheck_without_errors_or_warnings() {
    let project = TempProject::new();
    support::copy_dir(&repo().join("books"), &project.path().join("books"));
    let out = project.seihon(&["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let books: Vec<_> = std::fs::read_dir(repo().join("books"))
        .unwrap()
        .flatten()
        .collect();
    assert!(!books.is_empty());
    for book in books {
        let id = book.file_name().to_string_lossy().into_owned();
        let epub = project.epub(&id);
        assert!(epub.is_file(), "{} was not built", epub.display());
        let messages = epubcheck(&epub);
        assert!(
            messages.is_empty(),
            "epubcheck on {id}:\n{}",
            messages.join("\n")
        );
    }
}

#[test]
fn two_builds_are_byte_identical_and_mimetype_is_first_and_stored() {
    let (a, b) = (TempProject::new(), TempProject::new());
    a.add_book(&sample_book(), "neko");
    b.add_book(&sample_book(), "neko");
    assert!(a.seihon(&["build"]).status.success());
    assert!(b.seihon(&["build", "neko"]).status.success());
    let (x, y) = (
        std::fs::read(a.epub("neko")).unwrap(),
        std::fs::read(b.epub("neko")).unwrap(),
    );
    assert!(x == y, "two builds differ");

    // The raw local header of the first entry.
    assert_eq!(&x[0..4], b"PK\x03\x04");
    assert_eq!(
        u16::from_le_bytes([x[8], x[9]]),
        0,
        "mimetype must be stored"
    );
    assert_eq!(u16::from_le_bytes([x[26], x[27]]), 8, "name length");
    assert_eq!(
        u16::from_le_bytes([x[28], x[29]]),
        0,
        "mimetype must have no extra field"
    );
    assert_eq!(&x[30..38], b"mimetype");
    assert_eq!(&x[38..58], b"application/epub+zip");
    let names = entry_names(&a.epub("neko"));
    let mut sorted = names[1..].to_vec();
    sorted.sort();
    assert_eq!(names[1..], sorted[..], "entries after mimetype are sorted");
}

#[test]
#[cfg(unix)]
fn the_epub_is_made_as_any_new_file_is_under_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let p = TempProject::new();
    p.add_book(&sample_book(), "neko");
    for (umask, mode) in [("022", 0o644), ("077", 0o600)] {
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("umask {umask} && exec \"$0\" build --force")])
            .arg(env!("CARGO_BIN_EXE_seihon"))
            .current_dir(p.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let meta = std::fs::metadata(p.epub("neko")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, mode, "umask {umask}");
    }
}

#[test]
fn source_date_epoch_sets_the_modified_date() {
    let project = TempProject::new();
    project.add_book(&sample_book(), "neko");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_seihon"))
        .arg("build")
        .current_dir(project.path())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let opf = read_entry(&project.epub("neko"), "item/standard.opf");
    assert!(
        opf.contains("<meta property=\"dcterms:modified\">2023-11-14T22:13:20Z</meta>"),
        "{opf}"
    );
}

#[test]
fn colophon_shows_title_creators_publisher_history_and_isbn() {
    let project = TempProject::new();
    project.add_book(&sample_book(), "neko");
    assert!(project.seihon(&["build"]).status.success());
    // Line breaks between block elements are the serializer's, not content.
    let colophon = read_entry(&project.epub("neko"), "item/xhtml/colophon.xhtml").replace('\n', "");
    for expected in [
        "製本入門",
        "原稿から電子書籍ができるまで",
        "山田 花子",
        // Re:VIEW's words for the roles (its i18n.yml).
        "<td class=\"role\">著　者</td><td class=\"name\">山田 花子</td>",
        "<td class=\"role\">翻　訳</td><td class=\"name\">Alice Smith</td>",
        "<td class=\"role\">編　集</td><td class=\"name\">佐藤 一郎</td>",
        "見本出版",
        "2026年4月1日",
        "初版第1刷発行",
        "2026年10月1日",
        "初版第2刷発行",
        "ISBN 978-4-87311-532-0",
        "© 2026 山田花子",
        "epub:type=\"colophon\"",
    ] {
        assert!(
            colophon.contains(expected),
            "colophon lacks {expected:?}:\n{colophon}"
        );
    }
    let opf = read_entry(&project.epub("neko"), "item/standard.opf");
    assert!(
        opf.contains("<dc:identifier id=\"book-id\">urn:isbn:9784873115320</dc:identifier>"),
        "{opf}"
    );
    assert!(
        opf.contains("property=\"role\" scheme=\"marc:relators\">trl</meta>"),
        "{opf}"
    );
}

#[test]
fn generated_cover_is_a_png_of_the_declared_size_with_the_title_drawn() {
    let project = TempProject::new();
    project.add_book(&sample_book(), "neko");
    assert!(project.seihon(&["build"]).status.success());
    let epub = project.epub("neko");
    let opf = read_entry(&epub, "item/standard.opf");
    assert!(
        opf.contains(
            "href=\"image/cover.png\" media-type=\"image/png\" properties=\"cover-image\""
        ),
        "{opf}"
    );
    let png = read_entry_bytes(&epub, "item/image/cover.png");
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let (w, h) = (reader.info().width, reader.info().height);
    assert_eq!((w, h), (1600, 2400));
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let bytes_per_pixel = frame.line_size / w as usize;
    // The title band holds both the background and many glyph pixels of another colour.
    let band = &buf[frame.line_size * 300..frame.line_size * 1200];
    let background = &band[..3];
    let differing = band
        .chunks(bytes_per_pixel)
        .filter(|p| &p[..3] != background)
        .count();
    assert!(
        differing > 20_000,
        "only {differing} pixels differ from the background: no title drawn?"
    );
}

#[test]
fn chapters_link_across_files_and_footnotes_get_epub_types_and_roles() {
    let project = TempProject::new();
    project.add_book(&sample_book(), "neko");
    assert!(project.seihon(&["build"]).status.success());
    let epub = project.epub("neko");
    let preface = read_entry(&epub, "item/xhtml/preface.xhtml");
    assert!(
        preface.contains("href=\"ch01.xhtml#manuscript\""),
        "{preface}"
    );
    let ch01 = read_entry(&epub, "item/xhtml/ch01.xhtml");
    assert!(
        ch01.contains("epub:type=\"noteref\" id=\"fnref-ch01-1\" role=\"doc-noteref\""),
        "{ch01}"
    );
    assert!(
        ch01.contains(
            "<aside class=\"footnote\" epub:type=\"footnote\" id=\"fn-ch01-1\" role=\"doc-footnote\">"
        ),
        "{ch01}"
    );
    assert!(
        ch01.contains("<section epub:type=\"chapter\" class=\"chapter\" role=\"doc-chapter\">"),
        "{ch01}"
    );
    assert!(
        ch01.contains("<span class=\"secno\">第1章\u{3000}</span>"),
        "{ch01}"
    );
    assert!(
        ch01.contains("日本語の文は空白なしでつながります"),
        "{ch01}"
    );
    let english = read_entry(&epub, "item/xhtml/ch03-english.xhtml");
    assert!(english.contains("xml:lang=\"en\""), "{english}");
    assert!(
        !ch01.contains("data-seihon-src"),
        "source positions must be stripped when staging"
    );
    let nav = read_entry(&epub, "item/nav.xhtml");
    assert!(nav.contains("href=\"xhtml/ch01.xhtml#tables\""), "{nav}");
}

#[test]
fn list_json_names_every_book_and_new_scaffolds_a_buildable_book() {
    let project = TempProject::new();
    project.add_book(&sample_book(), "neko");
    let out = project.seihon(&["new", "fresh", "--format", "markdown"]);
    assert!(out.status.success(), "{}", text(&out));
    let again = project.seihon(&["new", "fresh"]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "new must refuse an existing book"
    );
    let out = project.seihon(&["list", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["fresh", "neko"]);
    let out = project.seihon(&["build", "fresh"]);
    assert!(out.status.success(), "{}", text(&out));
    let messages = epubcheck(&project.epub("fresh"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// Re:VIEW and Markdown equations become MathML that epubcheck accepts (the pages that hold it
/// are marked `mathml` in the package); one that does not convert stays TeX, with a warning at
/// its line, and `math_format: imgmath` falls back to MathML with one warning.
#[test]
fn equations_become_mathml_that_passes_epubcheck() {
    let project = TempProject::new();
    let rv = project.add_book(&repo().join("books/review-nyumon"), "rv");
    let neko = project.add_book(&sample_book(), "neko");
    let append = |path: std::path::PathBuf, text: &str| {
        let mut s = std::fs::read_to_string(&path).unwrap();
        s.push_str(text);
        std::fs::write(&path, s).unwrap();
    };
    append(rv.join("config.yml"), "math_format: imgmath\n");
    append(
        rv.join("ch02.re"),
        concat!(
            "\n//texequation[matrix][行列]{\n",
            "M = \\left(\\begin{array}{c|cc} m_{11} & \\cdots & m_{1n} \\\\ \\hline \\vdots & \\ddots & \\vdots \\end{array}\\right)\n",
            "//}\n\n",
            "//texequation{\n",
            "\\begin{aligned} \\int_0^1 x^2\\,dx &= \\frac{1}{3} \\\\ \\lim_{n\\to\\infty} \\sum_{k=1}^{n} \\frac{1}{k^2} &= \\dfrac{\\pi^2}{6} \\end{aligned}\n",
            "//}\n\n",
            "//texequation{\n",
            "|x| = \\begin{cases} x & x \\geq 0 \\\\ -x & \\text{負のとき} \\end{cases}, \\quad \\det\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix} \\neq 0\n",
            "//}\n\n",
            "式@<m>{\\mathbf{v\\} \\in \\mathbb{R\\}^n}と@<m>{\\hat{\\theta\\} = \\overline{x\\}}、",
            "@<m>{\\displaystyle\\sum_{i=1\\}^n i}、@<m>{\\sqrt[3]{\\alpha\\} + \\mathcal{L\\}}。\n\n",
            "//texequation{\n",
            "\\newcommand{\\R}{\\mathbb{R}} x\n",
            "//}\n",
        ),
    );
    append(
        neko.join("ch02.md"),
        "\n式 $e^{i\\pi} + 1 = 0$ と\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n",
    );
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let ch02 = rv.join("ch02.re");
    let line = std::fs::read_to_string(&ch02)
        .unwrap()
        .lines()
        .position(|l| l.starts_with("\\newcommand"))
        .unwrap()
        + 1;
    assert!(
        all.contains(&format!(
            "books/rv/ch02.re:{line}:1: warning: this equation is shown as its TeX: `\\newcommand` is not a command seihon converts to MathML"
        )),
        "{all}"
    );
    assert_eq!(
        all.lines()
            .filter(|l| l.contains("warning: `math_format: imgmath`"))
            .count(),
        1,
        "{all}"
    );
    // The Re:VIEW book is named by its `bookname:`, whatever its folder.
    for (id, page) in [("review-nyumon", "ch02.xhtml"), ("neko", "ch02.xhtml")] {
        let epub = project.epub(id);
        let xhtml = read_entry(&epub, &format!("item/xhtml/{page}"));
        assert!(
            xhtml.contains("<math xmlns=\"http://www.w3.org/1998/Math/MathML\" display=\"block\""),
            "{id}: {xhtml}"
        );
        let opf = read_entry(&epub, "item/standard.opf");
        let item = opf
            .lines()
            .find(|l| l.contains(&format!("href=\"xhtml/{page}\"")))
            .unwrap_or_else(|| panic!("{id}: {opf}"));
        assert!(item.contains("mathml"), "{id}: {item}");
        let messages = epubcheck(&epub);
        assert!(messages.is_empty(), "{id}:\n{}", messages.join("\n"));
    }
    let rv_page = read_entry(&project.epub("review-nyumon"), "item/xhtml/ch02.xhtml");
    assert!(
        rv_page.contains("<pre class=\"tex\">\\newcommand{\\R}{\\mathbb{R}} x</pre>"),
        "{rv_page}"
    );
}

/// A Re:VIEW book is named by its `bookname:`, as review-epubmaker names its EPUB; two books
/// of a project sharing one (review-init writes `bookname: book` in every project) are each
/// named by their folder instead, with a warning at the line, so neither overwrites the
/// other's EPUB. `build`, `list` and `build <id>` agree on the names.
#[test]
fn a_review_book_is_named_by_its_bookname_unless_another_book_has_it_too() {
    let project = TempProject::new();
    for (folder, title) in [("first", "First"), ("second", "Second")] {
        let dir = project.path().join("books").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("config.yml"),
            format!("booktitle: {title}\nlanguage: en\nbookname: book\n"),
        )
        .unwrap();
        std::fs::write(dir.join("catalog.yml"), "CHAPS:\n  - ch01.re\n").unwrap();
        std::fs::write(dir.join("ch01.re"), format!("= {title}\n\nText.\n")).unwrap();
    }
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for (folder, other) in [("first", "second"), ("second", "first")] {
        assert!(
            all.contains(&format!(
                "books/{folder}/config.yml:3:1: warning: `bookname: book` is the name of another book of this project too (`{other}`), so seihon names this book by its folder, `{folder}`"
            )),
            "{all}"
        );
        assert!(project.epub(folder).is_file(), "{all}");
    }
    assert!(!project.epub("book").exists(), "{all}");
    let opf = |id: &str| read_entry(&project.epub(id), "item/standard.opf");
    assert!(opf("first").contains(">First<") && opf("second").contains(">Second<"));
    // Built alone, a book keeps the name it has among the others.
    std::fs::remove_dir_all(project.path().join("dist")).unwrap();
    let out = project.seihon(&["build", "second"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(project.epub("second").is_file() && !project.epub("book").exists());
    let list = project.seihon(&["list", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let ids: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["first", "second"]);

    // One book alone keeps its bookname, and `seihon build book` finds it by that id.
    std::fs::remove_dir_all(project.path().join("books/second")).unwrap();
    std::fs::remove_dir_all(project.path().join("dist")).unwrap();
    let out = project.seihon(&["build"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.contains("bookname"), "{all}");
    assert!(
        project.epub("book").is_file() && !project.epub("first").exists(),
        "{all}"
    );
    assert!(project.path().join("build/book").is_dir(), "{all}");
    std::fs::remove_dir_all(project.path().join("dist")).unwrap();
    let out = project.seihon(&["build", "book"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(project.epub("book").is_file(), "{}", text(&out));
    let list = project.seihon(&["list"]);
    assert!(String::from_utf8_lossy(&list.stdout).starts_with("book\tFirst"));
    let messages = epubcheck(&project.epub("book"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// pandoc-crossref ids are the whole book's: a reference in one chapter finds a figure, a table
/// or a section in another, and the book passes epubcheck.
#[test]
fn pandoc_crossref_references_reach_other_chapters() {
    let project = TempProject::new();
    let book = project.path().join("books/xr");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::copy(
        repo().join("tests/fixtures/markdown/diagram.png"),
        book.join("diagram.png"),
    )
    .unwrap();
    std::fs::write(
        book.join("book.yml"),
        "title: Cross\nlanguage: en\nchapters: [a.md, b.md]\n",
    )
    .unwrap();
    std::fs::write(
        book.join("a.md"),
        "# First\n\n## Setup {#sec:setup}\n\n![A diagram](diagram.png){#fig:d}\n",
    )
    .unwrap();
    std::fs::write(
        book.join("b.md"),
        "# Second\n\nSee @fig:d in @sec:setup, and @fig:none.\n",
    )
    .unwrap();
    let out = project.seihon(&["build", "xr"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("cannot resolve the reference `fig:none`"),
        "{all}"
    );
    let page = read_entry(&project.epub("xr"), "item/xhtml/b.xhtml");
    assert!(
        page.contains("<a href=\"a.xhtml#fig:d\" class=\"link\">Figure 1</a>"),
        "{page}"
    );
    assert!(page.contains("href=\"a.xhtml#sec:setup\""), "{page}");
    let messages = epubcheck(&project.epub("xr"));
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// `typography: smart` curls a Markdown book's quotes and makes its dashes; without it, not a
/// character of the text changes.
#[test]
fn smart_typography_is_what_the_book_asks_for_and_nothing_else() {
    let project = TempProject::new();
    let book = project.path().join("books/ty");
    std::fs::create_dir_all(&book).unwrap();
    let yml = "title: Typography\nlanguage: en\nchapters: [a.md]\n";
    std::fs::write(book.join("book.yml"), yml).unwrap();
    std::fs::write(book.join("a.md"), "# A\n\n\"Quoted\" -- and --- then...\n").unwrap();
    let out = project.seihon(&["build", "ty"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = read_entry(&project.epub("ty"), "item/xhtml/a.xhtml");
    assert!(page.contains("\"Quoted\" -- and --- then..."), "{page}");

    std::fs::write(book.join("book.yml"), format!("{yml}typography: smart\n")).unwrap();
    let out = project.seihon(&["build", "ty"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = read_entry(&project.epub("ty"), "item/xhtml/a.xhtml");
    assert!(page.contains("“Quoted” – and — then…"), "{page}");

    std::fs::write(book.join("book.yml"), format!("{yml}typography: fancy\n")).unwrap();
    let out = project.seihon(&["build", "ty"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("books/ty/book.yml:4:"),
        "{}",
        text(&out)
    );
}
