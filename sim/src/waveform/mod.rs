//! Waveforms: [`vcd`] streams a run to a VCD file as it goes; [`toggles`]
//! reads a VCD back and ranks its signals by activity.

pub mod toggles;
pub mod vcd;
