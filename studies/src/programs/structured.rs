//! Random structured kernels: if/else on bits of the thread index, counted
//! loops and loops whose trip count each thread loads, nested up to two
//! deep, around random integer work — programs the SM slice and the ISS
//! must agree on, and kernels to run fault campaigns on beside appendix A
//! and the rbe suite.
//!
//! Every kernel runs on the vector-addition launch (`flexpmu run`'s and
//! `faults run`'s default: A, B and C are the parameters): thread `i`
//! loads A[i] and B[i], works on R4-R8, and stores one word mixing them at
//! C[i]. It uses R0-R15 only: 16 registers per thread, what FlexGripPlus
//! can give each of the 32 warps of the thesis launch (4 × 512 threads, 2
//! blocks per core) in its 512-entry register file. Trip counts come from A[i]'s two low bits (0 to 3; A[i]'s low
//! byte is `i + 1`), so loops are bounded by construction and threads of a
//! warp disagree on them. Branch conditions use C0-C1 (one per nesting
//! depth), the work C2-C3. The kernel starts all 16 counters and never
//! reads them: what the counters count is seen only by reading them after
//! the kernel (the campaigns' "all counters" class), so the kernel's
//! output does not depend on what they monitor.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The source (`.sass`) of the random structured kernel of `seed`; the
/// same seed gives the same text.
pub fn structured_kernel(seed: u64) -> String {
    let mut generator = Generator {
        rng: StdRng::seed_from_u64(seed),
        labels: 0,
        text: String::new(),
    };
    generator.block(0);
    format!(
        "# Random structured kernel, seed {seed} (`flexpmu random-kernel --seed {seed}`).\n\
         # Runs on the vector-addition launch: thread i reads A[i] and B[i]\n\
         # and writes one word to C[i]; A[i]'s low two bits set its trip counts.\n\
         # R0-R15 only: 16 registers per thread, which the thesis launch\n\
         # (4 x 512 threads, 2 blocks per core, 32 warps resident) can host.\n\
         {PROLOGUE}{}{EPILOGUE}",
        generator.text
    )
}

/// Starts the counters; R0 = i (the global thread index), R1 = tid,
/// R2 = 4i, R3 = &A[i], R12 = &B[i], R13 = &C[i]; R4 = B[i], R5 = A[i],
/// R6 = i, R7 and R8 from them. R9 holds a thread-index bit, R10-R11
/// the loop counters, R15 reads 0 (it is never written).
const PROLOGUE: &str = "
    # Every counter starts counting; none is read.
    PMEVENT CNT0, CNT
    PMEVENT CNT1, CNT
    PMEVENT CNT2, CNT
    PMEVENT CNT3, CNT
    PMEVENT CNT4, CNT
    PMEVENT CNT5, CNT
    PMEVENT CNT6, CNT
    PMEVENT CNT7, CNT
    PMEVENT CNT8, CNT
    PMEVENT CNT9, CNT
    PMEVENT CNT10, CNT
    PMEVENT CNT11, CNT
    PMEVENT CNT12, CNT
    PMEVENT CNT13, CNT
    PMEVENT CNT14, CNT
    PMEVENT CNT15, CNT
    # i = ctaid * ntid + tid; A[i], B[i] and C[i]'s addresses.
    MOV.U16 R0H, g[0x1].U16
    I2I.U32.U16 R1, R0L
    IMAD.U16 R0, g[0x6].U16, R0H, R1
    SHL R2, R0, 0x2
    IADD32 R3, g[0x4], R2
    IADD32 R12, g[0x5], R2
    IADD32 R13, g[0x6], R2
    GLD.U32 R4, global14[R12]
    GLD.U32 R5, global14[R3]
    IADD32 R6, R0, R15
    IADD32 R7, R4, R5
    SHL R8, R5, 0x7
    # The work (R4-R8).
";

/// C[i] = R4 + 2 R5 + 4 R6 + 8 R7 + 16 R8 (each shifted so that a bit
/// flipped in any of them shows), then RET.
const EPILOGUE: &str = "    # C[i] mixes R4-R8.
    SHL R5, R5, 0x1
    IADD32 R4, R4, R5
    SHL R6, R6, 0x2
    IADD32 R4, R4, R6
    SHL R7, R7, 0x3
    IADD32 R4, R4, R7
    SHL R8, R8, 0x4
    IADD32 R4, R4, R8
    GST.U32 global14[R13], R4
    RET
