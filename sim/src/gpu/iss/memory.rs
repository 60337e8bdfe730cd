//! Global memory, as FlexGripPlus 4.4 has it or as a GPU with memory
//! protection would.
//!
//! FlexGripPlus' global memory (`gpgpu_ml605_top_level.vhd`,
//! `uGlobalMemory`) is a byte-wide RAM of 2^`GMEM_ADDR_SIZE` bytes (18:
//! 256 KiB), zero where its initialisation file says nothing. The global
//! memory controllers of the read stage (GLD) and the write stage (GST)
//! cut an address to its low `GMEM_ADDR_SIZE` bits
//! (`global_memory_controller.vhd`) and move a word one byte at a time,
//! little-endian, at that address and the three after it
//! (`memory_controller.vhd`): nothing checks bounds or alignment, an
//! address past the array wraps around, every write lands, and nothing
//! traps. [`MemoryModel::Flat`] does the same. [`MemoryModel::Protected`]
//! is a GPU that traps any access outside the buffers its launch was given
//! (what fault-injection studies call a detected unrecoverable error).

use std::collections::BTreeMap;

/// FlexGripPlus 4.4's global memory address width (`GMEM_ADDR_SIZE`).
pub const FLEXGRIPPLUS_GMEM_ADDR_BITS: u8 = 18;

/// How global memory answers an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryModel {
    /// A byte-addressed RAM of 2^`address_bits` bytes, zero until written:
    /// an address is taken modulo its size, a word is the four bytes from
    /// its address (aligned or not), and every access succeeds.
    Flat { address_bits: u8 },
    /// Only the words the launch gave exist; any other access, and any
    /// misaligned one, traps.
    Protected,
}

impl Default for MemoryModel {
    /// FlexGripPlus 4.4's memory.
    fn default() -> Self {
        MemoryModel::Flat {
            address_bits: FLEXGRIPPLUS_GMEM_ADDR_BITS,
        }
    }
}

impl MemoryModel {
    /// The address widths a flat memory may have.
    pub const ADDRESS_BITS: std::ops::RangeInclusive<u8> = 12..=32;

    /// The byte address an access reaches (a flat memory drops the high
    /// bits).
    fn place(self, address: u32) -> u32 {
        match self {
            MemoryModel::Flat { address_bits } if address_bits < 32 => {
                address & ((1u32 << address_bits) - 1)
            }
            _ => address,
        }
    }

    /// The bits of an address the memory keeps (a protected memory all
    /// 32).
    pub fn address_bits(self) -> u8 {
        match self {
            MemoryModel::Flat { address_bits } => address_bits.min(32),
            MemoryModel::Protected => 32,
        }
    }
}

impl std::fmt::Display for MemoryModel {
    /// `flat-18` (FlexGripPlus' own), `flat-20`, `protected`: how a
    /// results file names the memory its campaign ran in.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryModel::Flat { address_bits } => write!(f, "flat-{address_bits}"),
            MemoryModel::Protected => f.write_str("protected"),
        }
    }
}

/// Why global memory refuses an access (a protected memory traps) or a
/// launch's buffers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("byte address {address:#010x} is not 4-byte aligned: a protected memory traps")]
    Misaligned { address: u32 },
    #[error(
        "byte address {address:#010x} is outside the launch's buffers: a protected memory traps"
    )]
    Protected { address: u32 },
    #[error("{count} words from byte address {base:#010x} run past the 32-bit address space")]
    Overflow { base: u32, count: usize },
    #[error("words from byte address {base:#010x} wrap onto byte address {first:#010x}, which a buffer already holds (the memory holds {} bytes)", 1u64 << address_bits)]
    Overlap {
        base: u32,
        first: u32,
        address_bits: u8,
    },
}

/// Global memory: 32-bit words at byte addresses, as its model says. Two
/// memories are equal when they hold the same words (in a flat memory a
/// word written 0 equals one never written).
#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    model: MemoryModel,
    /// Aligned words by byte address (where they land); in a flat memory
    /// an absent word is 0.
    words: BTreeMap<u32, u32>,
}

