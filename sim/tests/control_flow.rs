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
        IADD32 R2, g[0x4], R31
        IADD32I R4, R31, 0
        ISET.U32.C0 R127, R2, R31, EQ
        @C0.NE BRA done
    loop:
        IADD32I R4, R4, 3
        IADD32I R2, R2, -1
        ISET.U32.C0 R127, R2, R31, NE
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
        ISET.U32.C1 R127, R2, R31, NE
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
        IADD32I R9, R31, 0x80000000
        ISET.U32.C1 R127, R2, R31, NE
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
        IADD32I R4, R31, 0
        SSY after
        ISET.U32.C0 R127, R2, R31, EQ
        @C0.NE BRA after
    loop:
        IADD32I R4, R4, 5
        IADD32I R2, R2, -1
        ISET.U32.C0 R127, R2, R31, NE
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
        "I2I.U32.U16 R1, R0L\nSHL R2, R1, 0x1f\nISET.U32.C0 R127, R2, R31, NE\nSSY j\n@C0.NE BRA odd\nBRA j\nodd: RET\nj: NOP.JOIN\nRET",
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
