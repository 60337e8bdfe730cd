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
