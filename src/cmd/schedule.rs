//! `weft schedule`: run a runtime scheduler on an instance file.

mod limits;

use anyhow::{bail, Context};
use limits::Counts;
use std::io::Read;
use weft_runtime::blp::{
    original_order, schedule_blp, BlpOptions, CoreOrder, SlabInstance, TieBreak,
};
use weft_runtime::mlp::{schedule_ibs, IbInstance, MlpOptions, Scheme};
use weft_runtime::optimal::{optimal_schedule, DEFAULT_BUDGET};

/// Run a slab (Algorithm 4) or iteration-block (Algorithm 5) scheduler on a JSON instance.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Slab instances (Algorithm 4, dissertation §4.4):
  {\"cores\": P, \"banks\": Q, \"slabs\": [[[bank, ...], ...], ...]}   slabs[core][k] = banks of slab k
  output: {\"schedule\": [[k, ...], ...], \"coverage\": [banks covered per slot, ...]}
          schedule[core][slot] = slab index

Iteration-block instances (Algorithm 5, §5.5):
  {\"cores\": N, \"window\": W, \"mem_banks\": B, \"llc_banks\": L,
   \"blocks\": [{\"mem\": [count per bank], \"llc\": [count per bank]}, ...]}
  output: {\"windows\": [[[block, ...] per core] per step], \"beta\": [β per window, (step, core) order]}

Examples:
  weft schedule --algo blp --input inst.json --json
  weft schedule --algo blp-q2 --input inst.json
  weft schedule --algo optimal --input small.json --json
  weft schedule --algo balanced --input blocks.json --json --eta-mem 38 --eta-llc 10")]
pub struct Args {
    /// blp | blp-q<N> | optimal | original | mlp-first | clp-first | balanced | la-mlp | default
    #[arg(long)]
    pub algo: String,
    /// Instance file (JSON); `-` reads standard input.
    #[arg(long)]
    pub input: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Seed of Algorithm 4's random tie-breaks (`lowest` behaviour with --lowest).
    #[arg(long, default_value_t = 0x5eed)]
    pub seed: u64,
    /// Break Algorithm 4's random ties by the lowest slab index instead.
    #[arg(long)]
    pub lowest: bool,
    /// Algorithm 4: visit the most constrained core first (flexibility order).
    #[arg(long)]
    pub flexibility: bool,
    /// Algorithm 4: sliding candidate window (slabs per core considered).
    #[arg(long)]
    pub window: Option<usize>,
    /// Exact solver: node budget.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    pub budget: u64,
    /// Algorithm 5: memory-bank service latency η_m (SD rule of §5.5.6).
    #[arg(long, default_value_t = 1.0)]
    pub eta_mem: f64,
    /// Algorithm 5: LLC-bank service latency η_c.
    #[arg(long, default_value_t = 1.0)]
    pub eta_llc: f64,
}

/// Largest instance file, in bytes.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;
/// Largest `cores` of an instance.
pub const MAX_CORES: u64 = 4096;
/// Largest `banks` (`mem_banks`, `llc_banks`) of an instance.
pub const MAX_BANKS: u64 = 65_536;
/// Largest number of slabs (or iteration blocks) of an instance, and of bank
/// entries over all its slabs or blocks.
pub const MAX_ITEMS: u64 = 1 << 20;
/// Largest number of slabs of one core: Algorithm 4's implementation takes
/// time quadratic in it (its candidate scan), 16384 take about a second.
pub const MAX_SLABS_PER_CORE: u64 = 16_384;
/// Largest slabs × banks (bits of the instance's bank sets): 2^31 bits, 256 MiB.
pub const MAX_BANK_BITS: u64 = 1 << 31;
/// Largest `window` of an iteration-block instance.
pub const MAX_WINDOW: u64 = 1 << 20;

/// Reads at most [`MAX_INPUT_BYTES`] of `r`.
fn read_bounded(r: impl Read, name: &str) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    r.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {name}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        bail!("{name}: larger than the limit of {MAX_INPUT_BYTES} bytes for an instance");
    }
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        bail!("{name}: the instance file is empty");
    }
    String::from_utf8(bytes).with_context(|| format!("{name}: not UTF-8 text"))
}

fn at_most(field: &str, value: u64, max: u64) -> anyhow::Result<()> {
    if value > max {
        bail!("`{field}` = {value} exceeds the limit {max} (docs/limits.md)");
    }
    Ok(())
}

/// Checks an instance's sizes against the limits before it is built (the
/// parsers allocate per bank and per slab); the parsers check the rest.
pub fn check_limits(c: &Counts, blocks: bool) -> anyhow::Result<()> {
    at_most("cores", c.cores, MAX_CORES)?;
    if blocks {
        at_most("window", c.window, MAX_WINDOW)?;
        at_most("mem_banks", c.mem_banks, MAX_BANKS)?;
        at_most("llc_banks", c.llc_banks, MAX_BANKS)?;
        at_most("blocks (count)", c.blocks.blocks, MAX_ITEMS)?;
        return at_most("blocks (bank entries)", c.blocks.entries, MAX_ITEMS);
    }
    at_most("banks", c.banks, MAX_BANKS)?;
    if let Some((core, n)) = c.slabs.first_over {
        at_most(&format!("slabs[{core}] (count)"), n, MAX_SLABS_PER_CORE)?;
    }
    at_most("slabs (count)", c.slabs.slabs, MAX_ITEMS)?;
    at_most("slabs (bank entries)", c.slabs.entries, MAX_ITEMS)?;
    at_most(
        "slabs × banks",
        c.slabs.slabs.saturating_mul(c.banks),
        MAX_BANK_BITS,
    )
}

/// Parses and checks an instance file's text: its sizes are counted and
/// checked while the JSON is streamed ([`limits::count`]), and only an
/// instance within the limits is parsed into a value.
pub fn parse_instance(text: &str, name: &str, blocks: bool) -> anyhow::Result<serde_json::Value> {
    let counts = limits::count(text, MAX_SLABS_PER_CORE)
        .with_context(|| format!("{name} is not valid JSON"))?;
    check_limits(&counts, blocks).with_context(|| format!("{name}: instance too large"))?;
    serde_json::from_str(text).with_context(|| format!("{name} is not valid JSON"))
}

fn check_eta(flag: &str, v: f64) -> anyhow::Result<()> {
    if !(v.is_finite() && v > 0.0 && v <= 1e9) {
        bail!("{flag} = {v}: expected a positive finite latency (at most 1e9 cycles)");
    }
    Ok(())
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    check_eta("--eta-mem", args.eta_mem)?;
    check_eta("--eta-llc", args.eta_llc)?;
    let text = if args.input == "-" {
        read_bounded(std::io::stdin(), "standard input")?
    } else {
        let f = std::fs::File::open(&args.input)
            .with_context(|| format!("cannot open {}", args.input))?;
        read_bounded(f, &args.input)?
    };
    let algo = args.algo.as_str();
    let scheme = Scheme::from_name(algo);
    let v = parse_instance(&text, &args.input, scheme.is_some())?;
    if let Some(scheme) = scheme {
        let inst = IbInstance::from_json(&v).context("iteration-block instance")?;
        let opts = MlpOptions {
            scheme,
            eta_mem: args.eta_mem,
            eta_llc: args.eta_llc,
        };
        let s = schedule_ibs(&inst, &opts, None)?;
        if args.json {
            println!(
                "{}",
                serde_json::json!({"windows": s.windows, "beta": s.beta})
            );
        } else {
            println!(
                "{algo}: {} blocks, {} cores, window {} -> {} steps",
                inst.blocks.len(),
                inst.cores,
                inst.window,
                s.windows.len()
            );
            for (t, step) in s.windows.iter().enumerate() {
                for (c, w) in step.iter().enumerate() {
                    let beta = s
                        .beta
                        .get(t * inst.cores + c)
                        .map(|b| format!(" beta={b:.3}"))
                        .unwrap_or_default();
                    println!("step {t} core {c}: {w:?}{beta}");
                }
            }
        }
        return Ok(());
    }
    let inst = SlabInstance::from_json(&v).context("slab instance")?;
    let blp_opts = |q: usize| BlpOptions {
        lookahead: q,
        core_order: if args.flexibility {
            CoreOrder::Flexibility
        } else {
            CoreOrder::Fixed
        },
        window: args.window,
        tie_break: if args.lowest {
            TieBreak::Lowest
        } else {
            TieBreak::Seeded(args.seed)
        },
    };
    let s = match algo {
        "blp" => schedule_blp(&inst, &blp_opts(1), None)?,
        "optimal" => optimal_schedule(&inst, args.budget)?,
        "original" => original_order(&inst),
        a if a.starts_with("blp-q") => {
            let q: usize = a[5..]
                .parse()
                .ok()
                .filter(|&q| q >= 1)
                .with_context(|| format!("--algo {a}: expected blp-q<N> with N >= 1"))?;
            schedule_blp(&inst, &blp_opts(q), None)?
        }
        other => bail!(
            "unknown --algo {other:?}; valid: blp, blp-q<N>, optimal, original, mlp-first, clp-first, balanced, la-mlp, default"
        ),
    };
    let per_core = s.per_core();
    if args.json {
        println!(
            "{}",
            serde_json::json!({"schedule": per_core, "coverage": s.coverage})
        );
    } else {
        println!(
            "{algo}: {} cores, {} banks, {} slots, mean banks covered per slot {:.3} (original order {:.3})",
            inst.cores(),
            inst.banks(),
            s.slots.len(),
            s.mean_coverage(),
            original_order(&inst).mean_coverage()
        );
        for (t, row) in s.slots.iter().enumerate() {
            let cells: Vec<String> = row
                .iter()
                .map(|k| k.map_or("-".to_string(), |k| k.to_string()))
                .collect();
            println!("slot {t}: [{}] covers {}", cells.join(", "), s.coverage[t]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_and_build(text: &str, blocks: bool) -> anyhow::Result<()> {
        let v = parse_instance(text, "i.json", blocks)?;
        if blocks {
            IbInstance::from_json(&v)?;
        } else {
            SlabInstance::from_json(&v)?;
        }
        Ok(())
    }

    #[test]
    fn limits_and_latencies() {
        let e = parse_and_build(
            r#"{"cores": 1, "banks": 4294967295, "slabs": [[[0]]]}"#,
            false,
        )
        .unwrap_err();
        let s = format!("{e:#}");
        assert!(
            s.contains("`banks` = 4294967295 exceeds the limit 65536"),
            "{s}"
        );
        let many = format!(
            r#"{{"cores": 1, "banks": 4, "slabs": [[{}]]}}"#,
            vec!["[1]"; MAX_SLABS_PER_CORE as usize + 1].join(",")
        );
        let s = format!("{:#}", parse_and_build(&many, false).unwrap_err());
        assert!(s.contains("slabs[0] (count)") && s.contains("16384"), "{s}");
        let ok = r#"{"cores": 2, "banks": 4, "slabs": [[[0],[1]],[[2]]]}"#;
        parse_and_build(ok, false).unwrap();
        for bad in [f64::NAN, f64::INFINITY, 0.0, -1.0] {
            let e = check_eta("--eta-mem", bad).unwrap_err().to_string();
            assert!(e.starts_with("--eta-mem"), "{e}");
        }
        check_eta("--eta-mem", 38.0).unwrap();
        let e = read_bounded(&b"  \n"[..], "e.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("empty"), "{e}");
    }

    /// 10^6 slabs on a core (6 MB of JSON) are refused by the streaming count,
    /// with the message the whole-value check gave, before any value is built;
    /// texts that are not JSON keep `serde_json`'s message, including nesting
    /// the count skips and the parse into a value refuses.
    #[test]
    fn counts_are_checked_while_parsing() {
        let huge = format!(
            r#"{{"cores": 1, "banks": 4, "slabs": [[{}]]}}"#,
            vec!["[1]"; 1_000_000].join(",")
        );
        let t0 = std::time::Instant::now();
        let s = format!("{:#}", parse_instance(&huge, "i.json", false).unwrap_err());
        let took = t0.elapsed();
        assert_eq!(
            s,
            "i.json: instance too large: `slabs[0] (count)` = 1000000 exceeds the limit 16384 \
             (docs/limits.md)"
        );
        assert!(took < std::time::Duration::from_secs(5), "{took:?}");
        let blocks = format!(
            r#"{{"cores": 1, "window": 1, "mem_banks": 1, "llc_banks": 1, "blocks": [{}]}}"#,
            vec![r#"{"mem": [1], "llc": []}"#; MAX_ITEMS as usize + 1].join(",")
        );
        let s = format!("{:#}", parse_instance(&blocks, "b.json", true).unwrap_err());
        assert!(
            s.ends_with("`blocks (count)` = 1048577 exceeds the limit 1048576 (docs/limits.md)"),
            "{s}"
        );
        let deep = format!(r#"{{"slabs": {}1{}}}"#, "[".repeat(130), "]".repeat(130));
        let s = format!("{:#}", parse_instance(&deep, "d.json", false).unwrap_err());
        assert!(
            s.starts_with("d.json is not valid JSON: recursion limit exceeded"),
            "{s}"
        );
        let s = format!(
            "{:#}",
            parse_instance(r#"{"cores": 1,"#, "e.json", false).unwrap_err()
        );
        assert!(
            s.starts_with("e.json is not valid JSON: EOF while parsing"),
            "{s}"
        );
    }

    /// Fuzzes the instance parser (both forms) from valid seeds: no panic, no
    /// input slower than the fuzzer's limit (`docs/limits.md`, "Fuzzing").
    #[test]
    fn fuzz_instance_parser() {
        let seeds = vec![
            br#"{"cores": 2, "banks": 4, "slabs": [[[0, 1], [2]], [[3], [0, 2]]]}"#.to_vec(),
            br#"{"cores": 2, "window": 2, "mem_banks": 2, "llc_banks": 2,
                "blocks": [{"mem": [1, 0], "llc": [0, 2]}, {"mem": [0, 3], "llc": [1, 1]}]}"#
                .to_vec(),
        ];
        if !weft_memsim::fuzz::selected("schedule instance") {
            return;
        }
        let seed = weft_memsim::fuzz::seed_from_env(21);
        let budget = weft_memsim::fuzz::budget_from_env(20_000, std::time::Duration::from_secs(5));
        let start = std::time::Instant::now();
        let r = weft_memsim::fuzz::run(&seeds, seed, budget, |b| {
            let text = String::from_utf8_lossy(b);
            let _ = parse_and_build(&text, true);
            let _ = parse_and_build(&text, false);
        });
        eprintln!(
            "fuzz schedule instance: seed {seed}, {:.0} s, {} inputs, slowest {:?}, {} failures",
            start.elapsed().as_secs_f64(),
            r.inputs,
            r.slowest,
            r.failures.len()
        );
        for (m, input) in r.failures.iter().take(3) {
            eprintln!("  {m}: {:?}", String::from_utf8_lossy(input));
        }
        assert!(r.failures.is_empty());
    }
}
