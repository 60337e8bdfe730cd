//! A test program's genome: the body of a kernel as genes (one integer
//! instruction, a load, a store, a PMEVENT, or an if/else or counted loop
//! around more genes), and the operators the search varies them with.
//!
//! Genes hold register *choices*, not registers: [`render`](super::render)
//! resolves each against the registers defined at that point, so every
//! genome, however mutated, is a valid program (no register the kernel's
//! addressing needs is overwritten, loops count down from 1 to 3, every
//! access is one of the thread's own three words).

use rand::rngs::StdRng;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The most genes a genome holds, nested ones included (a kernel of
/// about 100 instructions at most).
pub const MAX_GENES: usize = 48;
/// If/else and loops nest this deep at most.
pub const MAX_DEPTH: usize = 2;

/// One of the thread's three words of the vector-addition launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Slot {
    A,
    B,
    C,
}

impl Slot {
    const ALL: [Slot; 3] = [Slot::A, Slot::B, Slot::C];
}

/// The integer instructions of the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AluOp {
    /// `IADD32 Rd, Ra, Rb`
    Add,
    /// `IADD32 Rd, g[n], Rb`
    AddShared,
    /// `IADD32I Rd, Ra, imm`
    AddImmediate,
    /// `SHL Rd, Ra, imm`
    Shift,
    /// `IMAD.U16 Rd, g[n].U16, Rh, Rc`
    MultiplyAdd,
    /// `ISET.S32|U32[.Cn] Rd, Ra, Rb, COND`
    Set,
    /// `MOV.U16 Rh, g[n].U16`
    MoveHalf,
    /// `I2I.U32.U16 Rd, Rh`
    Widen,
}

impl AluOp {
    const ALL: [AluOp; 8] = [
        AluOp::Add,
        AluOp::AddShared,
        AluOp::AddImmediate,
        AluOp::Shift,
        AluOp::MultiplyAdd,
        AluOp::Set,
        AluOp::MoveHalf,
        AluOp::Widen,
    ];
}

/// One integer instruction; which fields it uses depends on `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Alu {
    pub op: AluOp,
    /// Destination choice (a work register).
    pub dst: u8,
    /// Source choices (defined registers; `a` also picks a half).
    pub a: u8,
    pub b: u8,
    pub c: u8,
    /// IADD32I's immediate, SHL's shift (its low bits).
    pub imm: u32,
    /// The `g[]` offset choice.
    pub shared: u8,
    /// ISET's condition (0 to 7: FL, LT, EQ, LE, GT, NE, GE, TR).
    pub compare: u8,
    pub signed: bool,
    /// ISET's condition-code register, 0 to 3; 4 writes none.
    pub cc: u8,
}

/// An if/else's test: `ISET Ra, Rb, COND` into the nesting depth's
/// condition-code register, then a branch on it (`.NE` or `.EQ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Test {
    pub a: u8,
    pub b: u8,
    pub compare: u8,
    pub signed: bool,
    /// Branch to the else part on `.EQ` (the comparison failed) instead
    /// of `.NE` (it held).
    pub on_equal: bool,
}

/// A gene: one piece of the kernel's body.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "gene", rename_all = "snake_case")]
pub enum Gene {
    Alu(Alu),
    /// `GLD.U32 Rd, global14[&slot[i]]`
    Load {
        dst: u8,
        slot: Slot,
    },
    /// `GST.U32 global14[&slot[i]], Rs`: what the output check sees.
    Store {
        src: u8,
        slot: Slot,
    },
    /// `IADD32 R21, R21, Rs`: Rs added into the signature, which the
    /// kernel stores in C[i] at its end (one instruction per value
    /// checked, however many: the test's compaction).
    Fold {
        src: u8,
    },
    /// `PMEVENT CNTk, CNT, SELs`: counter k starts counting its input s
    /// (0 on a PMU without event selectors).
    Count {
        counter: u8,
        #[serde(default)]
        selector: u8,
    },
    /// `PMEVENT CNTk, Rd, IDL`: counter k stops and is read (a value the
    /// test checks).
    Read {
        counter: u8,
        dst: u8,
    },
    /// `PMEVENT CNTk, RST, SELs`
    Reset {
        counter: u8,
        #[serde(default)]
        selector: u8,
    },
    /// if/else on a comparison of two defined registers (threads may
    /// diverge).
    If {
        test: Test,
        then: Vec<Gene>,
        otherwise: Vec<Gene>,
    },
    /// A loop every thread runs `trips` (1 to 3) times.
    Loop {
        trips: u8,
        body: Vec<Gene>,
    },
}

/// A kernel body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Genome {
    pub genes: Vec<Gene>,
}

