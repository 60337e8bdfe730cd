//! Runs one external tool: the command, its working directory, the log,
//! and errors that name the tool and show the tail of its log.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a tool run failed.
#[derive(thiserror::Error)]
pub enum ToolError {
    /// The tool is not installed (the message names the install command).
    #[error("{0}")]
    Missing(String),
    #[error("{tool} rejected {what}:\n{log}")]
    Failed {
        tool: String,
        what: String,
        /// The tail of the tool's log.
        log: String,
    },
    /// The tool ran past its time bound and was stopped.
    #[error("{tool} did not finish {what} within {seconds} s and was stopped (raise the bound if the run is that long):\n{log}")]
    TimedOut {
        tool: String,
        what: String,
        seconds: u64,
        log: String,
    },
    /// flexpmu itself was stopped by a signal (Ctrl-C, SIGTERM) while the
    /// tool ran, and stopped the tool with it.
    #[error("{tool} was stopped with flexpmu by {}", signal_name(*signal))]
    Interrupted { tool: String, signal: i32 },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

// Debug shows the message, so that a test's `unwrap()` prints the log.
impl std::fmt::Debug for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl ToolError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> ToolError {
        ToolError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The Debian package that provides `tool`.
pub fn package_of(tool: &str) -> &str {
    match tool {
        "yosys-abc" => "yosys",
        "yosys-config" => "yosys-dev libghdl-dev",
        "vvp" => "iverilog",
        "icepack" => "fpga-icestorm",
        "sta" => "opensta",
        "sbatch" | "squeue" | "scancel" => "slurm-wlm",
        other => other,
    }
}

/// The message given when a tool is missing: it names the install command.
pub fn missing_tool(tool: &str) -> String {
    format!(
        "`{tool}` was not found on PATH: install it with `apt-get install -y {}` \
         (scripts/test installs every tool the tests need)",
        package_of(tool)
    )
}

/// Runs `tool args` in `dir` and returns its output (stdout then stderr);
/// a non-zero exit is an error with the log's tail.
pub fn run(tool: &str, args: &[&str], dir: &Path, what: &str) -> Result<String, ToolError> {
    run_program(Path::new(tool), tool, args, dir, what)
}

/// [`run`] for a program given by path (a binary a tool built), shown as
/// `name` in errors.
pub fn run_program(
    program: &Path,
    name: &str,
    args: &[&str],
    dir: &Path,
    what: &str,
) -> Result<String, ToolError> {
    let (success, log) = run_unchecked(program, name, args, dir)?;
    if success {
        Ok(log)
    } else {
        Err(ToolError::Failed {
            tool: name.to_string(),
            what: what.to_string(),
            log: tail(&log, 40),
        })
    }
}

/// Runs `program` and returns whether it succeeded and its whole output
/// (stdout then stderr), for programs whose log matters either way. The
/// run is bounded ([`Bounds::from_env`]): stopped, with an error naming the
/// bound, past its time, and refused memory past its memory bound.
pub fn run_unchecked(
    program: &Path,
    name: &str,
    args: &[&str],
    dir: &Path,
) -> Result<(bool, String), ToolError> {
    let bounds = Bounds::from_env();
    let (status, log) = run_bounded(program, name, args, dir, &[], &bounds, &mut |_| {})
        .map_err(|e| e.bound(name, "its run", &bounds))?;
    Ok((status.success(), bounds.explain(name, status, log)))
}

/// The time and memory a tool run may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub timeout: std::time::Duration,
    /// The address space of the tools that may grow without end on bad
    /// input (Yosys, OpenSTA), in MiB.
    pub memory_mib: u64,
}

/// The environment variables that change [`Bounds`]' defaults.
pub const TIMEOUT_VARIABLE: &str = "FLEXPMU_TOOL_SECONDS";
pub const MEMORY_VARIABLE: &str = "FLEXPMU_TOOL_MEMORY_MIB";

impl Bounds {
    /// An hour and 16 GiB, or what `FLEXPMU_TOOL_SECONDS` and
    /// `FLEXPMU_TOOL_MEMORY_MIB` say.
    pub fn from_env() -> Bounds {
        let read = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&v| v > 0)
                .unwrap_or(default)
        };
        Bounds {
            timeout: std::time::Duration::from_secs(read(TIMEOUT_VARIABLE, 3600)),
            memory_mib: read(MEMORY_VARIABLE, 16 << 10),
        }
    }

    /// Whether `tool`'s memory is bounded.
    fn bounds_memory(tool: &str) -> bool {
        matches!(tool, "yosys" | "sta")
    }

    /// A failed run's log, with the memory bound named when it was hit
    /// (the tool said so, or died as a failed allocation kills it: an
    /// abort or a segmentation fault with nothing said) and the signal
    /// named when another one stopped it.
    fn explain(&self, tool: &str, status: std::process::ExitStatus, mut log: String) -> String {
        use std::os::unix::process::ExitStatusExt as _;
        let starved = [
            "bad_alloc",
            "out of memory",
            "Cannot allocate memory",
            "memory exhausted",
        ];
        let said = starved.iter().any(|s| log.contains(s));
        let signal = status.signal();
        let allocation_death = matches!(signal, Some(libc_signal::SIGABRT | libc_signal::SIGSEGV));
        if !status.success() && Self::bounds_memory(tool) && (said || allocation_death) {
            log.push_str(&format!(
                "\n{tool} ran out of its memory bound of {} MiB and stopped (set {MEMORY_VARIABLE} to raise it)\n",
                self.memory_mib
            ));
        } else if let Some(signal) = signal {
            log.push_str(&format!(
                "\n{tool} was stopped by {}\n",
                signal_name(signal)
            ));
        }
        log
    }
}

