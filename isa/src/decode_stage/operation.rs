//! Which operation the decode stage gives a word: `instr_opcode`'s class
//! refined by `mov_opcode` and `mov_mem_type`, `alu_opcode` or
//! `flow_opcode` (DEC:465-549).

/// The operation, by the decode stage's opcode signals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    // The MOV class (`mov_opcode` and `mov_mem_type`).
    /// MOV, MOV32, MVI (the immediate marker): a register or `g[]` move.
    Mov,
    /// MVC: a constant-memory load.
    LoadConst,
    /// G2R: a shared-memory load.
    LoadShared,
    /// R2G: a shared-memory store.
    StoreShared,
    /// R2A: an address register from a general register, shifted.
    LoadAddress,
    /// ADA: an address register from another plus an immediate.
    AddAddress,
    /// A2R: a general register from an address register.
    StoreAddress,
    /// GLD.
    LoadGlobal,
    /// GST.
    StoreGlobal,
    /// Local-memory load ("not working" in FlexGripPlus' own comment).
    LoadLocal,
    /// Local-memory store (the same).
    StoreLocal,
    /// A condition-code register into a general one.
    LoadFlags,
    /// A general register into a condition-code register.
    StoreFlags,
    // The ALU class (`alu_opcode`).
    Iadd,
    /// IADD with carry in (`IADD.CARRYn`): opcode 0011, bit 22.
    Iaddc,
    /// IADD with the first source negated (`IADD Rd, -Ra, Rb`).
    Isub,
    /// ISET.
    Set,
    Max,
    Min,
    Shl,
    Shr,
    /// IMUL, IMUL32, IMUL32I (24-bit).
    Imul24,
    /// IMAD, IMAD32I (24-bit).
    Imad24,
    /// IMAD with carry in (bits 59..58 = 11).
    Imad24c,
    /// I2I, I2F, F2I, F2F: by [`Stage::subop`].
    Cvt,
    And,
    Or,
    Xor,
    /// LOP.PASS_B (`NEG_OP`: FlexGripPlus computes NOT of source 1).
    Neg,
    Fadd,
    Fmul,
    Fmad,
    Fset,
    Rcp,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Rsq,
    /// RRO for SIN/COS.
    RroSin,
    /// RRO for EX2.
    RroEx2,
    // The FLOW class (`flow_opcode`).
    /// BRA.
    Branch,
    /// CAL.
    Call,
    /// RET.
    Return,
    /// PBK.
    PreBreak,
    /// BRK.
    Break,
    /// BAR.
    Barrier,
    /// SSY: pushes a reconvergence point (FlexGripPlus' `JOIN`).
    Sync,
    /// NOP (opcode 1111, whatever the flow bit).
    Nop,
    /// A word the decode stage gives no operation.
    Unknown(Unknown),
}

impl Operation {
    /// What FlexGripPlus makes of a word, for messages: `FlexGripPlus:
    /// FMUL`, or why its decode stage gives the word no operation.
    pub fn described(self) -> String {
        match self {
            Operation::Unknown(why) => format!("FlexGripPlus: {}", why.reason()),
            operation => format!("FlexGripPlus: {}", operation.name()),
        }
    }

    /// The operation as listings name it (`IADD`, `MVC`, `LOP.PASS_B`),
    /// or "no operation" for an unknown word.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Mov => "MOV",
            Operation::LoadConst => "MVC",
            Operation::LoadShared => "G2R",
            Operation::StoreShared => "R2G",
            Operation::LoadAddress => "R2A",
            Operation::AddAddress => "ADA",
            Operation::StoreAddress => "A2R",
            Operation::LoadGlobal => "GLD",
            Operation::StoreGlobal => "GST",
            Operation::LoadLocal => "local load",
            Operation::StoreLocal => "local store",
            Operation::LoadFlags => "flags load",
            Operation::StoreFlags => "flags store",
            Operation::Iadd => "IADD",
            Operation::Iaddc => "IADD.CARRY",
            Operation::Isub => "IADD -a (ISUB)",
            Operation::Set => "ISET",
            Operation::Max => "IMAX",
            Operation::Min => "IMIN",
            Operation::Shl => "SHL",
            Operation::Shr => "SHR",
            Operation::Imul24 => "IMUL",
            Operation::Imad24 => "IMAD",
            Operation::Imad24c => "IMAD.CARRY",
            Operation::Cvt => "I2I/I2F/F2I/F2F",
            Operation::And => "LOP.AND",
            Operation::Or => "LOP.OR",
            Operation::Xor => "LOP.XOR",
            Operation::Neg => "LOP.PASS_B",
            Operation::Fadd => "FADD",
            Operation::Fmul => "FMUL",
            Operation::Fmad => "FMAD",
            Operation::Fset => "FSET",
            Operation::Rcp => "RCP",
            Operation::Sin => "SIN",
            Operation::Cos => "COS",
            Operation::Lg2 => "LG2",
            Operation::Ex2 => "EX2",
            Operation::Rsq => "RSQ",
            Operation::RroSin => "RRO (SIN)",
            Operation::RroEx2 => "RRO (EX2)",
            Operation::Branch => "BRA",
            Operation::Call => "CAL",
            Operation::Return => "RET",
            Operation::PreBreak => "PBK",
            Operation::Break => "BRK",
            Operation::Barrier => "BAR",
            Operation::Sync => "SSY",
            Operation::Nop => "NOP",
            Operation::Unknown(_) => "no operation",
        }
    }
}

