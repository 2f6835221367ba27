//! Notify: mails a book's failure (and optionally its fix) with the build log to the production
//! mailing list, configured by the `mail:` section of `seihon.yml`.
//!
//! Sending is best effort by design: the caller turns a [`MailError`] into a warning, and the
//! build result never depends on the mail. So nothing here panics, every network step is bounded
//! by the configured timeout, and every error says in plain words what went wrong and where.
use std::fmt;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, Message, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{Certificate, SmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use serde::Deserialize;
use serde::de::{self, Deserializer};

/// The `mail:` section of `seihon.yml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailConfig {
    /// When to mail (default: on failure only).
    #[serde(default = "default_on", deserialize_with = "de_triggers")]
    pub on: Vec<Trigger>,
    #[serde(deserialize_with = "de_mailbox")]
    pub from: Mailbox,
    #[serde(deserialize_with = "de_recipients")]
    pub to: Vec<Mailbox>,
    #[serde(default, deserialize_with = "de_mailboxes")]
    pub cc: Vec<Mailbox>,
    #[serde(default = "default_prefix")]
    pub subject_prefix: String,
    /// How many of the log's last lines go into the body (the whole log is attached).
    #[serde(default = "default_log_lines")]
    pub log_lines: usize,
    #[serde(default)]
    pub transport: TransportKind,
    /// Where the file transport writes its `.eml` files.
    #[serde(default = "default_dir")]
    pub dir: PathBuf,
    #[serde(default)]
    pub smtp: SmtpConfig,
}

/// The `mail.smtp:` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SmtpConfig {
    pub host: String,
    /// None: the usual port for the TLS mode (see [`SmtpConfig::port`]).
    #[serde(rename = "port")]
    pub port_override: Option<u16>,
    pub tls: TlsMode,
    /// Seconds for connecting and for each command; zero would mean "wait forever".
    #[serde(deserialize_with = "de_timeout")]
    pub timeout: NonZeroU64,
    /// An extra trusted CA (PEM), for a mail server with a private certificate.
    pub ca_file: Option<PathBuf>,
}

impl Default for SmtpConfig {
    fn default() -> Self {
        SmtpConfig {
            host: "localhost".into(),
            port_override: None,
            tls: TlsMode::None,
            timeout: NonZeroU64::new(30).expect("30 is not zero"),
            ca_file: None,
        }
    }
}

impl SmtpConfig {
    /// The configured port, else 25 (no TLS), 587 (STARTTLS) or 465 (implicit TLS).
    pub fn port(&self) -> u16 {
        self.port_override.unwrap_or(match self.tls {
            TlsMode::None => 25,
            TlsMode::Starttls => 587,
            TlsMode::Tls => 465,
        })
    }

    /// `host:port`, as messages name the server.
    pub fn server(&self) -> String {
        format!("{}:{}", self.host, self.port())
    }
}

/// When a book's result is mailed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// Every failed build.
    Failure,
    /// The first successful build after a failed one.
    Fixed,
}

/// How the mail leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    #[default]
    Smtp,
    /// The dry run: `.eml` files in `dir`.
    File,
}

/// How the SMTP connection is protected. There is deliberately no "opportunistic" mode: a
/// server that does not offer STARTTLS must not make us send the log and password in clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    #[default]
    None,
    Starttls,
    /// Implicit TLS from the first byte (SMTPS).
    Tls,
}

fn default_on() -> Vec<Trigger> {
    vec![Trigger::Failure]
}
fn default_prefix() -> String {
    "[seihon]".into()
}
fn default_log_lines() -> usize {
    60
}
fn default_dir() -> PathBuf {
    "build/mail".into()
}

fn parse_mailbox<E: de::Error>(s: &str) -> Result<Mailbox, E> {
    s.trim()
        .parse()
        .map_err(|_| E::custom(format!("`{s}` is not a mail address like name@example.com")))
}

fn de_mailbox<'de, D: Deserializer<'de>>(d: D) -> Result<Mailbox, D::Error> {
    parse_mailbox(&String::deserialize(d)?)
}

