use super::*;

fn read_all(text: &str) -> (Document, Vec<Finding>) {
    read(text, Path::new("ch.re"), &ReviewOptions::default())
}

fn read_ok(text: &str) -> Document {
    let (doc, findings) = read_all(text);
    assert!(findings.is_empty(), "{findings:#?}");
    doc
}

fn read_opts(text: &str, opts: &ReviewOptions) -> (Document, Vec<Finding>) {
    read(text, Path::new("ch.re"), opts)
}

/// The kind of the only (first) block.
fn first(text: &str) -> BlockKind {
    let d = read_ok(text);
    d.blocks.into_iter().next().expect("a block").kind
}

/// The inline content of a one-paragraph document.
fn para(text: &str) -> Inlines {
    match first(text) {
        BlockKind::Para(c) => c,
        other => panic!("{other:?}"),
    }
}

/// The inline kinds of a one-paragraph document.
fn kinds(text: &str) -> Vec<InlineKind> {
    para(text).into_iter().map(|i| i.kind).collect()
}

fn t(s: &str) -> InlineKind {
    InlineKind::Text(s.into())
}

fn texts(inlines: &[Inline]) -> Vec<InlineKind> {
    inlines.iter().map(|i| i.kind.clone()).collect()
}

fn errors(text: &str) -> Vec<Finding> {
    read_all(text)
        .1
        .into_iter()
        .filter(|f| f.severity == crate::error::Severity::Error)
        .collect()
}

/// Exactly one error, containing `msg`, at `line:col`.
fn one_error(text: &str, msg: &str, line: u32, col: u32) -> Finding {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].message.contains(msg), "{:?}", e[0].message);
    assert_eq!(
        (e[0].location.line, e[0].location.col),
        (line, col),
        "{e:#?}"
    );
    e[0].clone()
}

fn warnings(text: &str) -> Vec<Finding> {
    read_all(text)
        .1
        .into_iter()
        .filter(|f| f.severity == crate::error::Severity::Warning)
        .collect()
}

// ---------------------------------------------------------------------------
// Paragraphs

/// The first paragraph's inlines, read with `join_lines_by_lang: true`.
fn kinds_by_lang(text: &str) -> Vec<InlineKind> {
    let opts = ReviewOptions {
        join_lines_by_lang: true,
        ..ReviewOptions::default()
    };
    let (d, _) = read_opts(text, &opts);
    let Some(BlockKind::Para(c)) = d.blocks.into_iter().next().map(|b| b.kind) else {
        panic!("not a paragraph")
    };
    c.into_iter().map(|i| i.kind).collect()
}

#[test]
fn lines_join_with_nothing_as_re_view_joins_them() {
    assert_eq!(kinds("吾輩は\n猫である。\n"), vec![t("吾輩は猫である。")]);
    assert_eq!(kinds("this is a\npen.\n"), vec![t("this is apen.")]);
    assert_eq!(kinds("日本語\nEnglish\n"), vec![t("日本語English")]);
    assert_eq!(
        kinds("存在します。\nAndroidで\n"),
        vec![t("存在します。Androidで")]
    );
    // The author's own spaces stay.
    assert_eq!(
        kinds("飯田 卓也\n第６回 きっと\n"),
        vec![t("飯田 卓也第６回 きっと")]
    );
    // Tabs that start a line are kept, the white space after them goes.
    assert_eq!(kinds("\t  字下げ\n"), vec![t("\t字下げ")]);
}

#[test]
fn lines_join_by_language_with_join_lines_by_lang() {
    assert_eq!(
        kinds_by_lang("吾輩は\n猫である。\n"),
        vec![t("吾輩は猫である。")]
    );
    assert_eq!(
        kinds_by_lang("this is a\npen.\n"),
        vec![t("this is a pen.")]
    );
    // Either side wide: no space (Re:VIEW's lazy rule for Japanese).
    assert_eq!(kinds_by_lang("日本語\nEnglish\n"), vec![t("日本語English")]);
    assert_eq!(kinds_by_lang("English\n日本語\n"), vec![t("English日本語")]);
    assert_eq!(
        kinds_by_lang("存在します。\nAndroidで\n"),
        vec![t("存在します。Androidで")]
    );
    // Hangul is written with spaces between words.
    assert_eq!(kinds_by_lang("한국어\n문장\n"), vec![t("한국어 문장")]);
}

