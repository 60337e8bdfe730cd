//! Instruction words of FlexGripPlus: bit fields, the opcode, the two
//! low bits every instruction carries, and `RET`.
//!
//! An instruction is one 32-bit word, or two when bit 0 of the first is
//! set (low word first in the ROM, bits 63-32 of the 64-bit value for the
//! second word).

/// A bit field of an instruction: `width` bits from bit `lo` up.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub lo: u32,
    pub width: u32,
}

impl Field {
    /// Bits `hi` down to `lo`, both included.
    pub const fn new(hi: u32, lo: u32) -> Field {
        Field {
            lo,
            width: hi - lo + 1,
        }
    }

    /// The most significant bit of the field.
    pub const fn hi(self) -> u32 {
        self.lo + self.width - 1
    }

    /// The field's bits as a mask of the (64-bit) instruction value.
    pub const fn mask(self) -> u64 {
        (u64::MAX >> (64 - self.width)) << self.lo
    }

    /// The field of `value`, shifted down.
    pub const fn get(self, value: u64) -> u64 {
        (value & self.mask()) >> self.lo
    }

    /// `value` placed in the field (bits beyond the field's width dropped).
    pub const fn place(self, value: u64) -> u64 {
        (value << self.lo) & self.mask()
    }
}

/// Opcode field, bits 31-28 (`instr_opcode_b` in FlexGripPlus' decode).
pub const OPCODE: Field = Field::new(31, 28);
/// Bit 1: set on flow-control instructions (`instr_is_flow_b`).
pub const FLOW_CONTROL_BIT: u32 = 1 << 1;
/// Bit 0: set on the first (low) word of a 64-bit instruction
/// (`instr_is_long_b`).
pub const LONG_INSTRUCTION_BIT: u32 = 1 << 0;

/// `RET`, the 64-bit instruction that ends the appendix-A kernel, low word
/// first.
pub const RET_WORDS: [u32; 2] = [RET_LOW, RET_HIGH];
/// Low (first) word of `RET`.
pub const RET_LOW: u32 = 0x3000_0003;
/// High (second) word of `RET`.
pub const RET_HIGH: u32 = 0x0000_0780;

/// The opcode field (bits 31-28) of an instruction word.
pub fn opcode(word: u32) -> u8 {
    OPCODE.get(u64::from(word)) as u8
}

/// Whether `word` is the first word of a 64-bit instruction (bit 0 set).
pub fn is_long_instruction(word: u32) -> bool {
    word & LONG_INSTRUCTION_BIT != 0
}

/// The 64-bit value of an instruction: `low` in bits 31-0, `high` in
/// 63-32 (0 for a 32-bit instruction), as FlexGripPlus' fetch assembles it.
pub const fn pair(low: u32, high: u32) -> u64 {
    (low as u64) | ((high as u64) << 32)
}

/// "52, 25, 22": the set bits of `mask`, most significant first.
pub(crate) fn bit_list(mask: u64) -> String {
    (0..64)
        .rev()
        .filter(|bit| mask & (1u64 << bit) != 0)
        .map(|bit| bit.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let f = Field::new(16, 13);
        assert_eq!((f.lo, f.width, f.hi()), (13, 4, 16));
        assert_eq!(f.mask(), 0x1e000);
        assert_eq!(f.get(0x7001_980c), 12);
        assert_eq!(f.place(12), 0x18000);
        assert_eq!(Field::new(63, 0).mask(), u64::MAX);
        assert_eq!(opcode(0x7000_0800), 7);
    }

    #[test]
    fn ret_pair() {
        assert_eq!(RET_WORDS, [0x3000_0003, 0x0000_0780]);
        assert!(is_long_instruction(RET_LOW));
        assert_ne!(RET_LOW & FLOW_CONTROL_BIT, 0);
    }
}
