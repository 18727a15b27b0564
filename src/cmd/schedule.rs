//! `weft schedule`: run a runtime scheduler on an instance file.

use anyhow::{bail, Context};
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

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let text = if args.input == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        s
    } else {
        std::fs::read_to_string(&args.input).with_context(|| format!("reading {}", args.input))?
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", args.input))?;
    let algo = args.algo.as_str();
    if let Some(scheme) = Scheme::from_name(algo) {
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
