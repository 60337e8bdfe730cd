//! rust-hdl's own Verilog of a design, made comparable with the export.

use flexpmu_ir::{Design, Direction};

/// rust-hdl's own Verilog of a design (module `top`, `$` in names) wrapped
/// in a module with the export's name and port names, so both can be
/// compared or driven by the same testbench.
pub fn wrap_rust_hdl_verilog(design: &Design, stock: &str) -> String {
    let top = design.top();
    let ports: Vec<String> = top
        .ports
        .iter()
        .map(|p| {
            let dir = if p.direction == Direction::In {
                "input"
            } else {
                "output"
            };
            let range = if p.width > 1 {
                format!("[{}:0] ", p.width - 1)
            } else {
                String::new()
            };
            format!("{dir} wire {range}{}", p.name)
        })
        .collect();
    let connections: Vec<String> = top
        .ports
        .iter()
        .map(|p| format!(".{}({})", p.raw, p.name))
        .collect();
    format!(
        "{stock}\nmodule {} ({});\n  top stock ({});\nendmodule\n",
        top.name,
        ports.join(", "),
        connections.join(", ")
    )
}
