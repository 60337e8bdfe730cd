//! flexpmu's reference ISS on the same launch, every write recorded per
//! thread in program order, with its PMEVENT reads answered by the values
//! FlexGripPlus read (a counter's count is the PMU's business, compared on
//! its own; what a kernel computes from it is the ISS's).

use std::collections::{BTreeMap, HashMap};

use flexpmu_isa::g80::Instruction;
use flexpmu_isa::pmevent::PmuCommand;
use flexpmu_sim::gpu::iss::{
    read32, GlobalMemory, Iss, IssError, IssResult, ThreadState, WarpContext, DISCARD_REGISTER,
    WARP_SIZE,
};
use flexpmu_sim::gpu::sm::SmRun;

use crate::streams::Streams;

/// A register write of one thread on the ISS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    pub register: u8,
    /// The whole register after the write (a 16-bit write keeps the
    /// other half).
    pub value: u32,
    /// Word address of the instruction.
    pub address: usize,
}

/// A condition-code write of one thread on the ISS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagSet {
    pub register: u8,
    pub flags: u8,
    pub address: usize,
}

/// A PMEVENT read of one warp: what FlexGripPlus read and what the SM
/// slice read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    pub warp: u32,
    /// Word address of the PMEVENT.
    pub address: usize,
    pub counter: u8,
    pub register: u8,
    /// FlexGripPlus' value (its write for the warp's first active thread);
    /// `None` if FlexGripPlus wrote no such register there.
    pub flexgripplus: Option<u32>,
    /// The SM slice's value, if it made this read.
    pub slice: Option<u32>,
}

/// What the ISS did.
#[derive(Clone, Debug)]
pub struct Reference {
    pub result: IssResult,
    /// Per thread.
    pub writes: Vec<Vec<Write>>,
    pub flags: Vec<Vec<FlagSet>>,
    pub reads: Vec<Read>,
    /// The last store to each word (where it lands): (thread, instruction
    /// address).
    pub stores: BTreeMap<u32, (usize, usize)>,
}

/// The register an instruction writes, and whether it writes only a half.
fn destination(instruction: &Instruction, pmu: bool) -> Option<u8> {
    let register = match *instruction {
        Instruction::MovU16 { dst, .. } => dst.register().0,
        Instruction::I2iU32U16 { dst, .. }
        | Instruction::ImadU16 { dst, .. }
        | Instruction::Shl { dst, .. }
        | Instruction::Iadd32 { dst, .. }
        | Instruction::GldU32 { dst, .. }
        | Instruction::Iset { dst, .. }
        | Instruction::Iadd32i { dst, .. } => dst.0,
        Instruction::Pmevent(event) if pmu && event.command == PmuCommand::Idl => event.dest?,
        _ => return None,
    };
    // A write of field 127 is dropped (of a half: field 127 is R63H).
    let field = match *instruction {
        Instruction::MovU16 { dst, .. } => dst.0,
        _ => register,
    };
    (field != DISCARD_REGISTER).then_some(register)
}

/// Runs `program` on `iss`, answering each warp's PMEVENT reads from
/// FlexGripPlus' writes (`streams`), and records every write.
pub fn run(
    iss: &mut Iss,
    program: &[u32],
    streams: &Streams,
    slice: &SmRun,
    address_bits: u8,
) -> Result<Reference, IssError> {
    let threads = iss.launch_state().threads.len();
    let mut flags: Vec<Vec<FlagSet>> = vec![Vec::new(); threads];
    let mut stores = BTreeMap::new();
    let mut reads = Vec::new();
    // The slice's reads of each warp, in order.
    let mut slice_reads: HashMap<u32, std::collections::VecDeque<u32>> = HashMap::new();
    for read in &slice.pmu_reads {
        slice_reads
            .entry(read.warp)
            .or_default()
            .push_back(read.value);
    }
    let pmu = slice.pmu;
    let mask = if address_bits >= 32 {
        u32::MAX
    } else {
        (1u32 << address_bits) - 1
    };
    // The callback runs before the instruction's writes, the observer
    // after them: `writes` counts a thread's writes so far.
    let writes_cell = std::cell::RefCell::new(vec![Vec::<Write>::new(); threads]);
    let answer = |warp: &WarpContext, event: flexpmu_isa::pmevent::Pmevent| -> Option<u32> {
        if !pmu {
            return None;
        }
        if event.command != PmuCommand::Idl {
            return Some(0);
        }
        let slice_value = slice_reads.get_mut(&warp.warp).and_then(|r| r.pop_front());
        let first = (0..WARP_SIZE)
            .find(|lane| warp.active & (1 << lane) != 0)
            .map(|lane| warp.first_thread + lane as usize);
        let register = event.dest.unwrap_or_default();
        let fgp = first.and_then(|thread| {
            let done = writes_cell.borrow()[thread].len();
            streams.writes[thread]
                .get(done)
                .filter(|w| w.register == u16::from(register))
                .and_then(|w| w.value)
        });
        reads.push(Read {
            warp: warp.warp,
            address: warp.address,
            counter: event.counter,
            register,
            flexgripplus: fgp,
            slice: slice_value,
        });
        Some(fgp.or(slice_value).unwrap_or(0))
    };
    let observe =
        |warp: &WarpContext, instruction: &Instruction, state: &[ThreadState], _: &GlobalMemory| {
            let lanes = (0..WARP_SIZE)
                .filter(|lane| warp.active & (1 << lane) != 0)
                .map(|lane| warp.first_thread + lane as usize);
            if let Some(register) = destination(instruction, pmu) {
                let mut writes = writes_cell.borrow_mut();
                for thread in lanes.clone() {
                    writes[thread].push(Write {
                        register,
                        value: state[thread].regs[usize::from(register)],
                        address: warp.address,
                    });
                }
            }
            match *instruction {
                Instruction::Iset { cc: Some(cc), .. } => {
                    for thread in lanes {
                        flags[thread].push(FlagSet {
                            register: cc,
                            flags: state[thread].cc[usize::from(cc)],
                            address: warp.address,
                        });
                    }
                }
                Instruction::GstU32 { addr, .. } => {
                    for thread in lanes {
                        let at = read32(&state[thread].regs, addr);
                        for byte in 0..4 {
                            let landed = at.wrapping_add(byte) & mask & !3;
                            stores.insert(landed, (thread, warp.address));
                        }
                    }
                }
                _ => {}
            }
        };
    let result = iss.run_observed(program, answer, observe)?;
    Ok(Reference {
        result,
        writes: writes_cell.into_inner(),
        flags,
        reads,
        stores,
    })
}
