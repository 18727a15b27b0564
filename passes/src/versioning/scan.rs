//! The index pre-pass of a run-time alias check (issue #35): before the
//! check, a loop over the elements of the index array the versioned loop will
//! read, `first + t*stride` for `t` in `[0, tc)`, yields the least and
//! greatest index (sign-extended to `i64`). The frontend builds a scan only
//! where the loop itself reads each of these elements
//! ([`weft_frontend::index_range`]), so the pre-pass reads nothing the
//! original loop would not; with `tc <= 0` it reads nothing and returns
//! `min > max`, which fails the check.
//!
//! The loop is an internal function of its own, `<f>.weft.scan`:
//!
//! ```text
//! entry: br (tc > 0), scan, done
//! scan:  t, mn, mx = phi ...
//!        v = sext(load idx[first + t*stride]); mn = min(mn, v); mx = max(mx, v)
//!        br (t + 1 < tc), scan, done
//! done:  out[0], out[1] = phi (INT64_MAX, INT64_MIN from entry)
//! ```

use inkwell::builder::Builder;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use weft_frontend::index_range::IndexScan;
use weft_frontend::Poly;

use crate::error::{PassError, Result};
use crate::util;

/// The IR values one scan needs.
#[derive(Debug, Clone)]
pub(super) struct ScanSpec<'ctx> {
    /// The index array.
    array: PointerValue<'ctx>,
    /// Byte offset of the element iteration 0 reads.
    pub(super) first: Poly,
    /// Bytes between consecutive iterations' elements.
    stride: i64,
    /// Element type.
    elem: IntType<'ctx>,
    /// Alignment of the loop's index load.
    align: u32,
}

impl<'ctx> ScanSpec<'ctx> {
    /// Takes the values of a frontend scan.
    pub(super) fn new(s: &IndexScan<'ctx>) -> std::result::Result<Self, String> {
        let BasicValueEnum::PointerValue(array) = s.array.value else {
            return Err(format!("index array {} is not a pointer", s.array.name));
        };
        let elem = match util::basic_type_of(s.load) {
            Some(BasicTypeEnum::IntType(t)) if t.get_bit_width() <= 64 => t,
            _ => {
                return Err(format!(
                    "index array {} holds no integers of at most 64 bits",
                    s.array.name
                ))
            }
        };
        Ok(ScanSpec {
            array,
            first: s.first.clone(),
            stride: s.stride,
            elem,
            align: s.load.get_alignment().unwrap_or(1).max(1),
        })
    }
}

/// Emits the scan at `b` as a call of an internal function of its own
/// (`<f>.weft.scan`, so that no pass takes its loop for the program's) and
/// returns `(min, max)`; `b` stays where it was.
pub(super) fn emit_scan<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    sc: &ScanSpec<'ctx>,
    first: IntValue<'ctx>,
    tc: IntValue<'ctx>,
) -> Result<(IntValue<'ctx>, IntValue<'ctx>)> {
    let internal = |m: &str| PassError::Internal(m.into());
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let caller = b
        .get_insert_block()
        .and_then(|bb| bb.get_parent())
        .ok_or_else(|| internal("builder not positioned in a function"))?;
    let f = scan_function(module, sc, &caller.get_name().to_string_lossy())?;
    let pair = i64t.array_type(2);
    let out = util::entry_alloca(module, b, pair.into(), "weft.scan.out")?;
    b.build_call(
        f,
        &[sc.array.into(), first.into(), tc.into(), out.into()],
        "",
    )?;
    let at = |k: u64| -> Result<IntValue<'ctx>> {
        // SAFETY: `out` is a `[2 x i64]` and `k < 2`.
        let p = unsafe {
            b.build_in_bounds_gep(
                pair,
                out,
                &[i64t.const_zero(), i64t.const_int(k, false)],
                "",
            )?
        };
        Ok(b.build_load(
            i64t,
            p,
            if k == 0 {
                "weft.scan.lo"
            } else {
                "weft.scan.hi"
            },
        )?
        .into_int_value())
    };
    Ok((at(0)?, at(1)?))
}

