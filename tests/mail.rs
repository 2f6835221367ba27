//! The notify stage against a real SMTP server (aiosmtpd on 127.0.0.1), no mocks: what the
//! server receives is parsed back and checked, and every failure mode gives a plain error in time.
use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;

use seihon::mail::{
    self, BookRun, Login, MailConfig, MailError, RunInfo, Sent, TlsMode, TransportKind, Trigger,
};

const NEED: &str =
    "the mail tests need python3 with aiosmtpd: run `python3 -m pip install aiosmtpd`";

/// An aiosmtpd server on a free port of 127.0.0.1, delivering into a maildir; killed on drop,
/// also when the test panics.
struct Smtp {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which server to run.
enum Kind<'a> {
    Plain,
    /// Offers STARTTLS and requires it before MAIL.
    Starttls(&'a Pki),
    /// TLS from the first byte.
    Smtps(&'a Pki),
    /// Accepts only user `seihon` with password `right`; AUTH over plain TCP.
    Auth,
}

/// aiosmtpd's CLI cannot configure an authenticator, so that server is this small script.
const AUTH_SERVER: &str = r#"
import sys, time
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult, LoginPassword

def check(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == b"seihon" and data.password == b"right"
    # handled=False makes aiosmtpd answer 535 itself; True would leave the client waiting.
    return AuthResult(success=ok, handled=False)

c = Controller(Mailbox(sys.argv[2]), hostname="127.0.0.1", port=int(sys.argv[1]),
               authenticator=check, auth_require_tls=False)
c.start()
while True:
    time.sleep(3600)
"#;

impl Smtp {
    fn start(kind: Kind) -> Smtp {
        match Command::new("python3")
            .args(["-c", "import aiosmtpd"])
            .output()
        {
            Ok(out) if out.status.success() => {}
            _ => panic!("{NEED}"),
        }
        // The port is free when probed but may be taken before the server binds: retry.
        let mut last = String::new();
        for _ in 0..3 {
            let dir = tempfile::tempdir().expect("temp dir");
            let port = free_port();
            let maildir = dir.path().join("maildir");
            let mut cmd = Command::new("python3");
            match kind {
                Kind::Auth => {
                    cmd.arg("-c")
                        .arg(AUTH_SERVER)
                        .arg(port.to_string())
                        .arg(&maildir);
                }
                _ => {
                    cmd.args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")]);
                    match kind {
                        Kind::Starttls(pki) => {
                            cmd.arg("--tlscert")
                                .arg(&pki.cert)
                                .arg("--tlskey")
                                .arg(&pki.key);
                        }
                        Kind::Smtps(pki) => {
                            cmd.arg("--smtpscert")
                                .arg(&pki.cert)
                                .arg("--smtpskey")
                                .arg(&pki.key);
                        }
                        _ => {}
                    }
                    cmd.args(["-c", "aiosmtpd.handlers.Mailbox"]).arg(&maildir);
                }
            }
            let log = fs::File::create(dir.path().join("server.log")).expect("server log");
            let child = cmd
                .stdin(Stdio::null())
                .stdout(log.try_clone().expect("log"))
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start python3 ({e}); {NEED}"));
            let mut server = Smtp { child, port, dir };
            // Generous: python starts slowly on a loaded two-core machine.
            let deadline = Instant::now() + Duration::from_secs(60);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = server.child.try_wait() {
                    break;
                }
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return server;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            last = fs::read_to_string(server.dir.path().join("server.log")).unwrap_or_default();
        }
        panic!("the SMTP server did not start:\n{last}\n{NEED}");
    }

    fn maildir(&self) -> PathBuf {
        self.dir.path().join("maildir")
    }

    /// The messages the server delivered.
    fn received(&self) -> Vec<Vec<u8>> {
        let Ok(entries) = fs::read_dir(self.maildir().join("new")) else {
            return Vec::new();
        };
        entries
            .map(|e| fs::read(e.expect("maildir entry").path()).expect("read message"))
            .collect()
    }

    fn config(&self, extra: &str) -> MailConfig {
        config(&format!(
            "from: ci@example.com\nto: [production@example.com]\n\
             smtp: {{host: 127.0.0.1, port: {}, timeout: 20{extra}}}\n",
            self.port
        ))
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn config(yaml: &str) -> MailConfig {
    serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("config {yaml}: {e}"))
}

/// A private CA and a server certificate it signed, for 127.0.0.1 and localhost.
struct Pki {
    _dir: tempfile::TempDir,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "seihon test CA");
    let ca = ca_params.self_signed(&ca_key).expect("CA certificate");
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().expect("server key");
    let cert = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
        .expect("server params")
        .signed_by(&key, &issuer)
        .expect("server certificate");
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        fs::write(&path, text).expect("write PEM");
        path
    };
    Pki {
        ca: write("ca.pem", ca.pem()),
        cert: write("cert.pem", cert.pem()),
        key: write("key.pem", key.serialize_pem()),
        _dir: dir,
    }
}

fn run() -> RunInfo {
    RunInfo {
        commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
        project: "neko-press".into(),
    }
}

fn failed_book(name: &str) -> BookRun {
    let log: String = (1..=100)
        .map(|i| format!("step {i:03}: 第{i}章を読む\n"))
        .collect();
    BookRun {
        book: name.into(),
        ok: false,
        failed_stage: Some("read".into()),
        findings_text: "books/neko/ch01.re:12:5: error: 見出しの後に本文がありません".into(),
        log,
    }
}

fn header(mail: &mailparse::ParsedMail, name: &str) -> String {
    use mailparse::MailHeaderMap;
    mail.headers
        .get_first_value(name)
        .unwrap_or_else(|| panic!("no {name} header"))
}

/// The text part and the attachment of a composed mail, decoded.
fn parts(mail: &mailparse::ParsedMail) -> (String, String, String) {
    assert_eq!(mail.ctype.mimetype, "multipart/mixed");
    assert_eq!(mail.subparts.len(), 2, "a text part and the log");
    let text = &mail.subparts[0];
    assert_eq!(text.ctype.mimetype, "text/plain");
    let log = &mail.subparts[1];
    let disposition = log.get_content_disposition();
    assert_eq!(
        disposition.disposition,
        mailparse::DispositionType::Attachment
    );
    assert_eq!(log.ctype.mimetype, "text/plain");
    assert_eq!(log.ctype.charset.to_lowercase(), "utf-8");
    let crlf = |s: String| s.replace("\r\n", "\n");
    (
        crlf(text.get_body().expect("text body")),
        disposition.params["filename"].clone(),
        crlf(log.get_body().expect("log body")),
    )
}

#[test]
fn delivers_summary_findings_log_tail_and_the_whole_log() {
    let server = Smtp::start(Kind::Plain);
    let cfg = config(&format!(
        "from: seihon CI <ci@example.com>\n\
         to: [production@example.com, 編集部 <editors@example.com>]\n\
         cc: [lead@example.com]\n\
         log_lines: 10\n\
         smtp: {{host: 127.0.0.1, port: {}, timeout: 20}}\n",
        server.port
    ));
    let book = failed_book("吾輩は猫である");
    let message = mail::compose(&cfg, &run(), &book).expect("compose");
    let sent = mail::send_with(&cfg, &message, None).expect("send");
    assert_eq!(sent, Sent::Server(format!("127.0.0.1:{}", server.port)));

    let received = server.received();
    assert_eq!(received.len(), 1, "one message delivered");
    let mail = mailparse::parse_mail(&received[0]).expect("parse the delivered mail");
    assert_eq!(
        header(&mail, "Subject"),
        "[seihon] 吾輩は猫である failed at read (commit 0123456789ab)"
    );
    assert!(header(&mail, "From").contains("<ci@example.com>"));
    let to = header(&mail, "To");
    assert!(to.contains("production@example.com") && to.contains("編集部 <editors@example.com>"));
    assert_eq!(header(&mail, "Cc"), "lead@example.com");
    // The envelope (aiosmtpd records it) reaches the cc too.
    let rcpt = header(&mail, "X-RcptTo");
    for who in ["production@", "editors@", "lead@"] {
        assert!(
            rcpt.contains(who),
            "{who} missing from the envelope: {rcpt}"
        );
    }
    assert_eq!(header(&mail, "Auto-Submitted"), "auto-generated");

    let (text, filename, log) = parts(&mail);
    for line in [
        "Book:    吾輩は猫である",
        "Result:  failed at read",
        "Project: neko-press",
        "Commit:  0123456789abcdef0123456789abcdef01234567",
        "Time:    20",
        "books/neko/ch01.re:12:5: error: 見出しの後に本文がありません",
        "The last 10 lines of the log (the full log is attached as 吾輩は猫である.log)",
        "step 091: 第91章を読む",
        "step 100: 第100章を読む",
    ] {
        assert!(text.contains(line), "body lacks {line:?}:\n{text}");
    }
    assert!(
        !text.contains("step 090"),
        "only the last 10 lines:\n{text}"
    );
    assert_eq!(filename, "吾輩は猫である.log");
    assert_eq!(
        log.trim_end(),
        book.log.trim_end(),
        "the whole log is attached"
    );
}

#[test]
fn file_transport_writes_an_eml_that_parses_back() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut cfg = config("from: ci@example.com\nto: [production@example.com]\ntransport: file\n");
    assert_eq!(cfg.transport, TransportKind::File);
    assert_eq!(cfg.dir, Path::new("build/mail"));
    cfg.resolve_paths(tmp.path());
    let book = BookRun {
        book: "neko-no-hon".into(),
        ok: true,
        failed_stage: None,
        findings_text: String::new(),
        log: "built\n".into(),
    };
    let run = RunInfo {
        commit: Some("abc1234def5678".into()),
        project: "p".into(),
    };
    let message = mail::compose(&cfg, &run, &book).expect("compose");
    let Sent::File(path) = mail::send_with(&cfg, &message, None).expect("write") else {
        panic!("the file transport reports a file");
    };
    assert_eq!(path.parent(), Some(tmp.path().join("build/mail").as_path()));
    assert_eq!(path.extension().and_then(|e| e.to_str()), Some("eml"));
    let bytes = fs::read(&path).expect("read the .eml");
    let mail = mailparse::parse_mail(&bytes).expect("parse the .eml");
    assert_eq!(
        header(&mail, "Subject"),
        "[seihon] neko-no-hon fixed (commit abc1234def56)"
    );
    let (text, filename, log) = parts(&mail);
    assert!(text.contains("Result:  fixed"), "{text}");
    assert!(text.contains("Findings:\n(none)"), "{text}");
    assert_eq!(filename, "neko-no-hon.log");
    assert_eq!(log.trim_end(), "built");
}

fn quick_message(cfg: &MailConfig) -> lettre::Message {
    mail::compose(cfg, &run(), &failed_book("neko-no-hon")).expect("compose")
}

#[test]
fn a_server_that_is_down_fails_fast_in_plain_words() {
    let port = support::watching::refused_port();
    let cfg = config(&format!(
        "from: ci@example.com\nto: [production@example.com]\n\
         smtp: {{host: 127.0.0.1, port: {port}, timeout: 30}}\n"
    ));
    let started = Instant::now();
    let err = mail::send_with(&cfg, &quick_message(&cfg), None).expect_err("nobody listens");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        err.to_string(),
        format!("the mail server 127.0.0.1:{port} did not answer (connection refused)")
    );
}

