//! Warp-wide expression evaluation: one walk of an expression tree computes the
//! value of all 32 lanes, instead of one walk per active lane (the per-lane
//! [`Expr::eval`] with a [`LaneView`]). Results are identical lane by lane: the
//! language's arithmetic is total and side-effect free (`gpu-seeds.md` §8.5 B), so
//! operators are applied to every lane, active or not, in tight loops; only the
//! table reads (`T[i]`, a family member `F(k)`) are limited to the active lanes,
//! since an inactive lane's index may be anything and its read would cost a cache
//! miss for nothing. Values of inactive lanes are unspecified.
//! `hash(..)` and `rand(..)` fall back to the per-lane evaluator.

use crate::gpu::warp::{LaneView, TbGeo, Warp};
use crate::gpu::workload::expr::{BinOp, Builtin, Func, TableRef, UnOp};
use crate::gpu::workload::{Expr, Tables};

/// One value per lane.
pub(crate) type Lanes = [i64; 32];

/// What a warp-wide evaluation reads: the warp (variables, warp index), its TB's
/// geometry, the kernel's arguments and the active lanes.
pub(crate) struct WarpCtx<'a> {
    /// The warp.
    pub w: &'a Warp,
    /// Its TB's geometry.
    pub geo: &'a TbGeo,
    /// Kernel arguments.
    pub args: &'a [i64],
    /// Active lanes (table reads happen for these only).
    pub mask: u32,
}

/// The set lanes of a mask, in lane order.
#[inline]
fn active(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros();
            m &= m - 1;
            Some(l as usize)
        }
    })
}

