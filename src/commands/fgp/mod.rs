//! `flexpmu fgp`: FlexGripPlus 4.4 itself. `fgp app` and `fgp apps`
//! run and list its applications ([`app`]).
//!
//! `flexpmu fgp import`: FlexGripPlus 4.4's GPGPU (its VHDL as the user's
//! checkout has it, with the PMU kit or stock) read by Yosys through the
//! ghdl-yosys-plugin, its JSON netlist kept in the cache by the content
//! of everything that went in, imported into flexpmu's IR and compiled;
//! what it holds printed. `--patch` prints the lines the import rewrites
//! for GHDL's synthesis as a unified diff instead.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use flexpmu_flexgripplus::rtl::RtlNetlist;
use flexpmu_flexgripplus::Variant;
use flexpmu_sim::engine::compiled::CompiledSim;
use indicatif::ProgressBar;

use crate::args::core::RtlSource;
use crate::flexgripplus::import;

mod app;
mod toggles;

#[derive(clap::Args)]
pub struct FgpArgs {
    #[command(subcommand)]
    command: FgpCommand,
}

#[derive(clap::Subcommand)]
enum FgpCommand {
    /// Import FlexGripPlus' GPGPU into flexpmu (through Yosys and the
    /// ghdl-yosys-plugin; kept in the cache) and print what it holds, or
    /// with --patch the lines rewritten for GHDL's synthesis.
    Import(ImportArgs),
    /// Run one of FlexGripPlus' applications (its folder, or its ROM,
    /// launch and memory image) as its testbench runs it: on the
    /// imported RTL and under GHDL, compared event by event, the memory
    /// read back held to the result file it ships.
    App(Box<app::AppArgs>),
    /// List FlexGripPlus' applications (`applications/` of its
    /// repository) with their launches, as `fgp app` reads them.
    Apps(app::AppsArgs),
    /// The thesis' signal selection redone on FlexGripPlus' own RTL: its
    /// benchmarks run on the imported RTL, the SM's signals ranked by
    /// toggle activity beside the signals the kit's PMU channels read.
    Toggles(Box<toggles::TogglesArgs>),
}

#[derive(clap::Args)]
struct ImportArgs {
    #[command(flatten)]
    source: RtlSource,
    /// FlexGripPlus as it ships, without the PMU kit.
    #[arg(long)]
    stock: bool,
    /// Print the lines the import rewrites for GHDL's synthesis, as a
    /// unified diff of the files as flexpmu compiles them (`patch -p1`
    /// in the `FlexGripPlus_4.4` folder applies it to a stock tree), and
    /// import nothing.
    #[arg(long)]
    patch: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// What the imported GPGPU holds.
#[derive(serde::Serialize)]
struct Summary {
    variant: Variant,
    netlist: String,
    netlist_bytes: u64,
    /// Made by this run (false: from the cache).
    built: bool,
    import_seconds: f64,
    modules: usize,
    /// The compiled engine's netlist.
    nodes: usize,
    registers: usize,
    flip_flop_bits: usize,
    memories: usize,
    memory_bits: usize,
    signals: usize,
    /// Lines rewritten for GHDL's synthesis (`--patch` prints them).
    rewrites: usize,
}

pub fn fgp(args: &FgpArgs) -> Result<ExitCode> {
    match &args.command {
        FgpCommand::Import(args) => import_command(args),
        FgpCommand::App(args) => app::app(args),
        FgpCommand::Apps(args) => app::apps(args),
        FgpCommand::Toggles(args) => toggles::toggles(args),
    }
}

fn import_command(args: &ImportArgs) -> Result<ExitCode> {
    if args.patch {
        let mut ignored: Vec<&str> = args
            .source
            .given()
            .into_iter()
            .filter(|o| *o != "--flexgripplus")
            .collect();
        if args.json {
            ignored.push("--json");
        }
        if let Some(option) = ignored.first() {
            bail!("{option}: --patch prints the rewritten lines and imports nothing (leave out {option})");
        }
    }
    let variant = if args.stock {
        Variant::Stock
    } else {
        Variant::Kit
    };
    let plugin = match args.patch {
        true => None,
        false => Some(args.source.plugin()?),
    };
    let tree = args.source.tree()?;
    let kit = flexpmu_flexgripplus::sources_of(variant)?;
    let patch = RtlNetlist::rewrites(&tree, variant, &kit)?;
    let Some(plugin) = plugin else {
        outln!("{patch}");
        return Ok(ExitCode::SUCCESS);
    };
    let cache = args.source.cache();
    let spinner = if args.json {
        ProgressBar::hidden()
    } else {
        crate::progress::spinner()
    };
    spinner.enable_steady_tick(Duration::from_millis(200));
    let imported = import(&tree, variant, &plugin, &cache, &[], &spinner)?;
    spinner.set_message("compiling the imported GPGPU for flexpmu's engine");
    let sim = CompiledSim::new(&imported.design)?;
    spinner.finish_and_clear();
    let netlist = sim.netlist();
    let json = imported.netlist.json();
    let summary = Summary {
        variant,
        netlist: json.display().to_string(),
        netlist_bytes: std::fs::metadata(&json).map(|m| m.len()).unwrap_or(0),
        built: imported.netlist.built,
        import_seconds: imported.seconds,
        modules: imported.design.modules.len(),
        nodes: netlist.nodes.len(),
        registers: netlist.registers.len(),
        flip_flop_bits: netlist.registers.iter().map(|r| r.width).sum(),
        memories: netlist.memories.len(),
        memory_bits: netlist.memories.iter().map(|m| m.width * m.size).sum(),
        signals: netlist.signals.len(),
        rewrites: patch.matches("\n@@ ").count(),
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "FlexGripPlus' GPGPU ({}) {}: {} ({:.1} MB), imported in {:.1} s",
        match variant {
            Variant::Kit => "with flexpmu's kit",
            Variant::Stock => "stock",
        },
        if summary.built {
            "read by Yosys now"
        } else {
            "from the cache"
        },
        summary.netlist,
        summary.netlist_bytes as f64 / 1e6,
        summary.import_seconds
    );
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(["", "count", "bits"]);
    let rows = [
        ("modules (IR)", summary.modules, None),
        ("nodes (compiled)", summary.nodes, None),
        ("registers", summary.registers, Some(summary.flip_flop_bits)),
        ("memories", summary.memories, Some(summary.memory_bits)),
        ("named signals", summary.signals, None),
    ];
    for (what, count, bits) in rows {
        table.add_row([
            what.to_string(),
            count.to_string(),
            bits.map_or(String::new(), |b| b.to_string()),
        ]);
    }
    outln!("{table}");
    outln!(
        "{} lines rewritten for GHDL's synthesis (--patch prints them)",
        summary.rewrites
    );
    Ok(ExitCode::SUCCESS)
}