#[test]
fn a_server_that_never_answers_times_out() {
    // Accepts TCP (the kernel completes the handshake) but never writes a byte.
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    for tls in ["none", "tls"] {
        let cfg = config(&format!(
            "from: ci@example.com\nto: [production@example.com]\n\
             smtp: {{host: 127.0.0.1, port: {port}, tls: {tls}, timeout: 1}}\n"
        ));
        let started = Instant::now();
        let err = mail::send_with(&cfg, &quick_message(&cfg), None).expect_err("no greeting");
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(900) && took < Duration::from_secs(10),
            "tls {tls}: {took:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("the mail server 127.0.0.1:{port} did not answer (no reply within 1 s)"),
            "tls {tls}"
        );
    }
}

#[test]
fn a_refused_login_is_named_and_a_good_one_delivers() {
    let server = Smtp::start(Kind::Auth);
    let cfg = server.config("");
    let message = quick_message(&cfg);
    let wrong = Login {
        user: "seihon".into(),
        password: "wrong".into(),
    };
    let err = mail::send_with(&cfg, &message, Some(&wrong)).expect_err("wrong password");
    assert!(matches!(err, MailError::AuthRefused { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "the mail server 127.0.0.1:{} refused the login for user seihon (535",
            server.port
        )),
        "{text}"
    );
    assert!(!text.contains("wrong"), "the password never shows: {text}");
    assert!(server.received().is_empty());

    let right = Login {
        user: "seihon".into(),
        password: "right".into(),
    };
    mail::send_with(&cfg, &message, Some(&right)).expect("the right password delivers");
    assert_eq!(server.received().len(), 1);
}

