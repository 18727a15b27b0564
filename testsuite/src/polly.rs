//! Parallel loops found by weft against LLVM's Polly on the kernel corpus
//! (issue 35 part 5, `weft bench polly`, table in `docs/parallelism.md`).
//!
//! Counting rule, the same for both tools and per kernel of
//! [`crate::kernels::all`]:
//! - **weft**: `parallel-for` remarks of kind `applied` in `kernel_*`
//!   functions, after `loop-distribute` ([`WEFT_PASSES`]), on the kernel's `-O1` IR (the IR
//!   `weft bench kernels` builds from); each is one loop run in parallel (the
//!   outermost parallel loop of its nest). The `--fp-reassoc` column runs the
//!   pass with floating-point reductions allowed.
//! - **Polly**: outlined parallel subfunctions `kernel_*_polly_subfn*` in the IR
//!   of `clang-19 -O1 -fno-inline -mllvm -polly -mllvm -polly-parallel -mllvm
//!   -polly-process-unprofitable -fopenmp -S -emit-llvm` (one per loop Polly
//!   runs with OpenMP, the outermost parallel loop of each SCoP band).
//!
//! Both are compiled as written (the corpus mixes `restrict` pointers, plain
//! pointers from a helper allocator and global arrays) and with `-Drestrict=`,
//! which erases every `restrict`. Where Polly finds more loops than weft in a
//! kernel, the row keeps weft's `missed` remarks for that kernel's loops: the
//! reason, loop by loop.

use std::path::Path;

use crate::bench::{self, Benchmark, CompileOptions};

/// Polly's flags (after `-std=c11` and the corpus include paths).
pub const POLLY_FLAGS: &[&str] = &[
    "-O1",
    "-fno-inline",
    "-mllvm",
    "-polly",
    "-mllvm",
    "-polly-parallel",
    "-mllvm",
    "-polly-process-unprofitable",
    "-fopenmp",
];

/// One kernel's counts.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Row {
    /// Kernel name.
    pub kernel: String,
    /// weft, source as written.
    pub weft: usize,
    /// weft with `--fp-reassoc`, source as written.
    pub weft_fp: usize,
    /// Polly, source as written.
    pub polly: usize,
    /// weft with `-Drestrict=`.
    pub weft_plain: usize,
    /// Polly with `-Drestrict=`.
    pub polly_plain: usize,
    /// weft's `missed` remarks (source as written) when Polly found more.
    pub missed: Vec<String>,
}

/// weft's passes for its count: loop distribution (which Polly's scheduler
/// also does) then `parallel-for`, as in the default pipeline.
pub const WEFT_PASSES: &str = "loop-distribute,parallel-for";

/// Number of Polly parallel subfunctions of `kernel_*` functions in IR text.
pub fn count_polly_subfns(ir: &str) -> usize {
    ir.lines()
        .filter(|l| l.starts_with("define "))
        .filter_map(|l| l.split('@').nth(1))
        .filter(|n| n.starts_with("kernel_") && n.contains("_polly_subfn"))
        .count()
}

/// Compile options of the corpus as written (`restrict`) or with `-Drestrict=`,
/// with `opt` instead of the default optimisation flags when not empty.
pub(crate) fn opts(restrict: bool, opt: &[&str]) -> CompileOptions {
    let mut o = CompileOptions::default();
    if !opt.is_empty() {
        o = o.with_opt(opt);
    }
    if !restrict {
        o.extra_flags.push("-Drestrict=".into());
    }
    o
}

/// Polly's count for kernel `k` (IR kept under `dir`).
pub fn polly_count(k: &Benchmark, restrict: bool, dir: &Path) -> Result<usize, String> {
    let ll = bench::emit_ir(k, dir, &opts(restrict, POLLY_FLAGS)).map_err(|e| e.to_string())?;
    let ir = std::fs::read_to_string(&ll).map_err(|e| format!("{}: {e}", ll.display()))?;
    Ok(count_polly_subfns(&ir))
}

