//! Privatisation: objects every iteration of a loop writes before it reads
//! them get one copy per worker, which removes the dependences between
//! iterations through them (dissertation §4.4.1 on loop-carried dependences;
//! the classic array privatisation of Tu and Padua, in its simplest form).
//!
//! An object `B` (a global or a stack allocation; arguments and loaded
//! pointers may alias others and are never privatised) is privatisable in
//! loop `L` when
//! 1. every access to `B` in `L` is affine and its offset does not change
//!    between iterations of `L` (no IV of `L`, no value computed in `L` other
//!    than the IVs of inner loops): each iteration touches the same locations;
//! 2. every load of `B` in `L` reads a location the same iteration wrote
//!    before, shown by a store of the same size that
//!    - has the same offset and a block dominating the load's (a scalar set at
//!      the top of the iteration, `t = ...; ... = t`), or
//!    - sits in an inner loop `M` it runs in unconditionally (its block
//!      dominates `M`'s latch), with the load in another inner loop `K` that
//!      `M` dominates, `M` and `K` having the same range and the offsets
//!      being equal up to renaming `M`'s IV to `K`'s (a temporary row filled
//!      by one loop and read by the next);
//! 3. `B` is an alloca used nowhere after `L` (its copies are dropped), or a
//!    global whose stores in `L` all run in every iteration (their blocks
//!    dominate `L`'s latch): each copy then starts from the global's value
//!    before the loop and the copy of the worker that ran the last iteration
//!    is written back, which leaves every location with the last value
//!    stored, as the sequential loop does.
//!
//! The loop is then parallel when the dependence test without `B`'s accesses
//! finds no other obstacle ([`crate::deps::analyze`] on the other accesses).

use inkwell::values::{BasicValueEnum, InstructionOpcode, InstructionValue};

use crate::access::{Access, AccessClass, AccessKind, BaseKind};
use crate::analysis::FunctionAnalysis;
use crate::deps::{self, LoopDeps};
use crate::expr::{Poly, Sym};
use crate::ir::{self, ValueKey};
use crate::loops::LoopId;

/// [`privatize`]'s answer when the loop writes no global or stack object
/// (nothing to privatise: not worth a remark).
pub const NO_CANDIDATE: &str = "no global or stack object is written in the loop";

/// An object to copy per worker.
#[derive(Debug, Clone)]
pub struct Private<'ctx> {
    /// The object (an `alloca` or a global).
    pub value: BasicValueEnum<'ctx>,
    /// Its display name.
    pub name: String,
    /// Whether the copies start from the object's value and the last
    /// iteration's copy is written back (globals).
    pub write_back: bool,
}

/// A loop that is parallel once some objects are private.
#[derive(Debug, Clone)]
pub struct Privatization<'ctx> {
    /// The objects.
    pub private: Vec<Private<'ctx>>,
    /// The loop's verdict without the private objects' accesses.
    pub deps: LoopDeps<'ctx>,
}

