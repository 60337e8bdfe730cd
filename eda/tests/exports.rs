//! The checked-in exports in generated_vhdl/ under the real tools.

mod common;

use std::path::PathBuf;

use common::{files, folder_files, text};

use flexpmu_export::{Language, Render as _};
use flexpmu_ir::registry::{self, DesignEntry};
use flexpmu_tools::equivalence::{prove_equivalent, Equivalence};
use flexpmu_tools::{check_verilog, ghdl, icarus, verilator};

/// Designs left out of the formal checks: the execute stage's eight
/// 16 x 16 multipliers (also inside the SM core) are beyond ABC's
/// `dprove` within minutes (it reports UNDECIDED). They are
/// cross-simulated instead (`eda/tests/verify.rs`: random vectors for the
/// execute stage, the appendix-A kernel for the SM core).
const NOT_PROVEN: &[&str] = &["execute", "sm-core"];

fn provable() -> impl Iterator<Item = &'static DesignEntry> {
    registry::exported().filter(|d| !NOT_PROVEN.contains(&d.name))
}

#[test]
fn verilog_exports_pass_verilator_icarus_and_yosys() {
    for design in registry::exported() {
        check_verilog(&files(design, Language::Verilog), design.module).unwrap();
    }
}

#[test]
fn vhdl_exports_analyse_and_elaborate_in_ghdl_08_and_93c() {
    for design in registry::exported() {
        for std in ["08", "93c"] {
            ghdl::check(&files(design, Language::Vhdl), &[design.module], std).unwrap();
        }
    }
}

/// The whole folder is one library: every VHDL file analysed into one
/// GHDL library (in two orders, both standards) with every top
/// elaborated, every Verilog file in one Icarus compile and one Verilator
/// lint per top; and no module is declared in two files.
#[test]
fn the_folder_compiles_as_one_library() {
    let tops: Vec<&str> = registry::exported().map(|d| d.module).collect();
    let vhdl = folder_files("vhd");
    let mut reversed = vhdl.clone();
    reversed.reverse();
    for std in ["08", "93c"] {
        ghdl::check(&vhdl, &tops, std).unwrap();
        ghdl::check(&reversed, &tops, std).unwrap();
    }
    let verilog = folder_files("v");
    for top in &tops {
        icarus::compile_check(&verilog, top).unwrap();
        verilator::lint(&verilog, top).unwrap();
    }
    // Each file declares exactly the module or entity it is named after.
    let mut declared: Vec<(String, PathBuf)> = Vec::new();
    for file in vhdl.iter().chain(&verilog) {
        let text = std::fs::read_to_string(file).unwrap();
        let names: Vec<String> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("module ")
                    .or_else(|| l.strip_prefix("entity "))
                    .and_then(|rest| rest.split([' ', '(']).next())
                    .map(str::to_string)
            })
            .collect();
        let stem = file.file_stem().unwrap().to_str().unwrap();
        assert_eq!(names, [stem], "{}", file.display());
        let language = file.extension().unwrap().to_str().unwrap().to_string();
        let key = format!("{stem}.{language}");
        assert!(
            !declared.iter().any(|(k, _)| *k == key),
            "{key} declared twice"
        );
        declared.push((key, file.clone()));
    }
    assert_eq!(vhdl.len(), verilog.len());
}

/// The VHDL export, synthesised by GHDL, is sequentially equivalent to the
/// Verilog export.
#[test]
fn verilog_and_vhdl_exports_are_equivalent() {
    for design in provable() {
        let verilog = text(design, Language::Verilog);
        let from_vhdl = ghdl::to_verilog(&files(design, Language::Vhdl), design.module).unwrap();
        assert_eq!(
            prove_equivalent(&verilog, &from_vhdl, design.module).unwrap(),
            Equivalence::Equivalent,
            "{}",
            design.name
        );
    }
}

/// The check has teeth: a one-bit change in the counter's increment is found.
#[test]
fn a_mutated_export_is_not_equivalent() {
    let verilog = text(registry::get("pmu"), Language::Verilog);
    let increment = "count_reg_q + 32'h1";
    assert!(verilog.contains(increment));
    let mutated = verilog.replace(increment, "count_reg_q + 32'h3");
    let verdict = prove_equivalent(&verilog, &mutated, "flexpmu_pmu").unwrap();
    assert!(matches!(verdict, Equivalence::Different(_)), "{verdict:?}");
}

