//! `flexpmu bench`'s reference-ISS rows: the subset's ISS and the
//! whole-ISA one on the same launch, in thread instructions a second.

use std::time::Instant;

use crate::bench::{peak_rss_kib, BenchEngine, BenchError, EngineResult, SM_BENCH_BLOCKS};

/// Runs of the ISS rows' launch (each a few milliseconds).
pub const ISS_BENCH_RUNS: u64 = 50;

/// `run`'s last result and the seconds [`ISS_BENCH_RUNS`] runs take at
/// the pace of the fastest: a shared machine's load only ever slows a
/// run, so the fastest is the ISS' own speed (the runs' total swung the
/// two rows' ratio from 0.79× to 1.55× on one quiet machine).
fn fastest<T>(mut run: impl FnMut() -> Result<T, BenchError>) -> Result<(T, f64), BenchError> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..ISS_BENCH_RUNS {
        let start = Instant::now();
        last = Some(run()?);
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok((
        last.expect("at least one run"),
        best * ISS_BENCH_RUNS as f64,
    ))
}

/// A reference ISS running the appendix-A kernel on [`SM_BENCH_BLOCKS`]
/// blocks of 512 threads ([`ISS_BENCH_RUNS`] times, timed as [`fastest`]), two resident at a time: the subset's
/// (`iss`) or the whole-ISA one (`fgp-iss`, on FlexGripPlus' 8 cores),
/// whose global memory at the end must be the subset ISS'. Its "cycles"
/// are thread instructions.
pub fn iss(program: &[u32], engine: BenchEngine) -> Result<EngineResult, BenchError> {
    use flexpmu_sim::gpu::fgp_iss::{FgpIss, FgpLaunchSpec};
    use flexpmu_sim::gpu::iss::Geometry;
    use flexpmu_sim::gpu::vector_add::VectorAdd;
    let failed = |what: String| BenchError::Stock(format!("{}: {what}", engine.name()));
    let geometry =
        Geometry::new([512, 1, 1], [SM_BENCH_BLOCKS, 1]).map_err(|e| failed(e.to_string()))?;
    let launch = VectorAdd::new(geometry);
    let mut subset = launch.iss().map_err(|e| failed(e.to_string()))?;
    subset.set_blocks_per_core(2);
    let rss_before = peak_rss_kib();
    let (reference, mut seconds) = fastest(|| {
        subset
            .run(program, |_, _| None)
            .map_err(|e| failed(e.to_string()))
    })?;
    let warp_instructions = if engine == BenchEngine::FgpIss {
        let mut global = vec![Some(0u8); 1 << 18];
        for (address, word) in subset.memory().iter() {
            for (i, byte) in word.to_le_bytes().into_iter().enumerate() {
                global[(address as usize + i) % (1 << 18)] = Some(byte);
            }
        }
        let mut whole = FgpIss::new(FgpLaunchSpec {
            geometry,
            params: subset.params().to_vec(),
            blocks_per_core: 2,
            lanes: 8,
            shared_bytes: 0,
            registers: 16,
            global,
            constant: vec![0; 8192],
            sfu_tables: None,
        })
        .map_err(|e| failed(e.to_string()))?;
        // The subset ISS records nothing either.
        whole.set_recording(false);
        // Without the kit a PMEVENT is a word of no class: the whole-ISA
        // ISS (stock FlexGripPlus) runs a 32-bit NOP in its place.
        let mut stock = Vec::with_capacity(program.len());
        let mut at = 0;
        while at < program.len() {
            let word = program[at];
            let long = word & 1 == 1;
            if !long && flexpmu_isa::pmevent::decode(word).is_ok() {
                stock.push(0xF000_0000);
            } else {
                stock.extend(&program[at..(at + 1 + usize::from(long)).min(program.len())]);
            }
            at += 1 + usize::from(long);
        }
        let program = stock;
        let run;
        (run, seconds) = fastest(|| whole.run(&program).map_err(|e| failed(e.to_string())))?;
        for (address, word) in reference.memory.iter() {
            let at = |i: u32| run.global[((address + i) % (1 << 18)) as usize];
            let bytes = [at(0), at(1), at(2), at(3)];
            if bytes != word.to_le_bytes().map(Some) {
                return Err(failed(format!(
                    "global word {address:#x} is {bytes:02x?}, the subset ISS' {word:#010x}"
                )));
            }
        }
        run.warp_instructions
    } else {
        if !launch.wrong_elements(&reference.memory).is_empty() {
            return Err(failed("C = A + B does not hold".into()));
        }
        reference.warp_instructions
    };
    let instructions = warp_instructions * 32 * ISS_BENCH_RUNS;
    Ok(EngineResult {
        name: engine.name().into(),
        cycles: instructions,
        seconds,
        cycles_per_s: instructions as f64 / seconds,
        passes_per_cycle: None,
        peak_rss_growth_kib: peak_rss_kib().saturating_sub(rss_before),
        vcd_bytes: None,
    })
}
