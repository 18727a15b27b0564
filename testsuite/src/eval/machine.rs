//! Machines of the sensitivity sweeps: a `weft-memsim` preset plus integer
//! overrides of dotted TOML paths (`dram.banks_per_group`, `llc.size_bytes`,
//! `dram.row_bytes`, `core.count`), materialized as a TOML file that both the
//! runtime (`WEFT_MACHINE=<file>`) and the simulator load, so they always agree.
//!
//! Geometry changes keep the machine consistent the way §4.5.4 varies one
//! parameter "keeping the others at their defaults": changing the banks per bank
//! group or the row size moves address bits between the `bank` / `column` field
//! and the top `row` field of the address mapping, and scales `dram.rows` so the
//! DRAM capacity stays the same. Every result is validated by
//! `MachineConfig::from_toml_str`; an override the preset cannot take is an
//! error naming the path, reported by the harness as "not available".

use super::backend::MachineSpec;
use weft_memsim::config::MachineConfig;

fn log2(v: i64) -> Option<i64> {
    (v > 0 && (v & (v - 1)) == 0).then(|| 63 - i64::from(v.leading_zeros()))
}

/// Moves `delta` bits into field `field` of a mapping string and out of its
/// last `row` field.
fn shift_bits(mapping: &str, field: &str, delta: i64) -> Result<String, String> {
    let mut parts: Vec<(String, i64)> = Vec::new();
    for p in mapping.split_whitespace() {
        let (n, w) = p
            .split_once(':')
            .ok_or_else(|| format!("address mapping field `{p}` has no width"))?;
        let w: i64 = w
            .parse()
            .map_err(|_| format!("address mapping field `{p}` has a bad width"))?;
        parts.push((n.to_string(), w));
    }
    let fi = parts
        .iter()
        .position(|(n, _)| n == field)
        .ok_or_else(|| format!("address mapping has no `{field}` field"))?;
    let ri = parts
        .iter()
        .rposition(|(n, _)| n == "row")
        .ok_or("address mapping has no `row` field")?;
    parts[fi].1 += delta;
    parts[ri].1 -= delta;
    if parts[fi].1 < 0 || parts[ri].1 < 0 {
        return Err(format!(
            "cannot move {delta} bits into `{field}`: a field would have negative width"
        ));
    }
    Ok(parts
        .iter()
        .map(|(n, w)| format!("{n}:{w}"))
        .collect::<Vec<_>>()
        .join(" "))
}

fn get_int(t: &toml::Table, path: &str) -> Option<i64> {
    let mut cur = t;
    let mut it = path.split('.').peekable();
    while let Some(k) = it.next() {
        if it.peek().is_none() {
            return cur.get(k)?.as_integer();
        }
        cur = cur.get(k)?.as_table()?;
    }
    None
}

fn set_value(t: &mut toml::Table, path: &str, v: toml::Value) -> Result<(), String> {
    let mut cur = t;
    let keys: Vec<&str> = path.split('.').collect();
    for (i, k) in keys.iter().enumerate() {
        if i + 1 == keys.len() {
            if !cur.contains_key(*k) {
                return Err(format!("machine config has no field `{path}`"));
            }
            cur.insert((*k).to_string(), v);
            return Ok(());
        }
        cur = cur
            .get_mut(*k)
            .and_then(|x| x.as_table_mut())
            .ok_or_else(|| format!("machine config has no table `{}`", keys[..=i].join(".")))?;
    }
    Ok(())
}

