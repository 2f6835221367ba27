//! What TeX's symbol commands stand for: the character, and whether MathML shows it as an
//! identifier (`mi`) or an operator (`mo`), which decides its spacing.

/// How a symbol is marked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// An identifier: letters, ∞, ∂.
    Ident,
    /// An upright identifier (TeX's capital Greek): `mi mathvariant="normal"`.
    Upright,
    /// A binary operator, relation, arrow or punctuation.
    Op,
    /// A delimiter: does not stretch unless `\left`, `\right` or `\big` asks it to.
    Fence,
    /// A large operator whose limits go above and below (∑, ⋃).
    BigOp,
    /// An integral: its limits go to the side unless `\limits` asks otherwise.
    Integral,
}

/// The symbols commands name, with how each lays out (TeX's names).
const SYMBOLS: &[(&str, char, Class)] = {
    use Class::*;
    &[
        // Greek, lower case (TeX's \epsilon is the lunate ϵ, \varepsilon the open ε).
        ("alpha", 'α', Ident),
        ("beta", 'β', Ident),
        ("gamma", 'γ', Ident),
        ("delta", 'δ', Ident),
        ("epsilon", 'ϵ', Ident),
        ("varepsilon", 'ε', Ident),
        ("zeta", 'ζ', Ident),
        ("eta", 'η', Ident),
        ("theta", 'θ', Ident),
        ("vartheta", 'ϑ', Ident),
        ("iota", 'ι', Ident),
        ("kappa", 'κ', Ident),
        ("lambda", 'λ', Ident),
        ("mu", 'μ', Ident),
        ("nu", 'ν', Ident),
        ("xi", 'ξ', Ident),
        ("omicron", 'ο', Ident),
        ("pi", 'π', Ident),
        ("varpi", 'ϖ', Ident),
        ("rho", 'ρ', Ident),
        ("varrho", 'ϱ', Ident),
        ("sigma", 'σ', Ident),
        ("varsigma", 'ς', Ident),
        ("tau", 'τ', Ident),
        ("upsilon", 'υ', Ident),
        ("phi", 'ϕ', Ident),
        ("varphi", 'φ', Ident),
        ("chi", 'χ', Ident),
        ("psi", 'ψ', Ident),
        ("omega", 'ω', Ident),
        // Greek, upper case: upright in TeX.
        ("Gamma", 'Γ', Upright),
        ("Delta", 'Δ', Upright),
        ("Theta", 'Θ', Upright),
        ("Lambda", 'Λ', Upright),
        ("Xi", 'Ξ', Upright),
        ("Pi", 'Π', Upright),
        ("Sigma", 'Σ', Upright),
        ("Upsilon", 'Υ', Upright),
        ("Phi", 'Φ', Upright),
        ("Psi", 'Ψ', Upright),
        ("Omega", 'Ω', Upright),
        // Letter-like symbols.
        ("infty", '∞', Ident),
        ("partial", '∂', Ident),
        ("nabla", '∇', Ident),
        ("emptyset", '∅', Ident),
        ("varnothing", '∅', Ident),
        ("hbar", 'ℏ', Ident),
        ("ell", 'ℓ', Ident),
        ("Re", 'ℜ', Ident),
        ("Im", 'ℑ', Ident),
        ("aleph", 'ℵ', Ident),
        ("wp", '℘', Ident),
        ("imath", 'ı', Ident),
        ("jmath", 'ȷ', Ident),
        ("angle", '∠', Ident),
        ("triangle", '△', Ident),
        ("top", '⊤', Ident),
        ("bot", '⊥', Ident),
        ("dagger", '†', Ident),
        ("ddagger", '‡', Ident),
        ("S", '§', Ident),
        ("P", '¶', Ident),
        ("#", '#', Ident),
        ("$", '$', Ident),
        ("%", '%', Ident),
        ("&", '&', Op),
        ("_", '_', Ident),
        ("prime", '′', Op),
        ("forall", '∀', Op),
        ("exists", '∃', Op),
        ("nexists", '∄', Op),
        ("neg", '¬', Op),
        ("lnot", '¬', Op),
        // Binary operators.
        ("pm", '±', Op),
        ("mp", '∓', Op),
        ("times", '×', Op),
        ("div", '÷', Op),
        ("cdot", '⋅', Op),
        ("ast", '∗', Op),
        ("star", '⋆', Op),
        ("circ", '∘', Op),
        ("bullet", '∙', Op),
        ("oplus", '⊕', Op),
        ("ominus", '⊖', Op),
        ("otimes", '⊗', Op),
        ("oslash", '⊘', Op),
        ("odot", '⊙', Op),
        ("cap", '∩', Op),
        ("cup", '∪', Op),
        ("sqcap", '⊓', Op),
        ("sqcup", '⊔', Op),
        ("wedge", '∧', Op),
        ("land", '∧', Op),
        ("vee", '∨', Op),
        ("lor", '∨', Op),
        ("setminus", '∖', Op),
        ("wr", '≀', Op),
        ("diamond", '⋄', Op),
        ("amalg", '⨿', Op),
        // Relations.
        ("leq", '≤', Op),
        ("le", '≤', Op),
        ("geq", '≥', Op),
        ("ge", '≥', Op),
        ("leqq", '≦', Op),
        ("geqq", '≧', Op),
        ("leqslant", '⩽', Op),
        ("geqslant", '⩾', Op),
        ("neq", '≠', Op),
        ("ne", '≠', Op),
        ("equiv", '≡', Op),
        ("approx", '≈', Op),
        ("sim", '∼', Op),
        ("simeq", '≃', Op),
        ("cong", '≅', Op),
        ("propto", '∝', Op),
        ("ll", '≪', Op),
        ("gg", '≫', Op),
        ("prec", '≺', Op),
        ("succ", '≻', Op),
        ("preceq", '⪯', Op),
        ("succeq", '⪰', Op),
        ("subset", '⊂', Op),
        ("supset", '⊃', Op),
        ("subseteq", '⊆', Op),
        ("supseteq", '⊇', Op),
        ("subsetneq", '⊊', Op),
        ("supsetneq", '⊋', Op),
        ("in", '∈', Op),
        ("notin", '∉', Op),
        ("ni", '∋', Op),
        ("owns", '∋', Op),
        ("perp", '⊥', Op),
        ("parallel", '∥', Op),
        ("mid", '∣', Op),
        ("nmid", '∤', Op),
        ("models", '⊨', Op),
        ("vdash", '⊢', Op),
        ("dashv", '⊣', Op),
        ("doteq", '≐', Op),
        ("coloneqq", '≔', Op),
        ("asymp", '≍', Op),
        ("therefore", '∴', Op),
        ("because", '∵', Op),
        ("colon", ':', Op),
        // Arrows.
        ("to", '→', Op),
        ("rightarrow", '→', Op),
        ("gets", '←', Op),
        ("leftarrow", '←', Op),
        ("leftrightarrow", '↔', Op),
        ("Rightarrow", '⇒', Op),
        ("Leftarrow", '⇐', Op),
        ("Leftrightarrow", '⇔', Op),
        ("longrightarrow", '⟶', Op),
        ("longleftarrow", '⟵', Op),
        ("longleftrightarrow", '⟷', Op),
        ("Longrightarrow", '⟹', Op),
        ("implies", '⟹', Op),
        ("Longleftarrow", '⟸', Op),
        ("impliedby", '⟸', Op),
        ("Longleftrightarrow", '⟺', Op),
        ("iff", '⟺', Op),
        ("mapsto", '↦', Op),
        ("longmapsto", '⟼', Op),
        ("hookrightarrow", '↪', Op),
        ("hookleftarrow", '↩', Op),
        ("nearrow", '↗', Op),
        ("searrow", '↘', Op),
        ("swarrow", '↙', Op),
        ("nwarrow", '↖', Op),
        ("rightleftharpoons", '⇌', Op),
        ("leftrightarrows", '⇆', Op),
        ("rightharpoonup", '⇀', Op),
        ("leftharpoonup", '↼', Op),
        // Arrows that are also delimiters.
        ("uparrow", '↑', Fence),
        ("downarrow", '↓', Fence),
        ("updownarrow", '↕', Fence),
        ("Uparrow", '⇑', Fence),
        ("Downarrow", '⇓', Fence),
        ("Updownarrow", '⇕', Fence),
        // Dots.
        ("ldots", '…', Op),
        ("dots", '…', Op),
        ("dotsc", '…', Op),
        ("dotso", '…', Op),
        ("cdots", '⋯', Op),
        ("dotsb", '⋯', Op),
        ("dotsm", '⋯', Op),
        ("dotsi", '⋯', Op),
        ("vdots", '⋮', Op),
        ("ddots", '⋱', Op),
        // Delimiters.
        ("{", '{', Fence),
        ("lbrace", '{', Fence),
        ("}", '}', Fence),
        ("rbrace", '}', Fence),
        ("langle", '⟨', Fence),
        ("rangle", '⟩', Fence),
        ("lfloor", '⌊', Fence),
        ("rfloor", '⌋', Fence),
        ("lceil", '⌈', Fence),
        ("rceil", '⌉', Fence),
        ("vert", '|', Fence),
        ("lvert", '|', Fence),
        ("rvert", '|', Fence),
        ("|", '‖', Fence),
        ("Vert", '‖', Fence),
        ("lVert", '‖', Fence),
        ("rVert", '‖', Fence),
        ("backslash", '\\', Fence),
        ("lbrack", '[', Fence),
        ("rbrack", ']', Fence),
        // Large operators.
        ("sum", '∑', BigOp),
        ("prod", '∏', BigOp),
        ("coprod", '∐', BigOp),
        ("bigcup", '⋃', BigOp),
        ("bigcap", '⋂', BigOp),
        ("bigsqcup", '⨆', BigOp),
        ("bigvee", '⋁', BigOp),
        ("bigwedge", '⋀', BigOp),
        ("bigoplus", '⨁', BigOp),
        ("bigotimes", '⨂', BigOp),
        ("bigodot", '⨀', BigOp),
        ("biguplus", '⨄', BigOp),
        ("int", '∫', Integral),
        ("iint", '∬', Integral),
        ("iiint", '∭', Integral),
        ("oint", '∮', Integral),
    ]
};

