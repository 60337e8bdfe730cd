//! The FlexGripPlus integration kit (`generated_vhdl/flexgripplus/`):
//! thin VHDL wrappers with FlexGripPlus' port names and types around the
//! exported hooks and PMU, a package with the monitor array type, a README
//! saying which FlexGripPlus signal goes to each port, and a self-checking
//! testbench that drives the kit the way FlexGripPlus' pipeline does.
//!
//! The wrappers use FlexGripPlus' own types (`instr_opcode_type`,
//! `mem_type`, `temp_vector_register`, ...) from its `gpgpu_package`, so
//! they connect to `pipeline_decode`, `pipeline_read`, `pipeline_execute`
//! and `pipeline_write` by port mapping alone. The testbench, which runs
//! without FlexGripPlus, comes with a stand-in package that declares those
//! types under the same names.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::{Render as _, GENERATED_MARKER};
use flexpmu_ir::{Design, Direction, Module};

pub mod channels;
mod decode_fields;
pub mod integrate;
pub mod vhdl_edit;

use decode_fields::DECODE_FIELDS;

/// The kit's folder, inside the export folder.
pub const FOLDER: &str = "flexgripplus";

/// The exported module the kit's PMU wrapper instantiates: the SM core's
/// PMU, with `MONITOR_MAP`'s channel modes.
pub const KIT_PMU: &str = "flexpmu_pmu_sm_core";

/// Lanes of a FlexGripPlus pass (`CORES` in `gpgpu_package`).
pub const LANES: usize = 8;

/// A file of the kit: its path below the export folder, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KitFile {
    pub path: PathBuf,
    pub text: String,
}

/// The exported designs a wrapper instantiates no longer have the ports
/// the kit maps.
#[derive(Debug, thiserror::Error)]
#[error("the FlexGripPlus kit cannot wrap `{module}`: {what}")]
pub struct KitError {
    module: String,
    what: String,
}

/// The designs the kit wraps.
pub struct KitDesigns<'a> {
    /// The decode hook with an asynchronous reset.
    pub decode_hook: &'a Design,
    pub execute_hook: &'a Design,
    /// The PMU of the SM slice's monitor map (its channels' modes), so
    /// FlexGripPlus with the kit counts what `flexpmu run` counts.
    pub pmu: &'a Design,
}

/// The kit's files.
pub fn kit(designs: &KitDesigns) -> Result<Vec<KitFile>, KitError> {
    let pmu_counters = counters(designs.pmu.top());
    let files = [
        ("flexpmu_fgp.vhd", package()),
        (
            "flexpmu_fgp_decode_hook.vhd",
            decode_wrapper(
                designs.decode_hook.top(),
                "flexpmu_fgp_decode_hook",
                "`flexpmu export`",
            )?,
        ),
        (
            "flexpmu_fgp_execute_hook.vhd",
            execute_wrapper(designs.execute_hook.top())?,
        ),
        (
            "flexpmu_fgp_pmu.vhd",
            vhdl_header(&format!(
                "the PMU ({}) with FlexGripPlus' names",
                designs.pmu.top().name
            )) + &pmu_wrapper(designs.pmu.top(), "flexpmu_fgp_pmu", &[])?,
        ),
        ("README.md", readme(designs, pmu_counters)),
        (
            "testbench/gpgpu_package_standin.vhd",
            vhdl_header("a stand-in for FlexGripPlus' gpgpu_package, for the kit's testbench only")
                + STANDIN_PACKAGE,
        ),
        (
            "testbench/tb_flexpmu_fgp_kit.vhd",
            vhdl_header("the kit's self-checking testbench") + &testbench(),
        ),
    ];
    Ok(files
        .into_iter()
        .map(|(name, text)| KitFile {
            path: PathBuf::from(FOLDER).join(name),
            text,
        })
        .collect())
}

/// The kit's VHDL in the order to analyse it (after FlexGripPlus'
/// `gpgpu_package`, before the FlexGripPlus files that use the kit): the
/// exported modules the wrappers instantiate, the kit's package, then its
/// three wrappers. What `flexpmu cosim` analyses into FlexGripPlus.
pub fn sources(designs: &KitDesigns) -> Result<Vec<KitFile>, KitError> {
    let mut files: Vec<KitFile> = Vec::new();
    for design in [designs.decode_hook, designs.execute_hook, designs.pmu] {
        for module in &design.modules {
            let path = PathBuf::from(crate::set::file_name(&module.name, crate::Language::Vhdl));
            if files.iter().any(|f| f.path == path) {
                continue;
            }
            let text = design
                .render_module(
                    &module.name,
                    crate::Language::Vhdl,
                    &crate::set::describe_part(module),
                )
                .expect("the module is in its design");
            files.push(KitFile { path, text });
        }
    }
    let wrappers = [
        "flexpmu_fgp.vhd",
        "flexpmu_fgp_decode_hook.vhd",
        "flexpmu_fgp_execute_hook.vhd",
        "flexpmu_fgp_pmu.vhd",
    ];
    let kit = kit(designs)?;
    for name in wrappers {
        let path = PathBuf::from(FOLDER).join(name);
        let file = kit
            .iter()
            .find(|f| f.path == path)
            .expect("the kit has its wrappers");
        files.push(file.clone());
    }
    Ok(files)
}

