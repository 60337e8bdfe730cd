//! Expected values from GHDL 2.0 on FlexGripPlus 4.4's own
//! `scalar_processor.vhd` (the harness in `/tmp/fgp-units/alu/`:
//! `curated.txt` through `tb_scalar_processor.vhd`), and the execute
//! stage's rules read from `pipeline_execute.vhd`.

use super::execute::*;
use super::AluOpcode::*;
use super::*;

/// One GHDL vector: opcode, sub-opcode, marker (`InstrMarker as u8`),
/// src1, src2, src3, negations (bit 0 src1, 1 src2, 2 src3), carry,
/// saturate, w32, signed, abs_saturate, cvt_neg, cvt_type, set_cond;
/// then GHDL's result and flags (bit 3 carry, 2 overflow, 1 sign, 0 zero).
type Row = (
    AluOpcode,
    u8,
    u8,
    u32,
    u32,
    u32,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u32,
    u8,
);

#[rustfmt::skip]
const GHDL: &[Row] = &[
    (Iadd, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000000, 0b1001),
    (Iadd, 0, 0, 0x7fffffff, 0x1, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x80000000, 0b0110),
    (Iadd, 0, 0, 0x7fff, 0x1, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00008000, 0b0110),
    (Iadd, 0, 0, 0xffff, 0x1, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Iadd, 0, 0, 0x12348000, 0xabcd8000, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00000000, 0b1101),
    (Iadd, 0, 0, 0x5, 0x3, 0x0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000002, 0b1000),
    (Iadd, 0, 0, 0x3, 0x5, 0x0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0x0000fffe, 0b1010),
    (Iadd, 0, 0, 0x7fffffff, 0x1, 0x0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Iadd, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Iadd, 0, 0, 0x80000000, 0x80000000, 0x0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Iadd, 0, 0, 0x7fff, 0x1, 0x0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x0000ffff, 0b0000),
    (Iadd, 0, 0, 0x1, 0x2, 0x0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0x00000003, 0b0000),
    (Iadd, 0, 0, 0x80000000, 0x0, 0x0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0x80000000, 0b0000),
    (Iaddc, 0, 0, 0xffffffff, 0x0, 0x0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0x00000000, 0b1001),
    (Iaddc, 0, 0, 0x7ffffffe, 0x1, 0x0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0x80000000, 0b0100),
    (Iaddc, 0, 0, 0xfffe, 0x1, 0x0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Isub, 0, 0, 0x5, 0x3, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0xfffffffe, 0b0010),
    (Isub, 0, 0, 0x3, 0x5, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000002, 0b1000),
    (Isub, 0, 0, 0x80000000, 0x0, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80000000, 0b0000),
    (Isub, 0, 0, 0x0, 0x0, 0x0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Isub, 0, 0, 0x1, 0x0, 0x0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Isub, 0, 0, 0x10001, 0x20002, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00000001, 0b0000),
    (Set, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0xffffffff, 0b1010),
    (Set, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0x00000000, 0b1001),
    (Set, 0, 0, 0x1ffff, 0x20001, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xffffffff, 0b0010),
    (Set, 0, 0, 0x12345678, 0x12345678, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0xffffffff, 0b0010),
    (Set, 0, 0, 0x12345678, 0x12345678, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 5, 0x00000000, 0b0001),
    (Set, 0, 0, 0xffff, 0x10000, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0xffffffff, 0b1010),
    (Min, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0xffffffff, 0b1010),
    (Min, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000001, 0b1000),
    (Min, 0, 0, 0x1234ffff, 0x56780001, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xffffffff, 0b0010),
    (Min, 0, 0, 0x1234ffff, 0x56780001, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000001, 0b0000),
    (Max, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x00000001, 0b1000),
    (Max, 0, 0, 0x1234ffff, 0x56780001, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00000001, 0b0000),
    (Max, 0, 0, 0x12348000, 0x56787fff, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00008000, 0b1000),
    (Shl, 0, 0, 0x80000001, 0x1f, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80000000, 0b0000),
    (Shl, 0, 0, 0x80000001, 0x20, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Shl, 0, 0, 0x1, 0x21, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Shl, 0, 0, 0x1234abcd, 0x4, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0000bcd0, 0b1000),
    (Shl, 0, 0, 0x1, 0x10, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Shl, 0, 0, 0x1, 0x11, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Shr, 0, 0, 0x80000000, 0x4, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0xf8000000, 0b0010),
    (Shr, 0, 0, 0x80000000, 0x4, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x08000000, 0b0000),
    (Shr, 0, 0, 0x80000000, 0x20, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0xffffffff, 0b0010),
    (Shr, 0, 0, 0x80000000, 0x21, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0xffffffff, 0b0010),
    (Shr, 0, 0, 0x12348000, 0x4, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xfffff800, 0b1010),
    (Shr, 0, 0, 0x12348000, 0x4, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000800, 0b1000),
    (Shr, 0, 0, 0x8000, 0x10, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xffffffff, 0b1010),
    (Shr, 0, 0, 0x8000, 0x11, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xffffffff, 0b1010),
    (Shr, 0, 0, 0xffff7fff, 0x100, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00000000, 0b0101),
    (AndOp, 0, 0, 0xff00ff00, 0xff00ff0, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x0f000f00, 0b1000),
    (OrOp, 0, 0, 0xff00ff00, 0xff00ff0, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xfff0fff0, 0b0010),
    (XorOp, 0, 0, 0xff00ff00, 0xff00ff00, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00000000, 0b1001),
    (NegOp, 0, 0, 0xff00ff00, 0x12345678, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x00ff00ff, 0b1000),
    (NegOp, 0, 0, 0xff00ff, 0x12345678, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xff00ff00, 0b0010),
    (Imul24, 0, 0, 0xffffff, 0xffffff, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xfe000001, 0b0000),
    (Imul24, 0, 0, 0xffffff, 0xffffff, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x00000001, 0b0000),
    (Imul24, 0, 0, 0x800000, 0x800000, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x00000000, 0b0001),
    (Imul24, 0, 0, 0xff123456, 0x2, 0x0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x002468ac, 0b0000),
    (Imul24, 0, 0, 0xffff, 0xffff, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfffe0001, 0b1000),
    (Imul24, 0, 0, 0xffff, 0xffff, 0x0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x00000001, 0b1000),
    (Imul24, 0, 0, 0x3, 0x5, 0x0, 7, 0, 0, 1, 1, 0, 0, 0, 0, 0x0000000f, 0b0000),
    (Imad24, 0, 0, 0xffffff, 0x2, 0x1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0x01ffffff, 0b0000),
    (Imad24, 1, 0, 0xffffff, 0x2, 0x1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0010),
    (Imad24, 1, 0, 0xffffff, 0x2, 0x1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0b0010),
    (Imad24, 0, 3, 0xffffff, 0x2, 0x1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0xffffffff, 0b0010),
    (Imad24, 7, 3, 0xffffff, 0x2, 0x1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x01ffffff, 0b0000),
    (Imad24, 5, 0, 0x400000, 0x200, 0x7fffffff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Imad24, 5, 0, 0x1, 0x1, 0xffffffff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Imad24, 0, 0, 0x0, 0x0, 0x80000000, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x80000000, 0b0000),
    (Imad24c, 0, 0, 0x10, 0x3, 0x20, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x00000031, 0b0000),
    (Imad24c, 4, 0, 0xffffffff, 0x3, 0x1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0x00000001, 0b1000),
    (Imad24c, 5, 0, 0x7fffffff, 0x3, 0x0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0xffffffff, 0b0000),
    (Cvt, 0, 0, 0x1234abcd, 0x0, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x0000abcd, 0b0000),
    (Cvt, 0, 0, 0x1234abcd, 0x0, 0x0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0xffff5433, 0b1000),
    (Cvt, 0, 0, 0x123456f0, 0x0, 0x0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0x000000f0, 0b0000),
    (Cvt, 0, 0, 0x1234abcd, 0x0, 0x0, 0, 0, 0, 1, 1, 0, 0, 4, 0, 0xffffabcd, 0b0010),
    (Cvt, 0, 0, 0x1234abcd, 0x0, 0x0, 0, 0, 0, 0, 1, 2, 0, 4, 0, 0x00005433, 0b1000),
    (Cvt, 0, 0, 0x1234abcd, 0x0, 0x0, 0, 0, 0, 0, 1, 2, 1, 4, 0, 0x00005433, 0b1000),
    (Cvt, 0, 0, 0x123456f0, 0x0, 0x0, 0, 0, 0, 1, 1, 2, 0, 6, 0, 0x00000010, 0b0000),
    (Cvt, 0, 0, 0x80000000, 0x0, 0x0, 0, 0, 0, 1, 1, 2, 0, 5, 0, 0x80000000, 0b0010),
    (Cvt, 0, 0, 0x5, 0x0, 0x0, 0, 0, 0, 1, 1, 2, 1, 5, 0, 0x00000005, 0b0000),
    (Cvt, 0, 0, 0x5, 0x0, 0x0, 0, 0, 0, 1, 1, 2, 1, 1, 0, 0xfffffffb, 0b0010),
    (Cvt, 0, 0, 0x5, 0x0, 0x0, 0, 0, 0, 1, 1, 0, 1, 7, 0, 0xfffffffb, 0b0010),
    (Cvt, 0, 0, 0xff, 0x0, 0x0, 0, 0, 0, 1, 1, 2, 1, 3, 0, 0xffffff01, 0b0010),
    (Fadd, 0, 0, 0xffffffff, 0x1, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x00000000, 0b1001),
    (Fset, 0, 0, 0x7fffffff, 0x1, 0x0, 0, 0, 0, 1, 1, 0, 0, 0, 7, 0x00000000, 0b0101),
    (Rcp, 0, 0, 0x7fff, 0x1, 0x0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00000000, 0b0101),
    (Unknown, 0, 0, 0xffffffff, 0x1, 0x0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0x00000000, 0b0001),
];