/// Evaluates `e` for every lane of `cx` into `out` (exact for the active lanes).
pub(crate) fn eval(e: &Expr, cx: &WarpCtx, tables: &Tables, out: &mut Lanes) {
    match e {
        Expr::Const(c) => *out = [*c; 32],
        Expr::Param(p) => *out = [cx.args.get(*p as usize).copied().unwrap_or(0); 32],
        Expr::Var(v) => {
            let base = v.0 as usize * 32;
            match cx.w.vars.get(base..base + 32) {
                Some(s) => out.copy_from_slice(s),
                None => *out = [0; 32],
            }
        }
        Expr::Builtin(b) => builtin(*b, cx, out),
        Expr::Count(f) => *out = [tables.family_len(*f) as i64; 32],
        Expr::Len(TableRef::Table(t)) => *out = [tables.len_of(*t) as i64; 32],
        Expr::Len(TableRef::Family(f, k)) => {
            eval(k, cx, tables, out);
            for l in active(cx.mask) {
                out[l] = tables.len_of(tables.family_member(*f, out[l])) as i64;
            }
        }
        Expr::Addr(t, i) => {
            eval(i, cx, tables, out);
            match t {
                TableRef::Table(id) => {
                    let r = tables.region(*id);
                    let (base, eb) = (r.base as i64, r.elem_bytes as i64);
                    for x in out.iter_mut() {
                        *x = base.wrapping_add(x.wrapping_mul(eb));
                    }
                }
                TableRef::Family(f, k) => {
                    let mut ks = [0i64; 32];
                    eval(k, cx, tables, &mut ks);
                    for l in active(cx.mask) {
                        out[l] = tables.addr(tables.family_member(*f, ks[l]), out[l]);
                    }
                }
            }
        }
        Expr::Value(t, i) => {
            eval(i, cx, tables, out);
            // Lanes reading the element the previous active lane read (a warp-
            // uniform index, the common case of loop-invariant reads) take its
            // value without a second lookup.
            let mut prev: Option<(i64, i64, i64)> = None;
            match t {
                TableRef::Table(id) => {
                    let vals = tables.region(*id).values();
                    for l in active(cx.mask) {
                        let i = out[l];
                        out[l] = match prev {
                            Some((_, pi, pv)) if pi == i => pv,
                            _ => usize::try_from(i)
                                .ok()
                                .and_then(|i| vals.get(i).copied())
                                .unwrap_or(0),
                        };
                        prev = Some((0, i, out[l]));
                    }
                }
                TableRef::Family(f, k) => {
                    let mut ks = [0i64; 32];
                    eval(k, cx, tables, &mut ks);
                    for l in active(cx.mask) {
                        let (k, i) = (ks[l], out[l]);
                        out[l] = match prev {
                            Some((pk, pi, pv)) if pk == k && pi == i => pv,
                            _ => tables.value(tables.family_member(*f, k), i),
                        };
                        prev = Some((k, i, out[l]));
                    }
                }
            }
        }
        Expr::Unary(op, a) => {
            eval(a, cx, tables, out);
            match op {
                UnOp::Neg => out.iter_mut().for_each(|x| *x = x.wrapping_neg()),
                UnOp::Not => out.iter_mut().for_each(|x| *x = (*x == 0) as i64),
                UnOp::BitNot => out.iter_mut().for_each(|x| *x = !*x),
            }
        }
        Expr::Binary(op, a, b) => {
            eval(a, cx, tables, out);
            // A lane-invariant right operand (`i + 1`, `x < n`) is applied as a
            // scalar, without filling and reading a second array.
            let scalar = match &**b {
                Expr::Const(c) => Some(*c),
                Expr::Param(p) => Some(cx.args.get(*p as usize).copied().unwrap_or(0)),
                _ => None,
            };
            match scalar {
                Some(y) => binary(*op, out, Rhs::Scalar(y)),
                None => {
                    let mut rhs = [0i64; 32];
                    eval(b, cx, tables, &mut rhs);
                    binary(*op, out, Rhs::Lanes(&rhs));
                }
            }
        }
        Expr::Call(f @ (Func::Min | Func::Max), args) => {
            let Some((first, rest)) = args.split_first() else {
                *out = [0; 32];
                return;
            };
            eval(first, cx, tables, out);
            let mut x = [0i64; 32];
            for a in rest {
                eval(a, cx, tables, &mut x);
                if *f == Func::Min {
                    binary_with(out, &x, |a, b| a.min(b));
                } else {
                    binary_with(out, &x, |a, b| a.max(b));
                }
            }
        }
        Expr::Call(Func::Ceil, args) => {
            arg(args.first(), cx, tables, out);
            let mut b = [0i64; 32];
            arg(args.get(1), cx, tables, &mut b);
            binary_with(out, &b, crate::gpu::workload::expr::ceil_div);
        }
        Expr::Call(Func::Abs, args) => {
            arg(args.first(), cx, tables, out);
            out.iter_mut().for_each(|x| *x = x.wrapping_abs());
        }
        Expr::Call(Func::Popc, args) => {
            arg(args.first(), cx, tables, out);
            out.iter_mut().for_each(|x| *x = x.count_ones() as i64);
        }
        Expr::Call(Func::Select, args) => {
            arg(args.first(), cx, tables, out);
            let mut a = [0i64; 32];
            let mut b = [0i64; 32];
            arg(args.get(1), cx, tables, &mut a);
            arg(args.get(2), cx, tables, &mut b);
            for l in 0..32 {
                out[l] = if out[l] != 0 { a[l] } else { b[l] };
            }
        }
        Expr::Call(Func::Hash | Func::Rand, _) => {
            for l in active(cx.mask) {
                out[l] = e.eval(
                    &LaneView {
                        w: cx.w,
                        geo: cx.geo,
                        args: cx.args,
                        lane: l as u32,
                    },
                    tables,
                );
            }
        }
    }
}

/// An optional argument (a missing one reads 0).
#[inline]
fn arg(e: Option<&Expr>, cx: &WarpCtx, tables: &Tables, out: &mut Lanes) {
    match e {
        Some(e) => eval(e, cx, tables, out),
        None => *out = [0; 32],
    }
}

#[inline(always)]
fn binary_with(a: &mut Lanes, b: &Lanes, f: impl Fn(i64, i64) -> i64) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = f(*x, y);
    }
}

/// The right operand of a lane-wise binary operation.
#[derive(Clone, Copy)]
enum Rhs<'a> {
    /// The same value in every lane.
    Scalar(i64),
    /// One value per lane.
    Lanes(&'a Lanes),
}

/// `a = f(a, rhs)` lane by lane, the operator inlined into the loop.
#[inline(always)]
fn apply(a: &mut Lanes, rhs: Rhs, f: impl Fn(i64, i64) -> i64) {
    match rhs {
        Rhs::Scalar(y) => a.iter_mut().for_each(|x| *x = f(*x, y)),
        Rhs::Lanes(b) => binary_with(a, b, f),
    }
}

