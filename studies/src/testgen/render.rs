//! A genome as a kernel: assembler source with a comment on each line
//! saying what it exercises.
//!
//! The kernel runs on the vector-addition launch (`flexpmu run`'s
//! default): thread `i` owns three words, A[i], B[i] and C[i], reads and
//! writes only them, and computes in the work registers R9-R14. It uses
//! R0-R15 only: 16 registers per thread, what FlexGripPlus can give each
//! of the 32 warps of the thesis launch (4 × 512 threads, 2 blocks per
//! core) in its 512-entry register file. The prologue computes `i` and the
//! addresses of the words the body uses; the body is the genes; RET ends
//! it. Register choices resolve against what is defined where the gene
//! stands (R0 = i, R1 = tid, R2 = 4i and the work registers written so
//! far; never an address, so what a kernel computes does not depend on
//! where its launch puts the buffers), so every genome is a program that
//! runs to its end.

use std::fmt::Write;

use flexpmu_hdl::sm::core::MONITOR_MAP;
use flexpmu_isa::g80::Compare;

use super::genome::{Alu, AluOp, Gene, Genome, Slot};

/// The work registers: R9 to R14.
const WORK: [u8; 6] = [9, 10, 11, 12, 13, 14];
/// A loop's counter at nesting depth d is R(7 + d).
const LOOP_COUNTER: u8 = 7;
/// Never written, so it reads 0 (the register file starts at 0 and no
/// kernel writes it, so a later round of blocks finds 0 there too).
const ZERO: u8 = 15;
/// The signature the folds add into, stored in C[i] at the end; it is
/// cleared first (a later round finds what the earlier one left).
const SIGNATURE: u8 = 6;
/// The registers a kernel uses: R0 to R15.
pub const REGISTERS: u32 = 16;
/// ISET's destination when only its condition code is wanted.
const DISCARD: u8 = 127;

impl Slot {
    fn name(self) -> &'static str {
        match self {
            Slot::A => "A",
            Slot::B => "B",
            Slot::C => "C",
        }
    }

    /// The register holding the word's address.
    fn address(self) -> u8 {
        match self {
            Slot::A => 3,
            Slot::B => 4,
            Slot::C => 5,
        }
    }

    /// The launch parameter holding the vector's base.
    fn parameter(self) -> u8 {
        match self {
            Slot::A => 4,
            Slot::B => 5,
            Slot::C => 6,
        }
    }
}

/// A kernel's source and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub source: String,
    /// Instructions in the listing (the prologue and RET included).
    pub instructions: usize,
}

/// Renders `genome` under `title` (comment lines at the top). Without
/// `pmu`, its PMEVENTs are left out (the registers reads would have
/// written keep their values): the same kernel on a GPU without the PMU.
pub fn render(genome: &Genome, title: &str, pmu: bool) -> Kernel {
    let mut used = [false; 3];
    let folds = slots_used(&genome.genes, &mut used);
    if folds {
        used[Slot::C as usize] = true;
    }
    let mut writer = Writer {
        text: String::new(),
        labels: 0,
        instructions: 0,
        pmu,
    };
    for line in title.lines() {
        let _ = writeln!(writer.text, "# {line}");
    }
    writer.text.push_str(
        "#\n# Runs on the vector-addition launch: thread i reads and writes only its\n\
         # words A[i], B[i] and C[i]. R0 = i, R1 = tid, R2 = 4i, R3/R4/R5 = the\n\
         # words' addresses (never folded: what it computes does not depend on\n\
         # where the buffers are); work registers R9-R14; R6 the signature (the\n\
         # sum of the values folded into it, stored in C[i] at the end); loop\n\
         # counters R7-R8; R15 reads 0 (it is never written). R0-R15 only: 16\n\
         # registers per thread, which the thesis launch (4 x 512 threads, 2\n\
         # blocks per core, 32 warps resident) can host.\n\n",
    );
    writer.comment("i = ctaid * ntid + tid, and the addresses of the words the test uses");
    writer.line("MOV.U16 R0H, g[0x1].U16", "");
    writer.line("I2I.U32.U16 R1, R0L", "");
    writer.line("IMAD.U16 R0, g[0x6].U16, R0H, R1", "");
    writer.line("SHL R2, R0, 0x2", "");
    let mut defined = vec![0, 1, 2];
    for (slot, used) in [Slot::A, Slot::B, Slot::C].into_iter().zip(used) {
        if used {
            writer.line(
                &format!("IADD32 R{}, g[{:#x}], R2", slot.address(), slot.parameter()),
                &format!("&{}[i]", slot.name()),
            );
        }
    }
    if folds {
        writer.line(
            &format!("IADD32I R{SIGNATURE}, R{ZERO}, 0x0"),
            "the signature starts at 0",
        );
    }
    writer.comment("the test");
    writer.block(&genome.genes, 0, &mut defined);
    if folds {
        writer.line(
            &format!("GST.U32 global14[R{}], R{SIGNATURE}", Slot::C.address()),
            "global store: the signature in C[i] is checked",
        );
    }
    writer.line("RET", "end of the test");
    Kernel {
        source: writer.text,
        instructions: writer.instructions,
    }
}

