use super::*;

/// Appendix A of the thesis, reconstructed from the OCR'd listing:
/// each comment belongs to the instruction starting at that word.
pub(crate) const APPENDIX_A: [u32; 42] = [
    // 0-15: PMEVENT CNT0..CNT15, CNT
    0x70000800, 0x70002800, 0x70004800, 0x70006800, 0x70008800, 0x7000a800, 0x7000c800, 0x7000e800,
    0x70010800, 0x70012800, 0x70014800, 0x70016800, 0x70018800, 0x7001a800, 0x7001c800,
    0x7001e800, //
    0x10004205, 0x0023c780, // 16: MOV.U16 R0H, g[0x1].U16
    0xa0000005, 0x04000780, // 18: I2I.U32.U16 R1, R0L
    0x60014c01, 0x00204780, // 20: IMAD.U16 R0, g[0x6].U16, R0H, R1
    0x30020009, 0xc4100780, // 22: SHL R2, R0, 0x2
    0x2102e800, // 24: IADD32 R0, g[0x4], R2
    0x2102ea0c, // 25: IADD32 R3, g[0x5], R2
    0xd00e0005, 0x80c00780, // 26: GLD.U32 R1, global14[R0]
    0xd00e0601, 0x80c00780, // 28: GLD.U32 R0, global14[R3]
    0x20008204, // 30: IADD32 R1, R1, R0
    0x2102ec00, // 31: IADD32 R0, g[0x6], R2
    0xd00e0005, 0xa0c00781, // 32: GST.U32 global14[R0], R1
    0x70001814, // 34: PMEVENT CNT0, R5, IDL
    0x70003804, // 35: PMEVENT CNT1, R1, IDL
    0x70005808, // 36: PMEVENT CNT2, R2, IDL
    0x7001980c, // 37: PMEVENT CNT12, R3, IDL
    0x70009810, // 38: PMEVENT CNT4, R4, IDL
    0x70015000, // 39: PMEVENT CNT10, RST
    0x30000003, 0x00000780, // 40: RET
];