/// Immediates worth trying besides random ones: carries across every
/// byte, sign and alternating bits.
const IMMEDIATES: [u32; 10] = [
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x5555_5555,
    0xaaaa_aaaa,
    0x0000_ffff,
    0xffff_0000,
    0x0101_0101,
];

fn immediate(rng: &mut StdRng) -> u32 {
    if rng.gen_bool(0.5) {
        IMMEDIATES[rng.gen_range(0..IMMEDIATES.len())]
    } else {
        rng.gen()
    }
}

/// A source choice, most often one of the four registers written last
/// (choice 0 is the last): chains of work on the data, as programs have.
fn recent(rng: &mut StdRng) -> u8 {
    if rng.gen_bool(0.7) {
        rng.gen_range(0..4)
    } else {
        rng.gen()
    }
}

fn random_alu(rng: &mut StdRng) -> Alu {
    Alu {
        op: AluOp::ALL[rng.gen_range(0..AluOp::ALL.len())],
        dst: rng.gen(),
        a: recent(rng),
        b: recent(rng),
        c: recent(rng),
        imm: immediate(rng),
        shared: rng.gen(),
        compare: rng.gen_range(0..8),
        signed: rng.gen(),
        cc: rng.gen_range(0..5),
    }
}

fn random_test(rng: &mut StdRng) -> Test {
    Test {
        a: recent(rng),
        b: recent(rng),
        // Not FL or TR: both paths should be possible.
        compare: rng.gen_range(1..7),
        signed: rng.gen(),
        on_equal: rng.gen(),
    }
}

/// A random gene for nesting depth `depth` (no if/else or loop at
/// [`MAX_DEPTH`]).
pub fn random_gene(rng: &mut StdRng, depth: usize, selectors: u8) -> Gene {
    let roll = rng.gen_range(0..100);
    let nested = depth < MAX_DEPTH;
    match roll {
        0..=49 => Gene::Alu(random_alu(rng)),
        50..=57 => Gene::Load {
            dst: rng.gen(),
            slot: Slot::ALL[rng.gen_range(0..3)],
        },
        58..=63 => Gene::Store {
            src: recent(rng),
            slot: Slot::ALL[rng.gen_range(0..3)],
        },
        64..=69 => Gene::Fold { src: recent(rng) },
        70..=77 => {
            let (counter, selector) = random_event(rng, selectors);
            Gene::Count { counter, selector }
        }
        78..=87 => Gene::Read {
            counter: rng.gen_range(0..16),
            dst: rng.gen(),
        },
        88..=89 => {
            let (counter, selector) = random_event(rng, selectors);
            Gene::Reset { counter, selector }
        }
        90..=94 if nested => Gene::If {
            test: random_test(rng),
            then: random_block(rng, depth + 1, selectors),
            otherwise: random_block(rng, depth + 1, selectors),
        },
        95..=99 if nested => Gene::Loop {
            trips: rng.gen_range(1..=3),
            body: random_block(rng, depth + 1, selectors),
        },
        _ => Gene::Alu(random_alu(rng)),
    }
}

/// One to three genes inside an if/else or a loop.
fn random_block(rng: &mut StdRng, depth: usize, selectors: u8) -> Vec<Gene> {
    (0..rng.gen_range(1..=3))
        .map(|_| random_gene(rng, depth, selectors))
        .collect()
}

/// A counter and, on a PMU with `selectors` inputs per channel, which
/// input it counts: one draw, so a PMU without selectors draws as before.
fn random_event(rng: &mut StdRng, selectors: u8) -> (u8, u8) {
    let event = rng.gen_range(0..16 * u16::from(selectors.max(1)));
    ((event % 16) as u8, (event / 16) as u8)
}

impl Genome {
    /// A random genome of `length` top-level genes (cut to [`MAX_GENES`]):
    /// with three genes or more, a program's shape — it loads A[i] and
    /// B[i], works, and folds its last result into the signature —
    /// around random genes.
    /// CNT and RST genes select among `selectors` inputs (1: none).
    pub fn random(rng: &mut StdRng, length: usize, selectors: u8) -> Genome {
        let mut genes: Vec<Gene> = Vec::with_capacity(length);
        let middle = match length {
            0..=2 => length,
            _ => {
                for slot in [Slot::A, Slot::B] {
                    genes.push(Gene::Load {
                        dst: rng.gen(),
                        slot,
                    });
                }
                length - 3
            }
        };
        genes.extend((0..middle).map(|_| random_gene(rng, 0, selectors)));
        if length >= 3 {
            genes.push(Gene::Fold { src: 0 });
        }
        let mut genome = Genome { genes };
        genome.bound();
        genome
    }

    /// Genes, nested ones included.
    pub fn size(&self) -> usize {
        count(&self.genes)
    }

