//! Random straight-line kernels of FlexGripPlus' whole instruction set:
//! every word a form of cuobjdump's syntax FlexGripPlus' applications use
//! (`flexpmu_isa::cuobjdump::forms`), its free bits drawn at random,
//! kept when the decode stage gives it an operation the read, execute and
//! write stages carry out (moves, integer and floating-point arithmetic,
//! the SFU, shared, constant and global memory, address and condition-code
//! registers, predicated writes) and the reference ISS runs it (a word
//! FlexGripPlus' memory controllers never answer is refused there, with
//! the reason, and redrawn). Flow words are not drawn at random (a random
//! target or stack would make FlexGripPlus wander or hang): [`flow`] puts
//! these words inside branches, loops and a call built around them.
//!
//! [`flow`]: super::whole_flow

use flexpmu_isa::cuobjdump::forms::FORMS;
use flexpmu_isa::decode_stage::{self, Class, Operation};
use std::sync::Arc;

use flexpmu_sim::gpu::fgp_iss::sfu::SfuTables;
use flexpmu_sim::gpu::fgp_iss::{FgpIss, FgpLaunchSpec};
use flexpmu_sim::gpu::iss::Geometry;
use rand::rngs::StdRng;
use rand::Rng;

/// Registers R1 up to this one the prologue sets.
pub const WHOLE_PROLOGUE_REGISTERS: u32 = 32;

/// RET, the program's end.
pub(super) const RET: [u32; 2] = [0x3000_0003, 0x0000_0780];

/// Whether `words` are an instruction the generator keeps (see the
/// module page): one that `iss` runs alone, naming registers as `keep`
/// allows.
fn runs(words: &[u32], iss: &FgpIss, keep: Keep) -> bool {
    let stage = decode_stage::decode(decode_stage::value(words[0], words.get(1).copied()));
    if keep.own && !own_registers(&stage, iss.spec().registers) {
        return false;
    }
    if !keep.join && stage.marker == decode_stage::Marker::Join {
        return false;
    }
    let reserved = keep.reserved;
    let kept = matches!(stage.class, Class::Alu | Class::Mov)
        && !matches!(
            stage.operation,
            Operation::Unknown(_) | Operation::LoadLocal | Operation::StoreLocal
        );
    if !kept {
        return false;
    }
    let mut program = words.to_vec();
    program.extend(RET);
    let Ok(result) = iss.run(&program) else {
        return false;
    };
    let budget = iss.spec().registers.max(1);
    !result
        .writes
        .iter()
        .flatten()
        .any(|w| reserved.contains(&(u32::from(w.register) % budget)))
}

/// The launch a drawn word is tried on: one warp on FlexGripPlus' 8
/// cores, `registers` a thread, the SFU's `tables` if given (without
/// them SFU words are redrawn).
pub fn probe_spec(registers: u32, tables: Option<Arc<SfuTables>>) -> FgpLaunchSpec {
    FgpLaunchSpec {
        geometry: Geometry::new([32, 1, 1], [1, 1]).expect("one warp"),
        params: vec![],
        blocks_per_core: 1,
        lanes: 8,
        shared_bytes: 0,
        registers,
        global: vec![Some(0); 1 << 18],
        constant: vec![0; 8192],
        sfu_tables: tables,
    }
}

/// Which registers a drawn word may name.
#[derive(Clone, Copy)]
pub struct Keep<'a> {
    /// Registers it must not write (counted modulo the launch's
    /// registers a thread).
    pub reserved: &'a [u32],
    /// Whether it must name only the thread's own registers (none past
    /// the launch's registers a thread, which are another warp's: what it
    /// reads there depends on the order the warps run in, which the ISS
    /// has as FlexGripPlus has it only while the warps run in step).
    pub own: bool,
    /// Whether it may carry the `.S` marker (which pops the warp's
    /// reconvergence stack: inside flow, the flow's own `NOP.S` pop).
    pub join: bool,
}

impl Keep<'_> {
    /// Any register.
    pub const ANY: Keep<'static> = Keep {
        reserved: &[],
        own: false,
        join: true,
    };
}

