use super::*;
use crate::error::Severity;
use std::time::Instant;

const DTD4: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE book PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN" "http://www.oasis-open.org/docbook/xml/4.5/docbookx.dtd">
"#;

/// Writes the files (the first is the main file) into a fresh book folder and reads it.
fn read_files(files: &[(&str, &str)]) -> (tempfile::TempDir, DocBookBook, Vec<Finding>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    let (book, findings) = read(&dir.path().join(files[0].0), dir.path());
    (dir, book, findings)
}

fn read_str(text: &str) -> (DocBookBook, Vec<Finding>) {
    let (_d, b, f) = read_files(&[("book.xml", text)]);
    (b, f)
}

/// A DocBook 4 book with one chapter holding `body`; returns the chapter's blocks after its
/// heading.
fn chapter(body: &str) -> (Vec<Block>, Vec<Footnote>, Vec<Finding>) {
    let text = format!(
        "{DTD4}<book><title>B</title><chapter id=\"c1\"><title>C</title>\n{body}\n</chapter></book>"
    );
    let (b, f) = read_str(&text);
    let ch = b.chapters.into_iter().next().expect("a chapter");
    let mut blocks = ch.doc.blocks;
    assert!(matches!(blocks[0].kind, BlockKind::Heading(_)));
    blocks.remove(0);
    (blocks, ch.doc.footnotes, f)
}

fn no_errors(f: &[Finding]) {
    let errs: Vec<_> = f.iter().filter(|f| f.severity == Severity::Error).collect();
    assert!(errs.is_empty(), "unexpected errors: {errs:#?}");
}

fn para(b: &Block) -> &Inlines {
    match &b.kind {
        BlockKind::Para(c) | BlockKind::StyledPara { content: c, .. } => c,
        other => panic!("not a para: {other:?}"),
    }
}

fn heading(b: &Block) -> &Heading {
    match &b.kind {
        BlockKind::Heading(h) => h,
        other => panic!("not a heading: {other:?}"),
    }
}

fn text(i: &Inlines) -> String {
    plain_text(i)
}

fn one_inline(body: &str) -> Inlines {
    let (blocks, _, f) = chapter(&format!("<para>{body}</para>"));
    no_errors(&f);
    para(&blocks[0]).clone()
}

fn kinds(i: &Inlines) -> Vec<InlineKind> {
    i.iter().map(|x| x.kind.clone()).collect()
}

fn t(s: &str) -> InlineKind {
    InlineKind::Text(s.into())
}

fn has(f: &[Finding], sev: Severity, needle: &str) -> Option<Finding> {
    f.iter()
        .find(|x| x.severity == sev && x.message.contains(needle))
        .cloned()
}

// ---------------------------------------------------------------- structure

#[test]
fn book_structure_roles_levels_and_ids() {
    let src = format!(
        r#"{DTD4}<book id="bk" lang="en">
<bookinfo><title>The Book</title><legalnotice><para>Do not copy.</para></legalnotice></bookinfo>
<preface id="pre"><title>Preface</title><para>p</para></preface>
<part id="p1"><title>Part One</title><partintro><para>intro</para></partintro>
<chapter id="ch1"><title>Chapter One</title>
 <sect1 id="s1"><title>S1</title><sect2 id="s2"><title>S2</title><sect3 id="s3"><title>S3</title>
 <sect4 id="s4"><title>S4</title><sect5 id="s5"><title>S5</title><section id="s6"><title>S6</title><para>deep</para></section></sect5></sect4></sect3></sect2></sect1>
 <section id="sec"><title>Sec</title><simplesect id="ss"><title>Simple</title><para>x</para></simplesect></section>
</chapter></part>
<appendix id="app"><title>App</title><para>a</para></appendix>
<glossary><glossentry id="g1"><glossterm>Term</glossterm><glossdef><para>Def</para></glossdef></glossentry></glossary>
<bibliography><biblioentry id="b1"><author><surname>Knuth</surname></author><title>TAOCP</title></biblioentry></bibliography>
<index/>
<colophon><para>Set in type.</para></colophon>
</book>"#
    );
    let (b, f) = read_str(&src);
    no_errors(&f);
    let roles: Vec<Role> = b.chapters.iter().map(|c| c.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::Front,
            Role::Front,
            Role::Part,
            Role::Body,
            Role::Appendix,
            Role::Back,
            Role::Back,
            Role::Back,
            Role::Back
        ]
    );
    // Legal notice is kept as a page (the book's id under its heading).
    assert_eq!(text_of_heading(&b.chapters[0]), "Legal Notice");
    assert_eq!(
        b.chapters[0].doc.blocks[1].kind,
        BlockKind::Anchor("bk".into())
    );
    assert_eq!(text(para(&b.chapters[0].doc.blocks[2])), "Do not copy.");
    // Part title page with its partintro.
    let part = &b.chapters[2].doc.blocks;
    assert_eq!(heading(&part[0]).id.as_deref(), Some("p1"));
    assert_eq!(text(para(&part[1])), "intro");
    // Section levels.
    let ch = &b.chapters[3].doc.blocks;
    let hs: Vec<(u8, String)> = ch
        .iter()
        .filter_map(|b| match &b.kind {
            BlockKind::Heading(h) => Some((h.level, h.id.clone().unwrap_or_default())),
            _ => None,
        })
        .collect();
    assert_eq!(
        hs,
        vec![
            (1, "ch1".into()),
            (2, "s1".into()),
            (3, "s2".into()),
            (4, "s3".into()),
            (5, "s4".into()),
            (6, "s5".into()),
            (6, "s6".into()),
            (2, "sec".into()),
            (3, "ss".into())
        ]
    );
    assert_eq!(b.chapters[3].doc.source, PathBuf::from("book.xml"));
    assert_eq!(text_of_heading(&b.chapters[5]), "Glossary");
    assert_eq!(text_of_heading(&b.chapters[7]), "Index");
    assert_eq!(b.meta.title.as_deref(), Some("The Book"));
    assert_eq!(b.meta.language.as_deref(), Some("en"));
    assert_eq!(b.meta.rights.as_deref(), Some("Do not copy."));
    assert_eq!(b.xref_texts["ch1"], "Chapter One");
    assert_eq!(b.xref_texts["g1"], "Term");
}

fn text_of_heading(c: &DocBookChapter) -> String {
    text(&heading(&c.doc.blocks[0]).content)
}

#[test]
fn untitled_section_gets_words_and_a_warning() {
    let (blocks, _, f) = chapter(
        "<section id=\"u\"><title></title><para>First words of the para here and more</para></section>\
         <section><para/></section>",
    );
    let h = heading(&blocks[0]);
    assert_eq!(text(&h.content), "First words of the para here…");
    assert_eq!(h.id.as_deref(), Some("u"));
    let w = has(&f, Severity::Warning, "has an empty title").unwrap();
    assert_eq!((w.location.line, w.location.col), (4, 1));
    let h2 = blocks
        .iter()
        .filter_map(|b| match &b.kind {
            BlockKind::Heading(h) => Some(h),
            _ => None,
        })
        .nth(1)
        .unwrap();
    assert_eq!(text(&h2.content), "(untitled section)");
}

#[test]
fn article_is_one_chapter_with_its_sections() {
    let (b, f) = read_str(
        r#"<article lang="fr"><articleinfo><title>Art</title><author><firstname>A</firstname><surname>B</surname></author></articleinfo>
<para>lead</para><sect1 id="a1"><title>One</title><para>x</para></sect1></article>"#,
    );
    no_errors(&f);
    assert_eq!(b.chapters.len(), 1);
    assert_eq!(b.chapters[0].role, Role::Body);
    let blocks = &b.chapters[0].doc.blocks;
    assert_eq!(text(&heading(&blocks[0]).content), "Art");
    assert_eq!(heading(&blocks[2]).level, 2);
    assert_eq!(b.meta.people[0].name, "A B");
    assert_eq!(b.meta.people[0].role, "aut");
    assert_eq!(b.meta.language.as_deref(), Some("fr"));
}

#[test]
fn refentry_basics() {
    let (blocks, _, f) = chapter(
        r#"<refentry id="r1"><refnamediv><refname>svn add</refname><refpurpose>Add files.</refpurpose></refnamediv>
<refsynopsisdiv><para>svn add PATH</para></refsynopsisdiv>
<refsect1><title>Options</title><para>o</para></refsect1></refentry>"#,
    );
    no_errors(&f);
    let h = heading(&blocks[0]);
    assert_eq!((h.level, text(&h.content)), (2, "svn add".to_string()));
    assert_eq!(text(para(&blocks[1])), "svn add — Add files.");
    assert_eq!(text(&heading(&blocks[2]).content), "Synopsis");
    assert_eq!(heading(&blocks[4]).level, 3);
}

// ---------------------------------------------------------------- blocks

#[test]
fn paras_and_lists() {
    let (blocks, _, f) = chapter(
        r#"<para id="p1">Hello
   <emphasis>world</emphasis>.</para>
<itemizedlist><listitem id="li1"><para>a</para></listitem><listitem><para>b</para></listitem></itemizedlist>
<orderedlist startingnumber="3"><listitem><para>c</para></listitem></orderedlist>
<orderedlist><listitem><para>d</para></listitem></orderedlist>
<variablelist id="vl"><varlistentry id="ve"><term>t1</term><term><option>-x</option></term><listitem><para>def</para></listitem></varlistentry></variablelist>
<simplelist type="inline"><member>x</member><member>y</member></simplelist>
<procedure><title>Steps</title><step><para>one</para></step><step id="st2"><para>two</para><substeps><step><para>two.a</para></step></substeps></step></procedure>"#,
    );
    no_errors(&f);
    assert_eq!(blocks[0].kind, BlockKind::Anchor("p1".into()));
    assert_eq!(
        kinds(para(&blocks[1])),
        vec![
            t("Hello "),
            // Text is placed at its element: `<emphasis>`, not the `w` after it.
            InlineKind::Emphasis(vec![Inline::text("world", Pos::new(5, 4))]),
            t(".")
        ]
    );
    let BlockKind::List(l) = &blocks[2].kind else {
        panic!()
    };
    assert_eq!(l.start, None);
    assert_eq!(l.items[0][0].kind, BlockKind::Anchor("li1".into()));
    let BlockKind::List(l) = &blocks[3].kind else {
        panic!()
    };
    assert_eq!(l.start, Some(3));
    let BlockKind::List(l) = &blocks[4].kind else {
        panic!()
    };
    assert_eq!(l.start, Some(1));
    assert_eq!(blocks[5].kind, BlockKind::Anchor("vl".into()));
    let BlockKind::DefinitionList(d) = &blocks[6].kind else {
        panic!("{:?}", blocks[6])
    };
    assert_eq!(text(&d[0].term), "t1, -x");
    assert!(matches!(&d[0].term[0].kind, InlineKind::Raw(_)));
    assert_eq!(text(para(&d[0].definitions[0][0])), "def");
    assert_eq!(text(para(&blocks[7])), "x, y");
    // A titled procedure: a `div.procedure` holding its caption and steps, numbered later.
    let BlockKind::Div {
        class,
        blocks: procedure,
    } = &blocks[8].kind
    else {
        panic!("{:?}", blocks[8])
    };
    assert_eq!(class, "procedure");
    assert!(
        matches!(&procedure[0].kind, BlockKind::StyledPara { class, .. } if class == "caption")
    );
    let BlockKind::List(l) = &procedure[1].kind else {
        panic!()
    };
    assert_eq!(l.start, Some(1));
    assert_eq!(l.items[1][0].kind, BlockKind::Anchor("st2".into()));
    assert!(matches!(
        &l.items[1][2].kind,
        BlockKind::List(List { start: Some(1), .. })
    ));
}