/// The signal numbers the runner tells apart.
mod libc_signal {
    pub const SIGABRT: i32 = nix::sys::signal::Signal::SIGABRT as i32;
    pub const SIGSEGV: i32 = nix::sys::signal::Signal::SIGSEGV as i32;
}

/// A signal as people name it (`SIGTERM (15)`).
pub fn signal_name(signal: i32) -> String {
    match nix::sys::signal::Signal::try_from(signal) {
        Ok(s) => format!("{} ({signal})", s.as_str()),
        Err(_) => format!("signal {signal}"),
    }
}

/// Why a bounded run did not give a status.
enum RunFailure {
    Tool(ToolError),
    TimedOut(String),
}

impl RunFailure {
    fn bound(self, name: &str, what: &str, bounds: &Bounds) -> ToolError {
        match self {
            RunFailure::Tool(e) => e,
            RunFailure::TimedOut(log) => ToolError::TimedOut {
                tool: name.to_string(),
                what: format!("{what} (the bound is {TIMEOUT_VARIABLE})"),
                seconds: bounds.timeout.as_secs(),
                log: tail(&log, 40),
            },
        }
    }
}

/// Runs `program args` in `dir` under `bounds`, showing each line of its
/// standard output to `on_line` as it comes; its exit status and log
/// (both streams), or why there is none.
fn run_bounded(
    program: &Path,
    name: &str,
    args: &[&str],
    dir: &Path,
    env: &[(&str, &str)],
    bounds: &Bounds,
    on_line: &mut dyn FnMut(&str),
) -> Result<(std::process::ExitStatus, String), RunFailure> {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    use std::sync::mpsc;
    let mut command = if Bounds::bounds_memory(name) {
        // The shell sets the bound and becomes the tool.
        let mut c = Command::new("/bin/sh");
        c.arg("-c")
            .arg(format!(
                "ulimit -v {} && exec \"$0\" \"$@\"",
                bounds.memory_mib.saturating_mul(1024)
            ))
            .arg(program);
        c
    } else {
        Command::new(program)
    };
    // The tool leads its own process group, so that a timeout or an
    // interruption stops it with everything it started (Yosys' ABC).
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let missing = |e: std::io::Error| {
        RunFailure::Tool(match e.kind() {
            std::io::ErrorKind::NotFound if program.components().count() == 1 => {
                ToolError::Missing(missing_tool(name))
            }
            _ => ToolError::io(program, e),
        })
    };
    if Bounds::bounds_memory(name)
        && program.components().count() == 1
        && find_on_path(name).is_none()
    {
        return Err(missing(std::io::ErrorKind::NotFound.into()));
    }
    let mut child = command.spawn().map_err(missing)?;
    crate::files::cleanup::register_tool(child.id());
    let stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let (lines_tx, lines) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        let mut line = Vec::new();
        // Lines as bytes: a tool's output need not be UTF-8.
        while stdout.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            let text = String::from_utf8_lossy(&line)
                .trim_end_matches('\n')
                .to_string();
            line.clear();
            if lines_tx.send(text).is_err() {
                break;
            }
        }
    });
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let deadline = std::time::Instant::now() + bounds.timeout;
    let mut log = String::new();
    let mut timed_out = false;
    loop {
        // The deadline is checked after every line and every silence of
        // 100 ms: a tool that keeps printing is stopped at it too.
        match lines.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(line) => {
                on_line(&line);
                log.push_str(&line);
                log.push('\n');
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if std::time::Instant::now() >= deadline {
            timed_out = true;
            crate::files::cleanup::kill_group(child.id());
            break;
        }
    }
    let status = child.wait();
    crate::files::cleanup::unregister_tool(child.id());
    let status = status.map_err(|e| RunFailure::Tool(ToolError::io(program, e)))?;
    let _ = reader.join();
    log.push_str(&errors.join().unwrap_or_default());
    if timed_out {
        return Err(RunFailure::TimedOut(log));
    }
    // Stopped because flexpmu was: the signal, not the tool, is the cause.
    if let Some(signal) = crate::files::cleanup::interrupted() {
        if !status.success() {
            return Err(RunFailure::Tool(ToolError::Interrupted {
                tool: name.to_string(),
                signal,
            }));
        }
    }
    Ok((status, log))
}

