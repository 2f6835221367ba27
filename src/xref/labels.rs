//! Generated text: number labels and reference texts, in the chapter's language.

use crate::doc::Number;
use crate::i18n::{Arg, Messages, Msg};

/// The chapter's generated words, from its language's messages (Re:VIEW's `i18n.yml`, the
/// book's `locale.yml` over it).
pub struct Labels {
    pub m: Messages,
}

impl Labels {
    pub fn ja(&self) -> bool {
        self.m.ja
    }

    /// `第1章` (`chapter`).
    pub fn chapter(&self, n: u32) -> String {
        self.m.t(Msg::Chapter, &[Arg::N(n)])
    }

    /// `付録A` (`appendix`): appendices are counted from 1 and the format letters them.
    pub fn appendix(&self, n: u32) -> String {
        self.m.t(Msg::Appendix, &[Arg::N(n)])
    }

    /// What an appendix's section and object numbers start with (`A`).
    pub fn appendix_prefix(&self, n: u32) -> String {
        self.m.appendix_short(n)
    }

    /// `第I部` (`part`).
    pub fn part(&self, n: u32) -> String {
        self.m.t(Msg::Part, &[Arg::N(n)])
    }

    /// `リスト1.1`, `図A.2`, `表3` (no chapter prefix when the chapter has no number), and the
    /// caption's start, `リスト1.1:`.
    pub fn object(&self, kind: ObjectKind, prefix: Option<&str>, n: u32) -> Number {
        let word = match kind {
            ObjectKind::Listing => self.m.get(Msg::List),
            ObjectKind::Image => self.m.get(Msg::Image),
            ObjectKind::Table => self.m.get(Msg::Table),
            ObjectKind::Equation => self.m.get(Msg::Equation),
            ObjectKind::Example => self.m.get(Msg::Example),
            ObjectKind::Procedure => self.m.get(Msg::Procedure),
            ObjectKind::Column => "",
        };
        let (label, head) = match prefix {
            Some(p) => {
                let args = [Arg::S(p), Arg::N(n)];
                (
                    self.m.t(Msg::FormatNumber, &args),
                    self.m.t(Msg::FormatNumberHeader, &args),
                )
            }
            None => {
                let args = [Arg::N(n)];
                (
                    self.m.t(Msg::FormatNumberWithoutChapter, &args),
                    self.m.t(Msg::FormatNumberHeaderWithoutChapter, &args),
                )
            }
        };
        Number {
            label: format!("{word}{label}"),
            head: format!("{word}{head}"),
        }
    }

    /// `第1章「はじめに」` (`chapter_quote`), or `「はじめに」` for a chapter with no number.
    pub fn chapter_quote(&self, number: Option<&str>, title: &str) -> String {
        match number {
            Some(n) => self.m.t(Msg::ChapterQuote, &[Arg::S(n), Arg::S(title)]),
            None => self.m.t(Msg::ChapterQuoteWithoutNumber, &[Arg::S(title)]),
        }
    }

    /// `「1.2 節の題」` (`hd_quote`), or `「節の題」`.
    pub fn heading_quote(&self, number: Option<&str>, caption: &str) -> String {
        match number {
            Some(n) => self.m.t(Msg::HdQuote, &[Arg::S(n), Arg::S(caption)]),
            None => self.m.t(Msg::HdQuoteWithoutNumber, &[Arg::S(caption)]),
        }
    }

    /// A figure's caption in quotes, after its number (`@<imgref>`: `image_quote`).
    pub fn image_quote(&self, caption: &str) -> String {
        self.m.t(Msg::ImageQuote, &[Arg::S(caption)])
    }

    /// A DocBook `xref` to a numbered chapter or appendix: `Chapter 1, Title` (`xref_chapter`,
    /// `xref_appendix`).
    pub fn xref_chapter(&self, appendix: bool, label: &str, title: &str) -> String {
        let m = if appendix {
            Msg::XrefAppendix
        } else {
            Msg::XrefChapter
        };
        self.m.t(m, &[Arg::S(label), Arg::S(title)])
    }