fn inputs(r: &Row) -> Inputs {
    Inputs {
        alu_opcode: r.0,
        instr_subop: r.1,
        instr_marker: InstrMarker::ALL[usize::from(r.2)],
        src1: r.3,
        src2: r.4,
        src3: r.5,
        src1_neg: r.6 & 1 != 0,
        src2_neg: r.6 & 2 != 0,
        src3_neg: r.6 & 4 != 0,
        carry: r.7 != 0,
        saturate: r.8 != 0,
        w32: r.9 != 0,
        is_signed: r.10 != 0,
        abs_saturate: r.11,
        cvt_neg: r.12 != 0,
        cvt_type: r.13,
        set_cond: r.14,
    }
}

#[test]
fn scalar_processor_matches_ghdl() {
    for r in GHDL {
        let o = scalar_processor(&inputs(r));
        let flags = u8::from(o.carry) << 3
            | u8::from(o.overflow) << 2
            | u8::from(o.sign) << 1
            | u8::from(o.zero);
        assert_eq!((o.result, flags), (r.15, r.16), "{:x?}", inputs(r));
    }
}

#[test]
fn opcode_order_is_the_package_order() {
    for (i, op) in AluOpcode::ALL.iter().enumerate() {
        assert_eq!(*op as usize, i);
        assert_eq!(AluOpcode::from_index(i as u8), Some(*op));
    }
    assert_eq!(AluOpcode::from_index(29), None);
    assert_eq!(AluOpcode::Unknown as u8, 0b11100);
}

