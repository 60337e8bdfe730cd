//! The SM slice's hardware: the G80 subset decoder, the decode stage
//! (FlexGripPlus handshake, subset decoder, PMEVENT hook), the integer ALU
//! and the eight-lane execute stage (with the PMU hook), and the core that
//! joins both stages to a PMU monitoring 16 SM signals.

pub mod core;
pub mod decode_stage;
pub mod execute_stage;
pub mod integer_alu;
pub mod subset_decoder;

pub use self::core::{MonitoredSignal, SmCore, MONITOR_MAP};
pub use decode_stage::DecodeStage;
pub use execute_stage::ExecuteStage;
pub use integer_alu::IntegerAlu;
pub use subset_decoder::SubsetDecoder;