/// `a = a op b` lane by lane, as [`BinOp::apply`] (the short-circuit of `&&` and
/// `||` in the per-lane evaluator saves work only: their value is the same).
fn binary(op: BinOp, a: &mut Lanes, b: Rhs) {
    match op {
        BinOp::Add => apply(a, b, i64::wrapping_add),
        BinOp::Sub => apply(a, b, i64::wrapping_sub),
        BinOp::Mul => apply(a, b, i64::wrapping_mul),
        BinOp::Div => apply(a, b, |x, y| if y == 0 { 0 } else { x.wrapping_div(y) }),
        BinOp::Rem => apply(a, b, |x, y| if y == 0 { 0 } else { x.wrapping_rem(y) }),
        BinOp::Shl => apply(a, b, |x, y| x.wrapping_shl(y as u32)),
        BinOp::Shr => apply(a, b, |x, y| x.wrapping_shr(y as u32)),
        BinOp::And => apply(a, b, |x, y| x & y),
        BinOp::Or => apply(a, b, |x, y| x | y),
        BinOp::Xor => apply(a, b, |x, y| x ^ y),
        BinOp::Eq => apply(a, b, |x, y| (x == y) as i64),
        BinOp::Ne => apply(a, b, |x, y| (x != y) as i64),
        BinOp::Lt => apply(a, b, |x, y| (x < y) as i64),
        BinOp::Le => apply(a, b, |x, y| (x <= y) as i64),
        BinOp::Gt => apply(a, b, |x, y| (x > y) as i64),
        BinOp::Ge => apply(a, b, |x, y| (x >= y) as i64),
        BinOp::LAnd => apply(a, b, |x, y| (x != 0 && y != 0) as i64),
        BinOp::LOr => apply(a, b, |x, y| (x != 0 || y != 0) as i64),
    }
}

/// `f(thread index in the TB)` for every lane, the first lane being thread `base`.
#[inline(always)]
fn per_thread(out: &mut Lanes, base: u32, f: impl Fn(u32) -> i64) {
    for (l, x) in out.iter_mut().enumerate() {
        *x = f(base + l as u32);
    }
}

