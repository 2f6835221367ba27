//! Shared helpers for the integration tests: temporary projects, running the real binary,
//! reading EPUBs, and the real epubcheck.
#![allow(dead_code, reason = "each test binary uses a different subset")]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary project folder, with the given books copied from `books/` or fixtures.
pub struct TempProject {
    pub dir: tempfile::TempDir,
}

impl TempProject {
    pub fn new() -> Self {
        TempProject {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Copies a folder (a book) to `books/<name>` in the project.
    pub fn add_book(&self, from: &Path, name: &str) -> PathBuf {
        let to = self.path().join("books").join(name);
        copy_dir(from, &to);
        to
    }

    pub fn seihon(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_seihon"))
            .args(args)
            .current_dir(self.path())
            .env_remove("SOURCE_DATE_EPOCH")
            .output()
            .expect("run seihon")
    }

    /// Runs seihon from `dir` (a folder inside the project, or anywhere).
    pub fn seihon_in(&self, dir: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_seihon"))
            .args(args)
            .current_dir(dir)
            .env_remove("SOURCE_DATE_EPOCH")
            .output()
            .expect("run seihon")
    }

    pub fn epub(&self, id: &str) -> PathBuf {
        self.path().join("dist").join(format!("{id}.epub"))
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// One entry of an EPUB, as text.
pub fn read_entry(epub: &Path, name: &str) -> String {
    String::from_utf8(read_entry_bytes(epub, name)).expect("UTF-8 entry")
}

pub fn read_entry_bytes(epub: &Path, name: &str) -> Vec<u8> {
    use std::io::Read;
    let file = std::fs::File::open(epub).expect("open epub");
    let mut zip = zip::ZipArchive::new(file).expect("zip");
    let mut entry = zip
        .by_name(name)
        .unwrap_or_else(|_| panic!("{name} in {}", epub.display()));
    let mut buf = Vec::new();
    entry.read_to_end(&mut buf).unwrap();
    buf
}

pub fn entry_names(epub: &Path) -> Vec<String> {
    let file = std::fs::File::open(epub).expect("open epub");
    let zip = zip::ZipArchive::new(file).expect("zip");
    zip.file_names()
        .map(|n| n.map(|s| s.to_string()).expect("entry name"))
        .collect()
}

/// epubcheck for every test of the suite: two long-lived JVMs that check one EPUB after another
/// (a cold JVM spends seconds warming up for each check; see the corpus harness). They end with
/// the test process, when their input closes.
fn checker() -> &'static crate::corpus::harness::run::Epubchecker {
    static CHECKER: std::sync::OnceLock<crate::corpus::harness::run::Epubchecker> =
        std::sync::OnceLock::new();
    CHECKER.get_or_init(|| {
        let jar =
            crate::corpus::harness::run::epubcheck_jar().unwrap_or_else(|why| panic!("{why}"));
        crate::corpus::harness::run::Epubchecker::new(jar, 2)
    })
}

/// Runs the real epubcheck and returns its messages as `SEVERITY ID: message (file)` lines.
pub fn epubcheck(epub: &Path) -> Vec<String> {
    let report = tempfile::NamedTempFile::new().unwrap();
    checker()
        .report(epub, report.path())
        .unwrap_or_else(|why| panic!("epubcheck could not run on {}: {why}", epub.display()));
    let out = format!("(the report of {})", epub.display());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(report.path()).unwrap())
        .unwrap_or_else(|e| panic!("epubcheck wrote no JSON report ({e}) {out}"));
    assert_eq!(
        json["checker"]["checkerVersion"]
            .as_str()
            .map(|v| v.starts_with("5.3.0")),
        Some(true),
        "expected epubcheck 5.3.0, got {}",
        json["checker"]["checkerVersion"]
    );
    json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["severity"] != "USAGE" && m["severity"] != "INFO")
        .map(|m| {
            format!(
                "{} {}: {} ({})",
                m["severity"].as_str().unwrap_or(""),
                m["ID"].as_str().unwrap_or(""),
                m["message"].as_str().unwrap_or(""),
                m["locations"][0]["path"].as_str().unwrap_or("")
            )
        })
        .collect()
}

pub mod watching;

/// A Markdown paragraph no reader renders around: `text` inside quotes nested past the bound
/// every format has. Tests append it to fail a book at the read step, at its line (ill-formed
/// HTML no longer does: it degrades to a warning, as real books need).
pub fn unreadable_markdown(text: &str) -> String {
    format!("{}{text}", "> ".repeat(101))
}

/// What the error for [`unreadable_markdown`] says.
pub const UNREADABLE: &str = "levels deep";

/// What `golden` expects where it differs from `got` (`None`: they are equal). With
/// `SEIHON_BLESS` set, `got` becomes the golden instead (review the diff!).
pub fn against_golden(got: &str, golden: &Path) -> Option<String> {
    if std::env::var_os("SEIHON_BLESS").is_some() {
        std::fs::write(golden, got).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(golden)
        .unwrap_or_else(|_| panic!("{} is missing: run with SEIHON_BLESS=1", golden.display()));
    (expected != got).then_some(expected)
}

/// Every file under `dir` with its bytes (empty when `dir` does not exist).
pub fn files_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    if !dir.exists() {
        return Default::default();
    }
    seihon::epub::list_files(dir)
        .unwrap()
        .into_iter()
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

/// Writes an executable file (a hook, a filter or check program), making its folder.
pub fn write_exec(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
