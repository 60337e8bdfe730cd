//! A program's PMEVENT selectors, found and rewritten by walking its
//! instructions (a 64-bit instruction's second word may look like a
//! PMEVENT; only the words an instruction starts at are PMEVENTs).

use super::{instructions, Instruction};
use crate::pmevent::{self, Pmevent};

/// The PMEVENTs of `program`: (address, event).
fn pmevents(program: &[u32]) -> impl Iterator<Item = (usize, Pmevent)> + '_ {
    instructions(program).filter_map(|(address, instruction)| match instruction {
        Instruction::Pmevent(event) => Some((address, event)),
        _ => None,
    })
}

/// The first PMEVENT that selects input `selectors` or above: its address
/// and selector (what a PMU with `selectors` inputs per channel cannot
/// run).
pub fn selector_beyond(program: &[u32], selectors: usize) -> Option<(usize, u8)> {
    pmevents(program)
        .find(|(_, e)| usize::from(e.selector) >= selectors)
        .map(|(address, e)| (address, e.selector))
}

/// `program` with every PMEVENT that loads a selection (CNT, RST)
/// selecting input `selector`: run s of a kernel whose counters read
/// their selections in S runs.
pub fn with_selector(program: &[u32], selector: u8) -> Result<Vec<u32>, pmevent::IsaError> {
    let mut words = program.to_vec();
    for (address, event) in pmevents(program) {
        if event.loads_selector() {
            words[address] = pmevent::try_encode(&event.with_selector(selector)?)?;
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pmevent::PmuCommand;

    #[test]
    fn selectors_are_found_and_rewritten_on_pmevents_only() {
        let read = Pmevent::read(4, 7).unwrap();
        let program = vec![
            pmevent::encode(&Pmevent::count(3).unwrap()),
            // MOV.U16 R0H, g[0x1].U16 (64 bits): left as it is.
            0x1000_4205,
            0x0023_c780,
            pmevent::encode(&Pmevent::count(5).unwrap().with_selector(2).unwrap()),
            pmevent::encode(&read),
            pmevent::encode(&Pmevent::new(1, PmuCommand::Rst, None).unwrap()),
        ];
        assert_eq!(selector_beyond(&program, 1), Some((3, 2)));
        assert_eq!(selector_beyond(&program, 4), None);
        let phase = with_selector(&program, 6).unwrap();
        let events: Vec<Pmevent> = pmevents(&phase).map(|(_, e)| e).collect();
        assert_eq!(events.len(), 4);
        assert_eq!(events[0].selector, 6);
        assert_eq!(events[1].selector, 6);
        // IDL carries no selector.
        assert_eq!(events[2], read);
        assert_eq!(events[3].selector, 6);
        assert_eq!(phase[1..3], program[1..3]);
        assert!(with_selector(&program, 8).is_err());
    }
}
