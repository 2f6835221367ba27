use super::*;
use crate::dom::serialize_element;

/// The children of the `math` element, serialized.
fn inner(tex: &str) -> String {
    let math = to_mathml(tex, Display::Inline).unwrap_or_else(|e| panic!("{tex}: {e}"));
    math.children
        .iter()
        .map(|n| match n {
            crate::dom::Node::Element(e) => serialize_element(e),
            other => panic!("{tex}: a bare node {other:?}"),
        })
        .collect()
}

fn fails(tex: &str) -> MathError {
    to_mathml(tex, Display::Inline).expect_err(tex)
}

#[test]
fn the_math_element_carries_the_namespace_the_display_and_the_tex() {
    let m = to_mathml("x  +\n y", Display::Block).unwrap();
    assert_eq!(
        serialize_element(&m),
        r#"<math xmlns="http://www.w3.org/1998/Math/MathML" display="block" alttext="x + y"><mi>x</mi><mo>+</mo><mi>y</mi></math>"#
    );
    let m = to_mathml("a<b", Display::Inline).unwrap();
    assert_eq!(
        serialize_element(&m),
        r#"<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="a&lt;b"><mi>a</mi><mo>&lt;</mo><mi>b</mi></math>"#
    );
}

#[test]
fn numbers_identifiers_and_operators() {
    assert_eq!(
        inner("3.14r - 2*x"),
        "<mn>3.14</mn><mi>r</mi><mo>−</mo><mn>2</mn><mo>∗</mo><mi>x</mi>"
    );
    assert_eq!(
        inner("f(x), .5"),
        r#"<mi>f</mi><mo stretchy="false">(</mo><mi>x</mi><mo stretchy="false">)</mo><mo>,</mo><mn>.5</mn>"#
    );
    // A full stop ends a number that no digit follows.
    assert_eq!(inner("1."), "<mn>1</mn><mo>.</mo>");
}

#[test]
fn scripts_take_one_token_or_a_group() {
    assert_eq!(
        inner("E=mc^2"),
        "<mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup>"
    );
    assert_eq!(inner("x^12"), "<msup><mi>x</mi><mn>1</mn></msup><mn>2</mn>");
    assert_eq!(
        inner("a_{ij}^{-1}"),
        "<msubsup><mi>a</mi><mrow><mi>i</mi><mi>j</mi></mrow><mrow><mo>−</mo><mn>1</mn></mrow></msubsup>"
    );
    assert_eq!(inner("x^\\alpha"), "<msup><mi>x</mi><mi>α</mi></msup>");
    assert_eq!(
        inner("{}^{14}C"),
        "<msup><mrow></mrow><mn>14</mn></msup><mi>C</mi>"
    );
    assert_eq!(inner("f'"), "<msup><mi>f</mi><mo>′</mo></msup>");
    assert_eq!(
        inner("f''^2"),
        "<msup><mi>f</mi><mrow><mo>″</mo><mn>2</mn></mrow></msup>"
    );
}

#[test]
fn fractions_binomials_and_roots() {
    assert_eq!(
        inner("\\frac{a+b}{2}"),
        "<mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></mfrac>"
    );
    assert_eq!(inner("\\frac12"), "<mfrac><mn>1</mn><mn>2</mn></mfrac>");
    assert_eq!(
        inner("\\dfrac{1}{x}"),
        r#"<mstyle displaystyle="true"><mfrac><mn>1</mn><mi>x</mi></mfrac></mstyle>"#
    );
    assert_eq!(inner("{a \\over b}"), "<mfrac><mi>a</mi><mi>b</mi></mfrac>");
    assert_eq!(
        inner("\\binom{n}{k}"),
        r#"<mrow><mo>(</mo><mfrac linethickness="0"><mi>n</mi><mi>k</mi></mfrac><mo>)</mo></mrow>"#
    );
    assert_eq!(
        inner("\\sqrt{x^2+1}"),
        "<msqrt><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>1</mn></mrow></msqrt>"
    );
    assert_eq!(inner("\\sqrt[3]{8}"), "<mroot><mn>8</mn><mn>3</mn></mroot>");
}

