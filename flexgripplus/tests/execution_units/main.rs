//! flexpmu's ports of FlexGripPlus 4.4's execution units
//! (`flexpmu_sim::gpu::fgp_iss::{alu, fpu, sfu}`) held to FlexGripPlus'
//! own VHDL of them under GHDL, vector by vector: the scalar processor
//! (`scalar_processor.vhd`), the FPU (`fpu_top_32_new.vhd`'s
//! `fpu_single`, driven as the execute stage drives it) and the SFU and
//! RRO (`sfu_proc.vhd`, `rro_proc.vhd`, one word per lane).
//!
//! Each test writes its seeded vectors (corner cases, then random ones),
//! analyses FlexGripPlus' files of the unit with flexpmu's testbench
//! (`tests/vhdl/`) in a scratch folder, runs it and compares every output
//! with the port's; the first mismatches are printed with their inputs.
//!
//! FlexGripPlus comes from `FLEXGRIPPLUS` or `../shared/flexgripplus`
//! beside the workspace. Without it these tests say so and pass, except
//! under `CI=true`, where its absence fails them; a missing GHDL fails
//! them, naming its install command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[allow(dead_code)] // this binary only takes the checkout from it
#[path = "../common/mod.rs"]
mod common;
use common::shared;

use flexpmu_flexgripplus::design::Backend;
use flexpmu_flexgripplus::Tree;
use flexpmu_sim::gpu::fgp_iss::{alu, fpu, sfu};
use flexpmu_tools::ghdl::FLEXGRIPPLUS_FLAGS;
use flexpmu_tools::runner::run_program;

const TB_SCALAR_PROCESSOR: &str = include_str!("../vhdl/tb_scalar_processor.vhd");
const TB_FPU: &str = include_str!("../vhdl/tb_fpu.vhd");
const TB_SFU: &str = include_str!("../vhdl/tb_sfu.vhd");

/// The folders below FlexGripPlus' `RTL/` holding each unit.
const SCALAR_PROCESSOR_DIR: &str = "SMP/Pipeline/Execution/ScalarProcessor/";
const FPU_DIR: &str = "SMP/Pipeline/Execution/FPU/";
const SFU_DIR: &str = "SMP/Pipeline/Execution/SFU/";
const RRO_DIR: &str = "SMP/Pipeline/Execution/RRO/";

/// How many mismatches are printed.
const SHOWN: usize = 20;

/// FlexGripPlus' checkout, or None (said on stderr) where there is none.
fn tree() -> Option<Tree> {
    let dir = shared("FLEXGRIPPLUS", "flexgripplus")?;
    let mut tree = Tree::locate(&dir).unwrap();
    // GHDL runs in a scratch folder: the files are named absolutely.
    tree.root = std::fs::canonicalize(&tree.root).unwrap();
    Some(tree)
}

/// FlexGripPlus' package and the files of the folders `dirs` (below
/// `RTL/`), in its compile script's order, as absolute paths.
fn unit_files(tree: &Tree, dirs: &[&str]) -> Vec<PathBuf> {
    let files: Vec<PathBuf> = tree
        .files
        .iter()
        .filter(|f| {
            f.as_str() == flexpmu_flexgripplus::tree::PICK_BENCH
                || f.as_str() == "gpgpu_package.vhd"
                || dirs.iter().any(|d| f.starts_with(d))
        })
        .map(|f| tree.rtl().join(f))
        .collect();
    assert!(
        files.len() > 2 + dirs.len(),
        "{}'s compile script lists no files in {dirs:?}: {files:?}",
        tree.root.display()
    );
    files
}

/// One testbench of FlexGripPlus' files, analysed and elaborated by the
/// GHDL flexpmu runs FlexGripPlus with (ghdl-llvm where installed) in a
/// scratch folder that goes with it.
struct Bench {
    backend: Backend,
    scratch: tempfile::TempDir,
    top: &'static str,
}

impl Bench {
    /// `files`, then the testbench `text` (entity `top`), analysed and
    /// elaborated.
    fn build(files: &[PathBuf], top: &'static str, text: &str) -> Bench {
        let (backend, version) = Backend::find().unwrap_or_else(|e| panic!("{e}"));
        let scratch = tempfile::Builder::new()
            .prefix("flexpmu-execution-units-")
            .tempdir()
            .unwrap();
        let bench = Bench {
            backend,
            scratch,
            top,
        };
        let work = bench.work();
        std::fs::create_dir(&work).unwrap();
        let testbench = bench.scratch.path().join(format!("{top}.vhd"));
        std::fs::write(&testbench, text).unwrap();
        let workdir = format!("--workdir={}", work.display());
        let mut paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        paths.push(testbench.display().to_string());
        let mut args: Vec<&str> = vec!["-a"];
        args.extend(FLEXGRIPPLUS_FLAGS);
        args.push(&workdir);
        args.extend(paths.iter().map(String::as_str));
        bench.ghdl(&args, &format!("analysing {top} ({version})"));
        let executable = work.join(top).display().to_string();
        let mut args: Vec<&str> = vec!["-e"];
        args.extend(FLEXGRIPPLUS_FLAGS);
        args.push(&workdir);
        if let Backend::Compiled { .. } = bench.backend {
            args.extend(["-o", executable.as_str()]);
        }
        args.push(top);
        let log = bench.ghdl(&args, &format!("elaborating {top}"));
        // A component left unbound would read as zeros.
        let unbound: Vec<&str> = log.lines().filter(|l| l.contains("not bound")).collect();
        assert!(unbound.is_empty(), "{top}: {}", unbound.join("\n"));
        bench
    }

