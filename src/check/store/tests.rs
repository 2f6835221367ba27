use super::rules::css_urls;
use super::*;

#[test]
fn style_sheet_urls_are_found_with_their_positions() {
    let css = "@import \"https://a.example/x.css\";\nbody { background: url( 'img/b.png' ) }\n@import url(//c.example/y.css);";
    let urls = css_urls(css);
    assert_eq!(
        urls,
        vec![
            (1, 1, "https://a.example/x.css".to_string()),
            (2, 20, "img/b.png".to_string()),
            (3, 1, "//c.example/y.css".to_string()),
        ]
    );
}

#[test]
fn profiles_are_named_as_users_write_them() {
    use clap::ValueEnum;
    let names: Vec<_> = Profile::value_variants().iter().map(|p| p.name()).collect();
    assert_eq!(names, ["kdp", "apple", "kobo", "ebpaj"]);
    for p in Profile::value_variants() {
        assert_eq!(Profile::from_str(p.name(), false), Ok(*p));
    }
}

#[test]
fn a_tree_without_a_package_document_has_no_store_findings() {
    let tree = Tree::from([("mimetype".to_string(), b"application/epub+zip".to_vec())]);
    assert!(lint(&tree, &[Profile::Kdp, Profile::Ebpaj], None).is_empty());
}
