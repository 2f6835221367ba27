//! The external link checker: asks web servers whether http(s) addresses still answer.
//!
//! It knows nothing of EPUBs: addresses in, one status per address out. It is polite by
//! default (a few requests at once, one at a time per host and paced), and a JSON cache spares
//! the servers, and the user's time, on rebuilds.
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How to check: how many requests at once, how fast per host, how long to wait, the cache.
#[derive(Debug, Clone)]
pub struct LinkCheckOptions {
    /// Most requests in flight overall.
    pub concurrency: usize,
    /// Least time between the starts of two requests to the same host (scheme, host and
    /// port); a host never has more than one request in flight.
    pub per_host_interval: Duration,
    /// Longest wait for one request, redirects included.
    pub timeout: Duration,
    /// The JSON cache file; `None` for no cache.
    pub cache_path: Option<PathBuf>,
    /// How long a cached answer is trusted.
    pub cache_ttl: Duration,
}

impl Default for LinkCheckOptions {
    fn default() -> Self {
        LinkCheckOptions {
            concurrency: 8,
            per_host_interval: Duration::from_millis(500),
            timeout: Duration::from_secs(10),
            cache_path: None,
            cache_ttl: Duration::from_secs(24 * 60 * 60),
        }
    }
}

/// What became of one address.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LinkStatus {
    /// The server answered 2xx (after redirects).
    Ok,
    /// The server answered with an error status (or a redirect it did not complete).
    Broken { status: u16 },
    /// No answer: refused connection, unknown host, TLS failure, time-out. Never cached.
    Failed { reason: String },
}

/// A status code with its reason phrase when it has one: "404 Not Found".
pub fn status_text(status: u16) -> String {
    match ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}

/// Checks each distinct URL once; returns its status. Never panics, never hangs past the timeouts.
///
/// The map has an entry for every http(s) URL given, as given; others (`mailto:`, `ftp:`) are
/// left out. The fragment is not sent, so `…/a#x` and `…/a#y` cost one request.
pub fn check_urls(urls: &[String], opts: &LinkCheckOptions) -> BTreeMap<String, LinkStatus> {
    // Each URL as given → the address requested.
    let wanted: BTreeMap<&String, String> = urls
        .iter()
        .filter_map(|u| Some((u, request_url(u)?)))
        .collect();
    let now = unix_now();
    let mut cache = opts
        .cache_path
        .as_deref()
        .map(load_cache)
        .unwrap_or_default();
    let fresh_enough =
        |e: &CacheEntry| Duration::from_secs(now.saturating_sub(e.checked)) < opts.cache_ttl;

    let mut answers: HashMap<String, LinkStatus> = HashMap::new();
    let mut to_check = BTreeSet::new();
    for target in wanted.values() {
        match cache.entries.get(target) {
            Some(e) if fresh_enough(e) => {
                answers.insert(target.clone(), e.status.clone());
            }
            _ => {
                to_check.insert(target.clone());
            }
        }
    }

    let checked = check_all(to_check, opts);
    if let Some(path) = &opts.cache_path
        && !checked.is_empty()
    {
        // Answers no longer trusted are of no use; dropping them keeps the file small.
        cache.entries.retain(|_, e| fresh_enough(e));
        for (url, status) in &checked {
            // A failure (time-out, refused connection) may be gone on the next run.
            if !matches!(status, LinkStatus::Failed { .. }) {
                cache.entries.insert(
                    url.clone(),
                    CacheEntry {
                        status: status.clone(),
                        checked: now,
                    },
                );
            }
        }
        // A cache that cannot be written only costs time on the next run.
        let _ = save_cache(path, &cache);
    }
    answers.extend(checked);

    wanted
        .into_iter()
        .filter_map(|(given, target)| Some((given.clone(), answers.get(&target)?.clone())))
        .collect()
}

