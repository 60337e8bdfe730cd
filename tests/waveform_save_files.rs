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
        .filter(|l| !l.starts_with(['@', '-', '[', '*']))
        .map(|l| {
            let path = match l.strip_prefix("+{") {
                Some(rest) => rest.split_once("} ").unwrap().1,
                None => l,
            };
            path.split('[').next().unwrap().to_string()
        })
        .collect()
}

/// What GTKWave shows of a save file, by its own account (its Tcl
/// interface, run headless under Xvfb once the window is laid out): the
/// traces displayed, the time window the wave pane shows and the
/// marker. GTKWave's own figures, not pixels read off a screenshot, so
/// that the verdict holds for any fonts a machine has (rows through text
/// made the screenshot's pane edges depend on them).
struct View {
    displayed: Vec<String>,
    start: f64,
    end: f64,
    marker: i64,
}

fn gtkwave_view(save: &Path, dir: &Path) -> View {
    let script = write(
        dir,
        "view.tcl",
        "puts \"DISPLAYED: [gtkwave::getDisplayedSignals]\"\n\
         puts \"WINDOW: [gtkwave::getWindowStartTime] [gtkwave::getWindowEndTime] [gtkwave::getMarker]\"\n\
         gtkwave::/File/Quit\n",
    );
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1600x1000x24", "gtkwave", "-S"])
        .arg(&script)
        .arg(save)
        .output()
        .unwrap_or_else(|e| panic!("xvfb-run: {e}: {GTKWAVE}"));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let line = |prefix: &str| -> Vec<String> {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("GTKWave said no {prefix} ({GTKWAVE}):\n{text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let window = line("WINDOW:");
    let number = |i: usize| -> f64 {
        window[i]
            .parse()
            .unwrap_or_else(|_| panic!("GTKWave's window {window:?}"))
    };
    View {
        displayed: line("DISPLAYED:"),
        start: number(0),
        end: number(1),
        marker: number(2) as i64,
    }
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
    let view = gtkwave_view(&wave.with_extension("gtkw"), dir);
    assert_eq!(view.displayed.len(), listed.len());
    // It opens on the whole run, its marker at the first PMEVENT (the
    // PMU's command first not 0, read back from the waveform).
    let changes = flexpmu_sim::waveform::changes::read(wave).unwrap();
    let end = changes
        .iter()
        .filter_map(|c| c.changes.last().map(|(t, _)| *t))
        .max()
        .unwrap();
    let command = changes.iter().find(|c| c.name == "sm.pmu.command").unwrap();
    let first = command
        .changes
        .iter()
        .find(|(_, bits)| bits.contains('1'))
        .map(|(t, _)| *t)
        .unwrap();
    assert!(
        gtkw.contains(&format!(" {first} -1 -1 ")),
        "no marker at {first}:\n{gtkw}"
    );
    assert_eq!(view.marker, first as i64, "GTKWave's marker");
    let span = view.end - view.start;
    eprintln!(
        "{}: GTKWave shows {span:.0} of {end} time units",
        wave.display()
    );
    assert_eq!(view.start, 0.0);
    assert!(
        span >= end as f64 && span <= 1.25 * end as f64,
        "GTKWave shows {span:.0} time units, the run {end}"
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
    // A window the user names: GTKWave opens on it (the marker, at the
    // first PMEVENT, 222 ns into it).
    let out = flexpmu(
        &[
            "run",
            &example("appendix_a.sass"),
            "--vcd",
            "window.vcd",
            "--window",
            "100:1100",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let save = dir.path().join("window.gtkw");
    let gtkw = std::fs::read_to_string(&save).unwrap();
    assert!(gtkw.contains("[timestart] 100\n"), "{gtkw}");
    let view = gtkwave_view(&save, dir.path());
    let span = view.end - view.start;
    assert_eq!((view.start, view.marker), (100.0, 322));
    assert!(
        (1000.0..=1250.0).contains(&span),
        "GTKWave shows {span:.0} ns of the 1,000 ns window"
    );
    for (args, message) in [
        (vec!["--window", "5:3"], "FROM must come before TO"),
        (vec!["--window", "a:b"], "expected FROM:TO in ns"),
        (vec!["--window", "1:9"], "give --vcd PATH or --fst PATH"),
    ] {
        let mut all = vec!["run", "x.sass"];
        all.extend(args);
        let out = flexpmu(&all, dir.path());
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(message), "{}", stderr(&out));
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
