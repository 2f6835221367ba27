//! Crash safety: `seihon build` killed with SIGKILL at any moment leaves the previous EPUB and
//! preview, or the new ones, each whole; the next build succeeds, builds the right bytes and
//! removes what the killed runs left behind. The same holds when the killed build is the first.
//!
//! The kill times come from a small PRNG with a fixed seed (printed): a failure replays with the
//! same delays, though where a delay lands in the build depends on the machine. The assertions
//! hold wherever a kill lands; the test only insists that kills landed both before and after the
//! EPUB was replaced, adding trials aimed at that moment when the first ones did not.
#![cfg(unix)]

use crate::support;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// Every run builds with this time, so that the same sources give the same bytes.
const EPOCH: &str = "1700000000";
const SEED: u64 = 0x5e1_b0a7_2026;
const TRIALS: usize = 50;
/// Extra trials, aimed at the moment the EPUB is replaced, when the first ones missed it.
const MAX_AIMED: usize = 40;
const FIRST_BUILD_TRIALS: usize = 6;
/// The synthetic book: chapters × lines, enough for a debug build of a few hundred ms.
const CHAPTERS: usize = 16;
const LINES: usize = 300;

/// SplitMix64: small, fixed, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A delay in `0..=max`.
    fn delay(&mut self, max: Duration) -> Duration {
        let micros = max.as_micros() as u64;
        Duration::from_micros(self.next() % (micros + 1))
    }
}

fn seihon(project: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_seihon"));
    cmd.arg("build")
        .current_dir(project)
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// A full build, which must succeed; how long it took.
fn build(project: &Path) -> Duration {
    let started = Instant::now();
    let out = seihon(project)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    started.elapsed()
}

/// What one build of one version of the sources gives.
#[derive(Clone)]
struct Generation {
    name: &'static str,
    epub: Vec<u8>,
    /// The unpacked EPUB (`public/<id>/book/`), which is also the staged tree (`build/<id>/`).
    pages: BTreeMap<String, Vec<u8>>,
}

/// The version of the outputs found on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gen {
    Old,
    New,
}

impl Gen {
    fn other(self) -> Gen {
        match self {
            Gen::Old => Gen::New,
            Gen::New => Gen::Old,
        }
    }
}

/// The book, its id, and the two versions of its first chapter.
struct Sources {
    id: String,
    chapter: PathBuf,
    old: String,
    new: String,
}

impl Sources {
    fn write(&self, book: &Path, gen_: Gen) {
        let text = match gen_ {
            Gen::Old => &self.old,
            Gen::New => &self.new,
        };
        std::fs::write(book.join(&self.chapter), text).unwrap();
    }
}

/// The outputs of the project, checked: the EPUB, the preview and the staged tree are each one
/// whole version (`None`: not there at all, allowed only when `may_be_missing`).
struct State {
    dist: Option<Gen>,
    preview: Option<Gen>,
    staged: Option<Gen>,
    leftovers: Vec<PathBuf>,
}

fn which(
    what: &str,
    found: (&[u8], Option<&BTreeMap<String, Vec<u8>>>),
    old: &Generation,
    new: &Generation,
    context: &str,
) -> Gen {
    for (g, generation) in [(Gen::Old, old), (Gen::New, new)] {
        if found.0 == generation.epub.as_slice() && found.1.is_none_or(|p| p == &generation.pages) {
            return g;
        }
    }
    let describe = |g: &Generation| {
        let pages = found.1.unwrap_or(&g.pages);
        let differing: Vec<&String> = g
            .pages
            .keys()
            .chain(pages.keys())
            .filter(|k| g.pages.get(*k) != pages.get(*k))
            .take(5)
            .collect();
        format!(
            "{}: epub {} pages differ at {differing:?}",
            g.name,
            if found.0 == g.epub.as_slice() {
                "same,"
            } else {
                "differs,"
            }
        )
    };
    panic!(
        "{context}: {what} is neither the old nor the new version, whole ({}; {})",
        describe(old),
        describe(new)
    )
}