/// The wrapper of a PMU variant exported by `flexpmu export --pmu-config
/// SOURCE`, as `flexgripplus/<entity>.vhd` (`flexpmu_pmu_x` becomes
/// `flexpmu_fgp_pmu_x`); `channels` says what each channel counts.
pub fn pmu_variant_wrapper(
    pmu: &Design,
    source: &str,
    channels: &[String],
) -> Result<KitFile, KitError> {
    let top = pmu.top();
    let entity = top.name.replacen("flexpmu_", "flexpmu_fgp_", 1);
    let origin = format!("`flexpmu export --pmu-config {source}`");
    let mut text = header(
        &origin,
        &format!("the PMU variant {} with FlexGripPlus' names", top.name),
    );
    text += &pmu_wrapper(top, &entity, channels)?;
    Ok(KitFile {
        path: PathBuf::from(FOLDER).join(format!("{entity}.vhd")),
        text,
    })
}

/// The kit's decode hook for a PMU variant with `selectors` inputs per
/// channel (`hook`, built with them and an asynchronous reset), written by
/// `flexpmu export --pmu-config` as
/// `flexgripplus/flexpmu_fgp_decode_hook_sel<S>.vhd`: the kit's decode hook
/// with `pmu_selector` for the variant's wrapper.
pub fn decode_hook_variant_wrapper(hook: &Design, selectors: usize) -> Result<KitFile, KitError> {
    let entity = format!("flexpmu_fgp_decode_hook_sel{selectors}");
    let origin = format!("`flexpmu export --pmu-config` with selectors = {selectors}");
    Ok(KitFile {
        path: PathBuf::from(FOLDER).join(format!("{entity}.vhd")),
        text: decode_wrapper(hook.top(), &entity, &origin)?,
    })
}

fn vhdl_header(what: &str) -> String {
    header("`flexpmu export`", what)
}

fn header(origin: &str, what: &str) -> String {
    format!(
        "-- {GENERATED_MARKER} ({origin}): do not edit.\n\
         -- FlexGripPlus integration kit: {what} (see README.md beside it).\n\n"
    )
}

/// Number of `monitor_in_N` ports of a PMU top.
fn counters(pmu: &Module) -> usize {
    pmu.ports
        .iter()
        .filter(|p| p.name.starts_with("monitor_in_"))
        .count()
}

fn port_width(m: &Module, name: &str) -> Option<usize> {
    m.ports.iter().find(|p| p.name == name).map(|p| p.width)
}