/// The symbol a command names, if it names one.
pub(super) fn symbol(name: &str) -> Option<(char, Class)> {
    SYMBOLS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, c, class)| (*c, *class))
}

/// A delimiter as `\left`, `\right` and `\big` take it: a character, or a command naming one.
pub(super) fn delimiter_char(c: char) -> Option<char> {
    matches!(c, '(' | ')' | '[' | ']' | '|' | '/' | '<' | '>').then_some(match c {
        '<' => '⟨',
        '>' => '⟩',
        c => c,
    })
}

/// `\sin`, `\log`…: a function name, upright; `true` when its limits go below it (`\lim`,
/// `\max`).
pub(super) fn function(name: &str) -> Option<(&'static str, bool)> {
    let f = match name {
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "cot" => "cot",
        "sec" => "sec",
        "csc" => "csc",
        "arcsin" => "arcsin",
        "arccos" => "arccos",
        "arctan" => "arctan",
        "sinh" => "sinh",
        "cosh" => "cosh",
        "tanh" => "tanh",
        "coth" => "coth",
        "log" => "log",
        "ln" => "ln",
        "lg" => "lg",
        "exp" => "exp",
        "deg" => "deg",
        "dim" => "dim",
        "hom" => "hom",
        "ker" => "ker",
        "arg" => "arg",
        // TeX puts limits under these too, but books write them as functions: `\det A`.
        "det" => "det",
        "gcd" => "gcd",
        "Pr" => "Pr",
        _ => {
            let f = match name {
                "lim" => "lim",
                "liminf" => "lim inf",
                "limsup" => "lim sup",
                "max" => "max",
                "min" => "min",
                "sup" => "sup",
                "inf" => "inf",
                _ => return None,
            };
            return Some((f, true));
        }
    };
    Some((f, false))
}

