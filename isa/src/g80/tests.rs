use super::decode::field;
use super::fields::{MARKER, MOV_SHARED_OFFSET};
use super::*;
use crate::asm::{assemble_file, WordRole};
use crate::pmevent::IsaError;
use crate::pmevent::PmuCommand;
use crate::word::bit_list;
use std::path::Path;

fn appendix() -> crate::asm::Program {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    assemble_file(Path::new(&path)).expect("appendix_a.sass assembles")
}

fn show(words: &[u32]) -> (String, usize) {
    let (instruction, used) = decode(words, 0).unwrap_or_else(|err| panic!("{err}"));
    (instruction.to_string(), used)
}

/// The brief's table: words, mnemonic.
const TABLE: [(&[u32], &str); 14] = [
    (&[0x1000_4205, 0x0023_c780], "MOV.U16 R0H, g[0x1].U16"),
    (&[0xa000_0005, 0x0400_0780], "I2I.U32.U16 R1, R0L"),
    (
        &[0x6001_4c01, 0x0020_4780],
        "IMAD.U16 R0, g[0x6].U16, R0H, R1",
    ),
    (&[0x3002_0009, 0xc410_0780], "SHL R2, R0, 0x2"),
    (&[0x2102_e800], "IADD32 R0, g[0x4], R2"),
    (&[0x2102_ea0c], "IADD32 R3, g[0x5], R2"),
    (&[0xd00e_0005, 0x80c0_0780], "GLD.U32 R1, global14[R0]"),
    (&[0xd00e_0601, 0x80c0_0780], "GLD.U32 R0, global14[R3]"),
    (&[0x2000_8204], "IADD32 R1, R1, R0"),
    (&[0x2102_ec00], "IADD32 R0, g[0x6], R2"),
    (&[0xd00e_0005, 0xa0c0_0781], "GST.U32 global14[R0], R1"),
    (&[0x3000_0003, 0x0000_0780], "RET"),
    (&[0xf000_0001, 0xe000_0001], "NOP"),
    (&[0x7001_980c], "PMEVENT CNT12, R3, IDL"),
];

#[test]
fn brief_table_decodes_and_prints() {
    for (words, text) in TABLE {
        assert_eq!(show(words), (text.to_string(), words.len()), "{words:08x?}");
    }
}

#[test]
fn every_appendix_instruction_prints_its_listing_mnemonic() {
    let program = appendix();
    let values = program.values();
    assert_eq!(values.len(), 42);
    let mut checked = 0;
    for (address, word) in program.words.iter().enumerate() {
        if word.role == WordRole::LongHigh {
            continue;
        }
        let (instruction, used) = decode(&values, address).unwrap_or_else(|err| panic!("{err}"));
        let expected = word
            .label()
            .expect("every appendix instruction has a mnemonic");
        assert_eq!(instruction.to_string(), expected, "address {address}");
        assert_eq!(used, if word.role == WordRole::LongLow { 2 } else { 1 });
        checked += 1;
    }
    assert_eq!(checked, 34);
}

