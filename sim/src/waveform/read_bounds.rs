//! What a waveform a user gives may declare, checked before anything is
//! allocated for it (VCD and FST alike).

/// The widest signal counted; a declaration beyond it is refused rather
/// than allocated.
pub const MAX_SIGNAL_BITS: u32 = 1 << 16;
/// The most signals a waveform may declare.
pub const MAX_SIGNALS: usize = 1 << 20;
