//! A fault of the compiled engine injected into the exported Verilog and
//! run by a third-party simulator: the oracle of a campaign's
//! `first_divergence` ([`FaultOracle`], one contract for every design).
//!
//! The design's golden vectors drive its export open-loop (the
//! self-checking testbench `tb_<top>` of [`testbench`](crate::testbench)),
//! while a second top module, `flexpmu_fault_injector`, acts on the
//! testbench's `dut` as the engine acts on its netlist: a stuck-at fault
//! is a `force` of the bit on every Verilog name of the site's net (inside
//! each instance that sees it and on the parent's wire to it, from
//! [`verilog_paths`]), from the start of its cycle on; a flip inverts the
//! register's bit once, by a deposit into the register (`q` of its
//! register module) at the start of its cycle, after the cycle's inputs
//! and before its outputs are compared. With the testbench's timing (a
//! row's inputs at 2c ns, compared at 2c + 1, the clock's edge then), the
//! start of cycle c is 2c + 0.1 ns. The first mismatch the testbench
//! prints is the first cycle the faulty core's outputs differ.
//!
//! Verilator (`--timing`) runs the same injector, but refuses to force an
//! input port from outside its module: for it, an input port is forced
//! at the parent's wire that drives it ([`verilog_driver_paths`]).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use flexpmu_export::net_paths::{memory_path, verilog_driver_paths, verilog_paths, NetPathError};
use flexpmu_ir::Design;
use flexpmu_sim::engine::compiled::faults::{FaultModel, Site, SiteKind};
use flexpmu_tools::icarus::{vectors_plusarg, Compiled};
use flexpmu_tools::{TestbenchResult, ToolError};

use crate::testbench;

/// The injector's top module.
pub const INJECTOR: &str = "flexpmu_fault_injector";

/// One fault, as a campaign arms it on the compiled engine.
#[derive(Clone, Copy, Debug)]
pub struct VerilogFault<'a> {
    pub site: &'a Site,
    pub bit: usize,
    pub model: FaultModel,
    /// The cycle it acts from (stuck-at) or at (flip).
    pub cycle: u64,
}

/// The simulator an injector is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// Every Verilog name of a site's net forced.
    Icarus,
    /// An input port forced at its driver (Verilator refuses the rest).
    Verilator,
}