/// A builtin for every lane (the formulas of [`LaneView`]'s `builtin`).
fn builtin(b: Builtin, cx: &WarpCtx, out: &mut Lanes) {
    let g = cx.geo;
    let base = cx.w.warp_in_tb * 32;
    let (bx, by) = (g.block[0].max(1), g.block[1].max(1));
    match b {
        Builtin::TidX => per_thread(out, base, |t| (t % bx) as i64),
        Builtin::TidY => per_thread(out, base, |t| ((t / bx) % by) as i64),
        Builtin::TidZ => per_thread(out, base, |t| (t / (bx * by)) as i64),
        Builtin::Gtid => {
            let first = g.linear_ctaid() * g.threads() as u64;
            per_thread(out, base, |t| (first + t as u64) as i64)
        }
        Builtin::Lane => {
            for (l, x) in out.iter_mut().enumerate() {
                *x = l as i64;
            }
        }
        Builtin::Warp => *out = [cx.w.warp_in_tb as i64; 32],
        Builtin::CtaidX => *out = [g.ctaid[0] as i64; 32],
        Builtin::CtaidY => *out = [g.ctaid[1] as i64; 32],
        Builtin::CtaidZ => *out = [g.ctaid[2] as i64; 32],
        Builtin::NtidX => *out = [g.block[0] as i64; 32],
        Builtin::NtidY => *out = [g.block[1] as i64; 32],
        Builtin::NtidZ => *out = [g.block[2] as i64; 32],
        Builtin::NctaidX => *out = [g.grid[0] as i64; 32],
        Builtin::NctaidY => *out = [g.grid[1] as i64; 32],
        Builtin::NctaidZ => *out = [g.grid[2] as i64; 32],
        Builtin::ActiveMask => *out = [cx.w.top().mask as i64; 32],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::workload::expr::TableRef;
    use crate::gpu::workload::Var;

    fn bx(e: Expr) -> Box<Expr> {
        Box::new(e)
    }

    /// Every expression form, warp-wide, equals the per-lane evaluator on the
    /// active lanes (including out-of-range table reads, division by zero,
    /// shifts beyond 63 and family members chosen per lane).
    #[test]
    fn warp_wide_equals_per_lane() {
        let mut t = Tables::new();
        let a = t
            .add_table("a", 4, (0..50).map(|i| i * 7 - 30).collect())
            .unwrap();
        let m0 = t.add_table("m0", 8, vec![5, 6, 7]).unwrap();
        let m1 = t.add_buffer("m1", 4, 9).unwrap();
        let fam = t.add_family("f", vec![m0, m1]).unwrap();
        let mut w = Warp::new(3, 0, 0, 2, 32, 2, 0);
        for l in 0..32u32 {
            w.set(0, l, l as i64 * 3 - 40);
            w.set(1, l, (l % 5) as i64 - 2);
        }
        let geo = TbGeo {
            block: [24, 3, 2],
            grid: [5, 2, 1],
            ctaid: [3, 1, 0],
        };
        let v0 = || bx(Expr::Var(Var(0)));
        let v1 = || bx(Expr::Var(Var(1)));
        let fam_k = || TableRef::Family(fam, v1());
        let mut exprs = vec![
            Expr::Const(9),
            Expr::Param(1),
            Expr::Param(7),
            Expr::Var(Var(5)),
            Expr::Count(fam),
            Expr::Len(TableRef::Table(a)),
            Expr::Len(fam_k()),
            Expr::Addr(TableRef::Table(a), v0()),
            Expr::Addr(fam_k(), v0()),
            Expr::Value(TableRef::Table(a), v0()),
            Expr::Value(fam_k(), v1()),
            // runs of lanes reading one element (the previous lane's value is
            // reused): a warp-uniform index, runs of equal indices (some out of
            // range), one index under per-lane family members
            Expr::Value(TableRef::Table(a), bx(Expr::Const(3))),
            Expr::Value(
                TableRef::Table(a),
                bx(Expr::Binary(BinOp::Div, v0(), bx(Expr::Const(12)))),
            ),
            Expr::Value(fam_k(), bx(Expr::Const(1))),
            Expr::Unary(UnOp::Neg, v0()),
            Expr::Unary(UnOp::Not, v1()),
            Expr::Unary(UnOp::BitNot, v0()),
            Expr::Call(Func::Min, vec![Expr::Var(Var(0)), Expr::Var(Var(1))]),
            Expr::Call(Func::Max, vec![Expr::Var(Var(0)), Expr::Const(3)]),
            Expr::Call(Func::Ceil, vec![Expr::Var(Var(0)), Expr::Var(Var(1))]),
            Expr::Call(Func::Abs, vec![Expr::Var(Var(0))]),
            Expr::Call(Func::Popc, vec![Expr::Var(Var(0))]),
            Expr::Call(
                Func::Select,
                vec![Expr::Var(Var(1)), Expr::Const(1), Expr::Var(Var(0))],
            ),
            Expr::Call(Func::Hash, vec![Expr::Var(Var(0)), Expr::Const(2)]),
            Expr::Call(Func::Rand, vec![Expr::Var(Var(1))]),
        ];
        for (_, b) in Builtin::NAMES {
            exprs.push(Expr::Builtin(*b));
        }
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Rem,
            BinOp::Shl,
            BinOp::Shr,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::LAnd,
            BinOp::LOr,
        ] {
            exprs.push(Expr::Binary(op, v0(), v1()));
            exprs.push(Expr::Binary(op, v1(), bx(Expr::Const(70))));
            // lane-invariant right operands (the scalar path): a parameter, a
            // missing parameter (0), zero
            exprs.push(Expr::Binary(op, v0(), bx(Expr::Param(1))));
            exprs.push(Expr::Binary(op, v0(), bx(Expr::Param(7))));
            exprs.push(Expr::Binary(op, v1(), bx(Expr::Const(0))));
        }
        let args = [11, -4];
        for mask in [u32::MAX, 0x8000_0001, 0x00F0_F00F] {
            let cx = WarpCtx {
                w: &w,
                geo: &geo,
                args: &args,
                mask,
            };
            for e in &exprs {
                let mut out = [0i64; 32];
                eval(e, &cx, &t, &mut out);
                for l in active(mask) {
                    let one = e.eval(
                        &LaneView {
                            w: &w,
                            geo: &geo,
                            args: &args,
                            lane: l as u32,
                        },
                        &t,
                    );
                    assert_eq!(out[l], one, "{e:?} lane {l}");
                }
            }
        }
    }
}
