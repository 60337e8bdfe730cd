//! `flexpmu fgp app` and `flexpmu fgp apps`: FlexGripPlus' applications
//! run as its testbench runs them, as a user would: the run held to the
//! result file it ships, the read-back written whole and never over the
//! user's files, and every mistake named before anything runs.
//!
//! They take FlexGripPlus from `FLEXGRIPPLUS` or `../shared/flexgripplus`
//! and the plugin from `GHDL_YOSYS_PLUGIN` or `../shared/ghdl-yosys-plugin`;
//! without them they say so and pass (but under `CI=true`).

mod common;

use std::path::Path;
use std::process::Output;

use common::*;

fn fgp(args: &[&str], cwd: &Path, tree: &Path) -> Output {
    let plugin = plugin().expect("the plugin beside FlexGripPlus");
    std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
        .arg("fgp")
        .args(args)
        .env("FLEXGRIPPLUS", tree)
        .env("GHDL_YOSYS_PLUGIN", plugin)
        .env("FLEXPMU_CACHE", workspace().join("target/flexpmu-cache"))
        .current_dir(cwd)
        .output()
        .expect("run flexpmu")
}

#[test]
fn an_application_runs_on_the_imported_rtl_and_leaves_its_shipped_result() {
    let (Some(tree), Some(_)) = (flexgripplus(), plugin()) else {
        return;
    };
    let dir = temp();
    let app = dir.path().join("Reduction");
    copy_tree(&tree.join("applications/Reduction"), &app);
    let app = app.to_str().unwrap();
    let o = fgp(
        &[
            "app",
            app,
            "--on",
            "imported",
            "--on",
            "imported",
            "--stock",
            "--json",
            "--read-back",
            "rdata.log",
        ],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // `--on imported` twice runs it once.
    assert_eq!(json["runs"].as_array().unwrap().len(), 1);
    let run = &json["runs"][0];
    assert_eq!(run["runner"], "imported-rtl");
    assert_eq!(run["cycles"], 33_704);
    assert_eq!(run["against_result"]["equal"], 3074);
    assert_eq!(run["against_result"]["compared"], 3074);
    assert_eq!(
        json["launch"]["params"],
        serde_json::json!([0, 4096, 32, 32])
    );
    // The read-back is the testbench's log, byte for byte.
    let shipped =
        std::fs::read_to_string(tree.join("applications/Reduction/gpgpu_rdata.log")).unwrap();
    let ours = std::fs::read_to_string(dir.path().join("rdata.log")).unwrap();
    assert_eq!(ours, shipped);
    // Not again without --force, and never over the result file it reads.
    write(dir.path(), "rdata.log", "mine\n");
    let o = fgp(
        &["app", app, "--on", "imported", "--read-back", "rdata.log"],
        dir.path(),
        &tree,
    );
    refused(&o, "rdata.log");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rdata.log")).unwrap(),
        "mine\n"
    );
    let result = format!("{app}/gpgpu_rdata.log");
    let o = fgp(
        &[
            "app",
            app,
            "--on",
            "imported",
            "--read-back",
            &result,
            "--force",
        ],
        dir.path(),
        &tree,
    );
    refused(&o, "is the result file, which this command reads");
    assert_eq!(std::fs::read_to_string(&result).unwrap(), shipped);
    // The reference ISS does what the imported RTL does, write for write,
    // and leaves the testbench's log.
    let o = fgp(
        &[
            "app", app, "--on", "iss", "--on", "imported", "--stock", "--json",
        ],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let iss = &json["iss"];
    assert_eq!(iss["warp_instructions"], 317);
    assert_eq!(iss["against_result"]["equal"], 3074);
    assert_eq!(iss["against"][0][0], "imported-rtl");
    let held = &iss["against"][0][1];
    assert_eq!(held["register_writes"], 7520);
    assert_eq!(held["register_writes_equal"], 7520);
    assert_eq!(held["threads_differing"], 0);
    let o = fgp(
        &["app", app, "--on", "iss", "--read-back", "iss.log"],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains(
            "reference ISS: 317 warp instructions, read-back = result file: 3074 of 3074 words"
        ),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("the runs agree"), "{}", stdout(&o));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("iss.log")).unwrap(),
        shipped
    );
    // The table says what ran and how it compares.
    let o = fgp(
        &["app", app, "--on", "imported", "--stock"],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("┆ 33704  ┆"), "{out}");
    assert!(out.contains("3074 of 3074 words"), "{out}");
    assert!(
        out.contains("note: the configuration names BENCH_CMEMREG4"),
        "{out}"
    );
}

