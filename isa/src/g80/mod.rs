//! A decoder for the G80 SASS subset that the thesis' appendix-A kernel
//! uses, plus what loops and divergent branches need, reading the
//! instruction bits the way FlexGripPlus' decode stage does.
//!
//! The subset is what the vector-addition kernel of appendix A needs,
//! NOP and PMEVENT, and control flow: a compare that sets a
//! condition-code register, conditional and unconditional branches, the
//! SSY / `.JOIN` reconvergence pair and an immediate add for loop
//! counters:
//!
//! | mnemonic (as printed)                  | words                 |
//! |----------------------------------------|-----------------------|
//! | `MOV.U16 R0H, g[0x1].U16`              | `10004205 0023c780`   |
//! | `I2I.U32.U16 R1, R0L`                  | `a0000005 04000780`   |
//! | `IMAD.U16 R0, g[0x6].U16, R0H, R1`     | `60014c01 00204780`   |
//! | `SHL R2, R0, 0x2`                      | `30020009 c4100780`   |
//! | `IADD32 R0, g[0x4], R2`                | `2102e800`            |
//! | `IADD32 R1, R1, R0`                    | `20008204`            |
//! | `GLD.U32 R1, global14[R0]`             | `d00e0005 80c00780`   |
//! | `GST.U32 global14[R0], R1`             | `d00e0005 a0c00781`   |
//! | `RET`                                  | `30000003 00000780`   |
//! | `NOP`                                  | `f0000001 e0000001`   |
//! | `PMEVENT ...`                          | see [`crate::pmevent`]    |
//! | `ISET.S32.C0 R2, R1, R3, NE`           | `30030209 6c0147c0`   |
//! | `IADD32I R1, R1, 0xffffffff`           | `203f8205 0fffffff`   |
//! | `@C0.NE BRA 0x40`                      | `10008003 00000280`   |
//! | `BRA 0x40`                             | `10008003 00000780`   |
//! | `SSY 0x40`                             | `a0008003 00000780`   |
//! | `NOP.JOIN`                             | `f0000001 e0000002`   |
//!
//! Registers, `g[]` offsets and immediates are decoded from their fields,
//! so other operands of the same instructions decode too (`IADD32 R5, R3,
//! R7`, `GLD.U32 R9, global14[R4]`, ...). Everything else is refused with
//! a [`G80Error`] naming the address and the word(s): the decoder never
//! guesses.
//!
//! # Words and fields
//!
//! An instruction is one 32-bit word, or two when bit 0 of the first is
//! set; the first word read is the low half (`instruction_in(31 downto 0)`)
//! and the second the high half (`instruction_in(63 downto 32)`), as
//! `FlexGripPlus_P/RTL/SMP/Pipeline/Fetch/pipeline_fetch.vhd` assembles
//! them (a 32-bit instruction has a zero high half). Field positions below
//! are bits of that 64-bit value; the signal names are those of
//! `FlexGripPlus_4.4/RTL/SMP/Pipeline/Decode/pipeline_decode.vhd` unless
//! another file is named.
//!
//! | bits      | field                                   | FlexGripPlus signal |
//! |-----------|-----------------------------------------|---------------------|
//! | 31-28     | opcode                                  | `instr_opcode_b`    |
//! | 63-61     | subop (selects the operation or type)   | `instr_subop_b`     |
//! | 33-32     | marker: `00` normal, `01` end, `10` join, `11` immediate; a 32-bit instruction is HALF | `instr_marker_b` → `instr_marker_i` |
//! | 1         | flow control                            | `instr_is_flow_b`   |
//! | 0         | 64-bit instruction                      | `instr_is_long_b`   |
//! | 45-44, 43-39 | predicate register, condition (`01111` = always) | `pred_reg_i`, `pred_cond_i` |
//! | 8-2 (7-2 in 32-bit ALU) | destination register      | `dest_i`            |
//! | 15-9 (14-9 in 32-bit ALU) | source 1 register       | `src1_i`            |
//! | 53 (24 in 32-bit) | source 1 is a `g[]` operand     | `instr_src1_shared_i` |
//! | 12-9 (ALU), 13-9 (MOV) | `g[]` offset, in units of the operand size | `src1_i` |
//! | 15-14 (14-13 in 32-bit) | `g[]` type: `00` U8, `01` U16, `10` S16, `11` U32 | `sm_type_i`; `convert_data_types.vhd` (`pSMTypeToSMType`) |
//! | 22-16 (21-16 in 32-bit) | source 2 register or immediate | `src2_i`       |
//! | 52        | source 2 is the immediate of bits 22-16 (64-bit forms) | `addr_imm_i`, used by `read_source_ops.vhd` |
//! | 23        | source 2 is a `c[]` constant            | `instr_src2_const_i` |
//! | 52-46     | source 3 register (IMAD)                | `src3_i`            |
//! | 24 (64-bit) | source 3 is a `c[]` constant          | `instr_src3_const_i` |
//! | 58 (15 in 32-bit IADD) | 32-bit (not 16-bit) result | `w32_i`             |
//! | 59        | signed (SHL/SHR)                        | `is_signed_i`       |
//! | 48-46     | I2I source type (`000` U16)             | `cvt_type_i`        |
//! | 55-53     | GLD/GST size (`110` U32)                | `mov_size_i`        |
//! | 22 (32-bit IADD) | negate source 2 (`src3_neg_i`, applied to IADD's second operand in `scalar_processor.vhd`) | `src3_neg_i` |
//! | 34, 27-26 | address register (`g[A1+...]`)          | `addr_hi_i`, `addr_lo_i` |
//! | 25        | address-register post-increment         | `addr_incr_i`       |
//! | 48-46     | ISET's condition: bit 0 `<`, bit 1 `=`, bit 2 `>` | `condition_i`; `compute_set_pred_i.vhd` |
//! | 59        | ISET compares signed                    | `is_signed_i`       |
//! | 38, 37-36 | write the condition codes, to register C0-C3 | `set_pred_i`, `set_pred_reg_i` |
//! | 27-9      | BRA/SSY target, a byte address          | `target_addr_i`     |
//! | 59-34, 21-16 | IADD32I's immediate, bits 31-6 and 5-0 (immediate marker `11`) | `imm_hi_i`, `src2_i` |
//!
//! Which operation a word is: opcode `0001` subop `000` is MOV
//! (`mov_opcode_i`); `1010` is CVT (I2I); `0110` is IMAD24; `0011` subop
//! `110` is SHL; `0010` is IADD; `1101` subop `100` is GLD and `101` GST
//! (`mov_mem_type_i` = MEM_GLOBAL); `0011` with the flow bit is RET
//! (`flow_opcode_i`); `1111` is NOP whatever the other bits. PMEVENT, the
//! thesis' addition, is opcode `0111` with bit 1 clear, decoded by
//! [`crate::pmevent`]. Opcode `0011` subop `011` is ISET (`SET`);
//! `0010` with the immediate marker is IADD32I; with the flow bit,
//! `0001` is BRA and `1010` SSY (`flow_opcode_i` = BRANCH, JOIN); opcode
//! `1111` with the join marker is NOP.JOIN.
//!
//! # Control flow
//!
//! Each thread has four 4-bit condition-code registers C0-C3 (zero, sign,
//! carry, overflow: [`flags`]). `ISET.Cn` writes one; a predicated BRA
//! tests one per thread with its condition ([`BranchCondition`]: EQ or
//! NE, the two a compare-and-branch needs). A warp keeps a stack of
//! (mask, address) entries (`branch_exec_unit.vhd`): SSY pushes a
//! synchronisation entry (the active mask, its target); a BRA that only
//! some active threads take pushes a divergence entry (the others, the
//! address after the BRA) and continues with the takers at the target;
//! NOP.JOIN pops the top entry (`pipeline_read.vhd`, CHECK_JOIN): a
//! divergence entry sends the waiting threads to its address, a
//! synchronisation entry restores the mask and execution goes on after
//! the NOP.JOIN. Targets are byte addresses in the word, word addresses
//! in [`Instruction`].
//!
//! Operand roles that are not obvious from the mnemonic order:
//! - GLD: `dest_i` = bits 8-2 is the loaded register, `src1_i` = bits 15-9
//!   the register holding the byte address.
//! - GST: `src1_i` = bits 8-2 is the stored register, `dest_i` = bits 15-9
//!   the address register.
//! - 16-bit register operands (`data_type` U16/S16) number half registers:
//!   field value `2n` is `RnL` (bits 15-0 of Rn) and `2n+1` is `RnH` (bits
//!   31-16). `vector_register_controller.vhd` shifts the number right by
//!   one and uses bit 0 (`reg_hi_en`) to pick the half. MOV.U16's
//!   destination, I2I.U32.U16's source and IMAD.U16's second source are
//!   16-bit; their other registers are 32-bit.
//! - `g[n]` is `n` units of the operand size into the block's shared
//!   segment: byte `2n` for `.U16`, `4n` for a 32-bit operand
//!   (`shared_memory_controller.vhd` shifts the address by the `sm_type`).
//!   A 32-bit `g[]` operand is printed without a type suffix, as in the
//!   appendix.
//! - `global14`: bits 19-16 of GLD/GST hold `0xe`, the global segment
//!   CUDA 1.x code uses. FlexGripPlus does not decode this field; here it
//!   is part of the fixed encoding (another segment is refused), so the
//!   mnemonic always reads `global14`.
//!
//! # How strict
//!
//! Each supported instruction has one known encoding (the words above).
//! The decoder takes the operand fields from the word and requires every
//! other bit to equal that encoding: a different predicate, type, sign,
//! negation, address register, constant operand or any other variant is
//! refused as [`Unsupported::Bits`] naming the differing bits, rather
//! than executed as something it might not be. Two exceptions, both
//! because FlexGripPlus treats the cases identically:
//! - the marker of a 64-bit instruction may be normal (`00`) or end
//!   (`01`; the appendix's GST has it). FlexGripPlus ends threads on RET
//!   (`branch_exec_unit.vhd`, CHECK_RETURN); the decode, read and write
//!   stages use the end marker only through `is_full_marker_b`, which is
//!   true for both. Join (`10`) and immediate (`11`) markers select other
//!   behaviour and are refused;
//! - a NOP is any word with opcode `1111` (`instr_opcode_i` = NOP), 32- or
//!   64-bit, except with the join marker: `pipeline_read.vhd` passes a
//!   NOP straight to READ_OPS_DONE only when its marker is not FULL_JOIN.
//!
//! The words `decode` reads are the ROM words of `TP_instructions.vhd`
//! (one per instruction pointer value); `address` is that index.