/// The instance of `core` with every port mapped as `map` says (outputs
/// not in `map` are left open); an error if a port is not mapped, or if a
/// mapped port does not exist.
fn instance(label: &str, core: &Module, map: &[(String, String)]) -> Result<String, KitError> {
    let error = |what: String| KitError {
        module: core.name.clone(),
        what,
    };
    for (port, _) in map {
        if port_width(core, port).is_none() {
            return Err(error(format!("it has no port `{port}`")));
        }
    }
    let mut lines = Vec::new();
    for port in &core.ports {
        let actual = match map.iter().find(|(p, _)| *p == port.name) {
            Some((_, actual)) => actual.clone(),
            None if port.direction == Direction::Out => "open".to_string(),
            None => return Err(error(format!("its input `{}` is not mapped", port.name))),
        };
        lines.push(format!("      {} => {actual}", port.name));
    }
    Ok(format!(
        "  {label} : {}\n    port map (\n{}\n    );\n",
        core.name,
        lines.join(",\n")
    ))
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn package() -> String {
    vhdl_header("the kit's package")
        + "\
library ieee;
use ieee.std_logic_1164.all;

-- Types of the kit's wrappers that FlexGripPlus' gpgpu_package does not
-- have.
package flexpmu_fgp is
  subtype flexpmu_word is std_logic_vector(31 downto 0);
  -- The PMU's monitored signals: monitor_in(i) is counter i's channel.
  type flexpmu_monitor_array is array (natural range <>) of flexpmu_word;
  -- One word per lane of a pass.
  type flexpmu_lane_array is array (natural range <>) of flexpmu_word;
end package flexpmu_fgp;
"
}

/// The decode hook `core` as the entity `entity` with FlexGripPlus' names,
/// its header naming `origin`; a hook built for a PMU with event selectors
/// also has `pmu_selector`.
fn decode_wrapper(core: &Module, entity: &str, origin: &str) -> Result<String, KitError> {
    let mut map = pairs(&[
        ("clock", "clk_in"),
        ("reset", "reset"),
        ("pipeline_fetch_done", "pipeline_fetch_done"),
        ("instruction_in", "instruction_in"),
        ("warp_lane_id", "warp_lane_id_in"),
        ("read_stall_in", "pipeline_stall_in"),
        ("pipeline_execute_done", "pipeline_execute_done"),
        ("decode_stall_out", "pipeline_stall_out"),
        ("pmu_interlock", "pmu_interlock"),
        ("pmu_read_out", "pmu_read"),
        ("pmu_dest_out", "pmu_dest"),
        ("pmu_read_exec", "pmu_read_exec"),
        ("pmu_address", "pmu_address"),
        ("pmu_command", "pmu_command"),
        ("pmu_reset", "pmu_reset"),
    ]);
    let selector = port_width(core, "pmu_selector").is_some();
    if selector {
        map.push(("pmu_selector".into(), "pmu_selector".into()));
    }
    map.sort();
    let dest_width = port_width(core, "pmu_dest_out").unwrap_or(7);
    let mut text = header(
        origin,
        &format!(
            "the decode hook ({}) beside FlexGripPlus' pipeline_decode{}",
            core.name,
            if selector {
                ", passing PMEVENT's selector"
            } else {
                ""
            }
        ),
    );
    text += &"\
library ieee;
use ieee.std_logic_1164.all;
use work.gpgpu_package.all;

-- The PMEVENT hook beside FlexGripPlus' pipeline_decode (uPipelineDecode in
-- SMP/streaming_multiprocessor.vhd). It sees what decode sees from fetch,
-- sits on the stall line from read to decode, and passes decode's outputs
-- on to read, replacing, for every pass of a PMEVENT IDL, the fields that
-- make read, execute and write treat the pass as a 32-bit register write
-- of the counter (a move with no source operand into the PMEVENT's
-- register). One PMU command per warp instruction, with its first pass
-- (warp_lane_id 0); a PMEVENT waits in decode while an earlier IDL has a
-- pass before write (pmu_interlock). Reset: asynchronous, active high.
entity {entity} is
  port (
    reset                 : in  std_logic;
    clk_in                : in  std_logic;
    -- What decode gets from fetch.
    pipeline_fetch_done   : in  std_logic;
    instruction_in        : in  std_logic_vector(63 downto 0);
    warp_lane_id_in       : in  std_logic_vector(1 downto 0);
    -- The read stage's pipeline_stall_out, and the stall for decode's
    -- pipeline_stall_in: read's, or the interlock.
    pipeline_stall_in     : in  std_logic;
    pipeline_stall_out    : out std_logic;
    -- Execute hands a pass to write.
    pipeline_execute_done : in  std_logic;
    -- Decode's outputs that a PMU read replaces...
"
    .replace("{entity}", entity);
    for (stem, ty, _, _) in DECODE_FIELDS {
        let _ = writeln!(text, "    {:<21} : in  {ty};", format!("{stem}_in"));
    }
    text += "    dest_in               : in  std_logic_vector(31 downto 0);\n";
    text += "    -- ...and the same fields for the read stage.\n";
    for (stem, ty, _, _) in DECODE_FIELDS {
        let _ = writeln!(text, "    {:<21} : out {ty};", format!("{stem}_out"));
    }
    text += &"\
    dest_out              : out std_logic_vector(31 downto 0);
    -- To the PMU ({pmu}).
    pmu_address           : out std_logic_vector(3 downto 0);
    pmu_command           : out std_logic_vector(1 downto 0);
    pmu_reset             : out std_logic;
{selector_port}    -- A PMEVENT waits behind an unfinished IDL (for observation).
    pmu_interlock         : out std_logic;
    -- To flexpmu_fgp_execute_hook: the pass execute hands to write now is
    -- a PMU read.
    pmu_read_exec         : out std_logic
  );
end entity {entity};

architecture rtl of {entity} is
"
    .replace("{entity}", entity)
    .replace(
        "{pmu}",
        if selector {
            "a flexpmu_fgp_pmu_* variant with event selectors"
        } else {
            "flexpmu_fgp_pmu"
        },
    )
    .replace(
        "{selector_port}",
        if selector {
            "    -- The PMEVENT's selector (bits 19-17), with the command, held\n    \
             -- like the address; PMEVENTs selecting an input the PMU lacks are\n    \
             -- not executed.\n    \
             pmu_selector          : out std_logic_vector(2 downto 0);\n"
        } else {
            ""
        },
    );
    text += &crate::vhdl::component_declaration(core);
    let _ = writeln!(
        text,
        "  -- The pass decode handed over last is a PMU read into pmu_dest.\n  \
         signal pmu_read : std_logic;\n  \
         signal pmu_dest : std_logic_vector({} downto 0);\nbegin",
        dest_width - 1
    );
    text += &instance("hook", core, &map)?;
    text += "\n  -- A PMU read reaches read as a register move with no source operand.\n";
    for (stem, _, value, why) in DECODE_FIELDS {
        let _ = writeln!(
            text,
            "  {stem}_out <= {value} when pmu_read = '1' else {stem}_in;  -- {why}"
        );
    }
    let _ = writeln!(
        text,
        "  dest_out <= ({} downto {dest_width} => '0') & pmu_dest when pmu_read = '1' else dest_in;  -- the PMEVENT's register (write uses bits 8-0)",
        31
    );
    text += "end architecture rtl;\n";
    Ok(text)
}

