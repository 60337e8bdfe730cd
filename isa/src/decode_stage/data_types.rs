//! The data type of each operand and how the memory is accessed
//! (DEC:818-1093): `src1_data_type` … `dest_data_type`, the `READ` /
//! `READ_GATHER` opcodes of the sources and the destination's
//! `WRITE_SCATTER`. The read and write stages take an operand's width,
//! its half-register numbering and its memory access from these.

use super::{Class, Marker, Operation};

/// `data_type` (gpgpu_package.vhd).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    U128,
    F32,
    /// `DT_NONE`: the operand is not read (or written).
    None,
}

impl DataType {
    /// Whether the register file numbers this type's operands by half
    /// register (`vector_register_controller.vhd`: U16, S16, U8, S8).
    pub fn is_half(self) -> bool {
        matches!(
            self,
            DataType::U8 | DataType::S8 | DataType::U16 | DataType::S16
        )
    }

    /// `reg_to_data_type` (DEC:905-908).
    pub fn of_register(w32: bool, signed: bool) -> DataType {
        match (w32, signed) {
            (false, false) => DataType::U16,
            (false, true) => DataType::S16,
            (true, true) => DataType::S32,
            (true, false) => DataType::U32,
        }
    }

    /// `data_type_mov_size_i` (DEC:915-923): a global or local access.
    pub fn of_mov_size(mov_size: u8) -> DataType {
        use DataType as T;
        [
            T::U8,
            T::S8,
            T::U16,
            T::S16,
            T::U64,
            T::U128,
            T::U32,
            T::S32,
        ][usize::from(mov_size & 7)]
    }

    /// `mov_size_to_data_type` (DEC:910-913): a shared store's size.
    pub fn of_shared_store_size(mov_size: u8) -> DataType {
        match mov_size & 7 {
            0 => DataType::U16,
            1 => DataType::U32,
            2 => DataType::U8,
            _ => DataType::U32,
        }
    }

    /// `sm_type_to_data_type` (DEC:925-930), of bits 48..46.
    pub fn of_mem_type(mem_type: u8) -> DataType {
        use DataType as T;
        [T::U8, T::U16, T::S16, T::U32][usize::from((mem_type & 7).min(3))]
    }

    /// `cvt_type_to_data_type` (DEC:932-940).
    pub fn of_cvt_type(cvt_type: u8) -> DataType {
        use DataType as T;
        [T::U16, T::U32, T::U8, T::U32, T::S16, T::S32, T::S8, T::U32][usize::from(cvt_type & 7)]
    }

    /// `subop_to_data_type` (DEC:942-950).
    pub fn of_subop(subop: u8) -> DataType {
        use DataType as T;
        [
            T::U16,
            T::S16,
            T::S16,
            T::U32,
            T::S32,
            T::S32,
            T::U32,
            T::S32,
        ][usize::from(subop & 7)]
    }
}

/// The operands' data types and memory accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub src1: DataType,
    pub src2: DataType,
    pub src3: DataType,
    pub dest: DataType,
    /// `READ_GATHER`: the address is formed per thread (effective
    /// address), not one for the warp.
    pub src1_gather: bool,
    pub src2_gather: bool,
    pub src3_gather: bool,
    /// `WRITE_SCATTER` (R2G, GST, a local store).
    pub dest_scatter: bool,
}

/// What [`access`] reads of the decoded word.
pub(super) struct Fields {
    pub class: Class,
    pub operation: Operation,
    pub marker: Marker,
    pub w32: bool,
    pub signed: bool,
    pub subop: u8,
    pub mov_size: u8,
    /// Bits 48..46 (`mem_type`).
    pub type_bits: u8,
    /// `cvt_type` (bits 48..46 but with the immediate marker, 0).
    pub cvt_type: u8,
    pub src1_shared: bool,
    pub src2_const: bool,
    pub src3_const: bool,
    pub addr_reg: u8,
}

