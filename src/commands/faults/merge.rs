//! `flexpmu faults merge`: the summary of a campaign's shard results, the
//! same as the campaign run whole.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flexpmu_studies::faults::results_file::{read_results, CampaignInfo, ResultsFile};
use flexpmu_studies::faults::{FaultResult, Summary};

use super::report::print_summary;
use super::MergeArgs;

pub(super) fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let mut info: Option<CampaignInfo> = None;
    let mut results: BTreeMap<u64, FaultResult> = BTreeMap::new();
    let mut shards = BTreeSet::new();
    for path in &args.files {
        let ResultsFile {
            info: found,
            results: file_results,
            ..
        } = read_results(path)?;
        match &info {
            None => info = Some(found.clone()),
            Some(first) if !first.same_campaign(&found) => bail!(
                "{}: a shard of another campaign than {} (program, launch, models, units, sample or seed differ)",
                path.display(),
                args.files[0].display()
            ),
            Some(_) => {}
        }
        shards.insert(found.shard);
        for r in file_results {
            if let Some(old) = results.get(&r.id) {
                if *old != r {
                    bail!(
                        "{}: fault {} has another result than in an earlier file",
                        path.display(),
                        r.id
                    );
                }
            }
            results.insert(r.id, r);
        }
    }
    let mut info = info.context("no results file given")?;
    info.shard = [0, 1];
    let summary = Summary::new(results.values(), &info);
    if args.json {
        outln!("{}", summary.json());
    } else {
        print_summary(&summary, &info)?;
        let missing = info.selected.saturating_sub(summary.faults);
        outln!(
            "{} file(s), {} shard(s){}",
            args.files.len(),
            shards.len(),
            if missing > 0 {
                format!(", {missing} selected fault(s) not run yet")
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
