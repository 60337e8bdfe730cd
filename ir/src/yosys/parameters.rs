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
