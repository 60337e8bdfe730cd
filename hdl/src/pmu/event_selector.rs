//! One counter's event selector (PMUs with S inputs per channel): which of
//! its inputs the counter counts.

use rust_hdl::prelude::*;

use crate::comment;

use flexpmu_isa::PmuCommand;

/// The selection registers of one counter.
///
/// A CNT or RST addressed to the counter loads `selector` at the edge that
/// ends its cycle (the same edge that changes the counter's state); NOP
/// and IDL keep the selection; the global reset selects input 0.
///
/// The selection is held twice: in binary (`selection`, what a PMEVENT
/// wrote) and one-hot (`choice`: bit s picks input s; a selection with no
/// input behind it picks none). The PMU's compare picks by `choice`, a
/// register, so nothing from the command decode reaches the compare.
/// `next_choice` is the choice after this cycle: the PMU reloads the
/// converter's previous-value register through it, so the new input's
/// value is there when the counter resumes. `switching` marks a cycle
/// whose command changes the selection: its compare is still the old
/// input's, and the count holds.
///
/// `choice` bit 0 is stored inverted, so that the register at all-zero
/// (its power-up and reset value) picks input 0, as `selection` 0 does.
pub struct EventSelector {
    pub clock: Signal<In, Clock>,
    /// Global reset, active high: selection 0.
    pub reset: Signal<In, Bit>,
    /// The PMU's address picks this counter (the decoder's one-hot bit).
    pub addressed: Signal<In, Bit>,
    /// The PMU's command (it concerns this counter when `addressed`).
    pub command: Signal<In, Bits<2>>,
    /// The PMEVENT's selector, bits 19-17.
    pub selector: Signal<In, Bits<3>>,
    /// The input counted in this cycle.
    pub selection: Signal<Out, Bits<3>>,
    /// `selection` one-hot (all zero for a selection with no input).
    pub choice: Signal<Out, Bits<8>>,
    /// `choice` after this cycle.
    pub next_choice: Signal<Out, Bits<8>>,
    /// This cycle's command changes the selection.
    pub switching: Signal<Out, Bit>,
    selection_reg: DFF<Bits<3>>,
    /// `choice` with bit 0 inverted.
    choice_reg: DFF<Bits<8>>,
    cmd_cnt: Constant<Bits<2>>,
    cmd_rst: Constant<Bits<2>>,
    /// Bit 0: flips `choice` bit 0 between the register and the ports.
    bit_0: Constant<Bits<8>>,
}

impl Default for EventSelector {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            addressed: Default::default(),
            command: Default::default(),
            selector: Default::default(),
            selection: Default::default(),
            choice: Default::default(),
            next_choice: Default::default(),
            switching: Default::default(),
            selection_reg: Default::default(),
            choice_reg: Default::default(),
            cmd_cnt: Constant::new(PmuCommand::Cnt.bits().into()),
            cmd_rst: Constant::new(PmuCommand::Rst.bits().into()),
            bit_0: Constant::new(1.into()),
        }
    }
}

crate::hdl_block!([] EventSelector {
    inputs: [clock, reset, addressed, command, selector],
    outputs: [selection, choice, next_choice, switching],
    parts: [selection_reg, choice_reg],
    constants: [cmd_cnt, cmd_rst, bit_0],
});

impl Logic for EventSelector {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: event_selector");
        // dff_setup! holds both registers (d = q) unless loaded below.
        dff_setup!(self, clock, selection_reg, choice_reg);
        self.choice.next = self.choice_reg.q.val() ^ self.bit_0.val();
        // Each output assigned once on every path (an HDL simulator would
        // otherwise see a glitch that the PMU's logic reads back).
        if self.addressed.val()
            & ((self.command.val() == self.cmd_cnt.val())
                | (self.command.val() == self.cmd_rst.val()))
        {
            self.selection_reg.d.next = self.selector.val();
            self.choice_reg.d.next = (self.bit_0.val() << self.selector.val()) ^ self.bit_0.val();
            self.next_choice.next = self.bit_0.val() << self.selector.val();
            self.switching.next = self.selector.val() != self.selection_reg.q.val();
        } else {
            self.next_choice.next = self.choice_reg.q.val() ^ self.bit_0.val();
            self.switching.next = false;
        }
        if self.reset.val() {
            self.selection_reg.d.next = 0.into();
            self.choice_reg.d.next = 0.into();
        }
        self.selection.next = self.selection_reg.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn event_selector_synthesizes() {
        let mut uut = EventSelector::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        insta::assert_snapshot!(verilog);
        let report = check_synthesizes("event_selector", &verilog).unwrap();
        assert_eq!(report.flip_flop_bits, 3 + 8, "{report:?}");
    }

    /// CNT and RST addressed to the counter load the selector, NOP and IDL
    /// (or any command addressed elsewhere) keep it, reset clears it;
    /// `next_choice` shows the load in its own cycle, `choice` after it.
    #[test]
    fn event_selector_operation() {
        use PmuCommand::*;
        let mut d = Driver::new(EventSelector::default());
        // (reset, addressed, command, selector, selection, choice, next_choice, switching)
        let cycles = [
            (false, true, Cnt, 5, 0, 1, 1 << 5, true),
            (false, true, Nop, 2, 5, 1 << 5, 1 << 5, false),
            (false, true, Idl, 2, 5, 1 << 5, 1 << 5, false),
            (false, false, Cnt, 2, 5, 1 << 5, 1 << 5, false),
            (false, true, Cnt, 5, 5, 1 << 5, 1 << 5, false),
            (false, true, Rst, 3, 5, 1 << 5, 1 << 3, true),
            (false, false, Nop, 0, 3, 1 << 3, 1 << 3, false),
            (true, false, Nop, 6, 3, 1 << 3, 1 << 3, false),
            (false, false, Nop, 6, 0, 1, 1, false),
            (false, true, Rst, 0, 0, 1, 1, false),
        ];
        for (n, (reset, addressed, command, selector, selection, choice, next, switching)) in
            cycles.into_iter().enumerate()
        {
            d.uut.reset.next = reset;
            d.uut.addressed.next = addressed;
            d.uut.command.next = command.bits().into();
            d.uut.selector.next = (selector as u64).into();
            d.settle();
            assert_eq!(d.uut.selection.val().to_u64(), selection, "cycle {n}");
            assert_eq!(d.uut.choice.val().to_u64(), choice, "cycle {n}");
            assert_eq!(d.uut.next_choice.val().to_u64(), next, "cycle {n}");
            assert_eq!(d.uut.switching.val(), switching, "cycle {n}");
            d.cycle();
        }
    }
}