#[test]
fn listings() {
    let (blocks, _, f) = chapter(
        r#"<programlisting language="rust" linenumbering="numbered">
fn main() {
    println!("&lt;hi&gt;");
}
</programlisting>
<screen>$ <userinput>ls -l</userinput>
total 0</screen>
<synopsis>cmd [opts]</synopsis>
<programlisting>a = 1 <co id="co1"/>
b = 2 <co id="co2"/></programlisting>
<calloutlist><callout arearefs="co1" id="cl1"><para>first</para></callout></calloutlist>
<para>See <xref linkend="co2"/>.</para>"#,
    );
    no_errors(&f);
    let BlockKind::Code(c) = &blocks[0].kind else {
        panic!()
    };
    assert_eq!(c.style, CodeStyle::Example);
    assert_eq!(c.language.as_deref(), Some("rust"));
    assert_eq!(c.first_line_number, Some(1));
    assert_eq!(c.text, "fn main() {\n    println!(\"<hi>\");\n}");
    assert!(c.markup.is_none());
    let BlockKind::Code(c) = &blocks[1].kind else {
        panic!()
    };
    assert_eq!(c.style, CodeStyle::Command);
    assert_eq!(c.text, "$ ls -l\ntotal 0");
    let m = c.markup.as_ref().unwrap();
    assert!(
        matches!(&m[1].kind, InlineKind::Bold(b) if b[0].kind == InlineKind::Code("ls -l".into()))
    );
    let BlockKind::Code(c) = &blocks[2].kind else {
        panic!()
    };
    assert_eq!(c.style, CodeStyle::Box);
    let BlockKind::Code(c) = &blocks[3].kind else {
        panic!()
    };
    assert_eq!(c.text, "a = 1 (1)\nb = 2 (2)");
    // Each mark links to its callout (the second's has no id: it is given one).
    let m = c.markup.as_ref().unwrap();
    let targets: Vec<&str> = m
        .iter()
        .filter_map(|i| match &i.kind {
            InlineKind::Ref { target, .. } => Some(target.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(targets, ["cl1"]);
    let BlockKind::DefinitionList(d) = &blocks[4].kind else {
        panic!("{:?}", blocks[4])
    };
    // The callout has its id and links back to its mark.
    assert!(matches!(&d[0].term[0].kind, InlineKind::Raw(_)));
    assert!(matches!(&d[0].term[1].kind,
        InlineKind::Ref { target, content: Some(c), .. } if target == "co1" && text(c) == "(1)"));
    assert_eq!(text(para(&d[0].definitions[0][0])), "first");
}

#[test]
fn cals_table_with_spans_and_head() {
    let (blocks, _, f) = chapter(
        r#"<table id="t1"><title>Tab</title><tgroup cols="3">
<colspec colname="c1"/><colspec colname="c2"/><colspec colname="c3" align="right"/>
<spanspec spanname="all" namest="c1" nameend="c3"/>
<thead><row><entry>A</entry><entry>B</entry><entry>C</entry></row></thead>
<tbody>
<row><entry morerows="1">tall</entry><entry namest="c2" nameend="c3">wide</entry></row>
<row><entry>b2</entry><entry>c2</entry></row>
<row><entry spanname="all"><para>p1</para><para>p2</para></entry></row>
<row><entry colname="c3">only c</entry></row>
</tbody></tgroup></table>
<informaltable id="it"><tgroup cols="1"><tbody><row><entry>x</entry></row></tbody></tgroup></informaltable>"#,
    );
    no_errors(&f);
    let BlockKind::Table(tb) = &blocks[0].kind else {
        panic!()
    };
    assert_eq!(tb.id.as_deref(), Some("t1"));
    assert_eq!(text(tb.caption.as_ref().unwrap()), "Tab");
    assert_eq!(tb.head.len(), 1);
    assert_eq!(tb.head[0].cells.len(), 3);
    let r0 = &tb.body[0].cells;
    assert_eq!((r0[0].rowspan, r0[0].colspan), (2, 1));
    assert_eq!((r0[1].colspan, text(&r0[1].content)), (2, "wide".into()));
    assert_eq!(tb.body[1].cells.len(), 2);
    assert_eq!(tb.body[1].cells[1].align, Align::Right);
    let wide = &tb.body[2].cells[0];
    assert_eq!(wide.colspan, 3);
    assert!(wide.content.iter().any(|i| i.kind == InlineKind::LineBreak));
    assert_eq!(text(&wide.content), "p1 p2");
    assert_eq!(tb.body[3].cells.len(), 3);
    assert_eq!(text(&tb.body[3].cells[2].content), "only c");
    // An informal table is not numbered; its id is an anchor.
    assert_eq!(blocks[1].kind, BlockKind::Anchor("it".into()));
    let BlockKind::Table(tb) = &blocks[2].kind else {
        panic!()
    };
    assert_eq!(tb.id, None);
}

#[test]
fn html_and_mixed_tables() {
    let (blocks, _, f) = chapter(
        r#"<informaltable><thead><tr><th>H1</th><th>H2</th></tr></thead>
<tbody><tr><td rowspan="2">a</td><td>b</td></tr><tr><td colspan="1">c</td></tr>
<tr><th>side</th><td>d</td></tr></tbody></informaltable>
<table><title>Mixed</title><tgroup cols="2"><thead><tr><th>x</th><th>y</th></tr></thead>
<tbody><row><entry>1</entry><entry>2</entry></row><tr><td colspan="2">3</td></tr></tbody></tgroup></table>"#,
    );
    no_errors(&f);
    let BlockKind::Table(tb) = &blocks[0].kind else {
        panic!()
    };
    assert_eq!(tb.head[0].cells.len(), 2);
    assert!(!tb.head[0].cells[0].header);
    assert_eq!(tb.body[0].cells[0].rowspan, 2);
    assert_eq!(tb.body[1].cells.len(), 1);
    assert!(tb.body[2].cells[0].header);
    let BlockKind::Table(tb) = &blocks[1].kind else {
        panic!()
    };
    assert!(
        tb.id.is_some(),
        "a titled table gets an id so it is numbered"
    );
    assert_eq!(tb.head[0].cells.len(), 2);
    assert_eq!(tb.body.len(), 2);
    assert_eq!(tb.body[1].cells[0].colspan, 2);
}

#[test]
fn figures_choose_a_usable_image() {
    let (blocks, _, f) = chapter(
        r#"<figure id="f1"><title>Arch</title><mediaobject>
<imageobject><imagedata fileref="images/a.eps" format="EPS"/></imageobject>
<imageobject><imagedata fileref="images/a.png" format="PNG"/></imageobject>
<textobject><phrase>The architecture</phrase></textobject></mediaobject></figure>
<figure><title>Old</title><graphic fileref="images/b.png"/></figure>
<informalfigure><mediaobject><imageobject><imagedata fileref="c.eps"/></imageobject><textobject><phrase>only eps</phrase></textobject></mediaobject></informalfigure>
<mediaobject><imageobject><imagedata fileref="../../outside.png"/></imageobject></mediaobject>"#,
    );
    let BlockKind::Figure(fig) = &blocks[0].kind else {
        panic!()
    };
    assert!(fig.numbered);
    assert_eq!(fig.id.as_deref(), Some("f1"));
    assert_eq!(fig.image.src, "images/a.png");
    assert_eq!(fig.image.alt, "The architecture");
    assert!(!fig.image.by_id);
    let BlockKind::Figure(fig) = &blocks[1].kind else {
        panic!()
    };
    assert_eq!(fig.image.src, "images/b.png");
    let BlockKind::Figure(fig) = &blocks[2].kind else {
        panic!()
    };
    assert!(!fig.numbered);
    assert_eq!(fig.image.src, "");
    assert_eq!(fig.fallback.as_deref(), Some("only eps"));
    assert!(has(&f, Severity::Warning, "none of the images").is_some());
    let BlockKind::Figure(fig) = &blocks[3].kind else {
        panic!()
    };
    assert_eq!(fig.image.src, "");
    assert!(has(&f, Severity::Warning, "outside the book folder").is_some());
}

#[test]
fn image_paths_are_relative_to_the_chapter_file() {
    let (_d, b, f) = read_files(&[
        (
            "manuals/book.xml",
            r#"<book xmlns="http://docbook.org/ns/docbook" xmlns:xi="http://www.w3.org/2001/XInclude"><title>B</title><xi:include href="ch.xml"/></book>"#,
        ),
        (
            "manuals/ch.xml",
            r#"<chapter xmlns="http://docbook.org/ns/docbook"><title>C</title><informalfigure><mediaobject><imageobject><imagedata fileref="../images/x.png"/></imageobject></mediaobject></informalfigure></chapter>"#,
        ),
    ]);
    no_errors(&f);
    assert_eq!(b.chapters[0].doc.source, PathBuf::from("manuals/ch.xml"));
    let BlockKind::Figure(fig) = &b.chapters[0].doc.blocks[1].kind else {
        panic!()
    };
    assert_eq!(fig.image.src, "../images/x.png");
}

#[test]
fn sidebar_admonitions_quotes_examples() {
    let (blocks, _, f) = chapter(
        r#"<sidebar id="sb"><title>Aside</title><para>s</para></sidebar>
<note><title>N</title><para>n</para></note><warning><para>w</para></warning><tip><para>t</para></tip>
<caution><para>c</para></caution><important><para>i</para></important>
<blockquote><attribution>Someone</attribution><para>quoted</para></blockquote>
<example id="ex1"><title>Ex</title><programlisting>x</programlisting></example>
<formalpara><title>Bold</title><para>rest</para></formalpara>"#,
    );
    no_errors(&f);
    assert!(
        matches!(&blocks[0].kind, BlockKind::Sidebar { id: Some(i), title: Some(_), .. } if i == "sb")
    );
    let kinds: Vec<AdmonitionKind> = blocks[1..6]
        .iter()
        .map(|b| match &b.kind {
            BlockKind::Admonition { kind, .. } => *kind,
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            AdmonitionKind::Note,
            AdmonitionKind::Warning,
            AdmonitionKind::Tip,
            AdmonitionKind::Caution,
            AdmonitionKind::Important
        ]
    );
    let BlockKind::Quote {
        blocks: q,
        attribution,
    } = &blocks[6].kind
    else {
        panic!()
    };
    assert_eq!(text(attribution.as_ref().unwrap()), "Someone");
    assert_eq!(text(para(&q[0])), "quoted");
    let BlockKind::Div { class, blocks: ex } = &blocks[7].kind else {
        panic!()
    };
    assert_eq!(class, "example");
    assert_eq!(ex[0].kind, BlockKind::Anchor("ex1".into()));
    assert!(matches!(&ex[1].kind, BlockKind::StyledPara { class, .. } if class == "caption"));
    assert!(matches!(&ex[2].kind, BlockKind::Code(_)));
    let p = para(&blocks[8]);
    assert!(matches!(&p[0].kind, InlineKind::Bold(_)));
    assert_eq!(text(p), "Bold rest");
}

#[test]
fn footnotes_and_footnoterefs() {
    let (blocks, notes, f) = chapter(
        r#"<para>A<footnote id="fn1"><para>Note one.</para></footnote> b<footnote><para>Two.</para></footnote> c<footnoteref linkend="fn1"/></para>"#,
    );
    no_errors(&f);
    let k = kinds(para(&blocks[0]));
    assert_eq!(k[1], InlineKind::FootnoteRef("fn1".into()));
    assert_eq!(k[3], InlineKind::FootnoteRef("fn-1".into()));
    assert_eq!(k[5], InlineKind::FootnoteRef("fn1".into()));
    assert_eq!(notes.len(), 2);
    assert_eq!(notes[0].label, "fn1");
    assert_eq!(text(para(&notes[0].blocks[0])), "Note one.");
}

#[test]
fn equations_keep_mathml() {
    let (blocks, _, f) = chapter(
        r#"<equation id="eq1"><title>Energy</title><alt>E=mc^2</alt>
<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>E</mml:mi><mml:mo>=</mml:mo></mml:math></equation>
<para>Inline <inlineequation><mathphrase>x^2</mathphrase></inlineequation>.</para>"#,
    );
    no_errors(&f);
    let BlockKind::Math(m) = &blocks[0].kind else {
        panic!()
    };
    assert_eq!(m.id.as_deref(), Some("eq1"));
    assert_eq!(m.tex, "E=mc^2");
    let nodes = m.mathml.as_ref().unwrap();
    let crate::dom::Node::Element(e) = &nodes[0] else {
        panic!()
    };
    assert_eq!(e.name, "math");
    assert_eq!(e.attr("xmlns"), Some("http://www.w3.org/1998/Math/MathML"));
    assert_eq!(e.children.len(), 2);
    assert!(kinds(para(&blocks[1])).contains(&InlineKind::Math {
        tex: "x^2".into(),
        mathml: None
    }));
}

#[test]
fn qanda_glossary_bibliography() {
    let (blocks, _, f) = chapter(
        r#"<qandaset><qandaentry id="q1"><question><para>Why?</para></question><answer><para>Because.</para></answer></qandaentry></qandaset>
<glosslist><glossentry id="ge"><glossterm>API</glossterm><glossdef><para>Interface.</para></glossdef></glossentry></glosslist>
<bibliography><bibliomixed id="bm">Knuth, <citetitle>TAOCP</citetitle>.</bibliomixed></bibliography>"#,
    );
    no_errors(&f);
    let BlockKind::DefinitionList(d) = &blocks[0].kind else {
        panic!()
    };
    assert_eq!(text(&d[0].term), "Why?");
    assert_eq!(text(para(&d[0].definitions[0][0])), "Because.");
    let BlockKind::DefinitionList(d) = &blocks[1].kind else {
        panic!()
    };
    assert_eq!(text(&d[0].term), "API");
    assert!(matches!(&d[0].term[0].kind, InlineKind::Raw(_)));
    assert_eq!(text(&heading(&blocks[2]).content), "Bibliography");
    let BlockKind::BibItem(bi) = &blocks[3].kind else {
        panic!()
    };
    assert_eq!(bi.id, "bm");
    assert_eq!(text(&bi.caption), "Knuth, TAOCP.");
}

// ---------------------------------------------------------------- inlines

#[test]
fn inline_elements() {
    let i = one_inline(
        r#"<emphasis role="bold">b</emphasis><emphasis role="strong">s</emphasis><literal>lit</literal><command>cmd <replaceable>x</replaceable></command><filename>/etc</filename><userinput>in</userinput><replaceable>r</replaceable><guimenu>File</guimenu><menuchoice><guimenu>File</guimenu><guimenuitem>Open</guimenuitem></menuchoice><keycombo><keycap>Ctrl</keycap><keycap>C</keycap></keycombo><acronym>XML</acronym><quote>q</quote><citetitle>Book</citetitle><trademark>TM</trademark><trademark class="registered">R</trademark><subscript>2</subscript><superscript>3</superscript><phrase role="red">ph</phrase><indexterm><primary>idx</primary><secondary>sub</secondary></indexterm>"#,
    );
    let k = kinds(&i);
    assert!(matches!(&k[0], InlineKind::Strong(c) if text(c) == "b"));
    assert!(matches!(&k[1], InlineKind::Strong(c) if text(c) == "s"));
    assert_eq!(k[2], InlineKind::Code("lit".into()));
    assert_eq!(k[3], InlineKind::Code("cmd x".into()));
    assert_eq!(k[4], InlineKind::Code("/etc".into()));
    assert!(matches!(&k[5], InlineKind::Bold(c) if c[0].kind == InlineKind::Code("in".into())));
    assert!(matches!(&k[6], InlineKind::Italic(c) if text(c) == "r"));
    assert!(matches!(&k[7], InlineKind::Span { class, .. } if class == "guimenu"));
    assert!(
        matches!(&k[8], InlineKind::Span { class, content } if class == "menuchoice" && text(content) == "File → Open")
    );
    assert!(matches!(&k[9], InlineKind::Span { content, .. } if text(content) == "Ctrl+C"));
    assert!(matches!(&k[10], InlineKind::Span { class, .. } if class == "acronym"));
    assert_eq!(k[11], t("“q”"));
    assert!(matches!(&k[12], InlineKind::Italic(c) if text(c) == "Book"));
    assert_eq!(k[13], t("TM™R®"));
    assert!(matches!(&k[14], InlineKind::Subscript(_)));
    assert!(matches!(&k[15], InlineKind::Superscript(_)));
    assert!(matches!(&k[16], InlineKind::Span { class, .. } if class == "red"));
    assert_eq!(
        k[17],
        InlineKind::IndexTerm {
            term: "idx<<>>sub".into(),
            id: None,
            details: None,
        }
    );
}

#[test]
fn an_index_term_inside_code_is_not_its_text() {
    let i = one_inline(
        "<command>aptitude<indexterm><primary>aptitude</primary></indexterm></command> and <userinput>ls<indexterm><primary>ls</primary><secondary>options</secondary></indexterm></userinput>",
    );
    let k = kinds(&i);
    let term = |t: &str| InlineKind::IndexTerm {
        term: t.into(),
        id: None,
        details: None,
    };
    assert_eq!(k[0], InlineKind::Code("aptitude".into()));
    assert_eq!(k[1], term("aptitude"));
    assert!(matches!(&k[3], InlineKind::Bold(c) if c[0].kind == InlineKind::Code("ls".into())));
    assert_eq!(k[4], term("ls<<>>options"));
}

#[test]
fn index_terms_and_anchors_do_not_keep_layout_spaces() {
    let i =
        one_inline("\n  <indexterm><primary>x</primary></indexterm>\n  Text <anchor id=\"a\"/>\n");
    assert_eq!(i.len(), 3);
    assert_eq!(i[1].kind, t("Text"));
}

#[test]
fn japanese_quotes() {
    let (b, _) = read_str(&format!(
        "{DTD4}<book lang=\"ja\"><chapter><title>章</title><para><quote>引用</quote></para></chapter></book>"
    ));
    assert_eq!(text(para(&b.chapters[0].doc.blocks[1])), "「引用」");
}

#[test]
fn links_and_xrefs() {
    let (blocks, _, f) = chapter(
        r#"<sect1 id="target"><title>Target <command>ls</command></title><para id="tp" xreflabel="the para">x</para></sect1>
<para><xref linkend="target"/> <xref linkend="tp" endterm="tt"/> <link linkend="target">here</link> <link linkend="target"/>
<ulink url="http://example.com/"/> <ulink url="http://example.com/a">text</ulink> <email>a@b.org</email>
<ulink url="http://a b.org/">sp</ulink> <ulink url="scripts/x.sh">dl</ulink> <olink targetdoc="x">other</olink>
<glossterm linkend="target">g</glossterm><anchor id="an1"/></para>
<para><emphasis id="tt">Endterm text</emphasis></para>"#,
    );
    no_errors(&f);
    let p = para(&blocks[3]);
    let refs: Vec<&InlineKind> = p
        .iter()
        .map(|i| &i.kind)
        .filter(|k| !matches!(k, InlineKind::Text(_)))
        .collect();
    assert_eq!(
        *refs[0],
        InlineKind::Ref {
            kind: RefKind::Any,
            target: "target".into(),
            content: None
        }
    );
    assert!(
        matches!(refs[1], InlineKind::Ref { content: Some(c), .. } if text(c) == "Endterm text")
    );
    assert!(matches!(refs[2], InlineKind::Ref { content: Some(c), .. } if text(c) == "here"));
    assert!(matches!(refs[3], InlineKind::Ref { content: None, .. }));
    assert!(
        matches!(refs[4], InlineKind::Link { href, content } if href == "http://example.com/" && text(content) == "http://example.com/")
    );
    assert!(matches!(refs[5], InlineKind::Link { content, .. } if text(content) == "text"));
    assert!(matches!(refs[6], InlineKind::Link { href, .. } if href == "mailto:a@b.org"));
    assert!(matches!(refs[7], InlineKind::Link { href, .. } if href == "http://a%20b.org/"));
    assert!(has(&f, Severity::Warning, "contains spaces").is_some());
    assert!(has(&f, Severity::Warning, "not part of the book").is_some());
    assert!(has(&f, Severity::Warning, "olink").is_some());
    assert!(text(p).contains("dl"));
    assert!(text(p).contains("other"));
    assert!(matches!(
        refs[8],
        InlineKind::Ref {
            content: Some(_),
            ..
        }
    ));
    assert!(matches!(refs[9], InlineKind::Raw(_)));
    assert_eq!(blocks.len(), 5);
}

#[test]
fn xref_texts_and_target_checks() {
    let (b, f) = read_str(&format!(
        r#"{DTD4}<book><chapter id="c"><title>C</title>
<example id="ex"><title>An <command>example</command></title><programlisting>x</programlisting></example>
<variablelist><varlistentry id="ve"><term><option>--opt</option></term><listitem><para>d</para></listitem></varlistentry></variablelist>
<para id="bare">text</para><para id="lab" xreflabel="Labelled">t</para>
<para><xref linkend="ex"/><xref linkend="ve"/><xref linkend="bare"/><xref linkend="lab"/>
<xref linkend="missing"/></para></chapter></book>"#
    ));
    assert_eq!(b.xref_texts["ex"], "An example");
    assert_eq!(b.xref_texts["ve"], "--opt");
    assert_eq!(b.xref_texts["bare"], "");
    assert_eq!(b.xref_texts["lab"], "Labelled");
    let e = has(
        &f,
        Severity::Warning,
        "the xref points to `missing`, but no element has that id; it is shown as plain text",
    )
    .unwrap();
    assert_eq!((e.location.line, e.location.col), (8, 1));
    let w = has(&f, Severity::Warning, "`bare`").unwrap();
    assert_eq!(w.location.file, PathBuf::from("book.xml"));
}

#[test]
fn docbook5_namespaces() {
    let (b, f) = read_str(
        r#"<?xml version="1.0"?>
<book xmlns="http://docbook.org/ns/docbook" xmlns:xlink="http://www.w3.org/1999/xlink" version="5.0" xml:lang="en">
<info><title>Five</title><author><personname><firstname>Jane</firstname><surname>Doe</surname></personname></author>
<copyright><year>2020</year><holder>Jane</holder></copyright><biblioid class="isbn">978-0</biblioid></info>
<chapter xml:id="c5"><title>Ch</title><para xml:id="p5">See <link xlink:href="https://x.org/">X</link>,
<link xlink:href="https://y.org/"/> and <link linkend="c5">me</link>.</para></chapter></book>"#,
    );
    no_errors(&f);
    assert_eq!(b.meta.title.as_deref(), Some("Five"));
    assert_eq!(b.meta.people[0].name, "Jane Doe");
    assert_eq!(b.meta.rights.as_deref(), Some("Copyright © 2020 Jane"));
    assert_eq!(b.meta.isbn.as_deref(), Some("978-0"));
    let blocks = &b.chapters[0].doc.blocks;
    assert_eq!(heading(&blocks[0]).id.as_deref(), Some("c5"));
    assert_eq!(blocks[1].kind, BlockKind::Anchor("p5".into()));
    let k = kinds(para(&blocks[2]));
    assert!(matches!(&k[1], InlineKind::Link { href, .. } if href == "https://x.org/"));
    assert!(matches!(&k[3], InlineKind::Link { content, .. } if text(content) == "https://y.org/"));
    assert!(matches!(&k[5], InlineKind::Ref { target, .. } if target == "c5"));
}

// ---------------------------------------------------------------- entities

#[test]
fn entities_builtin_internal_external_and_parameter() {
    let (_d, b, f) = read_files(&[
        (
            "book.xml",
            r#"<?xml version="1.0"?>
<!DOCTYPE book PUBLIC "-//OASIS//DTD DocBook XML V4.2//EN" "http://www.oasis-open.org/docbook/xml/4.2/docbookx.dtd" [
  <!ENTITY % defs SYSTEM "defs.ent">
  %defs;
  <!ENTITY prod "Seihon">
  <!ENTITY prod "Ignored">
  <!ENTITY marked "<command>ls</command> &prod;">
  <!ENTITY ch1 SYSTEM "parts/ch1.xml">
]>
<book><title>&prod;&mdash;&eacute;&nbsp;&#x41;&#66;</title>&ch1;</book>"#,
        ),
        ("defs.ent", "<!ENTITY fromfile \"in the ent file\">\n"),
        (
            "parts/ch1.xml",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<chapter id=\"c\"><title>&prod;</title>\n<para>&marked; &fromfile; &hellip;&copy;&alpha;</para></chapter>",
        ),
    ]);
    no_errors(&f);
    assert!(f.is_empty(), "{f:?}");
    assert_eq!(b.meta.title.as_deref(), Some("Seihon—é\u{a0}AB"));
    let ch = &b.chapters[0];
    assert_eq!(ch.doc.source, PathBuf::from("parts/ch1.xml"));
    assert_eq!(text(&heading(&ch.doc.blocks[0]).content), "Seihon");
    let p = para(&ch.doc.blocks[1]);
    assert_eq!(p[0].kind, InlineKind::Code("ls".into()));
    assert_eq!(text(p), "ls Seihon in the ent file …©α");
    // Positions are in the file holding the element.
    assert_eq!(ch.doc.blocks[1].pos, Pos::new(3, 1));
}

#[test]
fn latin1_files_are_transcoded() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><article><title>Caf".to_vec();
    bytes.push(0xE9);
    bytes.extend_from_slice(b"</title><para>x</para></article>");
    std::fs::write(dir.path().join("a.xml"), bytes).unwrap();
    let (b, f) = read(&dir.path().join("a.xml"), dir.path());
    no_errors(&f);
    assert_eq!(b.meta.title.as_deref(), Some("Café"));
}

#[test]
fn undefined_entity_is_kept_with_a_warning() {
    let (blocks, _, f) = chapter("<para>A &nosuch; B</para>");
    assert_eq!(text(para(&blocks[0])), "A &nosuch; B");
    let w = has(&f, Severity::Warning, "`&nosuch;` is not defined").unwrap();
    assert_eq!(
        (w.location.file.clone(), w.location.line, w.location.col),
        (PathBuf::from("book.xml"), 4, 9)
    );
}

#[test]
fn entity_file_outside_root_is_refused() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("book");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(outer.path().join("secret.xml"), "<para>secret</para>").unwrap();
    std::fs::write(
        root.join("book.xml"),
        "<!DOCTYPE book [\n<!ENTITY s SYSTEM \"../secret.xml\">\n]>\n<book><chapter><title>C</title>\n&s;</chapter></book>",
    )
    .unwrap();
    let (b, f) = read(&root.join("book.xml"), &root);
    let e = has(&f, Severity::Error, "outside the book folder").unwrap();
    assert_eq!(
        (e.location.file.clone(), e.location.line),
        (PathBuf::from("book.xml"), 5)
    );
    assert!(!format!("{:?}", b.chapters).contains("secret<"));
}

#[test]
fn billion_laughs_is_refused_quickly() {
    let mut dtd = String::from("<!DOCTYPE book [\n<!ENTITY lol \"lol\">\n");
    let mut prev = "lol".to_string();
    for i in 1..=9 {
        let name = format!("lol{i}");
        dtd.push_str(&format!(
            "<!ENTITY {name} \"{}\">\n",
            format!("&{prev};").repeat(10)
        ));
        prev = name;
    }
    dtd.push_str("]>\n");
    let text = format!("{dtd}<book><chapter><title>C</title><para>&lol9;</para></chapter></book>");
    let start = Instant::now();
    let (_b, f) = read_str(&text);
    assert!(
        start.elapsed().as_secs_f64() < 1.0,
        "took {:?}",
        start.elapsed()
    );
    let e = has(
        &f,
        Severity::Error,
        "entity expansion is too large (a 'billion laughs' file?)",
    )
    .unwrap();
    assert_eq!(e.location.line, 13);
}

#[test]
fn an_entity_cycle_is_named_as_one() {
    let text = "<!DOCTYPE book [\n<!ENTITY a \"x &b; y\">\n<!ENTITY b \"&c;\">\n<!ENTITY c \"&a;\">\n]>\n<book><chapter><title>C</title>\n<para>&a;</para></chapter></book>";
    let (_b, f) = read_str(text);
    let e = has(
        &f,
        Severity::Error,
        "the entity `&a;` cannot be expanded: its definition refers back to itself (&a; → &b; → &c; → &a;)",
    )
    .unwrap();
    assert_eq!(e.location.line, 7);
    assert!(!f.iter().any(|f| f.message.contains("too large")), "{f:?}");
    // In an attribute too.
    let text = text.replace(
        "<para>&a;</para>",
        "<para><phrase role=\"&b;\">x</phrase></para>",
    );
    let (_b, f) = read_str(&text);
    assert!(
        has(&f, Severity::Error, "the entity `&b;` cannot be expanded: its definition refers back to itself (&b; → &c; → &a; → &b;)").is_some(),
        "{f:?}"
    );
}

#[test]
fn included_files_may_come_from_shared_folders_only() {
    let top = tempfile::tempdir().unwrap();
    let book = top.path().join("books/b");
    let shared = top.path().join("shared");
    let other = top.path().join("other");
    for (dir, name, text) in [
        (&shared, "notice.xml", "<para>Shared notice.</para>"),
        (&other, "notice.xml", "<para>Other notice.</para>"),
    ] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }
    std::fs::create_dir_all(&book).unwrap();
    let main = book.join("book.xml");
    let write_main = |from: &str| {
        std::fs::write(
            &main,
            format!("<book xmlns=\"http://docbook.org/ns/docbook\" xmlns:xi=\"http://www.w3.org/2001/XInclude\" version=\"5.0\"><title>B</title><chapter><title>C</title>\n<xi:include href=\"../../{from}/notice.xml\"/></chapter></book>"),
        )
        .unwrap();
    };
    write_main("shared");
    let (_, f) = read(&main, &book);
    assert!(
        has(&f, Severity::Error, "is outside the book folder").is_some(),
        "{f:?}"
    );
    let shared_dirs = [shared.canonicalize().unwrap()];
    let (b, f) = read_sharing(&main, &book, &shared_dirs);
    assert!(f.iter().all(|f| f.severity != Severity::Error), "{f:?}");
    let text = format!("{:?}", b.chapters[0].doc.blocks);
    assert!(text.contains("Shared notice."), "{text}");
    // Another folder beside it stays out.
    write_main("other");
    let (_, f) = read_sharing(&main, &book, &shared_dirs);
    let e = has(
        &f,
        Severity::Error,
        "is outside the book folder and the project's `shared_dirs`",
    )
    .unwrap();
    assert_eq!(e.location.line, 2);
}