/// Marks the words `genes` load or store; whether they fold.
fn slots_used(genes: &[Gene], used: &mut [bool; 3]) -> bool {
    let mut folds = false;
    for gene in genes {
        match gene {
            Gene::Load { slot, .. } | Gene::Store { slot, .. } => used[*slot as usize] = true,
            Gene::Fold { .. } => folds = true,
            Gene::If {
                then, otherwise, ..
            } => {
                folds |= slots_used(then, used);
                folds |= slots_used(otherwise, used);
            }
            Gene::Loop { body, .. } => folds |= slots_used(body, used),
            _ => {}
        }
    }
    folds
}

struct Writer {
    text: String,
    labels: usize,
    instructions: usize,
    pmu: bool,
}

/// The register `choice` picks among `defined`: 0 the one written last,
/// 1 the one before, ...
fn source(defined: &[u8], choice: u8) -> u8 {
    defined[defined.len() - 1 - usize::from(choice) % defined.len()]
}

/// A half of the register `choice` picks (its top bit picks the half).
fn half(defined: &[u8], choice: u8) -> String {
    let register = source(defined, choice & 0x7f);
    format!("R{register}{}", if choice & 0x80 != 0 { 'H' } else { 'L' })
}

/// The work register `choice` picks, now defined and the last written.
fn destination(defined: &mut Vec<u8>, choice: u8) -> u8 {
    let register = WORK[usize::from(choice) % WORK.len()];
    defined.retain(|&r| r != register);
    defined.push(register);
    register
}

/// Where a PMU read lands: a work register, then defined and the last
/// written.
fn read_register(defined: &mut Vec<u8>, choice: u8) -> u8 {
    destination(defined, choice & 0x7f)
}

/// A PMEVENT's selector field as written (none for input 0).
fn selection(selector: u8) -> String {
    match selector {
        0 => String::new(),
        s => format!(", SEL{s}"),
    }
}

fn counter_name(counter: u8) -> &'static str {
    MONITOR_MAP[usize::from(counter) % MONITOR_MAP.len()].name
}

impl Writer {
    fn line(&mut self, instruction: &str, comment: &str) {
        self.instructions += 1;
        if comment.is_empty() {
            let _ = writeln!(self.text, "    {instruction}");
        } else {
            let _ = writeln!(self.text, "    {instruction:<36} # {comment}");
        }
    }

    fn comment(&mut self, text: &str) {
        let _ = writeln!(self.text, "    # {text}");
    }

    fn label(&mut self, name: &str) {
        let _ = writeln!(self.text, "{name}:");
    }

    fn block(&mut self, genes: &[Gene], depth: usize, defined: &mut Vec<u8>) {
        for gene in genes {
            self.gene(gene, depth, defined);
        }
    }

