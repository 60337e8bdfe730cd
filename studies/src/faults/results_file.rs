//! A campaign's results file (`faults run --out`, JSON Lines): a first
//! line describing the campaign ([`CampaignInfo`]), then one line per
//! fault ([`FaultResult`]) as it comes. Written by one campaign at a time
//! (a file lock), resumable after a cut (a truncated last line is
//! dropped), read back by `--resume` and `faults merge`.
//!
//! A file proves its own completeness: its campaign line lists every fault
//! id of the campaign's selection (a bitset) and which shard of it the
//! file holds, so a reader rejects an id the shard cannot contain and a
//! fault with two different results, and a merge says exactly which
//! shards and how many faults are missing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, Seek, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::result::FaultResult;
use crate::faults::site::Class;
use crate::faults::{CoreKind, Unit};
use crate::monitors::matrix::MatrixInfo;

/// The longest results line read back (a fault's line is about 200
/// bytes; the campaign line holds the selection, one bit per fault id).
const MAX_LINE_BYTES: usize = 1 << 23;

/// The most shards a campaign is split into.
pub const MAX_SHARDS: u64 = 1 << 16;

/// The most fault ids a selection may span (what the campaign line's
/// bitset can hold).
pub const MAX_FAULT_IDS: u64 = 4 * (MAX_LINE_BYTES as u64 - 4096);

/// What a campaign ran: the first line of its results file. Shards of one
/// campaign differ only in `shard`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignInfo {
    /// The program's file name and a digest of its words
    /// ([`program_digest`]).
    pub program: String,
    pub program_digest: String,
    pub threads: u32,
    pub blocks: u16,
    pub timing: String,
    pub blocks_per_core: u32,
    /// The global memory's model: `flat-18` (FlexGripPlus'), `protected`.
    pub memory: String,
    pub golden_cycles: u64,
    pub models: Vec<String>,
    pub units: Vec<Unit>,
    /// The sites' class (absent: the logic, as files before memories
    /// were sites say).
    #[serde(default, skip_serializing_if = "is_logic")]
    pub class: Class,
    /// Faults of the models and units: per unit, per model.
    pub population: BTreeMap<String, BTreeMap<String, u64>>,
    /// Faults selected (all of them, or the sample), before sharding.
    pub selected: u64,
    /// Their ids ([`encode_ids`]: a bitset over fault ids, as hex).
    pub selection: String,
    pub seed: u64,
    pub confidence: f64,
    /// `[k, n]`: this file holds shard k of n.
    pub shard: [u64; 2],
    /// With `--loop-launch N`: N (the launch is the rbe suite's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_launch: Option<u32>,
    /// With `--selector s`: every PMEVENT CNT and RST selected input s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<u8>,
    /// With `--monitor-map`: what each channel counted (`signal (mode)`),
    /// when not `MONITOR_MAP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitor_map: Option<Vec<String>>,
    /// What the faults were injected into when not the SM slice:
    /// `fgp-rtl`, FlexGripPlus' own GPGPU (its RTL imported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<String>,
    /// The detection matrix's candidates (absent: the matrix off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<MatrixInfo>,
    /// A digest of the netlist the faults ran on, when it is not flexpmu's
    /// own (FlexGripPlus' RTL as imported, with its units at gate level:
    /// a changed VHDL file, plugin or mapping changes it), so that
    /// shards, resumptions and training kernels of two RTLs never mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
}

fn is_logic(class: &Class) -> bool {
    *class == Class::Logic
}

/// The core a results file records for a campaign on FlexGripPlus'
/// imported GPGPU: `fgp-rtl`, and the units at gate level
/// (`fgp-rtl gates=upipelinedecode`).
pub fn rtl_core(gates: &[String]) -> String {
    match gates.is_empty() {
        true => "fgp-rtl".to_string(),
        false => format!("fgp-rtl gates={}", gates.join(",")),
    }
}

impl CampaignInfo {
    /// The core the campaign ran on (its recorded core, [`rtl_core`]).
    pub fn kind(&self) -> CoreKind {
        match self
            .core
            .as_deref()
            .is_some_and(|core| core == "fgp-rtl" || core.starts_with("fgp-rtl "))
        {
            true => CoreKind::FgpRtl,
            false => CoreKind::Slice,
        }
    }

