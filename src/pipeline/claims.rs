//! Claims: the package's accessibility metadata (EPUB Accessibility 1.1, schema.org), derived
//! from what the book's pages hold, never asserted. What only the author can know (hazards, a
//! summary in their words, a certifier) comes from book.yml's `accessibility:`.
use crate::book::Accessibility;

use super::page::Facts;

/// The conformance statement seihon makes when its own checks found nothing against it.
pub const CONFORMS_TO: &str = "EPUB Accessibility 1.1 - WCAG 2.1 Level AA";

/// What the book is, as the package says it.
#[derive(Debug, Clone, serde::Serialize)]
pub(super) struct Claims {
    pub access_modes: Vec<&'static str>,
    /// Each entry one set of modes that is enough to read the whole book (`textual,visual`).
    pub sufficient: Vec<&'static str>,
    pub features: Vec<&'static str>,
    pub hazards: Vec<String>,
    pub summary: String,
    /// `dcterms:conformsTo`, only when nothing seihon knows of stands against it.
    pub conforms_to: Option<&'static str>,
    pub certified_by: Option<String>,
    pub certifier_credential: Option<String>,
}

/// What the package may claim beyond the pages: the navigation it has.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Navigation {
    pub index: bool,
    /// The nav lists the print edition's pages.
    pub page_list: bool,
    /// The pages mark where the print edition's pages break.
    pub page_breaks: bool,
    pub vertical: bool,
}

/// The claims for a book whose content pages hold `facts`.
pub(super) fn claims(facts: &Facts, nav: Navigation, said: &Accessibility, ja: bool) -> Claims {
    let images = facts.images > 0;
    let all_described = facts.unlabelled_images == 0;
    let mut access_modes = vec!["textual"];
    if images {
        access_modes.push("visual");
    }
    // Text alone reads the whole book only when every image that says something says it in
    // words too.
    let sufficient = match (images, all_described) {
        (false, _) => vec!["textual"],
        (true, true) => vec!["textual", "textual,visual"],
        (true, false) => vec!["textual,visual"],
    };
    let mut features = vec![
        "structuralNavigation",
        "tableOfContents",
        "readingOrder",
        "displayTransformability",
    ];
    let flags = [
        (images && all_described, "alternativeText"),
        (facts.math, "MathML"),
        (nav.index, "index"),
        (nav.page_list, "pageNavigation"),
        (nav.page_breaks, "pageBreakMarkers"),
        (facts.ruby, "rubyAnnotations"),
    ];
    features.extend(flags.iter().filter(|(on, _)| *on).map(|(_, f)| *f));
    features.push(if nav.vertical {
        "verticalWriting"
    } else {
        "horizontalWriting"
    });
    let hazards = if !said.hazards.is_empty() {
        said.hazards.clone()
    } else if facts.media {
        vec!["unknown".to_string()]
    } else {
        vec!["none".to_string()]
    };
    let conforms = all_described;
    let summary = said
        .summary
        .clone()
        .unwrap_or_else(|| summary(facts, nav, conforms, ja));
    Claims {
        access_modes,
        sufficient,
        features,
        hazards,
        summary,
        conforms_to: conforms.then_some(CONFORMS_TO),
        certified_by: said.certified_by.clone().filter(|_| conforms),
        certifier_credential: said.certifier_credential.clone().filter(|_| conforms),
    }
}

