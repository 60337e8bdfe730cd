use super::*;
use flexpmu_isa::asm::assemble_file;
use flexpmu_isa::g80::encode as enc;
use flexpmu_isa::g80::G80Error;
use std::path::Path;

const A: u32 = 0x0001_0000;
const B: u32 = 0x0002_0000;
const C: u32 = 0x0003_0000;
/// Words of C past the last thread, to see that nothing else is written.
const SLACK: usize = 8;
const SENTINEL: u32 = 0xdead_beef;

fn appendix() -> Vec<u32> {
    let path = format!("{}/../examples/appendix_a.sass", env!("CARGO_MANIFEST_DIR"));
    assemble_file(Path::new(&path))
        .expect("appendix_a.sass assembles")
        .values()
}

fn a_value(i: usize) -> u32 {
    0x0101_0101u32.wrapping_mul(i as u32 + 1) ^ 0x5a5a_0000
}

fn b_value(i: usize) -> u32 {
    0xffff_f000u32.wrapping_add((i as u32).wrapping_mul(0x0123_4567))
}

/// A, B (n words each, distinct values) and C (n + SLACK sentinels).
fn vectors(n: usize) -> GlobalMemory {
    let mut memory = GlobalMemory::new();
    let a: Vec<u32> = (0..n).map(a_value).collect();
    let b: Vec<u32> = (0..n).map(b_value).collect();
    memory.write_words(A, &a).unwrap();
    memory.write_words(B, &b).unwrap();
    memory.write_words(C, &vec![SENTINEL; n + SLACK]).unwrap();
    memory
}

/// What the fake PMU returns: counter and warp, so each read is
/// traceable.
fn pmu_value(counter: u8, warp: u32) -> u32 {
    0xc000_0000 | (u32::from(counter) << 16) | warp
}

/// Runs the appendix kernel and checks C = A + B, the PMEVENT reads
/// and the callback sequence.
fn check_vector_add(geometry: Geometry) {
    let n = geometry.total_threads();
    let mut iss = Iss::new(geometry, &[A, B, C], vectors(n)).unwrap();
    let mut calls: Vec<(WarpContext, Pmevent)> = Vec::new();
    let result = iss
        .run(&appendix(), |warp, event| {
            calls.push((*warp, event));
            Some(pmu_value(event.counter, warp.warp))
        })
        .unwrap_or_else(|err| panic!("{err}"));

    let memory = &result.memory;
    for i in 0..n {
        let expected = a_value(i).wrapping_add(b_value(i));
        assert_eq!(memory.get(C + 4 * i as u32), Some(expected), "C[{i}]");
        assert_eq!(memory.get(A + 4 * i as u32), Some(a_value(i)), "A[{i}]");
        assert_eq!(memory.get(B + 4 * i as u32), Some(b_value(i)), "B[{i}]");
    }
    for i in n..n + SLACK {
        assert_eq!(memory.get(C + 4 * i as u32), Some(SENTINEL), "C[{i}]");
    }
    assert_eq!(memory.len(), 3 * n + SLACK);

    // Reads: CNT0->R5, CNT1->R1, CNT2->R2, CNT12->R3, CNT4->R4.
    let wpb = geometry.warps_per_block();
    let tpb = geometry.threads_per_block() as usize;
    assert_eq!(result.threads.len(), n);
    for (index, thread) in result.threads.iter().enumerate() {
        let warp = (index / tpb) as u32 * wpb + ((index % tpb) / 32) as u32;
        let i = usize::from(thread.block[0]) * usize::from(geometry.block()[0])
            + usize::from(thread.tid[0]);
        assert_eq!(i, index, "1-D launch: global index");
        assert_eq!(thread.reg(5), pmu_value(0, warp), "thread {index} R5");
        assert_eq!(thread.reg(1), pmu_value(1, warp), "thread {index} R1");
        assert_eq!(thread.reg(2), pmu_value(2, warp), "thread {index} R2");
        assert_eq!(thread.reg(3), pmu_value(12, warp), "thread {index} R3");
        assert_eq!(thread.reg(4), pmu_value(4, warp), "thread {index} R4");
        // R0 was last set to &C[i] by IADD32 R0, g[0x6], R2.
        assert_eq!(thread.reg(0), C + 4 * i as u32, "thread {index} R0");
        assert!(
            thread.regs[6..].iter().all(|&r| r == 0),
            "thread {index}: only R0-R5 are written"
        );
    }

    // Every warp runs the 22 PMEVENTs once, in program order.
    let warps = geometry.blocks() * wpb;
    assert_eq!(calls.len(), 22 * warps as usize);
    for warp in 0..warps {
        let seen: Vec<String> = calls
            .iter()
            .filter(|(context, _)| context.warp == warp)
            .map(|(_, event)| event.to_string())
            .collect();
        let mut expected: Vec<String> = (0..16).map(|c| format!("PMEVENT CNT{c}, CNT")).collect();
        expected.extend(
            [
                "PMEVENT CNT0, R5, IDL",
                "PMEVENT CNT1, R1, IDL",
                "PMEVENT CNT2, R2, IDL",
                "PMEVENT CNT12, R3, IDL",
                "PMEVENT CNT4, R4, IDL",
                "PMEVENT CNT10, RST",
            ]
            .map(String::from),
        );
        assert_eq!(seen, expected, "warp {warp}");
    }
    // Round-robin: the first calls are word 0 of each warp in turn.
    for (warp, (context, event)) in calls.iter().take(warps as usize).enumerate() {
        assert_eq!((context.warp, context.address), (warp as u32, 0));
        assert_eq!(event.to_string(), "PMEVENT CNT0, CNT");
    }
    // 34 instructions per warp.
    assert_eq!(result.warp_instructions, 34 * u64::from(warps));
}

