//! A differential campaign: kernels drawn from everything flexpmu
//! generates (random structured kernels, testgen's genes, straight-line
//! programs of every instruction form and operand kind of the subset, and
//! programs of FlexGripPlus' whole instruction set, straight-line or with
//! branches, loops, a barrier and a call), each
//! on a launch drawn from one warp to several resident warps and rounds
//! of blocks, co-simulated one by one: the subset's kernels on the SM
//! slice and its ISS ([`cosimulate`](crate::cosimulate)), the whole set's
//! on the whole-ISA reference ISS, held to FlexGripPlus thread by thread
//! ([`flexpmu_flexgripplus::application::iss`]). The same seed draws the
//! same cases.

use std::sync::Arc;

use crate::programs::{straight, structured, whole, whole_flow};
use crate::testgen::genome::Genome;
use crate::testgen::render::render;
use flexpmu_isa::asm;
use flexpmu_isa::disasm::to_source;
use flexpmu_isa::listing::Listing;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::SmConfig;
use flexpmu_sim::gpu::vector_add::VectorAdd;
use flexpmu_sim::progress::Progress;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use flexpmu_flexgripplus::application::iss::{against, on_iss, spec_of, IssCompared, SfuTables};
use flexpmu_flexgripplus::application::run::on_ghdl;
use flexpmu_flexgripplus::launch::FgpLaunch;
use flexpmu_flexgripplus::simulate::Watch;
use flexpmu_flexgripplus::{cosimulate, CosimError, FlexGripPlus, Options, Report, Variant};

/// Where a case's kernel comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// `flexpmu random-kernel`'s structured kernels.
    Structured,
    /// A random genome of `flexpmu testgen`, rendered.
    Testgen,
    /// A straight-line program of every form and operand kind.
    Straight,
    /// A program of FlexGripPlus' whole instruction set, run on the
    /// whole-ISA reference ISS: straight-line, or (cases 3, 11, 19, ...)
    /// with flow around its words.
    Whole,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Structured => "structured",
            Source::Testgen => "testgen",
            Source::Straight => "straight",
            Source::Whole => "whole",
        }
    }
}

/// The launches a case is drawn on: (threads per block, blocks, blocks
/// per core). One warp; two, three and four warps of one block; two and
/// three blocks in rounds (a later round finds the registers the earlier
/// one left); two blocks resident at once.
pub const LAUNCHES: [(u16, u16, u32); 7] = [
    (32, 1, 2),
    (64, 1, 2),
    (96, 1, 2),
    (128, 1, 2),
    (32, 2, 1),
    (32, 3, 2),
    (64, 2, 2),
];

/// One kernel on one launch.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Case {
    /// Its index in the campaign.
    pub index: u64,
    pub source: Source,
    /// The generator's seed.
    pub seed: u64,
    pub threads_per_block: u16,
    pub blocks: u16,
    pub blocks_per_core: u32,
    /// The kernel's source (`.sass`).
    #[serde(skip)]
    pub text: String,
}

impl Case {
    /// A name for the case's kernel file: `<index>_<source>_<seed>`.
    pub fn name(&self) -> String {
        format!("{:04}_{}_{}", self.index, self.source.name(), self.seed)
    }

    /// The launch's description, as `flexpmu cosim`'s options give it.
    pub fn launch_options(&self) -> String {
        format!(
            "--threads {} --blocks {} --blocks-per-core {}",
            self.threads_per_block, self.blocks, self.blocks_per_core
        )
    }
}

impl Case {
    /// The kernel, assembled.
    pub fn listing(&self) -> Result<Listing, CosimError> {
        let program = asm::assemble(&self.text, &format!("{}.sass", self.name()))
            .map_err(|e| CosimError::Launch(format!("case {}: {e}", self.index)))?;
        let mut listing = Listing::from_words(&format!("{}.sass", self.name()), &program.values());
        listing.lines = program.words.iter().map(|w| Some(w.line)).collect();
        Ok(listing)
    }

    /// The launch: the vector addition's buffers on the case's geometry.
    pub fn launch(&self) -> Result<VectorAdd, CosimError> {
        let geometry = Geometry::new([self.threads_per_block, 1, 1], [self.blocks, 1])?;
        Ok(VectorAdd::new(geometry))
    }

