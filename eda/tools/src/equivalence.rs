//! Formal sequential equivalence of two Verilog designs: a Yosys miter,
//! proved by ABC's `dprove`.

use crate::cache;
use crate::runner::{run, tail, Scratch, ToolError};

/// The outcome of an equivalence check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Equivalence {
    Equivalent,
    /// ABC found a difference (its report).
    Different(String),
}

/// Proves two Verilog designs with the same top name and ports
/// sequentially equivalent from the all-zero power-up state.
///
/// Method: each design is flattened in Yosys (`prep -flatten`), the two
/// are joined by `miter -equiv`, asynchronous resets are modelled
/// synchronously (`async2sync`: the reset's effect shows in the same
/// cycle, as it does on the outputs), registers without a power-up value
/// start at 0 (`setundef -init`: GHDL puts a VHDL register's initial value
/// on a copy of its output), mapped to an AIG and handed to ABC's
/// `dprove` (bounded search, then signal correspondence and induction for
/// an unbounded proof).
pub fn prove_equivalent(gold: &str, gate: &str, top: &str) -> Result<Equivalence, ToolError> {
    let script = format!(
        "read_verilog gold.v; prep -flatten -top {top}; rename {top} gold; design -stash gold; \
         read_verilog gate.v; prep -flatten -top {top}; rename {top} gate; design -stash gate; \
         design -copy-from gold -as gold gold; design -copy-from gate -as gate gate; \
         miter -equiv -flatten -ignore_gold_x gold gate miter; hierarchy -top miter; flatten; \
         async2sync; techmap; dffunmap; opt_clean; setundef -zero -init; aigmap; write_aiger -zinit miter.aig"
    );
    let what = format!("the {top} miter");
    // ABC's log is kept by the content of the designs and the script.
    let tools = ["yosys", "yosys-abc"];
    let log = cache::kept_log("equivalence", &[], &[gold, gate, &script], &tools, || {
        let scratch = Scratch::new(&format!("equiv-{top}"))?;
        scratch.write("gold.v", gold)?;
        scratch.write("gate.v", gate)?;
        run("yosys", &["-q", "-p", &script], scratch.path(), &what)?;
        run(
            "yosys-abc",
            &["-c", "read_aiger miter.aig; dprove"],
            scratch.path(),
            &what,
        )
    })?;
    // Purely combinational designs get ABC's combinational check, whose
    // verdict is UNSATISFIABLE (no input makes them differ) or SATISFIABLE.
    if log.contains("Networks are equivalent") || log.contains("UNSATISFIABLE") {
        Ok(Equivalence::Equivalent)
    } else if log.contains("Networks are not equivalent") || log.contains("SATISFIABLE") {
        Ok(Equivalence::Different(tail(&log, 5)))
    } else {
        Err(ToolError::Failed {
            tool: "yosys-abc".into(),
            what: format!("{what} (no verdict)"),
            log: tail(&log, 20),
        })
    }
}
