//! Waveforms open ready to read: beside every waveform `run` (VCD and
//! FST) and `faults run --fault` write, a GTKWave save file and a Surfer
//! command file that name only signals the waveform has (read back with
//! wellen), and GTKWave, run headless, shows every trace the save file
//! lists. A save file flexpmu did not write is left alone.

mod common;

use std::path::Path;
use std::process::Command;

use common::{example, flexpmu, stderr, stdout, temp, write};
use flexpmu_sim::waveform::save_files::declared_signals;

const GTKWAVE: &str =
    "install GTKWave and Xvfb: apt-get install gtkwave xvfb xauth (scripts/test does)";

/// The signal paths a `.gtkw` lists (its trace lines, bit ranges and
/// aliases taken off).
fn gtkw_paths(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(['@', '-', '[']))
        .map(|l| {
            let path = match l.strip_prefix("+{") {
                Some(rest) => rest.split_once("} ").unwrap().1,
                None => l,
            };
            path.split('[').next().unwrap().to_string()
        })
        .collect()
}

/// What GTKWave shows for `save` (run headless under Xvfb).
fn gtkwave_displays(save: &Path, dir: &Path) -> Vec<String> {
    let script = write(
        dir,
        "list.tcl",
        "puts \"DISPLAYED: [gtkwave::getDisplayedSignals]\"\ngtkwave::/File/Quit\n",
    );
    let out = Command::new("xvfb-run")
        .args(["-a", "gtkwave", "-S"])
        .arg(&script)
        .arg(save)
        .output()
        .unwrap_or_else(|e| panic!("xvfb-run: {e}: {GTKWAVE}"));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .find(|l| l.starts_with("DISPLAYED:"))
        .unwrap_or_else(|| panic!("GTKWave listed nothing ({GTKWAVE}):\n{text}"));
    line["DISPLAYED:".len()..]
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn check_save_files(wave: &Path, dir: &Path) {
    let gtkw = std::fs::read_to_string(wave.with_extension("gtkw")).unwrap();
    let sucl = std::fs::read_to_string(wave.with_extension("sucl")).unwrap();
    let declared: Vec<String> = declared_signals(wave)
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let listed = gtkw_paths(&gtkw);
    // The clock, the PMU's 3 ports, 16 x (state, count), 16 channels and
    // the handshakes.
    assert!(listed.len() > 3 + 32 + 16, "{listed:?}");
    for path in &listed {
        assert!(
            declared.contains(path),
            "{path} is not in {}",
            wave.display()
        );
    }
    let added: Vec<&str> = sucl
        .lines()
        .filter_map(|l| l.strip_prefix("variable_add "))
        .collect();
    assert_eq!(added, listed);
    assert!(gtkw.contains("+{CNT12 sm_global_store} sm.pmu.counters_12.count[31:0]"));
    assert_eq!(
        gtkwave_displays(&wave.with_extension("gtkw"), dir).len(),
        listed.len()
    );
}

#[test]
fn run_and_a_faults_waveform_come_with_save_files_gtkwave_opens() {
    let dir = temp();
    for wave in ["run.vcd", "run.fst"] {
        let option = if wave.ends_with("fst") {
            "--fst"
        } else {
            "--vcd"
        };
        let out = flexpmu(
            &["run", &example("appendix_a.sass"), option, wave],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stdout(&out).contains(&format!(
            "gtkwave {}",
            Path::new(wave).with_extension("gtkw").display()
        )));
        check_save_files(&dir.path().join(wave), dir.path());
    }
    let out = flexpmu(
        &[
            "faults",
            "run",
            &example("appendix_a.sass"),
            "--fault",
            "sm.decode.fields_op.q[0]:sa1",
            "--vcd",
            "fault.vcd",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check_save_files(&dir.path().join("fault.vcd"), dir.path());
}

#[test]
fn a_save_file_flexpmu_did_not_write_is_kept() {
    let dir = temp();
    let mine = "[*] my own view\nsm.clock\n";
    write(dir.path(), "run.gtkw", mine);
    let out = flexpmu(
        &["run", &example("appendix_a.sass"), "--vcd", "run.vcd"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "run.gtkw not written: run.gtkw already exists and was not written by flexpmu"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("run.gtkw")).unwrap(),
        mine
    );
    // Its own .sucl is written, and replaced by a second run.
    assert!(dir.path().join("run.sucl").is_file());
    let again = flexpmu(
        &["run", &example("appendix_a.sass"), "--vcd", "run.vcd"],
        dir.path(),
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(!stderr(&again).contains("run.sucl not written"));
    // With --force, the user's file is replaced.
    let forced = flexpmu(
        &[
            "run",
            &example("appendix_a.sass"),
            "--vcd",
            "run.vcd",
            "--force",
        ],
        dir.path(),
    );
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert!(std::fs::read_to_string(dir.path().join("run.gtkw"))
        .unwrap()
        .starts_with("[*] Generated by flexpmu"));
}
