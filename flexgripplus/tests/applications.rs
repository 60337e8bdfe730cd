//! FlexGripPlus' own applications (`applications/` beside its
//! `FlexGripPlus_4.4/` in its repository) read as its testbench reads
//! them, and run on its imported RTL and under GHDL against the result
//! files they ship.
//!
//! FlexGripPlus and the plugin come from `FLEXGRIPPLUS` and
//! `GHDL_YOSYS_PLUGIN`, or `../shared/` beside the workspace. Without them
//! these tests say so and pass, except under `CI=true`, where their
//! absence fails them.

use std::path::{Path, PathBuf};

mod common;
use common::shared;

use flexpmu_flexgripplus::application::{folders, Application};
use flexpmu_flexgripplus::Tree;

/// The repository's root and its testbench's configuration entity.
fn repository() -> Option<(PathBuf, PathBuf)> {
    let root = shared("FLEXGRIPPLUS", "flexgripplus")?;
    let tree = Tree::locate(&root).unwrap();
    Some((root, tree.rtl().join("TB/TP/TP_configuration.vhd")))
}

fn open(root: &Path, configuration: &Path, name: &str) -> Application {
    Application::open(&root.join("applications").join(name), Some(configuration)).unwrap()
}

#[test]
fn every_shipped_launch_reads_as_the_testbench_takes_it() {
    let Some((root, configuration)) = repository() else {
        return;
    };
    let apps = root.join("applications");
    for folder in folders(&apps, 3).unwrap() {
        let name = folder.strip_prefix(&apps).unwrap().display().to_string();
        match Application::open(&folder, Some(&configuration)) {
            Ok(app) => {
                let l = &app.launch;
                eprintln!(
                    "{name}: cores {} block {:?} grid {:?} bpc {} regs {} shared {} params {:x?} constant {:x?} program {} image {} ({} undefined, {} unread) read {} zero {:?} result {:?}",
                    l.cores, l.block, l.grid, l.blocks_per_core, l.registers, l.shared_bytes, l.params, l.constant, l.program.len(), l.image.bytes.len(), l.image.undefined(), l.image.unread_lines, l.read_words, l.assumed_zero, app.files.result.as_ref().map(|r| r.file_name().unwrap().to_owned())
                );
            }
            Err(e) => eprintln!("{name}: {e}"),
        }
    }
    let _ = open;
}
