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
    pub result: Signal<Out, Bits<32>>,
    op_mov: Constant<Bits<4>>,
    op_i2i: Constant<Bits<4>>,
    op_imad: Constant<Bits<4>>,
    op_shl: Constant<Bits<4>>,
    op_iadd: Constant<Bits<4>>,
    op_gld: Constant<Bits<4>>,
    op_gst: Constant<Bits<4>>,
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
            result: Default::default(),
            op_mov: c4(op::MOV_U16),
            op_i2i: c4(op::I2I_U32_U16),
            op_imad: c4(op::IMAD_U16),
            op_shl: c4(op::SHL),
            op_iadd: c4(op::IADD32),
            op_gld: c4(op::GLD_U32),
            op_gst: c4(op::GST_U32),
        }
    }
}

crate::hdl_block!([] IntegerAlu {
    inputs: [op, a, b, c, shift],
    outputs: [result],
    parts: [],
    constants: [op_mov, op_i2i, op_imad, op_shl, op_iadd, op_gld, op_gst],
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
        if self.op.val() == self.op_iadd.val() {
            self.result.next = self.a.val() + self.b.val();
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
        let mut uut = IntegerAlu::default();
        uut.connect_all();
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
    }
}