/// The address to request for a link: only http(s), without its fragment, with the characters
/// a URI may not hold (non-ASCII, as in Japanese Wikipedia links, spaces) percent-encoded.
fn request_url(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return None;
    }
    let url = url.split('#').next().unwrap_or(url);
    let mut out = String::with_capacity(url.len());
    for &b in url.as_bytes() {
        if b > 0x20 && b < 0x7f && !b"\"<>\\^`{|}".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

/// Scheme, host and port: the unit of politeness.
fn host_key(url: &str) -> String {
    match url.parse::<ureq::http::Uri>() {
        Ok(uri) => {
            let scheme = uri.scheme_str().unwrap_or("").to_ascii_lowercase();
            let port = uri
                .port_u16()
                .unwrap_or(if scheme == "https" { 443 } else { 80 });
            let host = uri.host().unwrap_or("").to_ascii_lowercase();
            format!("{scheme}://{host}:{port}")
        }
        // It fails on request anyway; alone in its group it holds up no one.
        Err(_) => url.to_string(),
    }
}

// ---------------------------------------------------------------------------
// Requests

/// The addresses waiting for one host, and when the next request to it may start.
struct Host {
    queue: VecDeque<String>,
    busy: bool,
    next_start: Instant,
}

struct Queue {
    hosts: Vec<Host>,
    done: Vec<(String, LinkStatus)>,
}

fn lock(m: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    // Workers catch their own panics, so a poisoned lock still holds consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Requests every address with at most `concurrency` in flight and one per host, paced.
fn check_all(urls: BTreeSet<String>, opts: &LinkCheckOptions) -> Vec<(String, LinkStatus)> {
    if urls.is_empty() {
        return Vec::new();
    }
    let mut by_host: BTreeMap<String, VecDeque<String>> = BTreeMap::new();
    for url in urls {
        by_host.entry(host_key(&url)).or_default().push_back(url);
    }
    let start = Instant::now();
    // One request per host at a time: more workers than hosts would only wait.
    let workers = opts.concurrency.max(1).min(by_host.len());
    let queue = Mutex::new(Queue {
        hosts: by_host
            .into_values()
            .map(|queue| Host {
                queue,
                busy: false,
                next_start: start,
            })
            .collect(),
        done: Vec::new(),
    });
    let wake = Condvar::new();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(opts.timeout))
        // 4xx and 5xx are answers to report, not errors.
        .http_status_as_error(false)
        .user_agent(format!("seihon/{} (link check)", env!("CARGO_PKG_VERSION")))
        .build()
        .into();

    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| worker(&queue, &wake, &agent, opts));
        }
    });
    queue.into_inner().unwrap_or_else(|e| e.into_inner()).done
}

