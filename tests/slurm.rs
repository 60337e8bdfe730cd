//! The SLURM scripts on a real single-node SLURM that this test starts
//! (its own munged, slurmctld and slurmd, configured in a temporary
//! directory) and stops: a sharded campaign as an array job and a merge
//! job give the same summary as the campaign run in one process.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{example, flexpmu, stderr, stdout};

const INSTALL: &str =
    "install SLURM and MUNGE: apt-get install slurm-wlm munge (scripts/test does)";

/// A program on PATH or in the sbin directories daemons live in.
fn find(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("`{program}` not found: {INSTALL}"))
}

/// A TCP port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The daemons this test started, stopped (by the pids they wrote) when
/// it ends, whatever happens.
struct Daemons {
    pid_files: Vec<PathBuf>,
}

impl Drop for Daemons {
    fn drop(&mut self) {
        // slurmd, slurmctld, then munged: the reverse of their start.
        for pid_file in self.pid_files.iter().rev() {
            let Some(pid) = std::fs::read_to_string(pid_file)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
            else {
                continue;
            };
            let _ = Command::new("kill").arg(pid.to_string()).status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
            }
            if Path::new(&format!("/proc/{pid}")).exists() {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
        }
    }
}

/// Runs a daemon that forks into the background; fails with its log.
fn start(program: &str, args: &[&str], conf: &Path, log: &Path) {
    let status = Command::new(find(program))
        .args(args)
        .env("SLURM_CONF", conf)
        .stdin(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}; {INSTALL}"));
    assert!(
        status.success(),
        "{program} did not start ({status}); its log:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

fn logs(dir: &Path) -> String {
    let mut text = String::new();
    for name in ["munged.log", "slurmctld.log", "slurmd.log"] {
        text += &format!(
            "--- {name}\n{}\n",
            std::fs::read_to_string(dir.join(name)).unwrap_or_default()
        );
    }
    text
}

/// One cluster at a time: each test starts its own daemons on one host.
static CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Starts munged, slurmctld and slurmd configured in `d` and waits until
/// the node is idle; the daemons stop when the result is dropped. Returns
/// the daemons and the configuration file (`SLURM_CONF`).
fn cluster(d: &Path) -> (Daemons, PathBuf) {
    for sub in ["state", "spool", "out"] {
        std::fs::create_dir(d.join(sub)).unwrap();
    }
    let p = |name: &str| d.join(name).display().to_string();
    let mut daemons = Daemons {
        pid_files: Vec::new(),
    };
    // A private munged: its own key and socket.
    let key: Vec<u8> = (0..1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(d.join("munge.key"), key).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("munge.key"), std::fs::Permissions::from_mode(0o400))
            .unwrap();
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let conf = d.join("slurm.conf");
    daemons.pid_files.push(d.join("munged.pid"));
    start(
        "munged",
        &[
            "--force",
            &format!("--key-file={}", p("munge.key")),
            &format!("--socket={}", p("munge.socket")),
            &format!("--pid-file={}", p("munged.pid")),
            &format!("--log-file={}", p("munged.log")),
            &format!("--seed-file={}", p("munged.seed")),
        ],
        &conf,
        &d.join("munged.log"),
    );
    let host = String::from_utf8(Command::new("hostname").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // A cluster that schedules at once (no batch delay, no minimum
    // interval) and forgets ended jobs after 6 s, so that `sbatch --wait`
    // keeps polling every 2 s (with the default 300 s it backs off to 32).
    std::fs::write(
        &conf,
        format!(
            "ClusterName=flexpmu\n\
             SlurmctldHost={host}\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={socket}\n\
             CredType=cred/munge\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             SchedulerParameters=kill_invalid_depend,batch_sched_delay=0,sched_min_interval=0\n\
             MinJobAge=6\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             SlurmctldPort={ctld}\n\
             SlurmdPort={slurmd}\n\
             StateSaveLocation={state}\n\
             SlurmdSpoolDir={spool}\n\
             SlurmctldPidFile={ctld_pid}\n\
             SlurmdPidFile={slurmd_pid}\n\
             SlurmctldLogFile={ctld_log}\n\
             SlurmdLogFile={slurmd_log}\n\
             NodeName={host} CPUs={cpus} State=UNKNOWN\n\
             PartitionName=flexpmu Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
            socket = p("munge.socket"),
            ctld = free_port(),
            slurmd = free_port(),
            state = p("state"),
            spool = p("spool"),
            ctld_pid = p("slurmctld.pid"),
            slurmd_pid = p("slurmd.pid"),
            ctld_log = p("slurmctld.log"),
            slurmd_log = p("slurmd.log"),
        ),
    )
    .unwrap();
    daemons.pid_files.push(d.join("slurmctld.pid"));
    start("slurmctld", &[], &conf, &d.join("slurmctld.log"));
    daemons.pid_files.push(d.join("slurmd.pid"));
    start("slurmd", &[], &conf, &d.join("slurmd.log"));
    // The node comes up idle.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = Command::new(find("sinfo"))
            .args(["-h", "-o", "%t"])
            .env("SLURM_CONF", &conf)
            .output()
            .unwrap();
        if String::from_utf8_lossy(&out.stdout).trim() == "idle" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "SLURM did not come up within a minute (sinfo: {}{}):\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            logs(d)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    (daemons, conf)
}

/// PATH with SLURM's programs on it.
fn path_with_slurm() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.push(find("sbatch").parent().unwrap().to_path_buf());
    std::env::join_paths(dirs).unwrap()
}

#[test]
fn a_campaign_sharded_on_slurm_equals_the_whole() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (daemons, conf) = cluster(d);
    // The campaign: 4 shards as an array job, then the merge job.
    let sass = example("appendix_a.sass");
    let campaign = ["--sample", "24", "--seed", "11"];
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm/campaign");
    let out = Command::new(&script)
        .arg("4")
        .arg(d.join("out"))
        .arg(&sass)
        .args(campaign)
        .env("SLURM_CONF", &conf)
        .env("FLEXPMU", env!("CARGO_BIN_EXE_flexpmu"))
        .env("WAIT", "1")
        .env("PATH", path_with_slurm())
        .output()
        .unwrap();
    let shard_logs: String = (0..4)
        .map(|k| std::fs::read_to_string(d.join(format!("out/shard-{k}.log"))).unwrap_or_default())
        .collect();
    assert!(
        out.status.success(),
        "the campaign failed: {}{}\nshards:\n{shard_logs}\nmerge:\n{}\n{}",
        stdout(&out),
        stderr(&out),
        std::fs::read_to_string(d.join("out/merge.log")).unwrap_or_default(),
        logs(d)
    );
    for k in 0..4 {
        assert!(
            d.join(format!("out/shard-{k}-of-4.jsonl")).is_file(),
            "shard {k}: {shard_logs}"
        );
    }
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    // The same campaign in one process.
    let mut args = vec!["faults", "run", sass.as_str()];
    args.extend(campaign);
    args.push("--json");
    let whole = flexpmu(&args, d);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    let mut whole: serde_json::Value = serde_json::from_str(&stdout(&whole)).unwrap();
    let object = whole.as_object_mut().unwrap();
    object.remove("faults_per_second");
    object.remove("golden_cycles");
    object.remove("peak_rss_mib");
    let mut merged = merged;
    assert_eq!(
        merged.as_object_mut().unwrap().remove("missing"),
        Some(0.into())
    );
    assert_eq!(merged, whole);
    assert_eq!(merged["faults"], 24);
    drop(daemons);
}

/// Appendix A's cycles on one warp: the testgen search's budget.
const BUDGET: u64 = 3126;

/// `testgen --slurm-shards`: each generation's programs judged as campaign
/// shards on the cluster make the same search as this machine's threads
/// (the same scores and population, generation by generation).
#[test]
fn testgen_judged_on_slurm_makes_the_same_search() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (daemons, conf) = cluster(d);
    let search = [
        "testgen",
        "--generations",
        "2",
        "--population",
        "4",
        "--sample",
        "12",
        "--unit",
        "decode",
        "--finalists",
        "1",
        "--random",
        "0",
        "--seed",
        "5",
        "--budget-cycles",
        "3126",
        "--json",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .args(search)
        .args(["--out", "cluster", "--slurm-shards", "3"])
        .current_dir(d)
        .env("SLURM_CONF", &conf)
        .env("PATH", path_with_slurm())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stderr(&out), logs(d));
    // The same search on this process' threads.
    let local_state = {
        use flexpmu_sim::gpu::iss::Geometry;
        use flexpmu_sim::gpu::sm::SmConfig;
        use flexpmu_sim::gpu::vector_add::VectorAdd;
        use flexpmu_studies::faults::{FaultModel, Faults};
        use flexpmu_studies::testgen::search::Threads;
        use flexpmu_studies::testgen::{Judge, Settings, SliceCore, State};
        let iss = VectorAdd::new(Geometry::threads(32).unwrap())
            .iss()
            .unwrap();
        let judge = Judge::new(
            std::sync::Arc::new(SliceCore {
                config: SmConfig::default(),
            }),
            iss,
            FaultModel::ALL.to_vec(),
            vec!["decode".into()],
            Some(12),
            5,
            BUDGET,
            Faults::Exhaustive,
        );
        let mut state = State::new(Settings {
            seed: 5,
            budget_cycles: BUDGET,
            population: 4,
            generations: 2,
            sample: 12,
            units: vec!["decode".into()],
            launch: String::new(),
            selectors: 1,
            core: None,
        });
        while !state.finished() {
            state
                .step(
                    &Threads {
                        judge: &judge,
                        threads: 2,
                    },
                    &|| {},
                )
                .unwrap();
        }
        // Read back as the CLI's state.json is.
        serde_json::from_str::<serde_json::Value>(&serde_json::to_string(&state).unwrap()).unwrap()
    };
    let cluster: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cluster/state.json")).unwrap())
            .unwrap();
    assert_eq!(cluster["history"], local_state["history"]);
    assert_eq!(cluster["scores"], local_state["scores"]);
    assert_eq!(cluster["population"], local_state["population"]);
    // Every new program of both generations was judged there, in 3 shards.
    let judged: u64 = cluster["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["judged"].as_u64().unwrap())
        .sum();
    assert!(judged >= 4, "{judged} programs judged");
    for generation in 0..2 {
        let shards = std::fs::read_dir(d.join(format!("cluster/slurm/gen-{generation:04}/p-000")))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with("-of-3.jsonl"))
            .count();
        assert_eq!(shards, 3, "generation {generation}");
    }
    drop(daemons);
}