#[test]
fn images_in_a_shared_file_are_found_beside_it() {
    let top = tempfile::tempdir().unwrap();
    let book = top.path().join("books/b");
    let shared = top.path().join("shared");
    std::fs::create_dir_all(shared.join("img")).unwrap();
    std::fs::create_dir_all(book.join("ch")).unwrap();
    std::fs::write(shared.join("img/logo.png"), b"png").unwrap();
    std::fs::write(
        shared.join("notice.xml"),
        r#"<para>Notice <inlinemediaobject><imageobject><imagedata fileref="img/logo.png"/></imageobject></inlinemediaobject></para>"#,
    )
    .unwrap();
    // The chapter is in a subfolder: the path is written relative to it.
    std::fs::write(
        book.join("ch/one.xml"),
        r#"<chapter xmlns:xi="http://www.w3.org/2001/XInclude"><title>C</title><xi:include href="../../../shared/notice.xml"/></chapter>"#,
    )
    .unwrap();
    let main = book.join("book.xml");
    std::fs::write(
        &main,
        r#"<book xmlns:xi="http://www.w3.org/2001/XInclude"><title>B</title><xi:include href="ch/one.xml"/></book>"#,
    )
    .unwrap();
    let (b, f) = read_sharing(&main, &book, &[shared.canonicalize().unwrap()]);
    no_errors(&f);
    assert!(
        !f.iter().any(|f| f.message.contains("outside the book")),
        "{f:?}"
    );
    let ch = &b.chapters[0].doc;
    assert_eq!(ch.source, Path::new("ch/one.xml"));
    let mut srcs = Vec::new();
    let mut doc = ch.clone();
    crate::xref::visit_all_inlines_mut(&mut doc, &mut |i| {
        if let InlineKind::Image(img) = &i.kind {
            srcs.push(img.src.clone());
        }
    });
    assert_eq!(srcs, ["../../../shared/img/logo.png"]);
}