#[test]
fn appendix_adds_vectors_on_32_threads() {
    check_vector_add(Geometry::threads(32).unwrap());
}

#[test]
fn appendix_adds_vectors_on_64_threads() {
    check_vector_add(Geometry::threads(64).unwrap());
}

#[test]
fn appendix_adds_vectors_on_100_threads() {
    let geometry = Geometry::threads(100).unwrap();
    assert_eq!(geometry.warps_per_block(), 4);
    check_vector_add(geometry);
}

#[test]
fn appendix_adds_vectors_over_a_grid_of_blocks() {
    // ctaid.x > 0 exercises IMAD.U16 R0, g[0x6].U16, R0H, R1.
    check_vector_add(Geometry::new([48, 1, 1], [3, 1]).unwrap());
}

#[test]
fn partial_warps_have_inactive_lanes() {
    let mut iss = Iss::new(Geometry::threads(100).unwrap(), &[], GlobalMemory::new()).unwrap();
    let mut active = Vec::new();
    let program = [0x7000_1814, enc::RET[0], enc::RET[1]];
    iss.run(&program, |warp, _| {
        active.push(warp.active);
        Some(0)
    })
    .unwrap();
    assert_eq!(active, [u32::MAX, u32::MAX, u32::MAX, 0xf]);
}

#[test]
fn r0_holds_the_thread_index() {
    let geometry = Geometry::new([4, 3, 2], [2, 1]).unwrap();
    let mut iss = Iss::new(geometry, &[], GlobalMemory::new()).unwrap();
    let result = iss.run(&enc::RET, |_, _| Some(0)).unwrap();
    assert_eq!(result.threads.len(), 48);
    for block in 0..2 {
        for q in 0..24 {
            let thread = result.thread(&geometry, block, q).unwrap();
            let (x, y, z) = (q % 4, (q / 4) % 3, q / 12);
            assert_eq!(thread.tid, [x as u16, y as u16, z as u16]);
            assert_eq!(thread.block, [block as u16, 0]);
            assert_eq!(thread.reg(0), x | (y << 16) | (z << 26));
        }
    }
    assert!(result.thread(&geometry, 2, 0).is_none());
}