impl GlobalMemory {
    /// An empty memory of FlexGripPlus 4.4's kind.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty memory of `model`.
    pub fn with_model(model: MemoryModel) -> Self {
        GlobalMemory {
            model,
            words: BTreeMap::new(),
        }
    }

    pub fn model(&self) -> MemoryModel {
        self.model
    }

    /// Byte addresses whose word differs between the two memories (in a
    /// flat memory an absent word is 0), in address order.
    pub fn differing_words(&self, other: &GlobalMemory) -> Vec<u32> {
        let value = |memory: &GlobalMemory, address: u32| match memory.model {
            MemoryModel::Flat { .. } => Some(memory.words.get(&address).copied().unwrap_or(0)),
            MemoryModel::Protected => memory.words.get(&address).copied(),
        };
        let mut addresses: Vec<u32> = self
            .words
            .keys()
            .chain(other.words.keys())
            .copied()
            .filter(|&a| value(self, a) != value(other, a))
            .collect();
        addresses.sort_unstable();
        addresses.dedup();
        addresses
    }

    /// Gives the launch's `words` at `base`, `base + 4`, ... (aligned): the
    /// buffers a protected memory allows. An error if they run past the
    /// address space or land on words already given (a flat memory too
    /// small for the launch).
    pub fn write_words(&mut self, base: u32, words: &[u32]) -> Result<(), MemoryError> {
        if !base.is_multiple_of(4) {
            return Err(MemoryError::Misaligned { address: base });
        }
        let span = u64::try_from(words.len())
            .unwrap_or(u64::MAX)
            .saturating_mul(4);
        if u64::from(base) + span > 1 << 32 {
            return Err(MemoryError::Overflow {
                base,
                count: words.len(),
            });
        }
        let address_bits = self.model.address_bits();
        if span > 1 << address_bits {
            return Err(MemoryError::Overlap {
                base,
                first: base,
                address_bits,
            });
        }
        // Fits the address space: checked above, so no address wraps.
        let places: Vec<u32> = (0..words.len())
            .map(|i| self.model.place(base + 4 * i as u32))
            .collect();
        if let Some(&first) = places.iter().find(|a| self.words.contains_key(a)) {
            return Err(MemoryError::Overlap {
                base,
                first,
                address_bits,
            });
        }
        for (place, &word) in places.into_iter().zip(words) {
            self.words.insert(place, word);
        }
        Ok(())
    }

    /// `count` words from `base`.
    pub fn read_words(&self, base: u32, count: usize) -> Result<Vec<u32>, MemoryError> {
        (0..count)
            .map(|i| {
                let address = u32::try_from(i * 4)
                    .ok()
                    .and_then(|offset| base.checked_add(offset))
                    .ok_or(MemoryError::Overflow { base, count })?;
                self.read_u32(address)
            })
            .collect()
    }

    /// The word at `address`: in a flat memory the four bytes from where
    /// it lands, little-endian (0 where never written).
    pub fn read_u32(&self, address: u32) -> Result<u32, MemoryError> {
        self.read_u32_from(address, |at| self.words.get(&at).copied())
    }

    /// Stores `value` at `address` (in a flat memory, its four bytes from
    /// where it lands).
    pub fn write_u32(&mut self, address: u32, value: u32) -> Result<(), MemoryError> {
        for (at, word) in self.written_words(address, value, |at| self.words.get(&at).copied())? {
            self.words.insert(at, word);
        }
        Ok(())
    }

    /// [`read_u32`](Self::read_u32) of this memory with the words `over`
    /// gives (by where they land) in place of its own.
    pub fn read_u32_over(
        &self,
        address: u32,
        over: impl Fn(u32) -> Option<u32>,
    ) -> Result<u32, MemoryError> {
        self.read_u32_from(address, |at| {
            over(at).or_else(|| self.words.get(&at).copied())
        })
    }

