//! Decoder of the G80 SASS subset (the appendix-A kernel's instructions and
//! the control flow of loops and branches), as
//! FlexGripPlus lays the fields out (`flexpmu_isa::g80` defines the forms
//! and fields and documents each field's source; a test holds this block to it on every
//! appendix word and on random words).
//!
//! Each supported form is a template: the bits outside its operand fields
//! must equal the template, so a variant the subset does not cover
//! (another predicate, a signed form, a join marker, ...) decodes as
//! UNSUPPORTED rather than as a near neighbour.

use rust_hdl::prelude::*;

use crate::comment;

use flexpmu_isa::g80::{self, opcodes};

use crate::hooks::pmevent_decoder::PmeventDecoder;

/// Operation classes on the `op` output.
pub mod op {
    pub const UNSUPPORTED: u64 = 0;
    pub const NOP: u64 = 1;
    pub const MOV_U16: u64 = 2;
    pub const I2I_U32_U16: u64 = 3;
    pub const IMAD_U16: u64 = 4;
    pub const SHL: u64 = 5;
    pub const IADD32: u64 = 6;
    pub const GLD_U32: u64 = 7;
    pub const GST_U32: u64 = 8;
    pub const RET: u64 = 9;
    pub const PMEVENT: u64 = 10;
    pub const ISET: u64 = 11;
    pub const IADD32I: u64 = 12;
    pub const BRA: u64 = 13;
    pub const SSY: u64 = 14;
    pub const NOP_JOIN: u64 = 15;
}

/// The op class this decoder gives a reference instruction (what the
/// behavioural stages compare its `op` output with).
pub fn op_class(instruction: &g80::Instruction) -> u64 {
    use g80::Instruction;
    match instruction {
        Instruction::MovU16 { .. } => op::MOV_U16,
        Instruction::I2iU32U16 { .. } => op::I2I_U32_U16,
        Instruction::ImadU16 { .. } => op::IMAD_U16,
        Instruction::Shl { .. } => op::SHL,
        Instruction::Iadd32 { .. } => op::IADD32,
        Instruction::GldU32 { .. } => op::GLD_U32,
        Instruction::GstU32 { .. } => op::GST_U32,
        Instruction::Iset { .. } => op::ISET,
        Instruction::Iadd32i { .. } => op::IADD32I,
        Instruction::Bra { .. } => op::BRA,
        Instruction::Ssy { .. } => op::SSY,
        Instruction::NopJoin => op::NOP_JOIN,
        Instruction::Ret => op::RET,
        Instruction::Nop => op::NOP,
        Instruction::Pmevent(_) => op::PMEVENT,
    }
}

/// (op class, form) of the 64-bit forms.
pub const LONG_FORMS: [(u64, g80::Form); 13] = [
    (op::MOV_U16, g80::MOV_U16),
    (op::I2I_U32_U16, g80::I2I_U32_U16),
    (op::IMAD_U16, g80::IMAD_U16),
    (op::SHL, g80::SHL),
    (op::GLD_U32, g80::GLD_U32),
    (op::GST_U32, g80::GST_U32),
    (op::RET, g80::RET),
    (op::ISET, g80::ISET),
    (op::IADD32I, g80::IADD32I),
    (op::BRA, g80::BRA),
    (op::BRA, g80::BRA_EQ),
    (op::BRA, g80::BRA_NE),
    (op::SSY, g80::SSY),
];

// rust-hdl's `#[hdl_gen]` takes bit offsets as literals only: the ones in
// `update` are held to the layout in `flexpmu_isa::g80` here.
const _: () = {
    use g80::fields::*;
    const fn at(field: flexpmu_isa::word::Field, lo: u32, width: u32) -> bool {
        field.lo == lo && field.width == width
    }
    assert!(at(flexpmu_isa::word::OPCODE, 28, 4));
    assert!(at(MARKER, 32, 2));
    assert!(at(DEST, 2, 7) && at(SRC1, 9, 7) && at(SRC2, 16, 7) && at(SRC3, 46, 7));
    assert!(at(MOV_SHARED_OFFSET, 9, 5) && at(ALU_SHARED_OFFSET, 9, 4));
    assert!(at(SHORT_DEST, 2, 6) && at(SHORT_SRC1, 9, 6) && at(SHORT_SRC2, 16, 6));
    assert!(at(SHORT_SRC1_SHARED, 24, 1) && at(SHORT_SM_TYPE, 13, 2));
    assert!(g80::SM_U32 == 0b11);
};

