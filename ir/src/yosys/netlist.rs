//! Yosys' JSON netlist (`write_json`), as read: modules with their ports,
//! cells and named nets, every connection a list of bits (a net's number,
//! or a constant `0`, `1`, `x`, `z`). Read with serde_json into these
//! types, then checked ([`Netlist::read`]): what the importer relies on
//! holds before it starts.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One bit of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bit {
    /// A net, by its number (2 and up).
    Net(u64),
    Zero,
    One,
    /// Undefined (`x`) or high impedance (`z`).
    Undefined,
    HighImpedance,
}

impl<'de> Deserialize<'de> for Bit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bit, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Net(u64),
            Const(String),
        }
        match Raw::deserialize(d)? {
            Raw::Net(n) => Ok(Bit::Net(n)),
            Raw::Const(c) => match c.as_str() {
                "0" => Ok(Bit::Zero),
                "1" => Ok(Bit::One),
                "x" => Ok(Bit::Undefined),
                "z" => Ok(Bit::HighImpedance),
                other => Err(serde::de::Error::custom(format!(
                    "a bit is a net number or one of \"0\", \"1\", \"x\", \"z\", not {other:?}"
                ))),
            },
        }
    }
}

/// A parameter or attribute value: Yosys writes a number for a 32-bit
/// integer, a string of `0`/`1`/`x`/`z` for other constants, and a string
/// with a space at its end for a text.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Number(i64),
    Text(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PortDirection {
    Input,
    Output,
    Inout,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Port {
    pub direction: PortDirection,
    pub bits: Vec<Bit>,
    #[serde(default)]
    pub signed: u8,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Cell {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub parameters: BTreeMap<String, Value>,
    #[serde(default)]
    pub attributes: BTreeMap<String, Value>,
    #[serde(default)]
    pub port_directions: BTreeMap<String, PortDirection>,
    pub connections: BTreeMap<String, Vec<Bit>>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct NetName {
    #[serde(default)]
    pub hide_name: u8,
    pub bits: Vec<Bit>,
    #[serde(default)]
    pub attributes: BTreeMap<String, Value>,
}

/// One module: its ports, cells and named nets, each in the file's order.
#[derive(Clone, Debug, Deserialize)]
pub struct Module {
    #[serde(default)]
    pub attributes: BTreeMap<String, Value>,
    #[serde(default, deserialize_with = "in_order")]
    pub ports: Vec<(String, Port)>,
    #[serde(default, deserialize_with = "in_order")]
    pub cells: Vec<(String, Cell)>,
    #[serde(default, deserialize_with = "in_order")]
    pub netnames: Vec<(String, NetName)>,
}

/// A JSON object as its (name, value) pairs, in the file's order.
fn in_order<'de, D, T>(d: D) -> Result<Vec<(String, T)>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Pairs<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Pairs<T> {
        type Value = Vec<(String, T)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut pairs = Vec::new();
            while let Some(pair) = map.next_entry()? {
                pairs.push(pair);
            }
            Ok(pairs)
        }
    }
    d.deserialize_map(Pairs(std::marker::PhantomData))
}

/// A whole `write_json` file.
#[derive(Clone, Debug, Deserialize)]
pub struct Netlist {
    #[serde(default)]
    pub creator: String,
    pub modules: BTreeMap<String, Module>,
}

/// The largest netlist file read (FlexGripPlus' SM is about 135 MB).
pub const MAX_NETLIST_BYTES: u64 = 4 << 30;

/// Why a netlist file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {bytes} bytes; a netlist is read up to {MAX_NETLIST_BYTES} bytes")]
    TooLarge { path: String, bytes: u64 },
    #[error("{path}:{line}:{column}: not a Yosys JSON netlist: {what}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        what: String,
    },
}

impl Netlist {
    /// Reads the `write_json` file at `path`, bounded by
    /// [`MAX_NETLIST_BYTES`].
    pub fn read(path: &std::path::Path) -> Result<Netlist, ReadError> {
        let shown = path.display().to_string();
        let io = |source| ReadError::Io {
            path: shown.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        if bytes > MAX_NETLIST_BYTES {
            return Err(ReadError::TooLarge { path: shown, bytes });
        }
        let reader = std::io::BufReader::new(file);
        serde_json::from_reader(reader).map_err(|e| json_error(&shown, &e))
    }

    /// Reads a netlist from `text` (`path` names it in errors).
    pub fn parse(path: &str, text: &str) -> Result<Netlist, ReadError> {
        serde_json::from_str(text).map_err(|e| json_error(path, &e))
    }
}

fn json_error(path: &str, e: &serde_json::Error) -> ReadError {
    let what = e.to_string();
    // serde_json's message ends with " at line L column C".
    let what = match what.rfind(" at line ") {
        Some(at) => what[..at].to_string(),
        None => what,
    };
    ReadError::Json {
        path: path.to_string(),
        line: e.line(),
        column: e.column(),
        what,
    }
}