";

struct Generator {
    rng: StdRng,
    labels: usize,
    text: String,
}

impl Generator {
    fn line(&mut self, text: &str) {
        self.text.push_str("    ");
        self.text.push_str(text);
        self.text.push('\n');
    }

    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels
    }

    fn work_register(&mut self) -> u32 {
        self.rng.gen_range(4..=8)
    }

    /// One to three statements; below depth 2 a statement may be an
    /// if/else or a loop around a nested block.
    fn block(&mut self, depth: usize) {
        for _ in 0..self.rng.gen_range(1..=3) {
            let choice = if depth < 2 {
                self.rng.gen_range(0..6)
            } else {
                0
            };
            match choice {
                0 | 1 => self.work(),
                2 | 3 => self.if_else(depth),
                4 => self.counted_loop(depth),
                _ => self.loaded_loop(depth),
            }
        }
    }

    fn work(&mut self) {
        let (d, s, t) = (
            self.work_register(),
            self.work_register(),
            self.work_register(),
        );
        let text = match self.rng.gen_range(0..5) {
            0 => format!("IADD32I R{d}, R{s}, {}", self.rng.gen_range(0..1000)),
            1 => format!("IADD32 R{d}, R{s}, R{t}"),
            2 => format!("SHL R{d}, R{s}, {:#x}", self.rng.gen_range(1..32)),
            3 => format!(
                "GLD.U32 R{d}, global14[R{}]",
                [3, 12][self.rng.gen_range(0..2)]
            ),
            _ => format!(
                "ISET.{}.C{} R{d}, R{s}, R{t}, {}",
                ["S32", "U32"][self.rng.gen_range(0..2)],
                self.rng.gen_range(2..4),
                ["LT", "EQ", "LE", "GT", "NE", "GE"][self.rng.gen_range(0..6)]
            ),
        };
        self.line(&text);
    }

    /// if/else on one of the thread index's six low bits.
    fn if_else(&mut self, depth: usize) {
        let k = self.label();
        let bit = self.rng.gen_range(0..6);
        self.line(&format!("SHL R9, R0, {:#x}", 31 - bit));
        self.line(&format!("ISET.U32.C{depth} R127, R9, R15, NE"));
        self.line(&format!("SSY join{k}"));
        self.line(&format!("@C{depth}.NE BRA else{k}"));
        self.block(depth + 1);
        self.line(&format!("BRA join{k}"));
        self.text.push_str(&format!("else{k}:\n"));
        self.block(depth + 1);
        self.text.push_str(&format!("join{k}: NOP.JOIN\n"));
    }

    /// The same trip count (1 to 3) for every thread.
    fn counted_loop(&mut self, depth: usize) {
        let k = self.label();
        let counter = 10 + depth;
        let n = self.rng.gen_range(1..=3);
        self.line(&format!("IADD32I R{counter}, R15, {n}"));
        self.text.push_str(&format!("loop{k}:\n"));
        self.block(depth + 1);
        self.line(&format!("IADD32I R{counter}, R{counter}, -1"));
        self.line(&format!("ISET.U32.C{depth} R127, R{counter}, R15, NE"));
        self.line(&format!("@C{depth}.NE BRA loop{k}"));
    }

    /// A[i]'s two low bits times: the counter is A[i] << 30, counted down
    /// by 2^30 (a divergent loop; threads with 0 skip it).
    fn loaded_loop(&mut self, depth: usize) {
        let k = self.label();
        let counter = 10 + depth;
        self.line(&format!("GLD.U32 R{counter}, global14[R3]"));
        self.line(&format!("SHL R{counter}, R{counter}, 0x1e"));
        self.line(&format!("SSY after{k}"));
        self.line(&format!("ISET.U32.C{depth} R127, R{counter}, R15, EQ"));
        self.line(&format!("@C{depth}.NE BRA after{k}"));
        self.text.push_str(&format!("loop{k}:\n"));
        self.block(depth + 1);
        self.line(&format!("IADD32I R{counter}, R{counter}, 0xc0000000"));
        self.line(&format!("ISET.U32.C{depth} R127, R{counter}, R15, NE"));
        self.line(&format!("@C{depth}.NE BRA loop{k}"));
        self.text.push_str(&format!("after{k}: NOP.JOIN\n"));
    }
}
