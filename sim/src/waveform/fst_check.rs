//! An FST file's block structure checked before a reader trusts it. An
//! FST reader allocates what the file's block headers claim (a section's
//! length, a block's uncompressed size, a signal count), so a hostile or
//! truncated file could make it ask for terabytes and abort. Here every
//! block must lie inside the file, and every size a block claims must be
//! one its bytes can hold (compression ratios have a ceiling) and below a
//! fixed cap; a file compressed as a whole (GTKWave's gzip wrapper) is
//! refused rather than unpacked.

use std::io::{Read, Seek, SeekFrom};

/// The most bytes a block may unpack to.
pub const MAX_UNPACKED_BYTES: u64 = 256 << 20;
/// The most signals (handles) a waveform may declare.
pub const MAX_HANDLES: u64 = 1 << 20;
/// zlib and gzip unpack at most about 1,032 times their size; LZ4 255.
const ZLIB_RATIO: u64 = 1100;
const LZ4_RATIO: u64 = 256;

// Block tags (shared with the writer).
pub(super) const HEADER: u8 = 0;
/// The value-change block fstapi writes today (dynamic aliases, 2).
pub(super) const VC_DATA_DYN_ALIAS2: u8 = 8;
const VC_DATA: [u8; 3] = [1, 5, VC_DATA_DYN_ALIAS2];
const BLACKOUT: u8 = 2;
pub(super) const GEOMETRY: u8 = 3;
const HIERARCHY: u8 = 4;
pub(super) const HIERARCHY_LZ4: u8 = 6;
const HIERARCHY_LZ4_DUO: u8 = 7;
const GZIP_WRAPPER: u8 = 254;
const SKIP: u8 = 255;

/// What the check found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FstBlocks {
    /// Value-change blocks: 0 for a file cut before its first one.
    pub value_changes: usize,
}

/// Whether a waveform's first byte is an FST block's (a VCD is text).
pub fn looks_like_fst(first: u8) -> bool {
    first == HEADER || first == GZIP_WRAPPER
}

fn u8_at(input: &mut (impl Read + Seek), at: u64) -> Result<u8, String> {
    input.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    let mut byte = [0u8; 1];
    input.read_exact(&mut byte).map_err(|e| e.to_string())?;
    Ok(byte[0])
}

fn u64_at(input: &mut (impl Read + Seek), at: u64) -> Result<u64, String> {
    input.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    let mut bytes = [0u8; 8];
    input.read_exact(&mut bytes).map_err(|e| e.to_string())?;
    Ok(u64::from_be_bytes(bytes))
}

/// An unsigned LEB128 number at `at`: its value and its length.
fn varint_at(input: &mut (impl Read + Seek), at: u64) -> Result<(u64, u64), String> {
    input.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    let mut value = 0u64;
    for length in 1..=10u64 {
        let mut byte = [0u8; 1];
        input.read_exact(&mut byte).map_err(|e| e.to_string())?;
        value |= u64::from(byte[0] & 0x7f) << (7 * (length - 1));
        if byte[0] & 0x80 == 0 {
            return Ok((value, length));
        }
    }
    Err(format!("byte {at}: a number longer than 10 bytes"))
}

/// A claimed unpacked size: one `packed` bytes can unpack to (stored
/// unpacked when equal), below the cap.
fn unpacked_fits(unpacked: u64, packed: u64, ratio: u64) -> bool {
    unpacked <= MAX_UNPACKED_BYTES && unpacked <= packed.saturating_mul(ratio).saturating_add(64)
}