#[test]
fn paragraph_lines_are_stripped_and_split_by_blank_lines() {
    let d = read_ok("  一段落目  \n\n\n二段落目\n");
    assert_eq!(d.blocks.len(), 2);
    assert_eq!(d.blocks[1].pos, Pos::new(4, 1));
    let BlockKind::Para(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(texts(c), vec![t("一段落目")]);
}

#[test]
fn headings_and_list_markers_do_not_end_a_paragraph() {
    let d = read_ok("本文\n== 見出しではない\n * 項目でもない\n");
    assert_eq!(d.blocks.len(), 1);
    let BlockKind::Para(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(plain_text(c), "本文== 見出しではない* 項目でもない");
}

#[test]
fn command_line_ends_a_paragraph() {
    let d = read_ok("本文\n//hr\n続き\n");
    assert_eq!(d.blocks.len(), 3);
    assert_eq!(d.blocks[1].kind, BlockKind::Rule);
}

#[test]
fn noindent_styles_the_next_paragraph() {
    let d = read_ok("//noindent\n\n字下げなし\n\n普通\n");
    assert!(
        matches!(&d.blocks[0].kind, BlockKind::StyledPara { class, .. } if class == "noindent")
    );
    assert!(matches!(d.blocks[1].kind, BlockKind::Para(_)));
}

#[test]
fn bom_and_crlf_are_accepted() {
    let d = read_ok("\u{feff}= 題\r\n\r\n本文\r\n");
    let BlockKind::Heading(h) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(plain_text(&h.content), "題");
    assert_eq!(
        d.blocks[1].kind,
        BlockKind::Para(vec![Inline::text("本文", Pos::new(3, 1))])
    );
}

// ---------------------------------------------------------------------------
// Headings and columns

fn heading(text: &str) -> Heading {
    match first(text) {
        BlockKind::Heading(h) => h,
        other => panic!("{other:?}"),
    }
}

#[test]
fn heading_levels_labels_and_caption_markup() {
    let h = heading("=={sec1} 節の@<b>{太字}\n");
    assert_eq!(
        (h.level, h.id.as_deref(), h.numbered),
        (2, Some("sec1"), true)
    );
    assert_eq!(h.content[0], Inline::text("節の", Pos::new(1, 10)));
    assert!(matches!(h.content[1].kind, InlineKind::Bold(_)));
    assert_eq!(h.content[1].pos, Pos::new(1, 12));
}

#[test]
fn heading_tags() {
    let h = heading("==[nonum] A\n");
    assert!(!h.numbered && h.in_toc && h.shown);
    let h = heading("==[nodisp] A\n");
    assert!(!h.numbered && h.in_toc && !h.shown);
    let h = heading("==[notoc]{x} A\n");
    assert!(!h.numbered && !h.in_toc && h.shown);
    assert_eq!(h.id.as_deref(), Some("x"));
}

#[test]
fn heading_needs_space_and_column_zero() {
    assert!(matches!(first("=Title\n"), BlockKind::Para(_)));
    assert!(matches!(first(" = x\n"), BlockKind::Para(_)));
}

#[test]
fn empty_heading_caption_warns() {
    let w = warnings("== \n");
    assert!(w[0].message.contains("no caption"), "{w:?}");
}

#[test]
fn seven_equals_is_an_error() {
    one_error("======= x\n", "at most 6", 1, 1);
}

#[test]
fn column_closed_by_end_tag() {
    let d = read_ok("==[column]{c1} コラム\n\n中身\n\n==[/column]\n\n外\n");
    assert_eq!(d.blocks.len(), 2);
    let BlockKind::Sidebar {
        id, title, blocks, ..
    } = &d.blocks[0].kind
    else {
        panic!("{:?}", d.blocks)
    };
    assert_eq!(id.as_deref(), Some("c1"));
    assert_eq!(plain_text(title.as_ref().unwrap()), "コラム");
    assert_eq!(blocks.len(), 1);
}

#[test]
fn column_closed_by_same_level_heading() {
    let d = read_ok("===[column] C\n\n中\n\n==== 下位\n\n=== 次\n");
    assert_eq!(d.blocks.len(), 2);
    let BlockKind::Sidebar { blocks, .. } = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(blocks.len(), 2, "the deeper heading stays inside");
    assert!(matches!(&d.blocks[1].kind, BlockKind::Heading(h) if h.level == 3));
}

#[test]
fn column_closed_by_end_of_file() {
    let d = read_ok("== 節\n\n===[column] C\n\n中\n");
    let BlockKind::Sidebar { blocks, .. } = &d.blocks[1].kind else {
        panic!()
    };
    assert_eq!(blocks.len(), 1);
}

#[test]
fn xcolumn_ref_sup_are_divs_with_a_heading() {
    for (tag, class) in [
        ("xcolumn", "xcolumn"),
        ("ref", "reference"),
        ("sup", "supplement"),
    ] {
        let d = read_ok(&format!("==[{tag}] 見出し\n\n中\n==[/{tag}]\n"));
        let BlockKind::Div { class: c, blocks } = &d.blocks[0].kind else {
            panic!()
        };
        assert_eq!(c, class);
        assert!(
            matches!(&blocks[0].kind, BlockKind::Heading(h) if plain_text(&h.content) == "見出し")
        );
        assert_eq!(blocks.len(), 2, "{blocks:#?}");
    }
}

#[test]
fn unknown_heading_tag_is_a_warning_and_its_section_is_kept() {
    let text = "==[mycolumn] 問い\n\n中\n\n==[/mycolumn]\n\n後\n";
    assert_eq!(errors(text), vec![]);
    let w = warnings(text);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert_eq!(
        w[0].message,
        "unknown heading tag `[mycolumn]`: the section is kept in a `div` of class `mycolumn`"
    );
    assert!(w[0].hint.as_deref().unwrap().contains("`[nonum]`"));
    let d = read_all(text).0;
    let BlockKind::Div { class, blocks } = &d.blocks[0].kind else {
        panic!("{:?}", d.blocks)
    };
    assert_eq!(class, "mycolumn");
    assert!(matches!(&blocks[0].kind, BlockKind::Heading(h) if plain_text(&h.content) == "問い"));
    assert_eq!(blocks.len(), 2, "{blocks:#?}");
    assert!(matches!(&d.blocks[1].kind, BlockKind::Para(_)));
    // A tag that cannot be a class is still an error.
    one_error("==[no num] x\n", "unknown heading tag `[no num]`", 1, 1);
}

#[test]
fn closing_tag_with_nothing_open_is_an_error() {
    one_error("本文\n\n==[/column]\n", "closes nothing", 3, 1);
}

// ---------------------------------------------------------------------------
// Lists

fn list(text: &str) -> List {
    match first(text) {
        BlockKind::List(l) => l,
        other => panic!("{other:?}"),
    }
}

#[test]
fn bulleted_list_with_continuation() {
    let l = list(" * 一つ目\n   続き\n * two\n   lines\n");
    assert_eq!(l.start, None);
    assert_eq!(l.items.len(), 2);
    assert_eq!(
        l.items[0][0].kind,
        BlockKind::Para(vec![Inline::text("一つ目続き", Pos::new(1, 4))])
    );
    assert!(matches!(&l.items[1][0].kind, BlockKind::Para(c) if plain_text(c) == "twolines"));
}

#[test]
fn nested_lists() {
    let l = list(" * a\n ** b\n ** c\n *** d\n * e\n");
    assert_eq!(l.items.len(), 2);
    let BlockKind::List(inner) = &l.items[0][1].kind else {
        panic!("{l:?}")
    };
    assert_eq!(inner.items.len(), 2);
    assert!(matches!(&inner.items[1][1].kind, BlockKind::List(d) if d.items.len() == 1));
}

#[test]
fn list_jumping_two_levels_is_an_error() {
    one_error(" * a\n *** b\n", "nests one level at a time", 2, 1);
}

#[test]
fn star_at_column_zero_is_a_paragraph() {
    assert!(matches!(first("* x\n"), BlockKind::Para(_)));
}

#[test]
fn numbered_list_and_olnum() {
    let l = list(" 1. 一\n 2. 二\n");
    assert_eq!((l.start, l.items.len()), (Some(1), 2));
    let l = list("//olnum[10]\n 1. 一\n");
    assert_eq!(l.start, Some(10));
}

#[test]
fn definition_list() {
    let d = read_ok(" : 用語\n\t説明の\n\t続き\n\n : term2\n  desc\n\n後\n");
    let BlockKind::DefinitionList(items) = &d.blocks[0].kind else {
        panic!("{:?}", d.blocks)
    };
    assert_eq!(items.len(), 2);
    assert_eq!(plain_text(&items[0].term), "用語");
    assert_eq!(items[0].definitions.len(), 1);
    assert!(
        matches!(&items[0].definitions[0][0].kind, BlockKind::Para(c) if plain_text(c) == "説明の続き")
    );
    assert!(matches!(&d.blocks[1].kind, BlockKind::Para(_)));
}

#[test]
fn beginchild_appends_to_the_last_item() {
    let d = read_ok(
        " * a\n * b\n\n//beginchild\n\n子の段落\n\n//emlist{\ncode\n//}\n\n//endchild\n\n後\n",
    );
    assert_eq!(d.blocks.len(), 2);
    let BlockKind::List(l) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(l.items[1].len(), 3);
    assert!(matches!(l.items[1][2].kind, BlockKind::Code(_)));
}

#[test]
fn beginchild_in_definition_list_and_nested() {
    let d = read_ok(" : t\n\td\n//beginchild\n * x\n//beginchild\ny\n//endchild\n//endchild\n");
    let BlockKind::DefinitionList(items) = &d.blocks[0].kind else {
        panic!()
    };
    let def = &items[0].definitions[0];
    assert_eq!(def.len(), 2);
    let BlockKind::List(l) = &def[1].kind else {
        panic!()
    };
    assert_eq!(l.items[0].len(), 2);
}

#[test]
fn beginchild_not_after_a_list_is_an_error() {
    one_error(
        "本文\n\n//beginchild\nx\n//endchild\n",
        "right after a list",
        3,
        1,
    );
}

#[test]
fn unbalanced_beginchild_is_an_error() {
    one_error(
        " * a\n//beginchild\nx\n",
        "never closed with `//endchild`",
        2,
        1,
    );
    one_error("x\n\n//endchild\n", "without a `//beginchild`", 3, 1);
}

// ---------------------------------------------------------------------------
// Block commands

fn code(text: &str) -> Code {
    match first(text) {
        BlockKind::Code(c) => *c,
        other => panic!("{other:?}"),
    }
}

#[test]
fn list_block() {
    let c = code("//list[l1][サンプル][ruby]{\nputs 1\n\tx  \n//}\n");
    assert_eq!(c.style, CodeStyle::List);
    assert_eq!(c.id.as_deref(), Some("l1"));
    assert_eq!(plain_text(c.caption.as_ref().unwrap()), "サンプル");
    assert_eq!(c.language.as_deref(), Some("ruby"));
    assert_eq!(c.text, "puts 1\n        x\n");
    assert_eq!((c.markup, c.first_line_number), (None, None));
}

#[test]
fn tabwidth_option() {
    let opts = ReviewOptions {
        tabwidth: 4,
        ..ReviewOptions::default()
    };
    let (d, _) = read_opts("//emlist{\nab\tc\n//}\n", &opts);
    let BlockKind::Code(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(c.text, "ab  c\n");
}

#[test]
fn listnum_and_firstlinenum() {
    let c = code("//firstlinenum[5]\n//listnum[l][c]{\nx\n//}\n");
    assert_eq!((c.style, c.first_line_number), (CodeStyle::List, Some(5)));
    let c = code("//listnum[l][c]{\nx\n//}\n");
    assert_eq!(c.first_line_number, Some(1));
}

#[test]
fn emlist_and_emlistnum() {
    let c = code("//emlist[][c]{\nint x;\n//}\n");
    assert_eq!(
        (c.style, c.caption, c.language.as_deref()),
        (CodeStyle::Example, None, Some("c"))
    );
    let c = code("//emlist{\nx\n//}\n");
    assert_eq!((c.caption, c.language), (None, None));
    let c = code("//emlistnum[例]{\nx\n//}\n");
    assert_eq!(
        (c.style, c.first_line_number),
        (CodeStyle::Example, Some(1))
    );
    assert!(c.caption.is_some());
}

#[test]
fn cmd_source_box() {
    let c = code("//cmd[端末]{\n$ @<b>{ls}\n//}\n");
    assert_eq!(c.style, CodeStyle::Command);
    assert_eq!(c.text, "$ ls\n");
    let m = c.markup.unwrap();
    assert_eq!(texts(&m)[0], t("$ "));
    assert!(matches!(&m[1].kind, InlineKind::Bold(b) if plain_text(b) == "ls"));
    assert_eq!(m[1].pos, Pos::new(2, 3));
    assert_eq!(m[2].kind, t("\n"));
    let c = code("//source[a.rb][ruby]{\nx\n//}\n");
    assert_eq!(
        (c.style, c.language.as_deref()),
        (CodeStyle::Source, Some("ruby"))
    );
    assert_eq!(code("//box[書式]{\nx\n//}\n").style, CodeStyle::Box);
}

#[test]
fn code_body_drops_comment_lines() {
    let c = code("//emlist{\na\n#@# 消える\nb\n//}\n");
    assert_eq!(c.text, "a\nb\n");
}

fn figure(text: &str) -> Figure {
    match first(text) {
        BlockKind::Figure(f) => *f,
        other => panic!("{other:?}"),
    }
}

#[test]
fn image_block() {
    let f = figure("//image[cat][猫の@<b>{写真}][scale=0.5]\n");
    assert!(f.numbered && !f.as_table);
    assert_eq!(f.id.as_deref(), Some("cat"));
    assert_eq!(
        f.image,
        Image {
            src: "cat".into(),
            alt: "猫の写真".into(),
            by_id: true
        }
    );
    assert_eq!(f.class.as_deref(), Some("width-050per"));
    assert_eq!(f.fallback, None);
    let f = figure("//image[a][b][html::style=\"x\",latex::width=3cm]{\nASCII art\n//}\n");
    assert_eq!((f.class, f.fallback.as_deref()), (None, Some("ASCII art")));
    assert_eq!(
        figure("//image[a][b][scale=1.2]\n").class.as_deref(),
        Some("width-120per")
    );
}

#[test]
fn indepimage_numberlessimage_imgtable() {
    let f = figure("//indepimage[logo]\n");
    assert!(!f.numbered && f.caption.is_none());
    assert!(!figure("//numberlessimage[logo][ロゴ]\n").numbered);
    let f = figure("//imgtable[t][表の画像]{\n//}\n");
    assert!(f.numbered && f.as_table);
}

#[test]
fn graph_warns_and_keeps_the_source() {
    let (d, f) = read_all("//graph[g][graphviz][図]{\ndigraph { a -> b }\n#@# kept\n//}\n");
    assert!(f[0].message.contains("graph tools"), "{f:?}");
    let BlockKind::Figure(fig) = &d.blocks[0].kind else {
        panic!()
    };
    assert!(fig.numbered);
    assert_eq!(
        fig.fallback.as_deref(),
        Some("digraph { a -> b }\n#@# kept")
    );
    assert_eq!(plain_text(fig.caption.as_ref().unwrap()), "図");
}

fn table(text: &str) -> Table {
    match first(text) {
        BlockKind::Table(t) => *t,
        other => panic!("{other:?}"),
    }
}

fn cell_text(c: &Cell) -> String {
    plain_text(&c.content)
}

#[test]
fn table_with_separator() {
    let tb = table("//table[t1][表]{\n名前\t\t値\n------------\na\t@<b>{1}\nb\n//}\n");
    assert_eq!(tb.id.as_deref(), Some("t1"));
    assert_eq!(tb.head.len(), 1);
    assert_eq!(tb.body.len(), 2);
    assert_eq!(cell_text(&tb.head[0].cells[1]), "値");
    assert!(matches!(
        tb.body[0].cells[1].content[0].kind,
        InlineKind::Bold(_)
    ));
    assert_eq!(tb.body[1].cells.len(), 2, "padded");
    assert!(tb.body.iter().flat_map(|r| &r.cells).all(|c| !c.header));
    let c = &tb.body[0].cells[0];
    assert_eq!((c.align, c.colspan, c.rowspan), (Align::Default, 1, 1));
}

#[test]
fn table_without_separator_has_row_headers() {
    let tb = table("//table{\nA\t1\nB\t2\t\n//}\n");
    assert!(tb.head.is_empty() && tb.id.is_none());
    assert!(
        tb.body
            .iter()
            .all(|r| r.cells[0].header && !r.cells[1].header)
    );
    assert_eq!(tb.body[1].cells.len(), 2, "trailing empty cell dropped");
}

#[test]
fn table_dot_cells() {
    let tb = table("//emtable[キャプ]{\n.\t..x\t.y\n//}\n");
    let cells: Vec<String> = tb.body[0].cells.iter().map(cell_text).collect();
    assert_eq!(cells, vec!["", ".x", "y"]);
    assert!(tb.caption.is_some());
}

#[test]
fn empty_table_is_an_error() {
    one_error("//table[t][c]{\n//}\n", "no rows", 1, 1);
}

#[test]
fn tsize_is_ignored() {
    assert!(read_ok("//tsize[|latex||l|l|]\n").blocks.is_empty());
}

#[test]
fn texequation_is_verbatim() {
    let (doc, findings) = read_all("//texequation[e1][式]{\n\\frac{1}{2} @<b>{x}\n#@# kept\n//}\n");
    let BlockKind::Math(m) = &doc.blocks[0].kind else {
        panic!()
    };
    assert_eq!(m.id.as_deref(), Some("e1"));
    assert_eq!(m.tex, "\\frac{1}{2} @<b>{x}\n#@# kept");
    // `#` is no TeX math: the equation stays TeX, with a warning at the `#` (line 3).
    assert!(m.caption.is_some() && m.mathml.is_none());
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].code, codes::UNCONVERTED_MATH.name());
    assert_eq!(
        (findings[0].location.line, findings[0].location.col),
        (3, 1)
    );
}

#[test]
fn texequation_becomes_display_mathml_with_its_tex_as_alttext() {
    let BlockKind::Math(m) = first("//texequation{\n  x^2\n//}\n") else {
        panic!()
    };
    let [crate::dom::Node::Element(math)] = &m.mathml.as_deref().unwrap() else {
        panic!("{:?}", m.mathml)
    };
    assert_eq!(
        crate::dom::serialize_element(math),
        r#"<math xmlns="http://www.w3.org/1998/Math/MathML" display="block" alttext="x^2"><msup><mi>x</mi><mn>2</mn></msup></math>"#
    );
}

#[test]
fn unconverted_math_is_warned_at_its_command_in_the_manuscript() {
    // Line 3, after two spaces of indentation.
    let w = warnings("= t\n//texequation{\nx +\n  \\color{red} y\n//}\n");
    assert_eq!(w.len(), 1, "{w:#?}");
    assert_eq!(w[0].code, codes::UNCONVERTED_MATH.name());
    assert!(w[0].message.contains("`\\color`"), "{}", w[0].message);
    assert_eq!((w[0].location.line, w[0].location.col), (4, 3));
    // Inline: `\}` is one character of TeX but two of the source.
    let w = warnings("前@<m>{\\frac{1\\}{2\\} \\foo}後\n");
    assert_eq!(w.len(), 1, "{w:#?}");
    assert_eq!((w[0].location.line, w[0].location.col), (1, 21));
    let (doc, _) = read_all("前@<m>{\\foo}後\n");
    let BlockKind::Para(inlines) = &doc.blocks[0].kind else {
        panic!()
    };
    let kinds = texts(inlines);
    assert!(
        kinds.contains(&InlineKind::Math {
            tex: "\\foo".into(),
            mathml: None
        }),
        "{kinds:?}"
    );
}

#[test]
fn quote_and_doorquote() {
    let BlockKind::Quote {
        blocks,
        attribution,
    } = first("//quote{\n一\n二\n\n三\n//}\n")
    else {
        panic!()
    };
    assert_eq!((blocks.len(), attribution), (2, None));
    let BlockKind::Quote { attribution, .. } = first("//doorquote[出典]{\n引用\n//}\n") else {
        panic!()
    };
    assert_eq!(plain_text(&attribution.unwrap()), "出典");
}

#[test]
fn lead_read_talk() {
    for (cmd, class) in [("lead", "lead"), ("read", "lead"), ("talk", "talk")] {
        let BlockKind::Div { class: c, blocks } = first(&format!("//{cmd}{{\nリード\n//}}\n"))
        else {
            panic!()
        };
        assert_eq!((c.as_str(), blocks.len()), (class, 1));
    }
}

#[test]
fn flushright_and_centering() {
    let d = read_ok("//flushright{\n右\n\n右2\n//}\n//centering{\n中\n//}\n");
    let classes: Vec<&str> = d
        .blocks
        .iter()
        .map(|b| match &b.kind {
            BlockKind::StyledPara { class, .. } => class.as_str(),
            _ => "?",
        })
        .collect();
    assert_eq!(classes, vec!["flushright", "flushright", "center"]);
}

#[test]
fn single_line_commands() {
    let d = read_ok("//blankline\n//pagebreak\n//hr\n//parasep\n//label[here]\n");
    let k: Vec<BlockKind> = d.blocks.into_iter().map(|b| b.kind).collect();
    let br = BlockKind::Para(vec![Inline::new(InlineKind::LineBreak, Pos::new(1, 1))]);
    assert_eq!(k[0], br);
    assert_eq!(k[1], BlockKind::PageBreak);
    assert_eq!(k[2], BlockKind::Rule);
    assert!(matches!(&k[3], BlockKind::Para(c) if c[0].kind == InlineKind::LineBreak));
    assert_eq!(k[4], BlockKind::Anchor("here".into()));
}

#[test]
fn mini_column_with_list_and_code() {
    let d = read_ok("//note[注意]{\n段落\n\n * a\n * b\n\n//list[l][c]{\nx\n//}\n後\n//}\n\n外\n");
    assert_eq!(d.blocks.len(), 2);
    let BlockKind::Admonition {
        kind,
        title,
        blocks,
    } = &d.blocks[0].kind
    else {
        panic!()
    };
    assert_eq!(*kind, AdmonitionKind::Note);
    let AdmonitionTitle::Written(title) = title else {
        panic!("{title:?}")
    };
    assert_eq!(plain_text(title), "注意");
    assert!(matches!(blocks[1].kind, BlockKind::List(_)));
    assert!(matches!(blocks[2].kind, BlockKind::Code(_)));
    assert_eq!(blocks.len(), 4);
}

#[test]
fn every_mini_column_kind() {
    for (name, kind) in [
        ("memo", AdmonitionKind::Memo),
        ("tip", AdmonitionKind::Tip),
        ("info", AdmonitionKind::Info),
        ("warning", AdmonitionKind::Warning),
        ("important", AdmonitionKind::Important),
        ("caution", AdmonitionKind::Caution),
        ("notice", AdmonitionKind::Notice),
    ] {
        let BlockKind::Admonition { kind: k, title, .. } = first(&format!("//{name}{{\nx\n//}}\n"))
        else {
            panic!()
        };
        assert_eq!((k, title), (kind, AdmonitionTitle::Untitled));
    }
}

#[test]
fn nested_mini_column_is_an_error() {
    one_error(
        "//note{\n//memo{\nx\n//}\n//}\n",
        "mini-columns cannot be nested",
        2,
        1,
    );
}

#[test]
fn column_inside_mini_column_closes_with_it() {
    let d = read_ok("//note{\n==[column] C\nx\n//}\n後\n");
    assert_eq!(d.blocks.len(), 2);
}

#[test]
fn point_and_friends_are_divs_with_a_caption() {
    let BlockKind::Div { class, blocks } = first("//point[要点]{\n本文\n//}\n") else {
        panic!()
    };
    assert_eq!(class, "point");
    assert!(matches!(&blocks[0].kind, BlockKind::StyledPara { class, .. } if class == "caption"));
    assert_eq!(blocks.len(), 2, "{blocks:#?}");
    let BlockKind::Div { class, blocks } = first("//security{\n本文\n//}\n") else {
        panic!()
    };
    assert_eq!((class.as_str(), blocks.len()), ("security", 1));
}

#[test]
fn footnotes_and_endnotes() {
    let d = read_ok(
        "本文@<fn>{a}と@<endnote>{e}\n\n//footnote[a][注@<b>{です}]\n//endnote[e][後注]\n//printendnotes\n",
    );
    assert_eq!(d.footnotes.len(), 1);
    assert_eq!(d.footnotes[0].label, "a");
    assert_eq!(d.footnotes[0].pos, Pos::new(3, 1));
    assert!(
        matches!(&d.footnotes[0].blocks[0].kind, BlockKind::Para(c) if plain_text(c) == "注です")
    );
    assert_eq!(d.endnotes[0].label, "e");
    assert_eq!(d.blocks.last().unwrap().kind, BlockKind::Endnotes);
}

#[test]
fn endnotes_without_printendnotes_is_an_error() {
    one_error(
        "x@<endnote>{e}\n\n//endnote[e][t]\n",
        "never prints them",
        3,
        1,
    );
}

#[test]
fn footnote_defined_twice_is_an_error() {
    one_error(
        "x@<fn>{a}\n\n//footnote[a][1]\n//footnote[a][2]\n",
        "defined twice",
        4,
        1,
    );
}

#[test]
fn unreferenced_footnote_warns() {
    let w = warnings("//footnote[a][1]\n");
    assert!(w[0].message.contains("never referenced"), "{w:?}");
    assert_eq!(w[0].location.line, 1);
}

#[test]
fn bibpaper() {
    let BlockKind::BibItem(b) = first("//bibpaper[r1][Knuth, TAOCP]{\n説明\n//}\n") else {
        panic!()
    };
    assert_eq!((b.id.as_str(), b.blocks.len(), b.number), ("r1", 1, None));
    assert_eq!(plain_text(&b.caption), "Knuth, TAOCP");
    let BlockKind::BibItem(b) = first("//bibpaper[r2][本]\n") else {
        panic!()
    };
    assert!(b.blocks.is_empty());
}

#[test]
fn raw_block() {
    let BlockKind::Raw(nodes) = first("//raw[|html|<p>a</p>\\n<p>b</p>]\n") else {
        panic!()
    };
    assert_eq!(
        nodes
            .iter()
            .filter(|n| matches!(n, crate::dom::Node::Element(_)))
            .count(),
        2
    );
    assert!(read_ok("//raw[|latex|\\clearpage]\n").blocks.is_empty());
    assert!(matches!(first("//raw[<hr/>]\n"), BlockKind::Raw(_)));
}

/// Exactly one warning, containing `msg`, at `line:col`, and no error.
fn one_warning(text: &str, msg: &str, line: u32, col: u32) -> Finding {
    assert!(errors(text).is_empty(), "{:#?}", errors(text));
    let w = warnings(text);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(w[0].message.contains(msg), "{:?}", w[0].message);
    assert_eq!(
        (w[0].location.line, w[0].location.col),
        (line, col),
        "{w:#?}"
    );
    w[0].clone()
}

#[test]
fn raw_that_is_not_xhtml_is_repaired_or_shown_as_text_with_a_warning() {
    // A void element left open is closed, as in Markdown: it is XHTML's spelling of it.
    assert!(matches!(
        &read_ok("x\n\n//raw[|html|<br>]\n").blocks[1].kind,
        BlockKind::Raw(n) if matches!(&n[..], [crate::dom::Node::Element(e)] if e.name == "br")
    ));
    // What cannot be repaired is the text it is.
    let w = one_warning(
        "//raw[|html|<p><b x></p>]\n",
        "shown as the text it is",
        1,
        19,
    );
    assert_eq!(w.code, codes::HTML_REPAIRED.name());
    let (doc, _) = read_all("//raw[|html|<p><b x></p>]\n");
    assert!(
        matches!(&doc.blocks[0].kind, BlockKind::Raw(n) if matches!(&n[..], [crate::dom::Node::Text(t)] if t == "<p><b x></p>")),
        "{:?}",
        doc.blocks
    );
}

#[test]
fn raw_findings_are_placed_on_the_line_written_whatever_its_escaped_breaks() {
    // `\n` in `//raw` and `@<raw>` is a line break for the parser, but the source is one line.
    let w = one_warning("//raw[|html|<p>\\n<b x>]\n", "not well-formed", 1, 21);
    assert_eq!(w.location.line, 1);
    one_warning(
        "a @<raw>{|html|<i>\\n\\n<b x>} b\n",
        "not well-formed",
        1,
        26,
    );
    // The input the fuzzer found: the finding was placed two lines past the end.
    let text = "= \u{7ae0}J\n@<rh\n\n@<raw>{$ll|umhctnxp\\n>s@<dp\\nsp\\n>s@<dtcylctelL}\n";
    let found = read_all(text).1;
    assert!(found.iter().all(|f| f.location.line <= 4), "{found:#?}");
    // `//embed` lines are real lines.
    one_warning(
        "//embed{\n<div>\n<b x>\n</div>\n//}\n",
        "not well-formed XHTML",
        3,
        4,
    );
}

#[test]
fn embed_block() {
    assert!(matches!(
        first("//embed[html]{\n<div>x</div>\n//}\n"),
        BlockKind::Raw(_)
    ));
    assert!(matches!(
        first("//embed{\n<div>#@# kept</div>\n//}\n"),
        BlockKind::Raw(_)
    ));
    assert!(
        read_ok("//embed[latex]{\n\\clearpage\n//}\n")
            .blocks
            .is_empty()
    );
    assert!(
        read_ok("//embed[|latex|]{\n\\clearpage\n//}\n")
            .blocks
            .is_empty()
    );
    assert!(matches!(
        first("//embed[|html,latex|]{\n<hr/>\n//}\n"),
        BlockKind::Raw(_)
    ));
}

#[test]
fn comment_only_in_draft() {
    assert!(
        read_ok("//comment[メモ]\n//comment{\nx\n//}\n")
            .blocks
            .is_empty()
    );
    let opts = ReviewOptions {
        draft: true,
        ..ReviewOptions::default()
    };
    let (d, _) = read_opts("//comment[メモ]{\n本文\n//}\n", &opts);
    let BlockKind::Div { class, blocks } = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!((class.as_str(), blocks.len()), ("draft-comment", 2));
}

#[test]
fn no_html_commands_warn_and_keep_their_text() {
    for cmd in ["bpo", "address", "blockquote"] {
        let (d, f) = read_all(&format!("//{cmd}{{\n文\n//}}\n"));
        assert!(f[0].message.contains(&format!("`//{cmd}`")), "{f:?}");
        assert!(matches!(&d.blocks[0].kind, BlockKind::Para(c) if plain_text(c) == "文"));
    }
    let w = warnings("//include[other.re]\n");
    assert!(w[0].message.contains("`//include`"));
}

#[test]
fn argument_escapes() {
    let c = code("//list[id][a\\]b\\\\c\\d]{\nx\n//}\n");
    assert_eq!(plain_text(c.caption.as_ref().unwrap()), "a]b\\c\\d");
}

#[test]
fn double_slash_without_a_name_warns() {
    let (d, f) = read_all("//\n// コメント風\n");
    assert!(d.blocks.is_empty());
    assert_eq!(f.len(), 2);
    assert!(
        f.iter()
            .all(|f| f.severity == crate::error::Severity::Warning)
    );
}

// ---------------------------------------------------------------------------
// Block errors

#[test]
fn unknown_block_command_is_a_warning_with_a_hint_and_its_content_is_kept() {
    let text = "本文\n\n//imgae[a][b]\n\n//balloon[x]{\n吹き出し\n//}\n\n//balloon{\n二つ目\n//}\n";
    assert_eq!(errors(text), vec![]);
    let w = warnings(text);
    assert_eq!(w.len(), 2, "once per name: {w:#?}");
    assert_eq!(w[0].code, "unknown-block");
    assert_eq!((w[0].location.line, w[0].location.col), (3, 1));
    assert_eq!(
        w[0].message,
        "unknown command `//imgae`: the line is left out"
    );
    assert_eq!(
        w[0].hint.as_deref(),
        Some("did you mean `//image`? `seihon release` refuses this")
    );
    assert_eq!(
        w[1].message,
        "unknown command `//balloon`: its content is kept in a `div` of class `balloon`"
    );
    let d = read_all(text).0;
    let divs: Vec<String> = d
        .blocks
        .iter()
        .filter_map(|b| match &b.kind {
            BlockKind::Div { class, blocks } => Some(format!("{class}: {}", blocks.len())),
            _ => None,
        })
        .collect();
    assert_eq!(divs, ["balloon: 1", "balloon: 1"]);
}

#[test]
fn a_block_of_review_ext_rb_says_so() {
    let opts = ReviewOptions {
        extension_blocks: vec!["imagetalkl".into()],
        ..ReviewOptions::default()
    };
    let (d, f) = read_opts("//imagetalkl[a.png][名前]{\nこんにちは\n//}\n", &opts);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].severity, crate::error::Severity::Warning);
    assert_eq!(
        f[0].message,
        "`//imagetalkl` is defined by the book's review-ext.rb, which seihon cannot run: its content is kept in a `div` of class `imagetalkl`"
    );
    assert!(matches!(&d.blocks[0].kind, BlockKind::Div { class, .. } if class == "imagetalkl"));
}

