//! One runner for every external program seihon starts: filters, hooks and checks.
//!
//! [`run`] starts a program with arguments, environment, working folder and optional standard
//! input, reads its standard output and error concurrently (so a program printing a lot never
//! blocks on a full pipe while we are still writing its input), and stops it when it runs past its
//! time limit or prints more than its output limit. It never hangs and never panics: every way a
//! program can go wrong is a [`RunError`] whose message says what happened in plain words.
//!
//! On Unix the program runs in its own process group, and stopping it kills the whole group, so
//! a shell script's children (a `sleep`, a `yes`) are stopped with it.
//!
//! [`command_for`] decides how to start a program: an executable file directly; a script that is
//! not executable (a publisher's `house.rb` copied without its mode bits) by its extension or its
//! `#!` line.
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// What to run and within which limits.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Added to (not replacing) the inherited environment.
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    /// Written to the program's standard input, which is then closed; `None`: no input at all.
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    /// Limit in bytes for standard output, and separately for standard error.
    pub max_output: usize,
}

impl RunSpec {
    /// A spec with no arguments, no input, a 30 s limit and 64 MiB of output.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        RunSpec {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            stdin: None,
            timeout: Duration::from_secs(30),
            max_output: 64 << 20,
        }
    }
}

/// What a program printed, when it succeeded.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
}

/// Why a program did not run to a successful end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the program {} does not exist", .0.display())]
    NotFound(PathBuf),
    #[error("the program {} could not be started: {source}", .program.display())]
    Spawn {
        program: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "the program {} did not finish within {} and was stopped{}",
        .program.display(), Secs(*.after), said(.stderr)
    )]
    TimedOut {
        program: PathBuf,
        after: Duration,
        stderr: String,
    },
    #[error(
        "the program {} printed more than {} and was stopped",
        .program.display(), Bytes(*.limit)
    )]
    OutputTooLarge { program: PathBuf, limit: usize },
    #[error("the program {} failed ({}){}", .program.display(), ExitCode(*.code), said(.stderr))]
    Failed {
        program: PathBuf,
        code: Option<i32>,
        /// The start of its error output, for the message.
        stderr: String,
        /// Everything it printed: a checker exits non-zero when it found problems, and says
        /// which on either stream.
        output: Box<RunOutput>,
    },
}

/// At most this much of a program's error output is kept in a [`RunError`].
const MAX_STDERR_IN_ERROR: usize = 4000;

fn said(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; it said:\n{}", stderr.trim_end())
    }
}

struct Secs(Duration);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        if d.subsec_nanos() == 0 {
            write!(f, "{} s", d.as_secs())
        } else if d < Duration::from_secs(1) {
            write!(f, "{} ms", d.as_millis())
        } else {
            write!(f, "{:.1} s", d.as_secs_f64())
        }
    }
}

struct Bytes(usize);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
            write!(f, "{} MiB", n >> 20)
        } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
            write!(f, "{} KiB", n >> 10)
        } else {
            write!(f, "{n} bytes")
        }
    }
}

struct ExitCode(Option<i32>);

impl fmt::Display for ExitCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(code) => write!(f, "exit code {code}"),
            None => f.write_str("stopped by a signal"),
        }
    }
}

/// Interpreters for scripts that are not executable, by file extension.
const INTERPRETERS: &[(&str, &str)] = &[
    ("rb", "ruby"),
    ("py", "python3"),
    ("sh", "sh"),
    ("pl", "perl"),
    ("js", "node"),
    ("php", "php"),
];

/// The interpreter for a script extension (`rb` → `ruby`), if we know one.
pub fn interpreter_for_extension(ext: &str) -> Option<&'static str> {
    INTERPRETERS
        .iter()
        .find(|(e, _)| e.eq_ignore_ascii_case(ext))
        .map(|(_, i)| *i)
}

/// Whether `path` is a file with an execute bit set.
#[cfg(unix)]
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
pub fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The interpreter and its arguments named by a `#!` line, if the file starts with one.
fn shebang(path: &Path) -> Option<Vec<String>> {
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let end = line.iter().position(|&b| b == b'\n').unwrap_or(line.len());
    let line = std::str::from_utf8(&line[..end]).ok()?.trim();
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    (!words.is_empty()).then_some(words)
}

