//! `fpu_conv` (`FPU/fpu_conv_32.vhd`): integer/float conversions and the
//! float-to-float sign operations, one register stage (process
//! `p_Conversion`, lines 23-169). The rounding mode is not an input:
//! every conversion rounds to nearest, ties to even.
//!
//! As written:
//! - I2F rounds the 23-bit fraction without carrying into the exponent
//!   (line 62): a fraction of all ones rounding up becomes 0 with the
//!   exponent unchanged, so 0x01FFFFFF (U2F) gives 0x4B800000 (2^24)
//!   instead of 2^25; S2F converts the magnitude (the `complement`) and
//!   takes bit 31 of the integer as the sign;
//! - F2U: exponent 0 (zero, denormals) gives 0, exponent 255 (inf, NaN)
//!   0xFFFFFFFF, negatives below -0.5 (and -1.0) 0xFFFFFFFF, others
//!   in (-1, 0] 0, numbers of 2^32 and more 0xFFFFFFFF;
//! - F2S: exponent 0 gives 0, NaN 0x80000000, +inf 0x7FFFFFFF, -inf
//!   0x80000000, magnitudes above 2^31 0x80000000, and exactly +-2^31
//!   (`nb_zeros` = 0 with a zero fraction, line 154) 0;
//! - NEG flips bit 31, ABSO clears it, TRSFR passes the word.

use super::bits::{complement, count_l_zeros, shr};

/// `fpu_conv_type` (`gpgpu_package.vhd:1983`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum ConvMode {
    /// The leftmost value: what the never-reset `convmode` starts as.
    #[default]
    U2F,
    S2F,
    F2U,
    F2S,
    Neg,
    Trsfr,
    Abso,
}

/// The registers of `p_Conversion` (both reset, lines 35-37).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Conv {
    pub int_out: u32,
    pub float_out: u32,
}

/// Integer to float, the body of `U2F` on a magnitude (lines 56-65).
fn int_to_float(sign: u32, magnitude: u32) -> u32 {
    let shift_value = count_l_zeros(magnitude.into(), 32);
    let mantissa_tmp = if shift_value + 1 >= 32 {
        0
    } else {
        magnitude << (shift_value + 1)
    };
    let mut mantissa = mantissa_tmp >> 9;
    let round = mantissa_tmp >> 8 & 1 != 0;
    let sticky = mantissa_tmp & 0xff != 0;
    if round && (sticky || mantissa & 1 != 0) {
        mantissa = (mantissa + 1) & 0x7f_ffff;
    }
    let exponent = 158u32.wrapping_sub(shift_value) & 0xff;
    sign << 31 | exponent << 23 | mantissa
}

/// The float's magnitude shifted to an integer and rounded (lines
/// 98-112, 133-145): `nb_zeros` in 0..77.
fn float_to_int(float_in: u32, nb_zeros: u32) -> u32 {
    let tmp = 1u128 << 76 | u128::from(float_in & 0x7f_ffff) << 53;
    let tmp = shr(tmp, nb_zeros, 77);
    let round = tmp >> 44 & 1 != 0;
    let sticky = tmp & ((1u128 << 44) - 1) != 0;
    let mut int = (tmp >> 45) as u32;
    if round && (sticky || int & 1 != 0) {
        int = int.wrapping_add(1);
    }
    int
}

impl Conv {
    /// The asynchronous reset (lines 35-37).
    pub(super) fn reset(&mut self) {
        *self = Conv::default();
    }

    /// One rising edge with `enable` high (lines 39-167); `int_in` and
    /// `float_in` are the same operand.
    pub(super) fn clock(&mut self, convmode: ConvMode, input: u32) {
        let exp = input >> 23 & 0xff;
        let frac = input & 0x7f_ffff;
        let sign = input >> 31 != 0;
        match convmode {
            ConvMode::U2F => {
                self.int_out = 0;
                self.float_out = if input == 0 {
                    0
                } else {
                    int_to_float(0, input)
                };
            }
            ConvMode::S2F => {
                self.int_out = 0;
                self.float_out = if input == 0 {
                    0
                } else {
                    int_to_float(input >> 31, complement(input.into(), 32) as u32)
                };
            }
            ConvMode::F2U => {
                self.float_out = 0;
                self.int_out = if exp == 0 {
                    0
                } else if exp == 255 {
                    u32::MAX
                } else if sign && (exp > 127 || ((exp == 127 || exp == 126) && frac != 0)) {
                    u32::MAX
                } else if sign {
                    // exp <= 127 here.
                    0
                } else {
                    let nb_zeros = 158 - exp as i32;
                    if nb_zeros >= 0 {
                        float_to_int(input, nb_zeros as u32)
                    } else {
                        u32::MAX
                    }
                };
            }
            ConvMode::F2S => {
                self.float_out = 0;
                self.int_out = if exp == 0 {
                    0
                } else if exp == 255 && frac != 0 {
                    0x8000_0000
                } else if exp == 255 && !sign {
                    0x7fff_ffff
                } else if exp == 255 {
                    0x8000_0000
                } else {
                    let nb_zeros = 158 - exp as i32;
                    if nb_zeros > 0 {
                        let int = float_to_int(input, nb_zeros as u32);
                        if sign {
                            // complement('1' & int)(31 downto 0).
                            (complement(1 << 32 | u128::from(int), 33) & 0xffff_ffff) as u32
                        } else {
                            int
                        }
                    } else if nb_zeros < 0 || frac != 0 {
                        0x8000_0000
                    } else {
                        0
                    }
                };
            }
            ConvMode::Neg => self.float_out = input ^ 0x8000_0000,
            ConvMode::Abso => self.float_out = input & 0x7fff_ffff,
            ConvMode::Trsfr => self.float_out = input,
        }
    }
}
