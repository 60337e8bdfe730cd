//! [`Optional`]: a port or part that a block has in some configurations
//! only (the selector PMU's `selector` port, the hooks' `pmu_selector`).
//!
//! rust-hdl fixes a block's ports by its type; a configuration that adds
//! hardware would need a new type, and every block above it a new type
//! parameter. An absent `Optional` instead visits nothing, so the block's
//! HDL is exactly what it was without it. The block's `#[hdl_gen]` code
//! touches an optional field only inside a loop `for _k in
//! 0..self.field.len()`: zero passes when the field is absent (nothing is
//! printed, nothing runs), one when it is present.

use std::ops::{Deref, DerefMut};

use rust_hdl::prelude::{Block, Logic, Probe};

use crate::support::hdl_block::Part;
use crate::support::trace::{TraceDeclarer, Traced};

/// A signal or part that is there or not, decided when the block is built.
#[derive(Clone, Debug, Default)]
pub struct Optional<T>(Option<T>);

impl<T> Optional<T> {
    /// `item` when `present`, else absent.
    pub fn when(present: bool, item: impl FnOnce() -> T) -> Self {
        Optional(present.then(item))
    }

    /// 1 when present, 0 when absent: the bound of the loops that use it.
    pub fn len(&self) -> usize {
        usize::from(self.0.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}

impl<T> Deref for Optional<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
            .as_ref()
            .expect("an absent optional signal is only used in a loop over its len()")
    }
}

impl<T> DerefMut for Optional<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
            .as_mut()
            .expect("an absent optional signal is only used in a loop over its len()")
    }
}

/// `connect` marks a present signal as driven (rust-hdl's `#[hdl_gen]`
/// calls it on each one the code assigns); the item's own logic runs
/// through its `Block`, as for rust-hdl's `Vec` and arrays.
impl<T: Logic> Logic for Optional<T> {
    fn update(&mut self) {}

    fn connect(&mut self) {
        if let Some(item) = &mut self.0 {
            item.connect();
        }
    }
}

impl<T: Block + Logic> Block for Optional<T> {
    fn connect_all(&mut self) {
        if let Some(item) = &mut self.0 {
            item.connect_all();
        }
    }

    fn update_all(&mut self) {
        if let Some(item) = &mut self.0 {
            item.update_all();
        }
    }

    fn has_changed(&self) -> bool {
        self.0.as_ref().is_some_and(Block::has_changed)
    }

    /// A present item is visited under the field's own name (`selector`,
    /// not `selector$0`).
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        if let Some(item) = &self.0 {
            item.accept(name, probe);
        }
    }
}

impl<T: Part> Part for Optional<T> {
    fn outputs_changed(&self) -> bool {
        self.0.as_ref().is_some_and(Part::outputs_changed)
    }
}

impl<T: Traced> Traced for Optional<T> {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        if let Some(item) = &self.0 {
            item.declare(name, out);
        }
    }

    fn sample(&self, out: &mut Vec<u64>) {
        if let Some(item) = &self.0 {
            item.sample(out);
        }
    }
}