fn de_mailboxes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Mailbox>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|s| parse_mailbox(s))
        .collect()
}

fn de_recipients<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Mailbox>, D::Error> {
    let to = de_mailboxes(d)?;
    if to.is_empty() {
        return Err(de::Error::custom(
            "`to` needs at least one address to mail to",
        ));
    }
    Ok(to)
}

fn de_timeout<'de, D: Deserializer<'de>>(d: D) -> Result<NonZeroU64, D::Error> {
    NonZeroU64::new(u64::deserialize(d)?)
        .ok_or_else(|| de::Error::custom("`timeout` must be at least 1 (seconds)"))
}

fn de_triggers<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Trigger>, D::Error> {
    let on = Vec::<Trigger>::deserialize(d)?;
    if on.is_empty() {
        // An empty list would silently never mail; removing the `mail:` section says that.
        return Err(de::Error::custom(
            "`on` is empty: list `failure` and/or `fixed`, or remove the `mail:` section",
        ));
    }
    Ok(on)
}

impl MailConfig {
    /// Resolves the relative paths (`dir`, `smtp.ca_file`) against the project root, so the
    /// result does not depend on the current directory.
    pub fn resolve_paths(&mut self, root: &Path) {
        self.dir = root.join(&self.dir);
        if let Some(ca) = &mut self.smtp.ca_file {
            *ca = root.join(&*ca);
        }
    }
}

/// What happened to one book in this run, as the mail tells it.
#[derive(Debug, Clone)]
pub struct BookRun {
    pub book: String,
    pub ok: bool,
    pub failed_stage: Option<String>,
    /// Human findings, already formatted.
    pub findings_text: String,
    /// The full build log of this book.
    pub log: String,
}

/// What the run is about.
#[derive(Debug, Clone)]
pub struct RunInfo {
    pub commit: Option<String>,
    /// The project's folder name.
    pub project: String,
}

/// Where a message went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// Accepted by the mail server `host:port`.
    Server(String),
    /// Written by the file transport.
    File(PathBuf),
}

impl fmt::Display for Sent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sent::Server(s) => write!(f, "the mail server {s}"),
            Sent::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// Why a mail was not composed or sent, in plain words.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("the mail could not be put together: {0}")]
    Compose(String),
    #[error("the mail settings are not usable: {0}")]
    Config(String),
    #[error("the mail server {server} did not answer ({reason})")]
    Unreachable { server: String, reason: String },
    #[error(
        "the mail server {server} does not offer STARTTLS, which `tls: starttls` requires; \
         nothing was sent"
    )]
    NoStarttls { server: String },
    #[error("a secure (TLS) connection to the mail server {server} failed: {reason}")]
    Tls { server: String, reason: String },
    #[error("the mail server {server} refused the login for user {user} ({reason})")]
    AuthRefused {
        server: String,
        user: String,
        reason: String,
    },
    #[error("the mail server {server} refused the connection ({reason})")]
    Refused { server: String, reason: String },
    #[error(
        "the mail server {server} offers no login method seihon knows (PLAIN, LOGIN), but \
         SEIHON_SMTP_USER and SEIHON_SMTP_PASSWORD are set"
    )]
    NoLogin { server: String },
    #[error("the mail server {server} refused the message ({reason})")]
    Rejected { server: String, reason: String },
    #[error("the mail could not be written into {}: {reason}", dir.display())]
    File { dir: PathBuf, reason: String },
}

/// The login for the mail server: only ever from the environment, never from `seihon.yml`.
#[derive(Clone)]
pub struct Login {
    pub user: String,
    pub password: String,
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keep the password out of logs and panics.
        write!(f, "Login {{ user: {:?}, password: \"…\" }}", self.user)
    }
}

impl Login {
    /// `SEIHON_SMTP_USER` and `SEIHON_SMTP_PASSWORD`, when both are set and not empty.
    pub fn from_env() -> Option<Login> {
        let var = |k| std::env::var(k).ok().filter(|v: &String| !v.is_empty());
        Some(Login {
            user: var("SEIHON_SMTP_USER")?,
            password: var("SEIHON_SMTP_PASSWORD")?,
        })
    }
}

