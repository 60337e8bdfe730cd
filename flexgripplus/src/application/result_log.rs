//! The memory FlexGripPlus' testbench reads back when the kernel is done
//! (`read_data.vhd`): `READ_DATA_SIZE + 1` words from address 0, one a
//! line as `AAAAA DDDDDDDD` (`hstr` of the 18-bit address and the word;
//! a nibble with undefined bits prints as a letter other than a hex
//! digit, `u` or `X`). An application ships the log a run of its left
//! (`gpgpu_rdata.log`) or its expected result (`Golden_memory_result.log`).

use std::path::Path;

use super::error::{read_text, AppError};

/// One word of a read-back: its byte address and value (`None`: some
/// bit undefined).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReadWord {
    pub address: u32,
    pub value: Option<u32>,
}

/// A read-back as the testbench logs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultLog {
    pub words: Vec<ReadWord>,
}

/// How a read-back compares with a result file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WordsCompared {
    /// Words the result file lists.
    pub compared: usize,
    pub equal: usize,
    /// The result file's words the run did not read back (a log longer
    /// than the launch's READ_DATA_SIZE).
    pub not_read: usize,
    /// Words the result file has undefined.
    pub undefined_in_result: usize,
    /// The first differences: (address, the run's, the file's).
    pub first_differences: Vec<(u32, Option<u32>, Option<u32>)>,
}

/// Differences kept in [`WordsCompared::first_differences`].
const KEPT_DIFFERENCES: usize = 8;

impl ResultLog {
    pub fn read(path: &Path) -> Result<ResultLog, AppError> {
        ResultLog::parse(&read_text(path)?, &path.display().to_string())
    }

    /// The log `text` (the file `file`); a line that is not an address
    /// and a word is an error at its line.
    pub fn parse(text: &str, file: &str) -> Result<ResultLog, AppError> {
        let mut words = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line_number = index + 1;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let word = line
                .split_once(' ')
                .and_then(|(address, value)| {
                    let address = u32::from_str_radix(address, 16).ok()?;
                    let value = value.trim();
                    (value.len() == 8 && value.chars().all(|c| c.is_ascii_alphanumeric()))
                        .then(|| u32::from_str_radix(value, 16).ok())
                        .map(|value| ReadWord { address, value })
                })
                .ok_or_else(|| {
                    AppError::at(
                        file,
                        line_number,
                        format!(
                            "expected `AAAAA DDDDDDDD` (a hex address and an 8-digit word), found `{}`",
                            flexpmu_isa::source::shorten(line)
                        ),
                    )
                })?;
            words.push(word);
        }
        Ok(ResultLog { words })
    }

    /// The log as the testbench prints it.
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(self.words.len() * 15);
        for word in &self.words {
            let value = match word.value {
                Some(v) => format!("{v:08X}"),
                None => "UUUUUUUU".into(),
            };
            text += &format!("{:05X} {value}\n", word.address);
        }
        text
    }

    /// `self` (a run's read-back) word by word against `result` (a
    /// shipped file), by address.
    pub fn compare(&self, result: &ResultLog) -> WordsCompared {
        let ours: std::collections::HashMap<u32, Option<u32>> =
            self.words.iter().map(|w| (w.address, w.value)).collect();
        let mut compared = WordsCompared::default();
        for word in &result.words {
            compared.compared += 1;
            if word.value.is_none() {
                compared.undefined_in_result += 1;
            }
            match ours.get(&word.address) {
                None => compared.not_read += 1,
                Some(value) if *value == word.value => compared.equal += 1,
                Some(value) => {
                    if compared.first_differences.len() < KEPT_DIFFERENCES {
                        compared
                            .first_differences
                            .push((word.address, *value, word.value));
                    }
                }
            }
        }
        compared
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_reads_and_prints_as_the_testbench_writes_it() {
        let text = "00000 00000222\n00004 3F842116\n00008 uuuuuuuu\n";
        let log = ResultLog::parse(text, "r.log").unwrap();
        assert_eq!(
            log.words,
            [
                ReadWord {
                    address: 0,
                    value: Some(0x222)
                },
                ReadWord {
                    address: 4,
                    value: Some(0x3f84_2116)
                },
                ReadWord {
                    address: 8,
                    value: None
                },
            ]
        );
        assert_eq!(
            log.text(),
            "00000 00000222\n00004 3F842116\n00008 UUUUUUUU\n"
        );
        let e = ResultLog::parse("00000 00000222\n0000 12\n", "r.log").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("r.log:2: expected `AAAAA DDDDDDDD`"),
            "{e}"
        );
    }

    #[test]
    fn words_compare_by_address() {
        let ours = ResultLog::parse("00000 00000001\n00004 00000002\n", "a").unwrap();
        let file =
            ResultLog::parse("00000 00000001\n00004 00000003\n00008 00000000\n", "b").unwrap();
        let compared = ours.compare(&file);
        assert_eq!(
            (compared.compared, compared.equal, compared.not_read),
            (3, 1, 1)
        );
        assert_eq!(compared.first_differences, [(4, Some(2), Some(3))]);
    }
}