#[test]
fn mistakes_are_named_before_anything_runs() {
    let (Some(tree), Some(_)) = (flexgripplus(), plugin()) else {
        return;
    };
    let dir = temp();
    let apps = tree.join("applications");
    let reduction = apps.join("Reduction");
    let reduction = reduction.to_str().unwrap();
    let o = fgp(&["app", reduction, "--force"], dir.path(), &tree);
    refused(&o, "--force replaces --read-back's file");
    let o = fgp(
        &["app", reduction, "--on", "imported", "--timeout", "5"],
        dir.path(),
        &tree,
    );
    refused(&o, "--timeout bounds the GHDL run");
    let o = fgp(
        &["app", reduction, "--on", "ghdl", "--ghdl-plugin", "x"],
        dir.path(),
        &tree,
    );
    refused(&o, "--ghdl-plugin imports FlexGripPlus' RTL");
    let o = fgp(&["app"], dir.path(), &tree);
    refused(&o, "give the application's folder");
    let o = fgp(&["app", reduction, "--max-cycles", "0"], dir.path(), &tree);
    refused(&o, "--max-cycles 0 runs nothing");
    let o = fgp(
        &["app", reduction, "--on", "ghdl", "--timeout", "0"],
        dir.path(),
        &tree,
    );
    refused(&o, "--timeout 0 stops GHDL");
    let o = fgp(&["app", dir.path().to_str().unwrap()], dir.path(), &tree);
    refused(&o, "no pick_bench.vhd: not an application's folder");
    // Built for 32 cores: refused, not run on the 8-core build.
    let scalar = apps.join("Scalar_product_vectors");
    let o = fgp(
        &["app", scalar.to_str().unwrap(), "--on", "imported"],
        dir.path(),
        &tree,
    );
    refused(&o, "built with 32 cores");
    // ... but the ISS runs it on the cores it is written for (and gives up
    // within the cycle bound: it does not end).
    let o = fgp(
        &[
            "app",
            scalar.to_str().unwrap(),
            "--on",
            "iss",
            "--max-cycles",
            "20000",
        ],
        dir.path(),
        &tree,
    );
    refused(
        &o,
        "the kernel has not finished after 20000 warp instructions",
    );
    let vector_add = apps.join("VectorAdd_integer");
    let o = fgp(
        &["app", vector_add.to_str().unwrap(), "--on", "iss"],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("reference ISS: 12 warp instructions"),
        "{}",
        stdout(&o)
    );
    // A launch that is not VHDL GHDL takes: its file and line.
    let broken = dir.path().join("broken");
    copy_tree(&apps.join("Reduction"), &broken);
    let pick = broken.join("pick_bench.vhd");
    let text = std::fs::read_to_string(&pick).unwrap();
    let text = text.replace(
        "BENCH_K_BLKX : std_logic_vector(15 downto 0) := x\"0020\";",
        "BENCH_K_BLKX : std_logic_vector(15 downto 0) := ;",
    );
    std::fs::write(&pick, text).unwrap();
    let o = fgp(
        &["app", broken.to_str().unwrap(), "--on", "imported"],
        dir.path(),
        &tree,
    );
    refused(&o, "pick_bench.vhd:22: expected a value");
    // A result file that is not one.
    write(&broken, "bad.log", "00000 00000222\nnot a word\n");
    std::fs::copy(tree.join("applications/Reduction/pick_bench.vhd"), &pick).unwrap();
    let o = fgp(
        &[
            "app",
            broken.to_str().unwrap(),
            "--on",
            "imported",
            "--result",
            "broken/bad.log",
        ],
        dir.path(),
        &tree,
    );
    refused(&o, "bad.log:2: expected `AAAAA DDDDDDDD`");
}

