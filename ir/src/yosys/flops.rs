//! Flip-flops: the Yosys cell types imported, and the register leaf
//! modules they become (one per width, power-up value and reset kind).

use std::collections::BTreeMap;

use crate::design::{Body, Direction, Module, Port, ResetKind};

/// A flip-flop cell type flexpmu imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Flop {
    pub(super) enable: bool,
    pub(super) reset: Option<FlopReset>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FlopReset {
    /// `$adff`: the reset acts at once.
    Asynchronous,
    /// `$sdff`, `$sdffe`: at the clock edge, whatever the enable.
    Synchronous,
    /// `$sdffce`: at the clock edge, when enabled.
    SynchronousEnabled,
}

impl Flop {
    pub(super) fn of(kind: &str) -> Option<Flop> {
        use FlopReset::*;
        let (enable, reset) = match kind {
            "$dff" => (false, None),
            "$dffe" => (true, None),
            "$adff" => (false, Some(Asynchronous)),
            "$adffe" => (true, Some(Asynchronous)),
            "$sdff" => (false, Some(Synchronous)),
            "$sdffe" => (true, Some(Synchronous)),
            "$sdffce" => (true, Some(SynchronousEnabled)),
            _ => return None,
        };
        Some(Flop { enable, reset })
    }
}

/// The register leaf modules made so far, one per width, power-up value
/// and reset kind.
#[derive(Default)]
pub(super) struct Registers {
    pub(super) modules: Vec<Module>,
    by: BTreeMap<(usize, u128, Option<bool>), String>,
}

impl Registers {
    /// The module of a `width`-bit register powering up (and resetting)
    /// to `init`, with a reset of `reset`'s kind (`Some(true)`:
    /// asynchronous).
    pub(super) fn module(
        &mut self,
        width: usize,
        init: u128,
        asynchronous: Option<bool>,
    ) -> String {
        if let Some(name) = self.by.get(&(width, init, asynchronous)) {
            return name.clone();
        }
        let kind = match asynchronous {
            None => "plain",
            Some(false) => "sync",
            Some(true) => "async",
        };
        let name = format!("flexpmu_import_reg_{width}_{init:x}_{kind}");
        let port = Port::new;
        let mut ports = vec![port("clock", Direction::In, 1, true)];
        if asynchronous.is_some() {
            ports.push(port("reset", Direction::In, 1, false));
        }
        ports.push(port("d", Direction::In, width, false));
        ports.push(port("q", Direction::Out, width, false));
        let body = Body::Register {
            width,
            init,
            reset: asynchronous.map(|a| match a {
                true => ResetKind::Asynchronous,
                false => ResetKind::Synchronous,
            }),
        };
        self.modules
            .push(Module::leaf(&name, "a Yosys flip-flop", ports, body));
        self.by.insert((width, init, asynchronous), name.clone());
        name
    }
}