/// The data types and accesses of a decoded word (DEC:818-1093).
pub(super) fn access(f: &Fields) -> Access {
    use DataType as T;
    use Operation as O;
    let op = f.operation;
    let alu = f.class == Class::Alu;
    let mov = f.class == Class::Mov;
    let reg = T::of_register(f.w32, f.signed);
    let full = f.marker.is_full();
    let imm = f.marker == Marker::Immediate;
    let half = f.marker == Marker::Half;
    let logic = matches!(op, O::And | O::Or | O::Xor | O::Neg);
    let lw = if f.w32 { T::U32 } else { T::U16 };
    let flow_or_nop = matches!(f.class, Class::Flow | Class::Nop);
    // src1_data_type_i (DEC:955-994).
    let src1 = if flow_or_nop {
        T::None
    } else if alu && matches!(op, O::Imad24 | O::Imad24c) {
        T::of_subop(f.subop)
    } else if alu && matches!(op, O::Imul24 | O::Iadd) {
        reg
    } else if alu && logic {
        lw
    } else if alu && op == O::Cvt {
        // CVT's line comes before the F32 one: a float conversion's
        // source too has its cvt_type's type.
        T::of_cvt_type(f.cvt_type)
    } else if alu && op == O::Set {
        T::of_subop(f.subop)
    } else if alu && matches!(op, O::Fadd | O::Fmul | O::Fmad | O::Fset | O::Rcp) {
        T::F32
    } else if mov && op == O::Mov && full {
        reg
    } else if mov && op == O::Mov && imm {
        T::None
    } else if mov && op == O::Mov && half {
        reg
    } else if mov && op == O::LoadShared {
        T::of_mem_type(f.type_bits)
    } else if mov && op == O::StoreShared {
        T::None
    } else if mov && matches!(op, O::LoadConst | O::StoreGlobal) {
        T::U32
    } else if mov && matches!(op, O::LoadGlobal | O::StoreLocal | O::LoadLocal) {
        T::of_mov_size(f.mov_size)
    } else if mov {
        T::U32
    } else if alu && matches!(op, O::Shl | O::Shr) {
        reg
    } else {
        T::U32
    };
    // src2_data_type_i (DEC:996-1032).
    let src2 = if flow_or_nop {
        T::None
    } else if alu && matches!(op, O::Imad24 | O::Imad24c) {
        T::of_subop(f.subop)
    } else if alu && matches!(op, O::Imul24 | O::Iadd | O::Isub) {
        reg
    } else if alu && logic {
        lw
    } else if alu && op == O::Cvt {
        T::None
    } else if alu && op == O::Set {
        T::of_subop(f.subop)
    } else if alu && matches!(op, O::Fadd | O::Fmul | O::Fmad | O::Fset) {
        T::F32
    } else if mov && op == O::Mov && imm {
        reg
    } else if mov && op == O::LoadConst {
        T::of_mem_type(f.type_bits)
    } else if mov {
        T::None
    } else if alu && matches!(op, O::Shl | O::Shr) {
        T::U32
    } else {
        T::None
    };
    // dest_data_type_i (DEC:1060-1093).
    let dest = if flow_or_nop {
        T::None
    } else if alu && matches!(op, O::Imad24 | O::Imad24c | O::Imul24) {
        T::U32
    } else if alu && matches!(op, O::Iadd | O::Cvt) {
        reg
    } else if alu && logic {
        lw
    } else if alu && matches!(op, O::Fadd | O::Fmul | O::Fmad | O::Fset | O::Rcp) {
        T::F32
    } else if mov && matches!(op, O::Mov | O::LoadShared | O::LoadConst) {
        reg
    } else if mov && op == O::StoreShared {
        T::of_shared_store_size(f.mov_size)
    } else if mov && matches!(op, O::StoreGlobal | O::StoreLocal | O::LoadLocal) {
        T::of_mov_size(f.mov_size)
    } else if mov && op == O::StoreFlags {
        T::None
    } else if mov {
        T::U32
    } else if alu && matches!(op, O::Shl | O::Shr) {
        src1
    } else {
        T::U32
    };
    // src3_data_type_i (DEC:1034-1058).
    let src3 = if flow_or_nop {
        T::None
    } else if alu && matches!(op, O::Imad24 | O::Imad24c) {
        T::U32
    } else if alu && op == O::Fmad {
        T::F32
    } else if mov && op == O::StoreShared && dest == T::U8 {
        T::U32
    } else if mov && op == O::StoreShared {
        reg
    } else {
        T::None
    };
    // The memory opcodes (DEC:818-903).
    let with_addr = f.addr_reg != 0;
    let src2_use_gather = with_addr || f.src1_shared;
    let src1_gather = if alu {
        f.src1_shared && with_addr
    } else if mov {
        match op {
            O::Mov => with_addr,
            O::LoadShared | O::LoadGlobal | O::LoadLocal => true,
            O::StoreShared | O::LoadAddress | O::StoreFlags => f.src1_shared,
            _ => false,
        }
    } else {
        false
    };
    let src2_gather = mov
        && match op {
            O::LoadShared | O::LoadConst | O::LoadGlobal | O::LoadLocal => true,
            O::StoreShared | O::LoadAddress => f.src2_const && src2_use_gather,
            _ => false,
        };
    let src3_gather = if alu {
        f.src3_const && with_addr
    } else if mov {
        match op {
            O::LoadShared | O::LoadConst | O::LoadGlobal | O::LoadLocal => true,
            O::StoreShared | O::LoadAddress => f.src3_const && with_addr,
            _ => false,
        }
    } else {
        false
    };
    let dest_scatter = mov && matches!(op, O::StoreShared | O::StoreGlobal | O::StoreLocal);
    Access {
        src1,
        src2,
        src3,
        dest,
        src1_gather,
        src2_gather,
        src3_gather,
        dest_scatter,
    }
}
