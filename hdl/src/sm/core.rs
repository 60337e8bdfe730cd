//! The synthesizable core of the SM slice: the decode stage (G80 subset
//! decoder and PMEVENT hook), the execute stage (eight integer lanes and
//! the PMU hook), the PMU, and the wiring of the PMU's 16 channels to
//! named SM signals ([`MONITOR_MAP`]).
//!
//! The warp unit, fetch, the read and write stages and the memories are
//! cycle-level Rust around this block (`flexpmu_sim::gpu::sm`). The signals
//! they own that the PMU monitors enter as the `sm_*` inputs, so they
//! carry their names into the waveform and the map is one piece of
//! hardware.

use rust_hdl::prelude::*;

use crate::comment;

use crate::pmu::{ChannelConfig, ChannelMode, DefaultPmu, PmuConfig};
use crate::sm::decode_stage::DecodeStage;
use crate::sm::execute_stage::{ExecuteLatency, ExecuteStage, LANES};

/// One PMU channel of the SM slice.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MonitoredSignal {
    /// Signal name.
    pub name: &'static str,
    /// What drives the channel inside [`SmCore`] (a port, as it appears in
    /// the waveform, or an expression of ports).
    pub wire: &'static str,
    /// Bits monitored.
    pub width: usize,
    pub mode: ChannelMode,
    /// SM unit that drives it.
    pub unit: &'static str,
    /// What one count means.
    pub counts: &'static str,
}

const fn signal(
    name: &'static str,
    wire: &'static str,
    width: usize,
    mode: ChannelMode,
    unit: &'static str,
    counts: &'static str,
) -> MonitoredSignal {
    MonitoredSignal {
        name,
        wire,
        width,
        mode,
        unit,
        counts,
    }
}

use ChannelMode::{Level, Toggle};

/// Channel `i` of the PMU monitors `MONITOR_MAP[i]`. Mostly warp-scheduler
/// and execute-stage signals, as in the thesis (section 2.2); 1-bit event
/// strobes are counted as levels (one count per cycle high), wider
/// signals in toggle mode (one count per cycle in which the value changes).
pub const MONITOR_MAP: [MonitoredSignal; 16] = [
    signal(
        "warp_issue",
        "dec_done & dec_lane == 0",
        1,
        Level,
        "decode",
        "a warp instruction handed from decode to read (pipeline_dec_done of its first pass)",
    ),
    signal(
        "execute_pass",
        "execute_done",
        1,
        Level,
        "execute",
        "a pass of 8 lanes handed from execute to write (pipeline_execute_done)",
    ),
    signal(
        "sm_warp_id",
        "sm_warp_id",
        16,
        Toggle,
        "warp unit",
        "a change of the warp the scheduler fetches for",
    ),
    signal(
        "sm_warp_pc",
        "sm_warp_pc",
        32,
        Toggle,
        "warp unit",
        "a change of the fetch address (word) of the scheduled warp",
    ),
    signal(
        "sm_lane_pass",
        "sm_lane_pass",
        2,
        Toggle,
        "read",
        "a change of the pass number (warp_lane_id) sent to execute",
    ),
    signal(
        "sm_active_mask",
        "sm_active_mask",
        8,
        Toggle,
        "read",
        "a change of the active-lane mask of the pass sent to execute",
    ),
    signal(
        "sm_warp_states",
        "sm_warp_states",
        32,
        Toggle,
        "warp unit",
        "a change of any warp's state (2 bits per warp, warps 0-15)",
    ),
    signal(
        "alu_a_lane0",
        "a_0",
        32,
        Toggle,
        "execute",
        "a change of lane 0's first ALU operand",
    ),
    signal(
        "alu_b_lane0",
        "b_0",
        32,
        Toggle,
        "execute",
        "a change of lane 0's second ALU operand",
    ),
    signal(
        "alu_result_lane0",
        "result_0",
        32,
        Toggle,
        "execute",
        "a change of lane 0's registered result",
    ),
    signal(
        "sm_register_write",
        "sm_register_write",
        1,
        Level,
        "write",
        "a pass written to the register file",
    ),
    signal(
        "decode_op",
        "dec_op",
        4,
        Toggle,
        "decode",
        "a change of the decoded operation class",
    ),
    signal(
        "sm_global_store",
        "sm_global_store",
        1,
        Level,
        "write",
        "a GST.U32 pass performed on global memory",
    ),
    signal(
        "sm_global_load",
        "sm_global_load",
        1,
        Level,
        "write",
        "a GLD.U32 pass performed on global memory",
    ),
    signal(
        "sm_mem_address",
        "sm_mem_address",
        32,
        Toggle,
        "write",
        "a change of the global-memory byte address (first active lane)",
    ),
    signal(
        "sm_mem_data",
        "sm_mem_data",
        32,
        Toggle,
        "write",
        "a change of the global-memory data (first active lane)",
    ),
];

