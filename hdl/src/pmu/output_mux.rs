//! The output multiplexer (thesis section 2.1): MONITOR_OUT shows the
//! addressed counter.

use rust_hdl::prelude::*;

use crate::comment;

/// A `COUNT`-to-1 multiplexer of `WIDTH`-bit counts, selected by the 4-bit
/// counter address. An address with no counter behind it reads 0.
/// Purely combinational.
pub struct OutputMux<const COUNT: usize, const WIDTH: usize> {
    /// Counter address (CNT0..CNT15).
    pub address: Signal<In, Bits<4>>,
    /// The counters' values.
    pub counts: [Signal<In, Bits<WIDTH>>; COUNT],
    /// The addressed counter's value.
    pub monitor_out: Signal<Out, Bits<WIDTH>>,
}

impl<const COUNT: usize, const WIDTH: usize> Default for OutputMux<COUNT, WIDTH> {
    fn default() -> Self {
        assert!(
            (1..=16).contains(&COUNT),
            "the PMU addresses 1 to 16 counters"
        );
        Self {
            address: Default::default(),
            counts: std::array::from_fn(|_| Default::default()),
            monitor_out: Default::default(),
        }
    }
}

crate::hdl_block!([const COUNT: usize, const WIDTH: usize] OutputMux<COUNT, WIDTH> {
    inputs: [address, counts],
    outputs: [monitor_out],
    parts: [],
    constants: [],
});

impl<const COUNT: usize, const WIDTH: usize> Logic for OutputMux<COUNT, WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: output_mux");
        self.monitor_out.next = 0.into();
        for i in 0..COUNT {
            if self.address.val().index() == i {
                self.monitor_out.next = self.counts[i].val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn output_mux_synthesizes() {
        let mut uut = OutputMux::<16, 32>::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        insta::assert_snapshot!(verilog);
        let report = check_synthesizes("output_mux", &verilog).unwrap();
        assert_eq!(report.flip_flop_bits, 0, "{report:?}");
    }

    #[test]
    fn output_mux_operation() {
        let mut uut = OutputMux::<12, 32>::default();
        uut.connect_all();
        for (i, count) in uut.counts.iter_mut().enumerate() {
            count.next = (0x1000_0000u64 + i as u64 * 0x0101).into();
        }
        for address in 0..16u64 {
            uut.address.next = address.into();
            assert!(simulate(&mut uut, 100));
            let expected = if address < 12 {
                0x1000_0000 + address * 0x0101
            } else {
                0
            };
            assert_eq!(
                uut.monitor_out.val().index() as u64,
                expected,
                "address {address}"
            );
        }
    }
}
