//! [`SmCore`] behind one port-level interface, on either engine: the
//! rust-hdl engine (the reference; waveforms) or the compiled engine
//! (the export IR, as generated code). The behavioural units set
//! [`CoreInputs`] and read a [`CoreView`]; neither knows which engine
//! runs the core.

use flexpmu_hdl::pmu::PmuConfig;
use flexpmu_hdl::sm::execute_stage::{ExecuteLatency, LANES};
use flexpmu_hdl::SmCore;
use flexpmu_ir::monitor_map::MonitorMap;
use flexpmu_ir::monitor_wiring::mapped_sm_core;

use super::SmError;
use crate::engine::compiled::trace::TracedSim;
use crate::engine::compiled::CompiledSim;
use crate::engine::{CycleDriver, Engine, SimError};
use crate::waveform::WaveformOut;

use super::compiled_core::{CompiledCore, SM_MEM_ADDRESS, SM_MEM_DATA};

/// The core's inputs in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct CoreInputs {
    pub(super) reset: bool,
    pub(super) pipeline_fetch_done: bool,
    pub(super) instruction_in: u64,
    pub(super) warp_lane_id: u64,
    pub(super) read_stall: bool,
    pub(super) write_stall: bool,
    pub(super) read_done: bool,
    pub(super) read_op: u64,
    pub(super) read_dest: u64,
    pub(super) read_shift: u64,
    pub(super) read_compare: u64,
    pub(super) a: [u32; LANES],
    pub(super) b: [u32; LANES],
    pub(super) c: [u32; LANES],
    pub(super) read_pmu_read: bool,
    pub(super) sm_warp_pc: u32,
    pub(super) sm_warp_id: u16,
    pub(super) sm_warp_states: u32,
    pub(super) sm_active_mask: u8,
    pub(super) sm_lane_pass: u8,
    pub(super) sm_register_write: bool,
    pub(super) sm_global_store: bool,
    pub(super) sm_global_load: bool,
    pub(super) sm_mem_address: u32,
    pub(super) sm_mem_data: u32,
}

/// What the behavioural units read from the core (once settled).
#[derive(Clone, Copy, Debug, Default, Hash)]
pub(super) struct CoreView {
    pub(super) fetch_stall: bool,
    pub(super) dec_done: bool,
    pub(super) dec_lane: u64,
    pub(super) dec_op: u64,
    pub(super) dec_dest: u64,
    pub(super) dec_src1: u64,
    pub(super) dec_src2: u64,
    pub(super) dec_src3: u64,
    pub(super) dec_src1_shared: bool,
    pub(super) dec_shared_offset: u64,
    pub(super) dec_pmu_read: bool,
    pub(super) execute_stall: bool,
    pub(super) execute_done: bool,
    pub(super) result: [u32; LANES],
    pub(super) exec_dest: u64,
    pub(super) exec_write: bool,
    pub(super) exec_half_write: bool,
    pub(super) pmu_address: u64,
    pub(super) pmu_command: u64,
}

/// The core on one engine. An observer of a run sees it every cycle
/// ([`digest`](Self::digest), [`rust_hdl`](Self::rust_hdl)).
pub struct CoreSim {
    on: CoreOn,
}

/// The engine that runs the core, with its state.
enum CoreOn {
    RustHdl(Box<CycleDriver<SmCore>>),
    Compiled(Box<CompiledCore>),
}

impl CoreSim {
    pub(super) fn new(core: SmCore, engine: Engine) -> Result<Self, SmError> {
        let on = match engine {
            Engine::RustHdl => CoreOn::RustHdl(Box::new(CycleDriver::new(core)?)),
            Engine::Compiled => {
                let mut compiled = CompiledCore::new(core)?;
                compiled.run.sim.settle();
                CoreOn::Compiled(Box::new(compiled))
            }
        };
        Ok(CoreSim { on })
    }

