//! One counter subunit: the RESET/COUNTING/IDLE controller and its
//! synchronous counter with clear and enable (thesis section 2.1.1).

use rust_hdl::prelude::*;

use crate::comment;
use crate::support::optional::Optional;

use flexpmu_isa::PmuCommand;

/// A counter of `WIDTH` bits governed by a three-state FSM.
///
/// The command decoder presents PMURST to every subunit during a global
/// reset, so the subunit needs no reset port of its own.
pub struct CounterSubunit<const WIDTH: usize> {
    /// PMU clock; every register changes on its rising edge.
    pub clock: Signal<In, Clock>,
    /// Command for this subunit (PMUNOP unless it is addressed).
    pub command: Signal<In, Bits<2>>,
    /// Converter pulse: counts one event when high while COUNTING.
    pub enable: Signal<In, Bit>,
    /// With a hold input ([`CounterSubunit::with_hold`], the selector
    /// PMU's): the count ignores `enable` in this cycle (its selection
    /// switches); PMURST still clears it.
    pub hold: Optional<Signal<In, Bit>>,
    /// Current count.
    pub count: Signal<Out, Bits<WIDTH>>,
    /// Current FSM state (see [`CounterState`] for the encoding).
    pub state: Signal<Out, Bits<2>>,
    state_reg: DFF<Bits<2>>,
    count_reg: DFF<Bits<WIDTH>>,
    cmd_cnt: Constant<Bits<2>>,
    cmd_rst: Constant<Bits<2>>,
    cmd_idl: Constant<Bits<2>>,
    state_reset: Constant<Bits<2>>,
    state_counting: Constant<Bits<2>>,
    state_idle: Constant<Bits<2>>,
}

impl<const WIDTH: usize> Default for CounterSubunit<WIDTH> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            command: Default::default(),
            enable: Default::default(),
            hold: Optional::when(false, Default::default),
            count: Default::default(),
            state: Default::default(),
            state_reg: Default::default(),
            count_reg: Default::default(),
            cmd_cnt: Constant::new(PmuCommand::Cnt.bits().into()),
            cmd_rst: Constant::new(PmuCommand::Rst.bits().into()),
            cmd_idl: Constant::new(PmuCommand::Idl.bits().into()),
            state_reset: Constant::new(CounterState::Reset.bits().into()),
            state_counting: Constant::new(CounterState::Counting.bits().into()),
            state_idle: Constant::new(CounterState::Idle.bits().into()),
        }
    }
}

impl<const WIDTH: usize> CounterSubunit<WIDTH> {
    /// This counter with a hold input.
    pub fn with_hold(self) -> Self {
        Self {
            hold: Optional::when(true, Default::default),
            ..self
        }
    }
}

crate::hdl_block!([const WIDTH: usize] CounterSubunit<WIDTH> {
    inputs: [clock, command, enable, hold],
    outputs: [count, state],
    parts: [state_reg, count_reg],
    constants: [cmd_cnt, cmd_rst, cmd_idl, state_reset, state_counting, state_idle],
});

impl<const WIDTH: usize> Logic for CounterSubunit<WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: counter_subunit");
        dff_setup!(self, clock, state_reg, count_reg);
        // Next state: the command, if any, decides; PMUNOP holds.
        if self.command.val() == self.cmd_cnt.val() {
            self.state_reg.d.next = self.state_counting.val();
        } else if self.command.val() == self.cmd_rst.val() {
            self.state_reg.d.next = self.state_reset.val();
        } else if self.command.val() == self.cmd_idl.val() {
            self.state_reg.d.next = self.state_idle.val();
        }
        // Counter: clear on PMURST, else count enabled pulses while COUNTING.
        if self.command.val() == self.cmd_rst.val() {
            self.count_reg.d.next = 0.into();
        } else if (self.state_reg.q.val() == self.state_counting.val()) & self.enable.val() {
            self.count_reg.d.next = self.count_reg.q.val() + 1;
        }
        // The hold overrides the count last: it gates the enable at the
        // register, after the increment, not at its carry-in.
        for _k in 0..self.hold.len() {
            if self.hold.val() & (self.command.val() != self.cmd_rst.val()) {
                self.count_reg.d.next = self.count_reg.q.val();
            }
        }
        self.count.next = self.count_reg.q.val();
        self.state.next = self.state_reg.q.val();
    }
}

