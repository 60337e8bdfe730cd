//! A monitor map applied to the SM core: today's channels rewired count
//! what they counted before, a signal deep in the core reaches its
//! channel, and a map that cannot be applied is an error naming its line.
//! (That each channel counts exactly what the detection matrix predicts
//! is checked against fault campaigns in studies/tests/faults.rs.)

use std::path::Path;
use std::sync::Arc;

use flexpmu_hdl::pmu::ChannelMode;
use flexpmu_ir::monitor_map::{MapEntry, MonitorMap};
use flexpmu_isa::asm::assemble_file;
use flexpmu_sim::engine::Engine;
use flexpmu_sim::gpu::iss::Geometry;
use flexpmu_sim::gpu::sm::{Sm, SmConfig, SmError, SmRun};
use flexpmu_sim::gpu::vector_add::VectorAdd;

fn appendix() -> Vec<u32> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    assemble_file(Path::new(&path)).unwrap().values()
}

fn run(map: Option<MonitorMap>, engine: Engine) -> Result<SmRun, SmError> {
    let launch = VectorAdd::new(Geometry::new([32, 1, 1], [1, 1]).unwrap());
    let iss = launch.iss().unwrap();
    let config = SmConfig {
        monitor_map: map.map(Arc::new),
        engine,
        record_pmu_ports: true,
        ..SmConfig::default()
    };
    Sm::new(&iss, &appendix(), config)?.run()
}

fn entry(signal: &str, mode: ChannelMode) -> MapEntry {
    MapEntry {
        signal: signal.into(),
        mode,
        line: 0,
    }
}

/// Each channel's input, cycle by cycle, up to the kernel's first PMU
/// read (from there the counters' values flow through the data path, and
/// they differ between maps).
fn channel(run: &SmRun, k: usize) -> Vec<u64> {
    let reads_from = run.pmu_reads.iter().map(|r| r.command_cycle).min();
    let end = reads_from.map_or(run.pmu_ports.len(), |c| c as usize);
    run.pmu_ports[..end]
        .iter()
        .map(|p| p.monitor_in[k])
        .collect()
}

/// The first cycle at which two channels' inputs differ.
fn first_difference(a: &[u64], b: &[u64]) -> Option<(usize, u64, u64)> {
    if a.len() != b.len() {
        return Some((a.len().min(b.len()), a.len() as u64, b.len() as u64));
    }
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i, *x, *y))
}

#[test]
fn todays_channels_reversed_see_what_they_saw() {
    let today = run(None, Engine::Compiled).unwrap();
    let mut map = MonitorMap::today();
    map.channels.reverse();
    let reversed = run(Some(map), Engine::Compiled).unwrap();
    assert_eq!(reversed.cycles, today.cycles);
    assert_eq!(reversed.memory, today.memory);
    for k in 0..16 {
        let difference = first_difference(&channel(&reversed, k), &channel(&today, 15 - k));
        assert_eq!(difference, None, "channel {k}: (cycle, mapped, today)");
    }
    let active = (0..16).filter(|&k| channel(&today, k).iter().any(|&v| v != 0));
    assert!(active.count() >= 12);
}

