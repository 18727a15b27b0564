//! Golden tests: `tests/golden/in/<case>.trace` on the machine `<case>.toml`
//! must give exactly `tests/golden/out/<case>.stats.json`. `WEFT_BLESS=1`
//! rewrites the expectations.

use std::path::Path;

use weft_memsim::config::MachineConfig;
use weft_memsim::dram::simulate_trace_file;

#[test]
fn golden_traces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("WEFT_BLESS").is_some();
    let mut cases: Vec<_> = std::fs::read_dir(root.join("in"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 3);
    let mut failures = Vec::new();
    for trace in cases {
        let case = trace.file_stem().unwrap().to_string_lossy().to_string();
        let machine = MachineConfig::from_file(&trace.with_extension("toml")).unwrap();
        let stats = simulate_trace_file(&machine.dram, &trace).unwrap();
        let got = serde_json::to_value(&stats).unwrap();
        let out = root.join("out").join(format!("{case}.stats.json"));
        if bless {
            std::fs::write(&out, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let want: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(&out)
                .unwrap_or_else(|_| panic!("missing {}; run with WEFT_BLESS=1", out.display())),
        )
        .unwrap();
        if !same(&got, &want) {
            failures.push(format!(
                "{case}: got\n{}",
                serde_json::to_string_pretty(&got).unwrap()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches:\n{}",
        failures.join("\n")
    );
}

/// The hand-checkable case: table5.2 timing (tRCD = tCL = tRP = 17, tBL = 4,
/// tCWL = 12), refresh off, no command queues.
#[test]
fn hit_miss_conflict_by_hand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/in");
    let machine = MachineConfig::from_file(&root.join("hit_miss_conflict.toml")).unwrap();
    let s = simulate_trace_file(&machine.dram, &root.join("hit_miss_conflict.trace")).unwrap();
    // 0x0: miss (ACT 0, RD 17, done 38); 0x40: hit (RD 100, done 121);
    // 0x4000000: same bank, row 1: conflict (PRE 200, ACT 217, RD 234, done 255);
    // 0x800: channel 1 bank 0 miss (ACT 201, RD 218, done 239); 0x840: hit there,
    // offered at 202 (one per cycle), RD at 218 + tCCD_L = 224, done 245; 0x4000040: write to row 1 of channel 0, offered at 400:
    // the input ends, the write drains: WR 400, done 400 + 12 + 4 = 416.
    assert_eq!((s.row_hits, s.row_misses, s.row_conflicts), (3, 2, 1));
    assert_eq!(s.cycles, 416);
    assert_eq!(s.requests, 6);
    let lat = (38 + 21 + 55 + 38 + (245 - 202)) as f64 / 5.0;
    assert!(
        (s.avg_read_latency - lat).abs() < 1e-9,
        "{} vs {lat}",
        s.avg_read_latency
    );
}

/// JSON equality, numbers up to 1e-12 relative (serde_json's default float
/// parser may be one ulp off the printed value).
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => match (x.as_u64(), y.as_u64()) {
            (Some(p), Some(q)) => p == q,
            _ => {
                let (p, q) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                (p - q).abs() <= 1e-12 * p.abs().max(q.abs()).max(1.0)
            }
        },
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Object(x), Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}
