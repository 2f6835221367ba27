//! Generated words and number formats: the message table Re:VIEW's `i18n.yml` defines (the
//! keys an EPUB shows: chapter and object labels, caption and reference forms, note marks, page
//! titles, colophon words), a book's `locale.yml` over it, and Re:VIEW's number formats
//! (`%pA %pa %pAW %paW %pR %pr %pRW %pJ %pdW %pDW`).
//!
//! Re:VIEW books get Re:VIEW's own defaults; the other formats keep seihon's wording, which
//! differs where their own tools write otherwise (see [`Style`]).
use std::collections::BTreeMap;
use std::sync::Arc;

/// Whose wording the defaults follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Style {
    /// Re:VIEW 5.11's `i18n.yml`.
    Review,
    /// seihon's, for DocBook and Markdown: as Re:VIEW's, but `Chapter 1 Title` (no period),
    /// lettered appendices and curly quotes in English, `扉` for the title page.
    Seihon,
    /// DocBook XSL 1.79's gentext (`gentext/locale/en.xml`, `ja.xml`) for DocBook books:
    /// `Figure 2.1. Title` and `例2.1 Title` captions, `Chapter 1, Title` and
    /// `Section 2.3, “Title”` references; seihon's wording for the rest.
    DocBook,
}

macro_rules! messages {
    ($($variant:ident = $key:literal: $ja:literal, $en:literal;)*) => {
        /// A message key, by its name in Re:VIEW's `i18n.yml`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Msg { $($variant),* }

        impl Msg {
            pub const ALL: &'static [Msg] = &[$(Msg::$variant),*];

            /// The key as `locale.yml` writes it.
            pub fn key(self) -> &'static str {
                match self { $(Msg::$variant => $key),* }
            }

            fn review_default(self, ja: bool) -> &'static str {
                match self { $(Msg::$variant => if ja { $ja } else { $en }),* }
            }
        }
    };
}

// Re:VIEW 5.11's defaults (lib/review/i18n.yml), the keys an EPUB shows.
messages! {
    Chapter = "chapter": "第%d章", "Chapter %d";
    Part = "part": "第%pR部", "Part %pR";
    PartShort = "part_short": "%pR", "%pR";
    Appendix = "appendix": "付録%pA", "Appendix %s";
    ChapterPostfix = "chapter_postfix": "\u{3000}", ". ";
    Image = "image": "図", "Figure ";
    Table = "table": "表", "Table ";
    List = "list": "リスト", "List ";
    Equation = "equation": "式", "Equation ";
    Column = "column": "コラム「%s」", "Column %s";
    FormatNumber = "format_number": "%s.%d", "%s.%d";
    FormatNumberHeader = "format_number_header": "%s.%d:", "%s.%d:";
    FormatNumberWithoutChapter = "format_number_without_chapter": "%d", "%d";
    FormatNumberHeaderWithoutChapter = "format_number_header_without_chapter": "%d:", "%d:";
    CaptionPrefix = "caption_prefix": " ", " ";
    ChapterQuote = "chapter_quote": "%s「%s」", "%s \"%s\"";
    ChapterQuoteWithoutNumber = "chapter_quote_without_number": "「%s」", "\"%s\"";
    HdQuote = "hd_quote": "「%s %s」", "\"%s %s\"";
    HdQuoteWithoutNumber = "hd_quote_without_number": "「%s」", "\"%s\"";
    ImageQuote = "image_quote": "「%s」", "\"%s\"";
    FootnoteRefmark = "html_footnote_refmark": "*%s", "*%s";
    FootnoteTextmark = "html_footnote_textmark": "[*%s] ", "[*%s] ";
    EndnoteRefmark = "html_endnote_refmark": "(%s)", "(%s)";
    EndnoteTextmark = "html_endnote_textmark": "(%s) ", "(%s) ";
    RubyPrefix = "ruby_prefix": "（", "(";
    RubyPostfix = "ruby_postfix": "）", ")";
    TocTitle = "toctitle": "目次", "Table of Contents";
    CoverTitle = "covertitle": "表紙", "Cover";
    TitlePageTitle = "titlepagetitle": "大扉", "Title Page";
    ColophonTitle = "colophontitle": "奥付", "Colophon";
    OriginalTitle = "originaltitle": "原書大扉", "Title Page of Original";
    CreditTitle = "credittitle": "クレジット", "Credit";
    ProfileTitle = "profiletitle": "著者紹介", "Profile";
    AdvTitle = "advtitle": "広告", "Advertisement";
    BackCoverTitle = "backcovertitle": "裏表紙", "Back Cover";
    // seihon's own: Re:VIEW makes no index page for an EPUB.
    IndexTitle = "indextitle": "索引", "Index";
    // seihon's own, as DocBook XSL's gentext words an index's `see` and `seealso`.
    IndexSee = "index_see": "参照", "see";
    IndexSeeAlso = "index_see_also": "参照", "see also";
    Aut = "aut": "著　者", "Author";
    Csl = "csl": "監　修", "Consultant";
    Dsr = "dsr": "デザイン", "Design";
    Ill = "ill": "イラスト", "Illustrator";
    Cov = "cov": "表　紙", "Cover";
    Edt = "edt": "編　集", "Editor";
    Pht = "pht": "撮　影", "Director of Photography";
    Trl = "trl": "翻　訳", "Translator";
    Prt = "prt": "印刷所", "Printer";
    Pbl = "pbl": "発行所", "Publisher";
    Contact = "contact": "連絡先", "Contact";
    NamesSplitter = "names_splitter": "、", ", ";
    // seihon's own: the words of DocBook's numbered examples and of its references
    // (`xref`), each given the target's number label and its title.
    Example = "example": "例", "Example ";
    Procedure = "procedure": "手順", "Procedure ";
    XrefChapter = "xref_chapter": "%s「%s」", "%s \"%s\"";
    XrefAppendix = "xref_appendix": "%s「%s」", "%s \"%s\"";
    XrefSection = "xref_section": "「%s %s」", "\"%s %s\"";
    XrefSectionUnnumbered = "xref_section_unnumbered": "「%s」", "\"%s\"";
    XrefObject = "xref_object": "%s", "%s";
}

