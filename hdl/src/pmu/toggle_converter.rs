//! One channel of the converter (thesis section 2.1): turns a monitored
//! signal into a one-cycle pulse per event for its counter.

use rust_hdl::prelude::*;

use crate::comment;
use crate::support::optional::Optional;

/// Converts a `WIDTH`-bit monitored input into a pulse.
///
/// * Toggle mode (default): `pulse` is 1 in every cycle in which the input
///   differs from its value in the previous cycle.
/// * Level mode: `pulse` is 1 in every cycle in which the input is non-zero
///   (for a 1-bit input: high). The thesis skips conversion for such inputs.
///
/// A channel narrower than `WIDTH` masks off the upper input bits, so they
/// neither count nor cost a register after synthesis.
///
/// With a reload input ([`ToggleConverter::with_reload`], the selector
/// PMU's), the channel is its previous-value register and its mask: the
/// register takes `reload_in` instead of `monitor_in` (the signal the
/// channel will watch from the next cycle on; 0 in level mode), and the
/// PMU compares each of the counter's inputs with it
/// ([`SelectedToggle`](crate::pmu::SelectedToggle)); `pulse` is 0.
pub struct ToggleConverter<const WIDTH: usize> {
    pub clock: Signal<In, Clock>,
    /// The monitored signal.
    pub monitor_in: Signal<In, Bits<WIDTH>>,
    /// With a reload input: what the previous-value register loads.
    pub reload_in: Optional<Signal<In, Bits<WIDTH>>>,
    /// One event in this cycle.
    pub pulse: Signal<Out, Bit>,
    /// With a reload input: the previous-value register ...
    pub previous_value: Optional<Signal<Out, Bits<WIDTH>>>,
    /// ... and the input bits the channel watches.
    pub mask: Optional<Signal<Out, Bits<WIDTH>>>,
    previous: DFF<Bits<WIDTH>>,
    level_mode: Constant<Bit>,
    input_mask: Constant<Bits<WIDTH>>,
}

impl<const WIDTH: usize> ToggleConverter<WIDTH> {
    /// A channel that uses the low `used_bits` bits of its input.
    pub fn new(used_bits: usize, level_mode: bool) -> Self {
        assert!(
            (1..=WIDTH).contains(&used_bits),
            "channel width {used_bits} outside 1..={WIDTH}"
        );
        let mut mask = Bits::<WIDTH>::default();
        for bit in 0..used_bits {
            mask = mask.replace_bit(bit, true);
        }
        Self {
            clock: Default::default(),
            monitor_in: Default::default(),
            reload_in: Optional::when(false, Default::default),
            pulse: Default::default(),
            previous_value: Optional::when(false, Default::default),
            mask: Optional::when(false, Default::default),
            previous: Default::default(),
            level_mode: Constant::new(level_mode),
            input_mask: Constant::new(mask),
        }
    }

    /// This channel with a reload input.
    pub fn with_reload(self) -> Self {
        Self {
            reload_in: Optional::when(true, Default::default),
            previous_value: Optional::when(true, Default::default),
            mask: Optional::when(true, Default::default),
            ..self
        }
    }
}

impl<const WIDTH: usize> Default for ToggleConverter<WIDTH> {
    fn default() -> Self {
        Self::new(WIDTH, false)
    }
}

crate::hdl_block!([const WIDTH: usize] ToggleConverter<WIDTH> {
    inputs: [clock, monitor_in, reload_in],
    outputs: [pulse, previous_value, mask],
    parts: [previous],
    constants: [level_mode, input_mask],
});

impl<const WIDTH: usize> Logic for ToggleConverter<WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: toggle_converter");
        dff_setup!(self, clock, previous);
        self.previous.d.next = self.monitor_in.val() & self.input_mask.val();
        if self.level_mode.val() {
            self.pulse.next = (self.monitor_in.val() & self.input_mask.val()).any();
        } else {
            self.pulse.next =
                (self.monitor_in.val() & self.input_mask.val()) != self.previous.q.val();
        }
        for _k in 0..self.reload_in.len() {
            if self.level_mode.val() {
                self.previous.d.next = 0.into();
            } else {
                self.previous.d.next = self.reload_in.val() & self.input_mask.val();
            }
            self.previous_value.next = self.previous.q.val();
            self.mask.next = self.input_mask.val();
            self.pulse.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn toggle_converter_synthesizes() {
        let mut uut = ToggleConverter::<32>::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        insta::assert_snapshot!(verilog);
        let report = check_synthesizes("toggle_converter", &verilog).unwrap();
        assert_eq!(report.flip_flop_bits, 32, "{report:?}");
    }

    #[test]
    fn narrow_channel_keeps_only_its_bits() {
        let mut uut = ToggleConverter::<32>::new(5, false);
        uut.connect_all();
        let report = check_synthesizes("toggle_converter_5", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 5, "{report:?}");
    }

    /// Presents `input` for one cycle and returns the pulse seen in that cycle.
    fn pulse_for(d: &mut Driver<ToggleConverter<4>>, input: u64) -> bool {
        d.uut.monitor_in.next = input.into();
        d.settle();
        let pulse = d.uut.pulse.val();
        d.cycle();
        pulse
    }

    #[test]
    fn toggle_converter_operation() {
        let mut d = Driver::new(ToggleConverter::<4>::new(3, false));
        let inputs = [0, 0, 1, 1, 3, 2, 2, 0b1010, 0b0010, 7];
        let expected = [
            false, false, true, false, true, true, false, false, false, true,
        ];
        let seen: Vec<bool> = inputs.iter().map(|&i| pulse_for(&mut d, i)).collect();
        // 2 -> 0b1010 -> 0b0010 differ only in bit 3, which a 3-bit channel
        // ignores: no events.
        assert_eq!(seen, expected);
    }

    #[test]
    fn level_mode_operation() {
        let mut d = Driver::new(ToggleConverter::<4>::new(1, true));
        let inputs = [0, 1, 1, 0, 1, 2];
        let expected = [false, true, true, false, true, false];
        let seen: Vec<bool> = inputs.iter().map(|&i| pulse_for(&mut d, i)).collect();
        assert_eq!(seen, expected);
    }

    /// With a reload input the previous value loads `reload_in` (masked;
    /// 0 in level mode), the mask is an output and `pulse` is 0.
    #[test]
    fn a_reloaded_channel_keeps_the_selected_inputs_value() {
        let mut toggle = Driver::new(ToggleConverter::<4>::new(3, false).with_reload());
        let mut level = Driver::new(ToggleConverter::<4>::new(3, true).with_reload());
        for reload in [0b1111, 0b0101, 0b1000, 0b0011] {
            for d in [&mut toggle, &mut level] {
                d.uut.monitor_in.next = 0b0110.into();
                d.uut.reload_in.next = reload.into();
                d.settle();
                assert!(!d.uut.pulse.val());
                assert_eq!(d.uut.mask.val().to_u64(), 0b0111);
                d.cycle();
            }
            assert_eq!(toggle.uut.previous_value.val().to_u64(), reload & 0b0111);
            assert_eq!(level.uut.previous_value.val().to_u64(), 0);
        }
    }
}