/// The commit: `GITHUB_SHA`, else `GIT_COMMIT` (Jenkins), else `git rev-parse HEAD` in `root`.
pub fn commit_id(root: &Path) -> Option<String> {
    commit_id_from(|k| std::env::var(k).ok(), root)
}

fn commit_id_from(env: impl Fn(&str) -> Option<String>, root: &Path) -> Option<String> {
    let from_env = ["GITHUB_SHA", "GIT_COMMIT"]
        .iter()
        .filter_map(|k| env(k))
        .map(|v| v.trim().to_owned())
        .find(|v| !v.is_empty());
    from_env.or_else(|| {
        let out = Command::new("git")
            .args(["rev-parse", "--verify", "--quiet", "HEAD"])
            .current_dir(root)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let id = String::from_utf8(out.stdout).ok()?.trim().to_owned();
        (out.status.success() && !id.is_empty()).then_some(id)
    })
}

/// Whether to mail for this book, given its previous result (None = unknown) and this one.
pub fn should_mail(cfg: &MailConfig, previous_ok: Option<bool>, ok: bool) -> bool {
    if ok {
        // Only a known failure can be fixed; an unknown history mails nothing on success.
        previous_ok == Some(false) && cfg.on.contains(&Trigger::Fixed)
    } else {
        cfg.on.contains(&Trigger::Failure)
    }
}

/// `Auto-Submitted: auto-generated` (RFC 3834), so that vacation responders on the mailing
/// list do not answer the CI.
#[derive(Clone)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }
    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted)
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".into())
    }
}

/// The mail for one book: a summary, the findings and the log's last lines in the body, the
/// full log attached as `<book>.log`.
pub fn compose(cfg: &MailConfig, run: &RunInfo, book: &BookRun) -> Result<Message, MailError> {
    let now = SystemTime::now(); // one instant for the Date header and the body's time
    let result = match (book.ok, &book.failed_stage) {
        (true, _) => "fixed".to_owned(),
        (false, Some(stage)) => format!("failed at {stage}"),
        (false, None) => "failed".to_owned(),
    };
    let commit_note = run
        .commit
        .as_deref()
        .map(|c| format!(" (commit {})", c.get(..12).unwrap_or(c)))
        .unwrap_or_default();
    let prefix = if cfg.subject_prefix.is_empty() {
        String::new()
    } else {
        format!("{} ", cfg.subject_prefix)
    };
    // A book name or stage with a line break must not break the header.
    let subject =
        format!("{prefix}{} {result}{commit_note}", book.book).replace(char::is_control, " ");

    let (tail, shown) = last_lines(&book.log, cfg.log_lines);
    let attachment = format!("{}.log", book.book);
    let mut body = format!(
        "Book:    {}\nResult:  {result}\nProject: {}\nCommit:  {}\nTime:    {}\n",
        book.book,
        run.project,
        run.commit.as_deref().unwrap_or("unknown"),
        utc(now),
    );
    body.push_str("\nFindings:\n");
    match book.findings_text.trim_end() {
        "" => body.push_str("(none)\n"),
        text => body.extend([text, "\n"]),
    }
    if shown == 0 {
        body.push_str(&format!("\nThe full log is attached as {attachment}.\n"));
    } else {
        body.push_str(&format!(
            "\nThe last {shown} lines of the log (the full log is attached as {attachment}):\n\n{tail}\n"
        ));
    }

    let mut builder = Message::builder()
        .from(cfg.from.clone())
        .subject(subject)
        .date(now)
        .header(AutoSubmitted);
    for to in &cfg.to {
        builder = builder.to(to.clone());
    }
    for cc in &cfg.cc {
        builder = builder.cc(cc.clone());
    }
    let text_utf8 = ContentType::parse("text/plain; charset=utf-8")
        .map_err(|e| MailError::Compose(e.to_string()))?;
    builder
        .multipart(
            MultiPart::mixed()
                .singlepart(SinglePart::plain(body))
                .singlepart(Attachment::new(attachment).body(book.log.clone(), text_utf8)),
        )
        .map_err(|e| MailError::Compose(e.to_string()))
}

