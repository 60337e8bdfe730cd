//! The examples built into the binary, so that `demo`, `export` and
//! `bench` run from any directory.

/// The thesis' appendix-A kernel (`examples/appendix_a.sass`).
pub const APPENDIX_A: &str = include_str!("../examples/appendix_a.sass");
/// Its path, as errors and reports name it.
pub const APPENDIX_A_PATH: &str = "examples/appendix_a.sass";

/// The thesis' figure-3.1 scenario (`examples/thesis_fig3_1.scn`).
pub const FIGURE_3_1: &str = include_str!("../examples/thesis_fig3_1.scn");
/// Its path, as errors and reports name it.
pub const FIGURE_3_1_PATH: &str = "examples/thesis_fig3_1.scn";

/// The appendix-A kernel's words.
pub fn appendix_a_program() -> anyhow::Result<Vec<u32>> {
    Ok(flexpmu_isa::asm::assemble(APPENDIX_A, APPENDIX_A_PATH)?.values())
}

/// The rbe suite (`examples/rbe/`), as paths and sources: `testgen`'s
/// baselines (but `selectors.sass`, whose core is built with its own
/// monitor map: its faults are not the same).
pub const RBE_SUITE: [(&str, &str); 6] = [
    (
        "examples/rbe/divergence.sass",
        include_str!("../examples/rbe/divergence.sass"),
    ),
    (
        "examples/rbe/instructions.sass",
        include_str!("../examples/rbe/instructions.sass"),
    ),
    (
        "examples/rbe/memory.sass",
        include_str!("../examples/rbe/memory.sass"),
    ),
    (
        "examples/rbe/operands.sass",
        include_str!("../examples/rbe/operands.sass"),
    ),
    (
        "examples/rbe/passes.sass",
        include_str!("../examples/rbe/passes.sass"),
    ),
    (
        "examples/rbe/warp_switch.sass",
        include_str!("../examples/rbe/warp_switch.sass"),
    ),
];