    /// The words a [`write_u32`](Self::write_u32) of this memory with the
    /// words `over` gives in place of its own leaves (where they land,
    /// their new value); this memory stays as it is.
    pub fn write_u32_over(
        &self,
        address: u32,
        value: u32,
        over: impl Fn(u32) -> Option<u32>,
    ) -> Result<Vec<(u32, u32)>, MemoryError> {
        self.written_words(address, value, |at| {
            over(at).or_else(|| self.words.get(&at).copied())
        })
    }

    /// The stored word that lands at `at` (aligned), as memories compare
    /// it: a flat memory's absent word is 0, a protected memory's none.
    pub fn word(&self, at: u32) -> Option<u32> {
        match self.model {
            MemoryModel::Flat { .. } => Some(self.words.get(&at).copied().unwrap_or(0)),
            MemoryModel::Protected => self.words.get(&at).copied(),
        }
    }

    /// Sets the stored word that lands at `at` (aligned; a place
    /// [`word`](Self::word) names).
    pub fn set_word(&mut self, at: u32, value: u32) {
        self.words.insert(at, value);
    }

    /// The word at `address`, with the stored words `stored` gives (by
    /// where they land).
    fn read_u32_from(
        &self,
        address: u32,
        stored: impl Fn(u32) -> Option<u32>,
    ) -> Result<u32, MemoryError> {
        match self.model {
            MemoryModel::Protected => {
                if !address.is_multiple_of(4) {
                    return Err(MemoryError::Misaligned { address });
                }
                stored(address).ok_or(MemoryError::Protected { address })
            }
            MemoryModel::Flat { .. } => Ok((0..4u32).fold(0, |word, i| {
                let at = self.model.place(address.wrapping_add(i));
                let byte = (stored(at & !3).unwrap_or(0) >> (8 * (at & 3))) as u8;
                word | u32::from(byte) << (8 * i)
            })),
        }
    }

    /// The stored words a store of `value` at `address` leaves (where
    /// they land, their new value), given the stored words `stored` gives.
    fn written_words(
        &self,
        address: u32,
        value: u32,
        stored: impl Fn(u32) -> Option<u32>,
    ) -> Result<Vec<(u32, u32)>, MemoryError> {
        match self.model {
            MemoryModel::Protected => {
                if !address.is_multiple_of(4) {
                    return Err(MemoryError::Misaligned { address });
                }
                match stored(address) {
                    Some(_) => Ok(vec![(address, value)]),
                    None => Err(MemoryError::Protected { address }),
                }
            }
            MemoryModel::Flat { .. } => {
                let mut words: Vec<(u32, u32)> = Vec::with_capacity(2);
                for i in 0..4u32 {
                    let at = self.model.place(address.wrapping_add(i));
                    let (place, shift) = (at & !3, 8 * (at & 3));
                    let byte = u32::from((value >> (8 * i)) as u8) << shift;
                    match words.iter_mut().find(|(p, _)| *p == place) {
                        Some((_, word)) => *word = (*word & !(0xff << shift)) | byte,
                        None => {
                            let word = stored(place).unwrap_or(0);
                            words.push((place, (word & !(0xff << shift)) | byte));
                        }
                    }
                }
                Ok(words)
            }
        }
    }

    /// The word at `address`, if the memory holds one there (a flat
    /// memory holds one everywhere).
    pub fn get(&self, address: u32) -> Option<u32> {
        self.read_u32(address).ok()
    }

    /// The words stored, by the address they landed at.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.words.iter().map(|(&address, &word)| (address, word))
    }

    /// Number of words stored.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

impl PartialEq for GlobalMemory {
    fn eq(&self, other: &GlobalMemory) -> bool {
        self.model == other.model
            && (self.words == other.words || self.differing_words(other).is_empty())
    }
}

