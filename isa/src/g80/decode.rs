//! The reference decoder: [`decode`] and [`decode_program`].

use super::condition::{BranchCondition, Compare, Predicate};
use super::error::{G80Error, Marker, Unsupported, Words};
use super::form::fields::*;
use super::form::{
    opcodes, BRA, BRA_EQ, BRA_NE, GLD_U32, GST_U32, I2I_U32_U16, IADD32, IADD32I, IMAD_U16, ISET,
    MOV_U16, RET, SHL, SM_U32, SSY,
};
use super::instruction::Instruction;
use super::operands::{HalfReg, Reg, Shared16, Shared32, Src32};
use crate::pmevent;
use crate::word::{is_long_instruction, FLOW_CONTROL_BIT};

/// One instruction of a decoded program.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Index of its first word.
    pub address: usize,
    /// 1 or 2.
    pub words: usize,
    pub instruction: Instruction,
}

/// The instructions of `program` as a warp meets them walking it from
/// word 0: (address, instruction). Words that do not decode are stepped
/// over one at a time (a 64-bit instruction's second word is never taken
/// for an instruction of its own).
pub fn instructions(program: &[u32]) -> impl Iterator<Item = (usize, Instruction)> + '_ {
    let mut address = 0;
    std::iter::from_fn(move || {
        while address < program.len() {
            let at = address;
            match decode(program, at) {
                Ok((instruction, used)) => {
                    address += used;
                    return Some((at, instruction));
                }
                Err(_) => address += 1,
            }
        }
        None
    })
}

/// Decodes the instruction at `address` (a word index into `words`);
/// returns it and the number of words it takes (1 or 2).
pub fn decode(words: &[u32], address: usize) -> Result<(Instruction, usize), G80Error> {
    let low = *words.get(address).ok_or(G80Error::OutOfRange {
        address,
        len: words.len(),
    })?;
    if pmevent::is_pmevent(low) {
        return pmevent::decode(low)
            .map(|event| (Instruction::Pmevent(event), 1))
            .map_err(|source| G80Error::Pmevent {
                address,
                word: low,
                source,
            });
    }
    let (raw, used) = if is_long_instruction(low) {
        let high = *words
            .get(address + 1)
            .ok_or(G80Error::Truncated { address, low })?;
        (Words::Long(low, high), 2)
    } else {
        (Words::Short(low), 1)
    };
    decode_words(raw)
        .map(|instruction| (instruction, used))
        .map_err(|reason| G80Error::Unsupported {
            address,
            words: raw,
            reason,
        })
}

/// Decodes a whole program from address 0, instruction by instruction.
pub fn decode_program(words: &[u32]) -> Result<Vec<Decoded>, G80Error> {
    let mut program = Vec::new();
    let mut address = 0;
    while address < words.len() {
        let (instruction, used) = decode(words, address)?;
        program.push(Decoded {
            address,
            words: used,
            instruction,
        });
        address += used;
    }
    Ok(program)
}

/// A field's value as a register number, offset or immediate.
pub(super) fn field(value: u64, field: crate::word::Field) -> u8 {
    field.get(value) as u8
}

fn decode_words(raw: Words) -> Result<Instruction, Unsupported> {
    let value = raw.value();
    let opcode = field(value, crate::word::OPCODE);
    let flow = value & u64::from(FLOW_CONTROL_BIT) != 0;
    if opcode == opcodes::NOP {
        // FlexGripPlus: instr_opcode_i = NOP for opcode 1111, whatever the
        // flow bit; only a join marker changes what the read stage does.
        return Ok(match raw {
            Words::Long(..) if Marker::from_bits(field(value, MARKER)) == Marker::Join => {
                Instruction::NopJoin
            }
            _ => Instruction::Nop,
        });
    }
    match raw {
        Words::Short(_) => decode_short(value, opcode, flow),
        Words::Long(..) => decode_long(value, opcode, flow),
    }
}

