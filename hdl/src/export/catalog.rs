//! The designs flexpmu exports, with their top-level names.

use rust_hdl::prelude::Block;

use super::{export, Design, ExportError};
use crate::{DecodeHook, DecodeStage, DefaultPmu, ExecuteHook, ExecuteStage, HookedPmu, SmCore};

/// One exportable design.
pub struct Exportable {
    /// Top module / entity name, also the file stem.
    pub name: &'static str,
    pub description: &'static str,
    build: fn() -> Result<Design, ExportError>,
}

impl Exportable {
    pub fn design(&self) -> Result<Design, ExportError> {
        (self.build)()
    }
}

fn build<B: Block + Default>(top: &str) -> Result<Design, ExportError> {
    let mut block = B::default();
    block.connect_all();
    export(&block, top)
}

/// Every exported design, in a stable order.
pub const DESIGNS: &[Exportable] = &[
    Exportable {
        name: "flexpmu_pmu",
        description: "the PMU: 16 counters of 32 bits, 32-bit toggle channels",
        build: || build::<DefaultPmu>("flexpmu_pmu"),
    },
    Exportable {
        name: "flexpmu_decode_hook",
        description: "decode stage with the FlexGripPlus handshake and the PMEVENT hook",
        build: || build::<DecodeHook>("flexpmu_decode_hook"),
    },
    Exportable {
        name: "flexpmu_execute_hook",
        description: "execute-stage result selection for PMU reads",
        build: || build::<ExecuteHook>("flexpmu_execute_hook"),
    },
    Exportable {
        name: "flexpmu_decode_stage",
        description:
            "SM-slice decode stage: FlexGripPlus handshake, G80 subset decoder, PMEVENT hook",
        build: || build::<DecodeStage>("flexpmu_decode_stage"),
    },
    Exportable {
        name: "flexpmu_execute_stage",
        description: "SM-slice execute stage: eight integer ALUs and the PMU hook",
        build: || build::<ExecuteStage>("flexpmu_execute_stage"),
    },
    Exportable {
        name: "flexpmu_hooked_pmu",
        description: "decode hook + PMU + execute hook, wired as in thesis figure 2.7",
        build: || build::<HookedPmu>("flexpmu_hooked_pmu"),
    },
    Exportable {
        name: "flexpmu_sm_core",
        description: "SM-slice core: decode and execute stages with the hooks, and the PMU monitoring 16 SM signals",
        build: || build::<SmCore>("flexpmu_sm_core"),
    },
];

/// Looks a design up by name (with or without the `flexpmu_` prefix).
pub fn find(name: &str) -> Option<&'static Exportable> {
    DESIGNS
        .iter()
        .find(|d| d.name == name || d.name.strip_prefix("flexpmu_") == Some(name))
}
