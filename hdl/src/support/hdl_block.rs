//! `hdl_block!`: rust-hdl's `Block` trait implemented with an evaluation
//! order that settles a design in far fewer passes than
//! `#[derive(LogicBlock)]`, plus the block's [`Traced`](crate::support::trace::Traced)
//! implementation from the same field lists.
//!
//! rust-hdl settles a circuit by repeating `update_all` until no signal
//! changes. The derived `update_all` runs the block's `update` first and
//! only then latches its own input signals, so a value needs one whole
//! pass per level of hierarchy in each direction. Here a block
//!
//! 1. latches its inputs,
//! 2. runs `update` (driving its parts' inputs),
//! 3. updates each part in turn, running `update` again after each one
//!    (reading the part's fresh outputs, driving the next part's inputs),
//! 4. latches its outputs,
//!
//! so a change crosses the whole hierarchy, down, across the parts in
//! field order and up, in one pass.
//! `update` is a pure function of current values, so running it twice is
//! harmless; the result is still the fixpoint rust-hdl's simulation
//! requires, reached when a full pass changes no signal. Registers stay
//! exact: the clock reaches every `DFF` in the same pass, whatever its
//! depth, and a `DFF` samples `d` one pass later, before any register
//! output can have reached another register's `d`.
//!
//! **Incremental evaluation.** Inside [`incremental`], a block skips an
//! `update` call when nothing it reads has changed since its last call:
//! the first call runs only if an input changed, the one after a part only
//! if one of that part's outputs changed in this pass. Since `update` is a pure function
//! of the block's inputs and its parts' outputs, the skipped call would
//! have written the values already pending. This needs a settled starting
//! point, so outside `incremental` (rust-hdl's own `Simulation`, the first
//! settle of a design) every call runs. Blocks must therefore not read
//! their own outputs in `update`, which is also what synthesizable
//! rust-hdl code does; nor may they read a part's inputs.
//!
//! `connect_all` and `accept` (used by the Verilog generator and rust-hdl's
//! checks) are the same as the derived ones.

use std::cell::Cell;

use rust_hdl::prelude::{Block, Synth, DFF};

thread_local! {
    static INCREMENTAL: Cell<bool> = const { Cell::new(false) };
}

/// A part of a block, as its parent sees it: through its outputs only.
pub trait Part {
    /// Whether an output changed in the pass just run.
    fn outputs_changed(&self) -> bool;
}

impl<T: Synth> Part for DFF<T> {
    fn outputs_changed(&self) -> bool {
        self.q.has_changed()
    }
}

impl<P: Part, const N: usize> Part for [P; N] {
    fn outputs_changed(&self) -> bool {
        self.iter().any(Part::outputs_changed)
    }
}

impl<P: Part> Part for Vec<P> {
    fn outputs_changed(&self) -> bool {
        self.iter().any(Part::outputs_changed)
    }
}

/// Whether blocks on this thread may skip unneeded `update` calls.
#[doc(hidden)]
#[inline(always)]
pub fn incremental_enabled() -> bool {
    INCREMENTAL.with(|c| c.get())
}

/// Runs `f` with incremental evaluation enabled on this thread. Call it
/// only on a design that has settled at least once with it disabled.
pub fn incremental<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            INCREMENTAL.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(INCREMENTAL.with(|c| c.replace(true)));
    f()
}

/// Implements `Block` and `Traced` for a block. Every field must be listed
/// exactly once, in declaration order within each group:
/// `inputs` (`Signal<In, _>`), `outputs` (`Signal<Out, _>`), `parts`
/// (sub-blocks and registers) and `constants` (not traced).
#[macro_export]
macro_rules! hdl_block {
    (
        [$($generics:tt)*] $ty:ty {
            inputs: [$($input:ident),* $(,)?],
            outputs: [$($output:ident),* $(,)?],
            parts: [$($part:ident),* $(,)?],
            constants: [$($constant:ident),* $(,)?] $(,)?
        }
    ) => {
        impl<$($generics)*> ::rust_hdl::prelude::Block for $ty {
            fn connect_all(&mut self) {
                ::rust_hdl::prelude::Logic::connect(self);
                $( self.$input.connect_all(); )*
                $( self.$output.connect_all(); )*
                $( self.$part.connect_all(); )*
                $( self.$constant.connect_all(); )*
            }

            fn update_all(&mut self) {
                let full = !$crate::support::hdl_block::incremental_enabled();
                let mut inputs_changed = false;
                $(
                    self.$input.update_all();
                    inputs_changed |= self.$input.has_changed();
                )*
                if full || inputs_changed {
                    ::rust_hdl::prelude::Logic::update(self);
                }
                $(
                    self.$part.update_all();
                    if full || $crate::support::hdl_block::Part::outputs_changed(&self.$part) {
                        ::rust_hdl::prelude::Logic::update(self);
                    }
                )*
                $( self.$output.update_all(); )*
            }

            fn has_changed(&self) -> bool {
                false
                    $( || self.$input.has_changed() )*
                    $( || self.$output.has_changed() )*
                    $( || self.$part.has_changed() )*
            }

            fn accept(&self, name: &str, probe: &mut dyn ::rust_hdl::prelude::Probe) {
                probe.visit_start_scope(name, self);
                $( self.$input.accept(stringify!($input), probe); )*
                $( self.$output.accept(stringify!($output), probe); )*
                $( self.$part.accept(stringify!($part), probe); )*
                $( self.$constant.accept(stringify!($constant), probe); )*
                probe.visit_end_scope(name, self);
            }
        }

        impl<$($generics)*> $crate::support::hdl_block::Part for $ty {
            fn outputs_changed(&self) -> bool {
                false $( || ::rust_hdl::prelude::Block::has_changed(&self.$output) )*
            }
        }

        impl<$($generics)*> $crate::support::trace::Traced for $ty {
            fn declare(&self, name: &str, out: &mut dyn $crate::support::trace::TraceDeclarer) {
                out.enter_scope(name);
                $( $crate::support::trace::Traced::declare(&self.$input, stringify!($input), out); )*
                $( $crate::support::trace::Traced::declare(&self.$output, stringify!($output), out); )*
                $( $crate::support::trace::Traced::declare(&self.$part, stringify!($part), out); )*
                out.exit_scope();
            }

            fn sample(&self, out: &mut Vec<u64>) {
                $( $crate::support::trace::Traced::sample(&self.$input, out); )*
                $( $crate::support::trace::Traced::sample(&self.$output, out); )*
                $( $crate::support::trace::Traced::sample(&self.$part, out); )*
            }
        }
    };
}
