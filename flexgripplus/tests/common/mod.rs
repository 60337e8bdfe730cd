//! What the tests of FlexGripPlus' imported RTL share: where FlexGripPlus,
//! the plugin and the cache are.

use std::path::PathBuf;

use flexpmu_flexgripplus::rtl::RtlNetlist;
use flexpmu_flexgripplus::{sources_of, Tree, Variant};

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `variable`'s folder or `../shared/<shared>`, or None (said on stderr)
/// where there is none.
pub fn shared(variable: &str, shared: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared").join(shared));
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: {} is missing (../shared/{shared} beside the clone)",
        dir.display()
    );
    eprintln!(
        "skipped: no {} (set {variable}=PATH to run this test)",
        dir.display()
    );
    None
}

pub fn cache() -> PathBuf {
    std::env::var_os("FLEXPMU_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/flexpmu-cache"))
}

/// FlexGripPlus as `variant` read by Yosys through the plugin (made once,
/// then from the cache), or None (said on stderr) where FlexGripPlus or
/// the plugin is missing.
#[allow(dead_code)] // not every test binary imports FlexGripPlus
pub fn netlist(variant: Variant) -> Option<RtlNetlist> {
    let tree = Tree::locate(&shared("FLEXGRIPPLUS", "flexgripplus")?).unwrap();
    let plugin = shared("GHDL_YOSYS_PLUGIN", "ghdl-yosys-plugin")?;
    let kit = sources_of(variant).unwrap();
    Some(
        RtlNetlist::prepare(&tree, variant, &kit, &plugin, &cache(), &mut |s| {
            eprintln!("{s}")
        })
        .unwrap(),
    )
}
