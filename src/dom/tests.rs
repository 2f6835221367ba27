use super::parse::MAX_DEPTH;
use super::*;

fn err(text: &str) -> ParseError {
    match parse_document(text) {
        Ok(doc) => panic!("expected an error, got {doc:?}"),
        Err(e) => e,
    }
}

fn frag_err(text: &str) -> ParseError {
    match parse_fragment(text) {
        Ok(nodes) => panic!("expected an error, got {nodes:?}"),
        Err(e) => e,
    }
}

fn at(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

const SAMPLE: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<!DOCTYPE html>\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"ja\" lang=\"ja\">\n\
<head>\n\
<title>吾輩は猫である</title>\n\
</head>\n\
<body>\n\
<section epub:type=\"chapter\">\n\
<!-- 第一章 -->\n\
<h1>一</h1>\n\
<p>吾輩は猫である。<br/>名前はまだ無い。</p>\n\
<ul>\n\
<li>どこで<ul>\n\
<li>生れたか</li>\n\
</ul></li>\n\
</ul>\n\
</section>\n\
</body>\n\
</html>\n";

#[test]
fn round_trip_full_document() {
    let doc = parse_document(SAMPLE).expect("parses");
    assert_eq!(doc.doctype.as_deref(), Some("html"));
    assert_eq!(doc.root.attr("xml:lang"), Some("ja"));
    assert_eq!(doc.root.pos, Some(at(3, 1)));
    let mut section = None;
    doc.root.walk(&mut |e| {
        if e.name == "section" {
            section = Some(e);
        }
    });
    let section = section.expect("section");
    assert_eq!(section.attr("epub:type"), Some("chapter"));
    assert!(
        section
            .children
            .contains(&Node::Comment(" 第一章 ".to_string()))
    );
    assert_eq!(serialize_document(&doc), SAMPLE);
    // And parsing the output gives the same tree (positions aside).
    let again = parse_document(&serialize_document(&doc)).expect("reparses");
    assert_eq!(serialize_document(&again), SAMPLE);
}

#[test]
fn golden_built_tree() {
    let body = Element::new("body").with_child(
        Element::new("section")
            .with_attr("epub:type", "chapter")
            .with_child(Element::new("h1").with_text("Title"))
            .with_child(
                Element::new("p")
                    .with_text("A ")
                    .with_child(Element::new("b").with_text("bold"))
                    .with_text(" & <done>"),
            )
            .with_child(Element::new("hr"))
            .with_child(Element::new("p"))
            .with_child(Element::new("pre").with_child(Element::new("code").with_text("x\n  y")))
            .with_child(
                Element::new("ul").with_child(Element::new("li").with_text("one").with_child(
                    Element::new("ul").with_child(Element::new("li").with_text("two")),
                )),
            ),
    );
    let html = Element::new("html")
        .with_attr("xmlns", "http://www.w3.org/1999/xhtml")
        .with_child(
            Element::new("head")
                .with_child(Element::new("title").with_text("T"))
                .with_child(
                    Element::new("link")
                        .with_attr("rel", "stylesheet")
                        .with_attr("href", "a.css"),
                ),
        )
        .with_child(body);
    let doc = Document {
        doctype: Some("html".into()),
        root: html,
    };
    let expected = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<!DOCTYPE html>\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\">\n\
<head>\n\
<title>T</title>\n\
<link rel=\"stylesheet\" href=\"a.css\"/>\n\
</head>\n\
<body>\n\
<section epub:type=\"chapter\">\n\
<h1>Title</h1>\n\
<p>A <b>bold</b> &amp; &lt;done&gt;</p>\n\
<hr/>\n\
<p></p>\n\
<pre><code>x\n  y</code></pre>\n\
<ul>\n\
<li>one<ul>\n\
<li>two</li>\n\
</ul></li>\n\
</ul>\n\
</section>\n\
</body>\n\
</html>\n";
    assert_eq!(serialize_document(&doc), expected);
    // Serializing the parsed output is stable.
    let reparsed = parse_document(expected).expect("parses");
    assert_eq!(serialize_document(&reparsed), expected);
}

#[test]
fn no_whitespace_added_to_mixed_or_verbatim_content() {
    let li = Element::new("li")
        .with_text("text")
        .with_child(Element::new("ul").with_child(Element::new("li").with_text("x")));
    // Whitespace goes inside the list, never between "text" and `<ul>`.
    assert_eq!(
        serialize_element(&li),
        "<li>text<ul>\n<li>x</li>\n</ul></li>"
    );
    let pre = Element::new("pre").with_child(Element::new("div").with_child(Element::new("p")));
    assert_eq!(serialize_element(&pre), "<pre><div><p></p></div></pre>");
    let span = Element::new("span").with_child(Element::new("div"));
    assert_eq!(serialize_element(&span), "<span><div></div></span>");
    let script = Element::new("script");
    assert_eq!(serialize_element(&script), "<script></script>");
}

#[test]
fn unclosed_element_in_multiline_input() {
    let e = err("<html>\n<body>\n<p>one\n    <b>two</p>\n</body>\n</html>");
    assert_eq!(e.pos, at(4, 11));
    assert_eq!(
        e.message,
        "`</b>` expected to close `<b>` opened at line 4, column 5, but found `</p>`"
    );
    assert!(e.to_string().starts_with("line 4, column 11: "));

    let e = frag_err("<p>\n  <b>bold\n</p>");
    assert_eq!(e.pos, at(3, 1));
    assert!(
        e.message.contains("opened at line 2, column 3"),
        "{}",
        e.message
    );

    let e = frag_err("a\n  <b>bold");
    assert_eq!(e.pos, at(2, 3));
    assert!(e.message.contains("`<b>` is never closed"), "{}", e.message);
}

#[test]
fn mismatched_end_tag_column_counts_characters() {
    let e = err("<html><p>日本語</div></p></html>");
    assert_eq!(e.pos, at(1, 13));
    assert!(e.message.contains("found `</div>`"));
    let e = frag_err("x</p>");
    assert_eq!(e.pos, at(1, 2));
    assert!(e.message.contains("closes nothing"));
}

#[test]
fn named_entities_are_rejected() {
    let e = err("<html>\n<p>a&nbsp;b</p></html>");
    assert_eq!(e.pos, at(2, 5));
    assert_eq!(
        e.message,
        "the entity `&nbsp;` is not defined in XHTML; write the character itself (U+00A0) or `&#160;`"
    );
    let e = frag_err("<p title=\"&copy; 2024\">x</p>");
    assert_eq!(e.pos, at(1, 11));
    assert!(e.message.contains("U+00A9"), "{}", e.message);
    let e = frag_err("ok\n &foo;");
    assert_eq!(e.pos, at(2, 2));
    assert!(
        e.message
            .starts_with("the entity `&foo;` is not defined in XHTML")
    );
    assert!(!e.message.contains("U+"));
    let e = frag_err("a & b");
    assert_eq!(e.pos, at(1, 3));
    assert!(e.message.contains("&amp;"));
}

#[test]
fn numeric_references_decode() {
    let nodes = parse_fragment("<p a=\"&#x41;&#10;\">&#160;&#x3042;&amp;&lt;&gt;&quot;&apos;</p>")
        .expect("parses");
    let Node::Element(p) = &nodes[0] else {
        panic!("not an element")
    };
    assert_eq!(p.attr("a"), Some("A\n"));
    assert_eq!(p.text_content(), "\u{a0}あ&<>\"'");
    assert_eq!(p.children.len(), 1, "references merge into one text node");
    for bad in [
        "&#xD800;",
        "&#1;",
        "&#x110000;",
        "&#99999999999;",
        "&#12a;",
        "&#;",
    ] {
        let e = frag_err(&format!("<p>{bad}</p>"));
        assert_eq!(e.pos, at(1, 4), "{bad}");
    }
}

#[test]
fn text_outside_root() {
    let e = err("<html></html>\n  oops");
    assert_eq!(e.pos, at(2, 3));
    assert!(e.message.contains("after the end of the root"));
    let e = err("<html></html><body/>");
    assert_eq!(e.pos, at(1, 14));
    assert!(e.message.contains("exactly one root"));
    let e = err("  \n<!-- nothing -->\n");
    assert!(e.message.contains("no root element"));
    assert_eq!(e.pos, at(3, 1));
}

#[test]
fn attribute_errors() {
    let e = frag_err("<p>\n<a href=\"x\" class=\"a\" href=\"y\">t</a></p>");
    assert_eq!(e.pos, at(2, 23));
    assert!(e.message.contains("`href` appears twice"), "{}", e.message);
    assert!(e.message.contains("line 2, column 4"), "{}", e.message);
    let e = frag_err("<input disabled/>");
    assert_eq!(e.pos, at(1, 8));
    assert!(e.message.contains("disabled=\"disabled\""), "{}", e.message);
    let e = frag_err("<p class=x>t</p>");
    assert!(e.message.contains("quotes"), "{}", e.message);
    let e = frag_err("<p title=\"a<b\">t</p>");
    assert_eq!(e.pos, at(1, 12));
}

#[test]
fn doctype_with_entities_is_rejected() {
    let e = err("<?xml version=\"1.0\"?>\n<!DOCTYPE html [<!ENTITY x \"y\">]>\n<html/>");
    assert_eq!(e.pos, at(2, 1));
    assert_eq!(
        e.message,
        "DOCTYPE declarations with entities are not allowed in XHTML"
    );
}

#[test]
fn fragments() {
    let nodes = parse_fragment("<b>x</b> and <i>y</i>").expect("parses");
    assert_eq!(
        nodes,
        vec![
            Node::from(Element {
                pos: Some(at(1, 1)),
                ..Element::new("b").with_text("x")
            }),
            Node::Text(" and ".into()),
            Node::from(Element {
                pos: Some(at(1, 14)),
                ..Element::new("i").with_text("y")
            }),
        ]
    );
    assert_eq!(serialize_nodes(&nodes), "<b>x</b> and <i>y</i>");

    let e = frag_err("<br>");
    assert_eq!(e.pos, at(1, 1));
    assert_eq!(
        e.to_string(),
        "line 1, column 1: `<br>` is never closed; in XHTML write it as `<br/>`"
    );

    let e = frag_err("<p>a<br>b</p>");
    assert!(e.message.contains("write it as `<br/>`"), "{}", e.message);

    assert_eq!(parse_fragment("").expect("empty"), vec![]);
    let nodes = parse_fragment("<![CDATA[a<b]]><?pi x?><!--c-->").expect("parses");
    assert_eq!(
        nodes,
        vec![Node::Text("a<b".into()), Node::Comment("c".into())]
    );
    assert_eq!(serialize_nodes(&nodes), "a&lt;b<!--c-->");
}

#[test]
fn attribute_escaping() {
    let el = Element::new("img")
        .with_attr("alt", "say \"hi\" <now> & then\nnext\ttab\r")
        .with_attr("src", "a.png");
    let out = serialize_element(&el);
    assert_eq!(
        out,
        "<img alt=\"say &quot;hi&quot; &lt;now&gt; &amp; then&#10;next&#9;tab&#13;\" src=\"a.png\"/>"
    );
    let back = parse_fragment(&out).expect("parses");
    assert_eq!(
        back,
        vec![Node::from(Element {
            pos: Some(at(1, 1)),
            ..el
        })]
    );
    // Literal line breaks in attribute values are normalized, as XML requires.
    let nodes = parse_fragment("<a title='x\r\ny\tz'/>").expect("parses");
    let Node::Element(a) = &nodes[0] else {
        panic!("not an element")
    };
    assert_eq!(a.attr("title"), Some("x y z"));
}

#[test]
fn comments_and_control_characters_are_sanitized() {
    let el = Element::new("div")
        .with_child(Node::Comment("a -- b -".into()))
        .with_text("bad\u{1}char");
    let out = serialize_element(&el);
    assert_eq!(out, "<div><!--a - - b - -->bad\u{FFFD}char</div>");
    assert!(parse_fragment(&out).is_ok());
    let e = frag_err("<p>a\u{7}</p>");
    assert_eq!(e.pos, at(1, 5));
}

#[test]
fn walk_and_walk_mut() {
    let mut root = parse_fragment("<div><p>a<em>b</em></p><p>c</p></div>")
        .expect("parses")
        .remove(0);
    let Node::Element(div) = &mut root else {
        panic!("not an element")
    };
    let mut names = Vec::new();
    div.walk(&mut |e| names.push(e.name.as_str()));
    assert_eq!(names, ["div", "p", "em", "p"]);
    div.walk_mut(&mut |e| {
        if e.name == "p" {
            e.add_class("para");
        }
    });
    assert_eq!(
        serialize_element(div),
        "<div>\n<p class=\"para\">a<em>b</em></p>\n<p class=\"para\">c</p>\n</div>"
    );
    assert_eq!(div.text_content(), "abc");
}

#[test]
fn classes_and_attributes() {
    let mut el = Element::new("p").with_attr("class", "  note  big ");
    assert!(el.has_class("note"));
    assert!(el.has_class("big"));
    assert!(!el.has_class("no"));
    assert!(!el.has_class("not"));
    el.add_class("big");
    assert_eq!(el.attr("class"), Some("  note  big "));
    el.add_class("x");
    assert_eq!(el.attr("class"), Some("  note  big x"));
    let mut plain = Element::new("p");
    plain.add_class("first");
    assert_eq!(plain.attr("class"), Some("first"));
    plain.set_attr("id", "a");
    plain.set_attr("class", "second");
    assert_eq!(
        plain.attrs,
        vec![("class".into(), "second".into()), ("id".into(), "a".into())]
    );
    assert_eq!(plain.remove_attr("class"), Some("second".into()));
    assert_eq!(plain.remove_attr("class"), None);
    let mut t = Element::new("p");
    t.push_text("a");
    t.push_text("b");
    t.push(Element::new("br"));
    t.push_text("");
    t.push("c");
    assert_eq!(t.children.len(), 3);
    assert_eq!(t.text_content(), "abc");
}

#[test]
fn hostile_inputs_do_not_panic() {
    let deep = "<a>".repeat(MAX_DEPTH + 5);
    assert!(frag_err(&deep).message.contains("nested"));
    for s in [
        "<",
        "<>",
        "</>",
        "<a",
        "<!",
        "<!--",
        "<![CDATA[",
        "<?",
        "&",
        "&#",
        "&#x;",
        "<a b",
        "<a b=",
        "<a b='",
        "<!DOCTYPE",
        "<a/><",
        "</>",
        "\u{feff}<a/>",
        "< b>",
        "<a>日本\r\n語",
        "<é/>",
    ] {
        let _ = parse_fragment(s);
        let _ = parse_document(s);
    }
}
