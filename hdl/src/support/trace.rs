//! Typed, allocation-free access to a design's signals for waveform dumps.
//!
//! rust-hdl's `Probe` hands out `&dyn Atom`, whose only value accessors
//! allocate; sampling a PMU that way costs more than simulating it. A
//! [`Traced`] block instead declares its signals once (scopes and widths)
//! and then pushes their values as `u64` in the same order every sample.

use rust_hdl::prelude::*;

/// Receives a design's hierarchy once, before the first sample.
pub trait TraceDeclarer {
    fn enter_scope(&mut self, name: &str);
    fn exit_scope(&mut self);
    fn variable(&mut self, name: &str, width: usize);
    /// A clock input: all clocks are one net.
    fn clock(&mut self, name: &str);
}

/// A block (or signal) whose values can be sampled into a flat vector.
pub trait Traced {
    /// Declares the variables, in the order `sample` pushes them.
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer);
    /// Pushes the current values.
    fn sample(&self, out: &mut Vec<u64>);
}

/// Types whose values fit in a `u64` sample.
pub trait SampleValue: Synth {
    fn sample_value(self) -> u64;
}

impl<const N: usize> SampleValue for Bits<N> {
    fn sample_value(self) -> u64 {
        self.to_u64()
    }
}

impl SampleValue for Bit {
    fn sample_value(self) -> u64 {
        self as u64
    }
}

macro_rules! traced_signal {
    ($($dir:ty),*) => {$(
        impl<T: SampleValue> Traced for Signal<$dir, T> {
            fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
                assert!(T::BITS <= 64, "{name}: traced signals are at most 64 bits");
                out.variable(name, T::BITS);
            }
            fn sample(&self, out: &mut Vec<u64>) {
                out.push(self.val().sample_value());
            }
        }
    )*};
}

traced_signal!(In, Out, Local);

/// An array (or vector) is traced item by item: `name_0`, `name_1`, ...
impl<T: Traced> Traced for [T] {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        for (i, item) in self.iter().enumerate() {
            item.declare(&format!("{name}_{i}"), out);
        }
    }
    fn sample(&self, out: &mut Vec<u64>) {
        for item in self {
            item.sample(out);
        }
    }
}

impl<T: Traced, const N: usize> Traced for [T; N] {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        self.as_slice().declare(name, out)
    }
    fn sample(&self, out: &mut Vec<u64>) {
        self.as_slice().sample(out)
    }
}

impl<T: Traced> Traced for Vec<T> {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        self.as_slice().declare(name, out)
    }
    fn sample(&self, out: &mut Vec<u64>) {
        self.as_slice().sample(out)
    }
}

/// A register appears in the waveform as one variable, its output `q`
/// (its `d` and `clock` duplicate signals of the enclosing block).
impl<T: SampleValue> Traced for DFF<T> {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        out.variable(name, T::BITS);
    }
    fn sample(&self, out: &mut Vec<u64>) {
        out.push(self.q.val().sample_value());
    }
}

/// Every clock input is the one PMU clock: the waveform shows it as one
/// net, driven by the cycle driver rather than sampled.
impl Traced for Signal<In, Clock> {
    fn declare(&self, name: &str, out: &mut dyn TraceDeclarer) {
        out.clock(name);
    }
    fn sample(&self, _out: &mut Vec<u64>) {}
}