impl Msg {
    /// The colophon's heading of a role of Re:VIEW's `colophon_order`.
    pub fn of_role(role: &str) -> Option<Msg> {
        Some(match role {
            "aut" => Msg::Aut,
            "csl" => Msg::Csl,
            "dsr" => Msg::Dsr,
            "ill" => Msg::Ill,
            "cov" => Msg::Cov,
            "edt" => Msg::Edt,
            "pht" => Msg::Pht,
            "trl" => Msg::Trl,
            "prt" => Msg::Prt,
            "pbl" => Msg::Pbl,
            "contact" => Msg::Contact,
            _ => return None,
        })
    }

    fn default(self, style: Style, ja: bool) -> &'static str {
        if style == Style::DocBook {
            if let Some(m) = self.docbook_default(ja) {
                return m;
            }
            return self.default(Style::Seihon, ja);
        }
        match (style, self, ja) {
            (Style::Seihon, Msg::ChapterPostfix, false) => " ",
            (Style::Seihon, Msg::Appendix, false) => "Appendix %pA",
            (Style::Seihon, Msg::ChapterQuote, false) => "%s\u{201c}%s\u{201d}",
            (
                Style::Seihon,
                Msg::ChapterQuoteWithoutNumber | Msg::HdQuoteWithoutNumber | Msg::ImageQuote,
                false,
            ) => "\u{201c}%s\u{201d}",
            (Style::Seihon, Msg::HdQuote, false) => "\u{201c}%s %s\u{201d}",
            (Style::Seihon, Msg::Column, false) => "Column \u{201c}%s\u{201d}",
            (Style::Seihon, Msg::RubyPrefix, false) => "（",
            (Style::Seihon, Msg::RubyPostfix, false) => "）",
            (Style::Seihon, Msg::TocTitle, false) => "Contents",
            (Style::Seihon, Msg::TitlePageTitle, true) => "扉",
            (Style::Seihon, Msg::XrefChapter | Msg::XrefAppendix, false) => "%s\u{201c}%s\u{201d}",
            (Style::Seihon, Msg::XrefSection, false) => "\u{201c}%s %s\u{201d}",
            (Style::Seihon, Msg::XrefSectionUnnumbered, false) => "\u{201c}%s\u{201d}",
            _ => self.review_default(ja),
        }
    }

    /// DocBook XSL's gentext where it differs from seihon's: the `title` context of formal
    /// objects (`Figure&#160;%n.&#160;%t`, `図%n %t`) and the `xref-number-and-title` and
    /// `xref` contexts of references (the space after a word is a no-break space, as there).
    fn docbook_default(self, ja: bool) -> Option<&'static str> {
        Some(match (self, ja) {
            (Msg::Image, false) => "Figure\u{a0}",
            (Msg::Table, false) => "Table\u{a0}",
            (Msg::Equation, false) => "Equation\u{a0}",
            (Msg::Example, false) => "Example\u{a0}",
            (Msg::Procedure, false) => "Procedure\u{a0}",
            (Msg::FormatNumberHeader, false) => "%s.%d.",
            (Msg::FormatNumberHeaderWithoutChapter, false) => "%d.",
            (Msg::FormatNumberHeader, true) => "%s.%d",
            (Msg::FormatNumberHeaderWithoutChapter, true) => "%d",
            (Msg::CaptionPrefix, false) => "\u{a0}",
            (Msg::XrefChapter | Msg::XrefAppendix, false) => "%s, %s",
            (Msg::XrefChapter, true) => "%s%s",
            (Msg::XrefAppendix, true) => "%s %s",
            (Msg::XrefSection, false) => "Section\u{a0}%s, \u{201c}%s\u{201d}",
            (Msg::XrefSection, true) => "「%s」",
            (Msg::XrefSectionUnnumbered, false) => "the section called \u{201c}%s\u{201d}",
            (Msg::XrefSectionUnnumbered, true) => "「%s」",
            (Msg::XrefObject, false) => "%s, \u{201c}%s\u{201d}",
            (Msg::XrefObject, true) => "%s「%s」",
            _ => return None,
        })
    }
}