#[test]
fn login_or_starttls_that_the_server_lacks_sends_nothing() {
    let server = Smtp::start(Kind::Plain);
    // A login is set but the server offers no AUTH: say so rather than send unauthenticated.
    let cfg = server.config("");
    let login = Login {
        user: "seihon".into(),
        password: "pw".into(),
    };
    let err = mail::send_with(&cfg, &quick_message(&cfg), Some(&login)).expect_err("no AUTH");
    assert!(matches!(err, MailError::NoLogin { .. }), "{err:?}");

    // STARTTLS is required and never downgraded to clear text.
    let cfg = server.config(", tls: starttls");
    assert_eq!(cfg.smtp.tls, TlsMode::Starttls);
    let err = mail::send_with(&cfg, &quick_message(&cfg), None).expect_err("no STARTTLS");
    assert_eq!(
        err.to_string(),
        format!(
            "the mail server 127.0.0.1:{} does not offer STARTTLS, which `tls: starttls` \
             requires; nothing was sent",
            server.port
        )
    );
    assert!(server.received().is_empty(), "nothing went out in clear");
}

#[test]
fn starttls_with_a_private_ca_delivers_and_an_unknown_ca_is_refused() {
    let pki = pki();
    // This server refuses MAIL before STARTTLS, so a delivery proves the upgrade happened.
    let server = Smtp::start(Kind::Starttls(&pki));
    let trusted = server.config(&format!(", tls: starttls, ca_file: '{}'", pki.ca.display()));
    let sent = mail::send_with(&trusted, &quick_message(&trusted), None).expect("STARTTLS send");
    assert_eq!(sent, Sent::Server(format!("127.0.0.1:{}", server.port)));
    assert_eq!(server.received().len(), 1);

    let untrusted = server.config(", tls: starttls");
    let err =
        mail::send_with(&untrusted, &quick_message(&untrusted), None).expect_err("unknown CA");
    assert!(matches!(err, MailError::Tls { .. }), "{err:?}");
    assert!(
        err.to_string().contains("not signed by a known authority"),
        "{err}"
    );
    assert_eq!(server.received().len(), 1, "nothing more was sent");
}

