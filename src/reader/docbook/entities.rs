//! Character entities a DocBook DTD would define (ISO 8879 sets as shipped with DocBook 4.x:
//! isolat1, isolat2 (common), isonum, isopub, isodia, isotech, isogrk3, plus the HTML names),
//! so books that rely on the DTD read without it.
use std::collections::HashMap;
use std::sync::OnceLock;

/// The replacement text of a built-in entity (the five XML ones included).
pub fn builtin(name: &str) -> Option<&'static str> {
    static MAP: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    MAP.get_or_init(|| TABLE.iter().copied().collect())
        .get(name)
        .copied()
}

#[rustfmt::skip]
const TABLE: &[(&str, &str)] = &[
    // XML
    ("amp", "&"), ("lt", "<"), ("gt", ">"), ("quot", "\""), ("apos", "'"),
    // isolat1 / HTML Latin-1
    ("nbsp", "\u{a0}"), ("iexcl", "¡"), ("cent", "¢"), ("pound", "£"), ("curren", "¤"),
    ("yen", "¥"), ("brvbar", "¦"), ("sect", "§"), ("uml", "¨"), ("copy", "©"), ("ordf", "ª"),
    ("laquo", "«"), ("not", "¬"), ("shy", "\u{ad}"), ("reg", "®"), ("macr", "¯"), ("deg", "°"),
    ("plusmn", "±"), ("sup2", "²"), ("sup3", "³"), ("acute", "´"), ("micro", "µ"),
    ("para", "¶"), ("middot", "·"), ("cedil", "¸"), ("sup1", "¹"), ("ordm", "º"),
    ("raquo", "»"), ("frac14", "¼"), ("frac12", "½"), ("frac34", "¾"), ("iquest", "¿"),
    ("Agrave", "À"), ("Aacute", "Á"), ("Acirc", "Â"), ("Atilde", "Ã"), ("Auml", "Ä"),
    ("Aring", "Å"), ("AElig", "Æ"), ("Ccedil", "Ç"), ("Egrave", "È"), ("Eacute", "É"),
    ("Ecirc", "Ê"), ("Euml", "Ë"), ("Igrave", "Ì"), ("Iacute", "Í"), ("Icirc", "Î"),
    ("Iuml", "Ï"), ("ETH", "Ð"), ("Ntilde", "Ñ"), ("Ograve", "Ò"), ("Oacute", "Ó"),
    ("Ocirc", "Ô"), ("Otilde", "Õ"), ("Ouml", "Ö"), ("times", "×"), ("Oslash", "Ø"),
    ("Ugrave", "Ù"), ("Uacute", "Ú"), ("Ucirc", "Û"), ("Uuml", "Ü"), ("Yacute", "Ý"),
    ("THORN", "Þ"), ("szlig", "ß"), ("agrave", "à"), ("aacute", "á"), ("acirc", "â"),
    ("atilde", "ã"), ("auml", "ä"), ("aring", "å"), ("aelig", "æ"), ("ccedil", "ç"),
    ("egrave", "è"), ("eacute", "é"), ("ecirc", "ê"), ("euml", "ë"), ("igrave", "ì"),
    ("iacute", "í"), ("icirc", "î"), ("iuml", "ï"), ("eth", "ð"), ("ntilde", "ñ"),
    ("ograve", "ò"), ("oacute", "ó"), ("ocirc", "ô"), ("otilde", "õ"), ("ouml", "ö"),
    ("divide", "÷"), ("oslash", "ø"), ("ugrave", "ù"), ("uacute", "ú"), ("ucirc", "û"),
    ("uuml", "ü"), ("yacute", "ý"), ("thorn", "þ"), ("yuml", "ÿ"),
    // isolat2 (common)
    ("Amacr", "Ā"), ("amacr", "ā"), ("Abreve", "Ă"), ("abreve", "ă"), ("Aogon", "Ą"),
    ("aogon", "ą"), ("Cacute", "Ć"), ("cacute", "ć"), ("Ccaron", "Č"), ("ccaron", "č"),
    ("Dcaron", "Ď"), ("dcaron", "ď"), ("Dstrok", "Đ"), ("dstrok", "đ"), ("Emacr", "Ē"),
    ("emacr", "ē"), ("Edot", "Ė"), ("edot", "ė"), ("Eogon", "Ę"), ("eogon", "ę"),
    ("Ecaron", "Ě"), ("ecaron", "ě"), ("Gbreve", "Ğ"), ("gbreve", "ğ"), ("Imacr", "Ī"),
    ("imacr", "ī"), ("Iogon", "Į"), ("iogon", "į"), ("Idot", "İ"), ("inodot", "ı"),
    ("IJlig", "Ĳ"), ("ijlig", "ĳ"), ("Lacute", "Ĺ"), ("lacute", "ĺ"), ("Lcaron", "Ľ"),
    ("lcaron", "ľ"), ("Lstrok", "Ł"), ("lstrok", "ł"), ("Nacute", "Ń"), ("nacute", "ń"),
    ("Ncaron", "Ň"), ("ncaron", "ň"), ("Omacr", "Ō"), ("omacr", "ō"), ("Odblac", "Ő"),
    ("odblac", "ő"), ("OElig", "Œ"), ("oelig", "œ"), ("Racute", "Ŕ"), ("racute", "ŕ"),
    ("Rcaron", "Ř"), ("rcaron", "ř"), ("Sacute", "Ś"), ("sacute", "ś"), ("Scedil", "Ş"),
    ("scedil", "ş"), ("Scaron", "Š"), ("scaron", "š"), ("Tcedil", "Ţ"), ("tcedil", "ţ"),
    ("Tcaron", "Ť"), ("tcaron", "ť"), ("Umacr", "Ū"), ("umacr", "ū"), ("Uring", "Ů"),
    ("uring", "ů"), ("Udblac", "Ű"), ("udblac", "ű"), ("Uogon", "Ų"), ("uogon", "ų"),
    ("Yuml", "Ÿ"), ("Zacute", "Ź"), ("zacute", "ź"), ("Zdot", "Ż"), ("zdot", "ż"),
    ("Zcaron", "Ž"), ("zcaron", "ž"), ("fnof", "ƒ"),
    // isodia
    ("circ", "ˆ"), ("tilde", "˜"), ("breve", "˘"), ("caron", "ˇ"), ("dot", "˙"), ("ring", "˚"),
    ("ogon", "˛"), ("dblac", "˝"), ("die", "¨"), ("grave", "`"),
    // isonum
    ("half", "½"), ("frac18", "⅛"), ("frac38", "⅜"), ("frac58", "⅝"), ("frac78", "⅞"),
    ("frac13", "⅓"), ("frac23", "⅔"), ("frac15", "⅕"), ("frac25", "⅖"), ("frac35", "⅗"),
    ("frac45", "⅘"), ("frac16", "⅙"), ("frac56", "⅚"), ("ohm", "Ω"), ("excl", "!"),
    ("num", "#"), ("dollar", "$"), ("percnt", "%"), ("lpar", "("), ("rpar", ")"),
    ("ast", "*"), ("plus", "+"), ("comma", ","), ("hyphen", "‐"), ("period", "."),
    ("sol", "/"), ("colon", ":"), ("semi", ";"), ("equals", "="), ("quest", "?"),
    ("commat", "@"), ("lsqb", "["), ("bsol", "\\"), ("rsqb", "]"), ("lowbar", "_"),
    ("lcub", "{"), ("verbar", "|"), ("rcub", "}"), ("horbar", "―"), ("check", "✓"),
    ("cross", "✗"), ("sung", "♪"), ("flat", "♭"), ("natur", "♮"), ("sharp", "♯"),
    ("lsquor", "‚"), ("ldquor", "„"),
    // isopub and HTML general punctuation
    ("ensp", "\u{2002}"), ("emsp", "\u{2003}"), ("emsp13", "\u{2004}"),
    ("emsp14", "\u{2005}"), ("numsp", "\u{2007}"), ("puncsp", "\u{2008}"),
    ("thinsp", "\u{2009}"), ("hairsp", "\u{200a}"), ("zwnj", "\u{200c}"), ("zwj", "\u{200d}"),
    ("lrm", "\u{200e}"), ("rlm", "\u{200f}"), ("dash", "‐"), ("ndash", "–"), ("mdash", "—"),
    ("lsquo", "‘"), ("rsquo", "’"), ("sbquo", "‚"), ("ldquo", "“"), ("rdquo", "”"),
    ("bdquo", "„"), ("dagger", "†"), ("Dagger", "‡"), ("bull", "•"), ("hellip", "…"),
    ("mldr", "…"), ("nldr", "‥"), ("permil", "‰"), ("prime", "′"), ("Prime", "″"),
    ("tprime", "‴"), ("bprime", "‵"), ("lsaquo", "‹"), ("rsaquo", "›"), ("oline", "‾"),
    ("frasl", "⁄"), ("caret", "⁁"), ("euro", "€"), ("image", "ℑ"), ("weierp", "℘"),
    ("real", "ℜ"), ("trade", "™"), ("alefsym", "ℵ"), ("copysr", "℗"), ("incare", "℅"),
    ("blank", "␣"), ("star", "☆"), ("starf", "★"), ("phone", "☎"), ("female", "♀"),
    ("male", "♂"), ("spades", "♠"), ("clubs", "♣"), ("hearts", "♥"), ("diams", "♦"),
    ("loz", "◊"), ("squ", "□"), ("square", "□"), ("rect", "▭"), ("marker", "▮"),
    ("cir", "○"), ("ltri", "◃"), ("rtri", "▹"), ("utri", "▵"), ("dtri", "▿"),
    ("vellip", "⋮"), ("lhblk", "▄"), ("uhblk", "▀"), ("block", "█"), ("blk14", "░"),
    ("blk12", "▒"), ("blk34", "▓"), ("sext", "✶"), ("malt", "✠"), ("telrec", "⌕"),
    ("target", "⌖"), ("lang", "〈"), ("rang", "〉"),
    // arrows
    ("larr", "←"), ("uarr", "↑"), ("rarr", "→"), ("darr", "↓"), ("harr", "↔"),
    ("varr", "↕"), ("crarr", "↵"), ("lArr", "⇐"), ("uArr", "⇑"), ("rArr", "⇒"),
    ("dArr", "⇓"), ("hArr", "⇔"), ("vArr", "⇕"),
    // isotech and HTML math
    ("forall", "∀"), ("part", "∂"), ("exist", "∃"), ("empty", "∅"), ("nabla", "∇"),
    ("isin", "∈"), ("notin", "∉"), ("ni", "∋"), ("prod", "∏"), ("sum", "∑"),
    ("minus", "−"), ("mnplus", "∓"), ("lowast", "∗"), ("radic", "√"), ("prop", "∝"),
    ("infin", "∞"), ("ang", "∠"), ("and", "∧"), ("or", "∨"), ("cap", "∩"), ("cup", "∪"),
    ("int", "∫"), ("there4", "∴"), ("becaus", "∵"), ("sim", "∼"), ("cong", "≅"),
    ("asymp", "≈"), ("ap", "≈"), ("ne", "≠"), ("equiv", "≡"), ("le", "≤"), ("ge", "≥"),
    ("sub", "⊂"), ("sup", "⊃"), ("nsub", "⊄"), ("sube", "⊆"), ("supe", "⊇"),
    ("oplus", "⊕"), ("otimes", "⊗"), ("perp", "⊥"), ("sdot", "⋅"), ("lceil", "⌈"),
    ("rceil", "⌉"), ("lfloor", "⌊"), ("rfloor", "⌋"), ("compfn", "∘"), ("Verbar", "‖"),
    ("conint", "∮"), ("par", "∥"), ("npar", "∦"), ("wedgeq", "≙"), ("iff", "⇔"),
    ("vprop", "∝"), ("Lt", "≪"), ("Gt", "≫"),
    // isogrk3 and HTML Greek
    ("Alpha", "Α"), ("Beta", "Β"), ("Gamma", "Γ"), ("Delta", "Δ"), ("Epsilon", "Ε"),
    ("Zeta", "Ζ"), ("Eta", "Η"), ("Theta", "Θ"), ("Iota", "Ι"), ("Kappa", "Κ"),
    ("Lambda", "Λ"), ("Mu", "Μ"), ("Nu", "Ν"), ("Xi", "Ξ"), ("Omicron", "Ο"), ("Pi", "Π"),
    ("Rho", "Ρ"), ("Sigma", "Σ"), ("Tau", "Τ"), ("Upsilon", "Υ"), ("Upsi", "ϒ"),
    ("Phi", "Φ"), ("Chi", "Χ"), ("Psi", "Ψ"), ("Omega", "Ω"), ("alpha", "α"),
    ("beta", "β"), ("gamma", "γ"), ("delta", "δ"), ("epsilon", "ε"), ("epsi", "ε"),
    ("epsiv", "ϵ"), ("zeta", "ζ"), ("eta", "η"), ("theta", "θ"), ("thetav", "ϑ"),
    ("thetasym", "ϑ"), ("iota", "ι"), ("kappa", "κ"), ("kappav", "ϰ"), ("lambda", "λ"),
    ("mu", "μ"), ("nu", "ν"), ("xi", "ξ"), ("omicron", "ο"), ("pi", "π"), ("piv", "ϖ"),
    ("rho", "ρ"), ("rhov", "ϱ"), ("sigma", "σ"), ("sigmaf", "ς"), ("sigmav", "ς"),
    ("tau", "τ"), ("upsilon", "υ"), ("upsi", "υ"), ("upsih", "ϒ"), ("phi", "φ"),
    ("phiv", "ϕ"), ("chi", "χ"), ("psi", "ψ"), ("omega", "ω"), ("gammad", "ϝ"),
];
