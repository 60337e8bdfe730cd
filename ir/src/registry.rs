//! The one registry of flexpmu's designs: what `flexpmu export` writes,
//! what `synth --top`, `verify` and `bench` take, and what the command
//! line's help lists.

use std::sync::OnceLock;

use rust_hdl::prelude::Block;

use crate::module_names::{name_together, named_extra, Naming};
use crate::{lower, Design, LowerError};
use flexpmu_hdl::hooks::decode_hook::DecodeHookOptions;
use flexpmu_hdl::hooks::execute_hook::DEFAULT_LANES;
use flexpmu_hdl::sm::execute_stage::ExecuteLatency;
use flexpmu_hdl::support::reset_dff::ResetKind;
use flexpmu_hdl::{
    CommandDecoder, CounterSubunit, DecodeHook, DecodeStage, DefaultPmu, ExecuteHook, ExecuteStage,
    HookedPmu, OutputMux, PmuConfig, SmCore, ToggleConverter,
};

/// One design.
#[derive(Debug)]
pub struct DesignEntry {
    /// The name the command line takes (`pmu`, `decode-hook`, ...).
    pub name: &'static str,
    /// Its top module / entity (`flexpmu_pmu`), also the file stem of its
    /// export.
    pub module: &'static str,
    pub description: &'static str,
    /// `flexpmu export` writes it to `generated_vhdl/`, with testbenches.
    pub exported: bool,
    build: fn(&'static str) -> Result<Design, LowerError>,
    rust_hdl_verilog: fn() -> String,
}

impl DesignEntry {
    /// The design, exported to the IR the printers take, its modules
    /// named as in the whole export set (see [`crate::module_names`]).
    pub fn design(&self) -> Result<Design, LowerError> {
        let index = DESIGNS
            .iter()
            .position(|d| std::ptr::eq(d, self) || d.name == self.name)
            .expect("a registry entry");
        match named() {
            Ok((designs, _)) => Ok(designs[index].clone()),
            Err(error) => Err(error.clone()),
        }
    }

    /// The design exported on its own, with names local to it.
    fn local_design(&self) -> Result<Design, LowerError> {
        (self.build)(self.module)
    }

