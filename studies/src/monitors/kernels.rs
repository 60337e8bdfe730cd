//! Campaigns' results files read as the kernels a selection chooses from
//! or is measured on: the files grouped by campaign (a campaign's shards
//! merged), each campaign a kernel of its units' faults, and the
//! candidates they share.

use std::path::PathBuf;

use super::candidates::Candidate;
use super::selection::{common_candidates, Kernel, SelectionError};
use crate::faults::merge::{merge_read, MergeError};
use crate::faults::results_file::{read_results, CampaignInfo, ResultsFile, ResultsFileError};
use crate::faults::Unit;

/// The kernels of some results files.
pub struct Kernels {
    /// One per campaign, in the order of their first files.
    pub kernels: Vec<Kernel>,
    /// The candidates every campaign counted.
    pub candidates: Vec<Candidate>,
    /// Each kernel's campaign and the name it goes by (its first file).
    pub campaigns: Vec<(CampaignInfo, String)>,
    /// What a reader should know (a campaign's faults in no file given).
    pub notes: Vec<String>,
}

/// Why results files cannot be selected from.
#[derive(Debug, thiserror::Error)]
pub enum KernelsError {
    #[error(transparent)]
    Results(#[from] ResultsFileError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Selection(#[from] SelectionError),
    #[error("{0}: the campaign ran with --monitor-map; select chooses from campaigns of the built-in map (today's channels are its baseline)")]
    MonitorMap(String),
    #[error("{0}: {1}")]
    Units(String, String),
    #[error("{0}: holds no fault result (a campaign stopped before its first fault, or a file of none): nothing to select from")]
    NoResult(String),
    #[error("{path}: its campaign ran on another design than {first}'s (their {differ} differ): select chooses counters for one design, from kernels run on it")]
    OtherDesign {
        path: String,
        first: String,
        differ: String,
    },
}

/// The units a campaign's kernel is taken on (why not, for units it
/// does not have).
pub type UnitChooser<'a> = &'a dyn Fn(&CampaignInfo) -> Result<Vec<Unit>, String>;

/// The kernels of `files` (one per campaign), each on the faults of the
/// units `units` gives for its campaign.
pub fn read_kernels(files: &[PathBuf], units: UnitChooser) -> Result<Kernels, KernelsError> {
    // Each file read once, grouped by campaign.
    let mut groups: Vec<Vec<(PathBuf, ResultsFile)>> = Vec::new();
    for path in files {
        let file = read_results(path)?;
        if file.info.monitor_map.is_some() {
            return Err(KernelsError::MonitorMap(path.display().to_string()));
        }
        match groups
            .iter_mut()
            .find(|g| g[0].1.info.same_campaign(&file.info))
        {
            Some(group) => group.push((path.clone(), file)),
            None => groups.push(vec![(path.clone(), file)]),
        }
    }
    // Every kernel on one design: the same core, at the same level, of
    // the same RTL.
    if let Some(first) = groups.first() {
        let (first_path, first) = (&first[0].0, &first[0].1.info);
        for group in &groups[1..] {
            let (path, info) = (&group[0].0, &group[0].1.info);
            if info.core != first.core || info.design != first.design {
                let differ = [
                    (info.core != first.core).then_some("core"),
                    (info.design != first.design).then_some("design"),
                ];
                return Err(KernelsError::OtherDesign {
                    path: path.display().to_string(),
                    first: first_path.display().to_string(),
                    differ: differ
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" and "),
                });
            }
        }
    }
    let mut kernels = Vec::new();
    let mut infos = Vec::new();
    let mut campaigns = Vec::new();
    let mut notes = Vec::new();
    for group in groups {
        let name = group[0].0.display().to_string();
        let merged = merge_read(group.into_iter().map(Ok))?;
        if merged.results.is_empty() {
            return Err(KernelsError::NoResult(name));
        }
        if merged.missing() > 0 {
            notes.push(format!(
                "{name}: {} of the campaign's faults are in no file given ({}); selecting from the others",
                merged.missing(),
                merged.missing_description()
            ));
        }
        let units = units(&merged.info).map_err(|e| KernelsError::Units(name.clone(), e))?;
        kernels.push(Kernel::of(&merged, &name, &units)?);
        campaigns.push((merged.info.clone(), name.clone()));
        infos.push((name, merged.info.matrix));
    }
    let named: Vec<_> = infos
        .iter()
        .filter_map(|(n, m)| m.as_ref().map(|m| (n.as_str(), m)))
        .collect();
    let candidates = common_candidates(&named)?.to_vec();
    Ok(Kernels {
        kernels,
        candidates,
        campaigns,
        notes,
    })
}