fn execute_wrapper(core: &Module) -> Result<String, KitError> {
    let lanes = core
        .ports
        .iter()
        .filter(|p| p.name.starts_with("result_in_"))
        .count();
    if lanes != LANES {
        return Err(KitError {
            module: core.name.clone(),
            what: format!("it has {lanes} lanes; FlexGripPlus' passes have {LANES}"),
        });
    }
    let mut map = pairs(&[
        ("pmu_read_in", "pmu_read_exec"),
        ("monitor_value_in", "monitor_value_in"),
    ]);
    for lane in 0..LANES {
        map.push((
            format!("result_in_{lane}"),
            format!("temp_vector_register_in({lane})(TEMP_REG_DEST)(0)"),
        ));
        map.push((format!("result_out_{lane}"), format!("result({lane})")));
    }
    let mut text = vhdl_header(&format!(
        "the execute hook ({}) between FlexGripPlus' pipeline_execute and pipeline_write",
        core.name
    ));
    text += "\
library ieee;
use ieee.std_logic_1164.all;
use work.gpgpu_package.all;
use work.flexpmu_fgp.all;

-- The execute hook between FlexGripPlus' pipeline_execute and
-- pipeline_write (uPipelineExecute and uPipelineWrite in
-- SMP/streaming_multiprocessor.vhd): when execute hands a PMU read's pass
-- to write (pmu_read_exec, from flexpmu_fgp_decode_hook), the result word
-- of each of the pass's 8 lanes, temp_vector_register(i)(TEMP_REG_DEST)(0),
-- is the counter (monitor_value_in, the PMU's monitor_out); everything
-- else passes through. Combinational.
entity flexpmu_fgp_execute_hook is
  port (
    pmu_read_exec            : in  std_logic;
    monitor_value_in         : in  std_logic_vector(31 downto 0);
    temp_vector_register_in  : in  temp_vector_register;
    temp_vector_register_out : out temp_vector_register
  );
end entity flexpmu_fgp_execute_hook;

architecture rtl of flexpmu_fgp_execute_hook is
";
    text += &crate::vhdl::component_declaration(core);
    let _ = writeln!(
        text,
        "  signal result : flexpmu_lane_array(0 to {}) ;\nbegin",
        LANES - 1
    );
    let _ = writeln!(
        text,
        "  assert CORES = {LANES}\n    report \"flexpmu_fgp_execute_hook: exported for {LANES} lanes a pass, but CORES is \" & integer'image(CORES)\n    severity failure;\n"
    );
    text += &instance("hook", core, &map)?;
    let _ = writeln!(
        text,
        "\n  process (temp_vector_register_in, result)\n  begin\n    \
         temp_vector_register_out <= temp_vector_register_in;\n    \
         for i in 0 to {} loop\n      \
         temp_vector_register_out(i)(TEMP_REG_DEST)(0) <= result(i);\n    \
         end loop;\n  end process;\nend architecture rtl;",
        LANES - 1
    );
    Ok(text.replace(" ;\n", ";\n"))
}

/// The PMU wrapper's text (after its header); `channels`, if any, are
/// comment lines on what each channel counts.
fn pmu_wrapper(core: &Module, entity: &str, channels: &[String]) -> Result<String, KitError> {
    let counters = counters(core);
    let width = port_width(core, "monitor_out").unwrap_or(32);
    let input_width = port_width(core, "monitor_in_0").unwrap_or(32);
    if input_width != 32 {
        return Err(KitError {
            module: core.name.clone(),
            what: format!("its monitor inputs are {input_width} bits, the kit's words 32"),
        });
    }
    let mut map = pairs(&[
        ("clock", "clk_in"),
        ("reset", "reset"),
        ("address", "pmu_address"),
        ("command", "pmu_command"),
        ("monitor_out", "monitor_out"),
    ]);
    for i in 0..counters {
        map.push((format!("monitor_in_{i}"), format!("monitor_in({i})")));
    }
    // A PMU with event selectors: its `selector` beside the command, and
    // counters × S inputs (input s × counters + i is counter i's input s).
    let selector_port = if port_width(core, "selector").is_some() {
        map.push(("selector".into(), "pmu_selector".into()));
        "    pmu_selector : in  std_logic_vector(2 downto 0);\n"
    } else {
        ""
    };
    let mut text = String::new();
    let _ = write!(
        text,
        "\
library ieee;
use ieee.std_logic_1164.all;
use work.flexpmu_fgp.all;

-- The PMU ({core}: {size} of {width} bits), its monitored
-- signals as one array port. Connect pmu_address, pmu_command and reset to
-- flexpmu_fgp_decode_hook's pmu_address, pmu_command and pmu_reset, and
-- monitor_out to flexpmu_fgp_execute_hook's monitor_value_in. Its reset is
-- synchronous: FlexGripPlus' host_reset lasts at least one clock edge.
{channels}entity {entity} is
  port (
    clk_in      : in  std_logic;
    reset       : in  std_logic;
    pmu_address : in  std_logic_vector(3 downto 0);
    pmu_command : in  std_logic_vector(1 downto 0);
{selector_port}    monitor_in  : in  flexpmu_monitor_array(0 to {last});
    monitor_out : out std_logic_vector({top} downto 0)
  );
end entity {entity};

architecture rtl of {entity} is
",
        core = core.name,
        size = if selector_port.is_empty() {
            format!("{counters} counters")
        } else {
            format!("{counters} selectable inputs, counters")
        },
        last = counters - 1,
        top = width - 1,
        channels = channels
            .iter()
            .map(|line| format!("--   {line}\n"))
            .collect::<String>(),
    );
    text += &crate::vhdl::component_declaration(core);
    text += "begin\n";
    text += &instance("pmu", core, &map)?;
    text += "end architecture rtl;\n";
    Ok(text)
}

fn readme(designs: &KitDesigns, pmu_counters: usize) -> String {
    let mut text = format!(
        "<!-- {GENERATED_MARKER} (`flexpmu export`): do not edit; the text is export/src/flexgripplus_readme.md. -->\n"
    );
    let (channel_table, channel_code) = channels::table_and_code();
    text += &README
        .replace("{new_signals}", integrate::SIGNALS)
        .replace("{decode_hook}", &designs.decode_hook.top().name)
        .replace("{execute_hook}", &designs.execute_hook.top().name)
        .replace("{pmu}", &designs.pmu.top().name)
        .replace("{channel_table}", &channel_table)
        .replace("{channel_code}", &channel_code)
        .replace("{counters}", &pmu_counters.to_string())
        .replace("{last}", &(pmu_counters - 1).to_string());
    let mut files = Vec::new();
    for design in [designs.decode_hook, designs.execute_hook, designs.pmu] {
        for module in &design.modules {
            let name = format!("`../{}.vhd`", module.name);
            if !files.contains(&name) {
                files.push(name);
            }
        }
    }
    text.replace("{files}", &files.join(", "))
}

/// The kit's testbench, its reference PMU counting as the SM slice's
/// channels do.
fn testbench() -> String {
    use flexpmu_hdl::pmu::ChannelMode;
    use flexpmu_hdl::sm::MONITOR_MAP;
    let bits: Vec<String> = MONITOR_MAP.iter().map(|s| s.width.to_string()).collect();
    let levels: Vec<&str> = MONITOR_MAP
        .iter()
        .map(|s| match s.mode {
            ChannelMode::Level => "true",
            ChannelMode::Toggle => "false",
        })
        .collect();
    TESTBENCH
        .replace("{channel_bits}", &bits.join(", "))
        .replace("{channel_levels}", &levels.join(", "))
}

const README: &str = include_str!("readme.md");
const STANDIN_PACKAGE: &str = include_str!("gpgpu_package_standin.vhd");
const TESTBENCH: &str = include_str!("tb_flexpmu_fgp_kit.vhd");
