//! What a long run's caller hears as it goes: one progress interface for
//! every run flexpmu's libraries make at length (a campaign's golden run,
//! a co-simulation's steps, the validation's points), so that a command
//! shows each the same way.

/// What a long run's caller hears as it goes.
pub trait Progress {
    /// A new step (e.g. "golden run", "FlexGripPlus under GHDL"), with
    /// the cycles it runs at most or is expected to (None: not known).
    fn step(&mut self, what: &str, cycles: Option<u64>);
    /// The current step's simulation has reached `cycle`.
    fn cycle(&mut self, cycle: u64);
    /// The current step is over.
    fn done(&mut self) {}
}

/// No progress shown.
pub struct Quiet;

impl Progress for Quiet {
    fn step(&mut self, _: &str, _: Option<u64>) {}
    fn cycle(&mut self, _: u64) {}
}