/// The summary seihon writes when book.yml gives none: what the facts are, in the book's
/// language (Japanese, else English).
fn summary(facts: &Facts, nav: Navigation, conforms: bool, ja: bool) -> String {
    let images = facts.images > 0;
    let described = facts.unlabelled_images == 0;
    // (whether it holds, in Japanese, in English)
    let sentences = [
        (
            true,
            "この電子書籍はリフロー型で、目次と見出しによる構造化ナビゲーションを備えています。",
            "This publication is reflowable, with a table of contents and structural navigation by headings.",
        ),
        (
            images && described,
            "画像には代替テキストがあります。",
            "Images have alternative text.",
        ),
        (
            images && !described,
            "代替テキストのない画像があります。",
            "Some images have no alternative text.",
        ),
        (
            facts.math,
            "数式は MathML で記述されています。",
            "Mathematics is written in MathML.",
        ),
        (nav.index, "索引があります。", "It has an index."),
        (
            nav.page_list,
            "紙版のページ番号を示すページリストがあります。",
            "A page list gives the page numbers of the print edition.",
        ),
        (
            facts.ruby,
            "ルビで読みを示しています。",
            "Ruby annotations give readings.",
        ),
        (
            conforms,
            "EPUB Accessibility 1.1 と WCAG 2.1 レベル AA に適合するよう制作されています。",
            "It is made to meet EPUB Accessibility 1.1 at WCAG 2.1 Level AA.",
        ),
        (
            !conforms,
            "アクセシビリティの適合は表明していません。",
            "It does not claim accessibility conformance.",
        ),
    ];
    let said = sentences
        .iter()
        .filter(|(holds, ..)| *holds)
        .map(|&(_, j, e)| if ja { j } else { e });
    // Japanese sentences run on; English ones are spaced.
    said.collect::<Vec<_>>().join(if ja { "" } else { " " })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(images: usize, unlabelled: usize) -> Facts {
        Facts {
            images,
            unlabelled_images: unlabelled,
            ..Facts::default()
        }
    }

    #[test]
    fn a_text_only_book_is_textual_and_conforms() {
        let c = claims(
            &facts(0, 0),
            Navigation::default(),
            &Accessibility::default(),
            false,
        );
        assert_eq!(c.access_modes, ["textual"]);
        assert_eq!(c.sufficient, ["textual"]);
        assert!(!c.features.contains(&"alternativeText"), "{:?}", c.features);
        assert_eq!(c.hazards, ["none"]);
        assert_eq!(c.conforms_to, Some(CONFORMS_TO));
        assert!(!c.summary.contains("image"), "{}", c.summary);
    }

    #[test]
    fn an_image_without_alt_text_takes_the_claims_away() {
        let said = Accessibility {
            certified_by: Some("A11y Lab".into()),
            ..Accessibility::default()
        };
        let c = claims(&facts(2, 1), Navigation::default(), &said, true);
        assert_eq!(c.access_modes, ["textual", "visual"]);
        assert_eq!(c.sufficient, ["textual,visual"]);
        assert!(!c.features.contains(&"alternativeText"));
        assert_eq!(c.conforms_to, None);
        assert_eq!(c.certified_by, None);
        assert!(
            c.summary.contains("代替テキストのない画像"),
            "{}",
            c.summary
        );
        let described = claims(&facts(2, 0), Navigation::default(), &said, true);
        assert!(described.features.contains(&"alternativeText"));
        assert_eq!(described.sufficient, ["textual", "textual,visual"]);
        assert_eq!(described.conforms_to, Some(CONFORMS_TO));
        assert_eq!(described.certified_by.as_deref(), Some("A11y Lab"));
    }

    #[test]
    fn features_follow_the_facts_and_hazards_the_author() {
        let f = Facts {
            math: true,
            ruby: true,
            media: true,
            ..Facts::default()
        };
        let nav = Navigation {
            index: true,
            page_list: true,
            page_breaks: true,
            vertical: true,
        };
        let c = claims(&f, nav, &Accessibility::default(), false);
        for feature in [
            "MathML",
            "index",
            "pageNavigation",
            "pageBreakMarkers",
            "rubyAnnotations",
            "verticalWriting",
        ] {
            assert!(c.features.contains(&feature), "{feature}: {:?}", c.features);
        }
        // Sound or video: no hazard is assumed away.
        assert_eq!(c.hazards, ["unknown"]);
        let said = Accessibility {
            hazards: vec!["noFlashingHazard".into(), "sound".into()],
            summary: Some("Written by the author.".into()),
            ..Accessibility::default()
        };
        let c = claims(&f, nav, &said, false);
        assert_eq!(c.hazards, ["noFlashingHazard", "sound"]);
        assert_eq!(c.summary, "Written by the author.");
    }
}
