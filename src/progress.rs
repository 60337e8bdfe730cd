//! Progress on stderr for every long run, at a terminal and in logs.
//!
//! At a terminal a bar or spinner redraws in place, as indicatif draws
//! it. When stderr is not a terminal (a log file, SLURM's output, CI),
//! indicatif would draw nothing; here the bar's line is printed whole
//! instead, one every [`LOG_EVERY`] (or `FLEXPMU_PROGRESS_SECONDS`) from
//! the bar's start, so a log shows that a long run goes on and how far it
//! is, without a line per fault and without a line for a short run.

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// How often a log gets a progress line (unless `FLEXPMU_PROGRESS_SECONDS`
/// says otherwise).
pub const LOG_EVERY: Duration = Duration::from_secs(5);

/// The environment variable that sets how often, in seconds (0: every
/// time the bar is drawn, at most once a second).
pub const LOG_EVERY_VARIABLE: &str = "FLEXPMU_PROGRESS_SECONDS";

/// [`LOG_EVERY`], or what [`LOG_EVERY_VARIABLE`] says.
fn log_every() -> Duration {
    std::env::var(LOG_EVERY_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(LOG_EVERY, Duration::from_secs)
}

/// A bar of `len` steps (`ProgressBar::new`'s).
pub fn bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Some(target) = log_target() {
        bar.set_draw_target(target);
    }
    bar
}

/// A spinner (`ProgressBar::new_spinner`'s).
pub fn spinner() -> ProgressBar {
    let spinner = ProgressBar::new_spinner();
    if let Some(target) = log_target() {
        spinner.set_draw_target(target);
    }
    spinner
}

/// Prints `text` on stderr to stay, above `bar` when it is drawn at a
/// terminal (a log gets it as it is, never thinned out).
pub fn note(bar: &ProgressBar, text: &str) {
    match std::io::stderr().is_terminal() && !bar.is_hidden() {
        true => bar.println(text),
        false => eprintln!("{text}"),
    }
}

/// The draw target for a stderr that is not a terminal (None: it is one,
/// and indicatif's own target serves).
fn log_target() -> Option<ProgressDrawTarget> {
    if std::io::stderr().is_terminal() {
        return None;
    }
    Some(ProgressDrawTarget::term_like_with_hz(
        Box::new(LogLines::new(log_every())),
        1,
    ))
}

/// A "terminal" that is a log: of what indicatif draws, a line now and
/// then.
#[derive(Debug)]
struct LogLines {
    every: Duration,
    /// When a line was last printed, or the bar started.
    last: Mutex<Instant>,
}

impl LogLines {
    fn new(every: Duration) -> LogLines {
        LogLines {
            every,
            last: Mutex::new(Instant::now()),
        }
    }

