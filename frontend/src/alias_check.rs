//! Run-time alias checks: the byte range every access of a loop touches over
//! all its iterations, for loop versioning (issue #35 part 1; the LLVM
//! counterpart is LoopAccessAnalysis' run-time pointer checks, which
//! LoopVersioning turns into `if (no overlap) transformed else original`).
//!
//! When two bases are not provably distinct (plain pointer arguments, pointers
//! returned by an allocator behind a call), [`crate::deps`] asks this module
//! for [`AliasChecks`]: for each base the hull `[lo, end)` of the byte offsets
//! its accesses reach while loop `L` runs (inner loops over their whole range,
//! loops enclosing `L` at their current iteration), and the pairs of bases that
//! must not overlap (one of them written). Ranges are polys over values
//! available before `L` runs, so a pass can evaluate them in `L`'s preheader.
//!
//! Each offset is affine in the induction variables. The extreme of `c*i`
//! over `i ∈ [lo, hi]` is `c*hi` (max) or `c*lo` (min) when `c >= 0`: a
//! constant coefficient's sign is known; a symbolic one (`n` in `i*n + j`) is
//! assumed non-negative and the assumption becomes a run-time guard
//! (`guards`, each `>= 0`). Inner IV ranges that mention outer IVs of the nest
//! (triangular loops) are replaced by their extremes in turn, innermost first.
//!
//! An access through an index array (`x[idx[i]]`) has the range
//! `rest + c*[min, max]`, with `min` and `max` the least and greatest value
//! the loop loads from `idx`: the pass reads them with a pre-pass over the
//! index array before the check ([`crate::index_range`], which says when the
//! pre-pass is built and when it is judged too costly).
//!
//! Arithmetic is exact: the pass evaluates the polys in 128-bit integers after
//! checking at run time that every symbol's magnitude is below
//! `2^SYMBOL_BITS`; a poly whose terms could then exceed `2^120` is refused
//! here, so no evaluation can wrap.

use crate::access::{Access, AccessClass, AccessKind, Base};
use crate::cfg::Cfg;
use crate::deps::Alias;
use crate::expr::{Poly, Sym};
use crate::index_range::{self, IndexScan, MIN_ACCESSES_PER_SCAN};
use crate::iv::LoopIvs;
use crate::loops::{LoopForest, LoopId};
use crate::symbols::SymbolTable;

/// Run-time bound on the magnitude of every symbol in a check (`|v| < 2^32`).
pub const SYMBOL_BITS: u32 = 32;

/// Largest magnitude (log2) a check poly may reach under the symbol bound.
const MAX_POLY_BITS: f64 = 120.0;

/// The bytes one base's accesses reach while the loop runs.
#[derive(Debug, Clone)]
pub struct BaseRange<'ctx> {
    /// The base object.
    pub base: Base<'ctx>,
    /// Lowest byte offset reached (over invariant symbols and outer IVs).
    pub lo: Vec<Poly>,
    /// One past the highest byte reached, one poly per access (the pass takes the max).
    pub end: Vec<Poly>,
    /// Per access: the scan (index into [`AliasChecks::scans`]) and factor
    /// `c` of an index term `c*v` left out of `lo` and `end`, which the pass
    /// adds (`c*min` or `c*max` of the scanned values, by the sign of `c`).
    pub index: Vec<Option<(usize, i64)>>,
    /// Whether an access through this base stores.
    pub written: bool,
}

/// The run-time test under which a loop has no carried dependence.
#[derive(Debug, Clone, Default)]
pub struct AliasChecks<'ctx> {
    /// Bases taking part in a check.
    pub bases: Vec<BaseRange<'ctx>>,
    /// Pairs (indices into `bases`) whose ranges must be disjoint.
    pub pairs: Vec<(usize, usize)>,
    /// Polys that must be `>= 0` for the ranges to be hulls (assumed coefficient signs).
    pub guards: Vec<Poly>,
    /// Every symbol mentioned by the ranges, guards and scans (each bounded by `2^SYMBOL_BITS`).
    pub symbols: Vec<Sym>,
    /// Index arrays to scan before the check.
    pub scans: Vec<IndexScan<'ctx>>,
}

