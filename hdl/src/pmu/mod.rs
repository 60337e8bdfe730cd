//! The PMU top (thesis section 2.1): command decoder, one toggle converter
//! and one counter subunit per channel, and the output mux.

pub mod command_decoder;
pub mod counter_subunit;
pub mod output_mux;
pub mod toggle_converter;

use rust_hdl::prelude::*;

use crate::comment;

pub use command_decoder::CommandDecoder;
pub use counter_subunit::{CounterState, CounterSubunit};
pub use output_mux::OutputMux;
pub use toggle_converter::ToggleConverter;

/// How a channel's converter turns its input into events.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChannelMode {
    /// Count the cycles in which the input changes (thesis default).
    Toggle,
    /// Count the cycles in which the input is non-zero (for 1-bit inputs:
    /// high); the thesis' "conversion skipped" case.
    Level,
}

impl ChannelMode {
    /// `toggle` or `level`, as files and reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            ChannelMode::Toggle => "toggle",
            ChannelMode::Level => "level",
        }
    }
}

/// One monitored input channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ChannelConfig {
    /// Bits of the input that are monitored (1..=input width).
    pub width: usize,
    pub mode: ChannelMode,
}

/// Per-channel configuration of a PMU with `COUNT` channels of at most
/// `INPUT_WIDTH` bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuConfig {
    pub channels: Vec<ChannelConfig>,
}

impl PmuConfig {
    /// Every channel `width` bits wide in toggle mode.
    pub fn uniform(count: usize, width: usize) -> Self {
        PmuConfig {
            channels: vec![
                ChannelConfig {
                    width,
                    mode: ChannelMode::Toggle
                };
                count
            ],
        }
    }
}

/// The Performance Monitoring Unit.
///
/// * `COUNT`: number of counters (1..=16; thesis: 16).
/// * `COUNTER_WIDTH`: bits per counter (thesis: 32); counters wrap.
/// * `INPUT_WIDTH`: width of every `monitor_in` port (default 32); a channel
///   may use fewer bits (see [`ChannelConfig`]).
///
/// Latencies are defined once, in the crate documentation.
pub struct Pmu<const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize> {
    /// PMU clock (rising edge).
    pub clock: Signal<In, Clock>,
    /// Global synchronous reset, active high: every counter to RESET and 0.
    pub reset: Signal<In, Bit>,
    /// Counter addressed by `command` and shown on `monitor_out`.
    pub address: Signal<In, Bits<4>>,
    /// PMUNOP / PMUCNT / PMURST / PMUIDL for the addressed counter.
    pub command: Signal<In, Bits<2>>,
    /// The monitored signals, one per counter.
    pub monitor_in: [Signal<In, Bits<INPUT_WIDTH>>; COUNT],
    /// The addressed counter's value.
    pub monitor_out: Signal<Out, Bits<COUNTER_WIDTH>>,
    pub decoder: CommandDecoder<COUNT>,
    pub converters: [ToggleConverter<INPUT_WIDTH>; COUNT],
    pub counters: [CounterSubunit<COUNTER_WIDTH>; COUNT],
    pub mux: OutputMux<COUNT, COUNTER_WIDTH>,
}

/// The thesis' PMU: 16 counters of 32 bits, 32-bit toggle channels.
pub type DefaultPmu = Pmu<16, 32, 32>;

impl<const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize>
    Pmu<COUNT, COUNTER_WIDTH, INPUT_WIDTH>
{
    pub fn new(config: &PmuConfig) -> Self {
        assert_eq!(config.channels.len(), COUNT, "one channel per counter");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            address: Default::default(),
            command: Default::default(),
            monitor_in: std::array::from_fn(|_| Default::default()),
            monitor_out: Default::default(),
            decoder: Default::default(),
            converters: std::array::from_fn(|i| {
                let ch = config.channels[i];
                ToggleConverter::new(ch.width, ch.mode == ChannelMode::Level)
            }),
            counters: std::array::from_fn(|_| Default::default()),
            mux: Default::default(),
        }
    }
}