/// The exporter itself is checked against rust-hdl's own Verilog
/// generator: both are proven equivalent for every design.
#[test]
fn exports_are_equivalent_to_rust_hdl_verilog() {
    for design in provable() {
        let exported_design = design.design().unwrap();
        let wrapped =
            flexpmu_export::wrap_rust_hdl_verilog(&exported_design, &design.rust_hdl_verilog());
        let verilog = text(design, Language::Verilog);
        assert_eq!(
            prove_equivalent(&wrapped, &verilog, design.module).unwrap(),
            Equivalence::Equivalent,
            "{}",
            design.name
        );
    }
}

/// The PMU with four inputs per channel, its selector held at `selector`
/// and the inputs beyond the first 16 at 0, behind the thesis PMU's ports.
fn selector_pmu_held_at(selector: u32) -> String {
    let s4 = registry::get("pmu-s4").design().unwrap();
    let mut text = s4.render(Language::Verilog, "");
    let inputs: String = (0..16).map(|i| format!(", monitor_in_{i}")).collect();
    let declarations: String = (0..16)
        .map(|i| format!("    input [31:0] monitor_in_{i};\n"))
        .collect();
    let connections: String = (0..64)
        .map(|i| {
            let source = if i < 16 {
                format!("monitor_in_{i}")
            } else {
                "32'h0".into()
            };
            format!(", .monitor_in_{i}({source})")
        })
        .collect();
    text += &format!(
        "module flexpmu_pmu(clock, reset, address, command{inputs}, monitor_out);\n\
         input clock; input reset; input [3:0] address; input [1:0] command;\n\
         {declarations}    output [31:0] monitor_out;\n\
         flexpmu_pmu_s4 s4(.clock(clock), .reset(reset), .address(address), .command(command), \
         .selector(3'd{selector}){connections}, .monitor_out(monitor_out));\n\
         endmodule\n"
    );
    text
}

/// Formal equivalence: the selector PMU held at selector 0 is the thesis
/// PMU (its selection registers never leave 0, no cycle is a switch);
/// held at selector 1 it is not (a PMUCNT switches counting to an input
/// at 0).
#[test]
fn a_selector_pmu_held_at_selector_0_is_the_thesis_pmu() {
    let thesis = text(registry::get("pmu"), Language::Verilog);
    assert_eq!(
        prove_equivalent(&thesis, &selector_pmu_held_at(0), "flexpmu_pmu").unwrap(),
        Equivalence::Equivalent
    );
    let verdict = prove_equivalent(&thesis, &selector_pmu_held_at(1), "flexpmu_pmu").unwrap();
    assert!(matches!(verdict, Equivalence::Different(_)), "{verdict:?}");
}

mod constructs {
    //! Constructs the product designs do not use, exported and proven
    //! equivalent to rust-hdl's own Verilog (and the VHDL export to both).
    use flexpmu_export::{self as export, Language, Render as _};
    use flexpmu_tools::equivalence::{prove_equivalent, Equivalence};
    use flexpmu_tools::{check_verilog, ghdl, Scratch};
    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    pub struct Constructs {
        pub clock: Signal<In, Clock>,
        pub a: Signal<In, Bits<8>>,
        pub b: Signal<In, Bits<8>>,
        pub sel: Signal<In, Bits<2>>,
        pub diff: Signal<Out, Bits<8>>,
        pub shifted: Signal<Out, Bits<4>>,
        pub narrowed: Signal<Out, Bits<8>>,
        pub chosen: Signal<Out, Bits<8>>,
        pub flags: Signal<Out, Bits<3>>,
        pub held: Signal<Out, Bits<8>>,
        acc: DFF<Bits<8>>,
    }

