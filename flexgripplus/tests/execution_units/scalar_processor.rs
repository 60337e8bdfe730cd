//! The scalar processor held to FlexGripPlus' VHDL.

use super::*;

/// 0, all ones, the sign bits and their neighbours at 32, 24, 16 and 8
/// bits, the shift counts' boundaries.
const INT_CORNERS: &[u32] = &[
    0x0000_0000,
    0x0000_0001,
    0x0000_0002,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x8000_0000,
    0x8000_0001,
    0x7FFF_FFFF,
    0x7FFF_FFFE,
    0x0000_7FFF,
    0x0000_8000,
    0x0000_8001,
    0x0000_FFFF,
    0x0000_FFFE,
    0x0001_0000,
    0x0001_0001,
    0xFFFF_8000,
    0xFFFF_7FFF,
    0xFFFF_0000,
    0x007F_FFFF,
    0x0080_0000,
    0x0080_0001,
    0x00FF_FFFF,
    0x0100_0000,
    0xFF80_0000,
    0xFF7F_FFFF,
    0xFFFF_FF00,
    0x0000_007F,
    0x0000_0080,
    0x0000_00FF,
    0x0000_0100,
    0xFFFF_FF80,
    0x0000_000F,
    0x0000_0010,
    0x0000_0011,
    0x0000_001F,
    0x0000_0020,
    0x0000_0021,
    0x0000_0040,
    0x5555_5555,
    0xAAAA_AAAA,
    0x0000_1000,
];

fn int_operand(r: &mut Rng) -> u32 {
    match r.below(10) {
        0..=2 => r.pick(INT_CORNERS),
        // A corner in one part, random bits in the other.
        3 => {
            let c = r.pick(INT_CORNERS);
            match r.below(3) {
                0 => (c & 0xFFFF) | (r.u32() & 0xFFFF_0000),
                1 => (c & 0x00FF_FFFF) | (r.u32() & 0xFF00_0000),
                _ => c.wrapping_add(r.below(5)).wrapping_sub(2),
            }
        }
        4 => r.below(48),
        _ => r.u32(),
    }
}

/// An operand related to `a`: equal, a neighbour, its complement or
/// negation, sharing a half.
fn int_related(r: &mut Rng, a: u32) -> u32 {
    match r.below(8) {
        0 => a,
        1 => a.wrapping_add(1),
        2 => a.wrapping_sub(1),
        3 => !a,
        4 => a.wrapping_neg(),
        5 => (a & 0xFFFF) | (r.u32() & 0xFFFF_0000),
        6 => a ^ 0x8000,
        _ => int_operand(r),
    }
}

/// `op` with random operands and every other port random.
fn alu_random(r: &mut Rng, op: alu::AluOpcode) -> alu::Inputs {
    let src1 = int_operand(r);
    let src2 = if r.below(4) == 0 {
        int_related(r, src1)
    } else {
        int_operand(r)
    };
    let src3 = if r.below(4) == 0 {
        int_related(r, src1)
    } else {
        int_operand(r)
    };
    alu::Inputs {
        alu_opcode: op,
        instr_subop: r.below(8) as u8,
        instr_marker: r.pick(&alu::InstrMarker::ALL),
        src1,
        src2,
        src3,
        src1_neg: r.bit(),
        src2_neg: r.bit(),
        src3_neg: r.bit(),
        carry: r.bit(),
        saturate: r.bit(),
        w32: r.bit(),
        is_signed: r.bit(),
        abs_saturate: r.below(4) as u8,
        cvt_neg: r.bit(),
        cvt_type: r.below(8) as u8,
        set_cond: r.below(8) as u8,
    }
}