    /// rust-hdl's own Verilog of the same block (module `top`), which the
    /// export is proven equivalent to.
    pub fn rust_hdl_verilog(&self) -> String {
        (self.rust_hdl_verilog)()
    }
}

pub(crate) fn connected<B: Block>(mut block: B) -> B {
    block.connect_all();
    block
}

/// A registry entry for the block `$block` builds.
macro_rules! entry {
    ($name:literal, $module:literal, $exported:literal, $description:literal, $block:expr) => {
        DesignEntry {
            name: $name,
            module: $module,
            description: $description,
            exported: $exported,
            build: |top| lower(&connected($block), top),
            rust_hdl_verilog: || rust_hdl::prelude::generate_verilog(&connected($block)),
        }
    };
}

/// Every design, in a stable order (the PMU and its blocks, the hooks,
/// the SM slice's stages without and with the hooks, the SM core).
pub const DESIGNS: &[DesignEntry] = &[
    entry!(
        "pmu",
        "flexpmu_pmu",
        true,
        "the PMU: 16 counters of 32 bits, 32-bit toggle channels",
        DefaultPmu::default()
    ),
    entry!(
        "pmu-s2",
        "flexpmu_pmu_s2",
        false,
        "the PMU with event selectors: 2 inputs per channel (32 monitored signals)",
        DefaultPmu::new(&PmuConfig::uniform(16, 32).with_selectors(2))
    ),
    entry!(
        "pmu-s4",
        "flexpmu_pmu_s4",
        false,
        "the PMU with event selectors: 4 inputs per channel (64 monitored signals)",
        DefaultPmu::new(&PmuConfig::uniform(16, 32).with_selectors(4))
    ),
    entry!(
        "pmu-s8",
        "flexpmu_pmu_s8",
        false,
        "the PMU with event selectors: 8 inputs per channel (128 monitored signals)",
        DefaultPmu::new(&PmuConfig::uniform(16, 32).with_selectors(8))
    ),
    entry!(
        "decoder",
        "flexpmu_command_decoder",
        false,
        "the PMU's command decoder",
        CommandDecoder::<16>::default()
    ),
    entry!(
        "converter",
        "flexpmu_toggle_converter",
        false,
        "one toggle converter channel (32 bits)",
        ToggleConverter::<32>::default()
    ),
    entry!(
        "counter",
        "flexpmu_counter_subunit",
        false,
        "one counter subunit (32 bits)",
        CounterSubunit::<32>::default()
    ),
    entry!(
        "mux",
        "flexpmu_output_mux",
        false,
        "the 16-to-1 output mux (32 bits)",
        OutputMux::<16, 32>::default()
    ),
    entry!(
        "decode-hook",
        "flexpmu_decode_hook",
        true,
        "the PMEVENT hook beside FlexGripPlus' decode: one PMU command per warp instruction, IDL passes marked as register writes, the interlock (synchronous reset)",
        DecodeHook::default()
    ),
    entry!(
        "decode-hook-async",
        "flexpmu_decode_hook_async",
        true,
        "the decode hook with FlexGripPlus' asynchronous reset (what the FlexGripPlus kit instantiates)",
        DecodeHook::new(DecodeHookOptions {
            enabled: true,
            reset: ResetKind::Asynchronous,
            ..Default::default()
        })
    ),
    entry!(
        "execute-hook",
        "flexpmu_execute_hook",
        true,
        "the execute hook: a PMU read's result in all 8 lanes of a pass",
        ExecuteHook::<DEFAULT_LANES>::default()
    ),
    entry!(
        "decode-basic",
        "flexpmu_decode_stage_basic",
        false,
        "SM-slice decode stage: FlexGripPlus handshake once per pass, G80 subset decoder, no PMEVENT hook",
        DecodeStage::new(false)
    ),
    entry!(
        "decode",
        "flexpmu_decode_stage",
        true,
        "SM-slice decode stage: FlexGripPlus handshake once per pass, G80 subset decoder, PMEVENT hook",
        DecodeStage::new(true)
    ),
    entry!(
        "execute-basic",
        "flexpmu_execute_stage_basic",
        false,
        "SM-slice execute stage: eight integer ALUs with FlexGripPlus' latency, no PMU hook",
        ExecuteStage::new(false, ExecuteLatency::FlexGripPlus)
    ),
    entry!(
        "execute",
        "flexpmu_execute_stage",
        true,
        "SM-slice execute stage: eight integer ALUs with FlexGripPlus' latency and the PMU hook",
        ExecuteStage::new(true, ExecuteLatency::FlexGripPlus)
    ),
    entry!(
        "hooked-pmu",
        "flexpmu_hooked_pmu",
        true,
        "decode hook + PMU + execute hook, wired as in thesis figure 2.7",
        HookedPmu::default()
    ),
    entry!(
        "sm-core-basic",
        "flexpmu_sm_core_basic",
        false,
        "SM-slice core without the PMU: the stages' basic variants, no PMU hook, the PMU left unobservable so synthesis removes it",
        SmCore::new(false, ExecuteLatency::FlexGripPlus)
    ),
    entry!(
        "sm-core",
        "flexpmu_sm_core",
        true,
        "SM-slice core: decode and execute stages with the hooks, and the PMU monitoring 16 SM signals",
        SmCore::default()
    ),
];

/// Every design of the registry, exported and named together (in
/// registry order), and the names they took.
type Named = Result<(Vec<Design>, Naming), LowerError>;

fn named() -> &'static Named {
    static NAMED: OnceLock<Named> = OnceLock::new();
    NAMED.get_or_init(|| {
        // Exported designs claim names first, so names in generated_vhdl/
        // do not depend on designs only synthesis uses.
        let order: Vec<usize> = (0..DESIGNS.len())
            .filter(|&i| DESIGNS[i].exported)
            .chain((0..DESIGNS.len()).filter(|&i| !DESIGNS[i].exported))
            .collect();
        let local = order
            .iter()
            .map(|&i| {
                let entry = &DESIGNS[i];
                Ok((entry.local_design()?, entry.module, entry.name))
            })
            .collect::<Result<Vec<_>, LowerError>>()?;
        let (designs, naming) = name_together(local);
        let mut in_registry_order: Vec<Option<Design>> = vec![None; DESIGNS.len()];
        for (i, design) in order.into_iter().zip(designs) {
            in_registry_order[i] = Some(design);
        }
        Ok((in_registry_order.into_iter().flatten().collect(), naming))
    })
}

/// A design outside the registry (a PMU variant), named after every
/// registry design (see [`crate::module_names`]).
pub(crate) fn named_outside(design: Design, top: &str, label: &str) -> Result<Design, LowerError> {
    let (_, naming) = named().as_ref().map_err(Clone::clone)?;
    named_extra(naming, design, top, label)
}

/// Looks a design up by its name or its module name.
pub fn find(name: &str) -> Option<&'static DesignEntry> {
    DESIGNS.iter().find(|d| d.name == name || d.module == name)
}

/// The design named `name`; panics if there is none (for names the code
/// itself uses, such as `"pmu"`).
pub fn get(name: &str) -> &'static DesignEntry {
    find(name).unwrap_or_else(|| panic!("`{name}` is not a registered design"))
}

/// The designs the compiled engine runs from generated Rust (checked in,
/// `generated_rust/`): those flexpmu runs at length — the PMU (`sim`,
/// `verify`, `bench`) and the SM core (`run`, `demo`, `faults`,
/// `validate`, `bench`). Every other design runs on the evaluation loop.
pub const GENERATED_RUST: &[&str] = &["pmu", "sm-core"];

/// The designs of [`GENERATED_RUST`], in that order.
pub fn generated_rust() -> impl Iterator<Item = &'static DesignEntry> {
    GENERATED_RUST.iter().map(|name| get(name))
}

/// The designs `flexpmu export` writes, in order.
pub fn exported() -> impl Iterator<Item = &'static DesignEntry> {
    DESIGNS.iter().filter(|d| d.exported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_modules_are_unique() {
        for (i, a) in DESIGNS.iter().enumerate() {
            for b in &DESIGNS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.module, b.module);
            }
            assert!(a.module.starts_with("flexpmu_"));
            assert_eq!(find(a.name).map(|d| d.module), Some(a.module));
            assert_eq!(find(a.module).map(|d| d.name), Some(a.name));
        }
        // Generated Rust is written for exported designs only.
        assert!(generated_rust().all(|d| d.exported));
    }
}