/// Combinational decoder of one instruction (`word`: low word in bits
/// 31-0, high word in 63-32 for a 64-bit instruction).
pub struct SubsetDecoder {
    pub word: Signal<In, Bits<64>>,
    /// Operation class (see [`op`]).
    pub op: Signal<Out, Bits<4>>,
    /// The instruction is 64 bits long (bit 0).
    pub long_instruction: Signal<Out, Bit>,
    /// Destination (or GST's stored) register: 8-2 (7-2 in IADD32).
    pub dest: Signal<Out, Bits<7>>,
    /// First source: register 15-9 (14-9 in IADD32 and IADD32I).
    pub src1: Signal<Out, Bits<7>>,
    /// Second source or SHL's immediate: 22-16 (21-16 in IADD32).
    pub src2: Signal<Out, Bits<7>>,
    /// IMAD's third source: 52-46.
    pub src3: Signal<Out, Bits<7>>,
    /// IADD32's first source is the 32-bit `g[]` word `shared_offset`.
    pub src1_shared: Signal<Out, Bit>,
    /// `g[]` offset: 13-9 in MOV.U16, 12-9 in IMAD.U16 and IADD32.
    pub shared_offset: Signal<Out, Bits<5>>,
    pmevent: PmeventDecoder,
    templates: [Constant<Bits<64>>; 13],
    fixed: [Constant<Bits<64>>; 13],
    codes: [Constant<Bits<4>>; 13],
    iadd_template: Constant<Bits<64>>,
    iadd_fixed: Constant<Bits<64>>,
    op_unsupported: Constant<Bits<4>>,
    op_nop: Constant<Bits<4>>,
    op_iadd32: Constant<Bits<4>>,
    op_pmevent: Constant<Bits<4>>,
    op_nop_join: Constant<Bits<4>>,
    opcode_nop: Constant<Bits<4>>,
    opcode_mov: Constant<Bits<4>>,
}

impl Default for SubsetDecoder {
    fn default() -> Self {
        Self::new(1)
    }
}

impl SubsetDecoder {
    /// The decoder in front of a PMU with `selectors` inputs per channel
    /// (which PMEVENTs are executed depends on it).
    pub fn new(selectors: usize) -> Self {
        let c4 = |v: u64| Constant::new(v.into());
        Self {
            word: Default::default(),
            op: Default::default(),
            long_instruction: Default::default(),
            dest: Default::default(),
            src1: Default::default(),
            src2: Default::default(),
            src3: Default::default(),
            src1_shared: Default::default(),
            shared_offset: Default::default(),
            pmevent: PmeventDecoder::new(selectors),
            templates: std::array::from_fn(|i| Constant::new(LONG_FORMS[i].1.template.into())),
            fixed: std::array::from_fn(|i| Constant::new((!LONG_FORMS[i].1.free_bits()).into())),
            codes: std::array::from_fn(|i| c4(LONG_FORMS[i].0)),
            iadd_template: Constant::new(g80::IADD32.template.into()),
            iadd_fixed: Constant::new((!g80::IADD32.free_bits() & 0xffff_ffff).into()),
            op_unsupported: c4(op::UNSUPPORTED),
            op_nop: c4(op::NOP),
            op_iadd32: c4(op::IADD32),
            op_pmevent: c4(op::PMEVENT),
            op_nop_join: c4(op::NOP_JOIN),
            opcode_nop: c4(opcodes::NOP.into()),
            opcode_mov: c4(opcodes::MOV.into()),
        }
    }
}

crate::hdl_block!([] SubsetDecoder {
    inputs: [word],
    outputs: [op, long_instruction, dest, src1, src2, src3, src1_shared, shared_offset],
    parts: [pmevent],
    constants: [
        templates, fixed, codes, iadd_template, iadd_fixed, op_unsupported, op_nop, op_iadd32,
        op_pmevent, op_nop_join, opcode_nop, opcode_mov,
    ],
});

