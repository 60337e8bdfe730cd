//! Bit-vector helpers with `numeric_std`'s semantics, and the functions
//! of `gpgpu_package.vhd` the FPU calls (`or_reduce`, `count_l_zeros`,
//! `complement`; FlexGripPlus 4.4 `RTL/gpgpu_package.vhd:2737-2790`, the
//! same bodies as `fpupackage.vhd:123-166`).
//!
//! A `width`-bit vector is held in the low bits of a `u128`; every
//! result is masked back to its width, so wrap-around is `numeric_std`'s.

/// All ones in the low `width` bits (`width` <= 128).
pub(super) fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Bit `at` of `v`.
pub(super) fn bit(v: u128, at: u32) -> bool {
    at < 128 && (v >> at) & 1 != 0
}

/// `v(hi downto lo)`.
pub(super) fn field(v: u128, hi: u32, lo: u32) -> u128 {
    (v >> lo) & mask(hi - lo + 1)
}

/// `shift_right(unsigned(v), amount)` on a `width`-bit vector: zero once
/// `amount` reaches the width.
pub(super) fn shr(v: u128, amount: u32, width: u32) -> u128 {
    if amount >= width {
        0
    } else {
        (v & mask(width)) >> amount
    }
}

/// `shift_left(unsigned(v), amount)` on a `width`-bit vector.
pub(super) fn shl(v: u128, amount: u32, width: u32) -> u128 {
    if amount >= width {
        0
    } else {
        (v << amount) & mask(width)
    }
}

/// `count_l_zeros`: the leading zeros of a `width`-bit vector, in the
/// function's 6-bit counter (`gpgpu_package.vhd:2757-2773`).
pub(super) fn count_l_zeros(v: u128, width: u32) -> u32 {
    let v = v & mask(width);
    let n = if v == 0 {
        width
    } else {
        width - (128 - v.leading_zeros())
    };
    n & 0x3f
}

/// `complement`: a `width`-bit vector whose top bit is set becomes its
/// two's complement (every bit xored with the top one, plus one); one
/// whose top bit is clear is returned as is (`gpgpu_package.vhd:2775`).
pub(super) fn complement(v: u128, width: u32) -> u128 {
    let v = v & mask(width);
    if bit(v, width - 1) {
        (!v).wrapping_add(1) & mask(width)
    } else {
        v
    }
}

/// `a + b` in `width` bits.
pub(super) fn add(a: u128, b: u128, width: u32) -> u128 {
    a.wrapping_add(b) & mask(width)
}

/// `a - b` in `width` bits.
pub(super) fn sub(a: u128, b: u128, width: u32) -> u128 {
    a.wrapping_sub(b) & mask(width)
}

/// A `width`-bit vector read as `signed`.
pub(super) fn signed(v: u128, width: u32) -> i64 {
    let v = (v & mask(width)) as i64;
    if v >> (width - 1) & 1 != 0 {
        v - (1i64 << width)
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(count_l_zeros(0, 26), 26);
        assert_eq!(count_l_zeros(1, 26), 25);
        assert_eq!(count_l_zeros(0x80000000, 32), 0);
        assert_eq!(complement(0xFFFF_FFFF, 32), 1);
        assert_eq!(complement(0x7FFF_FFFF, 32), 0x7FFF_FFFF);
        assert_eq!(signed(0b11_1101_0001, 10), -47);
        assert_eq!(shr(0xff, 200, 27), 0);
        assert_eq!(shl(1, 76, 77), 1 << 76);
    }
}
