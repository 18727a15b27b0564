//! Analysis time of a large generated module (hundreds of loops) against the
//! time `clang-19 -O1` takes to compile the same source to IR.
//!
//! `cargo bench -p weft-frontend --bench analysis`; the clang time is measured
//! once per run and printed next to criterion's figures.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use inkwell::context::Context;
use weft_frontend::synth::{synthetic_c, LOOPS_PER_GROUP};
use weft_frontend::{compile_c, parse_ir, ClangOptions, ModuleAnalysis};

const GROUPS: usize = 30;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("big.c");
    std::fs::write(&src, synthetic_c(GROUPS)).expect("write");
    let opts = ClangOptions::default();
    let t0 = Instant::now();
    let ir = compile_c(&src, &opts).expect("clang-19");
    let clang_time = t0.elapsed();
    let ctx = Context::create();
    let m = parse_ir(&ctx, &ir, "big.ll").expect("parse");
    let a = ModuleAnalysis::new(&m);
    let loops: usize = a.functions.iter().map(|f| f.forest.len()).sum();
    let t1 = Instant::now();
    let _ = ModuleAnalysis::new(&m);
    let once = t1.elapsed();
    eprintln!(
        "module: {} functions, {loops} loops (expected {}), {} IR lines",
        a.functions.len(),
        GROUPS * LOOPS_PER_GROUP,
        ir.lines().count()
    );
    eprintln!(
        "clang-19 -O1 compile: {:.1} ms; one analysis: {:.1} ms ({:.1}% of clang)",
        clang_time.as_secs_f64() * 1e3,
        once.as_secs_f64() * 1e3,
        100.0 * once.as_secs_f64() / clang_time.as_secs_f64()
    );
    let mut g = c.benchmark_group("frontend");
    g.sample_size(20);
    g.bench_function("analyze_360_loops", |b| b.iter(|| ModuleAnalysis::new(&m)));
    g.bench_function("parse_and_analyze_360_loops", |b| {
        b.iter(|| {
            let ctx = Context::create();
            let m = parse_ir(&ctx, &ir, "big.ll").expect("parse");
            ModuleAnalysis::new(&m).functions.len()
        })
    });
    g.bench_function("clang19_O1_compile", |b| {
        b.iter(|| compile_c(&src, &opts).expect("clang").len())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
