//! One scalar processor's integer datapath for the G80 subset (the SM
//! slice has eight, FlexGripPlus' 8 SPs). Semantics as `flexpmu_sim::gpu::iss`
//! defines them: operands arrive selected by the read stage (16-bit
//! halves zero-extended, `g[]` words read).

use rust_hdl::prelude::*;

use crate::comment;

use crate::sm::subset_decoder::op;

/// Combinational integer ALU.
pub struct IntegerAlu {
    /// Operation class (`subset_decoder::op`).
    pub op: Signal<In, Bits<4>>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub c: Signal<In, Bits<32>>,
    /// SHL's shift amount (the instruction's immediate).
    pub shift: Signal<In, Bits<7>>,
    /// ISET's comparison: bit 3 signed, bits 2-0 true on `<`, `=`, `>`
    /// (FlexGripPlus' `is_signed_i` and `condition_i`).
    pub compare: Signal<In, Bits<4>>,
    /// ISET: all ones when the comparison holds, else 0.
    pub result: Signal<Out, Bits<32>>,
    op_mov: Constant<Bits<4>>,
    op_i2i: Constant<Bits<4>>,
    op_imad: Constant<Bits<4>>,
    op_shl: Constant<Bits<4>>,
    op_iadd: Constant<Bits<4>>,
    op_gld: Constant<Bits<4>>,
    op_gst: Constant<Bits<4>>,
    op_iset: Constant<Bits<4>>,
    op_iadd32i: Constant<Bits<4>>,
    sign_bit: Constant<Bits<32>>,
}

impl Default for IntegerAlu {
    fn default() -> Self {
        let c4 = |v: u64| Constant::new(v.into());
        Self {
            op: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            shift: Default::default(),
            compare: Default::default(),
            result: Default::default(),
            op_mov: c4(op::MOV_U16),
            op_i2i: c4(op::I2I_U32_U16),
            op_imad: c4(op::IMAD_U16),
            op_shl: c4(op::SHL),
            op_iadd: c4(op::IADD32),
            op_gld: c4(op::GLD_U32),
            op_gst: c4(op::GST_U32),
            op_iset: c4(op::ISET),
            op_iadd32i: c4(op::IADD32I),
            sign_bit: Constant::new(0x8000_0000u64.into()),
        }
    }
}

crate::hdl_block!([] IntegerAlu {
    inputs: [op, a, b, c, shift, compare],
    outputs: [result],
    parts: [],
    constants: [op_mov, op_i2i, op_imad, op_shl, op_iadd, op_gld, op_gst, op_iset, op_iadd32i, sign_bit],
});