/// The TOML text of a machine spec (validated).
pub fn materialize(spec: &MachineSpec) -> Result<String, String> {
    let cfg = MachineConfig::load(&spec.preset).map_err(|e| e.to_string())?;
    if spec.overrides.is_empty() {
        return Ok(cfg.to_toml());
    }
    let mut t: toml::Table = toml::from_str(&cfg.to_toml()).map_err(|e| e.to_string())?;
    for (path, value) in &spec.overrides {
        let old = get_int(&t, path)
            .ok_or_else(|| format!("machine config has no integer field `{path}`"))?;
        let field = match path.as_str() {
            "dram.banks_per_group" => Some("bank"),
            "dram.row_bytes" => Some("column"),
            _ => None,
        };
        if let Some(field) = field {
            let (lo, ln) = (
                log2(old).ok_or("old value not a power of two")?,
                log2(*value),
            );
            let ln = ln.ok_or_else(|| format!("`{path}` = {value} is not a power of two"))?;
            let delta = ln - lo;
            let map = t
                .get("dram")
                .and_then(|d| d.get("address_mapping"))
                .and_then(|m| m.as_str())
                .ok_or("machine config has no dram.address_mapping")?
                .to_string();
            set_value(
                &mut t,
                "dram.address_mapping",
                toml::Value::String(shift_bits(&map, field, delta)?),
            )?;
            let rows = get_int(&t, "dram.rows").ok_or("machine config has no dram.rows")?;
            let new_rows = if delta >= 0 {
                rows >> delta
            } else {
                rows << -delta
            };
            if new_rows < 1 {
                return Err(format!("`{path}` = {value} leaves no DRAM rows"));
            }
            set_value(&mut t, "dram.rows", toml::Value::Integer(new_rows))?;
        }
        set_value(&mut t, path, toml::Value::Integer(*value))?;
    }
    let text = toml::to_string(&t).map_err(|e| e.to_string())?;
    MachineConfig::from_toml_str(&text, &spec.label()).map_err(|e| e.to_string())?;
    Ok(text)
}

/// The machine variants of the evaluation (issue #36 part 1).
///
/// * `faithful` — the studies' presets as Tables 4.2 and 5.2 give them, caches
///   unshrunk (10 MB L3; 36 x 512 KB LLC), real MSHR limits and a page-bounded
///   prefetcher: the default of a run on the full inputs.
/// * `shrunk` — the same machines with the caches scaled down for the small
///   inputs of `--quick` and `--tiny`, which would otherwise fit in the LLC and
///   never reach DRAM (the dissertation's inputs exceed the LLC at least 4x,
///   §4.5.1, §5.6.1). Associativity, line size and latencies are kept:
///   `table4.2` L1 4 KiB, L2 16 KiB, L3 128 KiB; `table5.2` L1 4 KiB, L2 (LLC)
///   32 KiB per tile (1.1 MiB in all). The ch. 5 LLC is the smallest that keeps
///   eq. 5.1 meaningful: its window size IW = C / (D·n) with C the LLC capacity
///   in lines, D an iteration block's lines and n = 36 cores. With 8 KiB tiles
///   IW is 1 for every nest whose IB is a row of the full inputs (60-1600
///   lines), every core then holds one IB per window and MLP-first, CLP-first
///   and Balanced produce the same schedule; 32 KiB tiles give IW 2-9.
///
/// The machine label of every record shows the overrides, so a record says
/// which variant produced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The tables' machines, caches unshrunk.
    Faithful,
    /// Caches scaled down for small inputs.
    Shrunk,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 2] = [Variant::Faithful, Variant::Shrunk];

    /// The variant's name (`--machine`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Faithful => "faithful",
            Variant::Shrunk => "shrunk",
        }
    }

    /// The variant called `name`.
    pub fn parse(name: &str) -> Option<Variant> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The default variant for an input size: faithful for the full and paper
    /// inputs, shrunk for the quick and tiny ones.
    pub fn for_size(size: super::backend::Size) -> Variant {
        match size {
            super::backend::Size::Full | super::backend::Size::Paper => Variant::Faithful,
            _ => Variant::Shrunk,
        }
    }

    /// The overrides of the studies' presets (dotted TOML path, value).
    pub fn overrides(self) -> Vec<(super::versions::Study, String, i64)> {
        use super::versions::Study::{Ch4, Ch5};
        match self {
            Variant::Faithful => Vec::new(),
            Variant::Shrunk => vec![
                (Ch4, "l1.size_bytes".into(), 4 << 10),
                (Ch4, "l2.size_bytes".into(), 16 << 10),
                (Ch4, "llc.size_bytes".into(), 128 << 10),
                (Ch5, "l1.size_bytes".into(), 4 << 10),
                (Ch5, "llc.size_bytes".into(), 36 * (32 << 10)),
            ],
        }
    }
}