    /// Drops genes from the end until the genome holds at most
    /// [`MAX_GENES`].
    fn bound(&mut self) {
        while self.size() > MAX_GENES {
            self.genes.pop();
        }
    }

    /// The genome with one to three random changes (new CNT and RST
    /// genes selecting among `selectors` inputs).
    pub fn mutated(&self, rng: &mut StdRng, selectors: u8) -> Genome {
        let mut child = self.clone();
        for _ in 0..rng.gen_range(1..=3) {
            child.mutate_once(rng, selectors);
        }
        child.bound();
        child
    }

    /// One change in one of the genome's lists (the body, or the inside
    /// of an if/else or loop), picked by its length.
    fn mutate_once(&mut self, rng: &mut StdRng, selectors: u8) {
        let mut lists = Vec::new();
        list_sizes(&self.genes, 0, &mut lists);
        let total: usize = lists.iter().map(|(len, _)| len + 1).sum();
        let mut pick = rng.gen_range(0..total);
        let index = lists
            .iter()
            .position(|(len, _)| {
                if pick <= *len {
                    true
                } else {
                    pick -= len + 1;
                    false
                }
            })
            .unwrap_or(0);
        let depth = lists[index].1;
        let mut seen = 0;
        with_list(&mut self.genes, index, &mut seen, &mut |list| {
            change(list, depth, rng, selectors)
        });
    }

    /// One-point crossover of the bodies: this genome's first genes, then
    /// `other`'s from a point on.
    pub fn crossed(&self, other: &Genome, rng: &mut StdRng) -> Genome {
        let cut = rng.gen_range(0..=self.genes.len());
        let from = rng.gen_range(0..=other.genes.len());
        let mut child = Genome {
            genes: self.genes[..cut]
                .iter()
                .chain(&other.genes[from..])
                .cloned()
                .collect(),
        };
        child.bound();
        child
    }
}

