//! Flip-flop cells imported, and the registers they (and a memory's
//! clocked read ports) become: an instance of a register leaf module, its
//! next state (enable and synchronous reset folded in) a wire of the
//! module importing it.

use super::{ImportError, ModuleImport};
use crate::design::Instance;
use crate::expr::{Expr, Stmt};
use crate::identifiers;
use crate::yosys::flops::{Flop, FlopReset, Registers};
use crate::yosys::names::unique;
use crate::yosys::netlist::{Bit, Cell};
use crate::yosys::parameters::parameter;

/// What a register is made of: the wire its output drives, its clock
/// wire, next state, enable, reset (kind, active-high condition, value)
/// and power-up value.
pub(super) struct RegisterParts {
    pub(super) q_name: String,
    pub(super) width: usize,
    pub(super) clock: String,
    pub(super) d: Expr,
    pub(super) enable: Option<Expr>,
    pub(super) reset: Option<(FlopReset, Expr, u128)>,
    pub(super) init: Option<u128>,
}

impl ModuleImport<'_> {
    /// A flip-flop: an instance of a register leaf module, its next state
    /// (enable and synchronous reset folded in) a wire of this module.
    pub(super) fn flop(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        flop: Flop,
        words: &[(String, usize)],
        registers: &mut Registers,
    ) -> Result<(), ImportError> {
        let q = words
            .iter()
            .find(|(p, _)| p == "Q")
            .map(|&(_, w)| w)
            .ok_or_else(|| self.cell_error(cell_name, cell, "no Q".into()))?;
        let (q_name, width) = (self.words[q].name.clone(), self.words[q].width);
        let clock = self.clock(cell_name, cell, "CLK", "CLK_POLARITY")?;
        let d_bits = self.port(cell_name, cell, "D")?;
        let d = self.bits(d_bits, &format!("{q_name}_d"));
        let enable = match flop.enable {
            true => Some(self.control(cell_name, cell, "EN", "EN_POLARITY")?),
            false => None,
        };
        let reset = match flop.reset {
            None => None,
            Some(kind) => {
                let (port, polarity, value) = match kind {
                    FlopReset::Asynchronous => ("ARST", "ARST_POLARITY", "ARST_VALUE"),
                    _ => ("SRST", "SRST_POLARITY", "SRST_VALUE"),
                };
                let active = self.control(cell_name, cell, port, polarity)?;
                let value = self.parameter(cell_name, cell, value)?;
                Some((kind, active, value))
            }
        };
        // Its power-up value: the `init` of the net it drives.
        let q_bits = self.port(cell_name, cell, "Q")?;
        let nets = &self.module.netnames;
        let init = self
            .named
            .get(q_bits)
            .into_iter()
            .flatten()
            .find_map(|&i| nets[i].1.attributes.get("init"))
            .map(parameter)
            .transpose()
            .map_err(|what| self.cell_error(cell_name, cell, format!("init: {what}")))?;
        let parts = RegisterParts {
            q_name,
            width,
            clock,
            d,
            enable,
            reset,
            init,
        };
        self.register(cell_name, cell, parts, registers)
    }

    /// A clock input (rising edge) as a wire of this module.
    fn clock(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        port: &str,
        polarity: &str,
    ) -> Result<String, ImportError> {
        let clock = self.port(cell_name, cell, port)?;
        if self.parameter(cell_name, cell, polarity)? != 1 {
            return Err(self.cell_error(cell_name, cell, "a falling-edge clock".into()));
        }
        self.clock_wire(cell_name, cell, clock, &format!("{cell_name}_{port}"))
    }

    /// The clock net `bits` as a wire of this module (named after `hint`
    /// if it needs one of its own), marked a clock.
    pub(super) fn clock_wire(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        bits: &[Bit],
        hint: &str,
    ) -> Result<String, ImportError> {
        let [Bit::Net(net)] = bits else {
            return Err(self.cell_error(cell_name, cell, "its clock is not a net".into()));
        };
        self.clocks.insert(*net);
        Ok(self.wire_of(bits, hint))
    }

    /// A register: an instance of a register leaf module driving
    /// `parts.q_name`, its next state (enable and synchronous reset folded
    /// in) a wire of this module.
    pub(super) fn register(
        &mut self,
        cell_name: &str,
        cell: &Cell,
        parts: RegisterParts,
        registers: &mut Registers,
    ) -> Result<(), ImportError> {
        let RegisterParts {
            q_name,
            width,
            clock,
            mut d,
            enable,
            reset,
            init,
        } = parts;
        if width > 128 {
            return Err(self.cell_error(cell_name, cell, format!("{width} bits (at most 128)")));
        }
        if let Some(enable) = &enable {
            let next = self.new_wire(&format!("{q_name}_next"), width);
            self.body.push(Stmt::If(
                vec![(enable.clone(), vec![Stmt::Assign(next.clone(), width, d)])],
                Some(vec![Stmt::Assign(
                    next.clone(),
                    width,
                    Expr::Name(q_name.clone(), width),
                )]),
            ));
            d = Expr::Name(next, width);
        }
        let reset = reset.map(|(kind, mut active, value)| {
            if let (FlopReset::SynchronousEnabled, Some(enable)) = (kind, &enable) {
                active = Expr::Binary(
                    crate::expr::BinOp::And,
                    Box::new(active),
                    Box::new(enable.clone()),
                );
            }
            (kind == FlopReset::Asynchronous, active, value)
        });
        let init = match (&reset, init) {
            (Some((_, _, value)), Some(init)) if init != *value => {
                return Err(self.cell_error(
                    cell_name,
                    cell,
                    format!("powers up as {init:#x} but resets to {value:#x}"),
                ))
            }
            (Some((_, _, value)), _) => *value,
            (None, init) => init.unwrap_or(0),
        };
        let module = registers.module(width, init, reset.as_ref().map(|r| r.0));
        let d = self.wire_for(d, &format!("{q_name}_d"));
        let mut connections = vec![("clock".to_string(), clock), ("d".to_string(), d)];
        if let Some((_, active, _)) = reset {
            let name = self.wire_for(active, &format!("{q_name}_reset"));
            connections.push(("reset".to_string(), name));
        }
        connections.push(("q".to_string(), q_name.clone()));
        self.instances.push(Instance {
            name: unique(&mut self.used, &identifiers::safe(&format!("{q_name}_reg"))),
            module,
            connections,
        });
        Ok(())
    }
}