/// What a book's `locale.yml` sets, by language: Re:VIEW's two shapes (`locale: ja` and the
/// keys beside it, or one mapping per language) read into one.
pub type Overrides = BTreeMap<String, BTreeMap<String, String>>;

/// A book's message tables: its style and its `locale.yml`, from which each language's
/// [`Messages`] are made.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Locale {
    pub style: Style,
    pub overrides: Arc<Overrides>,
}

impl Default for Locale {
    fn default() -> Self {
        Locale {
            style: Style::Seihon,
            overrides: Arc::default(),
        }
    }
}

impl Locale {
    /// The messages of a language (`ja`, `ja-JP`, `en`…): Japanese for Japanese, English for
    /// every other, then what `locale.yml` sets for that language (by its full tag, else its
    /// primary subtag).
    pub fn messages(&self, lang: &str) -> Messages {
        let ja = lang.starts_with("ja");
        let primary = lang.split(['-', '_']).next().unwrap_or(lang);
        let over = self
            .overrides
            .get(lang)
            .or_else(|| self.overrides.get(primary));
        let table = Msg::ALL
            .iter()
            .map(|m| {
                over.and_then(|o| o.get(m.key()))
                    .cloned()
                    .unwrap_or_else(|| m.default(self.style, ja).to_string())
            })
            .collect();
        Messages {
            table: Arc::new(table),
            ja,
        }
    }
}

/// One language's messages, ready to format.
#[derive(Debug, Clone, PartialEq)]
pub struct Messages {
    table: Arc<Vec<String>>,
    /// Whether the language is Japanese (dates and names lines follow it).
    pub ja: bool,
}

impl serde::Serialize for Messages {
    /// As a mapping of Re:VIEW's keys, which is how templates see it (`messages.toctitle`).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(Msg::ALL.len()))?;
        for m in Msg::ALL {
            map.serialize_entry(m.key(), self.get(*m))?;
        }
        map.end()
    }
}

