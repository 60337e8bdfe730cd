//! The command decoder (thesis section 2.1): routes the PMU command to the
//! addressed counter subunit only.

use rust_hdl::prelude::*;

use crate::comment;

use flexpmu_isa::PmuCommand;

/// Decodes the 4-bit `address` into a one-hot `select` and forwards
/// `command` to the selected subunit; every other subunit gets PMUNOP.
/// A global `reset` bypasses the address and sends PMURST to all `COUNT`
/// subunits. Purely combinational.
pub struct CommandDecoder<const COUNT: usize> {
    /// Global reset, active high.
    pub reset: Signal<In, Bit>,
    /// Counter address (CNT0..CNT15).
    pub address: Signal<In, Bits<4>>,
    /// PMU command (see [`PmuCommand`]).
    pub command: Signal<In, Bits<2>>,
    /// One-hot address decode (all zero for an address >= COUNT).
    pub select: Signal<Out, Bits<COUNT>>,
    /// Per-subunit command.
    pub sub_command: [Signal<Out, Bits<2>>; COUNT],
    cmd_nop: Constant<Bits<2>>,
    cmd_rst: Constant<Bits<2>>,
    select_lsb: Constant<Bits<COUNT>>,
}

impl<const COUNT: usize> Default for CommandDecoder<COUNT> {
    fn default() -> Self {
        assert!(
            (1..=16).contains(&COUNT),
            "the PMU addresses 1 to 16 counters"
        );
        Self {
            reset: Default::default(),
            address: Default::default(),
            command: Default::default(),
            select: Default::default(),
            sub_command: std::array::from_fn(|_| Default::default()),
            cmd_nop: Constant::new(PmuCommand::Nop.bits().into()),
            cmd_rst: Constant::new(PmuCommand::Rst.bits().into()),
            select_lsb: Constant::new(1.into()),
        }
    }
}

crate::hdl_block!([const COUNT: usize] CommandDecoder<COUNT> {
    inputs: [reset, address, command],
    outputs: [select, sub_command],
    parts: [],
    constants: [cmd_nop, cmd_rst, select_lsb],
});

impl<const COUNT: usize> Logic for CommandDecoder<COUNT> {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: command_decoder");
        // Shifted out (all zero) for an address with no counter behind it.
        self.select.next = self.select_lsb.val() << self.address.val();
        for i in 0..COUNT {
            self.sub_command[i].next = self.cmd_nop.val();
            if self.address.val().index() == i {
                self.sub_command[i].next = self.command.val();
            }
            if self.reset.val() {
                self.sub_command[i].next = self.cmd_rst.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn command_decoder_synthesizes() {
        let mut uut = CommandDecoder::<16>::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        insta::assert_snapshot!(verilog);
        let report = check_synthesizes("command_decoder", &verilog).unwrap();
        assert_eq!(report.flip_flop_bits, 0, "{report:?}");
    }

    #[test]
    fn command_decoder_operation() {
        let mut uut = CommandDecoder::<16>::default();
        uut.connect_all();
        for reset in [false, true] {
            for address in 0..16u64 {
                for command in PmuCommand::ALL {
                    uut.reset.next = reset;
                    uut.address.next = address.into();
                    uut.command.next = command.bits().into();
                    assert!(simulate(&mut uut, 100));
                    assert_eq!(uut.select.val().index(), 1 << address, "address {address}");
                    for (i, sub) in uut.sub_command.iter().enumerate() {
                        let expected = if reset {
                            PmuCommand::Rst
                        } else if i as u64 == address {
                            command
                        } else {
                            PmuCommand::Nop
                        };
                        assert_eq!(sub.val().index() as u64, expected.bits(), "subunit {i}");
                    }
                }
            }
        }
    }
}