fn appendix_path() -> String {
    format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn assemble_appendix() -> Program {
    assemble_file(Path::new(&appendix_path())).expect("appendix_a.sass assembles")
}

fn asm(source: &str) -> Result<Vec<u32>, AsmError> {
    assemble(source, "test.sass").map(|program| program.values())
}

fn asm_err(source: &str) -> AsmError {
    assemble(source, "test.sass").expect_err("should not assemble")
}

#[test]
fn appendix_a_assembles_to_the_thesis_words() {
    let program = assemble_appendix();
    assert_eq!(program.values(), APPENDIX_A);
    // 16 + 11 kernel instructions + 6 + RET, 64-bit ones counted once.
    let instructions = program
        .words
        .iter()
        .filter(|w| w.role != WordRole::LongHigh)
        .count();
    assert_eq!(instructions, 34);
    let mov = &program.words[16];
    assert_eq!(mov.role, WordRole::LongLow);
    assert_eq!(mov.comment.as_deref(), Some("MOV.U16 R0H, g[0x1].U16"));
    assert_eq!(program.words[17].role, WordRole::LongHigh);
    assert_eq!(program.words[24].role, WordRole::Single);
}

#[test]
fn mnemonics_and_labels_assemble() {
    let source = "IADD32I R1, R60, 3   # N\nloop: IADD32I R1, R1, -1\n  ISET.S32.C0 R127, R1, R124, NE\n  @C0.NE BRA loop\nSSY end\nend:\nNOP.JOIN\nRET";
    let program = assemble(source, "k.sass").unwrap();
    let values = program.values();
    assert_eq!(values.len(), 14);
    let listing: Vec<String> = crate::g80::decode_program(&values)
        .unwrap()
        .iter()
        .map(|d| d.instruction.to_string())
        .collect();
    assert_eq!(
        listing,
        [
            "IADD32I R1, R60, 0x3",
            "IADD32I R1, R1, 0xffffffff",
            "ISET.S32.C0 R127, R1, R124, NE",
            "@C0.NE BRA 0x8",
            "SSY 0x28",
            "NOP.JOIN",
            "RET"
        ]
    );
    assert_eq!(
        program.words[0].label().as_deref(),
        Some("IADD32I R1, R60, 0x3; N")
    );
    let err = asm_err("a: NOP\na: NOP");
    assert_eq!(err.to_string(), "test.sass:2: label `a` is defined twice");
    let err = asm_err("BRA b");
    assert_eq!(
        err.to_string(),
        "test.sass:1: expected a label defined in this file, found `b`"
    );
}

#[test]
fn pmevent_syntax_is_flexible() {
    let source = "\
        pmevent cnt3, cnt\n\
        \tPMEVENT   CNT15 ,RST   // reset\n\
        PMEVENT CNT0, R5, IDL;   # thesis style\n\
        PmEvent Cnt12,r3,Idl\n\
        PMEVENT CNT7, NOP\n";
    assert_eq!(
        asm(source).unwrap(),
        [0x70006800, 0x7001f000, 0x70001814, 0x7001980c, 0x7000e000]
    );
}

#[test]
fn comments_and_labels() {
    let program = assemble(
        "# header\n\n0x2102e800 # IADD32 R0, g[0x4], R2\nPMEVENT CNT1, CNT # start\n0x70000800\n",
        "t.sass",
    )
    .unwrap();
    assert_eq!(program.words.len(), 3);
    assert_eq!(program.words[0].line, 3);
    assert_eq!(
        program.words[0].comment.as_deref(),
        Some("IADD32 R0, g[0x4], R2")
    );
    assert_eq!(
        program.words[1].label().as_deref(),
        Some("PMEVENT CNT1, CNT; start")
    );
    // A raw word that is a PMEVENT is labelled with its mnemonic.
    assert_eq!(
        program.words[2].label().as_deref(),
        Some("PMEVENT CNT0, CNT")
    );
}

#[test]
fn errors_carry_file_and_line() {
    let err = asm_err("PMEVENT CNT0, CNT\n\nFOO R1, R2\n");
    assert!(matches!(&err, AsmError::UnknownMnemonic { at, found }
        if at.line == 3 && at.file == "test.sass" && found == "FOO"));
    assert!(err
        .to_string()
        .starts_with("test.sass:3: unknown mnemonic `FOO`"));
}

#[test]
fn operand_errors() {
    assert!(matches!(asm_err("PMEVENT CNT16, CNT"),
        AsmError::CounterOutOfRange { found, .. } if found == "CNT16"));
    assert!(matches!(
        asm_err("PMEVENT CNT99999999999999999999999, CNT"),
        AsmError::CounterOutOfRange { .. }
    ));
    assert!(matches!(asm_err("PMEVENT CNT0, R128, IDL"),
        AsmError::RegisterOutOfRange { found, .. } if found == "R128"));
    assert!(matches!(
        asm_err("PMEVENT CNT0, IDL"),
        AsmError::MissingRegister { .. }
    ));
    assert!(matches!(
        asm_err("PMEVENT CNT0, R5, CNT"),
        AsmError::RegisterNotAllowed {
            command: PmuCommand::Cnt,
            register: 5,
            ..
        }
    ));
    assert!(matches!(
        asm_err("PMEVENT CNT0, R5, RST"),
        AsmError::RegisterNotAllowed {
            command: PmuCommand::Rst,
            ..
        }
    ));
    for bad in [
        "PMEVENT",
        "PMEVENT CNT0",
        "PMEVENT CNT0 CNT",
        "PMEVENT CNT0, GO",
        "PMEVENT CNT0, R5",
        "PMEVENT CNTx, CNT",
        "PMEVENT CNT0, RX, IDL",
        "PMEVENT CNT0, R1, IDL, X",
        "PMEVENT CNT0,, CNT",
        "PMEVENT CNT-1, CNT",
        "PMEVENT R0, CNT",
    ] {
        let err = asm_err(bad);
        assert!(matches!(err, AsmError::Syntax { .. }), "{bad}: {err}");
    }
    let err = asm_err("PMEVENT CNT0, R5");
    assert!(err.to_string().contains("`, IDL`"), "{err}");
}

#[test]
fn selectors() {
    let words =
        asm("PMEVENT CNT3, CNT, SEL2\npmevent cnt15 , rst , sel7\nPMEVENT CNT1, CNT, SEL0\n")
            .unwrap();
    assert_eq!(words, [0x7004_6800, 0x700f_f000, 0x7000_2800]);
    let err = asm_err("PMEVENT CNT0, CNT\nPMEVENT CNT0, CNT, SEL8");
    assert!(
        matches!(&err, AsmError::SelectorOutOfRange { at, found } if at.line == 2 && found == "SEL8")
    );
    assert!(
        err.to_string()
            .starts_with("test.sass:2: selector `SEL8` is out of range"),
        "{err}"
    );
    assert!(matches!(
        asm_err("PMEVENT CNT0, CNT, SELx"),
        AsmError::SelectorOutOfRange { .. }
    ));
    assert!(matches!(
        asm_err("PMEVENT CNT0, IDL, SEL1"),
        AsmError::SelectorNotAllowed {
            command: PmuCommand::Idl,
            ..
        }
    ));
    assert!(matches!(
        asm_err("PMEVENT CNT0, NOP, SEL1"),
        AsmError::SelectorNotAllowed {
            command: PmuCommand::Nop,
            ..
        }
    ));
    assert!(matches!(
        asm_err("PMEVENT CNT0, R1, SEL1"),
        AsmError::Syntax { .. }
    ));
}

#[test]
fn raw_words() {
    assert_eq!(
        asm("0x2102E800\n0X10004205 0x0023c780").unwrap(),
        [0x2102e800, 0x10004205, 0x0023c780]
    );
    // Opcode 7 with bit 1 set is flow control, not PMEVENT space.
    assert_eq!(asm("0x70000002").unwrap(), [0x70000002]);
    for bad in [
        "0x123",
        "0x7000080",
        "0x700008000",
        "0xg0000800",
        "0x",
        "0x10004205 0x23c780",
        "0x10004205 zz",
    ] {
        assert!(
            matches!(asm_err(bad), AsmError::MalformedHex { .. }),
            "{bad}"
        );
    }
    // Without 0x a word is not recognised (`a0000005` looks like a name).
    assert!(matches!(
        asm_err("70000800"),
        AsmError::UnknownMnemonic { .. }
    ));
    assert!(matches!(asm_err("0x1 0x2 0x3"), AsmError::Syntax { .. }));
}

#[test]
fn pairing_mismatch() {
    assert!(matches!(
        asm_err("0x10004205  # MOV"),
        AsmError::MissingHighWord {
            low: 0x10004205,
            ..
        }
    ));
    let err = asm_err("0x2102e800 0x00000780");
    assert!(matches!(
        err,
        AsmError::UnexpectedHighWord {
            low: 0x2102e800,
            high: 0x780,
            ..
        }
    ));
}

#[test]
fn raw_pmevent_space_is_checked() {
    let err = asm_err("\n0x70100800 # PMEVENT CNT0, CNT");
    assert!(matches!(
        &err,
        AsmError::InvalidPmeventWord {
            at,
            source: IsaError::ReservedBits { bits: 0x100000, .. }
        } if at.line == 2
    ));
    assert!(err.to_string().contains("bit(s) 20 set"), "{err}");
    assert!(matches!(
        asm_err("0x70000814"),
        AsmError::InvalidPmeventWord {
            source: IsaError::RegisterNotAllowed { .. },
            ..
        }
    ));
    // A 64-bit word pair in the PMEVENT space is unassigned.
    assert!(matches!(
        asm_err("0x70000801 0x00000780"),
        AsmError::InvalidPmeventWord {
            source: IsaError::LongInstructionBit(_),
            ..
        }
    ));
}

/// A label is held to the branch target field's reach as a literal is:
/// one past it would wrap around to another address.
#[test]
fn labels_beyond_a_branch_reach_are_refused_like_literals() {
    let words = crate::g80::parse::BRANCH_WORDS;
    // `far` sits exactly at the first word no branch reaches (BRA and
    // NOP are two words each).
    let padding = "NOP\n".repeat(words / 2 - 1);
    let source = format!("BRA far\n{padding}far:\n");
    let err = asm_err(&source);
    assert!(
        err.to_string()
            .contains("a label at a word address a branch can reach"),
        "{err}"
    );
    assert!(matches!(&err, AsmError::Syntax { at, .. } if at.line == 1));
    // The same target as a literal is refused too.
    let err = asm_err(&format!("BRA 0x{:x}\nRET\n", 4 * words));
    assert!(err.to_string().contains("below 0x80000"), "{err}");
    // One word less reaches: both assemble to the same target.
    let near = format!("BRA near\n{}near:\nRET\n", "NOP\n".repeat(words / 2 - 2));
    let program = assemble(&near, "near.sass").unwrap();
    let literal = assemble(&format!("BRA 0x{:x}", 4 * (words - 2)), "l.sass").unwrap();
    assert_eq!(program.values()[..2], literal.values()[..2]);
}

/// A program longer than a branch can address is refused at the line
/// that passes the limit.
#[test]
fn a_program_past_the_branch_reach_is_refused_at_its_line() {
    let words = crate::g80::parse::BRANCH_WORDS;
    let source = "NOP\n".repeat(words / 2 + 1);
    let err = asm_err(&source);
    assert!(
        matches!(&err, AsmError::TooLong { at, words: w } if at.line == words / 2 + 1 && *w == words + 2),
        "{err}"
    );
    assert!(
        err.to_string().contains("a branch reaches at most"),
        "{err}"
    );
    assert!(assemble(&"NOP\n".repeat(words / 2), "ok.sass").is_ok());
}
