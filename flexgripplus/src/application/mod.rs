//! FlexGripPlus' applications as its testbench runs them: an
//! application's folder (`applications/<name>/` in FlexGripPlus'
//! repository) holds its instruction ROM (`TP_instructions.vhd`), its
//! launch (`pick_bench.vhd`, in some a `TP_configuration.vhd` of its
//! own; otherwise the testbench's `TB/TP/TP_configuration.vhd` reads
//! the launch's constants), its global-memory image (`global_mem.mif`)
//! and, in most, a read-back of the memory at the end (a result file).
//!
//! [`Application::read`] takes them as `tb_top_level.vhd` does: the
//! configuration entity's constants (`kernel_block_x`, …) resolved
//! through the package's (`BENCH_K_BLKX`, …), the first
//! `kernel_param_size` kernel registers as the parameters, the first
//! `cmem_param_size` constant-memory registers written into constant
//! memory, `READ_DATA_SIZE + 1` words read back from address 0.
//! [`run`] runs one on the imported RTL and under GHDL and compares.

pub mod activity;
pub mod constants;
pub mod error;
pub mod iss;
pub mod memory_image;
pub mod result_log;
pub mod run;

use std::path::{Path, PathBuf};

use flexpmu_isa::tp_rom::parse_tp_vhdl;

use crate::tree::Tree;

use constants::{Constants, Value};
use error::read_text;
pub use error::AppError;
pub use memory_image::MemoryImage;
pub use result_log::{ResultLog, WordsCompared};

/// The files one application runs from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AppFiles {
    pub rom: PathBuf,
    pub pick_bench: PathBuf,
    /// Its own configuration entity (None: the testbench's).
    pub configuration: Option<PathBuf>,
    /// None: global memory starts all 0.
    pub image: Option<PathBuf>,
    /// The read-back it ships, if any.
    pub result: Option<PathBuf>,
}

/// The launch file's name.
pub const PICK_BENCH: &str = "pick_bench.vhd";
const ROM: &str = "TP_instructions.vhd";
const CONFIGURATION: &str = "TP_configuration.vhd";
const IMAGE: &str = "global_mem.mif";
/// Result files, the expected result before a run's log.
const RESULTS: [&str; 4] = [
    "Golden_memory_result.log",
    "golden_mem_output.log",
    "gpgpu_rdata_golden.log",
    "gpgpu_rdata.log",
];

impl AppFiles {
    /// The files of the application in `folder`. A folder with its own
    /// ROM has all its files in it; one with only a launch (edge
    /// detection's `32th/`, `64th/`) takes the rest from its parent
    /// folder or, where the parent has none, from the one of the
    /// parent's other folders that has it.
    pub fn in_folder(folder: &Path) -> Result<AppFiles, AppError> {
        let pick_bench = folder.join(PICK_BENCH);
        if !pick_bench.is_file() {
            return Err(AppError::Missing(format!(
                "{}: no {PICK_BENCH}: not an application's folder (FlexGripPlus' applications/ has one per launch)",
                folder.display()
            )));
        }
        let own_rom = folder.join(ROM).is_file();
        let find = |name: &str| -> Result<Option<PathBuf>, AppError> {
            let here = folder.join(name);
            if here.is_file() || own_rom {
                return Ok(here.is_file().then_some(here));
            }
            let Some(parent) = folder.parent() else {
                return Ok(None);
            };
            if parent.join(name).is_file() {
                return Ok(Some(parent.join(name)));
            }
            let mut found: Vec<PathBuf> = subfolders(parent)?
                .into_iter()
                .filter(|d| d != folder)
                .map(|d| d.join(name))
                .filter(|f| f.is_file())
                .collect();
            match found.len() {
                0 | 1 => Ok(found.pop()),
                _ => Err(AppError::Missing(format!(
                    "{}: no {name} in it or in {}, and {} of the folders beside it have one ({}): give the file",
                    folder.display(),
                    parent.display(),
                    found.len(),
                    found.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
                ))),
            }
        };
        let rom = find(ROM)?.ok_or_else(|| {
            AppError::Missing(format!(
                "{}: no {ROM} in it, in its parent or beside it",
                folder.display()
            ))
        })?;
        let mut result = None;
        for name in RESULTS {
            if let Some(file) = find(name)? {
                result = Some(file);
                break;
            }
        }
        Ok(AppFiles {
            rom,
            pick_bench,
            configuration: find(CONFIGURATION)?,
            image: find(IMAGE)?,
            result,
        })
    }
}

