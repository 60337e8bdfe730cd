//! The PMU top (thesis section 2.1): command decoder, one toggle converter
//! and one counter subunit per channel, and the output mux.

pub mod command_decoder;
pub mod counter_subunit;
pub mod event_selector;
pub mod one_hot_mux;
pub mod output_mux;
pub mod selected_toggle;
pub mod toggle_converter;

use rust_hdl::prelude::*;

use crate::comment;
use crate::support::optional::Optional;

pub use command_decoder::CommandDecoder;
pub use counter_subunit::{CounterState, CounterSubunit};
pub use event_selector::EventSelector;
pub use one_hot_mux::{OneHotMux, MUX_INPUTS};
pub use output_mux::OutputMux;
pub use selected_toggle::SelectedToggle;
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

/// Input counts per channel a PMU can have: 1 (the thesis' PMU) or a
/// power of two up to the eight the 3-bit selector field addresses.
pub const SELECTOR_CHOICES: [usize; 4] = [1, 2, 4, 8];

/// Per-channel configuration of a PMU with `COUNT` channels of at most
/// `INPUT_WIDTH` bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuConfig {
    pub channels: Vec<ChannelConfig>,
    /// Inputs per channel, S (one of [`SELECTOR_CHOICES`]): a PMEVENT's
    /// selector chooses which one the counter counts. 1 is the thesis'
    /// PMU.
    pub selectors: usize,
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
            selectors: 1,
        }
    }

    /// These channels with `selectors` inputs each.
    pub fn with_selectors(self, selectors: usize) -> Self {
        PmuConfig { selectors, ..self }
    }
}

/// The Performance Monitoring Unit.
///
/// * `COUNT`: number of counters (1..=16; thesis: 16).
/// * `COUNTER_WIDTH`: bits per counter (thesis: 32); counters wrap.
/// * `INPUT_WIDTH`: width of every `monitor_in` port (default 32); a channel
///   may use fewer bits (see [`ChannelConfig`]).
///
/// With S inputs per channel ([`PmuConfig::selectors`] > 1) the PMU has
/// `COUNT × S` monitored inputs, input `s × COUNT + i` being counter `i`'s
/// input `s` (so inputs 0 to `COUNT - 1` are the thesis PMU's), a
/// `selector` port beside `command`, and per counter an [`EventSelector`],
/// a compare of each of its inputs with its converter's previous value
/// that the selection picks among ([`SelectedToggle`]) and a mux that
/// reloads the previous value (a level channel's reload mux feeds nothing
/// and synthesis removes it). With S = 1 none of them exist and
/// the HDL is the thesis PMU's, bit for bit.
///
/// **A switch.** A PMUCNT or PMURST in cycle t whose selector differs from
/// the counter's selection switches it: the count holds in cycle t (the
/// converter output is ignored), and the converter's previous-value
/// register loads the new input's cycle-t value, the compare following the
/// new input from cycle t+1 on (the choice is a register and meets the
/// compare at its last gate; the switch holds the count at its register,
/// so no path runs from the command decode through the compare or the
/// increment). The first event
/// that can count is the new input's change between cycles t and t+1
/// (toggle) or the new input non-zero in cycle t+1 (level); a counter that
/// was counting loses only cycle t. A selection with no input behind it
/// (S..7 from the port; the hooks never send one) counts nothing.
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
    /// With S > 1: the selector a PMUCNT or PMURST loads into the
    /// addressed counter's selection.
    pub selector: Optional<Signal<In, Bits<3>>>,
    /// The monitored signals: `COUNT × S`, input `s × COUNT + i` being
    /// counter `i`'s input `s`.
    pub monitor_in: Vec<Signal<In, Bits<INPUT_WIDTH>>>,
    /// The addressed counter's value.
    pub monitor_out: Signal<Out, Bits<COUNTER_WIDTH>>,
    pub decoder: CommandDecoder<COUNT>,
    /// With S > 1, one per counter; empty otherwise.
    pub selectors: Vec<EventSelector>,
    /// With S > 1, per counter: whether the input its choice picks is an
    /// event (each input compared with the converter's previous value) ...
    pub compare: Optional<SelectedToggle<COUNT, INPUT_WIDTH>>,
    /// ... and the input its previous-value register loads (picked by the
    /// selection after this cycle).
    pub reload_mux: Optional<OneHotMux<COUNT, INPUT_WIDTH>>,
    pub converters: [ToggleConverter<INPUT_WIDTH>; COUNT],
    pub counters: [CounterSubunit<COUNTER_WIDTH>; COUNT],
    pub mux: OutputMux<COUNT, COUNTER_WIDTH>,
    /// S (1 without selectors): a bound of the mux loop in `update`.
    inputs_per_channel: usize,
}

/// The thesis' PMU: 16 counters of 32 bits, 32-bit toggle channels.
pub type DefaultPmu = Pmu<16, 32, 32>;