fn decode_short(value: u64, opcode: u8, flow: bool) -> Result<Instruction, Unsupported> {
    match (opcode, flow) {
        (opcodes::IADD, false) => {
            IADD32.check(value)?;
            let a = if field(value, SHORT_SRC1_SHARED) != 0 {
                let sm_type = field(value, SHORT_SM_TYPE);
                if sm_type != SM_U32 {
                    return Err(Unsupported::SharedType {
                        form: IADD32.name,
                        expected: SM_U32,
                        found: sm_type,
                    });
                }
                Src32::Shared(Shared32 {
                    offset: field(value, ALU_SHARED_OFFSET),
                })
            } else {
                Src32::Reg(Reg(field(value, SHORT_SRC1)))
            };
            Ok(Instruction::Iadd32 {
                dst: Reg(field(value, SHORT_DEST)),
                a,
                b: Reg(field(value, SHORT_SRC2)),
            })
        }
        _ => Err(Unsupported::Opcode {
            opcode,
            subop: None,
            flow,
        }),
    }
}

fn decode_long(value: u64, opcode: u8, flow: bool) -> Result<Instruction, Unsupported> {
    let subop = field(value, SUBOP);
    match Marker::from_bits(field(value, MARKER)) {
        Marker::Normal | Marker::End => {}
        Marker::Immediate if (opcode, flow) == (opcodes::IADD, false) => {
            IADD32I.check(value)?;
            return Ok(Instruction::Iadd32i {
                dst: Reg(field(value, DEST)),
                a: Reg(field(value, SHORT_SRC1)),
                imm: ((IMM_HI.get(value) << IMM_LO.width) | IMM_LO.get(value)) as u32,
            });
        }
        other => return Err(Unsupported::Marker(other)),
    }
    let target = || TARGET.get(value) as usize;
    let dest = || Reg(field(value, DEST));
    let src1 = || Reg(field(value, SRC1));
    match (opcode, flow, subop) {
        (opcodes::MOV, false, 0) => {
            MOV_U16.check(value)?;
            Ok(Instruction::MovU16 {
                dst: HalfReg(field(value, DEST)),
                src: Shared16 {
                    offset: field(value, MOV_SHARED_OFFSET),
                },
            })
        }
        (opcodes::CVT, false, 0) => {
            I2I_U32_U16.check(value)?;
            Ok(Instruction::I2iU32U16 {
                dst: dest(),
                src: HalfReg(field(value, SRC1)),
            })
        }
        (opcodes::IMAD, false, 0) => {
            IMAD_U16.check(value)?;
            Ok(Instruction::ImadU16 {
                dst: dest(),
                a: Shared16 {
                    offset: field(value, ALU_SHARED_OFFSET),
                },
                b: HalfReg(field(value, SRC2)),
                c: Reg(field(value, SRC3)),
            })
        }
        (opcodes::SHIFT_OR_RETURN, false, 6) => {
            SHL.check(value)?;
            Ok(Instruction::Shl {
                dst: dest(),
                src: src1(),
                shift: field(value, SRC2),
            })
        }
        (opcodes::GLOBAL_MEMORY, false, 4) => {
            GLD_U32.check(value)?;
            Ok(Instruction::GldU32 {
                dst: dest(),
                addr: src1(),
            })
        }
        (opcodes::GLOBAL_MEMORY, false, 5) => {
            GST_U32.check(value)?;
            Ok(Instruction::GstU32 {
                addr: src1(),
                src: dest(),
            })
        }
        (opcodes::SHIFT_OR_RETURN, true, _) => {
            RET.check(value)?;
            Ok(Instruction::Ret)
        }
        (opcodes::SHIFT_OR_RETURN, false, 3) => {
            ISET.check(value)?;
            Ok(Instruction::Iset {
                dst: dest(),
                a: src1(),
                b: Reg(field(value, SRC2)),
                compare: Compare(field(value, COMPARE)),
                signed: field(value, SIGNED) != 0,
                cc: (field(value, SET_CC) != 0).then(|| field(value, SET_CC_REG)),
            })
        }
        (opcodes::BRANCH, true, _) => {
            let condition = match field(value, PRED_COND) {
                2 => Some(BranchCondition::Eq),
                5 => Some(BranchCondition::Ne),
                _ => None,
            };
            let form = match condition {
                Some(BranchCondition::Eq) => &BRA_EQ,
                Some(BranchCondition::Ne) => &BRA_NE,
                None => &BRA,
            };
            form.check(value)?;
            Ok(Instruction::Bra {
                target: target(),
                predicate: condition.map(|condition| Predicate {
                    cc: field(value, PRED_CC),
                    condition,
                }),
            })
        }
        (opcodes::SYNC, true, _) => {
            SSY.check(value)?;
            Ok(Instruction::Ssy { target: target() })
        }
        _ => Err(Unsupported::Opcode {
            opcode,
            subop: Some(subop),
            flow,
        }),
    }
}
