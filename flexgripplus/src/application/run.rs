//! An application run as FlexGripPlus' testbench runs it: on its RTL
//! imported into flexpmu (the compiled engine) and on its VHDL under
//! GHDL, with the probe recording every register, flag and
//! global-memory write; the memory read back at the end as the
//! testbench reads it (`READ_DATA_SIZE + 1` words from address 0), and
//! the runs compared with each other and with the result file the
//! application ships.

use flexpmu_ir::Design as IrDesign;
use flexpmu_sim::engine::compiled::CompiledSim;

use super::constants::{Constants, Value};
use super::error::AppError;
use super::result_log::{ReadWord, ResultLog, WordsCompared};
use super::AppLaunch;
use crate::design::Design;
use crate::launch::FgpLaunch;
use crate::simulate::{self, Watch};
use crate::trace::Observed;
use crate::tree::{Tree, PICK_BENCH};
use crate::Runner;

/// The SM's cores the checkout's package is built with (`BENCH_CORES`
/// of its testbench's `pick_bench.vhd`, which `gpgpu_package.vhd`
/// reads): the build flexpmu simulates and imports.
pub fn checkout_cores(tree: &Tree) -> Result<u64, AppError> {
    let file = tree.rtl().join(PICK_BENCH).display().to_string();
    let constants = Constants::read(&tree.read(PICK_BENCH)?, &file)?;
    match constants.get("bench_cores").map(|c| &c.value) {
        Some(Value::Int(cores)) => Ok(*cores),
        _ => Err(AppError::Missing(format!(
            "{file}: declares no integer BENCH_CORES"
        ))),
    }
}

impl AppLaunch {
    /// The launch as flexpmu's testbench and the imported GPGPU take it,
    /// on a build of `cores` cores, stopped after `max_cycles`.
    pub fn fgp(&self, cores: u64, max_cycles: u64) -> Result<FgpLaunch, AppError> {
        if self.cores != cores {
            return Err(AppError::Missing(format!(
                "the application is written for FlexGripPlus built with {} cores (BENCH_CORES in its pick_bench.vhd), the checkout is built with {cores} (its TB/configuration/pick_bench.vhd), which is the build flexpmu simulates and imports: run it on a checkout built for {} cores",
                self.cores, self.cores
            )));
        }
        Ok(FgpLaunch {
            blocks_per_core: self.blocks_per_core,
            registers: self.registers,
            shared_bytes: self.shared_bytes,
            block: self.block,
            grid: self.grid,
            params: self.params.clone(),
            program: self.program.clone(),
            global: self.image.bytes.clone(),
            constant: self.constant.clone(),
            max_cycles,
        }
        .checked()?)
    }
}

/// One run of an application.
#[derive(Clone, Debug)]
pub struct AppRun {
    pub runner: Runner,
    pub observed: Observed,
    /// The memory as the testbench reads it back.
    pub read_back: ResultLog,
}

/// `launch` on FlexGripPlus' GPGPU imported into flexpmu (`imported`),
/// `read_words` read back from its global memory at the end. The probe's
/// global-memory writes over the image are held to the memory itself:
/// the read-back under GHDL is made from them.
pub fn on_imported(
    imported: &IrDesign,
    launch: &FgpLaunch,
    read_words: u32,
    on_cycle: &mut dyn FnMut(u64),
) -> Result<AppRun, AppError> {
    on_imported_watched(imported, launch, read_words, on_cycle, &mut |_, _| {})
}

/// [`on_imported`], with `on_period` called in every period with the
/// engine's values settled in it (to count toggles, record a waveform).
pub fn on_imported_watched(
    imported: &IrDesign,
    launch: &FgpLaunch,
    read_words: u32,
    on_cycle: &mut dyn FnMut(u64),
    on_period: &mut dyn FnMut(i64, &CompiledSim),
) -> Result<AppRun, AppError> {
    let mut gpgpu = crate::rtl::gpgpu(imported)?;
    let probe = crate::rtl::probe::Probe::new(gpgpu.sim())?;
    let observed = crate::rtl::probe::run(&mut gpgpu, probe, launch, on_cycle, on_period)?;
    let memory = gpgpu.sim().memory(gpgpu.global_memory());
    let bytes: Vec<Option<u8>> = memory.iter().map(|&b| Some(b as u8)).collect();
    let read_back = read_back(&bytes, read_words);
    let from_probe = read_back_of(launch, &observed, read_words);
    // The imported memory has no undefined bytes: where the image leaves
    // one, the probe's view reads it undefined and the engine 0.
    let disagree = read_back
        .words
        .iter()
        .zip(&from_probe.words)
        .find(|(memory, probe)| probe.value.is_some() && memory.value != probe.value);
    if let Some((memory, probe)) = disagree {
        return Err(AppError::Missing(format!(
            "the probe missed a global-memory write: at {:#07x} the imported memory holds {:08x?}, the image and the probe's writes {:08x?}",
            memory.address, memory.value, probe.value
        )));
    }
    Ok(AppRun {
        runner: Runner::ImportedRtl,
        observed,
        read_back,
    })
}

