//! A design of the registry as a command-line value (`synth`, `export`).

use std::sync::OnceLock;

use clap::builder::PossibleValue;
use clap::ValueEnum;
use flexpmu_ir::{registry, DesignEntry};

/// A design of the registry, by its name (or its module name); the help
/// lists every design with its description.
#[derive(Clone, Copy, Debug)]
pub struct DesignArg(pub &'static DesignEntry);

/// A design `flexpmu export` writes.
#[derive(Clone, Copy, Debug)]
pub struct ExportedDesignArg(pub &'static DesignEntry);

/// Its name, with its module name (`flexpmu_pmu`) and that name without
/// the prefix (`decode_stage`) as aliases.
fn possible_value(design: &DesignEntry) -> PossibleValue {
    let short = design.module.trim_start_matches("flexpmu_");
    let value = PossibleValue::new(design.name)
        .help(design.description)
        .alias(design.module);
    if short == design.name {
        value
    } else {
        value.alias(short)
    }
}

impl ValueEnum for DesignArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<DesignArg>> = OnceLock::new();
        ALL.get_or_init(|| registry::DESIGNS.iter().map(DesignArg).collect())
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(possible_value(self.0))
    }
}

impl ValueEnum for ExportedDesignArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<ExportedDesignArg>> = OnceLock::new();
        ALL.get_or_init(|| registry::exported().map(ExportedDesignArg).collect())
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(possible_value(self.0))
    }
}
