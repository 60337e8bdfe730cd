//! A register with a reset input, synchronous or asynchronous.
//!
//! rust-hdl's `DFF` has no reset: a block that needs one muxes it into `d`,
//! which gives a synchronous reset only. FlexGripPlus resets its pipeline
//! asynchronously (every process is `if reset = '1' … elsif
//! rising_edge(clk_in)`), so the hooks build their state from this register
//! and choose the kind when they are constructed. In `#[hdl_gen]` code,
//! `dff_setup!` clocks it like a `DFF`; its `reset` is assigned explicitly.

use rust_hdl::prelude::*;

use crate::support::hdl_block::Part;
use crate::support::trace::{SampleValue, TraceDeclarer, Traced};

/// How a register's `reset` input acts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ResetKind {
    /// `reset` high at a rising clock edge loads the reset value.
    #[default]
    Synchronous,
    /// `reset` high loads the reset value at once and holds it, whatever
    /// the clock does (Verilog `always @(posedge clock or posedge reset)`).
    Asynchronous,
}

/// A `T` register: `q` takes `d` on the rising edge of `clock`, or the
/// reset value (also its power-up value) when `reset` is high, as `kind`
/// says.
#[derive(Clone, Debug)]
pub struct ResetDff<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
    /// Active high.
    pub reset: Signal<In, Bit>,
    init: T,
    kind: ResetKind,
}

impl<T: Synth> ResetDff<T> {
    /// A register resetting to `init` (its power-up value too).
    pub fn new(init: T, kind: ResetKind) -> Self {
        Self {
            d: Signal::default(),
            q: Signal::new_with_default(init),
            clock: Signal::default(),
            reset: Signal::default(),
            init,
            kind,
        }
    }

    pub fn kind(&self) -> ResetKind {
        self.kind
    }
}

impl<T: Synth> Default for ResetDff<T> {
    fn default() -> Self {
        Self::new(T::default(), ResetKind::Synchronous)
    }
}

impl<T: Synth> Logic for ResetDff<T> {
    fn update(&mut self) {
        match self.kind {
            ResetKind::Asynchronous if self.reset.val() => self.q.next = self.init,
            _ if self.clock.pos_edge() => {
                self.q.next = if self.reset.val() {
                    self.init
                } else {
                    self.d.val()
                }
            }
            _ => {}
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        let init = self.init.verilog();
        let sensitivity = match self.kind {
            ResetKind::Synchronous => "posedge clock",
            ResetKind::Asynchronous => "posedge clock or posedge reset",
        };
        Verilog::Custom(format!(
            "\
initial begin
   q = {init:x};
end

always @({sensitivity}) begin
   if (reset) q <= {init:x};
   else q <= d;
end
"
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reset_dff".into(),
            clock: "clock".into(),
            inputs: vec!["d".into(), "reset".into()],
            outputs: vec!["q".into()],
        }]
    }
}

// As rust-hdl derives it for `DFF`: `update` first, then the signals latch,
// so the register samples `d` one settle pass after the clock edge arrives
// (see `hdl_block`).
impl<T: Synth> Block for ResetDff<T> {
    fn connect_all(&mut self) {
        self.connect();
        self.d.connect_all();
        self.q.connect_all();
        self.clock.connect_all();
        self.reset.connect_all();
    }

    fn update_all(&mut self) {
        self.update();
        self.d.update_all();
        self.q.update_all();
        self.clock.update_all();
        self.reset.update_all();
    }

    fn has_changed(&self) -> bool {
        self.d.has_changed()
            || self.q.has_changed()
            || self.clock.has_changed()
            || self.reset.has_changed()
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.d.accept("d", probe);
        self.q.accept("q", probe);
        self.clock.accept("clock", probe);
        self.reset.accept("reset", probe);
        probe.visit_end_scope(name, self);
    }
}

impl<T: Synth> Part for ResetDff<T> {
    fn outputs_changed(&self) -> bool {
        self.q.has_changed()
    }
}

/// Like a `DFF`, one waveform variable: its output.
impl<T: Synth + SampleValue> Traced for ResetDff<T> {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        out.variable(name, T::BITS);
    }
    fn sample(&self, out: &mut Vec<u64>) {
        out.push(self.q.val().sample_value());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn reset_dff_synthesizes() {
        for kind in [ResetKind::Synchronous, ResetKind::Asynchronous] {
            let mut uut = ResetDff::<Bits<5>>::new(0x11.into(), kind);
            uut.connect_all();
            let report = check_synthesizes("reset_dff", &generate_verilog(&uut)).unwrap();
            assert_eq!(report.flip_flop_bits, 5, "{kind:?}: {report:?}");
        }
    }

    fn settle(uut: &mut ResetDff<Bits<5>>) {
        assert!(simulate(uut, 100));
    }

    fn edge(uut: &mut ResetDff<Bits<5>>) {
        settle(uut);
        uut.clock.next = Clock { clk: true };
        settle(uut);
        uut.clock.next = Clock { clk: false };
        settle(uut);
    }

    #[test]
    fn reset_dff_operation() {
        for kind in [ResetKind::Synchronous, ResetKind::Asynchronous] {
            let mut uut = ResetDff::<Bits<5>>::new(0x11.into(), kind);
            uut.connect_all();
            settle(&mut uut);
            assert_eq!(uut.q.val(), 0x11, "power-up value");
            uut.d.next = 3.into();
            edge(&mut uut);
            assert_eq!(uut.q.val(), 3);
            // Reset between edges: only the asynchronous register reacts now.
            uut.reset.next = true;
            settle(&mut uut);
            let expected = match kind {
                ResetKind::Synchronous => 3,
                ResetKind::Asynchronous => 0x11,
            };
            assert_eq!(uut.q.val(), expected, "{kind:?} before the edge");
            edge(&mut uut);
            assert_eq!(uut.q.val(), 0x11, "{kind:?} after the edge");
            uut.reset.next = false;
            edge(&mut uut);
            assert_eq!(uut.q.val(), 3);
        }
    }
}