/// An argument of a message: numbers take Re:VIEW's number formats, text is put in as is.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    N(u32),
    S(&'a str),
}

impl Messages {
    /// The message as written (`locale.yml` or the default).
    pub fn get(&self, m: Msg) -> &str {
        &self.table[m as usize]
    }

    /// The message with its arguments put in, as Re:VIEW's `I18n.t` does.
    pub fn t(&self, m: Msg, args: &[Arg]) -> String {
        format(self.get(m), args)
    }

    /// What a chapter's number reads as inside object and section numbers: the number itself
    /// for a chapter (Re:VIEW's `format_number(false)`), the appendix format's first
    /// conversion for an appendix (`A` for `付録%pA`, `一` for `付録%pJ`).
    pub fn appendix_short(&self, n: u32) -> String {
        let fmt = self.get(Msg::Appendix);
        let first = tokens(fmt).first().map_or("%s", |(_, t)| *t);
        format(first, &[Arg::N(n)])
    }
}

/// The conversions a format holds, in order, with where each starts: `%` and one to three
/// ASCII letters (Re:VIEW scans for `%[A-Za-z]{1,3}` to match arguments to them). `%%` is a
/// literal percent.
fn tokens(fmt: &str) -> Vec<(usize, &str)> {
    let b = fmt.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if b.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            let n = b[i + 1..]
                .iter()
                .take(3)
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
            if n > 0 {
                out.push((i, &fmt[i..i + 1 + n]));
                i += 1 + n;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Re:VIEW's `I18n.t`: each `%p…` number format takes the argument at its place among the
/// conversions; `%s` and `%d` then take the arguments left, in order, when there are enough
/// of them (else the rest of the format is shown as written, as Re:VIEW does), and `%%` is a
/// percent sign.
pub fn format(fmt: &str, args: &[Arg]) -> String {
    let toks = tokens(fmt);
    let mut numbered: Vec<Option<String>> = Vec::with_capacity(toks.len());
    let mut rest: Vec<Arg> = Vec::new();
    for (idx, (_, tok)) in toks.iter().enumerate() {
        match (number_format(tok), args.get(idx)) {
            (Some(f), Some(Arg::N(n))) => numbered.push(Some(f(*n))),
            (Some(_), Some(Arg::S(s))) => numbered.push(Some(s.to_string())),
            (_, arg) => {
                numbered.push(None);
                rest.extend(arg.copied());
            }
        }
    }
    rest.extend(args.iter().skip(toks.len()).copied());
    let wanted = toks
        .iter()
        .zip(&numbered)
        .filter(|(_, n)| n.is_none())
        .count()
        + lone_percents(fmt);
    let formatting = wanted <= rest.len();
    let mut rest = rest.into_iter();
    let mut out = String::with_capacity(fmt.len() + 8);
    let mut at = 0;
    for ((start, tok), number) in toks.iter().zip(numbered) {
        out.push_str(&literal(&fmt[at..*start], formatting));
        at = start + tok.len();
        match number {
            Some(n) => out.push_str(&n),
            None if formatting && matches!(&tok[1..2], "s" | "d" | "i") => {
                match rest.next() {
                    Some(Arg::N(n)) => out.push_str(&n.to_string()),
                    Some(Arg::S(s)) => out.push_str(s),
                    None => {}
                }
                out.push_str(&tok[2..]);
            }
            None => out.push_str(tok),
        }
    }
    out.push_str(&literal(&fmt[at..], formatting));
    out
}

/// Text between conversions: `%%` is one percent sign once formatted.
fn literal(s: &str, formatting: bool) -> std::borrow::Cow<'_, str> {
    if formatting && s.contains("%%") {
        s.replace("%%", "%").into()
    } else {
        s.into()
    }
}

/// Percent signs that start no conversion and are not `%%` (Re:VIEW counts them as wanting
/// an argument).
fn lone_percents(fmt: &str) -> usize {
    let b = fmt.as_bytes();
    let (mut n, mut i) = (0, 0);
    while i < b.len() {
        if b[i] == b'%' {
            if b.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            if !b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
                n += 1;
            }
        }
        i += 1;
    }
    n
}