// ---------------------------------------------------------------- XInclude

#[test]
fn xinclude_xml_text_and_fallback() {
    let (_d, b, f) = read_files(&[
        (
            "book.xml",
            r#"<book xmlns="http://docbook.org/ns/docbook" xmlns:xi="http://www.w3.org/2001/XInclude">
<title>B</title>
<xi:include href="ch/one.xml"/>
<chapter><title>Two</title>
<programlisting><xi:include href="code.txt" parse="text"/></programlisting>
<xi:include href="missing.xml"><xi:fallback><para>fallback text</para></xi:fallback></xi:include>
</chapter></book>"#,
        ),
        (
            "ch/one.xml",
            "\u{feff}<?xml version=\"1.0\"?>\n<chapter xmlns=\"http://docbook.org/ns/docbook\" xml:id=\"one\">\n<title>One</title>\n<para>in one</para></chapter>",
        ),
        ("code.txt", "if a < b {\n}\n"),
    ]);
    no_errors(&f);
    assert_eq!(b.chapters.len(), 2);
    assert_eq!(b.chapters[0].doc.source, PathBuf::from("ch/one.xml"));
    assert_eq!(b.chapters[0].doc.blocks[1].pos, Pos::new(4, 1));
    let BlockKind::Code(c) = &b.chapters[1].doc.blocks[1].kind else {
        panic!()
    };
    assert_eq!(c.text, "if a < b {\n}");
    assert_eq!(text(para(&b.chapters[1].doc.blocks[2])), "fallback text");
}

