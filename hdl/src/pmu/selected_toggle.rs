//! The selector PMU's compare: per counter, whether the input its choice
//! picks is an event in this cycle.

use rust_hdl::prelude::*;

use crate::comment;
use crate::pmu::one_hot_mux::{OrPlane, MUX_INPUTS};

/// `pulse[i]` is 1 when counter `i`'s input whose bit is set in
/// `choices[i]` differs from `previous[i]` in the bits of `masks[i]`, or
/// 0 when no bit is set.
///
/// Each input is compared with the converter's previous value on its own,
/// and the choice picks among the comparisons (an AND-OR through
/// [`OrPlane`]): the choice register meets the path at its last gate,
/// where a mux in front of one compare would put the choice, its fan-out
/// to every bit and the mux ahead of the compare. A level channel keeps
/// its previous value at 0, so "differs" reads "non-zero". Inputs `S..7`
/// (no input behind the choice) give 0. (One block for all counters, as
/// for [`OneHotMux`](crate::pmu::OneHotMux).)
pub struct SelectedToggle<const COUNT: usize, const WIDTH: usize> {
    /// Counter `i`'s input `s` at `s × COUNT + i` (`S × COUNT`).
    pub inputs: Vec<Signal<In, Bits<WIDTH>>>,
    /// Per counter, its converter's previous value (masked).
    pub previous: [Signal<In, Bits<WIDTH>>; COUNT],
    /// Per counter, the input bits its channel watches.
    pub masks: [Signal<In, Bits<WIDTH>>; COUNT],
    pub choices: [Signal<In, Bits<MUX_INPUTS>>; COUNT],
    pub pulse: [Signal<Out, Bit>; COUNT],
    plane: OrPlane<COUNT, 1>,
    /// S: a bound of the loops in `update`.
    inputs_per_channel: usize,
}

impl<const COUNT: usize, const WIDTH: usize> SelectedToggle<COUNT, WIDTH> {
    /// For counters with `inputs_per_channel` inputs each (at most 8).
    pub fn new(inputs_per_channel: usize) -> Self {
        assert!(
            (1..=MUX_INPUTS).contains(&inputs_per_channel),
            "{inputs_per_channel} inputs per channel: at most {MUX_INPUTS}"
        );
        Self {
            inputs: (0..inputs_per_channel * COUNT)
                .map(|_| Default::default())
                .collect(),
            previous: std::array::from_fn(|_| Default::default()),
            masks: std::array::from_fn(|_| Default::default()),
            choices: std::array::from_fn(|_| Default::default()),
            pulse: std::array::from_fn(|_| Default::default()),
            plane: Default::default(),
            inputs_per_channel,
        }
    }
}

crate::hdl_block!([const COUNT: usize, const WIDTH: usize] SelectedToggle<COUNT, WIDTH> {
    inputs: [inputs, previous, masks, choices],
    outputs: [pulse],
    parts: [plane],
    constants: [],
});

impl<const COUNT: usize, const WIDTH: usize> Logic for SelectedToggle<COUNT, WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: selected_toggle");
        // The one-pass loop over `n` stands for COUNT in the indices.
        for i in 0..COUNT {
            for n in COUNT..(COUNT + 1) {
                for s in 0..self.inputs_per_channel {
                    if self.choices[i].val().get_bit(s)
                        & ((self.inputs[s * n + i].val() & self.masks[i].val())
                            != self.previous[i].val())
                    {
                        self.plane.gated[s * n + i].next = 1.into();
                    } else {
                        self.plane.gated[s * n + i].next = 0.into();
                    }
                }
                for s in self.inputs_per_channel..MUX_INPUTS {
                    self.plane.gated[s * n + i].next = 0.into();
                }
            }
            self.pulse[i].next = self.plane.picked[i].val().any();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    /// Each counter's pulse is its chosen input's compare, in the mask's
    /// bits only; no choice, or a choice past S, gives 0.
    #[test]
    fn the_chosen_inputs_compare_is_the_pulse() {
        let mut uut = SelectedToggle::<2, 8>::new(4);
        uut.connect_all();
        // Counter 0 watches all 8 bits, counter 1 the low 4.
        uut.masks[0].next = 0xff.into();
        uut.masks[1].next = 0x0f.into();
        uut.previous[0].next = 0x5a.into();
        uut.previous[1].next = 0x0a.into();
        // Inputs at s × 2 + i: counter 0's input 2 equals its previous
        // value; counter 1's input 1 differs only above its mask.
        let inputs = [0x00, 0x0b, 0x11, 0xfa, 0x5a, 0x0a, 0x5b, 0x0c];
        for (k, value) in inputs.into_iter().enumerate() {
            uut.inputs[k].next = (value as u64).into();
        }
        let cases = [
            // (counter 0's choice, counter 1's choice, pulses)
            (0b0001, 0b0001, [true, true]),
            (0b0010, 0b0010, [true, false]),
            (0b0100, 0b0100, [false, false]),
            (0b1000, 0b1000, [true, true]),
            (0b0000, 0b0000, [false, false]),
            (0b1_0000, 0b1000_0000, [false, false]),
        ];
        for (n, (c0, c1, pulses)) in cases.into_iter().enumerate() {
            uut.choices[0].next = (c0 as u64).into();
            uut.choices[1].next = (c1 as u64).into();
            assert!(simulate(&mut uut, 100));
            assert_eq!([uut.pulse[0].val(), uut.pulse[1].val()], pulses, "case {n}");
        }
        let report = check_synthesizes("selected_toggle", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0, "{report:?}");
    }
}
