//! Every instruction of FlexGripPlus' shipped ROMs (its applications'
//! `TP_instructions*.vhd` and its testbench's) through the decode stage's
//! reading (`flexpmu_isa::decode_stage`): each has an operation, and the
//! operation is the one the listing beside it (the ROM's comment, from
//! cuobjdump) names.
//!
//! FlexGripPlus is taken from `FLEXGRIPPLUS` or `../shared/flexgripplus`;
//! without it the test says so and passes (but under `CI=true`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flexpmu_isa::cuobjdump;
use flexpmu_isa::decode_stage::{decode, value, Operation};
use flexpmu_isa::tp_rom::parse_tp_vhdl;

/// FlexGripPlus' checkout (its repository, the applications beside
/// `FlexGripPlus_4.4`), or None (said on stderr).
fn checkout() -> Option<PathBuf> {
    let dir = std::env::var_os("FLEXGRIPPLUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/flexgripplus"));
    if dir.join("applications").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: {} holds no applications/ (../shared/flexgripplus beside the clone)",
        dir.display()
    );
    eprintln!(
        "skipped: no FlexGripPlus applications in {} (set FLEXGRIPPLUS=PATH to run this test)",
        dir.display()
    );
    None
}

/// The files under `dir` whose name `keep` takes, sorted.
fn files_under(dir: &Path, keep: &dyn Fn(&str) -> bool, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            files_under(&path, keep, found);
        } else if keep(&name) {
            found.push(path);
        }
    }
}

/// The shipped ROMs: the applications' and the testbench's.
fn shipped_roms(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let rom = |name: &str| name.starts_with("TP_instructions") && name.ends_with(".vhd");
    files_under(&root.join("applications"), &rom, &mut files);
    files.push(root.join("FlexGripPlus_4.4/RTL/TB/TP/TP_instructions.vhd"));
    files
}

/// The operation a listing's line names (`MNEMONIC operands;`, perhaps
/// after its byte address), or None for a line with no instruction.
fn named(listing: &str) -> Option<Operation> {
    let mut tokens = listing.split_whitespace();
    let first = tokens.next()?;
    mnemonic_of(listing, first).or_else(|| {
        let address = first.chars().all(|c| c.is_ascii_hexdigit());
        address.then(|| mnemonic_of(listing, tokens.next()?))?
    })
}

/// The operation `mnemonic` (a token of `listing`) names.
fn mnemonic_of(listing: &str, mnemonic: &str) -> Option<Operation> {
    use Operation as O;
    let mnemonic = mnemonic.trim_end_matches(';');
    let operands: Vec<&str> = listing.split_once(mnemonic)?.1.split(',').collect();
    let base = mnemonic.split('.').next()?;
    let first_source_negated = operands.get(1).is_some_and(|o| o.trim().starts_with('-'));
    Some(match base {
        "MOV" | "MOV32" | "MVI" => O::Mov,
        "MVC" => O::LoadConst,
        "R2G" => O::StoreShared,
        "R2A" => O::LoadAddress,
        "ADA" => O::AddAddress,
        "GLD" => O::LoadGlobal,
        "GST" => O::StoreGlobal,
        "IADD" if mnemonic.contains(".CARRY") => O::Iaddc,
        "IADD" if first_source_negated => O::Isub,
        "IADD" | "IADD32" | "IADD32I" => O::Iadd,
        "ISET" => O::Set,
        "SHL" => O::Shl,
        "SHR" => O::Shr,
        "IMUL" | "IMUL32" | "IMUL32I" => O::Imul24,
        "IMAD" | "IMAD32I" => O::Imad24,
        "I2I" | "I2F" | "F2I" | "F2F" => O::Cvt,
        "LOP" if mnemonic.starts_with("LOP.AND") => O::And,
        "LOP" if mnemonic.starts_with("LOP.OR") => O::Or,
        "LOP" if mnemonic.starts_with("LOP.XOR") => O::Xor,
        "LOP" if mnemonic.starts_with("LOP.PASS_B") => O::Neg,
        "FADD" | "FADD32" | "FADD32I" => O::Fadd,
        "FMUL" | "FMUL32" | "FMUL32I" => O::Fmul,
        "FMAD" | "FMAD32I" => O::Fmad,
        "FSET" => O::Fset,
        "RCP" | "RCP32" => O::Rcp,
        "RSQ" => O::Rsq,
        "LG2" => O::Lg2,
        "SIN" => O::Sin,
        "COS" => O::Cos,
        "EX2" => O::Ex2,
        "RRO" => O::RroSin,
        "BRA" => O::Branch,
        "CAL" => O::Call,
        "RET" => O::Return,
        "SSY" => O::Sync,
        "BAR" => O::Barrier,
        "NOP" => O::Nop,
        _ => return None,
    })
}

