//! The kit's README, steps 1 to 5, applied to FlexGripPlus' own
//! `SMP/streaming_multiprocessor.vhd`: what a hardware team does by hand to
//! put the PMU and its hooks into FlexGripPlus, done by flexpmu on a copy
//! (`flexpmu cosim` runs kernels on FlexGripPlus with the kit this way).
//! Every edit checks that the source is the one the README was written for
//! (FlexGripPlus 4.4): an instance, a port or an actual that is not there
//! is an error naming it, never a guess.

use super::channels::CHANNELS;
use super::decode_fields::DECODE_FIELDS;
use super::vhdl_edit::{EditError, VhdlSource};

/// The file the kit is put into, below FlexGripPlus' `RTL/`.
pub const FILE: &str = "SMP/streaming_multiprocessor.vhd";

/// The architecture and entity of [`FILE`].
const ARCHITECTURE: &str = "arch";
const ENTITY: &str = "streaming_multiprocessor";

/// Step 1: the signals the kit adds to the architecture (`{last}`: the
/// last counter), as the README gives them.
pub const SIGNALS: &str = "\
-- decode's outputs before the hook (step 2); the hook drives the *_dr names
signal instr_opcode_raw                : instr_opcode_type;
signal mov_opcode_raw                  : mov_opcode_type;
signal src1_mem_type_raw, src2_mem_type_raw, src3_mem_type_raw : mem_type;
signal src1_data_type_raw, src2_data_type_raw, src3_data_type_raw : data_type;
signal dest_mem_type_raw               : mem_type;
signal dest_mem_opcode_raw             : mem_opcode_type;
signal dest_data_type_raw              : data_type;
signal dest_raw                        : std_logic_vector(31 downto 0);
signal pipeline_decode_stall_in        : std_logic;  -- hook -> decode
signal temp_vector_register_exec       : temp_vector_register;  -- execute -> hook
signal pmu_address                     : std_logic_vector(3 downto 0);
signal pmu_command                     : std_logic_vector(1 downto 0);
signal pmu_reset, pmu_read_exec, pmu_interlock : std_logic;
signal pmu_monitor_out                 : std_logic_vector(31 downto 0);
signal monitor_in                      : flexpmu_monitor_array(0 to {last});
";

/// The source did not have what a step of the README edits.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{file}: not the FlexGripPlus 4.4 source the kit's README edits: {what}")]
pub struct IntegrateError {
    pub file: String,
    #[source]
    pub what: EditError,
}

/// The decode port and the signal FlexGripPlus 4.4 maps it to, for each
/// field a PMU read replaces (step 2's table), and `dest_out`.
fn decode_outputs() -> Vec<(String, String)> {
    DECODE_FIELDS
        .iter()
        .map(|(stem, ..)| {
            let original = match *stem {
                "dest_mem_opcode" => "dest_mem_opcode_type_dr".to_string(),
                _ => format!("{stem}_dr"),
            };
            (stem.to_string(), original)
        })
        .chain([("dest".to_string(), "dest_dr".to_string())])
        .collect()
}

