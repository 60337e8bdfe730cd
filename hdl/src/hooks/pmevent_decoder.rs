//! Recognises a PMEVENT instruction word and extracts its fields
//! (thesis section 2.3.1; the encoding is `flexpmu_isa::pmevent`'s).

use flexpmu_isa::pmevent::{self, PmuCommand};
use flexpmu_isa::word;
use rust_hdl::prelude::*;

use crate::comment;
use crate::support::optional::Optional;

// rust-hdl's `#[hdl_gen]` takes bit offsets as literals only: the ones in
// `update` are held to the encoding here, so they cannot drift from it.
const _: () = {
    assert!(word::OPCODE.lo == 28 && word::OPCODE.width == 4);
    assert!(pmevent::COUNTER.lo == 13 && pmevent::COUNTER.width == 4);
    assert!(pmevent::COMMAND.lo == 11 && pmevent::COMMAND.width == 2);
    assert!(pmevent::DEST.lo == 2 && pmevent::DEST.width == 7);
    assert!(pmevent::SELECTOR.lo == 17 && pmevent::SELECTOR.width == 3);
    // CNT and RST, the commands that carry a selector, are the two whose
    // bits differ (`update` tests bit 11 XOR bit 12).
    assert!(PmuCommand::Cnt as u8 == 0b01 && PmuCommand::Rst as u8 == 0b10);
};

/// Combinational PMEVENT field decoder for a 32-bit instruction word.
///
/// A word is a PMEVENT when its opcode (bits 31-28) is `0111`, bit 1
/// (flow control) and bit 0 (64-bit) are 0, the reserved bits 27-20 and
/// 10-9 are 0, the register field 8-2 is 0 unless the command is IDL (only
/// a read writes a register), and the selector (bits 19-17) names one of
/// the PMU's S inputs per channel: for S = 1 it must be 0, and for S > 1 it
/// must be 0 unless the command is CNT or RST. Other words of the opcode-7
/// space are not executed as PMEVENT (FlexGripPlus maps them to nothing;
/// the assembler refuses them).
pub struct PmeventDecoder {
    /// The instruction's first (low) 32-bit word.
    pub word: Signal<In, Bits<32>>,
    /// The word is a PMEVENT.
    pub is_pmevent: Signal<Out, Bit>,
    /// Counter address, bits 16-13.
    pub counter: Signal<Out, Bits<4>>,
    /// PMU command, bits 12-11.
    pub command: Signal<Out, Bits<2>>,
    /// Destination register of an IDL read, bits 8-2.
    pub dest: Signal<Out, Bits<7>>,
    /// A PMEVENT with command IDL: its result is read from the PMU.
    pub is_read: Signal<Out, Bit>,
    /// With S > 1: the selector, bits 19-17.
    pub selector: Optional<Signal<Out, Bits<3>>>,
    opcode_pmevent: Constant<Bits<4>>,
    cmd_idl: Constant<Bits<2>>,
    /// Bits that must be 0: reserved 27-20 and 10-9, flow 1, long 0, and
    /// the selector bits that name no input of the PMU.
    must_be_zero: Constant<Bits<32>>,
}

impl Default for PmeventDecoder {
    fn default() -> Self {
        Self::new(1)
    }
}

impl PmeventDecoder {
    /// The decoder for a PMU with `selectors` inputs per channel (1, 2, 4
    /// or 8).
    pub fn new(selectors: usize) -> Self {
        assert!(
            crate::pmu::SELECTOR_CHOICES.contains(&selectors),
            "{selectors} inputs per channel"
        );
        let unused_selector_bits =
            pmevent::SELECTOR_MASK & !(((selectors - 1) as u32) << pmevent::SELECTOR.lo);
        Self {
            word: Default::default(),
            is_pmevent: Default::default(),
            counter: Default::default(),
            command: Default::default(),
            dest: Default::default(),
            is_read: Default::default(),
            selector: Optional::when(selectors > 1, Default::default),
            opcode_pmevent: Constant::new(u64::from(pmevent::PMEVENT_OPCODE).into()),
            cmd_idl: Constant::new(PmuCommand::Idl.bits().into()),
            must_be_zero: Constant::new(
                u64::from(pmevent::MUST_BE_ZERO | unused_selector_bits).into(),
            ),
        }
    }
}

crate::hdl_block!([] PmeventDecoder {
    inputs: [word],
    outputs: [is_pmevent, counter, command, dest, is_read, selector],
    parts: [],
    constants: [opcode_pmevent, cmd_idl, must_be_zero],
});

