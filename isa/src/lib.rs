//! Instruction encodings of flexpmu, and the tools that read and write
//! programs.
//!
//! * [`word`]: instruction words of FlexGripPlus (fields, the opcode, the
//!   flow-control and 64-bit bits, `RET`);
//! * [`pmu_command`] and [`pmevent`]: the PMU command encoding and the
//!   thesis' PMEVENT instruction;
//! * [`decode_stage`]: what FlexGripPlus' decode stage makes of any word
//!   of its whole instruction set;
//! * [`g80`]: the G80 SASS subset of the appendix-A kernel, with the
//!   reference decoder;
//! * [`asm`], [`disasm`], [`rom`], [`tp_rom`], [`cuobjdump`]: the
//!   assembler, the disassembler, hex word lists, FlexGripPlus'
//!   `TP_instructions.vhd` and cuobjdump's `.sass` listings.
//!
//! Everything else takes encodings from here: the hardware decoders in
//! `flexpmu-hdl` use these constants rather than repeating them.

pub mod asm;
pub mod cuobjdump;
pub mod decode_stage;
pub mod disasm;
pub mod g80;
pub mod listing;
pub mod pmevent;
pub mod pmu_command;
pub mod rom;
pub mod source;
pub mod tp_rom;
pub mod word;

pub use pmu_command::PmuCommand;
