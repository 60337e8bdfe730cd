//! Cell parameters and attributes as numbers.

use super::netlist::Value;

/// A parameter's value as a number: a JSON number, or a string of binary
/// digits (undefined ones as 0).
pub(super) fn parameter(value: &Value) -> Result<u128, String> {
    match value {
        Value::Number(n) => u128::try_from(*n).map_err(|_| format!("parameter {n} is negative")),
        Value::Text(text) => binary(text),
    }
}

/// A string of binary digits, most significant first (`x`, `z` as 0).
fn binary(text: &str) -> Result<u128, String> {
    let mut value = 0u128;
    for (i, c) in text.chars().enumerate() {
        let bit = match c {
            '0' | 'x' | 'z' => 0,
            '1' => 1,
            _ => return Err(format!("{text:?} is not a binary constant")),
        };
        if value >> 127 != 0 {
            return Err(format!(
                "a constant of {} bits (at most 128)",
                text.len().max(i)
            ));
        }
        value = value << 1 | bit;
    }
    Ok(value)
}

/// A parameter's bits, least significant first, `width` of them (a
/// number's bits; a string's digits, `x` and `z` as `None`).
pub(super) fn parameter_bits(value: &Value, width: usize) -> Result<Vec<Option<bool>>, String> {
    let mut bits = Vec::with_capacity(width);
    match value {
        Value::Number(n) => {
            for i in 0..width {
                bits.push(Some((n >> i.min(63)) & 1 == 1));
            }
        }
        Value::Text(text) => {
            // Yosys writes a parameter of no bits as one 0.
            let text = match (width, text.as_str()) {
                (0, "0") => "",
                _ => text.as_str(),
            };
            if text.len() != width {
                return Err(format!("{} bits where {width} were expected", text.len()));
            }
            for c in text.chars().rev() {
                bits.push(match c {
                    '0' => Some(false),
                    '1' => Some(true),
                    'x' | 'z' => None,
                    _ => return Err(format!("{text:?} is not a binary constant")),
                });
            }
        }
    }
    Ok(bits)
}

/// Bits `offset..offset + width` of `bits` as a number (undefined as 0).
pub(super) fn number(bits: &[Option<bool>], offset: usize, width: usize) -> u128 {
    (0..width.min(128))
        .filter(|&i| bits.get(offset + i).copied().flatten() == Some(true))
        .fold(0, |value, i| value | 1 << i)
}