impl Logic for PmeventDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: pmevent_decoder");
        self.is_pmevent.next = (self.word.val().get_bits::<4>(28) == self.opcode_pmevent.val())
            & !(self.word.val() & self.must_be_zero.val()).any()
            & ((self.word.val().get_bits::<2>(11) == self.cmd_idl.val())
                | !self.word.val().get_bits::<7>(2).any());
        self.counter.next = self.word.val().get_bits::<4>(13);
        self.command.next = self.word.val().get_bits::<2>(11);
        self.dest.next = self.word.val().get_bits::<7>(2);
        self.is_read.next = (self.word.val().get_bits::<4>(28) == self.opcode_pmevent.val())
            & !(self.word.val() & self.must_be_zero.val()).any()
            & (self.word.val().get_bits::<2>(11) == self.cmd_idl.val());
        // With selectors only: a selector on NOP or IDL is no PMEVENT.
        for _k in 0..self.selector.len() {
            self.selector.next = self.word.val().get_bits::<3>(17);
            if self.word.val().get_bits::<3>(17).any()
                & !(self.word.val().get_bit(11) ^ self.word.val().get_bit(12))
            {
                self.is_pmevent.next = false;
                self.is_read.next = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn pmevent_decoder_synthesizes() {
        let mut uut = PmeventDecoder::default();
        uut.connect_all();
        let report = check_synthesizes("pmevent_decoder", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0);
    }

    fn decode(word: u32) -> (bool, u64, u64, u64, bool) {
        decode_with(1, word)
    }

    fn decode_with(selectors: usize, word: u32) -> (bool, u64, u64, u64, bool) {
        let mut uut = PmeventDecoder::new(selectors);
        uut.connect_all();
        uut.word.next = (word as u64).into();
        assert!(simulate(&mut uut, 100));
        (
            uut.is_pmevent.val(),
            uut.counter.val().to_u64(),
            uut.command.val().to_u64(),
            uut.dest.val().to_u64(),
            uut.is_read.val(),
        )
    }

    #[test]
    fn pmevent_decoder_operation() {
        // The thesis' encodings.
        assert_eq!(decode(0x7000_0800), (true, 0, 1, 0, false));
        assert_eq!(decode(0x7000_1000), (true, 0, 2, 0, false));
        assert_eq!(decode(0x7000_1814), (true, 0, 3, 5, true));
        assert_eq!(decode(0x7001_980c), (true, 12, 3, 3, true));
        assert_eq!(decode(0x7001_5000), (true, 10, 2, 0, false));
        // Opcode 7 with the flow bit set is base-ISA flow control; RET and
        // ALU words are not PMEVENTs.
        assert!(!decode(0x7000_0802).0);
        // A 64-bit word, or reserved bits set: not executed as PMEVENT.
        assert!(!decode(0x7000_0801).0);
        assert!(!decode(0x7010_0800).0);
        assert!(!decode(0x7000_1a14).0, "bit 9 is reserved");
        assert!(!decode(0x7000_1814 | 1 << 17).4, "no read either");
        // Only IDL names a register.
        assert!(!decode(0x7000_112c).0, "RST with a register");
        assert!(!decode(0x7000_0804).0, "CNT with a register");
        assert!(!decode(0x3000_0003).0);
        assert!(!decode(0x2000_8204).0);
        assert!(!decode(0xf000_0800).0);
        // Without selectors, a word that carries one is not executed.
        assert!(!decode(0x7004_6800).0, "PMEVENT CNT3, CNT, SEL2");
    }

    /// With S inputs per channel, CNT and RST take SEL0..SEL(S-1); every
    /// word agrees with the ISA's decoder.
    #[test]
    fn pmevent_decoder_with_selectors_operation() {
        let mut uut = PmeventDecoder::new(4);
        uut.connect_all();
        uut.word.next = 0x7004_6800u64.into();
        assert!(simulate(&mut uut, 100));
        assert_eq!(uut.selector.val().to_u64(), 2);
        for selectors in [2, 4, 8] {
            for selector in 0..8u32 {
                for command in 0..4u32 {
                    let word = 0x7000_6000 | selector << 17 | command << 11 | (command / 3) << 2;
                    let isa = flexpmu_isa::pmevent::decode(word);
                    let executes = isa.is_ok() && (selector as usize) < selectors;
                    let got = decode_with(selectors, word);
                    assert_eq!(got.0, executes, "S={selectors} {word:#010x} {isa:?}");
                    assert_eq!(
                        got.4,
                        executes && command == 3,
                        "S={selectors} {word:#010x}"
                    );
                }
            }
        }
    }
}