/// Whether loop `l` becomes parallel (apart from reductions) by privatising
/// some objects; `Err` says why not.
pub fn privatize<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
) -> Result<Privatization<'ctx>, String> {
    let d = &fa.deps[l.index()];
    if d.carried.is_empty() {
        return Err("no memory dependence to remove".into());
    }
    let inside: Vec<&Access<'ctx>> = fa
        .accesses
        .iter()
        .filter(|a| a.loop_id.is_some_and(|m| fa.forest.encloses(l, m)))
        .collect();
    let mut private: Vec<Private<'ctx>> = Vec::new();
    let mut why: Vec<String> = Vec::new();
    for a in &inside {
        if a.kind != AccessKind::Store
            || !matches!(a.base.kind, BaseKind::Global | BaseKind::Alloca)
            || private
                .iter()
                .any(|p| ValueKey::of(&p.value) == a.base.key())
        {
            continue;
        }
        let on: Vec<&Access<'ctx>> = inside
            .iter()
            .copied()
            .filter(|b| b.base.key() == a.base.key())
            .collect();
        match check(fa, l, &on) {
            Ok(write_back) => private.push(Private {
                value: a.base.value,
                name: a.base.name.clone(),
                write_back,
            }),
            Err(e) => {
                let w = format!("{}: {e}", a.base.name);
                if !why.contains(&w) {
                    why.push(w);
                }
            }
        }
    }
    if private.is_empty() {
        return Err(if why.is_empty() {
            NO_CANDIDATE.into()
        } else {
            format!("nothing privatisable ({})", why.join("; "))
        });
    }
    let rest: Vec<Access<'ctx>> = fa
        .accesses
        .iter()
        .filter(|a| {
            !private
                .iter()
                .any(|p| ValueKey::of(&p.value) == a.base.key())
        })
        .cloned()
        .collect();
    let all = deps::analyze(
        fa.function,
        &fa.cfg,
        &fa.forest,
        &fa.symbols,
        &fa.ivs,
        &rest,
    );
    let v = all
        .into_iter()
        .nth(l.index())
        .ok_or("loop missing from the re-analysis")?;
    if !v.carried.is_empty() || v.reasons.len() != v.reductions.len() {
        return Err(format!(
            "still not parallel with {} private: {}",
            private
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            v.reasons.join("; ")
        ));
    }
    Ok(Privatization { private, deps: v })
}

/// Conditions 1-3 for the accesses `on` of one object in `l`; `Ok(write_back)`.
fn check(fa: &FunctionAnalysis<'_>, l: LoopId, on: &[&Access<'_>]) -> Result<bool, String> {
    let base = &on[0].base;
    let mut offs = Vec::with_capacity(on.len());
    for a in on {
        let AccessClass::Affine { offset } = &a.class else {
            return Err(format!("access #{} is not affine", a.id.0));
        };
        if !invariant(fa, l, offset) {
            return Err(format!(
                "access #{} touches different locations in different iterations",
                a.id.0
            ));
        }
        offs.push(offset);
    }
    for (i, a) in on.iter().enumerate() {
        if a.kind != AccessKind::Load {
            continue;
        }
        let covered = on
            .iter()
            .enumerate()
            .any(|(j, s)| s.kind == AccessKind::Store && covers(fa, l, s, offs[j], a, offs[i]));
        if !covered {
            return Err(format!(
                "load #{} may read a value stored by an earlier iteration",
                a.id.0
            ));
        }
    }
    let latch = fa
        .forest
        .get(l)
        .latch()
        .ok_or("loop with several latches")?;
    match base.kind {
        BaseKind::Alloca => {
            if used_outside(fa, l, base.value)? {
                return Err("the stack object is used after the loop".into());
            }
            Ok(false)
        }
        BaseKind::Global => {
            for a in on {
                if a.kind == AccessKind::Store && !fa.cfg.dominates(a.block, latch) {
                    return Err(format!(
                        "store #{} does not run in every iteration (last value unknown)",
                        a.id.0
                    ));
                }
                // The outliner remaps instruction operands only.
                let direct = a.ptr == base.value
                    || ir::as_instruction(a.ptr)
                        .is_some_and(|g| ir::value_operands(g).first() == Some(&base.value));
                if !direct {
                    return Err(format!(
                        "access #{} reaches the global through a constant expression",
                        a.id.0
                    ));
                }
            }
            Ok(true)
        }
        _ => Err("not a global or stack object".into()),
    }
}

/// No symbol of `p` changes between iterations of `l` (IVs of loops inside
/// `l` excepted: they restart in every iteration).
fn invariant(fa: &FunctionAnalysis<'_>, l: LoopId, p: &Poly) -> bool {
    p.symbols().into_iter().all(|s| match s {
        Sym::Iv(m) => m != l && (fa.forest.encloses(l, m) || !fa.forest.encloses(m, l)),
        Sym::Param(id) => match fa.symbols.get(id).def_loop {
            Some(d) => !fa.forest.encloses(l, d),
            None => true,
        },
    })
}