/// How to start a program: executable files directly; a script that is not executable by its
/// extension (`.rb` → ruby, `.py` → python3, `.sh` → sh, `.pl` → perl, `.js` → node,
/// `.php` → php), or else by its `#!` line. Anything else is started directly (and starting it
/// then fails with a plain message).
pub fn command_for(program: &Path) -> Command {
    if is_executable(program) {
        return Command::new(program);
    }
    if let Some(interp) = program
        .extension()
        .and_then(|e| e.to_str())
        .and_then(interpreter_for_extension)
    {
        let mut cmd = Command::new(interp);
        cmd.arg(program);
        return cmd;
    }
    if let Some(words) = shebang(program) {
        let mut cmd = Command::new(&words[0]);
        cmd.args(&words[1..]).arg(program);
        return cmd;
    }
    Command::new(program)
}

/// Runs a program to its end within the spec's limits. Succeeds only when it exits with code 0.
pub fn run(spec: &RunSpec) -> Result<RunOutput, RunError> {
    let started = Instant::now();
    let program = spec.program.as_path();
    // A bare name ("sh") is looked up on PATH; a path must exist.
    let is_path = program.components().count() > 1 || program.is_absolute();
    if is_path && !program.exists() {
        return Err(RunError::NotFound(program.to_path_buf()));
    }
    let mut cmd = prepare(spec, program);
    let mut child = start(&mut cmd, program, is_path)?;
    feed_input(spec, &mut child);
    let (output, flooded) = read_output(&mut child, spec.max_output);
    let mut running = Running {
        spec,
        child,
        output,
        flooded,
        deadline: started + spec.timeout,
    };
    let status = running.wait_for_exit()?;
    let (stdout, stderr) = running.leftover_output()?;
    check_status(status, program.to_path_buf(), stdout, stderr, started)
}

/// The command for the spec: its arguments, environment, folder and pipes, in its own process
/// group so that stopping it stops what it started.
fn prepare(spec: &RunSpec, program: &Path) -> Command {
    let mut cmd = command_for(program);
    cmd.args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd
}

/// Starts the command, telling a missing program from a missing interpreter.
fn start(cmd: &mut Command, program: &Path, is_path: bool) -> Result<Child, RunError> {
    match spawn(cmd) {
        Ok(child) => Ok(child),
        Err(e) if e.kind() == io::ErrorKind::NotFound && !is_path => {
            Err(RunError::NotFound(program.to_path_buf()))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // The file exists, so what is missing is the interpreter that runs it.
            let interp = if cmd.get_program() == program.as_os_str() {
                shebang(program)
                    .map(|w| w.join(" "))
                    .unwrap_or_else(|| "named on its first line".into())
            } else {
                cmd.get_program().to_string_lossy().into_owned()
            };
            Err(RunError::Spawn {
                program: program.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("its interpreter `{interp}` is not installed"),
                ),
            })
        }
        Err(source) => Err(RunError::Spawn {
            program: program.to_path_buf(),
            source,
        }),
    }
}

/// Writes the spec's input on its own thread: a program may print before it has read all of
/// its input.
fn feed_input(spec: &RunSpec, child: &mut Child) {
    if let (Some(input), Some(mut pipe)) = (spec.stdin.clone(), child.stdin.take()) {
        thread::spawn(move || {
            // A program that exits without reading all of its input closes the pipe: not our error.
            let _ = pipe.write_all(&input);
        });
    }
}

/// Reads standard output and error on a thread each, up to `limit` bytes each; each stream
/// arrives whole on the channel, and the flag says when one went past the limit.
fn read_output(
    child: &mut Child,
    limit: usize,
) -> (mpsc::Receiver<(Stream, Vec<u8>)>, Arc<AtomicBool>) {
    let flooded = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(Stream, Vec<u8>)>();
    for (stream, pipe) in [
        (
            Stream::Out,
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ),
        (
            Stream::Err,
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ),
    ] {
        let Some(pipe) = pipe else { continue };
        let tx = tx.clone();
        let flooded = Arc::clone(&flooded);
        thread::spawn(move || {
            let bytes = read_limited(pipe, limit, &flooded);
            let _ = tx.send((stream, bytes));
        });
    }
    drop(tx);
    (rx, flooded)
}

/// A started program, its output arriving on a channel, and its limits.
struct Running<'a> {
    spec: &'a RunSpec,
    child: Child,
    output: mpsc::Receiver<(Stream, Vec<u8>)>,
    /// Set when a stream went past the output limit.
    flooded: Arc<AtomicBool>,
    deadline: Instant,
}

