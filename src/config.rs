//! Settings shared by the stages that read them and the files that set them (`seihon.yml`,
//! `book.yml`): a leaf module, so that loading a book never depends on a later stage.

/// How a check's findings count: errors fail the build, warnings are shown, `off` silences it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Off,
}

impl Level {
    /// As users write it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Off => "off",
        }
    }
}