/// The last `n` lines of `log` and how many they are.
fn last_lines(log: &str, n: usize) -> (String, usize) {
    let lines: Vec<&str> = log.lines().collect();
    let tail = &lines[lines.len().saturating_sub(n)..];
    (tail.join("\n"), tail.len())
}

/// `2026-11-30 09:05:00 UTC`, without pulling in a date crate for one line.
fn utc(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Sends through the configured transport, logging in with [`Login::from_env`] when set.
pub fn send(cfg: &MailConfig, message: &Message) -> Result<Sent, MailError> {
    send_with(cfg, message, Login::from_env().as_ref())
}

/// [`send`] with an explicit login (None: no AUTH).
pub fn send_with(
    cfg: &MailConfig,
    message: &Message,
    login: Option<&Login>,
) -> Result<Sent, MailError> {
    match cfg.transport {
        TransportKind::File => send_file(&cfg.dir, message),
        TransportKind::Smtp => send_smtp(&cfg.smtp, message, login),
    }
}

fn send_file(dir: &Path, message: &Message) -> Result<Sent, MailError> {
    use lettre::Transport;
    let fail = |reason: String| MailError::File {
        dir: dir.to_owned(),
        reason,
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    let id = lettre::FileTransport::new(dir)
        .send(message)
        .map_err(|e| fail(e.to_string()))?;
    Ok(Sent::File(dir.join(format!("{id}.eml"))))
}

fn send_smtp(
    smtp: &SmtpConfig,
    message: &Message,
    login: Option<&Login>,
) -> Result<Sent, MailError> {
    let server = smtp.server();
    let fail = |step: Step, e: lettre::transport::smtp::Error| smtp_error(smtp, step, &e);
    let tls = match smtp.tls {
        TlsMode::None => None,
        TlsMode::Starttls | TlsMode::Tls => Some(tls_parameters(smtp)?),
    };
    let hello = ClientId::default();
    let implicit = tls.as_ref().filter(|_| smtp.tls == TlsMode::Tls);
    // lettre applies the timeout to connecting and, as socket read/write timeouts, to every
    // later exchange, the (lazy) TLS handshake included.
    let mut conn = SmtpConnection::connect(
        (smtp.host.as_str(), smtp.port()),
        Some(Duration::from_secs(smtp.timeout.get())),
        &hello,
        implicit,
        None,
    )
    .map_err(|e| fail(Step::Connect, e))?;

    let outcome = (|| {
        if let (TlsMode::Starttls, Some(params)) = (smtp.tls, &tls) {
            if !conn.can_starttls() {
                return Err(MailError::NoStarttls {
                    server: server.clone(),
                });
            }
            conn.starttls(params, &hello)
                .map_err(|e| fail(Step::Starttls, e))?;
        }
        if let Some(login) = login {
            let creds = Credentials::new(login.user.clone(), login.password.clone());
            conn.auth(DEFAULT_MECHANISMS, &creds)
                .map_err(|e| fail(Step::Auth(&login.user), e))?;
        }
        conn.send(message.envelope(), &message.formatted())
            .map_err(|e| fail(Step::Send, e))
    })();
    match outcome {
        Ok(_) => {
            // The message is accepted; a failing QUIT changes nothing.
            let _ = conn.quit();
            Ok(Sent::Server(server))
        }
        Err(e) => {
            // Sends QUIT where it still can and closes: nothing more goes over this connection.
            conn.abort();
            Err(e)
        }
    }
}

fn tls_parameters(smtp: &SmtpConfig) -> Result<TlsParameters, MailError> {
    let mut builder = TlsParameters::builder(smtp.host.clone());
    if let Some(path) = &smtp.ca_file {
        let bad = |why: &str| MailError::Config(format!("ca_file {}: {why}", path.display()));
        let pem = std::fs::read(path).map_err(|e| bad(&format!("cannot read it ({e})")))?;
        // lettre accepts a PEM without any certificate; that would be a silent misconfiguration.
        if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
            return Err(bad("it holds no PEM certificate"));
        }
        let cert =
            Certificate::from_pem(&pem).map_err(|_| bad("it is not a valid PEM certificate"))?;
        builder = builder.add_root_certificate(cert);
    }
    builder
        .build_rustls()
        .map_err(|e| MailError::Config(format!("TLS setup failed: {e}")))
}

/// The step of the SMTP exchange an error happened in.
#[derive(Clone, Copy)]
enum Step<'a> {
    Connect,
    Starttls,
    Auth(&'a str),
    Send,
}

/// A lettre error in plain words, naming the server and, where there is one, its own reply.
fn smtp_error(smtp: &SmtpConfig, step: Step, e: &lettre::transport::smtp::Error) -> MailError {
    use std::io::ErrorKind as K;
    let server = smtp.server();
    let reply = || {
        let text = std::error::Error::source(e).map(|s| s.to_string());
        let code = e.status().map(|c| c.to_string());
        [code, text]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let down = |reason: String| MailError::Unreachable {
        server: server.clone(),
        reason,
    };
    match io_kind(e) {
        Some(K::ConnectionRefused) => return down("connection refused".into()),
        // A socket read timeout shows as WouldBlock on Unix.
        Some(K::TimedOut | K::WouldBlock) => {
            return down(format!("no reply within {} s", smtp.timeout));
        }
        Some(K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof) => {
            return down("the server closed the connection".into());
        }
        // rustls reports a failed handshake or an untrusted certificate as InvalidData.
        Some(K::InvalidData) => {
            return MailError::Tls {
                server,
                reason: tls_reason(smtp, &innermost(e)),
            };
        }
        Some(_) => return down(innermost(e)),
        None => {}
    }
    if e.is_tls() {
        return MailError::Tls {
            server,
            reason: tls_reason(smtp, &innermost(e)),
        };
    }
    if e.is_response() && innermost(e) == "incomplete response" {
        return down("the server closed the connection".into());
    }
    match step {
        Step::Connect => MailError::Refused {
            server,
            reason: reply(),
        },
        Step::Starttls => MailError::Tls {
            server,
            reason: reply(),
        },
        // lettre's only client-side auth error: no mechanism in common.
        Step::Auth(_) if e.is_client() => MailError::NoLogin { server },
        Step::Auth(user) => MailError::AuthRefused {
            server,
            user: user.to_owned(),
            reason: reply(),
        },
        Step::Send => MailError::Rejected {
            server,
            reason: reply(),
        },
    }
}

/// rustls's certificate errors in the words of someone configuring a mail server.
fn tls_reason(smtp: &SmtpConfig, rustls: &str) -> String {
    let plain = if rustls.contains("UnknownIssuer") {
        "its certificate is not signed by a known authority; for a private mail server, \
         name its CA in smtp.ca_file"
            .to_owned()
    } else if rustls.contains("NotValidForName") {
        format!("its certificate is not valid for the name {}", smtp.host)
    } else if rustls.contains("Expired") {
        "its certificate has expired".to_owned()
    } else {
        return rustls.to_owned();
    };
    format!("{plain} ({rustls})")
}

/// The kind of the I/O error behind a lettre error, if there is one.
fn io_kind(e: &lettre::transport::smtp::Error) -> Option<std::io::ErrorKind> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        source = s.source();
    }
    None
}