/// The scalar processor's vectors: every opcode under every combination
/// of its one-bit controls, IMAD24's sub-opcodes and markers, CVT's
/// every control on corners, two-operand opcodes on corners, shifts by
/// every count, then random vectors.
fn scalar_processor_vectors() -> Vec<alu::Inputs> {
    use alu::AluOpcode as O;
    let mut r = Rng::new(0x5CA1_A2B0_0C55_0001);
    let mut v = Vec::new();
    // Every opcode x carry x saturate x w32 x is_signed x src3_neg.
    for op in alu::AluOpcode::ALL {
        for control in 0..32u32 {
            for _ in 0..3 {
                let mut i = alu_random(&mut r, op);
                i.carry = control & 1 != 0;
                i.saturate = control & 2 != 0;
                i.w32 = control & 4 != 0;
                i.is_signed = control & 8 != 0;
                i.src3_neg = control & 16 != 0;
                v.push(i);
            }
        }
    }
    // IMAD24, IMAD24C: every sub-opcode x marker x carry x w32 x signed.
    for op in [O::Imad24, O::Imad24c] {
        for subop in 0..8u8 {
            for marker in alu::InstrMarker::ALL {
                for control in 0..8u32 {
                    for _ in 0..2 {
                        let mut i = alu_random(&mut r, op);
                        i.instr_subop = subop;
                        i.instr_marker = marker;
                        i.carry = control & 1 != 0;
                        i.w32 = control & 2 != 0;
                        i.is_signed = control & 4 != 0;
                        v.push(i);
                    }
                }
            }
        }
    }
    // CVT: every abs_saturate x cvt_neg x cvt_type x w32 x signed, on
    // corners (half of them with random upper bits).
    for control in 0..256u32 {
        for k in 0..12 {
            let mut i = alu_random(&mut r, O::Cvt);
            i.abs_saturate = (control & 3) as u8;
            i.cvt_neg = control & 4 != 0;
            i.cvt_type = (control >> 3 & 7) as u8;
            i.w32 = control & 64 != 0;
            i.is_signed = control & 128 != 0;
            let c = r.pick(INT_CORNERS);
            i.src1 = if k % 2 == 0 {
                c
            } else {
                (c & 0xFF) | (r.u32() & !0xFF)
            };
            v.push(i);
        }
    }
    // Two-operand opcodes: every corner against 8 others.
    let two = [
        O::Iadd,
        O::Iaddc,
        O::Isub,
        O::Set,
        O::Min,
        O::Max,
        O::Shl,
        O::Shr,
        O::AndOp,
        O::OrOp,
        O::XorOp,
        O::NegOp,
        O::Imul24,
        O::Imad24,
        O::Imad24c,
    ];
    for op in two {
        for &x in INT_CORNERS {
            for _ in 0..8 {
                let mut i = alu_random(&mut r, op);
                i.src1 = x;
                i.src2 = r.pick(INT_CORNERS);
                i.src3 = r.pick(INT_CORNERS);
                v.push(i);
            }
        }
    }
    // Comparisons and adds: every w32 x signed x set_cond x saturate.
    for op in [O::Set, O::Min, O::Max, O::Iadd, O::Isub, O::Imul24] {
        for control in 0..64u32 {
            for _ in 0..6 {
                let mut i = alu_random(&mut r, op);
                i.w32 = control & 1 != 0;
                i.is_signed = control & 2 != 0;
                i.set_cond = (control >> 2 & 7) as u8;
                i.saturate = control & 32 != 0;
                v.push(i);
            }
        }
    }
    // Shifts: every count to 40 and large ones, each w32 x signed.
    let counts: Vec<u32> = (0..=40)
        .chain([
            0x100,
            0x1_0000,
            0x8000_0000,
            0xFFFF_FFFF,
            0x8000_0010,
            0x1_0010,
        ])
        .collect();
    for op in [O::Shl, O::Shr] {
        for control in 0..4u32 {
            for &count in &counts {
                for _ in 0..3 {
                    let mut i = alu_random(&mut r, op);
                    i.w32 = control & 1 != 0;
                    i.is_signed = control & 2 != 0;
                    i.src2 = count;
                    v.push(i);
                }
            }
        }
    }
    // Random: every opcode and port uniform.
    for _ in 0..4000 {
        let op = r.pick(&alu::AluOpcode::ALL);
        v.push(alu_random(&mut r, op));
    }
    v
}

/// A vector as `tb_scalar_processor.vhd` reads it.
fn scalar_processor_line(i: &alu::Inputs) -> String {
    let b = u8::from;
    let negs = b(i.src1_neg) | b(i.src2_neg) << 1 | b(i.src3_neg) << 2;
    format!(
        "{:02x} {:x} {:x} {:08x} {:08x} {:08x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x}",
        i.alu_opcode as u8,
        i.instr_subop,
        i.instr_marker as u8,
        i.src1,
        i.src2,
        i.src3,
        negs,
        b(i.carry),
        b(i.saturate),
        b(i.w32),
        b(i.is_signed),
        i.abs_saturate,
        b(i.cvt_neg),
        i.cvt_type,
        i.set_cond
    )
}

/// The outputs as `tb_scalar_processor.vhd` writes them.
fn scalar_processor_output(o: &alu::Outputs) -> String {
    let flag = |f: bool| if f { '1' } else { '0' };
    format!(
        "{:032b} {}{}{}{}",
        o.result,
        flag(o.carry),
        flag(o.overflow),
        flag(o.sign),
        flag(o.zero)
    )
}

/// `alu::scalar_processor` is `scalar_processor.vhd`.
#[test]
fn scalar_processor_matches_flexgripplus_vhdl() {
    let Some(tree) = tree() else { return };
    let vectors = scalar_processor_vectors();
    let cases: Vec<Case> = vectors
        .iter()
        .map(|i| Case {
            line: scalar_processor_line(i),
            category: format!("{:?}", i.alu_opcode),
            port: scalar_processor_output(&alu::scalar_processor(i)),
        })
        .collect();
    let bench = Bench::build(
        &unit_files(&tree, &[SCALAR_PROCESSOR_DIR]),
        "tb_scalar_processor",
        TB_SCALAR_PROCESSOR,
    );
    let lines: Vec<String> = cases.iter().map(|c| c.line.clone()).collect();
    // numeric_std warns at 0 ms, before the first vector, of the unit's
    // signals still 'U'; the outputs show any 'U' or 'X' after.
    let ghdl = bench.run(
        &lines,
        "VEC_FILE",
        "OUT_FILE",
        &["--ieee-asserts=disable-at-0"],
    );
    assert_same("scalar_processor", &cases, &ghdl);
}
