//! Representative benchmarks (rbe): a kernel whose event counts can be
//! worked out by hand, with a header that says what they are.
//!
//! An rbe is a `.sass` file (see `flexpmu_isa::asm`) whose comment lines
//! carry the header:
//!
//! ```text
//! # expect CNT0 = 3 + 4*N
//! # points N = 0, 1, 2, 5, 10
//! # threads 32
//! ```
//!
//! - `expect CNTk = FORMULA`: counter `k` (whose event is channel `k` of
//!   the monitored-signal map) reads FORMULA, an integer expression of
//!   `N` (the loop count), `threads`, `warps` (of the launch) and `passes`
//!   (per warp instruction). One line per counter the rbe checks.
//! - `points N = ...`: the loop counts to run, each passed to the kernel
//!   as its first parameter, `g[0x4]`.
//! - `threads T`: threads of the launch, one block (default 32).
//! - `map FILE.toml`: the monitor map the rbe runs on (a path relative to
//!   the rbe's folder), e.g. one with event selectors; then
//!   `expect CNTk SELs = FORMULA` checks counter `k`'s first read while
//!   it counts its selection `s` (the map's entry for it).
//!
//! The kernel gets three parameters: N, the address of an output array
//! (`g[0x5]`, T words, zero) and of an input array (`g[0x6]`, T words,
//! word `i` = `i`).

use std::path::{Path, PathBuf};

use evalexpr::{ContextWithMutableVariables, HashMapContext, Node, Value};
use flexpmu_ir::monitor_map::{MapError, MonitorMap};
use flexpmu_isa::asm::{assemble, AsmError};
use flexpmu_isa::source::{read_text, shorten, ReadError, MAX_PROGRAM_BYTES};

use flexpmu_sim::gpu::iss::MAX_THREADS_PER_BLOCK;

/// Files a directory may hold (a bound on what `validate` reads).
pub const MAX_RBES: usize = 256;
/// Points an rbe may list.
pub const MAX_POINTS: usize = 64;
/// Largest loop count a point may ask for.
pub const MAX_N: u32 = 1_000_000;
/// Longest formula, in characters.
pub const MAX_FORMULA_CHARS: usize = 256;
/// Deepest nesting of parentheses in a formula.
pub const MAX_FORMULA_DEPTH: usize = 16;

/// One `expect` line.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The rbe file, for messages.
    pub file: String,
    pub counter: u8,
    /// The counter's selection when it is read (0 without selectors).
    pub selection: u8,
    /// As written.
    pub formula: String,
    /// 1-based line in the rbe file.
    pub line: usize,
    tree: Node,
}

/// The variables a formula sees at one point.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub n: u32,
    pub threads: u32,
}

impl Launch {
    pub fn warps(&self) -> u32 {
        self.threads.div_ceil(flexpmu_sim::gpu::iss::WARP_SIZE)
    }
}

impl Expect {
    /// The formula's value at `launch`.
    pub fn evaluate(&self, launch: Launch) -> Result<i64, RbeError> {
        let mut context = HashMapContext::new();
        for (name, value) in [
            ("N", launch.n),
            ("threads", launch.threads),
            ("warps", launch.warps()),
            ("passes", flexpmu_sim::gpu::sm::PASSES),
        ] {
            let _ = context.set_value(name.into(), Value::Int(i64::from(value)));
        }
        self.tree
            .eval_int_with_context(&context)
            .map_err(|e| RbeError::Formula {
                file: self.file.clone(),
                line: self.line,
                formula: self.formula.clone(),
                reason: e.to_string(),
            })
    }
}

/// A loaded rbe.
#[derive(Clone, Debug)]
pub struct Rbe {
    pub path: PathBuf,
    /// The file's stem.
    pub name: String,
    pub program: Vec<u32>,
    pub expects: Vec<Expect>,
    pub points: Vec<u32>,
    pub threads: u32,
    /// The monitor map of its `map` line.
    pub map: Option<std::sync::Arc<MonitorMap>>,
}

impl Rbe {
    pub fn launch(&self, n: u32) -> Launch {
        Launch {
            n,
            threads: self.threads,
        }
    }
}