#[test]
fn appendix_program_walks_42_words_into_34_instructions() {
    let values = appendix().values();
    let program = decode_program(&values).unwrap();
    assert_eq!(program.iter().map(|d| d.words).sum::<usize>(), 42);
    // 16 activations + 11 kernel instructions + 6 read/reset PMEVENTs
    // + RET.
    assert_eq!(program.len(), 34);
    let pmevents = program
        .iter()
        .filter(|d| matches!(d.instruction, Instruction::Pmevent(_)))
        .count();
    assert_eq!(pmevents, 22);
    let last = program.last().unwrap();
    assert_eq!(
        (last.address, last.words, last.instruction),
        (40, 2, Instruction::Ret)
    );
    // Addresses are contiguous.
    let mut next = 0;
    for d in &program {
        assert_eq!(d.address, next);
        next += d.words;
    }
    // The reads land where the listing says.
    let reads: Vec<(u8, u8)> = program
        .iter()
        .filter_map(|d| match d.instruction {
            Instruction::Pmevent(event) if event.command == PmuCommand::Idl => {
                Some((event.counter, event.dest.unwrap()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(reads, [(0, 5), (1, 1), (2, 2), (12, 3), (4, 4)]);
}

#[test]
fn fields_have_their_roles() {
    let kernel: Vec<Instruction> = TABLE[..11]
        .iter()
        .map(|(words, _)| decode(words, 0).unwrap().0)
        .collect();
    assert_eq!(
        kernel[0],
        Instruction::MovU16 {
            dst: HalfReg(1),
            src: Shared16 { offset: 1 }
        }
    );
    assert_eq!(
        kernel[1],
        Instruction::I2iU32U16 {
            dst: Reg(1),
            src: HalfReg(0)
        }
    );
    assert_eq!(
        kernel[2],
        Instruction::ImadU16 {
            dst: Reg(0),
            a: Shared16 { offset: 6 },
            b: HalfReg(1),
            c: Reg(1)
        }
    );
    assert_eq!(
        kernel[3],
        Instruction::Shl {
            dst: Reg(2),
            src: Reg(0),
            shift: 2
        }
    );
    assert_eq!(
        kernel[4],
        Instruction::Iadd32 {
            dst: Reg(0),
            a: Src32::Shared(Shared32 { offset: 4 }),
            b: Reg(2)
        }
    );
    assert_eq!(
        kernel[7],
        Instruction::GldU32 {
            dst: Reg(0),
            addr: Reg(3)
        }
    );
    assert_eq!(
        kernel[8],
        Instruction::Iadd32 {
            dst: Reg(1),
            a: Src32::Reg(Reg(1)),
            b: Reg(0)
        }
    );
    assert_eq!(
        kernel[10],
        Instruction::GstU32 {
            addr: Reg(0),
            src: Reg(1)
        }
    );
    assert_eq!(Shared16 { offset: 6 }.byte_address(), 12);
    assert_eq!(Shared32 { offset: 6 }.byte_address(), 24);
    assert_eq!(HalfReg(7).register(), Reg(3));
    assert!(HalfReg(7).is_high());
}

#[test]
fn encoders_reproduce_the_appendix_words() {
    assert_eq!(encode::mov_u16(1, 1), [0x1000_4205, 0x0023_c780]);
    assert_eq!(encode::i2i_u32_u16(1, 0), [0xa000_0005, 0x0400_0780]);
    assert_eq!(encode::imad_u16(0, 6, 1, 1), [0x6001_4c01, 0x0020_4780]);
    assert_eq!(encode::shl(2, 0, 2), [0x3002_0009, 0xc410_0780]);
    assert_eq!(encode::iadd32_g(0, 4, 2), 0x2102_e800);
    assert_eq!(encode::iadd32_g(3, 5, 2), 0x2102_ea0c);
    assert_eq!(encode::iadd32_rr(1, 1, 0), 0x2000_8204);
    assert_eq!(encode::gld_u32(1, 0), [0xd00e_0005, 0x80c0_0780]);
    assert_eq!(encode::gld_u32(0, 3), [0xd00e_0601, 0x80c0_0780]);
    assert_eq!(encode::gst_u32(0, 1), [0xd00e_0005, 0xa0c0_0781]);
}

#[test]
fn other_operands_decode() {
    for (words, text) in [
        (encode::mov_u16(6, 2).to_vec(), "MOV.U16 R3L, g[0x2].U16"),
        (
            encode::mov_u16(127, 31).to_vec(),
            "MOV.U16 R63H, g[0x1f].U16",
        ),
        (encode::i2i_u32_u16(9, 5).to_vec(), "I2I.U32.U16 R9, R2H"),
        (
            encode::imad_u16(7, 15, 4, 127).to_vec(),
            "IMAD.U16 R7, g[0xf].U16, R2L, R127",
        ),
        (encode::shl(127, 124, 0x1f).to_vec(), "SHL R127, R124, 0x1f"),
        (vec![encode::iadd32_rr(5, 3, 7)], "IADD32 R5, R3, R7"),
        (vec![encode::iadd32_rr(63, 63, 63)], "IADD32 R63, R63, R63"),
        (vec![encode::iadd32_g(9, 15, 10)], "IADD32 R9, g[0xf], R10"),
        (encode::gld_u32(9, 4).to_vec(), "GLD.U32 R9, global14[R4]"),
        (
            encode::gst_u32(8, 126).to_vec(),
            "GST.U32 global14[R8], R126",
        ),
        (vec![0xf000_0000], "NOP"),
        (vec![0x7000_1000], "PMEVENT CNT0, RST"),
    ] {
        assert_eq!(show(&words), (text.to_string(), words.len()));
    }
    // The end marker is accepted (and ignored) on any 64-bit form; the
    // normal marker on GST too.
    let gld_end = [0xd00e_0005, 0x80c0_0781];
    assert_eq!(show(&gld_end).0, "GLD.U32 R1, global14[R0]");
    let gst_normal = [0xd00e_0005, 0xa0c0_0780];
    assert_eq!(show(&gst_normal).0, "GST.U32 global14[R0], R1");
    assert_eq!(show(&[0x3000_0003, 0x0000_0781]).0, "RET");
}

fn unsupported(words: &[u32], address: usize) -> (Unsupported, String) {
    let err = decode(words, address).unwrap_err();
    let text = err.to_string();
    match err {
        G80Error::Unsupported {
            address: at,
            words: shown,
            reason,
        } => {
            assert_eq!(at, address);
            let expected = match words.get(address + 1) {
                Some(&high) if words[address] & 1 != 0 => Words::Long(words[address], high),
                _ => Words::Short(words[address]),
            };
            assert_eq!(shown, expected);
            (reason, text)
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn unknown_words_are_refused_with_address_and_words() {
    // IMUL (opcode 4), 32-bit.
    let (reason, text) = unsupported(&[0x4000_0000], 0);
    assert_eq!(
        reason,
        Unsupported::Opcode {
            opcode: 4,
            subop: None,
            flow: false
        }
    );
    assert!(
        text.starts_with("address 0: 0x40000000 is not a supported"),
        "{text}"
    );

    // After a 64-bit RET, at address 2: MOV with subop 1 (MVC).
    let words = [0x3000_0003, 0x0000_0780, 0x1000_4205, 0x2023_c780];
    let (reason, text) = unsupported(&words, 2);
    assert_eq!(
        reason,
        Unsupported::Opcode {
            opcode: 1,
            subop: Some(1),
            flow: false
        }
    );
    assert!(text.contains("address 2: 0x10004205 0x2023c780"), "{text}");
    assert!(text.contains("subop 1"), "{text}");

    // A PREBREAK (flow opcode 4).
    let (reason, _) = unsupported(&[0x4000_0003, 0x0000_0780], 0);
    assert_eq!(
        reason,
        Unsupported::Opcode {
            opcode: 4,
            subop: Some(0),
            flow: true
        }
    );
    // A 32-bit flow word.
    let (reason, _) = unsupported(&[0x3000_0002], 0);
    assert!(matches!(reason, Unsupported::Opcode { flow: true, .. }));
}

#[test]
fn variants_of_supported_instructions_are_refused() {
    // A predicated RET (condition 0b01110 instead of always).
    let (reason, text) = unsupported(&[0x3000_0003, 0x0000_0700], 0);
    assert_eq!(
        reason,
        Unsupported::Bits {
            form: "RET",
            bits: 1 << 39
        }
    );
    assert!(text.contains("bit(s) 39 differ"), "{text}");
    // IADD32 with bit 22 (negate the second operand) set.
    let (reason, _) = unsupported(&[0x2000_8204 | (1 << 22)], 0);
    assert_eq!(
        reason,
        Unsupported::Bits {
            form: "IADD32 Rd, a, Rb",
            bits: 1 << 22
        }
    );
    // 16-bit IADD (w32 clear).
    let (reason, _) = unsupported(&[0x2000_0204], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 15));
    // IADD32 with a g[] operand of type U16.
    let (reason, text) = unsupported(&[0x2102_a800], 0);
    assert_eq!(
        reason,
        Unsupported::SharedType {
            form: "IADD32 Rd, a, Rb",
            expected: 3,
            found: 1
        }
    );
    assert!(
        text.contains("takes a .U32 g[] operand, not .U16"),
        "{text}"
    );
    // MOV.U16 from a U32 g[] operand.
    let (reason, _) = unsupported(&[0x1000_c205, 0x0023_c780], 0);
    assert_eq!(
        reason,
        Unsupported::SharedType {
            form: "MOV.U16 Rh, g[n].U16",
            expected: 1,
            found: 3
        }
    );
    // MOV.U16 from a register (bit 53 clear).
    let (reason, _) = unsupported(&[0x1000_4205, 0x0003_c780], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 53));
    // SHL with a register second operand (bit 52 clear), and signed SHL.
    let (reason, _) = unsupported(&[0x3002_0009, 0xc400_0780], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 52));
    let (reason, _) = unsupported(&[0x3002_0009, 0xcc10_0780], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 59));
    // GLD.U16 (mov_size 010).
    let (reason, _) = unsupported(&[0xd00e_0005, 0x8040_0780], 0);
    assert!(matches!(
        reason,
        Unsupported::Bits {
            form: "GLD.U32 Rd, global14[Ra]",
            ..
        }
    ));
    // GLD with an address register (bits 27-26).
    let (reason, _) = unsupported(&[0xd40e_0005, 0x80c0_0780], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 26));
    // IMAD with bit 13 set: FlexGripPlus would drop it from the offset.
    let (reason, _) = unsupported(&[0x6001_6c01, 0x0020_4780], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 13));
    // Join and immediate markers.
    let (reason, text) = unsupported(&[0xd00e_0005, 0x80c0_0782], 0);
    assert_eq!(reason, Unsupported::Marker(Marker::Join));
    assert!(text.contains("join marker"), "{text}");
    let (reason, _) = unsupported(&[0x1000_4205, 0x0023_c783], 0);
    assert_eq!(reason, Unsupported::Marker(Marker::Immediate));
    // The immediate marker on another ALU form than IADD32I.
    let (reason, _) = unsupported(&[0x3002_0009, 0xc410_0783], 0);
    assert_eq!(reason, Unsupported::Marker(Marker::Immediate));
}

/// The control-flow forms: the documented words, every field, and
/// what they refuse.
#[test]
fn control_flow_decodes() {
    use encode::{bra, iadd32i, iset, ssy, NOP_JOIN};
    let ne = |cc| {
        Some(Predicate {
            cc,
            condition: BranchCondition::Ne,
        })
    };
    let iset_ne = iset(2, 1, 3, Compare(5), true, Some(0));
    assert_eq!(iset_ne, [0x3003_0209, 0x6c01_47c0]);
    assert_eq!(iadd32i(1, 1, 0xffff_ffff), [0x203f_8205, 0x0fff_ffff]);
    assert_eq!(bra(16, ne(0)), [0x1000_8003, 0x0000_0280]);
    assert_eq!(bra(16, None), [0x1000_8003, 0x0000_0780]);
    assert_eq!(ssy(16), [0xa000_8003, 0x0000_0780]);
    for (words, text) in [
        (iset_ne.to_vec(), "ISET.S32.C0 R2, R1, R3, NE"),
        (
            iset(127, 0, 124, Compare(1), false, None).to_vec(),
            "ISET.U32 R127, R0, R124, LT",
        ),
        (
            iset(5, 6, 7, Compare(6), true, Some(3)).to_vec(),
            "ISET.S32.C3 R5, R6, R7, GE",
        ),
        (
            iadd32i(1, 1, 0xffff_ffff).to_vec(),
            "IADD32I R1, R1, 0xffffffff",
        ),
        (
            iadd32i(127, 63, 0x8000_0040).to_vec(),
            "IADD32I R127, R63, 0x80000040",
        ),
        (bra(16, ne(0)).to_vec(), "@C0.NE BRA 0x40"),
        (
            bra(
                0x1_ffff,
                Some(Predicate {
                    cc: 2,
                    condition: BranchCondition::Eq,
                }),
            )
            .to_vec(),
            "@C2.EQ BRA 0x7fffc",
        ),
        (bra(3, None).to_vec(), "BRA 0xc"),
        (ssy(7).to_vec(), "SSY 0x1c"),
        (NOP_JOIN.to_vec(), "NOP.JOIN"),
    ] {
        assert_eq!(show(&words), (text.to_string(), 2), "{words:08x?}");
        // The encoder is the decoder's inverse.
        let (instruction, _) = decode(&words, 0).unwrap();
        assert_eq!(encode::instruction(&instruction), words);
    }
    assert_eq!(
        decode(&iadd32i(1, 1, 7), 0).unwrap().0,
        Instruction::Iadd32i {
            dst: Reg(1),
            a: Reg(1),
            imm: 7
        }
    );
    // A branch on a condition outside EQ/NE/always; an unaligned
    // target (bit 9); a predicated SSY; a negated immediate (bit 22);
    // a 16-bit ISET (w32 clear).
    let (reason, _) = unsupported(&[0x1000_2003, 0x0000_0080], 0);
    assert!(matches!(reason, Unsupported::Bits { form: "BRA target", bits } if bits == 0xe << 39));
    let (reason, _) = unsupported(&[0x1000_2203, 0x0000_0780], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 9));
    let (reason, _) = unsupported(&[0xa000_2003, 0x0000_0280], 0);
    assert!(matches!(
        reason,
        Unsupported::Bits {
            form: "SSY target",
            ..
        }
    ));
    let (reason, _) = unsupported(&[0x203f_8205 | 1 << 22, 0x0fff_ffff], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 22));
    let (reason, _) = unsupported(&[0x3003_0209, 0x6801_47c0], 0);
    assert!(matches!(reason, Unsupported::Bits { bits, .. } if bits == 1 << 58));
    // The condition-code helpers.
    assert!(Compare(5).holds(1, 2, false) && !Compare(5).holds(2, 2, true));
    assert!(Compare(1).holds(u32::MAX, 0, true) && !Compare(1).holds(u32::MAX, 0, false));
    assert!(BranchCondition::Ne.holds(flags::of_iset(true)));
    assert!(BranchCondition::Eq.holds(flags::of_iset(false)));
    assert!(!BranchCondition::Eq.holds(flags::of_iset(true)));
}

