//! Global memory: 32-bit words at 4-byte-aligned byte addresses; an
//! address never written or given holds no word.

use std::collections::BTreeMap;

/// Why global memory refuses an access.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("byte address {address:#010x} is not 4-byte aligned")]
    Misaligned { address: u32 },
    #[error("byte address {address:#010x} holds no word (never written or given)")]
    Unmapped { address: u32 },
    #[error("{count} words from byte address {base:#010x} run past the 32-bit address space")]
    Overflow { base: u32, count: usize },
}

/// Global memory: 32-bit words at 4-byte-aligned byte addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalMemory {
    words: BTreeMap<u32, u32>,
}

impl GlobalMemory {
    pub fn new() -> Self {
        Self::default()
    }

    /// Byte addresses whose word differs between the two memories (a word
    /// written in one only counts), in address order.
    pub fn differing_words(&self, other: &GlobalMemory) -> Vec<u32> {
        let mut addresses: Vec<u32> = self
            .words
            .iter()
            .filter(|(a, w)| other.words.get(a) != Some(w))
            .map(|(a, _)| *a)
            .chain(
                other
                    .words
                    .keys()
                    .filter(|a| !self.words.contains_key(a))
                    .copied(),
            )
            .collect();
        addresses.sort_unstable();
        addresses
    }

    /// Stores `words` at `base`, `base + 4`, ...
    pub fn write_words(&mut self, base: u32, words: &[u32]) -> Result<(), MemoryError> {
        check_aligned(base)?;
        let span = u64::try_from(words.len())
            .unwrap_or(u64::MAX)
            .saturating_mul(4);
        if u64::from(base) + span > 1 << 32 {
            return Err(MemoryError::Overflow {
                base,
                count: words.len(),
            });
        }
        // Fits: checked above, so no address wraps.
        for (index, &word) in words.iter().enumerate() {
            self.words.insert(base + 4 * index as u32, word);
        }
        Ok(())
    }

    /// `count` words from `base`.
    pub fn read_words(&self, base: u32, count: usize) -> Result<Vec<u32>, MemoryError> {
        check_aligned(base)?;
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

    pub fn read_u32(&self, address: u32) -> Result<u32, MemoryError> {
        check_aligned(address)?;
        self.words
            .get(&address)
            .copied()
            .ok_or(MemoryError::Unmapped { address })
    }

    pub fn write_u32(&mut self, address: u32, value: u32) -> Result<(), MemoryError> {
        check_aligned(address)?;
        self.words.insert(address, value);
        Ok(())
    }

    /// The word at `address`, if any.
    pub fn get(&self, address: u32) -> Option<u32> {
        self.words.get(&address).copied()
    }

    /// All words, by address.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.words.iter().map(|(&address, &word)| (address, word))
    }

    /// Number of words held.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

fn check_aligned(address: u32) -> Result<(), MemoryError> {
    if address.is_multiple_of(4) {
        Ok(())
    } else {
        Err(MemoryError::Misaligned { address })
    }
}