    fn gene(&mut self, gene: &Gene, depth: usize, defined: &mut Vec<u8>) {
        match gene {
            Gene::Alu(alu) => self.alu(alu, defined),
            Gene::Load { dst, slot } => {
                let d = destination(defined, *dst);
                self.line(
                    &format!("GLD.U32 R{d}, global14[R{}]", slot.address()),
                    &format!("global load of {}[i]", slot.name()),
                );
            }
            Gene::Store { src, slot } => {
                let s = source(defined, *src);
                self.line(
                    &format!("GST.U32 global14[R{}], R{s}", slot.address()),
                    &format!("global store: {}[i] is checked", slot.name()),
                );
            }
            Gene::Fold { src } => {
                let s = source(defined, *src);
                self.line(
                    &format!("IADD32 R{SIGNATURE}, R{SIGNATURE}, R{s}"),
                    &format!("R{s} into the signature"),
                );
            }
            Gene::Count { counter, selector } => {
                if self.pmu {
                    let what = match selector {
                        0 => format!("({}) counts", counter_name(*counter)),
                        s => format!("counts its input {s}"),
                    };
                    self.line(
                        &format!("PMEVENT CNT{counter}, CNT{}", selection(*selector)),
                        &format!("PMU: CNT{counter} {what}"),
                    );
                }
            }
            Gene::Reset { counter, selector } => {
                if self.pmu {
                    let what = match selector {
                        0 => "resets locally".to_string(),
                        s => format!("resets locally, input {s} selected"),
                    };
                    self.line(
                        &format!("PMEVENT CNT{counter}, RST{}", selection(*selector)),
                        &format!("PMU: CNT{counter} {what}"),
                    );
                }
            }
            Gene::Read { counter, dst } => {
                let d = read_register(defined, *dst);
                if self.pmu {
                    self.line(
                        &format!("PMEVENT CNT{counter}, R{d}, IDL"),
                        &format!(
                            "PMU read: CNT{counter} ({}) is checked",
                            counter_name(*counter)
                        ),
                    );
                }
            }
            Gene::If {
                test,
                then,
                otherwise,
            } => {
                let k = self.next_label();
                let (a, b) = (source(defined, test.a), source(defined, test.b));
                let compare = Compare(test.compare & 7).name();
                let kind = if test.signed { "S32" } else { "U32" };
                let (branch, holds) = if test.on_equal {
                    ("EQ", "fails")
                } else {
                    ("NE", "holds")
                };
                self.line(
                    &format!("ISET.{kind}.C{depth} R{DISCARD}, R{a}, R{b}, {compare}"),
                    &format!(
                        "divergence: threads where R{a} {compare} R{b} {holds} take the else part"
                    ),
                );
                self.line(&format!("SSY join{k}"), "reconvergence point");
                self.line(&format!("@C{depth}.{branch} BRA else{k}"), "");
                let mut then_defined = defined.clone();
                self.block(then, depth + 1, &mut then_defined);
                self.line(&format!("BRA join{k}"), "");
                self.label(&format!("else{k}"));
                let mut else_defined = defined.clone();
                self.block(otherwise, depth + 1, &mut else_defined);
                let _ = writeln!(self.text, "join{k}: NOP.JOIN");
                self.instructions += 1;
                // Defined after the join: what both parts define.
                for r in then_defined {
                    if else_defined.contains(&r) && !defined.contains(&r) {
                        defined.push(r);
                    }
                }
            }
            Gene::Loop { trips, body } => {
                let k = self.next_label();
                let counter = LOOP_COUNTER + depth as u8;
                let trips = (*trips).clamp(1, 3);
                self.line(
                    &format!("IADD32I R{counter}, R{ZERO}, {trips}"),
                    &format!("loop: {trips} trip(s)"),
                );
                self.label(&format!("loop{k}"));
                // The body runs at least once: what it defines stays defined.
                self.block(body, depth + 1, defined);
                self.line(&format!("IADD32I R{counter}, R{counter}, -1"), "");
                self.line(
                    &format!("ISET.U32.C{depth} R{DISCARD}, R{counter}, R{ZERO}, NE"),
                    "",
                );
                self.line(
                    &format!("@C{depth}.NE BRA loop{k}"),
                    "back while trips remain",
                );
            }
        }
    }

    fn next_label(&mut self) -> usize {
        self.labels += 1;
        self.labels
    }

