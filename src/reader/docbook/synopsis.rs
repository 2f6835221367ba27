//! `cmdsynopsis` and `funcsynopsis` as DocBook XSL 1.79 writes them: the brackets, braces,
//! bars and ellipses of a command's arguments (`[-f]`, `{a | b}`, `file...`) and a function's
//! parentheses in the stylesheets' default K&R style (`int max(a, b);` then `int a;`). Read
//! for their text alone they lose what makes them a synopsis (`chgrp -R -H -L -P -f group`).
use super::*;

/// Opening and closing marks of an `arg` or `group` by its `choice` (`opt` when unsaid).
fn marks(el: &Element) -> (&'static str, &'static str) {
    match el.attr("choice").map(str::trim) {
        Some("req") => ("{", "}"),
        Some("plain") => ("", ""),
        _ => ("[", "]"),
    }
}

fn repeat(el: &Element, out: &mut String) {
    if el
        .attr("rep")
        .is_some_and(|r| r.trim().eq_ignore_ascii_case("repeat"))
    {
        out.push_str("...");
    }
}

/// An argument's or group's content: its text, nested arguments and groups with their marks.
fn content(el: &Element, out: &mut String) {
    for n in &el.children {
        match n {
            Node::Text(t) => out.push_str(&squash_keep_edges(t)),
            Node::Element(c) => match c.local_name() {
                "arg" | "group" => {
                    if !out.is_empty() && !out.ends_with(' ') {
                        out.push(' ');
                    }
                    argument(c, out);
                }
                "sbr" => out.push('\n'),
                // Index terms are never text.
                "indexterm" | "remark" => {}
                _ => content(c, out),
            },
            Node::Comment(_) => {}
        }
    }
}

/// Whitespace runs made one space, a space kept at either edge (`-R <group>` stays two words).
fn squash_keep_edges(t: &str) -> String {
    let inner = squash(t);
    if inner.is_empty() {
        return if t.is_empty() {
            String::new()
        } else {
            " ".into()
        };
    }
    let lead = if t.starts_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    let trail = if t.ends_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    format!("{lead}{inner}{trail}")
}

fn argument(el: &Element, out: &mut String) {
    let (open, close) = marks(el);
    out.push_str(open);
    if el.local_name() == "group" {
        // A group's members are alternatives; their own choice is the group's.
        let members: Vec<String> = el
            .child_elements()
            .filter(|c| matches!(c.local_name(), "arg" | "group" | "replaceable" | "option"))
            .map(|c| {
                let mut s = String::new();
                if c.local_name() == "group" {
                    argument(c, &mut s);
                } else {
                    content(c, &mut s);
                    repeat(c, &mut s);
                }
                s.trim().to_string()
            })
            .collect();
        out.push_str(&members.join(" | "));
    } else {
        let mut s = String::new();
        content(el, &mut s);
        out.push_str(s.trim());
    }
    out.push_str(close);
    repeat(el, out);
}

/// A `cmdsynopsis`: the command, then each argument or group after a space.
pub(super) fn cmdsynopsis(el: &Element) -> String {
    let mut out = String::new();
    for c in el.child_elements() {
        match c.local_name() {
            "command" => {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&squash(&c.text()));
            }
            "arg" | "group" => {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push(' ');
                }
                argument(c, &mut out);
            }
            "sbr" => out.push('\n'),
            "synopfragment" => {
                out.push('\n');
                let mut s = String::new();
                content(c, &mut s);
                out.push_str(s.trim());
            }
            _ => {}
        }
    }
    out
}

/// A `funcsynopsis`: its `funcsynopsisinfo` as written, then each prototype K&R style.
pub(super) fn funcsynopsis(el: &Element) -> String {
    let mut lines: Vec<String> = Vec::new();
    for c in el.child_elements() {
        match c.local_name() {
            "funcsynopsisinfo" => lines.push(c.text().trim_end().to_string()),
            "funcprototype" => prototype(c, &mut lines),
            _ => {}
        }
    }
    lines.join("\n")
}

fn prototype(el: &Element, lines: &mut Vec<String>) {
    let def = el
        .child("funcdef")
        .map(|d| squash(&d.text()))
        .unwrap_or_default();
    let params: Vec<&Element> = el
        .child_elements()
        .filter(|c| c.local_name() == "paramdef")
        .collect();
    let names: Vec<String> = params
        .iter()
        .map(|p| {
            p.child("parameter")
                .map(|n| squash(&n.text()))
                .unwrap_or_else(|| squash(&p.text()))
        })
        .collect();
    let args = if el.child("void").is_some() {
        "void".to_string()
    } else if el.child("varargs").is_some() {
        "...".to_string()
    } else {
        names.join(", ")
    };
    lines.push(format!("{def}({args});"));
    for p in params {
        lines.push(format!("{};", squash(&p.text())));
    }
}
