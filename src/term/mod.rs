//! The terminal seihon talks to: how much it says (`--quiet`, `--verbose`), whether it colours
//! (a terminal, and no `NO_COLOR`), and the progress line on long work ([`progress`]). Every
//! message for people goes through [`say`], so that none is printed over the progress line,
//! none escapes [`crate::console::safe`], and none carries a control sequence into a log.
pub mod paint;
pub mod progress;

use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

/// How much a command says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Verbosity {
    /// Errors only (`--quiet`).
    Quiet,
    #[default]
    Normal,
    /// Also each step of a build with its time (`--verbose`, what `SEIHON_TIMINGS=1` shows).
    Verbose,
}

/// What a message is, for [`Verbosity::Quiet`]: it keeps errors and what was asked for, and
/// drops the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Error,
    /// What the command was run to print (`list`'s books, `release`'s file and checksum).
    Data,
    /// Progress and results: what was read, built, found to be up to date; warnings.
    Info,
}

/// Where a message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

/// This run's settings, decided once from the flags, the environment and the streams.
#[derive(Debug, Clone, Copy)]
struct Settings {
    verbosity: Verbosity,
    colour_out: bool,
    colour_err: bool,
    progress: Option<progress::Style>,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

impl Settings {
    fn detect(verbosity: Verbosity) -> Settings {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        // https://no-color.org: set and not empty turns colour off; a dumb terminal has none.
        let plain = env("NO_COLOR").is_some();
        let dumb = env("TERM").is_some_and(|t| t == "dumb");
        // CI logs are files, whatever the runner makes of them: no line redrawn in place.
        let ci = env("CI").is_some_and(|v| v != "false" && v != "0");
        let err_tty = std::io::stderr().is_terminal();
        Settings {
            verbosity,
            colour_out: !plain && !dumb && std::io::stdout().is_terminal(),
            colour_err: !plain && !dumb && err_tty,
            progress: (err_tty && !ci && !dumb && verbosity != Verbosity::Quiet).then_some(
                if plain {
                    progress::Style::Plain
                } else {
                    progress::Style::Ansi
                },
            ),
        }
    }
}

/// Settles the settings for this run (the command line calls it first; later calls keep the
/// first settings).
pub fn init(verbosity: Verbosity) {
    let _ = SETTINGS.set(Settings::detect(verbosity));
}

fn settings() -> &'static Settings {
    SETTINGS.get_or_init(|| Settings::detect(Verbosity::Normal))
}

pub fn verbosity() -> Verbosity {
    settings().verbosity
}

/// How the progress line is drawn: `None` when it is not (stderr is not a terminal, CI, or
/// `--quiet`).
pub fn progress_style() -> Option<progress::Style> {
    settings().progress
}

/// Prints `text` (whole lines) for people, unless `--quiet` drops it: made safe for CI logs,
/// coloured on a terminal, never drawn over by the progress line.
pub fn say(stream: Stream, kind: Kind, text: &str) {
    let s = settings();
    if text.is_empty() || (s.verbosity == Verbosity::Quiet && kind == Kind::Info) {
        return;
    }
    let safe = crate::console::safe(text);
    let colour = match stream {
        Stream::Out => s.colour_out,
        Stream::Err => s.colour_err,
    };
    let painted = if colour {
        paint::paint(&safe, stream)
    } else {
        std::borrow::Cow::Borrowed(safe.as_ref())
    };
    progress::above(|| {
        // A closed pipe (`seihon list | head`) is not an error of the book's.
        let _ = match stream {
            Stream::Out => std::io::stdout().lock().write_all(painted.as_bytes()),
            Stream::Err => std::io::stderr().lock().write_all(painted.as_bytes()),
        };
    });
}

/// [`say`] one line on stderr.
pub fn err_line(kind: Kind, line: &str) {
    say(Stream::Err, kind, &format!("{line}\n"));
}

/// [`say`] one line on stdout.
pub fn out_line(kind: Kind, line: &str) {
    say(Stream::Out, kind, &format!("{line}\n"));
}
