//! Property test: random well-formed affine loop nests, generated as C and
//! compiled by clang-19, are analysed without panics, with the nesting,
//! trip counts and access functions the generator knows.

use proptest::prelude::*;

use crate::common::*;

#[derive(Debug, Clone)]
struct Nest {
    /// Constant trip counts per level (outermost first).
    trips: Vec<u32>,
    /// Per access: coefficients per level and constant.
    coefs: Vec<(Vec<i32>, i32)>,
    /// Store into `out` (true) or only loads.
    write_shift: bool,
}

fn nest() -> impl Strategy<Value = Nest> {
    (1usize..=3).prop_flat_map(|depth| {
        (
            proptest::collection::vec(2u32..40, depth),
            proptest::collection::vec((proptest::collection::vec(0i32..5, depth), 0i32..9), 1..4),
            any::<bool>(),
        )
            .prop_map(|(trips, mut coefs, write_shift)| {
                // Every level's IV appears in the first access, so clang cannot
                // delete a loop by final-value replacement.
                for c in coefs[0].0.iter_mut() {
                    *c = (*c).max(1);
                }
                // Every access varies in the innermost loop, so none is hoisted
                // out of the nest and the IR keeps the source's dependences.
                for (c, _) in coefs.iter_mut() {
                    if let Some(last) = c.last_mut() {
                        *last = (*last).max(1);
                    }
                }
                Nest {
                    trips,
                    coefs,
                    write_shift,
                }
            })
    })
}

fn to_c(n: &Nest) -> String {
    let d = n.trips.len();
    let mut s = String::from("void k(const int *restrict in, int *restrict out) {\n");
    for (k, t) in n.trips.iter().enumerate() {
        s += &format!(
            "{}for (long i{k} = 0; i{k} < {t}; i{k}++)\n",
            "  ".repeat(k + 1)
        );
    }
    let ind = "  ".repeat(d + 1);
    s += &format!("{ind}{{\n");
    for (c, o) in &n.coefs {
        let mut e: Vec<String> = c
            .iter()
            .enumerate()
            .filter(|(_, &x)| x != 0)
            .map(|(k, x)| format!("{x}*i{k}"))
            .collect();
        e.push(o.to_string());
        let idx = e.join(" + ");
        if n.write_shift {
            s += &format!("{ind}  out[{idx}] += in[{idx}];\n");
        } else {
            s += &format!("{ind}  out[0] = out[0] + in[{idx}];\n");
        }
    }
    s += &format!("{ind}}}\n}}\n");
    s
}

