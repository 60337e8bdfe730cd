//! The encoding of the subset: its fields and opcodes, and each
//! supported instruction's one [`Form`].

use super::error::Unsupported;
use crate::word::{pair, RET_HIGH, RET_LOW};
use fields::*;

/// The fields the subset reads, as bits of the 64-bit instruction value
/// (FlexGripPlus' names in the field table of the `g80` module
/// documentation). One place for the layout: the reference decoder here
/// and the hardware decoder in `hdl` use them.
pub mod fields {
    use crate::word::Field;

    /// Selects the operation or type of a 64-bit instruction.
    pub const SUBOP: Field = Field::new(63, 61);
    /// `00` normal, `01` end, `10` join, `11` immediate (64-bit only).
    pub const MARKER: Field = Field::new(33, 32);
    /// Destination register of a 64-bit form (GST: the stored register).
    pub const DEST: Field = Field::new(8, 2);
    /// First source register of a 64-bit form (GLD/GST: the address).
    pub const SRC1: Field = Field::new(15, 9);
    /// Second source register, or SHL's immediate.
    pub const SRC2: Field = Field::new(22, 16);
    /// IMAD's third source register.
    pub const SRC3: Field = Field::new(52, 46);
    /// Type of a 64-bit form's `g[]` operand.
    pub const SM_TYPE: Field = Field::new(15, 14);
    /// MOV.U16's `g[]` offset.
    pub const MOV_SHARED_OFFSET: Field = Field::new(13, 9);
    /// IMAD.U16's and IADD32's `g[]` offset (four bits are read).
    pub const ALU_SHARED_OFFSET: Field = Field::new(12, 9);
    /// Destination register of the 32-bit form.
    pub const SHORT_DEST: Field = Field::new(7, 2);
    /// First source register of the 32-bit form.
    pub const SHORT_SRC1: Field = Field::new(14, 9);
    /// Second source register of the 32-bit form.
    pub const SHORT_SRC2: Field = Field::new(21, 16);
    /// The 32-bit form's first source is a `g[]` operand.
    pub const SHORT_SRC1_SHARED: Field = Field::new(24, 24);
    /// Type of the 32-bit form's `g[]` operand.
    pub const SHORT_SM_TYPE: Field = Field::new(14, 13);
    /// ISET's condition (`condition_i`).
    pub const COMPARE: Field = Field::new(48, 46);
    /// Signed comparison (`is_signed_i`).
    pub const SIGNED: Field = Field::new(59, 59);
    /// Write the condition-code flags (`set_pred_i`) ...
    pub const SET_CC: Field = Field::new(38, 38);
    /// ... to this condition-code register (`set_pred_reg_i`).
    pub const SET_CC_REG: Field = Field::new(37, 36);
    /// The condition-code register a predicate tests (`pred_reg_i`).
    pub const PRED_CC: Field = Field::new(45, 44);
    /// The predicate's condition, `01111` = always (`pred_cond_i`).
    pub const PRED_COND: Field = Field::new(43, 39);
    /// BRA's and SSY's target as a word address: bits 27-11 of the byte
    /// address in bits 27-9 (`target_addr_i`), whose bits 10-9 are 0.
    pub const TARGET: Field = Field::new(27, 11);
    /// IADD32I's immediate: bits 5-0 in 21-16 (`src2_i`), 31-6 in 59-34
    /// (`imm_hi_i`).
    pub const IMM_LO: Field = Field::new(21, 16);
    pub const IMM_HI: Field = Field::new(59, 34);
}

/// Opcodes (bits 31-28) of the subset.
pub mod opcodes {
    pub const MOV: u8 = 0x1;
    pub const IADD: u8 = 0x2;
    /// SHL (subop 6) and, with the flow bit, RET.
    pub const SHIFT_OR_RETURN: u8 = 0x3;
    pub const IMAD: u8 = 0x6;
    pub const CVT: u8 = 0xa;
    /// GLD (subop 4) and GST (subop 5).
    pub const GLOBAL_MEMORY: u8 = 0xd;
    pub const NOP: u8 = 0xf;
    /// With the flow bit: BRA.
    pub const BRANCH: u8 = 0x1;
    /// With the flow bit: SSY (FlexGripPlus' `JOIN` flow opcode).
    pub const SYNC: u8 = 0xa;
}

