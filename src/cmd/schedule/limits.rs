//! The sizes of a `weft schedule` instance, counted while its JSON is parsed
//! and before anything is built from it (issue #38, `docs/limits.md`).
//!
//! [`count`] streams the text through `serde_json`'s deserializer with visitors
//! that keep only counters (cores, banks, slabs per core, bank entries), so an
//! instance of 10^6 slabs costs a pass over its text and no memory; only an
//! instance within the limits is then parsed into a `serde_json::Value` for the
//! runtime's instance parsers. The counters follow what those parsers read
//! from the value: a field that is absent or not a non-negative integer counts
//! as 0, a list that is not an array as empty, and a key given twice counts
//! once, with its last value (as `serde_json::Map` keeps it). The grammar and
//! the nesting limit are `serde_json`'s own, so a text [`count`] rejects is one
//! `serde_json::from_str` rejects, with the same message.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// What the limits are checked against.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    /// `cores`.
    pub cores: u64,
    /// `banks` (slab instances).
    pub banks: u64,
    /// `window` (iteration-block instances).
    pub window: u64,
    /// `mem_banks`.
    pub mem_banks: u64,
    /// `llc_banks`.
    pub llc_banks: u64,
    /// The `slabs` lists.
    pub slabs: SlabCounts,
    /// The `blocks` list.
    pub blocks: BlockCounts,
}

/// Sizes of a slab instance's `slabs` (one list of slabs per core).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SlabCounts {
    /// The first core whose slab count exceeds the per-core limit, with that count.
    pub first_over: Option<(usize, u64)>,
    /// Slabs over all cores.
    pub slabs: u64,
    /// Bank entries over all slabs.
    pub entries: u64,
}

/// Sizes of an iteration-block instance's `blocks`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct BlockCounts {
    /// Blocks.
    pub blocks: u64,
    /// `mem` and `llc` entries over all blocks.
    pub entries: u64,
}

/// Counts the sizes of the instance in `text`, with `per_core_limit` the slab
/// count per core above which [`SlabCounts::first_over`] records a core.
pub fn count(text: &str, per_core_limit: u64) -> Result<Counts, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let counts = Top { per_core_limit }.deserialize(&mut de)?;
    de.end()?;
    Ok(counts)
}

/// Implements the `visit_*` methods of every JSON type other than those the
/// visitor handles as `$value` (the field is not what the parser expects).
macro_rules! otherwise {
    ($value:expr) => {
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// Drains a list or an object whose contents do not count.
macro_rules! ignore_seq {
    ($value:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
            while s.next_element::<IgnoredAny>()?.is_some() {}
            Ok($value)
        }
    };
}

macro_rules! ignore_map {
    ($value:expr) => {
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($value)
        }
    };
}

/// The top-level object.
struct Top {
    per_core_limit: u64,
}

