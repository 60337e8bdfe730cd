//! Which of the two cores a campaign runs on (the SM slice or
//! FlexGripPlus' imported GPGPU), and what the two differ in, asked
//! before a core is found or opened, or of a results file's campaign
//! ([`CampaignInfo::kind`](super::CampaignInfo::kind)): their units,
//! site classes and outcomes, whether one fault's run can be watched,
//! whether a monitor map can wire their channels, a search's default
//! measurement. Opening one is `crate::cores`.

use super::site::Class;
use super::{Faults, Outcome, UnitsOf};

/// On FlexGripPlus' imported GPGPU, a search's kernel and baselines are
/// measured on a sample for this margin (at 99 % confidence) unless the
/// user says: its GPU proper holds some 10^5 faults, every one too many
/// per program.
pub const RTL_MARGIN: f64 = 0.01;

/// Which of the two cores a study runs on, before it is found: what the
/// cores differ in, asked before anything is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreKind {
    /// flexpmu's SM slice.
    Slice,
    /// FlexGripPlus' imported GPGPU.
    FgpRtl,
}

impl CoreKind {
    /// What a list of its fault sites shows, in words.
    pub fn sites_described(&self) -> &'static str {
        match self {
            CoreKind::Slice => "the SM core's fault sites and faults",
            CoreKind::FgpRtl => "FlexGripPlus' GPGPU's fault sites and faults, in its units (cycles from power-up: reset and the launch's configuration writes included); the logic (nets and flip-flops)",
        }
    }

    /// The units its faults can be in, when known before it is opened
    /// (FlexGripPlus' are its netlist's, known once it is imported).
    pub fn units_before_opening(&self) -> Option<UnitsOf> {
        match self {
            CoreKind::Slice => Some(UnitsOf::Slice),
            CoreKind::FgpRtl => None,
        }
    }

    /// The classes its sites come in (the SM slice's are all logic).
    pub fn classes(&self) -> &'static [Class] {
        match self {
            CoreKind::Slice => &[Class::Logic],
            CoreKind::FgpRtl => &[Class::Logic, Class::Memory],
        }
    }

    /// Whether it runs FlexGripPlus' own launch only: its timing, the
    /// kit's PMU (no monitor map, no selectors), the compiled engine, the
    /// vector addition on whole warps.
    pub fn fixed_launch(&self) -> bool {
        matches!(self, CoreKind::FgpRtl)
    }

    /// Whether one fault's run can be run on its own and watched (its
    /// waveform written): on the SM slice.
    pub fn watches_one_fault(&self) -> bool {
        matches!(self, CoreKind::Slice)
    }

    /// What "every fault" is when a search measures a kernel on it:
    /// every one on the SM slice, a sample for `margin` (else
    /// [`RTL_MARGIN`]) on FlexGripPlus' GPGPU.
    pub fn every_fault(&self, margin: Option<f64>) -> Faults {
        match self {
            CoreKind::Slice => margin.map_or(Faults::Exhaustive, Faults::Margin),
            CoreKind::FgpRtl => Faults::Margin(margin.unwrap_or(RTL_MARGIN)),
        }
    }

    /// The outcomes a fault can have on it: on FlexGripPlus' RTL neither
    /// `due` (it has no memory protection) nor `unmodelled` (the RTL is
    /// the model).
    pub fn outcomes(&self) -> Vec<Outcome> {
        Outcome::ALL
            .into_iter()
            .filter(|o| match self {
                CoreKind::Slice => true,
                CoreKind::FgpRtl => !matches!(o, Outcome::Due | Outcome::Unmodelled),
            })
            .collect()
    }

    /// Whether a monitor map can wire its channels (a map names the SM
    /// slice's signals; FlexGripPlus' are wired in its VHDL).
    pub fn takes_monitor_maps(&self) -> bool {
        matches!(self, CoreKind::Slice)
    }

    /// What a campaign's golden cycles on it count, in words; `gates`:
    /// the units at gate level.
    pub fn cycles_described(&self, gates: Option<&str>) -> String {
        match (self, gates) {
            (CoreKind::Slice, _) => "cycles fault-free".to_string(),
            (CoreKind::FgpRtl, None) => {
                "cycles fault-free from power-up on FlexGripPlus' imported RTL".to_string()
            }
            (CoreKind::FgpRtl, Some(units)) => format!("cycles fault-free from power-up on FlexGripPlus' imported RTL, {units} at gate level (AND, OR, XOR, MUX, NOT), the rest at RTL"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_core_has_the_outcomes_and_classes_it_can_have() {
        assert_eq!(CoreKind::Slice.outcomes(), Outcome::ALL.to_vec());
        let rtl = CoreKind::FgpRtl.outcomes();
        assert_eq!(rtl.len(), Outcome::ALL.len() - 2);
        assert!(!rtl.contains(&Outcome::Due) && !rtl.contains(&Outcome::Unmodelled));
        assert!(rtl.contains(&Outcome::Hang));
        assert_eq!(CoreKind::Slice.classes(), &[Class::Logic]);
        assert_eq!(CoreKind::FgpRtl.classes(), &[Class::Logic, Class::Memory]);
        assert!(CoreKind::Slice.watches_one_fault() && !CoreKind::FgpRtl.watches_one_fault());
        assert!(CoreKind::FgpRtl.fixed_launch() && !CoreKind::Slice.fixed_launch());
        assert_eq!(
            CoreKind::FgpRtl.every_fault(None),
            Faults::Margin(RTL_MARGIN)
        );
        assert_eq!(CoreKind::Slice.every_fault(None), Faults::Exhaustive);
        assert_eq!(
            CoreKind::Slice.every_fault(Some(0.02)),
            Faults::Margin(0.02)
        );
        assert!(CoreKind::FgpRtl.units_before_opening().is_none());
    }

    #[test]
    fn a_campaigns_cycles_say_where_they_were_counted() {
        assert_eq!(CoreKind::Slice.cycles_described(None), "cycles fault-free");
        assert!(CoreKind::FgpRtl
            .cycles_described(Some("uwarpunit"))
            .contains("uwarpunit at gate level"));
        assert!(!CoreKind::FgpRtl
            .cycles_described(None)
            .contains("gate level"));
    }
}
