//! Random kernels of FlexGripPlus' whole instruction set with flow: the
//! words of [`whole`](super::whole) inside if/else, loops whose trip
//! count differs from thread to thread, a barrier and a call, laid out
//! as FlexGripPlus' applications lay them out (cuobjdump's sm_10 code):
//!
//! - if/else: `SSY join`, `BRA Cc.NE, then`, the else block, `BRA join`,
//!   the then block, `join: NOP.S`. Threads whose bit of R0 (the index
//!   the launch gives) is set take the branch: the warp diverges, the
//!   then block's threads reach the join, its `.S` pops the else threads'
//!   entry and they run; their `BRA join` brings them to the `.S` again,
//!   which pops the SSY's entry and the warp goes on whole.
//! - loops: `SSY exit`, a trip count of 1 to 4 from R0's low bits in R30
//!   (R31 in a nested loop), the body, the count decremented and tested,
//!   `BRA Cc.NE, top`, `exit: NOP.S` (Reduction's loop): threads leave at
//!   different trips and meet at the exit's `.S`.
//! - `BAR.ARV.WAIT b0, 0xfff` at the top level only (every thread of the
//!   block reaches it), before the call.
//! - `CAL.NOINC sub` as the main block's last word before its RET, the
//!   subroutine after it ending in RET. Last, because FlexGripPlus' RET
//!   that finds a warp's stack empty (a kernel's end) sets the branch
//!   unit's `limit_ret` for the whole SM, and a later RET of another warp
//!   then ends its threads instead of returning (see the ISS' `flow`):
//!   with the call last, ending there or after returning is the same.
//!
//! Nesting goes two deep, so a warp's stack holds at most 11 entries
//! (FlexGripPlus' holds 32). The random words carry no `.S` (it would
//! pop the flow's entries), never write R0, R30 or R31,
//! and name no register past the thread's own: once warps diverge, wait
//! at a barrier or return at different times, the order they run in is
//! FlexGripPlus' timing, which the ISS does not model (it runs the warps
//! round-robin, an instruction each), and another warp's registers would
//! make the results depend on it (measured: case 19 of seed 7, 8 to 64 of
//! 128 threads differed under GHDL when the words could name them).

use rand::rngs::StdRng;
use rand::Rng;

use flexpmu_sim::gpu::fgp_iss::{FgpIss, FgpLaunchSpec};

use super::whole::{assemble, instruction, prologue, Keep, RET};

/// The registers the flow reads and the random words leave alone: R0
/// (the thread's index) and the loop counters.
const RESERVED: [u32; 3] = [0, 30, 31];

/// The deepest nesting of ifs and loops.
const DEPTH: usize = 2;

/// A part of the program before its addresses are known.
enum Piece {
    Words(Vec<u32>),
    /// A flow word whose target is a label: its text up to the target.
    To(String, usize),
    Label(usize),
}

struct Generator<'a> {
    rng: &'a mut StdRng,
    iss: &'a FgpIss,
    pieces: Vec<Piece>,
    labels: usize,
    barrier: bool,
}

