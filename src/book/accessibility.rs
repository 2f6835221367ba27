//! book.yml's `accessibility:`: what only the author can say about the book's accessibility
//! (its hazards, a summary in their words, who certified it). Everything else the package
//! claims is derived from the book itself (see `pipeline::assemble`).
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::codes;
use crate::error::Finding;

/// `accessibility:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AccessibilityFile {
    summary: Option<String>,
    #[serde(default)]
    hazards: Vec<Spanned<String>>,
    certified_by: Option<String>,
    certifier_credential: Option<Spanned<String>>,
}

/// What the author says about the book's accessibility.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Accessibility {
    /// `schema:accessibilitySummary`, in the author's words (else generated from the facts).
    pub summary: Option<String>,
    /// `schema:accessibilityHazard` terms; empty: unsaid (seihon then says `none` only for a
    /// book without sound or moving pictures, `unknown` otherwise).
    pub hazards: Vec<String>,
    /// `a11y:certifiedBy`: who checked the book's conformance.
    pub certified_by: Option<String>,
    pub certifier_credential: Option<String>,
}

/// The hazard terms of schema.org's `accessibilityHazard` (EPUB Accessibility 1.1 §2.1.3).
pub const HAZARDS: &[&str] = &[
    "flashing",
    "noFlashingHazard",
    "unknownFlashingHazard",
    "motionSimulation",
    "noMotionSimulationHazard",
    "unknownMotionSimulationHazard",
    "sound",
    "noSoundHazard",
    "unknownSoundHazard",
    "none",
    "unknown",
];

impl AccessibilityFile {
    /// The settings, with an error at the line of each value that is not one of the terms.
    pub(super) fn checked(self, shown: &Path, findings: &mut Vec<Finding>) -> Accessibility {
        let at = |s: &Spanned<String>| super::at(shown, &s.referenced);
        let mut hazards = Vec::new();
        for h in &self.hazards {
            if HAZARDS.contains(&h.value.as_str()) {
                hazards.push(h.value.clone());
            } else {
                findings.push(
                    Finding::error(
                        codes::BAD_VALUE,
                        at(h),
                        format!("`{}` is not an accessibility hazard term", h.value),
                    )
                    .with_hint(format!("write one of {}", HAZARDS.join(", "))),
                );
            }
        }
        let exclusive = ["none", "unknown"];
        if hazards.len() > 1
            && let Some(h) = self
                .hazards
                .iter()
                .find(|h| exclusive.contains(&h.value.as_str()))
        {
            findings.push(
                Finding::error(
                    codes::BAD_VALUE,
                    at(h),
                    format!("`{}` cannot go with other hazard terms", h.value),
                )
                .with_hint("list either `none`, `unknown`, or the hazards the book has"),
            );
        }
        if let Some(c) = &self.certifier_credential
            && self.certified_by.is_none()
        {
            findings.push(
                Finding::error(
                    codes::BAD_VALUE,
                    at(c),
                    "a certifier's credential needs the certifier: `certified_by:`".to_string(),
                )
                .with_hint("name who certified the book in `certified_by:`"),
            );
        }
        Accessibility {
            summary: self.summary.filter(|s| !s.trim().is_empty()),
            hazards,
            certified_by: self.certified_by,
            certifier_credential: self.certifier_credential.map(|c| c.value),
        }
    }
}