#[test]
fn the_applications_are_listed_with_their_launches() {
    let (Some(tree), Some(_)) = (flexgripplus(), plugin()) else {
        return;
    };
    let dir = temp();
    let o = fgp(&["apps"], dir.path(), &tree);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("22 applications, 21 read; the checkout is built with 8 cores"),
        "{out}"
    );
    let reduction = out.lines().find(|l| l.contains("│ Reduction ")).unwrap();
    for cell in [
        "┆ 8 ",
        "┆ 1×1 ",
        "┆ 32×1×1 ",
        "┆ 136 ",
        "┆ 8612 ",
        "┆ 3074 ",
        "┆ gpgpu_rdata.log",
    ] {
        assert!(reduction.contains(cell), "{cell} in {reduction}");
    }
    assert!(
        out.contains("\nTranspose: ") && out.contains("declared a second time"),
        "{out}"
    );
    let o = fgp(&["apps", "--json"], dir.path(), &tree);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 22);
}

#[test]
fn the_sms_signals_rank_by_toggle_activity_beside_the_kits_channels() {
    let (Some(tree), Some(_)) = (flexgripplus(), plugin()) else {
        return;
    };
    let dir = temp();
    let apps = tree.join("applications");
    let (reduction, vector) = (apps.join("Reduction"), apps.join("VectorAdd_float"));
    let (reduction, vector) = (reduction.to_str().unwrap(), vector.to_str().unwrap());
    let o = fgp(
        &[
            "toggles", reduction, vector, "--stock", "--json", "--top", "20",
        ],
        dir.path(),
        &tree,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let runs = json["applications"].as_array().unwrap();
    assert_eq!(
        (runs[0]["cycles"].clone(), runs[1]["cycles"].clone()),
        (33_704.into(), 2039.into())
    );
    let top = json["top"].as_array().unwrap();
    assert_eq!(top.len(), 20);
    assert_eq!(
        top[0]["names"][0],
        "ustreamingmultiprocessor.uwarpunit.uwarpscheduler.warp_scheduler_state_machine"
    );
    let rates: Vec<f64> = top.iter().map(|t| t["rate"].as_f64().unwrap()).collect();
    assert!(rates.windows(2).all(|p| p[0] >= p[1]), "{rates:?}");
    // No net the import or GHDL's synthesis named, nor a flip-flop the
    // import made for one.
    for t in top {
        let name = t["names"][0].as_str().unwrap();
        for part in name.split('.') {
            let synthesised = part.starts_with("auto_")
                || part
                    .strip_prefix("s_")
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
            assert!(!synthesised, "{name}");
        }
    }
    let channels = json["channels"].as_array().unwrap();
    assert_eq!(channels.len(), 16);
    assert_eq!(channels[0]["monitor"], "warp_issue");
    assert_eq!(
        channels[0]["signals"][0][0],
        "ustreamingmultiprocessor.pipeline_dec_done"
    );
    // The table.
    let o = fgp(&["toggles", reduction, "--stock"], dir.path(), &tree);
    let out = stdout(&o);
    assert!(out.contains("the 16 most active of"), "{out}");
    assert!(out.contains("│ 0       ┆ warp_issue"), "{out}");
    // Refused before anything runs.
    let o = fgp(&["toggles", reduction, "--top", "0"], dir.path(), &tree);
    refused(&o, "--top 0 shows nothing");
    let scalar = apps.join("Scalar_product_vectors");
    let o = fgp(
        &["toggles", reduction, scalar.to_str().unwrap()],
        dir.path(),
        &tree,
    );
    refused(&o, "built with 32 cores");
}