#[test]
fn every_shipped_instruction_has_the_operation_its_listing_names() {
    let Some(root) = checkout() else {
        return;
    };
    let files = shipped_roms(&root);
    let (mut words, mut long, mut short, mut commented) = (0, 0, 0, 0);
    let mut round_trips = 0;
    let mut per_operation: BTreeMap<String, usize> = BTreeMap::new();
    let mut unknown = Vec::new();
    let mut disagree = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let rom = parse_tp_vhdl(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        words += rom.len();
        let mut at = 0;
        while at < rom.len() {
            let low = rom[at].value;
            let high = (low & 1 == 1).then(|| rom.get(at + 1).map_or(0, |w| w.value));
            let stage = decode(value(low, high));
            match high {
                Some(_) => long += 1,
                None => short += 1,
            }
            *per_operation
                .entry(format!("{:?}", stage.operation))
                .or_default() += 1;
            let place = format!("{name} word {at}");
            // Printed in the listing syntax and read back, word for word.
            let words: Vec<u32> = std::iter::once(low).chain(high).collect();
            match cuobjdump::print(&words) {
                Ok(text) if cuobjdump::assemble(&text).as_ref() == Ok(&words) => round_trips += 1,
                other => unknown.push(format!("{place}: {other:?} does not read back")),
            }
            if let Operation::Unknown(why) = stage.operation {
                unknown.push(format!("{place}: {}", why.reason()));
            }
            if let Some(listed) = rom[at].comment.as_deref().and_then(named) {
                commented += 1;
                if listed != stage.operation {
                    disagree.push(format!(
                        "{place} ({low:08x} {:08x}): `{}` names {listed:?}, the decode stage reads {:?}",
                        high.unwrap_or(0),
                        rom[at].comment.as_deref().unwrap_or_default(),
                        stage.operation
                    ));
                }
            }
            at += if high.is_some() { 2 } else { 1 };
        }
    }
    assert_eq!(files.len(), 23, "{files:?}");
    assert_eq!((words, long + short, long, short), (4056, 2105, 1951, 154));
    assert_eq!(round_trips, 2105);
    assert!(unknown.is_empty(), "{}", unknown.join("\n"));
    assert!(
        disagree.is_empty(),
        "{} disagree:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
    // Every instruction whose ROM line carries its listing was compared:
    // all but edge's comment-less ROM (374) and one FFT word.
    assert_eq!(commented, 2105 - 375, "{per_operation:?}");
    let count = |o: &str| per_operation.get(o).copied().unwrap_or(0);
    assert_eq!(
        [
            count("Iadd"),
            count("Isub"),
            count("Iaddc"),
            count("Fmad"),
            count("Sync")
        ],
        [335, 6, 4, 38, 55],
        "{per_operation:?}"
    );
}

/// A listing's text without whitespace, up to its `;`.
fn compact(text: &str) -> String {
    let code = text.split(';').next().unwrap_or_default();
    code.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The ROM an application's listing sits beside.
fn rom_beside(listing: &Path) -> PathBuf {
    let dir = listing.parent().unwrap();
    match dir.file_name().unwrap().to_str() {
        Some("sass code") => dir.parent().unwrap().join("vhdl code/TP_instructions.vhd"),
        _ => dir.join("TP_instructions.vhd"),
    }
}

#[test]
fn the_applications_listings_read_as_their_words_say() {
    use flexpmu_isa::cuobjdump::parse;
    let Some(root) = checkout() else {
        return;
    };
    let mut files = Vec::new();
    let listing =
        |name: &str| name.ends_with(".sass") || (name.contains("sass") && name.ends_with(".txt"));
    files_under(&root.join("applications"), &listing, &mut files);
    let mut disagree = Vec::new();
    let mut figures = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let listed = parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        for (k, instruction) in listed.iter().enumerate() {
            let at = format!("{name}:{}", instruction.line);
            // The words print as cuobjdump listed them (its spacing
            // aside, and the end marker it leaves unsaid) ...
            let printed =
                cuobjdump::print(&instruction.words).unwrap_or_else(|e| panic!("{at}: {e}"));
            if compact(&printed).replace(".END", "") != compact(&instruction.text) {
                disagree.push(format!(
                    "{at}: `{}` prints as `{printed}`",
                    instruction.text
                ));
            }
            // ... and the listing's text reads as the words, the last
            // instruction's end marker (bits 33..32 = 01) aside.
            let mut expected = instruction.words.clone();
            if k + 1 == listed.len() && expected.len() == 2 && expected[1] & 3 == 1 {
                expected[1] &= !3;
            }
            if cuobjdump::assemble(&instruction.text).as_ref() != Ok(&expected) {
                disagree.push(format!(
                    "{at}: `{}` does not read as its words",
                    instruction.text
                ));
            }
            let stage = decode(value(
                instruction.words[0],
                instruction.words.get(1).copied(),
            ));
            let listed_as = named(&instruction.text);
            if listed_as != Some(stage.operation) {
                disagree.push(format!(
                    "{name}:{}: `{}` names {listed_as:?}, the decode stage reads {:?}",
                    instruction.line, instruction.text, stage.operation
                ));
            }
        }
        // `flexpmu asm` takes the listing by its words.
        let listed_words: Vec<u32> = listed.iter().flat_map(|i| i.words.clone()).collect();
        let assembled = flexpmu_isa::asm::assemble(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(assembled.values(), listed_words, "{name}");
        // The ROM beside it, instruction by instruction.
        let rom_file = rom_beside(file);
        let rom = parse_tp_vhdl(&std::fs::read_to_string(&rom_file).unwrap(), &name).unwrap();
        let words: Vec<u32> = rom.iter().map(|w| w.value).collect();
        let mut at = 0;
        let mut equal = 0;
        for instruction in &listed {
            let n = instruction.words.len();
            if words.get(at..at + n) == Some(&instruction.words[..]) {
                equal += 1;
            }
            at += n;
        }
        let folder = name.trim_start_matches("applications/");
        figures.push((
            folder.split('/').next().unwrap().to_string(),
            listed.len(),
            equal,
        ));
    }
    assert!(
        disagree.is_empty(),
        "{} disagree:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
    // Instructions, and how many equal the ROM's: FFT's and edge's ROMs
    // are their listings; the others' were edited by hand after
    // compiling (parameter offsets, the first ISET, a RET more).
    let expected = [
        ("FFT", 174, 174),
        ("MxM_optimized_Float", 173, 164),
        ("Reduction", 68, 64),
        ("Scalar_product_vectors", 69, 69),
        ("Sort", 35, 33),
        ("VectorAdd_float", 11, 9),
        ("VectorAdd_float", 11, 9),
        ("VectorAdd_integer", 11, 9),
        ("edge", 373, 373),
        ("rsqrt", 9, 7),
    ];
    let figures: Vec<(&str, usize, usize)> = figures
        .iter()
        .map(|(f, n, e)| (f.as_str(), *n, *e))
        .collect();
    assert_eq!(figures, expected);
}

/// Every shipped ROM disassembled (each instruction a mnemonic: the
/// subset's, or cuobjdump's syntax for the rest) assembles back to the
/// ROM, word for word, with flexpmu's assembler.
#[test]
fn every_shipped_rom_disassembles_to_mnemonics_that_assemble_back() {
    use flexpmu_isa::{asm, disasm};
    let Some(root) = checkout() else {
        return;
    };
    let files = shipped_roms(&root);
    let (mut instructions, mut subsets_own) = (0, 0);
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let rom = parse_tp_vhdl(&std::fs::read_to_string(file).unwrap(), &name).unwrap();
        let listing = disasm::disassemble(&rom);
        let source: String = listing
            .entries
            .iter()
            .map(|e| format!("{}\n", e.text()))
            .collect();
        assert!(
            !source.contains("raw "),
            "{name}: a word without a mnemonic:\n{source}"
        );
        let program = asm::assemble(&source, &name).unwrap_or_else(|e| panic!("{e}"));
        let words: Vec<u32> = rom.iter().map(|w| w.value).collect();
        assert_eq!(program.values().len(), words.len(), "{name}");
        // Two texts the subset encodes its own way: its `NOP` carries the
        // end marker (bits 33..32 = 01) and its `SSY target` the guard
        // word 0x00000780, where cuobjdump's have neither; those come
        // back in the subset's encoding.
        let mut at = 0;
        for entry in &listing.entries {
            let n = entry.words.len();
            let back: Vec<u32> = program.values()[at..at + n].to_vec();
            if back != entry.words {
                let text = entry.text();
                let theirs = match text.as_str() {
                    "NOP" => back == [entry.words[0], entry.words[1] | 1],
                    _ => text.starts_with("SSY ") && back == [entry.words[0], 0x780],
                };
                assert!(
                    theirs,
                    "{name} word {at}: `{text}` assembles to {back:08x?}, not {:08x?}",
                    entry.words
                );
                subsets_own += 1;
            }
            at += n;
        }
        instructions += listing.entries.len();
    }
    assert_eq!((instructions, subsets_own), (2105, 120));
}