#[test]
fn wrong_argument_count_is_an_error() {
    one_error(
        "//image[a]\n",
        "`//image` takes 2 to 3 arguments, found 1",
        1,
        1,
    );
    one_error(
        "x\n\n//label\n",
        "`//label` takes 1 argument, found 0",
        3,
        1,
    );
}

#[test]
fn unclosed_block_is_an_error() {
    one_error(
        "x\n\n//list[a][b]{\ncode\n",
        "`//list` opened here is never closed with `//}`",
        3,
        1,
    );
    one_error(
        "//note{\ncode\n",
        "`//note` opened here is never closed",
        1,
        1,
    );
}

#[test]
fn stray_close_is_an_error() {
    one_error("x\n//}\n", "`//}` closes nothing", 2, 1);
}

#[test]
fn argument_syntax_error() {
    one_error("//image[a][b] x\n", "argument syntax error", 1, 14);
}

// ---------------------------------------------------------------------------
// Inline commands

fn one_inline(text: &str) -> InlineKind {
    let k = kinds(text);
    assert_eq!(k.len(), 1, "{k:?}");
    k.into_iter().next().unwrap()
}

fn inner_text(k: &InlineKind) -> String {
    plain_text(&[Inline::new(k.clone(), Pos::default())])
}

#[test]
fn style_inlines() {
    let x = || vec![Inline::text("x", Pos::new(1, 6))];
    assert_eq!(one_inline("@<b>{x}"), InlineKind::Bold(x()));
    assert_eq!(one_inline("@<i>{x}"), InlineKind::Italic(x()));
    assert_eq!(one_inline("@<u>{x}"), InlineKind::Underline(x()));
    let y = || vec![Inline::text("x", Pos::new(1, 7))];
    assert_eq!(one_inline("@<em>{x}"), InlineKind::Emphasis(y()));
    assert_eq!(
        one_inline("@<strong>{x}"),
        InlineKind::Strong(vec![Inline::text("x", Pos::new(1, 11))])
    );
    assert_eq!(
        one_inline("@<ins>{x}"),
        InlineKind::Inserted(vec![Inline::text("x", Pos::new(1, 8))])
    );
    assert_eq!(
        one_inline("@<del>{x}"),
        InlineKind::Deleted(vec![Inline::text("x", Pos::new(1, 8))])
    );
    assert_eq!(
        one_inline("@<sup>{x}"),
        InlineKind::Superscript(vec![Inline::text("x", Pos::new(1, 8))])
    );
    assert_eq!(
        one_inline("@<sub>{x}"),
        InlineKind::Subscript(vec![Inline::text("x", Pos::new(1, 8))])
    );
    assert_eq!(
        one_inline("@<bou>{x}"),
        InlineKind::EmphasisDots(vec![Inline::text("x", Pos::new(1, 8))])
    );
}

