//! The core's shared memory as FlexGripPlus lays it out, for `g[]`
//! operands at any offset a (possibly faulty) decoder gives.
//!
//! FlexGripPlus 4.4 (`streaming_multiprocessor_cntlr.vhd`,
//! `shared_memory_controller.vhd`): one 16 KiB array per core (14-bit
//! addresses, wrapping); at the start of each round the SM controller
//! writes block `i` of the round (header and parameters) at
//! `i * allocation`; a `g[]` read adds the warp's block base to its
//! offset, with no bound check. So a read past a block's parameters sees
//! zeros, then the next slot's block, or what the previous round left in
//! a slot this round does not use.

use crate::gpu::iss::read_shared;

/// Bytes of a core's shared memory (FlexGripPlus' `SHMEM_ADDR_SIZE` 14).
pub const SHARED_MEMORY_BYTES: usize = 1 << 14;

/// The byte at shared-memory address `address` while block `block` runs:
/// `segments` are every block's segment (header, parameters, zeros to the
/// allocation), launched `blocks_per_core` at a time.
fn byte(segments: &[Vec<u8>], blocks_per_core: usize, block: usize, address: usize) -> u8 {
    let allocation = segments.first().map_or(0, Vec::len);
    if allocation == 0 {
        return 0;
    }
    let slot = address / allocation;
    if slot >= blocks_per_core {
        return 0;
    }
    let round = block / blocks_per_core;
    // The block written into `slot` most recently: this round's, or the
    // previous round's (complete) when this round is shorter.
    let owner = [Some(round), round.checked_sub(1)]
        .into_iter()
        .flatten()
        .map(|r| r * blocks_per_core + slot)
        .find(|&b| b < segments.len());
    owner.map_or(0, |b| segments[b][address % allocation])
}

/// A `g[]` read of `width` bytes (little-endian) at `offset` by block
/// `block`: never out of range, as in the hardware.
pub(super) fn read(
    segments: &[Vec<u8>],
    blocks_per_core: usize,
    block: usize,
    offset: u32,
    width: u32,
) -> u32 {
    let allocation = segments.first().map_or(0, Vec::len);
    // Within the block's own segment: the common case, the ISS's read.
    if let Some(value) = segments
        .get(block)
        .and_then(|segment| read_shared(segment, offset, width))
    {
        return value;
    }
    let base = (block % blocks_per_core.max(1)) * allocation;
    (0..width as usize).rev().fold(0u32, |acc, i| {
        let address = (base + offset as usize + i) % SHARED_MEMORY_BYTES;
        (acc << 8) | u32::from(byte(segments, blocks_per_core.max(1), block, address))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five blocks of 256 bytes, two per core: rounds {0,1}, {2,3}, {4}.
    fn segments() -> Vec<Vec<u8>> {
        (0..5u8)
            .map(|b| {
                let mut s = vec![0u8; 256];
                s[0] = 0xa0 + b;
                s[16] = 0x10 + b;
                s
            })
            .collect()
    }

    #[test]
    fn a_read_within_the_block_is_its_own_segment() {
        let s = segments();
        assert_eq!(read(&s, 2, 3, 16, 4), 0x13);
        assert_eq!(read(&s, 2, 3, 20, 4), 0);
    }

    #[test]
    fn a_read_past_the_allocation_sees_the_next_slot_or_zeros() {
        let s = segments();
        // Block 2 (slot 0 of round 1) reading 256 bytes on: block 3.
        assert_eq!(read(&s, 2, 2, 256, 4), 0xa3);
        // Block 3 (slot 1) reading past its slot: beyond the slots, zeros.
        assert_eq!(read(&s, 2, 3, 256, 4), 0);
        // Block 4 (slot 0 of the last round) reading slot 1: what round 1
        // left there (block 3).
        assert_eq!(read(&s, 2, 4, 256 + 16, 4), 0x13);
        // One block per core: the only slot, then zeros.
        assert_eq!(read(&s, 1, 0, 256, 4), 0);
    }

    #[test]
    fn a_read_straddling_two_slots_takes_bytes_from_each() {
        let s = segments();
        // Bytes 254..258 of block 0's base: 0, 0, then block 1's 0xa1, 0.
        assert_eq!(read(&s, 2, 0, 254, 4), 0x00a1_0000);
    }
}
