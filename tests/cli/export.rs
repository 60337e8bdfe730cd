//! The `flexpmu` binary end to end: `asm`, `export` (checked-in exports current, stale files named) and PMU variants exported and synthesised.

use std::path::Path;
use std::process::Command;

use crate::common::{example, flexpmu, stderr, stdout, temp, write};

#[test]
fn asm_writes_a_rom_ghdl_accepts_and_disasm_reads_it_back() {
    let dir = temp();
    let out = flexpmu(
        &[
            "asm",
            &example("appendix_a.sass"),
            "-o",
            "TP_instructions.vhd",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ghdl = Command::new("ghdl")
        .args(["-a", "--std=08", "TP_instructions.vhd"])
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|_| {
            panic!("`ghdl` was not found: install it with `apt-get install -y ghdl`")
        });
    assert!(
        ghdl.status.success(),
        "{}",
        String::from_utf8_lossy(&ghdl.stderr)
    );

    let out = flexpmu(&["disasm", "TP_instructions.vhd"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));

    // The ROM is not replaced without --force.
    let again = flexpmu(
        &[
            "asm",
            &example("appendix_a.sass"),
            "-o",
            "TP_instructions.vhd",
        ],
        dir.path(),
    );
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn checked_in_exports_are_current() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = flexpmu(
        &["export", "--check", "--rust", "generated_rust/src/designs"],
        repo,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// Generated Rust that differs from what the designs print is named by
/// `export --check --rust`.
#[test]
fn export_check_names_stale_generated_rust() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = temp();
    let designs = dir.path().join("designs");
    std::fs::create_dir(&designs).unwrap();
    for entry in std::fs::read_dir(repo.join("generated_rust/src/designs")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, designs.join(path.file_name().unwrap())).unwrap();
    }
    let stale = designs.join("flexpmu_pmu.rs");
    let text = std::fs::read_to_string(&stale).unwrap();
    std::fs::write(
        &stale,
        text.replacen("pub const NODES", "pub const  NODES", 1),
    )
    .unwrap();
    let out = flexpmu(
        &["export", "--check", "--rust", designs.to_str().unwrap()],
        repo,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("designs/flexpmu_pmu.rs")
            && !stderr(&out).contains("flexpmu_sm_core.rs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn export_check_names_stale_files_and_export_respects_foreign_files() {
    let dir = temp();
    let out = flexpmu(
        &["export", "--out", "x", "--design", "execute_hook"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let vhd = dir.path().join("x/flexpmu_execute_hook.vhd");
    let text = std::fs::read_to_string(&vhd).unwrap();
    std::fs::write(&vhd, text.replace("result_out", "result_o")).unwrap();
    let out = flexpmu(
        &[
            "export",
            "--out",
            "x",
            "--design",
            "execute_hook",
            "--check",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("x/flexpmu_execute_hook.vhd"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("flexpmu_execute_hook.v\n"),
        "{}",
        stderr(&out)
    );
    // An edited file is no longer what flexpmu wrote: regenerating it
    // takes --force...
    let out = flexpmu(
        &["export", "--out", "x", "--design", "execute_hook"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("x/flexpmu_execute_hook.vhd"),
        "{}",
        stderr(&out)
    );
    let out = flexpmu(
        &[
            "export",
            "--out",
            "x",
            "--design",
            "execute_hook",
            "--force",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // ...and so does a file someone else wrote.
    std::fs::write(&vhd, "-- my hand-written entity\n").unwrap();
    let out = flexpmu(
        &["export", "--out", "x", "--design", "execute_hook"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&vhd).unwrap(),
        "-- my hand-written entity\n"
    );
    let out = flexpmu(&["export", "--design", "nonesuch"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'nonesuch' for '--design <NAME>'")
            && stderr(&out).contains("possible values: pmu, decode-hook"),
        "{}",
        stderr(&out)
    );
}

/// A variant with event selectors comes with the decode hook that passes
/// them: `export --pmu-config` writes it (Verilog and VHDL) and its kit
/// wrapper with `pmu_selector` beside the PMU's (eda/tests/exports.rs runs
/// the two under GHDL).
#[test]
fn pmu_config_with_selectors_exports_the_hook_that_passes_them() {
    let dir = temp();
    write(
        dir.path(),
        "s4.toml",
        "counters = 16\nselectors = 4\nname = \"s4\"\n",
    );
    let out = flexpmu(
        &["export", "--out", "hdl", "--pmu-config", "s4.toml"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hdl = dir.path().join("hdl");
    for file in [
        "flexpmu_pmu_s4.v",
        "flexpmu_decode_hook_sel4.v",
        "flexpmu_decode_hook_sel4.vhd",
    ] {
        assert!(hdl.join(file).is_file(), "{file}: {}", stdout(&out));
    }
    let read = |name: &str| std::fs::read_to_string(hdl.join("flexgripplus").join(name)).unwrap();
    let hook = read("flexpmu_fgp_decode_hook_sel4.vhd");
    assert!(
        hook.contains("entity flexpmu_fgp_decode_hook_sel4 is"),
        "{hook}"
    );
    assert!(hook.contains("pmu_selector => pmu_selector"), "{hook}");
    let pmu = read("flexpmu_fgp_pmu_s4.vhd");
    assert!(
        pmu.contains("pmu_selector : in  std_logic_vector(2 downto 0);"),
        "{pmu}"
    );
    // S = 1 needs no hook of its own: the kit's serves.
    write(dir.path(), "s1.toml", "counters = 16\nname = \"s1\"\n");
    let out = flexpmu(
        &["export", "--out", "one", "--pmu-config", "s1.toml"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("decode_hook"), "{}", stdout(&out));
}

/// `export --pmu-config` writes the variant beside the checked-in exports
/// (the modules they share byte for byte), the folder still compiles as
/// one library with the FlexGripPlus kit and the variant's wrapper under
/// FlexGripPlus' GHDL flags, a plain export leaves the variant alone, and
/// `synth` takes the same file.
#[test]
fn pmu_config_exports_and_synthesises_a_variant() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = repo.join("examples/flexgripplus_pmu.toml");
    let config = config.to_str().unwrap();
    let dir = temp();
    let out_dir = dir.path().join("hdl");
    let out = flexpmu(
        &["export", "--out", "hdl", "--pmu-config", config],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("hdl/flexpmu_pmu_fgp.vhd"),
        "{}",
        stdout(&out)
    );
    let mut variant_only = Vec::new();
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let path = entry.unwrap().path();
        // The folder's manifest records what was written there.
        if path.is_dir() || path.ends_with(".flexpmu-manifest") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        match std::fs::read_to_string(repo.join("generated_vhdl").join(path.file_name().unwrap())) {
            Ok(checked_in) => assert_eq!(text, checked_in, "{}", path.display()),
            Err(_) => {
                assert!(text.contains("flexpmu export --pmu-config flexgripplus_pmu.toml"));
                variant_only.push(path.file_name().unwrap().to_str().unwrap().to_string());
            }
        }
    }
    variant_only.sort();
    // The variant's top and the converter the checked-in exports lack
    // (the SM core has the 1-bit level and 2-bit toggle ones).
    assert_eq!(
        variant_only,
        [
            "flexpmu_pmu_fgp.v",
            "flexpmu_pmu_fgp.vhd",
            "flexpmu_toggle_converter_w5.v",
            "flexpmu_toggle_converter_w5.vhd"
        ]
    );
    // Beside the whole folder and the kit.
    for entry in std::fs::read_dir(repo.join("generated_vhdl")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, out_dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let kit = repo.join("generated_vhdl/flexgripplus");
    let mut vhdl = vec![kit.join("testbench/gpgpu_package_standin.vhd")];
    let mut verilog = Vec::new();
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let path = entry.unwrap().path();
        match path.extension().and_then(|e| e.to_str()) {
            Some("vhd") => vhdl.push(path),
            Some("v") => verilog.push(path),
            _ => {}
        }
    }
    vhdl.push(kit.join("flexpmu_fgp.vhd"));
    vhdl.push(out_dir.join("flexgripplus/flexpmu_fgp_pmu_fgp.vhd"));
    flexpmu_tools::ghdl::check_with(
        &vhdl,
        &[
            "flexpmu_fgp_pmu_fgp",
            "flexpmu_pmu_fgp",
            "flexpmu_pmu",
            "flexpmu_sm_core",
        ],
        flexpmu_tools::ghdl::FLEXGRIPPLUS_FLAGS,
    )
    .unwrap();
    flexpmu_tools::verilator::lint(&verilog, "flexpmu_pmu_fgp").unwrap();
    // A whole export into the folder (VHDL only) regenerates its own
    // files, removes a module it wrote and no longer generates (one the
    // folder's manifest lists: here a copy of the PMU under another
    // name), and leaves the variant's files, the Verilog and a user's
    // file that merely starts like an export alone.
    let stale = out_dir.join("flexpmu_renamed_block.vhd");
    std::fs::copy(out_dir.join("flexpmu_output_mux.vhd"), &stale).unwrap();
    let manifest = out_dir.join(".flexpmu-manifest");
    let entry = std::fs::read_to_string(&manifest)
        .unwrap()
        .lines()
        .find(|l| l.ends_with(" flexpmu_output_mux.vhd"))
        .unwrap()
        .split(' ')
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
        + " export flexpmu_renamed_block.vhd";
    let mut listed = std::fs::read_to_string(&manifest).unwrap();
    listed.push_str(&format!("{entry}\n"));
    std::fs::write(&manifest, listed).unwrap();
    let users = write(
        &out_dir,
        "flexpmu_mine.vhd",
        "-- Generated by flexpmu (`flexpmu export`) from the rust-hdl design in hdl/: do not edit.\n",
    );
    let out = flexpmu(
        &[
            "export",
            "--out",
            "hdl",
            "--testbenches",
            "tb",
            "--lang",
            "vhdl",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = stdout(&out);
    let removed: Vec<&str> = log.lines().filter(|l| l.starts_with("removed")).collect();
    assert_eq!(
        removed,
        ["removed hdl/flexpmu_renamed_block.vhd (no longer generated)"]
    );
    assert!(!stale.exists());
    assert!(users.exists());
    for kept in [
        "flexpmu_toggle_converter_w5.vhd",
        "flexpmu_pmu_fgp.vhd",
        "flexpmu_pmu_fgp.v",
        "flexpmu_pmu.v",
    ] {
        assert!(out_dir.join(kept).exists(), "{kept}");
    }

    // 16 counters of 34 bits (count and state), the 32-bit toggle
    // channels' previous values (5 x 32), the 5- and 2-bit ones; the
    // level channels keep none.
    let out = flexpmu(&["synth", "--pmu-config", config, "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["flip_flops"], 16 * 34 + 5 * 32 + 5 + 2);
    assert_eq!(json["top"], "flexpmu_pmu_fgp");

    let bad = write(
        dir.path(),
        "bad.toml",
        "counters = 4\n\n[[channel]]\nindex = 4\n",
    );
    let out = flexpmu(
        &[
            "export",
            "--out",
            "hdl",
            "--pmu-config",
            bad.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.toml:4: index = 4: expected 0 to 3"),
        "{}",
        stderr(&out)
    );
}

/// A cuobjdump listing (the layout of FlexGripPlus' applications'
/// `.sass` files) is disassembled by its words, each instruction's text
/// kept; one read in the wrong word order is refused with its line.
#[test]
fn disasm_reads_a_cuobjdump_listing_by_its_words() {
    let dir = temp();
    write(
        dir.path(),
        "k.sass",
        "\tcode for sm_10\n\
         \t/*0000*/     /*0x30020009c4100780*/ \tSHL R2, R0, 0x2;\n\
         \t/*0008*/     /*0xb0000204*/ \tFADD32 R1, R1, R0;\n\
         \t/*000c*/     /*0x3000000300000780*/ \tRET;\n",
    );
    let out = flexpmu(&["disasm", "k.sass"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "30020009 c4100780  SHL R2, R0, 0x2",
        "b0000204           FADD32 R1, R1, R0  (outside the SM slice's subset; FlexGripPlus: FADD)  # FADD32 R1, R1, R0",
        "30000003 00000780  RET",
    ] {
        assert!(text.contains(line), "{line} in:\n{text}");
    }
    write(
        dir.path(),
        "swapped.sass",
        "/*0000*/ /*0xc410078030020009*/ SHL R2, R0, 0x2;\n",
    );
    let out = flexpmu(&["disasm", "swapped.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("swapped.sass:1: 16 hex digits, but bit 0 of the first word 0xc4100780 says a 32-bit instruction"),
        "{}",
        stderr(&out)
    );
}

/// `flexpmu asm` takes instructions outside the subset in cuobjdump's
/// syntax, beside the subset's own mnemonics, and refuses a line neither
/// reads, naming it.
#[test]
fn asm_takes_cuobjdump_syntax_beside_the_subset() {
    let dir = temp();
    write(
        dir.path(),
        "k.sass",
        "SHL R2, R0, 0x2\n\
         FMUL R1 (C0.NEU), R1, c [0x1] [0x1]   # cuobjdump's syntax\n\
         MVI R0, 0x41c00000;\n\
         FADD32 R1, R1, R0\n\
         RET\n",
    );
    let out = flexpmu(&["asm", "k.sass"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let words: Vec<String> = stdout(&out)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.len() == 8 || w.starts_with("0x"))
        .map(|w| w.trim_start_matches("0x").to_ascii_lowercase())
        .collect();
    assert_eq!(
        words,
        [
            "30020009", "c4100780", "c0810205", "00400680", "10008001", "041c0003", "b0000204",
            "30000003", "00000780"
        ],
        "{}",
        stdout(&out)
    );
    write(
        dir.path(),
        "bad.sass",
        "SHL R2, R0, 0x2\nFMUL R1, R1, q[0x1]\n",
    );
    let out = flexpmu(&["asm", "bad.sass"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("bad.sass:2"), "{}", stderr(&out));
}
