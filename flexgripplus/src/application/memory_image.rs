//! A global-memory image (`global_mem.mif`) as FlexGripPlus' `dp_ram`
//! reads it when the simulation starts (`init_mem`): line `i` is byte
//! `i`, read with `hread` into eight bits; a line that does not start
//! with two hex digits leaves the byte undefined (GHDL 2.0 reads a
//! one-digit line so, and MxM_naive_float's and Transpose's images have
//! 2,952 of them); bytes past the file's end are 0, lines past the
//! memory's 262,144 bytes are not read.

use super::error::{read_text, AppError};
use std::path::Path;

/// Bytes of FlexGripPlus' global memory (`GMEM_ADDR_SIZE` = 18).
pub const GLOBAL_BYTES: usize = 1 << 18;

/// Bytes of its constant memory (`uConstantMemory`'s `RAM_SIZE`).
pub const CONSTANT_BYTES: usize = 8192;

/// An image as the memory holds it after `init_mem`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryImage {
    /// Byte `i` from address 0 (`None`: undefined); the bytes past the
    /// file's lines are 0 and not listed.
    pub bytes: Vec<Option<u8>>,
    /// Lines past [`GLOBAL_BYTES`], which the memory does not read.
    pub unread_lines: usize,
}

impl MemoryImage {
    /// No image: every byte 0.
    pub fn zero() -> MemoryImage {
        MemoryImage {
            bytes: Vec::new(),
            unread_lines: 0,
        }
    }

    pub fn read(path: &Path) -> Result<MemoryImage, AppError> {
        Ok(MemoryImage::parse(&read_text(path)?))
    }

    pub fn parse(text: &str) -> MemoryImage {
        let mut bytes = Vec::new();
        let mut unread_lines = 0;
        for line in text.lines() {
            if bytes.len() == GLOBAL_BYTES {
                unread_lines += 1;
                continue;
            }
            let digits: Vec<char> = line.trim_start().chars().take(2).collect();
            let byte = match digits[..] {
                [high, low] => high
                    .to_digit(16)
                    .zip(low.to_digit(16))
                    .map(|(h, l)| (h * 16 + l) as u8),
                _ => None,
            };
            bytes.push(byte);
        }
        MemoryImage {
            bytes,
            unread_lines,
        }
    }

    /// Bytes the image leaves undefined.
    pub fn undefined(&self) -> usize {
        self.bytes.iter().filter(|b| b.is_none()).count()
    }

    /// Byte `address` (0 past the image).
    pub fn byte(&self, address: usize) -> Option<u8> {
        self.bytes.get(address).copied().unwrap_or(Some(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_a_byte_and_a_short_one_undefined() {
        let image = MemoryImage::parse("01\n0\nff\n  a5 tail\n\n");
        assert_eq!(image.bytes, [Some(1), None, Some(0xff), Some(0xa5), None]);
        assert_eq!(image.undefined(), 2);
        assert_eq!(image.byte(2), Some(0xff));
        assert_eq!(image.byte(1000), Some(0));
        let long = "00\n".repeat(GLOBAL_BYTES + 3);
        let image = MemoryImage::parse(&long);
        assert_eq!((image.bytes.len(), image.unread_lines), (GLOBAL_BYTES, 3));
    }
}
