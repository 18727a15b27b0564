//! Access-function descriptors of affine nests (`weft_run_affine_desc`,
//! runtime `weft_runtime::affine_desc`): the compiler side of "bank vectors
//! computed at loop entry from the access functions and the actual base
//! addresses, without running the loop body" (dissertation §5.5.1–§5.5.2).
//!
//! For the scheduled loop `P` of a parallel nest, [`build`] collects from the
//! frontend's analysis the loops nested in `P` (IV start, step, trip count)
//! and every load and store (base pointer, element size, byte offset `A·i + o`
//! flattened to one dimension) as polynomials over the nest's IVs whose
//! coefficients are constants or loop-invariant values (array extents, outer
//! IVs). [`emit`] evaluates those coefficients at the call site, stores the
//! words in an `i64` array in the entry block and returns it; the runtime
//! enumerates cache lines from it.
//!
//! A nest gets no descriptor (and keeps the address inspector) when an access
//! is not affine, a base pointer or coefficient is defined inside `P`, a loop
//! in `P` has no trip count or primary IV, an expression is not affine in the
//! nest's IVs, or the nest is deeper than the runtime supports.

use std::collections::HashMap;

use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use weft_frontend::expr::{Poly, Sym};
use weft_frontend::{AccessClass, AccessKind, FunctionAnalysis, LoopId};

use crate::error::{PassError, Result};

/// A descriptor ready to be emitted.
#[derive(Debug, Clone)]
pub struct DescSpec<'ctx> {
    /// Words (see the runtime module for the layout).
    pub words: Vec<DescWord<'ctx>>,
    /// Values of the invariant symbols the polynomials mention.
    pub syms: HashMap<Sym, BasicValueEnum<'ctx>>,
    /// Loops described (including `P`).
    pub loops: usize,
    /// References described.
    pub refs: usize,
    /// How many words are compile-time constants.
    pub constant_words: usize,
}

/// One word of a descriptor.
#[derive(Debug, Clone)]
pub enum DescWord<'ctx> {
    /// A compile-time constant.
    Const(i64),
    /// A polynomial over loop-invariant symbols, evaluated at the call site.
    Poly(Poly),
    /// The address of a base pointer (evaluated at the call site).
    Base(BasicValueEnum<'ctx>),
}

/// Splits `p` (affine in the IVs of `ivs`) into the constant part and one
/// coefficient per IV of `ivs`; `None` if a monomial has two nest IVs.
fn split(p: &Poly, ivs: &[LoopId]) -> Option<(Poly, Vec<Poly>)> {
    let mut rest = p.clone();
    let mut coefs = Vec::with_capacity(ivs.len());
    for &l in ivs {
        let (c, r) = rest.split_iv(l);
        if c.ivs().iter().any(|m| ivs.contains(m)) {
            return None;
        }
        coefs.push(c);
        rest = r;
    }
    if rest.ivs().iter().any(|m| ivs.contains(m)) {
        return None;
    }
    Some((rest, coefs))
}

/// Whether `v` is an instruction of loop `p` (or one whose block the CFG
/// does not know): such a value is not available before the loop.
fn defined_in_loop(fa: &FunctionAnalysis<'_>, p: LoopId, v: BasicValueEnum<'_>) -> bool {
    v.as_instruction_value().is_some_and(|inst| {
        inst.get_parent()
            .and_then(|b| fa.cfg.id(b))
            .map(|b| fa.forest.get(p).contains(b))
            .unwrap_or(true)
    })
}

fn word<'ctx>(p: Poly) -> DescWord<'ctx> {
    match p.as_const() {
        Some(c) => DescWord::Const(c),
        None if p.is_zero() => DescWord::Const(0),
        None => DescWord::Poly(p),
    }
}