    /// The core with the PMU's channels wired by `map` (the compiled
    /// engine only: rust-hdl runs the code `SmCore` was compiled with).
    pub(super) fn mapped(
        map: &MonitorMap,
        latency: ExecuteLatency,
        engine: Engine,
    ) -> Result<(Self, PmuConfig), SmError> {
        if engine != Engine::Compiled {
            return Err(SmError::Engine(
                "a monitor map runs on the compiled engine (rust-hdl runs the map flexpmu was built with)".into(),
            ));
        }
        let (core, design, config) = mapped_sm_core(map, latency, "flexpmu_sm_core")
            .map_err(|e| SmError::MonitorMap(e.to_string()))?;
        let mut compiled = CompiledCore::of_design(core, &design)?;
        compiled.run.sim.settle();
        let core = CoreSim {
            on: CoreOn::Compiled(Box::new(compiled)),
        };
        Ok((core, config))
    }

    /// Streams the run to a waveform in `out`'s format.
    pub(super) fn attach(&mut self, out: WaveformOut, period_ps: u64) -> Result<(), SmError> {
        match &mut self.on {
            CoreOn::RustHdl(driver) => Ok(driver.attach(out, "sm", period_ps)?),
            CoreOn::Compiled(core) => {
                let block = core
                    .block
                    .as_deref()
                    .ok_or_else(|| SmError::Engine("a forked core writes no waveform".into()))?;
                Ok(core
                    .run
                    .attach(block, "sm", out, period_ps)
                    .map_err(SimError::from)?)
            }
        }
    }

    /// A copy of the compiled core in its current state, without a
    /// waveform; `None` on the rust-hdl engine or with a waveform attached.
    pub(super) fn fork(&self) -> Option<CoreSim> {
        match &self.on {
            CoreOn::Compiled(core) if !core.run.traced() => Some(CoreSim {
                on: CoreOn::Compiled(Box::new(CompiledCore {
                    run: TracedSim::new(core.run.sim.clone()),
                    block: None,
                    at: core.at.clone(),
                    pmu_address: core.pmu_address,
                    pmu_command: core.pmu_command,
                })),
            }),
            _ => None,
        }
    }

    /// A digest of what the core shows the behavioural units now.
    pub fn digest(&self) -> u64 {
        match &self.on {
            CoreOn::Compiled(core) => core.run.sim.output_digest(),
            CoreOn::RustHdl(_) => {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                self.view().hash(&mut hasher);
                hasher.finish()
            }
        }
    }

    /// The compiled core's node values as of the last settle and its
    /// registers' state, by the netlist's indices (what a fault site names);
    /// `None` on the rust-hdl engine.
    pub fn values_and_state(&self) -> Option<(&[u64], &[u64])> {
        match &self.on {
            CoreOn::Compiled(core) => Some((core.run.sim.values(), core.run.sim.state())),
            CoreOn::RustHdl(_) => None,
        }
    }

    /// About how many bytes a copy of the core holds.
    pub(super) fn state_bytes(&self) -> usize {
        match &self.on {
            CoreOn::Compiled(core) => core.run.sim.state_bytes(),
            CoreOn::RustHdl(_) => 0,
        }
    }

    /// Whether two compiled cores hold the same registers and inputs.
    pub(super) fn same_state(&self, other: &CoreSim) -> bool {
        match (&self.on, &other.on) {
            (CoreOn::Compiled(a), CoreOn::Compiled(b)) => a.run.sim.same_state(&b.run.sim),
            _ => false,
        }
    }

    /// The compiled core's engine (fault sites and arming).
    pub(super) fn compiled(&mut self) -> Option<&mut CompiledSim> {
        match &mut self.on {
            CoreOn::Compiled(core) => Some(&mut core.run.sim),
            CoreOn::RustHdl(_) => None,
        }
    }

    /// The compiled core's engine, to read (a concurrent fault
    /// simulation's golden copy).
    pub fn compiled_ref(&self) -> Option<&CompiledSim> {
        match &self.on {
            CoreOn::Compiled(core) => Some(&core.run.sim),
            CoreOn::RustHdl(_) => None,
        }
    }

