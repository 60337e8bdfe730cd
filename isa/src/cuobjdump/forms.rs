//! The forms of G80 (sm_10) instructions FlexGripPlus' applications use,
//! in cuobjdump's listing syntax, and printing and reading through them.
//!
//! Each word of FlexGripPlus' 23 shipped ROMs and 10 listings matches
//! exactly one form; a form's text is the listing's (cuobjdump's spacing
//! aside) and reads back to the same word. Four things cuobjdump leaves
//! unsaid are said: the end marker (`.END`, bits 33..32 = 01, which
//! cuobjdump sets on a program's last instruction), a guard on SSY, CAL,
//! BAR and NOP (printed `Cn.COND, ` when their high word is not 0, as
//! hand-written ROMs have it), any guard other than the form's default,
//! and `o [n]` for any n.

use std::sync::LazyLock;

use super::field::Bad;
use super::form::Form;

/// Why words or a text are not an instruction of the forms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    #[error("no G80 form takes {0}")]
    NoForm(String),
    #[error("{0} forms take {1}")]
    Ambiguous(usize, String),
    #[error("`{0}` is no G80 instruction of the forms flexpmu knows")]
    NoText(String),
    #[error("`{0}` reads as more than one encoding")]
    AmbiguousText(String),
}

mod control;
mod floating;
mod integer;
mod parts;

/// Every form.
pub static FORMS: LazyLock<Vec<Form>> = LazyLock::new(|| {
    let mut forms = control::forms();
    forms.extend(integer::forms());
    forms.extend(floating::forms());
    forms
});

/// The 64-bit value of `words` (the first in bits 31..0).
fn value_of(words: &[u32]) -> u64 {
    u64::from(words[0]) | words.get(1).map_or(0, |&w| u64::from(w) << 32)
}

fn hex_words(words: &[u32]) -> String {
    let hex: Vec<String> = words.iter().map(|w| format!("{w:#010x}")).collect();
    hex.join(" ")
}

/// The forms `words` (one 32-bit word, or a 64-bit instruction's two,
/// first word first) match.
pub fn matching(words: &[u32]) -> Vec<&'static Form> {
    let size = if words[0] & 1 == 1 { 64 } else { 32 };
    if (size == 64) != (words.len() == 2) {
        return Vec::new();
    }
    let v = value_of(words);
    FORMS
        .iter()
        .filter(|f| f.size == size && f.matches(v))
        .collect()
}

/// `words` in cuobjdump's listing syntax.
pub fn print(words: &[u32]) -> Result<String, SyntaxError> {
    match matching(words).as_slice() {
        [form] => form
            .print(value_of(words))
            .map_err(|Bad| SyntaxError::NoForm(hex_words(words))),
        [] => Err(SyntaxError::NoForm(hex_words(words))),
        many => Err(SyntaxError::Ambiguous(many.len(), hex_words(words))),
    }
}

/// The words of `text` (an instruction in the listing syntax; from its
/// first `;` on, ignored), first word first.
pub fn assemble(text: &str) -> Result<Vec<u32>, SyntaxError> {
    let code = text.split(';').next().unwrap_or_default();
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let mut found: Vec<Vec<u32>> = Vec::new();
    for form in FORMS.iter() {
        if let Some(v) = form.parse(&compact) {
            let words = match form.size {
                32 => vec![v as u32],
                _ => vec![v as u32, (v >> 32) as u32],
            };
            if !found.contains(&words) {
                found.push(words);
            }
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(SyntaxError::NoText(code.trim().to_string())),
        _ => Err(SyntaxError::AmbiguousText(code.trim().to_string())),
    }
}

#[cfg(test)]
mod tests;