/// Whether every register `stage` reads or writes is below `registers`
/// (R124, which reads 0, and the discarded destination 127 aside).
fn own_registers(stage: &decode_stage::Stage, registers: u32) -> bool {
    use flexpmu_isa::decode_stage::{DataType, Space};
    let a = stage.access;
    let operands = [
        (stage.dest, a.dest),
        (stage.src1, a.src1),
        (stage.src2, a.src2),
        (stage.src3, a.src3),
    ];
    operands.iter().all(|&(operand, ty)| {
        if !matches!(operand.space, Space::Register | Space::AddressFromRegister) {
            return true;
        }
        let (first, count) = match ty {
            t if t.is_half() => (operand.value >> 1, 1),
            DataType::U64 => (operand.value, 2),
            DataType::U128 => (operand.value, 4),
            _ => (operand.value, 1),
        };
        matches!(operand.value, 124 | 127) || first + count <= registers
    })
}

/// A random instruction of the forms that `iss` runs ([`runs`]), naming
/// registers as `keep` allows.
pub fn instruction(rng: &mut StdRng, iss: &FgpIss, keep: Keep) -> Vec<u32> {
    let forms: Vec<_> = FORMS.iter().collect();
    loop {
        let form = forms[rng.gen_range(0..forms.len())];
        let free: u64 = rng.gen::<u64>() & !form.mask;
        let v = form.value | free;
        if !form.matches(v) {
            continue;
        }
        let words: Vec<u32> = if form.size == 64 {
            vec![v as u32, (v >> 32) as u32]
        } else {
            vec![v as u32]
        };
        if runs(&words, iss, keep) {
            return words;
        }
    }
}

/// Assembles one line of cuobjdump's syntax the generator writes.
pub(super) fn assemble(text: &str) -> Vec<u32> {
    flexpmu_isa::cuobjdump::assemble(text).unwrap_or_else(|e| panic!("`{text}`: {e}"))
}

/// The prologue: R1-R31 set to random values (small ones, floats and
/// words), then C0-C3 set by comparing them, so the body computes on
/// varied values rather than on the zeros a launch leaves. R0 keeps what
/// the launch gives it (the thread's index).
pub(super) fn prologue(rng: &mut StdRng) -> Vec<u32> {
    let mut words = Vec::new();
    for register in 1..WHOLE_PROLOGUE_REGISTERS {
        let value: u32 = match rng.gen_range(0..4) {
            0 => rng.gen_range(0..64),
            1 => (rng.gen::<u32>() & 0x83ff_ffff) | 0x3c00_0000,
            _ => rng.gen(),
        };
        words.extend(assemble(&format!("MVI R{register}, {value:#x}")));
    }
    for c in 0..4 {
        words.extend(assemble(&format!(
            "ISET.S32.C{c} o [0x7f], R{}, R{}, {}",
            rng.gen_range(1..WHOLE_PROLOGUE_REGISTERS),
            rng.gen_range(1..WHOLE_PROLOGUE_REGISTERS),
            ["LT", "EQ", "LE", "GT", "NE", "GE"][rng.gen_range(0..6)]
        )));
    }
    words
}

/// A straight-line program: the [`prologue`], `length` random
/// instructions and RET; each word kept where the ISS runs it alone on
/// `probe` ([`probe_spec`]).
pub fn whole_program(rng: &mut StdRng, length: usize, probe: FgpLaunchSpec) -> Vec<u32> {
    let iss = FgpIss::new(probe).expect("a one-warp launch on 8 cores");
    let mut words = prologue(rng);
    for _ in 0..length {
        words.extend(instruction(rng, &iss, Keep::ANY));
    }
    words.extend(RET);
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_word_is_a_form_the_iss_runs_and_the_program_runs_whole() {
        let mut rng = StdRng::seed_from_u64(3);
        let program = whole_program(&mut rng, 24, probe_spec(32, None));
        let listing = flexpmu_isa::cuobjdump::print(&program[..program.len() - 2]);
        assert!(
            listing.is_err(),
            "a program is several words: one form each"
        );
        let mut at = 0;
        let mut operations = std::collections::BTreeSet::new();
        while at < program.len() - 2 {
            let n = if program[at] & 1 == 1 { 2 } else { 1 };
            let words = &program[at..at + n];
            assert!(flexpmu_isa::cuobjdump::print(words).is_ok(), "{words:08x?}");
            let stage = decode_stage::decode(decode_stage::value(words[0], words.get(1).copied()));
            operations.insert(stage.operation.name());
            at += n;
        }
        assert!(operations.len() >= 8, "{operations:?}");
        let iss = FgpIss::new(probe_spec(32, None)).unwrap();
        assert!(iss.run(&program).is_ok());
    }
}
