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
}