impl AliasChecks<'_> {
    /// `"A/B, A/C"`: the base pairs checked, for remarks.
    pub fn describe(&self) -> String {
        self.pairs
            .iter()
            .map(|(a, b)| format!("{}/{}", self.bases[*a].base.name, self.bases[*b].base.name))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `"x through index array idx"` for each base whose range needs a
    /// scan, `; `-separated (empty without scans), for remarks.
    pub fn describe_scans(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for r in &self.bases {
            for k in r.index.iter().flatten().map(|(k, _)| *k) {
                let t = format!(
                    "{} through index array {}",
                    r.base.name, self.scans[k].array.name
                );
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out.join("; ")
    }
}

/// Builds the checks of loop `l` for the base pairs `pairs` (keys of bases
/// that may alias, at least one written); `inside` are the accesses of `l`.
pub fn build<'ctx>(
    cfg: &Cfg<'ctx>,
    forest: &LoopForest,
    syms: &SymbolTable<'ctx>,
    ivs: &[LoopIvs<'ctx>],
    l: LoopId,
    inside: &[&Access<'ctx>],
    pairs: &[(Base<'ctx>, Base<'ctx>)],
) -> Result<AliasChecks<'ctx>, String> {
    let mut out = AliasChecks::default();
    let index_of = |b: &Base<'ctx>, out: &mut AliasChecks<'ctx>| -> Result<usize, String> {
        if let Some(k) = out.bases.iter().position(|r| r.base.key() == b.key()) {
            return Ok(k);
        }
        let mut r = BaseRange {
            base: b.clone(),
            lo: Vec::new(),
            end: Vec::new(),
            index: Vec::new(),
            written: false,
        };
        for a in inside.iter().filter(|a| a.base.key() == b.key()) {
            let offset = match &a.class {
                AccessClass::Affine { offset } | AccessClass::Indirect { offset, .. } => offset,
                AccessClass::Unknown { .. } => {
                    return Err(format!(
                        "access #{} on {} has an unknown access function",
                        a.id.0, b.name
                    ))
                }
            };
            let (rest, index) = index_range::split_offset(forest, syms, l, offset)?;
            let index = match index {
                None => None,
                Some((id, c)) => {
                    let k = match out
                        .scans
                        .iter()
                        .position(|s| syms.lookup(crate::ir::ValueKey::of(&s.load)) == Some(id))
                    {
                        Some(k) => k,
                        None => {
                            let s = index_range::scan_of(cfg, forest, syms, ivs, l, inside, id)?;
                            out.scans.push(s);
                            out.scans.len() - 1
                        }
                    };
                    Some((k, c))
                }
            };
            let mut guards = Vec::new();
            let lo = extreme(forest, ivs, l, &rest, false, &mut guards)?;
            let hi = extreme(forest, ivs, l, &rest, true, &mut guards)?;
            let end = hi
                .add(&Poly::constant(a.size.max(1) as i64))
                .map_err(|_| "overflow".to_string())?;
            r.written |= a.kind == AccessKind::Store;
            r.lo.push(lo);
            r.end.push(end);
            r.index.push(index);
            for g in guards {
                if !out.guards.contains(&g) {
                    out.guards.push(g);
                }
            }
        }
        out.bases.push(r);
        Ok(out.bases.len() - 1)
    };
    for (a, b) in pairs {
        let ia = index_of(a, &mut out)?;
        let ib = index_of(b, &mut out)?;
        let p = (ia.min(ib), ia.max(ib));
        if !out.pairs.contains(&p) {
            out.pairs.push(p);
        }
    }
    if !out.scans.is_empty() && inside.len() < MIN_ACCESSES_PER_SCAN * out.scans.len() {
        return Err(format!(
            "a pre-pass over index array {} would cost about as much as the loop: {} memory access(es) per iteration against {} index read(s) to scan, {MIN_ACCESSES_PER_SCAN} per read needed",
            out.scans[0].array.name,
            inside.len(),
            out.scans.len()
        ));
    }
    let mut all: Vec<&Poly> = out.guards.iter().collect();
    for r in &out.bases {
        all.extend(r.lo.iter().chain(r.end.iter()));
    }
    all.extend(out.scans.iter().map(|s| &s.first));
    let mut symbols: Vec<Sym> = Vec::new();
    for p in &all {
        if magnitude_bits(p) > MAX_POLY_BITS {
            return Err(format!(
                "range {} too large to evaluate exactly",
                p.render(&|s| syms.name(s))
            ));
        }
        for s in p.symbols() {
            match s {
                Sym::Iv(m) if forest.encloses(l, m) => {
                    return Err("range depends on an induction variable of the loop".into())
                }
                Sym::Param(id) => {
                    if let Some(d) = syms.get(id).def_loop {
                        if forest.encloses(l, d) {
                            return Err(format!(
                                "range uses {}, defined inside the loop",
                                syms.name(s)
                            ));
                        }
                    }
                    if !(syms.get(id).value.is_int_value() || syms.get(id).value.is_pointer_value())
                    {
                        return Err(format!("range uses non-integer {}", syms.name(s)));
                    }
                }
                Sym::Iv(_) => {}
            }
            if !symbols.contains(&s) {
                symbols.push(s);
            }
        }
    }
    symbols.sort();
    out.symbols = symbols;
    Ok(out)
}

/// Whether a May pair may be settled by a check: both accesses affine or
/// through an index array ([`build`] decides whether the ranges are computable).
pub fn checkable(a: &Access<'_>, b: &Access<'_>, rel: Alias) -> bool {
    let known = |x: &Access<'_>| !matches!(x.class, AccessClass::Unknown { .. });
    rel == Alias::May && known(a) && known(b)
}

/// Min (or max) of `p` over the iterations of `l` and the loops inside it,
/// recording the sign assumptions on symbolic coefficients in `guards`.
fn extreme(
    forest: &LoopForest,
    ivs: &[LoopIvs<'_>],
    l: LoopId,
    p: &Poly,
    max: bool,
    guards: &mut Vec<Poly>,
) -> Result<Poly, String> {
    let mut p = p.clone();
    for _ in 0..32 {
        let inner: Vec<LoopId> = p
            .ivs()
            .into_iter()
            .filter(|m| forest.encloses(l, *m))
            .collect();
        // Innermost first: its range only mentions IVs of loops around it.
        let Some(m) = inner.into_iter().max_by_key(|m| forest.ancestors(*m).len()) else {
            return Ok(p);
        };
        if !p.is_affine_in_ivs() {
            return Err("range is not affine in the induction variables".into());
        }
        let (c, rest) = p.split_iv(m);
        let (lo, hi) = ivs[m.index()]
            .range
            .clone()
            .ok_or_else(|| format!("range of the induction variable of {m} unknown"))?;
        let up = match c.as_const() {
            Some(k) => (k >= 0) == max,
            None => {
                if !c.ivs().is_empty() {
                    return Err("coefficient depends on an induction variable".into());
                }
                if !guards.contains(&c) {
                    guards.push(c.clone());
                }
                max
            }
        };
        let pick = if up { hi } else { lo };
        p = rest
            .add(&c.mul(&pick).map_err(|_| "overflow".to_string())?)
            .map_err(|_| "overflow".to_string())?;
    }
    Err("range nest too deep".into())
}

/// log2 of the largest magnitude `p` can reach with every symbol below `2^SYMBOL_BITS`.
fn magnitude_bits(p: &Poly) -> f64 {
    let total: f64 = p
        .terms()
        .map(|(m, c)| (c.unsigned_abs() as f64) * 2f64.powi((SYMBOL_BITS as i32) * m.len() as i32))
        .sum();
    if total <= 1.0 {
        0.0
    } else {
        total.log2()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magnitude_counts_degree() {
        assert_eq!(magnitude_bits(&Poly::constant(1)), 0.0);
        let n = Poly::sym(Sym::Param(crate::expr::SymId(0)));
        let n3 = n.mul(&n).unwrap().mul(&n).unwrap().scale(8).unwrap();
        let b = magnitude_bits(&n3);
        assert!((b - 99.0).abs() < 1e-9, "{b}");
        assert!(b < MAX_POLY_BITS);
        let n4 = n3.mul(&n).unwrap();
        assert!(magnitude_bits(&n4) > MAX_POLY_BITS);
    }
}
