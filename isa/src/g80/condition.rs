//! Comparisons and condition codes: ISET's condition, the condition-code
//! flags and registers, and the branch conditions and predicates that
//! test them.

use std::fmt;

/// ISET's condition (bits 48-46): bit 0 true when `a < b`, bit 1 when
/// `a == b`, bit 2 when `a > b` (`compute_set_pred_i.vhd`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compare(pub u8);

impl Compare {
    pub const NAMES: [&'static str; 8] = ["FL", "LT", "EQ", "LE", "GT", "NE", "GE", "TR"];

    pub fn name(self) -> &'static str {
        Self::NAMES[usize::from(self.0 & 7)]
    }

    /// Whether `a` compared with `b` satisfies the condition (signed or
    /// unsigned 32-bit comparison).
    pub fn holds(self, a: u32, b: u32, signed: bool) -> bool {
        let order = if signed {
            (a as i32).cmp(&(b as i32))
        } else {
            a.cmp(&b)
        };
        let bit = match order {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Greater => 2,
        };
        self.0 & (1 << bit) != 0
    }
}

/// The condition-code flags (4 bits per condition-code register, as
/// FlexGripPlus' `encode_flag_type` numbers them).
pub mod flags {
    pub const ZERO: u8 = 1 << 0;
    pub const SIGN: u8 = 1 << 1;
    pub const CARRY: u8 = 1 << 2;
    pub const OVERFLOW: u8 = 1 << 3;

    /// What ISET writes to its condition-code register: sign set and zero
    /// clear when the comparison holds, the reverse when it does not
    /// (`compute_set_pred_i.vhd`). FlexGripPlus also writes the adder's
    /// carry and overflow, which no condition of the subset reads; here
    /// they are 0.
    pub fn of_iset(holds: bool) -> u8 {
        if holds {
            SIGN
        } else {
            ZERO
        }
    }

    /// The same, from ISET's 32-bit result (all ones or 0).
    pub fn of_iset_result(result: u32) -> u8 {
        of_iset(result != 0)
    }
}

/// Condition-code registers per thread (`C0`..`C3`, bits 45-44 and
/// 37-36).
pub const CC_REGISTERS: usize = 4;

/// The branch conditions of the subset (bits 43-39): equal (zero set,
/// sign clear) and not equal (zero clear). They agree with FlexGripPlus'
/// predicate look-up table (`predicate_lut.vhd`, rows 2 and 5) on every
/// flag value ISET writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BranchCondition {
    Eq,
    Ne,
}

impl BranchCondition {
    /// The 5-bit condition field.
    pub fn code(self) -> u8 {
        match self {
            BranchCondition::Eq => 2,
            BranchCondition::Ne => 5,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BranchCondition::Eq => "EQ",
            BranchCondition::Ne => "NE",
        }
    }

    /// Whether the condition holds on condition-code `flags`.
    pub fn holds(self, flags: u8) -> bool {
        let zero = flags & self::flags::ZERO != 0;
        let sign = flags & self::flags::SIGN != 0;
        match self {
            BranchCondition::Eq => zero && !sign,
            BranchCondition::Ne => !zero,
        }
    }
}

/// `@Cn.COND`: a branch taken by the threads whose condition-code register
/// `cc` satisfies `condition`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Predicate {
    pub cc: u8,
    pub condition: BranchCondition,
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@C{}.{}", self.cc, self.condition.name())
    }
}