    /// The units at gate level (as [`rtl_core`] records them), if any.
    pub fn gate_level(&self) -> Option<&str> {
        self.core
            .as_deref()
            .and_then(|core| core.split_once(" gates="))
            .map(|(_, units)| units)
    }

    /// The units its faults can be in: the SM slice's, or those the
    /// imported GPGPU's population holds.
    pub fn units_of(&self) -> super::UnitsOf {
        match self.kind().units_before_opening() {
            Some(units) => units,
            None => super::UnitsOf::rtl(self.population.keys().map(String::as_str)),
        }
    }

    pub fn population_total(&self) -> u64 {
        self.population.values().flat_map(|m| m.values()).sum()
    }

    /// Whether `other` is another shard (or a resumption) of the same
    /// campaign.
    pub fn same_campaign(&self, other: &CampaignInfo) -> bool {
        CampaignInfo {
            shard: other.shard,
            ..self.clone()
        } == *other
    }

    /// What differs between this campaign and `other` (shards aside), as
    /// the results file names it (`threads`, `design`, …): for messages
    /// that say why two files do not go together.
    pub fn differences(&self, other: &CampaignInfo) -> String {
        let fields = |info: &CampaignInfo| match serde_json::to_value(info) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let (mine, theirs) = (fields(self), fields(other));
        let mut names: Vec<&String> = mine.keys().chain(theirs.keys()).collect();
        names.sort();
        names.dedup();
        let differ: Vec<String> = names
            .into_iter()
            .filter(|name| name.as_str() != "shard" && mine.get(*name) != theirs.get(*name))
            .map(|name| match name.as_str() {
                "design" => "design (the netlist the faults ran on: FlexGripPlus' RTL or its gate mapping changed)".to_string(),
                "core" => format!(
                    "core ({} against {})",
                    self.core.as_deref().unwrap_or("the SM slice"),
                    other.core.as_deref().unwrap_or("the SM slice")
                ),
                _ => name.clone(),
            })
            .collect();
        match differ.is_empty() {
            true => "nothing but the shard".into(),
            false => differ.join(", "),
        }
    }

    /// The selection's fault ids, ascending; why not, for a campaign line
    /// that does not hold together (its bitset is not hex, or does not
    /// count `selected` ids, or the shard is not k of n with k < n).
    pub fn selected_ids(&self) -> Result<Vec<u64>, String> {
        let ids = decode_ids(&self.selection)?;
        if ids.len() as u64 != self.selected {
            return Err(format!(
                "its selection holds {} fault ids, not the {} it states",
                ids.len(),
                self.selected
            ));
        }
        let [k, n] = self.shard;
        if n == 0 || k >= n || n > MAX_SHARDS {
            return Err(format!(
                "shard {k}/{n} is not one of at most {MAX_SHARDS} shards"
            ));
        }
        Ok(ids)
    }

    /// The fault ids of this file's shard: every n-th of the selection,
    /// from the k-th.
    pub fn shard_ids(&self) -> Result<Vec<u64>, String> {
        let [k, n] = self.shard;
        Ok(self
            .selected_ids()?
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i as u64 % n == k)
            .map(|(_, id)| id)
            .collect())
    }
}

