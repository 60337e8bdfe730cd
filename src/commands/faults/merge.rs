//! `flexpmu faults merge`: the summary of a campaign's shard results, the
//! same as the campaign run whole; an incomplete set of shards is an
//! error naming what is missing, unless `--partial`.

use std::process::ExitCode;

use anyhow::{bail, Result};
use flexpmu_studies::faults::merge::merge as merge_files;
use flexpmu_studies::faults::Summary;

use super::report::print_summary;
use super::MergeArgs;

pub(super) fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let merged = merge_files(&args.files)?;
    let missing = merged.missing();
    if missing > 0 && !args.partial {
        bail!(
            "the campaign is incomplete: {missing} of its {} selected faults are in no file ({}); pass --partial for a summary of the faults run so far",
            merged.info.selected,
            merged.missing_description()
        );
    }
    let summary = Summary::new(&merged.results, &merged.info);
    if args.json {
        let mut json = summary.json();
        json["missing"] = serde_json::json!(missing);
        outln!("{json}");
    } else {
        print_summary(&summary, &merged.info)?;
        outln!(
            "{} file(s), {} shard(s){}",
            args.files.len(),
            merged.shards.len(),
            if missing > 0 {
                format!(
                    ", {missing} selected fault(s) not run yet: {}",
                    merged.missing_description()
                )
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