#[test]
fn implicit_tls_with_a_private_ca_delivers_and_an_unknown_ca_is_refused() {
    let pki = pki();
    let server = Smtp::start(Kind::Smtps(&pki));
    let trusted = server.config(&format!(", tls: tls, ca_file: '{}'", pki.ca.display()));
    mail::send_with(&trusted, &quick_message(&trusted), None).expect("implicit TLS send");
    let received = server.received();
    assert_eq!(received.len(), 1);
    let mail = mailparse::parse_mail(&received[0]).expect("parse");
    assert_eq!(
        header(&mail, "Subject"),
        "[seihon] neko-no-hon failed at read (commit 0123456789ab)"
    );

    let untrusted = server.config(", tls: tls");
    let err =
        mail::send_with(&untrusted, &quick_message(&untrusted), None).expect_err("unknown CA");
    assert!(matches!(err, MailError::Tls { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "a secure (TLS) connection to the mail server 127.0.0.1:{} failed: its certificate \
             is not signed by a known authority; for a private mail server, name its CA in \
             smtp.ca_file",
            server.port
        )),
        "{err}"
    );
}

#[test]
fn defaults_and_triggers_from_the_minimal_config() {
    let cfg = config("from: ci@example.com\nto: [production@example.com]\n");
    assert_eq!(cfg.on, [Trigger::Failure]);
    assert_eq!(cfg.subject_prefix, "[seihon]");
    assert_eq!(cfg.log_lines, 60);
    assert_eq!(cfg.transport, TransportKind::Smtp);
    assert_eq!(cfg.smtp.server(), "localhost:25");
    assert_eq!(cfg.smtp.timeout.get(), 30);
}

// ---------------------------------------------------------------------------
// `seihon ci` end to end: a broken book, a real server, the message read back.

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// A project with a good book and a broken one (quotes nested past the bound, at `line`),
/// mailing failures and fixes to `port`.
fn ci_project(port: u16) -> (support::TempProject, PathBuf, usize) {
    let project = support::TempProject::new();
    project.add_book(&support::repo().join("books/neko-no-hon"), "good");
    let broken = project.add_book(&support::repo().join("books/neko-no-hon"), "broken");
    let ch01 = broken.join("ch01.md");
    let mut text = fs::read_to_string(&ch01).unwrap();
    text.push_str(&format!("\n{}\n", support::unreadable_markdown("See x.")));
    fs::write(&ch01, &text).unwrap();
    let line = text.lines().count();
    fs::write(
        project.path().join("seihon.yml"),
        format!(
            "mail:\n  on: [failure, fixed]\n  from: ci@example.com\n  to: [production@example.com]\n  smtp: {{host: 127.0.0.1, port: {port}, timeout: 5}}\n"
        ),
    )
    .unwrap();
    (project, broken, line)
}