/// Checks the blocks of the FST file `input` of `length` bytes.
pub fn check(input: &mut (impl Read + Seek), length: u64) -> Result<FstBlocks, String> {
    let mut found = FstBlocks::default();
    let mut at = 0u64;
    let mut first = true;
    while at < length {
        let kind = u8_at(input, at)?;
        if first && kind == GZIP_WRAPPER {
            return Err(
                "an FST compressed as a whole (gzip wrapper): unpack it first (e.g. GTKWave's `fst2vcd`, or write it uncompressed)".into(),
            );
        }
        if first && kind != HEADER {
            return Err("does not start with an FST header block".into());
        }
        first = false;
        if at + 9 > length {
            return Err(format!(
                "cut short: a block starts at byte {at} without its length"
            ));
        }
        // The section: its length (which counts these 8 bytes), then its
        // contents; it starts after the block's type byte.
        let section = at + 1;
        let section_length = u64_at(input, section)?;
        if kind == SKIP && section_length == 0 {
            break;
        }
        if section_length < 8 || section_length > length - section {
            return Err(format!(
                "cut short or damaged: the block at byte {at} claims {section_length} bytes, and the file ends {} bytes after it",
                length - section
            ));
        }
        let bad = |what: &str| Err(format!("the block at byte {at} claims {what}"));
        match kind {
            HIERARCHY | HIERARCHY_LZ4 | HIERARCHY_LZ4_DUO => {
                if section_length < 16 {
                    return bad("a hierarchy shorter than its header");
                }
                let unpacked = u64_at(input, section + 8)?;
                let packed = section_length - 16;
                let ratio = if kind == HIERARCHY {
                    ZLIB_RATIO
                } else {
                    LZ4_RATIO
                };
                if !unpacked_fits(unpacked, packed, ratio) {
                    return bad(&format!(
                        "a hierarchy of {unpacked} bytes packed in {packed}"
                    ));
                }
                if kind == HIERARCHY_LZ4_DUO {
                    let (first_pass, _) = varint_at(input, section + 16)?;
                    if !unpacked_fits(first_pass, packed, LZ4_RATIO) {
                        return bad(&format!(
                            "a first unpacking of {first_pass} bytes from {packed}"
                        ));
                    }
                }
            }
            GEOMETRY => {
                if section_length < 24 {
                    return bad("a geometry shorter than its header");
                }
                let unpacked = u64_at(input, section + 8)?;
                let handles = u64_at(input, section + 16)?;
                if !unpacked_fits(unpacked, section_length - 24, ZLIB_RATIO)
                    || handles > MAX_HANDLES
                    || handles > unpacked
                {
                    return bad(&format!(
                        "{handles} signals in a geometry of {unpacked} bytes (at most {MAX_HANDLES} signals)"
                    ));
                }
            }
            BLACKOUT => {
                let (count, _) = varint_at(input, section + 8)?;
                if count > section_length {
                    return bad(&format!("{count} blackouts in {section_length} bytes"));
                }
            }
            kind if VC_DATA.contains(&kind) => {
                check_value_changes(input, at, section, section_length)?;
                found.value_changes += 1;
            }
            _ => {}
        }
        at = section + section_length;
    }
    Ok(found)
}

/// A value-change block: its frame, its time table at its end and the
/// chain before the table must fit in it.
fn check_value_changes(
    input: &mut (impl Read + Seek),
    at: u64,
    section: u64,
    length: u64,
) -> Result<(), String> {
    let bad = |what: String| Err(format!("the value-change block at byte {at} claims {what}"));
    // Length, start time, end time, memory for traversal: 32 bytes; the
    // time table's three numbers at the end: 24; the chain length: 8.
    if length < 32 + 24 + 8 + 3 {
        return bad(format!("{length} bytes, fewer than its headers take"));
    }
    let end = section + length;
    let (unpacked, n1) = varint_at(input, section + 32)?;
    let (packed, n2) = varint_at(input, section + 32 + n1)?;
    let (handles, n3) = varint_at(input, section + 32 + n1 + n2)?;
    if packed > length || !unpacked_fits(unpacked, packed, ZLIB_RATIO) || handles > MAX_HANDLES {
        return bad(format!(
            "a first frame of {unpacked} bytes packed in {packed}, {handles} signals"
        ));
    }
    let values = section + 32 + n1 + n2 + n3 + packed;
    if values >= end {
        return bad("a first frame past its end".into());
    }
    let (vc_handles, _) = varint_at(input, values)?;
    if vc_handles > MAX_HANDLES {
        return bad(format!("{vc_handles} signals"));
    }
    let time_unpacked = u64_at(input, end - 24)?;
    let time_packed = u64_at(input, end - 16)?;
    let time_items = u64_at(input, end - 8)?;
    if time_packed > length - 32
        || !unpacked_fits(time_unpacked, time_packed, ZLIB_RATIO)
        || time_items > time_unpacked
    {
        return bad(format!(
            "a time table of {time_items} times in {time_unpacked} bytes packed in {time_packed}"
        ));
    }
    let chain_length_at = end - 24 - time_packed - 8;
    if chain_length_at < values {
        return bad("a time table that overlaps its values".into());
    }
    let chain = u64_at(input, chain_length_at)?;
    if chain > chain_length_at - values {
        return bad(format!(
            "a chain of {chain} bytes before byte {chain_length_at}"
        ));
    }
    Ok(())
}
