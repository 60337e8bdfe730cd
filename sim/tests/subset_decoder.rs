//! The synthesizable G80 subset decoder agrees with the reference decoder
//! (`flexpmu_isa::g80`) on the appendix-A program and on random words.

use flexpmu_hdl::sm::subset_decoder::{op, SubsetDecoder};
use flexpmu_isa::g80::{self, Instruction, Src32};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// What the hardware outputs, for the fields an instruction uses.
#[derive(Debug, PartialEq, Eq)]
struct Fields {
    op: u64,
    dest: Option<u64>,
    src1: Option<u64>,
    src2: Option<u64>,
    src3: Option<u64>,
    shared: Option<(bool, u64)>,
}

fn expected(instruction: &Instruction) -> Fields {
    let f = |op| Fields {
        op,
        dest: None,
        src1: None,
        src2: None,
        src3: None,
        shared: None,
    };
    match *instruction {
        Instruction::MovU16 { dst, src } => Fields {
            dest: Some(dst.0 as u64),
            shared: Some((true, src.offset as u64)),
            ..f(op::MOV_U16)
        },
        Instruction::I2iU32U16 { dst, src } => Fields {
            dest: Some(dst.0 as u64),
            src1: Some(src.0 as u64),
            ..f(op::I2I_U32_U16)
        },
        Instruction::ImadU16 { dst, a, b, c } => Fields {
            dest: Some(dst.0 as u64),
            src2: Some(b.0 as u64),
            src3: Some(c.0 as u64),
            shared: Some((true, a.offset as u64)),
            ..f(op::IMAD_U16)
        },
        Instruction::Shl { dst, src, shift } => Fields {
            dest: Some(dst.0 as u64),
            src1: Some(src.0 as u64),
            src2: Some(shift as u64),
            ..f(op::SHL)
        },
        Instruction::Iadd32 { dst, a, b } => {
            let (src1, shared) = match a {
                Src32::Reg(r) => (Some(r.0 as u64), Some((false, 0))),
                Src32::Shared(s) => (None, Some((true, s.offset as u64))),
            };
            Fields {
                dest: Some(dst.0 as u64),
                src1,
                src2: Some(b.0 as u64),
                shared,
                ..f(op::IADD32)
            }
        }
        Instruction::GldU32 { dst, addr } => Fields {
            dest: Some(dst.0 as u64),
            src1: Some(addr.0 as u64),
            ..f(op::GLD_U32)
        },
        Instruction::GstU32 { addr, src } => Fields {
            dest: Some(src.0 as u64),
            src1: Some(addr.0 as u64),
            ..f(op::GST_U32)
        },
        Instruction::Iset { dst, a, b, .. } => Fields {
            dest: Some(dst.0 as u64),
            src1: Some(a.0 as u64),
            src2: Some(b.0 as u64),
            ..f(op::ISET)
        },
        Instruction::Iadd32i { dst, a, .. } => Fields {
            dest: Some(dst.0 as u64),
            src1: Some(a.0 as u64),
            ..f(op::IADD32I)
        },
        Instruction::Bra { .. } => f(op::BRA),
        Instruction::Ssy { .. } => f(op::SSY),
        Instruction::NopJoin => f(op::NOP_JOIN),
        Instruction::Ret => f(op::RET),
        Instruction::Nop => f(op::NOP),
        Instruction::Pmevent(_) => f(op::PMEVENT),
    }
}

/// The hardware's outputs, masked to the fields `like` uses.
fn hardware(uut: &mut SubsetDecoder, word: u64, like: &Fields) -> Fields {
    uut.word.next = word.into();
    assert!(simulate(uut, 100));
    let shared = like.shared.map(|(flag, _)| {
        let hw_flag = if like.op == op::IADD32 {
            uut.src1_shared.val()
        } else {
            true
        };
        let offset = if hw_flag {
            uut.shared_offset.val().to_u64()
        } else {
            0
        };
        let _ = flag;
        (hw_flag, offset)
    });
    Fields {
        op: uut.op.val().to_u64(),
        dest: like.dest.map(|_| uut.dest.val().to_u64()),
        src1: like.src1.map(|_| uut.src1.val().to_u64()),
        src2: like.src2.map(|_| uut.src2.val().to_u64()),
        src3: like.src3.map(|_| uut.src3.val().to_u64()),
        shared,
    }
}