use crate::pmevent::{self, IsaError, Pmevent};
use crate::word::{bit_list, is_long_instruction, pair, FLOW_CONTROL_BIT, RET_HIGH, RET_LOW};
use std::fmt;

pub mod encode;
pub mod parse;

/// A 32-bit general-purpose register, R0..R127.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "R{}", self.0)
    }
}

/// A 16-bit half register, numbered as 16-bit operand fields number them:
/// `2n` is `RnL`, `2n+1` is `RnH`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HalfReg(pub u8);

impl HalfReg {
    /// The 32-bit register this half belongs to.
    pub fn register(self) -> Reg {
        Reg(self.0 >> 1)
    }

    /// Whether this is the high half (bits 31-16).
    pub fn is_high(self) -> bool {
        self.0 & 1 != 0
    }
}

impl fmt::Display for HalfReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let half = if self.is_high() { 'H' } else { 'L' };
        write!(f, "R{}{half}", self.0 >> 1)
    }
}

/// A 16-bit unsigned `g[]` operand, `g[offset].U16`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shared16 {
    /// In 16-bit units.
    pub offset: u8,
}

impl Shared16 {
    /// Byte address within the block's shared segment.
    pub fn byte_address(self) -> u32 {
        u32::from(self.offset) * 2
    }
}