fn innermost(e: &dyn std::error::Error) -> String {
    let mut s = e;
    while let Some(next) = s.source() {
        s = next;
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(yaml: &str) -> Result<MailConfig, String> {
        crate::book::parse_yaml_as::<MailConfig>(yaml, Path::new("seihon.yml"), "project settings")
            .map_err(|f| f.to_string())
    }

    const MINIMAL: &str = "from: ci@example.com\nto: [production@example.com]\n";

    #[test]
    fn the_documented_example_parses() {
        let c = cfg(
            "on: [failure, fixed]\nfrom: ci@example.com\nto: [production@example.com]\n\
                     cc: []\nsubject_prefix: \"[seihon]\"\nlog_lines: 60\ntransport: smtp\n\
                     dir: build/mail\nsmtp:\n  host: localhost\n  port: 25\n  tls: none\n  \
                     timeout: 30\n  ca_file: certs/ca.pem\n",
        )
        .unwrap();
        assert_eq!(c.on, [Trigger::Failure, Trigger::Fixed]);
        assert_eq!(c.from.email.to_string(), "ci@example.com");
        assert_eq!(c.smtp.ca_file.as_deref(), Some(Path::new("certs/ca.pem")));
        let mut c = c;
        c.resolve_paths(Path::new("/p"));
        assert_eq!(c.dir, Path::new("/p/build/mail"));
        assert_eq!(
            c.smtp.ca_file.as_deref(),
            Some(Path::new("/p/certs/ca.pem"))
        );
    }

    #[test]
    fn the_port_follows_the_tls_mode_unless_given() {
        let port = |smtp: &str| {
            cfg(&format!("{MINIMAL}smtp: {smtp}\n"))
                .unwrap()
                .smtp
                .port()
        };
        assert_eq!(port("{tls: none}"), 25);
        assert_eq!(port("{tls: starttls}"), 587);
        assert_eq!(port("{tls: tls}"), 465);
        assert_eq!(port("{tls: tls, port: 2465}"), 2465);
    }

    #[test]
    fn config_mistakes_are_plain_errors() {
        let err = |yaml: &str| cfg(yaml).expect_err(yaml);
        let e = err("from: not-an-address\nto: [production@example.com]\n");
        assert!(e.contains("`not-an-address` is not a mail address"), "{e}");
        let e = err("from: ci@example.com\nto: [a@example.com, 'b@@x']\n");
        assert!(e.contains("`b@@x` is not a mail address"), "{e}");
        let e = err("from: ci@example.com\nto: []\n");
        assert!(e.contains("at least one address"), "{e}");
        let e = err("from: ci@example.com\n");
        assert!(e.contains("`to` is missing"), "{e}");
        let e = err(&format!("{MINIMAL}on: []\n"));
        assert!(e.contains("`on` is empty"), "{e}");
        let e = err(&format!("{MINIMAL}on: [always]\n"));
        assert!(
            e.contains("`always` is not one of the allowed values"),
            "{e}"
        );
        let e = err(&format!("{MINIMAL}smtp: {{tls: opportunistic}}\n"));
        assert!(e.contains("`opportunistic` is not one of"), "{e}");
        let e = err(&format!("{MINIMAL}smtp: {{timeout: 0}}\n"));
        assert!(e.contains("`timeout` must be at least 1 (seconds)"), "{e}");
        let e = err(&format!("{MINIMAL}smtp: {{password: x}}\n"));
        assert!(e.contains("unknown key `password`"), "{e}");
        let e = err(&format!("{MINIMAL}subject: x\n"));
        assert!(e.contains("unknown key `subject`"), "{e}");
    }

    #[test]
    fn should_mail_truth_table() {
        let on = |triggers: &str| cfg(&format!("{MINIMAL}on: [{triggers}]\n")).unwrap();
        let failure = on("failure");
        let fixed = on("fixed");
        let both = on("failure, fixed");
        // (previous, now) → (failure, fixed, both)
        let table = [
            (None, false, [true, false, true]),
            (Some(true), false, [true, false, true]),
            (Some(false), false, [true, false, true]),
            (None, true, [false, false, false]),
            (Some(true), true, [false, false, false]),
            (Some(false), true, [false, true, true]),
        ];
        for (previous, ok, expect) in table {
            let got = [&failure, &fixed, &both].map(|c| should_mail(c, previous, ok));
            assert_eq!(got, expect, "previous {previous:?}, ok {ok}");
        }
    }

    fn book(ok: bool, stage: Option<&str>) -> BookRun {
        BookRun {
            book: "neko-no-hon".into(),
            ok,
            failed_stage: stage.map(Into::into),
            findings_text: String::new(),
            log: String::new(),
        }
    }

    fn subject(c: &MailConfig, commit: Option<&str>, b: &BookRun) -> String {
        let run = RunInfo {
            commit: commit.map(Into::into),
            project: "p".into(),
        };
        let m = compose(c, &run, b).unwrap();
        let raw = String::from_utf8(m.formatted()).unwrap();
        let (headers, _) = mailparse::parse_headers(raw.as_bytes()).unwrap();
        use mailparse::MailHeaderMap;
        headers.get_first_value("Subject").unwrap()
    }

    #[test]
    fn subjects() {
        let c = cfg(MINIMAL).unwrap();
        let sha = Some("abc1234def5678901234");
        assert_eq!(
            subject(&c, sha, &book(false, Some("read"))),
            "[seihon] neko-no-hon failed at read (commit abc1234def56)"
        );
        assert_eq!(
            subject(&c, sha, &book(true, None)),
            "[seihon] neko-no-hon fixed (commit abc1234def56)"
        );
        assert_eq!(
            subject(&c, None, &book(false, None)),
            "[seihon] neko-no-hon failed"
        );
        let c = cfg(&format!("{MINIMAL}subject_prefix: ''\n")).unwrap();
        let mut b = book(false, Some("hooks\r\nBcc: x@example.com"));
        b.book = "猫の本".into();
        assert_eq!(
            subject(&c, Some("abc"), &b),
            "猫の本 failed at hooks  Bcc: x@example.com (commit abc)"
        );
    }

    #[test]
    fn japanese_headers_go_out_as_ascii_encoded_words() {
        let c = cfg(MINIMAL).unwrap();
        let mut b = book(false, Some("read"));
        b.book = "吾輩は猫である".into();
        b.log = "読み込みに失敗しました\n".into();
        let run = RunInfo {
            commit: None,
            project: "p".into(),
        };
        let raw = compose(&c, &run, &b).unwrap().formatted();
        let text = String::from_utf8(raw).unwrap();
        let head = &text[..text.find("\r\n\r\n").unwrap()];
        assert!(head.is_ascii(), "headers are 7-bit: {head}");
        assert!(head.contains("Subject: [seihon] =?utf-8?b?"), "{head}");
        // The body parts are encoded too, so no 8BITMIME is needed from the server.
        assert!(text.is_ascii());
    }

    #[test]
    fn the_body_tail_and_time() {
        assert_eq!(last_lines("a\nb\nc\n", 2), ("b\nc".into(), 2));
        assert_eq!(last_lines("a\nb", 5), ("a\nb".into(), 2));
        assert_eq!(last_lines("a\nb", 0), (String::new(), 0));
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(951_827_696); // leap day 2000
        assert_eq!(utc(t), "2000-02-29 12:34:56 UTC");
        assert_eq!(utc(SystemTime::UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
    }

    #[test]
    fn the_commit_comes_from_ci_then_git() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let nowhere = tempfile::tempdir().unwrap();
        let both = env(&[("GITHUB_SHA", "aaa"), ("GIT_COMMIT", "bbb")]);
        assert_eq!(commit_id_from(both, nowhere.path()).as_deref(), Some("aaa"));
        let jenkins = env(&[("GITHUB_SHA", ""), ("GIT_COMMIT", "bbb\n")]);
        assert_eq!(
            commit_id_from(jenkins, nowhere.path()).as_deref(),
            Some("bbb")
        );
        assert_eq!(
            commit_id_from(env(&[]), nowhere.path()),
            None,
            "not a repository"
        );

        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(args)
                .current_dir(nowhere.path())
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        assert_eq!(
            commit_id_from(env(&[]), nowhere.path()),
            None,
            "no commit yet"
        );
        git(&["commit", "-q", "--allow-empty", "-m", "x"]);
        let id = commit_id_from(env(&[]), nowhere.path()).unwrap();
        assert_eq!(id.len(), 40, "{id}");
    }

    #[test]
    fn the_password_stays_out_of_debug_output() {
        let l = Login {
            user: "u".into(),
            password: "secret".into(),
        };
        assert!(!format!("{l:?}").contains("secret"));
    }
}
