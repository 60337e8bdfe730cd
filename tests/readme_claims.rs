//! The README's commands whose figures are cheap to check, run as a user
//! would, and each figure their comment states found in what the command
//! prints: a README whose figure goes stale fails here.
//!
//! A figure is a number of the comment outside parentheses (those are
//! asides: another tool's figure, a reference), not a time (`16 s`,
//! `5 min`) or a machine (`2-core`); it must appear in the output as a
//! whole number (with or without thousands separators).

mod common;

use common::{stderr, stdout, temp, workspace};

/// The commands cheap enough for the suite, as the README writes them:
/// flexpmu's own, no external tool, at most a few seconds each.
const CHEAP: [&str; 6] = [
    "flexpmu run examples/appendix_a.sass",
    "flexpmu run examples/appendix_a.sass --threads 512 --blocks 4 --no-pmu",
    "flexpmu asm examples/appendix_a.sass -o TP_instructions.vhd",
    "flexpmu validate",
    "flexpmu faults list examples/appendix_a.sass",
    "flexpmu sim examples/thesis_fig3_1.scn",
];

/// The README's shell lines `flexpmu … # comment`.
fn commented_commands(readme: &str) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    let mut in_shell = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_shell = line == "```sh";
            continue;
        }
        if !in_shell || !line.starts_with("flexpmu ") {
            continue;
        }
        if let Some((command, comment)) = line.split_once(" # ") {
            lines.push((command.trim().to_string(), comment.trim().to_string()));
        }
    }
    lines
}

/// The figures of a comment (see the module's doc).
fn figures(comment: &str) -> Vec<u64> {
    let mut outside = String::new();
    let mut depth = 0;
    for c in comment.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    let chars: Vec<char> = outside.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit()
            || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '.'))
        {
            i += 1;
            continue;
        }
        let mut digits = String::new();
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (chars[i] == ',' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            if chars[i] != ',' {
                digits.push(chars[i]);
            }
            i += 1;
        }
        let rest: String = chars[i..].iter().collect();
        let unit = ["-core", ".", " s", " min", " ms", " h"]
            .iter()
            .any(|u| rest.starts_with(u) && !rest.starts_with(" sites"));
        if !unit {
            found.push(digits.parse().unwrap());
        }
    }
    found
}

/// Whether `number` is a whole number of `text` (`3126` or `3,126`).
fn holds(text: &str, number: u64) -> bool {
    let plain = text.replace(',', "");
    let digits = number.to_string();
    plain.match_indices(&digits).any(|(at, _)| {
        let before = plain[..at].chars().last();
        let after = plain[at + digits.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn the_figures_of_the_readme_are_what_the_commands_print() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = temp();
    let mut checked = 0;
    let commands = commented_commands(&readme);
    for cheap in CHEAP {
        assert!(
            commands.iter().any(|(c, _)| c == cheap),
            "the README has no `{cheap}  # …` line any more: update CHEAP"
        );
    }
    for (command, comment) in commands {
        if !CHEAP.contains(&command.as_str()) {
            continue;
        }
        let wanted = figures(&comment);
        eprintln!("{command}: {wanted:?}");
        let mut args: Vec<String> = command
            .split_whitespace()
            .skip(1)
            .map(|a| match a.starts_with("examples/") {
                true => root.join(a).display().to_string(),
                false => a.to_string(),
            })
            .collect();
        if args == ["validate"] {
            args.push(root.join("examples/rbe").display().to_string());
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexpmu"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let said = stdout(&out) + &stderr(&out);
        assert!(out.status.success(), "{command}: {said}");
        for figure in &wanted {
            assert!(
                holds(&said, *figure),
                "README: `{command}  # {comment}`: {figure} is not in what it prints:\n{said}"
            );
        }
        checked += wanted.len();
    }
    // The README's figures of these commands (3,126 cycles, 161,725 cycles,
    // 42 words, 7 rbe, 24 counters, 34 runs, the faults list's three).
    assert!(checked >= 9, "only {checked} figures checked");
}

#[test]
fn figures_are_read_from_comments_as_the_module_says() {
    assert_eq!(figures("one warp: 3,126 cycles"), [3126]);
    assert_eq!(
        figures("305 sites, 4,871 bits, 11,135 faults (collapsed from 47,456)"),
        [305, 4871, 11135]
    );
    assert_eq!(figures("9,742 faults, 16 s on a 2-core machine"), [9742]);
    assert!(holds("took 3126 cycles", 3126) && holds("3,126 cycles", 3126));
    assert!(!holds("31260 cycles", 3126) && !holds("1.3126", 3126));
    assert_eq!(figures("2.123 ns critical path, fmax 433 MHz"), [433]);
}