impl fmt::Display for Shared16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g[{:#x}].U16", self.offset)
    }
}

/// A 32-bit `g[]` operand, `g[offset]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shared32 {
    /// In 32-bit units.
    pub offset: u8,
}

impl Shared32 {
    /// Byte address within the block's shared segment.
    pub fn byte_address(self) -> u32 {
        u32::from(self.offset) * 4
    }
}

impl fmt::Display for Shared32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g[{:#x}]", self.offset)
    }
}

/// The first source of IADD32: a register or a 32-bit `g[]` operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Src32 {
    Reg(Reg),
    Shared(Shared32),
}

impl fmt::Display for Src32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Src32::Reg(reg) => reg.fmt(f),
            Src32::Shared(shared) => shared.fmt(f),
        }
    }
}

/// A decoded instruction of the subset.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Instruction {
    /// `MOV.U16 Rdh, g[n].U16`: the 16-bit half `dst` gets the 16-bit
    /// `g[]` word; the other half of the register is unchanged.
    MovU16 { dst: HalfReg, src: Shared16 },
    /// `I2I.U32.U16 Rd, Rsh`: zero-extends a 16-bit half into a 32-bit
    /// register.
    I2iU32U16 { dst: Reg, src: HalfReg },
    /// `IMAD.U16 Rd, g[n].U16, Rbh, Rc`: `Rd = a * b + Rc`, with 16-bit
    /// unsigned `a` and `b` and a 32-bit addend, modulo 2^32.
    ImadU16 {
        dst: Reg,
        a: Shared16,
        b: HalfReg,
        c: Reg,
    },
    /// `SHL Rd, Rs, imm`: 32-bit logical shift left by an immediate.
    Shl { dst: Reg, src: Reg, shift: u8 },
    /// `IADD32 Rd, a, Rb`: 32-bit addition modulo 2^32 (the 32-bit
    /// instruction form).
    Iadd32 { dst: Reg, a: Src32, b: Reg },
    /// `GLD.U32 Rd, global14[Ra]`: loads the 32-bit word at the byte
    /// address held in `addr`.
    GldU32 { dst: Reg, addr: Reg },
    /// `GST.U32 global14[Ra], Rs`: stores `src` at the byte address held
    /// in `addr`.
    GstU32 { addr: Reg, src: Reg },
    /// `ISET.S32|U32[.Cn] Rd, Ra, Rb, COND`: `Rd` = all ones if `a COND
    /// b` holds, else 0; with `.Cn` the result's zero and sign flags are
    /// also written to condition-code register `Cn`.
    Iset {
        dst: Reg,
        a: Reg,
        b: Reg,
        compare: Compare,
        signed: bool,
        cc: Option<u8>,
    },
    /// `IADD32I Rd, Ra, imm`: 32-bit addition of an immediate, modulo 2^32.
    Iadd32i { dst: Reg, a: Reg, imm: u32 },
    /// `[@Cn.EQ|NE] BRA target`: the threads whose condition holds (all
    /// with no predicate) continue at word `target`; if only some do, the
    /// warp diverges.
    Bra {
        /// Word address.
        target: usize,
        predicate: Option<Predicate>,
    },
    /// `SSY target`: pushes a reconvergence point at word `target` for
    /// the warp's active threads.
    Ssy {
        /// Word address.
        target: usize,
    },
    /// `RET`: with an empty call stack, ends the executing threads.
    Ret,
    /// `NOP`.
    Nop,
    /// `NOP.JOIN`: a NOP with the join marker, where divergent paths
    /// reconverge: it pops the warp's reconvergence stack.
    NopJoin,
    /// The thesis' PMU instruction.
    Pmevent(Pmevent),
}

