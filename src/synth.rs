//! A synthetic book generator for benchmarks and scale tests: the same book as Markdown,
//! Re:VIEW or DocBook, with headings, paragraphs, inline markup, lists, listings, tables,
//! footnotes, images and cross-references (each chapter refers to the one before it), in a given
//! number of chapters of about a given number of source lines each. Every book it writes builds
//! without a finding and passes epubcheck (tests/synth.rs).
use std::fmt::Write as _;
use std::path::Path;

/// A 1×1 grey PNG: every figure points at one real image.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x68, 0x00, 0x00, 0x00,
    0x82, 0x00, 0x81, 0x4c, 0x17, 0xd7, 0xdf, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// The source format to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Review,
    DocBook,
}

/// The fewest lines a chapter asks for (one section).
const SECTION_LINES: usize = 20;

impl Format {
    /// `markdown`/`md`, `review`/`re`, `docbook`/`xml`.
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "markdown" | "md" => Some(Format::Markdown),
            "review" | "re" => Some(Format::Review),
            "docbook" | "xml" => Some(Format::DocBook),
            _ => None,
        }
    }
}

/// Writes a book of `chapters` chapters of about `lines` lines each into `out`.
pub fn generate(format: Format, chapters: usize, lines: usize, out: &Path) -> std::io::Result<()> {
    let (chapters, lines) = (chapters.max(1), lines.max(SECTION_LINES));
    std::fs::create_dir_all(out.join("images"))?;
    std::fs::write(out.join("images/figure.png"), PNG)?;
    // Sections per chapter: as many as fit `lines` lines of this format.
    let one = match format {
        Format::Markdown => markdown_chapter(1, 1, 1),
        Format::Review => review_chapter(1, 1, 1),
        Format::DocBook => docbook_chapter(1, 1, 1),
    };
    let sections = (lines / one.lines().count().max(1)).max(1);
    let names: Vec<String> = (1..=chapters)
        .map(|c| match format {
            Format::Markdown => format!("ch{c:03}.md"),
            Format::Review => format!("ch{c:03}.re"),
            Format::DocBook => format!("ch{c:03}.xml"),
        })
        .collect();
    for (i, name) in names.iter().enumerate() {
        let c = i + 1;
        // Each chapter refers to a section of the previous one, so references cross files.
        let prev = if c > 1 { c - 1 } else { c };
        // Re:VIEW finds a figure's image by its id: one (tiny) file per figure.
        if format == Format::Review {
            for sec in 1..=sections {
                std::fs::write(out.join(format!("images/f{c}-{sec}.png")), PNG)?;
            }
        }
        let text = match format {
            Format::Markdown => markdown_chapter(c, prev, sections),
            Format::Review => review_chapter(c, prev, sections),
            Format::DocBook => docbook_chapter(c, prev, sections),
        };
        std::fs::write(out.join(name), text)?;
    }
    match format {
        Format::Markdown => std::fs::write(
            out.join("book.yml"),
            format!(
                "title: Synthetic book\nlanguage: en\nidentifier: urn:uuid:5e1b0a7e-0000-4000-8000-{chapters:012}\nauthors: [A. Writer]\ndate: 2026-01-01\nchapters: [{}]\n",
                names.join(", ")
            ),
        ),
        Format::Review => {
            std::fs::write(
                out.join("config.yml"),
                "review_version: 5.0\nbookname: synth\nlanguage: en\nbooktitle: Synthetic book\naut: [A. Writer]\ndate: 2026-01-01\nsecnolevel: 2\n",
            )?;
            std::fs::write(
                out.join("catalog.yml"),
                format!(
                    "CHAPS:\n{}",
                    names
                        .iter()
                        .map(|n| format!("  - {n}\n"))
                        .collect::<String>()
                ),
            )
        }
        Format::DocBook => {
            let mut book = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE book PUBLIC \"-//OASIS//DTD DocBook XML V4.5//EN\"\n  \"http://www.oasis-open.org/docbook/xml/4.5/docbookx.dtd\" [\n",
            );
            for (i, name) in names.iter().enumerate() {
                let _ = writeln!(book, "  <!ENTITY ch{:03} SYSTEM \"{name}\">", i + 1);
            }
            book.push_str("]>\n<book id=\"synth\" lang=\"en\">\n  <bookinfo>\n    <title>Synthetic book</title>\n    <author><firstname>A.</firstname><surname>Writer</surname></author>\n    <pubdate>2026-01-01</pubdate>\n  </bookinfo>\n");
            for i in 0..names.len() {
                let _ = writeln!(book, "  &ch{:03};", i + 1);
            }
            book.push_str("</book>\n");
            std::fs::write(out.join("book.xml"), book)
        }
    }
}

