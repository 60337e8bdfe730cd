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

/// A screenshot: the framebuffer of an Xvfb screen (XWD, 32 bits a
/// pixel), as (width, rows of RGB).
struct Screen {
    width: usize,
    pixels: Vec<[u8; 3]>,
}

impl Screen {
    fn read(path: &Path) -> Option<Screen> {
        let d = std::fs::read(path).ok()?;
        let word = |i: usize| -> Option<usize> {
            Some(u32::from_be_bytes(d.get(4 * i..4 * i + 4)?.try_into().ok()?) as usize)
        };
        let (header, width, height) = (word(0)?, word(4)?, word(5)?);
        let (lsb_first, bits, line) = (word(7)? == 0, word(11)?, word(12)?);
        let start = header + word(19)? * 12;
        if bits != 32 {
            return None;
        }
        let mut pixels = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let p = d.get(start + y * line + 4 * x..start + y * line + 4 * x + 4)?;
                pixels.push(match lsb_first {
                    true => [p[2], p[1], p[0]],
                    false => [p[1], p[2], p[3]],
                });
            }
        }
        Some(Screen { width, pixels })
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.width + x]
    }

    /// GTKWave's marker (a light red line down the wave pane) on row `y`,
    /// and the wave pane's left and right edges there (the light window
    /// background on its left, the grey scroll bar on its right).
    fn marker_and_pane(&self, y: usize) -> Option<(usize, usize, usize)> {
        let marker = (0..self.width).find(|&x| self.at(x, y) == [255, 128, 128])?;
        let light = |p: [u8; 3]| p.iter().all(|&c| c > 180);
        let left = (0..marker).rev().find(|&x| light(self.at(x, y)))? + 1;
        let right = (marker..self.width).find(|&x| light(self.at(x, y)))?;
        Some((marker, left, right))
    }
}

/// What GTKWave shows of `save` on a 1600 x 1000 screen: the marker's
/// place in the wave pane, as the time span the pane shows if the marker
/// is at `marker` (a screenshot under Xvfb, taken once the marker is
/// drawn).
fn gtkwave_visible_span(save: &Path, dir: &Path, marker: u64) -> f64 {
    use std::os::unix::process::CommandExt;
    let screen = tempfile::tempdir_in(dir).unwrap();
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s"])
        .arg(format!(
            "-screen 0 1600x1000x24 -fbdir {}",
            screen.path().display()
        ))
        .arg("gtkwave")
        .arg(save)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("xvfb-run: {e}: {GTKWAVE}"));
    let mut found = None;
    for _ in 0..60 {
        std::thread::sleep(std::time::Duration::from_millis(500));
        let shot = Screen::read(&screen.path().join("Xvfb_screen0"));
        if let Some(pane) = shot.and_then(|s| s.marker_and_pane(500)) {
            found = Some(pane);
            break;
        }
    }
    // The whole group: xvfb-run, Xvfb and GTKWave.
    let _ = Command::new("kill")
        .arg("--")
        .arg(format!("-{}", child.id()))
        .status();
    let _ = child.wait();
    let (x, left, right) = found.unwrap_or_else(|| panic!("GTKWave drew no marker ({GTKWAVE})"));
    marker as f64 * (right - left) as f64 / (x - left) as f64
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
    let span = gtkwave_visible_span(&wave.with_extension("gtkw"), dir, first);
    eprintln!(
        "{}: GTKWave shows {span:.0} of {end} time units",
        wave.display()
    );
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
    let span = gtkwave_visible_span(&save, dir.path(), 322 - 100);
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