fn check(
    project: &Path,
    src: &Sources,
    old: &Generation,
    new: &Generation,
    may_be_missing: bool,
    context: &str,
) -> State {
    let id = &src.id;
    // dist/<id>.epub: the old EPUB or the new one, byte for byte.
    let epub = project.join("dist").join(format!("{id}.epub"));
    let dist = match std::fs::read(&epub) {
        Ok(bytes) => Some(which("dist EPUB", (&bytes, None), old, new, context)),
        Err(_) if may_be_missing => None,
        Err(e) => panic!("{context}: {} is gone: {e}", epub.display()),
    };
    // Nothing but the EPUB and seihon's temporaries in dist/.
    let mut leftovers = Vec::new();
    let temporaries = |dir: &Path, allowed: &dyn Fn(&str) -> bool, out: &mut Vec<PathBuf>| {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(".seihon-") {
                out.push(entry.path());
            } else {
                assert!(
                    allowed(&name),
                    "{context}: unexpected {}",
                    entry.path().display()
                );
            }
        }
    };
    let epub_name = format!("{id}.epub");
    temporaries(&project.join("dist"), &|n| n == epub_name, &mut leftovers);

    // public/<id>/: the EPUB and its pages of one version, an index, a status and a log.
    let area = project.join("public").join(id);
    let preview = if area.exists() {
        let mut found = files_of(&area);
        let copy = found
            .remove(&epub_name)
            .unwrap_or_else(|| panic!("{context}: no EPUB in the preview"));
        let index = String::from_utf8(
            found
                .remove("index.html")
                .unwrap_or_else(|| panic!("{context}: no index.html in the preview")),
        )
        .unwrap();
        assert!(
            index.trim_end().ends_with("</html>") && index.contains(&epub_name),
            "{context}: a broken index.html: {index}"
        );
        let status: serde_json::Value = serde_json::from_slice(
            &found
                .remove("status.json")
                .unwrap_or_else(|| panic!("{context}: no status.json in the preview")),
        )
        .unwrap_or_else(|e| panic!("{context}: a broken status.json: {e}"));
        assert_eq!(status["book"], id.as_str(), "{context}: {status}");
        assert_eq!(status["ok"], true, "{context}: {status}");
        assert_eq!(status["stale"], false, "{context}: {status}");
        let log = found
            .remove("build.log")
            .unwrap_or_else(|| panic!("{context}: no build.log in the preview"));
        assert!(String::from_utf8(log).is_ok(), "{context}: build.log");
        let pages: BTreeMap<String, Vec<u8>> = found
            .into_iter()
            .map(|(rel, bytes)| match rel.strip_prefix("book/") {
                Some(page) => (page.to_string(), bytes),
                None => panic!("{context}: unexpected public/{id}/{rel}"),
            })
            .collect();
        // Its EPUB and its pages are of the same version.
        Some(which(
            "the preview",
            (&copy, Some(&pages)),
            old,
            new,
            context,
        ))
    } else if may_be_missing {
        None
    } else {
        panic!("{context}: public/{id} is gone")
    };
    // Beside a folder seihon put in place, its mark (`.<id>.seihon`).
    let mark = format!(".{id}.seihon");
    temporaries(
        &project.join("public"),
        &|n| n == id || n == mark,
        &mut leftovers,
    );

    // build/<id>/: the staged tree of one version.
    let stage = project.join("build").join(id);
    let staged = if stage.exists() {
        let tree = files_of(&stage);
        let g = [(Gen::Old, old), (Gen::New, new)]
            .into_iter()
            .find(|(_, generation)| generation.pages == tree)
            .unwrap_or_else(|| panic!("{context}: build/{id} is neither version, whole"))
            .0;
        Some(g)
    } else if may_be_missing {
        None
    } else {
        panic!("{context}: build/{id} is gone")
    };
    temporaries(
        &project.join("build"),
        &|n| n == id || n == ".cache" || n == mark,
        &mut leftovers,
    );
    // The caches hold whole entries and temporaries only.
    for cache in ["chapters", "pages", "checks"] {
        temporaries(
            &project.join("build/.cache").join(cache).join(id),
            &|n| n.ends_with(".bin"),
            &mut leftovers,
        );
    }
    State {
        dist,
        preview,
        staged,
        leftovers,
    }
}

/// Leftovers that a clean build has not removed, other than those whose process id names a
/// running process (a reused pid: seihon rightly leaves those alone).
fn stale(leftovers: &[PathBuf]) -> Vec<&PathBuf> {
    leftovers
        .iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            let rest = name.trim_start_matches(".seihon-");
            let rest = ["stage-", "old-", "preview-"]
                .iter()
                .find_map(|k| rest.strip_prefix(k))
                .unwrap_or(rest);
            let pid = rest.split('-').next().unwrap_or("");
            !(pid.parse::<u32>().is_ok() && Path::new("/proc").join(pid).exists())
        })
        .collect()
}

