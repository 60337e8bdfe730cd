//! A minimal clocked driver for the blocks' own operation tests. The full
//! cycle driver, with VCD and statistics, lives in the `flexpmu-sim` crate.

use rust_hdl::prelude::*;

pub use crate::Clocked;

/// Upper bound on settle passes; a design that needs more oscillates.
const MAX_PASSES: usize = 1000;

pub struct Driver<B: Block + Clocked> {
    pub uut: B,
}

impl<B: Block + Clocked> Driver<B> {
    pub fn new(mut uut: B) -> Self {
        uut.connect_all();
        let mut d = Driver { uut };
        d.settle();
        d
    }

    pub fn settle(&mut self) {
        assert!(simulate(&mut self.uut, MAX_PASSES), "design did not settle");
    }

    /// Settles the inputs set so far, then applies one rising and one falling edge.
    pub fn cycle(&mut self) {
        self.settle();
        self.uut.clock_mut().next = Clock { clk: true };
        self.settle();
        self.uut.clock_mut().next = Clock { clk: false };
        self.settle();
    }
}
