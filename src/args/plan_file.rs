//! A campaign's options as its plan file records them
//! (`flexpmu_studies::faults::plan_file`, the file's format and checks)
//! and back: the program and launch.

use flexpmu_studies::faults::plan_file::{LaunchRecord, Memory, PlannedLaunch, SmRecord};

use super::campaign::CampaignLaunch;
use super::launch::{LaunchArgs, MemoryKind, SmArgs};

/// The program and launch as a plan records them.
pub fn planned(campaign: &CampaignLaunch) -> PlannedLaunch {
    let LaunchArgs {
        threads,
        blocks,
        memory,
        gmem_bits,
        ref sm,
    } = campaign.launch;
    PlannedLaunch {
        file: campaign.file.clone(),
        launch: LaunchRecord {
            threads,
            blocks,
            memory: match memory {
                MemoryKind::Flexgripplus => Memory::Flexgripplus,
                MemoryKind::Protected => Memory::Protected,
            },
            gmem_bits,
            sm: SmRecord {
                timing: sm.timing,
                blocks_per_core: sm.blocks_per_core,
                registers: sm.registers,
                no_pmu: sm.no_pmu,
                engine: sm.engine,
                monitor_map: sm.monitor_map.clone(),
            },
        },
        loop_launch: campaign.loop_launch,
        selector: campaign.selector,
    }
}

/// The options a plan's program and launch are.
pub fn campaign(planned: &PlannedLaunch) -> CampaignLaunch {
    let launch = &planned.launch;
    let sm = &launch.sm;
    CampaignLaunch {
        file: planned.file.clone(),
        launch: LaunchArgs {
            threads: launch.threads,
            blocks: launch.blocks,
            memory: match launch.memory {
                Memory::Flexgripplus => MemoryKind::Flexgripplus,
                Memory::Protected => MemoryKind::Protected,
            },
            gmem_bits: launch.gmem_bits,
            sm: SmArgs {
                timing: sm.timing,
                blocks_per_core: sm.blocks_per_core,
                registers: sm.registers,
                no_pmu: sm.no_pmu,
                engine: sm.engine,
                monitor_map: sm.monitor_map.clone(),
            },
        },
        loop_launch: planned.loop_launch,
        selector: planned.selector,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_campaigns_options_come_back_from_its_plan_as_they_went() {
        let mut options = CampaignLaunch {
            file: Some("k.sass".into()),
            launch: LaunchArgs {
                threads: 96,
                blocks: 3,
                memory: MemoryKind::Protected,
                gmem_bits: Some(20),
                ..LaunchArgs::default()
            },
            loop_launch: Some(7),
            selector: Some(1),
        };
        options.launch.sm.registers = Some(12);
        options.launch.sm.no_pmu = true;
        options.launch.sm.monitor_map = Some("m.toml".into());
        let back = campaign(&planned(&options));
        assert_eq!(planned(&back), planned(&options));
        assert_eq!(back.launch.memory, MemoryKind::Protected);
        assert_eq!(back.launch.sm.registers, Some(12));
    }
}
