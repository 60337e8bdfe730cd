//! rust-hdl designs of flexpmu: the Performance Monitoring Unit (PMU) of
//! the thesis "Evaluating the impact of counters for the in-field test of
//! GPUs" ([`pmu`]), the FlexGripPlus hooks that drive it ([`hooks`]), the
//! SM slice's decode and execute stages and core ([`sm`]), and what every
//! block builds on ([`support`]). Instruction encodings come from
//! `flexpmu-isa`.
//!
//! # Timing contract (one definition, shared by RTL, golden model and docs)
//!
//! Every register is clocked on the rising edge of `clock`. "Cycle t" is the
//! interval between rising edges t-1 and t; inputs presented in cycle t are
//! sampled at edge t.
//!
//! * **Commands** (`address`/`command` in cycle t) change the addressed
//!   counter's FSM state at edge t: the new state is visible in cycle t+1.
//!   During cycle t the counter still behaves as in its old state.
//! * **Counting**: the converter output of cycle t is 1 when the channel's
//!   input in cycle t differs from its value in cycle t-1 (toggle mode), or
//!   when the input is non-zero (level mode). A counter in COUNTING during
//!   cycle t with converter output 1 increments at edge t: the new value is
//!   visible in cycle t+1.
//! * **PMURST and global reset** clear the count at edge t (0 in cycle t+1)
//!   and put the FSM in RESET; toggles in cycle t are not counted.
//! * **Global reset** (`reset` high in cycle t) overrides `address`/`command`
//!   and resets every counter at edge t. It does not reset the converters'
//!   previous-value registers: they keep tracking their inputs, so no
//!   spurious toggle appears when counting restarts.
//! * **Reads**: `monitor_out` is combinational: in cycle t it shows the count
//!   (as of cycle t) of the counter addressed in cycle t.
//! * **Wrap-around**: counters are `COUNTER_WIDTH` bits wide and wrap modulo
//!   2^COUNTER_WIDTH (2^32 by default) without saturating or flagging.
//! * **Power-up**: every register starts at 0, i.e. every FSM in RESET.

pub mod hooks;
pub mod pmu;
pub mod sm;
pub mod support;

pub use hooks::{DecodeHook, ExecuteHook, HookedPmu, PmeventDecoder};
pub use pmu::{
    ChannelConfig, ChannelMode, CommandDecoder, CounterState, CounterSubunit, DefaultPmu,
    EventSelector, OutputMux, Pmu, PmuConfig, ToggleConverter, SELECTOR_CHOICES,
};
pub use sm::{DecodeStage, ExecuteStage, MonitoredSignal, SmCore, MONITOR_MAP};
pub use support::reset_dff::{ResetDff, ResetKind};
pub use support::Clocked;

use rust_hdl::prelude::{Clock, In, Signal};

macro_rules! clocked {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Clocked for $t {
            fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
                &mut self.clock
            }
        }
    )*};
}

clocked!(
    [const W: usize] CounterSubunit<W>,
    [const W: usize] ToggleConverter<W>,
    [] crate::pmu::EventSelector,
    [const C: usize, const W: usize, const I: usize] Pmu<C, W, I>,
    [] DecodeHook,
    [] DecodeStage,
    [] ExecuteStage,
    [] HookedPmu,
    [] SmCore,
);