/// Store `s` (offset `fs`) writes, in the same iteration of `l` and before,
/// every location load `a` (offset `fa_`) reads.
fn covers(
    fa: &FunctionAnalysis<'_>,
    l: LoopId,
    s: &Access<'_>,
    fs: &Poly,
    a: &Access<'_>,
    fl: &Poly,
) -> bool {
    if s.size != a.size {
        return false;
    }
    if fs == fl && fa.cfg.dominates(s.block, a.block) {
        return s.block != a.block || before(s.inst, a.inst);
    }
    let (Some(m), Some(k)) = (s.loop_id, a.loop_id) else {
        return false;
    };
    if m == k || m == l || k == l || !fa.forest.encloses(l, m) || !fa.forest.encloses(l, k) {
        return false;
    }
    let inner = |p: &Poly, own: LoopId| {
        p.ivs()
            .into_iter()
            .all(|v| v == own || !fa.forest.encloses(l, v))
    };
    if !inner(fs, m) || !inner(fl, k) {
        return false;
    }
    let (cm, rs) = fs.split_iv(m);
    let (ck, ra) = fl.split_iv(k);
    let (Some(rm), Some(rk)) = (
        fa.ivs[m.index()].range.as_ref(),
        fa.ivs[k.index()].range.as_ref(),
    ) else {
        return false;
    };
    let (mh, kh) = (fa.forest.get(m).header, fa.forest.get(k).header);
    let Some(mlatch) = fa.forest.get(m).latch() else {
        return false;
    };
    cm == ck
        && rs == ra
        && rm == rk
        && !fa.forest.encloses(m, k)
        && fa.cfg.dominates(mh, kh)
        && fa.cfg.dominates(s.block, mlatch)
}

/// `x` comes before `y` in their common block.
fn before(x: InstructionValue<'_>, y: InstructionValue<'_>) -> bool {
    let mut i = x.get_next_instruction();
    while let Some(n) = i {
        if n == y {
            return true;
        }
        i = n.get_next_instruction();
    }
    false
}

/// How the stack object `v` is used: `Err` when it escapes (its address is
/// stored, passed or compared in `l`), `Ok(true)` when it is used after `l`
/// (lifetime markers aside), through GEPs and casts.
fn used_outside(
    fa: &FunctionAnalysis<'_>,
    l: LoopId,
    v: BasicValueEnum<'_>,
) -> Result<bool, String> {
    let lp = fa.forest.get(l);
    let mut work = vec![v];
    let mut seen = std::collections::HashSet::new();
    let mut outside = false;
    while let Some(x) = work.pop() {
        if !seen.insert(ValueKey::of(&x)) {
            continue;
        }
        let xk = ValueKey::of(&x);
        for u in ir::users(&x) {
            let op = u.get_opcode();
            if op == InstructionOpcode::Call
                && ir::callee_name(u).is_some_and(|n| n.starts_with("llvm.lifetime."))
            {
                continue;
            }
            let inside = u
                .get_parent()
                .and_then(|b| fa.cfg.id(b))
                .is_some_and(|b| lp.contains(b));
            if !inside {
                outside = true;
                continue;
            }
            match op {
                InstructionOpcode::GetElementPtr | InstructionOpcode::BitCast => {
                    if let Some(bv) = ir::basic_value_of_inst(u) {
                        work.push(bv);
                    }
                }
                InstructionOpcode::Load => {}
                // Only as the address: storing the address itself lets it escape.
                InstructionOpcode::Store
                    if ir::value_operand(u, 0).map(|o| ValueKey::of(&o)) != Some(xk) => {}
                _ => return Err(format!("its address escapes in the loop ({op:?})")),
            }
        }
    }
    Ok(outside)
}
