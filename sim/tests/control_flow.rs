//! Loops and divergent branches on the SM slice: each kernel's results
//! against values worked out per thread by hand, and every register,
//! condition code and memory word against the reference ISS, on 32, 100
//! and 512 threads and both timings.

use flexpmu_isa::asm::assemble;
use flexpmu_sim::gpu::iss::{Geometry, GlobalMemory, Iss, IssError};
use flexpmu_sim::gpu::sm::timing::Timing;
use flexpmu_sim::gpu::sm::{Sm, SmConfig, SmError};

const OUT: u32 = 0x1_0000;
const IN: u32 = 0x2_0000;

/// R3 = &OUT[tid] (R1 = tid); `g[0x4]` is the first kernel parameter.
const PROLOGUE: &str = "
    I2I.U32.U16 R1, R0L
    SHL R3, R1, 0x2
    IADD32 R3, g[0x5], R3
";

/// OUT[tid] = R4, then RET.
const EPILOGUE: &str = "
    GST.U32 global14[R3], R4
    RET
";

fn kernel(body: &str) -> Vec<u32> {
    let source = format!("{PROLOGUE}{body}{EPILOGUE}");
    assemble(&source, "kernel.sass")
        .unwrap_or_else(|e| panic!("{e}"))
        .values()
}

/// Runs `program` on `threads` threads (one block) with parameters
/// `[param0, OUT, IN]` and `input` at IN, on the SM slice (both timings)
/// and the ISS; checks they agree on every register, condition code and
/// memory word; returns OUT[0..threads].
fn run(program: &[u32], threads: u32, param0: u32, input: &[u32]) -> Vec<u32> {
    let geometry = Geometry::threads(threads).unwrap();
    let mut memory = GlobalMemory::new();
    memory.write_words(IN, input).unwrap();
    memory.write_words(OUT, &vec![0; threads as usize]).unwrap();
    let mut iss = Iss::new(geometry, &[param0, OUT, IN], memory).unwrap();
    let reference = iss
        .run(program, |_, _| None)
        .unwrap_or_else(|e| panic!("{e}"));
    for timing in [Timing::FlexGripPlus, Timing::Simple] {
        let config = SmConfig {
            timing,
            pmu: false,
            ..SmConfig::default()
        };
        let run = Sm::new(&iss, program, config)
            .unwrap()
            .run()
            .unwrap_or_else(|e| panic!("{timing:?}: {e}"));
        assert_eq!(run.differences(&reference), (vec![], true), "{timing:?}");
        assert_eq!(
            run.warp_instructions, reference.warp_instructions,
            "{timing:?}"
        );
    }
    reference.memory.read_words(OUT, threads as usize).unwrap()
}

const SIZES: [u32; 3] = [32, 100, 512];

#[test]
fn counted_loop_runs_n_times() {
    // R4 += 3, N times (N = g[0x4]); N = 0 skips the loop.
    let program = kernel(
        "
        IADD32 R2, g[0x4], R63
        IADD32I R4, R63, 0
        ISET.U32.C0 R127, R2, R63, EQ
        @C0.NE BRA done
    loop:
        IADD32I R4, R4, 3
        IADD32I R2, R2, -1
        ISET.U32.C0 R127, R2, R63, NE
        @C0.NE BRA loop
    done:
    ",
    );
    for n in [0, 1, 2, 10, 100] {
        for threads in SIZES {
            let out = run(&program, threads, n, &[]);
            assert_eq!(
                out,
                vec![3 * n; threads as usize],
                "N = {n}, {threads} threads"
            );
        }
    }
}

#[test]
fn if_else_on_thread_parity_diverges_and_reconverges() {
    let program = kernel(
        "
        SHL R2, R1, 0x1f
        ISET.U32.C1 R127, R2, R63, NE
        SSY join
        @C1.NE BRA odd
        IADD32I R4, R1, 100
        BRA join
    odd:
        IADD32I R4, R1, 7
    join:
        NOP.JOIN
    ",
    );
    for threads in SIZES {
        let out = run(&program, threads, 0, &[]);
        let expected: Vec<u32> = (0..threads)
            .map(|t| t + if t % 2 == 1 { 7 } else { 100 })
            .collect();
        assert_eq!(out, expected, "{threads} threads");
    }
}

#[test]
fn nested_divergence_two_levels_deep() {
    // Outer: tid odd; inner: bit 1 of tid (tid << 30 >= 0x80000000).
    let program = kernel(
        "
        SHL R2, R1, 0x1f
        SHL R5, R1, 0x1e
        IADD32I R9, R63, 0x80000000
        ISET.U32.C1 R127, R2, R63, NE
        ISET.U32.C2 R127, R5, R9, GE
        SSY outer
        @C1.NE BRA odd
        SSY even_join
        @C2.NE BRA even_b1
        IADD32I R4, R1, 1000
        BRA even_join
    even_b1:
        IADD32I R4, R1, 2000
    even_join:
        NOP.JOIN
        BRA outer
    odd:
        SSY odd_join
        @C2.NE BRA odd_b1
        IADD32I R4, R1, 3000
        BRA odd_join
    odd_b1:
        IADD32I R4, R1, 4000
    odd_join:
        NOP.JOIN
    outer:
        NOP.JOIN
    ",
    );
    for threads in SIZES {
        let out = run(&program, threads, 0, &[]);
        let expected: Vec<u32> = (0..threads)
            .map(|t| t + [1000, 3000, 2000, 4000][(t % 4) as usize])
            .collect();
        assert_eq!(out, expected, "{threads} threads");
    }
}