#[test]
fn result_units() {
    for op in AluOpcode::ALL {
        for subop in 0..8 {
            let want = match op {
                Fadd | Fmul | Fmad | Fset => ResultUnit::Fpu,
                Cvt if matches!(subop, 2 | 4 | 6 | 7) => ResultUnit::Fpu,
                Rcp | Sin | Cos | Lg2 | Ex2 | Rsq => ResultUnit::Sfu,
                RroSinOp | RroEx2Op => ResultUnit::Rro,
                _ => ResultUnit::ScalarProcessor,
            };
            assert_eq!(alu_result_unit(op, subop), want, "{op:?} {subop}");
        }
    }
}

#[test]
fn flag_update() {
    let sp = Outputs {
        result: 0,
        carry: true,
        overflow: true,
        sign: true,
        zero: false,
    };
    // Add-type opcodes write carry and overflow; set_pred sign and zero.
    assert_eq!(pred_flags(Iadd, false, 0b0001, &sp, 0), 0b1101);
    assert_eq!(pred_flags(Imad24c, true, 0b0001, &sp, 0), 0b1110);
    // Others keep carry and overflow.
    assert_eq!(pred_flags(Shl, true, 0b0101, &sp, 0), 0b0110);
    assert_eq!(pred_flags(Set, false, 0b1010, &sp, 0), 0b1010);
    // FSET with set_pred: sign = FPU bit 29, zero = its complement.
    assert_eq!(pred_flags(Fset, true, 0b0000, &sp, 1 << 29), 0b0010);
    assert_eq!(pred_flags(Fset, true, 0b1110, &sp, !(1 << 29)), 0b1101);
    assert_eq!(pred_flags(Fset, false, 0b0110, &sp, 1 << 29), 0b0110);
}