/// The testbench's configuration entity, below the checkout's `RTL/`: it
/// reads the launch of an application without one of its own.
pub const TESTBENCH_CONFIGURATION: &str = "TB/TP/TP_configuration.vhd";

/// The testbench's configuration entity of `tree`.
pub fn testbench_configuration(tree: &Tree) -> PathBuf {
    tree.rtl().join(TESTBENCH_CONFIGURATION)
}

/// The applications of `tree`'s repository: `applications/` beside its
/// `FlexGripPlus_4.4`, where FlexGripPlus' repository keeps them.
pub fn applications_of(tree: &Tree) -> Result<PathBuf, AppError> {
    tree.root
        .parent()
        .map(|p| p.join("applications"))
        .filter(|d| d.is_dir())
        .ok_or_else(|| {
            AppError::Missing(format!(
                "{}: no applications/ beside it (FlexGripPlus' repository has them there): give the applications' folders",
                tree.root.display()
            ))
        })
}

/// The folders below `root` (to `depth` levels) that hold a launch, in
/// order.
pub fn folders(root: &Path, depth: usize) -> Result<Vec<PathBuf>, AppError> {
    let mut found = Vec::new();
    let mut level = vec![root.to_path_buf()];
    for _ in 0..=depth {
        let mut next = Vec::new();
        for dir in level {
            if dir.join(PICK_BENCH).is_file() {
                found.push(dir.clone());
            }
            next.extend(subfolders(&dir)?);
        }
        level = next;
    }
    found.sort();
    Ok(found)
}

fn subfolders(dir: &Path) -> Result<Vec<PathBuf>, AppError> {
    let io = |source| AppError::Run(crate::CosimError::io(dir, source));
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// A launch as FlexGripPlus' testbench makes it from an application's
/// files.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AppLaunch {
    /// `BENCH_CORES`: the SM's cores the package is built with.
    pub cores: u64,
    pub warp_lanes: u64,
    pub block: [u16; 3],
    pub grid: [u16; 2],
    pub blocks_per_core: u32,
    /// Registers per thread.
    pub registers: u32,
    pub shared_bytes: u32,
    pub params: Vec<u32>,
    /// The constant-memory bytes the testbench writes from address 0.
    pub constant: Vec<u8>,
    #[serde(skip)]
    pub program: Vec<u32>,
    #[serde(skip)]
    pub image: MemoryImage,
    /// Words the testbench reads back from address 0.
    pub read_words: u32,
    /// Constants the configuration names that the package does not
    /// declare, each read as 0, where they reach the launch (a package
    /// older than the testbench's configuration).
    pub assumed_zero: Vec<String>,
}

/// An application: its files and its launch.
#[derive(Clone, Debug)]
pub struct Application {
    pub files: AppFiles,
    pub launch: AppLaunch,
}

impl Application {
    /// The application in `folder` ([`AppFiles::in_folder`]);
    /// `testbench_configuration`: the testbench's `TP_configuration.vhd`,
    /// for an application without its own.
    pub fn open(
        folder: &Path,
        testbench_configuration: Option<&Path>,
    ) -> Result<Application, AppError> {
        Application::read(AppFiles::in_folder(folder)?, testbench_configuration)
    }