/// The `shrunk` variant's overrides (see [`Variant`]).
pub fn small_input_caches() -> Vec<(super::versions::Study, String, i64)> {
    Variant::Shrunk.overrides()
}

/// The integer at `path` of the materialized machine `spec`.
pub fn int_field(spec: &MachineSpec, path: &str) -> Result<i64, String> {
    let t: toml::Table = toml::from_str(&materialize(spec)?).map_err(|e| e.to_string())?;
    get_int(&t, path)
        .ok_or_else(|| format!("machine `{}` has no integer field `{path}`", spec.label()))
}

/// Whether `path` is an integer field of `preset`.
pub fn has_field(preset: &str, path: &str) -> Result<(), String> {
    let cfg = MachineConfig::load(preset).map_err(|e| e.to_string())?;
    let t: toml::Table = toml::from_str(&cfg.to_toml()).map_err(|e| e.to_string())?;
    get_int(&t, path)
        .map(|_| ())
        .ok_or_else(|| format!("machine preset `{preset}` has no integer field `{path}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_move_between_fields() {
        assert_eq!(
            shift_bits("offset:6 column:5 row:1 bank:1 row:17", "column", 1).unwrap(),
            "offset:6 column:6 row:1 bank:1 row:16"
        );
        assert!(shift_bits("offset:6 column:5 row:1", "column", 2).is_err());
        assert!(shift_bits("offset:6 row:5", "bank", 1).is_err());
    }

    #[test]
    fn preset_without_overrides_round_trips() {
        let text = materialize(&MachineSpec::preset("table4.2")).unwrap();
        let c = MachineConfig::from_toml_str(&text, "x").unwrap();
        assert_eq!(c, MachineConfig::load("table4.2").unwrap());
    }

    #[test]
    fn sweep_overrides_keep_the_machine_valid() {
        let base = MachineConfig::load("table4.2").unwrap();
        for (path, v) in [
            ("dram.banks_per_group", 4),
            ("dram.row_bytes", 1024),
            ("dram.row_bytes", 4096),
            ("llc.size_bytes", 12 << 20),
            ("core.count", 4),
        ] {
            let spec = MachineSpec::preset("table4.2").with(path, v);
            let text = materialize(&spec).unwrap_or_else(|e| panic!("{path}={v}: {e}"));
            let c = MachineConfig::from_toml_str(&text, "x").unwrap();
            assert_eq!(
                c.dram.capacity_bytes(),
                base.dram.capacity_bytes(),
                "{path}={v}"
            );
        }
        let c = MachineConfig::from_toml_str(
            &materialize(&MachineSpec::preset("table4.2").with("dram.banks_per_group", 4)).unwrap(),
            "x",
        )
        .unwrap();
        assert_eq!(c.dram.banks_per_group, 4);
        assert_eq!(c.dram.banks_per_rank(), base.dram.banks_per_rank() * 4);
    }

    #[test]
    fn every_sweep_point_is_a_valid_machine() {
        use crate::eval::versions::{sweeps, Knob};
        for full in [false, true] {
            let o = if full {
                crate::eval::EvalOptions::full("x")
            } else {
                crate::eval::EvalOptions::quick("x")
            };
            let spec = o.machine(crate::eval::versions::Study::Ch4);
            for sw in sweeps() {
                for &v in &sw.values {
                    let m = match sw.knob {
                        Knob::Machine { path } => spec.clone().with(path, v),
                        Knob::MachinePercent { path } => {
                            let base = int_field(&spec, path).unwrap();
                            spec.clone().with(path, base * v / 100)
                        }
                        Knob::Cores => spec.clone().with("core.count", v),
                        _ => continue,
                    };
                    materialize(&m).unwrap_or_else(|e| panic!("{} = {v}: {e}", sw.id));
                }
            }
        }
    }

    #[test]
    fn small_input_caches_are_valid_machines() {
        let mut o = crate::eval::EvalOptions::quick("x");
        o.machine_overrides = small_input_caches();
        for study in [
            crate::eval::versions::Study::Ch4,
            crate::eval::versions::Study::Ch5,
        ] {
            let spec = o.machine(study);
            let c = MachineConfig::from_toml_str(&materialize(&spec).unwrap(), "x").unwrap();
            assert!(c.llc.size_bytes <= 36 * (32 << 10), "{}", spec.label());
            assert_eq!(c.dram, MachineConfig::load(study.machine()).unwrap().dram);
        }
    }

    #[test]
    fn a_study_at_another_size_runs_on_that_sizes_machine() {
        use crate::eval::backend::{MachineSpec, Size};
        use crate::eval::versions::Study::{Ch4, Ch5};
        let mut o = crate::eval::EvalOptions::quick("x");
        assert_eq!((o.size_of(Ch4), o.size_of(Ch5)), (Size::Quick, Size::Quick));
        o.study_sizes = vec![(Ch4, crate::eval::QUICK_CH4_SIZE)];
        assert_eq!((o.size_of(Ch4), o.size_of(Ch5)), (Size::Full, Size::Quick));
        assert_eq!(o.machine(Ch4), MachineSpec::preset(Ch4.machine()));
        assert!(!o.machine(Ch5).overrides.is_empty());
        // A sweep at the quick size runs on the shrunk machine, one at the
        // full size on the study's own.
        assert_eq!(o.machine_at(Ch4, Size::Full), o.machine(Ch4));
        assert!(!o.machine_at(Ch4, Size::Quick).overrides.is_empty());
        let f = crate::eval::EvalOptions::full("x");
        assert_eq!((f.size_of(Ch4), f.size_of(Ch5)), (Size::Full, Size::Full));
    }

    #[test]
    fn faithful_variant_is_the_tables_machine() {
        use crate::eval::backend::Size;
        assert_eq!(Variant::for_size(Size::Full), Variant::Faithful);
        assert_eq!(Variant::for_size(Size::Paper), Variant::Faithful);
        assert_eq!(Variant::for_size(Size::Quick), Variant::Shrunk);
        assert_eq!(Variant::for_size(Size::Tiny), Variant::Shrunk);
        let o = crate::eval::EvalOptions::full("x");
        for study in [
            crate::eval::versions::Study::Ch4,
            crate::eval::versions::Study::Ch5,
        ] {
            let c = MachineConfig::from_toml_str(&materialize(&o.machine(study)).unwrap(), "x")
                .unwrap();
            assert_eq!(c, MachineConfig::load(study.machine()).unwrap());
        }
        let c = MachineConfig::from_toml_str(
            &materialize(&o.machine(crate::eval::versions::Study::Ch4)).unwrap(),
            "x",
        )
        .unwrap();
        assert_eq!(c.llc.size_bytes, 10 << 20);
        for v in Variant::ALL {
            assert_eq!(Variant::parse(v.name()), Some(v));
        }
    }

    #[test]
    fn unknown_paths_are_errors() {
        let e = materialize(&MachineSpec::preset("table4.2").with("dram.nonsense", 1)).unwrap_err();
        assert!(e.contains("dram.nonsense"), "{e}");
        assert!(has_field("table4.2", "llc.size_bytes").is_ok());
        assert!(has_field("table4.2", "llc.nope").is_err());
    }
}
