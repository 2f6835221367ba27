//! Build-time syntax highlighting of code listings.
//!
//! A listing with a language (Markdown ```` ```rust ````, Re:VIEW
//! `//list[id][caption][ruby]{`) is parsed with syntect's grammars (the extra
//! set from two-face, which adds TypeScript, TOML, Dockerfile, Kotlin, Swift…)
//! and turned into our own XHTML nodes: plain [`Node::Text`] and
//! `<span class="hl-…">` elements. The classes are few and stable (see
//! [`CLASSES`]) and carry no colours: the house style sheet, extended with
//! [`stylesheet`], decides how they look. No inline styles, so the output is
//! small, deterministic and easy to restyle.
//!
//! Scopes are mapped to classes by their leading atoms: `comment…` →
//! `hl-comment`, `string…` → `hl-string`, and so on. Punctuation, operators,
//! ordinary identifiers and `meta` scopes stay plain text, so most tokens are
//! not wrapped at all; neighbouring runs with the same class merge into one
//! span (also across plain whitespace).

use crate::dom::{Element, Node};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

/// Every class [`highlight`] can emit, with its colour on light paper and on a dark background
/// (`pre.cmd`, and every listing in a reader's dark mode) and the rest of its style.
///
/// Every colour is at WCAG AA contrast (≥ 4.5:1) against the background it is shown on (tested);
/// the most important distinctions (comments, keywords) are also carried by italics and weight,
/// which survive a grey-scale screen.
pub const CLASSES: &[Class] = &[
    Class::new("hl-comment", "#5c6670", "#b0bec5").style("font-style: italic;"),
    Class::new("hl-string", "#0b6e23", "#a5d6a7"),
    Class::new("hl-constant", "#8f4300", "#ffb74d"),
    Class::new("hl-keyword", "#7b1fa2", "#ce93d8").style("font-weight: bold;"),
    Class::new("hl-storage", "#1a4f9c", "#90caf9").style("font-weight: bold;"),
    Class::new("hl-entity", "#005f73", "#80deea"),
    Class::new("hl-variable", "#9b2c2c", "#ef9a9a"),
    Class::new("hl-support", "#0d5c91", "#81d4fa"),
    Class::new("hl-tag", "#1a4f9c", "#90caf9"),
    Class::new("hl-attribute", "#8f4300", "#ffb74d"),
    Class::new("hl-inserted", "#0b6e23", "#a5d6a7"),
    Class::new("hl-deleted", "#b3261e", "#f48fb1"),
    Class::new("hl-heading", "#1a4f9c", "#90caf9").style("font-weight: bold;"),
];

/// A highlighting class and how it looks.
pub struct Class {
    pub name: &'static str,
    /// On light paper (`#fff`, the listings' `#f6f6f6`).
    pub light: &'static str,
    /// On a dark background (`pre.cmd`'s `#222`, dark mode's `#1e1e1e`).
    pub dark: &'static str,
    pub style: &'static str,
}

impl Class {
    const fn new(name: &'static str, light: &'static str, dark: &'static str) -> Class {
        Class {
            name,
            light,
            dark,
            style: "",
        }
    }

    const fn style(self, style: &'static str) -> Class {
        Class { style, ..self }
    }
}

/// Lines longer than this are not highlighted (the whole listing is then plain
/// text): backtracking regexes can take very long on huge lines such as
/// minified JSON, and such lines gain nothing from colour.
const MAX_LINE_BYTES: usize = 10_000;

/// Listings longer than this are not highlighted either.
const MAX_CODE_BYTES: usize = 2 << 20;

/// Highlights `code` as `language` (a name or file extension as authors write it: "rust", "rb", "ruby", "python", "sh", "shell", "console", "yaml", "json", "c", "cpp", "java", "js", "javascript", "ts", "html", "xml", "css", "sql", "go", "diff", "makefile", "dockerfile", "toml", "ini", "csharp", "kotlin", "swift", "php", "perl", "lua", "haskell", "scala", "r", "tex", "markdown", …; case-insensitive).
/// Returns `None` when the language is unknown (the caller then writes plain text).
/// The nodes are the content of a `<pre>`: Text and `<span class="hl-…">` elements; concatenating their text gives back `code` exactly (tested).
///
/// Also returns `None` for plain-text languages ("text", "txt"), for listings
/// with very long lines, and if the grammar fails on the input; it never
/// panics. `console` (a shell session) highlights the commands after a `$ `,
/// `% ` or `# ` prompt as shell and leaves their output plain.
pub fn highlight(code: &str, language: &str) -> Option<Vec<Node>> {
    let lang = resolve(language)?;
    if code.len() > MAX_CODE_BYTES || code.split('\n').any(|l| l.len() > MAX_LINE_BYTES) {
        return None;
    }
    let hl = highlighter();
    // The grammars are third-party data; a bug in one of them (or in the regex
    // engine) must cost the listing its colours, not the build.
    std::panic::catch_unwind(AssertUnwindSafe(|| match lang {
        Lang::Syntax(syntax) => highlight_code(hl, syntax, code),
        Lang::Console => {
            let syntax = hl.syntaxes.find_syntax_by_name(SHELL)?;
            highlight_console(hl, syntax, code)
        }
    }))
    .ok()
    .flatten()
}