#[test]
fn shared_segment_has_the_cuda_1x_layout() {
    // MOV.U16 R(k+1)L, g[k].U16 for the eight header halves, then the
    // three parameters through IADD32 Rd, g[n], R9 (R9 = 0).
    let mut program = Vec::new();
    for k in 0..8u8 {
        program.extend(enc::mov_u16(2 * (k + 1), k));
    }
    for (dst, offset) in [(10, 4), (11, 5), (12, 6)] {
        program.push(enc::iadd32_g(dst, offset, 9));
    }
    program.extend(enc::RET);
    let geometry = Geometry::new([5, 2, 3], [4, 2]).unwrap();
    let params = [0x1111_2222, 0x3333_4444, 0x5555_6666];
    let mut iss = Iss::new(geometry, &params, GlobalMemory::new()).unwrap();
    let result = iss.run(&program, |_, _| Some(0)).unwrap();
    for block in 0..geometry.blocks() {
        let thread = result.thread(&geometry, block, 7).unwrap();
        let [cx, cy] = thread.block.map(u32::from);
        let halves: Vec<u32> = (1..=8).map(|r| thread.reg(r) & 0xffff).collect();
        assert_eq!(halves, [0, 5, 2, 3, 4, 2, cx, cy], "block {block}");
        assert_eq!([cx, cy], [block % 4, block / 4]);
        assert_eq!(
            [thread.reg(10), thread.reg(11), thread.reg(12)],
            params,
            "block {block}"
        );
    }
    // Header and parameters, then zeros to the 256-byte allocation.
    let segment = iss.shared_segment(0);
    assert_eq!(segment.len(), 256);
    assert!(segment[16 + 12..].iter().all(|&b| b == 0));
}

#[test]
fn half_register_writes_keep_the_other_half() {
    // tid.x = 3: R0 = 0x0000_0003. MOV.U16 R0H, g[0x1].U16 (ntid.x =
    // 4) then MOV.U16 R2L, g[0x1].U16 over R2 = R0 << 4.
    let mut program = Vec::new();
    program.extend(enc::mov_u16(1, 1));
    program.extend(enc::shl(2, 0, 4));
    program.extend(enc::mov_u16(4, 1));
    program.extend(enc::i2i_u32_u16(3, 5));
    program.extend(enc::RET);
    let mut iss = Iss::new(Geometry::threads(4).unwrap(), &[], GlobalMemory::new()).unwrap();
    let result = iss.run(&program, |_, _| Some(0)).unwrap();
    let thread = &result.threads[3];
    assert_eq!(thread.reg(0), 0x0004_0003);
    assert_eq!(thread.reg(2), 0x0040_0004);
    // I2I.U32.U16 R3, R2H.
    assert_eq!(thread.reg(3), 0x0040);
}

#[test]
fn r124_reads_zero_and_r127_discards() {
    let mut program = Vec::new();
    program.extend(enc::shl(124, 0, 0)); // R124 = R0 (written)
    program.extend(enc::shl(5, 124, 0)); // R5 = R124, read as 0
    program.extend(enc::shl(127, 0, 1)); // dropped
    program.extend(enc::shl(6, 0, 32)); // shift by 32 gives 0
    program.extend(enc::shl(7, 0, 31));
    program.extend(enc::RET);
    let mut iss = Iss::new(Geometry::threads(8).unwrap(), &[], GlobalMemory::new()).unwrap();
    let result = iss.run(&program, |_, _| Some(0)).unwrap();
    let thread = &result.threads[7];
    assert_eq!(thread.reg(124), 7);
    assert_eq!(thread.reg(5), 0);
    assert_eq!(thread.reg(127), 0);
    assert_eq!(thread.reg(6), 0);
    assert_eq!(thread.reg(7), 0x8000_0000);
}

