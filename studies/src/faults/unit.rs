//! The unit a fault site belongs to, as reports count it: on the SM
//! slice one of its five units; on another core (an imported netlist) a
//! name of its hierarchy.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The SM slice's units, in report order: the core's decode and execute
/// stages, the PMEVENT hooks, the PMU, and the core's ports (the signals
/// of the behavioural units around it: warp unit, read and write stages,
/// memories).
pub const UNITS: [&str; 5] = ["decode", "execute", "hooks", "pmu", "ports"];

/// The units of the GPU proper (what the thesis' coverage figures count):
/// the default of a monitor selection.
pub const GPU_PROPER: [&str; 3] = ["decode", "execute", "ports"];

/// A unit, by its name (in results files, a plain string).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Unit(String);

/// A name that is none of the SM slice's units.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}: expected one of {}", UNITS.join(", "))]
pub struct UnknownUnit {
    /// The name given (shortened if long).
    pub name: String,
}

impl Unit {
    /// A unit named `name`, whatever the core.
    pub fn named(name: impl Into<String>) -> Unit {
        Unit(name.into())
    }

    /// The SM slice's unit `name`.
    pub fn of_slice(name: &str) -> Result<Unit, UnknownUnit> {
        match UNITS.contains(&name) {
            true => Ok(Unit(name.to_string())),
            false => Err(UnknownUnit {
                name: flexpmu_isa::source::shorten(name),
            }),
        }
    }

    /// The SM slice's units `names`, each checked.
    pub fn all_of_slice(names: &[String]) -> Result<Vec<Unit>, UnknownUnit> {
        names.iter().map(|n| Unit::of_slice(n)).collect()
    }

    /// Every unit of the SM slice, in report order.
    pub fn slice() -> Vec<Unit> {
        UNITS.iter().map(|&u| Unit::named(u)).collect()
    }

    /// The units of the GPU proper.
    pub fn gpu_proper() -> Vec<Unit> {
        GPU_PROPER.iter().map(|&u| Unit::named(u)).collect()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `units`' names joined by `separator`.
    pub fn join(units: &[Unit], separator: &str) -> String {
        let names: Vec<&str> = units.iter().map(Unit::as_str).collect();
        names.join(separator)
    }
}

/// The units a core's faults can be in, against which the units a user
/// names are checked: the SM slice's, or those of FlexGripPlus' imported
/// GPGPU that its sites (or a results file's population) hold.
#[derive(Clone, Debug)]
pub enum UnitsOf {
    /// The SM slice's [`UNITS`].
    Slice,
    /// The units of an imported netlist's sites, by name.
    Rtl(Vec<String>),
}

/// What to take when no unit is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoneNamed {
    /// Every unit (an empty list: a campaign's faults on every unit).
    Every,
    /// The GPU proper: on the SM slice [`GPU_PROPER`], on FlexGripPlus'
    /// GPGPU the SM's own units (neither the board's nor the kit's,
    /// `flexpmu_flexgripplus::rtl::units::gpu_proper`).
    GpuProper,
}

/// A unit named that is not one of a core's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotAUnit {
    /// Not one of the SM slice's.
    #[error(transparent)]
    Slice(#[from] UnknownUnit),
    /// Not one the imported netlist's sites are in.
    #[error("{name}: FlexGripPlus' units are {}", known.join(", "))]
    Rtl {
        /// The name given (shortened if long).
        name: String,
        /// The core's units, sorted.
        known: Vec<String>,
    },
}

impl UnitsOf {
    /// The units of an imported netlist's sites (`names`, in any order,
    /// repeated or not).
    pub fn rtl<'a>(names: impl IntoIterator<Item = &'a str>) -> UnitsOf {
        let mut known: Vec<String> = names.into_iter().map(str::to_string).collect();
        known.sort_unstable();
        known.dedup();
        UnitsOf::Rtl(known)
    }

    /// The units `given` (`--unit`'s), each checked; none given, what
    /// `none` says. The one unit policy of campaigns, selections and
    /// test programs on either core.
    pub fn choose(&self, given: &[String], none: NoneNamed) -> Result<Vec<Unit>, NotAUnit> {
        match (self, given.is_empty(), none) {
            (_, true, NoneNamed::Every) => Ok(Vec::new()),
            (UnitsOf::Slice, true, NoneNamed::GpuProper) => Ok(Unit::gpu_proper()),
            (UnitsOf::Rtl(known), true, NoneNamed::GpuProper) => Ok(known
                .iter()
                .filter(|u| flexpmu_flexgripplus::rtl::units::gpu_proper(u))
                .map(|u| Unit::named(u.as_str()))
                .collect()),
            (UnitsOf::Slice, false, _) => Ok(Unit::all_of_slice(given)?),
            (UnitsOf::Rtl(known), false, _) => given
                .iter()
                .map(|name| match known.contains(name) {
                    true => Ok(Unit::named(name.as_str())),
                    false => Err(NotAUnit::Rtl {
                        name: flexpmu_isa::source::shorten(name),
                        known: known.clone(),
                    }),
                })
                .collect(),
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Unit {
    fn from(name: &str) -> Unit {
        Unit::named(name)
    }
}

impl PartialEq<str> for Unit {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Unit {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_unit_is_checked_and_written_as_its_name() {
        assert_eq!(Unit::of_slice("pmu").unwrap(), "pmu");
        assert_eq!(
            Unit::of_slice("alu").unwrap_err().to_string(),
            "alu: expected one of decode, execute, hooks, pmu, ports"
        );
        let all = Unit::all_of_slice(&["decode".into(), "ports".into()]).unwrap();
        assert_eq!(
            serde_json::to_string(&all).unwrap(),
            r#"["decode","ports"]"#
        );
        assert_eq!(Unit::slice().len(), UNITS.len());
    }

    #[test]
    fn units_named_are_checked_and_none_named_is_every_unit_or_the_gpu_proper() {
        let given = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let slice = UnitsOf::Slice;
        assert_eq!(
            slice.choose(&[], NoneNamed::Every).unwrap(),
            Vec::<Unit>::new()
        );
        assert_eq!(
            slice.choose(&[], NoneNamed::GpuProper).unwrap(),
            ["decode", "execute", "ports"]
        );
        assert_eq!(
            slice
                .choose(&given(&["pmu"]), NoneNamed::GpuProper)
                .unwrap(),
            ["pmu"]
        );
        assert_eq!(
            slice
                .choose(&given(&["gpu"]), NoneNamed::Every)
                .unwrap_err()
                .to_string(),
            "gpu: expected one of decode, execute, hooks, pmu, ports"
        );
        let rtl = UnitsOf::rtl(["uwarpunit", "top", "uflexpmupmu", "upipelinedecode", "top"]);
        assert_eq!(
            rtl.choose(&[], NoneNamed::GpuProper).unwrap(),
            ["upipelinedecode", "uwarpunit"]
        );
        assert_eq!(
            rtl.choose(&given(&["top"]), NoneNamed::GpuProper).unwrap(),
            ["top"]
        );
        assert_eq!(
            rtl.choose(&given(&["decode"]), NoneNamed::Every)
                .unwrap_err(),
            NotAUnit::Rtl {
                name: "decode".into(),
                known: given(&["top", "uflexpmupmu", "upipelinedecode", "uwarpunit"])
            }
        );
    }
}
