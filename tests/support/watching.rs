//! `seihon watch` running as a child process for the preview tests, and plain HTTP to it.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one step may take: generous, the tests run on a loaded two-core machine.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// A running `seihon watch`, killed when dropped.
pub struct Watching {
    child: Child,
    /// `http://127.0.0.1:PORT/`, as printed.
    pub url: String,
    pub port: u16,
    stderr: Arc<Mutex<String>>,
}

impl Watching {
    /// Starts `seihon watch BOOK --port <a free port>` in `project` and waits for its URL.
    pub fn start(project: &std::path::Path, book: &str) -> Watching {
        let port = free_port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_seihon"))
            .args(["watch", book, "--port", &port.to_string()])
            .current_dir(project)
            .env_remove("SOURCE_DATE_EPOCH")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run seihon watch");
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let (pipe, log) = (child.stderr.take().unwrap(), stderr.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    log.lock().unwrap().push_str(&format!("{line}\n"));
                }
            });
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut watching = Watching {
            child,
            url: String::new(),
            port,
            stderr,
        };
        let line = rx.recv_timeout(DEADLINE * 2).unwrap_or_else(|_| {
            panic!(
                "seihon watch printed no address within {:?}; its log:\n{}",
                DEADLINE * 2,
                watching.log()
            )
        });
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        watching.url = url.to_string();
        watching
    }

    /// What seihon printed to standard error so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to end by itself.
    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < within {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// GET `path` over plain HTTP/1.1: status, headers (lower-cased names) and body.
    pub fn get(&self, path: &str) -> Response {
        self.get_as(path, &format!("127.0.0.1:{}", self.port))
    }

    /// GET `path` with this `Host` header.
    pub fn get_as(&self, path: &str, host: &str) -> Response {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read the answer");
        Response::parse(&raw)
    }

    /// `/_seihon/state` as JSON.
    pub fn state(&self) -> serde_json::Value {
        let r = self.get("/_seihon/state");
        assert_eq!(r.status, 200, "state: {}", r.body);
        serde_json::from_str(&r.body).expect("state is JSON")
    }

    /// Reads the event stream from `/_seihon/events?since=N` until the first event.
    pub fn first_event(&self, since: u64) -> (String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        write!(
            stream,
            "GET /_seihon/events?since={since} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        )
        .unwrap();
        let mut seen = String::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf).expect("read the event stream");
            assert!(n > 0, "the event stream ended: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            // An event ends with a blank line; its lines may be chunk-framed.
            if let Some(at) = seen.find("event: ")
                && let Some(data) = seen[at..].find("\ndata: ")
                && let Some(end) = seen[at + data + 7..].find('\n')
            {
                let name = seen[at + 7..at + data].trim().to_string();
                let payload = seen[at + data + 7..at + data + 7 + end].trim().to_string();
                return (name, payload);
            }
        }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    fn parse(raw: &[u8]) -> Response {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP answer");
        let head = String::from_utf8_lossy(&raw[..split]);
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = &raw[split + 4..];
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_vec()
        };
        Response {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = body.windows(2).position(|w| w == b"\r\n") {
        let size = String::from_utf8_lossy(&body[..eol]);
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let rest = &body[eol + 2..];
        if n == 0 || rest.len() < n {
            break;
        }
        out.extend_from_slice(&rest[..n]);
        body = rest[n..].strip_prefix(b"\r\n").unwrap_or(&rest[n..]);
    }
    out
}

/// A port nobody listens on now (the OS picks it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A port on 127.0.0.1 that refuses connections and stays so: a privileged one, which the
/// kernel never hands out for `:0` (a port freed after binding `:0` can be taken at once by
/// another test's listener), checked to refuse.
pub fn refused_port() -> u16 {
    [1u16, 9, 13, 17, 19, 37, 43, 79, 101, 109]
        .into_iter()
        .find(|port| {
            std::net::TcpStream::connect(("127.0.0.1", *port))
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionRefused)
        })
        .expect("some privileged port on 127.0.0.1 refuses connections")
}

/// Polls `probe` until it gives a value, or fails naming `what` after [`DEADLINE`].
pub fn wait_for<T>(what: &str, watching: &Watching, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "waited {DEADLINE:?} for {what}; seihon's log:\n{}",
            watching.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
