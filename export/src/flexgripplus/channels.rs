//! What drives each of the PMU's 16 channels in FlexGripPlus: for every
//! channel of the SM slice's monitor map (`MONITOR_MAP`), the FlexGripPlus
//! signal nearest to its event and the concurrent assignment that drives
//! `monitor_in(k)` from it in `SMP/streaming_multiprocessor.vhd`, valid
//! VHDL as written (a test analyses every line against FlexGripPlus'
//! declarations of those signals).

use flexpmu_hdl::sm::MONITOR_MAP;

/// One channel's FlexGripPlus source. "The same events" is said of the
/// channels appendix A reads (0, 1, 2, 4, 12), whose reads on FlexGripPlus
/// with the kit were found equal to `flexpmu run`'s, and of those that
/// follow from the signal's definition; "nearest" where FlexGripPlus has
/// no signal for flexpmu's event at the SM's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Channel {
    /// The FlexGripPlus file (below `RTL/`) and port the signal comes out
    /// of.
    pub source: &'static str,
    /// The assignment in `streaming_multiprocessor`'s architecture.
    pub vhdl: &'static str,
    /// How its count compares with flexpmu's for the same kernel.
    pub agreement: &'static str,
    /// A read of it on FlexGripPlus with the kit equals `flexpmu run`'s
    /// (`flexpmu cosim` holds the two equal; the others it shows).
    pub equal_reads: bool,
}

const SAME: &str = "the same events";

/// Channel k's source is `CHANNELS[k]`; in `MONITOR_MAP`'s order.
pub const CHANNELS: [Channel; 16] = [
    Channel {
        source: "`SMP/Pipeline/Decode/pipeline_decode.vhd`: `pipeline_dec_done`, `warp_lane_id_out`",
        vhdl: "monitor_in(0) <= x\"00000001\" when pipeline_dec_done = '1' and warp_lane_id_dr = \"00\" else x\"00000000\";",
        agreement: SAME,
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Execution/pipeline_execute.vhd`: `pipeline_execute_done`",
        vhdl: "monitor_in(1) <= x\"00000001\" when pipeline_execute_done = '1' else x\"00000000\";",
        agreement: SAME,
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Fetch/pipeline_fetch.vhd`: `warp_id_out`",
        vhdl: "monitor_in(2) <= (31 downto 5 => '0') & warp_id_fd;",
        agreement: SAME,
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Fetch/pipeline_fetch.vhd`: `program_cntr_out`",
        vhdl: "monitor_in(3) <= program_cntr_fd;",
        agreement: "the same changes (FlexGripPlus' address is in bytes, flexpmu's in words)",
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Read/pipeline_read.vhd`: `warp_lane_id_out`",
        vhdl: "monitor_in(4) <= (31 downto 2 => '0') & warp_lane_id_re;",
        agreement: SAME,
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Read/pipeline_read.vhd`: `instruction_mask_out`, `warp_lane_id_out`",
        vhdl: "with warp_lane_id_re select monitor_in(5) <= x\"000000\" & instruction_mask_re(7 downto 0) when \"00\", x\"000000\" & instruction_mask_re(15 downto 8) when \"01\", x\"000000\" & instruction_mask_re(23 downto 16) when \"10\", x\"000000\" & instruction_mask_re(31 downto 24) when others;",
        agreement: "the pass' 8 lanes of the warp's mask, as read's `pMask8` picks them: the same events unless read's mask changes while it holds a pass (not compared on FlexGripPlus)",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Write/pipeline_write.vhd`: `warp_state_out`",
        vhdl: "monitor_in(6) <= std_logic_vector(to_unsigned(warp_state_type'pos(warp_state_ww), 32));",
        agreement: "nearest: FlexGripPlus keeps every warp's state inside `warp_unit`; this is the state write hands back for one warp, so it changes less often",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Read/pipeline_read.vhd`: `temp_vector_register_out`",
        vhdl: "monitor_in(7) <= temp_vector_register_re(0)(TEMP_REG_SRC1)(0);",
        agreement: "nearest: lane 0's first operand as read hands it on; read may change it in cycles flexpmu's operand port holds",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Read/pipeline_read.vhd`: `temp_vector_register_out`",
        vhdl: "monitor_in(8) <= temp_vector_register_re(0)(TEMP_REG_SRC2)(0);",
        agreement: "nearest: as counter 7, for the second operand",
        equal_reads: false,
    },
    Channel {
        source: "the execute hook's `temp_vector_register_out` (what write latches)",
        vhdl: "monitor_in(9) <= temp_vector_register_ew(0)(TEMP_REG_DEST)(0);",
        agreement: "nearest: lane 0's result word as execute hands it to write, including moves and IDL reads",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Write/pipeline_write.vhd`: `gprs_wr_en_out`",
        vhdl: "monitor_in(10) <= x\"00000001\" when gprs_wr_en_b /= (gprs_wr_en_b'range => '0') else x\"00000000\";",
        agreement: "nearest: cycles with any lane's register write enabled; write may take more than one cycle for a pass",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Decode/pipeline_decode.vhd`: `instr_opcode_out` (through the decode hook)",
        vhdl: "monitor_in(11) <= std_logic_vector(to_unsigned(instr_opcode_type'pos(instr_opcode_dr), 32));",
        agreement: "nearest: FlexGripPlus' opcode class (MOV, ALU, FLOW, NOP) is coarser than flexpmu's operation",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Execution/pipeline_execute.vhd`: `pipeline_execute_done`, `dest_mem_type_out`",
        vhdl: "monitor_in(12) <= x\"00000001\" when pipeline_execute_done = '1' and dest_mem_type_ew = MEM_GLOBAL else x\"00000000\";",
        agreement: "the same events for passes with an active lane (this also counts a store pass with none)",
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Decode/pipeline_decode.vhd`: `pipeline_dec_done`, `src1_mem_type_out` (through the decode hook)",
        vhdl: "monitor_in(13) <= x\"00000001\" when pipeline_dec_done = '1' and src1_mem_type_dr = MEM_GLOBAL else x\"00000000\";",
        agreement: "the same number of passes, counted as decode hands them to read (FlexGripPlus loads in read, flexpmu counts at write)",
        equal_reads: true,
    },
    Channel {
        source: "`SMP/Pipeline/Write/pipeline_write.vhd`: `gmem_addr_out`",
        vhdl: "monitor_in(14) <= std_logic_vector(resize(unsigned(gmem_addr_b), 32));",
        agreement: "nearest: write's byte address to global memory (stores; loads go through read's port)",
        equal_reads: false,
    },
    Channel {
        source: "`SMP/Pipeline/Write/pipeline_write.vhd`: `gmem_wr_data_out`",
        vhdl: "monitor_in(15) <= x\"000000\" & gmem_wr_data_b;",
        agreement: "nearest: write's byte to global memory (FlexGripPlus stores a word a byte at a time)",
        equal_reads: false,
    },
];