#[test]
fn greek_letters_and_symbols() {
    assert_eq!(
        inner("\\alpha\\varepsilon\\Gamma\\infty"),
        r#"<mi>α</mi><mi>ε</mi><mi mathvariant="normal">Γ</mi><mi>∞</mi>"#
    );
    assert_eq!(
        inner("a\\leq b\\neq c\\to d\\Rightarrow e\\cdot f\\times g\\pm h\\in A"),
        "<mi>a</mi><mo>≤</mo><mi>b</mi><mo>≠</mo><mi>c</mi><mo>→</mo><mi>d</mi><mo>⇒</mo><mi>e</mi><mo>⋅</mo><mi>f</mi><mo>×</mo><mi>g</mi><mo>±</mo><mi>h</mi><mo>∈</mo><mi>A</mi>"
    );
    assert_eq!(
        inner("\\cdots\\vdots\\ddots\\ldots"),
        "<mo>⋯</mo><mo>⋮</mo><mo>⋱</mo><mo>…</mo>"
    );
    assert_eq!(inner("a \\not= b"), "<mi>a</mi><mo>≠</mo><mi>b</mi>");
    assert_eq!(inner("\\not\\in"), "<mo>∉</mo>");
    assert_eq!(inner("\\not\\perp"), "<mo>⊥\u{338}</mo>");
}

#[test]
fn large_operators_take_limits_above_and_below_integrals_to_the_side() {
    assert_eq!(
        inner("\\sum_{i=1}^nf_n(x)"),
        r#"<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover><msub><mi>f</mi><mi>n</mi></msub><mo stretchy="false">(</mo><mi>x</mi><mo stretchy="false">)</mo>"#
    );
    assert_eq!(
        inner("\\int_0^1"),
        "<msubsup><mo>∫</mo><mn>0</mn><mn>1</mn></msubsup>"
    );
    assert_eq!(
        inner("\\int\\limits_0^1"),
        "<munderover><mo>∫</mo><mn>0</mn><mn>1</mn></munderover>"
    );
    assert_eq!(
        inner("\\sum\\nolimits_k"),
        "<msub><mo>∑</mo><mi>k</mi></msub>"
    );
    assert_eq!(
        inner("\\lim_{x\\to0}"),
        r#"<munder><mo movablelimits="true" form="prefix">lim</mo><mrow><mi>x</mi><mo>→</mo><mn>0</mn></mrow></munder>"#
    );
    assert_eq!(inner("\\prod_k"), "<munder><mo>∏</mo><mi>k</mi></munder>");
}

#[test]
fn functions_are_upright_and_applied() {
    assert_eq!(
        inner("\\sin x"),
        r#"<mi>sin</mi><mo>⁡</mo><mspace width="0.1667em"></mspace><mi>x</mi>"#
    );
    assert_eq!(inner("\\log(x)").matches("mspace").count(), 0);
    assert_eq!(
        inner("\\sinh^{-1} x"),
        r#"<msup><mi>sinh</mi><mrow><mo>−</mo><mn>1</mn></mrow></msup><mo>⁡</mo><mspace width="0.1667em"></mspace><mi>x</mi>"#
    );
    assert_eq!(inner("\\cos"), "<mi>cos</mi>");
    assert_eq!(
        inner("\\operatorname{sgn} x"),
        r#"<mi>sgn</mi><mo>⁡</mo><mspace width="0.1667em"></mspace><mi>x</mi>"#
    );
    assert_eq!(
        inner("\\operatorname*{argmax}_x"),
        r#"<munder><mo movablelimits="true" form="prefix">argmax</mo><mi>x</mi></munder>"#
    );
}

#[test]
fn fences_stretch_and_big_sizes() {
    assert_eq!(
        inner("\\left( \\frac{a}{b} \\right)"),
        r#"<mrow><mo stretchy="true">(</mo><mfrac><mi>a</mi><mi>b</mi></mfrac><mo stretchy="true">)</mo></mrow>"#
    );
    assert_eq!(
        inner("\\left\\{ x \\middle| y \\right."),
        r#"<mrow><mo stretchy="true">{</mo><mi>x</mi><mo stretchy="true">|</mo><mi>y</mi></mrow>"#
    );
    assert_eq!(
        inner("\\left\\langle v\\right\\rangle^2"),
        r#"<msup><mrow><mo stretchy="true">⟨</mo><mi>v</mi><mo stretchy="true">⟩</mo></mrow><mn>2</mn></msup>"#
    );
    assert_eq!(
        inner("\\Bigl("),
        r#"<mo stretchy="true" minsize="1.8em" maxsize="1.8em">(</mo>"#
    );
    assert_eq!(
        inner("\\{x\\}"),
        r#"<mo stretchy="false">{</mo><mi>x</mi><mo stretchy="false">}</mo>"#
    );
}