/// Bit 32 of a 64-bit instruction: the end marker (`01`), which the
/// subset treats like the normal one (`00`).
pub const MARKER_END_BIT: u64 = 1 << 32;

/// The `sm_type` value of a U16 / U32 `g[]` operand.
pub const SM_U16: u8 = 0b01;
pub const SM_U32: u8 = 0b11;

/// One supported encoding: every bit outside `operands` (and, for 64-bit
/// forms, the end-marker bit) must equal `template`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Form {
    pub name: &'static str,
    /// An encoding of the form (the appendix-A words).
    pub template: u64,
    /// The operand fields, free to take any value.
    pub operands: u64,
    /// The `sm_type` its 64-bit `g[]` operand must have (in [`SM_TYPE`]).
    pub shared_type: Option<u8>,
}

impl Form {
    /// The bits that may differ from `template`: the operands, and the
    /// end marker of a 64-bit form with the normal marker (a form with the
    /// immediate marker fixes its marker).
    pub const fn free_bits(&self) -> u64 {
        if self.normal_marker() {
            self.operands | MARKER_END_BIT
        } else {
            self.operands
        }
    }

    /// A 64-bit form whose marker is normal or end (not immediate).
    const fn normal_marker(&self) -> bool {
        self.template & 1 != 0 && MARKER.get(self.template) != 3
    }

    /// The reference decoder's check: the `g[]` type and the join and
    /// immediate markers are checked apart, with their own messages.
    pub(super) fn check(&self, value: u64) -> Result<(), Unsupported> {
        let mut free = self.free_bits();
        if self.shared_type.is_some() {
            free |= SM_TYPE.mask();
        }
        if self.normal_marker() {
            free |= MARKER.mask();
        }
        let differ = (value ^ self.template) & !free;
        if differ != 0 {
            return Err(Unsupported::Bits {
                form: self.name,
                bits: differ,
            });
        }
        match self.shared_type {
            Some(expected) if SM_TYPE.get(value) as u8 != expected => {
                Err(Unsupported::SharedType {
                    form: self.name,
                    expected,
                    found: SM_TYPE.get(value) as u8,
                })
            }
            _ => Ok(()),
        }
    }
}

/// `MOV.U16 Rdh, g[n].U16`: sm_type 15-14 (U16), offset 13-9, half dest 8-2.
pub const MOV_U16: Form = Form {
    name: "MOV.U16 Rh, g[n].U16",
    template: pair(0x1000_4205, 0x0023_c780),
    operands: MOV_SHARED_OFFSET.mask() | DEST.mask(),
    shared_type: Some(SM_U16),
};

/// `I2I.U32.U16 Rd, Rsh`: half source 15-9, dest 8-2.
pub const I2I_U32_U16: Form = Form {
    name: "I2I.U32.U16 Rd, Rh",
    template: pair(0xa000_0005, 0x0400_0780),
    operands: SRC1.mask() | DEST.mask(),
    shared_type: None,
};

/// `IMAD.U16 Rd, g[n].U16, Rbh, Rc`: c 52-46, half b 22-16, sm_type
/// 15-14 (U16), offset 12-9 (FlexGripPlus reads only four offset bits for
/// a 64-bit ALU `g[]` source, so bit 13 stays fixed), dest 8-2.
pub const IMAD_U16: Form = Form {
    name: "IMAD.U16 Rd, g[n].U16, Rh, Rc",
    template: pair(0x6001_4c01, 0x0020_4780),
    operands: SRC3.mask() | SRC2.mask() | ALU_SHARED_OFFSET.mask() | DEST.mask(),
    shared_type: Some(SM_U16),
};