/// ISET's condition (bits 48-46): bit 0 true when `a < b`, bit 1 when
/// `a == b`, bit 2 when `a > b` (`compute_set_pred_i.vhd`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compare(pub u8);

impl Compare {
    pub const NAMES: [&'static str; 8] = ["FL", "LT", "EQ", "LE", "GT", "NE", "GE", "TR"];

    pub fn name(self) -> &'static str {
        Self::NAMES[usize::from(self.0 & 7)]
    }

    /// Whether `a` compared with `b` satisfies the condition (signed or
    /// unsigned 32-bit comparison).
    pub fn holds(self, a: u32, b: u32, signed: bool) -> bool {
        let order = if signed {
            (a as i32).cmp(&(b as i32))
        } else {
            a.cmp(&b)
        };
        let bit = match order {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Greater => 2,
        };
        self.0 & (1 << bit) != 0
    }
}

/// The condition-code flags (4 bits per condition-code register, as
/// FlexGripPlus' `encode_flag_type` numbers them).
pub mod flags {
    pub const ZERO: u8 = 1 << 0;
    pub const SIGN: u8 = 1 << 1;
    pub const CARRY: u8 = 1 << 2;
    pub const OVERFLOW: u8 = 1 << 3;

    /// What ISET writes to its condition-code register: sign set and zero
    /// clear when the comparison holds, the reverse when it does not
    /// (`compute_set_pred_i.vhd`). FlexGripPlus also writes the adder's
    /// carry and overflow, which no condition of the subset reads; here
    /// they are 0.
    pub fn of_iset(holds: bool) -> u8 {
        if holds {
            SIGN
        } else {
            ZERO
        }
    }

    /// The same, from ISET's 32-bit result (all ones or 0).
    pub fn of_iset_result(result: u32) -> u8 {
        of_iset(result != 0)
    }
}

/// Condition-code registers per thread (`C0`..`C3`, bits 45-44 and
/// 37-36).
pub const CC_REGISTERS: usize = 4;