/// A `%p…` number format: the function that writes a number in it.
fn number_format(tok: &str) -> Option<fn(u32) -> String> {
    Some(match tok {
        "%pA" => |n| alpha(n, 'A'),
        "%pa" => |n| alpha(n, 'a'),
        "%pAW" => |n| alpha(n, 'Ａ'),
        "%paW" => |n| alpha(n, 'ａ'),
        "%pR" => roman_upper,
        "%pr" => |n| roman_upper(n).to_lowercase(),
        "%pRW" => roman_wide,
        "%pJ" => kanji,
        "%pdW" => |n| {
            if n < 10 {
                wide_digits(n)
            } else {
                n.to_string()
            }
        },
        "%pDW" => wide_digits,
        _ => return None,
    })
}

/// `1` → `A` (from `first`), to `Z`; beyond, the number itself.
pub fn alpha(n: u32, first: char) -> String {
    if (1..=26).contains(&n) {
        char::from_u32(first as u32 + n - 1).map_or_else(|| n.to_string(), String::from)
    } else {
        n.to_string()
    }
}

/// Upper-case Roman numerals (parts are numbered 第I部, 第II部…).
pub fn roman_upper(mut n: u32) -> String {
    const TABLE: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    if n == 0 {
        return "0".into();
    }
    let mut s = String::new();
    for (value, digits) in TABLE {
        while n >= value {
            s.push_str(digits);
            n -= value;
        }
    }
    s
}

/// Re:VIEW's wide Roman numerals: the Unicode forms to XII (Ⅴ and Ⅹ as full-width letters,
/// as Re:VIEW writes them), the wide digits beyond.
fn roman_wide(n: u32) -> String {
    const WIDE: [&str; 13] = [
        "０", "Ⅰ", "Ⅱ", "Ⅲ", "Ⅳ", "Ｖ", "Ⅵ", "Ⅶ", "Ⅷ", "Ⅸ", "Ｘ", "Ⅺ", "Ⅻ",
    ];
    WIDE.get(n as usize)
        .map_or_else(|| wide_digits(n), |s| s.to_string())
}

/// Full-width digits (`１２`).
fn wide_digits(n: u32) -> String {
    n.to_string()
        .chars()
        .map(|c| char::from_u32(c as u32 - '0' as u32 + '０' as u32).unwrap_or(c))
        .collect()
}