    fn alu(&mut self, alu: &Alu, defined: &mut Vec<u8>) {
        let a = source(defined, alu.a);
        let b = source(defined, alu.b);
        let c = source(defined, alu.c);
        let (text, comment) = match alu.op {
            AluOp::Add => {
                let d = destination(defined, alu.dst);
                (format!("IADD32 R{d}, R{a}, R{b}"), "adder".to_string())
            }
            AluOp::AddShared => {
                let n = alu.shared % 7;
                let d = destination(defined, alu.dst);
                (
                    format!("IADD32 R{d}, g[{n:#x}], R{b}"),
                    "adder, shared-memory operand".to_string(),
                )
            }
            AluOp::AddImmediate => {
                let d = destination(defined, alu.dst);
                (
                    format!("IADD32I R{d}, R{a}, {:#x}", alu.imm),
                    "adder, immediate".to_string(),
                )
            }
            AluOp::Shift => {
                let shift = alu.imm % 40;
                let d = destination(defined, alu.dst);
                (format!("SHL R{d}, R{a}, {shift:#x}"), "shifter".to_string())
            }
            AluOp::MultiplyAdd => {
                let n = alu.shared % 14;
                let h = half(defined, alu.a);
                let d = destination(defined, alu.dst);
                (
                    format!("IMAD.U16 R{d}, g[{n:#x}].U16, {h}, R{c}"),
                    "16-bit multiplier and adder".to_string(),
                )
            }
            AluOp::Set => {
                let compare = Compare(alu.compare & 7).name();
                let kind = if alu.signed { "S32" } else { "U32" };
                let cc = if alu.cc < 4 {
                    format!(".C{}", alu.cc)
                } else {
                    String::new()
                };
                let d = destination(defined, alu.dst);
                (
                    format!("ISET.{kind}{cc} R{d}, R{a}, R{b}, {compare}"),
                    format!("comparator ({compare}, {})", kind.to_lowercase()),
                )
            }
            AluOp::MoveHalf => {
                let n = alu.shared % 14;
                let register = destination(defined, alu.dst);
                let which = if alu.a & 0x80 != 0 { 'H' } else { 'L' };
                (
                    format!("MOV.U16 R{register}{which}, g[{n:#x}].U16"),
                    "16-bit move from shared memory".to_string(),
                )
            }
            AluOp::Widen => {
                let h = half(defined, alu.a);
                let d = destination(defined, alu.dst);
                (
                    format!("I2I.U32.U16 R{d}, {h}"),
                    "16-bit to 32-bit conversion".to_string(),
                )
            }
        };
        self.line(&text, &comment);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::genome::Test;
    use flexpmu_isa::asm::{assemble, WordRole};

    #[test]
    fn a_kernel_lists_its_parts() {
        let genome = Genome {
            genes: vec![
                Gene::Count {
                    counter: 9,
                    selector: 0,
                },
                Gene::Load {
                    dst: 0,
                    slot: Slot::B,
                },
                Gene::If {
                    test: Test {
                        a: 3,
                        b: 4,
                        compare: 1,
                        signed: true,
                        on_equal: false,
                    },
                    then: vec![Gene::Loop {
                        trips: 2,
                        body: vec![Gene::Store {
                            src: 5,
                            slot: Slot::C,
                        }],
                    }],
                    otherwise: vec![Gene::Read { counter: 9, dst: 1 }],
                },
            ],
        };
        let kernel = render(&genome, "test", true);
        let program = assemble(&kernel.source, "t.sass").unwrap();
        let instructions = program
            .words
            .iter()
            .filter(|w| w.role != WordRole::LongHigh)
            .count();
        assert_eq!(instructions, kernel.instructions, "{}", kernel.source);
        // A and nothing else is unused: its address is not computed.
        assert!(!kernel.source.contains("R3, g[0x4]"), "{}", kernel.source);
        assert!(kernel.source.contains("R4, g[0x5], R2"));
        assert!(
            kernel.source.contains("PMEVENT CNT9, R10, IDL"),
            "{}",
            kernel.source
        );
        let bare = render(&genome, "test", false);
        assert!(!bare.source.contains("PMEVENT"));
        assert_eq!(bare.instructions, kernel.instructions - 2);
    }
}