/// An accent command: the mark, whether it stretches over its base, and whether it goes
/// below.
pub(super) fn accent(name: &str) -> Option<(char, bool, bool)> {
    Some(match name {
        "hat" => ('^', false, false),
        "widehat" => ('^', true, false),
        "check" => ('ˇ', false, false),
        "tilde" => ('~', false, false),
        "widetilde" => ('~', true, false),
        "acute" => ('´', false, false),
        "grave" => ('`', false, false),
        "dot" => ('˙', false, false),
        "ddot" => ('¨', false, false),
        "breve" => ('˘', false, false),
        "bar" => ('¯', false, false),
        "vec" => ('→', false, false),
        "overline" => ('‾', true, false),
        "overrightarrow" => ('→', true, false),
        "overleftarrow" => ('←', true, false),
        "overleftrightarrow" => ('↔', true, false),
        "overbrace" => ('⏞', true, false),
        "underline" => ('_', true, true),
        "underbrace" => ('⏟', true, true),
        "underrightarrow" => ('→', true, true),
        "underleftarrow" => ('←', true, true),
        _ => return None,
    })
}

/// The negated form of a relation, for `\not`: the precomposed character where Unicode has one,
/// else the character with a combining long solidus.
pub(super) fn negated(c: char) -> String {
    let n = match c {
        '=' => '≠',
        '<' => '≮',
        '>' => '≯',
        '≤' => '≰',
        '≥' => '≱',
        '≡' => '≢',
        '∼' => '≁',
        '≃' => '≄',
        '≅' => '≇',
        '≈' => '≉',
        '∈' => '∉',
        '∋' => '∌',
        '⊂' => '⊄',
        '⊃' => '⊅',
        '⊆' => '⊈',
        '⊇' => '⊉',
        '∣' => '∤',
        '∥' => '∦',
        '≺' => '⊀',
        '≻' => '⊁',
        '→' => '↛',
        '←' => '↚',
        '↔' => '↮',
        '⇒' => '⇏',
        '⇐' => '⇍',
        '⇔' => '⇎',
        '⊢' => '⊬',
        '⊨' => '⊭',
        c => return format!("{c}\u{338}"),
    };
    n.to_string()
}