fn seihon_ci(project: &support::TempProject) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_seihon"))
        .arg("ci")
        .current_dir(project.path())
        .env("GITHUB_SHA", SHA)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("SEIHON_SMTP_USER")
        .env_remove("SEIHON_SMTP_PASSWORD")
        .output()
        .expect("run seihon ci")
}

/// The book's log without the build time, which differs from run to run.
fn log_without_time(path: &Path) -> String {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| match l.split_once(" in ") {
            Some((head, _)) if l.starts_with("result:") => head.to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn seihon_ci_mails_the_log_of_a_broken_book_and_then_that_it_is_fixed() {
    let server = Smtp::start(Kind::Plain);
    let (project, broken, line) = ci_project(server.port);
    let out = seihon_ci(&project);
    let all = support::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        project.epub("good").exists(),
        "the good book is built: {all}"
    );
    assert!(all.contains("mailed the log of broken"), "{all}");

    let received = server.received();
    assert_eq!(
        received.len(),
        1,
        "one mail, for the broken book only: {all}"
    );
    let mail = mailparse::parse_mail(&received[0]).expect("parse the delivered mail");
    assert_eq!(
        header(&mail, "Subject"),
        "[seihon] broken failed at read (commit 0123456789ab)"
    );
    assert_eq!(header(&mail, "To"), "production@example.com");
    let (body, name, attached) = parts(&mail);
    assert!(body.contains(SHA), "{body}");
    assert!(
        body.contains(&format!("books/broken/ch01.md:{line}:")),
        "the finding at its line: {body}"
    );
    assert!(
        body.contains("failed at the read step"),
        "the log's last lines: {body}"
    );
    assert_eq!(name, "broken.log");
    // The attachment is the log on disk, whole.
    let on_disk = fs::read_to_string(project.path().join("build/logs/broken.log")).unwrap();
    assert_eq!(attached, on_disk);
    assert!(on_disk.contains(&format!("commit: {SHA}")), "{on_disk}");
    assert!(
        on_disk.contains("result: FAILED at the read step"),
        "{on_disk}"
    );
    // Reports for CI.
    let report: serde_json::Value = serde_json::from_slice(
        &fs::read(project.path().join("build/reports/seihon.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["ok"], false);
    assert!(project.path().join("build/reports/junit.xml").is_file());

    // Fixed: the next run mails that it is fixed, and nothing about the good book.
    let ch01 = broken.join("ch01.md");
    let text = fs::read_to_string(&ch01)
        .unwrap()
        .replace(&support::unreadable_markdown("See x."), "");
    fs::write(&ch01, text).unwrap();
    let out = seihon_ci(&project);
    assert!(out.status.success(), "{}", support::text(&out));
    let received = server.received();
    assert_eq!(received.len(), 2, "{}", support::text(&out));
    let subjects: Vec<String> = received
        .iter()
        .map(|m| header(&mailparse::parse_mail(m).unwrap(), "Subject"))
        .collect();
    assert!(
        subjects.contains(&"[seihon] broken fixed (commit 0123456789ab)".to_string()),
        "{subjects:?}"
    );
}

#[test]
fn a_mail_server_that_is_down_changes_neither_the_result_nor_the_log() {
    let server = Smtp::start(Kind::Plain);
    let (project, _, _) = ci_project(server.port);
    let up = seihon_ci(&project);
    assert_eq!(server.received().len(), 1);
    let log_up = log_without_time(&project.path().join("build/logs/broken.log"));
    let port = server.port;
    drop(server);

    // Same books, same settings (and no chapter cache, which would shorten the log), the
    // server gone.
    fs::remove_dir_all(project.path().join("build/.cache")).unwrap();
    let out = seihon_ci(&project);
    let all = support::text(&out);
    assert_eq!(out.status.code(), up.status.code(), "{all}");
    assert!(
        all.contains(&format!(
            "warning: the mail about broken was not sent: the mail server 127.0.0.1:{port} did not answer"
        )),
        "{all}"
    );
    assert!(all.contains("the log is in"), "{all}");
    assert_eq!(
        log_without_time(&project.path().join("build/logs/broken.log")),
        log_up
    );
    assert!(project.epub("good").exists());
}
