//! Generated text: number labels and reference texts, in the chapter's language.

/// Labels in Japanese or English (Re:VIEW's `i18n.yml` defaults).
pub struct Labels {
    pub ja: bool,
}

impl Labels {
    pub fn chapter(&self, n: u32) -> String {
        if self.ja {
            format!("第{n}章")
        } else {
            format!("Chapter {n}")
        }
    }

    pub fn appendix(&self, letter: char) -> String {
        if self.ja {
            format!("付録{letter}")
        } else {
            format!("Appendix {letter}")
        }
    }

    pub fn part(&self, n: u32) -> String {
        if self.ja {
            format!("第{}部", roman(n))
        } else {
            format!("Part {}", roman(n))
        }
    }

    /// `リスト1.1`, `図A.2`, `表3` (no chapter prefix when the chapter has no number).
    pub fn object(&self, kind: ObjectKind, prefix: Option<&str>, n: u32) -> String {
        let number = match prefix {
            Some(p) => format!("{p}.{n}"),
            None => n.to_string(),
        };
        let word = match (kind, self.ja) {
            (ObjectKind::Listing, true) => "リスト",
            (ObjectKind::Image, true) => "図",
            (ObjectKind::Table, true) => "表",
            (ObjectKind::Equation, true) => "式",
            (ObjectKind::Listing, false) => "List ",
            (ObjectKind::Image, false) => "Figure ",
            (ObjectKind::Table, false) => "Table ",
            (ObjectKind::Equation, false) => "Equation ",
            (ObjectKind::Column, _) => "",
        };
        format!("{word}{number}")
    }

    /// Text in quotes: `「…」` or `"…"`.
    pub fn quoted(&self, text: &str) -> String {
        if self.ja {
            format!("「{text}」")
        } else {
            format!("\u{201c}{text}\u{201d}")
        }
    }

    pub fn column(&self, title: &str) -> String {
        if self.ja {
            format!("コラム「{title}」")
        } else {
            format!("Column \u{201c}{title}\u{201d}")
        }
    }
}

/// Things that take a number from a per-chapter counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    Listing,
    Image,
    Table,
    Equation,
    Column,
}

/// Upper-case Roman numerals (parts are numbered 第I部, 第II部…).
pub fn roman(mut n: u32) -> String {
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
    let mut s = String::new();
    for (value, digits) in TABLE {
        while n >= value {
            s.push_str(digits);
            n -= value;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        let ja = Labels { ja: true };
        assert_eq!(ja.object(ObjectKind::Listing, Some("2"), 3), "リスト2.3");
        assert_eq!(ja.object(ObjectKind::Image, None, 1), "図1");
        assert_eq!(ja.part(2), "第II部");
        assert_eq!(roman(1994), "MCMXCIV");
        let en = Labels { ja: false };
        assert_eq!(en.object(ObjectKind::Table, Some("A"), 1), "Table A.1");
    }
}