/// Why an rbe does not load.
#[derive(Debug, thiserror::Error)]
pub enum RbeError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Asm(#[from] AsmError),
    #[error("{file}:{line}: {reason}")]
    Header {
        file: String,
        line: usize,
        reason: String,
    },
    #[error("{file}:{line}: formula `{}`: {reason}", shorten(.formula))]
    Formula {
        file: String,
        line: usize,
        formula: String,
        reason: String,
    },
    #[error("{file}:{line}: map: {source}")]
    Map {
        file: String,
        line: usize,
        #[source]
        source: MapError,
    },
    #[error("{0}: no `# expect CNTk = FORMULA` line: an rbe states what it expects")]
    NoExpect(String),
    #[error("{0}: no `# points N = ...` line: an rbe lists the loop counts to run")]
    NoPoints(String),
}

/// Parses an rbe's source; `path` names it.
pub fn parse(source: &str, path: &Path) -> Result<Rbe, RbeError> {
    let file = path.display().to_string();
    let program = assemble(source, &file)?.values();
    let mut expects = Vec::new();
    let mut points = None;
    let mut threads = 32;
    // The line of each one-per-file header, once seen.
    let mut points_line = None;
    let mut threads_line = None;
    let mut map: Option<(usize, std::sync::Arc<MonitorMap>)> = None;
    for (index, text) in source.lines().enumerate() {
        let line = index + 1;
        let Some(header) = text.trim().strip_prefix('#') else {
            continue;
        };
        let header = header.trim();
        let header_error = |reason: String| RbeError::Header {
            file: file.clone(),
            line,
            reason,
        };
        let (keyword, rest) = header
            .split_once(char::is_whitespace)
            .unwrap_or((header, ""));
        match keyword {
            "expect" => {
                let (counter, formula) = rest.split_once('=').ok_or_else(|| {
                    header_error(format!(
                        "expected `# expect CNTk = FORMULA`, found `# {}`",
                        shorten(header)
                    ))
                })?;
                let counter = counter.trim();
                let (counter, selection) = match counter.split_once(char::is_whitespace) {
                    Some((c, s)) => (c, Some(s.trim())),
                    None => (counter, None),
                };
                let k = counter
                    .strip_prefix("CNT")
                    .and_then(|k| k.parse::<u8>().ok())
                    .filter(|&k| k < 16)
                    .ok_or_else(|| {
                        header_error(format!(
                            "expected a counter CNT0..CNT15, found `{}`",
                            shorten(counter)
                        ))
                    })?;
                let s = match selection {
                    None => 0,
                    Some(text) => text
                        .strip_prefix("SEL")
                        .and_then(|s| s.parse::<u8>().ok())
                        .filter(|&s| s < 8)
                        .ok_or_else(|| {
                            header_error(format!(
                                "expected a selection SEL0..SEL7 after CNT{k}, found `{}`",
                                shorten(text)
                            ))
                        })?,
                };
                if expects
                    .iter()
                    .any(|e: &Expect| e.counter == k && e.selection == s)
                {
                    return Err(header_error(match selection {
                        None => format!("CNT{k} is expected twice"),
                        Some(_) => format!("CNT{k} SEL{s} is expected twice"),
                    }));
                }
                let formula = formula.trim().to_string();
                check_formula(&formula).map_err(|reason| RbeError::Formula {
                    file: file.clone(),
                    line,
                    formula: formula.clone(),
                    reason,
                })?;
                let tree =
                    evalexpr::build_operator_tree(&formula).map_err(|e| RbeError::Formula {
                        file: file.clone(),
                        line,
                        formula: formula.clone(),
                        reason: e.to_string(),
                    })?;
                expects.push(Expect {
                    file: file.clone(),
                    counter: k,
                    selection: s,
                    formula,
                    line,
                    tree,
                });
            }
            "points" => {
                if let Some(first) = points_line.replace(line) {
                    return Err(header_error(format!(
                        "a second `points` line (the first is line {first})"
                    )));
                }
                let values = rest
                    .trim()
                    .strip_prefix('N')
                    .and_then(|r| r.trim().strip_prefix('='))
                    .ok_or_else(|| {
                        header_error(format!(
                            "expected `# points N = 0, 1, 2`, found `# {}`",
                            shorten(header)
                        ))
                    })?;
                let mut list = Vec::new();
                for value in values.split(',') {
                    let n = value
                        .trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|&n| n <= MAX_N)
                        .ok_or_else(|| {
                            header_error(format!(
                                "expected a loop count 0..{MAX_N}, found `{}`",
                                shorten(value.trim())
                            ))
                        })?;
                    if list.len() == MAX_POINTS {
                        return Err(header_error(format!("more than {MAX_POINTS} points")));
                    }
                    if list.contains(&n) {
                        // A repeated point would weigh twice in the fits.
                        return Err(header_error(format!("loop count {n} is listed twice")));
                    }
                    list.push(n);
                }
                points = Some(list);
            }
            "threads" => {
                if let Some(first) = threads_line.replace(line) {
                    return Err(header_error(format!(
                        "a second `threads` line (the first is line {first})"
                    )));
                }
                threads = rest
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|t| (1..=MAX_THREADS_PER_BLOCK).contains(t))
                    .ok_or_else(|| {
                        header_error(format!(
                            "expected a thread count 1..{MAX_THREADS_PER_BLOCK}, found `{}`",
                            shorten(rest.trim())
                        ))
                    })?;
            }
            "map" => {
                if let Some((first, _)) = &map {
                    return Err(header_error(format!(
                        "a second `map` line (the first is line {first})"
                    )));
                }
                let relative = Path::new(rest.trim());
                let at = path.parent().unwrap_or(Path::new(".")).join(relative);
                let loaded = MonitorMap::load(&at).map_err(|source| RbeError::Map {
                    file: file.clone(),
                    line,
                    source,
                })?;
                map = Some((line, std::sync::Arc::new(loaded)));
            }
            _ => {}
        }
    }
    let selectors = map.as_ref().map_or(1, |(_, m)| m.selectors);
    if let Some(e) = expects
        .iter()
        .find(|e| usize::from(e.selection) >= selectors)
    {
        return Err(RbeError::Header {
            file: file.clone(),
            line: e.line,
            reason: format!(
                "CNT{} SEL{}: the rbe's PMU has {selectors} input(s) per counter (a `# map` with selectors gives more)",
                e.counter, e.selection
            ),
        });
    }
    if expects.is_empty() {
        return Err(RbeError::NoExpect(file));
    }
    let points = points.ok_or_else(|| RbeError::NoPoints(file.clone()))?;
    let rbe = Rbe {
        path: path.to_path_buf(),
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        program,
        expects,
        points,
        threads,
        map: map.map(|(_, m)| m),
    };
    // Every formula evaluates at every point.
    for expect in &rbe.expects {
        for &n in &rbe.points {
            expect.evaluate(rbe.launch(n))?;
        }
    }
    Ok(rbe)
}