/// Where `tool` is on PATH, if it is.
pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `tool`'s path on PATH, or the error that names its install command.
pub fn require_tool(tool: &str) -> Result<PathBuf, ToolError> {
    find_on_path(tool).ok_or_else(|| ToolError::Missing(missing_tool(tool)))
}

/// How a long tool run is bounded and watched.
pub struct Streaming<'a> {
    /// Environment variables to set.
    pub env: &'a [(&'a str, &'a str)],
    /// The run is stopped after this long.
    pub timeout: std::time::Duration,
    /// Called with each line the tool writes on standard output, as it
    /// writes it (progress).
    pub on_line: &'a mut dyn FnMut(&str),
}

/// Runs `program args` in `dir` as [`run_program`] does, showing each
/// line of its standard output to `streaming.on_line` as it comes and
/// stopping it (an error) after `streaming.timeout`. Its log (both streams)
/// is returned, or its tail in the error.
pub fn run_streaming(
    program: &Path,
    name: &str,
    args: &[&str],
    dir: &Path,
    what: &str,
    streaming: Streaming,
) -> Result<String, ToolError> {
    let bounds = Bounds {
        timeout: streaming.timeout,
        ..Bounds::from_env()
    };
    let (status, log) = run_bounded(
        program,
        name,
        args,
        dir,
        streaming.env,
        &bounds,
        streaming.on_line,
    )
    .map_err(|e| match e {
        RunFailure::Tool(e) => e,
        RunFailure::TimedOut(log) => ToolError::TimedOut {
            tool: name.to_string(),
            what: what.to_string(),
            seconds: streaming.timeout.as_secs(),
            log: tail(&log, 40),
        },
    })?;
    if status.success() {
        Ok(log)
    } else {
        Err(ToolError::Failed {
            tool: name.to_string(),
            what: what.to_string(),
            log: tail(&bounds.explain(name, status, log), 40),
        })
    }
}