#[test]
fn xinclude_loop_and_missing_file() {
    let (_d, _b, f) = read_files(&[
        (
            "a.xml",
            r#"<book xmlns:xi="http://www.w3.org/2001/XInclude"><title>A</title>
<xi:include href="b.xml"/>
<xi:include href="nope.xml"/></book>"#,
        ),
        (
            "b.xml",
            r#"<chapter xmlns:xi="http://www.w3.org/2001/XInclude"><title>B</title>
<xi:include href="a.xml"/></chapter>"#,
        ),
    ]);
    let e = has(&f, Severity::Error, "XInclude loop: a.xml → b.xml → a.xml").unwrap();
    assert_eq!(
        (e.location.file.clone(), e.location.line, e.location.col),
        (PathBuf::from("b.xml"), 2, 1)
    );
    let e = has(&f, Severity::Error, "`nope.xml` does not exist").unwrap();
    assert_eq!(
        (e.location.file.clone(), e.location.line),
        (PathBuf::from("a.xml"), 3)
    );
}

// ---------------------------------------------------------------- errors

#[test]
fn duplicate_ids_and_malformed_xml() {
    let (_b, f) = read_str(&format!(
        "{DTD4}<book><chapter id=\"x\"><title>C</title><para id=\"x\">p</para></chapter></book>"
    ));
    let e = has(&f, Severity::Warning, "the id `x` is used twice").unwrap();
    assert!(e.message.contains("book.xml:3:7"), "{}", e.message);
    assert_eq!((e.location.line, e.location.col), (3, 39));

    let (b, f) = read_str(
        "<book><chapter><title>C</title>\n<para>ok</para>\n<para>bad</emphasis></chapter></book>",
    );
    let e = f.iter().find(|f| f.severity == Severity::Error).unwrap();
    assert_eq!(e.location.line, 3, "{e}");
    // What was read before the error is kept.
    assert_eq!(b.chapters.len(), 1);
    assert_eq!(text(para(&b.chapters[0].doc.blocks[1])), "ok");
}

#[test]
fn unhandled_elements_warn_once_and_keep_text() {
    let (blocks, _, f) = chapter("<para><foo>kept</foo> and <foo>again</foo></para>");
    assert_eq!(text(para(&blocks[0])), "kept and again");
    let n = f
        .iter()
        .filter(|x| x.message.contains("`<foo>` is not handled"))
        .count();
    assert_eq!(n, 1);
}

// ---------------------------------------------------------------- corpus

/// Reads the six corpus books. Genuine defects of the books themselves (reported, not errors
/// of the reader): LIXA xrefs to untitled `<section>`s and its untitled sections; linux-ip's
/// empty section titles (state.xml) and `ulink`s to script files not in the book;
/// intro-linux's spam-protected `<email>` and a URL with a space; the pandoc fixtures'
/// relative `/url` links, an untitled `<sect1>`, an unknown `<emph>` and xrefs to synopses.
#[test]
fn corpus_books_read() {
    let Some(corpus) = std::env::var_os("SEIHON_CORPUS") else {
        eprintln!("skipped: SEIHON_CORPUS is not set (bash .ci/run sets it)");
        return;
    };
    let base = Path::new(&corpus).join("docbook");
    let base = base.as_path();
    for (root, main, min) in [
        ("svnbook", "svnbook/book/book.xml", 25),
        ("intro-linux", "intro-linux/abook.xml", 15),
        ("linux-ip", "linux-ip/linux-ip.xml", 25),
        ("lixa-refguide", "lixa-refguide/manuals/LIXA.xml", 15),
        (
            "pandoc-fixtures",
            "pandoc-fixtures/docbook-reader.docbook",
            1,
        ),
        ("pandoc-fixtures", "pandoc-fixtures/docbook-xref.docbook", 5),
    ] {
        let start = Instant::now();
        let (book, findings) = read(&base.join(main), &base.join(root));
        eprintln!(
            "== {main}: {} chapters, {} findings, {:?}",
            book.chapters.len(),
            findings.len(),
            start.elapsed()
        );
        for f in &findings {
            eprintln!("{f}");
        }
        assert!(
            book.chapters.len() >= min,
            "{main}: {}",
            book.chapters.len()
        );
        let errors: Vec<_> = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{main}: {errors:#?}");
        assert!(book.meta.title.is_some(), "{main}");
        for ch in &book.chapters {
            let BlockKind::Heading(h) = &ch.doc.blocks[0].kind else {
                panic!("{main}: a chapter without a heading");
            };
            assert!(!plain_text(&h.content).trim().is_empty(), "{main}");
        }
    }
}

/// Found by `cargo fuzz run docbook_reader`: a non-ASCII byte where the encoding's quote belongs.
#[test]
fn fuzz_regression_encoding_without_quote() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("book.xml");
    let mut bytes = b"<?xml version=\"1.0\" encoding=".to_vec();
    bytes.extend(std::iter::repeat_n(0x97u8, 80));
    bytes.extend(b"?><book><title>T</title></book>");
    std::fs::write(&main, bytes).unwrap();
    let _ = read(&main, dir.path());
}

// ---------------------------------------------------------------- codes

/// The code of the finding whose message holds `needle`.
fn code_of(f: &[Finding], needle: &str) -> String {
    f.iter()
        .find(|x| x.message.contains(needle))
        .unwrap_or_else(|| panic!("no finding with `{needle}`: {f:#?}"))
        .code
        .to_string()
}