/// `launch` on FlexGripPlus' VHDL under GHDL (`design`), the read-back
/// made of the image and the probe's global-memory writes.
pub fn on_ghdl(
    design: &Design,
    launch: &FgpLaunch,
    read_words: u32,
    watch: Watch,
) -> Result<AppRun, AppError> {
    let observed = simulate::simulate(design, launch, watch)?;
    Ok(AppRun {
        runner: Runner::Ghdl,
        read_back: read_back_of(launch, &observed, read_words),
        observed,
    })
}

/// The read-back of a run: the launch's image with the probe's
/// global-memory writes made over it, in order.
pub fn read_back_of(launch: &FgpLaunch, observed: &Observed, read_words: u32) -> ResultLog {
    let mut bytes = launch.global.clone();
    for write in &observed.memory_writes {
        let address = write.address as usize;
        if address >= bytes.len() {
            bytes.resize(address + 1, Some(0));
        }
        bytes[address] = write.value;
    }
    read_back(&bytes, read_words)
}

/// `read_words` little-endian words from address 0 of `bytes` (0 past
/// its end; the address wraps at the memory's size as FlexGripPlus'
/// does).
pub fn read_back(bytes: &[Option<u8>], read_words: u32) -> ResultLog {
    let size = crate::launch::GLOBAL_BYTES;
    let byte = |a: usize| bytes.get(a % size).copied().unwrap_or(Some(0));
    let words = (0..read_words as usize)
        .map(|i| {
            let address = 4 * i;
            let value = (0..4).try_fold(0u32, |word, k| {
                byte(address + k).map(|b| word | u32::from(b) << (8 * k))
            });
            ReadWord {
                address: (address % size) as u32,
                value,
            }
        })
        .collect();
    ResultLog { words }
}

/// Where two runs of one application part, if they do: every probe
/// event, the ending and the read-back.
pub fn runs_differ(a: &AppRun, b: &AppRun) -> Option<String> {
    let (x, y) = (&a.observed, &b.observed);
    fn first<T: PartialEq + std::fmt::Debug>(what: &str, a: &[T], b: &[T]) -> Option<String> {
        if a == b {
            return None;
        }
        let at = a
            .iter()
            .zip(b)
            .position(|(p, q)| p != q)
            .unwrap_or(a.len().min(b.len()));
        Some(format!(
            "{what}: {} against {}, first apart at #{at}: {:?} against {:?}",
            a.len(),
            b.len(),
            a.get(at),
            b.get(at)
        ))
    }
    if x.cycles() != y.cycles() {
        return Some(format!("cycles: {:?} against {:?}", x.cycles(), y.cycles()));
    }
    first("register writes", &x.writes, &y.writes)
        .or_else(|| first("launch writes", &x.launch_writes, &y.launch_writes))
        .or_else(|| first("flag writes", &x.flag_writes, &y.flag_writes))
        .or_else(|| first("global-memory writes", &x.memory_writes, &y.memory_writes))
        .or_else(|| first("rounds", &x.rounds, &y.rounds))
        .or_else(|| {
            // Undefined image bytes read 0 on the imported RTL: compare
            // the words both have defined.
            let apart = a
                .read_back
                .words
                .iter()
                .zip(&b.read_back.words)
                .find(|(p, q)| p.value.is_some() && q.value.is_some() && p.value != q.value);
            apart.map(|(p, q)| {
                format!(
                    "read-back: at {:#07x} {:08x?} against {:08x?}",
                    p.address, p.value, q.value
                )
            })
        })
}

/// A run's read-back against the result file the application ships.
pub fn against_result(run: &AppRun, result: &ResultLog) -> WordsCompared {
    run.read_back.compare(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Ending, MemoryWrite};

    #[test]
    fn the_read_back_is_the_image_with_the_writes_over_it() {
        let launch = FgpLaunch {
            blocks_per_core: 1,
            registers: 4,
            shared_bytes: 0,
            block: [32, 1, 1],
            grid: [1, 1],
            params: vec![],
            program: vec![],
            global: vec![Some(1), Some(2), Some(3), Some(4), None],
            constant: vec![],
            max_cycles: 10,
        };
        let mut observed = Observed::new(0, Ending::Done { ns: 100 });
        observed.memory_writes = vec![
            MemoryWrite {
                ns: 50,
                address: 1,
                value: Some(0xaa),
            },
            MemoryWrite {
                ns: 60,
                address: 9,
                value: Some(0x55),
            },
            MemoryWrite {
                ns: 70,
                address: 1,
                value: Some(0xbb),
            },
        ];
        let log = read_back_of(&launch, &observed, 4);
        assert_eq!(
            log.text(),
            "00000 0403BB01\n00004 UUUUUUUU\n00008 00005500\n0000C 00000000\n"
        );
    }
}