impl<'de> DeserializeSeed<'de> for Top {
    type Value = Counts;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Counts, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top {
    type Value = Counts;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an instance")
    }
    otherwise!(Counts::default());
    ignore_seq!(Counts::default());
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Counts, E> {
        Ok(Counts::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Counts, A::Error> {
        let mut c = Counts::default();
        while let Some(key) = m.next_key::<String>()? {
            match key.as_str() {
                "cores" => c.cores = m.next_value_seed(Number)?,
                "banks" => c.banks = m.next_value_seed(Number)?,
                "window" => c.window = m.next_value_seed(Number)?,
                "mem_banks" => c.mem_banks = m.next_value_seed(Number)?,
                "llc_banks" => c.llc_banks = m.next_value_seed(Number)?,
                "slabs" => {
                    c.slabs = m.next_value_seed(Slabs {
                        per_core_limit: self.per_core_limit,
                    })?
                }
                "blocks" => c.blocks = m.next_value_seed(Blocks)?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(c)
    }
}

/// A count field: its value if it is a non-negative integer, else 0.
struct Number;

impl<'de> DeserializeSeed<'de> for Number {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Number {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a count")
    }
    otherwise!(0);
    ignore_seq!(0);
    ignore_map!(0);
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }
}

/// The length of a list (0 if it is not one).
struct Len;

impl<'de> DeserializeSeed<'de> for Len {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Len {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list")
    }
    otherwise!(0);
    ignore_map!(0);
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<u64, A::Error> {
        let mut n = 0;
        while s.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
}

/// One core's list of slabs: (slabs, bank entries).
struct CoreSlabs;

impl<'de> DeserializeSeed<'de> for CoreSlabs {
    type Value = (u64, u64);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(u64, u64), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CoreSlabs {
    type Value = (u64, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of slabs")
    }
    otherwise!((0, 0));
    ignore_map!((0, 0));
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(u64, u64), E> {
        Ok((0, 0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(u64, u64), A::Error> {
        let (mut slabs, mut entries) = (0, 0);
        while let Some(len) = s.next_element_seed(Len)? {
            slabs += 1;
            entries += len;
        }
        Ok((slabs, entries))
    }
}

/// `slabs`: a list per core.
struct Slabs {
    per_core_limit: u64,
}

impl<'de> DeserializeSeed<'de> for Slabs {
    type Value = SlabCounts;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<SlabCounts, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Slabs {
    type Value = SlabCounts;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("slabs per core")
    }
    otherwise!(SlabCounts::default());
    ignore_map!(SlabCounts::default());
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<SlabCounts, E> {
        Ok(SlabCounts::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<SlabCounts, A::Error> {
        let mut c = SlabCounts::default();
        let mut core = 0;
        while let Some((slabs, entries)) = s.next_element_seed(CoreSlabs)? {
            if c.first_over.is_none() && slabs > self.per_core_limit {
                c.first_over = Some((core, slabs));
            }
            c.slabs += slabs;
            c.entries += entries;
            core += 1;
        }
        Ok(c)
    }
}

/// One iteration block: its `mem` and `llc` entries.
struct Block;

impl<'de> DeserializeSeed<'de> for Block {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Block {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an iteration block")
    }
    otherwise!(0);
    ignore_seq!(0);
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<u64, A::Error> {
        let (mut mem, mut llc) = (0, 0);
        while let Some(key) = m.next_key::<String>()? {
            match key.as_str() {
                "mem" => mem = m.next_value_seed(Len)?,
                "llc" => llc = m.next_value_seed(Len)?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(mem + llc)
    }
}

/// `blocks`: the list of iteration blocks.
struct Blocks;

impl<'de> DeserializeSeed<'de> for Blocks {
    type Value = BlockCounts;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<BlockCounts, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Blocks {
    type Value = BlockCounts;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("iteration blocks")
    }
    otherwise!(BlockCounts::default());
    ignore_map!(BlockCounts::default());
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<BlockCounts, E> {
        Ok(BlockCounts::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<BlockCounts, A::Error> {
        let mut c = BlockCounts::default();
        while let Some(entries) = s.next_element_seed(Block)? {
            c.blocks += 1;
            c.entries += entries;
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The counts the previous implementation took from a parsed value.
    fn from_value(v: &Value, per_core_limit: u64) -> Counts {
        let num = |f: &str| v.get(f).and_then(Value::as_u64).unwrap_or(0);
        fn arr(x: Option<&Value>) -> &[Value] {
            x.and_then(Value::as_array).map_or(&[][..], |a| a)
        }
        let mut c = Counts {
            cores: num("cores"),
            banks: num("banks"),
            window: num("window"),
            mem_banks: num("mem_banks"),
            llc_banks: num("llc_banks"),
            ..Counts::default()
        };
        for (core, l) in arr(v.get("slabs")).iter().enumerate() {
            let l = arr(Some(l));
            if c.slabs.first_over.is_none() && l.len() as u64 > per_core_limit {
                c.slabs.first_over = Some((core, l.len() as u64));
            }
            c.slabs.slabs += l.len() as u64;
            c.slabs.entries += l.iter().map(|s| arr(Some(s)).len() as u64).sum::<u64>();
        }
        for b in arr(v.get("blocks")) {
            c.blocks.blocks += 1;
            c.blocks.entries += ["mem", "llc"]
                .iter()
                .map(|f| arr(b.get(f)).len() as u64)
                .sum::<u64>();
        }
        c
    }

    /// Streaming counts equal the counts of the parsed value, on valid
    /// instances and on odd ones (wrong types, duplicate keys, negative and
    /// fractional numbers, nested junk); texts that are not JSON are refused
    /// with `serde_json`'s own message.
    #[test]
    fn streaming_counts_match_the_parsed_value() {
        let texts = [
            r#"{"cores": 2, "banks": 4, "slabs": [[[0, 1], [2]], [[3], [0, 2]]]}"#,
            r#"{"cores": 2, "window": 2, "mem_banks": 2, "llc_banks": 3,
                "blocks": [{"mem": [1, 0], "llc": [0, 2]}, {"mem": [0, 3], "llc": [1]}]}"#,
            r#"{"cores": -1, "banks": 1.5, "window": "7", "mem_banks": null, "llc_banks": [1],
                "slabs": [7, [[1], 2, {"a": [1]}, [[], [3, [4]]]], "x", [[1, 2, 3]]],
                "blocks": [1, {"mem": 3, "llc": [1], "mem": [1, 2]}, [], {"z": {}}]}"#,
            r#"{"cores": 4, "cores": 18446744073709551615, "banks": 18446744073709551616,
                "slabs": [[[1]]], "slabs": [[], [[1], [2], [3]], [[4], [5], [6], [7]]],
                "other": {"slabs": [[[1]]]}}"#,
            r#"[{"cores": 4}]"#,
            r#""cores""#,
            "-0",
            "{}",
        ];
        for t in texts {
            let v: Value = serde_json::from_str(t).unwrap();
            assert_eq!(count(t, 2).unwrap(), from_value(&v, 2), "{t}");
        }
        let bad = [
            "",
            "{",
            r#"{"cores": 2,}"#,
            r#"{"slabs": [[[1]]]} x"#,
            r#"{"slabs": [[[1]]"#,
            r#"{"cores": NaN}"#,
            r#"{"slabs": [[["\x"]]]}"#,
            r#"{"blocks": [{"mem": [1 2]}]}"#,
        ];
        for t in bad {
            let want = serde_json::from_str::<Value>(t).unwrap_err().to_string();
            assert_eq!(count(t, 2).unwrap_err().to_string(), want, "{t}");
        }
    }
}
