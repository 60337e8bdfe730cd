//! A test program's expected values (`flexpmu testgen`'s `expected.json`)
//! held to what FlexGripPlus left: the in-field test as deployed.

use crate::testgen::expected::{Expected, ExpectedRead, Run};
use flexpmu_sim::gpu::iss::Iss;

use flexpmu_flexgripplus::compare::{Divergence, Kind};
use flexpmu_flexgripplus::{CosimError, Report};

/// Every word of A, B and C and every read of `expected` that FlexGripPlus
/// left otherwise, as divergences.
pub fn check(report: &Report, expected: &Expected) -> Vec<Divergence> {
    let memory = &report.comparison.flexgripplus_memory;
    let mut divergences = Vec::new();
    for words in &expected.words {
        for (name, k, value) in [("A", 0, words.a), ("B", 1, words.b), ("C", 2, words.c)] {
            let address = expected.launch.parameters[k].wrapping_add(4 * words.thread as u32);
            let found = memory.get(address);
            if found != Some(value) {
                divergences.push(Divergence {
                    kind: Kind::Expected,
                    thread: Some(words.thread),
                    place: format!("{name}[{}] (expected.json)", words.thread),
                    flexpmu: format!("{value:#010x}"),
                    flexgripplus: found.map_or("none".into(), |v| format!("{v:#010x}")),
                    instruction: None,
                });
            }
        }
    }
    for read in &expected.reads {
        let found = report
            .comparison
            .reads
            .iter()
            .filter(|r| r.warp == read.warp && r.address == read.word && r.counter == read.counter)
            .map(|r| r.flexgripplus)
            .next()
            .flatten();
        if found != Some(read.value) {
            divergences.push(Divergence {
                kind: Kind::Expected,
                thread: None,
                place: format!(
                    "warp {}: read of CNT{} into R{} at word {} (expected.json)",
                    read.warp, read.counter, read.register, read.word
                ),
                flexpmu: read.value.to_string(),
                flexgripplus: found.map_or("none".into(), |v| v.to_string()),
                instruction: None,
            });
        }
    }
    divergences
}

/// What FlexGripPlus left in `report`'s run of the vector-addition launch
/// of `iss`: its words of A, B and C and its own PMU reads (the test as
/// deployed on FlexGripPlus; its reads may differ from the SM slice's
/// where the two count an event differently).
pub fn of_flexgripplus(report: &Report, iss: &Iss) -> Result<Expected, CosimError> {
    let reads = report
        .comparison
        .reads
        .iter()
        .map(|r| {
            let value = r.flexgripplus.ok_or_else(|| {
                CosimError::Launch(format!(
                    "warp {}: FlexGripPlus made no read of CNT{} at word {}",
                    r.warp, r.counter, r.address
                ))
            })?;
            Ok(ExpectedRead {
                warp: r.warp,
                word: r.address,
                counter: r.counter,
                register: r.register,
                value,
            })
        })
        .collect::<Result<Vec<_>, CosimError>>()?;
    let run = Run {
        memory: &report.comparison.flexgripplus_memory,
        blocks_per_core: report.blocks_per_core,
        registers: report.registers,
        cycles: report.comparison.cycles.flexgripplus.unwrap_or_default(),
    };
    Expected::of_run(&run, iss, reads)
        .map_err(|e| CosimError::Launch(format!("FlexGripPlus' global memory: {e}")))
}
