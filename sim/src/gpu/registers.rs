//! A launch's register budget, as FlexGripPlus lays out its register file.
//!
//! A launch declares its registers per thread (FlexGripPlus' testbench:
//! `BENCH_KERNEL_GPRS` in `TB/configuration/pick_bench.vhd`, written to
//! configuration register 1). The SM controller gives warp `w` the base
//! `w × registers` (`streaming_multiprocessor_cntlr.vhd`), and the register
//! file addresses warp `w`'s register `r` at `base + r`, 9 bits, wrapping
//! (`vector_register_file.vhd`: `lane & (base_addr + reg_num)`): 512
//! entries for each of a warp's 32 thread slots. So registers per thread ×
//! resident warps must stay within 512, and a register past the budget is
//! another warp's (measured: a kernel writing R93 ended with wrong words on
//! 449 of 512 threads at 16 resident warps and 16 registers per thread).
//!
//! What counts as using a register is what reaches the register file: a
//! read of field 124 yields 0 without it, a write to field 127 is dropped
//! (`vector_register_controller.vhd`); a 16-bit operand field `n` is
//! register `n / 2`.

use flexpmu_isa::g80::{instructions, HalfReg, Instruction, Reg, Src32};
use flexpmu_isa::pmevent::PmuCommand;

use super::iss::{DISCARD_REGISTER, IMMEDIATE_MARKER_FIELD, NUM_REGISTERS, ZERO_REGISTER};

/// Entries of the register file per thread slot of a warp (9-bit address).
pub const REGISTER_FILE_ENTRIES: u32 = 512;

/// The register-file registers `instruction` reads or writes.
pub fn registers_of(instruction: &Instruction) -> Vec<u8> {
    let read = |r: Reg| (r.0 != ZERO_REGISTER).then_some(r.0);
    let write = |r: Reg| (r.0 != DISCARD_REGISTER).then_some(r.0);
    let read_half = |h: HalfReg| (h.0 != ZERO_REGISTER).then_some(h.register().0);
    let write_half = |h: HalfReg| (h.0 != DISCARD_REGISTER).then_some(h.register().0);
    let fields: Vec<Option<u8>> = match *instruction {
        Instruction::MovU16 { dst, .. } => vec![write_half(dst)],
        Instruction::I2iU32U16 { dst, src } => vec![write(dst), read_half(src)],
        Instruction::ImadU16 { dst, c, .. } if c.0 >= IMMEDIATE_MARKER_FIELD => {
            vec![write(dst), read(c)]
        }
        Instruction::ImadU16 { dst, b, c, .. } => vec![write(dst), read_half(b), read(c)],
        Instruction::Shl { dst, src, .. } => vec![write(dst), read(src)],
        Instruction::Iadd32 { dst, a, b } => vec![
            write(dst),
            match a {
                Src32::Reg(a) => read(a),
                Src32::Shared(_) => None,
            },
            read(b),
        ],
        Instruction::GldU32 { dst, addr } => vec![write(dst), read(addr)],
        Instruction::GstU32 { addr, src } => vec![read(addr), read(src)],
        Instruction::Iset { dst, a, b, .. } => vec![write(dst), read(a), read(b)],
        Instruction::Iadd32i { dst, a, .. } => vec![write(dst), read(a)],
        Instruction::Pmevent(event) => match (event.command, event.dest) {
            (PmuCommand::Idl, Some(dest)) => vec![write(Reg(dest))],
            _ => vec![],
        },
        Instruction::Bra { .. }
        | Instruction::Ssy { .. }
        | Instruction::Ret
        | Instruction::Nop
        | Instruction::NopJoin => vec![],
    };
    fields.into_iter().flatten().collect()
}

/// The registers per thread `program` needs: its highest register + 1, as
/// a compiler declares them (at least 1: R0 holds the thread index).
pub fn registers_needed(program: &[u32]) -> u32 {
    instructions(program)
        .flat_map(|(_, instruction)| registers_of(&instruction))
        .map(|r| u32::from(r) + 1)
        .max()
        .unwrap_or(1)
}

/// An instruction that uses a register past a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeyondBudget {
    /// Word address of the instruction.
    pub address: usize,
    pub instruction: Instruction,
    pub register: u8,
}

/// The first instruction of `program` using a register at or past
/// `registers` (per thread).
pub fn beyond_budget(program: &[u32], registers: u32) -> Option<BeyondBudget> {
    instructions(program).find_map(|(address, instruction)| {
        registers_of(&instruction)
            .into_iter()
            .find(|&r| u32::from(r) >= registers)
            .map(|register| BeyondBudget {
                address,
                instruction,
                register,
            })
    })
}

/// The most registers per thread a launch can declare (the ISS keeps 128).
pub const MAX_REGISTERS: u32 = NUM_REGISTERS as u32;

/// Blocks resident at a time when each holds `warps_per_block` warps of
/// `registers` registers per thread: `requested`, or fewer so that every
/// resident warp has its own registers (0: not even one block fits).
pub fn blocks_in_register_file(requested: u32, warps_per_block: u32, registers: u32) -> u32 {
    let per_block = warps_per_block * registers;
    requested.min(REGISTER_FILE_ENTRIES / per_block.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_isa::asm::assemble;

    fn program(source: &str) -> Vec<u32> {
        assemble(source, "t.sass").unwrap().values()
    }

    #[test]
    fn the_budget_counts_what_reaches_the_register_file() {
        // R124 read as zero and R127 writes dropped do not count; a
        // half register counts as its register; a PMU read's destination
        // counts.
        let p = program(
            "ISET.S32 R127, R124, R3, EQ\nMOV.U16 R9H, g[0x1].U16\nPMEVENT CNT0, R12, IDL\nRET\n",
        );
        assert_eq!(registers_needed(&p), 13);
        assert_eq!(beyond_budget(&p, 13), None);
        let beyond = beyond_budget(&p, 10).unwrap();
        assert_eq!((beyond.address, beyond.register), (4, 12));
        assert_eq!(beyond.instruction.to_string(), "PMEVENT CNT0, R12, IDL");
        assert_eq!(beyond_budget(&p, 9).unwrap().register, 9);
        // A read of R127 and a write of R124 reach the file.
        assert_eq!(
            registers_needed(&program("GLD.U32 R124, global14[R127]\nRET\n")),
            128
        );
        assert_eq!(registers_needed(&program("RET\n")), 1);
    }

    #[test]
    fn residency_keeps_every_warp_its_own_registers() {
        // The thesis launch: 2 blocks of 16 warps, 16 registers: fits.
        assert_eq!(blocks_in_register_file(2, 16, 16), 2);
        assert_eq!(blocks_in_register_file(2, 16, 17), 1);
        assert_eq!(blocks_in_register_file(2, 16, 33), 0);
        assert_eq!(blocks_in_register_file(15, 1, 6), 15);
    }
}