/// The branch conditions of the subset (bits 43-39): equal (zero set,
/// sign clear) and not equal (zero clear). They agree with FlexGripPlus'
/// predicate look-up table (`predicate_lut.vhd`, rows 2 and 5) on every
/// flag value ISET writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BranchCondition {
    Eq,
    Ne,
}

impl BranchCondition {
    /// The 5-bit condition field.
    pub fn code(self) -> u8 {
        match self {
            BranchCondition::Eq => 2,
            BranchCondition::Ne => 5,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BranchCondition::Eq => "EQ",
            BranchCondition::Ne => "NE",
        }
    }

    /// Whether the condition holds on condition-code `flags`.
    pub fn holds(self, flags: u8) -> bool {
        let zero = flags & self::flags::ZERO != 0;
        let sign = flags & self::flags::SIGN != 0;
        match self {
            BranchCondition::Eq => zero && !sign,
            BranchCondition::Ne => !zero,
        }
    }
}

/// `@Cn.COND`: a branch taken by the threads whose condition-code register
/// `cc` satisfies `condition`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Predicate {
    pub cc: u8,
    pub condition: BranchCondition,
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@C{}.{}", self.cc, self.condition.name())
    }
}

impl Instruction {
    /// The word address control continues at, for BRA and SSY.
    pub fn target(&self) -> Option<usize> {
        match *self {
            Instruction::Bra { target, .. } | Instruction::Ssy { target } => Some(target),
            _ => None,
        }
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Instruction::MovU16 { dst, src } => write!(f, "MOV.U16 {dst}, {src}"),
            Instruction::I2iU32U16 { dst, src } => write!(f, "I2I.U32.U16 {dst}, {src}"),
            Instruction::ImadU16 { dst, a, b, c } => write!(f, "IMAD.U16 {dst}, {a}, {b}, {c}"),
            Instruction::Shl { dst, src, shift } => write!(f, "SHL {dst}, {src}, {shift:#x}"),
            Instruction::Iadd32 { dst, a, b } => write!(f, "IADD32 {dst}, {a}, {b}"),
            Instruction::GldU32 { dst, addr } => write!(f, "GLD.U32 {dst}, global14[{addr}]"),
            Instruction::GstU32 { addr, src } => write!(f, "GST.U32 global14[{addr}], {src}"),
            Instruction::Iset {
                dst,
                a,
                b,
                compare,
                signed,
                cc,
            } => {
                let kind = if *signed { "S32" } else { "U32" };
                write!(f, "ISET.{kind}")?;
                if let Some(cc) = cc {
                    write!(f, ".C{cc}")?;
                }
                write!(f, " {dst}, {a}, {b}, {}", compare.name())
            }
            Instruction::Iadd32i { dst, a, imm } => write!(f, "IADD32I {dst}, {a}, {imm:#x}"),
            Instruction::Bra { target, predicate } => {
                if let Some(predicate) = predicate {
                    write!(f, "{predicate} ")?;
                }
                write!(f, "BRA {:#x}", target * 4)
            }
            Instruction::Ssy { target } => write!(f, "SSY {:#x}", target * 4),
            Instruction::Ret => f.write_str("RET"),
            Instruction::Nop => f.write_str("NOP"),
            Instruction::NopJoin => f.write_str("NOP.JOIN"),
            Instruction::Pmevent(event) => event.fmt(f),
        }
    }
}

/// One instruction of a decoded program.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Index of its first word.
    pub address: usize,
    /// 1 or 2.
    pub words: usize,
    pub instruction: Instruction,
}

/// The word(s) of an instruction, for messages: `0x2102e800` or
/// `0x10004205 0x0023c780` (low word first).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Words {
    Short(u32),
    Long(u32, u32),
}

impl Words {
    fn value(self) -> u64 {
        match self {
            Words::Short(low) => u64::from(low),
            Words::Long(low, high) => u64::from(low) | (u64::from(high) << 32),
        }
    }
}

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Words::Short(low) => write!(f, "0x{low:08x}"),
            Words::Long(low, high) => write!(f, "0x{low:08x} 0x{high:08x}"),
        }
    }
}

/// The marker of a 64-bit instruction (bits 33-32, `instr_marker_b`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `00`, FULL_NORM.
    Normal,
    /// `01`, FULL_END.
    End,
    /// `10`, FULL_JOIN.
    Join,
    /// `11`, IMM: the high word holds an immediate.
    Immediate,
}

impl Marker {
    fn from_bits(bits: u8) -> Marker {
        match bits & 3 {
            0 => Marker::Normal,
            1 => Marker::End,
            2 => Marker::Join,
            _ => Marker::Immediate,
        }
    }