/// `source` (FlexGripPlus' [`FILE`], named `file` in errors) with the kit
/// in it: steps 1 to 5 of the README, its channels driven by the README's
/// assignments.
pub fn integrate(source: &str, file: &str) -> Result<String, IntegrateError> {
    let fail = |what| IntegrateError {
        file: file.to_string(),
        what,
    };
    let mut vhdl = VhdlSource::new(source);
    // Step 1.
    vhdl.add_use_clause("use work.gpgpu_package.all;", "use work.flexpmu_fgp.all;")
        .map_err(fail)?;
    let last = CHANNELS.len() - 1;
    let declarations: String = SIGNALS
        .replace("{last}", &last.to_string())
        .lines()
        .map(|l| format!("\t{l}\n"))
        .collect();
    vhdl.add_declarations(
        ARCHITECTURE,
        ENTITY,
        &format!("\t-- flexpmu: the PMU and its hooks (the kit's README, step 1)\n{declarations}"),
    )
    .map_err(fail)?;
    // Step 2.
    vhdl.replace_actual(
        "uPipelineDecode",
        "pipeline_stall_in",
        "pipeline_read_stall",
        "pipeline_decode_stall_in",
    )
    .map_err(fail)?;
    for (stem, original) in decode_outputs() {
        vhdl.replace_actual(
            "uPipelineDecode",
            &format!("{stem}_out"),
            &original,
            &format!("{stem}_raw"),
        )
        .map_err(fail)?;
    }
    // Step 4, execute's side.
    vhdl.replace_actual(
        "uPipelineExecute",
        "temp_vector_register_out",
        "temp_vector_register_ew",
        "temp_vector_register_exec",
    )
    .map_err(fail)?;
    // Steps 3, 4 and 5: the three instances and the channels.
    vhdl.add_statements(ARCHITECTURE, &statements())
        .map_err(fail)?;
    Ok(vhdl.into_text())
}

/// The kit's instances (steps 3 to 5) and the channels' assignments.
fn statements() -> String {
    let mut hook = vec![
        ("reset", "host_reset".to_string()),
        ("clk_in", "clk_in".to_string()),
        ("pipeline_fetch_done", "pipeline_fd_done".to_string()),
        ("instruction_in", "instruction_fd".to_string()),
        ("warp_lane_id_in", "warp_lane_id_fd".to_string()),
        ("pipeline_stall_in", "pipeline_read_stall".to_string()),
        ("pipeline_stall_out", "pipeline_decode_stall_in".to_string()),
        ("pipeline_execute_done", "pipeline_execute_done".to_string()),
    ];
    let fields = decode_outputs();
    let mut ports = Vec::new();
    for (stem, original) in &fields {
        ports.push((format!("{stem}_in"), format!("{stem}_raw")));
        ports.push((format!("{stem}_out"), original.clone()));
    }
    for name in [
        "pmu_address",
        "pmu_command",
        "pmu_reset",
        "pmu_interlock",
        "pmu_read_exec",
    ] {
        hook.push((name, name.to_string()));
    }
    let mut text =
        String::from("\n\t-- flexpmu: the PMU and its hooks (the kit's README, steps 3 to 5)\n");
    let mut all: Vec<(String, String)> = hook
        .into_iter()
        .map(|(port, actual)| (port.to_string(), actual))
        .collect();
    all.extend(ports);
    text += &instance("uFlexpmuDecodeHook", "flexpmu_fgp_decode_hook", &all);
    text += &instance(
        "uFlexpmuExecuteHook",
        "flexpmu_fgp_execute_hook",
        &pairs(&[
            ("pmu_read_exec", "pmu_read_exec"),
            ("monitor_value_in", "pmu_monitor_out"),
            ("temp_vector_register_in", "temp_vector_register_exec"),
            ("temp_vector_register_out", "temp_vector_register_ew"),
        ]),
    );
    text += &instance(
        "uFlexpmuPmu",
        "flexpmu_fgp_pmu",
        &pairs(&[
            ("clk_in", "clk_in"),
            ("reset", "pmu_reset"),
            ("pmu_address", "pmu_address"),
            ("pmu_command", "pmu_command"),
            ("monitor_in", "monitor_in"),
            ("monitor_out", "pmu_monitor_out"),
        ]),
    );
    for channel in CHANNELS {
        text += &format!("\t{}\n", channel.vhdl);
    }
    text + "\n"
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A direct entity instance (neither the kit nor `gpgpu_package` declares
/// components).
fn instance(label: &str, entity: &str, ports: &[(String, String)]) -> String {
    let width = ports.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
    let associations: Vec<String> = ports
        .iter()
        .map(|(port, actual)| format!("\t\t\t{port:<width$} => {actual}"))
        .collect();
    format!(
        "\t{label} : entity work.{entity}\n\t\tport map(\n{}\n\t\t);\n",
        associations.join(",\n")
    )
}
