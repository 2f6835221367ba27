//! The progress line on long work: which books are being built, at which step, how many of
//! their chapters are done, and for how long. Drawn on stderr, on one line rewritten in place,
//! only on a terminal and not under CI ([`super::progress_on`]), and only once a run has taken
//! about a second, so that short builds print exactly what they print without it. Every other
//! message is printed through [`above`], which takes the line away first; the line comes back
//! on the next tick.
//!
//! When the line is off, every function here returns at once, and a chapter's count is one
//! test of an `Option`.
use std::cell::RefCell;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a run goes before the line is drawn (`SEIHON_PROGRESS_AFTER_MS`, for tests), and
/// how often it is drawn again.
const QUIET_FOR: Duration = Duration::from_millis(1000);
const TICK: Duration = Duration::from_millis(100);

/// How the line is put on the screen and taken off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Erased with the terminal's control sequence.
    Ansi,
    /// Under `NO_COLOR`: no control sequence at all, overwritten with spaces.
    Plain,
}

fn quiet_for() -> Duration {
    std::env::var("SEIHON_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(QUIET_FOR, Duration::from_millis)
}

/// A book being built.
struct Task {
    id: u64,
    label: String,
    step: &'static str,
    count: Option<Arc<Count>>,
}

/// A count within a step: chapters read, pages written.
struct Count {
    what: &'static str,
    done: AtomicUsize,
    total: usize,
}

#[derive(Default)]
struct Board {
    tasks: Vec<Task>,
    /// Books in this run, and how many have ended.
    books: usize,
    ended: usize,
    started: Option<Instant>,
    /// The line is on the screen.
    shown: bool,
    painter: bool,
    next_id: u64,
    /// The terminal's width when the line was drawn.
    width: usize,
}

static BOARD: Mutex<Board> = Mutex::new(Board {
    tasks: Vec::new(),
    books: 0,
    ended: 0,
    started: None,
    shown: false,
    painter: false,
    next_id: 0,
    width: 0,
});

thread_local! {
    /// The book this thread is building, for [`step`] and [`count`] deep in the build.
    static CURRENT: RefCell<Option<u64>> = const { RefCell::new(None) };
}

fn board() -> MutexGuard<'static, Board> {
    // A panic while printing leaves the board as it was; it is still usable.
    BOARD.lock().unwrap_or_else(|e| e.into_inner())
}

/// A run of `books` books begins.
pub fn books(books: usize) {
    if super::progress_style().is_none() {
        return;
    }
    let mut b = board();
    b.books = books;
    b.ended = 0;
    b.started.get_or_insert_with(Instant::now);
}

/// One book of the run ended without being built (it was up to date).
pub fn skipped() {
    if super::progress_style().is_some() {
        board().ended += 1;
    }
}

/// The book in `dir` is being built on this thread until the returned guard is dropped; it
/// is shown by its folder's name.
pub fn begin(dir: &std::path::Path) -> Building {
    if super::progress_style().is_none() {
        return Building { id: None };
    }
    let label = dir.file_name().unwrap_or(dir.as_os_str()).to_string_lossy();
    let id = {
        let mut b = board();
        b.next_id += 1;
        let id = b.next_id;
        b.tasks.push(Task {
            id,
            label: label.to_string(),
            step: "starting",
            count: None,
        });
        b.started.get_or_insert_with(Instant::now);
        if !b.painter {
            b.painter = true;
            std::thread::spawn(paint_forever);
        }
        id
    };
    // A thread waiting in a parallel loop may build another book meanwhile (rayon steals
    // work): that one's guard puts this one back when it ends.
    let outer = CURRENT.with(|c| c.replace(Some(id)));
    Building {
        id: Some((id, outer)),
    }
}

/// While it lives, a book is shown as being built.
pub struct Building {
    id: Option<(u64, Option<u64>)>,
}

impl Drop for Building {
    fn drop(&mut self) {
        if let Some((id, outer)) = self.id {
            CURRENT.with(|c| *c.borrow_mut() = outer);
            let mut b = board();
            b.tasks.retain(|t| t.id != id);
            b.ended += 1;
            if b.tasks.is_empty() {
                clear(&mut b);
            }
        }
    }
}

/// The book built on this thread is at `step`.
pub fn step(step: &'static str) {
    with_task(|t| {
        t.step = step;
        t.count = None;
    });
}

/// `total` things (`what`: "chapters read") are to be done in this step; each done is
/// [`Tick::tick`]ed, from any thread.
pub fn count(what: &'static str, total: usize) -> Tick {
    let mut tick = Tick(None);
    with_task(|t| {
        let count = Arc::new(Count {
            what,
            done: AtomicUsize::new(0),
            total,
        });
        t.count = Some(count.clone());
        tick = Tick(Some(count));
    });
    tick
}

/// Counts what a step has done (a no-op when the line is off).
#[derive(Clone)]
pub struct Tick(Option<Arc<Count>>);

