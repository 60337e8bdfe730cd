//! A launch as FlexGripPlus takes it: the configuration registers its
//! host writes (`gpgpu_configuration.vhd`), the kernel in its instruction
//! memory and the global memory's first contents, as the files flexpmu's
//! testbench reads when the simulation starts.

use flexpmu_sim::gpu::gpgpu_rtl::{RtlLaunch, CONFIG_WORDS};
use flexpmu_sim::gpu::iss::{GlobalMemory, Iss, MemoryModel, FLEXGRIPPLUS_GMEM_ADDR_BITS};

use crate::CosimError;

/// Words FlexGripPlus' instruction memory holds (`system_memory_cntlr.vhd`).
pub const INSTRUCTION_WORDS: usize = 65_536;

/// Bytes of FlexGripPlus' global memory (`GMEM_ADDR_SIZE` = 18).
pub const GLOBAL_BYTES: usize = 1 << FLEXGRIPPLUS_GMEM_ADDR_BITS;

/// Bytes of its constant memory (`uConstantMemory`'s `RAM_SIZE`).
pub const CONSTANT_BYTES: usize = 8192;

pub use flexpmu_sim::gpu::gpgpu_rtl::MAX_PARAMS;

/// The files of one launch, written into the folder the simulation runs
/// in; the names are those the testbench and FlexGripPlus' memories open.
#[derive(Clone, Debug)]
pub struct LaunchFiles {
    /// (name, text).
    pub files: Vec<(&'static str, String)>,
}

/// One launch on FlexGripPlus.
#[derive(Clone, Debug)]
pub struct FgpLaunch {
    pub blocks_per_core: u32,
    pub registers: u32,
    /// Shared memory a block declares (bytes).
    pub shared_bytes: u32,
    pub block: [u16; 3],
    pub grid: [u16; 2],
    pub params: Vec<u32>,
    pub program: Vec<u32>,
    /// Global memory before the kernel, from address 0 (`None`: a byte
    /// FlexGripPlus' image leaves undefined; past the end, 0).
    pub global: Vec<Option<u8>>,
    /// Constant memory before the kernel, from address 0 (the rest 0).
    pub constant: Vec<u8>,
    /// The testbench gives up after this many cycles.
    pub max_cycles: u64,
}

impl FgpLaunch {
    /// `iss`'s launch (geometry, parameters, memory) of `program` with
    /// `registers` per thread and `blocks_per_core`; an error if
    /// FlexGripPlus cannot take it as flexpmu would run it.
    pub fn new(
        iss: &Iss,
        program: &[u32],
        registers: u32,
        blocks_per_core: u32,
        max_cycles: u64,
    ) -> Result<FgpLaunch, CosimError> {
        let memory = iss.memory().clone();
        let flexgripplus = MemoryModel::Flat {
            address_bits: FLEXGRIPPLUS_GMEM_ADDR_BITS,
        };
        if memory.model() != flexgripplus {
            return Err(CosimError::Launch(format!(
                "FlexGripPlus' global memory is a flat {FLEXGRIPPLUS_GMEM_ADDR_BITS}-bit one: run with its memory (--memory flexgripplus --gmem-bits {FLEXGRIPPLUS_GMEM_ADDR_BITS})"
            )));
        }
        if program.len() > INSTRUCTION_WORDS {
            return Err(CosimError::Launch(format!(
                "the kernel has {} words, FlexGripPlus' instruction memory {INSTRUCTION_WORDS}",
                program.len()
            )));
        }
        if iss.params().len() > MAX_PARAMS {
            return Err(CosimError::Launch(format!(
                "{} kernel parameters, FlexGripPlus' configuration registers hold {MAX_PARAMS}",
                iss.params().len()
            )));
        }
        let geometry = iss.geometry();
        FgpLaunch {
            blocks_per_core,
            registers,
            shared_bytes: 0,
            block: geometry.block(),
            grid: geometry.grid(),
            params: iss.params().to_vec(),
            program: program.to_vec(),
            global: memory_bytes(&memory).into_iter().map(Some).collect(),
            constant: Vec::new(),
            max_cycles,
        }
        .checked()
    }