fn worker(queue: &Mutex<Queue>, wake: &Condvar, agent: &ureq::Agent, opts: &LinkCheckOptions) {
    let mut q = lock(queue);
    loop {
        let now = Instant::now();
        let ready = |h: &Host| !h.busy && !h.queue.is_empty();
        if let Some(i) = q.hosts.iter().position(|h| ready(h) && h.next_start <= now) {
            let host = &mut q.hosts[i];
            host.busy = true;
            let url = host.queue.pop_front().unwrap_or_default();
            drop(q);
            // A panic in the HTTP stack must not leave the host busy and the others waiting.
            let (status, last_start) =
                catch_unwind(AssertUnwindSafe(|| check_one(agent, &url, opts))).unwrap_or_else(
                    |_| {
                        let reason = "the check stopped on an internal error".to_string();
                        (LinkStatus::Failed { reason }, Instant::now())
                    },
                );
            q = lock(queue);
            let host = &mut q.hosts[i];
            host.busy = false;
            host.next_start = last_start + opts.per_host_interval;
            q.done.push((url, status));
            wake.notify_all();
            continue;
        }
        if q.hosts.iter().all(|h| h.queue.is_empty()) {
            return;
        }
        // Sleep until a free host's pause is over, or until a busy host is released.
        let next = q
            .hosts
            .iter()
            .filter(|h| ready(h))
            .map(|h| h.next_start)
            .min();
        q = match next {
            Some(t) => wake
                .wait_timeout(q, t.saturating_duration_since(now))
                .map_or_else(|e| e.into_inner().0, |r| r.0),
            None => wake.wait(q).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

/// Checks one address (the host is ours meanwhile); returns its status and when its last
/// request started, for pacing.
fn check_one(agent: &ureq::Agent, url: &str, opts: &LinkCheckOptions) -> (LinkStatus, Instant) {
    let mut last_start: Option<Instant> = None;
    // Every request of this address, retries included, keeps to the host's pace.
    let mut send = |get: bool| {
        if let Some(last) = last_start {
            std::thread::sleep(
                (last + opts.per_host_interval).saturating_duration_since(Instant::now()),
            );
        }
        last_start = Some(Instant::now());
        let answer = if get {
            agent.get(url).call()
        } else {
            agent.head(url).call()
        };
        // The body is never read: the status is all we want.
        answer.map(|r| (r.status().as_u16(), retry_after(&r)))
    };

    let mut get = false;
    let mut answer = send(false);
    // Servers that refuse HEAD.
    if matches!(answer, Ok((403 | 405 | 501, _))) {
        get = true;
        answer = send(true);
    }
    if let Ok((429, Some(wait))) = answer
        && wait <= Duration::from_secs(5)
    {
        std::thread::sleep(wait);
        answer = send(get);
    }
    let status = match answer {
        Ok((code, _)) if (200..300).contains(&code) => LinkStatus::Ok,
        Ok((code, _)) => LinkStatus::Broken { status: code },
        Err(e) => LinkStatus::Failed {
            reason: failure_reason(&e, opts.timeout),
        },
    };
    (status, last_start.unwrap_or_else(Instant::now))
}

/// A `Retry-After` given in seconds (an HTTP date is treated as too long to wait).
fn retry_after(r: &ureq::http::Response<ureq::Body>) -> Option<Duration> {
    let value = r.headers().get("retry-after")?.to_str().ok()?;
    value.trim().parse().ok().map(Duration::from_secs)
}

/// Why there was no answer, in words for editors.
fn failure_reason(e: &ureq::Error, timeout: Duration) -> String {
    use std::io::ErrorKind;
    match e {
        ureq::Error::Timeout(_) => format!("no answer within {}", human(timeout)),
        ureq::Error::HostNotFound => "no server has this name".into(),
        ureq::Error::Io(io) => match io.kind() {
            ErrorKind::ConnectionRefused => "connection refused".into(),
            ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::UnexpectedEof => {
                "the server closed the connection without answering".into()
            }
            ErrorKind::TimedOut => format!("no answer within {}", human(timeout)),
            _ => format!("network error: {io}"),
        },
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_) => {
            format!("the secure connection failed: {e}")
        }
        ureq::Error::TooManyRedirects => "too many redirects".into(),
        ureq::Error::BadUri(_) => "the address is not valid".into(),
        ureq::Error::Protocol(_) => "the server's answer is not valid HTTP".into(),
        ureq::Error::ConnectionFailed => "the connection failed".into(),
        _ => e.to_string(),
    }
}

/// "10 s", "300 ms".
fn human(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

// ---------------------------------------------------------------------------
// Cache

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Cache {
    /// Requested address → its last answer.
    entries: BTreeMap<String, CacheEntry>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct CacheEntry {
    status: LinkStatus,
    /// Unix time of the answer, in seconds.
    checked: u64,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The cache at `path`; an empty one when it is missing or unreadable (it is only a cache).
fn load_cache(path: &Path) -> Cache {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Writes the cache whole or not at all, so that an interrupted build never leaves half a file.
fn save_cache(path: &Path, cache: &Cache) -> crate::error::Result<()> {
    let json = serde_json::to_vec_pretty(cache).unwrap_or_default();
    crate::files::write_atomic(path, &json)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Requests in flight now, and the most seen at once.
    #[derive(Default)]
    pub(crate) struct InFlight {
        now: AtomicUsize,
        max: AtomicUsize,
    }

    impl InFlight {
        fn enter(&self) {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.max.fetch_max(n, Ordering::SeqCst);
        }
        fn leave(&self) {
            self.now.fetch_sub(1, Ordering::SeqCst);
        }
        pub(crate) fn max(&self) -> usize {
            self.max.load(Ordering::SeqCst)
        }
    }

    /// One request as the server saw it.
    #[derive(Clone)]
    pub(crate) struct Seen {
        pub(crate) method: String,
        pub(crate) path: String,
        pub(crate) user_agent: String,
        pub(crate) at: Instant,
    }

    /// A small HTTP/1.1 server on 127.0.0.1, one thread per connection, `Connection: close`.
    ///
    /// `/missing` 404, `/moved` 301 → `/ok`, `/nohead` 405 to HEAD and 200 to GET, `/slow`
    /// answers after 10 s, `/pause` after 200 ms, `/busy` 429 with `Retry-After: 1` the first
    /// time then 200, `/busy-long` 429 with `Retry-After: 60`; anything else 200.
    pub(crate) struct TestServer {
        pub(crate) port: u16,
        log: Arc<Mutex<Vec<Seen>>>,
        pub(crate) in_flight: Arc<InFlight>,
    }

    impl TestServer {
        pub(crate) fn start() -> TestServer {
            TestServer::start_sharing(Arc::new(InFlight::default()))
        }

        /// A server that also counts its requests in `shared` (with other servers).
        pub(crate) fn start_sharing(shared: Arc<InFlight>) -> TestServer {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let log = Arc::new(Mutex::new(Vec::new()));
            let in_flight = Arc::new(InFlight::default());
            let (l, own) = (log.clone(), in_flight.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let (l, own, shared) = (l.clone(), own.clone(), shared.clone());
                    std::thread::spawn(move || serve(stream, &l, &own, &shared));
                }
            });
            TestServer {
                port,
                log,
                in_flight,
            }
        }

        pub(crate) fn url(&self, path: &str) -> String {
            format!("http://127.0.0.1:{}{path}", self.port)
        }

        pub(crate) fn seen(&self) -> Vec<Seen> {
            self.log.lock().unwrap().clone()
        }

        /// "HEAD /ok", "GET /nohead", … in arrival order.
        pub(crate) fn lines(&self) -> Vec<String> {
            self.seen()
                .iter()
                .map(|s| format!("{} {}", s.method, s.path))
                .collect()
        }
    }

    fn serve(mut stream: TcpStream, log: &Mutex<Vec<Seen>>, own: &InFlight, shared: &InFlight) {
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let mut words = head.split_whitespace();
        let method = words.next().unwrap_or("").to_string();
        let path = words.next().unwrap_or("").to_string();
        let user_agent = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("user-agent")
                    .then(|| value.trim().to_string())
            })
            .unwrap_or_default();
        let earlier_busy = {
            let mut log = log.lock().unwrap();
            let n = log.iter().filter(|s| s.path == "/busy").count();
            log.push(Seen {
                method: method.clone(),
                path: path.clone(),
                user_agent,
                at: Instant::now(),
            });
            n
        };
        own.enter();
        shared.enter();
        let (status, extra) = match path.as_str() {
            "/missing" => ("404 Not Found", ""),
            "/moved" => ("301 Moved Permanently", "Location: /ok\r\n"),
            "/nohead" if method == "HEAD" => ("405 Method Not Allowed", ""),
            "/busy" if earlier_busy == 0 => ("429 Too Many Requests", "Retry-After: 1\r\n"),
            "/busy-long" => ("429 Too Many Requests", "Retry-After: 60\r\n"),
            "/slow" => {
                std::thread::sleep(Duration::from_secs(10));
                ("200 OK", "")
            }
            "/pause" => {
                std::thread::sleep(Duration::from_millis(200));
                ("200 OK", "")
            }
            _ => ("200 OK", ""),
        };
        // Leave before answering, so the client can never start its next request first.
        own.leave();
        shared.leave();
        let body = if method == "HEAD" { "" } else { "ok" };
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\n{extra}Content-Length: 2\r\nConnection: close\r\n\r\n{body}"
        );
    }

    /// Options for quick tests: no pacing unless asked, a time-out that only `/slow` reaches.
    pub(crate) fn quick() -> LinkCheckOptions {
        LinkCheckOptions {
            concurrency: 4,
            per_host_interval: Duration::ZERO,
            // Long enough for a local answer on a loaded machine (300 ms was not, beside the
            // suite); `/slow` answers well after it.
            timeout: Duration::from_secs(2),
            cache_path: None,
            cache_ttl: Duration::from_secs(3600),
        }
    }

    /// A port on 127.0.0.1 where nothing listens. A port freed after binding `:0` can be taken
    /// at once by another test's listener (that made CI fail), so this takes a privileged
    /// port: the kernel never hands one out for `:0`, and it is checked to refuse.
    pub(crate) fn closed_port() -> u16 {
        [1u16, 9, 13, 17, 19, 37, 43, 79, 101, 109]
            .into_iter()
            .find(|port| {
                TcpStream::connect(("127.0.0.1", *port))
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionRefused)
            })
            .expect("some privileged port on 127.0.0.1 refuses connections")
    }

    fn check(urls: &[String], opts: &LinkCheckOptions) -> BTreeMap<String, LinkStatus> {
        check_urls(urls, opts)
    }

    #[test]
    fn statuses_of_answers_and_failures() {
        let server = TestServer::start();
        let refused = format!("http://127.0.0.1:{}/x", closed_port());
        let urls: Vec<String> = ["/ok", "/missing", "/moved", "/nohead", "/slow"]
            .iter()
            .map(|p| server.url(p))
            .chain([refused.clone()])
            .collect();
        let got = check(&urls, &quick());
        assert_eq!(got[&server.url("/ok")], LinkStatus::Ok);
        assert_eq!(
            got[&server.url("/missing")],
            LinkStatus::Broken { status: 404 }
        );
        assert_eq!(got[&server.url("/moved")], LinkStatus::Ok);
        assert_eq!(got[&server.url("/nohead")], LinkStatus::Ok);
        assert_eq!(
            got[&server.url("/slow")],
            LinkStatus::Failed {
                reason: "no answer within 2 s".into()
            }
        );
        assert_eq!(
            got[&refused],
            LinkStatus::Failed {
                reason: "connection refused".into()
            }
        );
        let lines = server.lines();
        // HEAD first; GET only where HEAD was refused; the redirect followed with HEAD.
        for expected in [
            "HEAD /ok",
            "HEAD /missing",
            "HEAD /moved",
            "HEAD /nohead",
            "GET /nohead",
        ] {
            assert!(
                lines.contains(&expected.to_string()),
                "{expected} not in {lines:?}"
            );
        }
        assert!(!lines.contains(&"GET /ok".to_string()), "{lines:?}");
        assert!(!lines.contains(&"GET /missing".to_string()), "{lines:?}");
        let ua = format!("seihon/{} (link check)", env!("CARGO_PKG_VERSION"));
        assert!(server.seen().iter().all(|s| s.user_agent == ua));
    }

    #[test]
    fn fragments_duplicates_and_other_schemes() {
        let server = TestServer::start();
        let urls = vec![
            server.url("/ok#one"),
            server.url("/ok#two"),
            server.url("/ok"),
            server.url("/ok"),
            "mailto:a@example.com".to_string(),
            "ftp://example.com/f".to_string(),
        ];
        let got = check(&urls, &quick());
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.values().all(|s| *s == LinkStatus::Ok));
        assert_eq!(server.lines(), ["HEAD /ok"]);
    }

    #[test]
    fn too_many_requests_waits_once_for_a_short_retry_after() {
        let server = TestServer::start();
        let urls = vec![server.url("/busy"), server.url("/busy-long")];
        let got = check(&urls, &quick());
        assert_eq!(got[&server.url("/busy")], LinkStatus::Ok);
        assert_eq!(
            got[&server.url("/busy-long")],
            LinkStatus::Broken { status: 429 }
        );
        let seen = server.seen();
        let busy: Vec<&Seen> = seen.iter().filter(|s| s.path == "/busy").collect();
        assert_eq!(busy.len(), 2);
        assert!(busy[1].at - busy[0].at >= Duration::from_millis(900));
        assert_eq!(seen.iter().filter(|s| s.path == "/busy-long").count(), 1);
    }

    #[test]
    fn cache_spares_requests_until_it_expires_and_keeps_no_failures() {
        let server = TestServer::start();
        let dir = tempfile::tempdir().unwrap();
        // The cache's folder does not exist yet.
        let cache = dir.path().join("cache/links.json");
        let refused = format!("http://127.0.0.1:{}/x", closed_port());
        let urls = vec![server.url("/ok"), server.url("/missing#f"), refused.clone()];
        let opts = LinkCheckOptions {
            cache_path: Some(cache.clone()),
            ..quick()
        };

        let first = check(&urls, &opts);
        assert_eq!(server.seen().len(), 2);
        let saved = std::fs::read_to_string(&cache).unwrap();
        assert!(saved.contains(&server.url("/ok")), "{saved}");
        assert!(saved.contains(&server.url("/missing")), "{saved}");
        assert!(!saved.contains(&refused), "a failure was cached: {saved}");
        // Nothing left behind by the atomic write.
        assert_eq!(
            std::fs::read_dir(cache.parent().unwrap()).unwrap().count(),
            1
        );

        let second = check(&urls, &opts);
        assert_eq!(second, first);
        assert_eq!(
            server.seen().len(),
            2,
            "the cached answers were asked again"
        );

        let expired = LinkCheckOptions {
            cache_ttl: Duration::ZERO,
            ..opts.clone()
        };
        assert_eq!(check(&urls, &expired), first);
        assert_eq!(server.seen().len(), 4);
    }

    #[test]
    fn a_corrupt_cache_is_ignored_and_replaced() {
        let server = TestServer::start();
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("links.json");
        std::fs::write(&cache, "{ not json").unwrap();
        let opts = LinkCheckOptions {
            cache_path: Some(cache.clone()),
            ..quick()
        };
        let urls = vec![server.url("/ok")];
        assert_eq!(check(&urls, &opts)[&urls[0]], LinkStatus::Ok);
        assert_eq!(load_cache(&cache).entries.len(), 1);
        check(&urls, &opts);
        assert_eq!(server.seen().len(), 1);
    }

    #[test]
    fn requests_to_one_host_are_paced_one_at_a_time() {
        let server = TestServer::start();
        let interval = Duration::from_millis(250);
        let urls: Vec<String> = ["/a", "/b", "/c", "/nohead"]
            .iter()
            .map(|p| server.url(p))
            .collect();
        let opts = LinkCheckOptions {
            per_host_interval: interval,
            timeout: Duration::from_secs(10),
            ..quick()
        };
        let got = check(&urls, &opts);
        assert!(got.values().all(|s| *s == LinkStatus::Ok), "{got:?}");
        let seen = server.seen();
        assert_eq!(seen.len(), 5, "HEAD ×4 and GET /nohead");
        // Arrivals lag the starts unevenly on a loaded machine (a late arrival shortens the
        // next gap only), so each gap gets a wide margin and the whole span a narrow one;
        // unpaced, the gaps would be a few milliseconds.
        let (slack, wide) = (Duration::from_millis(100), Duration::from_millis(200));
        for pair in seen.windows(2) {
            let gap = pair[1].at - pair[0].at;
            assert!(
                gap >= interval - wide,
                "{} then {} after {gap:?}",
                pair[0].path,
                pair[1].path
            );
        }
        let span = seen[4].at - seen[0].at;
        assert!(span >= 4 * interval - slack, "5 requests in {span:?}");
        assert_eq!(server.in_flight.max(), 1);
    }

    #[test]
    fn no_more_requests_in_flight_than_allowed() {
        let shared = Arc::new(InFlight::default());
        let servers: Vec<TestServer> = (0..4)
            .map(|_| TestServer::start_sharing(shared.clone()))
            .collect();
        let urls: Vec<String> = servers
            .iter()
            .flat_map(|s| [s.url("/pause"), s.url("/pause?again")])
            .collect();
        let opts = LinkCheckOptions {
            concurrency: 2,
            timeout: Duration::from_secs(10),
            ..quick()
        };
        let got = check(&urls, &opts);
        assert_eq!(got.len(), 8);
        assert!(got.values().all(|s| *s == LinkStatus::Ok), "{got:?}");
        assert!(shared.max() <= 2, "{} in flight", shared.max());
        // Two did run at once: the pool is not one thread.
        assert_eq!(shared.max(), 2);
        for s in &servers {
            assert_eq!(s.in_flight.max(), 1, "two requests at once to one host");
        }
    }

    #[test]
    fn addresses_and_words() {
        assert_eq!(request_url("mailto:x@y"), None);
        assert_eq!(
            request_url(" HTTPS://ja.wikipedia.org/wiki/製本#歴史 ").as_deref(),
            Some("HTTPS://ja.wikipedia.org/wiki/%E8%A3%BD%E6%9C%AC")
        );
        assert_eq!(host_key("https://Example.com/a"), "https://example.com:443");
        assert_eq!(
            host_key("http://example.com:8080/"),
            "http://example.com:8080"
        );
        assert_eq!(status_text(404), "404 Not Found");
        assert_eq!(status_text(599), "599");
        assert_eq!(human(Duration::from_secs(10)), "10 s");
    }
}
