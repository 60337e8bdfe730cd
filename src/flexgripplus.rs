//! FlexGripPlus as the commands reach it, with progress on stderr: its
//! VHDL made ready for GHDL, its RTL imported into flexpmu's IR
//! (`flexpmu_flexgripplus::rtl::import`, the steps on a spinner).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use flexpmu_flexgripplus::rtl::Imported;
use flexpmu_flexgripplus::{default_cache, Design, Tree, Variant};
use indicatif::ProgressBar;

use crate::progress::note_or_step;

/// FlexGripPlus of `tree` as `variant` through the plugin `plugin`: its
/// netlist made (or taken from `cache`), the units `gates` mapped to
/// gates, and imported, the steps shown on `spinner`.
pub fn import(
    tree: &Tree,
    variant: Variant,
    plugin: &Path,
    cache: &Path,
    gates: &[String],
    spinner: &ProgressBar,
) -> Result<Imported> {
    let what = format!("FlexGripPlus' RTL ({})", variant.name());
    Ok(flexpmu_flexgripplus::rtl::import(
        tree,
        variant,
        plugin,
        cache,
        gates,
        &mut |step| note_or_step(spinner, &what, step),
    )?)
}

/// FlexGripPlus of `tree` made ready (analysed once per tree, then from
/// the cache), saying so on stderr when it is analysed.
pub fn prepare(tree: &Tree, variant: Variant, cache: Option<PathBuf>) -> Result<Design> {
    let cache = cache.unwrap_or_else(default_cache);
    let kit = flexpmu_flexgripplus::sources_of(variant)?;
    let spinner = crate::progress::spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    let design = Design::prepare(tree, variant, &kit, &cache, &mut |step| {
        note_or_step(
            &spinner,
            &format!("FlexGripPlus ({})", variant.name()),
            step,
        );
    })?;
    spinner.finish_and_clear();
    if design.built {
        eprintln!(
            "FlexGripPlus ({}) analysed into {}",
            variant.name(),
            design.dir.display()
        );
    }
    Ok(design)
}
