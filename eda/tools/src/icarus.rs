//! Icarus Verilog: compile checks and Verilog testbench runs.

use std::path::{Path, PathBuf};

use crate::cache;
use crate::runner::{absolute, run, Scratch, ToolError};
use crate::testbench_log::{self, TestbenchResult};

/// `iverilog -g2005` accepts `files` with top module `top`.
pub fn compile_check(files: &[PathBuf], top: &str) -> Result<(), ToolError> {
    cache::kept_check("icarus-check", files, &[top], &["iverilog"], || {
        let scratch = Scratch::new(&format!("icarus-{top}"))?;
        let names = crate::absolute_all(files)?;
        let mut args = vec!["-g2005", "-s", top, "-o", "/dev/null"];
        args.extend(names.iter().map(String::as_str));
        run("iverilog", &args, scratch.path(), &crate::describe(files))?;
        Ok(())
    })
}

/// A testbench compiled once (`iverilog`), to run as often as needed
/// (`vvp`), each run with its own plusargs. Each run's log is kept by
/// content (the design, the sources, the tops, the plusargs and the files
/// they name); the testbench is compiled at the first run not kept.
pub struct Compiled {
    design: Vec<PathBuf>,
    sources: Vec<(String, String)>,
    tops: Vec<String>,
    scratch: std::cell::OnceCell<Scratch>,
}

impl Compiled {
    /// The `design` files with the testbench texts `sources` (file name,
    /// text), with `tops` as the top modules.
    pub fn new(
        design: &[PathBuf],
        sources: &[(&str, &str)],
        tops: &[&str],
    ) -> Result<Compiled, ToolError> {
        Ok(Compiled {
            design: design
                .iter()
                .map(|f| absolute(f))
                .collect::<Result<_, _>>()?,
            sources: sources
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
            tops: tops.iter().map(|t| t.to_string()).collect(),
            scratch: std::cell::OnceCell::new(),
        })
    }

    /// The folder holding the compiled testbench, compiling it first if
    /// it is not yet.
    fn compiled(&self) -> Result<&Scratch, ToolError> {
        if let Some(scratch) = self.scratch.get() {
            return Ok(scratch);
        }
        let scratch = Scratch::new(&format!(
            "icarus-{}",
            self.tops.first().map_or("tb", String::as_str)
        ))?;
        for (name, text) in &self.sources {
            scratch.write(name, text)?;
        }
        let mut args = vec!["-g2005"];
        for top in &self.tops {
            args.extend(["-s", top]);
        }
        args.extend(["-o", "sim.vvp"]);
        let design: Vec<String> = self
            .design
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        args.extend(design.iter().map(String::as_str));
        args.extend(self.sources.iter().map(|(name, _)| name.as_str()));
        run("iverilog", &args, scratch.path(), "the Icarus testbench")?;
        Ok(self.scratch.get_or_init(|| scratch))
    }

    /// Runs it with `plusargs` (`+vectors=FILE`, ...) and reads its
    /// report.
    pub fn run(&self, plusargs: &[String]) -> Result<TestbenchResult, ToolError> {
        // A plusarg naming a file counts by the file's content, not its
        // path.
        let mut read = self.design.clone();
        let mut texts: Vec<&str> = vec![];
        for plusarg in plusargs {
            match plusarg.split_once('=') {
                Some((name, value)) if Path::new(value).is_file() => {
                    texts.push(name);
                    read.push(PathBuf::from(value));
                }
                _ => texts.push(plusarg),
            }
        }
        let tops = self.tops.join(" ");
        texts.push(&tops);
        for (name, text) in &self.sources {
            texts.extend([name.as_str(), text.as_str()]);
        }
        let log = cache::kept_log(
            "icarus-testbench",
            &read,
            &texts,
            &["iverilog", "vvp"],
            || {
                let scratch = self.compiled()?;
                let mut args = vec!["-n", "sim.vvp"];
                args.extend(plusargs.iter().map(String::as_str));
                run("vvp", &args, scratch.path(), "the Icarus testbench")
            },
        )?;
        testbench_log::parse(&log, "vvp")
    }
}

/// The plusarg that names a vector file.
pub fn vectors_plusarg(vectors: &Path) -> Result<String, ToolError> {
    Ok(format!("+vectors={}", absolute(vectors)?.display()))
}

/// Runs the Verilog testbench `tb_<top>` (text `testbench`) against
/// the `design` files, replaying `vectors` (`+vectors=FILE`).
pub fn run_testbench(
    design: &[PathBuf],
    testbench: &str,
    vectors: &Path,
    top: &str,
) -> Result<TestbenchResult, ToolError> {
    let tb_top = format!("tb_{top}");
    Compiled::new(design, &[("tb.v", testbench)], &[&tb_top])?.run(&[vectors_plusarg(vectors)?])
}