#[test]
fn fonts_use_unicode_letters_and_text_is_mtext() {
    assert_eq!(inner("\\mathbb{R}"), "<mi>ℝ</mi>");
    assert_eq!(inner("\\mathbf{v}"), "<mi>𝐯</mi>");
    assert_eq!(inner("\\mathbf{x1}"), "<mrow><mi>𝐱</mi><mn>𝟏</mn></mrow>");
    assert_eq!(inner("\\mathcal{L}\\mathcal{A}"), "<mi>ℒ</mi><mi>𝒜</mi>");
    assert_eq!(inner("\\mathit{h}"), "<mi>ℎ</mi>");
    assert_eq!(inner("\\mathfrak{g}"), "<mi>𝔤</mi>");
    assert_eq!(
        inner("\\mathrm{d}x"),
        r#"<mi mathvariant="normal">d</mi><mi>x</mi>"#
    );
    assert_eq!(inner("\\mathrm{max}"), "<mi>max</mi>");
    assert_eq!(
        inner("\\mathbf{\\alpha}"),
        r#"<mi mathvariant="bold">α</mi>"#
    );
    // A switch lasts to the end of its group.
    assert_eq!(inner("{\\bf a} b"), "<mi>𝐚</mi><mi>b</mi>");
    assert_eq!(
        inner("x \\text{ if } x>0"),
        "<mi>x</mi><mtext>\u{a0}if\u{a0}</mtext><mi>x</mi><mo>&gt;</mo><mn>0</mn>"
    );
    assert_eq!(inner("\\text{a\\{b\\}}"), "<mtext>a{b}</mtext>");
    assert_eq!(
        inner("\\textbf{速度}"),
        r#"<mtext mathvariant="bold">速度</mtext>"#
    );
}

#[test]
fn accents_over_and_under() {
    assert_eq!(
        inner("\\hat{x}"),
        r#"<mover accent="true"><mi>x</mi><mo stretchy="false">^</mo></mover>"#
    );
    assert_eq!(
        inner("\\vec v"),
        r#"<mover accent="true"><mi>v</mi><mo stretchy="false">→</mo></mover>"#
    );
    assert_eq!(
        inner("\\overline{AB}"),
        r#"<mover accent="true"><mrow><mi>A</mi><mi>B</mi></mrow><mo stretchy="true">‾</mo></mover>"#
    );
    assert_eq!(
        inner("\\underline{x}"),
        r#"<munder accentunder="true"><mi>x</mi><mo stretchy="true">_</mo></munder>"#
    );
    assert_eq!(
        inner("\\bar x\\dot y\\tilde z"),
        r#"<mover accent="true"><mi>x</mi><mo stretchy="false">¯</mo></mover><mover accent="true"><mi>y</mi><mo stretchy="false">˙</mo></mover><mover accent="true"><mi>z</mi><mo stretchy="false">~</mo></mover>"#
    );
    assert_eq!(
        inner("\\underbrace{a+b}_{n}"),
        "<munder><munder><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mo>⏟</mo></munder><mi>n</mi></munder>"
    );
    assert_eq!(
        inner("\\overset{\\text{def}}{=}"),
        "<mover><mo>=</mo><mtext>def</mtext></mover>"
    );
}