    /// The application of `files`.
    pub fn read(
        files: AppFiles,
        testbench_configuration: Option<&Path>,
    ) -> Result<Application, AppError> {
        let configuration = files
            .configuration
            .as_deref()
            .or(testbench_configuration)
            .ok_or_else(|| {
                AppError::Missing(format!(
                    "{}: the application has no {CONFIGURATION} of its own: give FlexGripPlus' checkout (--flexgripplus), whose testbench's TB/TP/{CONFIGURATION} reads its launch, or --configuration FILE",
                    files.pick_bench.display()
                ))
            })?;
        let scope = Scope {
            configuration: Constants::read(
                &read_text(configuration)?,
                &configuration.display().to_string(),
            )?,
            package: Constants::read(
                &read_text(&files.pick_bench)?,
                &files.pick_bench.display().to_string(),
            )?,
        };
        let rom_name = files.rom.display().to_string();
        let program = parse_tp_vhdl(&read_text(&files.rom)?, &rom_name)?
            .iter()
            .map(|w| w.value)
            .collect();
        let image = match &files.image {
            Some(path) => MemoryImage::read(path)?,
            None => MemoryImage::zero(),
        };
        let launch = scope.launch(program, image)?;
        Ok(Application { files, launch })
    }
}

/// The constants a launch is read from: the configuration entity's,
/// then the package's.
struct Scope {
    configuration: Constants,
    package: Constants,
}

impl Scope {
    /// `name`'s constant and the file declaring it.
    fn find(&self, name: &str) -> Option<(&constants::Constant, &str)> {
        [&self.configuration, &self.package]
            .into_iter()
            .find_map(|c| c.get(name).map(|k| (k, c.file.as_str())))
    }

    /// `value` (written in `file`) with names followed (at most 16 deep).
    fn resolve<'a>(
        &'a self,
        mut value: &'a Value,
        mut file: &'a str,
        assumed_zero: &mut Vec<String>,
    ) -> Result<(Value, String), AppError> {
        for _ in 0..16 {
            let Value::Name { name, line } = value else {
                return Ok((value.clone(), file.to_string()));
            };
            match self.find(name) {
                Some((constant, declared_in)) => {
                    value = &constant.value;
                    file = declared_in;
                }
                None if name.starts_with("bench_") => {
                    let name = name.to_ascii_uppercase();
                    if !assumed_zero.contains(&name) {
                        assumed_zero.push(name);
                    }
                    return Ok((Value::Int(0), file.to_string()));
                }
                None => {
                    return Err(AppError::at(
                        file,
                        *line,
                        format!(
                            "{name} is declared neither here nor in {}",
                            self.package.file
                        ),
                    ))
                }
            }
        }
        Err(AppError::Missing(format!(
            "{file}: constants naming each other more than 16 deep"
        )))
    }

    /// The configuration's constant `name` as a number of at most `bits`.
    fn number(&self, name: &str, bits: u32, zero: &mut Vec<String>) -> Result<u64, AppError> {
        let (constant, file) = self.find(name).ok_or_else(|| {
            AppError::Missing(format!(
                "{}: declares no constant {name}: not FlexGripPlus' configuration entity",
                self.configuration.file
            ))
        })?;
        let (value, file) = self.resolve(&constant.value, file, zero)?;
        scalar(&value, bits).ok_or_else(|| {
            AppError::at(
                &file,
                constant.line,
                format!("{name}: expected a number of at most {bits} bits, found {value:?}"),
            )
        })
    }

    /// The configuration's register array `name` (an aggregate of
    /// `count` elements of `bits`, written highest index first), its
    /// first `used` elements.
    fn registers(
        &self,
        name: &str,
        count: usize,
        bits: u32,
        used: usize,
        zero: &mut Vec<String>,
    ) -> Result<Vec<u64>, AppError> {
        let (constant, file) = self.find(name).ok_or_else(|| {
            AppError::Missing(format!(
                "{}: declares no constant {name}: not FlexGripPlus' configuration entity",
                self.configuration.file
            ))
        })?;
        let Value::Aggregate(elements) = &constant.value else {
            return Err(AppError::at(
                file,
                constant.line,
                format!("{name}: expected an aggregate of {count} elements"),
            ));
        };
        if elements.len() != count {
            return Err(AppError::at(
                file,
                constant.line,
                format!("{name}: {} elements, its type has {count}", elements.len()),
            ));
        }
        let mut values = Vec::with_capacity(used);
        for element in elements.iter().rev().take(used) {
            let (value, at) = self.resolve(element, file, zero)?;
            values.push(scalar(&value, bits).ok_or_else(|| {
                AppError::at(
                    &at,
                    constant.line,
                    format!("{name}: an element is {value:?}, expected {bits} bits"),
                )
            })?);
        }
        Ok(values)
    }

    fn launch(&self, program: Vec<u32>, image: MemoryImage) -> Result<AppLaunch, AppError> {
        let zero = &mut Vec::new();
        let package_int = |name: &str| -> Result<u64, AppError> {
            let constant = self.package.get(name).ok_or_else(|| {
                AppError::Missing(format!("{}: declares no {name}", self.package.file))
            })?;
            scalar(&constant.value, 32).ok_or_else(|| {
                AppError::at(
                    &self.package.file,
                    constant.line,
                    format!("{name}: expected a number"),
                )
            })
        };
        let cores = package_int("bench_cores")?;
        let warp_lanes = package_int("bench_warp_lanes")?;
        let read_size = package_int("read_data_size")?;
        let block = [
            self.number("kernel_block_x", 16, zero)? as u16,
            self.number("kernel_block_y", 16, zero)? as u16,
            self.number("kernel_block_z", 16, zero)? as u16,
        ];
        let grid = [
            self.number("kernel_grid_x", 16, zero)? as u16,
            self.number("kernel_grid_y", 16, zero)? as u16,
        ];
        let param_words = self.number("kernel_param_size", 4, zero)? as usize;
        let constant_bytes = self.number("cmem_param_size", 6, zero)? as usize;
        let params = self.registers("kernel_regs_default", 16, 32, param_words, zero)?;
        let constant = self.registers("cmem_regs_default", 64, 8, constant_bytes, zero)?;
        let launch = AppLaunch {
            cores,
            warp_lanes,
            block,
            grid,
            blocks_per_core: self.number("blocks_per_core", 4, zero)? as u32,
            registers: self.number("kernel_gprs", 9, zero)? as u32,
            shared_bytes: self.number("kernel_shmem_size", 32, zero)? as u32,
            params: params.into_iter().map(|p| p as u32).collect(),
            constant: constant.into_iter().map(|b| b as u8).collect(),
            program,
            image,
            read_words: read_size as u32 + 1,
            assumed_zero: zero.clone(),
        };
        Ok(launch)
    }
}