impl<const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize>
    Pmu<COUNT, COUNTER_WIDTH, INPUT_WIDTH>
{
    /// Every counter's current value (for observation in simulation).
    pub fn counts(&self) -> Vec<u64> {
        self.counters
            .iter()
            .map(|c| c.count.val().to_u64())
            .collect()
    }
}

impl<const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize> Default
    for Pmu<COUNT, COUNTER_WIDTH, INPUT_WIDTH>
{
    fn default() -> Self {
        Self::new(&PmuConfig::uniform(COUNT, INPUT_WIDTH))
    }
}

crate::hdl_block!([const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize]
    Pmu<COUNT, COUNTER_WIDTH, INPUT_WIDTH> {
    inputs: [clock, reset, address, command, monitor_in],
    outputs: [monitor_out],
    parts: [decoder, converters, counters, mux],
    constants: [],
});

impl<const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize> Logic
    for Pmu<COUNT, COUNTER_WIDTH, INPUT_WIDTH>
{
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: pmu");
        self.decoder.reset.next = self.reset.val();
        self.decoder.address.next = self.address.val();
        self.decoder.command.next = self.command.val();
        self.mux.address.next = self.address.val();
        for i in 0..COUNT {
            self.converters[i].clock.next = self.clock.val();
            self.converters[i].monitor_in.next = self.monitor_in[i].val();
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].command.next = self.decoder.sub_command[i].val();
            self.counters[i].enable.next = self.converters[i].pulse.val();
            self.mux.counts[i].next = self.counters[i].count.val();
        }
        self.monitor_out.next = self.mux.monitor_out.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pmu::counter_subunit::CounterState;
    use crate::support::test_driver::Driver;
    use flexpmu_isa::PmuCommand;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn pmu_synthesizes() {
        let mut uut = DefaultPmu::default();
        uut.connect_all();
        let report = check_synthesizes("pmu", &generate_verilog(&uut)).unwrap();
        // Architectural minimum: 16 x 32 counter bits, 16 x 2 FSM bits and
        // 16 x 32 converter bits.
        assert_eq!(
            report.flip_flop_bits,
            16 * 32 + 16 * 2 + 16 * 32,
            "{report:?}"
        );
    }

    type SmallPmu = Pmu<4, 32, 1>;

    fn command(d: &mut Driver<SmallPmu>, address: u64, cmd: PmuCommand) {
        d.uut.address.next = address.into();
        d.uut.command.next = cmd.bits().into();
        d.cycle();
        d.uut.command.next = PmuCommand::Nop.bits().into();
    }

    fn read(d: &mut Driver<SmallPmu>, address: u64) -> u64 {
        d.uut.address.next = address.into();
        d.settle();
        d.uut.monitor_out.val().index() as u64
    }

    /// Thesis figure 3.1: counters 0-2 count two toggles each, hold them in
    /// IDLE while their inputs keep toggling, then read 0 after PMURST.
    #[test]
    fn pmu_operation_figure_3_1() {
        let mut d = Driver::new(SmallPmu::default());
        d.uut.reset.next = true;
        d.cycle();
        d.uut.reset.next = false;
        for n in 0..3 {
            command(&mut d, n, PmuCommand::Cnt);
        }
        let mut level = false;
        for _ in 0..2 {
            level = !level;
            for input in d.uut.monitor_in.iter_mut().take(3) {
                input.next = (level as u64).into();
            }
            d.cycle();
        }
        for n in 0..3 {
            command(&mut d, n, PmuCommand::Idl);
        }
        for _ in 0..3 {
            level = !level;
            for input in d.uut.monitor_in.iter_mut().take(3) {
                input.next = (level as u64).into();
            }
            d.cycle();
        }
        for n in 0..3 {
            assert_eq!(read(&mut d, n), 2, "counter {n}");
            assert_eq!(
                d.uut.counters[n as usize].state.val().index() as u64,
                CounterState::Idle.bits()
            );
        }
        assert_eq!(read(&mut d, 3), 0);
        for n in 0..3 {
            command(&mut d, n, PmuCommand::Rst);
            command(&mut d, n, PmuCommand::Idl);
            assert_eq!(read(&mut d, n), 0, "counter {n}");
        }
    }
}
