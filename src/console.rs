//! What seihon prints for people, made safe for the CI log it lands in. Under GitHub Actions a
//! line of the log that starts with `::` (after spaces) is a workflow command, and `##[` starts
//! a legacy one anywhere in a line; a book's text (a chapter's name, a message quoting the
//! manuscript) must never become one. seihon's own annotations are printed apart
//! ([`crate::report::github_annotations`]).
use std::borrow::Cow;

/// Whether this run's output is read by GitHub Actions.
fn under_github_actions() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true"))
}

/// `text` as it may be printed: unchanged, except under GitHub Actions, where no line of it
/// can start a workflow command (a zero-width space is put inside `::` and `##[`, which
/// reads the same).
pub fn safe(text: &str) -> Cow<'_, str> {
    if under_github_actions() {
        neutralized(text)
    } else {
        Cow::Borrowed(text)
    }
}

fn neutralized(text: &str) -> Cow<'_, str> {
    let risky = text.contains("##[")
        || text
            .split(['\n', '\r'])
            .any(|line| line.trim_start().starts_with("::"));
    if !risky {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut at_line_start = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\r' => at_line_start = true,
            ':' if at_line_start && chars.peek() == Some(&':') => {
                out.push(':');
                out.push('\u{200B}');
                at_line_start = false;
                continue;
            }
            '#' if chars.peek() == Some(&'#') => {
                out.push('#');
                let mut rest = chars.clone();
                rest.next();
                if rest.peek() == Some(&'[') {
                    out.push('\u{200B}');
                }
                at_line_start = false;
                continue;
            }
            c if c.is_whitespace() => {}
            _ => at_line_start = false,
        }
        out.push(c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::neutralized;

    #[test]
    fn no_line_can_start_a_workflow_command() {
        let text = "books/a/book.yml:3:1: error: no chapter `x\n::add-mask::secret\n  ::error file=a::b`\nsay ##[set-env name=A]1\nplain: text :: here\n";
        let out = neutralized(text);
        for line in out.lines() {
            assert!(!line.trim_start().starts_with("::"), "{line}");
            assert!(!line.contains("##["), "{line}");
        }
        // Nothing else changes, and what is shown reads the same.
        assert_eq!(out.replace('\u{200B}', ""), text);
        assert!(out.contains("plain: text :: here"));
        assert_eq!(neutralized("all fine\n"), "all fine\n");
    }
}
