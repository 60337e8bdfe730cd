//! Merging a campaign's shard files: the same results as the campaign run
//! whole, and exactly what is missing when some shard is absent or cut.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::result::FaultResult;
use super::results_file::{read_results, CampaignInfo, ResultsFile, ResultsFileError};

/// One shard of a merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardState {
    /// `k` of `k/n`.
    pub shard: u64,
    /// Files given for it.
    pub files: usize,
    /// Faults of the shard.
    pub faults: u64,
    /// Faults of the shard no file holds.
    pub missing: u64,
}

/// Shard files merged.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The campaign, as one whole (shard 0 of 1).
    pub info: CampaignInfo,
    /// One per fault id, by id.
    pub results: Vec<FaultResult>,
    /// Every shard of the split, given or not.
    pub shards: Vec<ShardState>,
}

impl Merged {
    /// Selected faults no file holds.
    pub fn missing(&self) -> u64 {
        self.shards.iter().map(|s| s.missing).sum()
    }

    /// What is missing, in words (empty when nothing is).
    pub fn missing_description(&self) -> String {
        let n = self.shards.len();
        let parts: Vec<String> = self
            .shards
            .iter()
            .filter(|s| s.missing > 0)
            .map(|s| {
                if s.files == 0 {
                    format!("shard {}/{n} not given ({} faults)", s.shard, s.faults)
                } else {
                    format!(
                        "shard {}/{n}: {} of its {} faults missing",
                        s.shard, s.missing, s.faults
                    )
                }
            })
            .collect();
        parts.join("; ")
    }
}

/// Why shard files do not merge.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no results file given")]
    NoFiles,
    #[error(transparent)]
    File(#[from] ResultsFileError),
    #[error("{path}: a shard of another campaign than {first} (their {differ} differ)")]
    OtherCampaign {
        path: PathBuf,
        first: PathBuf,
        differ: String,
    },
    #[error("{path}: shard {k}/{n} of another split than {first}'s ({first_n} shards)")]
    OtherSplit {
        path: PathBuf,
        k: u64,
        n: u64,
        first: PathBuf,
        first_n: u64,
    },
    #[error("{path}: fault {id} has another result than in {first}")]
    Contradiction {
        path: PathBuf,
        id: u64,
        first: PathBuf,
    },
}

/// Reads and merges the shard files of one campaign (a shard may be
/// given twice; its results must then agree).
pub fn merge(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    // Read one at a time: only the results kept are held.
    merge_read(
        paths
            .iter()
            .map(|path| Ok((path.clone(), read_results(path)?))),
    )
}

/// [`merge`] of files read (or failing to be read), each with its path.
pub fn merge_read(
    files: impl IntoIterator<Item = Result<(PathBuf, ResultsFile), MergeError>>,
) -> Result<Merged, MergeError> {
    // The files' paths; each result keeps the index of its file's.
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut first: Option<CampaignInfo> = None;
    let mut results: BTreeMap<u64, (FaultResult, usize)> = BTreeMap::new();
    let mut files_per_shard: BTreeMap<u64, usize> = BTreeMap::new();
    for file in files {
        let (path, file) = file?;
        let first_path = paths.first().unwrap_or(&path).clone();
        let info = file.info;
        match &first {
            None => first = Some(info.clone()),
            Some(campaign) if !campaign.same_campaign(&info) => {
                return Err(MergeError::OtherCampaign {
                    path: path.clone(),
                    first: first_path.clone(),
                    differ: campaign.differences(&info),
                })
            }
            Some(campaign) if campaign.shard[1] != info.shard[1] => {
                return Err(MergeError::OtherSplit {
                    path: path.clone(),
                    k: info.shard[0],
                    n: info.shard[1],
                    first: first_path.clone(),
                    first_n: campaign.shard[1],
                })
            }
            Some(_) => {}
        }
        *files_per_shard.entry(info.shard[0]).or_default() += 1;
        for result in file.results {
            match results.get(&result.id) {
                Some((earlier, from)) if *earlier != result => {
                    return Err(MergeError::Contradiction {
                        path: path.clone(),
                        id: result.id,
                        first: paths[*from].clone(),
                    })
                }
                Some(_) => {}
                None => {
                    results.insert(result.id, (result, paths.len()));
                }
            }
        }
        paths.push(path);
    }
    let mut info = first.ok_or(MergeError::NoFiles)?;
    let n = info.shard[1];
    // Every file was read against its shard, so the campaign line holds.
    let selected = info.selected_ids().unwrap_or_default();
    let mut shards: Vec<ShardState> = (0..n)
        .map(|k| ShardState {
            shard: k,
            files: files_per_shard.get(&k).copied().unwrap_or(0),
            faults: 0,
            missing: 0,
        })
        .collect();
    for (i, id) in selected.iter().enumerate() {
        let shard = &mut shards[i % n as usize];
        shard.faults += 1;
        if !results.contains_key(id) {
            shard.missing += 1;
        }
    }
    info.shard = [0, 1];
    Ok(Merged {
        info,
        results: results.into_values().map(|(r, _)| r).collect(),
        shards,
    })
}