    /// `normal`, `end`, `join` or `immediate`.
    pub fn name(self) -> &'static str {
        match self {
            Marker::Normal => "normal",
            Marker::End => "end",
            Marker::Join => "join",
            Marker::Immediate => "immediate",
        }
    }

    /// The two marker bits, `00`..`11`.
    pub fn bits(self) -> &'static str {
        match self {
            Marker::Normal => "00",
            Marker::End => "01",
            Marker::Join => "10",
            Marker::Immediate => "11",
        }
    }
}

/// Why a well-formed word is not decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// No instruction of the subset has this opcode, subop (64-bit only)
    /// and flow bit.
    Opcode {
        opcode: u8,
        subop: Option<u8>,
        flow: bool,
    },
    /// A 64-bit instruction with the join or immediate marker.
    Marker(Marker),
    /// The word has the opcode of `form`, but `bits` (of the 64-bit value)
    /// differ from its only supported encoding.
    Bits { form: &'static str, bits: u64 },
    /// A `g[]` operand of a type the instruction does not support here.
    SharedType {
        form: &'static str,
        /// The `sm_type` the instruction takes here: 0 U8, 1 U16, 2 S16,
        /// 3 U32.
        expected: u8,
        /// The `sm_type` field of the word.
        found: u8,
    },
}

const SUPPORTED: &str = "MOV.U16, I2I.U32.U16, IMAD.U16, SHL, IADD32, IADD32I, ISET, GLD.U32, GST.U32, BRA, SSY, RET, NOP, NOP.JOIN, PMEVENT";

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Opcode {
                opcode,
                subop,
                flow,
            } => {
                write!(f, "opcode {opcode:#x}")?;
                match subop {
                    Some(subop) => write!(f, ", subop {subop}, 64-bit")?,
                    None => f.write_str(", 32-bit")?,
                }
                let kind = if *flow { "flow control" } else { "normal" };
                write!(
                    f,
                    ", {kind} is not an instruction of the supported subset ({SUPPORTED})"
                )
            }
            Unsupported::Marker(marker) => write!(
                f,
                "the {} marker (bits 33-32 = {}) is not supported",
                marker.name(),
                marker.bits()
            ),
            Unsupported::Bits { form, bits } => write!(
                f,
                "bit(s) {} differ from the only supported `{form}` encoding (a predicate, type, modifier or operand kind outside the subset)",
                bit_list(*bits)
            ),
            Unsupported::SharedType {
                form,
                expected,
                found,
            } => write!(
                f,
                "`{form}` takes a {} g[] operand, not {}",
                sm_type_name(*expected),
                sm_type_name(*found)
            ),
        }
    }
}

/// The suffix of a `g[]` operand of `sm_type` (two bits).
fn sm_type_name(sm_type: u8) -> &'static str {
    match sm_type & 3 {
        0 => ".U8",
        1 => ".U16",
        2 => ".S16",
        _ => ".U32",
    }
}

/// Why words do not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum G80Error {
    #[error("address {address}: no instruction there (the program has {len} words)")]
    OutOfRange { address: usize, len: usize },
    #[error("address {address}: 0x{low:08x} is the first word of a 64-bit instruction (bit 0 set), but the program ends before its second word")]
    Truncated { address: usize, low: u32 },
    #[error("address {address}: 0x{word:08x} is in the PMEVENT space (opcode 7, bit 1 clear) but is not a valid PMEVENT: {source}")]
    Pmevent {
        address: usize,
        word: u32,
        #[source]
        source: IsaError,
    },
    #[error("address {address}: {words} is not a supported G80 instruction: {reason}")]
    Unsupported {
        address: usize,
        words: Words,
        reason: Unsupported,
    },
}

/// The fields the subset reads, as bits of the 64-bit instruction value
/// (FlexGripPlus' names in the table above). One place for the layout:
/// the reference decoder here and the hardware decoder in `hdl` use them.
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

use fields::*;

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
    fn check(&self, value: u64) -> Result<(), Unsupported> {
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
fn field(value: u64, field: crate::word::Field) -> u8 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::{assemble_file, WordRole};
    use crate::pmevent::PmuCommand;
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
            let (instruction, used) =
                decode(&values, address).unwrap_or_else(|err| panic!("{err}"));
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
        assert!(
            matches!(reason, Unsupported::Bits { form: "BRA target", bits } if bits == 0xe << 39)
        );
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
}
