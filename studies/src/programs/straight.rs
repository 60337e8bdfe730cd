//! Random straight-line kernels: every instruction form and operand kind
//! of the subset in random order on the vector-addition launch, for the
//! differential tests of the SM slice against the ISS and of flexpmu
//! against FlexGripPlus (`flexpmu cosim --random`).

use flexpmu_isa::g80::encode as enc;
use flexpmu_isa::pmevent::{Pmevent, PmuCommand as Command};
use rand::rngs::StdRng;
use rand::Rng;

/// A PMEVENT word.
pub fn pmevent(counter: u8, command: Command, selector: u8, dest: Option<u8>) -> u32 {
    flexpmu_isa::pmevent::encode(&Pmevent {
        counter,
        command,
        selector,
        dest,
    })
}

/// A random straight-line program of the subset, drawn from `rng`: every
/// form and operand kind (16-bit halves, `g[]` operands, immediates, the
/// zero register R124 read and written, R127 discarded, loads, stores,
/// NOP, PMEVENT counts, resets and reads) after a prologue that puts
/// &A[i] in R6 and &C[i] in R7 (as appendix A computes addresses); the
/// body never overwrites them, so its loads and stores stay in the
/// vectors. Its CNTs and RSTs select inputs below `selectors`.
pub fn straight_program(rng: &mut StdRng, selectors: u8) -> Vec<u32> {
    let mut words = Vec::new();
    for counter in 0..16 {
        if rng.gen_bool(0.5) {
            let selector = rng.gen_range(0..selectors);
            words.push(pmevent(counter, Command::Cnt, selector, None));
        }
    }
    words.extend(enc::mov_u16(1, 1)); // R0H = ntid.x
    words.extend(enc::i2i_u32_u16(1, 0)); // R1 = tid.x
    words.extend(enc::imad_u16(0, 6, 1, 1)); // R0 = ctaid.x * ntid.x + tid.x
    words.extend(enc::shl(2, 0, 2)); // R2 = 4i
    words.push(enc::iadd32_g(6, 4, 2)); // R6 = &A[i]
    words.push(enc::iadd32_g(7, 6, 2)); // R7 = &C[i]

    // Destinations R0-R5, the discarding R127 and the plain R124;
    // sources R0-R7 and the zero register R124.
    let dest = |rng: &mut StdRng| [0, 1, 2, 3, 4, 5, 124, 127][rng.gen_range(0..8)];
    let src = |rng: &mut StdRng| [0, 1, 2, 3, 4, 5, 6, 7, 124][rng.gen_range(0..9)];
    let half = |rng: &mut StdRng| {
        let r = src(rng);
        if r == 124 {
            124
        } else {
            2 * r + rng.gen_range(0..2)
        }
    };
    let dest_half = |rng: &mut StdRng| {
        let r = dest(rng);
        if r >= 124 {
            r
        } else {
            2 * r + rng.gen_range(0..2)
        }
    };
    // g[] holds 8 header halves and 3 parameter words: 14 halves.
    for _ in 0..rng.gen_range(10..40) {
        match rng.gen_range(0..10) {
            0 => words.extend(enc::mov_u16(dest_half(rng), rng.gen_range(0..14))),
            1 => words.extend(enc::i2i_u32_u16(dest(rng), half(rng))),
            2 => words.extend(enc::imad_u16(
                dest(rng),
                rng.gen_range(0..14),
                half(rng),
                src(rng),
            )),
            3 => words.extend(enc::shl(dest(rng), src(rng), rng.gen_range(0..40))),
            4 => words.push(enc::iadd32_rr(dest(rng) % 64, src(rng) % 64, src(rng) % 64)),
            5 => words.push(enc::iadd32_g(
                dest(rng) % 64,
                rng.gen_range(0..7),
                src(rng) % 64,
            )),
            6 => words.extend(enc::gld_u32(dest(rng), 6)),
            7 => words.extend(enc::gst_u32(7, src(rng))),
            8 => words.push(0xf000_0000), // NOP
            _ => {
                let counter = rng.gen_range(0..16);
                let selector = rng.gen_range(0..selectors);
                words.push(match rng.gen_range(0..4) {
                    0 => pmevent(counter, Command::Cnt, selector, None),
                    1 => pmevent(counter, Command::Rst, selector, None),
                    _ => pmevent(counter, Command::Idl, 0, Some(dest(rng))),
                });
            }
        }
    }
    words.extend([0x3000_0003, 0x0000_0780]); // RET
    words
}