/// The PMU configuration of [`MONITOR_MAP`].
pub fn sm_pmu_config() -> PmuConfig {
    PmuConfig {
        channels: MONITOR_MAP
            .iter()
            .map(|s| ChannelConfig {
                width: s.width,
                mode: s.mode,
            })
            .collect(),
        selectors: 1,
    }
}

/// Decode stage + execute stage + PMU, wired as in FlexGripPlus with the
/// thesis' hooks. See the stages for their handshakes.
pub struct SmCore {
    pub clock: Signal<In, Clock>,
    /// Processor reset; also the PMU's global reset.
    pub reset: Signal<In, Bit>,
    /// From fetch: `instruction_in` (low word in 31-0) is valid.
    pub pipeline_fetch_done: Signal<In, Bit>,
    pub instruction_in: Signal<In, Bits<64>>,
    /// From fetch: the pass (FlexGripPlus' `warp_lane_id`).
    pub warp_lane_id: Signal<In, Bits<2>>,
    /// From the read stage: it cannot take a pass.
    pub read_stall: Signal<In, Bit>,
    /// From the read stage: a pass's operands are valid.
    pub read_done: Signal<In, Bit>,
    pub read_op: Signal<In, Bits<4>>,
    pub read_dest: Signal<In, Bits<7>>,
    pub read_shift: Signal<In, Bits<7>>,
    /// ISET's comparison (bit 3 signed, bits 2-0 the condition).
    pub read_compare: Signal<In, Bits<4>>,
    pub a: [Signal<In, Bits<32>>; LANES],
    pub b: [Signal<In, Bits<32>>; LANES],
    pub c: [Signal<In, Bits<32>>; LANES],
    /// The pass belongs to a PMEVENT read (decode's `dec_pmu_read`).
    pub read_pmu_read: Signal<In, Bit>,
    /// From the write stage: it cannot take a result.
    pub write_stall: Signal<In, Bit>,
    /// Monitored signals of the behavioural units (see [`MONITOR_MAP`]).
    pub sm_warp_pc: Signal<In, Bits<32>>,
    pub sm_warp_id: Signal<In, Bits<16>>,
    pub sm_warp_states: Signal<In, Bits<32>>,
    pub sm_active_mask: Signal<In, Bits<8>>,
    pub sm_lane_pass: Signal<In, Bits<2>>,
    pub sm_register_write: Signal<In, Bit>,
    pub sm_global_store: Signal<In, Bit>,
    pub sm_global_load: Signal<In, Bit>,
    pub sm_mem_address: Signal<In, Bits<32>>,
    pub sm_mem_data: Signal<In, Bits<32>>,
    /// To fetch: decode is busy.
    pub fetch_stall: Signal<Out, Bit>,
    /// To the read stage: the decoded fields below are valid (one cycle).
    pub dec_done: Signal<Out, Bit>,
    pub dec_lane: Signal<Out, Bits<2>>,
    pub dec_op: Signal<Out, Bits<4>>,
    pub dec_long: Signal<Out, Bit>,
    pub dec_dest: Signal<Out, Bits<7>>,
    pub dec_src1: Signal<Out, Bits<7>>,
    pub dec_src2: Signal<Out, Bits<7>>,
    pub dec_src3: Signal<Out, Bits<7>>,
    pub dec_src1_shared: Signal<Out, Bit>,
    pub dec_shared_offset: Signal<Out, Bits<5>>,
    pub dec_pmu_read: Signal<Out, Bit>,
    /// The decode hook holds a PMEVENT behind an unfinished read.
    pub pmu_interlock: Signal<Out, Bit>,
    /// To the read stage: execute cannot take a pass.
    pub execute_stall: Signal<Out, Bit>,
    /// To the write stage: a pass's results are valid (one cycle).
    pub execute_done: Signal<Out, Bit>,
    pub result: [Signal<Out, Bits<32>>; LANES],
    pub exec_dest: Signal<Out, Bits<7>>,
    pub exec_write: Signal<Out, Bit>,
    pub exec_half_write: Signal<Out, Bit>,
    /// The PMU's ports, for observation.
    pub pmu_address: Signal<Out, Bits<4>>,
    pub pmu_command: Signal<Out, Bits<2>>,
    pub monitor_out: Signal<Out, Bits<32>>,
    pub decode: DecodeStage,
    pub execute: ExecuteStage,
    pub pmu: DefaultPmu,
    /// 0 builds the core without the PMU: the stages' basic variants and
    /// `monitor_out` tied to 0, so synthesis removes the unobservable PMU
    /// (the thesis' "GPGPU without the PMU" for its area comparison).
    pmu_enabled: Constant<Bit>,
}