/// A listing's highlighting, compactly: the length in bytes and the class of each run (0 for
/// plain text, else 1 + its index in [`CLASSES`]). The runs' texts are the listing's own
/// text in order, so they need not be kept: a book's highlighted listings held as nodes took
/// more memory than the rest of its build.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Spans(Vec<(u32, u8)>);

impl Spans {
    /// The spans of what [`highlight`] gave; `None` for a node it does not make.
    fn of(nodes: &[Node]) -> Option<Spans> {
        let mut runs = Vec::with_capacity(nodes.len());
        for node in nodes {
            let run = match node {
                Node::Text(t) => (t.len(), 0),
                Node::Element(e) => {
                    let class = e.attr("class")?;
                    let i = CLASSES.iter().position(|c| c.name == class)?;
                    (e.text_content().len(), u8::try_from(i + 1).ok()?)
                }
                Node::Comment(_) => return None,
            };
            runs.push((u32::try_from(run.0).ok()?, run.1));
        }
        Some(Spans(runs))
    }

    /// The nodes again, over `code` (the text they were made from); `None` when they do not
    /// fit it.
    fn nodes(&self, code: &str) -> Option<Vec<Node>> {
        let mut at = 0usize;
        let mut nodes = Vec::with_capacity(self.0.len());
        for &(len, class) in &self.0 {
            let end = at + len as usize;
            let text = code.get(at..end)?.to_string();
            nodes.push(match class {
                0 => Node::Text(text),
                i => Node::from(
                    Element::new("span")
                        .with_attr("class", CLASSES.get(i as usize - 1)?.name)
                        .with_text(text),
                ),
            });
            at = end;
        }
        (at == code.len()).then_some(nodes)
    }
}

/// What highlighting a listing gave: spans, or nothing (a plain-text language, a listing too
/// long, a grammar that failed); `None` when the spans cannot be kept compactly (the listing
/// is then highlighted when its page is written).
pub fn highlight_spans(code: &str, language: &str) -> Option<Option<Spans>> {
    match highlight(code, language) {
        None => Some(None),
        Some(nodes) => Spans::of(&nodes).map(Some),
    }
}

/// Listings highlighted ahead of the pages that show them (all of a build's at once, in
/// parallel, and from the build cache), by language and text. A listing not among them is
/// highlighted when it is asked for.
#[derive(Default)]
pub struct Highlights(HashMap<String, HashMap<String, Option<Spans>>>);

impl Highlights {
    pub fn insert(&mut self, language: String, code: String, spans: Option<Spans>) {
        self.0.entry(language).or_default().insert(code, spans);
    }

    /// What [`highlight`] gives for `code` in `language`.
    pub fn get(&self, code: &str, language: &str) -> Option<Vec<Node>> {
        match self.0.get(language).and_then(|texts| texts.get(code)) {
            Some(None) => None,
            Some(Some(spans)) => spans.nodes(code).or_else(|| highlight(code, language)),
            None => highlight(code, language),
        }
    }

