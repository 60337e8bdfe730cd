//! The interpreter: one warp instruction of the G80 subset on every
//! active thread of a warp.

use flexpmu_isa::g80::{self, flags, Instruction, Reg, Src32};
use flexpmu_isa::pmevent::{Pmevent, PmuCommand};

use super::thread::{imad_b, read16, read32, read_shared, write16, write32};
use super::{GlobalMemory, IssError, MemoryError, ThreadState, Warp, WarpContext, WARP_SIZE};

/// Executes one instruction of `warp`; returns the warp's context as it
/// ran (its active mask) and the instruction.
pub(super) fn step<F>(
    warp: &mut Warp,
    program: &[u32],
    threads: &mut [ThreadState],
    segment: &[u8],
    memory: &mut GlobalMemory,
    pmu: &mut F,
) -> Result<(WarpContext, Instruction), IssError>
where
    F: FnMut(&WarpContext, Pmevent) -> Option<u32>,
{
    let address = warp.pc;
    warp.context.address = address;
    let context = WarpContext {
        active: warp.flow.mask,
        ..warp.context
    };
    if address >= program.len() {
        return Err(IssError::RanOffEnd {
            warp: context,
            address,
            len: program.len(),
        });
    }
    let (instruction, used) = g80::decode(program, address).map_err(|source| IssError::Decode {
        warp: context,
        source,
    })?;

    let shared = |byte_address: u32, width: u32| -> Result<u32, IssError> {
        read_shared(segment, byte_address, width).ok_or(IssError::SharedRead {
            warp: context,
            address,
            instruction,
            byte_address,
            width,
            size: segment.len() as u32,
        })
    };
    let memory_error = |thread: usize, source: MemoryError| IssError::Memory {
        warp: context,
        thread,
        address,
        instruction,
        source,
    };

    let lanes = (0..WARP_SIZE)
        .filter(|lane| context.active & (1 << lane) != 0)
        .map(|lane| context.first_thread + lane as usize);

    match instruction {
        Instruction::Pmevent(event) => {
            let value = pmu(&context, event);
            if let (PmuCommand::Idl, Some(dest), Some(value)) = (event.command, event.dest, value) {
                for thread in lanes {
                    write32(&mut threads[thread].regs, Reg(dest), value);
                }
            }
        }
        // Control flow acts when the instruction retires (below).
        Instruction::Ret
        | Instruction::Nop
        | Instruction::NopJoin
        | Instruction::Ssy { .. }
        | Instruction::Bra { .. } => {}
        Instruction::Iset {
            dst,
            a,
            b,
            compare,
            signed,
            cc,
        } => {
            for thread in lanes {
                let state = &mut threads[thread];
                let holds = compare.holds(read32(&state.regs, a), read32(&state.regs, b), signed);
                write32(&mut state.regs, dst, if holds { u32::MAX } else { 0 });
                if let Some(cc) = cc {
                    state.cc[usize::from(cc)] = flags::of_iset(holds);
                }
            }
        }
        Instruction::Iadd32i { dst, a, imm } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = read32(regs, a).wrapping_add(imm);
                write32(regs, dst, value);
            }
        }
        Instruction::MovU16 { dst, src } => {
            let value = shared(src.byte_address(), 2)?;
            for thread in lanes {
                write16(&mut threads[thread].regs, dst, value);
            }
        }
        Instruction::I2iU32U16 { dst, src } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = read16(regs, src);
                write32(regs, dst, value);
            }
        }
        Instruction::ImadU16 { dst, a, b, c } => {
            let a = shared(a.byte_address(), 2)?;
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = a
                    .wrapping_mul(imad_b(regs, b, c))
                    .wrapping_add(read32(regs, c));
                write32(regs, dst, value);
            }
        }
        Instruction::Shl { dst, src, shift } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = read32(regs, src).checked_shl(u32::from(shift)).unwrap_or(0);
                write32(regs, dst, value);
            }
        }
        Instruction::Iadd32 { dst, a, b } => {
            let shared_a = match a {
                Src32::Shared(operand) => Some(shared(operand.byte_address(), 4)?),
                Src32::Reg(_) => None,
            };
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let a = match a {
                    Src32::Reg(reg) => read32(regs, reg),
                    Src32::Shared(_) => shared_a.unwrap_or_default(),
                };
                write32(regs, dst, a.wrapping_add(read32(regs, b)));
            }
        }
        Instruction::GldU32 { dst, addr } => {
            for thread in lanes {
                let regs = &mut threads[thread].regs;
                let value = memory
                    .read_u32(read32(regs, addr))
                    .map_err(|source| memory_error(thread, source))?;
                write32(regs, dst, value);
            }
        }
        Instruction::GstU32 { addr, src } => {
            for thread in lanes {
                let regs = &threads[thread].regs;
                memory
                    .write_u32(read32(regs, addr), read32(regs, src))
                    .map_err(|source| memory_error(thread, source))?;
            }
        }
    }
    let taken = branch_taken(&instruction, context.active, context.first_thread, threads);
    warp.pc = warp
        .flow
        .retire(&instruction, address, used, taken)
        .map_err(|source| IssError::Flow {
            warp: context,
            address,
            instruction,
            source,
        })?;
    Ok((context, instruction))
}

/// The lanes of `active` (lane i = thread `first_thread + i`) whose BRA
/// predicate holds: all of them for an unpredicated BRA, none for other
/// instructions.
pub fn branch_taken(
    instruction: &Instruction,
    active: u32,
    first_thread: usize,
    threads: &[ThreadState],
) -> u32 {
    match instruction {
        Instruction::Bra {
            predicate: None, ..
        } => active,
        Instruction::Bra {
            predicate: Some(predicate),
            ..
        } => (0..WARP_SIZE)
            .filter(|lane| active & (1 << lane) != 0)
            .filter(|&lane| {
                let flags = threads[first_thread + lane as usize].cc[usize::from(predicate.cc)];
                predicate.condition.holds(flags)
            })
            .fold(0, |mask, lane| mask | 1 << lane),
        _ => 0,
    }
}