/// Checks one word on a decoder built for `selectors` inputs per channel;
/// returns whether the reference decoder accepted it (a PMEVENT whose
/// selector has no input behind it is refused by the hardware only).
fn check(uut: &mut SubsetDecoder, selectors: u8, low: u32, high: u32) -> bool {
    let words = [low, high];
    let word = low as u64 | (high as u64) << 32;
    match g80::decode(&words, 0) {
        Ok((Instruction::Pmevent(event), _)) if event.selector >= selectors => {
            let got = hardware(uut, word, &expected(&Instruction::Nop)).op;
            assert_eq!(
                got,
                op::UNSUPPORTED,
                "{low:#010x}: {event} with {selectors} inputs"
            );
            false
        }
        Ok((instruction, _)) => {
            let want = expected(&instruction);
            assert_eq!(
                hardware(uut, word, &want),
                want,
                "{low:#010x} {high:#010x}: {instruction}"
            );
            true
        }
        Err(e) => {
            let got = hardware(uut, word, &expected(&Instruction::Nop)).op;
            assert_eq!(
                got,
                op::UNSUPPORTED,
                "{low:#010x} {high:#010x} ({e}) decoded as {got}"
            );
            false
        }
    }
}

#[test]
fn agrees_with_the_reference_decoder_on_appendix_a() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/appendix_a.sass");
    let words = flexpmu_isa::asm::assemble_file(&path).unwrap().values();
    let mut uut = SubsetDecoder::default();
    uut.connect_all();
    let mut address = 0;
    while address < words.len() {
        let (_, used) = g80::decode(&words, address).unwrap();
        let high = if used == 2 {
            words[address + 1]
        } else {
            0xdead_beef
        };
        assert!(check(&mut uut, 1, words[address], high));
        address += used;
    }
}

#[test]
fn agrees_with_the_reference_decoder_on_50000_random_words() {
    use flexpmu_hdl::sm::subset_decoder::LONG_FORMS;
    // Every form with random operand fields, sometimes one fixed bit
    // flipped, and fully random words.
    let mut forms: Vec<(u64, u64)> = LONG_FORMS
        .iter()
        .map(|(_, form)| (form.template, form.free_bits()))
        .collect();
    forms.push((g80::IADD32.template, g80::IADD32.free_bits()));
    forms.push((0xe000_0001_f000_0001, 0x0000_0003_0fff_fffc)); // NOP, NOP.JOIN
    forms.push((0x7000_0800, 0x0001_e000)); // PMEVENT CNTn, CNT
    forms.push((0x7000_1800, 0x0001_e1fc)); // PMEVENT CNTn, Rd, IDL
    forms.push((0x7000_0800, 0x000f_f800)); // PMEVENT CNTn, CNT|RST.., SELk
    let mut rng = SmallRng::seed_from_u64(9);
    // The thesis' decoder (no selectors) and one for eight inputs per
    // channel, which executes every selector the ISA has.
    let mut uuts = [(1, SubsetDecoder::new(1)), (8, SubsetDecoder::new(8))];
    for (_, uut) in uuts.iter_mut() {
        uut.connect_all();
    }
    let mut accepted = 0;
    for _ in 0..50_000 {
        let (template, variable) = forms[rng.gen_range(0..forms.len())];
        let mut word = template ^ (rng.gen::<u64>() & variable);
        match rng.gen_range(0..8) {
            0 => word ^= 1 << rng.gen_range(0..64),
            1 => word = rng.gen(),
            _ => {}
        }
        let [(s1, thesis), (s8, eight)] = &mut uuts;
        accepted += check(thesis, *s1, word as u32, (word >> 32) as u32) as u32;
        check(eight, *s8, word as u32, (word >> 32) as u32);
    }
    // Both verdicts are exercised in earnest.
    assert!(
        (20_000..45_000).contains(&accepted),
        "{accepted} of 50000 accepted"
    );
}