/// The README's channel table (Markdown) and the assignments (a VHDL
/// block), in counter order.
pub fn table_and_code() -> (String, String) {
    let mut table = String::from(
        "| counter | flexpmu event (`MONITOR_MAP`) | mode | FlexGripPlus source | count against flexpmu's |\n|---|---|---|---|---|\n",
    );
    let mut code = String::new();
    for (k, (signal, channel)) in MONITOR_MAP.iter().zip(&CHANNELS).enumerate() {
        table += &format!(
            "| {k} | `{}`: {} | {} | {} | {} |\n",
            signal.name,
            signal.counts,
            signal.mode.name(),
            channel.source,
            channel.agreement
        );
        code += &format!("-- counter {k}: {}\n{}\n", signal.name, channel.vhdl);
    }
    (table, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_has_one_assignment_to_its_own_channel() {
        assert_eq!(CHANNELS.len(), MONITOR_MAP.len());
        for (k, channel) in CHANNELS.iter().enumerate() {
            let target = format!("monitor_in({k}) <= ");
            assert_eq!(
                channel.vhdl.matches("monitor_in(").count(),
                1,
                "counter {k}: {}",
                channel.vhdl
            );
            assert!(
                channel.vhdl.contains(&target),
                "counter {k}: {}",
                channel.vhdl
            );
            assert!(channel.vhdl.ends_with(';'), "counter {k}");
        }
        let (table, code) = table_and_code();
        assert_eq!(table.lines().count(), 2 + 16);
        assert_eq!(code.lines().filter(|l| !l.starts_with("--")).count(), 16);
    }
}