#[test]
fn malformed_programs_are_refused() {
    assert_eq!(
        decode(&[0x3000_0003], 0),
        Err(G80Error::Truncated {
            address: 0,
            low: 0x3000_0003
        })
    );
    let err = decode(&[0x2000_8204, 0x1000_4205], 1).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("address 1: 0x10004205 is the first word"),
        "{err}"
    );
    assert_eq!(
        decode(&[0x2000_8204], 1),
        Err(G80Error::OutOfRange { address: 1, len: 1 })
    );
    // A word in the PMEVENT space with bit 0 set.
    let err = decode(&[0x7000_0801, 0], 0).unwrap_err();
    assert!(matches!(
        err,
        G80Error::Pmevent {
            address: 0,
            word: 0x7000_0801,
            source: IsaError::LongInstructionBit(_)
        }
    ));
    assert!(err.to_string().contains("0x70000801"), "{err}");
    let err = decode_program(&[0x2000_8204, 0x4000_0000]).unwrap_err();
    assert!(
        err.to_string().starts_with("address 1: 0x40000000"),
        "{err}"
    );
}

#[test]
fn bit_lists() {
    assert_eq!(bit_list((1 << 52) | (1 << 25) | 1), "52, 25, 0");
    assert_eq!(MARKER.mask(), 0x3_0000_0000);
    assert_eq!(field(0x0023_c780_1000_4205, MOV_SHARED_OFFSET), 1);
}