#[test]
fn every_finding_carries_its_kind() {
    let (_, f) = read_str("<book><chapter><title>C</title><para>x</chapter></book>");
    assert_eq!(code_of(&f, "does not match"), "docbook-xml");
    let (_, _, f) = chapter(
        r#"<para>&nosuch; <xref linkend="none"/> <link linkend="gone">g</link> <blink>b</blink>
<olink>o</olink> <ulink url="other.html">u</ulink></para>"#,
    );
    assert_eq!(code_of(&f, "`&nosuch;` is not defined"), "unknown-entity");
    assert_eq!(
        code_of(&f, "the xref points to `none`"),
        "unknown-reference"
    );
    assert_eq!(code_of(&f, "the link points to `gone`"), "broken-fragment");
    assert_eq!(code_of(&f, "`<blink>`"), "unknown-element");
    assert_eq!(code_of(&f, "olink"), "unsupported");
    assert_eq!(code_of(&f, "not part of the book"), "broken-link");
    let (_, _, f) = read_files(&[(
        "book.xml",
        r#"<book xmlns:xi="http://www.w3.org/2001/XInclude"><title>B</title>
<chapter><title>C</title><para>x</para></chapter><xi:include href="nope.xml"/></book>"#,
    )]);
    assert_eq!(code_of(&f, "`nope.xml` does not exist"), "docbook-include");
    let (_, _, f) = chapter(r#"<para id="x">a</para><para id="x">b</para>"#);
    assert_eq!(code_of(&f, "the id `x` is used twice"), "duplicate-id");
}

#[test]
fn a_line_break_between_japanese_characters_is_not_a_space_but_a_typed_space_is() {
    let (blocks, _, f) = chapter(
        "<para>本付録は、移行を助けます。\n  他の概念を扱います。飯田 卓也\nEnglish\nwords</para>",
    );
    no_errors(&f);
    assert_eq!(
        text(para(&blocks[0])),
        "本付録は、移行を助けます。他の概念を扱います。飯田 卓也 English words"
    );
}

/// A DocBook 5 book with one chapter holding `body`; its blocks after the heading.
fn chapter5(body: &str) -> (Vec<Block>, Vec<Finding>) {
    let text = format!(
        "<book xmlns=\"http://docbook.org/ns/docbook\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"5.0\"><info><title>B</title></info><chapter xml:id=\"c1\"><title>C</title>\n{body}\n</chapter></book>"
    );
    let (b, f) = read_str(&text);
    let mut blocks = b.chapters.into_iter().next().expect("a chapter").doc.blocks;
    blocks.remove(0);
    (blocks, f)
}

/// The text of a `Raw` inline's element, with its class.
fn raw_code(i: &Inline) -> (String, String) {
    match &i.kind {
        InlineKind::Raw(n) => match &n[0] {
            Node::Element(e) => (
                e.attr("class").unwrap_or_default().to_string(),
                e.text_content(),
            ),
            other => panic!("{other:?}"),
        },
        other => panic!("not raw: {other:?}"),
    }
}

#[test]
fn tags_get_their_brackets_by_class_in_docbook_4_and_5() {
    let cases = [
        ("starttag", "x", "<x>"),
        ("endtag", "x", "</x>"),
        ("emptytag", "x", "<x/>"),
        ("attribute", "id", "id"),
        ("attvalue", "v", "v"),
        ("genentity", "amp", "&amp;"),
        ("paramentity", "dtd", "%dtd;"),
        ("numcharref", "x20", "&#x20;"),
        ("comment", "c", "<!--c-->"),
        ("sgmlcomment", "c", "<!--c-->"),
        ("pi", "php", "<?php>"),
        ("xmlpi", "xml-stylesheet", "<?xml-stylesheet?>"),
        ("prefix", "db", "db"),
        ("localname", "para", "para"),
        ("namespace", "urn:x", "urn:x"),
        ("element", "para", "para"),
    ];
    for (class, name, shown) in cases {
        let db4 = one_inline(&format!("<sgmltag class=\"{class}\">{name}</sgmltag>"));
        let (b, f) = chapter5(&format!("<para><tag class=\"{class}\">{name}</tag></para>"));
        no_errors(&f);
        for i in [&db4[0], &para(&b[0])[0]] {
            assert_eq!(
                raw_code(i),
                (format!("tt sgmltag-{class}"), shown.to_string())
            );
        }
    }
    // No class is an element's name.
    let i = one_inline("<tag>book<indexterm><primary>book</primary></indexterm></tag>");
    assert_eq!(
        raw_code(&i[0]),
        ("tt sgmltag-element".into(), "book".into())
    );
    assert!(matches!(i[1].kind, InlineKind::IndexTerm { .. }));
}

#[test]
fn subtitles_of_chapters_and_sections_are_kept() {
    let (b, f) = read_str(&format!(
        "{DTD4}<book><chapter><title>C</title><subtitle>Sub <emphasis>c</emphasis></subtitle><sect1><title>S</title><subtitle>Sub s</subtitle><para>x</para></sect1></chapter></book>"
    ));
    no_errors(&f);
    let blocks = &b.chapters[0].doc.blocks;
    let sub = |b: &Block| match &b.kind {
        BlockKind::StyledPara { class, content } if class == "subtitle" => text(content),
        other => panic!("{other:?}"),
    };
    assert_eq!(sub(&blocks[1]), "Sub c");
    assert_eq!(heading(&blocks[2]).level, 2);
    assert_eq!(sub(&blocks[3]), "Sub s");
    let (b, _) = chapter5(
        "<section><info><title>S</title><subtitle>Five</subtitle></info><para>x</para></section>",
    );
    assert_eq!(sub(&b[1]), "Five");
}

#[test]
fn bibliography_names_are_spaced_and_ordered_as_docbook_xsl_does() {
    let entry = "<biblioentry id=\"b\"><title>T</title><author><honorific>Dr</honorific><firstname>Ken</firstname><othername>Q</othername><surname>Burtch</surname><lineage>Jr</lineage></author></biblioentry>";
    let (blocks, _, f) = chapter(&format!(
        "<bibliolist>{entry}<bibliomixed id=\"m\"><author><firstname>Ken</firstname><surname>Burtch</surname></author>, <title>S</title>.</bibliomixed><biblioentry id=\"g\"><authorgroup><author><firstname>A</firstname><surname>B</surname></author><author><firstname>C</firstname><surname>D</surname></author><author><firstname>E</firstname><surname>F</surname></author></authorgroup></biblioentry></bibliolist>"
    ));
    no_errors(&f);
    let caption = |b: &Block| match &b.kind {
        BlockKind::BibItem(item) => text(&item.caption),
        other => panic!("{other:?}"),
    };
    assert_eq!(caption(&blocks[0]), "T, Dr. Ken Q Burtch, Jr");
    assert_eq!(caption(&blocks[1]), "Ken Burtch, S.");
    assert_eq!(caption(&blocks[2]), "A B, C D, and E F");
    // DocBook 5's personname; Japanese puts the family name first.
    let (b, _) = chapter5(
        "<bibliolist><biblioentry><author><personname><firstname>Norman</firstname><surname>Walsh</surname></personname></author></biblioentry></bibliolist>",
    );
    assert_eq!(caption(&b[0]), "Norman Walsh");
    let (b, _) = read_str(&format!(
        "{DTD4}<book lang=\"ja\"><chapter><title>C</title><bibliolist><biblioentry><author><firstname>太郎</firstname><surname>山田</surname></author></biblioentry></bibliolist></chapter></book>"
    ));
    assert_eq!(caption(&b.chapters[0].doc.blocks[1]), "山田 太郎");
}

#[test]
fn bibliography_entries_are_labelled_and_keep_their_anchors() {
    let (blocks, _, f) = chapter(
        "<bibliolist><biblioentry id=\"a\"><abbrev>DB</abbrev><title>T</title><anchor id=\"in\"/></biblioentry><biblioentry id=\"x\" xreflabel=\"X1\"><title>U</title></biblioentry><biblioentry id=\"n\"><title>V</title></biblioentry></bibliolist><para><xref linkend=\"a\"/> <xref linkend=\"n\"/></para>",
    );
    assert!(f.is_empty(), "an xref to an entry needs no title: {f:?}");
    let item = |b: &Block| match &b.kind {
        BlockKind::BibItem(item) => (item.number.clone(), item.caption.clone()),
        other => panic!("{other:?}"),
    };
    let (label, caption) = item(&blocks[0]);
    assert_eq!(label.as_deref(), Some("DB"));
    assert!(
        caption
            .iter()
            .any(|i| matches!(&i.kind, InlineKind::Raw(_))),
        "the anchor inside is kept: {caption:?}"
    );
    assert_eq!(item(&blocks[1]).0.as_deref(), Some("X1"));
    // The resolver numbers it.
    assert_eq!(item(&blocks[2]).0, None);
}

#[test]
fn index_terms_never_show_in_the_text_around_them() {
    let (b, f) = read_str(&format!(
        "{DTD4}<book><chapter id=\"c\"><title>Title<indexterm><primary>Title</primary></indexterm></title><para><email>a@b.org<indexterm><primary>mail</primary></indexterm></email> <xref linkend=\"c\"/> <xref linkend=\"e\" endterm=\"t\"/> <citerefentry><refentrytitle>ls<indexterm><primary>ls</primary></indexterm></refentrytitle><manvolnum>1</manvolnum></citerefentry></para><variablelist><varlistentry id=\"e\"><term id=\"t\">Term<indexterm><primary>Term</primary></indexterm></term><listitem><para>x</para></listitem></varlistentry></variablelist></chapter></book>"
    ));
    no_errors(&f);
    assert_eq!(b.xref_texts["c"], "Title");
    assert_eq!(b.xref_texts["e"], "Term");
    let p = para(&b.chapters[0].doc.blocks[1]);
    assert!(
        !text(p).contains("mailmail") && text(p).starts_with("a@b.org "),
        "{p:?}"
    );
    assert!(text(p).contains("ls(1)"), "{p:?}");
    assert!(p.iter().any(|i| matches!(&i.kind,
        InlineKind::Ref { content: Some(c), .. } if text(c) == "Term")));
}

#[test]
fn endterms_and_index_ranges_reach_across_chapters_let_go_before_them() {
    // Each chapter's elements are let go once it is converted: what a later chapter needs of
    // an earlier one (an endterm's text, a range start's levels), and the other way round,
    // is kept when the links are checked.
    let (b, f) = read_str(&format!(
        "{DTD4}<book><chapter id=\"a\"><title>A</title><para><indexterm class=\"startofrange\" id=\"r\"><primary>sewing</primary><secondary>thread</secondary></indexterm>Stitch <xref linkend=\"b\" endterm=\"bt\"/>.</para></chapter><chapter id=\"b\"><title id=\"bt\">Binding <emphasis>by</emphasis> hand</title><para>Glue<indexterm class=\"endofrange\" startref=\"r\"/> <xref linkend=\"a\" endterm=\"at\"/>.</para><para id=\"at\">Back</para></chapter></book>"
    ));
    no_errors(&f);
    let endterm = |ch: usize| {
        let p = para(&b.chapters[ch].doc.blocks[1]);
        p.iter()
            .find_map(|i| match &i.kind {
                InlineKind::Ref { content, .. } => Some(content.as_ref().map(text)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{p:?}"))
    };
    assert_eq!(endterm(0).as_deref(), Some("Binding by hand"));
    assert_eq!(endterm(1).as_deref(), Some("Back"));
    let end = para(&b.chapters[1].doc.blocks[1])
        .iter()
        .find_map(|i| match &i.kind {
            InlineKind::IndexTerm { term, details, .. } => Some((term.clone(), details.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.0, "sewing<<>>thread");
    assert_eq!(end.1.unwrap().range_end.as_deref(), Some("r"));
}

#[test]
fn index_terms_carry_see_seealso_sortas_ranges_and_significance() {
    let i = one_inline(
        "<indexterm><primary sortas=\"case\">_case</primary><secondary>x</secondary></indexterm><indexterm><primary>Paste</primary><see>Board</see></indexterm><indexterm significance=\"preferred\"><primary>Board</primary><seealso>cloth</seealso><seealso>card</seealso></indexterm><indexterm class=\"startofrange\" id=\"r\"><primary>sewing</primary></indexterm>text<indexterm class=\"endofrange\" startref=\"r\"/><indexterm><primary>plain</primary></indexterm>",
    );
    let details: Vec<(String, Option<IndexDetails>)> = i
        .iter()
        .filter_map(|x| match &x.kind {
            InlineKind::IndexTerm { term, details, .. } => {
                Some((term.clone(), details.as_deref().cloned()))
            }
            _ => None,
        })
        .collect();
    let d = |n: usize| details[n].1.clone().unwrap();
    assert_eq!(details[0].0, "_case<<>>x");
    assert_eq!(d(0).sort_as, [Some("case".to_string()), None]);
    assert_eq!(d(1).see.as_deref(), Some("Board"));
    assert!(d(2).preferred);
    assert_eq!(d(2).see_also, ["cloth", "card"]);
    assert_eq!(d(3).range_start.as_deref(), Some("r"));
    assert_eq!(details[4].0, "sewing");
    assert_eq!(d(4).range_end.as_deref(), Some("r"));
    assert_eq!(details[5], ("plain".to_string(), None));
}

#[test]
fn a_listing_in_a_table_entry_stays_a_block() {
    let (blocks, _, f) = chapter(
        "<informaltable><tgroup cols=\"2\"><tbody><row><entry id=\"e\"><para>Run:</para><screen>a\nb</screen></entry><entry><para>plain</para></entry></row></tbody></tgroup></informaltable>",
    );
    no_errors(&f);
    let BlockKind::Table(t) = &blocks[0].kind else {
        panic!("{:?}", blocks[0])
    };
    let cells = &t.body[0].cells;
    assert!(cells[0].content.is_empty());
    assert_eq!(cells[0].blocks[0].kind, BlockKind::Anchor("e".into()));
    assert!(matches!(&cells[0].blocks[2].kind, BlockKind::Code(c) if c.text == "a\nb"));
    assert!(cells[1].blocks.is_empty());
    assert_eq!(text(&cells[1].content), "plain");
}

#[test]
fn glossaries_bibliographies_and_indexes_name_their_division() {
    let (b, _) = read_str(&format!(
        "{DTD4}<book><chapter><title>C</title><para>x</para></chapter><glossary><glossentry><glossterm>t</glossterm><glossdef><para>d</para></glossdef></glossentry></glossary><bibliography><biblioentry><title>T</title></biblioentry></bibliography><index/></book>"
    ));
    let divisions: Vec<Option<&str>> = b.chapters.iter().map(|c| c.division).collect();
    assert_eq!(
        divisions,
        [None, Some("glossary"), Some("bibliography"), Some("index")]
    );
}

#[test]
fn a_written_index_is_kept_as_written() {
    let (b, f) = read_str(&format!(
        "{DTD4}<book><chapter id=\"c\"><title>C</title><para>x</para></chapter><index><indexentry><primaryie>Foo, <link linkend=\"c\">1</link></primaryie><secondaryie>bar, 2</secondaryie></indexentry></index></book>"
    ));
    no_errors(&f);
    let blocks = &b.chapters[1].doc.blocks;
    assert!(!blocks.iter().any(|b| b.kind == BlockKind::Index));
    let lines: Vec<(String, String)> = blocks[1..]
        .iter()
        .map(|b| match &b.kind {
            BlockKind::StyledPara { class, content } => (class.clone(), text(content)),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("primaryie".to_string(), "Foo, 1".to_string()),
            ("secondaryie".into(), "bar, 2".into())
        ]
    );
}

// ---------------------------------------------------------------- title pages

/// The classes of a chapter's blocks, with tables and divisions by their kind.
fn shapes(blocks: &[Block]) -> Vec<String> {
    blocks
        .iter()
        .map(|b| match &b.kind {
            BlockKind::Heading(h) => format!("h{}", h.level),
            BlockKind::StyledPara { class, .. } => class.clone(),
            BlockKind::Div { class, .. } => format!("div.{class}"),
            BlockKind::Table(_) => "table".into(),
            BlockKind::Para(_) => "p".into(),
            BlockKind::Figure(_) => "figure".into(),
            BlockKind::Anchor(_) => "anchor".into(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn a_chapters_info_is_shown_under_its_title_in_docbook_xsl_order() {
    let (blocks, _, f) = chapter(
        "<sect1><sect1info><abstract><para>Gist.</para></abstract>\
         <revhistory><revision><revnumber>2</revnumber><date>d</date><revdescription><itemizedlist>\
         <listitem><para>Changed.</para></listitem></itemizedlist></revdescription></revision></revhistory>\
         <pubdate>May</pubdate><author><firstname>A</firstname><surname>B</surname></author>\
         <productnumber>not shown</productnumber></sect1info><title>S</title><para>Body.</para></sect1>",
    );
    no_errors(&f);
    assert_eq!(
        shapes(&blocks),
        ["h2", "author", "pubdate", "table", "div.abstract", "p"]
    );
    let BlockKind::Table(t) = &blocks[3].kind else {
        unreachable!()
    };
    assert_eq!(
        t.caption.as_ref().map(text).as_deref(),
        Some("Revision History")
    );
    assert_eq!(text(&t.body[0].cells[0].content), "Revision 2");
    // A revision's description keeps its list.
    assert!(matches!(
        t.body[0].cells[3].blocks[0].kind,
        BlockKind::List(_)
    ));
}

#[test]
fn an_articles_own_authors_are_metadata_its_abstract_and_history_are_text() {
    let (b, f) = read_str(
        "<article xmlns=\"http://docbook.org/ns/docbook\" version=\"5.0\" xml:lang=\"ja\"><info><title>T</title>\
         <author><personname>著者</personname></author><copyright><year>2020</year></copyright>\
         <abstract><para>概要。</para></abstract><revhistory><revision><revnumber>1</revnumber>\
         <date>d</date></revision></revhistory></info><para>本文。</para></article>",
    );
    no_errors(&f);
    let names: Vec<&str> = b.meta.people.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["著者"]);
    let blocks = &b.chapters[0].doc.blocks;
    assert_eq!(shapes(blocks), ["h1", "table", "div.abstract", "p"]);
    let BlockKind::Table(t) = &blocks[1].kind else {
        unreachable!()
    };
    assert_eq!(t.caption.as_ref().map(text).as_deref(), Some("改訂履歴"));
    assert_eq!(text(&t.body[0].cells[0].content), "改訂 1");
}

#[test]
fn a_books_revision_history_is_the_colophons_not_a_page() {
    let (b, f) = read_str(&format!(
        "{DTD4}<book><bookinfo><title>B</title><revhistory><revision><revnumber>1</revnumber>\
         <date>d</date><revremark>First.</revremark></revision></revhistory></bookinfo>\
         <chapter><title>C</title><para>x</para></chapter></book>"
    ));
    no_errors(&f);
    // No page of its own: the colophon shows it (issue 20, item 7), unless book.yml has a
    // history.
    assert_eq!(b.chapters.len(), 1);
    assert_eq!(b.chapters[0].role, Role::Body);
    assert_eq!(b.meta.revisions[0].remark.as_deref(), Some("First."));
}

#[test]
fn a_titled_figures_media_caption_is_kept_under_the_image() {
    let (blocks, _, f) = chapter(
        "<figure><title>Fig</title><screenshot><mediaobject><imageobject><imagedata fileref=\"a.png\"/></imageobject>\
         <caption><para>Under the image.</para></caption></mediaobject></screenshot></figure>",
    );
    let _ = f;
    assert_eq!(shapes(&blocks), ["figure", "div.caption"]);
}

#[test]
fn an_xref_to_a_synopsis_shows_its_command_or_function() {
    let (b, f) = read_str(&format!(
        "{DTD4}<book><chapter><title>C</title><cmdsynopsis id=\"c\"><command>chgrp</command><arg>-R</arg></cmdsynopsis>\
         <funcsynopsis id=\"fn\"><funcprototype><funcdef>int <function>max</function></funcdef>\
         <paramdef>int <parameter>a</parameter></paramdef></funcprototype></funcsynopsis>\
         <para><xref linkend=\"c\"/>, <xref linkend=\"fn\"/></para></chapter></book>"
    ));
    no_errors(&f);
    assert!(!f.iter().any(|f| f.code == "unknown-reference"), "{f:?}");
    assert_eq!(b.xref_texts["c"], "chgrp");
    assert_eq!(b.xref_texts["fn"], "max");
}

#[test]
fn an_xref_to_the_book_has_a_target_at_its_start() {
    let (b, f) = read_str(&format!(
        "{DTD4}<book id=\"bk\"><title>The Book</title><chapter><title>C</title>\
         <para><xref linkend=\"bk\"/></para></chapter></book>"
    ));
    no_errors(&f);
    assert_eq!(b.xref_texts["bk"], "The Book");
    assert_eq!(
        b.chapters[0].doc.blocks[1].kind,
        BlockKind::Anchor("bk".into())
    );
}

#[test]
fn synopses_keep_docbook_xsls_marks() {
    let (b, f) = read_str(
        "<article xmlns=\"http://docbook.org/ns/docbook\" version=\"5.0\"><title>T</title>\
         <cmdsynopsis><command>chgrp</command><arg>-R\n <group><arg>-H</arg><arg>-L</arg></group>\n</arg>\
         <arg>-f</arg><arg choice=\"plain\">group</arg><arg choice=\"plain\" rep=\"repeat\">file</arg></cmdsynopsis>\
         <funcsynopsis><funcprototype><funcdef>int <function>max</function></funcdef>\
         <paramdef>int <parameter>a</parameter></paramdef><paramdef>int <parameter>b</parameter></paramdef>\
         </funcprototype></funcsynopsis></article>",
    );
    no_errors(&f);
    let codes: Vec<&str> = b.chapters[0]
        .doc
        .blocks
        .iter()
        .filter_map(|b| match &b.kind {
            BlockKind::Code(c) => Some(c.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        codes,
        [
            "chgrp [-R [-H | -L]] [-f] group file...",
            "int max(a, b);\nint a;\nint b;"
        ]
    );
}

/// The people of an `info` with their roles, affiliations and addresses, and its revhistory
/// (issue 20, item 7), in DocBook 4's and DocBook 5's forms.
#[test]
fn info_people_and_revisions() {
    let db4 = format!(
        r#"{DTD4}<book><bookinfo><title>T</title>
<author><firstname>Ann</firstname><surname>Lee</surname><affiliation><jobtitle>Writer</jobtitle><orgname>ACME</orgname><address><email>ann@example.org</email></address></affiliation></author>
<othercredit role="translator"><firstname>Bo</firstname><surname>Kim</surname></othercredit>
<othercredit><firstname>Cy</firstname><surname>Ng</surname><contrib>Proofreading</contrib></othercredit>
<revhistory><revision><revnumber>1.1</revnumber><date>2020-03-01</date><revremark>Typos</revremark></revision>
<revision><revnumber>1.0</revnumber><date>2019-12-24</date></revision></revhistory>
</bookinfo><chapter><title>C</title><para>x</para></chapter></book>"#
    );
    let db5 = r#"<book xmlns="http://docbook.org/ns/docbook" version="5.0"><info><title>T</title>
<author><personname>Ann Lee</personname><email>ann@example.org</email><affiliation><jobtitle>Writer</jobtitle><orgname>ACME</orgname></affiliation></author>
<othercredit class="translator"><personname>Bo Kim</personname></othercredit>
<othercredit class="proofreader"><personname>Cy Ng</personname></othercredit>
<revhistory><revision><revnumber>1.1</revnumber><date>2020-03-01</date><revremark>Typos</revremark></revision>
<revision><revnumber>1.0</revnumber><date>2019-12-24</date></revision>
<revision><date>2019-01-01</date><revdescription><itemizedlist><listitem><para>Drafted <xref linkend="c"/>.</para></listitem><listitem><para>Added <emphasis>this</emphasis>, too.</para></listitem></itemizedlist></revdescription></revision></revhistory>
</info><chapter xml:id="c"><title>The Start</title><para>x</para></chapter></book>"#;
    for text in [db4.as_str(), db5] {
        let (b, f) = read_str(text);
        no_errors(&f);
        let people: Vec<(&str, &str)> = b
            .meta
            .people
            .iter()
            .map(|p| (p.name.as_str(), p.role.as_str()))
            .collect();
        assert_eq!(
            people,
            [("Ann Lee", "aut"), ("Bo Kim", "trl"), ("Cy Ng", "pfr")],
            "{text}"
        );
        let ann = &b.meta.people[0];
        assert_eq!(ann.affiliation.as_deref(), Some("Writer, ACME"));
        assert_eq!(ann.email.as_deref(), Some("ann@example.org"));
        assert!(b.meta.revisions.len() >= 2);
        assert_eq!(b.meta.revisions[0].number.as_deref(), Some("1.1"));
        assert_eq!(b.meta.revisions[0].remark.as_deref(), Some("Typos"));
        assert_eq!(b.meta.revisions[1].date.as_deref(), Some("2019-12-24"));
    }
    // A revdescription's blocks stay apart, an xref in it shows its target's title.
    let (b, _) = read_str(db5);
    assert_eq!(
        b.meta.revisions[2].remark.as_deref(),
        Some("Drafted The Start. Added this, too.")
    );
}

/// A DocBook 4.5 main file declaring each `(name, file)` as an external entity, then `body`.
fn entity_book(entities: &[(&str, &str)], body: &str) -> String {
    let declared: String = (entities.iter())
        .map(|(name, file)| format!("<!ENTITY {name} SYSTEM \"{file}\">\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE book PUBLIC \"-//OASIS//DTD DocBook XML V4.5//EN\" \"http://www.oasis-open.org/docbook/xml/4.5/docbookx.dtd\" [\n{declared}]>\n{body}"
    )
}

/// Reads `book.xml` in `dir` as a build does (opening the cache in `dir/kept`, reading, keeping
/// what it converted): whether each chapter was converted now, and each one's blocks, a kept
/// chapter's read from the cache only then.
fn read_kept(dir: &Path) -> (Vec<bool>, Vec<String>) {
    let kept = ConvertedCache::new(dir.join("kept"));
    let (book, findings) = read_keeping(&dir.join("book.xml"), dir, &[], &[], Some(&kept));
    no_errors(&findings);
    let converted: Vec<bool> = book.chapters.iter().map(|c| c.converted).collect();
    let blocks: Vec<String> = (book.chapters.into_iter())
        .map(|c| format!("{:?}", c.doc.load(&kept).expect("kept").blocks))
        .collect();
    (converted, blocks)
}

/// A chapter's conversion is kept by its files' bytes and what the whole book gives it: text
/// from files no element comes from (an entity of text alone, a text XInclude) changes every
/// chapter's key, and so does a changed xref text; an unchanged book takes every chapter.
#[test]
fn kept_conversions_follow_text_entities_text_includes_and_xref_texts() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "book.xml",
        &entity_book(
            &[("ver", "ver.ent"), ("ch1", "ch1.xml"), ("ch2", "ch2.xml")],
            "<book><title>B</title>&ch1;&ch2;</book>",
        ),
    );
    write(
        "ch1.xml",
        r#"<chapter id="c1"><title>One</title><para>Version &ver;.</para>
<programlisting><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="code.txt" parse="text"/></programlisting></chapter>"#,
    );
    write(
        "ch2.xml",
        r#"<chapter id="c2"><title>Two</title><para>See <xref linkend="c1"/>.</para></chapter>"#,
    );
    write("ver.ent", "1.0");
    write("code.txt", "print(1)");
    let read = || read_kept(dir.path());
    let (converted, first) = read();
    assert_eq!(converted, [true, true]);
    let (converted, again) = read();
    assert_eq!(converted, [false, false], "nothing changed");
    assert_eq!(again, first, "the kept documents read back as converted");
    write("ver.ent", "2.0");
    let (converted, text) = read();
    assert_eq!(converted, [true, true], "an entity of text alone");
    assert!(
        text[0].contains("2.0") && !text[0].contains("1.0"),
        "{}",
        text[0]
    );
    write("code.txt", "print(2)");
    let (converted, text) = read();
    assert_eq!(converted, [true, true], "a text XInclude");
    assert!(text[0].contains("print(2)"), "{}", text[0]);
    // Chapter one's own file: only it, unless what it gives the others changes.
    write(
        "ch1.xml",
        &std::fs::read_to_string(dir.path().join("ch1.xml"))
            .unwrap()
            .replace("Version", "Release"),
    );
    assert_eq!(read().0, [true, false]);
    write(
        "ch1.xml",
        &std::fs::read_to_string(dir.path().join("ch1.xml"))
            .unwrap()
            .replace("<title>One", "<title>First"),
    );
    // (The xref texts are the reader's, given to the resolver: every chapter is converted.)
    assert_eq!(read().0, [true, true], "the title chapter two's xref shows");
}

/// A kept chapter the reading changes after converting it (the page breaks written before
/// it, the book's own id on the first page, page breaks after the last chapter) is read back
/// from the cache and changed as a converted one is: a rebuild reads the book as a cold
/// reading does.
#[test]
fn kept_chapters_take_the_page_breaks_and_anchors_around_them() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "book.xml",
        &entity_book(
            &[("ch1", "ch1.xml"), ("ch2", "ch2.xml"), ("ch3", "ch3.xml")],
            r#"<book id="the-book"><title>B</title>&ch1;<beginpage pagenum="7"/>&ch2;&ch3;<beginpage pagenum="20"/></book>"#,
        ),
    );
    write(
        "ch1.xml",
        r#"<chapter id="c1"><title>One</title><para>First.</para></chapter>"#,
    );
    write(
        "ch2.xml",
        r#"<chapter id="c2"><title>Two</title><para>Second.</para></chapter>"#,
    );
    write(
        "ch3.xml",
        r#"<chapter id="c3"><title>Three</title><para>Third.</para></chapter>"#,
    );
    let read = || read_kept(dir.path());
    let (converted, cold) = read();
    assert_eq!(converted, [true, true, true]);
    assert!(cold[0].contains("the-book"), "{}", cold[0]);
    assert!(cold[1].contains("\"7\""), "{}", cold[1]);
    assert!(cold[2].contains("\"20\""), "{}", cold[2]);
    let (converted, again) = read();
    assert_eq!(converted, [false, false, false], "nothing changed");
    assert_eq!(again, cold);
    // One chapter changed: the others are kept, and changed as before.
    write(
        "ch2.xml",
        r#"<chapter id="c2"><title>Two</title><para>Second, again.</para></chapter>"#,
    );
    let (converted, edited) = read();
    assert_eq!(converted, [false, true, false]);
    assert_eq!((&edited[0], &edited[2]), (&cold[0], &cold[2]));
    assert!(
        edited[1].contains("again") && edited[1].contains("\"7\""),
        "{}",
        edited[1]
    );
}