impl Default for SmCore {
    fn default() -> Self {
        Self::new(true, ExecuteLatency::FlexGripPlus)
    }
}

impl SmCore {
    /// The core with (`pmu`) or without the PMU and its hooks, its
    /// execute stage taking `latency`.
    pub fn new(pmu: bool, latency: ExecuteLatency) -> Self {
        Self::with_pmu_config(pmu, latency, &sm_pmu_config())
    }

    /// [`SmCore::new`] with another PMU configuration of the 16 channels.
    pub fn with_pmu_config(pmu: bool, latency: ExecuteLatency, config: &PmuConfig) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pipeline_fetch_done: Default::default(),
            instruction_in: Default::default(),
            warp_lane_id: Default::default(),
            read_stall: Default::default(),
            read_done: Default::default(),
            read_op: Default::default(),
            read_dest: Default::default(),
            read_shift: Default::default(),
            read_compare: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            read_pmu_read: Default::default(),
            write_stall: Default::default(),
            sm_warp_pc: Default::default(),
            sm_warp_id: Default::default(),
            sm_warp_states: Default::default(),
            sm_active_mask: Default::default(),
            sm_lane_pass: Default::default(),
            sm_register_write: Default::default(),
            sm_global_store: Default::default(),
            sm_global_load: Default::default(),
            sm_mem_address: Default::default(),
            sm_mem_data: Default::default(),
            fetch_stall: Default::default(),
            dec_done: Default::default(),
            dec_lane: Default::default(),
            dec_op: Default::default(),
            dec_long: Default::default(),
            dec_dest: Default::default(),
            dec_src1: Default::default(),
            dec_src2: Default::default(),
            dec_src3: Default::default(),
            dec_src1_shared: Default::default(),
            dec_shared_offset: Default::default(),
            dec_pmu_read: Default::default(),
            pmu_interlock: Default::default(),
            execute_stall: Default::default(),
            execute_done: Default::default(),
            result: Default::default(),
            exec_dest: Default::default(),
            exec_write: Default::default(),
            exec_half_write: Default::default(),
            pmu_address: Default::default(),
            pmu_command: Default::default(),
            monitor_out: Default::default(),
            decode: DecodeStage::with_selectors(pmu, config.selectors),
            execute: ExecuteStage::new(pmu, latency),
            pmu: DefaultPmu::new(config),
            pmu_enabled: Constant::new(pmu),
        }
    }
}

crate::hdl_block!([] SmCore {
    inputs: [
        clock, reset, pipeline_fetch_done, instruction_in, warp_lane_id, read_stall, read_done,
        read_op, read_dest, read_shift, read_compare, a, b, c, read_pmu_read, write_stall, sm_warp_pc, sm_warp_id, sm_warp_states, sm_active_mask, sm_lane_pass,
        sm_register_write, sm_global_store, sm_global_load, sm_mem_address, sm_mem_data,
    ],
    outputs: [
        fetch_stall, dec_done, dec_lane, dec_op, dec_long, dec_dest, dec_src1, dec_src2, dec_src3,
        dec_src1_shared, dec_shared_offset, dec_pmu_read, pmu_interlock, execute_stall,
        execute_done, result,
        exec_dest, exec_write, exec_half_write, pmu_address, pmu_command, monitor_out,
    ],
    parts: [decode, execute, pmu],
    constants: [pmu_enabled],
});

