//! Index order: the key a term's reading sorts by, and the group it is listed under.
//!
//! Japanese indexes sort by reading in gojūon order and head each row (あ か さ …): katakana
//! sort as hiragana, a voiced or small kana beside its plain one (が with か, っ with つ; the
//! plain one first on a tie), and a long-vowel mark as the vowel it lengthens (コード as こおど).
//! Latin letters sort without case or accents and are grouped A–Z; digits and symbols form one
//! group of their own, first, as mendex puts them.

/// The group an index entry is listed under, in the index's order: symbols and digits, Latin
/// letters, the kana rows, kanji without a reading (they cannot be put in a row), any other
/// script.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    Symbols,
    /// `A`–`Z`.
    Latin(char),
    /// A gojūon row: 0 is あ, 9 is わ.
    Kana(u8),
    Kanji,
    Other,
}

/// The gojūon rows, plain kana only (voiced and small ones are folded to these first).
const ROWS: [&str; 10] = [
    "あいうえお",
    "かきくけこ",
    "さしすせそ",
    "たちつてと",
    "なにぬねの",
    "はひふへほ",
    "まみむめも",
    "やゆよ",
    "らりるれろ",
    "わゐゑをん",
];

/// Row names for ids (`index-kana-ka`): ids stay ASCII.
const ROW_NAMES: [&str; 10] = ["a", "ka", "sa", "ta", "na", "ha", "ma", "ya", "ra", "wa"];

impl Group {
    /// The group of a term that sorts by `reading`: that of its first character.
    pub fn of(reading: &str) -> Group {
        let Some(c) = fold(reading).primary.chars().next() else {
            return Group::Symbols;
        };
        if c.is_ascii_alphabetic() {
            return Group::Latin(c.to_ascii_uppercase());
        }
        if let Some(row) = ROWS.iter().position(|r| r.contains(c)) {
            return Group::Kana(row as u8);
        }
        if is_kanji(c) {
            Group::Kanji
        } else if c.is_alphabetic() {
            Group::Other
        } else {
            Group::Symbols
        }
    }

    /// The group's heading: Japanese words in a Japanese book, English in others; a kana row by
    /// its first kana and a letter by itself in either.
    pub fn label(self, ja: bool) -> String {
        let words = |ja_words: &str, en: &str| if ja { ja_words } else { en }.to_string();
        match self {
            Group::Symbols => words("記号・数字", "Symbols and Numbers"),
            Group::Latin(c) => c.to_string(),
            Group::Kana(row) => ROWS[row as usize].chars().take(1).collect(),
            Group::Kanji => words("漢字", "Kanji"),
            Group::Other => words("その他", "Other"),
        }
    }

    /// An ASCII id for the group's heading, unique among the groups.
    pub fn id(self) -> String {
        match self {
            Group::Symbols => "index-symbols".into(),
            Group::Latin(c) => format!("index-latin-{}", c.to_ascii_lowercase()),
            Group::Kana(row) => format!("index-kana-{}", ROW_NAMES[row as usize]),
            Group::Kanji => "index-kanji".into(),
            Group::Other => "index-other".into(),
        }
    }
}

/// What a reading sorts by: first `primary` (voicing, small kana, case and accents folded
/// away), then `secondary` (kept), so that か < が < ぱ only where the rest is the same.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SortKey {
    pub primary: String,
    pub secondary: String,
}

/// The sort key of a reading (or of a term that has none).
pub fn sort_key(reading: &str) -> SortKey {
    fold(reading)
}

/// Folds a reading into its sort key.
fn fold(reading: &str) -> SortKey {
    let mut secondary = String::with_capacity(reading.len());
    for c in reading.chars() {
        let c = narrow_or_wide(c);
        match c {
            // Voicing marks, combining or not, voice the kana before them.
            '\u{3099}' | '\u{309B}' | '\u{FF9E}' => voice(&mut secondary, VOICED),
            '\u{309A}' | '\u{309C}' | '\u{FF9F}' => voice(&mut secondary, SEMI_VOICED),
            // A long-vowel mark after a kana is the vowel it lengthens.
            'ー' | 'ｰ' => match secondary.chars().last().and_then(vowel_of) {
                Some(v) => secondary.push(v),
                None => secondary.push('ー'),
            },
            _ => {
                let c = hiragana(c);
                if c.is_alphabetic() && !is_kana(c) {
                    for l in c.to_lowercase() {
                        secondary.push(unaccented(l));
                    }
                } else {
                    secondary.push(c);
                }
            }
        }
    }
    let primary = secondary.chars().map(plain_kana).collect();
    SortKey { primary, secondary }
}