impl<const COUNT: usize, const COUNTER_WIDTH: usize, const INPUT_WIDTH: usize>
    Pmu<COUNT, COUNTER_WIDTH, INPUT_WIDTH>
{
    pub fn new(config: &PmuConfig) -> Self {
        assert_eq!(config.channels.len(), COUNT, "one channel per counter");
        assert!(
            SELECTOR_CHOICES.contains(&config.selectors),
            "{} inputs per channel: expected one of {SELECTOR_CHOICES:?}",
            config.selectors
        );
        let selectable = config.selectors > 1;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            address: Default::default(),
            command: Default::default(),
            selector: Optional::when(selectable, Default::default),
            monitor_in: (0..COUNT * config.selectors)
                .map(|_| Default::default())
                .collect(),
            monitor_out: Default::default(),
            decoder: Default::default(),
            selectors: (0..if selectable { COUNT } else { 0 })
                .map(|_| Default::default())
                .collect(),
            compare: Optional::when(selectable, || SelectedToggle::new(config.selectors)),
            reload_mux: Optional::when(selectable, Default::default),
            converters: std::array::from_fn(|i| {
                let ch = config.channels[i];
                let converter = ToggleConverter::new(ch.width, ch.mode == ChannelMode::Level);
                if selectable {
                    converter.with_reload()
                } else {
                    converter
                }
            }),
            counters: std::array::from_fn(|_| {
                let counter = CounterSubunit::default();
                if selectable {
                    counter.with_hold()
                } else {
                    counter
                }
            }),
            mux: Default::default(),
            inputs_per_channel: config.selectors,
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
    inputs: [clock, reset, address, command, selector, monitor_in],
    outputs: [monitor_out],
    parts: [decoder, selectors, compare, reload_mux, converters, counters, mux],
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
        // With selectors only (no passes otherwise): each counter counts
        // the compare of the input its choice picks (a register), the
        // converter's previous-value register loads the input the next
        // choice picks (0 for a choice with no input behind it), and a
        // switch's cycle holds the count. rust-hdl's HDL translation takes
        // neither locals nor constants in an index, so the one-pass loop
        // over `n` stands for COUNT.
        for i in 0..self.selectors.len() {
            self.selectors[i].clock.next = self.clock.val();
            self.selectors[i].reset.next = self.reset.val();
            self.selectors[i].addressed.next = self.decoder.select.val().get_bit(i);
            self.selectors[i].command.next = self.command.val();
            self.selectors[i].selector.next = self.selector.val();
            self.compare.choices[i].next = self.selectors[i].choice.val();
            self.compare.previous[i].next = self.converters[i].previous_value.val();
            self.compare.masks[i].next = self.converters[i].mask.val();
            self.reload_mux.choices[i].next = self.selectors[i].next_choice.val();
            for n in COUNT..(COUNT + 1) {
                for s in 0..self.inputs_per_channel {
                    self.compare.inputs[s * n + i].next = self.monitor_in[s * n + i].val();
                    self.reload_mux.inputs[s * n + i].next = self.monitor_in[s * n + i].val();
                }
                for s in self.inputs_per_channel..MUX_INPUTS {
                    self.reload_mux.inputs[s * n + i].next = 0.into();
                }
            }
            self.converters[i].reload_in.next = self.reload_mux.picked[i].val();
            self.counters[i].enable.next = self.compare.pulse[i].val();
            self.counters[i].hold.next = self.selectors[i].switching.val();
        }
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

    /// With four inputs per channel: per counter three selection bits and
    /// a four-bit one-hot choice more (the choice's bits 4-7 pick no input
    /// and synthesis removes them).
    #[test]
    fn selector_pmu_synthesizes() {
        let mut uut = DefaultPmu::new(&PmuConfig::uniform(16, 32).with_selectors(4));
        uut.connect_all();
        assert_eq!(uut.monitor_in.len(), 64);
        let report = check_synthesizes("pmu_s4", &generate_verilog(&uut)).unwrap();
        // Selections load 0..7 from the port: all three bits are kept.
        assert_eq!(
            report.flip_flop_bits,
            16 * 32 + 16 * 2 + 16 * 32 + 16 * (3 + 4),
            "{report:?}"
        );
    }

    /// Counter 1 counts its input 0, is switched to input 2 while counting
    /// (inputs at different values: no event from the switch), counts a
    /// toggle there, and a switch to input 3 by RST clears it.
    #[test]
    fn selector_pmu_operation() {
        type Pmu2 = Pmu<2, 32, 8>;
        let mut d = Driver::new(Pmu2::new(&PmuConfig::uniform(2, 8).with_selectors(4)));
        // Counter 1's inputs are 1, 3, 5, 7 (s × 2 + 1).
        let set =
            |d: &mut Driver<Pmu2>, s: usize, v: u64| d.uut.monitor_in[s * 2 + 1].next = v.into();
        for s in 0..4 {
            set(&mut d, s, 10 * s as u64);
        }
        d.uut.address.next = 1.into();
        d.uut.command.next = PmuCommand::Cnt.bits().into();
        d.cycle();
        d.uut.command.next = PmuCommand::Nop.bits().into();
        set(&mut d, 0, 1);
        d.cycle();
        set(&mut d, 0, 2);
        d.cycle();
        assert_eq!(d.uut.counts()[1], 2);
        // CNT with SEL2 while counting: input 2 holds 20, input 0 held 2.
        d.uut.command.next = PmuCommand::Cnt.bits().into();
        d.uut.selector.next = 2.into();
        d.cycle();
        d.uut.command.next = PmuCommand::Nop.bits().into();
        set(&mut d, 0, 7);
        d.cycle();
        d.cycle();
        assert_eq!(
            d.uut.counts()[1],
            2,
            "no event from the switch, none from input 0"
        );
        set(&mut d, 2, 21);
        d.cycle();
        assert_eq!(d.uut.counts()[1], 3);
        assert_eq!(d.uut.selectors[1].selection.val().to_u64(), 2);
        assert_eq!(d.uut.selectors[0].selection.val().to_u64(), 0);
        d.uut.command.next = PmuCommand::Rst.bits().into();
        d.uut.selector.next = 3.into();
        d.cycle();
        assert_eq!(d.uut.counts()[1], 0);
        assert_eq!(d.uut.selectors[1].selection.val().to_u64(), 3);
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