/// Builds the descriptor of loop `p` of `fa`, or says why not.
pub fn build<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    p: LoopId,
) -> std::result::Result<DescSpec<'ctx>, String> {
    let forest = &fa.forest;
    // Loops of P, parents before children (breadth first), with their index.
    let mut order = vec![p];
    let mut i = 0;
    while i < order.len() {
        let l = order[i];
        for &c in &forest.get(l).children {
            order.push(c);
        }
        i += 1;
    }
    if order.len() > 1024 {
        return Err("more than 1024 loops".into());
    }
    let index: HashMap<LoopId, usize> = order.iter().enumerate().map(|(i, &l)| (l, i)).collect();
    // Chain P..=l of a loop.
    let chain = |l: LoopId| -> Vec<LoopId> {
        let mut v: Vec<LoopId> = forest
            .ancestors(l)
            .into_iter()
            .take_while(|m| forest.encloses(p, *m))
            .collect();
        v.reverse();
        v
    };
    let mut words: Vec<DescWord<'ctx>> = Vec::new();
    let piv = fa.loop_ivs(p);
    let pv = piv.primary_iv().ok_or("P has no primary IV")?;
    let p_start = pv.start.clone().ok_or("P's start is not an expression")?;
    if p_start.ivs().iter().any(|m| forest.encloses(p, *m)) {
        return Err("P's start depends on P".into());
    }
    words.push(DescWord::Const(weft_runtime::affine_desc::VERSION));
    words.push(DescWord::Const(order.len() as i64));
    let nrefs_pos = words.len();
    words.push(DescWord::Const(0));
    words.push(word(p_start));
    words.push(DescWord::Const(pv.step));
    for &l in &order[1..] {
        let ch = chain(l);
        let anc = &ch[..ch.len() - 1];
        if anc.len() > weft_runtime::affine_desc::MAX_DEPTH {
            return Err("nest too deep".into());
        }
        let li = fa.loop_ivs(l);
        let iv = li.primary_iv().ok_or("an inner loop has no primary IV")?;
        let start = iv
            .start
            .clone()
            .ok_or("an inner loop start is not an expression")?;
        let tc = li
            .trip_count
            .as_ref()
            .ok_or("an inner loop has no trip count")?;
        let (sc, scoef) = split(&start, anc).ok_or("an inner loop start is not affine")?;
        let (tcc, tcoef) = split(&tc.numerator, anc).ok_or("an inner trip count is not affine")?;
        let parent = forest.get(l).parent.ok_or("inner loop without parent")?;
        words.push(DescWord::Const(index[&parent] as i64));
        words.push(word(sc));
        words.extend(scoef.into_iter().map(word));
        words.push(DescWord::Const(iv.step));
        words.push(word(tcc));
        words.extend(tcoef.into_iter().map(word));
        words.push(DescWord::Const(tc.step.max(1)));
    }
    let mut nrefs = 0;
    for a in fa.accesses_within(p) {
        let AccessClass::Affine { offset } = &a.class else {
            return Err(format!("access {} is {}", a.id.0, a.class.label()));
        };
        let l = a.loop_id.ok_or("access outside loops")?;
        let ch = chain(l);
        let (oc, ocoef) = split(offset, &ch).ok_or("an offset is not affine in the nest's IVs")?;
        // The base must be available before the loop.
        if defined_in_loop(fa, p, a.base.value) {
            return Err(format!("base {} is defined inside the loop", a.base.name));
        }
        if !a.base.value.is_pointer_value() {
            return Err(format!("base {} is not a pointer", a.base.name));
        }
        words.push(DescWord::Const(index[&l] as i64));
        words.push(DescWord::Base(a.base.value));
        words.push(DescWord::Const(a.size.clamp(1, 4096) as i64));
        words.push(DescWord::Const((a.kind == AccessKind::Store) as i64));
        words.push(word(oc));
        words.extend(ocoef.into_iter().map(word));
        nrefs += 1;
    }
    words[nrefs_pos] = DescWord::Const(nrefs);
    // Invariant symbols: their values before P.
    let mut syms = HashMap::new();
    for w in &words {
        let DescWord::Poly(poly) = w else { continue };
        for s in poly.symbols() {
            if syms.contains_key(&s) {
                continue;
            }
            let v: BasicValueEnum<'ctx> = match s {
                Sym::Iv(m) => {
                    if forest.encloses(p, m) {
                        return Err("a coefficient depends on the nest's IVs".into());
                    }
                    fa.loop_ivs(m)
                        .primary_iv()
                        .ok_or("outer loop without a primary IV")?
                        .phi
                        .as_basic_value()
                }
                Sym::Param(id) => {
                    let info = fa
                        .symbols
                        .symbols
                        .get(id.0 as usize)
                        .ok_or("unknown symbol")?;
                    if info.def_loop.is_some_and(|d| forest.encloses(p, d)) {
                        return Err(format!("{} is defined inside the loop", info.name));
                    }
                    if defined_in_loop(fa, p, info.value) {
                        return Err(format!("{} is defined inside the loop", info.name));
                    }
                    if !(info.value.is_int_value() || info.value.is_pointer_value()) {
                        return Err(format!("{} is not an integer", info.name));
                    }
                    info.value
                }
            };
            syms.insert(s, v);
        }
    }
    let constant_words = words
        .iter()
        .filter(|w| matches!(w, DescWord::Const(_)))
        .count();
    Ok(DescSpec {
        words,
        syms,
        loops: order.len(),
        refs: nrefs as usize,
        constant_words,
    })
}

