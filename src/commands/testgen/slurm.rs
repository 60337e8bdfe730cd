//! A generation judged on a SLURM cluster: each new program is a fault
//! campaign split into shards, one array job per program
//! (`scripts/slurm/faults.sbatch`, the script `scripts/slurm/campaign`
//! submits), and a job that waits for them all; the shards are merged and
//! scored as the threads score a program, so the search is the same.
//!
//! Files: `DIR/slurm/gen-G/p-K/` holds program K of generation G
//! (`program.sass`), the campaign its shards run (`plan.json`: the
//! program, the launch and the judge's faults), its shards' results (`shard-k-of-n.jsonl`) and logs
//! (`shard-k.log`). A resumed search submits again; each shard resumes
//! from its file.

use std::path::{Path, PathBuf};

use flexpmu_studies::faults::merge::merge;
use flexpmu_studies::faults::results_file::program_digest;
use flexpmu_studies::testgen::error::JudgeError;
use flexpmu_studies::testgen::search::{Candidate, Evaluate};
use flexpmu_studies::testgen::{Judge, Score};
use flexpmu_tools::files;

use crate::args::campaign::CampaignLaunch;
use crate::args::launch::LaunchArgs;
use crate::args::plan_file::planned;
use crate::output::write_output;
use flexpmu_studies::faults::plan_file::{PlanFile, PlannedRtl};

/// The shard task, as `scripts/slurm/` has it (written beside the jobs'
/// files, so a run needs no checkout of the repository).
const FAULTS_SBATCH: &str = include_str!("../../../scripts/slurm/faults.sbatch");

/// Judging on SLURM: `shards` array tasks per program.
pub struct Slurm<'a> {
    pub judge: &'a Judge,
    pub shards: u64,
    /// Where the jobs' files go (`--out`'s `slurm/`).
    pub dir: PathBuf,
    /// The launch programs are judged on (each program's plan gives it
    /// with the judge's faults).
    pub launch: LaunchArgs,
    /// FlexGripPlus, when programs are judged on its RTL.
    pub fgp_rtl: Option<PlannedRtl>,
    /// Extra sbatch options (`SBATCH_FLAGS`, split on spaces).
    pub sbatch_flags: Vec<String>,
}

fn failed(what: String) -> JudgeError {
    JudgeError::Cluster(what)
}

/// Runs `sbatch` with `args` through the tools runner (bounded in time,
/// stopped with flexpmu); its job id.
fn sbatch(args: &[String], flexpmu: &Path) -> Result<String, JudgeError> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let flexpmu = flexpmu.display().to_string();
    let mut stdout = Vec::new();
    flexpmu_tools::runner::run_streaming(
        Path::new("sbatch"),
        "sbatch",
        &args,
        Path::new("."),
        "the job",
        flexpmu_tools::runner::Streaming {
            env: &[("FLEXPMU", &flexpmu)],
            timeout: flexpmu_tools::runner::Bounds::from_env().timeout,
            on_line: &mut |line| stdout.push(line.to_string()),
        },
    )
    .map_err(|e| failed(format!("sbatch {}: {e}", args.join(" "))))?;
    let text = stdout.join("\n");
    // `--parsable` prints `id` or `id;cluster`.
    let id = text
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(failed(format!("sbatch printed no job id: {text:?}")));
    }
    Ok(id)
}

impl Slurm<'_> {
    fn shard_file(program_dir: &Path, k: u64, n: u64) -> PathBuf {
        program_dir.join(format!("shard-{k}-of-{n}.jsonl"))
    }
}

impl Evaluate for Slurm<'_> {
    fn evaluate(
        &self,
        generation: usize,
        candidates: &[Candidate],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<Score>, JudgeError> {
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let io = |e: anyhow::Error| failed(format!("{e:#}"));
        let mkdir = |dir: &Path| files::create_directory(dir).map_err(|e| failed(e.to_string()));
        let flexpmu = std::env::current_exe()
            .map_err(|e| failed(format!("cannot find this flexpmu binary: {e}")))?;
        mkdir(&self.dir)?;
        let script = self.dir.join("faults.sbatch");
        write_output(&script, FAULTS_SBATCH).map_err(io)?;
        let generation_dir = self.dir.join(format!("gen-{generation:04}"));
        let n = self.shards;
        let mut jobs = Vec::with_capacity(candidates.len());
        let mut dirs = Vec::with_capacity(candidates.len());
        for (k, candidate) in candidates.iter().enumerate() {
            let dir = generation_dir.join(format!("p-{k:03}"));
            mkdir(&generation_dir)?;
            mkdir(&dir)?;
            let program = dir.join("program.sass");
            write_output(&program, &candidate.source).map_err(io)?;
            // The campaign each task runs a shard of: the judge's.
            let campaign = CampaignLaunch {
                file: Some(program.clone()),
                launch: self.launch.clone(),
                loop_launch: None,
                selector: None,
            };
            let plan = PlanFile::new(
                planned(&campaign),
                self.judge.plan().clone(),
                false,
                self.fgp_rtl.clone(),
            )
            .map_err(|e| io(e.into()))?;
            let plan_path = dir.join("plan.json");
            write_output(&plan_path, &plan.text()).map_err(io)?;
            let mut args: Vec<String> = vec!["--parsable".into()];
            args.extend(self.sbatch_flags.iter().cloned());
            args.extend([
                "--job-name=flexpmu-testgen".into(),
                format!("--array=0-{}", n - 1),
                format!("--output={}", dir.join("shard-%a.log").display()),
                script.to_string_lossy().into_owned(),
                dir.to_string_lossy().into_owned(),
                "--plan".into(),
                plan_path.to_string_lossy().into_owned(),
            ]);
            jobs.push(sbatch(&args, &flexpmu)?);
            dirs.push(dir);
        }
        // One job after all of them, whatever their end: `--wait` returns
        // when it has run.
        let mut args: Vec<String> = vec!["--parsable".into(), "--wait".into()];
        args.extend(self.sbatch_flags.iter().cloned());
        args.extend([
            "--job-name=flexpmu-testgen-wait".into(),
            format!("--dependency=afterany:{}", jobs.join(":")),
            "--output=/dev/null".into(),
            "--wrap=true".into(),
        ]);
        sbatch(&args, &flexpmu)?;
        let mut scores = Vec::with_capacity(candidates.len());
        for (candidate, dir) in candidates.iter().zip(&dirs) {
            let paths: Vec<PathBuf> = (0..n)
                .map(|k| Slurm::shard_file(dir, k, n))
                .filter(|p| p.exists())
                .collect();
            let logs = dir.join("shard-*.log");
            if paths.is_empty() {
                return Err(failed(format!(
                    "{}: no shard wrote its results (see {})",
                    dir.display(),
                    logs.display()
                )));
            }
            let merged = merge(&paths).map_err(|e| failed(e.to_string()))?;
            if merged.missing() > 0 {
                return Err(failed(format!(
                    "{}: {} (see {})",
                    dir.display(),
                    merged.missing_description(),
                    logs.display()
                )));
            }
            if merged.info.program_digest != program_digest(&candidate.words) {
                return Err(failed(format!(
                    "{}: the shards ran another program",
                    dir.display()
                )));
            }
            scores.push(self.judge.score(merged.info.golden_cycles, &merged.results));
            progress();
        }
        Ok(scores)
    }
}
