//! A thread's state and what a run records of it: the types the warp
//! loop and the stages share.

/// Words of each register-file RAM (`vector_register_file.vhd`: 9-bit
/// addresses).
pub const REGISTER_FILE_WORDS: usize = 512;

/// FlexGripPlus' register file: one RAM per lane of a warp (core `c` of
/// pass `p` is lane `p × CORES + c`), shared by the warps, each at its
/// base (warp slot × registers per thread). A register number is added
/// to the base without a bound (9 bits, wrapping): a kernel that uses
/// more registers than its launch gives a thread reads and writes the
/// next warp's (`vector_register_controller.vhd`).
#[derive(Clone, Debug)]
pub struct RegisterFile {
    ram: Vec<[u32; REGISTER_FILE_WORDS]>,
}

impl RegisterFile {
    /// Every word 0, as the RAMs start (their reset is tied off).
    pub fn new() -> Self {
        RegisterFile {
            ram: vec![[0; REGISTER_FILE_WORDS]; 32],
        }
    }

    fn at(thread: &FgpThread, register: u32) -> (usize, usize) {
        (
            thread.lane,
            (thread.base + register) as usize % REGISTER_FILE_WORDS,
        )
    }

    /// Register `register` of `thread`.
    pub fn get(&self, thread: &FgpThread, register: u32) -> u32 {
        let (lane, word) = Self::at(thread, register);
        self.ram[lane][word]
    }

    pub fn set(&mut self, thread: &FgpThread, register: u32, value: u32) {
        let (lane, word) = Self::at(thread, register);
        self.ram[lane][word] = value;
    }
}

impl Default for RegisterFile {
    fn default() -> Self {
        Self::new()
    }
}

/// One thread's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FgpThread {
    pub block: [u16; 2],
    pub tid: [u16; 3],
    /// Its lane in its warp and its warp's register-file base (set when
    /// its round starts).
    pub lane: usize,
    pub base: u32,
    /// Condition-code registers C0-C3 (4 flag bits each).
    pub cc: [u8; 4],
    /// Address registers A1-A4 (index 0 is A1).
    pub addr: [u32; 4],
}

/// A register write: the whole 32-bit register after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteRecord {
    pub register: u16,
    pub value: u32,
    /// Byte address of the instruction.
    pub pc: u32,
}

/// A condition-code register write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagRecord {
    pub register: u8,
    pub value: u8,
    pub pc: u32,
}

/// A byte stored to global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreRecord {
    pub address: u32,
    pub value: u8,
    pub thread: usize,
    pub pc: u32,
}

/// What a run records.
#[derive(Clone, Debug)]
pub struct Records {
    /// Whether writes are recorded at all (a run for its end state only).
    pub enabled: bool,
    pub writes: Vec<Vec<WriteRecord>>,
    pub flags: Vec<Vec<FlagRecord>>,
    pub stores: Vec<StoreRecord>,
}

impl Records {
    /// Records for `threads` threads (none when `enabled` is false).
    pub fn new(threads: usize, enabled: bool) -> Self {
        let threads = if enabled { threads } else { 0 };
        Records {
            enabled,
            writes: vec![Vec::new(); threads],
            flags: vec![Vec::new(); threads],
            stores: Vec::new(),
        }
    }
}