/// A formula short and shallow enough to parse and evaluate (the parser
/// recurses on nesting); why not, otherwise.
fn check_formula(formula: &str) -> Result<(), String> {
    let chars = formula.chars().count();
    if chars > MAX_FORMULA_CHARS {
        return Err(format!(
            "{chars} characters: a formula has at most {MAX_FORMULA_CHARS}"
        ));
    }
    let mut depth = 0usize;
    for c in formula.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_FORMULA_DEPTH {
                    return Err(format!("parentheses nest deeper than {MAX_FORMULA_DEPTH}"));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Loads one rbe file.
pub fn load(path: &Path) -> Result<Rbe, RbeError> {
    let source = read_text(path, MAX_PROGRAM_BYTES)?;
    parse(&source, path)
}

/// The `.sass` files of `dir`, sorted by name.
pub fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "sass") {
            if files.len() == MAX_RBES {
                return Err(std::io::Error::other(format!(
                    "more than {MAX_RBES} .sass files"
                )));
            }
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rbe(header: &str) -> Result<Rbe, RbeError> {
        parse(&format!("{header}\nRET\n"), Path::new("x.sass"))
    }

    #[test]
    fn headers_parse_and_evaluate() {
        let rbe =
            rbe("# expect CNT1 = passes * warps * (3 + 5*N)\n# points N = 0, 2\n# threads 64")
                .unwrap();
        assert_eq!(
            (rbe.points.clone(), rbe.threads, rbe.name.as_str()),
            (vec![0, 2], 64, "x")
        );
        assert_eq!(rbe.expects[0].counter, 1);
        assert_eq!(rbe.expects[0].evaluate(rbe.launch(2)).unwrap(), 4 * 2 * 13);
    }

    #[test]
    fn bad_headers_name_the_line() {
        for (header, message) in [
            (
                "# expect CNT16 = N\n# points N = 1",
                "x.sass:1: expected a counter CNT0..CNT15, found `CNT16`",
            ),
            (
                "# expect CNT1 = N +\n# points N = 1",
                "x.sass:1: formula `N +`",
            ),
            ("# expect CNT1 = M\n# points N = 1", "x.sass:1: formula `M`"),
            (
                "# expect CNT1 = N\n# points N = 1, x",
                "x.sass:2: expected a loop count 0..1000000, found `x`",
            ),
            (
                "# expect CNT1 = N\n# points N = 1\n# threads 513",
                "x.sass:3: expected a thread count 1..512",
            ),
            (
                "# points N = 1",
                "x.sass: no `# expect CNTk = FORMULA` line",
            ),
            ("# expect CNT1 = N", "x.sass: no `# points N = ...` line"),
            (
                "# expect CNT1 = N\n# expect CNT1 = 2\n# points N = 1",
                "x.sass:2: CNT1 is expected twice",
            ),
            (
                "# expect CNT1 = N\n# points N = 1\n# points N = 2",
                "x.sass:3: a second `points` line (the first is line 2)",
            ),
            (
                "# expect CNT1 = N\n# points N = 1\n# threads 32\n# threads 64",
                "x.sass:4: a second `threads` line (the first is line 3)",
            ),
            (
                "# expect CNT1 = N\n# points N = 1, 2, 1",
                "x.sass:2: loop count 1 is listed twice",
            ),
            (
                "# expect CNT1 SEL1 = N\n# points N = 1",
                "x.sass:1: CNT1 SEL1: the rbe's PMU has 1 input(s) per counter",
            ),
            (
                "# expect CNT1 SEL9 = N\n# points N = 1",
                "x.sass:1: expected a selection SEL0..SEL7 after CNT1, found `SEL9`",
            ),
            (
                "# expect CNT1 = N\n# expect CNT1 SEL0 = N\n# points N = 1",
                "x.sass:2: CNT1 SEL0 is expected twice",
            ),
            (
                "# expect CNT1 = N\n# points N = 1\n# map no_such_map.toml",
                "x.sass:3: map: no_such_map.toml: cannot read",
            ),
        ] {
            let err = rbe(header).unwrap_err().to_string();
            assert!(err.starts_with(message), "{header}: {err}");
        }
    }

    /// Hostile formulas are refused before the (recursive) parser sees
    /// them, and echoed cut short.
    #[test]
    fn formulas_are_bounded_in_length_and_depth() {
        let deep = format!("{}N{}", "(".repeat(100_000), ")".repeat(100_000));
        let err = rbe(&format!("# expect CNT1 = {deep}\n# points N = 1"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("characters: a formula has at most 256"),
            "{err}"
        );
        assert!(err.len() < 200, "{err}");
        let minus = format!("{}N", "-".repeat(100_000));
        let err = rbe(&format!("# expect CNT1 = {minus}\n# points N = 1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("a formula has at most 256"), "{err}");
        let nested = format!("{}N{}", "(".repeat(17), ")".repeat(17));
        let err = rbe(&format!("# expect CNT1 = {nested}\n# points N = 1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("parentheses nest deeper than 16"), "{err}");
        // At the limits, formulas still work.
        let ok = format!("{}N{}", "(".repeat(16), ")".repeat(16));
        let rbe = rbe(&format!(
            "# expect CNT1 = {ok} + {}1\n# points N = 3",
            "-".repeat(200)
        ))
        .unwrap();
        assert_eq!(rbe.expects[0].evaluate(rbe.launch(3)).unwrap(), 4);
    }
}