/// weft's count for kernel `k` and its `missed` remarks on `kernel_*` loops.
pub fn weft_count(
    k: &Benchmark,
    restrict: bool,
    fp_reassoc: bool,
    dir: &Path,
) -> Result<(usize, Vec<String>), String> {
    let ll = bench::emit_ir(k, dir, &opts(restrict, &[])).map_err(|e| e.to_string())?;
    let ctx = inkwell::context::Context::create();
    let module =
        weft_frontend::load_module(&ctx, &ll, &Default::default()).map_err(|e| e.to_string())?;
    let cfg = weft_passes::PipelineConfig {
        fp_reassoc,
        ..weft_passes::PipelineConfig::new()
    };
    let pm = weft_passes::PassManager::parse(WEFT_PASSES, cfg).map_err(|e| e.to_string())?;
    let report = pm.run(&module).map_err(|e| e.to_string())?;
    let mine = report
        .remarks
        .iter()
        .filter(|r| r.pass == "parallel-for" && r.function.starts_with("kernel_"));
    let applied = mine
        .clone()
        .filter(|r| r.kind == weft_passes::RemarkKind::Applied)
        .count();
    let missed = report
        .remarks
        .iter()
        .filter(|r| r.pass.starts_with("loop-distribute") || r.pass == "parallel-for")
        .filter(|r| r.function.starts_with("kernel_"))
        .filter(|r| r.kind == weft_passes::RemarkKind::Missed)
        .map(|r| r.to_string())
        .collect();
    Ok((applied, missed))
}

/// The row of kernel `k`; `progress` gets a line per compile.
pub fn row(k: &Benchmark, dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<Row, String> {
    let d = |s: &str| dir.join(k.name).join(s);
    progress(&format!("{}: weft", k.name));
    let (weft, missed) = weft_count(k, true, false, &d("weft"))?;
    let (weft_fp, _) = weft_count(k, true, true, &d("weft-fp"))?;
    let (weft_plain, _) = weft_count(k, false, false, &d("weft-plain"))?;
    progress(&format!("{}: polly", k.name));
    let polly = polly_count(k, true, &d("polly"))?;
    let polly_plain = polly_count(k, false, &d("polly-plain"))?;
    Ok(Row {
        kernel: k.name.to_string(),
        weft,
        weft_fp,
        polly,
        weft_plain,
        polly_plain,
        missed: if polly > weft { missed } else { Vec::new() },
    })
}

/// The table as Markdown: counts, totals, then weft's reasons where Polly
/// found more.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| kernel | weft | weft --fp-reassoc | Polly | weft, no restrict | Polly, no restrict |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    let mut t = [0usize; 5];
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.kernel, r.weft, r.weft_fp, r.polly, r.weft_plain, r.polly_plain
        ));
        for (a, b) in t
            .iter_mut()
            .zip([r.weft, r.weft_fp, r.polly, r.weft_plain, r.polly_plain])
        {
            *a += b;
        }
    }
    s.push_str(&format!(
        "| **total** | **{}** | **{}** | **{}** | **{}** | **{}** |\n",
        t[0], t[1], t[2], t[3], t[4]
    ));
    let behind: Vec<&Row> = rows.iter().filter(|r| r.polly > r.weft).collect();
    if !behind.is_empty() {
        s.push_str("\nWhere Polly finds more (source as written), weft's remarks:\n\n");
        for r in behind {
            s.push_str(&format!(
                "- **{}** (Polly {}, weft {}):\n",
                r.kernel, r.polly, r.weft
            ));
            for m in &r.missed {
                s.push_str(&format!("  - `{m}`\n"));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_kernel_subfunctions() {
        let ir = "define internal void @kernel_gemm_polly_subfn(ptr %0) #1 {\n\
                  define internal void @kernel_gemm_polly_subfn_1(ptr %0) #1 {\n\
                  define internal void @main_polly_subfn(ptr %0) #1 {\n\
                  define dso_local void @kernel_gemm(i64 %0) {\n\
                    call void @GOMP_parallel_loop_runtime_start(ptr @kernel_gemm_polly_subfn)\n";
        assert_eq!(count_polly_subfns(ir), 2);
    }

    #[test]
    fn markdown_totals_and_reasons() {
        let rows = vec![
            Row {
                kernel: "a".into(),
                weft: 1,
                weft_fp: 2,
                polly: 3,
                weft_plain: 0,
                polly_plain: 1,
                missed: vec!["why".into()],
            },
            Row {
                kernel: "b".into(),
                weft: 2,
                weft_fp: 2,
                polly: 1,
                weft_plain: 2,
                polly_plain: 0,
                missed: Vec::new(),
            },
        ];
        let md = markdown(&rows);
        assert!(md.contains("| **total** | **3** | **4** | **4** | **2** | **1** |"));
        assert!(md.contains("- **a** (Polly 3, weft 1):\n  - `why`"));
        assert!(!md.contains("- **b**"));
    }
}