    pub fn len(&self) -> usize {
        self.0.values().map(HashMap::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// CSS rules for the classes `highlight` emits (a light theme readable in print and e-ink), to append to the house style sheet. Deterministic.
pub fn stylesheet() -> String {
    let mut css = String::from("/* Syntax highlighting of code listings (seihon). */\n");
    for c in CLASSES {
        let (name, light, style) = (c.name, c.light, c.style);
        css.push_str(&format!(
            "pre .{name}, code .{name} {{ color: {light};{}{style} }}\n",
            if style.is_empty() { "" } else { " " }
        ));
    }
    // Light on dark: command lines always, every listing in a dark reading mode.
    for c in CLASSES {
        css.push_str(&format!("pre.cmd .{} {{ color: {}; }}\n", c.name, c.dark));
    }
    css.push_str("@media (prefers-color-scheme: dark) {\n");
    for c in CLASSES {
        let (name, dark) = (c.name, c.dark);
        css.push_str(&format!(
            "  pre .{name}, code .{name} {{ color: {dark}; }}\n"
        ));
    }
    css.push_str("}\n");
    css
}

// ---------------------------------------------------------------------------
// Languages

const SHELL: &str = "Bourne Again Shell (bash)";

#[derive(Clone, Copy)]
enum Lang {
    /// A syntax of the set.
    Syntax(&'static SyntaxReference),
    /// A shell session: prompts, commands and their output.
    Console,
}

/// Names authors write, lowercased, mapped to syntax names. Checked before the
/// syntax set's own extensions and names, so that common names are stable and
/// ambiguous extensions ("fs", "h", "v") resolve to the usual language.
const ALIASES: &[(&str, &str)] = &[
    ("rust", "Rust"),
    ("rs", "Rust"),
    ("ruby", "Ruby"),
    ("rb", "Ruby"),
    ("python", "Python"),
    ("python3", "Python"),
    ("py", "Python"),
    ("py3", "Python"),
    ("sh", SHELL),
    ("bash", SHELL),
    ("shell", SHELL),
    ("shellscript", SHELL),
    ("zsh", SHELL),
    ("ksh", SHELL),
    ("yaml", "YAML"),
    ("yml", "YAML"),
    ("json", "JSON"),
    ("jsonc", "JSON"),
    ("json5", "JSON"),
    ("c", "C"),
    ("h", "C"),
    ("cpp", "C++"),
    ("c++", "C++"),
    ("cxx", "C++"),
    ("cc", "C++"),
    ("hpp", "C++"),
    ("objc", "Objective-C"),
    ("objective-c", "Objective-C"),
    ("java", "Java"),
    ("js", "JavaScript"),
    ("javascript", "JavaScript"),
    ("jsx", "JavaScript"),
    ("mjs", "JavaScript"),
    ("cjs", "JavaScript"),
    ("node", "JavaScript"),
    ("ts", "TypeScript"),
    ("typescript", "TypeScript"),
    ("tsx", "TypeScriptReact"),
    ("html", "HTML"),
    ("xhtml", "HTML"),
    ("htm", "HTML"),
    ("xml", "XML"),
    ("svg", "XML"),
    ("xsl", "XML"),
    ("xslt", "XML"),
    ("opf", "XML"),
    ("css", "CSS"),
    ("scss", "SCSS"),
    ("sass", "Sass"),
    ("less", "Less"),
    ("sql", "SQL"),
    ("go", "Go"),
    ("golang", "Go"),
    ("diff", "Diff"),
    ("patch", "Diff"),
    ("udiff", "Diff"),
    ("makefile", "Makefile"),
    ("make", "Makefile"),
    ("mk", "Makefile"),
    ("dockerfile", "Dockerfile"),
    ("docker", "Dockerfile"),
    ("toml", "TOML"),
    ("ini", "INI"),
    ("cfg", "INI"),
    ("editorconfig", "INI"),
    ("properties", "Java Properties"),
    ("csharp", "C#"),
    ("c#", "C#"),
    ("cs", "C#"),
    ("fsharp", "F#"),
    ("f#", "F#"),
    ("fs", "F#"),
    ("kotlin", "Kotlin"),
    ("kt", "Kotlin"),
    ("swift", "Swift"),
    ("php", "PHP"),
    ("perl", "Perl"),
    ("pl", "Perl"),
    ("lua", "Lua"),
    ("haskell", "Haskell"),
    ("hs", "Haskell"),
    ("scala", "Scala"),
    ("r", "R"),
    ("tex", "LaTeX"),
    ("latex", "LaTeX"),
    ("markdown", "Markdown"),
    ("md", "Markdown"),
    ("elixir", "Elixir"),
    ("erlang", "Erlang"),
    ("clojure", "Clojure"),
    ("lisp", "Lisp"),
    ("elisp", "Lisp"),
    ("emacs-lisp", "Lisp"),
    ("scheme", "Lisp"),
    ("ocaml", "OCaml"),
    ("objective-caml", "OCaml"),
    ("vb", "ASP"),
    ("bat", "Batch File"),
    ("batch", "Batch File"),
    ("cmd", "Batch File"),
    ("asm", "x86_64 Assembly"),
    ("nasm", "x86_64 Assembly"),
    ("vim", "VimL"),
    ("viml", "VimL"),
    ("vimscript", "VimL"),
    ("proto", "Protocol Buffer"),
    ("protobuf", "Protocol Buffer"),
    ("hcl", "Terraform"),
    ("terraform", "Terraform"),
    ("tf", "Terraform"),
    ("gradle", "Groovy"),
    ("groovy", "Groovy"),
    ("graphql", "GraphQL"),
    ("gql", "GraphQL"),
    ("nginx", "nginx"),
    ("http", "HTTP Request and Response"),
    ("julia", "Julia"),
    ("jl", "Julia"),
    ("zig", "Zig"),
    ("nim", "Nim"),
    ("dart", "Dart"),
    ("elm", "Elm"),
    ("cmake", "CMake"),
    ("awk", "AWK"),
    ("fish", "Fish"),
    ("d", "D"),
    ("pascal", "Pascal"),
    ("delphi", "Pascal"),
    ("matlab", "MATLAB"),
    ("nix", "Nix"),
    ("verilog", "Verilog"),
    ("systemverilog", "SystemVerilog"),
    ("vhdl", "VHDL"),
    ("tcl", "Tcl"),
    ("coffee", "CoffeeScript"),
    ("coffeescript", "CoffeeScript"),
    ("crystal", "Crystal"),
    ("racket", "Racket"),
    ("jinja", "Jinja2"),
    ("jinja2", "Jinja2"),
    ("erb", "HTML (Rails)"),
    ("rst", "reStructuredText"),
    ("restructuredtext", "reStructuredText"),
    ("asciidoc", "AsciiDoc (Asciidoctor)"),
    ("adoc", "AsciiDoc (Asciidoctor)"),
    ("csv", "Separated Values"),
    ("tsv", "Tab Separated Values"),
    ("regex", "Regular Expression"),
    ("regexp", "Regular Expression"),
    ("gitignore", "Git Ignore"),
    ("gitconfig", "Git Config"),
];

/// Names that mean "no highlighting" (some would otherwise find a syntax).
const PLAIN: &[&str] = &[
    "text",
    "txt",
    "plain",
    "plaintext",
    "none",
    "nohighlight",
    "output",
    "log",
];

/// Names for a shell session transcript.
const CONSOLE: &[&str] = &[
    "console",
    "shell-session",
    "shellsession",
    "sh-session",
    "terminal",
    "session",
];

/// Resolves what the author wrote to a language, or `None` if unknown.
///
/// Only the first word counts, so rustdoc-style "rust,ignore" and
/// "ruby {title}" work; a leading dot ("{.python}") is ignored.
fn resolve(language: &str) -> Option<Lang> {
    let word = language
        .trim()
        .trim_start_matches(['{', '.'])
        .split([',', ' ', '\t', '{', '}'])
        .next()
        .unwrap_or("")
        .to_lowercase();
    if word.is_empty() || PLAIN.contains(&word.as_str()) {
        return None;
    }
    if CONSOLE.contains(&word.as_str()) {
        return Some(Lang::Console);
    }
    let syntaxes = &highlighter().syntaxes;
    if let Some((_, name)) = ALIASES.iter().find(|(alias, _)| *alias == word) {
        return syntaxes.find_syntax_by_name(name).map(Lang::Syntax);
    }
    // Any other extension or name of the set ("clj", "Elixir", "nginx"…);
    // for an extension shared by several syntaxes, the last one wins.
    let found = syntaxes
        .syntaxes()
        .iter()
        .rev()
        .find(|s| {
            s.file_extensions
                .iter()
                .any(|e| e.eq_ignore_ascii_case(&word))
        })
        .or_else(|| {
            syntaxes
                .syntaxes()
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(&word))
        })?;
    (found.name != "Plain Text" && !found.hidden).then_some(Lang::Syntax(found))
}

// ---------------------------------------------------------------------------
// Scopes to classes

/// What a scope means for the class of the text it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// This class.
    Class(&'static str),
    /// `hl-keyword` if the text is a word (`and`, `instanceof`, `as`),
    /// plain for symbols (`+`, `=`, `|`).
    Operator,
    /// No class of its own: look at the enclosing scopes.
    Transparent,
    /// Plain text, whatever encloses it (code embedded in a string or a page).
    Stop,
}

/// Scope prefixes (by whole atoms), most specific first. The first rule
/// matching a scope decides; scopes matching none are transparent.
const RULES: &[(&str, Rule)] = &[
    ("comment", Rule::Class("hl-comment")),
    ("markup.heading", Rule::Class("hl-heading")),
    ("meta.diff.header", Rule::Class("hl-heading")),
    ("meta.diff.range", Rule::Class("hl-heading")),
    ("markup.inserted", Rule::Class("hl-inserted")),
    ("markup.deleted", Rule::Class("hl-deleted")),
    ("markup.raw.inline", Rule::Class("hl-string")),
    ("meta.interpolation", Rule::Stop),
    ("meta.embedded", Rule::Stop),
    ("source", Rule::Stop),
    ("text", Rule::Stop),
    ("string", Rule::Class("hl-string")),
    ("constant", Rule::Class("hl-constant")),
    ("keyword.operator", Rule::Operator),
    ("keyword", Rule::Class("hl-keyword")),
    ("storage", Rule::Class("hl-storage")),
    ("entity.name.tag", Rule::Class("hl-tag")),
    ("entity.other.attribute-name", Rule::Class("hl-attribute")),
    ("entity.name.section", Rule::Transparent),
    ("entity.name", Rule::Class("hl-entity")),
    ("entity.other.inherited-class", Rule::Class("hl-entity")),
    ("variable.function", Rule::Class("hl-entity")),
    ("meta.group.expansion.parameter", Rule::Class("hl-variable")),
    ("variable.other", Rule::Transparent),
    ("variable", Rule::Class("hl-variable")),
    ("support", Rule::Class("hl-support")),
];

/// Rules that win over anything nested inside them: a keyword in a doc
/// comment is still comment, a name in a heading is still heading.
const DOMINANT: &[&str] = &["comment", "markup.heading"];

struct Highlighter {
    syntaxes: SyntaxSet,
    rules: Vec<(Scope, Rule)>,
    dominant: Vec<Scope>,
}

/// The syntax set and rules, loaded once per process (tens of milliseconds).
fn highlighter() -> &'static Highlighter {
    static HIGHLIGHTER: OnceLock<Highlighter> = OnceLock::new();
    HIGHLIGHTER.get_or_init(|| Highlighter {
        syntaxes: two_face::syntax::extra_newlines(),
        rules: RULES
            .iter()
            .filter_map(|(prefix, rule)| Some((Scope::new(prefix).ok()?, *rule)))
            .collect(),
        dominant: DOMINANT
            .iter()
            .filter_map(|prefix| Scope::new(prefix).ok())
            .collect(),
    })
}

impl Highlighter {
    /// The rule deciding the class of text under `stack`.
    fn rule_for(&self, stack: &[Scope]) -> Rule {
        for scope in stack {
            if self.dominant.iter().any(|d| d.is_prefix_of(*scope)) {
                return self.rule_of(*scope);
            }
        }
        for scope in stack.iter().rev() {
            match self.rule_of(*scope) {
                Rule::Transparent => {}
                rule => return rule,
            }
        }
        Rule::Transparent
    }

    fn rule_of(&self, scope: Scope) -> Rule {
        self.rules
            .iter()
            .find(|(prefix, _)| prefix.is_prefix_of(scope))
            .map_or(Rule::Transparent, |(_, rule)| *rule)
    }
}

/// The class of `text` under `rule`.
fn class_of(rule: Rule, text: &str) -> Option<&'static str> {
    match rule {
        Rule::Class(class) => Some(class),
        Rule::Operator if text.chars().all(|c| c.is_alphanumeric() || c == '_') => {
            Some("hl-keyword")
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Parsing

/// One grammar run over consecutive lines.
struct LineParser<'a> {
    hl: &'a Highlighter,
    state: ParseState,
    stack: ScopeStack,
    /// Reused buffer: the line as the grammar wants it, ending in "\n".
    buf: String,
}

impl<'a> LineParser<'a> {
    fn new(hl: &'a Highlighter, syntax: &SyntaxReference) -> Self {
        LineParser {
            hl,
            state: ParseState::new(syntax),
            stack: ScopeStack::new(),
            buf: String::new(),
        }
    }

    /// Highlights one line: `content` without its line break, then `ending`
    /// ("\n", "\r\n" or "" for a last line without one), which takes the class
    /// of the grammar's "\n" so that multi-line comments stay one span.
    fn line(&mut self, content: &str, ending: &str, out: &mut Runs) -> Option<()> {
        // The grammars expect lines ending in "\n" (a CR would be taken for
        // content, and a missing break leaves line comments open).
        self.buf.clear();
        self.buf.push_str(content);
        self.buf.push('\n');
        let ops = self.state.parse_line(&self.buf, &self.hl.syntaxes).ok()?;
        let len = content.len();
        let mut pos = 0;
        for (at, op) in ops {
            let at = at.min(self.buf.len());
            if at > pos {
                self.emit(pos, at, len, ending, out)?;
                pos = at;
            }
            self.stack.apply(&op).ok()?;
        }
        if pos < self.buf.len() {
            self.emit(pos, self.buf.len(), len, ending, out)?;
        }
        Some(())
    }

    /// Emits `buf[from..to]` under the current scopes; the "\n" at `len` is
    /// replaced by the real `ending`.
    fn emit(&self, from: usize, to: usize, len: usize, ending: &str, out: &mut Runs) -> Option<()> {
        let rule = self.hl.rule_for(self.stack.as_slice());
        let text = self.buf.get(from.min(len)..to.min(len))?;
        out.push(class_of(rule, text), text);
        if from <= len && len < to {
            out.push(class_of(rule, "\n"), ending);
        }
        Some(())
    }
}

/// Splits `code` into (content, line break) pairs; the last line may have no
/// break. A CR not followed by LF stays in the content.
fn lines(code: &str) -> impl Iterator<Item = (&str, &str)> {
    code.split_inclusive('\n').map(|line| {
        if let Some(content) = line.strip_suffix("\r\n") {
            (content, "\r\n")
        } else if let Some(content) = line.strip_suffix('\n') {
            (content, "\n")
        } else {
            (line, "")
        }
    })
}

fn highlight_code(hl: &Highlighter, syntax: &SyntaxReference, code: &str) -> Option<Vec<Node>> {
    let mut parser = LineParser::new(hl, syntax);
    let mut out = Runs::default();
    for (content, ending) in lines(code) {
        parser.line(content, ending, &mut out)?;
    }
    Some(out.finish())
}

/// Prompts that start a command line in a console transcript.
const PROMPTS: &[&str] = &["$ ", "% ", "# "];

/// A shell session: each command (a prompt line and its `\` continuations)
/// is parsed afresh as shell; prompts and output lines stay plain.
fn highlight_console(hl: &Highlighter, shell: &SyntaxReference, code: &str) -> Option<Vec<Node>> {
    let mut out = Runs::default();
    let mut command: Option<LineParser> = None;
    for (content, ending) in lines(code) {
        let continued = command.is_some();
        let (prompt, rest) = if continued {
            // Continuation lines may repeat a "> " prompt.
            match content.strip_prefix("> ") {
                Some(rest) => ("> ", rest),
                None => ("", content),
            }
        } else if let Some(p) = PROMPTS.iter().find(|p| content.starts_with(**p)) {
            command = Some(LineParser::new(hl, shell));
            (*p, &content[p.len()..])
        } else {
            out.push(None, content);
            out.push(None, ending);
            continue;
        };
        out.push(None, prompt);
        let parser = command.as_mut()?;
        parser.line(rest, ending, &mut out)?;
        if !rest.ends_with('\\') {
            command = None;
        }
    }
    Some(out.finish())
}

// ---------------------------------------------------------------------------
// Output

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Collects classed runs into nodes, merging neighbours with the same class.
#[derive(Default)]
struct Runs {
    nodes: Vec<Node>,
    /// The run being built.
    class: Option<&'static str>,
    text: String,
    /// Plain whitespace after a classed run, held back in case the next run
    /// has the same class (then the whitespace joins it: one span, not two).
    space: String,
}

impl Runs {
    /// Adds `text` with `class`. Whitespace at either end of a classed run
    /// stays outside the span (grammars often include the blank before an
    /// option, or the line break after a comment).
    fn push(&mut self, class: Option<&'static str>, text: &str) {
        if class.is_none() {
            self.push_run(None, text);
            return;
        }
        let core = text.trim_matches(is_space);
        if core.is_empty() {
            self.push_run(None, text);
            return;
        }
        let start = text.len() - text.trim_start_matches(is_space).len();
        let end = start + core.len();
        self.push_run(None, &text[..start]);
        self.push_run(class, core);
        self.push_run(None, &text[end..]);
    }

    fn push_run(&mut self, class: Option<&'static str>, text: &str) {
        if text.is_empty() {
            return;
        }
        if class.is_none() && self.class.is_some() && text.chars().all(is_space) {
            self.space.push_str(text);
            return;
        }
        if class == self.class {
            let space = std::mem::take(&mut self.space);
            self.text.push_str(&space);
            self.text.push_str(text);
            return;
        }
        self.flush();
        if !self.space.is_empty() {
            // Held-back whitespace, then a different class.
            let space = std::mem::take(&mut self.space);
            if class.is_none() {
                self.text.push_str(&space);
            } else {
                self.nodes.push(Node::Text(space));
            }
        }
        self.class = class;
        self.text.push_str(text);
    }

    fn flush(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.text);
        self.nodes.push(match self.class {
            Some(class) => Node::from(
                Element::new("span")
                    .with_attr("class", class)
                    .with_text(text),
            ),
            None => Node::Text(text),
        });
    }

    fn finish(mut self) -> Vec<Node> {
        self.flush();
        if !self.space.is_empty() {
            let space = std::mem::take(&mut self.space);
            self.nodes.push(Node::Text(space));
        }
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{parse_fragment, serialize_element, serialize_nodes};

    fn text_of(nodes: &[Node]) -> String {
        let mut out = String::new();
        for node in nodes {
            match node {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) => out.push_str(&e.text_content()),
                Node::Comment(_) => {}
            }
        }
        out
    }

    /// (class, text) of every span, in order.
    fn spans(nodes: &[Node]) -> Vec<(String, String)> {
        nodes
            .iter()
            .filter_map(|n| match n {
                Node::Element(e) => Some((
                    e.attr("class").unwrap_or_default().to_string(),
                    e.text_content(),
                )),
                _ => None,
            })
            .collect()
    }

    fn class_of_text(nodes: &[Node], needle: &str) -> Option<String> {
        spans(nodes)
            .into_iter()
            .find(|(_, text)| text.contains(needle))
            .map(|(class, _)| class)
    }

    fn hl(code: &str, language: &str) -> Vec<Node> {
        highlight(code, language).unwrap_or_else(|| panic!("{language} is known"))
    }

    #[test]
    fn rust_tokens_get_classes() {
        let nodes = hl("fn main() { let x = \"s\"; // c\n}\n", "rust");
        let spans = spans(&nodes);
        let class = |text: &str| {
            spans
                .iter()
                .find(|(_, t)| t.trim() == text)
                .map(|(c, _)| c.as_str())
                .unwrap_or_else(|| panic!("no span {text:?} in {spans:?}"))
        };
        assert!(["hl-keyword", "hl-storage"].contains(&class("fn")));
        assert!(["hl-keyword", "hl-storage"].contains(&class("let")));
        assert_eq!(class("main"), "hl-entity");
        assert_eq!(class("\"s\""), "hl-string");
        assert_eq!(class("// c"), "hl-comment");
        // Punctuation and plain identifiers are not wrapped.
        assert!(nodes.contains(&Node::Text(" x = ".into())), "{nodes:?}");
        for node in &nodes {
            if let Node::Element(e) = node {
                assert_eq!(e.name, "span");
                assert_eq!(e.attrs.len(), 1);
                assert!(matches!(e.children.as_slice(), [Node::Text(_)]));
            }
        }
    }

    #[test]
    fn text_is_preserved_exactly() {
        let cases = [
            (
                "rust",
                "use std::io;\n\nfn main() {\n    println!(\"{}\", 1 + 2); /* block\n comment */\n}\n",
            ),
            (
                "ruby",
                "class Foo < Bar\n  def hi(name)\n    puts \"Hi #{name}!\" # greet\n  end\nend\n",
            ),
            (
                "python",
                "def f(a, b=None):\n    \"\"\"doc\"\"\"\n    return a and not b\n",
            ),
            (
                "sh",
                "#!/bin/sh\nexport X=1\necho \"$HOME ${X}\" $(ls) | grep -v foo\n",
            ),
            ("yaml", "name: \"x\"\nlist:\n  - 1 # c\nflag: true"),
            (
                "python",
                "# 日本語のコメント\nprint('こんにちは')  # 挨拶\n",
            ),
            ("ruby", "# 日本語のコメント"),
            (
                "js",
                "const x = `a${b}c`;\r\nif (a instanceof B) { f(x); }\r\n",
            ),
            (
                "html",
                "<p class=\"x\">a &amp; b<!-- c --></p>\n<script>var a = 1 < 2;</script>\n",
            ),
            ("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"),
            ("markdown", "# Title\n\n```rust\nlet x = 1;\n```\n"),
            (
                "console",
                "$ echo hi \\\n> there\nhi there\n# apt-get update\r\n",
            ),
            ("c", "#include <stdio.h>\nint main(void) { return 0; }"),
            ("json", "{\"a\": [1, 2.5, true, null]}\n"),
            ("toml", "[package]\nname = \"x\" # c\n"),
            ("rust", ""),
            ("rust", "\n\n"),
            ("rust", "\r"),
            ("rust", "let s = \"unterminated\n"),
            ("rust", "\u{0}\u{1}\t\u{feff}x"),
        ];
        for (language, code) in cases {
            let nodes = hl(code, language);
            assert_eq!(text_of(&nodes), code, "{language}: {nodes:?}");
        }
    }

    #[test]
    fn japanese_comment() {
        let nodes = hl("x = 1 # 日本語のコメント\n", "python");
        assert_eq!(
            class_of_text(&nodes, "日本語").as_deref(),
            Some("hl-comment")
        );
        let nodes = hl("# 日本語のコメント", "sh");
        assert_eq!(
            spans(&nodes),
            vec![("hl-comment".to_string(), "# 日本語のコメント".to_string())]
        );
    }

    #[test]
    fn crlf_and_missing_newline() {
        let crlf = hl("// a\r\nlet x = 1;\r\n", "rust");
        assert_eq!(text_of(&crlf), "// a\r\nlet x = 1;\r\n");
        assert_eq!(class_of_text(&crlf, "// a").as_deref(), Some("hl-comment"));
        // The CR does not confuse the grammar: same classes as with LF.
        let lf = hl("// a\nlet x = 1;\n", "rust");
        assert_eq!(
            spans(&crlf)
                .iter()
                .map(|(c, t)| (c.clone(), t.replace('\r', "")))
                .collect::<Vec<_>>(),
            spans(&lf)
        );
        // A line comment on the last line without a newline is still a comment.
        let nodes = hl("x = 1 # c", "ruby");
        assert_eq!(class_of_text(&nodes, "# c").as_deref(), Some("hl-comment"));
        assert_eq!(text_of(&nodes), "x = 1 # c");
    }

    #[test]
    fn unknown_and_plain_languages() {
        for language in ["", "  ", "no-such-language", "text", "TXT", "plain", "🦀"] {
            assert!(highlight("x", language).is_none(), "{language}");
        }
    }

    #[test]
    fn aliases() {
        let code = "x = 'a' # c\n";
        let same = |names: &[&str]| {
            let first = hl(code, names[0]);
            for name in &names[1..] {
                assert_eq!(hl(code, name), first, "{name} vs {}", names[0]);
            }
        };
        same(&["rb", "ruby", "Ruby", "RUBY"]);
        same(&["sh", "bash", "shell", "zsh"]);
        same(&["js", "javascript", "JavaScript"]);
        same(&["py", "python"]);
        same(&["yml", "yaml"]);
        same(&["rust", "rs", "rust,ignore", " Rust "]);
        for language in [
            "rust",
            "rb",
            "ruby",
            "python",
            "sh",
            "shell",
            "console",
            "yaml",
            "json",
            "c",
            "cpp",
            "C++",
            "java",
            "js",
            "javascript",
            "ts",
            "typescript",
            "html",
            "xml",
            "css",
            "sql",
            "go",
            "diff",
            "makefile",
            "Makefile",
            "dockerfile",
            "Dockerfile",
            "toml",
            "ini",
            "csharp",
            "cs",
            "kotlin",
            "swift",
            "php",
            "perl",
            "lua",
            "haskell",
            "scala",
            "r",
            "tex",
            "latex",
            "markdown",
            "md",
            "elixir",
            "clojure",
            "fsharp",
            "zig",
            "nginx",
        ] {
            assert!(highlight("x\n", language).is_some(), "{language}");
        }
    }

    #[test]
    fn console_sessions() {
        let code = "$ ls -l # list\nfile.txt\n% echo \"a\"\na\n";
        let nodes = hl(code, "console");
        assert_eq!(text_of(&nodes), code);
        assert_eq!(
            class_of_text(&nodes, "# list").as_deref(),
            Some("hl-comment")
        );
        assert_eq!(class_of_text(&nodes, "\"a\"").as_deref(), Some("hl-string"));
        // Prompts and output are plain.
        assert!(matches!(&nodes[0], Node::Text(t) if t.starts_with("$ ")));
        assert!(
            nodes
                .iter()
                .any(|n| matches!(n, Node::Text(t) if t.contains("file.txt")))
        );
        // An unclosed quote in one command does not colour the next output.
        let nodes = hl("$ echo 'oops\noutput\n$ ls\n", "console");
        assert!(class_of_text(&nodes, "output").is_none(), "{nodes:?}");
    }

    #[test]
    fn diff_and_markup_classes() {
        let nodes = hl("@@ -1 +1 @@\n-old\n+new\n same\n", "diff");
        assert_eq!(class_of_text(&nodes, "old").as_deref(), Some("hl-deleted"));
        assert_eq!(class_of_text(&nodes, "new").as_deref(), Some("hl-inserted"));
        let nodes = hl("<a href=\"x\">t</a>", "html");
        assert_eq!(class_of_text(&nodes, "a").as_deref(), Some("hl-tag"));
        assert_eq!(
            class_of_text(&nodes, "href").as_deref(),
            Some("hl-attribute")
        );
        let nodes = hl("# Title\n", "markdown");
        assert_eq!(
            spans(&nodes),
            vec![("hl-heading".to_string(), "# Title".to_string())]
        );
    }

    #[test]
    fn word_operators_are_keywords_symbols_are_plain() {
        let nodes = hl("a and not b + c\n", "python");
        assert_eq!(class_of_text(&nodes, "and").as_deref(), Some("hl-keyword"));
        assert!(class_of_text(&nodes, "+").is_none(), "{nodes:?}");
    }

    #[test]
    fn same_class_runs_merge() {
        let nodes = hl("// one\n// two\n", "rust");
        assert_eq!(
            spans(&nodes),
            vec![("hl-comment".to_string(), "// one\n// two".to_string())]
        );
        let nodes = hl("    // one\n    // two\n", "rust");
        assert_eq!(spans(&nodes).len(), 1, "{nodes:?}");
        // Blanks at the ends of a run stay outside the span.
        let nodes = hl("grep -v x\n", "sh");
        assert!(
            spans(&nodes).iter().all(|(_, t)| t.trim() == t),
            "{nodes:?}"
        );
        // No two neighbours share a class, and no text nodes are adjacent.
        let nodes = hl(
            "pub fn f(x: u32) -> u32 {\n    let y = x + 1; // add\n    y\n}\n",
            "rust",
        );
        for pair in nodes.windows(2) {
            match pair {
                [Node::Text(_), Node::Text(_)] => panic!("adjacent text: {pair:?}"),
                [Node::Element(a), Node::Element(b)] => {
                    assert_ne!(a.attr("class"), b.attr("class"), "{pair:?}")
                }
                _ => {}
            }
        }
    }

    #[test]
    fn spans_give_back_the_same_nodes() {
        let code = "fn main() {\n    let s = \"猫\"; // コメント\n}\n";
        let nodes = hl(code, "rust");
        let spans = highlight_spans(code, "rust").unwrap().unwrap();
        assert_eq!(spans.nodes(code).unwrap(), nodes);
        let mut ahead = Highlights::default();
        ahead.insert("rust".into(), code.into(), Some(spans.clone()));
        assert_eq!(ahead.get(code, "rust").unwrap(), nodes);
        // Spans that do not fit the text are never used.
        assert_eq!(spans.nodes("fn"), None);
        assert_eq!(highlight_spans("x", "text"), Some(None));
    }

    #[test]
    fn deterministic() {
        let code = "class A\n  def b; 1; end # c\nend\n";
        assert_eq!(highlight(code, "ruby"), highlight(code, "ruby"));
        assert_eq!(stylesheet(), stylesheet());
    }

    #[test]
    fn serializes_to_well_formed_xhtml() {
        let code = "if a < b && c > d { s = \"<&>\"; } // ]]> -- \u{1}\r\n";
        for language in ["rust", "html", "xml", "c", "js"] {
            let nodes = hl(code, language);
            let xhtml = serialize_nodes(&nodes);
            let back =
                parse_fragment(&xhtml).unwrap_or_else(|e| panic!("{language}: {e}: {xhtml}"));
            // The control character is replaced by the serializer, as everywhere.
            assert_eq!(text_of(&back), code.replace('\u{1}', "\u{FFFD}"));
            assert_eq!(serialize_nodes(&back), xhtml);
        }
        let mut code = Element::new("code").with_attr("class", "language-rust");
        code.children = hl("fn f() {}\n", "rust");
        let xhtml = serialize_element(&Element::new("pre").with_child(code));
        assert!(xhtml.starts_with("<pre><code class=\"language-rust\"><span class=\"hl-"));
        assert!(parse_fragment(&xhtml).is_ok());
    }

    #[test]
    fn stylesheet_covers_every_class() {
        let css = stylesheet();
        let samples = [
            (
                "rust",
                "/// doc\npub fn f<T>(x: &str) -> Option<u8> { let s = \"a\\n\"; Some(1) }\nimpl A for B {}\n",
            ),
            (
                "python",
                "@dec\nclass C(B):\n    def f(self, a=None): return len(a) and True\n",
            ),
            ("sh", "export X=1; echo \"$X\" ${Y} | grep -v z # c\n"),
            ("html", "<!DOCTYPE html>\n<a href=\"x\">&amp;</a>\n"),
            ("diff", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"),
            ("markdown", "# T\n\nSome `code`.\n"),
            (
                "css",
                "a:hover { color: #fff; margin: 0 auto !important; }\n",
            ),
            ("json", "{\"a\": [1, true, null]}\n"),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for (language, code) in samples {
            for (class, _) in spans(&hl(code, language)) {
                seen.insert(class);
            }
        }
        // Every class the rules can produce, plus those seen in real output.
        for (_, rule) in RULES {
            if let Rule::Class(class) = rule {
                seen.insert(class.to_string());
            }
        }
        seen.insert("hl-keyword".to_string());
        for class in &seen {
            assert!(
                CLASSES.iter().any(|c| c.name == class),
                "{class} missing from CLASSES"
            );
            assert!(css.contains(&format!(".{class} {{")), "{class} has no rule");
        }
        assert_eq!(seen.len(), CLASSES.len(), "{seen:?}");
        assert!(!css.contains("background"));
    }

    #[test]
    fn hostile_inputs_do_not_panic() {
        let long = "a".repeat(MAX_LINE_BYTES + 1);
        assert!(highlight(&long, "rust").is_none());
        let many = "\"".repeat(5000);
        for language in [
            "rust", "ruby", "python", "sh", "console", "html", "markdown", "yaml",
        ] {
            for code in [
                many.as_str(),
                "\u{0}",
                "\r\r\n\n\r",
                "/* never closed",
                "<<EOF\nx\n",
                "$ ",
                "# ",
                "$ \\\n",
                "é\u{10FFFF}\u{FFFF}",
            ] {
                if let Some(nodes) = highlight(code, language) {
                    assert_eq!(text_of(&nodes), code, "{language}");
                }
            }
        }
    }
}