    impl Logic for Constructs {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, acc);
            // Subtraction (wraps), a truncated shift, a nested cast.
            self.diff.next = self.a.val() - self.b.val();
            self.shifted.next = bit_cast::<4, 8>(self.a.val() >> 2);
            self.narrowed.next = bit_cast::<8, 4>(bit_cast::<4, 8>(self.a.val()));
            // A match with a default arm.
            match self.sel.val().index() {
                0 => self.chosen.next = self.a.val(),
                1 => self.chosen.next = self.b.val(),
                2 => self.chosen.next = self.a.val() & self.b.val(),
                _ => self.chosen.next = !self.a.val(),
            }
            // Comparisons, reductions and single bits.
            self.flags.next = 0.into();
            if (self.a.val() < self.b.val()) && self.a.val().any() {
                self.flags.next = 1.into();
            } else if self.a.val().all() || (self.b.val().get_bit(7) && !self.b.val().get_bit(0)) {
                self.flags.next = 6.into();
            }
            self.acc.d.next = self.acc.q.val() + bit_cast::<8, 4>(self.a.val().get_bits::<4>(2));
            self.held.next = self.acc.q.val();
        }
    }

    #[test]
    fn unusual_constructs_export_equivalently() {
        let mut block = Constructs::default();
        block.connect_all();
        let design = flexpmu_ir::lower(&block, "flexpmu_constructs").unwrap();
        let verilog = design.render(Language::Verilog, "constructs");
        let stock = export::wrap_rust_hdl_verilog(&design, &generate_verilog(&block));
        assert_eq!(
            prove_equivalent(&stock, &verilog, "flexpmu_constructs").unwrap(),
            Equivalence::Equivalent,
            "{verilog}"
        );
        let scratch = Scratch::new("constructs").unwrap();
        let v = scratch.write("constructs.v", &verilog).unwrap();
        let vhd = scratch
            .write(
                "constructs.vhd",
                &design.render(Language::Vhdl, "constructs"),
            )
            .unwrap();
        check_verilog(std::slice::from_ref(&v), "flexpmu_constructs").unwrap();
        for std in ["08", "93c"] {
            ghdl::check(std::slice::from_ref(&vhd), &["flexpmu_constructs"], std).unwrap();
        }
        let from_vhdl = ghdl::to_verilog(&[vhd], "flexpmu_constructs").unwrap();
        assert_eq!(
            prove_equivalent(&verilog, &from_vhdl, "flexpmu_constructs").unwrap(),
            Equivalence::Equivalent
        );
    }
}

/// The FlexGripPlus kit's files in the order its README gives: the
/// stand-in package, the exported designs the wrappers instantiate, the
/// kit's package and wrappers, its testbench (`decode_wrapper` replaces
/// the checked-in decode wrapper).
fn kit_files(decode_wrapper: Option<PathBuf>) -> Vec<PathBuf> {
    let kit = common::folder().join("flexgripplus");
    let mut list = vec![kit.join("testbench/gpgpu_package_standin.vhd")];
    list.extend(kit_exports());
    list.push(kit.join("flexpmu_fgp.vhd"));
    list.push(decode_wrapper.unwrap_or_else(|| kit.join("flexpmu_fgp_decode_hook.vhd")));
    list.push(kit.join("flexpmu_fgp_execute_hook.vhd"));
    list.push(kit.join("flexpmu_fgp_pmu.vhd"));
    list.push(kit.join("testbench/tb_flexpmu_fgp_kit.vhd"));
    list
}

/// The kit's README analysis command, analysed as written: its
/// placeholders stand for the stand-in package, the exported files the
/// wrappers instantiate, and a stand-in `streaming_multiprocessor` that
/// uses the kit (as the edited FlexGripPlus file does) with the README's
/// 16 channel assignments as written; it elaborates with every component
/// bound (a file left out of the README's list is an error).
#[test]
fn flexgripplus_kit_analyses_in_its_readmes_order() {
    let kit = common::folder().join("flexgripplus");
    let readme = std::fs::read_to_string(kit.join("README.md")).unwrap();
    let section = &readme[readme.find("## Compiling").expect("a Compiling section")..];
    let block = section.split("```").nth(1).expect("an analysis command");
    let command = block.replace("\\\n", " ");
    // FlexGripPlus' streaming_multiprocessor stands in with the README's
    // channel assignments, exactly as written, in its architecture.
    let assignments = readme
        .split("```vhdl\n")
        .find(|block| block.contains("monitor_in(0) <="))
        .and_then(|block| block.split("```").next())
        .expect("the channel assignments' VHDL block");
    let scratch = tempfile::tempdir().unwrap();
    let standin_sm = scratch.path().join("streaming_multiprocessor.vhd");
    let template = std::fs::read_to_string(
        common::root().join("eda/tests/vhdl/streaming_multiprocessor_standin.vhd"),
    )
    .unwrap();
    assert!(template.contains("  -- CHANNEL ASSIGNMENTS\n"));
    std::fs::write(
        &standin_sm,
        template.replace("  -- CHANNEL ASSIGNMENTS\n", assignments),
    )
    .unwrap();
    for k in 0..16 {
        assert!(
            assignments.contains(&format!("monitor_in({k}) <=")),
            "the README drives no monitor_in({k})"
        );
    }
    let mut words = command.split_whitespace().peekable();
    assert_eq!(words.next(), Some("ghdl"));
    let mut files = Vec::new();
    let mut placeholder = String::new();
    for word in words {
        if word.starts_with('-') && placeholder.is_empty() {
            continue;
        }
        if word.starts_with('<') || !placeholder.is_empty() {
            placeholder = format!("{placeholder} {word}").trim().to_string();
            if !word.ends_with('>') {
                continue;
            }
            match placeholder.as_str() {
                "<FlexGripPlus' gpgpu_package.vhd>" => {
                    files.push(kit.join("testbench/gpgpu_package_standin.vhd"))
                }
                "<the exported files listed above>" => files.extend(kit_exports()),
                "<the other FlexGripPlus files>" => files.push(standin_sm.clone()),
                other => panic!("the README's command has an unknown placeholder {other}"),
            }
            placeholder.clear();
            continue;
        }
        let file = word.strip_prefix("flexgripplus/").expect("a kit file");
        files.push(kit.join(file));
    }
    assert!(placeholder.is_empty(), "unclosed placeholder {placeholder}");
    ghdl::check_with(
        &files,
        &["streaming_multiprocessor"],
        ghdl::FLEXGRIPPLUS_FLAGS,
    )
    .unwrap();
}