impl Running<'_> {
    /// Waits for the program to exit, stopping it when it floods its output or runs past the
    /// deadline.
    fn wait_for_exit(&mut self) -> Result<ExitStatus, RunError> {
        let program = self.spec.program.clone();
        let mut pause = Duration::from_millis(1);
        loop {
            if self.flooded.load(Ordering::Relaxed) {
                stop(&mut self.child);
                return Err(RunError::OutputTooLarge {
                    program,
                    limit: self.spec.max_output,
                });
            }
            match self.child.try_wait() {
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(source) => {
                    stop(&mut self.child);
                    return Err(RunError::Spawn { program, source });
                }
            }
            let now = Instant::now();
            if now >= self.deadline {
                stop(&mut self.child);
                let (_, stderr) = collect(&self.output, Instant::now() + Duration::from_secs(1));
                return Err(RunError::TimedOut {
                    program,
                    after: self.spec.timeout,
                    stderr: stderr_text(&stderr),
                });
            }
            thread::sleep(pause.min(self.deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// The output of the program once it has exited; the rest of it may still be in the pipes.
    /// A program it left running in the background may hold them open for ever: the exit is
    /// what counts, so such a straggler gets a moment, then is stopped, and the log says so.
    fn leftover_output(&self) -> Result<(Vec<u8>, Vec<u8>), RunError> {
        let grace = (Instant::now() + LEFTOVER_GRACE).min(self.deadline.max(Instant::now()));
        let (outputs, complete) = collect_until(&self.output, grace, &self.flooded);
        if self.flooded.load(Ordering::Relaxed) {
            kill_group(&self.child);
            return Err(RunError::OutputTooLarge {
                program: self.spec.program.clone(),
                limit: self.spec.max_output,
            });
        }
        if complete {
            return Ok(outputs);
        }
        kill_group(&self.child);
        let (out, err) = collect(&self.output, Instant::now() + Duration::from_secs(1));
        let mut err = if err.is_empty() { outputs.1 } else { err };
        err.extend_from_slice(LEFTOVER_NOTE.as_bytes());
        Ok((if out.is_empty() { outputs.0 } else { out }, err))
    }
}

/// How long output may keep coming after the program itself has exited.
const LEFTOVER_GRACE: Duration = Duration::from_secs(1);

/// Added to the error output of a program that left something running in the background.
const LEFTOVER_NOTE: &str = "\n(seihon: the program exited, but a process it started in the background was still running and holding its output; seihon stopped that process)\n";

/// Starts the command, retrying briefly on "text file busy": a script written a moment ago can
/// still be open for writing in a process another thread is forking.
fn spawn(cmd: &mut Command) -> io::Result<Child> {
    const ETXTBSY: i32 = 26;
    let mut attempt = 0;
    loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && attempt < 10 => {
                attempt += 1;
                thread::sleep(Duration::from_millis(20 * attempt));
            }
            other => return other,
        }
    }
}

fn check_status(
    status: ExitStatus,
    program: PathBuf,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    started: Instant,
) -> Result<RunOutput, RunError> {
    if status.success() {
        Ok(RunOutput {
            stdout,
            stderr,
            elapsed: started.elapsed(),
        })
    } else {
        Err(RunError::Failed {
            program,
            code: status.code(),
            stderr: stderr_text(&stderr),
            output: Box::new(RunOutput {
                stdout,
                stderr,
                elapsed: started.elapsed(),
            }),
        })
    }
}

#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

/// Reads a pipe to its end, or until more than `limit` bytes arrive (then sets `flooded` and
/// stops reading; the program is killed by the caller).
fn read_limited(mut pipe: Box<dyn Read + Send>, limit: usize, flooded: &AtomicBool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if out.len() + n > limit {
                    flooded.store(true, Ordering::Relaxed);
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    out
}

/// Collects both streams until `deadline`; returns (stdout, stderr) and whether both ended.
fn collect_until(
    rx: &mpsc::Receiver<(Stream, Vec<u8>)>,
    deadline: Instant,
    flooded: &AtomicBool,
) -> ((Vec<u8>, Vec<u8>), bool) {
    let mut stdout = None;
    let mut stderr = None;
    while stdout.is_none() || stderr.is_none() {
        if flooded.load(Ordering::Relaxed) {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        // Wake up now and then to notice a flood on the other stream.
        let wait = (deadline - now).min(Duration::from_millis(50));
        match rx.recv_timeout(wait) {
            Ok((Stream::Out, bytes)) => stdout = Some(bytes),
            Ok((Stream::Err, bytes)) => stderr = Some(bytes),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            // Both readers are gone (a pipe was never opened).
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let complete = true;
                return (
                    (stdout.unwrap_or_default(), stderr.unwrap_or_default()),
                    complete,
                );
            }
        }
    }
    let complete = stdout.is_some() && stderr.is_some();
    (
        (stdout.unwrap_or_default(), stderr.unwrap_or_default()),
        complete,
    )
}

/// Whatever the readers deliver before `deadline` (after the program was stopped).
fn collect(rx: &mpsc::Receiver<(Stream, Vec<u8>)>, deadline: Instant) -> (Vec<u8>, Vec<u8>) {
    let never = AtomicBool::new(false);
    collect_until(rx, deadline, &never).0
}

fn stderr_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= MAX_STDERR_IN_ERROR {
        return text.to_string();
    }
    let mut cut = text.len() - MAX_STDERR_IN_ERROR;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    format!("…{}", &text[cut..])
}

/// Kills the program and everything it started, and reaps it.
fn stop(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
    // SIGKILL cannot be ignored; reaping is immediate unless the process is stuck in the kernel.
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// Kills the program's process group (the program was made its leader when started).
fn kill_group(child: &Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = child;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn script(dir: &Path, name: &str, text: &str, executable: bool) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if executable { 0o755 } else { 0o644 };
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        }
        path
    }

    fn spec(program: &Path) -> RunSpec {
        let mut s = RunSpec::new(program);
        s.timeout = Duration::from_secs(20);
        s
    }

    fn have(program: &str) -> bool {
        Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    #[test]
    fn shell_script_echoes_stdin_with_env_args_and_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(
            dir.path(),
            "echo.sh",
            "#!/bin/sh\ncat\nprintf '%s|%s|%s' \"$SEIHON_X\" \"$1\" \"$(basename \"$PWD\")\"\n",
            true,
        );
        fs::create_dir(dir.path().join("work")).unwrap();
        let mut s = spec(&p);
        s.stdin = Some("本文\n".as_bytes().to_vec());
        s.env.push(("SEIHON_X".into(), "x".into()));
        s.args.push("arg1".into());
        s.cwd = Some(dir.path().join("work"));
        let out = run(&s).unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "本文\nx|arg1|work");
    }

    #[test]
    fn large_input_and_output_do_not_deadlock() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "cat.sh", "#!/bin/sh\ncat\n", true);
        let mut s = spec(&p);
        let input: Vec<u8> = (0..4_000_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        s.stdin = Some(input.clone());
        let out = run(&s).unwrap();
        assert_eq!(out.stdout, input);
    }

    #[test]
    fn executable_python_script() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(
            dir.path(),
            "up",
            "#!/usr/bin/env python3\nimport sys\nsys.stdout.write(sys.stdin.read().upper())\n",
            true,
        );
        let mut s = spec(&p);
        s.stdin = Some(b"hello".to_vec());
        assert_eq!(run(&s).unwrap().stdout, b"HELLO");
    }

    #[test]
    fn non_executable_scripts_run_by_extension_or_shebang() {
        let dir = tempfile::tempdir().unwrap();
        let py = script(
            dir.path(),
            "plain.py",
            "import sys\nprint('py', sys.argv[1])\n",
            false,
        );
        let mut s = spec(&py);
        s.args.push("ok".into());
        assert_eq!(run(&s).unwrap().stdout, b"py ok\n");
        let get = command_for(&py);
        assert_eq!(get.get_program(), "python3");

        let sb = script(
            dir.path(),
            "noext",
            "#!/usr/bin/env python3\nprint('from shebang')\n",
            false,
        );
        assert_eq!(run(&spec(&sb)).unwrap().stdout, b"from shebang\n");
    }

    #[test]
    fn ruby_script_when_installed() {
        // Ruby is not installed on every machine that runs these tests; test it only when present.
        if !have("ruby") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let rb = script(dir.path(), "up.rb", "print STDIN.read.upcase\n", false);
        let mut s = spec(&rb);
        s.stdin = Some(b"ruby".to_vec());
        assert_eq!(run(&s).unwrap().stdout, b"RUBY");
    }

    #[test]
    fn failure_keeps_exit_code_and_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(
            dir.path(),
            "fail.sh",
            "#!/bin/sh\necho 'no such chapter' >&2\nexit 3\n",
            true,
        );
        let err = run(&spec(&p)).unwrap_err();
        match &err {
            RunError::Failed { code, stderr, .. } => {
                assert_eq!(*code, Some(3));
                assert_eq!(stderr, "no such chapter");
            }
            other => panic!("expected Failed, got {other:?}"),
        }
        let msg = err.to_string();
        assert!(msg.contains("fail.sh failed (exit code 3)"), "{msg}");
        assert!(msg.contains("no such chapter"), "{msg}");
    }

    #[test]
    fn hanging_program_is_stopped_at_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        // The shell waits for its `sleep` child: both must be stopped.
        let p = script(
            dir.path(),
            "hang.sh",
            "#!/bin/sh\necho starting >&2\nsleep 30\necho done\n",
            true,
        );
        let mut s = spec(&p);
        s.timeout = Duration::from_secs(1);
        let t = Instant::now();
        let err = run(&s).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        match &err {
            RunError::TimedOut { after, stderr, .. } => {
                assert_eq!(*after, Duration::from_secs(1));
                assert_eq!(stderr, "starting");
            }
            other => panic!("expected TimedOut, got {other:?}"),
        }
        assert!(
            err.to_string()
                .contains("hang.sh did not finish within 1 s and was stopped"),
            "{err}"
        );
    }

    /// The program's exit is what counts, not its pipes: a child it left in the background
    /// holding them is stopped after a moment, the program's own result stands, and the error
    /// output says what happened.
    #[test]
    fn background_child_holding_the_pipe_does_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        for (body, ok) in [("echo hi\n", true), ("echo hi\nexit 3\n", false)] {
            let p = script(
                dir.path(),
                "bg.sh",
                &format!(
                    "#!/bin/sh\nsh -c 'echo $$ > {}; exec sleep 30' &\nwhile [ ! -s {} ]; do :; done\n{body}",
                    pid_file.display(),
                    pid_file.display()
                ),
                true,
            );
            let mut s = spec(&p);
            s.timeout = Duration::from_secs(60);
            let t = Instant::now();
            let result = run(&s);
            assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
            let (stdout, stderr) = match (result, ok) {
                (Ok(out), true) => (out.stdout, out.stderr),
                (Err(RunError::Failed { code, output, .. }), false) => {
                    assert_eq!(code, Some(3));
                    (output.stdout, output.stderr)
                }
                (other, _) => panic!("{other:?}"),
            };
            assert_eq!(stdout, b"hi\n");
            let stderr = String::from_utf8(stderr).unwrap();
            assert!(
                stderr.contains("a process it started in the background"),
                "{stderr}"
            );
            // The background process was stopped, not left to run (at most a zombie). A
            // SIGKILL is delivered asynchronously, so the process may still show as running
            // for a moment after it was sent: wait a little for it to go.
            let pid = std::fs::read_to_string(&pid_file).unwrap();
            let stat_path = format!("/proc/{}/stat", pid.trim());
            let gone =
                |stat: &std::io::Result<String>| stat.as_ref().map_or(true, |s| s.contains(") Z "));
            let deadline = Instant::now() + Duration::from_secs(5);
            let mut stat = std::fs::read_to_string(&stat_path);
            while !gone(&stat) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
                stat = std::fs::read_to_string(&stat_path);
            }
            assert!(gone(&stat), "still running: {stat:?}");
            std::fs::remove_file(&pid_file).unwrap();
        }
    }

    #[test]
    fn flooding_program_is_stopped_at_the_output_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "flood.sh", "#!/bin/sh\nyes\n", true);
        let mut s = spec(&p);
        s.max_output = 1 << 20;
        let t = Instant::now();
        let err = run(&s).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(10));
        assert!(
            matches!(err, RunError::OutputTooLarge { limit, .. } if limit == 1 << 20),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .contains("flood.sh printed more than 1 MiB and was stopped"),
            "{err}"
        );
        // A flood on standard error counts too.
        let p = script(dir.path(), "flood2.sh", "#!/bin/sh\nyes >&2\n", true);
        let mut s = spec(&p);
        s.max_output = 1000;
        assert!(matches!(
            run(&s).unwrap_err(),
            RunError::OutputTooLarge { .. }
        ));
    }

    #[test]
    fn missing_program_and_missing_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.rb");
        let err = run(&spec(&missing)).unwrap_err();
        assert!(matches!(err, RunError::NotFound(_)), "{err:?}");
        assert!(err.to_string().ends_with("nope.rb does not exist"), "{err}");
        let err = run(&spec(Path::new("seihon-no-such-program"))).unwrap_err();
        assert!(matches!(err, RunError::NotFound(_)), "{err:?}");

        let p = script(dir.path(), "odd", "#!/nonexistent/interpreter\nx\n", false);
        let err = run(&spec(&p)).unwrap_err();
        assert!(matches!(err, RunError::Spawn { .. }), "{err:?}");
        assert!(
            err.to_string().contains("/nonexistent/interpreter"),
            "{err}"
        );
    }

    #[test]
    fn program_that_ignores_its_input_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "ignore.sh", "#!/bin/sh\necho ok\n", true);
        let mut s = spec(&p);
        s.stdin = Some(vec![b'x'; 8 << 20]);
        assert_eq!(run(&s).unwrap().stdout, b"ok\n");
    }
}