#[test]
fn spacing() {
    assert_eq!(
        inner("a\\,b\\;c\\quad d\\!e\\ f~g"),
        r#"<mi>a</mi><mspace width="0.1667em"></mspace><mi>b</mi><mspace width="0.2778em"></mspace><mi>c</mi><mspace width="1em"></mspace><mi>d</mi><mspace width="-0.1667em"></mspace><mi>e</mi><mtext> </mtext><mi>f</mi><mtext> </mtext><mi>g</mi>"#
    );
    assert_eq!(inner("\\hspace{2em}"), r#"<mspace width="2em"></mspace>"#);
    assert_eq!(inner("\\hspace{9mu}"), r#"<mspace width="0.5em"></mspace>"#);
    assert_eq!(inner("\\qquad"), r#"<mspace width="2em"></mspace>"#);
}

#[test]
fn style_switches_wrap_the_rest_of_their_group() {
    assert_eq!(
        inner("\\displaystyle\\sum_{i=1}^n"),
        r#"<mstyle displaystyle="true"><munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover></mstyle>"#
    );
    assert_eq!(
        inner("a{\\textstyle b}c"),
        r#"<mi>a</mi><mstyle displaystyle="false"><mi>b</mi></mstyle><mi>c</mi>"#
    );
}

#[test]
fn arrays_with_fences_and_dots() {
    let tex = "A = \\left(\n\\begin{array}{ccc}\na_{11} & \\cdots & a_{1n} \\\\\n\\vdots & \\ddots & \\vdots \\\\\na_{m1} & \\cdots & a_{mn}\n\\end{array}\n\\right)";
    let got = inner(tex);
    assert!(
        got.starts_with(r#"<mi>A</mi><mo>=</mo><mrow><mo stretchy="true">(</mo><mtable columnalign="center center center"><mtr><mtd><msub><mi>a</mi><mn>11</mn></msub></mtd><mtd><mo>⋯</mo></mtd>"#),
        "{got}"
    );
    assert_eq!(got.matches("<mtr>").count(), 3, "{got}");
    assert_eq!(got.matches("<mtd>").count(), 9, "{got}");
    assert!(
        got.ends_with(r#"</mtable><mo stretchy="true">)</mo></mrow>"#),
        "{got}"
    );
}

#[test]
fn array_rules_from_the_column_spec_and_hline() {
    assert_eq!(
        inner("\\begin{array}{l|r}a&b\\\\\\hline c&d\\\\\\end{array}"),
        r#"<mtable columnalign="left right" columnlines="solid" rowlines="solid"><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr><mtr><mtd><mi>c</mi></mtd><mtd><mi>d</mi></mtd></mtr></mtable>"#
    );
}

#[test]
fn matrices_cases_and_alignments() {
    assert_eq!(
        inner("\\begin{pmatrix}1&0\\\\0&1\\end{pmatrix}"),
        "<mrow><mo>(</mo><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable><mo>)</mo></mrow>"
    );
    assert!(inner("\\begin{bmatrix}a\\end{bmatrix}").starts_with("<mrow><mo>[</mo><mtable>"));
    assert!(inner("\\begin{vmatrix}a\\end{vmatrix}").ends_with("</mtable><mo>|</mo></mrow>"));
    assert_eq!(
        inner("\\begin{matrix}a\\end{matrix}"),
        "<mtable><mtr><mtd><mi>a</mi></mtd></mtr></mtable>"
    );
    assert_eq!(
        inner("|x| = \\begin{cases} x & x \\geq 0 \\\\ -x & \\text{otherwise} \\end{cases}"),
        r#"<mo stretchy="false">|</mo><mi>x</mi><mo stretchy="false">|</mo><mo>=</mo><mrow><mo>{</mo><mtable columnalign="left left"><mtr><mtd><mi>x</mi></mtd><mtd><mi>x</mi><mo>≥</mo><mn>0</mn></mtd></mtr><mtr><mtd><mo>−</mo><mi>x</mi></mtd><mtd><mtext>otherwise</mtext></mtd></mtr></mtable></mrow>"#
    );
    assert_eq!(
        inner("\\begin{aligned} a &= b \\\\ &= c \\end{aligned}"),
        r#"<mtable columnalign="right left" columnspacing="0em" displaystyle="true"><mtr><mtd><mi>a</mi></mtd><mtd><mo>=</mo><mi>b</mi></mtd></mtr><mtr><mtd></mtd><mtd><mo>=</mo><mi>c</mi></mtd></mtr></mtable>"#
    );
    assert!(
        inner("\\begin{align*} x &= 1 \\nonumber \\\\[2pt] y &= 2 \\end{align*}")
            .matches("<mtr>")
            .count()
            == 2
    );
    assert_eq!(
        inner("\\sum_{\\substack{i<n\\\\j<m}}"),
        r#"<munder><mo>∑</mo><mtable displaystyle="false"><mtr><mtd><mi>i</mi><mo>&lt;</mo><mi>n</mi></mtd></mtr><mtr><mtd><mi>j</mi><mo>&lt;</mo><mi>m</mi></mtd></mtr></mtable></munder>"#
    );
}

#[test]
fn misc_commands() {
    assert_eq!(inner("a \\bmod b"), "<mi>a</mi><mo>mod</mo><mi>b</mi>");
    assert_eq!(
        inner("\\boxed{1}"),
        r#"<menclose notation="box"><mn>1</mn></menclose>"#
    );
    assert_eq!(inner("% a comment\nx"), "<mi>x</mi>");
    assert_eq!(
        inner("x_\\mathrm{max}"),
        "<msub><mi>x</mi><mi>max</mi></msub>"
    );
}

#[test]
fn what_is_not_converted_is_an_error_at_its_offset() {
    let e = fails("x + \\foo{y}");
    assert_eq!(
        (e.offset, e.to_string().as_str()),
        (4, "`\\foo` is not a command seihon converts to MathML")
    );
    let e = fails("\\frac{a}{b");
    assert_eq!((e.offset, e.kind), (8, ErrorKind::Unclosed));
    assert_eq!(fails("a}").kind, ErrorKind::UnmatchedClose);
    assert_eq!(fails("a}").offset, 1);
    assert_eq!(fails("\\left( x").kind, ErrorKind::UnclosedLeft);
    assert_eq!(fails("x \\right)").kind, ErrorKind::UnmatchedRight);
    assert_eq!(fails("x^1^2").kind, ErrorKind::DoubleScript("super"));
    assert_eq!(fails("x_1_2").offset, 3);
    assert_eq!(fails("a & b").kind, ErrorKind::OutsideTable("&".into()));
    assert_eq!(
        fails("a \\\\ b").kind,
        ErrorKind::OutsideTable("\\\\".into())
    );
    assert_eq!(
        fails("\\begin{foo}x\\end{foo}").kind,
        ErrorKind::UnknownEnvironment("foo".into())
    );
    assert_eq!(
        fails("\\begin{matrix}x\\end{pmatrix}").kind,
        ErrorKind::WrongEnd {
            open: "matrix".into(),
            found: "pmatrix".into()
        }
    );
    assert_eq!(
        fails("\\begin{matrix}x").kind,
        ErrorKind::UnclosedEnvironment("matrix".into())
    );
    assert_eq!(
        fails("\\frac{a}").kind,
        ErrorKind::MissingArgument("\\frac".into())
    );
    assert_eq!(fails("x^").kind, ErrorKind::MissingArgument("^".into()));
    assert_eq!(
        fails("\\left x \\right)").kind,
        ErrorKind::NotADelimiter("x".into())
    );
    assert_eq!(
        fails("x\\limits").kind,
        ErrorKind::LimitsWithoutOperator("limits".into())
    );
    assert_eq!(fails("\\text{$x$}").offset, 6);
    assert_eq!(
        fails("\\color{red} x").kind,
        ErrorKind::UnknownCommand("color".into())
    );
    assert_eq!(fails("\\begin{array}{p{2cm}}x\\end{array}").offset, 14);
    assert_eq!(fails("x\\").kind, ErrorKind::TrailingBackslash);
    assert_eq!(fails("\\sqrt[3{x}").kind, ErrorKind::UnclosedBracket);
}

/// However deep the nesting, an error and never a stack overflow, for each way of nesting.
#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let n = 5000;
    for tex in [
        format!("{}x{}", "{".repeat(n), "}".repeat(n)),
        "\\frac".repeat(n),
        "\\sqrt".repeat(n) + "x",
        "x^{".repeat(n),
        "\\left(".repeat(n),
        "\\displaystyle".repeat(n),
        "a\\over ".repeat(n),
        "\\begin{matrix}".repeat(n),
        "\\hat".repeat(n) + "x",
        "\\not".repeat(n) + "=",
        "\\sqrt[".repeat(n),
    ] {
        let e = fails(&tex);
        assert!(
            matches!(e.kind, ErrorKind::TooDeep),
            "{}…: {e:?}",
            &tex[..20]
        );
    }
    // Within the bound, nesting converts.
    let ok = format!("{}x{}", "{".repeat(20), "}".repeat(20));
    assert_eq!(inner(&ok), "<mi>x</mi>");
}

/// Every error is an error, never a panic, whatever the bytes.
#[test]
fn arbitrary_tex_never_panics() {
    let pieces = [
        "{",
        "}",
        "^",
        "_",
        "&",
        "\\\\",
        "\\left",
        "\\right",
        "(",
        ")",
        "\\frac",
        "\\sqrt",
        "[",
        "]",
        "\\begin{matrix}",
        "\\end{matrix}",
        "\\text{",
        "x",
        "1",
        "'",
        "\\hline",
        "\\over",
        "\\middle|",
        "\\not",
        "\\limits",
        "\\mathbf",
        "\\bf",
        "\\displaystyle",
        "\\\\[",
        "α",
        "\\",
        "%",
        "\\operatorname",
        "\\begin{array}{c|",
        "\\hspace{",
        ".",
    ];
    // A fixed linear congruential sequence: the same cases every run.
    let mut seed: u64 = 0x5EED;
    for _ in 0..3000 {
        let mut tex = String::new();
        for _ in 0..(seed % 12) {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            tex.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if let Err(e) = to_mathml(&tex, Display::Block) {
            assert!(e.offset <= tex.len(), "{tex}: {e:?}");
        }
    }
}
