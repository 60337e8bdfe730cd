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

mod condition;
mod decode;
pub mod encode;
mod error;
mod form;
mod instruction;
mod operands;
pub mod parse;
pub mod selectors;
#[cfg(test)]
mod tests;

pub use condition::{flags, BranchCondition, Compare, Predicate, CC_REGISTERS};
pub use decode::{decode, decode_program, instructions, Decoded};
pub use error::{G80Error, Marker, Unsupported, Words};
pub use form::{
    fields, opcodes, Form, BRA, BRA_EQ, BRA_NE, GLD_U32, GST_U32, I2I_U32_U16, IADD32, IADD32I,
    IMAD_U16, ISET, MARKER_END_BIT, MOV_U16, RET, SHL, SM_U16, SM_U32, SSY,
};
pub use instruction::Instruction;
pub use operands::{HalfReg, Reg, Shared16, Shared32, Src32};