impl Eq for GlobalMemory {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_memory_wraps_zero_fills_and_reads_misaligned_words() {
        let mut memory = GlobalMemory::with_model(MemoryModel::Flat { address_bits: 18 });
        memory
            .write_words(0x0010_0000, &[0x1122_3344, 0x5566_7788])
            .unwrap();
        // 0x00100000 lands on byte 0: the high bits are dropped.
        assert_eq!(memory.read_u32(0), Ok(0x1122_3344));
        assert_eq!(memory.read_u32(0x0004_0004), Ok(0x5566_7788));
        // Never written: 0. Misaligned: the bytes from there.
        assert_eq!(memory.read_u32(0x200), Ok(0));
        assert_eq!(memory.read_u32(0x0010_0002), Ok(0x7788_1122));
        memory.write_u32(0x3_fffe, 0xaabb_ccdd).unwrap();
        assert_eq!(memory.read_u32(0), Ok(0x1122_aabb), "wraps past the end");
        assert_eq!(memory.read_u32(0x3_fffc), Ok(0xccdd_0000));
        // Words given twice where they land: the launch does not fit.
        assert!(matches!(
            memory.write_words(0x0014_0000, &[1]),
            Err(MemoryError::Overlap { first: 0, .. })
        ));
        // Absent words are 0 when memories are compared.
        let mut other = memory.clone();
        other.write_u32(0x100, 0).unwrap();
        assert_eq!(memory, other);
        other.write_u32(0x100, 7).unwrap();
        assert_eq!(memory.differing_words(&other), [0x100]);
    }

    #[test]
    fn words_over_a_memory_read_and_write_as_the_memory_would() {
        let mut memory = GlobalMemory::with_model(MemoryModel::Flat { address_bits: 18 });
        memory
            .write_words(0x100, &[0x1122_3344, 0x5566_7788])
            .unwrap();
        let mut over = BTreeMap::new();
        let mut written = memory.clone();
        for (address, value) in [(0x102, 0xaabb_ccdd), (0x3_fffe, 7), (0x104, 9)] {
            let words = memory
                .write_u32_over(address, value, |at| over.get(&at).copied())
                .unwrap();
            over.extend(words);
            written.write_u32(address, value).unwrap();
        }
        assert_eq!(memory.read_u32(0x100), Ok(0x1122_3344), "left as it was");
        for address in [0x100, 0x101, 0x102, 0x104, 0x3_fffc, 0x3_fffe, 0] {
            assert_eq!(
                memory.read_u32_over(address, |at| over.get(&at).copied()),
                written.read_u32(address),
                "{address:#x}"
            );
        }
        for (&at, &word) in &over {
            memory.set_word(at, word);
        }
        assert_eq!(memory, written);
        assert_eq!(memory.word(0x200), Some(0));
        let protected = GlobalMemory::with_model(MemoryModel::Protected);
        assert_eq!(protected.word(0x200), None);
        assert_eq!(
            protected.write_u32_over(0x200, 1, |_| None),
            Err(MemoryError::Protected { address: 0x200 })
        );
    }

    #[test]
    fn a_protected_memory_traps_outside_its_buffers() {
        let mut memory = GlobalMemory::with_model(MemoryModel::Protected);
        memory.write_words(0x100, &[1, 2, 3]).unwrap();
        assert_eq!(memory.read_words(0x100, 3), Ok(vec![1, 2, 3]));
        assert_eq!(
            memory.read_u32(0x10c),
            Err(MemoryError::Protected { address: 0x10c })
        );
        assert_eq!(
            memory.read_u32(0x101),
            Err(MemoryError::Misaligned { address: 0x101 })
        );
        assert_eq!(
            memory.write_u32(0x200, 1),
            Err(MemoryError::Protected { address: 0x200 })
        );
        memory.write_u32(0x104, 9).unwrap();
        assert_eq!(memory.get(0x104), Some(9));
        assert!(matches!(
            memory.write_words(0xffff_fffc, &[1, 2]),
            Err(MemoryError::Overflow { .. })
        ));
    }
}
