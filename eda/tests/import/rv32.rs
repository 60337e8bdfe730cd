//! Random RV32IM programs for a third-party core (PicoRV32) run on the
//! compiled engine against Icarus and Verilator: an instruction encoder
//! and a generator in the manner of riscv-dv (random operations on random
//! registers and immediates, loads and stores into a data area, forward
//! branches), looping for ever so a run is as long as asked.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Where the data area starts (`x31` holds it); the program is below.
pub const DATA: u32 = 0x1000;

/// Bytes of the data area loads and stores reach (from [`DATA`]).
pub const DATA_BYTES: u32 = 2048;

/// The register holding [`DATA`] (never written by the random part).
const BASE: u32 = 31;

fn r_type(funct7: u32, rs2: u32, rs1: u32, funct3: u32, rd: u32) -> u32 {
    (funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | 0b011_0011
}

fn i_type(imm: i32, rs1: u32, funct3: u32, rd: u32, opcode: u32) -> u32 {
    (((imm as u32) & 0xfff) << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode
}

fn s_type(imm: i32, rs2: u32, rs1: u32, funct3: u32) -> u32 {
    let imm = imm as u32 & 0xfff;
    ((imm >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | ((imm & 31) << 7) | 0b010_0011
}

fn b_type(offset: i32, rs2: u32, rs1: u32, funct3: u32) -> u32 {
    let o = offset as u32;
    (((o >> 12) & 1) << 31)
        | (((o >> 5) & 0x3f) << 25)
        | (rs2 << 20)
        | (rs1 << 15)
        | (funct3 << 12)
        | (((o >> 1) & 0xf) << 8)
        | (((o >> 11) & 1) << 7)
        | 0b110_0011
}

fn u_type(imm20: u32, rd: u32, opcode: u32) -> u32 {
    ((imm20 & 0xf_ffff) << 12) | (rd << 7) | opcode
}

fn jal(offset: i32, rd: u32) -> u32 {
    let o = offset as u32;
    (((o >> 20) & 1) << 31)
        | (((o >> 1) & 0x3ff) << 21)
        | (((o >> 11) & 1) << 20)
        | (((o >> 12) & 0xff) << 12)
        | (rd << 7)
        | 0b110_1111
}

/// A program of `length` random instructions after `x31 = DATA`,
/// jumping back to its first random instruction at the end: every
/// RV32I register-register and immediate operation, RV32M's multiplies,
/// divisions and remainders, LUI and AUIPC, byte, half-word and word
/// loads and stores (aligned, in the data area), and the six branches
/// (forward, inside the program). Words from address 0.
pub fn program(seed: u64, length: usize) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut words = vec![u_type(DATA >> 12, BASE, 0b011_0111)];
    let reg = |rng: &mut StdRng| rng.gen_range(1..31u32);
    let any = |rng: &mut StdRng| rng.gen_range(0..31u32);
    for k in 0..length {
        let left = (length - k) as i32;
        let word = match rng.gen_range(0..10) {
            0..=2 => {
                // add sub sll slt sltu xor srl sra or and
                let (funct3, funct7) = [
                    (0, 0),
                    (0, 0x20),
                    (1, 0),
                    (2, 0),
                    (3, 0),
                    (4, 0),
                    (5, 0),
                    (5, 0x20),
                    (6, 0),
                    (7, 0),
                ][rng.gen_range(0..10)];
                r_type(funct7, any(&mut rng), any(&mut rng), funct3, reg(&mut rng))
            }
            3 => {
                // mul mulh mulhsu mulhu div divu rem remu
                r_type(
                    1,
                    any(&mut rng),
                    any(&mut rng),
                    rng.gen_range(0..8),
                    reg(&mut rng),
                )
            }
            4 | 5 => {
                let funct3 = [0, 2, 3, 4, 6, 7, 1, 5][rng.gen_range(0..8)];
                let imm = match funct3 {
                    1 => rng.gen_range(0..32),
                    5 => rng.gen_range(0..32) | if rng.gen() { 0x400 } else { 0 },
                    _ => rng.gen_range(-2048..2048),
                };
                i_type(imm, any(&mut rng), funct3, reg(&mut rng), 0b001_0011)
            }
            6 => {
                let opcode = if rng.gen() { 0b011_0111 } else { 0b001_0111 };
                u_type(rng.gen(), reg(&mut rng), opcode)
            }
            7 => {
                // lb lh lw lbu lhu, aligned
                let funct3 = [0, 1, 2, 4, 5][rng.gen_range(0..5)];
                let size = 1 << (funct3 & 3);
                let offset = rng.gen_range(0..DATA_BYTES / size) * size;
                i_type(offset as i32, BASE, funct3, reg(&mut rng), 0b000_0011)
            }
            8 => {
                // sb sh sw, aligned
                let funct3 = rng.gen_range(0..3);
                let size = 1 << funct3;
                let offset = rng.gen_range(0..DATA_BYTES / size) * size;
                s_type(offset as i32, any(&mut rng), BASE, funct3)
            }
            _ => {
                // beq bne blt bge bltu bgeu, 1 to 8 instructions ahead
                // (at most to the closing jump).
                let funct3 = [0, 1, 4, 5, 6, 7][rng.gen_range(0..6)];
                let ahead = rng.gen_range(1..=8.min(left));
                b_type(4 * ahead, any(&mut rng), any(&mut rng), funct3)
            }
        };
        words.push(word);
    }
    words.push(jal(-4 * length as i32, 0));
    words
}

#[test]
fn instructions_encode_as_the_isa_manual_gives_them() {
    // addi x1, x0, 42; sw x1, 0x100(x0); beq x1, x2, +8; jal x0, -8;
    // lui x31, 1; mul x3, x1, x2; srai x5, x6, 3.
    assert_eq!(i_type(42, 0, 0, 1, 0b001_0011), 0x02a0_0093);
    assert_eq!(s_type(0x100, 1, 0, 2), 0x1010_2023);
    assert_eq!(b_type(8, 2, 1, 0), 0x0020_8463);
    assert_eq!(jal(-8, 0), 0xff9f_f06f);
    assert_eq!(u_type(1, 31, 0b011_0111), 0x0000_1fb7);
    assert_eq!(r_type(1, 2, 1, 0, 3), 0x0220_81b3);
    assert_eq!(i_type(0x403, 6, 5, 5, 0b001_0011), 0x4033_5293);
}
