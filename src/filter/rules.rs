//! Declarative rule files: `filters/<name>.yml`.
//!
//! A rule file is a list of rules. Each rule matches elements and changes them:
//!
//! ```yaml
//! rules:
//!   - match:                      # every key optional; no `match` matches every element
//!       element: p                # the element's name; "*" for any
//!       class: caption            # has this class (several, space-separated: has them all)
//!       attribute: data-x         # has this attribute; "name=value" for an exact value
//!       ancestor: div.note        # is inside "element", "element.class" or ".class"
//!     add_class: [a, b]           # a list, or one word
//!     remove_class: [c]
//!     set_attribute: {name: value}
//!     remove_attribute: [x]
//!     rename: span
//!     wrap: div.box               # wrap the element in a new element ("element.class")
//!     unwrap: true                # replace the element by its children
//!     remove: true                # delete the element and its content
//!     insert_before: {text: "※"}  # or {element: span.mark, text: "…"}, or {element: br}
//!     insert_after: {text: "）"}
//!     prepend: {element: span.mark, text: "注"}   # as first child
//!     append: {text: "。"}                        # as last child
//! ```
//!
//! Rules apply in order, each over the whole document, depth first in document order. Within
//! one rule, whether an element matches is decided on the document as the previous rule left it
//! (an ancestor renamed by this rule still matches by its old name), and what the rule inserts
//! or wraps around is not matched again by the same rule. The actions on one element happen in
//! this order: classes and attributes, rename, prepend and append, then one of remove, unwrap or
//! wrap, then insert before and after. The document's root element is never removed, unwrapped,
//! wrapped or given siblings.
//!
//! Mistakes are findings at the file, line and column: an unknown key (with the nearest valid
//! key), a rule with no action, a bad element or class name, contradictory actions.
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::codes::{self, Code};
use crate::dom::{Document, Element, Node};
use crate::error::{Finding, Location};

use super::{Filter, FilterContext, FilterError};