#[test]
fn loop_trip_count_differs_per_thread() {
    // trips = IN[tid]; R4 = 5 * trips. Threads that finish wait on the
    // stack until the last one leaves the loop.
    let program = kernel(
        "
        SHL R6, R1, 0x2
        IADD32 R6, g[0x6], R6
        GLD.U32 R2, global14[R6]
        IADD32I R4, R63, 0
        SSY after
        ISET.U32.C0 R127, R2, R63, EQ
        @C0.NE BRA after
    loop:
        IADD32I R4, R4, 5
        IADD32I R2, R2, -1
        ISET.U32.C0 R127, R2, R63, NE
        @C0.NE BRA loop
    after:
        NOP.JOIN
    ",
    );
    for threads in SIZES {
        let trips: Vec<u32> = (0..threads).map(|t| (t * 7 + t / 3) % 6).collect();
        let out = run(&program, threads, 0, &trips);
        let expected: Vec<u32> = trips.iter().map(|n| 5 * n).collect();
        assert_eq!(out, expected, "{threads} threads");
    }
}

fn sm_error(program: &[u32]) -> (String, String) {
    let geometry = Geometry::threads(32).unwrap();
    let mut iss = Iss::new(geometry, &[0, OUT, IN], GlobalMemory::new()).unwrap();
    iss.set_step_limit(10_000);
    let reference = iss.run(program, |_, _| None).unwrap_err();
    let config = SmConfig {
        max_cycles: Some(200_000),
        ..SmConfig::default()
    };
    let sm = Sm::new(&iss, program, config).unwrap().run().unwrap_err();
    (reference.to_string(), sm.to_string())
}

#[test]
fn runaway_loops_and_divergent_returns_are_errors() {
    let forever = assemble("spin: BRA spin", "k.sass").unwrap().values();
    let (iss, sm) = sm_error(&forever);
    assert_eq!(
        iss,
        IssError::StepLimit { limit: 10_000 }.to_string(),
        "the ISS gives up"
    );
    assert!(matches!(
        Sm::new(
            &Iss::new(Geometry::threads(32).unwrap(), &[], GlobalMemory::new()).unwrap(),
            &forever,
            SmConfig {
                max_cycles: Some(5_000),
                ..SmConfig::default()
            }
        )
        .unwrap()
        .run(),
        Err(SmError::Timeout(5_000))
    ));
    assert_eq!(sm, "the kernel did not finish within 200000 cycles");
    // Without a cycle limit, the SM takes its bound from the ISS, which
    // gives up on a loop that never ends at once.
    let unbounded = Sm::new(
        &Iss::new(Geometry::threads(32).unwrap(), &[], GlobalMemory::new()).unwrap(),
        &forever,
        SmConfig::default(),
    );
    assert!(
        matches!(
            unbounded,
            Err(SmError::Architectural(IssError::StepLimit { .. }))
        ),
        "{:?}",
        unbounded.err()
    );
    // RET on the odd threads only, before they reconverge.
    let divergent_ret = assemble(
        "I2I.U32.U16 R1, R0L\nSHL R2, R1, 0x1f\nISET.U32.C0 R127, R2, R63, NE\nSSY j\n@C0.NE BRA odd\nBRA j\nodd: RET\nj: NOP.JOIN\nRET",
        "k.sass",
    )
    .unwrap()
    .values();
    let (iss, sm) = sm_error(&divergent_ret);
    assert_eq!(iss, sm, "the same error from both");
    assert!(
        iss.contains("`RET` at address 12: RET inside a divergent region"),
        "{iss}"
    );
}

/// A random structured program: if/else on a bit of tid, counted loops
/// and loops whose trip count each thread loads, nested up to two deep,
/// around random ALU work on R4-R8 and condition codes C2-C3.
struct Generator {
    rng: rand::rngs::StdRng,
    labels: usize,
    text: String,
}