fn to_i64<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    v: BasicValueEnum<'ctx>,
) -> Result<IntValue<'ctx>> {
    let i64t = module.get_context().i64_type();
    Ok(match v {
        BasicValueEnum::IntValue(x) => {
            if x.get_type().get_bit_width() == 64 {
                x
            } else if x.get_type().get_bit_width() < 64 {
                b.build_int_s_extend(x, i64t, "")?
            } else {
                b.build_int_truncate(x, i64t, "")?
            }
        }
        BasicValueEnum::PointerValue(p) => b.build_ptr_to_int(p, i64t, "")?,
        _ => {
            return Err(PassError::Internal(
                "descriptor symbol is not an integer".into(),
            ))
        }
    })
}

/// Emits the descriptor of `spec` at `b` (before the call); the array lives in
/// the entry block of `f`. Returns the pointer and the word count.
pub fn emit<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    f: inkwell::values::FunctionValue<'ctx>,
    spec: &DescSpec<'ctx>,
) -> Result<(PointerValue<'ctx>, IntValue<'ctx>)> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let n = spec.words.len() as u32;
    let aty = i64t.array_type(n);
    let eb = cx.create_builder();
    let entry = f
        .get_first_basic_block()
        .ok_or_else(|| PassError::Internal("function without entry block".into()))?;
    match entry.get_first_instruction() {
        Some(i) => eb.position_before(&i),
        None => eb.position_at_end(entry),
    }
    let arr = eb.build_alloca(aty, "weft.desc")?;
    let mut vals: HashMap<Sym, IntValue<'ctx>> = HashMap::new();
    for (s, v) in &spec.syms {
        vals.insert(*s, to_i64(module, b, *v)?);
    }
    for (k, w) in spec.words.iter().enumerate() {
        let v: IntValue<'ctx> = match w {
            DescWord::Const(c) => i64t.const_int(*c as u64, true),
            DescWord::Base(p) => to_i64(module, b, *p)?,
            DescWord::Poly(poly) => {
                let mut acc = i64t.const_zero();
                for (mono, c) in poly.terms() {
                    let mut t = i64t.const_int(c as u64, true);
                    for s in mono {
                        let v = *vals.get(s).ok_or_else(|| {
                            PassError::Internal("descriptor symbol missing".into())
                        })?;
                        t = b.build_int_mul(t, v, "")?;
                    }
                    acc = b.build_int_add(acc, t, "")?;
                }
                acc
            }
        };
        // SAFETY: k < n, the array's length.
        let slot = unsafe {
            b.build_in_bounds_gep(
                aty,
                arr,
                &[i64t.const_zero(), i64t.const_int(k as u64, false)],
                "",
            )?
        };
        b.build_store(slot, v)?;
    }
    Ok((arr, i64t.const_int(n as u64, false)))
}