impl Generator<'_> {
    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels - 1
    }

    fn text(&mut self, text: &str) {
        self.pieces.push(Piece::Words(assemble(text)));
    }

    fn to(&mut self, text: &str, label: usize) {
        self.pieces.push(Piece::To(text.into(), label));
    }

    /// `words` random words, some of them inside ifs and loops (depth
    /// `depth`); a barrier at the top level where `top`.
    fn block(&mut self, depth: usize, words: usize, top: bool) {
        let mut left = words;
        while left > 0 {
            let inner = self.rng.gen_range(1..=left.min(6));
            match self.rng.gen_range(0..8) {
                0 | 1 if depth < DEPTH && inner >= 2 => {
                    self.if_else(depth, inner);
                    left -= inner;
                }
                2 if depth < DEPTH => {
                    self.repeat(depth, inner);
                    left -= inner;
                }
                3 if top && !self.barrier => {
                    self.barrier = true;
                    self.text("BAR.ARV.WAIT b0, 0xfff");
                }
                _ => {
                    let keep = Keep {
                        reserved: &RESERVED,
                        own: true,
                        join: false,
                    };
                    let words = instruction(self.rng, self.iss, keep);
                    self.pieces.push(Piece::Words(words));
                    left -= 1;
                }
            }
        }
    }

    /// An if/else on one bit of R0 around `words` words.
    fn if_else(&mut self, depth: usize, words: usize) {
        let (then, join) = (self.label(), self.label());
        let bit = 1u32 << self.rng.gen_range(0..5);
        let c = self.rng.gen_range(0..4);
        self.text(&format!("MVI R29, {bit:#x}"));
        self.text(&format!("LOP.AND.C{c} o [0x7f], R0, R29"));
        self.to("SSY", join);
        self.to(&format!("BRA C{c}.NE,"), then);
        let else_words = self.rng.gen_range(0..words);
        self.block(depth + 1, else_words, false);
        self.to("BRA", join);
        self.pieces.push(Piece::Label(then));
        self.block(depth + 1, words - else_words, false);
        self.pieces.push(Piece::Label(join));
        self.text("NOP.S");
    }

    /// A loop of 1 to 4 trips (R0's low bits, the counter in R30 or R31)
    /// around `words` words.
    fn repeat(&mut self, depth: usize, words: usize) {
        let (top, exit) = (self.label(), self.label());
        let counter = RESERVED[1 + depth];
        let mask = [1u32, 2, 3][self.rng.gen_range(0..3)];
        let c = self.rng.gen_range(0..4);
        self.text(&format!("MVI R{counter}, {mask:#x}"));
        self.text(&format!("LOP.AND R{counter}, R0, R{counter}"));
        self.text(&format!("IADD32I R{counter}, R{counter}, 0x1"));
        self.to("SSY", exit);
        self.pieces.push(Piece::Label(top));
        self.block(depth + 1, words, false);
        self.text(&format!("IADD32I R{counter}, R{counter}, 0xffffffff"));
        self.text(&format!("ISET.S32.C{c} o [0x7f], R{counter}, R124, GT"));
        self.to(&format!("BRA C{c}.NE,"), top);
        self.pieces.push(Piece::Label(exit));
        self.text("NOP.S");
    }

    /// The words, every label resolved to its byte address (each flow
    /// word with a target is 64 bits).
    fn words(&self) -> Vec<u32> {
        let mut at = vec![0u32; self.labels];
        let mut pc = 0u32;
        for piece in &self.pieces {
            match piece {
                Piece::Words(w) => pc += 4 * w.len() as u32,
                Piece::To(..) => pc += 8,
                Piece::Label(l) => at[*l] = pc,
            }
        }
        let mut words = Vec::new();
        for piece in &self.pieces {
            match piece {
                Piece::Words(w) => words.extend(w),
                Piece::To(text, l) => {
                    let w = assemble(&format!("{text} {:#x}", at[*l]));
                    assert_eq!(w.len(), 2, "`{text}` is a 64-bit word");
                    words.extend(w);
                }
                Piece::Label(_) => {}
            }
        }
        words
    }
}

/// A program of `length` random words (the [`prologue`] first) inside
/// ifs, loops, a barrier and a call, as the module page lays them out;
/// each word kept where the ISS runs it alone on `probe`
/// ([`probe_spec`](super::whole::probe_spec)), and the whole program
/// where the ISS runs it on `probe`.
pub fn flow_program(rng: &mut StdRng, length: usize, probe: FgpLaunchSpec) -> Vec<u32> {
    let iss = FgpIss::new(probe).expect("a one-warp launch on 8 cores");
    loop {
        let start = prologue(rng);
        let mut g = Generator {
            rng: &mut *rng,
            iss: &iss,
            pieces: vec![Piece::Words(start)],
            labels: 0,
            barrier: false,
        };
        let sub_words = g.rng.gen_range(0..=length / 3);
        g.block(0, length - sub_words, true);
        if sub_words > 0 {
            let sub = g.label();
            g.to("CAL.NOINC", sub);
            g.pieces.push(Piece::Words(RET.to_vec()));
            g.pieces.push(Piece::Label(sub));
            g.block(1, sub_words, false);
        }
        g.pieces.push(Piece::Words(RET.to_vec()));
        let words = g.words();
        if iss.run(&words).is_ok() {
            return words;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::programs::whole::probe_spec;
    use flexpmu_isa::decode_stage::{self, Operation};
    use rand::SeedableRng;

    #[test]
    fn programs_branch_loop_call_and_diverge() {
        let mut kinds = std::collections::BTreeSet::new();
        let mut diverged = 0;
        for seed in 0..8 {
            let mut rng = StdRng::seed_from_u64(seed);
            let program = flow_program(&mut rng, 24, probe_spec(32, None));
            let mut at = 0;
            while at < program.len() {
                let n = if program[at] & 1 == 1 { 2 } else { 1 };
                let stage = decode_stage::decode(decode_stage::value(
                    program[at],
                    program.get(at + 1).copied().filter(|_| n == 2),
                ));
                kinds.insert(stage.operation.name());
                at += n;
            }
            let result = FgpIss::new(probe_spec(32, None))
                .unwrap()
                .run(&program)
                .unwrap();
            // Threads that took different paths made different numbers
            // of register writes.
            let counts: std::collections::BTreeSet<usize> =
                result.writes.iter().map(Vec::len).collect();
            diverged += usize::from(counts.len() > 1);
        }
        assert!(diverged >= 4, "{diverged} of 8 programs diverged");
        for op in [
            Operation::Branch,
            Operation::Call,
            Operation::Sync,
            Operation::Barrier,
        ] {
            assert!(kinds.contains(op.name()), "{op:?} in {kinds:?}");
        }
    }
}