/// Fullwidth ASCII as ASCII, the ideographic space as a space, halfwidth katakana as
/// fullwidth.
fn narrow_or_wide(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        '\u{FF66}'..='\u{FF9D}' => {
            const WIDE: &str = "ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン";
            WIDE.chars().nth(c as usize - 0xFF66).unwrap_or(c)
        }
        _ => c,
    }
}

/// A katakana as its hiragana (ヷ ヸ ヹ ヺ as わ ゐ ゑ を, voicing dropped).
fn hiragana(c: char) -> char {
    match c {
        '\u{30A1}'..='\u{30F6}' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
        'ヷ' => 'わ',
        'ヸ' => 'ゐ',
        'ヹ' => 'ゑ',
        'ヺ' => 'を',
        _ => c,
    }
}

fn is_kana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}')
}

fn is_kanji(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3FFFF}' | '々' | '〆' | '〇')
}

/// Plain kana and their voiced and semi-voiced forms, position for position.
const PLAIN: &str = "かきくけこさしすせそたちつてとはひふへほうはひふへほ";
const VOICED_FORMS: &str = "がぎぐげござじずぜぞだぢづでどばびぶべぼゔぱぴぷぺぽ";
/// Where the semi-voiced forms start in the two strings above.
const SEMI_START: usize = 21;

#[derive(Clone, Copy)]
enum Voicing {
    Voiced,
    SemiVoiced,
}
const VOICED: Voicing = Voicing::Voiced;
const SEMI_VOICED: Voicing = Voicing::SemiVoiced;

/// Voices the last kana of `key` (か + ゛ → が); a mark after anything else is dropped.
fn voice(key: &mut String, how: Voicing) {
    let Some(last) = key.chars().last() else {
        return;
    };
    let range = match how {
        Voicing::Voiced => 0..SEMI_START,
        Voicing::SemiVoiced => SEMI_START..PLAIN.chars().count(),
    };
    let at = PLAIN
        .chars()
        .enumerate()
        .find(|(i, p)| range.contains(i) && *p == last);
    if let Some((i, _)) = at
        && let Some(v) = VOICED_FORMS.chars().nth(i)
    {
        key.pop();
        key.push(v);
    }
}

/// A kana with its voicing and smallness folded away (が → か, っ → つ); anything else as is.
fn plain_kana(c: char) -> char {
    if let Some(i) = VOICED_FORMS.chars().position(|v| v == c) {
        return PLAIN.chars().nth(i).unwrap_or(c);
    }
    const SMALL: &str = "ぁぃぅぇぉっゃゅょゎゕゖ";
    const NORMAL: &str = "あいうえおつやゆよわかけ";
    match SMALL.chars().position(|s| s == c) {
        Some(i) => NORMAL.chars().nth(i).unwrap_or(c),
        None => c,
    }
}

/// The vowel a kana ends in (こ → お), for the long-vowel mark after it.
fn vowel_of(c: char) -> Option<char> {
    let c = plain_kana(c);
    if c == 'ん' {
        return None;
    }
    const COLUMNS: [(char, &str); 5] = [
        ('あ', "あかさたなはまやらわ"),
        ('い', "いきしちにひみりゐ"),
        ('う', "うくすつぬふむゆる"),
        ('え', "えけせてねへめれゑ"),
        ('お', "おこそとのほもよろを"),
    ];
    COLUMNS
        .iter()
        .find(|(_, kana)| kana.contains(c))
        .map(|(v, _)| *v)
}