impl Tick {
    pub fn tick(&self) {
        if let Some(c) = &self.0 {
            c.done.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn with_task(f: impl FnOnce(&mut Task)) {
    if super::progress_style().is_none() {
        return;
    }
    let Some(id) = CURRENT.with(|c| *c.borrow()) else {
        return;
    };
    if let Some(t) = board().tasks.iter_mut().find(|t| t.id == id) {
        f(t);
    }
}

/// Runs `print` with the progress line off the screen.
pub fn above(print: impl FnOnce()) {
    let mut b = board();
    clear(&mut b);
    print();
}

fn clear(b: &mut Board) {
    if b.shown {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(erase(b.width).as_bytes());
        let _ = err.flush();
        b.shown = false;
    }
}

/// What takes the line off the screen, leaving the cursor at its start.
fn erase(width: usize) -> String {
    match super::progress_style() {
        Some(Style::Plain) => format!("\r{}\r", " ".repeat(width.saturating_sub(1))),
        _ => "\r\x1b[2K".to_string(),
    }
}

fn paint_forever() {
    let after = quiet_for();
    loop {
        std::thread::sleep(TICK);
        let mut b = board();
        let due = b.started.is_some_and(|s| s.elapsed() >= after);
        if b.tasks.is_empty() || !due {
            continue;
        }
        let width = width();
        let line = fit(&line(&b), width);
        let mut err = std::io::stderr().lock();
        // Over the last line as wide as it was (the terminal may have been narrowed since).
        let _ = write!(err, "{}{line}", erase(b.width.max(width)));
        let _ = err.flush();
        b.shown = true;
        b.width = width;
    }
}

/// `[=====>    ] 3/24 books · neko: convert (120/500 pages written), rv: read · 12 s`.
fn line(b: &Board) -> String {
    let elapsed = b.started.map_or(0, |s| s.elapsed().as_secs());
    let tasks: Vec<String> = b
        .tasks
        .iter()
        .map(|t| match &t.count {
            Some(c) => format!(
                "{}: {} ({}/{} {})",
                t.label,
                t.step,
                c.done.load(Ordering::Relaxed).min(c.total),
                c.total,
                c.what
            ),
            None => format!("{}: {}", t.label, t.step),
        })
        .collect();
    let bar = if b.books > 1 {
        format!("{} {}/{} books · ", bar(b.ended, b.books), b.ended, b.books)
    } else if let [Task { count: Some(c), .. }] = b.tasks.as_slice() {
        format!("{} ", bar(c.done.load(Ordering::Relaxed), c.total))
    } else {
        String::new()
    };
    format!("{bar}{} · {elapsed} s", tasks.join(", "))
}

/// `[=====>    ]`, 20 wide.
fn bar(done: usize, total: usize) -> String {
    const WIDE: usize = 20;
    let full = (done.min(total) * WIDE).checked_div(total).unwrap_or(0);
    let mut s = String::from("[");
    s.push_str(&"=".repeat(full));
    if full < WIDE {
        s.push('>');
        s.push_str(&" ".repeat(WIDE - full - 1));
    }
    s.push(']');
    s
}

/// `line` cut to fit `width` columns less one (a line as wide as the terminal wraps on some).
fn fit(line: &str, width: usize) -> String {
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut out = String::new();
    for c in line.chars() {
        let w = if crate::eaw::is_wide(c) { 2 } else { 1 };
        if used + w > room {
            out.push('…');
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

/// The terminal's width in columns (80 when it cannot be asked).
fn width() -> usize {
    #[cfg(unix)]
    if let Ok(size) = rustix::termios::tcgetwinsize(std::io::stderr())
        && size.ws_col > 0
    {
        return usize::from(size.ws_col);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_work_done() {
        assert_eq!(bar(0, 4), format!("[>{}]", " ".repeat(19)));
        assert_eq!(bar(2, 4), format!("[{}>{}]", "=".repeat(10), " ".repeat(9)));
        assert_eq!(bar(4, 4), format!("[{}]", "=".repeat(20)));
        assert_eq!(bar(0, 0), format!("[>{}]", " ".repeat(19)));
    }

    #[test]
    fn the_line_says_each_book_its_step_and_its_count() {
        let count = Arc::new(Count {
            what: "chapters read",
            done: AtomicUsize::new(120),
            total: 500,
        });
        let b = Board {
            tasks: vec![
                Task {
                    id: 1,
                    label: "neko".into(),
                    step: "read",
                    count: Some(count),
                },
                Task {
                    id: 2,
                    label: "rv".into(),
                    step: "pack",
                    count: None,
                },
            ],
            books: 24,
            ended: 3,
            ..Board::default()
        };
        let got = line(&b);
        assert!(
            got.starts_with("[==>                 ] 3/24 books · neko: read (120/500 chapters read), rv: pack · "),
            "{got}"
        );
    }

    #[test]
    fn a_long_line_is_cut_to_the_terminal_counting_wide_characters_as_two() {
        assert_eq!(fit("abcdef", 5), "abcd…");
        assert_eq!(fit("猫の本です", 6), "猫の…");
        assert_eq!(fit("short", 80), "short");
    }
}