/// The last `lines` lines of a log.
pub fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// A scratch directory for tool runs, removed when dropped. Set
/// `FLEXPMU_KEEP_SCRATCH=1` to keep them for inspection (their paths are
/// printed on stderr).
#[derive(Debug)]
pub struct Scratch {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl Scratch {
    /// A new, empty directory named `flexpmu-<name>-XXXXXX` in the
    /// system's temporary directory.
    pub fn new(name: &str) -> Result<Scratch, ToolError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("flexpmu-{name}-"))
            .tempdir()
            .map_err(|e| ToolError::io(&std::env::temp_dir(), e))?;
        let path = dir.path().to_path_buf();
        if std::env::var_os("FLEXPMU_KEEP_SCRATCH").is_some() {
            eprintln!("flexpmu: keeping scratch directory {}", path.display());
            let _ = dir.keep();
            return Ok(Scratch { dir: None, path });
        }
        crate::files::cleanup::register(&path);
        Ok(Scratch {
            dir: Some(dir),
            path,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `name` inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Writes `text` to `name` inside the directory; returns its path.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, ToolError> {
        let path = self.join(name);
        std::fs::write(&path, text).map_err(|e| ToolError::io(&path, e))?;
        Ok(path)
    }

    /// Reads `name` inside the directory.
    pub fn read(&self, name: &str) -> Result<String, ToolError> {
        let path = self.join(name);
        std::fs::read_to_string(&path).map_err(|e| ToolError::io(&path, e))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        crate::files::cleanup::unregister(&self.path);
        if let Some(dir) = self.dir.take() {
            let _ = dir.close();
        }
    }
}

/// `path` made absolute (tools run in their scratch directory).
pub fn absolute(path: &Path) -> Result<PathBuf, ToolError> {
    std::path::absolute(path).map_err(|e| ToolError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_names_its_package() {
        let scratch = Scratch::new("runner-test").unwrap();
        let err = run("flexpmu-no-such-tool", &[], scratch.path(), "x").unwrap_err();
        assert!(matches!(err, ToolError::Missing(_)), "{err}");
        assert!(err
            .to_string()
            .contains("apt-get install -y flexpmu-no-such-tool"));
        assert!(missing_tool("yosys-abc").contains("apt-get install -y yosys"));
    }

    #[test]
    fn scratch_directories_are_removed() {
        let scratch = Scratch::new("runner-test").unwrap();
        let path = scratch.path().to_path_buf();
        scratch.write("a.txt", "text").unwrap();
        assert_eq!(scratch.read("a.txt").unwrap(), "text");
        drop(scratch);
        assert!(!path.exists());
    }

    #[test]
    fn a_streamed_run_shows_its_lines_and_is_stopped_at_its_bound() {
        let scratch = Scratch::new("runner-test").unwrap();
        let mut seen = Vec::new();
        let log = run_streaming(
            Path::new("sh"),
            "sh",
            &["-c", "echo one; echo two; echo err >&2"],
            scratch.path(),
            "a script",
            Streaming {
                env: &[],
                timeout: std::time::Duration::from_secs(20),
                on_line: &mut |line| seen.push(line.to_string()),
            },
        )
        .unwrap();
        assert_eq!(seen, ["one", "two"]);
        assert_eq!(log, "one\ntwo\nerr\n");
        let start = std::time::Instant::now();
        let err = run_streaming(
            Path::new("sh"),
            "sh",
            &["-c", "echo started; exec sleep 30"],
            scratch.path(),
            "a long script",
            Streaming {
                env: &[],
                timeout: std::time::Duration::from_millis(300),
                on_line: &mut |_| {},
            },
        )
        .unwrap_err();
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        assert!(matches!(err, ToolError::TimedOut { .. }), "{err}");
        assert!(err.to_string().contains("started"), "{err}");
    }

    #[test]
    fn a_tool_that_keeps_printing_is_stopped_at_its_bound_too() {
        let scratch = Scratch::new("runner-test").unwrap();
        let start = std::time::Instant::now();
        let mut lines = 0;
        let err = run_streaming(
            Path::new("sh"),
            "sh",
            &["-c", "while :; do echo cycle; sleep 0.01; done"],
            scratch.path(),
            "a chatty script",
            Streaming {
                env: &[],
                timeout: std::time::Duration::from_millis(500),
                on_line: &mut |_| lines += 1,
            },
        )
        .unwrap_err();
        assert!(matches!(err, ToolError::TimedOut { .. }), "{err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        assert!(lines > 5, "{lines}");
    }

    #[test]
    fn a_tool_stopped_by_a_signal_is_said_to_be_so_not_short_of_memory() {
        let bounds = Bounds::from_env();
        let dir = std::env::temp_dir();
        for (signal, name) in [
            ("TERM", "SIGTERM (15)"),
            ("INT", "SIGINT (2)"),
            ("KILL", "SIGKILL (9)"),
        ] {
            // A bounded tool (its name is `yosys`) that dies of a signal.
            let script = format!("kill -{signal} $$");
            let (status, log) = run_bounded(
                Path::new("sh"),
                "yosys",
                &["-c", &script],
                &dir,
                &[],
                &bounds,
                &mut |_| {},
            )
            .unwrap_or_else(|_| panic!("{}", missing_tool("yosys")));
            let log = bounds.explain("yosys", status, log);
            assert!(
                log.contains(&format!("yosys was stopped by {name}")),
                "{log}"
            );
            assert!(!log.contains("memory bound"), "{log}");
        }
        // A failed allocation's abort is still the memory bound.
        let (status, log) = run_bounded(
            Path::new("sh"),
            "yosys",
            &["-c", "kill -ABRT $$"],
            &dir,
            &[],
            &bounds,
            &mut |_| {},
        )
        .unwrap_or_else(|_| panic!("{}", missing_tool("yosys")));
        assert!(bounds
            .explain("yosys", status, log)
            .contains("memory bound"));
    }

    #[test]
    fn tails() {
        assert_eq!(tail("a\nb\nc", 2), "b\nc");
        assert_eq!(tail("a", 5), "a");
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;

    /// A run past its time bound is stopped, and the error names the
    /// bound; a bounded tool short of memory is told so.
    #[test]
    fn runs_are_bounded_in_time_and_memory() {
        let dir = std::env::temp_dir();
        let quick = Bounds {
            timeout: std::time::Duration::from_millis(300),
            memory_mib: 16 << 10,
        };
        let started = std::time::Instant::now();
        let stopped = run_bounded(
            Path::new("sleep"),
            "sleep",
            &["30"],
            &dir,
            &[],
            &quick,
            &mut |_| {},
        );
        assert!(matches!(stopped, Err(RunFailure::TimedOut(_))));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        let error = stopped
            .err()
            .unwrap()
            .bound("sleep", "its run", &quick)
            .to_string();
        assert!(
            error.contains("within 0 s") && error.contains(TIMEOUT_VARIABLE),
            "{error}"
        );
        let small = Bounds {
            timeout: std::time::Duration::from_secs(60),
            memory_mib: 8,
        };
        let (status, log) = run_bounded(
            Path::new("yosys"),
            "yosys",
            &["-p", "help"],
            &dir,
            &[],
            &small,
            &mut |_| {},
        )
        .unwrap_or_else(|_| panic!("{}", missing_tool("yosys")));
        assert!(!status.success());
        let log = small.explain("yosys", status, log);
        assert!(
            log.contains("memory bound of 8 MiB") && log.contains(MEMORY_VARIABLE),
            "{log}"
        );
    }
}