/// Fault ids as a bitset (bit `id % 8` of byte `id / 8`), in hex.
pub fn encode_ids(ids: &[u64]) -> String {
    let Some(&last) = ids.iter().max() else {
        return String::new();
    };
    let mut bytes = vec![0u8; (last / 8 + 1) as usize];
    for &id in ids {
        bytes[(id / 8) as usize] |= 1 << (id % 8);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The ids of an [`encode_ids`] bitset, ascending.
pub fn decode_ids(hex: &str) -> Result<Vec<u64>, String> {
    if !hex.len().is_multiple_of(2) || hex.len() as u64 > MAX_FAULT_IDS / 4 {
        return Err("its selection is not a bitset of fault ids".into());
    }
    let mut ids = Vec::new();
    for (index, pair) in hex.as_bytes().chunks(2).enumerate() {
        let byte = std::str::from_utf8(pair)
            .ok()
            .and_then(|p| u8::from_str_radix(p, 16).ok())
            .ok_or("its selection is not a bitset of fault ids")?;
        for bit in 0..8 {
            if byte & (1 << bit) != 0 {
                ids.push(index as u64 * 8 + bit);
            }
        }
    }
    Ok(ids)
}

/// A digest of a program's words (FNV-1a, 64 bits, as 16 hex digits):
/// two campaigns on different programs of the same name differ in it.
pub fn program_digest(program: &[u32]) -> String {
    format!("{:016x}", words_digest(program))
}

/// FNV-1a of words, each little-endian (the tools' digest,
/// `flexpmu_tools::manifest`, over a program's bytes).
pub fn words_digest(words: &[u32]) -> u64 {
    use flexpmu_tools::manifest::{digest_more, DIGEST_START};
    words
        .iter()
        .fold(DIGEST_START, |h, w| digest_more(h, &w.to_le_bytes()))
}

/// Why a results file cannot be read or written; each names its file
/// (and line).
#[derive(Debug, thiserror::Error)]
pub enum ResultsFileError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a regular file")]
    NotAFile { path: PathBuf },
    #[error("{path}:{line}: {what}")]
    Malformed {
        path: PathBuf,
        line: u64,
        what: String,
    },
    #[error("{path}: no complete campaign line: not a `flexpmu faults run --out` file")]
    NoCampaign { path: PathBuf },
    #[error(
        "{path}: another `flexpmu faults run` is writing it; wait for it, or use another --out"
    )]
    Locked { path: PathBuf },
    #[error("{path}: holds another campaign (its {differ} differ from this run's): run without --resume, with another --out")]
    OtherCampaign { path: PathBuf, differ: String },
}

/// A results file read back.
pub struct ResultsFile {
    pub info: CampaignInfo,
    /// One per fault id (a fault listed twice, by a file appended to
    /// twice, counts once), in file order.
    pub results: Vec<FaultResult>,
    /// Bytes of the complete lines (a truncated last line is not counted).
    pub complete_bytes: u64,
}