fn decoded(class: InstrOpcode, mov: MovOpcode, dest: MemType, op: AluOpcode, subop: u8) -> Decoded {
    Decoded {
        instr_opcode: class,
        mov_opcode: mov,
        dest_mem_type: dest,
        instr_marker: InstrMarker::FullNorm,
        alu_opcode: op,
        instr_subop: subop,
        set_pred: true,
        w32: false,
        is_signed: true,
        saturate: false,
        abs_saturate: 0,
        cvt_round: 1,
        cvt_type: 5,
        cvt_neg: false,
        set_cond: 0,
        mem_type: 2,
        src1_neg: false,
        src2_neg: false,
        src3_neg: false,
    }
}

#[test]
fn dispatch_latches() {
    use InstrOpcode as C;
    let prev = ExecRegs::RESET;
    let alu = dispatch(
        &prev,
        &decoded(C::Alu, MovOpcode::Unknown, MemType::Reg, Cvt, 4),
        0,
    );
    assert_eq!(alu.next, NextState::AluExec);
    assert_eq!(
        (
            alu.regs.alu_opcode,
            alu.regs.cvt_type,
            alu.regs.w32,
            alu.regs.is_signed
        ),
        (Cvt, 5, false, true)
    );
    assert!(alu.regs.fpu_en && alu.regs.fpu_instr == FpuOpcode::Conv && alu.regs.set_pred);
    // R2A: SHL at 32 bits unsigned, only if lane 0's source 2 is not 0.
    let r2a = decoded(C::Mov, MovOpcode::Load, MemType::Address, Unknown, 6);
    let d = dispatch(&alu.regs, &r2a, 4);
    assert_eq!(
        (d.regs.alu_opcode, d.regs.w32, d.regs.is_signed, d.next),
        (Shl, true, false, NextState::AluExec)
    );
    assert_eq!(d.regs.cvt_type, 5);
    let d = dispatch(&alu.regs, &r2a, 0);
    assert_eq!(
        (d.regs.alu_opcode, d.flags, d.next),
        (Cvt, FlagsLatch::Keep, NextState::Nop)
    );
    // ADA: IADD at 32 bits unsigned.
    let d = dispatch(
        &prev,
        &decoded(C::Mov, MovOpcode::Load, MemType::Address, Unknown, 1),
        0,
    );
    assert_eq!(
        (d.regs.alu_opcode, d.regs.w32, d.next),
        (Iadd, true, NextState::AluExec)
    );
    // A flow instruction keeps the last ALU opcode (its flags use it).
    let d = dispatch(
        &alu.regs,
        &decoded(C::Flow, MovOpcode::Unknown, MemType::Unknown, Unknown, 0),
        0,
    );
    assert_eq!((d.regs.alu_opcode, d.next), (Cvt, NextState::FlowExec));
    // A store to a flag register loads each lane's source 2 bits 3..0.
    let d = dispatch(
        &prev,
        &decoded(C::Mov, MovOpcode::Store, MemType::Flags, Unknown, 5),
        0,
    );
    assert_eq!(
        (d.flags, d.next),
        (FlagsLatch::Src2Low4, NextState::MovDone)
    );
    assert_eq!(mem_type_to_cvt_type(2), 0b100);
}

#[test]
fn lane_inputs_take_the_registered_controls() {
    let regs = ExecRegs {
        alu_opcode: Iaddc,
        w32: true,
        ..ExecRegs::RESET
    };
    let d = decoded(InstrOpcode::Alu, MovOpcode::Unknown, MemType::Reg, Iadd, 0);
    let i = sp_inputs(&regs, &d, [0xFFFF_FFFF, 0, 0], 0b0100);
    assert_eq!(
        (i.alu_opcode, i.w32, i.is_signed, i.carry, i.cvt_type),
        (Iaddc, true, false, true, 0)
    );
    let o = scalar_processor(&i);
    assert_eq!((o.result, o.carry, o.zero), (0, true, true));
}