#[test]
fn code_inlines() {
    assert_eq!(one_inline("@<tt>{a b}"), InlineKind::Code("a b".into()));
    assert_eq!(one_inline("@<code>{x}"), InlineKind::Code("x".into()));
    let InlineKind::Bold(b) = one_inline("@<ttb>{x}") else {
        panic!()
    };
    assert_eq!(b[0].kind, InlineKind::Code("x".into()));
    let InlineKind::Italic(i) = one_inline("@<tti>{x}") else {
        panic!()
    };
    assert_eq!(i[0].kind, InlineKind::Code("x".into()));
}

#[test]
fn span_inlines() {
    for name in [
        "ami", "balloon", "recipe", "abbr", "acronym", "cite", "dfn", "kbd", "samp", "var", "big",
        "small",
    ] {
        let k = one_inline(&format!("@<{name}>{{x}}"));
        assert!(
            matches!(&k, InlineKind::Span { class, .. } if class == name),
            "{k:?}"
        );
        assert_eq!(inner_text(&k), "x");
    }
}

#[test]
fn q_tcy_m_br() {
    assert_eq!(one_inline("@<q>{引用}"), t("「引用」"));
    assert_eq!(
        one_inline("@<tcy>{12}"),
        InlineKind::TateChuYoko("12".into())
    );
    let InlineKind::Math { tex, mathml } = one_inline("@<m>{\\alpha^{2\\}}") else {
        panic!()
    };
    assert_eq!(tex, "\\alpha^{2}");
    let nodes = mathml.expect("converted");
    assert_eq!(
        crate::dom::serialize_nodes(&nodes),
        r#"<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="\alpha^{2}"><msup><mi>α</mi><mn>2</mn></msup></math>"#
    );
    assert_eq!(
        kinds("a@<br>{}b"),
        vec![t("a"), InlineKind::LineBreak, t("b")]
    );
}