#[test]
fn signals_inside_the_core_reach_their_channels() {
    let mut map = MonitorMap::today();
    map.channels[6] = entry("sm.decode.hook.stalled.q", ChannelMode::Level);
    map.channels[7] = entry("sm.execute.alus_2.result", ChannelMode::Toggle);
    map.channels[8] = entry("sm.instruction_in[63:32]", ChannelMode::Toggle);
    // Today's channel 11 (the decode stage's op) by its name, twice, and
    // today's channel 3 moved.
    map.channels[9] = entry("sm.decode.op", ChannelMode::Toggle);
    map.channels[11] = entry("sm.decode.op", ChannelMode::Level);
    map.channels[13] = entry("map.sm_warp_pc", ChannelMode::Toggle);
    let today = run(None, Engine::Compiled).unwrap();
    let mapped = run(Some(map), Engine::Compiled).unwrap();
    assert_eq!(mapped.memory, today.memory);
    let same = |mapped_k: usize, today_k: usize| {
        let difference = first_difference(&channel(&mapped, mapped_k), &channel(&today, today_k));
        assert_eq!(
            difference, None,
            "channel {mapped_k}: (cycle, mapped, today)"
        );
    };
    same(13, 3);
    same(9, 11);
    same(11, 11);
    for k in [0, 1, 2, 3, 4, 5, 10, 12, 14, 15] {
        same(k, k);
    }
    // Level mode counts cycles with an op not 0, toggle mode its changes.
    assert!(mapped.counters_at_end[11] > mapped.counters_at_end[9]);
    let stalled = channel(&mapped, 6);
    assert!(stalled.iter().all(|&v| v <= 1) && stalled.contains(&1));
    for k in [7, 8] {
        assert!(mapped.counters_at_end[k] > 0, "channel {k} counted nothing");
    }
}

/// A channel wired straight to a register's output: the register's fault
/// site carries the channel's input among its names (campaigns find each
/// channel's input by that name).
#[test]
fn a_register_on_a_channel_names_the_channel_input() {
    use flexpmu_sim::engine::compiled::faults::SiteKind;

    let mut map = MonitorMap::today();
    map.channels[5] = entry("sm.execute.results_2.q", ChannelMode::Toggle);
    let launch = VectorAdd::new(Geometry::new([32, 1, 1], [1, 1]).unwrap());
    let config = SmConfig {
        monitor_map: Some(Arc::new(map)),
        ..SmConfig::default()
    };
    let mut sm = Sm::new(&launch.iss().unwrap(), &appendix(), config).unwrap();
    let sites = sm.fault_sites().unwrap();
    let register = sites
        .iter()
        .find(|s| s.name.ends_with("execute.results_2.q"))
        .unwrap();
    assert!(matches!(register.kind, SiteKind::Register(_)));
    assert!(
        register.aliases.iter().any(|a| a.ends_with("monitor_in_5")),
        "{:?}",
        register.aliases
    );
    assert_eq!(
        sites
            .iter()
            .filter(|s| s.aliases.iter().any(|a| a.ends_with("monitor_in_5")))
            .count(),
        1
    );
}

#[test]
fn a_map_that_cannot_be_applied_names_its_line() {
    let text = MonitorMap::today().render("");
    let bad = |from: &str, to: &str| {
        let text = text.replacen(from, to, 1);
        let map = MonitorMap::parse(&text, Path::new("m.toml")).unwrap();
        run(Some(map), Engine::Compiled).unwrap_err().to_string()
    };
    let e = bad("map.warp_issue", "sm.decode.no_such_net");
    assert!(
        e.starts_with("m.toml:4: signal = \"sm.decode.no_such_net\""),
        "{e}"
    );
    let e = bad("map.warp_issue", "sm.pmu.monitor_out");
    assert!(e.contains("cannot watch the PMU"), "{e}");
    let e = bad("map.warp_issue", "sm.instruction_in");
    assert!(e.contains("64 bits, a channel counts at most 32"), "{e}");
    let e = bad("map.warp_issue", "sm.instruction_in[70:40]");
    assert!(e.contains("has 64 bits"), "{e}");
    let e = bad("map.warp_issue", "map.no_such_channel");
    assert!(e.contains("today's map has no channel"), "{e}");
    let e = bad("map.warp_issue", "decode.op");
    assert!(e.contains("expected a signal of the SM core"), "{e}");
    let e = bad("map.warp_issue", "sm.clock");
    assert!(e.contains("clock"), "{e}");
    // rust-hdl runs the map flexpmu was compiled with.
    let mut map = MonitorMap::today();
    map.channels.swap(0, 1);
    let e = run(Some(map), Engine::RustHdl).unwrap_err().to_string();
    assert!(e.contains("compiled engine"), "{e}");
}
