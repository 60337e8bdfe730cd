//! A FlexGripPlus checkout: where its RTL is and the order its VHDL is
//! analysed in, read from the checkout's own compile script
//! (`lib_m/gpgpu_compile.tcl`, ModelSim's), so a user's tree is taken as
//! it is.

use std::path::{Path, PathBuf};

use crate::CosimError;

/// The environment variable naming a FlexGripPlus checkout when
/// `--flexgripplus` is not given.
pub const ENV: &str = "FLEXGRIPPLUS";

/// The folder FlexGripPlus' repository keeps version 4.4 in.
pub const VERSION_FOLDER: &str = "FlexGripPlus_4.4";

/// The compile script, below the checkout.
const COMPILE_SCRIPT: &str = "lib_m/gpgpu_compile.tcl";

/// The script's name for the RTL folder.
const ROOT_VARIABLE: &str = "$GPGPU_GENERIC_ROOT/";

/// The testbench's launch constants, which FlexGripPlus' package also
/// reads (the number of cores): the one testbench file analysed.
pub const PICK_BENCH: &str = "TB/configuration/pick_bench.vhd";

/// Largest compile script or VHDL file read.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// A FlexGripPlus 4.4 checkout.
#[derive(Clone, Debug)]
pub struct Tree {
    /// The `FlexGripPlus_4.4` folder (holding `RTL/` and `lib_m/`).
    pub root: PathBuf,
    /// Its VHDL files below `RTL/`, in the compile script's order, without
    /// the testbench (flexpmu brings its own) but for `pick_bench.vhd`.
    pub files: Vec<String>,
}

impl Tree {
    /// The checkout at `dir`: the `FlexGripPlus_4.4` folder itself, or a
    /// folder holding it (the repository's root).
    pub fn locate(dir: &Path) -> Result<Tree, CosimError> {
        let root = [dir.to_path_buf(), dir.join(VERSION_FOLDER)]
            .into_iter()
            .find(|d| d.join(COMPILE_SCRIPT).is_file() && d.join("RTL").is_dir())
            .ok_or_else(|| {
                CosimError::Tree(format!(
                    "{}: not a FlexGripPlus 4.4 checkout: expected RTL/ and {COMPILE_SCRIPT} in it or in {}/ below it",
                    dir.display(),
                    VERSION_FOLDER
                ))
            })?;
        let script_path = root.join(COMPILE_SCRIPT);
        let script = read_bounded(&script_path)?;
        let files = compile_order(&script, &script_path.display().to_string())?;
        for file in &files {
            if !root.join("RTL").join(file).is_file() {
                return Err(CosimError::Tree(format!(
                    "{}: lists {file}, which is not in {}",
                    script_path.display(),
                    root.join("RTL").display()
                )));
            }
        }
        Ok(Tree { root, files })
    }

    /// The checkout `explicit` names, or else the one `FLEXGRIPPLUS`
    /// names; an error saying how to give one when neither does.
    pub fn from_option_or_env(explicit: Option<&Path>) -> Result<Tree, CosimError> {
        match explicit {
            Some(dir) => Tree::locate(dir),
            None => match std::env::var_os(ENV) {
                Some(dir) if !dir.is_empty() => Tree::locate(Path::new(&dir)),
                _ => Err(CosimError::Tree(format!(
                    "no FlexGripPlus checkout: give --flexgripplus DIR or set {ENV}=DIR \
                     (DIR: a clone of https://github.com/Jerc007/Open-GPGPU-FlexGrip- or its {VERSION_FOLDER} folder)"
                ))),
            },
        }
    }

    /// The RTL folder.
    pub fn rtl(&self) -> PathBuf {
        self.root.join("RTL")
    }

    /// The text of `file` (below `RTL/`).
    pub fn read(&self, file: &str) -> Result<String, CosimError> {
        read_bounded(&self.rtl().join(file))
    }
}

/// A FlexGripPlus source file's text ([`read_latin1`] within
/// [`MAX_FILE_BYTES`]).
fn read_bounded(path: &Path) -> Result<String, CosimError> {
    read_latin1(path, MAX_FILE_BYTES, "a FlexGripPlus source file")
}

/// A file of FlexGripPlus' (its VHDL, its applications' files) as text:
/// a regular file, its size checked against `limit` before anything is
/// allocated (`what` it is taken to be names it in the refusal); bytes
/// that are not UTF-8 (Latin-1 in FlexGripPlus' comments) are kept as
/// Latin-1.
pub(crate) fn read_latin1(path: &Path, limit: u64, what: &str) -> Result<String, CosimError> {
    use std::io::Read;
    let io = |e| CosimError::io(path, e);
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(CosimError::Tree(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    let too_large = |size: u64| {
        CosimError::Tree(format!(
            "{}: {size} bytes, more than the {} MiB {what} is taken to be",
            path.display(),
            limit >> 20
        ))
    };
    if metadata.len() > limit {
        return Err(too_large(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    })
}

/// The VHDL files the compile script analyses, below `RTL/`, in its order;
/// the testbench's files left out but for `pick_bench.vhd`.
fn compile_order(script: &str, name: &str) -> Result<Vec<String>, CosimError> {
    let mut files = Vec::new();
    for line in script.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let Some(start) = line.find(ROOT_VARIABLE) else {
            continue;
        };
        let rest = &line[start + ROOT_VARIABLE.len()..];
        let file = rest.split(['"', ' ', '\\']).next().unwrap_or_default();
        if !file.to_ascii_lowercase().ends_with(".vhd") {
            continue;
        }
        if file.starts_with("TB/") && file != PICK_BENCH {
            continue;
        }
        if file.contains("..") || file.starts_with('/') {
            return Err(CosimError::Tree(format!(
                "{name}: lists `{file}`, outside the RTL folder"
            )));
        }
        files.push(file.to_string());
    }
    if !files
        .iter()
        .any(|f| f == "SMP/streaming_multiprocessor.vhd")
    {
        return Err(CosimError::Tree(format!(
            "{name}: lists no SMP/streaming_multiprocessor.vhd: not FlexGripPlus' compile script"
        )));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compile_order_keeps_the_rtl_and_pick_bench() {
        let script = r##"set gpgpu_vhdls [list \
	"# TB - configuration" \
	"$GPGPU_GENERIC_ROOT/TB/configuration/pick_bench.vhd" \
	"$GPGPU_GENERIC_ROOT/gpgpu_package.vhd" \
	"$GPGPU_GENERIC_ROOT/SMP/streaming_multiprocessor.vhd"\
	"$GPGPU_GENERIC_ROOT/TB/tb_top_level.vhd" \
]"##;
        assert_eq!(
            compile_order(script, "s").unwrap(),
            [
                "TB/configuration/pick_bench.vhd",
                "gpgpu_package.vhd",
                "SMP/streaming_multiprocessor.vhd"
            ]
        );
        let outside = "\"$GPGPU_GENERIC_ROOT/../x.vhd\"\n\"$GPGPU_GENERIC_ROOT/SMP/streaming_multiprocessor.vhd\"";
        assert!(compile_order(outside, "s")
            .unwrap_err()
            .to_string()
            .contains("outside the RTL folder"));
        assert!(compile_order("nothing", "s").is_err());
    }
}