/// Kanji numerals as Re:VIEW writes them (`〇 一 … 十 十一 … 二十七`), continued the same way
/// past its table's end (`二十八`, `百二`).
fn kanji(n: u32) -> String {
    const DIGITS: [char; 10] = ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
    if n == 0 {
        return "〇".into();
    }
    let mut s = String::new();
    let mut rest = n;
    for (unit, name) in [(10_000, '万'), (1000, '千'), (100, '百'), (10, '十')] {
        let d = rest / unit;
        rest %= unit;
        if d == 0 {
            continue;
        }
        if d > 9 {
            s.push_str(&kanji(d));
        } else if d > 1 || unit == 10_000 {
            s.push(DIGITS[d as usize]);
        }
        s.push(name);
    }
    if rest > 0 {
        s.push(DIGITS[rest as usize]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(lang: &str, pairs: &[(&str, &str)]) -> Locale {
        let mut o = Overrides::new();
        o.insert(
            lang.into(),
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        Locale {
            style: Style::Review,
            overrides: Arc::new(o),
        }
    }

    #[test]
    fn number_formats_as_re_view_writes_them() {
        let cases = [
            ("%pA", 3, "C"),
            ("%pa", 3, "c"),
            ("%pAW", 3, "Ｃ"),
            ("%paW", 3, "ｃ"),
            ("%pR", 14, "XIV"),
            ("%pr", 4, "iv"),
            ("%pRW", 5, "Ｖ"),
            ("%pRW", 12, "Ⅻ"),
            ("%pJ", 7, "七"),
            ("%pJ", 10, "十"),
            ("%pJ", 21, "二十一"),
            ("%pJ", 102, "百二"),
            ("%pDW", 12, "１２"),
            ("%pdW", 9, "９"),
            ("%pdW", 12, "12"),
            ("%pA", 27, "27"),
        ];
        for (fmt, n, want) in cases {
            assert_eq!(format(fmt, &[Arg::N(n)]), want, "{fmt} {n}");
        }
    }

    #[test]
    fn arguments_go_to_their_conversions() {
        // A number format takes the argument at its place; `%s` takes what is left.
        assert_eq!(format("%s．%pJ", &[Arg::S("7"), Arg::N(1)]), "7．一");
        assert_eq!(format("第%pJ章", &[Arg::N(10)]), "第十章");
        assert_eq!(
            format("%s「%s」", &[Arg::S("第1章"), Arg::S("はじめに")]),
            "第1章「はじめに」"
        );
        assert_eq!(format("%s.%d:", &[Arg::S("A"), Arg::N(2)]), "A.2:");
        assert_eq!(format("Chapter %d", &[Arg::N(3)]), "Chapter 3");
        // Too few arguments: the format as written, as Re:VIEW shows it.
        assert_eq!(format("%s「%s」", &[Arg::S("x")]), "%s「%s」");
        assert_eq!(format("100%% %d", &[Arg::N(1)]), "100% 1");
        assert_eq!(format("plain", &[]), "plain");
    }

    #[test]
    fn locale_yml_overrides_the_book_language_only() {
        let l = over(
            "ja",
            &[("chapter", "第%pJ章"), ("format_number", "%s．%pJ")],
        );
        let ja = l.messages("ja");
        assert_eq!(ja.t(Msg::Chapter, &[Arg::N(10)]), "第十章");
        assert_eq!(ja.t(Msg::FormatNumber, &[Arg::S("7"), Arg::N(1)]), "7．一");
        assert_eq!(ja.get(Msg::Image), "図");
        assert_eq!(l.messages("ja-JP").get(Msg::Chapter), "第%pJ章");
        assert_eq!(
            l.messages("en").t(Msg::Chapter, &[Arg::N(10)]),
            "Chapter 10"
        );
    }

    #[test]
    fn appendix_numbers_inside_object_numbers() {
        let l = Locale {
            style: Style::Review,
            overrides: Arc::default(),
        };
        assert_eq!(l.messages("ja").appendix_short(2), "B");
        // Re:VIEW's English appendix format is `Appendix %s`: numbered, not lettered.
        assert_eq!(l.messages("en").appendix_short(2), "2");
        assert_eq!(
            over("ja", &[("appendix", "付録%pJ")])
                .messages("ja")
                .appendix_short(2),
            "二"
        );
    }

    #[test]
    fn docbook_style_follows_docbook_xsl_gentext() {
        let l = Locale {
            style: Style::DocBook,
            overrides: Arc::default(),
        };
        let (en, ja) = (l.messages("en"), l.messages("ja"));
        let fr = l.messages("fr");
        assert_eq!(en.get(Msg::Example), "Example\u{a0}");
        assert_eq!(ja.get(Msg::Example), "例");
        assert_eq!(fr.get(Msg::Example), "Example\u{a0}");
        let (n, t) = (Arg::S("Chapter 1"), Arg::S("What is Linux?"));
        assert_eq!(en.t(Msg::XrefChapter, &[n, t]), "Chapter 1, What is Linux?");
        assert_eq!(
            en.t(Msg::XrefSection, &[Arg::S("2.3"), Arg::S("Title")]),
            "Section\u{a0}2.3, \u{201c}Title\u{201d}"
        );
        assert_eq!(
            ja.t(Msg::XrefObject, &[Arg::S("図2.1"), Arg::S("題")]),
            "図2.1「題」"
        );
        // What DocBook XSL does not define stays seihon's.
        assert_eq!(en.get(Msg::TocTitle), "Contents");
    }

    #[test]
    fn seihon_style_keeps_its_english() {
        let m = Locale::default().messages("en");
        assert_eq!(m.get(Msg::ChapterPostfix), " ");
        assert_eq!(m.appendix_short(1), "A");
        assert_eq!(
            Locale::default().messages("ja").get(Msg::TitlePageTitle),
            "扉"
        );
    }
}