/// The exported files the kit's wrappers instantiate, as its README lists
/// them ("add their files ...: `../x.vhd`, ..."), leaves first.
fn kit_exports() -> Vec<PathBuf> {
    let readme = std::fs::read_to_string(common::folder().join("flexgripplus/README.md")).unwrap();
    let at = readme
        .find("files from the folder above to the project too:")
        .expect("the README's list of exported files");
    let paragraph = readme[at..].split("\n\n").next().unwrap();
    let list: Vec<PathBuf> = paragraph
        .split('`')
        .filter_map(|word| word.strip_prefix("../"))
        .map(|name| common::folder().join(name))
        .collect();
    assert!(
        list.len() > 5 && list.iter().all(|f| f.is_file()),
        "{list:?}"
    );
    list
}

/// The kit analyses with FlexGripPlus' GHDL flags, and its testbench
/// (fetch's four passes per warp instruction, FlexGripPlus' decode
/// handshake, stalls in read, execute and write, an asynchronous reset
/// during an IDL) finds every PMU command, every field read gets and
/// every lane's word as it works them out.
#[test]
fn flexgripplus_kit_testbench_passes() {
    let log = ghdl::run_self_checking(
        &kit_files(None),
        "tb_flexpmu_fgp_kit",
        ghdl::FLEXGRIPPLUS_FLAGS,
    )
    .unwrap();
    assert!(log.contains("tb_flexpmu_fgp_kit: PASSED"), "{log}");
}

/// The testbench catches a wrapper that presents an IDL as a 16-bit
/// write.
#[test]
fn flexgripplus_kit_testbench_catches_a_wrong_field() {
    let wrapper = common::folder().join("flexgripplus/flexpmu_fgp_decode_hook.vhd");
    let text = std::fs::read_to_string(&wrapper).unwrap();
    let mutated = text.replacen(
        "dest_data_type_out <= DT_U32",
        "dest_data_type_out <= DT_U16",
        1,
    );
    assert_ne!(text, mutated);
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("flexpmu_fgp_decode_hook.vhd");
    std::fs::write(&path, mutated).unwrap();
    let error = ghdl::run_self_checking(
        &kit_files(Some(path)),
        "tb_flexpmu_fgp_kit",
        ghdl::FLEXGRIPPLUS_FLAGS,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("FAILED at cycle"), "{error}");
}

