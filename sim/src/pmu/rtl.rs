//! The rust-hdl PMU under the cycle driver, behind the same interface as
//! the reference model: present [`PmuInputs`], step, read counters.

use std::io::Write;

use flexpmu_hdl::{CounterState, Pmu, PmuConfig};

use crate::engine::{CycleDriver, SimError};
use crate::pmu::PmuInputs;

/// Sets a PMU's input ports (their `next` values) to `inputs`.
pub fn apply_inputs<const N: usize, const W: usize, const I: usize>(
    pmu: &mut Pmu<N, W, I>,
    inputs: &PmuInputs,
) {
    pmu.reset.next = inputs.reset;
    pmu.address.next = (inputs.address as u64).into();
    pmu.command.next = inputs.command.bits().into();
    if !pmu.selector.is_empty() {
        pmu.selector.next = u64::from(inputs.selector).into();
    }
    for (port, &value) in pmu.monitor_in.iter_mut().zip(&inputs.monitor_in) {
        port.next = value.into();
    }
}

/// A PMU design simulated cycle by cycle.
pub struct PmuSim<const N: usize, const W: usize, const I: usize> {
    driver: CycleDriver<Pmu<N, W, I>>,
}

impl<const N: usize, const W: usize, const I: usize> PmuSim<N, W, I> {
    pub fn new(config: &PmuConfig) -> Result<Self, SimError> {
        Ok(PmuSim {
            driver: CycleDriver::new(Pmu::new(config))?,
        })
    }

    pub fn attach_vcd(
        &mut self,
        out: Box<dyn Write + Send + Sync>,
        period_ps: u64,
    ) -> Result<(), SimError> {
        self.driver.attach_vcd(out, "flexpmu_pmu", period_ps)
    }

    /// Streams the run to a waveform, VCD or FST.
    pub fn attach_waveform(
        &mut self,
        out: crate::waveform::WaveformOut,
        period_ps: u64,
    ) -> Result<(), SimError> {
        self.driver.attach(out, "flexpmu_pmu", period_ps)
    }

    /// Sets the input ports for the coming cycle and settles, so that
    /// [`PmuSim::monitor_out`] shows the coming cycle's value.
    pub fn present(&mut self, inputs: &PmuInputs) -> Result<(), SimError> {
        self.apply(inputs);
        self.driver.settle()
    }

    /// Presents the inputs and clocks one cycle.
    pub fn step(&mut self, inputs: &PmuInputs) -> Result<(), SimError> {
        self.apply(inputs);
        self.driver.step()
    }

    fn apply(&mut self, inputs: &PmuInputs) {
        apply_inputs(self.driver.uut_mut(), inputs);
    }

    pub fn monitor_out(&self) -> u64 {
        self.driver.uut().monitor_out.val().to_u64()
    }

    pub fn counts(&self) -> Vec<u64> {
        self.driver.uut().counts()
    }

    pub fn states(&self) -> Vec<CounterState> {
        self.driver
            .uut()
            .counters
            .iter()
            .map(|c| {
                CounterState::from_bits(c.state.val().to_u64())
                    .expect("the state register only holds RESET, COUNTING or IDLE")
            })
            .collect()
    }

    /// Each counter's selection (0 without selectors).
    pub fn selections(&self) -> Vec<u8> {
        let uut = self.driver.uut();
        if uut.selectors.is_empty() {
            return vec![0; N];
        }
        uut.selectors
            .iter()
            .map(|s| s.selection.val().to_u64() as u8)
            .collect()
    }

    pub fn cycles(&self) -> u64 {
        self.driver.cycles()
    }

    pub fn passes_per_cycle(&self) -> f64 {
        self.driver.passes_per_cycle()
    }

    pub fn driver_mut(&mut self) -> &mut CycleDriver<Pmu<N, W, I>> {
        &mut self.driver
    }

    pub fn finish(&mut self) -> Result<(), SimError> {
        self.driver.finish()
    }
}