impl Generator {
    fn line(&mut self, text: &str) {
        self.text.push_str(text);
        self.text.push('\n');
    }

    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels
    }

    fn block(&mut self, depth: usize) {
        use rand::Rng;
        for _ in 0..self.rng.gen_range(1..=3) {
            let r = |rng: &mut rand::rngs::StdRng| rng.gen_range(4..=8);
            let choice = if depth < 2 {
                self.rng.gen_range(0..6)
            } else {
                0
            };
            match choice {
                0 | 1 => {
                    let (d, s, t) = (r(&mut self.rng), r(&mut self.rng), r(&mut self.rng));
                    let text = match self.rng.gen_range(0..3) {
                        0 => format!("IADD32I R{d}, R{s}, {}", self.rng.gen_range(0..1000)),
                        1 => format!("IADD32 R{d}, R{s}, R{t}"),
                        _ => format!(
                            "ISET.{}.C{} R{d}, R{s}, R{t}, {}",
                            ["S32", "U32"][self.rng.gen_range(0..2)],
                            self.rng.gen_range(2..4),
                            ["LT", "EQ", "LE", "GT", "NE", "GE"][self.rng.gen_range(0..6)]
                        ),
                    };
                    self.line(&text);
                }
                2 | 3 => {
                    let k = self.label();
                    let bit = self.rng.gen_range(0..6);
                    self.line(&format!("SHL R20, R1, {:#x}", 31 - bit));
                    self.line(&format!("ISET.U32.C{depth} R127, R20, R63, NE"));
                    self.line(&format!("SSY join{k}"));
                    self.line(&format!("@C{depth}.NE BRA else{k}"));
                    self.block(depth + 1);
                    self.line(&format!("BRA join{k}"));
                    self.line(&format!("else{k}:"));
                    self.block(depth + 1);
                    self.line(&format!("join{k}: NOP.JOIN"));
                }
                4 => {
                    let k = self.label();
                    let counter = 10 + depth;
                    let n = self.rng.gen_range(1..=3);
                    self.line(&format!("IADD32I R{counter}, R63, {n}"));
                    self.line(&format!("loop{k}:"));
                    self.block(depth + 1);
                    self.line(&format!("IADD32I R{counter}, R{counter}, -1"));
                    self.line(&format!("ISET.U32.C{depth} R127, R{counter}, R63, NE"));
                    self.line(&format!("@C{depth}.NE BRA loop{k}"));
                }
                _ => {
                    // IN[tid] holds each thread's trip count (0 to 3).
                    let k = self.label();
                    let counter = 10 + depth;
                    self.line("SHL R21, R1, 0x2");
                    self.line("IADD32 R21, g[0x6], R21");
                    self.line(&format!("GLD.U32 R{counter}, global14[R21]"));
                    self.line(&format!("SSY after{k}"));
                    self.line(&format!("ISET.U32.C{depth} R127, R{counter}, R63, EQ"));
                    self.line(&format!("@C{depth}.NE BRA after{k}"));
                    self.line(&format!("loop{k}:"));
                    self.block(depth + 1);
                    self.line(&format!("IADD32I R{counter}, R{counter}, -1"));
                    self.line(&format!("ISET.U32.C{depth} R127, R{counter}, R63, NE"));
                    self.line(&format!("@C{depth}.NE BRA loop{k}"));
                    self.line(&format!("after{k}: NOP.JOIN"));
                }
            }
        }
    }
}

/// Random structured programs on random launches: the compiled engine and
/// rust-hdl's (the reference) run them alike, cycle for cycle, and every
/// register, condition code and memory word equals the ISS's.
#[test]
fn random_structured_programs_match_the_iss_on_both_engines() {
    use flexpmu_sim::engine::Engine;
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    for case in 0..24 {
        let mut generator = Generator {
            rng: rand::rngs::StdRng::seed_from_u64(rng.gen()),
            labels: 0,
            text: String::new(),
        };
        generator.block(0);
        let program = kernel(&generator.text);
        let threads = [32, 40, 64, 100][case % 4];
        let trips: Vec<u32> = (0..threads).map(|_| rng.gen_range(0..4)).collect();
        let geometry = Geometry::threads(threads).unwrap();
        let mut memory = GlobalMemory::new();
        memory.write_words(IN, &trips).unwrap();
        memory.write_words(OUT, &vec![0; threads as usize]).unwrap();
        let mut iss = Iss::new(geometry, &[0, OUT, IN], memory).unwrap();
        let reference = iss
            .run(&program, |_, _| None)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{}", generator.text));
        let timing = [Timing::FlexGripPlus, Timing::Simple][case % 2];
        let runs: Vec<_> = [Engine::Compiled, Engine::RustHdl]
            .into_iter()
            .map(|engine| {
                let config = SmConfig {
                    timing,
                    engine,
                    ..SmConfig::default()
                };
                Sm::new(&iss, &program, config)
                    .unwrap()
                    .run()
                    .unwrap_or_else(|e| panic!("case {case} {engine:?}: {e}\n{}", generator.text))
            })
            .collect();
        assert_eq!(runs[0].cycles, runs[1].cycles, "case {case}");
        assert_eq!(runs[0].threads, runs[1].threads, "case {case}");
        for run in &runs {
            assert_eq!(
                run.differences(&reference),
                (vec![], true),
                "case {case}\n{}",
                generator.text
            );
            assert_eq!(
                run.warp_instructions, reference.warp_instructions,
                "case {case}"
            );
        }
    }
}