#[test]
fn kw_is_a_keyword_not_an_index_term() {
    // Re:VIEW's index (its LaTeX builder's, the one that makes one) lists no keyword.
    let k = kinds("@<kw>{Re:VIEW, レビュー}");
    assert_eq!(
        k,
        vec![InlineKind::Keyword {
            word: vec![Inline::text("Re:VIEW", Pos::new(1, 7))],
            alt: Some("レビュー".into())
        }]
    );
    assert!(matches!(
        &kinds("@<kw>{語}")[0],
        InlineKind::Keyword { alt: None, .. }
    ));
}

#[test]
fn ruby_splits_on_the_first_unescaped_comma() {
    assert_eq!(
        one_inline("@<ruby>{愕然, がくぜん}"),
        InlineKind::Ruby {
            base: "愕然".into(),
            text: "がくぜん".into()
        }
    );
    assert_eq!(
        one_inline("@<ruby>{a\\,b,c,d}"),
        InlineKind::Ruby {
            base: "a,b".into(),
            text: "c,d".into()
        }
    );
}

#[test]
fn note_references() {
    let (d, _) = read_all("@<fn>{f1}@<endnote>{e1}");
    let BlockKind::Para(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(
        texts(c),
        vec![
            InlineKind::FootnoteRef("f1".into()),
            InlineKind::EndnoteRef("e1".into())
        ]
    );
    assert_eq!(c[1].pos, Pos::new(1, 10));
}

#[test]
fn reference_inlines() {
    for (name, kind) in [
        ("chap", RefKind::Chapter),
        ("title", RefKind::ChapterTitle),
        ("chapref", RefKind::ChapterRef),
        ("list", RefKind::Listing),
        ("img", RefKind::Image),
        ("imgref", RefKind::ImageRef),
        ("table", RefKind::Table),
        ("eq", RefKind::Equation),
        ("hd", RefKind::Heading),
        ("secref", RefKind::Heading),
        ("sec", RefKind::SectionNumber),
        ("sectitle", RefKind::SectionTitle),
        ("column", RefKind::Column),
        ("bib", RefKind::Bib),
        ("labelref", RefKind::Any),
        ("ref", RefKind::Any),
    ] {
        assert_eq!(
            one_inline(&format!("@<{name}>{{ch02|id}}")),
            InlineKind::Ref {
                kind,
                target: "ch02|id".into(),
                content: None
            },
            "{name}"
        );
    }
}

#[test]
fn href_with_and_without_text() {
    let InlineKind::Link { href, content } = one_inline("@<href>{https://example.com/, 例}")
    else {
        panic!()
    };
    assert_eq!(
        (href.as_str(), plain_text(&content).as_str()),
        ("https://example.com/", "例")
    );
    let InlineKind::Link { href, content } = one_inline("@<href>{#label}") else {
        panic!()
    };
    assert_eq!(plain_text(&content), href);
}

#[test]
fn uchar() {
    assert_eq!(one_inline("@<uchar>{2460}"), t("①"));
    one_error("x@<uchar>{zz}", "not a Unicode code point", 1, 2);
}

#[test]
fn idx_and_hidx() {
    let term = |t: &str| InlineKind::IndexTerm {
        term: t.into(),
        id: None,
        details: None,
    };
    // The anchor comes first, so the index's link lands at the term.
    assert_eq!(kinds("@<idx>{索引}"), vec![term("索引"), t("索引")]);
    assert_eq!(kinds("@<hidx>{a<<>>b}"), vec![term("a<<>>b")]);
    // `@` is the term's own character, as Re:VIEW escapes it for makeindex.
    assert_eq!(kinds("@<hidx>{よみ@読み}"), vec![term("よみ@読み")]);
}

#[test]
fn words_dictionary() {
    let mut opts = ReviewOptions::default();
    opts.words.insert("rv".into(), "Re:VIEW".into());
    let (d, f) = read_opts("@<w>{rv}と@<wb>{rv}", &opts);
    assert!(f.is_empty());
    let BlockKind::Para(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(c[0].kind, t("Re:VIEWと"));
    assert!(matches!(&c[1].kind, InlineKind::Bold(b) if plain_text(b) == "Re:VIEW"));
}

#[test]
fn unknown_word_key_is_an_error() {
    one_error("本文@<w>{nokey}", "unknown word key `nokey`", 1, 3);
}

#[test]
fn raw_and_embed_inline() {
    let k = kinds("a@<raw>{|html|<b>x</b>}b");
    assert!(matches!(&k[1], InlineKind::Raw(n) if n.len() == 1), "{k:?}");
    assert_eq!(kinds("a@<embed>{|latex|\\LaTeX}b"), vec![t("ab")]);
    assert!(matches!(
        &kinds("@<embed>{<i>x</i>}")[0],
        InlineKind::Raw(_)
    ));
    assert!(matches!(
        &kinds("@<embed>|<i>x</i>|")[0],
        InlineKind::Raw(_)
    ));
}

#[test]
fn comment_inline_only_in_draft() {
    assert_eq!(kinds("a@<comment>{メモ}b"), vec![t("ab")]);
    let opts = ReviewOptions {
        draft: true,
        ..ReviewOptions::default()
    };
    let (d, _) = read_opts("a@<comment>{メモ}", &opts);
    let BlockKind::Para(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert!(matches!(&c[1].kind, InlineKind::Span { class, .. } if class == "draft-comment"));
}

#[test]
fn icon_and_dtp() {
    assert_eq!(
        one_inline("@<icon>{logo}"),
        InlineKind::Image(Image {
            src: "logo".into(),
            alt: "[logo]".into(),
            by_id: true
        })
    );
    assert_eq!(kinds("a@<dtp>{x}b"), vec![t("ab")]);
}

#[test]
fn include_and_pageref_inline_warn() {
    for name in ["include", "pageref"] {
        let w = warnings(&format!("x@<{name}>{{y}}"));
        assert!(w[0].message.contains(&format!("`@<{name}>`")), "{w:?}");
    }
}

#[test]
fn fences_and_escapes() {
    assert_eq!(
        one_inline("@<code>$a}b{c\\$"),
        InlineKind::Code("a}b{c\\".into())
    );
    assert_eq!(one_inline("@<code>|{x}|"), InlineKind::Code("{x}".into()));
    assert_eq!(
        one_inline("@<code>{a\\}b\\\\c\\n}"),
        InlineKind::Code("a}b\\c\\n".into())
    );
    assert_eq!(
        kinds("メール: a@b.c <x> @<b で"),
        vec![t("メール: a@b.c <x> @<b で")]
    );
    assert_eq!(kinds("@<b>x"), vec![t("@<b>x")]);
}

#[test]
fn inline_spanning_paragraph_lines() {
    assert_eq!(
        kinds("@<b>{a\nb}")[0],
        InlineKind::Bold(vec![Inline::text("ab", Pos::new(1, 6))])
    );
}

#[test]
fn nested_inline_is_an_error() {
    one_error(
        "前@<b>{x @<i>{y}}",
        "inline commands cannot be nested in Re:VIEW",
        1,
        9,
    );
}

#[test]
fn unknown_inline_is_an_error_with_a_hint() {
    let e = one_error(
        "本文\nと@<bold>{x}",
        "unknown inline command `@<bold>`",
        2,
        2,
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `@<b>`?"));
    let (d, _) = read_all("@<bold>{x}");
    assert!(
        matches!(&d.blocks[0].kind, BlockKind::Para(c) if plain_text(c) == "x"),
        "the text is kept"
    );
}

#[test]
fn unclosed_inline_is_an_error() {
    let e = one_error("abc @<b>{never", "`@<b>` is never closed", 1, 5);
    assert!(e.hint.is_some());
    let (d, _) = read_all("abc @<b>{never");
    assert!(matches!(&d.blocks[0].kind, BlockKind::Para(c) if plain_text(c) == "abc @<b>{never"));
}

#[test]
fn inline_positions_in_list_items_and_cells() {
    let l = list(" * a@<b>{x}\n");
    let BlockKind::Para(c) = &l.items[0][0].kind else {
        panic!()
    };
    assert_eq!(c[1].pos, Pos::new(1, 5));
    let tb = table("//table{\nh\t.@<b>{x}\n//}\n");
    assert_eq!(tb.body[0].cells[1].content[0].pos, Pos::new(2, 4));
}

// ---------------------------------------------------------------------------
// Comments and the preprocessor

#[test]
fn comment_lines_are_dropped_everywhere() {
    let d = read_ok("#@# 注釈\n段落\n#@# 段落を切る\n続き\n");
    assert_eq!(d.blocks.len(), 2);
    let l = list(" * a\n#@# x\n * b\n");
    assert_eq!(l.items.len(), 2);
}

#[test]
fn warn_directive_becomes_a_warning() {
    let w = warnings("x\n#@warn(ここを直す)\n");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].message, "ここを直す");
    assert_eq!(w[0].location.line, 2);
}

#[test]
fn preprocessor_lines_are_left_to_the_preprocessor() {
    // `#@mapfile`, `#@end` and `#@defvar` are carried out (and reported) by `preproc` before
    // reading; read alone, their lines are dropped and the lines between them kept.
    let (d, f) = read_all(
        "//list[a][b]{\n#@mapfile(src/a.rb)\nold\n#@end\n//}\n#@defvar(x, 1)\n#@require(y)\n",
    );
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].severity, crate::error::Severity::Warning);
    assert!(f[0].message.contains("`#@require`"), "{f:#?}");
    assert_eq!(f[0].location.line, 7);
    let BlockKind::Code(c) = &d.blocks[0].kind else {
        panic!()
    };
    assert_eq!(c.text, "old\n");
}

