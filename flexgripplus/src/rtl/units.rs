//! FlexGripPlus' units: the entity a signal of the imported GPGPU belongs
//! to, as the literature names them (`upipelinedecode`, `uwarpunit`, …),
//! and which of them are the GPU proper.

use super::SM_INSTANCE;

/// The FlexGripPlus unit of a signal named `name` in the imported GPGPU:
/// below the SM, its first instance (FlexGripPlus' entity: `upipelinedecode`,
/// `uwarpunit`, …), the instances of a generate's cores as one
/// (`gregisterfile_3_uregisterfile` is `uregisterfile`); the SM's own
/// signals `ustreamingmultiprocessor`; outside the SM, the top's instance
/// (`ublockscheduler`, …) or `top` for the top's own signals.
pub fn unit(name: &str) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    let instances = &parts[..parts.len().saturating_sub(1)];
    match instances {
        [] => "top".to_string(),
        [sm] if *sm == SM_INSTANCE => SM_INSTANCE.to_string(),
        [sm, child, ..] if *sm == SM_INSTANCE => generate_folded(child).to_string(),
        [first, ..] => generate_folded(first).to_string(),
    }
}

/// The units outside the SM: the GPGPU top's own signals and its other
/// instances (the board: configuration, block scheduler, memories).
pub const BOARD_UNITS: [&str; 6] = [
    "top",
    "ublockscheduler",
    "uconstantmemory",
    "uglobalmemory",
    "ugpgpuconfiguration",
    "usystemmemorycontroller",
];

/// The kit's units in the SM: the PMU and its two hooks.
pub const KIT_UNITS: [&str; 3] = ["uflexpmudecodehook", "uflexpmuexecutehook", "uflexpmupmu"];

/// Whether `unit` is of the GPU proper: the SM's own (neither the
/// board's nor the kit's), what a selection's faults are drawn from
/// unless told.
pub fn gpu_proper(unit: &str) -> bool {
    !BOARD_UNITS.contains(&unit) && !KIT_UNITS.contains(&unit)
}

/// A generate's instance `g<name>_<index>_<instance>` as its instance.
fn generate_folded(instance: &str) -> &str {
    let Some(rest) = instance.strip_prefix('g') else {
        return instance;
    };
    let mut fields = rest.splitn(3, '_');
    match (fields.next(), fields.next(), fields.next()) {
        (Some(_), Some(index), Some(inner))
            if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) =>
        {
            inner
        }
        _ => instance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_flexgripplus_entities() {
        let cases = [
            (
                "ustreamingmultiprocessor.upipelinedecode.instr_opcode_out",
                "upipelinedecode",
            ),
            (
                "ustreamingmultiprocessor.gregisterfile_3_uregisterfile.uvectorregisterfile.x",
                "uregisterfile",
            ),
            (
                "ustreamingmultiprocessor.gwarpdivergencestack_12_uwarpdivergencestack.sp",
                "uwarpdivergencestack",
            ),
            (
                "ustreamingmultiprocessor.upipelineexecute.gscalarprocessor_2_uscalarprocessor.r",
                "upipelineexecute",
            ),
            (
                "ustreamingmultiprocessor.uflexpmupmu.pmu.counters_3.count",
                "uflexpmupmu",
            ),
            (
                "ustreamingmultiprocessor.warp_id_ew",
                "ustreamingmultiprocessor",
            ),
            ("ublockscheduler.state", "ublockscheduler"),
            ("kernel_done", "top"),
            ("g_1.x", "g_1"),
            ("gfoo_x_bar.y", "gfoo_x_bar"),
        ];
        for (name, expected) in cases {
            assert_eq!(unit(name), expected, "{name}");
        }
        // The GPU proper: the SM's units, not the board's or the kit's.
        let proper: Vec<&str> = [
            "upipelinedecode",
            "ustreamingmultiprocessor",
            "uflexpmupmu",
            "ublockscheduler",
            "top",
        ]
        .into_iter()
        .filter(|u| gpu_proper(u))
        .collect();
        assert_eq!(proper, ["upipelinedecode", "ustreamingmultiprocessor"]);
    }
}
