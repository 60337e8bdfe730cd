//! The selector PMU's reload mux: per counter, one of its up to eight
//! inputs, picked by a one-hot choice (its OR plane is
//! [`SelectedToggle`](crate::pmu::SelectedToggle)'s too).

use rust_hdl::prelude::*;

use crate::comment;

/// Inputs per counter a [`OneHotMux`] has: the eight a 3-bit selector
/// addresses.
pub const MUX_INPUTS: usize = 8;

/// `picked[i]` is counter `i`'s input whose bit is set in `choices[i]`, or
/// 0 when none is.
///
/// A choice must be one-hot or zero: the mux ANDs each input with its
/// choice bit and ORs the eight ([`OrPlane`]), with no priority between
/// them, so every input is two gate levels from the output and a choice
/// bit reaches only its own input's gates. Inputs a PMU does not have are
/// tied to 0 and synthesis removes their gates. (One block for all
/// counters: rust-hdl's HDL translation resolves one loop index per signal
/// path, as in `inputs[s * n + i]`, not `muxes[i].inputs[s]`.)
pub struct OneHotMux<const COUNT: usize, const WIDTH: usize> {
    /// Counter `i`'s input `s` at `s × COUNT + i` (`MUX_INPUTS × COUNT`).
    pub inputs: Vec<Signal<In, Bits<WIDTH>>>,
    pub choices: [Signal<In, Bits<MUX_INPUTS>>; COUNT],
    pub picked: [Signal<Out, Bits<WIDTH>>; COUNT],
    plane: OrPlane<COUNT, WIDTH>,
}

impl<const COUNT: usize, const WIDTH: usize> Default for OneHotMux<COUNT, WIDTH> {
    fn default() -> Self {
        Self {
            inputs: (0..MUX_INPUTS * COUNT)
                .map(|_| Default::default())
                .collect(),
            choices: std::array::from_fn(|_| Default::default()),
            picked: std::array::from_fn(|_| Default::default()),
            plane: Default::default(),
        }
    }
}

crate::hdl_block!([const COUNT: usize, const WIDTH: usize] OneHotMux<COUNT, WIDTH> {
    inputs: [inputs, choices],
    outputs: [picked],
    parts: [plane],
    constants: [],
});

impl<const COUNT: usize, const WIDTH: usize> Logic for OneHotMux<COUNT, WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: one_hot_mux");
        // The one-pass loop over `n` stands for COUNT in the indices.
        for i in 0..COUNT {
            for n in COUNT..(COUNT + 1) {
                for s in 0..MUX_INPUTS {
                    if self.choices[i].val().get_bit(s) {
                        self.plane.gated[s * n + i].next = self.inputs[s * n + i].val();
                    } else {
                        self.plane.gated[s * n + i].next = 0.into();
                    }
                }
            }
            self.picked[i].next = self.plane.picked[i].val();
        }
    }
}

/// The OR half of [`OneHotMux`]: `picked[i]` is the OR of counter `i`'s
/// eight gated inputs (at `s × COUNT + i`).
pub struct OrPlane<const COUNT: usize, const WIDTH: usize> {
    pub gated: Vec<Signal<In, Bits<WIDTH>>>,
    pub picked: [Signal<Out, Bits<WIDTH>>; COUNT],
}

impl<const COUNT: usize, const WIDTH: usize> Default for OrPlane<COUNT, WIDTH> {
    fn default() -> Self {
        Self {
            gated: (0..MUX_INPUTS * COUNT)
                .map(|_| Default::default())
                .collect(),
            picked: std::array::from_fn(|_| Default::default()),
        }
    }
}

crate::hdl_block!([const COUNT: usize, const WIDTH: usize] OrPlane<COUNT, WIDTH> {
    inputs: [gated],
    outputs: [picked],
    parts: [],
    constants: [],
});

impl<const COUNT: usize, const WIDTH: usize> Logic for OrPlane<COUNT, WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: or_plane");
        for i in 0..COUNT {
            for n in COUNT..(COUNT + 1) {
                self.picked[i].next = self.gated[i].val()
                    | self.gated[n + i].val()
                    | self.gated[2 * n + i].val()
                    | self.gated[3 * n + i].val()
                    | self.gated[4 * n + i].val()
                    | self.gated[5 * n + i].val()
                    | self.gated[6 * n + i].val()
                    | self.gated[7 * n + i].val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    /// Every one-hot choice picks its input, none picks 0, each counter
    /// its own; the Verilog synthesizes to gates only.
    #[test]
    fn one_hot_mux_picks_the_chosen_input() {
        let mut uut = OneHotMux::<2, 16>::default();
        uut.connect_all();
        let value = |k: usize| (0x0101 * (k as u64 + 1)) ^ 0x8000;
        for (k, input) in uut.inputs.iter_mut().enumerate() {
            input.next = value(k).into();
        }
        for s in 0..MUX_INPUTS {
            uut.choices[0].next = (1u64 << s).into();
            uut.choices[1].next = (1u64 << (MUX_INPUTS - 1 - s)).into();
            assert!(simulate(&mut uut, 100));
            assert_eq!(uut.picked[0].val().to_u64(), value(s * 2), "input {s}");
            assert_eq!(
                uut.picked[1].val().to_u64(),
                value((MUX_INPUTS - 1 - s) * 2 + 1),
                "input {s}"
            );
        }
        uut.choices[1].next = 0.into();
        assert!(simulate(&mut uut, 100));
        assert_eq!(uut.picked[1].val().to_u64(), 0);
        let report = check_synthesizes("one_hot_mux", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0, "{report:?}");
    }
}