impl Logic for IntegerAlu {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: integer_alu");
        self.result.next = 0.into();
        // MOV.U16 and I2I.U32.U16: the 16-bit operand, zero-extended (the
        // write stage puts MOV's into the destination half).
        if (self.op.val() == self.op_mov.val()) | (self.op.val() == self.op_i2i.val()) {
            self.result.next = bit_cast::<32, 16>(self.a.val().get_bits::<16>(0));
        }
        if self.op.val() == self.op_imad.val() {
            self.result.next =
                self.a.val().get_bits::<16>(0) * self.b.val().get_bits::<16>(0) + self.c.val();
        }
        if self.op.val() == self.op_shl.val() {
            self.result.next = self.a.val() << self.shift.val();
        }
        // IADD32, and IADD32I with the immediate as `b`.
        if (self.op.val() == self.op_iadd.val()) | (self.op.val() == self.op_iadd32i.val()) {
            self.result.next = self.a.val() + self.b.val();
        }
        // ISET: a signed comparison is an unsigned one with the sign bits
        // flipped.
        if self.op.val() == self.op_iset.val() {
            if self.compare.val().get_bit(3) {
                if (self.compare.val().get_bit(0)
                    & ((self.a.val() ^ self.sign_bit.val()) < (self.b.val() ^ self.sign_bit.val())))
                    | (self.compare.val().get_bit(1) & (self.a.val() == self.b.val()))
                    | (self.compare.val().get_bit(2)
                        & ((self.a.val() ^ self.sign_bit.val())
                            > (self.b.val() ^ self.sign_bit.val())))
                {
                    self.result.next = 0xffff_ffff_u64.into();
                }
            } else if (self.compare.val().get_bit(0) & (self.a.val() < self.b.val()))
                | (self.compare.val().get_bit(1) & (self.a.val() == self.b.val()))
                | (self.compare.val().get_bit(2) & (self.a.val() > self.b.val()))
            {
                self.result.next = 0xffff_ffff_u64.into();
            }
        }
        // Memory instructions: the byte address for the memory unit.
        if (self.op.val() == self.op_gld.val()) | (self.op.val() == self.op_gst.val()) {
            self.result.next = self.a.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn integer_alu_synthesizes() {
        let mut uut = IntegerAlu::default();
        uut.connect_all();
        let report = check_synthesizes("integer_alu", &generate_verilog(&uut)).unwrap();
        assert_eq!(report.flip_flop_bits, 0);
    }

    fn alu(code: u64, a: u64, b: u64, c: u64, shift: u64) -> u64 {
        alu_compare(code, a, b, c, shift, 0)
    }

    fn alu_compare(code: u64, a: u64, b: u64, c: u64, shift: u64, compare: u64) -> u64 {
        let mut uut = IntegerAlu::default();
        uut.connect_all();
        uut.compare.next = compare.into();
        uut.op.next = code.into();
        uut.a.next = a.into();
        uut.b.next = b.into();
        uut.c.next = c.into();
        uut.shift.next = shift.into();
        assert!(simulate(&mut uut, 100));
        uut.result.val().to_u64()
    }

    #[test]
    fn integer_alu_operation() {
        assert_eq!(
            alu(op::IADD32, 0xffff_fff0, 0x20, 0, 0),
            0x10,
            "wraps modulo 2^32"
        );
        assert_eq!(
            alu(op::IMAD_U16, 0x1_0003, 0xf_0100, 7, 0),
            3 * 0x100 + 7,
            "16-bit operands"
        );
        assert_eq!(
            alu(op::IMAD_U16, 0xffff, 0xffff, 0xffff_ffff, 0),
            0xfffe_0000
        );
        assert_eq!(alu(op::SHL, 0x8000_0003, 0, 0, 2), 0xc);
        assert_eq!(
            alu(op::SHL, 0xffff_ffff, 0, 0, 40),
            0,
            "32 or more shifts everything out"
        );
        assert_eq!(alu(op::I2I_U32_U16, 0x1234_5678, 0, 0, 0), 0x5678);
        assert_eq!(alu(op::MOV_U16, 0xabcd_0040, 0, 0, 0), 0x40);
        assert_eq!(alu(op::GLD_U32, 0x100, 0, 0, 0), 0x100);
        assert_eq!(alu(op::NOP, 5, 6, 7, 1), 0);
        assert_eq!(alu(op::IADD32I, 5, 0xffff_ffff, 0, 0), 4);
    }

    /// ISET against the reference comparison, signed and unsigned, on
    /// every condition and values around the sign boundary.
    #[test]
    fn integer_alu_compares() {
        use flexpmu_isa::g80::Compare;
        let values = [
            0u32,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_fffe,
            0xffff_ffff,
        ];
        for condition in 0..8u8 {
            for signed in [false, true] {
                for a in values {
                    for b in values {
                        let holds = Compare(condition).holds(a, b, signed);
                        let compare = u64::from(condition) | u64::from(signed) << 3;
                        let got = alu_compare(op::ISET, a.into(), b.into(), 0, 0, compare);
                        assert_eq!(
                            got,
                            if holds { 0xffff_ffff } else { 0 },
                            "{condition} {signed} {a:#x} {b:#x}"
                        );
                    }
                }
            }
        }
    }
}