    fn work(&self) -> PathBuf {
        self.scratch.path().join("work")
    }

    fn program(&self) -> &str {
        match &self.backend {
            Backend::Compiled { ghdl } | Backend::Mcode { ghdl } => ghdl,
        }
    }

    fn ghdl(&self, args: &[&str], what: &str) -> String {
        let program = self.program();
        run_program(Path::new(program), program, args, self.scratch.path(), what)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The testbench run on `vectors` (one a line, written to the file
    /// the generic `input` names) with `options` (generics and run
    /// options), and the file the generic `output` names, as it wrote it.
    fn run(&self, vectors: &[String], input: &str, output: &str, options: &[&str]) -> String {
        let dir = self.scratch.path();
        let mut text = vectors.join("\n");
        text.push('\n');
        std::fs::write(dir.join("vectors.txt"), text).unwrap();
        let generics = [
            format!("-g{input}=vectors.txt"),
            format!("-g{output}=ghdl_out.txt"),
        ];
        let workdir = format!("--workdir={}", self.work().display());
        let mut args: Vec<&str> = Vec::new();
        let executable = self.work().join(self.top);
        let program = match &self.backend {
            Backend::Compiled { .. } => executable.as_path(),
            Backend::Mcode { ghdl } => {
                args.push("-r");
                args.extend(FLEXGRIPPLUS_FLAGS);
                args.push(&workdir);
                args.push(self.top);
                Path::new(ghdl.as_str())
            }
        };
        args.extend(generics.iter().map(String::as_str));
        args.extend(options);
        let started = std::time::Instant::now();
        run_program(
            program,
            self.top,
            &args,
            dir,
            &format!("running {}", self.top),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{}: {} vectors under GHDL ({}) in {:.1} s",
            self.top,
            vectors.len(),
            self.program(),
            started.elapsed().as_secs_f64()
        );
        std::fs::read_to_string(dir.join("ghdl_out.txt")).unwrap()
    }
}

/// One vector: its line in the testbench's input, what it exercises (the
/// summary's row) and the port's output as the testbench writes it.
struct Case {
    line: String,
    category: String,
    port: String,
}

/// Every case's port output equals GHDL's line in `ghdl`; else the
/// first mismatches with their inputs, and a panic.
fn assert_same(unit: &str, cases: &[Case], ghdl: &str) {
    let lines: Vec<&str> = ghdl.lines().map(str::trim).collect();
    // category -> (vectors, mismatches)
    let mut rows: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut shown = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let row = rows.entry(&case.category).or_default();
        row.0 += 1;
        let theirs = lines.get(n).copied().unwrap_or("<no line>");
        if theirs != case.port {
            row.1 += 1;
            if shown.len() < SHOWN {
                shown.push(format!(
                    "vector {} [{}]: {}\n    GHDL {theirs}\n    port {}",
                    n + 1,
                    case.category,
                    case.line,
                    case.port
                ));
            }
        }
    }
    let mismatches: usize = rows.values().map(|r| r.1).sum();
    let mut summary = String::new();
    for (category, (n, bad)) in &rows {
        summary.push_str(&format!(
            "  {category:<24} {n:>6} vectors {bad:>6} mismatching\n"
        ));
    }
    eprint!("{unit}:\n{summary}");
    assert!(
        mismatches == 0 && lines.len() == cases.len(),
        "{unit}: {mismatches} of {} vectors differ from FlexGripPlus' VHDL under GHDL \
         (GHDL wrote {} lines){}\nfirst mismatches (vector line, then the outputs):\n{}",
        cases.len(),
        lines.len(),
        if shown.len() < mismatches {
            format!(", the first {} shown", shown.len())
        } else {
            String::new()
        },
        shown.join("\n")
    );
}

/// xorshift64* (Vigna): deterministic vectors from a seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }

    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }

    fn bit(&mut self) -> bool {
        self.next() >> 63 != 0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
}

mod fpu_unit;
mod scalar_processor;
mod sfu_unit;
