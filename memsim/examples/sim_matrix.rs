//! Full JSON stats of a matrix of small runs (machines x schedulers x oracle modes,
//! plus a staged, round-robin, closed-row variant), one file each, so that changes to
//! the model's implementation can be checked byte for byte on every code path.
//! `cargo run --release -p weft-memsim --example sim_matrix -- OUT_DIR [records]`

use weft_memsim::config::{BankArbitration, MachineConfig, RowPolicy};
use weft_memsim::dram_backend::Scheduler;
use weft_memsim::oracle::Oracle;
use weft_memsim::run::{bench_workload, row_stride, simulate, RunOptions};
use weft_memsim::synth::{Pattern, SynthParams, SynthSource};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: sim_matrix OUT_DIR [records]"));
    let total: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    std::fs::create_dir_all(&dir).expect("out dir");
    let mut staged = MachineConfig::preset("table5.2").expect("preset");
    staged.dram.bank_queue_entries = 8;
    staged.dram.bank_arbitration = BankArbitration::RoundRobin;
    staged.dram.row_hit_cap = 4;
    let mut closed = MachineConfig::preset("table5.2").expect("preset");
    closed.dram.row_policy = RowPolicy::Closed;
    let machines = [
        ("t52", MachineConfig::preset("table5.2").expect("preset")),
        ("t42", MachineConfig::preset("table4.2").expect("preset")),
        ("staged", staged),
        ("closed", closed),
    ];
    for (mname, cfg) in &machines {
        let cores = cfg.core.count;
        for sched in [
            Scheduler::Fcfs,
            Scheduler::FrFcfs,
            Scheduler::ParBs,
            Scheduler::Tcm,
        ] {
            for oracle in [
                Oracle::None,
                Oracle::MlpIdeal,
                Oracle::BlpIdeal,
                Oracle::Ideal,
            ] {
                if *mname != "t52" && oracle != Oracle::None && sched != Scheduler::FrFcfs {
                    continue;
                }
                let opts = RunOptions {
                    scheduler: sched,
                    oracle,
                    seed: 7,
                    ..Default::default()
                };
                let name = format!("{mname}-{sched:?}-{}", oracle.name());
                let s = simulate(cfg, &mut bench_workload(cores, total, 3), &opts, |_| {})
                    .expect("run");
                std::fs::write(
                    dir.join(format!("{name}.json")),
                    serde_json::to_string_pretty(&s).expect("json"),
                )
                .expect("write");
            }
        }
        for (pname, pattern) in [
            ("stream", Pattern::Stream),
            ("same-bank", Pattern::SameBank),
            ("random", Pattern::Random),
        ] {
            let mut src = SynthSource::new(SynthParams {
                pattern,
                cores,
                records_per_core: 200,
                max_gap: 4,
                write_every: 5,
                stride: 32,
                row_stride: row_stride(cfg).expect("row stride"),
                seed: 2,
            });
            let s = simulate(cfg, &mut src, &RunOptions::default(), |_| {}).expect("run");
            std::fs::write(
                dir.join(format!("{mname}-{pname}.json")),
                serde_json::to_string_pretty(&s).expect("json"),
            )
            .expect("write");
        }
    }
}