    /// `config` with the case's residency and the PMU if `variant` has it.
    pub fn config(&self, config: &SmConfig, variant: Variant) -> SmConfig {
        SmConfig {
            blocks_per_core: self.blocks_per_core,
            pmu: variant == Variant::Kit,
            ..config.clone()
        }
    }
}

/// Instructions of a whole-ISA case's program.
pub const WHOLE_LENGTH: usize = 24;

/// Registers a thread of a whole-ISA case is given (its words name any of
/// R0-R127: beyond these they reach the next warps').
pub const WHOLE_REGISTERS: u32 = 32;

/// Case `index` of the campaign of `seed`; `tables` (the SFU's, read from
/// FlexGripPlus' RTL) let a whole-ISA case draw SFU words.
pub fn draw(seed: u64, index: u64, tables: Option<&Arc<SfuTables>>) -> Case {
    let mut rng = StdRng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let source = match index % 4 {
        0 => Source::Structured,
        1 => Source::Testgen,
        2 => Source::Straight,
        _ => Source::Whole,
    };
    let kernel_seed = rng.gen::<u32>() as u64;
    let (threads_per_block, blocks, blocks_per_core) = LAUNCHES[rng.gen_range(0..LAUNCHES.len())];
    let header = format!(
        "flexpmu cosim --random: case {index} of seed {seed} ({} kernel of seed {kernel_seed})",
        source.name()
    );
    let text = match source {
        Source::Structured => structured::structured_kernel(kernel_seed),
        Source::Testgen => {
            let mut genes = StdRng::seed_from_u64(kernel_seed);
            let length = genes.gen_range(4..=16);
            let genome = Genome::random(&mut genes, length, 1);
            render(&genome, &header, true).source
        }
        Source::Straight => {
            let mut words = StdRng::seed_from_u64(kernel_seed);
            to_source(&straight::straight_program(&mut words, 1), &header)
        }
        Source::Whole => {
            let mut words = StdRng::seed_from_u64(kernel_seed);
            let probe = whole::probe_spec(WHOLE_REGISTERS, tables.cloned());
            // Every other whole-ISA case has flow around its words.
            let program = if index % 8 == 3 {
                whole_flow::flow_program(&mut words, WHOLE_LENGTH, probe)
            } else {
                whole::whole_program(&mut words, WHOLE_LENGTH, probe)
            };
            to_source(&program, &header)
        }
    };
    Case {
        index,
        source,
        seed: kernel_seed,
        threads_per_block,
        blocks,
        blocks_per_core,
        text,
    }
}

/// What a case came to.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A subset kernel: the co-simulation's report.
    Cosim(Box<Report>),
    /// A whole-ISA kernel: the ISS held to FlexGripPlus.
    Iss {
        compared: IssCompared,
        /// FlexGripPlus' cycles (None: its cycle bound came first).
        cycles: Option<u64>,
        warp_instructions: u64,
    },
}

impl Verdict {
    /// Divergences found (a whole-ISA case: threads and memory bytes that
    /// differ, writes for no thread, or FlexGripPlus not finishing).
    pub fn divergences(&self) -> usize {
        match self {
            Verdict::Cosim(report) => report.comparison.divergences.len(),
            Verdict::Iss {
                compared, cycles, ..
            } => {
                compared.threads_differing
                    + compared.memory_bytes_differing
                    + compared.strays
                    + usize::from(cycles.is_none())
            }
        }
    }

    /// The first divergence, in words.
    pub fn first(&self) -> Option<String> {
        match self {
            Verdict::Cosim(report) => report.comparison.divergences.first().map(|d| d.to_string()),
            Verdict::Iss {
                compared, cycles, ..
            } => match cycles {
                None => Some("FlexGripPlus did not finish within its cycle bound".into()),
                Some(_) => compared.first_differences.first().cloned(),
            },
        }
    }
}

/// What a whole-ISA case needs beside FlexGripPlus: the SFU's tables and
/// the cores FlexGripPlus is built with.
#[derive(Clone)]
pub struct Whole {
    pub tables: Arc<SfuTables>,
    pub cores: u64,
}