/// The state of a counter subunit's FSM, as stored in its 2-bit state
/// register. The encoding is chosen so that RESET is the all-zero power-up
/// value and COUNTING/IDLE equal the commands that enter them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CounterState {
    /// `00`: cleared, not counting (power-up state).
    Reset = 0,
    /// `01`: counting converter pulses.
    Counting = 1,
    /// `11`: holding the count for a read.
    Idle = 3,
}

impl CounterState {
    pub fn bits(self) -> u64 {
        self as u64
    }

    /// Decodes a state register value; `10` never occurs in the RTL and is
    /// reported as `None`.
    pub fn from_bits(bits: u64) -> Option<CounterState> {
        match bits {
            0 => Some(Self::Reset),
            1 => Some(Self::Counting),
            3 => Some(Self::Idle),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Reset => "RESET",
            Self::Counting => "COUNTING",
            Self::Idle => "IDLE",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn counter_subunit_synthesizes() {
        let mut uut = CounterSubunit::<32>::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        insta::assert_snapshot!(verilog);
        let report = check_synthesizes("counter_subunit", &verilog).unwrap();
        assert_eq!(report.flip_flop_bits, 32 + 2, "{report:?}");
    }

    /// Drives one cycle: presents `command`/`enable`, then clocks.
    fn step(d: &mut Driver<CounterSubunit<8>>, command: PmuCommand, enable: bool) -> (u64, u64) {
        d.uut.command.next = command.bits().into();
        d.uut.enable.next = enable;
        d.cycle();
        (
            d.uut.count.val().index() as u64,
            d.uut.state.val().index() as u64,
        )
    }

    #[test]
    fn counter_subunit_operation() {
        use PmuCommand::*;
        let mut d = Driver::new(CounterSubunit::<8>::default());
        // Power-up: RESET, and pulses are ignored.
        assert_eq!(step(&mut d, Nop, true), (0, CounterState::Reset.bits()));
        // PMUCNT takes effect at the edge: the pulse in the same cycle is not counted.
        assert_eq!(step(&mut d, Cnt, true), (0, CounterState::Counting.bits()));
        assert_eq!(step(&mut d, Nop, true), (1, CounterState::Counting.bits()));
        assert_eq!(step(&mut d, Nop, false), (1, CounterState::Counting.bits()));
        // PMUIDL: the pulse in the command's own cycle is still counted, later ones are not.
        assert_eq!(step(&mut d, Idl, true), (2, CounterState::Idle.bits()));
        assert_eq!(step(&mut d, Nop, true), (2, CounterState::Idle.bits()));
        // Back to COUNTING keeps the value.
        assert_eq!(step(&mut d, Cnt, false), (2, CounterState::Counting.bits()));
        // Wraps modulo 2^8.
        for expected in 3..=255u64 {
            assert_eq!(step(&mut d, Nop, true).0, expected);
        }
        assert_eq!(step(&mut d, Nop, true).0, 0);
        assert_eq!(step(&mut d, Nop, true).0, 1);
        // PMURST clears at the edge even with a pulse present.
        assert_eq!(step(&mut d, Rst, true), (0, CounterState::Reset.bits()));
        assert_eq!(step(&mut d, Nop, true), (0, CounterState::Reset.bits()));
    }

    /// A hold stops the count for its cycle, whatever the pulse; PMURST
    /// still clears, and CNT still changes the state.
    #[test]
    fn a_hold_keeps_the_count() {
        use PmuCommand::*;
        let mut d = Driver::new(CounterSubunit::<8>::default().with_hold());
        let mut step = |command: PmuCommand, enable: bool, hold: bool| {
            d.uut.hold.next = hold;
            step(&mut d, command, enable)
        };
        let counting = CounterState::Counting.bits();
        assert_eq!(step(Cnt, true, true), (0, counting));
        assert_eq!(step(Nop, true, false), (1, counting));
        assert_eq!(step(Nop, true, true), (1, counting));
        assert_eq!(step(Cnt, true, true), (1, counting));
        assert_eq!(step(Nop, true, false), (2, counting));
        assert_eq!(step(Rst, true, true), (0, CounterState::Reset.bits()));
    }
}
