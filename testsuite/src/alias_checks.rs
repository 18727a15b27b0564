//! Outermost kernel loops `parallel-for` runs in parallel, with and without
//! run-time alias checks (issue 35 part 1, `weft bench alias-checks`, table in
//! `docs/alias-checks.md`).
//!
//! Per kernel of [`crate::kernels::all`], compiled as written and with
//! `-Drestrict=` (every `restrict` erased, as [`crate::polly`] does):
//! - **outermost loops**: the depth-1 loops of `kernel_*` functions, as
//!   `weft analyze` numbers them;
//! - **after**: those for which `parallel-for` (run alone on the kernel's
//!   `-O1` IR) reports `applied`;
//! - **before**: the applied ones whose remark does not say `versioned`, i.e.
//!   the loops weft transformed before run-time alias checks existed.

use std::collections::HashSet;
use std::path::Path;

use crate::bench::{self, Benchmark};

/// One kernel's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    /// Kernel name.
    pub kernel: String,
    /// How its arrays are declared: `restrict`, `globals` or `helper`.
    pub style: String,
    /// Depth-1 loops of its `kernel_*` functions.
    pub outermost: usize,
    /// As written: applied without a run-time check.
    pub written_before: usize,
    /// As written: applied.
    pub written_after: usize,
    /// `restrict` removed: applied without a run-time check.
    pub plain_before: usize,
    /// `restrict` removed: applied.
    pub plain_after: usize,
}

/// The array style of a corpus source: `restrict` pointers, file-scope
/// `globals` of order `KC_MAX`, or plain pointers from the `helper`
/// allocator (`corpus.h`).
pub fn style(src: &str) -> &'static str {
    let word = |w: &str| {
        src.match_indices(w).any(|(i, _)| {
            let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
            !src[..i].ends_with(ident) && !src[i + w.len()..].starts_with(ident)
        })
    };
    if word("restrict") {
        "restrict"
    } else if src.contains("KC_MAX") && !src.contains("kc_array") {
        "globals"
    } else {
        "helper"
    }
}

/// `(outermost loops, applied without a check, applied)` for kernel `k`.
pub fn count(k: &Benchmark, restrict: bool, dir: &Path) -> Result<(usize, usize, usize), String> {
    let ll =
        bench::emit_ir(k, dir, &crate::polly::opts(restrict, &[])).map_err(|e| e.to_string())?;
    let ctx = inkwell::context::Context::create();
    let module =
        weft_frontend::load_module(&ctx, &ll, &Default::default()).map_err(|e| e.to_string())?;
    let roots: HashSet<(String, String)> = {
        let a = weft_frontend::ModuleAnalysis::new(&module);
        a.functions
            .iter()
            .filter(|f| f.name.starts_with("kernel_"))
            .flat_map(|f| {
                f.forest
                    .roots
                    .iter()
                    .map(|l| (f.name.clone(), format!("L{}", l.index())))
            })
            .collect()
    };
    let pm = weft_passes::PassManager::parse("parallel-for", weft_passes::PipelineConfig::new())
        .map_err(|e| e.to_string())?;
    let report = pm.run(&module).map_err(|e| e.to_string())?;
    let (mut before, mut after) = (0, 0);
    for r in &report.remarks {
        let id = r.loop_label.as_deref().and_then(|l| l.split(' ').next());
        let root = id.is_some_and(|id| roots.contains(&(r.function.clone(), id.to_string())));
        if r.pass == "parallel-for" && r.kind == weft_passes::RemarkKind::Applied && root {
            after += 1;
            if !r.message.contains("versioned") {
                before += 1;
            }
        }
    }
    Ok((roots.len(), before, after))
}

/// The row of kernel `k` (IR kept under `dir`).
pub fn row(k: &Benchmark, dir: &Path) -> Result<Row, String> {
    let src = std::fs::read_to_string(k.main_source())
        .map_err(|e| format!("{}: {e}", k.main_source().display()))?;
    let (outermost, written_before, written_after) =
        count(k, true, &dir.join(k.name).join("written"))?;
    let (_, plain_before, plain_after) = count(k, false, &dir.join(k.name).join("plain"))?;
    Ok(Row {
        kernel: k.name.to_string(),
        style: style(&src).to_string(),
        outermost,
        written_before,
        written_after,
        plain_before,
        plain_after,
    })
}

/// The table as Markdown, with the number of kernels that have a parallel
/// outermost loop and the loop totals.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| kernel | style | outermost loops | as written, before | as written, after | restrict removed, before | restrict removed, after |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            r.kernel,
            r.style,
            r.outermost,
            r.written_before,
            r.written_after,
            r.plain_before,
            r.plain_after
        ));
    }
    let cols = |r: &Row| {
        [
            r.written_before,
            r.written_after,
            r.plain_before,
            r.plain_after,
        ]
    };
    let mut kernels = [0usize; 4];
    let mut loops = [0usize; 4];
    for r in rows {
        for (j, v) in cols(r).into_iter().enumerate() {
            kernels[j] += usize::from(v > 0);
            loops[j] += v;
        }
    }
    let outermost: usize = rows.iter().map(|r| r.outermost).sum();
    s.push_str(&format!(
        "| **kernels with a parallel outermost loop** | | | {} | {} | {} | {} |\n",
        kernels[0], kernels[1], kernels[2], kernels[3]
    ));
    s.push_str(&format!(
        "| **parallel outermost loops** | | {} | {} | {} | {} | {} |\n",
        outermost, loops[0], loops[1], loops[2], loops[3]
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles() {
        assert_eq!(style("void k(double *restrict a)"), "restrict");
        assert_eq!(style("static double A[KC_MAX][KC_MAX];"), "globals");
        assert_eq!(style("double *a = kc_array(n); /* KC_MAX */"), "helper");
        // `restrict` inside another identifier is not the keyword.
        assert_eq!(
            style("int unrestricted; double *a = kc_array(n);"),
            "helper"
        );
    }

    #[test]
    fn markdown_totals() {
        let r = |k: &str, o, wb, wa, pb, pa| Row {
            kernel: k.into(),
            style: "helper".into(),
            outermost: o,
            written_before: wb,
            written_after: wa,
            plain_before: pb,
            plain_after: pa,
        };
        let md = markdown(&[r("a", 3, 0, 2, 0, 2), r("b", 1, 1, 1, 0, 0)]);
        assert!(md.contains("| `a` | helper | 3 | 0 | 2 | 0 | 2 |"));
        assert!(md.contains("| **kernels with a parallel outermost loop** | | | 1 | 2 | 0 | 1 |"));
        assert!(md.contains("| **parallel outermost loops** | | 4 | 1 | 3 | 0 | 2 |"));
    }

    #[test]
    fn counts_a_corpus_kernel() {
        // mvt: plain pointers from the helper allocator; both outermost loops
        // are parallel only under a run-time alias check.
        let k = crate::kernels::select(Some(&["mvt".to_string()])).unwrap()[0];
        let dir = tempfile::tempdir().unwrap();
        let r = row(k, dir.path()).unwrap();
        assert_eq!(r.style, "helper");
        assert_eq!((r.outermost, r.written_before, r.written_after), (2, 0, 2));
        assert_eq!((r.plain_before, r.plain_after), (0, 2));
    }
}
