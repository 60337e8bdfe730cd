//! One fault's row of the detection matrix: the candidates whose counter
//! would end at another count than in the golden run, and in which
//! channels' windows (a candidate placed on channel k counts in channel
//! k's COUNTING cycles).
//!
//! Stored in the results file as one compact string: groups of
//! `MASK:INDICES` joined by `;`, MASK the channels as 4 hex digits,
//! INDICES candidate indices ascending as ranges (`ffff:3-7,12;0001:40`).
//! Most faults that reveal anything reveal it in every channel that
//! counts, so a row is usually one group of a few ranges.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most candidates a row may name (bounds what a read allocates).
pub const MAX_CANDIDATES: usize = 1 << 20;

/// Candidates revealing a fault, each with its channel mask (not 0),
/// ascending by candidate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Revealed(Vec<(u32, u16)>);

impl Revealed {
    /// From per-candidate channel masks (0: not revealed).
    pub fn from_masks(masks: &[u16]) -> Revealed {
        Revealed(
            masks
                .iter()
                .enumerate()
                .filter(|(_, &m)| m != 0)
                .map(|(i, &m)| (i as u32, m))
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `(candidate, channel mask)`, ascending by candidate.
    pub fn iter(&self) -> impl Iterator<Item = (usize, u16)> + '_ {
        self.0.iter().map(|&(c, m)| (c as usize, m))
    }

    /// The channel mask of candidate `c` (0: it does not reveal the fault).
    pub fn mask(&self, c: usize) -> u16 {
        self.0
            .binary_search_by_key(&(c as u32), |&(i, _)| i)
            .map_or(0, |at| self.0[at].1)
    }

    /// The highest candidate index named.
    pub fn max_candidate(&self) -> Option<usize> {
        self.0.last().map(|&(c, _)| c as usize)
    }
}

impl fmt::Display for Revealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut groups: BTreeMap<std::cmp::Reverse<u16>, Vec<u32>> = BTreeMap::new();
        for &(c, m) in &self.0 {
            groups.entry(std::cmp::Reverse(m)).or_default().push(c);
        }
        for (g, (mask, indices)) in groups.iter().enumerate() {
            if g > 0 {
                f.write_str(";")?;
            }
            write!(f, "{:04x}:", mask.0)?;
            let mut i = 0;
            let mut first = true;
            while i < indices.len() {
                let mut j = i;
                while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
                    j += 1;
                }
                if !first {
                    f.write_str(",")?;
                }
                first = false;
                if j == i {
                    write!(f, "{}", indices[i])?;
                } else {
                    write!(f, "{}-{}", indices[i], indices[j])?;
                }
                i = j + 1;
            }
        }
        Ok(())
    }
}

impl std::str::FromStr for Revealed {
    type Err = String;

    fn from_str(text: &str) -> Result<Revealed, String> {
        let mut pairs = Vec::new();
        if text.is_empty() {
            return Ok(Revealed(pairs));
        }
        for group in text.split(';') {
            let (mask, indices) = group
                .split_once(':')
                .ok_or_else(|| format!("`{group}`: expected MASK:INDICES"))?;
            let mask = u16::from_str_radix(mask, 16)
                .ok()
                .filter(|&m| m != 0 && mask.len() == 4)
                .ok_or_else(|| {
                    format!("`{mask}`: expected a channel mask of 4 hex digits, not 0")
                })?;
            for range in indices.split(',') {
                let index = |s: &str| {
                    s.parse::<u32>()
                        .ok()
                        .filter(|&i| (i as usize) < MAX_CANDIDATES)
                        .ok_or_else(|| {
                            format!("`{s}`: expected a candidate index below {MAX_CANDIDATES}")
                        })
                };
                let (lo, hi) = match range.split_once('-') {
                    Some((lo, hi)) => (index(lo)?, index(hi)?),
                    None => (index(range)?, index(range)?),
                };
                if lo > hi || pairs.len() + (hi - lo) as usize >= MAX_CANDIDATES {
                    return Err(format!("`{range}`: not an ascending range of candidates"));
                }
                pairs.extend((lo..=hi).map(|c| (c, mask)));
            }
        }
        pairs.sort_unstable();
        if pairs.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err("a candidate named twice".into());
        }
        Ok(Revealed(pairs))
    }
}

impl Serialize for Revealed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Revealed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Revealed, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_back_as_written() {
        let mut masks = vec![0u16; 50];
        for c in [3, 4, 5, 6, 7, 12] {
            masks[c] = 0xffff;
        }
        masks[40] = 0x0001;
        let row = Revealed::from_masks(&masks);
        assert_eq!(row.to_string(), "ffff:3-7,12;0001:40");
        let back: Revealed = row.to_string().parse().unwrap();
        assert_eq!(back, row);
        assert_eq!(back.mask(40), 1);
        assert_eq!(back.mask(8), 0);
        assert_eq!(back.max_candidate(), Some(40));
        assert_eq!("".parse::<Revealed>().unwrap(), Revealed::default());
    }

    #[test]
    fn a_bad_row_is_an_error() {
        for bad in [
            "ffff",
            "0000:1",
            "fff:1",
            "ffff:3-1",
            "ffff:1;ffff:1",
            "ffff:x",
            "ffff:99999999",
        ] {
            assert!(bad.parse::<Revealed>().is_err(), "{bad}");
        }
    }
}
