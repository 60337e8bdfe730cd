//! The fields of FlexGripPlus' `pipeline_decode` that the kit's decode
//! hook replaces for a PMU read: the wrapper's ports and the edit of
//! `uPipelineDecode`'s port map (step 2 of the kit's README) both follow
//! this list.

/// The decode-side fields a PMU read replaces: (port stem, FlexGripPlus
/// type, value during a read, what FlexGripPlus' stages do with it).
pub const DECODE_FIELDS: [(&str, &str, &str, &str); 11] = [
    (
        "instr_opcode",
        "instr_opcode_type",
        "MOV",
        "a register move: execute passes read's temporaries on to write (2 cycles)",
    ),
    (
        "mov_opcode",
        "mov_opcode_type",
        "MOV",
        "register-to-register move",
    ),
    (
        "src1_mem_type",
        "mem_type",
        "UNKNOWN",
        "no source operand is read",
    ),
    (
        "src2_mem_type",
        "mem_type",
        "UNKNOWN",
        "no source operand is read",
    ),
    (
        "src3_mem_type",
        "mem_type",
        "UNKNOWN",
        "no source operand is read",
    ),
    (
        "src1_data_type",
        "data_type",
        "DT_NONE",
        "no source operand is read",
    ),
    (
        "src2_data_type",
        "data_type",
        "DT_NONE",
        "no source operand is read",
    ),
    (
        "src3_data_type",
        "data_type",
        "DT_NONE",
        "no source operand is read",
    ),
    (
        "dest_mem_type",
        "mem_type",
        "REG",
        "write goes to WRITE_GPRS",
    ),
    ("dest_mem_opcode", "mem_opcode_type", "WRITE", "a write"),
    (
        "dest_data_type",
        "data_type",
        "DT_U32",
        "a 32-bit register write",
    ),
];