/// How deep if/else and loops nest in `genes` (0: none).
fn depth_of(genes: &[Gene]) -> usize {
    genes
        .iter()
        .map(|g| match g {
            Gene::If {
                then, otherwise, ..
            } => 1 + depth_of(then).max(depth_of(otherwise)),
            Gene::Loop { body, .. } => 1 + depth_of(body),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

fn count(genes: &[Gene]) -> usize {
    genes
        .iter()
        .map(|g| match g {
            Gene::If {
                then, otherwise, ..
            } => 1 + count(then) + count(otherwise),
            Gene::Loop { body, .. } => 1 + count(body),
            _ => 1,
        })
        .sum()
}

/// Every list of genes (length, depth), in depth-first order.
fn list_sizes(genes: &[Gene], depth: usize, out: &mut Vec<(usize, usize)>) {
    out.push((genes.len(), depth));
    for gene in genes {
        match gene {
            Gene::If {
                then, otherwise, ..
            } => {
                list_sizes(then, depth + 1, out);
                list_sizes(otherwise, depth + 1, out);
            }
            Gene::Loop { body, .. } => list_sizes(body, depth + 1, out),
            _ => {}
        }
    }
}

/// Applies `f` to the `target`-th list in [`list_sizes`]' order.
fn with_list(
    genes: &mut Vec<Gene>,
    target: usize,
    seen: &mut usize,
    f: &mut dyn FnMut(&mut Vec<Gene>),
) -> bool {
    if *seen == target {
        f(genes);
        return true;
    }
    *seen += 1;
    for gene in genes.iter_mut() {
        let done = match gene {
            Gene::If {
                then, otherwise, ..
            } => with_list(then, target, seen, f) || with_list(otherwise, target, seen, f),
            Gene::Loop { body, .. } => with_list(body, target, seen, f),
            _ => false,
        };
        if done {
            return true;
        }
    }
    false
}

/// One random change to `list` at nesting depth `depth`: a field of a
/// gene, a gene replaced, inserted, removed, copied or moved, or a run of genes
/// wrapped in a loop or unwrapped from one.
fn change(list: &mut Vec<Gene>, depth: usize, rng: &mut StdRng, selectors: u8) {
    if list.is_empty() {
        list.push(random_gene(rng, depth, selectors));
        return;
    }
    let at = rng.gen_range(0..list.len());
    match rng.gen_range(0..10) {
        0..=3 => tweak(&mut list[at], rng, selectors),
        4 => list[at] = random_gene(rng, depth, selectors),
        5 | 6 => list.insert(
            rng.gen_range(0..=list.len()),
            random_gene(rng, depth, selectors),
        ),
        7 => {
            // Inside an if/else or a loop, keep at least one gene.
            if list.len() > 1 || depth == 0 {
                list.remove(at);
            }
        }
        8 => {
            // A copy elsewhere (another store, the same work again on
            // other registers), or two genes swapped.
            let to = rng.gen_range(0..list.len());
            if rng.gen_bool(0.5) && count(&list[at..=at]) == 1 {
                let copy = list[at].clone();
                list.insert(to, copy);
            } else {
                list.swap(at, to);
            }
        }
        _ => match &list[at] {
            Gene::Loop { body, .. } | Gene::If { then: body, .. } => {
                let body = body.clone();
                list.splice(at..=at, body);
            }
            _ if depth < MAX_DEPTH => {
                let end = rng.gen_range(at + 1..=list.len().min(at + 3));
                if depth + 1 + depth_of(&list[at..end]) > MAX_DEPTH {
                    return;
                }
                let body: Vec<Gene> = list.drain(at..end).collect();
                list.insert(
                    at,
                    Gene::Loop {
                        trips: rng.gen_range(1..=3),
                        body,
                    },
                );
            }
            _ => tweak(&mut list[at], rng, selectors),
        },
    }
}

/// A new value for one field of `gene`.
fn tweak(gene: &mut Gene, rng: &mut StdRng, selectors: u8) {
    match gene {
        Gene::Alu(alu) => match rng.gen_range(0..8) {
            0 => alu.op = AluOp::ALL[rng.gen_range(0..AluOp::ALL.len())],
            1 => alu.dst = rng.gen(),
            2 => alu.a = recent(rng),
            3 => alu.b = recent(rng),
            4 => alu.c = recent(rng),
            5 => alu.imm = immediate(rng),
            6 => alu.shared = rng.gen(),
            _ => {
                alu.compare = rng.gen_range(0..8);
                alu.signed = rng.gen();
                alu.cc = rng.gen_range(0..5);
            }
        },
        Gene::Load { dst, slot } => match rng.gen_bool(0.5) {
            true => *dst = rng.gen(),
            false => *slot = Slot::ALL[rng.gen_range(0..3)],
        },
        Gene::Store { src, slot } => match rng.gen_bool(0.5) {
            true => *src = recent(rng),
            false => *slot = Slot::ALL[rng.gen_range(0..3)],
        },
        Gene::Fold { src } => *src = recent(rng),
        Gene::Count { counter, selector } | Gene::Reset { counter, selector } => {
            (*counter, *selector) = random_event(rng, selectors)
        }
        Gene::Read { counter, dst } => match rng.gen_bool(0.5) {
            true => *counter = rng.gen_range(0..16),
            false => *dst = rng.gen(),
        },
        Gene::If { test, .. } => *test = random_test(rng),
        Gene::Loop { trips, .. } => *trips = rng.gen_range(1..=3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn variation_keeps_genomes_bounded() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut genomes: Vec<Genome> = (0..8).map(|_| Genome::random(&mut rng, 30, 4)).collect();
        for round in 0..300 {
            let i = round % genomes.len();
            let j = (round * 7 + 3) % genomes.len();
            let child = genomes[i]
                .crossed(&genomes[j], &mut rng)
                .mutated(&mut rng, 4);
            assert!(child.size() <= MAX_GENES, "{}", child.size());
            assert!(depth_of(&child.genes) <= MAX_DEPTH, "{child:?}");
            genomes[i] = child;
        }
        // Variation changes genomes (not a fixed point).
        let first = Genome::random(&mut StdRng::seed_from_u64(1), 10, 1);
        let changed = (0..20)
            .filter(|_| first.mutated(&mut rng, 1) != first)
            .count();
        assert!(changed >= 15, "{changed}");
    }

    #[test]
    fn the_same_seed_gives_the_same_genome() {
        let a = Genome::random(&mut StdRng::seed_from_u64(9), 12, 1);
        let b = Genome::random(&mut StdRng::seed_from_u64(9), 12, 1);
        assert_eq!(a, b);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Genome>(&json).unwrap(), a);
    }

    /// Without selectors, a counter is drawn as it was before genes had
    /// selectors: the same seed still gives the same search.
    #[test]
    fn without_selectors_a_counter_is_drawn_as_before() {
        let (mut old, mut new) = (StdRng::seed_from_u64(3), StdRng::seed_from_u64(3));
        for _ in 0..1000 {
            let before: u8 = old.gen_range(0..16);
            assert_eq!(random_event(&mut new, 1), (before, 0));
        }
        // With 4 inputs, every input is drawn.
        let mut seen = [false; 4];
        for _ in 0..200 {
            let (counter, selector) = random_event(&mut new, 4);
            assert!(counter < 16);
            seen[usize::from(selector)] = true;
        }
        assert_eq!(seen, [true; 4]);
    }
}
