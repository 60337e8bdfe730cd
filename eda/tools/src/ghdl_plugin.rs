//! Yosys reading VHDL through the ghdl-yosys-plugin: the plugin found (a
//! built `ghdl.so`, or its source built once against the installed Yosys
//! and libghdl and kept in the cache folder) and a Yosys script run with
//! it on a library GHDL analysed.
//!
//! Debian packages no build of the plugin; its source is
//! <https://github.com/ghdl/ghdl-yosys-plugin> (GPL-3.0; for GHDL 2.0 the
//! commit before GHDL 2.0.0 with upstream's block-RAM fix). Building it
//! needs `yosys-dev` and `libghdl-dev`.

use std::path::{Path, PathBuf};

use crate::manifest::digest;
use crate::runner::{run, run_streaming, Scratch, Streaming, ToolError};

/// The environment variable naming the plugin (its source folder or a
/// built `ghdl.so`) where no option does.
pub const ENV: &str = "GHDL_YOSYS_PLUGIN";

/// The plugin's source file inside its source folder.
const SOURCE: &str = "src/ghdl.cc";

/// Largest plugin source read.
const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// The plugin as a user names it: `explicit` (an option), else [`ENV`];
/// an error saying how to give it when neither does, or when it names
/// neither a file nor a folder with the plugin's source.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, ToolError> {
    let given = explicit.map(Path::to_path_buf).or_else(|| {
        std::env::var_os(ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let given = given.ok_or_else(|| {
        ToolError::Missing(format!(
            "Yosys reads VHDL through the ghdl-yosys-plugin, which Debian does not package: give \
             --ghdl-plugin PATH or set {ENV}=PATH (PATH: a built ghdl.so, or the plugin's \
             source folder, https://github.com/ghdl/ghdl-yosys-plugin, which flexpmu builds \
             once with `apt-get install -y yosys-dev libghdl-dev`)"
        ))
    })?;
    if given.is_file() || given.join(SOURCE).is_file() {
        Ok(given)
    } else {
        Err(ToolError::Missing(format!(
            "{}: neither a built ghdl.so nor the ghdl-yosys-plugin's source folder (no {SOURCE} in it)",
            given.display()
        )))
    }
}

/// The built plugin of `given` ([`locate`]): `given` itself if it is a
/// shared object, else its source built into a folder of `cache` named by
/// the digest of the source and of the installed Yosys and libghdl
/// (built once; `on_step` hears when it is).
pub fn built(
    given: &Path,
    cache: &Path,
    on_step: &mut dyn FnMut(&str),
) -> Result<PathBuf, ToolError> {
    if given.is_file() {
        return Ok(given.to_path_buf());
    }
    let source = given.join(SOURCE);
    let size = std::fs::metadata(&source)
        .map_err(|_| {
            ToolError::Missing(format!(
                "{}: neither a built ghdl.so nor the ghdl-yosys-plugin's source folder (no {SOURCE} in it)",
                given.display()
            ))
        })?
        .len();
    if size > MAX_SOURCE_BYTES {
        return Err(ToolError::Missing(format!(
            "{}: {size} bytes, more than the {} MiB the plugin's source is taken to be",
            source.display(),
            MAX_SOURCE_BYTES >> 20
        )));
    }
    let text = std::fs::read(&source).map_err(|e| ToolError::io(&source, e))?;
    let yosys = run(
        "yosys-config",
        &["--version"],
        Path::new("."),
        "its version",
    )?;
    let mut identity = text.clone();
    identity.extend_from_slice(yosys.as_bytes());
    identity.extend_from_slice(libghdl_identity().as_bytes());
    let dir = cache.join(format!("ghdl-yosys-plugin-{:016x}", digest(&identity)));
    let plugin = dir.join("ghdl.so");
    if plugin.is_file() {
        return Ok(plugin);
    }
    on_step("building the ghdl-yosys-plugin (once)");
    if cache.exists() && !cache.is_dir() {
        return Err(ToolError::io(
            cache,
            std::io::Error::other(
                "not a folder (the cache is a folder flexpmu keeps the built plugin in)",
            ),
        ));
    }
    std::fs::create_dir_all(cache).map_err(|e| ToolError::io(cache, e))?;
    let scratch = Scratch::new("ghdl-yosys-plugin")?;
    let copy = scratch.join("ghdl.cc");
    std::fs::write(&copy, &text).map_err(|e| ToolError::io(&copy, e))?;
    let what = format!("the ghdl-yosys-plugin's source {}", source.display());
    run(
        "yosys-config",
        &[
            "--exec",
            "--cxx",
            "-c",
            "--cxxflags",
            "-o",
            "ghdl.o",
            "ghdl.cc",
            "-fPIC",
            "-DYOSYS_ENABLE_GHDL",
            "-O",
        ],
        scratch.path(),
        &what,
    )
    .map_err(|e| explain_build(e, &source))?;
    run(
        "yosys-config",
        &["--build", "ghdl.so", "ghdl.o", "-shared", "-lghdl"],
        scratch.path(),
        &what,
    )
    .map_err(|e| explain_build(e, &source))?;
    // Another process may have built the same plugin first: either is
    // as good.
    let building = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(cache)
        .map_err(|e| ToolError::io(cache, e))?;
    let built = scratch.join("ghdl.so");
    std::fs::copy(&built, building.path().join("ghdl.so")).map_err(|e| ToolError::io(&built, e))?;
    let kept = building.keep();
    if std::fs::rename(&kept, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&kept);
    }
    if plugin.is_file() {
        Ok(plugin)
    } else {
        Err(ToolError::io(
            &plugin,
            std::io::Error::other("the built plugin could not be put there"),
        ))
    }
}

/// GHDL's synthesis header, which `libghdl-dev` installs.
const GHDL_HEADER: &str = "/usr/include/ghdl/synth.h";

/// A failed build of the plugin's `source` with its real cause: the
/// packages it needs when they are missing, else the compiler's errors
/// (the source does not fit the installed GHDL), with the commit that
/// builds against Debian's GHDL 2.0.
fn explain_build(error: ToolError, source: &Path) -> ToolError {
    let ToolError::Failed { tool, what, log } = error else {
        return error;
    };
    let cause = if !Path::new(GHDL_HEADER).is_file() {
        format!("{GHDL_HEADER} is missing: install the packages it builds with, `apt-get install -y yosys-dev libghdl-dev`")
    } else {
        let ghdl = run("ghdl", &["--version"], Path::new("."), "its version")
            .ok()
            .and_then(|v| v.lines().next().map(str::to_string))
            .unwrap_or_else(|| "the installed GHDL".into());
        format!(
            "{} does not compile against {ghdl} (yosys-dev and libghdl-dev are installed; the compiler's errors are below).              The plugin's newer commits need a newer GHDL than Debian's 2.0: build commit c9b05e4 (January 2022, the last before GHDL 2.0.0)              with the one-line block-RAM fix of commit 7aed75b in src/ghdl.cc",
            source.display()
        )
    };
    ToolError::Failed {
        tool,
        what: format!("{what}: {cause}"),
        log,
    }
}

/// What the built plugin depends on besides its source: the installed
/// libghdl (found where Debian's `libghdl-dev` puts it).
fn libghdl_identity() -> String {
    let candidates = [
        "/usr/lib/x86_64-linux-gnu/libghdl.so",
        "/usr/lib/libghdl.so",
    ];
    candidates
        .iter()
        .map(|c| {
            let target = std::fs::canonicalize(c).unwrap_or_else(|_| PathBuf::from(c));
            let len = std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
            format!("{}:{len};", target.display())
        })
        .collect()
}

/// The folder GHDL's standard libraries are under (`ghdl --disp-config`'s
/// library prefix): libghdl, loaded by the plugin, must be told it
/// (`GHDL_PREFIX`) when it was built for another back end than `ghdl`.
pub fn library_prefix() -> Result<String, ToolError> {
    let log = run(
        "ghdl",
        &["--disp-config"],
        Path::new("."),
        "its configuration",
    )?;
    log.lines()
        .find_map(|l| l.trim().strip_prefix("library prefix:"))
        .map(|p| p.trim().to_string())
        .ok_or_else(|| ToolError::Failed {
            tool: "ghdl".into(),
            what: "`--disp-config` (no library prefix in it)".into(),
            log: crate::runner::tail(&log, 20),
        })
}

/// Runs Yosys in `dir` with `plugin` loaded and `script` (its `ghdl`
/// command reads the libraries GHDL analysed there), bounded as every
/// tool run is ([`Bounds::from_env`](crate::runner::Bounds::from_env));
/// returns the log.
pub fn run_yosys(plugin: &Path, dir: &Path, script: &str, what: &str) -> Result<String, ToolError> {
    let prefix = library_prefix()?;
    let plugin = crate::runner::absolute(plugin)?;
    let plugin = plugin.to_string_lossy();
    run_streaming(
        Path::new("yosys"),
        "yosys",
        &["-q", "-m", &plugin, "-p", script],
        dir,
        what,
        Streaming {
            env: &[("GHDL_PREFIX", &prefix)],
            timeout: crate::runner::Bounds::from_env().timeout,
            on_line: &mut |_| {},
        },
    )
}