/// Why the decode stage gives a word no operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unknown {
    /// Opcodes 0101, 0111 and 1000 without the flow bit: no class (the
    /// word runs as a no-op; flexpmu's PMEVENT uses 0111).
    NoClass,
    /// A MOV-class word whose opcode and sub-opcode name no move.
    NoMove,
    /// An ALU-class word whose opcode, sub-opcode and function name no
    /// operation (the scalar processor's result is 0).
    NoAluOperation,
    /// A flow word whose opcode names no flow operation (the branch unit
    /// never answers: the warp would hang).
    NoFlowOperation,
}

impl Unknown {
    /// Why, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Unknown::NoClass => "opcode 0101, 0111 or 1000 without the flow bit has no class in FlexGripPlus' decode stage",
            Unknown::NoMove => "a MOV-class opcode and sub-opcode FlexGripPlus' decode stage names no move for",
            Unknown::NoAluOperation => "an ALU-class opcode, sub-opcode and function FlexGripPlus' decode stage names no operation for",
            Unknown::NoFlowOperation => "a flow opcode FlexGripPlus' decode stage names no flow operation for",
        }
    }
}

/// `mov_opcode` with `mov_mem_type` (DEC:477-498): the move.
pub(super) fn mov_operation(op: u8, subop: u8, long: bool) -> Option<Operation> {
    use Operation as O;
    Some(match (op, subop) {
        (0, 1) => O::LoadFlags,
        (0, 5) => O::StoreFlags,
        (0, 2) => O::StoreAddress,
        (0, 6) => O::LoadAddress,
        (0, 7) => O::StoreShared,
        (1, 0) => O::Mov,
        (1, _) if !long => O::Mov,
        (1, 1) => O::LoadConst,
        (1, 2) => O::LoadShared,
        (13, 1) => O::AddAddress,
        (13, 2) => O::LoadLocal,
        (13, 3) => O::StoreLocal,
        (13, 4) => O::LoadGlobal,
        (13, 5) => O::StoreGlobal,
        _ => return None,
    })
}

/// `alu_opcode` (DEC:502-539).
pub(super) fn alu_operation(
    op: u8,
    subop: u8,
    logic: u32,
    long: bool,
    carry: bool,
    flow: bool,
) -> Option<Operation> {
    use Operation as O;
    let nf = !flow;
    Some(match op {
        2 if nf => O::Iadd,
        3 if nf && (subop == 0 || !long) => match carry {
            true => O::Iaddc,
            false => O::Isub,
        },
        3 if nf => match subop {
            3 => O::Set,
            4 => O::Max,
            5 => O::Min,
            6 => O::Shl,
            7 => O::Shr,
            _ => return None,
        },
        4 if nf => O::Imul24,
        6 if nf => match carry {
            true => O::Imad24c,
            false => O::Imad24,
        },
        10 if nf => O::Cvt,
        13 if nf && subop == 0 => match logic {
            0 => O::And,
            1 => O::Or,
            2 => O::Xor,
            _ => O::Neg,
        },
        11 => match (subop, logic) {
            (0, _) => O::Fadd,
            (3, _) => O::Fset,
            (6, 0) => O::RroSin,
            (6, 1) => O::RroEx2,
            _ => return None,
        },
        12 if subop == 0 => O::Fmul,
        14 if subop == 0 => O::Fmad,
        9 => match subop {
            0 => O::Rcp,
            2 => O::Rsq,
            3 => O::Lg2,
            4 => O::Sin,
            5 => O::Cos,
            6 => O::Ex2,
            _ => return None,
        },
        _ => return None,
    })
}

/// `flow_opcode` (DEC:542-549).
pub(super) fn flow_operation(op: u8) -> Option<Operation> {
    use Operation as O;
    Some(match op {
        1 => O::Branch,
        2 => O::Call,
        3 => O::Return,
        4 => O::PreBreak,
        5 => O::Break,
        8 => O::Barrier,
        10 => O::Sync,
        _ => return None,
    })
}
