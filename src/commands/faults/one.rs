//! `flexpmu faults run --fault SPEC`: one fault on its own — its outcome,
//! what differs from the golden run, and the faulty run's waveform.

use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use flexpmu_isa::source::shorten;
use flexpmu_sim::gpu::iss::GlobalMemory;
use flexpmu_sim::gpu::sm::{PmuRead, Sm};
use flexpmu_studies::faults::list::FindError;
use flexpmu_studies::faults::on_slice::faulty_config;
use flexpmu_studies::faults::{FaultList, FaultModel};

use super::{prepare, RunArgs};
use crate::output::Waveform;

/// `SITE:sa0`, `SITE:sa1`, `SITE:flip@CYCLE` (stuck-at may also take
/// `@CYCLE`, the cycle it starts in).
fn parse_fault(text: &str) -> Result<(String, FaultModel, Option<u64>)> {
    let expected = "expected SITE:sa0, SITE:sa1 or SITE:flip@CYCLE";
    let shown = shorten(text);
    let (site, rest) = text
        .rsplit_once(':')
        .with_context(|| format!("--fault {shown}: {expected}"))?;
    let (model, cycle) = match rest.split_once('@') {
        Some((m, c)) => (
            m,
            Some(c.parse::<u64>().with_context(|| {
                format!("--fault {shown}: `{}` is not a cycle number", shorten(c))
            })?),
        ),
        None => (rest, None),
    };
    let model =
        FaultModel::from_name(model).with_context(|| format!("--fault {shown}: {expected}"))?;
    if model == FaultModel::Flip && cycle.is_none() {
        bail!(
            "--fault {shown}: a flip needs its cycle, e.g. {}:flip@100",
            shorten(site)
        );
    }
    Ok((site.to_string(), model, cycle))
}

/// One fault on its own: its outcome, what differs, its waveform.
pub(super) fn run_one(args: &RunArgs, spec: &str) -> Result<ExitCode> {
    let (site, model, cycle) = parse_fault(spec)?;
    let waveform = args
        .vcd
        .as_deref()
        .map(|p| {
            crate::output::check_distinct(
                &[("--vcd", p)],
                &[("the program", args.launch.program()?)],
            )?;
            Waveform::create(p, args.force)
        })
        .transpose()?;
    let prepared = prepare(&args.launch, args.seed, !args.no_matrix, args.json)?;
    let campaign = &prepared.campaign;
    let fault = FaultList::find(campaign.sites(), &site, model).map_err(|e| match e {
        FindError::NoSite => anyhow!(
            "--fault {}: no site `{}` (see `flexpmu faults list --json`)",
            shorten(spec),
            shorten(&site)
        ),
        other => anyhow!("--fault {}: {other}", shorten(spec)),
    })?;
    let golden_cycles = campaign.golden().run.cycles;
    if let Some(c) = cycle.filter(|&c| c >= golden_cycles) {
        bail!(
            "--fault {}: cycle {c} is past the fault-free run, whose cycles are 0 to {}",
            shorten(spec),
            golden_cycles.saturating_sub(1)
        );
    }
    // What the core's channels monitor, for the waveform's save files.
    let labels: Vec<String> = match prepared.config.monitor_map.as_deref() {
        Some(map) if !map.is_today() => (0..16).map(|k| map.signals(k)).collect(),
        _ => flexpmu_hdl::sm::MONITOR_MAP
            .iter()
            .map(|s| s.name.to_string())
            .collect(),
    };
    let mut sm = Sm::new(
        &prepared.iss,
        &prepared.program,
        faulty_config(prepared.config),
    )?;
    let mut waveform = waveform;
    if let Some(w) = &mut waveform {
        sm.attach_waveform(w.output()?, 2000)?;
        w.set_channel_labels(labels);
    }
    let faulty = campaign.run_on(sm, &fault, cycle)?;
    if let Some(w) = waveform {
        w.commit()?;
    }
    let r = &faulty.result;
    let golden = &campaign.golden().run;
    if args.json {
        let mut json = serde_json::to_value(r)?;
        if let Some(d) = &faulty.differences {
            json["memory_words"] = serde_json::json!(d.memory_words);
            json["reads"] = serde_json::json!(d.reads);
            json["threads"] = serde_json::json!(d.threads.len());
        }
        outln!("{json}");
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} {} from cycle {}: {} (first divergence: {})",
        r.site,
        r.model,
        r.cycle,
        r.outcome.name(),
        r.first_divergence
            .map_or("none".to_string(), |c| format!("cycle {c}"))
    );
    if let Some(detail) = &r.detail {
        outln!("  stopped: {detail}");
    }
    if let (Some(d), Ok(run)) = (&faulty.differences, &faulty.run) {
        for address in &d.memory_words {
            let word = |m: &GlobalMemory| {
                m.read_u32(*address)
                    .map_or("-".to_string(), |w| format!("0x{w:08x}"))
            };
            outln!(
                "  memory 0x{address:08x}: {} (fault-free {})",
                word(&run.memory),
                word(&golden.memory)
            );
        }
        for &i in &d.reads {
            let show = |r: Option<&PmuRead>| {
                r.map_or("none".to_string(), |r| {
                    format!(
                        "warp {} CNT{} -> R{} = {}",
                        r.warp, r.counter, r.register, r.value
                    )
                })
            };
            outln!(
                "  read {i}: {} (fault-free {})",
                show(run.pmu_reads.get(i)),
                show(golden.pmu_reads.get(i))
            );
        }
        for i in (0..16).filter(|i| d.counters & (1 << i) != 0) {
            outln!(
                "  counter {i} at the end: {} (fault-free {})",
                run.counters_at_end[i],
                golden.counters_at_end[i]
            );
        }
        if !d.threads.is_empty() {
            outln!("  registers differ in {} thread(s)", d.threads.len());
        }
        if let Some((a, b)) = d.cycles {
            outln!("  cycles: {b} (fault-free {a})");
        }
    }
    if let Some(path) = &args.vcd {
        outln!("waveform: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
