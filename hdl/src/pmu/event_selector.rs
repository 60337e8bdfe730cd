//! One counter's event selector (PMUs with S inputs per channel): which of
//! its inputs the counter counts.

use rust_hdl::prelude::*;

use crate::comment;

use flexpmu_isa::PmuCommand;

/// The selection register of one counter.
///
/// A CNT or RST addressed to the counter loads `selector` at the edge that
/// ends its cycle (the same edge that changes the counter's state); NOP
/// and IDL keep the selection; the global reset selects input 0.
/// `selection` is the register, `next_selection` what it holds after this
/// cycle: the PMU's mux follows `next_selection`, so the converter watches
/// the new input from the switch cycle on and its previous-value register
/// holds the new input's value when counting resumes. `switching` marks a
/// cycle whose command changes the selection: its converter output
/// compares two different signals, and the counter ignores it.
pub struct EventSelector {
    pub clock: Signal<In, Clock>,
    /// Global reset, active high: selection 0.
    pub reset: Signal<In, Bit>,
    /// This counter's command (PMUNOP unless it is addressed).
    pub command: Signal<In, Bits<2>>,
    /// The PMEVENT's selector, bits 19-17.
    pub selector: Signal<In, Bits<3>>,
    /// The input counted in this cycle.
    pub selection: Signal<Out, Bits<3>>,
    /// The selection after this cycle (what the mux follows).
    pub next_selection: Signal<Out, Bits<3>>,
    /// This cycle's command changes the selection.
    pub switching: Signal<Out, Bit>,
    selection_reg: DFF<Bits<3>>,
    cmd_cnt: Constant<Bits<2>>,
    cmd_rst: Constant<Bits<2>>,
}

impl Default for EventSelector {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            command: Default::default(),
            selector: Default::default(),
            selection: Default::default(),
            next_selection: Default::default(),
            switching: Default::default(),
            selection_reg: Default::default(),
            cmd_cnt: Constant::new(PmuCommand::Cnt.bits().into()),
            cmd_rst: Constant::new(PmuCommand::Rst.bits().into()),
        }
    }
}

crate::hdl_block!([] EventSelector {
    inputs: [clock, reset, command, selector],
    outputs: [selection, next_selection, switching],
    parts: [selection_reg],
    constants: [cmd_cnt, cmd_rst],
});

impl Logic for EventSelector {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: event_selector");
        // dff_setup! holds the selection (d = q) unless loaded below.
        dff_setup!(self, clock, selection_reg);
        self.next_selection.next = self.selection_reg.q.val();
        self.switching.next = false;
        if (self.command.val() == self.cmd_cnt.val()) | (self.command.val() == self.cmd_rst.val()) {
            self.selection_reg.d.next = self.selector.val();
            self.next_selection.next = self.selector.val();
            self.switching.next = self.selector.val() != self.selection_reg.q.val();
        }
        if self.reset.val() {
            self.selection_reg.d.next = 0.into();
            self.next_selection.next = 0.into();
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
        assert_eq!(report.flip_flop_bits, 3, "{report:?}");
    }

    /// CNT and RST load the selector, NOP and IDL keep it, reset clears it;
    /// `next_selection` shows the load in its own cycle.
    #[test]
    fn event_selector_operation() {
        let mut d = Driver::new(EventSelector::default());
        // (reset, command, selector, selection, next_selection, switching)
        let cycles = [
            (false, PmuCommand::Cnt, 5, 0, 5, true),
            (false, PmuCommand::Nop, 2, 5, 5, false),
            (false, PmuCommand::Idl, 2, 5, 5, false),
            (false, PmuCommand::Cnt, 5, 5, 5, false),
            (false, PmuCommand::Rst, 3, 5, 3, true),
            (false, PmuCommand::Nop, 0, 3, 3, false),
            (true, PmuCommand::Rst, 6, 3, 0, true),
            (false, PmuCommand::Nop, 6, 0, 0, false),
        ];
        for (n, (reset, command, selector, selection, next, switching)) in
            cycles.into_iter().enumerate()
        {
            d.uut.reset.next = reset;
            d.uut.command.next = command.bits().into();
            d.uut.selector.next = (selector as u64).into();
            d.settle();
            assert_eq!(d.uut.selection.val().to_u64(), selection, "cycle {n}");
            assert_eq!(d.uut.next_selection.val().to_u64(), next, "cycle {n}");
            assert_eq!(d.uut.switching.val(), switching, "cycle {n}");
            d.cycle();
        }
    }
}
