//! A `$mem_v2` cell (`memory -nomap`'s memory) imported: an instance of
//! a memory leaf module ([`Memory`]: asynchronous reads, writes at the
//! clock edge) and, per read port with a clock, a register holding the
//! word read, as Yosys' `memory_nordff` would make it: enable, the
//! resets (asynchronous, and synchronous over or under the enable) and
//! the words written in the same cycle by the write ports it is
//! transparent to.

use super::super::parameters::{number, parameter_bits};
use super::{ImportError, ModuleImport, RegisterParts, Registers};
use crate::design::{Body, Instance, Memory, Module};
use crate::expr::{BinOp, Expr, Stmt};
use crate::identifiers;
use crate::yosys::flops::FlopReset;
use crate::yosys::names::unique;
use crate::yosys::netlist::{Bit, Cell};

/// Most words a memory may have, and most bits.
const MAX_WORDS: u128 = 1 << 24;
const MAX_BITS: u128 = 1 << 28;
/// Widest memory word the engine holds.
const MAX_WIDTH: u128 = 64;

/// The leaf modules of the memories imported so far, one per memory.
#[derive(Default)]
pub(in crate::yosys) struct Memories {
    pub(in crate::yosys) modules: Vec<Module>,
}

impl Memories {
    fn module(&mut self, memory: Memory, memid: &str) -> String {
        let name = format!("flexpmu_import_mem_{}", self.modules.len());
        let origin = format!("the Yosys memory {memid}");
        let ports = memory.ports();
        self.modules
            .push(Module::leaf(&name, &origin, ports, Body::Memory(memory)));
        name
    }
}