    /// Whether a line drawn now is printed (and, if so, the time noted):
    /// one a period, the first a period after the start.
    fn due(&self) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        match now.duration_since(*last) >= self.every {
            true => {
                *last = now;
                true
            }
            false => false,
        }
    }

    fn print(&self, text: &str) -> std::io::Result<()> {
        let text = text.trim();
        if !text.is_empty() && self.due() {
            use std::io::Write as _;
            let mut err = std::io::stderr().lock();
            writeln!(err, "{text}")?;
        }
        Ok(())
    }
}

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.print(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.print(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A run's progress on standard error (hidden when `quiet`): its cycle,
/// how fast it goes, and the cycle it stops by at the latest (its bound),
/// set through [`CycleBar::at`].
pub struct CycleBar(indicatif::ProgressBar);

impl CycleBar {
    /// A bar for `what` (e.g. "golden run"), ticking from the start.
    pub fn new(what: &str, quiet: bool) -> CycleBar {
        let bar = crate::progress::spinner();
        if quiet {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        bar.set_style(
            indicatif::ProgressStyle::with_template("{prefix}: {msg} [{elapsed}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.set_prefix(what.to_string());
        bar.set_message("starting (a kernel that loops is counted on the ISS first)");
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        CycleBar(bar)
    }

    /// The run is at `cycle`, of at most `bound`.
    pub fn at(&self, cycle: u64, bound: u64) {
        if self.0.length() != Some(bound) {
            self.0.set_style(cycle_style());
            self.0.set_length(bound);
            self.0.set_message("");
        }
        self.0.set_position(cycle);
    }

    /// Shows `what` is being done now.
    pub fn step(&self, what: &str) {
        self.0.set_message(what.to_string());
    }

    /// What shows each step of the task `what` before the run (e.g.
    /// FlexGripPlus' import) on the bar; a note (`note: …`) is printed to
    /// stay.
    pub fn task(&self, what: &str) -> impl FnMut(&str) {
        let (bar, what) = (self.0.clone(), what.to_string());
        move |step| {
            if step.starts_with("note: ") {
                crate::progress::note(&bar, step);
            } else {
                bar.set_prefix(what.clone());
                bar.set_message(step.to_string());
            }
        }
    }

    /// The run is over: the bar goes (as it does when dropped, on an
    /// error).
    pub fn finish(self) {}
}

/// A library's run told on the bar: each step its prefix, its cycles
/// the bound the bar shows.
impl flexpmu_sim::progress::Progress for CycleBar {
    fn step(&mut self, what: &str, cycles: Option<u64>) {
        self.0.set_prefix(what.to_string());
        if let Some(bound) = cycles {
            self.at(0, bound);
        }
    }

    fn cycle(&mut self, cycle: u64) {
        self.0.set_position(cycle);
    }
}

impl Drop for CycleBar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A run's cycle, its rate, and its bound.
fn cycle_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(
        "{prefix}: cycle {human_pos} [{elapsed}, {rate}]; it stops by cycle {human_len} at the latest ({eta} at this rate) {msg}",
    )
    .map(|style| {
        style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{} cycles/s", indicatif::HumanCount(state.per_sec() as u64));
            },
        )
    })
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
}

/// Shows `step` of `what` on `spinner`; a note (`note: …`) is printed to
/// stay, above the spinner or on stderr when the spinner is not shown.
pub fn note_or_step(spinner: &ProgressBar, what: &str, step: &str) {
    if step.starts_with("note: ") {
        crate::progress::note(spinner, step);
    } else {
        spinner.set_message(format!("{what}: {step}"));
    }
}

/// Progress of a co-simulation on stderr.
pub struct Bars {
    bar: ProgressBar,
}

impl Bars {
    pub fn new(hidden: bool) -> Bars {
        let bar = if hidden {
            ProgressBar::hidden()
        } else {
            crate::progress::spinner()
        };
        Bars { bar }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl flexpmu_sim::progress::Progress for Bars {
    fn step(&mut self, what: &str, expected_cycles: Option<u64>) {
        match expected_cycles {
            Some(cycles) => {
                self.bar.set_length(cycles);
                self.bar.set_position(0);
                self.bar.set_style(
                    ProgressStyle::with_template(
                        "{msg} [{bar:30}] {pos}/{len} cycles (flexpmu's count), {per_sec}, ETA {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
            }
            None => {
                self.bar.set_style(ProgressStyle::default_spinner());
                self.bar.enable_steady_tick(Duration::from_millis(200));
            }
        }
        self.bar.set_message(what.to_string());
    }

    fn cycle(&mut self, cycle: u64) {
        self.bar.set_position(cycle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_gets_a_line_per_period_and_none_for_a_short_run() {
        let log = LogLines::new(Duration::from_millis(200));
        assert!(!log.due(), "nothing before the first period");
        std::thread::sleep(Duration::from_millis(250));
        assert!(log.due());
        assert!(!log.due(), "the next only after another period");
        std::thread::sleep(Duration::from_millis(250));
        assert!(log.due());
        assert!(LogLines::new(Duration::ZERO).due());
    }
}