/// Runs `seihon build`, kills it after `delay`; whether the kill stopped it (rather than it
/// having finished, successfully, first).
fn kill_after(project: &Path, delay: Duration) -> bool {
    let mut child = seihon(project).spawn().unwrap();
    std::thread::sleep(delay);
    child.kill().unwrap();
    let status = child.wait().unwrap();
    match status.signal() {
        Some(9) => true,
        _ => {
            assert!(
                status.success(),
                "a build not killed must succeed: {status}"
            );
            false
        }
    }
}

/// The generation a project's outputs hold after a successful build.
fn generation(project: &Path, id: &str, name: &'static str) -> Generation {
    let epub = std::fs::read(project.join("dist").join(format!("{id}.epub"))).unwrap();
    let pages = files_of(&project.join("public").join(id).join("book"));
    assert!(!pages.is_empty());
    assert_eq!(
        std::fs::read(project.join("public").join(id).join(format!("{id}.epub"))).unwrap(),
        epub
    );
    assert_eq!(files_of(&project.join("build").join(id)), pages);
    Generation { name, epub, pages }
}

#[derive(Default, Debug)]
struct Counts {
    /// Killed, the EPUB as before.
    kept: usize,
    /// Killed after the new EPUB was in place, its preview not yet.
    replaced_preview_kept: usize,
    /// Killed after the new EPUB and preview were in place.
    replaced_all: usize,
    /// Finished before the kill.
    finished: usize,
}