impl ModuleImport<'_> {
    /// A number parameter of `cell` at most `max`.
    fn bounded(
        &self,
        cell_name: &str,
        cell: &Cell,
        name: &str,
        max: u128,
    ) -> Result<usize, ImportError> {
        let value = self.parameter(cell_name, cell, name)?;
        if value > max {
            let what = format!("{name} is {value}; flexpmu imports at most {max}");
            return Err(self.cell_error(cell_name, cell, what));
        }
        Ok(value as usize)
    }

    /// A parameter's `width` bits.
    fn bits_parameter(
        &self,
        cell_name: &str,
        cell: &Cell,
        name: &str,
        width: usize,
    ) -> Result<Vec<Option<bool>>, ImportError> {
        let value = cell
            .parameters
            .get(name)
            .ok_or_else(|| self.cell_error(cell_name, cell, format!("no parameter {name}")))?;
        parameter_bits(value, width)
            .map_err(|what| self.cell_error(cell_name, cell, format!("{name}: {what}")))
    }

    /// Bits `k * width ..` of `cell`'s `port` (`width` of them).
    fn port_part(
        &self,
        cell_name: &str,
        cell: &Cell,
        port: &str,
        k: usize,
        width: usize,
    ) -> Result<Vec<Bit>, ImportError> {
        let bits = self.port(cell_name, cell, port)?;
        bits.get(k * width..(k + 1) * width)
            .map(<[Bit]>::to_vec)
            .ok_or_else(|| {
                let what = format!(
                    "{port} has {} bits, not {} ports of {width}",
                    bits.len(),
                    k + 1
                );
                self.cell_error(cell_name, cell, what)
            })
    }

    /// A `$mem_v2` cell, its output word `RD_DATA` (every read port's
    /// data) made.
    pub(super) fn memory(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        words: &[(String, usize)],
        registers: &mut Registers,
        memories: &mut Memories,
    ) -> Result<(), ImportError> {
        let width = self.bounded(cell_name, cell, "WIDTH", MAX_WIDTH)?;
        let size = self.bounded(cell_name, cell, "SIZE", MAX_WORDS)?;
        let abits = self.bounded(cell_name, cell, "ABITS", 64)?;
        let offset = self.parameter(cell_name, cell, "OFFSET")?;
        let reads = self.bounded(cell_name, cell, "RD_PORTS", 1024)?;
        let writes = self.bounded(cell_name, cell, "WR_PORTS", 1024)?;
        if width == 0 || size == 0 || abits == 0 {
            let what = "a memory of no words, no bits or no address bits".to_string();
            return Err(self.cell_error(cell_name, cell, what));
        }
        if (width * size) as u128 > MAX_BITS {
            let what =
                format!("{size} words of {width} bits; flexpmu imports at most {MAX_BITS} bits");
            return Err(self.cell_error(cell_name, cell, what));
        }
        for (name, ports) in [
            ("RD_WIDE_CONTINUATION", reads),
            ("WR_WIDE_CONTINUATION", writes),
        ] {
            if self
                .bits_parameter(cell_name, cell, name, ports)?
                .contains(&Some(true))
            {
                let what = format!("{name}: ports wider than a word are not imported");
                return Err(self.cell_error(cell_name, cell, what));
            }
        }
        let init_bits = self.bits_parameter(cell_name, cell, "INIT", width * size)?;
        let mut init: Vec<u128> = (0..size)
            .map(|w| number(&init_bits, w * width, width))
            .collect();
        while init.last() == Some(&0) {
            init.pop();
        }
        let memid = match cell.parameters.get("MEMID") {
            Some(crate::yosys::netlist::Value::Text(t)) => t.trim_start_matches('\\').to_string(),
            _ => cell_name.to_string(),
        };
        let instance = unique(&mut self.used, &identifiers::safe(&memid));
        let address = |this: &mut Self, bits: Vec<Bit>, hint: &str| {
            let value = this.bits(&bits, hint);
            let value = match offset {
                0 => value,
                o => Expr::Binary(
                    BinOp::Sub,
                    Box::new(value),
                    Box::new(Expr::Literal(o & crate::expr::mask(abits), abits)),
                ),
            };
            this.wire_for(value, hint)
        };
        let mut connections = Vec::new();
        // Write ports: all on one rising clock edge.
        let write_clock_enable = self.bits_parameter(cell_name, cell, "WR_CLK_ENABLE", writes)?;
        let write_polarity = self.bits_parameter(cell_name, cell, "WR_CLK_POLARITY", writes)?;
        let priority = self.bits_parameter(cell_name, cell, "WR_PRIORITY_MASK", writes * writes)?;
        let mut write_ports = Vec::new();
        for k in 0..writes {
            if write_clock_enable[k] != Some(true) || write_polarity[k] != Some(true) {
                let what = format!("write port {k} is not clocked on a rising edge");
                return Err(self.cell_error(cell_name, cell, what));
            }
            // Port k over port j: only a later port over an earlier one.
            if let Some(j) = (k..writes).find(|&j| priority[k * writes + j] == Some(true)) {
                let what = format!("write port {j} has priority over the earlier port {k}");
                return Err(self.cell_error(cell_name, cell, what));
            }
            let names = Memory::write_port(k);
            let a = self.port_part(cell_name, cell, "WR_ADDR", k, abits)?;
            let a = address(self, a, &format!("{instance}_{}", names.address));
            let d = self.port_part(cell_name, cell, "WR_DATA", k, width)?;
            let d = self.wire_of(&d, &format!("{instance}_{}", names.data));
            let e = self.port_part(cell_name, cell, "WR_EN", k, width)?;
            let e = self.wire_of(&e, &format!("{instance}_{}", names.enable));
            write_ports.push((a.clone(), d.clone(), e.clone()));
            connections.extend([(names.address, a), (names.data, d), (names.enable, e)]);
        }
        if writes > 0 {
            let clocks: Vec<Vec<Bit>> = (0..writes)
                .map(|k| self.port_part(cell_name, cell, "WR_CLK", k, 1))
                .collect::<Result<_, _>>()?;
            if clocks.iter().any(|c| *c != clocks[0]) {
                let what = "write ports on different clocks".to_string();
                return Err(self.cell_error(cell_name, cell, what));
            }
            let clock =
                self.clock_wire(cell_name, cell, &clocks[0], &format!("{cell_name}_clock"))?;
            connections.insert(0, ("clock".to_string(), clock));
        }
        // Read ports: the word read, then (with a clock) its register.
        let clocked = self.bits_parameter(cell_name, cell, "RD_CLK_ENABLE", reads)?;
        let read_polarity = self.bits_parameter(cell_name, cell, "RD_CLK_POLARITY", reads)?;
        let transparent =
            self.bits_parameter(cell_name, cell, "RD_TRANSPARENCY_MASK", reads * writes)?;
        let over_srst = self.bits_parameter(cell_name, cell, "RD_CE_OVER_SRST", reads)?;
        let arst_values = self.bits_parameter(cell_name, cell, "RD_ARST_VALUE", reads * width)?;
        let srst_values = self.bits_parameter(cell_name, cell, "RD_SRST_VALUE", reads * width)?;
        let init_values = self.bits_parameter(cell_name, cell, "RD_INIT_VALUE", reads * width)?;
        let mut clocked_reads = Vec::new();
        for k in 0..reads {
            let names = Memory::read_port(k);
            let Some(&(_, data)) = words.iter().find(|(p, _)| *p == format!("RD_DATA{k}")) else {
                return Err(self.cell_error(cell_name, cell, format!("no data for read port {k}")));
            };
            let data = self.words[data].name.clone();
            let a = self.port_part(cell_name, cell, "RD_ADDR", k, abits)?;
            let a = address(self, a, &format!("{instance}_{}", names.address));
            let word = match clocked[k] {
                Some(true) => {
                    if read_polarity[k] != Some(true) {
                        let what = format!("read port {k} is clocked on a falling edge");
                        return Err(self.cell_error(cell_name, cell, what));
                    }
                    let word = self.new_wire(&format!("{instance}_{}", names.data), width);
                    self.wires
                        .last_mut()
                        .expect("the wire just made")
                        .driven_by_instance = true;
                    clocked_reads.push((k, a.clone(), word.clone(), data));
                    word
                }
                _ => data,
            };
            // The word follows its address within the cycle: a statement
            // reading it goes after the one assigning the address.
            self.read_through.push((word.clone(), a.clone()));
            connections.extend([(names.address, a), (names.data, word)]);
        }
        let memory = Memory {
            width,
            size,
            address_width: abits,
            reads,
            writes,
            init,
        };
        let module = memories.module(memory, &memid);
        self.instances.push(Instance {
            name: instance.clone(),
            module,
            connections,
        });
        for (k, a, word, q_name) in clocked_reads {
            let clock = self.port_part(cell_name, cell, "RD_CLK", k, 1)?;
            let clock = self.clock_wire(cell_name, cell, &clock, &format!("{cell_name}_clock"))?;
            let name = |w: &str| Expr::Name(w.to_string(), width);
            // The word, with the same cycle's writes it is transparent to.
            let mut d = name(&word);
            for (j, (wa, wd, we)) in write_ports.iter().enumerate() {
                if transparent[k * writes + j] != Some(true) {
                    continue;
                }
                let merged = Expr::Binary(
                    BinOp::Or,
                    Box::new(Expr::Binary(
                        BinOp::And,
                        Box::new(d.clone()),
                        Box::new(Expr::Not(Box::new(name(we)))),
                    )),
                    Box::new(Expr::Binary(
                        BinOp::And,
                        Box::new(name(wd)),
                        Box::new(name(we)),
                    )),
                );
                let hit = Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Name(wa.clone(), abits)),
                    Box::new(Expr::Name(a.clone(), abits)),
                );
                let next = self.new_wire(&format!("{instance}_r{k}_w{j}"), width);
                self.body.push(Stmt::If(
                    vec![(hit, vec![Stmt::Assign(next.clone(), width, merged)])],
                    Some(vec![Stmt::Assign(next.clone(), width, d)]),
                ));
                d = name(&next);
            }
            let enable = self.port_part(cell_name, cell, "RD_EN", k, 1)?;
            let enable = match enable.as_slice() {
                [Bit::One] => None,
                bits => Some(self.bits(bits, &format!("{instance}_r{k}_en"))),
            };
            let control = |this: &mut Self, port: &str| -> Result<Option<Expr>, ImportError> {
                let bits = this.port_part(cell_name, cell, port, k, 1)?;
                Ok(match bits.as_slice() {
                    [Bit::Zero] | [Bit::Undefined] => None,
                    bits => Some(this.bits(bits, &format!("{instance}_r{k}_{port}"))),
                })
            };
            let arst = control(self, "RD_ARST")?;
            let srst = control(self, "RD_SRST")?;
            // A synchronous reset is logic before the register: the reset
            // value as the next word, and (unless the enable is over the
            // reset) acting whatever the enable.
            let mut enable = enable;
            if let Some(srst) = srst {
                let value = Expr::Literal(number(&srst_values, k * width, width), width);
                let next = self.new_wire(&format!("{instance}_r{k}_srst"), width);
                let reset = vec![Stmt::Assign(next.clone(), width, value)];
                let keep = vec![Stmt::Assign(next.clone(), width, d)];
                self.body
                    .push(Stmt::If(vec![(srst.clone(), reset)], Some(keep)));
                d = name(&next);
                if over_srst[k] != Some(true) {
                    enable = enable.map(|e| Expr::Logical(false, Box::new(e), Box::new(srst)));
                }
            }
            let init_bits = &init_values[k * width..(k + 1) * width];
            let init = match init_bits.iter().all(Option::is_none) {
                true => None,
                false => Some(number(init_bits, 0, width)),
            };
            let reset = arst.map(|active| {
                let value = number(&arst_values, k * width, width);
                (FlopReset::Asynchronous, active, value)
            });
            let parts = RegisterParts {
                q_name,
                width,
                clock,
                d,
                enable,
                reset,
                init,
            };
            self.register(cell_name, cell, parts, registers)?;
        }
        Ok(())
    }
}