    /// `self`, or an error if FlexGripPlus' memories and configuration
    /// registers cannot hold it.
    pub fn checked(self) -> Result<FgpLaunch, CosimError> {
        let limits = [
            (
                self.program.len(),
                INSTRUCTION_WORDS,
                "the kernel has",
                "words, FlexGripPlus' instruction memory",
            ),
            (
                self.params.len(),
                MAX_PARAMS,
                "the launch has",
                "kernel parameters, FlexGripPlus' configuration registers hold",
            ),
            (
                self.global.len(),
                GLOBAL_BYTES,
                "the global-memory image has",
                "bytes, FlexGripPlus' global memory",
            ),
            (
                self.constant.len(),
                CONSTANT_BYTES,
                "the constant-memory image has",
                "bytes, FlexGripPlus' constant memory",
            ),
        ];
        for (count, limit, what, holds) in limits {
            if count > limit {
                return Err(CosimError::Launch(format!(
                    "{what} {count} {holds} {limit}"
                )));
            }
        }
        Ok(self)
    }

    /// The first ten configuration registers, with what each holds.
    fn config(&self) -> [(u32, &'static str); CONFIG_WORDS] {
        [
            (self.blocks_per_core, "blocks per core"),
            (self.registers, "registers per thread"),
            (self.shared_bytes, "shared memory bytes"),
            (self.params.len() as u32, "parameter words"),
            (0, "dynamic shared memory bytes"),
            (u32::from(self.block[0]), "block x"),
            (u32::from(self.block[1]), "block y"),
            (u32::from(self.block[2]), "block z"),
            (u32::from(self.grid[0]), "grid x"),
            (u32::from(self.grid[1]), "grid y"),
        ]
    }

    /// The launch as the imported GPGPU's harness takes it (the same
    /// configuration writes, kernel and memory image as [`files`](Self::files)).
    pub fn rtl(&self) -> RtlLaunch {
        RtlLaunch {
            config: self.config().map(|(value, _)| value),
            params: self.params.clone(),
            program: self.program.clone(),
            global: self.global.iter().map(|b| b.unwrap_or(0)).collect(),
            constant: self.constant.clone(),
            max_cycles: self.max_cycles.min(0x7fff_ffff),
        }
    }

    /// The files the testbench and FlexGripPlus' memories read.
    pub fn files(&self) -> LaunchFiles {
        let mut config: Vec<(u64, &str)> = self
            .config()
            .iter()
            .map(|&(v, what)| (u64::from(v), what))
            .collect();
        config.push((self.max_cycles.min(0x7fff_ffff), "cycle bound"));
        let mut launch = String::new();
        for (value, what) in config {
            launch += &format!("{value:08x} {what}\n");
        }
        for (i, param) in self.params.iter().enumerate() {
            launch += &format!("{param:08x} parameter {i}\n");
        }
        let program: String = self.program.iter().map(|w| format!("{w:08x}\n")).collect();
        LaunchFiles {
            files: vec![
                ("flexpmu_cosim_launch.txt", launch),
                ("system_mem.mif", program),
                ("global_mem.mif", image(&self.global, GLOBAL_BYTES)),
                (
                    "constant_mem.mif",
                    image(
                        &self.constant.iter().map(|&b| Some(b)).collect::<Vec<_>>(),
                        CONSTANT_BYTES,
                    ),
                ),
            ],
        }
    }
}

/// The global memory's bytes from address 0, as FlexGripPlus holds them
/// (little-endian words), up to the last non-zero byte.
fn memory_bytes(memory: &GlobalMemory) -> Vec<u8> {
    let mut bytes: Vec<u8> = Vec::new();
    for (address, word) in memory.iter() {
        if word == 0 {
            continue;
        }
        let end = address as usize + 4;
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[address as usize..end].copy_from_slice(&word.to_le_bytes());
    }
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    bytes
}

/// A memory's initialisation file (`dp_ram`'s `init_mem`): one byte a
/// line, for every one of its `size` bytes (GHDL 2.0 overflows its
/// stack reading a short file into the 262,144-byte global memory:
/// 128 lines do, 80,000 do not); an undefined byte as the one-digit
/// line `0`, which `hread` leaves undefined, as FlexGripPlus' own images
/// have it.
fn image(bytes: &[Option<u8>], size: usize) -> String {
    let mut text = String::with_capacity(size * 3);
    for address in 0..size {
        match bytes.get(address) {
            Some(Some(byte)) => text += &format!("{byte:02x}\n"),
            Some(None) => text += "0\n",
            None => text += "00\n",
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexpmu_sim::gpu::iss::Geometry;
    use flexpmu_sim::gpu::vector_add::VectorAdd;

    #[test]
    fn the_memory_image_is_little_endian_bytes_where_flexgripplus_puts_them() {
        let launch = VectorAdd::new(Geometry::threads(2).unwrap());
        let iss = launch.iss().unwrap();
        let fgp = FgpLaunch::new(&iss, &[0x30000003], 6, 2, 1000).unwrap();
        let files = fgp.files();
        let image = &files.files[2].1;
        let bytes: Vec<&str> = image.lines().collect();
        // A lands at byte 0 (0x100000 keeps its low 18 bits).
        let a0 = launch.a[0].to_le_bytes();
        assert_eq!(bytes[..4], a0.map(|b| format!("{b:02x}"))[..]);
        // C (0xdeadbeef) is the last thing in memory; every byte has its line.
        assert_eq!(bytes.len(), GLOBAL_BYTES);
        let end = (launch.c_base & 0x3ffff) as usize + 8;
        assert_eq!(bytes[end - 4..end], ["ef", "be", "ad", "de"]);
        assert!(bytes[end..].iter().all(|&b| b == "00"));
        assert_eq!(files.files[3].1, "00\n".repeat(CONSTANT_BYTES));
        let config = &files.files[0].1;
        assert!(config.starts_with("00000002 blocks per core\n00000006 registers per thread\n"));
        assert!(config.ends_with("00120000 parameter 2\n"), "{config}");
        let protected = launch
            .clone()
            .with_memory(MemoryModel::Protected)
            .iss()
            .unwrap();
        assert!(FgpLaunch::new(&protected, &[0], 6, 2, 1000).is_err());
    }

    #[test]
    fn an_undefined_byte_is_a_one_digit_line_and_constants_have_their_file() {
        let launch = VectorAdd::new(Geometry::threads(2).unwrap());
        let iss = launch.iss().unwrap();
        let mut fgp = FgpLaunch::new(&iss, &[0x30000003], 6, 2, 1000).unwrap();
        fgp.global = vec![Some(0x12), None, Some(0xab)];
        fgp.constant = vec![0xff, 0x03];
        fgp.shared_bytes = 44;
        let files = fgp.files();
        assert!(files.files[2].1.starts_with("12\n0\nab\n00\n"));
        assert!(files.files[3].1.starts_with("ff\n03\n00\n"));
        assert!(files.files[0].1.contains("0000002c shared memory bytes\n"));
        let rtl = fgp.rtl();
        assert_eq!(
            (rtl.global, rtl.constant),
            (vec![0x12, 0, 0xab], vec![0xff, 3])
        );
        assert_eq!(rtl.config[2], 44);
        fgp.constant = vec![0; CONSTANT_BYTES + 1];
        let e = fgp.checked().unwrap_err().to_string();
        assert_eq!(
            e,
            "the constant-memory image has 8193 bytes, FlexGripPlus' constant memory 8192"
        );
    }
}
