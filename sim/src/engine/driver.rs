//! The cycle driver: steps a rust-hdl block directly, without
//! rust-hdl's threaded `Simulation`, settling the circuit after each edge.

use std::io::Write;

use flexpmu_hdl::support::hdl_block::incremental;
use flexpmu_hdl::support::trace::Traced;
use flexpmu_hdl::Clocked;
use rust_hdl::prelude::*;

use crate::waveform::fst::FstTrace;
use crate::waveform::vcd::VcdTrace;
use crate::waveform::Trace;

/// A design that never settles oscillates; this bounds the search.
const MAX_SETTLE_PASSES: usize = 1000;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("the design did not settle within {MAX_SETTLE_PASSES} passes (combinational loop?)")]
    DidNotSettle,
    #[error("writing the waveform failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Drives a clocked design cycle by cycle.
///
/// One call to [`CycleDriver::step`] is one clock cycle: the inputs set
/// since the last step settle (and are sampled for the waveform), then the
/// clock rises and every register updates. After `step` returns, outputs
/// show the post-edge state. See [`crate::waveform::vcd`] for the waveform's
/// timeline.
pub struct CycleDriver<B: Clocked + Traced> {
    uut: Box<B>,
    cycles: u64,
    settle_passes: u64,
    /// The first settle evaluates everything; later ones are incremental
    /// (see `flexpmu_hdl::support::hdl_block`).
    settled_once: bool,
    incremental: bool,
    trace: Option<Trace>,
}

/// Settles `uut`, returning the passes it took (None: it never settled).
fn settle_passes<B: Block>(uut: &mut B) -> Option<u64> {
    for pass in 1..=MAX_SETTLE_PASSES {
        uut.update_all();
        if !uut.has_changed() {
            return Some(pass as u64);
        }
    }
    None
}

impl<B: Clocked + Traced> CycleDriver<B> {
    pub fn new(uut: B) -> Result<Self, SimError> {
        let mut uut = Box::new(uut);
        uut.connect_all();
        let mut driver = CycleDriver {
            uut,
            cycles: 0,
            settle_passes: 0,
            settled_once: false,
            incremental: true,
            trace: None,
        };
        driver.settle()?;
        driver.settle_passes = 0;
        Ok(driver)
    }

    /// Evaluates every block in every pass, as rust-hdl's own simulation
    /// does, instead of incrementally. Slower; for cross-checking.
    pub fn full_evaluation(mut self) -> Self {
        self.incremental = false;
        self
    }

    /// Streams every later cycle to a VCD waveform written to `out`.
    pub fn attach_vcd(
        &mut self,
        out: Box<dyn Write + Send + Sync>,
        top_name: &str,
        period_ps: u64,
    ) -> Result<(), SimError> {
        self.trace = Some(Trace::Vcd(VcdTrace::new(
            out,
            self.uut.as_ref(),
            top_name,
            period_ps,
        )?));
        Ok(())
    }

    /// Streams every later cycle to a waveform in `out`'s format.
    pub fn attach(
        &mut self,
        out: crate::waveform::WaveformOut,
        top_name: &str,
        period_ps: u64,
    ) -> Result<(), SimError> {
        match out {
            crate::waveform::WaveformOut::Vcd(out) => self.attach_vcd(out, top_name, period_ps),
            crate::waveform::WaveformOut::Fst(out) => self.attach_fst(out, top_name, period_ps),
        }
    }

    /// Streams every later cycle to an FST waveform written to `out`.
    pub fn attach_fst(
        &mut self,
        out: std::fs::File,
        top_name: &str,
        period_ps: u64,
    ) -> Result<(), SimError> {
        let out = std::io::BufWriter::with_capacity(1 << 16, out);
        self.trace = Some(Trace::Fst(Box::new(FstTrace::new(
            out,
            self.uut.as_ref(),
            top_name,
            period_ps,
            &[],
        )?)));
        Ok(())
    }

    pub fn uut(&self) -> &B {
        &self.uut
    }

    /// The design, for setting inputs (`signal.next = ...`) before a step.
    pub fn uut_mut(&mut self) -> &mut B {
        &mut self.uut
    }

    /// Cycles stepped so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Average settle passes per cycle (both edges).
    pub fn passes_per_cycle(&self) -> f64 {
        self.settle_passes as f64 / self.cycles.max(1) as f64
    }

    /// Propagates the inputs set so far without clocking, so combinational
    /// outputs of the coming cycle can be read.
    pub fn settle(&mut self) -> Result<(), SimError> {
        let uut = &mut self.uut;
        let passes = if self.settled_once && self.incremental {
            incremental(|| settle_passes(uut.as_mut()))
        } else {
            settle_passes(uut.as_mut())
        };
        self.settled_once = true;
        self.settle_passes += passes.ok_or(SimError::DidNotSettle)?;
        Ok(())
    }

    /// One clock cycle (see the type's documentation).
    pub fn step(&mut self) -> Result<(), SimError> {
        self.uut.clock_mut().next = Clock { clk: false };
        self.settle()?;
        if let Some(trace) = self.trace.as_mut() {
            trace.sample(self.uut.as_ref(), self.cycles)?;
        }
        self.uut.clock_mut().next = Clock { clk: true };
        self.settle()?;
        self.cycles += 1;
        Ok(())
    }

    /// Ends the waveform (if any) and flushes it.
    pub fn finish(&mut self) -> Result<(), SimError> {
        if let Some(mut trace) = self.trace.take() {
            // The state after the last edge, stamped at the next cycle.
            self.uut.clock_mut().next = Clock { clk: false };
            self.settle()?;
            trace.sample(self.uut.as_ref(), self.cycles)?;
            trace.finish()?;
        }
        Ok(())
    }
}
