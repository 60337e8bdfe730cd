//! The command line's output: standard output that ends quietly when its
//! reader goes away (`| head`), errors printed without a backtrace, and
//! output files checked before any work and written whole or not at all
//! (`flexpmu_tools::files`).

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;
use flexpmu_tools::files::{self, AtomicFile};

/// The reader of standard output went away (a closed pipe): the command
/// stops quietly.
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed")]
pub struct StdoutClosed;

/// Writes to standard output; a closed pipe becomes [`StdoutClosed`],
/// any other failure (a full disk) an error that says so.
pub fn write_stdout(args: fmt::Arguments) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

fn stdout_error(error: io::Error) -> anyhow::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        StdoutClosed.into()
    } else {
        anyhow::anyhow!("cannot write to standard output: {error}")
    }
}

/// `println!` through [`write_stdout`]; returns the error from the
/// enclosing function.
macro_rules! outln {
    () => {
        $crate::output::write_stdout(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` through [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!($($arg)*))?
    };
}

/// Prints an error and its causes on one line each, without a backtrace.
/// A cause whose text its parent's message already quotes is not repeated.
pub fn report_error(error: &anyhow::Error) {
    eprintln!("error: {error}");
    let mut previous = error.to_string();
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !previous.contains(&text) {
            eprintln!("  caused by: {text}");
        }
        previous = text;
    }
}

/// How files flexpmu wrote begin, by kind; a file that begins otherwise is
/// replaced only with `--force`. (Exports are recognised by their
/// folder's manifest instead: `flexpmu_tools::manifest`.)
pub mod markers {
    /// A waveform (`flexpmu_sim::waveform::vcd::VCD_HEADER`).
    pub const VCD: &[&str] = &[flexpmu_sim::waveform::vcd::VCD_HEADER];
    /// `synth --report`'s Markdown.
    pub const SYNTH_REPORT: &[&str] = &[flexpmu_eda::synth::report::REPORT_MARKER];
    /// Files never replaced without `--force` (assembled programs,
    /// netlists).
    pub const NONE: &[&str] = &[];
}

/// Checks, before any work, that `path` may be written (see
/// `flexpmu_tools::files::check_target`).
pub fn check_output(path: &Path, force: bool, markers: &[&str]) -> Result<()> {
    Ok(files::check_target(path, force, markers)?)
}

/// Checks, before any work, that files may be written into `dir`: it is
/// a directory or can be made one, and each of `paths` in it may be
/// written (see [`check_output`]).
pub fn check_outputs_in<'a>(
    dir: &Path,
    paths: impl IntoIterator<Item = &'a Path>,
    force: bool,
    markers: &[&str],
) -> Result<()> {
    files::check_directory(dir)?;
    if dir.is_dir() {
        for path in paths {
            check_output(path, force, markers)?;
        }
    }
    Ok(())
}

/// What a path names, for telling whether two paths are one file: the
/// file itself if it exists, else its folder's real path and its name.
fn identity(path: &Path) -> std::path::PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = std::fs::canonicalize(parent)
        .or_else(|_| std::path::absolute(parent))
        .unwrap_or_else(|_| parent.to_path_buf());
    match path.file_name() {
        Some(name) => folder.join(name),
        None => folder,
    }
}

/// Checks, before anything is written, that no two of a command's
/// `outputs` are one file and that none is one of its `inputs`; each is
/// given as (what it is, e.g. `--svg`, path).
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let named: Vec<(&str, &Path, std::path::PathBuf)> = outputs
        .iter()
        .map(|&(what, path)| (what, path, identity(path)))
        .collect();
    // A folder among the inputs, and flexpmu's cache always: nothing in
    // them is an output (a waveform written over a kept netlist would
    // poison every later run).
    let cache = flexpmu_tools::cache::folder();
    let folders = inputs
        .iter()
        .filter(|(_, p)| p.is_dir())
        .copied()
        .chain([("flexpmu's cache", cache.as_path())]);
    for (what, folder) in folders {
        let Ok(folder_id) = std::fs::canonicalize(folder) else {
            continue;
        };
        if let Some((option, path, _)) = named.iter().find(|(_, _, id)| id.starts_with(&folder_id))
        {
            anyhow::bail!(
                "{option} {} is in {what} ({}), which this command reads: write it elsewhere",
                path.display(),
                folder.display()
            );
        }
    }
    for (i, (what, path, id)) in named.iter().enumerate() {
        if let Some((other, other_path, _)) = named[..i].iter().find(|(_, _, o)| o == id) {
            anyhow::bail!(
                "{other} {} and {what} {} are one file: each output needs a file of its own",
                other_path.display(),
                path.display()
            );
        }
        if let Some((input, _)) = inputs.iter().find(|(_, p)| identity(p) == *id) {
            anyhow::bail!(
                "{what} {} is {input}, which this command reads: write it elsewhere",
                path.display()
            );
        }
    }
    Ok(())
}

/// Writes `text` to `path`, whole or not at all.
pub fn write_output(path: &Path, text: &str) -> Result<()> {
    Ok(files::write_atomically(path, text.as_bytes())?)
}

/// A waveform file being written: checked, then streamed to a temporary
/// file beside it, renamed into place by [`Waveform::commit`].
pub struct Waveform {
    file: AtomicFile,
    fst: bool,
    /// Save files beside it may replace ones flexpmu did not write.
    force: bool,
    /// What each PMU channel monitors, for the save files' names.
    channel_labels: Vec<String>,
    /// The window (ns) GTKWave's save file opens on (None: the whole run).
    window: Option<(u64, u64)>,
}

/// Whether `path` is an FST file flexpmu wrote (its header names the
/// writer `flexpmu waveform`), read with a bounded read.
fn is_flexpmu_fst(path: &Path) -> bool {
    use std::io::Read as _;
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(512).read_to_end(&mut head).is_err() {
        return false;
    }
    let marker = flexpmu_sim::waveform::vcd::VCD_MARKER.as_bytes();
    head.first() == Some(&0) && head.windows(marker.len()).any(|w| w == marker)
}

impl Waveform {
    /// Checks `path` and starts a VCD file.
    pub fn create(path: &Path, force: bool) -> Result<Waveform> {
        check_beside(path)?;
        check_output(path, force, markers::VCD)?;
        Ok(Waveform {
            file: AtomicFile::create(path)?,
            fst: false,
            force,
            channel_labels: Vec::new(),
            window: None,
        })
    }

    /// Checks `path` and starts an FST file (an FST file flexpmu wrote
    /// may be replaced; another only with `force`).
    pub fn create_fst(path: &Path, force: bool) -> Result<Waveform> {
        check_beside(path)?;
        check_output(path, force || is_flexpmu_fst(path), markers::NONE)?;
        Ok(Waveform {
            file: AtomicFile::create(path)?,
            fst: true,
            force,
            channel_labels: Vec::new(),
            window: None,
        })
    }

    /// Where the simulation engine writes, in the file's format.
    pub fn output(&self) -> Result<flexpmu_sim::waveform::WaveformOut> {
        use flexpmu_sim::waveform::WaveformOut;
        Ok(if self.fst {
            WaveformOut::Fst(self.file.handle()?)
        } else {
            WaveformOut::Vcd(self.writer()?)
        })
    }

    /// A buffered writer for the simulation engine.
    pub fn writer(&self) -> Result<Box<dyn Write + Send + Sync>> {
        Ok(Box::new(io::BufWriter::with_capacity(
            1 << 16,
            self.file.handle()?,
        )))
    }

    pub fn path(&self) -> &Path {
        self.file.target()
    }

    /// Names the PMU's channels in the save files (channel k monitors
    /// `labels[k]`).
    pub fn set_channel_labels(&mut self, labels: Vec<String>) {
        self.channel_labels = labels;
    }

    /// The save files open on `window` (ns; None: the whole run).
    pub fn with_window(self, window: Option<(u64, u64)>) -> Waveform {
        Waveform { window, ..self }
    }

    /// The waveform is complete: it replaces the target, and save files
    /// that open it ready to read are written beside it
    /// ([`write_save_files`]).
    pub fn commit(self) -> Result<()> {
        let path = self.path().to_path_buf();
        self.file.commit()?;
        write_save_files(&path, &self.channel_labels, self.force, self.window)
    }
}

/// The waveform is not one of the save files written beside it.
fn check_beside(waveform: &Path) -> Result<()> {
    let gtkw = waveform.with_extension("gtkw");
    let sucl = waveform.with_extension("sucl");
    check_distinct(
        &[
            ("the waveform", waveform),
            ("its GTKWave save file", &gtkw),
            ("its Surfer command file", &sucl),
        ],
        &[],
    )
    .map_err(|e| anyhow::anyhow!("{e} (name the waveform .vcd or .fst)"))
}

/// Beside `waveform`: `<name>.gtkw` (GTKWave) and `<name>.sucl` (Surfer's
/// `--command-file`), each written whole; one that flexpmu did not write
/// is left as it is (with a note) unless `force`.
/// GTKWave's opens on `window` (ns) if given, else on the whole run.
pub fn write_save_files(
    waveform: &Path,
    labels: &[String],
    force: bool,
    window: Option<(u64, u64)>,
) -> Result<()> {
    use flexpmu_sim::waveform::save_files::{self, GTKW_MARKER, SUCL_MARKER};
    let signals = save_files::declared_signals(waveform)
        .map_err(|e| anyhow::anyhow!("reading the waveform back for its save files: {e}"))?;
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let groups = save_files::view(&signals, (!labels.is_empty()).then_some(&labels[..]));
    let mut span = save_files::span(waveform, save_files::pmu_command(&groups))
        .map_err(|e| anyhow::anyhow!("reading the waveform back for its save files: {e}"))?;
    if let Some((from, to)) = window {
        let unit = span.ns;
        match from.saturating_mul(unit) < span.end {
            true => {
                span.start = from.saturating_mul(unit);
                if to.saturating_mul(unit) > span.end {
                    eprintln!(
                        "note: --window {from}:{to} ends after the run ({} ns): GTKWave's save file opens on {from} to {} ns",
                        span.end / unit.max(1),
                        span.end / unit.max(1)
                    );
                } else {
                    span.end = to.saturating_mul(unit);
                }
            }
            false => eprintln!(
                "note: --window {from}:{to} starts after the run's end ({} ns): GTKWave's save file opens on the whole run",
                span.end / unit.max(1)
            ),
        }
    }
    let absolute = std::path::absolute(waveform).unwrap_or_else(|_| waveform.to_path_buf());
    for (extension, text, marker) in [
        (
            "gtkw",
            save_files::gtkw(&absolute, &groups, span),
            GTKW_MARKER,
        ),
        (
            "sucl",
            save_files::sucl(waveform, &groups, span),
            SUCL_MARKER,
        ),
    ] {
        let path = waveform.with_extension(extension);
        if let Err(why) = check_output(&path, force, &[marker]) {
            eprintln!("note: {} not written: {why}", path.display());
            continue;
        }
        write_output(&path, &text)?;
    }
    Ok(())
}

/// A table in the style of every table flexpmu prints, with `header`.
pub fn table(header: &[&str]) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(header.to_vec());
    table
}
