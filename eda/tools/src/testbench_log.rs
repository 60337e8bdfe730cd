//! What flexpmu's self-checking testbenches print, read back: each
//! mismatch as `MISMATCH cycle=N signal=NAME expected=HEX got=HEX`, then a
//! last line `RESULT cycles=N mismatches=M`.

use crate::runner::{tail, ToolError};

/// What a testbench run reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestbenchResult {
    pub cycles: u64,
    pub mismatches: u64,
    /// The first few mismatch lines.
    pub first_mismatches: Vec<String>,
}

/// Reads a testbench's log (`tool` names it in errors).
pub fn parse(log: &str, tool: &str) -> Result<TestbenchResult, ToolError> {
    let first_mismatches = log
        .lines()
        .filter_map(|l| l.find("MISMATCH").map(|i| l[i..].to_string()))
        .take(5)
        .collect();
    let result = log
        .lines()
        .rev()
        .find_map(|l| l.find("RESULT ").map(|i| &l[i + 7..]));
    let field = |text: &str, key: &str| -> Option<u64> {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .and_then(|v| v.parse().ok())
    };
    match result.and_then(|r| Some((field(r, "cycles=")?, field(r, "mismatches=")?))) {
        Some((cycles, mismatches)) => Ok(TestbenchResult {
            cycles,
            mismatches,
            first_mismatches,
        }),
        None => Err(ToolError::Failed {
            tool: tool.to_string(),
            what: "the testbench (no RESULT line)".to_string(),
            log: tail(log, 20),
        }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_and_mismatches_are_read() {
        let log = "x\nMISMATCH cycle=3 signal=y expected=1 got=0\nRESULT cycles=10 mismatches=1\n";
        let r = super::parse(log, "vvp").unwrap();
        assert_eq!((r.cycles, r.mismatches), (10, 1));
        assert_eq!(
            r.first_mismatches,
            ["MISMATCH cycle=3 signal=y expected=1 got=0"]
        );
        assert!(super::parse("no result", "vvp").is_err());
    }
}