impl Logic for SubsetDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: subset_decoder");
        self.pmevent.word.next = bit_cast::<32, 64>(self.word.val());
        self.long_instruction.next = self.word.val().get_bit(0);
        self.op.next = self.op_unsupported.val();
        if self.word.val().get_bit(0) {
            for i in 0..13 {
                if !((self.word.val() ^ self.templates[i].val()) & self.fixed[i].val()).any() {
                    self.op.next = self.codes[i].val();
                }
            }
            // Opcode 1111 is NOP, NOP.JOIN with the join marker (10).
            if self.word.val().get_bits::<4>(28) == self.opcode_nop.val() {
                self.op.next = self.op_nop.val();
                if self.word.val().get_bit(33) & !self.word.val().get_bit(32) {
                    self.op.next = self.op_nop_join.val();
                }
            }
        } else {
            // IADD32: a g[] source must be a 32-bit word (sm_type 14-13 = 11).
            if !((self.word.val() ^ self.iadd_template.val()) & self.iadd_fixed.val()).any()
                & (!self.word.val().get_bit(24)
                    | (self.word.val().get_bit(14) & self.word.val().get_bit(13)))
            {
                self.op.next = self.op_iadd32.val();
            }
            if self.word.val().get_bits::<4>(28) == self.opcode_nop.val() {
                self.op.next = self.op_nop.val();
            }
            if self.pmevent.is_pmevent.val() {
                self.op.next = self.op_pmevent.val();
            }
        }
        // Operand fields: the 64-bit layout, or the 32-bit IADD32 one.
        self.dest.next = self.word.val().get_bits::<7>(2);
        self.src1.next = self.word.val().get_bits::<7>(9);
        self.src2.next = self.word.val().get_bits::<7>(16);
        self.src3.next = self.word.val().get_bits::<7>(46);
        self.src1_shared.next = false;
        self.shared_offset.next = bit_cast::<5, 4>(self.word.val().get_bits::<4>(9));
        if self.word.val().get_bits::<4>(28) == self.opcode_mov.val() {
            self.shared_offset.next = self.word.val().get_bits::<5>(9);
        }
        // IADD32I (immediate marker 11): a 6-bit first source, as IADD32.
        if self.word.val().get_bit(33) & self.word.val().get_bit(32) {
            self.src1.next = bit_cast::<7, 6>(self.word.val().get_bits::<6>(9));
        }
        if !self.word.val().get_bit(0) {
            self.dest.next = bit_cast::<7, 6>(self.word.val().get_bits::<6>(2));
            self.src1.next = bit_cast::<7, 6>(self.word.val().get_bits::<6>(9));
            self.src2.next = bit_cast::<7, 6>(self.word.val().get_bits::<6>(16));
            self.src1_shared.next = self.word.val().get_bit(24);
        }
        // A PMEVENT's register field is 7 bits (8-2), R0 to R127.
        if self.pmevent.is_pmevent.val() {
            self.dest.next = self.pmevent.dest.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_isa::word::pair;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn subset_decoder_synthesizes() {
        let mut uut = SubsetDecoder::default();
        uut.connect_all();
        let report = check_synthesizes("subset_decoder", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0);
    }

    fn decode_with_dest(word: u64) -> (u64, u64) {
        let mut uut = SubsetDecoder::default();
        uut.connect_all();
        uut.word.next = word.into();
        assert!(simulate(&mut uut, 100));
        (uut.op.val().to_u64(), uut.dest.val().to_u64())
    }

    fn decode(word: u64) -> u64 {
        decode_with_dest(word).0
    }

    #[test]
    fn subset_decoder_operation() {
        assert_eq!(decode(pair(0x1000_4205, 0x0023_c780)), op::MOV_U16);
        assert_eq!(decode(pair(0x6001_4c01, 0x0020_4780)), op::IMAD_U16);
        assert_eq!(decode(0x2102_e800), op::IADD32);
        assert_eq!(decode(pair(0xd00e_0005, 0xa0c0_0781)), op::GST_U32);
        assert_eq!(decode(pair(0x3000_0003, 0x0000_0780)), op::RET);
        assert_eq!(decode(pair(0xf000_0001, 0xe000_0001)), op::NOP);
        assert_eq!(decode(0x7000_1814), op::PMEVENT);
        assert_eq!(decode(pair(0x3003_0209, 0x6c01_47c0)), op::ISET);
        assert_eq!(decode(pair(0x203f_8205, 0x0fff_ffff)), op::IADD32I);
        assert_eq!(decode(pair(0x1000_8003, 0x0000_0280)), op::BRA);
        assert_eq!(decode(pair(0xa000_8003, 0x0000_0780)), op::SSY);
        assert_eq!(decode(pair(0xf000_0001, 0xe000_0002)), op::NOP_JOIN);
        // A join marker on RET, a branch on LT, a signed IMAD, a malformed
        // PMEVENT: unsupported.
        assert_eq!(decode(pair(0x3000_0003, 0x0000_0782)), op::UNSUPPORTED);
        assert_eq!(decode(pair(0x1000_8003, 0x0000_0080)), op::UNSUPPORTED);
        assert_eq!(decode(pair(0x6001_4c01, 0x0820_4780)), op::UNSUPPORTED);
        assert_eq!(decode(0x7000_1a14), op::UNSUPPORTED);
        // Registers: a short IADD32's 6-bit field, a PMEVENT's 7 bits.
        assert_eq!(decode_with_dest(0x2102_ea0c), (op::IADD32, 3));
        assert_eq!(decode_with_dest(0x7000_1990), (op::PMEVENT, 100));
    }
}
