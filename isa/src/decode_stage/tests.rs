//! The decode stage's reading of words from FlexGripPlus' own
//! applications, field by field, against the listings' text beside them
//! (their ROMs' comments).

use super::*;

fn stage(low: u32, high: Option<u32>) -> Stage {
    decode(value(low, high))
}

fn reg(value: u32) -> Operand {
    Operand {
        value,
        space: Space::Register,
    }
}

#[test]
fn moves_read_their_sources_where_flexgripplus_does() {
    // MOV.U16 R0H, g [0x1].U16 (VectorAdd_float, word 0).
    let s = stage(0x1000_4205, Some(0x0023_c780));
    assert_eq!(
        (s.class, s.operation, s.marker),
        (Class::Mov, Operation::Mov, Marker::Normal)
    );
    assert_eq!(
        s.src1,
        Operand {
            value: 1,
            space: Space::Shared
        }
    );
    assert_eq!((s.dest, s.shared_type, s.w32), (reg(1), 0b01, false));
    // MOV R10, R124 (FFT, word 8).
    let s = stage(0x1000_f829, Some(0x0403_c780));
    assert_eq!((s.src1, s.dest, s.w32), (reg(124), reg(10), true));
    // MVI R0, 0x41c00000 (cos/soft, word 8): the immediate marker.
    let s = stage(0x1000_8001, Some(0x041c_0003));
    assert_eq!((s.operation, s.marker), (Operation::Mov, Marker::Immediate));
    assert_eq!((s.immediate(), s.dest), (Some(0x41c0_0000), reg(0)));
    assert_eq!((s.pred_cond, s.write_pred), (15, false));
    // MVC R5 (C0.NEU), c[0x1] [0x2] (cos/soft, word 26).
    let s = stage(0x1000_0415, Some(0x2440_c680));
    assert_eq!(s.operation, Operation::LoadConst);
    assert_eq!(
        s.src1,
        Operand {
            value: 2,
            space: Space::Const
        }
    );
    assert_eq!(
        (s.dest, s.mem_type, s.pred_reg, s.pred_cond),
        (reg(5), 0b011, 0, 13)
    );
    // GLD.U32 R1, global14[R0] and GST.U32 global14[R0], R1
    // (VectorAdd_float, words 10 and 16): the store's address in 15..9.
    let s = stage(0xd00e_0005, Some(0x80c0_0780));
    assert_eq!((s.operation, s.mov_size), (Operation::LoadGlobal, 0b110));
    assert_eq!(
        s.src1,
        Operand {
            value: 0,
            space: Space::Global
        }
    );
    assert_eq!(s.dest, reg(1));
    let s = stage(0xd00e_0005, Some(0xa0c0_0781));
    assert_eq!(
        (s.operation, s.marker),
        (Operation::StoreGlobal, Marker::End)
    );
    assert_eq!(
        s.dest,
        Operand {
            value: 0,
            space: Space::Global
        }
    );
    assert_eq!(s.src1, reg(1));
    // R2G.U32.U32 g[A1+0xc], R11 (MxM_optimized_Float, word 88).
    let s = stage(0x0400_1801, Some(0xe422_c780));
    assert_eq!((s.operation, s.addr_reg), (Operation::StoreShared, 1));
    assert_eq!(
        (s.dest.value, s.dest.space, s.src3.value),
        (0xc, Space::Shared, 11)
    );
    // R2A A1, R10, 0x2 and ADA A4, A3, 0x80 (MxM_optimized_Float).
    let s = stage(0x0002_1405, Some(0xc000_0780));
    assert_eq!(s.operation, Operation::LoadAddress);
    assert_eq!((s.dest.value, s.src1.value, s.src2.value), (1, 10, 2));
    let s = stage(0xdc01_0011, Some(0x2000_0780));
    assert_eq!(s.operation, Operation::AddAddress);
    assert_eq!((s.dest.value, s.src1.value, s.src2.value), (4, 3, 0x80));
}