// ---------------------------------------------------------------------------
// The file as written

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    rules: Vec<Spanned<RuleSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    #[serde(rename = "match", default)]
    matcher: Option<MatchSpec>,
    #[serde(default)]
    add_class: Option<Spanned<Words>>,
    #[serde(default)]
    remove_class: Option<Spanned<Words>>,
    #[serde(default)]
    set_attribute: Option<Spanned<Pairs>>,
    #[serde(default)]
    remove_attribute: Option<Spanned<Words>>,
    #[serde(default)]
    rename: Option<Spanned<String>>,
    #[serde(default)]
    wrap: Option<Spanned<String>>,
    #[serde(default)]
    unwrap: bool,
    #[serde(default)]
    remove: bool,
    #[serde(default)]
    insert_before: Option<Spanned<InsertSpec>>,
    #[serde(default)]
    insert_after: Option<Spanned<InsertSpec>>,
    #[serde(default)]
    prepend: Option<Spanned<InsertSpec>>,
    #[serde(default)]
    append: Option<Spanned<InsertSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchSpec {
    #[serde(default)]
    element: Option<Spanned<String>>,
    #[serde(default)]
    class: Option<Spanned<String>>,
    #[serde(default)]
    attribute: Option<Spanned<String>>,
    #[serde(default)]
    ancestor: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InsertSpec {
    #[serde(default)]
    element: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

/// A list of words, written as a YAML list or as one string (`a b` is two words).
#[derive(Debug, Default)]
struct Words(Vec<String>);

impl<'de> Deserialize<'de> for Words {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Words;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a word or a list of words")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Words, E> {
                Ok(Words(s.split_whitespace().map(str::to_string).collect()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Words, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.extend(s.split_whitespace().map(str::to_string));
                }
                Ok(Words(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping of names to text, in the order written.
#[derive(Debug, Default)]
struct Pairs(Vec<(String, String)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of attribute names to values, such as {title: 注}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut out: Vec<(String, String)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    match out.iter_mut().find(|(n, _)| *n == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V)
    }
}

// ---------------------------------------------------------------------------
// Checked rules

/// An element name with classes: `div`, `div.note`, `.note`, `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Selector {
    /// `None`: any element.
    element: Option<String>,
    classes: Vec<String>,
}

impl Selector {
    fn parse(s: &str) -> Result<Selector, String> {
        let s = s.trim();
        let mut parts = s.split('.');
        let name = parts.next().unwrap_or("");
        let classes: Vec<String> = parts.map(str::to_string).collect();
        if classes
            .iter()
            .any(|c| c.is_empty() || c.contains(char::is_whitespace))
        {
            return Err(format!(
                "`{s}` is not a valid selector; write `element`, `element.class` or `.class`"
            ));
        }
        let element = match name {
            "" | "*" => None,
            n if is_name(n) => Some(n.to_string()),
            n => return Err(format!("`{n}` is not a valid element name")),
        };
        if element.is_none() && classes.is_empty() && name.is_empty() {
            return Err("an empty selector; write `element`, `element.class` or `.class`".into());
        }
        Ok(Selector { element, classes })
    }

    fn matches(&self, name: &str, has_class: impl Fn(&str) -> bool) -> bool {
        self.element.as_deref().is_none_or(|e| e == name)
            && self.classes.iter().all(|c| has_class(c))
    }

    /// A new element for `wrap` and insertions.
    fn make(&self) -> Element {
        let mut e = Element::new(self.element.clone().unwrap_or_else(|| "span".into()));
        if !self.classes.is_empty() {
            e.set_attr("class", self.classes.join(" "));
        }
        e
    }
}

/// Approximates the XML `Name` production.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

#[derive(Debug, Default)]
struct Matcher {
    element: Option<String>,
    classes: Vec<String>,
    attribute: Option<(String, Option<String>)>,
    ancestor: Option<Selector>,
}

/// What the rule knows of an ancestor: its name and classes before the rule changed it.
struct Ancestor {
    name: String,
    classes: Vec<String>,
}

impl Ancestor {
    fn of(e: &Element) -> Self {
        Ancestor {
            name: e.name.clone(),
            classes: e
                .attr("class")
                .map(|v| v.split_ascii_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
        }
    }
}

impl Matcher {
    fn matches(&self, e: &Element, ancestors: &[Ancestor]) -> bool {
        self.element.as_deref().is_none_or(|n| n == e.name)
            && self.classes.iter().all(|c| e.has_class(c))
            && self
                .attribute
                .as_ref()
                .is_none_or(|(name, value)| match (e.attr(name), value) {
                    (Some(_), None) => true,
                    (Some(have), Some(want)) => have == want,
                    (None, _) => false,
                })
            && self.ancestor.as_ref().is_none_or(|sel| {
                ancestors
                    .iter()
                    .any(|a| sel.matches(&a.name, |c| a.classes.iter().any(|x| x == c)))
            })
    }
}

#[derive(Debug, Default)]
struct Actions {
    add_class: Vec<String>,
    remove_class: Vec<String>,
    set_attribute: Vec<(String, String)>,
    remove_attribute: Vec<String>,
    rename: Option<String>,
    wrap: Option<Selector>,
    unwrap: bool,
    remove: bool,
    insert_before: Option<Node>,
    insert_after: Option<Node>,
    prepend: Option<Node>,
    append: Option<Node>,
}

#[derive(Debug)]
struct Rule {
    matcher: Matcher,
    actions: Actions,
}

/// A rule file, checked and ready to apply.
#[derive(Debug)]
pub struct RuleFilter {
    name: String,
    rules: Vec<Rule>,
}

fn loc(file: &Path, l: &serde_saphyr::Location) -> Location {
    Location::new(file, l.line() as u32, l.column() as u32)
}

impl RuleFilter {
    /// Reads and checks `file` (shown as `shown` in findings).
    pub fn load(name: &str, file: &Path, shown: &Path) -> Result<RuleFilter, Vec<Finding>> {
        let text = std::fs::read_to_string(file).map_err(|e| {
            vec![Finding::error(
                codes::SETTINGS_SYNTAX,
                Location::file(shown),
                format!("cannot read the rule file: {e}"),
            )]
        })?;
        RuleFilter::parse(name, &text, shown)
    }

    /// Parses and checks a rule file's text; `file` names it in findings.
    pub fn parse(name: &str, text: &str, file: &Path) -> Result<RuleFilter, Vec<Finding>> {
        let blank = text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
        if blank {
            return Err(vec![
                Finding::error(
                    codes::MISSING_KEY,
                    Location::file(file),
                    "the rule file has no rules",
                )
                .with_hint("start it with `rules:` and a list of rules; see filters/README.md"),
            ]);
        }
        let parsed: RuleFile = parse_yaml(text, file).map_err(|f| vec![f])?;
        let mut rules = Vec::new();
        let mut findings = Vec::new();
        for spec in parsed.rules {
            match check_rule(spec, file) {
                Ok(rule) => rules.push(rule),
                Err(mut f) => findings.append(&mut f),
            }
        }
        if findings.is_empty() {
            Ok(RuleFilter {
                name: name.to_string(),
                rules,
            })
        } else {
            Err(findings)
        }
    }
}

/// Checks one rule as written: a rule ready to apply, or every mistake in it.
fn check_rule(spec: Spanned<RuleSpec>, file: &Path) -> Result<Rule, Vec<Finding>> {
    let at = loc(file, &spec.referenced);
    let mut s = spec.value;
    let mut check = Checker {
        file,
        findings: Vec::new(),
    };
    let matcher = s
        .matcher
        .take()
        .map(|m| check.matcher(m))
        .unwrap_or_default();
    let actions = check.actions(s);
    // Whether the actions make sense together is asked only of actions that are each right.
    if check.findings.is_empty()
        && let Some(f) = contradiction(&actions, &at)
    {
        check.findings.push(f);
    }
    if check.findings.is_empty() {
        Ok(Rule { matcher, actions })
    } else {
        Err(check.findings)
    }
}

/// Checks the parts of one rule, collecting a located finding for each mistake, in the order
/// the parts are checked.
struct Checker<'a> {
    file: &'a Path,
    findings: Vec<Finding>,
}

impl Checker<'_> {
    /// Notes a mistake at `l` in the file.
    fn bad(&mut self, code: Code, l: &serde_saphyr::Location, msg: String) {
        self.findings
            .push(Finding::error(code, loc(self.file, l), msg));
    }

    /// The rule's `match`, its names checked.
    fn matcher(&mut self, m: MatchSpec) -> Matcher {
        let mut matcher = Matcher::default();
        if let Some(e) = m.element {
            let v = e.value.trim();
            if v != "*" && !is_name(v) {
                self.bad(
                    codes::BAD_VALUE,
                    &e.referenced,
                    format!("`{v}` is not a valid element name"),
                );
            } else if v != "*" {
                matcher.element = Some(v.to_string());
            }
        }
        if let Some(c) = m.class {
            matcher.classes = c.value.split_whitespace().map(str::to_string).collect();
            if matcher.classes.is_empty() {
                self.bad(
                    codes::BAD_VALUE,
                    &c.referenced,
                    "the class to match is empty".into(),
                );
            }
        }
        if let Some(a) = m.attribute {
            let (name, value) = match a.value.split_once('=') {
                Some((n, v)) => (n.trim().to_string(), Some(v.to_string())),
                None => (a.value.trim().to_string(), None),
            };
            if !is_name(&name) {
                self.bad(
                    codes::BAD_VALUE,
                    &a.referenced,
                    format!("`{name}` is not a valid attribute name"),
                );
            }
            matcher.attribute = Some((name, value));
        }
        if let Some(a) = m.ancestor {
            match Selector::parse(&a.value) {
                Ok(sel) => matcher.ancestor = Some(sel),
                Err(why) => self.bad(codes::BAD_VALUE, &a.referenced, why),
            }
        }
        matcher
    }

    /// The rule's actions (everything but `match`), each checked.
    fn actions(&mut self, s: RuleSpec) -> Actions {
        let add_class = self.words(s.add_class, "class");
        let remove_class = self.words(s.remove_class, "class");
        let remove_attribute = self.words(s.remove_attribute, "attribute");
        let set_attribute = self.set_attribute(s.set_attribute);
        let rename = self.rename(s.rename);
        let wrap = self.wrap(s.wrap);
        let insert_before = self.insertion(s.insert_before);
        let insert_after = self.insertion(s.insert_after);
        let prepend = self.insertion(s.prepend);
        let append = self.insertion(s.append);
        Actions {
            add_class,
            remove_class,
            set_attribute,
            remove_attribute,
            rename,
            wrap,
            unwrap: s.unwrap,
            remove: s.remove,
            insert_before,
            insert_after,
            prepend,
            append,
        }
    }

    /// A list of class or attribute names (`what`): not empty, and attribute names valid.
    fn words(&mut self, words: Option<Spanned<Words>>, what: &str) -> Vec<String> {
        let Some(w) = words else {
            return Vec::new();
        };
        if let Some(n) = w
            .value
            .0
            .iter()
            .find(|n| what == "attribute" && !is_name(n))
        {
            self.bad(
                codes::BAD_VALUE,
                &w.referenced,
                format!("`{n}` is not a valid attribute name"),
            );
        }
        if w.value.0.is_empty() {
            self.bad(
                codes::BAD_VALUE,
                &w.referenced,
                format!("the list of {what} names is empty"),
            );
        }
        w.value.0
    }

    /// `set_attribute`'s names and values, the names checked.
    fn set_attribute(&mut self, set: Option<Spanned<Pairs>>) -> Vec<(String, String)> {
        let Some(set) = set else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (n, v) in set.value.0 {
            if !is_name(&n) {
                self.bad(
                    codes::BAD_VALUE,
                    &set.referenced,
                    format!("`{n}` is not a valid attribute name"),
                );
            }
            out.push((n, v));
        }
        out
    }

    /// `rename`'s element name, when valid.
    fn rename(&mut self, r: Option<Spanned<String>>) -> Option<String> {
        let r = r?;
        let v = r.value.trim();
        if is_name(v) {
            return Some(v.to_string());
        }
        self.bad(
            codes::BAD_VALUE,
            &r.referenced,
            format!("`{v}` is not a valid element name"),
        );
        None
    }

    /// `wrap`'s selector, when valid and naming an element.
    fn wrap(&mut self, w: Option<Spanned<String>>) -> Option<Selector> {
        let w = w?;
        match Selector::parse(&w.value) {
            Ok(sel) if sel.element.is_some() => return Some(sel),
            Ok(_) => self.bad(
                codes::BAD_VALUE,
                &w.referenced,
                format!(
                    "`wrap` needs an element name, such as `div{}`",
                    w.value.trim()
                ),
            ),
            Err(why) => self.bad(codes::BAD_VALUE, &w.referenced, why),
        }
        None
    }

    /// The node an insertion (`insert_before`, `insert_after`, `prepend`, `append`) puts in:
    /// text, or a named element holding the text.
    fn insertion(&mut self, spec: Option<Spanned<InsertSpec>>) -> Option<Node> {
        let spec = spec?;
        let InsertSpec { element, text } = spec.value;
        match (element, text) {
            (None, None) => self.bad(
                codes::MISSING_KEY,
                &spec.referenced,
                "nothing to insert: give `text`, `element`, or both".into(),
            ),
            (None, Some(text)) => return Some(Node::Text(text)),
            (Some(sel), text) => match Selector::parse(&sel) {
                Ok(s) if s.element.is_some() => {
                    let mut e = s.make();
                    if let Some(t) = text {
                        e.push_text(&t);
                    }
                    return Some(Node::from(e));
                }
                Ok(_) => self.bad(
                    codes::BAD_VALUE,
                    &spec.referenced,
                    format!("the element to insert needs a name, such as `span{sel}`"),
                ),
                Err(why) => self.bad(codes::BAD_VALUE, &spec.referenced, why),
            },
        }
        None
    }
}

/// What is wrong with a rule's actions taken together (at the rule, `at`): none at all, more
/// than one structural action, or changes that a removal would lose.
fn contradiction(a: &Actions, at: &Location) -> Option<Finding> {
    let changes = !a.add_class.is_empty()
        || !a.remove_class.is_empty()
        || !a.set_attribute.is_empty()
        || !a.remove_attribute.is_empty()
        || a.rename.is_some()
        || a.prepend.is_some()
        || a.append.is_some();
    let structural = [a.remove, a.unwrap, a.wrap.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    let inserts = a.insert_before.is_some() || a.insert_after.is_some();
    if !changes && structural == 0 && !inserts {
        Some(
            Finding::error(codes::MISSING_KEY, at.clone(), "this rule does nothing").with_hint(
                "add an action: add_class, remove_class, set_attribute, remove_attribute, \
                 rename, wrap, unwrap, remove, insert_before, insert_after, prepend or append",
            ),
        )
    } else if structural > 1 {
        Some(Finding::error(
            codes::BAD_VALUE,
            at.clone(),
            "a rule can do only one of `remove`, `unwrap` and `wrap`",
        ))
    } else if a.remove && changes {
        Some(Finding::error(
            codes::BAD_VALUE,
            at.clone(),
            "this rule removes the element, so its other changes to it would be lost",
        ).with_hint("keep `remove: true` alone (with `insert_before` or `insert_after` to replace it), or drop it"))
    } else {
        None
    }
}

/// Deserializes a rule file with located, plain-word errors (the same as for `book.yml`).
fn parse_yaml<T: serde::de::DeserializeOwned>(text: &str, file: &Path) -> Result<T, Finding> {
    crate::book::parse_yaml_as(text, file, "filter rule file")
}

// ---------------------------------------------------------------------------
// Applying

impl Filter for RuleFilter {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, doc: &mut Document, _ctx: &FilterContext) -> Result<(), FilterError> {
        for rule in &self.rules {
            let mut ancestors = Vec::new();
            // The root keeps its place: only its own changes and its content.
            visit_element(rule, &mut doc.root, &mut ancestors, true);
        }
        Ok(())
    }
}

/// Applies the rule's in-place changes to `e` and its descendants; returns whether `e` matched.
/// `is_root`: the document's root, which is never removed, so its content is always visited.
fn visit_element(
    rule: &Rule,
    e: &mut Element,
    ancestors: &mut Vec<Ancestor>,
    is_root: bool,
) -> bool {
    let matched = rule.matcher.matches(e, ancestors);
    let a = &rule.actions;
    let before = Ancestor::of(e);
    if matched {
        for c in &a.add_class {
            e.add_class(c);
        }
        if let Some(v) = e.attr("class").filter(|_| !a.remove_class.is_empty()) {
            let kept: Vec<&str> = v
                .split_ascii_whitespace()
                .filter(|c| !a.remove_class.iter().any(|r| r == c))
                .collect();
            if kept.is_empty() {
                e.remove_attr("class");
            } else {
                let kept = kept.join(" ");
                e.set_attr("class", kept);
            }
        }
        for (n, v) in &a.set_attribute {
            e.set_attr(n.as_str(), v.as_str());
        }
        for n in &a.remove_attribute {
            e.remove_attr(n);
        }
        if let Some(n) = &a.rename {
            e.name = n.clone();
        }
    }
    if !(matched && a.remove) || is_root {
        ancestors.push(before);
        visit_children(rule, &mut e.children, ancestors);
        ancestors.pop();
    }
    if matched {
        if let Some(n) = &a.prepend {
            e.children.insert(0, n.clone());
        }
        if let Some(n) = &a.append {
            e.children.push(n.clone());
        }
    }
    matched
}

fn visit_children(rule: &Rule, children: &mut Vec<Node>, ancestors: &mut Vec<Ancestor>) {
    let a = &rule.actions;
    let mut i = 0;
    while i < children.len() {
        let Node::Element(e) = &mut children[i] else {
            i += 1;
            continue;
        };
        if !visit_element(rule, e, ancestors, false) {
            i += 1;
            continue;
        }
        let Node::Element(e) = std::mem::replace(&mut children[i], Node::Text(String::new()))
        else {
            unreachable!("children[i] was an element just above")
        };
        let mut replacement = Vec::new();
        replacement.extend(a.insert_before.clone());
        if a.remove {
        } else if a.unwrap {
            replacement.extend(e.children);
        } else if let Some(w) = &a.wrap {
            replacement.push(Node::from(w.make().with_child(e)));
        } else {
            replacement.push(Node::Element(e));
        }
        replacement.extend(a.insert_after.clone());
        let n = replacement.len();
        children.splice(i..=i, replacement);
        i += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::tests::{run_filter, write};

    fn rules(text: &str) -> RuleFilter {
        RuleFilter::parse("t", text, Path::new("filters/t.yml")).unwrap_or_else(|f| {
            panic!(
                "{}",
                f.iter()
                    .map(|f| f.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
    }

    fn errors(text: &str) -> Vec<Finding> {
        RuleFilter::parse("t", text, Path::new("filters/t.yml")).unwrap_err()
    }

    #[test]
    fn class_and_attribute_actions_with_every_matcher() {
        let f = rules(
            "rules:
  - match: {element: p, class: caption, ancestor: div.note}
    add_class: [boxed, caption-text]
    remove_class: caption
  - match: {attribute: data-x}
    set_attribute: {title: 注意, data-y: \"2\"}
    remove_attribute: [data-x]
  - match: {attribute: lang=en, element: \"*\"}
    rename: i
  - match: {ancestor: .memo, element: b}
    rename: strong
",
        );
        let out = run_filter(
            &f,
            r#"<div class="note"><p class="caption">a</p></div><p class="caption">b</p><div class="memo"><p data-x="1"><b>x</b> <span lang="en">en</span> <span lang="fr">fr</span></p></div>"#,
            "ja",
        );
        assert_eq!(
            out,
            r#"<div class="note"><p class="boxed caption-text">a</p></div><p class="caption">b</p><div class="memo"><p title="注意" data-y="2"><strong>x</strong> <i lang="en">en</i> <span lang="fr">fr</span></p></div>"#
        );
    }

    #[test]
    fn structural_actions() {
        let f = rules(
            "rules:
  - match: {element: span, class: del}
    remove: true
  - match: {element: span, class: plain}
    unwrap: true
  - match: {element: table}
    wrap: div.table.wide
  - match: {element: em}
    insert_before: {text: \"※\"}
    insert_after: {element: span.mark, text: \"*\"}
  - match: {element: h2}
    prepend: {element: span.num, text: \"§\"}
    append: {element: br}
  - match: {class: old}
    remove: true
    insert_after: {text: \"(gone)\"}
",
        );
        let out = run_filter(
            &f,
            r#"<p>a<span class="del">x</span>b<span class="plain">c<em>d</em></span></p><table><tr><td>1</td></tr></table><h2>T</h2><p class="old">o</p>"#,
            "ja",
        );
        assert_eq!(
            out,
            r#"<p>abc※<em>d</em><span class="mark">*</span></p><div class="table wide"><table><tr><td>1</td></tr></table></div><h2><span class="num">§</span>T<br/></h2>(gone)"#
        );
    }

    #[test]
    fn a_rule_does_not_match_what_it_inserted() {
        let f = rules(
            "rules:
  - match: {element: div}
    wrap: div.box
  - match: {element: span}
    prepend: {element: span.inner}
    insert_after: {element: span}
",
        );
        let out = run_filter(&f, "<div><span>x</span></div>", "ja");
        assert_eq!(
            out,
            r#"<div class="box"><div><span><span class="inner"></span>x</span><span></span></div></div>"#
        );
    }

    #[test]
    fn ancestor_is_matched_as_it_was_before_the_rule() {
        let f = rules(
            "rules:
  - match: {element: div}
    rename: section
  - match: {ancestor: section, element: p}
    add_class: inside
",
        );
        let out = run_filter(&f, "<div><p>x</p></div><p>y</p>", "ja");
        assert_eq!(out, r#"<section><p class="inside">x</p></section><p>y</p>"#);
    }

    #[test]
    fn root_is_never_removed() {
        let f = rules("rules:\n  - remove: true\n");
        let mut d = crate::filter::tests::doc("<p>x</p>");
        f.apply(&mut d, &crate::filter::tests::ctx("ja")).unwrap();
        assert_eq!(d.root.name, "html");
        assert!(d.root.children.is_empty());
    }

    #[test]
    fn unknown_key_is_located_with_the_nearest_key() {
        let f = errors("rules:\n  - match: {element: p}\n    add_clas: [x]\n");
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].location,
            Location::new("filters/t.yml", 3, 5),
            "{}",
            f[0]
        );
        assert_eq!(f[0].message, "unknown key `add_clas`");
        assert_eq!(f[0].hint.as_deref(), Some("did you mean `add_class`?"));

        let f = errors("rules:\n  - match:\n      elemnt: p\n    remove: true\n");
        assert_eq!(
            f[0].location,
            Location::new("filters/t.yml", 3, 7),
            "{}",
            f[0]
        );
        assert_eq!(f[0].hint.as_deref(), Some("did you mean `element`?"));

        let f = errors("rule:\n  - remove: true\n");
        assert_eq!((f[0].location.line, f[0].location.col), (1, 1), "{}", f[0]);
        assert_eq!(f[0].hint.as_deref(), Some("did you mean `rules`?"));
    }

    #[test]
    fn mistakes_in_values_are_located() {
        let f = errors(
            "rules:
  - match: {element: p}
  - match: {ancestor: \"div..x\"}
    remove: true
  - wrap: .box
  - match: {element: \"1p\"}
    rename: \"a b\"
  - insert_before: {}
  - remove: true
    unwrap: true
  - remove: true
    add_class: x
",
        );
        let at: Vec<(u32, u32)> = f
            .iter()
            .map(|f| (f.location.line, f.location.col))
            .collect();
        assert_eq!(
            at,
            [
                (2, 5),
                (3, 23),
                (5, 11),
                (6, 22),
                (7, 13),
                (8, 20),
                (9, 5),
                (11, 5)
            ],
            "{f:#?}"
        );
        assert_eq!(f[0].message, "this rule does nothing");
        assert!(f[1].message.contains("div..x"));
        assert!(f[2].message.contains("needs an element name"));
        assert!(f[3].message.contains("`1p` is not a valid element name"));
        assert!(f[4].message.contains("`a b` is not a valid element name"));
        assert!(f[5].message.contains("nothing to insert"));
        assert!(f[6].message.contains("only one of"));
        assert!(f[7].message.contains("removes the element"));
    }

    #[test]
    fn yaml_syntax_error_is_located() {
        let f = errors("rules:\n  - match: {element: p\n    remove: true\n");
        assert!(f[0].location.line >= 2, "{}", f[0]);
        assert!(
            f[0].message
                .starts_with("this is not valid filter rule file YAML"),
            "{}",
            f[0]
        );
    }

    #[test]
    fn load_reports_the_shown_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.yml");
        write(
            &file,
            "rules:\n  - match: {element: p}\n    colour: red\n",
            false,
        );
        let f = RuleFilter::load("x", &file, Path::new("filters/x.yml")).unwrap_err();
        assert_eq!(
            f[0].to_string().lines().next().unwrap(),
            "filters/x.yml:3:5: error: unknown key `colour`"
        );
    }

    #[test]
    fn house_notes_file_is_valid_and_boxes_notes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("filters/house-notes.yml");
        let f = RuleFilter::load("house-notes", &path, Path::new("filters/house-notes.yml"))
            .unwrap_or_else(|f| panic!("{f:?}"));
        let out = run_filter(
            &f,
            r#"<div class="note"><p class="caption">注意</p><p>本文</p></div><div class="tip"><p class="caption">ヒント</p></div><p class="caption">図</p>"#,
            "ja",
        );
        assert_eq!(
            out,
            r#"<div class="note boxed"><p class="caption caption-text">注意</p><p>本文</p></div><div class="tip boxed"><p class="caption caption-text">ヒント</p></div><p class="caption">図</p>"#
        );
    }

    #[test]
    fn fixture_with_every_action() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/filters/every-action.yml");
        let f = RuleFilter::load("every-action", &path, Path::new("every-action.yml"))
            .unwrap_or_else(|f| panic!("{f:?}"));
        let out = run_filter(
            &f,
            r#"<div class="note"><p class="caption">a</p></div><div class="memo" data-x="1"><p><span class="r">x</span></p></div><p><span class="plain">y<span class="del">z</span></span></p><span class="r">not in a memo</span><table><tr><td>1</td></tr></table><h2>T</h2>"#,
            "ja",
        );
        assert_eq!(
            out,
            r#"<div class="note"><p class="boxed caption-text">a</p></div><div class="memo" title="注意" data-y="2"><p><em class="r">x</em></p></div><p>y</p><span class="r">not in a memo</span><div class="table"><table><tr><td>1</td></tr></table></div><hr/><h2><span class="num">§</span>T<span class="mark">*</span></h2>※"#
        );
    }

    #[test]
    fn empty_or_missing_rules() {
        let f = errors("# nothing yet\n\n");
        assert_eq!(f[0].message, "the rule file has no rules");
        let f = errors("# nothing yet\nother: 1\n");
        assert_eq!(f[0].message, "unknown key `other`", "{}", f[0]);
        assert_eq!(rules("rules: []\n").rules.len(), 0);
    }
}