impl Logic for SmCore {
    #[hdl_gen]
    fn update(&mut self) {
        comment!("module: sm_core");
        // Decode stage.
        self.decode.clock.next = self.clock.val();
        self.decode.reset.next = self.reset.val();
        self.decode.pipeline_fetch_done.next = self.pipeline_fetch_done.val();
        self.decode.pipeline_stall_in.next = self.read_stall.val();
        self.decode.instruction_in.next = self.instruction_in.val();
        self.decode.warp_lane_id.next = self.warp_lane_id.val();
        self.decode.pipeline_execute_done.next = self.execute.pipeline_execute_done.val();
        self.fetch_stall.next = self.decode.pipeline_stall_out.val();
        self.dec_done.next = self.decode.pipeline_dec_done.val();
        self.dec_lane.next = self.decode.warp_lane_id_out.val();
        self.dec_op.next = self.decode.op.val();
        self.dec_long.next = self.decode.long_instruction.val();
        self.dec_dest.next = self.decode.dest.val();
        self.dec_src1.next = self.decode.src1.val();
        self.dec_src2.next = self.decode.src2.val();
        self.dec_src3.next = self.decode.src3.val();
        self.dec_src1_shared.next = self.decode.src1_shared.val();
        self.dec_shared_offset.next = self.decode.shared_offset.val();
        self.dec_pmu_read.next = self.decode.pmu_read_out.val();
        self.pmu_interlock.next = self.decode.pmu_interlock.val();
        // Execute stage.
        self.execute.clock.next = self.clock.val();
        self.execute.reset.next = self.reset.val();
        self.execute.pipeline_read_done.next = self.read_done.val();
        self.execute.pipeline_stall_in.next = self.write_stall.val();
        self.execute.op.next = self.read_op.val();
        self.execute.dest_in.next = self.read_dest.val();
        self.execute.shift.next = self.read_shift.val();
        self.execute.compare.next = self.read_compare.val();
        for i in 0..8 {
            self.execute.a[i].next = self.a[i].val();
            self.execute.b[i].next = self.b[i].val();
            self.execute.c[i].next = self.c[i].val();
            self.result[i].next = self.execute.result[i].val();
        }
        self.execute.pmu_read_in.next = self.read_pmu_read.val();
        self.execute.pmu_read_exec.next = self.decode.pmu_read_exec.val();
        self.execute.monitor_value_in.next = self.pmu.monitor_out.val();
        self.execute_stall.next = self.execute.pipeline_stall_out.val();
        self.execute_done.next = self.execute.pipeline_execute_done.val();
        self.exec_dest.next = self.execute.dest_out.val();
        self.exec_write.next = self.execute.write_out.val();
        self.exec_half_write.next = self.execute.half_write_out.val();
        // PMU: driven by the decode hook, monitoring MONITOR_MAP.
        self.pmu.clock.next = self.clock.val();
        self.pmu.reset.next = self.decode.pmu_reset.val();
        self.pmu.address.next = self.decode.pmu_address.val();
        self.pmu.command.next = self.decode.pmu_command.val();
        self.pmu.monitor_in[0].next = 0.into();
        if self.decode.pipeline_dec_done.val() & (self.decode.warp_lane_id_out.val() == 0) {
            self.pmu.monitor_in[0].next = 1.into();
        }
        self.pmu.monitor_in[1].next = 0.into();
        if self.execute.pipeline_execute_done.val() {
            self.pmu.monitor_in[1].next = 1.into();
        }
        self.pmu.monitor_in[2].next = bit_cast::<32, 16>(self.sm_warp_id.val());
        self.pmu.monitor_in[3].next = self.sm_warp_pc.val();
        self.pmu.monitor_in[4].next = bit_cast::<32, 2>(self.sm_lane_pass.val());
        self.pmu.monitor_in[5].next = bit_cast::<32, 8>(self.sm_active_mask.val());
        self.pmu.monitor_in[6].next = self.sm_warp_states.val();
        self.pmu.monitor_in[7].next = self.a[0].val();
        self.pmu.monitor_in[8].next = self.b[0].val();
        self.pmu.monitor_in[9].next = self.execute.result[0].val();
        self.pmu.monitor_in[10].next = 0.into();
        if self.sm_register_write.val() {
            self.pmu.monitor_in[10].next = 1.into();
        }
        self.pmu.monitor_in[11].next = bit_cast::<32, 4>(self.decode.op.val());
        self.pmu.monitor_in[12].next = 0.into();
        if self.sm_global_store.val() {
            self.pmu.monitor_in[12].next = 1.into();
        }
        self.pmu.monitor_in[13].next = 0.into();
        if self.sm_global_load.val() {
            self.pmu.monitor_in[13].next = 1.into();
        }
        self.pmu.monitor_in[14].next = self.sm_mem_address.val();
        self.pmu.monitor_in[15].next = self.sm_mem_data.val();
        // With selectors only: the decode hook's selector, and the inputs
        // beyond the first 16 at 0 until a monitor map wires them.
        for _k in 0..self.pmu.selector.len() {
            self.pmu.selector.next = self.decode.pmu_selector.val();
        }
        for k in 16..self.pmu.monitor_in.len() {
            self.pmu.monitor_in[k].next = 0.into();
        }
        self.pmu_address.next = self.decode.pmu_address.val();
        self.pmu_command.next = self.decode.pmu_command.val();
        self.monitor_out.next = self.pmu.monitor_out.val();
        if !self.pmu_enabled.val() {
            self.monitor_out.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::test_driver::Driver;
    use flexpmu_tools::yosys::check_synthesizes;

    #[test]
    fn sm_core_synthesizes() {
        let mut uut = SmCore::default();
        uut.connect_all();
        let report = check_synthesizes("sm_core", &generate_verilog(&uut)).unwrap();
        // Decode stage 58, execute stage 268, and the PMU: 16 counters of
        // 32 bits and 2 state bits, plus one previous-value register bit
        // per toggle-mode input bit (level channels keep none).
        let toggle_bits: u64 = MONITOR_MAP
            .iter()
            .filter(|s| s.mode == ChannelMode::Toggle)
            .map(|s| s.width as u64)
            .sum();
        assert_eq!(
            report.flip_flop_bits,
            58 + 268 + 16 * 34 + toggle_bits,
            "{report:?}"
        );
    }

    /// Each behavioural signal of the map reaches its channel, and only it.
    #[test]
    fn monitor_map_matches_the_wiring() {
        let mut d = Driver::new(SmCore::default());
        type Setter = fn(&mut SmCore, u64);
        let ports: Vec<(&str, Setter)> = vec![
            ("sm_warp_pc", |c, v| c.sm_warp_pc.next = v.into()),
            ("sm_warp_id", |c, v| c.sm_warp_id.next = v.into()),
            ("sm_warp_states", |c, v| c.sm_warp_states.next = v.into()),
            ("sm_active_mask", |c, v| c.sm_active_mask.next = v.into()),
            ("sm_lane_pass", |c, v| c.sm_lane_pass.next = v.into()),
            ("sm_register_write", |c, v| {
                c.sm_register_write.next = v != 0
            }),
            ("sm_global_store", |c, v| c.sm_global_store.next = v != 0),
            ("sm_global_load", |c, v| c.sm_global_load.next = v != 0),
            ("sm_mem_address", |c, v| c.sm_mem_address.next = v.into()),
            ("sm_mem_data", |c, v| c.sm_mem_data.next = v.into()),
            ("a_0", |c, v| c.a[0].next = v.into()),
            ("b_0", |c, v| c.b[0].next = v.into()),
        ];
        for (port, set) in ports {
            let channel = MONITOR_MAP
                .iter()
                .position(|s| s.wire == port)
                .unwrap_or_else(|| panic!("{port} is not in the map"));
            d.settle();
            let before: Vec<u64> = d
                .uut
                .pmu
                .monitor_in
                .iter()
                .map(|m| m.val().to_u64())
                .collect();
            set(&mut d.uut, 1);
            d.settle();
            for (i, m) in d.uut.pmu.monitor_in.iter().enumerate() {
                let changed = m.val().to_u64() != before[i];
                assert_eq!(changed, i == channel, "{port}: channel {i}");
            }
            set(&mut d.uut, 0);
        }
        // The internal channels: decode hands over the first pass of an
        // IADD32, the read stage sends it, execute hands it to write.
        let channel = |name: &str| MONITOR_MAP.iter().position(|s| s.wire == name).unwrap();
        let issue = channel("dec_done & dec_lane == 0");
        let pass = channel("execute_done");
        d.uut.reset.next = true;
        d.cycle();
        d.uut.reset.next = false;
        let monitor = |d: &Driver<SmCore>, i: usize| d.uut.pmu.monitor_in[i].val().to_u64();
        for lane in [1, 0] {
            d.uut.pipeline_fetch_done.next = true;
            d.uut.warp_lane_id.next = lane.into();
            d.uut.instruction_in.next = 0x2000_8204u64.into(); // IADD32 R1, R1, R0
            d.cycle();
            d.uut.pipeline_fetch_done.next = false;
            d.cycle();
            d.settle();
            assert!(d.uut.dec_done.val());
            // Only the first pass counts as a warp instruction.
            assert_eq!(monitor(&d, issue), u64::from(lane == 0), "lane {lane}");
        }
        assert_eq!(
            monitor(&d, channel("dec_op")),
            crate::sm::subset_decoder::op::IADD32
        );
        d.uut.read_done.next = true;
        d.uut.read_op.next = crate::sm::subset_decoder::op::IADD32.into();
        d.uut.a[0].next = 5.into();
        d.uut.b[0].next = 7.into();
        d.cycle();
        d.uut.read_done.next = false;
        // FlexGripPlus' ALU latency: execute_done two cycles later.
        for expected in [0, 0, 1, 0] {
            d.settle();
            assert_eq!(monitor(&d, pass), expected);
            d.cycle();
        }
        assert_eq!(monitor(&d, channel("result_0")), 12);
        let mut names: Vec<_> = MONITOR_MAP.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 16, "names are unique");
    }
}
