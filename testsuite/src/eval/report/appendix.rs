//! The report's closing sections: the dissertation's claims our numbers
//! contradict, with the analysis of each (honesty checks, issue 8); what is
//! not available, failed or not drawn, and why; every published number used
//! for comparison ([`crate::eval::paper`]); and the method notes (machines,
//! definitions, GPART, jobs run and cached).

use super::ReportInput;
use crate::eval::engine::{Record, Status};
use crate::eval::paper;
use std::fmt::Write as _;

/// `## Where our numbers disagree with the dissertation`.
pub(super) fn disagreements(s: &mut String, inp: &ReportInput<'_>) {
    let _ = writeln!(s, "\n## Where our numbers disagree with the dissertation\n");
    if inp.disagreements.is_empty() {
        let _ = writeln!(s, "None of the checked claims is contradicted by the runs that completed (claims about versions that did not run cannot be checked; see below).");
    } else {
        for d in inp.disagreements {
            let _ = writeln!(
                s,
                "- **{}{}**: {} ({}). Ours: {}. Analysis: {}.",
                d.study,
                d.bench
                    .as_ref()
                    .map(|b| format!(" {b}"))
                    .unwrap_or_default(),
                d.claim,
                d.source,
                d.ours,
                d.analysis
            );
        }
    }
}

/// `## Not available`, then `## Failed runs` and `## Plots not drawn` where
/// there are any.
pub(super) fn missing(s: &mut String, inp: &ReportInput<'_>) {
    let sm = inp.summary;
    let _ = writeln!(s, "\n## Not available\n");
    if sm.not_available.is_empty() {
        let _ = writeln!(s, "Every version of the matrix ran.");
    } else {
        for w in &sm.not_available {
            let _ = writeln!(s, "- {w}");
        }
    }
    let failed: Vec<&Record> = inp
        .output
        .records
        .iter()
        .filter(|r| matches!(r.status, Status::Failed(_)))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(s, "\n## Failed runs\n");
        for r in failed {
            if let Status::Failed(w) = &r.status {
                let _ = writeln!(s, "- {} `{}` {}: {}", r.study, r.bench, r.version, w);
            }
        }
    }
    if !inp.plots.skipped.is_empty() {
        let _ = writeln!(s, "\n## Plots not drawn\n");
        for (n, w) in &inp.plots.skipped {
            let _ = writeln!(s, "- `{n}`: {w}");
        }
    }
}

/// `## The dissertation's numbers used for comparison`.
pub(super) fn paper_numbers(s: &mut String) {
    let _ = writeln!(s, "\n## The dissertation's numbers used for comparison\n");
    let _ = writeln!(s, "| chapter | version | benchmark | metric | value | source | note |\n|---|---|---|---|---:|---|---|");
    for p in paper::PAPER {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} {} | {} | {} |",
            p.chapter,
            p.version.unwrap_or("—"),
            p.benchmark.unwrap_or("average"),
            p.metric,
            p.value,
            p.unit,
            p.source,
            p.note
        );
    }
}

/// `## Method notes`.
pub(super) fn method_notes(s: &mut String, inp: &ReportInput<'_>) {
    let _ = writeln!(s, "\n## Method notes\n");
    for n in &inp.output.notes {
        let _ = writeln!(s, "- {n}");
    }
    let machines: Vec<String> = {
        let mut m: Vec<String> = inp
            .output
            .records
            .iter()
            .filter(|r| r.point.is_none())
            .map(|r| format!("{} `{}`", r.study, r.machine))
            .collect();
        m.sort();
        m.dedup();
        m
    };
    if !machines.is_empty() {
        let _ = writeln!(s, "- Machines: {}.", machines.join(", "));
    }
    let _ = writeln!(s, "- Time reduction = (1 - cycles / baseline cycles) x 100; gains = (metric / baseline metric - 1) x 100; averages are arithmetic means of per-benchmark percentages.");
    let replicas = inp
        .output
        .records
        .iter()
        .filter_map(|r| r.stats.as_ref())
        .map(|st| st.replica_cycles.len())
        .max()
        .unwrap_or(0);
    if replicas >= 2 {
        let _ = writeln!(s, "- Noise floor (`--replicas {replicas}`, `testsuite/src/eval/noise.rs`): every trace was simulated {replicas} times, each request to a memory controller delayed by 0-{} cycles drawn from seeds {}..={} (Alameldeen and Wood, HPCA 2003), and cycles and rates are the replicas' means. `±x` after a time reduction is the half-width of its 95% Student-t interval over the replica pairs (a version and its baseline under the same seed); for an average, over the per-replica averages. A change inside its interval is the simulation's noise, not the version's: a multi-threaded simulation is chaotic, and moving the few stack words every core reads at a region's start by one cache line moved mxm's Default run (quick inputs) from 219,112 to 233,990 cycles.", crate::eval::weft::PERTURB_CYCLES, crate::eval::weft::SIM_SEED, crate::eval::weft::SIM_SEED + replicas as u64 - 1);
    } else if inp.output.records.iter().any(|r| {
        r.stats
            .as_ref()
            .is_some_and(|st| st.sample_ci95_pct.is_some())
    }) {
        let _ = writeln!(s, "- Sampled simulation (`--inputs paper`, `docs/sampling.md`): each trace was simulated once, in detailed windows with functional warming between them; `±x` after a time reduction is the half-width of its 95% interval from the two runs' sampling intervals (relative errors added in quadrature, `noise::sampled_reduction_ci95`), and for an average the intervals of its benchmarks combined as independent. The samplings of a version and its baseline are not independent (same positions, similar traces), so the intervals are on the wide side.");
    } else {
        let _ = writeln!(s, "- Each trace was simulated once, unperturbed (`--replicas 1`): differences of a few percent between versions may be the simulation's noise (`testsuite/src/eval/noise.rs`).");
    }
    let _ = writeln!(s, "- FR-FCFS is the default scheduler of both machines: \"FR-FCFS alone\" is Original (ch. 4) / Default (ch. 5), and \"FR-FCFS + BLP Optimized\" is BLP Optimized; they share jobs rather than being listed twice.");
    let _ = writeln!(s, "- GPART: the harness renumbers the rows/vertices of a benchmark's graph, matrix or mesh input by a greedy BFS clustering (see `testsuite/src/eval/reorder.rs`): an input file (`.mtx`, `.edges`, `.graph`, Spark98 `.pack`) is rewritten; a program that generates its input writes the graph of its data (`--dump-graph`) and renumbers its own arrays by the computed order (`--permute`); the kernels are unchanged. Its results come out in the new element order, so its bit-exact checksum cannot equal Original's; GPART runs are counted as unchecked ({} here) rather than compared. Where the numbering is part of the algorithm, GPART also changes the work, not only the layout: `stun` factorises P·A·Pᵀ, whose fill differs (at the quick size a random numbering doubles it; BFS clustering lowers it, so the GPART run does less work), `gauss_seidel`'s greedy colouring and so its sweeps follow the numbering, and `carey`'s random draws hash the person number, so it simulates another, statistically equivalent epidemic.", inp.output.checksums.unchecked_reordered);
    let _ = writeln!(
        s,
        "- Jobs: {}.",
        inp.output
            .job_counts
            .iter()
            .map(|(k, (run, hit))| format!("{k} {run} run, {hit} cached"))
            .collect::<Vec<_>>()
            .join("; ")
    );
}