/// A lowercase Latin letter without its accent (é → e), for the letters of Western European
/// languages; others as they are.
fn unaccented(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'ī' => 'i',
        'ł' => 'l',
        'ñ' | 'ń' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ŕ' | 'ř' => 'r',
        'ś' | 'š' | 'ß' => 's',
        'ť' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(readings: &[&str]) -> Vec<String> {
        let mut v: Vec<&str> = readings.to_vec();
        v.sort_by_key(|r| (Group::of(r), sort_key(r), r.to_string()));
        v.into_iter().map(str::to_string).collect()
    }

    #[test]
    fn kana_are_grouped_by_gojuon_row() {
        let row = |r: &str| Group::of(r).label(true);
        assert_eq!(row("あさ"), "あ");
        assert_eq!(row("おと"), "あ");
        assert_eq!(row("きかい"), "か");
        assert_eq!(
            row("ごはん"),
            "か",
            "voiced kana go in the plain kana's row"
        );
        assert_eq!(row("ぱん"), "は", "semi-voiced too");
        assert_eq!(row("じしょ"), "さ");
        assert_eq!(row("っと"), "た", "small kana as their plain ones");
        assert_eq!(row("ゆき"), "や");
        assert_eq!(row("をかし"), "わ");
        assert_eq!(row("ゔぁいおりん"), "あ", "ゔ is a voiced う");
        assert_eq!(row("ん"), "わ");
        let rows: Vec<String> = ["あ", "か", "さ", "た", "な", "は", "ま", "や", "ら", "わ"]
            .iter()
            .map(|r| row(r))
            .collect();
        assert_eq!(
            rows,
            ["あ", "か", "さ", "た", "な", "は", "ま", "や", "ら", "わ"]
        );
    }

    #[test]
    fn katakana_sort_and_group_as_hiragana() {
        assert_eq!(Group::of("サクイン"), Group::of("さくいん"));
        assert_eq!(sort_key("サクイン").primary, "さくいん");
        assert_eq!(
            sort_key("ｻｸｲﾝ").primary,
            "さくいん",
            "halfwidth katakana too"
        );
        assert_eq!(
            sort_key("ﾃﾞｰﾀ").secondary,
            "でえた",
            "with their voicing marks"
        );
        assert_eq!(
            sorted(&["ラクダ", "いぬ", "カメ", "うさぎ"]),
            ["いぬ", "うさぎ", "カメ", "ラクダ"]
        );
    }

    #[test]
    fn voicing_and_smallness_only_break_ties() {
        // は, ば, ぱ sort together, before ひ; plain before voiced before semi-voiced.
        assert_eq!(
            sorted(&["ひも", "ぱす", "はす", "ばす"]),
            ["はす", "ばす", "ぱす", "ひも"]
        );
        // A combining voicing mark is the voiced kana.
        assert_eq!(sort_key("か\u{3099}き"), sort_key("がき"));
        assert_eq!(sort_key("きって").primary, "きつて");
        assert_ne!(sort_key("きつて"), sort_key("きって"));
    }

    #[test]
    fn a_long_vowel_mark_is_the_vowel_it_lengthens() {
        assert_eq!(sort_key("コード").secondary, "こおど");
        assert_eq!(sort_key("コード").primary, "こおと");
        assert_eq!(sort_key("キー").primary, "きい");
        assert_eq!(sort_key("ルール").primary, "るうる");
        // コード sorts as こおど: after こう…, before こか….
        assert_eq!(
            sorted(&["こかげ", "コード", "こうどう"]),
            ["こうどう", "コード", "こかげ"]
        );
    }

    #[test]
    fn latin_letters_are_grouped_a_to_z_without_case_or_accents() {
        assert_eq!(Group::of("apple"), Group::Latin('A'));
        assert_eq!(Group::of("Zebra"), Group::Latin('Z'));
        assert_eq!(
            Group::of("Ｒｅ：ＶＩＥＷ"),
            Group::Latin('R'),
            "fullwidth letters"
        );
        assert_eq!(Group::of("émigré"), Group::Latin('E'));
        assert_eq!(Group::Latin('R').label(true), "R");
        assert_eq!(
            sorted(&["banana", "Apple", "apricot", "Émile", "cherry"]),
            ["Apple", "apricot", "banana", "cherry", "Émile"]
        );
    }

    #[test]
    fn digits_and_symbols_are_a_group_of_their_own_first() {
        assert_eq!(Group::of("3D"), Group::Symbols);
        assert_eq!(Group::of(".NET"), Group::Symbols);
        assert_eq!(Group::of("＠"), Group::Symbols);
        assert_eq!(Group::of(""), Group::Symbols);
        assert_eq!(Group::Symbols.label(true), "記号・数字");
        assert_eq!(Group::Symbols.label(false), "Symbols and Numbers");
        // Symbols, then A–Z, then the kana rows, then kanji without a reading, then the rest.
        assert_eq!(
            sorted(&["索引", "さくいん", "Index", "#tag", "αβ", "1st", "あい"]),
            ["#tag", "1st", "Index", "あい", "さくいん", "索引", "αβ"]
        );
    }

    #[test]
    fn kanji_without_a_reading_and_other_scripts_have_groups() {
        assert_eq!(Group::of("漢字"), Group::Kanji);
        assert_eq!(Group::of("々"), Group::Kanji);
        assert_eq!(Group::Kanji.label(true), "漢字");
        assert_eq!(Group::of("Ωmega"), Group::Other);
        assert_eq!(Group::Other.label(false), "Other");
    }

    #[test]
    fn group_ids_are_ascii_and_distinct() {
        let groups = [
            Group::Symbols,
            Group::Latin('A'),
            Group::Kana(0),
            Group::Kana(1),
            Group::Kanji,
            Group::Other,
        ];
        let ids: std::collections::HashSet<String> = groups.iter().map(|g| g.id()).collect();
        assert_eq!(ids.len(), groups.len());
        assert!(ids.iter().all(|i| i.is_ascii()));
        assert_eq!(Group::Kana(1).id(), "index-kana-ka");
    }
}
