//! Synthesis flows with the real tools: flip-flop counts, per-block
//! breakdown, iCE40 and ECP5 timing, Liberty area, gate-level netlist simulation,
//! and the checked-in report.

use std::path::Path;

use flexpmu_eda::synth::{self, report, Flow, SynthError, SynthOptions, SynthResult};
use flexpmu_eda::{golden, testbench};
use flexpmu_hdl::PmuConfig;
use flexpmu_ir::registry;
use flexpmu_sim::pmu::stimulus::RandomStimulus;
use flexpmu_sim::pmu::PmuInputs;
use flexpmu_tools::{icarus, Scratch};

fn synthesize(top: &str, options: &SynthOptions) -> Result<SynthResult, SynthError> {
    synth::synthesize(registry::get(top), options)
}

fn options(flow: Flow) -> SynthOptions {
    SynthOptions {
        flow,
        ..Default::default()
    }
}

#[test]
fn pmu_flip_flops_are_the_architectural_minimum_and_blocks_add_up() {
    let pmu = synthesize("pmu", &options(Flow::Generic)).unwrap();
    assert_eq!(
        pmu.flip_flops,
        16 * 32 + 16 * 2 + 16 * 32,
        "{:?}",
        pmu.cell_types
    );
    assert_eq!(pmu.latches, 0);
    let block = |name| synthesize(name, &options(Flow::Generic)).unwrap();
    let (decoder, converter, counter, mux) = (
        block("decoder"),
        block("converter"),
        block("counter"),
        block("mux"),
    );
    assert_eq!(
        decoder.flip_flops + 16 * converter.flip_flops + 16 * counter.flip_flops + mux.flip_flops,
        pmu.flip_flops
    );
    let cells = decoder.cells + 16 * converter.cells + 16 * counter.cells + mux.cells;
    let glue = pmu.cells.abs_diff(cells) as f64 / pmu.cells as f64;
    assert!(
        glue < 0.05,
        "blocks {cells} cells vs PMU {} cells",
        pmu.cells
    );
}

#[test]
fn cmos_flow_estimates_transistors() {
    let r = synthesize("pmu", &options(Flow::Cmos)).unwrap();
    assert_eq!(r.flip_flops, 1056);
    // At least 4 transistors per NAND/NOR and 2 per inverter, plus the flip-flops.
    let gate = |k: &str| r.cell_types.get(k).copied().unwrap_or(0);
    let logic = 4 * (gate("$_NAND_") + gate("$_NOR_")) + 2 * gate("$_NOT_");
    assert!(logic > 0 && r.transistors.unwrap() > logic, "{r:?}");
}

#[test]
fn ice40_flow_places_and_routes_the_pmu() {
    let r = synthesize("pmu", &options(Flow::Ice40)).unwrap();
    assert_eq!(r.flip_flops, 1056);
    assert!(r.logic_cells.unwrap() > 500);
    assert!(r.carry_cells.unwrap() > 0);
    let fmax = r.fmax_mhz.unwrap();
    assert!((20.0..500.0).contains(&fmax), "{fmax}");
    let path = r.critical_path.unwrap();
    assert!(
        path[0].starts_with("Critical path report for clock"),
        "{path:?}"
    );
    assert!(
        path.iter().any(|l| l.contains("dut.")),
        "the path runs through the design: {path:?}"
    );
}

/// ECP5, placed and routed out of context by nextpnr-ecp5 (YoWASP's
/// from PyPI where no system one is installed): the PMU's flip-flops
/// exactly, its 16 x 32-bit counters on CCU2C carries (two bits each),
/// on the smallest die; the SM core's 16-bit multipliers on MULT18X18D.
#[test]
fn ecp5_flow_places_and_routes_the_pmu_and_the_sm_core() {
    let pmu = synthesize("pmu", &options(Flow::Ecp5)).unwrap();
    assert_eq!(pmu.flip_flops, 1056, "{pmu:?}");
    assert_eq!(pmu.carry_cells, Some(16 * 16), "{pmu:?}");
    assert_eq!((pmu.dsp_cells, pmu.ram_cells), (Some(0), Some(0)));
    assert_eq!(pmu.device.as_deref(), Some("25k"));
    let luts = pmu.logic_cells.unwrap();
    assert!((1000..5000).contains(&luts), "{pmu:?}");
    let fmax = pmu.fmax_mhz.unwrap();
    assert!((20.0..500.0).contains(&fmax), "{fmax}");
    let path = pmu.critical_path.unwrap();
    assert!(
        path.len() > 3 && path.iter().any(|l| l.contains("counters_")),
        "{path:?}"
    );
    // The die asked for, and a larger one the same design fits.
    let on_45k = SynthOptions {
        device: Some("45k".into()),
        ..options(Flow::Ecp5)
    };
    assert_eq!(
        synthesize("pmu", &on_45k).unwrap().device.as_deref(),
        Some("45k")
    );
    let core = synthesize("sm-core", &options(Flow::Ecp5)).unwrap();
    assert_eq!(
        (core.flip_flops, core.dsp_cells),
        (1124, Some(8)),
        "{core:?}"
    );
}