    /// A DocBook `xref` to a section: `Section 2.3, “Title”` (`xref_section`; a format with
    /// one conversion shows the title only, as Japanese does), or `the section called “Title”`
    /// when it has no number (`xref_section_unnumbered`).
    pub fn xref_section(&self, number: Option<&str>, title: &str) -> String {
        match number {
            Some(n) if self.m.get(Msg::XrefSection).matches("%s").count() >= 2 => {
                self.m.t(Msg::XrefSection, &[Arg::S(n), Arg::S(title)])
            }
            Some(_) => self.m.t(Msg::XrefSection, &[Arg::S(title)]),
            None => self.m.t(Msg::XrefSectionUnnumbered, &[Arg::S(title)]),
        }
    }

    /// A DocBook `xref` to a numbered figure, table, example or equation: `Figure 2.1,
    /// “Title”` (`xref_object`), the number alone when it has no title.
    pub fn xref_object(&self, label: &str, title: &str) -> String {
        if title.trim().is_empty() {
            return label.to_string();
        }
        self.m.t(Msg::XrefObject, &[Arg::S(label), Arg::S(title)])
    }

    /// `コラム「…」` (`column`).
    pub fn column(&self, title: &str) -> String {
        self.m.t(Msg::Column, &[Arg::S(title)])
    }
}

/// Things that take a number from a per-chapter counter.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ObjectKind {
    Listing,
    Image,
    Table,
    Equation,
    /// A DocBook `example` with a title.
    Example,
    /// A DocBook `procedure` with a title (DocBook XSL's `formal.procedures`).
    Procedure,
    Column,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Style};

    #[test]
    fn labels() {
        let review = Locale {
            style: Style::Review,
            overrides: Default::default(),
        };
        let ja = Labels {
            m: review.messages("ja"),
        };
        let n = ja.object(ObjectKind::Listing, Some("2"), 3);
        assert_eq!(
            (n.label.as_str(), n.head.as_str()),
            ("リスト2.3", "リスト2.3:")
        );
        assert_eq!(ja.object(ObjectKind::Image, None, 1).label, "図1");
        assert_eq!(ja.part(2), "第II部");
        assert_eq!(ja.appendix(1), "付録A");
        assert_eq!(ja.chapter_quote(Some("第1章"), "序"), "第1章「序」");
        assert_eq!(crate::i18n::roman_upper(1994), "MCMXCIV");
        let en = Labels {
            m: review.messages("en"),
        };
        assert_eq!(
            en.object(ObjectKind::Table, Some("A"), 1).label,
            "Table A.1"
        );
        assert_eq!(en.heading_quote(Some("1.2"), "Scope"), "\"1.2 Scope\"");
    }

    #[test]
    fn docbook_labels_and_references() {
        let docbook = Locale {
            style: Style::DocBook,
            overrides: Default::default(),
        };
        let en = Labels {
            m: docbook.messages("en"),
        };
        let n = en.object(ObjectKind::Example, Some("2"), 1);
        assert_eq!(
            (n.label.as_str(), n.head.as_str()),
            ("Example\u{a0}2.1", "Example\u{a0}2.1.")
        );
        assert_eq!(
            en.xref_chapter(false, "Chapter 1", "What is Linux?"),
            "Chapter 1, What is Linux?"
        );
        assert_eq!(
            en.xref_chapter(true, "Appendix A", "Tools"),
            "Appendix A, Tools"
        );
        assert_eq!(
            en.xref_section(Some("2.3"), "Title"),
            "Section\u{a0}2.3, \u{201c}Title\u{201d}"
        );
        assert_eq!(
            en.xref_section(None, "Title"),
            "the section called \u{201c}Title\u{201d}"
        );
        assert_eq!(
            en.xref_object("Figure\u{a0}2.1", "Title"),
            "Figure\u{a0}2.1, \u{201c}Title\u{201d}"
        );
        let ja = Labels {
            m: docbook.messages("ja"),
        };
        let n = ja.object(ObjectKind::Example, Some("2"), 1);
        assert_eq!((n.label.as_str(), n.head.as_str()), ("例2.1", "例2.1"));
        assert_eq!(ja.object(ObjectKind::Image, Some("1"), 2).head, "図1.2");
        assert_eq!(ja.xref_section(Some("2.3"), "題"), "「題」");
        assert_eq!(ja.xref_object("表1.1", "題"), "表1.1「題」");
        assert_eq!(ja.xref_chapter(false, "第1章", "序"), "第1章序");
    }
}