#[test]
fn an_unsupported_instruction_stops_the_run() {
    // PMEVENT CNT0, CNT; IMUL (unsupported); RET.
    let program = [0x7000_0800, 0x4000_0000, enc::RET[0], enc::RET[1]];
    let mut iss = Iss::new(Geometry::threads(32).unwrap(), &[], GlobalMemory::new()).unwrap();
    let mut calls = 0;
    let err = iss
        .run(&program, |_, _| {
            calls += 1;
            Some(0)
        })
        .unwrap_err();
    assert_eq!(calls, 1, "the PMEVENT before it ran");
    let text = err.to_string();
    assert!(
        text.contains(
            "address 1: 0x40000000 is not a supported G80 instruction (FlexGripPlus: IMUL)"
        ),
        "{text}"
    );
    assert!(text.starts_with("warp 0 (block (0, 0)"), "{text}");
    match err {
        IssError::Decode { warp, source } => {
            assert_eq!(warp.address, 1);
            assert!(matches!(source, G80Error::Unsupported { address: 1, .. }));
        }
        other => panic!("expected Decode, got {other:?}"),
    }

    // A 64-bit one names both words.
    let program = [0x1000_4205, 0x2023_c780];
    let err = iss.run(&program, |_, _| Some(0)).unwrap_err();
    assert!(
        err.to_string().contains("address 0: 0x10004205 0x2023c780"),
        "{err}"
    );
}

#[test]
fn a_program_without_ret_is_an_error() {
    let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[], GlobalMemory::new()).unwrap();
    let err = iss.run(&enc::NOP, |_, _| Some(0)).unwrap_err();
    assert!(matches!(
        err,
        IssError::RanOffEnd {
            address: 2,
            len: 2,
            ..
        }
    ));
    assert!(err.to_string().contains("without RET"), "{err}");
}

#[test]
fn a_wrong_pointer_traps_only_in_a_protected_memory() {
    // B was never given: in a protected memory the first GLD of B[0]
    // traps, naming thread 0.
    let mut memory = GlobalMemory::with_model(MemoryModel::Protected);
    memory.write_words(A, &[1; 32]).unwrap();
    let mut iss = Iss::new(Geometry::threads(32).unwrap(), &[A, B, C], memory).unwrap();
    let err = iss.run(&appendix(), |_, _| Some(0)).unwrap_err();
    match &err {
        IssError::Memory {
            thread,
            address,
            source,
            ..
        } => {
            assert_eq!((*thread, *address), (0, 28));
            assert_eq!(source, &MemoryError::Protected { address: B });
        }
        other => panic!("expected Memory, got {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("`GLD.U32 R0, global14[R3]` at address 28"),
        "{err}"
    );
    // In FlexGripPlus' memory B reads as zeros and C = A.
    let mut memory = GlobalMemory::new();
    memory.write_words(A, &[1; 32]).unwrap();
    let mut iss = Iss::new(Geometry::threads(32).unwrap(), &[A, B, C], memory).unwrap();
    let result = iss.run(&appendix(), |_, _| Some(0)).unwrap();
    assert_eq!(result.memory.read_words(C, 32), Ok(vec![1; 32]));

    // An unaligned pointer traps in a protected memory; in FlexGripPlus'
    // the four bytes from there are read.
    let protected = || {
        let mut memory = GlobalMemory::with_model(MemoryModel::Protected);
        for (base, words) in [(A, [7u32, 9]), (B, [0, 0]), (C, [0, 0])] {
            memory.write_words(base, &words).unwrap();
        }
        memory
    };
    let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[A + 2, B, C], protected()).unwrap();
    let err = iss.run(&appendix(), |_, _| Some(0)).unwrap_err();
    assert!(matches!(
        err,
        IssError::Memory {
            source: MemoryError::Misaligned { address },
            ..
        } if address == A + 2
    ));
    let mut flat = GlobalMemory::new();
    flat.write_words(A, &[7, 9]).unwrap();
    let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[A + 2, B, C], flat).unwrap();
    let result = iss.run(&appendix(), |_, _| Some(0)).unwrap();
    assert_eq!(result.memory.read_u32(C), Ok(0x0009_0000));

    // A g[] parameter that was not given reads 0 (the rest of the block's
    // shared-memory allocation is zero): C's pointer is 0, where the sum
    // lands.
    let mut iss = Iss::new(Geometry::threads(1).unwrap(), &[A, B], vectors(1)).unwrap();
    let result = iss.run(&appendix(), |_, _| Some(0)).unwrap();
    assert_eq!(
        result.memory.read_u32(0),
        Ok(a_value(0).wrapping_add(b_value(0)))
    );
}