fn cases() -> u32 {
    std::env::var("WEFT_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

/// Brute force: does level `l` carry a dependence on `out`?
fn carries(n: &Nest, l: usize) -> bool {
    use std::collections::HashMap;
    let d = n.trips.len();
    let mut seen: HashMap<(Vec<i64>, i64), i64> = HashMap::new();
    let total: u64 = n.trips.iter().map(|&t| t as u64).product();
    for flat in 0..total {
        let mut x = vec![0i64; d];
        let mut r = flat;
        for k in (0..d).rev() {
            x[k] = (r % n.trips[k] as u64) as i64;
            r /= n.trips[k] as u64;
        }
        for (c, o) in &n.coefs {
            let loc = if n.write_shift {
                c.iter().zip(&x).map(|(a, b)| *a as i64 * b).sum::<i64>() + *o as i64
            } else {
                0
            };
            let key = (x[..l].to_vec(), loc);
            match seen.get(&key) {
                Some(&v) if v != x[l] => return true,
                Some(_) => {}
                None => {
                    seen.insert(key, x[l]);
                }
            }
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]
    #[test]
    fn random_affine_nests(n in nest()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.c");
        std::fs::write(&p, to_c(&n)).unwrap();
        let ctx = inkwell::context::Context::create();
        let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
        let a = weft_frontend::ModuleAnalysis::new(&m);
        let s = weft_frontend::ModuleSummary::new(&a);
        let _ = s.report();
        let f = func(&s, "k");
        // clang may delete or fuse nothing here: one loop per level.
        prop_assert_eq!(f.loops.len(), n.trips.len());
        for (k, l) in f.loops.iter().enumerate() {
            prop_assert_eq!(l.depth as usize, k + 1);
            prop_assert_eq!(l.trip_count.clone(), Some(n.trips[k].to_string()));
        }
        // Every `in` load is affine with the generated index.
        let inner = f.loops.last().unwrap();
        for a in inner.accesses.iter().filter(|a| a.base == "in") {
            prop_assert_eq!(a.class.as_str(), "affine");
        }
        // Soundness of the dependence verdicts against brute force.
        for (k, l) in f.loops.iter().enumerate() {
            if l.parallel {
                prop_assert!(!carries(&n, k), "L{} reported parallel but carries a dependence", k);
            }
        }
        let innermost = n.trips.len() - 1;
        let render = |(c, o): &(Vec<i32>, i32)| -> String {
            let terms: Vec<(String, i64)> = c.iter().enumerate().filter(|(_, &x)| x != 0)
                .map(|(k, &x)| (format!("i{k}"), x as i64)).collect();
            let mut s = String::new();
            for (name, x) in &terms {
                if !s.is_empty() { s += " + "; }
                if *x != 1 { s += &format!("{x}*"); }
                s += name;
            }
            if *o != 0 || s.is_empty() {
                if s.is_empty() { s = o.to_string(); } else { s += &format!(" + {o}"); }
            }
            s
        };
        // Loads varying in the innermost loop stay there; invariant ones may be hoisted.
        let must: Vec<String> = n.coefs.iter().filter(|(c, _)| c[innermost] != 0).map(render).collect();
        let may: Vec<String> = n.coefs.iter().map(render).collect();
        let all_in: Vec<String> = f.loops.iter().flat_map(|l| l.accesses.iter())
            .filter(|a| a.base == "in").map(|a| a.index.clone().unwrap()).collect();
        let got: Vec<String> = inner.accesses.iter().filter(|a| a.base == "in")
            .map(|a| a.index.clone().unwrap()).collect();
        for w in &must {
            prop_assert!(got.contains(w), "missing {} in {:?}", w, got);
        }
        for g in &all_in {
            prop_assert!(may.contains(g), "unexpected {} (want {:?})", g, may);
        }
    }

    #[test]
    fn random_ir_text_never_panics(s in "[ -~\n]{0,200}") {
        let ctx = inkwell::context::Context::create();
        if let Ok(m) = weft_frontend::parse_ir(&ctx, &s, "fuzz.ll") {
            let _ = weft_frontend::ModuleAnalysis::new(&m);
        };
    }
}

/// Brute force with `in` placed `delta` elements after `out` in one address
/// space (both `int`): does level `l` carry a dependence between any two
/// accesses, reads of `in` and `out` included?
fn carries_overlapping(n: &Nest, l: usize, delta: i64) -> bool {
    use std::collections::HashMap;
    let d = n.trips.len();
    // (outer IVs, address) -> every (IV of level l, written) seen there.
    type Seen = HashMap<(Vec<i64>, i64), Vec<(i64, bool)>>;
    let mut seen: Seen = HashMap::new();
    let total: u64 = n.trips.iter().map(|&t| t as u64).product();
    for flat in 0..total {
        let mut x = vec![0i64; d];
        let mut r = flat;
        for k in (0..d).rev() {
            x[k] = (r % n.trips[k] as u64) as i64;
            r /= n.trips[k] as u64;
        }
        for (c, o) in &n.coefs {
            let idx = c.iter().zip(&x).map(|(a, b)| *a as i64 * b).sum::<i64>() + *o as i64;
            let out = if n.write_shift { idx } else { 0 };
            for (addr, w) in [(delta + idx, false), (out, false), (out, true)] {
                let e = seen.entry((x[..l].to_vec(), addr)).or_default();
                if e.iter().any(|&(v, w2)| v != x[l] && (w || w2)) {
                    return true;
                }
                e.push((x[l], w));
            }
        }
    }
    false
}

/// The analysis' run-time check of loop `deps` with `in` at byte `4*delta`
/// from `out`: `None` when the loop has no check or its ranges mention the
/// IVs of enclosing loops (evaluated per outer iteration at run time).
fn check_passes(deps: &weft_frontend::LoopDeps<'_>, delta: i64) -> Option<bool> {
    let c = deps.checks.as_ref()?;
    // Constant trip counts: the ranges of an outermost loop are constants.
    let konst = |p: &weft_frontend::Poly| p.as_const();
    let mut guards = Vec::new();
    for g in &c.guards {
        guards.push(konst(g)?);
    }
    let span = |name: &str| -> Option<(i64, i64)> {
        let r = c.bases.iter().find(|r| r.base.name == name)?;
        let at = if name == "in" { 4 * delta } else { 0 };
        let lo = r.lo.iter().map(konst).collect::<Option<Vec<_>>>()?;
        let end = r.end.iter().map(konst).collect::<Option<Vec<_>>>()?;
        Some((at + lo.into_iter().min()?, at + end.into_iter().max()?))
    };
    let ((ol, oe), (il, ie)) = (span("out")?, span("in")?);
    Some(guards.iter().all(|&g| g >= 0) && (oe <= il || ie <= ol))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]
    /// Plain pointers (no `restrict`): a loop reported parallel, or parallel
    /// under its run-time alias check with that check passing for the
    /// placement `delta` of `in` relative to `out`, carries no dependence by
    /// brute force with the arrays placed so (overlapping placements included).
    #[test]
    fn random_nests_with_alias_checks(n in nest(), delta in -200i64..200) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.c");
        std::fs::write(&p, to_c(&n).replace("*restrict ", "*")).unwrap();
        let ctx = inkwell::context::Context::create();
        let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
        let a = weft_frontend::ModuleAnalysis::new(&m);
        let f = a.function("k").unwrap();
        prop_assert_eq!(f.forest.loops.len(), n.trips.len());
        for l in &f.forest.loops {
            let k = f.forest.ancestors(l.id).len() - 1;
            let d = &f.deps[l.id.index()];
            let parallel = d.parallel
                || (d.parallel_if_checked() && check_passes(d, delta) == Some(true));
            if parallel {
                prop_assert!(
                    !carries_overlapping(&n, k, delta),
                    "L{} parallel (checked: {}) with in at out+{} but carries a dependence: {:?}",
                    k, d.checks.is_some(), delta, d.reasons
                );
            }
        }
    }
}

fn kernel_ir() -> &'static str {
    use std::sync::OnceLock;
    static IR: OnceLock<String> = OnceLock::new();
    IR.get_or_init(|| {
        weft_frontend::compile_c(&fixture("gauss_seidel.c"), &Default::default()).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() * 4, .. ProptestConfig::default() })]
    /// Mutated real IR (a line deleted, duplicated or two lines swapped): if LLVM
    /// accepts it, the analysis runs to completion.
    #[test]
    fn mutated_kernel_ir_never_panics(op in 0u8..3, a in 0usize..1000, b in 0usize..1000) {
        let ir = kernel_ir();
        let mut lines: Vec<&str> = ir.lines().collect();
        let n = lines.len();
        let (a, b) = (a % n, b % n);
        match op {
            0 => { lines.remove(a); }
            1 => { let l = lines[a]; lines.insert(b, l); }
            _ => lines.swap(a, b),
        }
        let text = lines.join("\n");
        let ctx = inkwell::context::Context::create();
        if let Ok(m) = weft_frontend::parse_ir(&ctx, &text, "mutant.ll") {
            let a = weft_frontend::ModuleAnalysis::new(&m);
            let _ = weft_frontend::ModuleSummary::new(&a).to_json();
        };
    }
}