/// `value` as a number of at most `bits` bits.
fn scalar(value: &Value, bits: u32) -> Option<u64> {
    let number = match *value {
        Value::Bits { value, .. } | Value::Int(value) => value,
        _ => return None,
    };
    (bits >= 64 || number >> bits == 0).then_some(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_only_folder_takes_the_rest_from_beside_it_or_says_which() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let touch = |path: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        };
        touch("app/32th/pick_bench.vhd");
        touch("app/global_mem.mif");
        touch("app/vhdl/TP_instructions.vhd");
        let files = AppFiles::in_folder(&root.join("app/32th")).unwrap();
        assert_eq!(files.rom, root.join("app/vhdl/TP_instructions.vhd"));
        assert_eq!(files.image, Some(root.join("app/global_mem.mif")));
        assert_eq!((files.configuration, files.result), (None, None));
        // Two folders beside it with a ROM: which one is the user's to say.
        touch("app/other/TP_instructions.vhd");
        let e = AppFiles::in_folder(&root.join("app/32th"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 of the folders beside it have one"), "{e}");
        // A folder with its own ROM takes nothing from elsewhere.
        touch("app/own/pick_bench.vhd");
        touch("app/own/TP_instructions.vhd");
        let own = AppFiles::in_folder(&root.join("app/own")).unwrap();
        assert_eq!((own.image, own.result), (None, None));
        // Not an application's folder.
        let e = AppFiles::in_folder(root).unwrap_err().to_string();
        assert!(e.contains("no pick_bench.vhd"), "{e}");
        assert_eq!(
            folders(root, 3).unwrap(),
            [root.join("app/32th"), root.join("app/own")]
        );
    }
}