/// `case` (a whole-ISA one) on FlexGripPlus under GHDL (`design`) and on
/// the reference ISS, held to each other.
pub fn run_whole(
    design: &flexpmu_flexgripplus::Design,
    case: &Case,
    options: &Options,
    whole: &Whole,
) -> Result<Verdict, CosimError> {
    let listing = case.listing()?;
    let iss = case.launch()?.iss()?;
    let launch = FgpLaunch::new(
        &iss,
        &listing.words,
        WHOLE_REGISTERS,
        case.blocks_per_core,
        options.max_cycles.unwrap_or(200_000),
    )?;
    let spec = spec_of(&launch, whole.cores, Some(whole.tables.clone()))
        .map_err(|e| CosimError::Launch(e.to_string()))?;
    let result = on_iss(spec, &launch.program, launch.max_cycles)
        .map_err(|e| CosimError::Launch(e.to_string()))?;
    let run = on_ghdl(
        design,
        &launch,
        0,
        Watch {
            timeout: options.timeout,
            on_cycle: &mut |_| {},
        },
    )
    .map_err(|e| CosimError::Launch(e.to_string()))?;
    let compared =
        against(&result, &run, &launch).map_err(|e| CosimError::Launch(e.to_string()))?;
    Ok(Verdict::Iss {
        compared,
        cycles: run.observed.cycles(),
        warp_instructions: result.warp_instructions,
    })
}

/// Runs `case` on FlexGripPlus (with the kit or stock, under GHDL or
/// imported, `fgp`) and on the SM slice configured from `config` (its
/// residency replaced by the case's).
pub fn run<'a>(
    fgp: impl Into<FlexGripPlus<'a>>,
    case: &Case,
    config: &SmConfig,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Report, CosimError> {
    let fgp = fgp.into();
    let listing = case.listing()?;
    let launch = case.launch()?;
    let config = case.config(config, fgp.variant());
    cosimulate(fgp, &listing, &launch, &config, options, progress)
}

/// One case of a campaign and what it came to: FlexGripPlus' report, or
/// why it could not be co-simulated (a defect of a generator, the model
/// or the tools).
pub struct Outcome {
    pub case: Case,
    pub report: Result<Verdict, String>,
}

/// The cases `0..count` drawn from `seed`, each run ([`run`]) on `design`
/// (GHDL's FlexGripPlus) on `jobs` worker threads, `on_done` told of each
/// outcome as it comes; the outcomes in case order.
#[allow(clippy::too_many_arguments)]
pub fn run_all(
    design: &flexpmu_flexgripplus::Design,
    seed: u64,
    count: u64,
    jobs: usize,
    config: &SmConfig,
    options: &Options,
    whole: &Whole,
    on_done: &(dyn Fn(&Outcome) + Sync),
) -> Result<Vec<Outcome>, CosimError> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| CosimError::Launch(format!("{jobs} worker threads: {e}")))?;
    Ok(pool.install(|| {
        (0..count)
            .into_par_iter()
            .map(|index| {
                let case = draw(seed, index, Some(&whole.tables));
                let report = match case.source {
                    Source::Whole => run_whole(design, &case, options, whole),
                    _ => run(
                        design,
                        &case,
                        config,
                        options,
                        &mut flexpmu_sim::progress::Quiet,
                    )
                    .map(|r| Verdict::Cosim(Box::new(r))),
                }
                .map_err(|e| format!("{e:#}"));
                let outcome = Outcome { case, report };
                on_done(&outcome);
                outcome
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_cases_and_every_source_assembles() {
        for index in 0..12 {
            let case = draw(5, index, None);
            assert_eq!(case.text, draw(5, index, None).text);
            assert!(
                asm::assemble(&case.text, "case.sass").is_ok(),
                "case {index}: {}",
                case.text
            );
        }
        assert_ne!(draw(5, 0, None).text, draw(6, 0, None).text);
        let sources: Vec<Source> = (0..4).map(|i| draw(1, i, None).source).collect();
        assert_eq!(
            sources,
            [
                Source::Structured,
                Source::Testgen,
                Source::Straight,
                Source::Whole
            ]
        );
    }
}