/// `void scan(ptr idx, i64 first, i64 tc, ptr out)`: the loop of the module
/// docs, storing `min` and `max` to `out[0]` and `out[1]`.
fn scan_function<'ctx>(
    module: &Module<'ctx>,
    sc: &ScanSpec<'ctx>,
    caller: &str,
) -> Result<FunctionValue<'ctx>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptrt = cx.ptr_type(AddressSpace::default());
    let fty = cx
        .void_type()
        .fn_type(&[ptrt.into(), i64t.into(), i64t.into(), ptrt.into()], false);
    let f = module.add_function(&format!("{caller}.weft.scan"), fty, Some(Linkage::Internal));
    let param = |k: u32| {
        f.get_nth_param(k)
            .ok_or_else(|| PassError::Internal("scan parameter".into()))
    };
    let array = param(0)?.into_pointer_value();
    let first = param(1)?.into_int_value();
    let tc = param(2)?.into_int_value();
    let out = param(3)?.into_pointer_value();
    array.set_name("idx");
    first.set_name("first");
    tc.set_name("tc");
    out.set_name("out");
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let head = cx.append_basic_block(f, "scan");
    let done = cx.append_basic_block(f, "done");
    b.position_at_end(entry);
    let any = b.build_int_compare(IntPredicate::SGT, tc, i64t.const_zero(), "")?;
    b.build_conditional_branch(any, head, done)?;
    let top = i64t.const_int(i64::MAX as u64, false);
    let bottom = i64t.const_int(i64::MIN as u64, true);

    b.position_at_end(head);
    let t = b.build_phi(i64t, "t")?;
    let mn = b.build_phi(i64t, "min")?;
    let mx = b.build_phi(i64t, "max")?;
    let tv = t.as_basic_value().into_int_value();
    let step = b.build_int_mul(tv, i64t.const_int(sc.stride as u64, true), "")?;
    let off = b.build_int_add(first, step, "")?;
    // SAFETY: the element `first + t*stride` is the one iteration `t` of the
    // loop reads (see the module docs); no inbounds claim is made.
    let p = unsafe { b.build_gep(cx.i8_type(), array, &[off], "")? };
    let ld = b.build_load(sc.elem, p, "v")?;
    if let Some(i) = ld.as_instruction_value() {
        i.set_alignment(sc.align)
            .map_err(|e| PassError::Internal(format!("scan load alignment: {e}")))?;
    }
    let v = ld.into_int_value();
    let v = if sc.elem.get_bit_width() < 64 {
        b.build_int_s_extend(v, i64t, "")?
    } else {
        v
    };
    let mnv = mn.as_basic_value().into_int_value();
    let mxv = mx.as_basic_value().into_int_value();
    let lt = b.build_int_compare(IntPredicate::SLT, v, mnv, "")?;
    let mn1 = b.build_select(lt, v, mnv, "")?.into_int_value();
    let gt = b.build_int_compare(IntPredicate::SGT, v, mxv, "")?;
    let mx1 = b.build_select(gt, v, mxv, "")?.into_int_value();
    let t1 = b.build_int_add(tv, i64t.const_int(1, false), "")?;
    let more = b.build_int_compare(IntPredicate::SLT, t1, tc, "")?;
    b.build_conditional_branch(more, head, done)?;
    t.add_incoming(&[(&i64t.const_zero(), entry), (&t1, head)]);
    mn.add_incoming(&[(&top, entry), (&mn1, head)]);
    mx.add_incoming(&[(&bottom, entry), (&mx1, head)]);

    b.position_at_end(done);
    let lo = b.build_phi(i64t, "lo")?;
    lo.add_incoming(&[(&top, entry), (&mn1, head)]);
    let hi = b.build_phi(i64t, "hi")?;
    hi.add_incoming(&[(&bottom, entry), (&mx1, head)]);
    let pair = i64t.array_type(2);
    for (k, v) in [(0u64, lo), (1, hi)] {
        // SAFETY: `out` points to a `[2 x i64]` and `k < 2`.
        let q = unsafe {
            b.build_in_bounds_gep(
                pair,
                out,
                &[i64t.const_zero(), i64t.const_int(k, false)],
                "",
            )?
        };
        b.build_store(q, v.as_basic_value())?;
    }
    b.build_return(None)?;
    Ok(f)
}