    /// Every node of the compiled core the behavioural units read, each
    /// with the node that gates the read (read only in cycles where that
    /// one is not 0: decode's fields with `dec_done`, execute's with
    /// `execute_done`), from the view and the PMU's selector; with `ports`
    /// (the PMU's ports recorded) its reset and inputs too. Empty on the
    /// rust-hdl engine.
    pub(super) fn harness_reads(&self, ports: bool) -> Vec<(usize, Option<usize>)> {
        let CoreOn::Compiled(core) = &self.on else {
            return Vec::new();
        };
        let netlist = core.run.sim.netlist();
        let output = |k: usize| netlist.outputs[k].node;
        let at = &core.at;
        let (dec_done, execute_done) = (output(at.outputs[1]), output(at.outputs[12]));
        let mut reads: Vec<(usize, Option<usize>)> = at
            .outputs
            .iter()
            .enumerate()
            .map(|(k, &i)| match k {
                2..=10 => (output(i), Some(dec_done)),
                13..=15 => (output(i), Some(execute_done)),
                _ => (output(i), None),
            })
            .collect();
        reads.extend(at.result.iter().map(|&i| (output(i), Some(execute_done))));
        reads.push((output(core.pmu_address), None));
        reads.push((output(core.pmu_command), None));
        let signal = |i: usize| netlist.signals[i].node;
        reads.extend(at.pmu_selector.map(|i| (signal(i), None)));
        if ports {
            reads.push((signal(at.pmu_reset), None));
            reads.extend(at.pmu_monitor_in.iter().map(|&i| (signal(i), None)));
        }
        reads
    }

    /// The rust-hdl core, if that engine runs it.
    pub fn rust_hdl(&self) -> Option<&SmCore> {
        match &self.on {
            CoreOn::RustHdl(driver) => Some(driver.uut()),
            CoreOn::Compiled(_) => None,
        }
    }

    pub(super) fn set_inputs(&mut self, i: &CoreInputs) {
        match &mut self.on {
            CoreOn::RustHdl(driver) => {
                let uut = driver.uut_mut();
                uut.reset.next = i.reset;
                uut.pipeline_fetch_done.next = i.pipeline_fetch_done;
                uut.instruction_in.next = i.instruction_in.into();
                uut.warp_lane_id.next = i.warp_lane_id.into();
                uut.read_stall.next = i.read_stall;
                uut.write_stall.next = i.write_stall;
                uut.read_done.next = i.read_done;
                uut.read_op.next = i.read_op.into();
                uut.read_dest.next = i.read_dest.into();
                uut.read_shift.next = i.read_shift.into();
                uut.read_compare.next = i.read_compare.into();
                for lane in 0..LANES {
                    uut.a[lane].next = u64::from(i.a[lane]).into();
                    uut.b[lane].next = u64::from(i.b[lane]).into();
                    uut.c[lane].next = u64::from(i.c[lane]).into();
                }
                uut.read_pmu_read.next = i.read_pmu_read;
                uut.sm_warp_pc.next = u64::from(i.sm_warp_pc).into();
                uut.sm_warp_id.next = u64::from(i.sm_warp_id).into();
                uut.sm_warp_states.next = u64::from(i.sm_warp_states).into();
                uut.sm_active_mask.next = u64::from(i.sm_active_mask).into();
                uut.sm_lane_pass.next = u64::from(i.sm_lane_pass).into();
                uut.sm_register_write.next = i.sm_register_write;
                uut.sm_global_store.next = i.sm_global_store;
                uut.sm_global_load.next = i.sm_global_load;
                uut.sm_mem_address.next = u64::from(i.sm_mem_address).into();
                uut.sm_mem_data.next = u64::from(i.sm_mem_data).into();
            }
            CoreOn::Compiled(core) => {
                let values: [u64; 22] = [
                    u64::from(i.reset),
                    u64::from(i.pipeline_fetch_done),
                    i.instruction_in,
                    i.warp_lane_id,
                    u64::from(i.read_stall),
                    u64::from(i.write_stall),
                    u64::from(i.read_done),
                    i.read_op,
                    i.read_dest,
                    i.read_shift,
                    i.read_compare,
                    u64::from(i.read_pmu_read),
                    u64::from(i.sm_warp_pc),
                    u64::from(i.sm_warp_id),
                    u64::from(i.sm_warp_states),
                    u64::from(i.sm_active_mask),
                    u64::from(i.sm_lane_pass),
                    u64::from(i.sm_register_write),
                    u64::from(i.sm_global_store),
                    u64::from(i.sm_global_load),
                    u64::from(i.sm_mem_address),
                    u64::from(i.sm_mem_data),
                ];
                for (k, value) in values.into_iter().enumerate() {
                    core.run.sim.set_input(core.at.inputs[k], value);
                }
                for (slots, values) in core.at.lanes.iter().zip([&i.a, &i.b, &i.c]) {
                    for (&slot, &value) in slots.iter().zip(values) {
                        core.run.sim.set_input(slot, u64::from(value));
                    }
                }
            }
        }
    }