/// Why a fault cannot be injected.
#[derive(Debug, thiserror::Error)]
pub enum InjectionError {
    #[error(transparent)]
    Path(#[from] NetPathError),
    #[error("`{0}`: every Verilog name of it is an input port, which Verilator does not force")]
    NoDriver(String),
    #[error("`{0}` is a net: only a register bit can flip")]
    FlipOnNet(String),
    #[error("`{name}` has {width} bit(s); there is no bit {bit}")]
    NoBit {
        name: String,
        width: usize,
        bit: usize,
    },
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// `path`'s bit `bit` of a `width`-bit signal, as a Verilog reference.
fn bit_of(path: &str, width: usize, bit: usize) -> String {
    if width == 1 {
        path.to_string()
    } else {
        format!("{path}[{bit}]")
    }
}

/// The statements that inject `fault` into `dut` (`tb_top.dut`), as one
/// `case` arm's body.
fn statements(
    design: &Design,
    tb: &str,
    dut: &str,
    fault: &VerilogFault,
    simulator: Simulator,
) -> Result<String, InjectionError> {
    let site = fault.site;
    if fault.bit >= site.width {
        return Err(InjectionError::NoBit {
            name: site.name.clone(),
            width: site.width,
            bit: fault.bit,
        });
    }
    if matches!(site.kind, SiteKind::Memory(_)) {
        return memory_statements(design, tb, dut, fault);
    }
    let mut paths = Vec::new();
    for alias in &site.aliases {
        let found = match simulator {
            Simulator::Icarus => verilog_paths(design, dut, alias)?,
            Simulator::Verilator => verilog_driver_paths(design, dut, alias)?,
        };
        for path in found {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    if paths.is_empty() {
        return Err(InjectionError::NoDriver(site.name.clone()));
    }
    let mut out = String::new();
    let _ = writeln!(out, "            // {} bit {}", site.name, fault.bit);
    if fault.cycle > 0 || fault.model == FaultModel::Flip {
        let _ = writeln!(out, "            wait ({tb}.cycle == {});", fault.cycle);
        let _ = writeln!(out, "            #0.1;");
    }
    match fault.model {
        FaultModel::StuckAt0 | FaultModel::StuckAt1 => {
            let value = u8::from(fault.model == FaultModel::StuckAt1);
            for path in &paths {
                let target = bit_of(path, site.width, fault.bit);
                let _ = writeln!(out, "            force {target} = 1'b{value};");
            }
        }
        FaultModel::Flip => {
            if !matches!(site.kind, SiteKind::Register(_)) {
                return Err(InjectionError::FlipOnNet(site.name.clone()));
            }
            // The register module's own `q` (the first path): a variable
            // that a deposit changes until its next clock edge.
            let target = bit_of(&paths[0], site.width, fault.bit);
            let _ = writeln!(out, "            {target} = ~{target};");
        }
    }
    Ok(out)
}

/// The statements that inject `fault`, on a memory word's bit, into `dut`:
/// a flip inverts the bit once at the start of its cycle; a stuck bit is
/// set at the start of its cycle and again at the start of every cycle
/// after it (a word is an array element, which Verilog does not force: a
/// write at a clock edge is undone before anything samples the word at
/// the next), as the engine sets it before each settle.
fn memory_statements(
    design: &Design,
    tb: &str,
    dut: &str,
    fault: &VerilogFault,
) -> Result<String, InjectionError> {
    let site = fault.site;
    let (array, width) = memory_path(design, dut, &site.name)?;
    let target = format!("{array}[{}][{}]", fault.bit / width, fault.bit % width);
    let mut out = String::new();
    let _ = writeln!(out, "            // {} bit {}", site.name, fault.bit);
    let _ = writeln!(out, "            wait ({tb}.cycle == {});", fault.cycle);
    let _ = writeln!(out, "            #0.1;");
    match fault.model {
        FaultModel::Flip => {
            let _ = writeln!(out, "            {target} = ~{target};");
        }
        FaultModel::StuckAt0 | FaultModel::StuckAt1 => {
            let value = u8::from(fault.model == FaultModel::StuckAt1);
            let _ = writeln!(out, "            forever begin");
            let _ = writeln!(out, "                {target} = 1'b{value};");
            let _ = writeln!(out, "                @({tb}.cycle) #0.1;");
            let _ = writeln!(out, "            end");
        }
    }
    Ok(out)
}

/// The injector module for `faults` of `design`, run inside the
/// testbench `tb_<top>` under `simulator`: `+fault=N` injects
/// `faults[N]`, no plusarg none.
pub fn injector(
    design: &Design,
    faults: &[VerilogFault],
    simulator: Simulator,
) -> Result<String, InjectionError> {
    let tb = format!("tb_{}", design.top().name);
    let dut = format!("{tb}.dut");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by flexpmu: injects one fault (+fault=N) into {dut}.\n\
         `timescale 1ns/1ps\n\
         module {INJECTOR};\n    \
             integer fault;\n    \
             initial begin\n        \
                 if (!$value$plusargs(\"fault=%d\", fault)) fault = -1;\n        \
                 case (fault)"
    );
    for (n, fault) in faults.iter().enumerate() {
        let _ = writeln!(out, "        {n}: begin");
        out += &statements(design, &tb, &dut, fault, simulator)?;
        let _ = writeln!(out, "        end");
    }
    let _ = writeln!(
        out,
        "        default: ;\n        endcase\n    end\nendmodule"
    );
    Ok(out)
}

/// The plusarg that injects fault `fault` of an injector's list (None:
/// none, the fault-free run): one convention for every oracle.
pub fn fault_plusarg(fault: Option<usize>) -> String {
    format!("+fault={}", fault.map_or(-1, |n| n as i64))
}

/// A fault oracle: a third-party simulator's runs of a design built once
/// with the injector of a list of faults, one run per fault of the list
/// ([`fault_plusarg`]) or none. Each oracle sees a run as its campaign
/// judges it (`Seen`); every one gives the first cycle a fault's run
/// differs from the fault-free run's, to hold the campaign's
/// `first_divergence` to.
pub trait FaultOracle {
    /// What the simulator saw of one run.
    type Seen;
    type Error;

    /// Faults in the injector's list.
    fn faults(&self) -> usize;

    /// The run with fault `fault` of the list injected (None: none).
    fn run(&self, fault: Option<usize>) -> Result<Self::Seen, Self::Error>;

    /// The first cycle `seen` differs from the fault-free run's `golden`
    /// (None: it never does).
    fn first_divergence(seen: &Self::Seen, golden: &Self::Seen) -> Option<u64>;
}

/// The runs of every fault of `oracle`'s list, the fault-free run first:
/// what each showed, in the list's order (`on_fault` told after each).
pub fn run_every_fault<O: FaultOracle>(
    oracle: &O,
    on_fault: &mut dyn FnMut(usize),
) -> Result<OracleRuns<O::Seen>, O::Error> {
    let golden = oracle.run(None)?;
    let mut faults = Vec::with_capacity(oracle.faults());
    for n in 0..oracle.faults() {
        faults.push(oracle.run(Some(n))?);
        on_fault(n);
    }
    Ok(OracleRuns { golden, faults })
}

/// What an oracle saw of the fault-free run and of each fault's.
pub struct OracleRuns<S> {
    pub golden: S,
    pub faults: Vec<S>,
}

/// The SM core's oracle: its Verilog export driven open loop by the
/// golden run's vectors (the self-checking testbench), each fault of the
/// list injected under Icarus; a run's first mismatch is its first
/// divergence, and the fault-free run has none.
pub struct VectorOracle {
    compiled: Compiled,
    vectors: String,
    faults: usize,
}

impl VectorOracle {
    /// `faults` of `design` injected into its Verilog export
    /// `design_files`, replaying `vectors` (each run's log kept by
    /// content).
    pub fn new(
        design_files: &[PathBuf],
        design: &Design,
        vectors: &Path,
        faults: &[VerilogFault],
    ) -> Result<VectorOracle, InjectionError> {
        let top = design.top();
        let tb = testbench::verilog(top);
        let injector = injector(design, faults, Simulator::Icarus)?;
        let tb_top = format!("tb_{}", top.name);
        let compiled = Compiled::new(
            design_files,
            &[("tb.v", &tb), ("injector.v", &injector)],
            &[&tb_top, INJECTOR],
        )?;
        Ok(VectorOracle {
            compiled,
            vectors: vectors_plusarg(vectors)?,
            faults: faults.len(),
        })
    }
}

impl FaultOracle for VectorOracle {
    /// The testbench's report (its first mismatches among it).
    type Seen = TestbenchResult;
    type Error = ToolError;

    fn faults(&self) -> usize {
        self.faults
    }

    fn run(&self, fault: Option<usize>) -> Result<TestbenchResult, ToolError> {
        self.compiled
            .run(&[self.vectors.clone(), fault_plusarg(fault)])
    }

    /// The report's first mismatch: the vectors are the fault-free run.
    fn first_divergence(seen: &TestbenchResult, _golden: &TestbenchResult) -> Option<u64> {
        first_mismatch(seen)
    }
}

/// The cycle of a report's first mismatch (`MISMATCH cycle=N ...`).
fn first_mismatch(result: &TestbenchResult) -> Option<u64> {
    result.first_mismatches.first().and_then(|line| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix("cycle="))
            .and_then(|c| c.parse().ok())
    })
}
