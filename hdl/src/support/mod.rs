//! What every block builds on: `hdl_block!` (rust-hdl's `Block` with a
//! faster settle order and incremental evaluation), waveform tracing
//! ([`trace`]), the [`Clocked`] trait the cycle drivers step, and a small
//! driver for the blocks' own tests.

pub mod hdl_block;
pub mod optional;
pub mod reset_dff;
#[cfg(test)]
pub(crate) mod test_driver;
pub mod trace;

use rust_hdl::prelude::{Block, Clock, In, Signal};

/// `comment!("text")` in a block's `#[hdl_gen]` code becomes a comment of
/// its HDL (rust-hdl's `hdl_gen` recognises the name); in Rust it does
/// nothing. Each block opens its `update` with `comment!("module: NAME")`,
/// which names the module it is exported as (`flexpmu_NAME`): the
/// exporter walks blocks through `&dyn Block` and cannot see their types.
#[macro_export]
macro_rules! comment {
    ($text:literal) => {};
}

/// A block with one clock input, which a cycle driver toggles.
pub trait Clocked: Block {
    fn clock_mut(&mut self) -> &mut Signal<In, Clock>;
}