/// 7-series: the PMU's flip-flops exactly, its 16 x 32-bit counters on
/// CARRY4 chains (8 each); the SM core's 16-bit multipliers (one per
/// lane) on DSP48E1 slices; no block RAM.
#[test]
fn xilinx_flow_maps_counters_to_carry_chains_and_multipliers_to_dsps() {
    let pmu = synthesize("pmu", &options(Flow::Xilinx)).unwrap();
    assert_eq!(pmu.flip_flops, 1056, "{pmu:?}");
    assert_eq!(pmu.latches, 0);
    assert_eq!(pmu.carry_cells, Some(16 * 8), "{pmu:?}");
    assert_eq!(pmu.dsp_cells, Some(0));
    assert_eq!(pmu.ram_cells, Some(0));
    let luts = pmu.logic_cells.unwrap();
    assert!((500..4000).contains(&luts), "{pmu:?}");
    assert!(
        pmu.cell_types.keys().all(|k| !k.starts_with('$')),
        "{pmu:?}"
    );
    let core = synthesize("sm-core", &options(Flow::Xilinx)).unwrap();
    assert_eq!(core.dsp_cells, Some(8), "{core:?}");
    assert!(core.flip_flops > pmu.flip_flops);
}

#[test]
fn liberty_flow_reports_area_and_delay() {
    // The default library: OSU 0.18 um (qflow-tech-osu018).
    let r = synthesize("counter", &options(Flow::Liberty)).unwrap();
    assert_eq!(r.flip_flops, 34);
    assert!(r.area_um2.unwrap() > 100.0, "{r:?}");
    assert!(r.delay_ps.unwrap() > 10.0, "{r:?}");
}

#[test]
fn missing_or_malformed_liberty_files_are_reported() {
    let scratch = Scratch::new("liberty-test").unwrap();
    let dir = scratch.path();
    let not_liberty = dir.join("notes.lib");
    std::fs::write(&not_liberty, "hello\n").unwrap();
    let bad_gzip = dir.join("broken.lib.gz");
    std::fs::write(&bad_gzip, [0x1f, 0x8b, 0x08, 0x00, 0x01]).unwrap();
    let cases = [
        (Some(dir.join("missing.lib")), "cannot read it"),
        (Some(not_liberty), "not a Liberty file"),
        (Some(bad_gzip), "not a readable gzip file"),
    ];
    for (liberty, message) in cases {
        let opts = SynthOptions {
            flow: Flow::Liberty,
            liberty,
            ..Default::default()
        };
        let err = synthesize("decoder", &opts).unwrap_err();
        assert!(matches!(err, SynthError::BadLiberty(..)), "{err}");
        assert!(err.to_string().contains(message), "{err}");
    }
}

/// The generic flow's gate-level netlist behaves as the RTL: the same
/// golden vectors replay under Icarus without a mismatch.
#[test]
fn gate_level_netlist_replays_the_golden_vectors() {
    let scratch = Scratch::new("netlist-test").unwrap();
    let dir = scratch.path();
    let opts = SynthOptions {
        netlist_dir: Some(dir.to_path_buf()),
        ..options(Flow::Generic)
    };
    synthesize("pmu", &opts).unwrap();
    let netlist = dir.join("flexpmu_pmu.v");
    assert!(dir.join("flexpmu_pmu.json").exists());
    let design = registry::get("pmu").design().unwrap();
    let top = design.top();
    let mut source = RandomStimulus::new(&PmuConfig::uniform(16, 32), 32, 21);
    let stimulus: Vec<PmuInputs> = (0..3000).map(|_| source.next_cycle().clone()).collect();
    let vectors = golden::record_pmu(
        &flexpmu_hdl::PmuConfig::uniform(16, 32),
        &top.ports,
        &stimulus,
    )
    .unwrap();
    let vec_path = dir.join("random.vec");
    std::fs::write(&vec_path, vectors.to_text("random")).unwrap();
    let r =
        icarus::run_testbench(&[netlist], &testbench::verilog(top), &vec_path, &top.name).unwrap();
    assert_eq!((r.cycles, r.mismatches), (3000, 0), "{r:?}");
}

/// synth_scripts/REPORT.md is what the current design synthesises to.
#[test]
fn checked_in_report_is_current() {
    let report = report::report(None, &mut |_| {}).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../synth_scripts/REPORT.md");
    let checked_in = std::fs::read_to_string(&path).unwrap();
    assert!(
        report == checked_in,
        "synth_scripts/REPORT.md is stale: regenerate it with \
         `cargo run --release -- synth --report synth_scripts/REPORT.md` \
         and review the difference"
    );
}