#[test]
fn a_killed_build_leaves_the_old_or_the_new_outputs_whole_and_the_next_build_succeeds() {
    let started = Instant::now();
    eprintln!("crash safety: seed {SEED:#x}, {TRIALS} trials (+ up to {MAX_AIMED} aimed)");
    let mut rng = Rng(SEED);

    // The book, in a folder of its own, and its two versions.
    let template = tempfile::tempdir().unwrap();
    let book_src = template.path().join("synth");
    seihon::synth::generate(seihon::synth::Format::Markdown, CHAPTERS, LINES, &book_src).unwrap();
    let chapter = PathBuf::from("ch001.md");
    let old_text = std::fs::read_to_string(book_src.join(&chapter)).unwrap();
    let src = Sources {
        id: String::new(),
        new: format!("{old_text}\nA paragraph only the new version has.\n"),
        old: old_text,
        chapter,
    };

    // The old version, built from scratch; then the new one and the old one again, warm (as
    // each trial builds), timed.
    let project = TempProject::new();
    let book = project.add_book(&book_src, "synth");
    let cold = build(project.path());
    let id = std::fs::read_dir(project.path().join("dist"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find_map(|n| n.strip_suffix(".epub").map(str::to_string))
        .expect("an EPUB in dist/");
    let src = Sources { id, ..src };
    src.write(&book, Gen::New);
    let warm_new = build(project.path());
    let new = generation(project.path(), &src.id, "new");
    src.write(&book, Gen::Old);
    let warm_old = build(project.path());
    let old = generation(project.path(), &src.id, "old");
    assert_ne!(old.epub, new.epub, "the edit changes the EPUB");
    // The new version built from scratch elsewhere gives the same bytes.
    let fresh = TempProject::new();
    let fresh_book = fresh.add_book(&book_src, "synth");
    src.write(&fresh_book, Gen::New);
    build(fresh.path());
    assert_eq!(generation(fresh.path(), &src.id, "new").epub, new.epub);
    drop(fresh);
    let full = warm_new.max(warm_old);
    eprintln!("build times: cold {cold:?}, warm {warm_new:?} / {warm_old:?}");

    // The trials: each builds the other version than the EPUB in place, killed after a delay
    // from 0 to a little past a full build.
    let mut held = Gen::Old;
    let mut counts = Counts::default();
    let mut most_leftovers = 0;
    // The longest delay that left the EPUB as it was, and the shortest that replaced it.
    let (mut kept_at, mut replaced_at) = (Duration::ZERO, full * 2);
    let mut trial = 0;
    let mut aimed = 0;
    loop {
        let done = trial >= TRIALS;
        let missing = counts.kept == 0 || counts.replaced_preview_kept + counts.replaced_all == 0;
        if done && (!missing || aimed >= MAX_AIMED) {
            break;
        }
        let delay = if !done {
            rng.delay(full.mul_f64(1.25))
        } else {
            aimed += 1;
            if counts.kept == 0 {
                Duration::ZERO
            } else {
                // Between the last delay that kept the EPUB and the first that replaced it,
                // with a little jitter.
                let (lo, hi) = (kept_at, replaced_at.max(kept_at));
                lo + rng.delay(hi - lo)
            }
        };
        let target = held.other();
        src.write(&book, target);
        let killed = kill_after(project.path(), delay);
        let context = format!(
            "trial {trial} (seed {SEED:#x}, delay {delay:?}, building {target:?} over {held:?})"
        );
        let state = check(project.path(), &src, &old, &new, false, &context);
        let dist = state.dist.unwrap();
        most_leftovers = most_leftovers.max(state.leftovers.len());
        if !killed {
            counts.finished += 1;
            assert_eq!(
                (dist, state.preview, state.staged),
                (target, Some(target), Some(target)),
                "{context}: a finished build"
            );
        } else if dist == held {
            counts.kept += 1;
        } else if state.preview == Some(target) {
            counts.replaced_all += 1;
        } else {
            counts.replaced_preview_kept += 1;
        }
        if dist == held {
            kept_at = kept_at.max(delay);
        } else {
            replaced_at = replaced_at.min(delay);
        }
        eprintln!(
            "{context}: {}, EPUB {dist:?}, preview {:?}, staged {:?}, {} leftovers",
            if killed { "killed" } else { "finished" },
            state.preview.unwrap(),
            state.staged.unwrap(),
            state.leftovers.len()
        );
        held = dist;
        trial += 1;
    }
    eprintln!(
        "outcomes after {trial} trials ({aimed} aimed): {counts:?}; at most {most_leftovers} leftovers at once"
    );
    assert!(
        counts.kept > 0,
        "no kill left the old EPUB: the kills did not land early in the build ({counts:?})"
    );
    assert!(
        counts.replaced_preview_kept + counts.replaced_all > 0,
        "no killed build had replaced the EPUB: the kills did not land late in the build ({counts:?})"
    );

    // The next build succeeds, builds the right bytes and removes every leftover.
    let target = held.other();
    src.write(&book, target);
    build(project.path());
    let state = check(
        project.path(),
        &src,
        &old,
        &new,
        false,
        "the build after the trials",
    );
    let expected = (Some(target), Some(target), Some(target));
    assert_eq!((state.dist, state.preview, state.staged), expected);
    assert_eq!(
        stale(&state.leftovers),
        Vec::<&PathBuf>::new(),
        "the build after the trials left temporaries of killed runs"
    );

    // The very first build killed: the next one succeeds all the same.
    let mut first = [0usize; 4]; // nothing, EPUB only, EPUB and preview, finished
    for i in 0..FIRST_BUILD_TRIALS {
        // Spread over the cold build, with a little jitter.
        let span = cold.mul_f64(1.1);
        let delay = span.mul_f64(i as f64 / FIRST_BUILD_TRIALS as f64)
            + rng.delay(span / FIRST_BUILD_TRIALS as u32);
        let context = format!("first build {i} (seed {SEED:#x}, delay {delay:?})");
        let p = TempProject::new();
        let b = p.add_book(&book_src, "synth");
        src.write(&b, Gen::Old);
        let killed = kill_after(p.path(), delay);
        // Whatever is there is whole, and of the one version built.
        let state = check(p.path(), &src, &old, &new, true, &context);
        assert!(
            [state.dist, state.preview, state.staged]
                .iter()
                .all(|g| g.is_none_or(|g| g == Gen::Old)),
            "{context}"
        );
        let k = match (killed, state.dist, state.preview) {
            (false, _, _) => 3,
            (true, None, _) => 0,
            (true, Some(_), None) => 1,
            (true, Some(_), Some(_)) => 2,
        };
        first[k] += 1;
        eprintln!(
            "{context}: {}, EPUB {:?}, preview {:?}, staged {:?}",
            if killed { "killed" } else { "finished" },
            state.dist,
            state.preview,
            state.staged
        );
        build(p.path());
        let state = check(p.path(), &src, &old, &new, false, &context);
        assert_eq!(
            (state.dist, state.preview, state.staged),
            (Some(Gen::Old), Some(Gen::Old), Some(Gen::Old)),
            "{context}: the build after"
        );
        assert_eq!(stale(&state.leftovers), Vec::<&PathBuf>::new(), "{context}");
    }
    eprintln!(
        "first builds: {} killed before the EPUB, {} with the EPUB only, {} with EPUB and preview, {} finished",
        first[0], first[1], first[2], first[3]
    );
    assert!(first[0] > 0, "no first build was killed early");
    eprintln!("crash safety: {:?} in all", started.elapsed());
}