/// The kit with event selectors, as `flexpmu export --pmu-config` writes
/// it for `selectors = 4`: its decode hook (`flexpmu_fgp_decode_hook_sel4`)
/// runs the kit's whole testbench in place of the kit's hook (every
/// PMEVENT there selects input 0), and with the variant's PMU it passes
/// each PMEVENT's selector: the counter counts the input selected, a
/// switch counts nothing, SEL7 on a PMU of 4 inputs is not executed.
#[test]
fn flexgripplus_kit_with_event_selectors_passes_its_testbenches() {
    use flexpmu_export::flexgripplus;
    use flexpmu_ir::pmu_variant::PmuVariant;

    let variant = PmuVariant::parse(
        "name = \"sel4\"\ncounters = 16\nselectors = 4\n",
        std::path::Path::new("sel4.toml"),
    )
    .unwrap();
    let pmu = variant.design().unwrap();
    let hook = variant
        .decode_hook()
        .expect("S = 4 has its own hook")
        .unwrap();
    assert_eq!(hook.top().name, "flexpmu_decode_hook_sel4");
    let scratch = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = scratch.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let hook_file = write("hook.vhd", &hook.render(Language::Vhdl, "the S = 4 hook"));
    let hook_wrapper = flexgripplus::decode_hook_variant_wrapper(&hook, 4).unwrap();
    assert!(hook_wrapper
        .text
        .contains("pmu_selector          : out std_logic_vector(2 downto 0);"));
    let hook_wrapper = write("flexpmu_fgp_decode_hook_sel4.vhd", &hook_wrapper.text);

    // The kit's testbench with the selector hook.
    let kit_tb = common::folder().join("flexgripplus/testbench/tb_flexpmu_fgp_kit.vhd");
    let tb = std::fs::read_to_string(kit_tb).unwrap();
    let with_sel4 = tb.replacen(
        "entity work.flexpmu_fgp_decode_hook\n",
        "entity work.flexpmu_fgp_decode_hook_sel4\n",
        1,
    );
    assert_ne!(tb, with_sel4);
    let mut list = kit_files(Some(hook_wrapper.clone()));
    let at = list.iter().position(|p| *p == hook_wrapper).unwrap();
    list.insert(at, hook_file.clone());
    *list.last_mut().unwrap() = write("tb_flexpmu_fgp_kit.vhd", &with_sel4);
    let log =
        ghdl::run_self_checking(&list, "tb_flexpmu_fgp_kit", ghdl::FLEXGRIPPLUS_FLAGS).unwrap();
    assert!(log.contains("tb_flexpmu_fgp_kit: PASSED"), "{log}");

    // The selector hook and the variant's PMU together.
    let pmu_wrapper = flexgripplus::pmu_variant_wrapper(&pmu, "sel4.toml", &[]).unwrap();
    let kit = common::folder().join("flexgripplus");
    let list = vec![
        kit.join("testbench/gpgpu_package_standin.vhd"),
        kit.join("flexpmu_fgp.vhd"),
        hook_file,
        write("pmu.vhd", &pmu.render(Language::Vhdl, "the S = 4 PMU")),
        hook_wrapper,
        write("flexpmu_fgp_pmu_sel4.vhd", &pmu_wrapper.text),
        common::root().join("eda/tests/vhdl/tb_flexpmu_fgp_selectors.vhd"),
    ];
    let log = ghdl::run_self_checking(&list, "tb_flexpmu_fgp_selectors", ghdl::FLEXGRIPPLUS_FLAGS)
        .unwrap();
    assert!(log.contains("tb_flexpmu_fgp_selectors: PASSED"), "{log}");
}

/// The SM core built with a monitor map (taps up the hierarchy, a slice,
/// a level channel, today's channels moved) is Verilog that Verilator,
/// Icarus and Yosys accept and VHDL that GHDL analyses and elaborates.
#[test]
fn a_core_built_with_a_monitor_map_passes_the_tools() {
    use flexpmu_eda::testbench::ExportFiles;
    use flexpmu_hdl::ChannelMode;
    use flexpmu_ir::monitor_map::{MapEntry, MonitorMap};
    use flexpmu_ir::monitor_wiring::sm_core_variant;
    use flexpmu_tools::Scratch;

    let mut map = MonitorMap::today();
    for (k, signal, mode) in [
        (0, "sm.decode.hook.stalled.q", ChannelMode::Level),
        (3, "sm.execute.alus_2.result", ChannelMode::Toggle),
        (6, "sm.instruction_in[63:32]", ChannelMode::Toggle),
        (9, "sm.decode.decoder.op", ChannelMode::Toggle),
        (12, "map.sm_warp_pc", ChannelMode::Toggle),
        (13, "sm.result_0", ChannelMode::Toggle),
    ] {
        map.channels[k] = MapEntry {
            signal: signal.into(),
            mode,
            line: 0,
        };
    }
    map.path = Some("wired.toml".into());
    let (module, design) = sm_core_variant(&map).unwrap();
    let scratch = Scratch::new("monitor-map").unwrap();
    let files = ExportFiles::write(scratch.path(), &design, "a monitor map's core").unwrap();
    check_verilog(std::slice::from_ref(&files.verilog), &module).unwrap();
    for std in ["08", "93c"] {
        ghdl::check(std::slice::from_ref(&files.vhdl), &[&module], std).unwrap();
    }
}