    /// The compiled core's inputs where a faulty copy's differ from
    /// `golden`'s, (input, value) in input order, when the copy has its own
    /// operand ports (`a`, `b`, `c`) and memory address and data shown to
    /// the PMU where given; empty on the rust-hdl engine.
    pub(super) fn carried_input_diff(
        &self,
        golden: &CoreInputs,
        operands: Option<[[u32; LANES]; 3]>,
        mem: Option<(u32, u32)>,
    ) -> Vec<(usize, u64)> {
        let CoreOn::Compiled(core) = &self.on else {
            return Vec::new();
        };
        let mut diff = Vec::new();
        if let Some((address, data)) = mem {
            // `sm_mem_address`, `sm_mem_data`: 32 bits wide.
            let at = &core.at.inputs;
            if address != golden.sm_mem_address {
                diff.push((at[SM_MEM_ADDRESS], u64::from(address)));
            }
            if data != golden.sm_mem_data {
                diff.push((at[SM_MEM_DATA], u64::from(data)));
            }
        }
        if let Some(operands) = operands {
            for ((slots, copy), golden) in core
                .at
                .lanes
                .iter()
                .zip(operands)
                .zip([golden.a, golden.b, golden.c])
            {
                for lane in 0..LANES {
                    if copy[lane] != golden[lane] {
                        diff.push((slots[lane], u64::from(copy[lane])));
                    }
                }
            }
        }
        diff.sort_unstable_by_key(|&(slot, _)| slot);
        diff
    }

    /// The nodes of execute's `result_*` outputs (compiled engine).
    pub(super) fn result_nodes(&self) -> Option<[usize; LANES]> {
        let CoreOn::Compiled(core) = &self.on else {
            return None;
        };
        let outputs = &core.run.sim.netlist().outputs;
        Some(core.at.result.map(|k| outputs[k].node))
    }

    /// The registers of the 16 counters' counts (compiled engine): what
    /// [`counts`](Self::counts) reads.
    pub(super) fn counter_registers(&self) -> Option<[usize; 16]> {
        match &self.on {
            CoreOn::Compiled(core) => Some(core.at.counters),
            CoreOn::RustHdl(_) => None,
        }
    }

    /// Propagates the inputs (no clock edge).
    pub(super) fn settle(&mut self) -> Result<(), SmError> {
        match &mut self.on {
            CoreOn::RustHdl(driver) => driver.settle()?,
            CoreOn::Compiled(core) => core.run.sim.settle(),
        }
        Ok(())
    }

    /// The rising clock edge, then the core settles with the same inputs
    /// (so the view shows the registers' new values).
    pub(super) fn step(&mut self) -> Result<(), SmError> {
        match &mut self.on {
            CoreOn::RustHdl(driver) => driver.step()?,
            CoreOn::Compiled(core) => core.run.step().map_err(SimError::from)?,
        }
        Ok(())
    }

    /// Ends the waveform, if any.
    pub(super) fn finish(&mut self) -> Result<(), SmError> {
        match &mut self.on {
            CoreOn::RustHdl(driver) => driver.finish()?,
            CoreOn::Compiled(core) => core.run.finish().map_err(SimError::from)?,
        }
        Ok(())
    }