/// `SHL Rd, Rs, imm`: immediate 22-16, source 15-9, dest 8-2.
pub const SHL: Form = Form {
    name: "SHL Rd, Rs, imm",
    template: pair(0x3002_0009, 0xc410_0780),
    operands: SRC2.mask() | SRC1.mask() | DEST.mask(),
    shared_type: None,
};

/// `GLD.U32 Rd, global14[Ra]`: address register 15-9, dest 8-2.
pub const GLD_U32: Form = Form {
    name: "GLD.U32 Rd, global14[Ra]",
    template: pair(0xd00e_0005, 0x80c0_0780),
    operands: SRC1.mask() | DEST.mask(),
    shared_type: None,
};

/// `GST.U32 global14[Ra], Rs`: address register 15-9, source 8-2.
pub const GST_U32: Form = Form {
    name: "GST.U32 global14[Ra], Rs",
    template: pair(0xd00e_0005, 0xa0c0_0781),
    operands: SRC1.mask() | DEST.mask(),
    shared_type: None,
};

pub const RET: Form = Form {
    name: "RET",
    template: pair(RET_LOW, RET_HIGH),
    operands: 0,
    shared_type: None,
};

/// `IADD32 Rd, a, Rb` (32-bit): g[] flag 24, b 21-16, a 14-9 (register,
/// or sm_type 14-13 and offset 12-9), dest 7-2; bit 15 (w32) set.
pub const IADD32: Form = Form {
    name: "IADD32 Rd, a, Rb",
    template: 0x2000_8000,
    operands: SHORT_SRC1_SHARED.mask() | SHORT_SRC2.mask() | SHORT_SRC1.mask() | SHORT_DEST.mask(),
    shared_type: None,
};

/// `ISET.S32.C0 Rd, Ra, Rb, NE`: compare 48-46, signed 59, set_cc 38,
/// cc register 37-36, b 22-16, a 15-9, dest 8-2; w32 (58) set.
pub const ISET: Form = Form {
    name: "ISET Rd, Ra, Rb, COND",
    template: pair(0x3000_0001, 0x6400_07c0),
    operands: COMPARE.mask()
        | SIGNED.mask()
        | SET_CC.mask()
        | SET_CC_REG.mask()
        | SRC2.mask()
        | SRC1.mask()
        | DEST.mask(),
    shared_type: None,
};

/// `IADD32I Rd, Ra, imm` (immediate marker): immediate 59-34 and 21-16, a
/// 14-9, dest 8-2; w32 (15) set.
pub const IADD32I: Form = Form {
    name: "IADD32I Rd, Ra, imm",
    template: pair(0x2000_8001, 0x0000_0003),
    operands: IMM_HI.mask() | IMM_LO.mask() | SHORT_SRC1.mask() | DEST.mask(),
    shared_type: None,
};

/// `BRA target`: target 27-11, always.
pub const BRA: Form = Form {
    name: "BRA target",
    template: pair(0x1000_0003, 0x0000_0780),
    operands: TARGET.mask(),
    shared_type: None,
};

/// `@Cn.EQ BRA target`: condition-code register 45-44, target 27-11.
pub const BRA_EQ: Form = Form {
    name: "@Cn.EQ BRA target",
    template: pair(0x1000_0003, 0x0000_0100),
    operands: PRED_CC.mask() | TARGET.mask(),
    shared_type: None,
};

/// `@Cn.NE BRA target`.
pub const BRA_NE: Form = Form {
    name: "@Cn.NE BRA target",
    template: pair(0x1000_0003, 0x0000_0280),
    operands: PRED_CC.mask() | TARGET.mask(),
    shared_type: None,
};

/// `SSY target`: target 27-11.
pub const SSY: Form = Form {
    name: "SSY target",
    template: pair(0xa000_0003, 0x0000_0780),
    operands: TARGET.mask(),
    shared_type: None,
};