/// Cut anywhere, a file full of markup still reads without a panic.
#[test]
fn truncated_input_never_panics() {
    let text = "\u{feff}= 章@<fn>{a}\r\n\n//lead{\nリード\n//}\n==[column]{c} コ\n * a\n ** b\n//beginchild\n : t\n\td\n//endchild\n//note[n]{\n//list[l][c]{\n@<b>{x}\t\\}\n//}\n//table[t]{\na\t.b\n------------\n..c\n//}\n//}\n==[/column]\n//image[i][@<m>$x$][scale=0.3]{\n//}\n//raw[|html|<p>x</p>]\n@<ruby>{a\\,b,c}@<href>|u, v|@<uchar>{41}\n#@mapfile(x)\n//footnote[a][注]\n//endnote[e][後]\n";
    let opts = ReviewOptions::default();
    for (i, _) in text.char_indices() {
        let _ = read(&text[..i], Path::new("t.re"), &opts);
        let _ = read(&text[i..], Path::new("t.re"), &opts);
    }
}

// ---------------------------------------------------------------------------
// Codes

/// The codes of every finding in `text`, in order.
fn codes_of(text: &str) -> Vec<String> {
    read_all(text)
        .1
        .into_iter()
        .map(|f| f.code.into_owned())
        .collect()
}

#[test]
fn every_finding_carries_its_kind() {
    assert_eq!(codes_of("//imgae[a][b]\n"), ["unknown-block"]);
    assert_eq!(codes_of("a @<bb>{x} b\n"), ["unknown-command"]);
    assert_eq!(codes_of("//list[a][b]{\nx\n"), ["review-syntax"]);
    assert_eq!(codes_of("//list[a]{\nx\n//}\n"), ["review-syntax"]);
    assert_eq!(codes_of("#@require(a.rb)\n"), ["unsupported"]);
    assert_eq!(codes_of("//raw[|html|<p>x]\n"), ["html-repaired"]);
    assert_eq!(
        codes_of("a@<fn>{a}\n\n//footnote[a][x]\n//footnote[a][y]\n"),
        ["review-syntax"]
    );
    assert_eq!(codes_of("//footnote[a][x]\n"), ["unused-note"]);
}