    /// What the core shows now.
    pub(super) fn view(&self) -> CoreView {
        match &self.on {
            CoreOn::RustHdl(driver) => {
                let u = driver.uut();
                CoreView {
                    fetch_stall: u.fetch_stall.val(),
                    dec_done: u.dec_done.val(),
                    dec_lane: u.dec_lane.val().to_u64(),
                    dec_op: u.dec_op.val().to_u64(),
                    dec_dest: u.dec_dest.val().to_u64(),
                    dec_src1: u.dec_src1.val().to_u64(),
                    dec_src2: u.dec_src2.val().to_u64(),
                    dec_src3: u.dec_src3.val().to_u64(),
                    dec_src1_shared: u.dec_src1_shared.val(),
                    dec_shared_offset: u.dec_shared_offset.val().to_u64(),
                    dec_pmu_read: u.dec_pmu_read.val(),
                    execute_stall: u.execute_stall.val(),
                    execute_done: u.execute_done.val(),
                    result: std::array::from_fn(|i| u.result[i].val().to_u64() as u32),
                    exec_dest: u.exec_dest.val().to_u64(),
                    exec_write: u.exec_write.val(),
                    exec_half_write: u.exec_half_write.val(),
                    pmu_address: u.pmu_address.val().to_u64(),
                    pmu_command: u.pmu_command.val().to_u64(),
                }
            }
            CoreOn::Compiled(core) => {
                let s = &core.run.sim;
                let o = |k: usize| s.output(core.at.outputs[k]);
                CoreView {
                    fetch_stall: o(0) != 0,
                    dec_done: o(1) != 0,
                    dec_lane: o(2),
                    dec_op: o(3),
                    dec_dest: o(4),
                    dec_src1: o(5),
                    dec_src2: o(6),
                    dec_src3: o(7),
                    dec_src1_shared: o(8) != 0,
                    dec_shared_offset: o(9),
                    dec_pmu_read: o(10) != 0,
                    execute_stall: o(11) != 0,
                    execute_done: o(12) != 0,
                    result: std::array::from_fn(|i| s.output(core.at.result[i]) as u32),
                    exec_dest: o(13),
                    exec_write: o(14) != 0,
                    exec_half_write: o(15) != 0,
                    pmu_address: s.output(core.pmu_address),
                    pmu_command: s.output(core.pmu_command),
                }
            }
        }
    }

    /// The selector the PMU receives now (0 without selectors).
    pub(super) fn pmu_selector(&self) -> u8 {
        match &self.on {
            CoreOn::RustHdl(driver) => {
                let pmu = &driver.uut().pmu;
                (0..pmu.selector.len())
                    .map(|_| pmu.selector.val().to_u64() as u8)
                    .next()
                    .unwrap_or(0)
            }
            CoreOn::Compiled(core) => core
                .at
                .pmu_selector
                .map_or(0, |i| core.run.sim.signal(i) as u8),
        }
    }

    /// What the PMU receives now (inside the core): its reset, selector
    /// (0 without selectors) and 16 × S inputs.
    pub(super) fn pmu_ports(&self) -> (bool, u8, Vec<u64>) {
        let selector = self.pmu_selector();
        match &self.on {
            CoreOn::RustHdl(driver) => {
                let pmu = &driver.uut().pmu;
                let inputs = pmu.monitor_in.iter().map(|m| m.val().to_u64()).collect();
                (pmu.reset.val(), selector, inputs)
            }
            CoreOn::Compiled(core) => {
                let s = &core.run.sim;
                let inputs = core
                    .at
                    .pmu_monitor_in
                    .iter()
                    .map(|&i| s.signal(i))
                    .collect();
                (s.signal(core.at.pmu_reset) != 0, selector, inputs)
            }
        }
    }

    /// The PMU's 16 counters.
    pub(super) fn counts(&self) -> Vec<u64> {
        match &self.on {
            CoreOn::RustHdl(driver) => driver.uut().pmu.counts(),
            CoreOn::Compiled(core) => core
                .at
                .counters
                .iter()
                .map(|&r| core.run.sim.register(r))
                .collect(),
        }
    }
}