/// A TeX font: `\mathbf` and its kin, or the old switches (`\bf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Font {
    /// `\mathrm`: upright.
    Roman,
    Bold,
    Italic,
    BoldItalic,
    DoubleStruck,
    Script,
    Fraktur,
    SansSerif,
    Monospace,
}

impl Font {
    pub(super) fn of(name: &str) -> Option<Font> {
        Some(match name {
            "mathrm" | "rm" | "mathup" => Font::Roman,
            "mathbf" | "bf" => Font::Bold,
            "mathit" | "it" => Font::Italic,
            "boldsymbol" | "bm" | "mathbfit" => Font::BoldItalic,
            "mathbb" => Font::DoubleStruck,
            "mathcal" | "mathscr" | "cal" => Font::Script,
            "mathfrak" => Font::Fraktur,
            "mathsf" | "sf" => Font::SansSerif,
            "mathtt" | "tt" => Font::Monospace,
            _ => return None,
        })
    }

    /// MathML's name for the font, for what Unicode has no styled letters for.
    pub(super) fn variant(self) -> &'static str {
        match self {
            Font::Roman => "normal",
            Font::Bold => "bold",
            Font::Italic => "italic",
            Font::BoldItalic => "bold-italic",
            Font::DoubleStruck => "double-struck",
            Font::Script => "script",
            Font::Fraktur => "fraktur",
            Font::SansSerif => "sans-serif",
            Font::Monospace => "monospace",
        }
    }

    /// The letter or digit in this font from Unicode's mathematical alphanumeric symbols
    /// (which every MathML renderer shows, where `mathvariant` beyond `normal` is not
    /// supported by MathML Core), or `None` for a character it has no styled form of.
    pub(super) fn styled(self, c: char) -> Option<char> {
        // Letters Unicode had before the block, whose places in it are left empty.
        let exception = match (self, c) {
            (Font::Italic, 'h') => Some('ℎ'),
            (Font::Script, 'B') => Some('ℬ'),
            (Font::Script, 'E') => Some('ℰ'),
            (Font::Script, 'F') => Some('ℱ'),
            (Font::Script, 'H') => Some('ℋ'),
            (Font::Script, 'I') => Some('ℐ'),
            (Font::Script, 'L') => Some('ℒ'),
            (Font::Script, 'M') => Some('ℳ'),
            (Font::Script, 'R') => Some('ℛ'),
            (Font::Script, 'e') => Some('ℯ'),
            (Font::Script, 'g') => Some('ℊ'),
            (Font::Script, 'o') => Some('ℴ'),
            (Font::Fraktur, 'C') => Some('ℭ'),
            (Font::Fraktur, 'H') => Some('ℌ'),
            (Font::Fraktur, 'I') => Some('ℑ'),
            (Font::Fraktur, 'R') => Some('ℜ'),
            (Font::Fraktur, 'Z') => Some('ℨ'),
            (Font::DoubleStruck, 'C') => Some('ℂ'),
            (Font::DoubleStruck, 'H') => Some('ℍ'),
            (Font::DoubleStruck, 'N') => Some('ℕ'),
            (Font::DoubleStruck, 'P') => Some('ℙ'),
            (Font::DoubleStruck, 'Q') => Some('ℚ'),
            (Font::DoubleStruck, 'R') => Some('ℝ'),
            (Font::DoubleStruck, 'Z') => Some('ℤ'),
            _ => None,
        };
        if exception.is_some() {
            return exception;
        }
        // The first capital of each alphabet, and the first digit where there are digits.
        let (letters, digits) = match self {
            Font::Roman => return None,
            Font::Bold => (0x1D400, Some(0x1D7CE)),
            Font::Italic => (0x1D434, None),
            Font::BoldItalic => (0x1D468, None),
            Font::Script => (0x1D49C, None),
            Font::Fraktur => (0x1D504, None),
            Font::DoubleStruck => (0x1D538, Some(0x1D7D8)),
            Font::SansSerif => (0x1D5A0, Some(0x1D7E2)),
            Font::Monospace => (0x1D670, Some(0x1D7F6)),
        };
        let code = match c {
            'A'..='Z' => letters + (c as u32 - 'A' as u32),
            'a'..='z' => letters + 26 + (c as u32 - 'a' as u32),
            '0'..='9' => digits? + (c as u32 - '0' as u32),
            _ => return None,
        };
        char::from_u32(code)
    }
}