#[test]
fn integer_operations_and_their_operand_forms() {
    // IADD R6, R12, R13 (FFT, word 172): source 2 in 52..46.
    let s = stage(0x2000_1819, Some(0x0403_4780));
    assert_eq!((s.class, s.operation), (Class::Alu, Operation::Iadd));
    assert_eq!(
        (s.src1, s.src2, s.dest, s.w32),
        (reg(12), reg(13), reg(6), true)
    );
    // IADD R11, -R11, R10 (Reduction, word 102): opcode 0011 without
    // carry is ISUB.
    assert_eq!(
        stage(0x3000_162d, Some(0x0402_8780)).operation,
        Operation::Isub
    );
    // IADD.CARRY1 R3, R1, R124 (edge, word 544): FlexGripPlus takes
    // source 2 from 22..16 (0x40), an immediate by bit 52.
    let s = stage(0x3040_020d, Some(0x041f_1780));
    assert_eq!(
        (s.operation, s.carry, s.src2.value, s.addr_imm),
        (Operation::Iaddc, true, 0x40, true)
    );
    // IADD32 R0, g [0x4], R2 (VectorAdd_float, word 8): a 32-bit word.
    let s = stage(0x2102_e800, None);
    assert_eq!((s.marker, s.operation), (Marker::Half, Operation::Iadd));
    assert_eq!(
        s.src1,
        Operand {
            value: 4,
            space: Space::Shared
        }
    );
    assert_eq!(
        (s.shared_type, s.src2, s.dest, s.w32),
        (0b11, reg(2), reg(0), true)
    );
    // IMAD.U16 R0, g [0x6].U16, R0H, R1 (VectorAdd_float, word 4).
    let s = stage(0x6001_4c01, Some(0x0020_4780));
    assert_eq!((s.operation, s.subop), (Operation::Imad24, 0));
    assert_eq!(
        s.src1,
        Operand {
            value: 6,
            space: Space::Shared
        }
    );
    assert_eq!((s.src2, s.src3, s.dest), (reg(1), reg(1), reg(0)));
    // ISET.S32.C0 o [0x7f], R2, R124, GT (FFT, word 12).
    let s = stage(0x307c_05fd, Some(0x6c01_07c8));
    assert_eq!(s.operation, Operation::Set);
    assert_eq!((s.dest, s.src1, s.src2), (reg(0x7f), reg(2), reg(124)));
    assert_eq!(
        (s.write_pred, s.set_pred_reg, s.signed, s.w32, s.compare),
        (true, 0, true, true, 4)
    );
    // SHL R2, R0, 0x2 (VectorAdd_float, word 6): an immediate by bit 52.
    let s = stage(0x3002_0009, Some(0xc410_0780));
    assert_eq!(
        (s.operation, s.src2.value, s.addr_imm, s.w32),
        (Operation::Shl, 2, true, true)
    );
    // LOP.PASS_B R0 (C0.EQU), R0, ~R3 (Reduction): NEG_OP, guarded by EQU.
    let s = stage(0xd003_0001, Some(0x0402_c500));
    assert_eq!((s.operation, s.pred_cond), (Operation::Neg, 10));
    // I2I.S32.S32 R8, -R0 (Reduction, word 120): sub-opcode 001 negates.
    let s = stage(0xa000_0021, Some(0x2c01_4780));
    assert_eq!(
        (s.operation, s.subop, s.cvt_neg, s.cvt_type),
        (Operation::Cvt, 1, true, 0b101)
    );
}

#[test]
fn floating_point_the_sfu_and_flow() {
    // FMUL R1 (C0.NEU), R1, c[0x1][0x1]: source 2 constant by bit 54.
    let s = stage(0xc081_0205, Some(0x0040_0680));
    assert_eq!((s.operation, s.pred_cond), (Operation::Fmul, 13));
    assert_eq!(
        s.src2,
        Operand {
            value: 1,
            space: Space::Const
        }
    );
    // FMAD R0, R8, R7, R0: source 1 in 14..9, source 3 in 51..46.
    let s = stage(0xe007_1001, Some(0x0000_0780));
    assert_eq!(
        (s.operation, s.src1, s.src2, s.src3),
        (Operation::Fmad, reg(8), reg(7), reg(0))
    );
    // RCP32 R3, R3: a 32-bit word reading source 1 from 15..9.
    let s = stage(0x9000_060c, None);
    assert_eq!(
        (s.operation, s.src1, s.dest),
        (Operation::Rcp, reg(3), reg(3))
    );
    assert_eq!(
        stage(0x9000_0405, Some(0xa000_0780)).operation,
        Operation::Cos
    );
    assert_eq!(
        stage(0x9000_0001, Some(0x4000_0780)).operation,
        Operation::Rsq
    );
    assert_eq!(
        stage(0xb000_0009, Some(0xc000_0780)).operation,
        Operation::RroSin
    );
    // BRA C0.NE, 0x50 (FFT, word 6): a byte target in 27..9.
    let s = stage(0x1000_a003, Some(0x0000_0280));
    assert_eq!(
        (s.class, s.operation, s.target, s.pred_cond),
        (Class::Flow, Operation::Branch, 0x50, 5)
    );
    assert_eq!(stage(0xa00a_1003, Some(0)).operation, Operation::Sync);
    assert_eq!(stage(0xa00a_1003, Some(0)).target, 0x508);
    assert_eq!(stage(0x2001_e003, Some(0)).operation, Operation::Call);
    assert_eq!(stage(0x861f_fe03, Some(0)).operation, Operation::Barrier);
    assert_eq!(
        stage(0x3000_0003, Some(0x0000_0780)).operation,
        Operation::Return
    );
    // NOP.S: the join marker.
    let s = stage(0xf000_0001, Some(0xe000_0002));
    assert_eq!(
        (s.class, s.operation, s.marker),
        (Class::Nop, Operation::Nop, Marker::Join)
    );
}

#[test]
fn words_without_an_operation_say_why() {
    use Unknown::*;
    // Opcode 0111 without the flow bit: PMEVENT's space, no class.
    assert_eq!(
        stage(0x7000_0000, None).operation,
        Operation::Unknown(NoClass)
    );
    assert_eq!(
        stage(0x6000_0002, None).operation,
        Operation::Unknown(NoFlowOperation)
    );
    assert_eq!(
        stage(0x3000_0001, Some(0x2000_0000)).operation,
        Operation::Unknown(NoAluOperation)
    );
    assert_eq!(
        stage(0x0000_0001, Some(0)).operation,
        Operation::Unknown(NoMove)
    );
    for why in [NoClass, NoMove, NoAluOperation, NoFlowOperation] {
        assert!(why.reason().contains("FlexGripPlus' decode stage"));
    }
}