/// Reads a results file: its campaign line and its results, stopping at a
/// truncated last line (a run stopped while writing).
pub fn read_results(path: &Path) -> Result<ResultsFile, ResultsFileError> {
    let read_error = |source| ResultsFileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let malformed = |line: u64, what: String| ResultsFileError::Malformed {
        path: path.to_path_buf(),
        line,
        what,
    };
    // Checked before opening: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).map_err(read_error)?.is_file() {
        return Err(ResultsFileError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let file = File::open(path).map_err(read_error)?;
    let mut reader = std::io::BufReader::new(file);
    let mut info = None;
    let mut results = Vec::new();
    let mut good = 0u64;
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = std::io::Read::take(&mut reader, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(read_error)?;
        if read == 0 {
            break;
        }
        if line.len() > MAX_LINE_BYTES {
            return Err(malformed(
                number,
                format!("line longer than {MAX_LINE_BYTES} bytes: not a flexpmu results file"),
            ));
        }
        if line.last() != Some(&b'\n') {
            // Truncated: the run stopped while writing it.
            break;
        }
        let text = std::str::from_utf8(&line).map_err(|_| malformed(number, "not UTF-8".into()))?;
        if number == 1 {
            #[derive(Deserialize)]
            struct Header {
                campaign: CampaignInfo,
            }
            let header: Header = serde_json::from_str(text).map_err(|e| {
                malformed(
                    1,
                    format!("expected the campaign line of a `flexpmu faults run --out` file: {e}"),
                )
            })?;
            info = Some(header.campaign);
        } else {
            let result: FaultResult = serde_json::from_str(text)
                .map_err(|e| malformed(number, format!("expected a fault's result: {e}")))?;
            results.push((number, result));
        }
        good += read as u64;
    }
    let info = info.ok_or_else(|| ResultsFileError::NoCampaign {
        path: path.to_path_buf(),
    })?;
    if let Some(matrix) = &info.matrix {
        matrix
            .check()
            .map_err(|what| malformed(1, format!("a detection matrix with {what}")))?;
    }
    let candidates = info.matrix.as_ref().map_or(0, |m| m.candidates.len());
    let allowed: BTreeSet<u64> = info
        .shard_ids()
        .map_err(|what| malformed(1, format!("a campaign line whose {what}")))?
        .into_iter()
        .collect();
    // Each fault once: a fault listed twice with one result (a file
    // appended to twice) counts once; with two results, the file is wrong.
    let mut seen: BTreeMap<u64, (u64, FaultResult)> = BTreeMap::new();
    let mut kept = Vec::with_capacity(results.len());
    for (line, result) in results {
        if result
            .revealed
            .max_candidate()
            .is_some_and(|c| c >= candidates)
        {
            return Err(malformed(
                line,
                format!(
                    "fault {} names a candidate beyond the campaign's {candidates}",
                    result.id
                ),
            ));
        }
        if !allowed.contains(&result.id) {
            let [k, n] = info.shard;
            return Err(malformed(
                line,
                format!(
                    "fault {} is not in this campaign's shard {k}/{n}",
                    result.id
                ),
            ));
        }
        match seen.get(&result.id) {
            Some((first, earlier)) if *earlier != result => {
                return Err(malformed(
                    line,
                    format!(
                        "fault {} has another result than on line {first}",
                        result.id
                    ),
                ))
            }
            Some(_) => {}
            None => {
                seen.insert(result.id, (line, result.clone()));
                kept.push(result);
            }
        }
    }
    Ok(ResultsFile {
        info,
        results: kept,
        complete_bytes: good,
    })
}

/// Opens `path` for a campaign's results: a new file with its campaign
/// line, or (with `resume`) the same campaign's file, cut after its last
/// complete line, with the results it holds. The file stays locked for
/// this campaign while the returned handle lives.
pub fn open_results(
    path: &Path,
    info: &CampaignInfo,
    resume: bool,
) -> Result<(Vec<FaultResult>, File), ResultsFileError> {
    let write_error = |source| ResultsFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let existed = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => true,
        Ok(_) => {
            return Err(ResultsFileError::NotAFile {
                path: path.to_path_buf(),
            })
        }
        Err(_) => false,
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(write_error)?;
    // One campaign writes a results file at a time.
    if let Err(e) = file.try_lock() {
        return Err(match e {
            std::fs::TryLockError::WouldBlock => ResultsFileError::Locked {
                path: path.to_path_buf(),
            },
            std::fs::TryLockError::Error(e) => write_error(e),
        });
    }
    if resume && existed {
        let found = read_results(path)?;
        if found.info != *info {
            let differ = match found.info.shard == info.shard {
                true => found.info.differences(info),
                false => "shard".to_string(),
            };
            return Err(ResultsFileError::OtherCampaign {
                path: path.to_path_buf(),
                differ,
            });
        }
        file.set_len(found.complete_bytes).map_err(write_error)?;
        file.seek(std::io::SeekFrom::End(0)).map_err(write_error)?;
        return Ok((found.results, file));
    }
    file.set_len(0).map_err(write_error)?;
    let line = serde_json::json!({ "campaign": info }).to_string();
    if let Err(e) = writeln!(file, "{line}").and_then(|()| file.sync_data()) {
        // A campaign line cut short (a full disk) would leave a file no
        // one can read or resume: none is left.
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(write_error(e));
    }
    Ok((Vec::new(), file))
}

/// The start of every results file: its campaign line's.
const CAMPAIGN_START: &str = "{\"campaign\":{";

/// Whether `path` starts as a results file does (its campaign line's
/// first bytes), whole or not: flexpmu's to replace, even cut short.
pub fn starts_as_results_file(path: &Path) -> bool {
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    let mut start = Vec::new();
    regular
        && File::open(path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 16), &mut start))
            .is_ok()
        && start.starts_with(CAMPAIGN_START.as_bytes())
}

/// Appends one fault's result to a file [`open_results`] opened.
pub fn append_result(
    file: &mut File,
    path: &Path,
    result: &FaultResult,
) -> Result<(), ResultsFileError> {
    let line = serde_json::to_string(result).unwrap_or_default();
    writeln!(file, "{line}")
        .and_then(|()| file.flush())
        .map_err(|source| ResultsFileError::Write {
            path: path.to_path_buf(),
            source,
        })
}