/// Words for paragraphs: varied enough that nothing compresses to nothing.
fn sentence(c: usize, s: usize, n: usize) -> String {
    const WORDS: &[&str] = &[
        "binding",
        "manuscript",
        "chapter",
        "reader",
        "paper",
        "letter",
        "edition",
        "proof",
        "margin",
        "spine",
        "index",
        "figure",
        "table",
        "listing",
        "footnote",
        "reference",
    ];
    let mut out = String::new();
    for k in 0..12 {
        let w = WORDS[(c * 7 + s * 3 + n * 5 + k) % WORDS.len()];
        if k > 0 {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn markdown_chapter(c: usize, prev: usize, sections: usize) -> String {
    let mut t = format!("# Chapter {c} {{#ch{c}}}\n\n");
    for s in 1..=sections {
        let _ = write!(
            t,
            "## Section {c}.{s} {{#s{c}-{s}}}\n\n\
             The {} with *emphasis*, **strong text**, `inline code` and a [link](https://example.com/{c}/{s}).\n\
             See [the earlier section](ch{prev:03}.md#s{prev}-{s}) and a note.[^n{s}]\n\n\
             - first item {s}: {}\n- second item with `code`\n- third item\n\n\
             1. step one\n2. step two\n\n\
             ```rust\nfn section_{c}_{s}() -> usize {{\n    let total = {c} * {s};\n    total + 1\n}}\n```\n\n\
             | Name | Value | Note |\n|------|------:|------|\n| a{s} | {c} | {} |\n| b{s} | {s} | plain |\n\n\
             ![Figure {c}.{s}](images/figure.png)\n\n\
             {}\n{}\n\n\
             [^n{s}]: The footnote of section {c}.{s}.\n\n",
            sentence(c, s, 0),
            sentence(c, s, 1),
            sentence(c, s, 2),
            sentence(c, s, 3),
            sentence(c, s, 4),
        );
    }
    t
}

fn review_chapter(c: usize, prev: usize, sections: usize) -> String {
    let mut t = format!("= Chapter {c}\n\n");
    for s in 1..=sections {
        let _ = write!(
            t,
            "=={{s{c}-{s}}} Section {c}.{s}\n\n\
             The {} with @<b>{{bold}}, @<i>{{italic}}, @<code>{{inline code}} and @<href>{{https://example.com/{c}/{s}}}.\n\
             See @<hd>{{ch{prev:03}|s{prev}-{s}}}, @<list>{{l{c}-{s}}}, @<table>{{t{c}-{s}}} and a note@<fn>{{n{c}-{s}}}.\n\n\
             * first item {s}: {}\n * second item with @<code>{{code}}\n * third item\n\n\
             //list[l{c}-{s}][Listing {c}.{s}][ruby]{{\ndef section_{c}_{s}\n  total = {c} * {s}\n  total + 1\nend\n//}}\n\n\
             //table[t{c}-{s}][Table {c}.{s}]{{\nName\tValue\tNote\n------------\na{s}\t{c}\t{}\nb{s}\t{s}\tplain\n//}}\n\n\
             //image[f{c}-{s}][Figure {c}.{s}]{{\n//}}\n\n\
             {}\n{}\n\n\
             //footnote[n{c}-{s}][The footnote of section {c}.{s}.]\n\n",
            sentence(c, s, 0),
            sentence(c, s, 1),
            sentence(c, s, 2),
            sentence(c, s, 3),
            sentence(c, s, 4),
        );
    }
    t
}

fn docbook_chapter(c: usize, prev: usize, sections: usize) -> String {
    let mut t = format!("<chapter id=\"ch{c}\">\n  <title>Chapter {c}</title>\n");
    for s in 1..=sections {
        let _ = write!(
            t,
            "  <sect1 id=\"s{c}-{s}\">\n    <title>Section {c}.{s}</title>\n\
             <para>The {} with <emphasis>emphasis</emphasis>, <emphasis role=\"strong\">strong</emphasis>, <literal>inline code</literal> and <ulink url=\"https://example.com/{c}/{s}\">a link</ulink>.\n\
             See <xref linkend=\"s{prev}-{s}\"/> and a note.<footnote><para>The footnote of section {c}.{s}.</para></footnote></para>\n\
             <itemizedlist>\n<listitem><para>first item {s}: {}</para></listitem>\n<listitem><para>second item with <literal>code</literal></para></listitem>\n</itemizedlist>\n\
             <example id=\"l{c}-{s}\"><title>Listing {c}.{s}</title>\n<programlisting language=\"python\">def section_{c}_{s}():\n    total = {c} * {s}\n    return total + 1</programlisting></example>\n\
             <table id=\"t{c}-{s}\"><title>Table {c}.{s}</title>\n<tgroup cols=\"3\"><thead><row><entry>Name</entry><entry>Value</entry><entry>Note</entry></row></thead>\n\
             <tbody><row><entry>a{s}</entry><entry>{c}</entry><entry>{}</entry></row>\n<row><entry>b{s}</entry><entry>{s}</entry><entry>plain</entry></row></tbody></tgroup></table>\n\
             <figure id=\"f{c}-{s}\"><title>Figure {c}.{s}</title>\n<mediaobject><imageobject><imagedata fileref=\"images/figure.png\"/></imageobject><textobject><phrase>Figure {c}.{s}</phrase></textobject></mediaobject></figure>\n\
             <para>{}</para>\n<para>{}</para>\n  </sect1>\n",
            sentence(c, s, 0),
            sentence(c, s, 1),
            sentence(c, s, 2),
            sentence(c, s, 3),
            sentence(c, s, 4),
        );
    }
    t.push_str("</chapter>\n");
    t
}
