//! Line deduplication of reports ([`LineDedup`]): each report site of the
//! inspector remembers the bank-map line it last reported and skips accesses
//! inside it, so the bank maps (§4.4.2's per-slab bank sets, built by the
//! runtime for Algorithm 4, §4.4.4) are exactly those of reporting every
//! access at a fraction of the runtime calls. This module owns the per-site
//! state and the report calls a slice emits; the `alwaysinline` wrappers
//! they call are in [`super::wrappers`], the inline recording state they
//! share in [`super::inline`].

use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionOpcode, IntValue,
};
use inkwell::IntPredicate;

use super::inline;
use super::inline::{fast, fast_type};
use super::wrappers;
use crate::error::{PassError, Result};
use crate::outline::{self};
use crate::rtabi::{self, RtFn};
use crate::util;

/// Line deduplication of unchecked reports (accesses that cannot conflict,
/// so they only feed the bank maps, kept per "line": the largest aligned
/// block that lies in one memory bank, 2 KB on `table5.2`, or the cache line
/// under a miss predictor; the runtime decides): each report site keeps the
/// line (`addr >> shift`, `shift` from `weft_inspect_line_shift` at inspector
/// entry) it last reported, and skips an access that lies wholly inside that
/// line. The lines are forgotten at the top of every
/// iteration `k` that is not in the inline path's current slab (every
/// iteration when the runtime disabled that path), so every slab still sees
/// every line its iterations touch and the bank maps are exactly those of
/// reporting every access ([`LineDedup::finish`]). The check lives in an
/// `alwaysinline` wrapper ([`super::wrappers::REPORT`]); after inlining, SROA
/// keeps the lines in registers, so a skipped access costs a shift and two
/// compares instead of a runtime call (SpMV rows report each line of `val`,
/// `col` and `x` once). Eight lines per site, direct-mapped, were tried for
/// the bands of `x` a stencil row visits: gmres reported 349k instead of 643k
/// accesses per inspection, but the table lookups cost what the reports
/// saved (1.16 against 1.21 ms; minife 1.12 against 1.03 ms), so one line it
/// is. Tried again with 2 KB bank blocks and stream ranges, as a victim table
/// of 4 or 8 blocks per site consulted only when the last block misses
/// (tagged with a slab generation): reports per inspection fell from 375k to
/// 122k (4) and 12k (8) on gmres and from 131k to 12k on minife, but the
/// inspection times stayed within the run-to-run spread (9 interleaved runs:
/// minimums 0.79, 0.76, 0.78 ms on gmres; 0.58, 0.56, 0.55 ms on minife),
/// since what is left is the walk of the loop itself.
///
/// An access that is not skipped and touches at most two lines is recorded
/// inline (the runtime's `weft_inspect_fast_t`, [`fast`]): the wrapper looks
/// its lines' banks up in the runtime's bank table and sets their bits in
/// the current slab's bank-map row, and counts the access and its lines.
/// The state lives in two entry-block allocas: `weft.fast.cur`, which only
/// the wrappers load and store (SROA turns it into registers), and
/// `weft.fast`, which the runtime fills when the iteration leaves the
/// current slab (`weft_inspect_fast`, about once per slab) and which is
/// copied into the first. The counts reach the runtime with each refill and
/// at every return of the inspector ([`super::wrappers::FLUSH`]). When the runtime
/// disables the inline path (miss predictor, a bank mapping without table,
/// affine nests) and for longer accesses, the wrapper calls
/// `weft_inspect_range`. Checked accesses go through a second wrapper,
/// [`super::wrappers::CHECKED`], which shares the state (and so hands the record
/// cursor back with the counts at every runtime call that takes it).
pub(super) struct LineDedup<'m, 'ctx> {
    /// The module (a reference: `Module::clone` copies the whole module).
    pub(super) module: &'m Module<'ctx>,
    pub(super) f: FunctionValue<'ctx>,
    pub(super) k: IntValue<'ctx>,
    pub(super) h: BasicValueEnum<'ctx>,
    pub(super) shift: IntValue<'ctx>,
    pub(super) wrapper: FunctionValue<'ctx>,
    pub(super) lines: Vec<inkwell::values::PointerValue<'ctx>>,
    /// The runtime's copy of the inline state (`weft.fast`).
    pub(super) st: inkwell::values::PointerValue<'ctx>,
    /// The inspector's own copy (`weft.fast.cur`).
    pub(super) cur: inkwell::values::PointerValue<'ctx>,
    /// Checked accesses reported through [`super::wrappers::CHECKED`].
    pub(super) checked_sites: usize,
}

impl<'m, 'ctx> LineDedup<'m, 'ctx> {
    pub(super) fn new(
        module: &'m Module<'ctx>,
        f: FunctionValue<'ctx>,
        k: IntValue<'ctx>,
        h: BasicValueEnum<'ctx>,
    ) -> Result<Self> {
        let cx = module.get_context();
        let entry = f
            .get_first_basic_block()
            .ok_or_else(|| PassError::Internal("inspector without entry block".into()))?;
        let term = entry
            .get_terminator()
            .ok_or_else(|| PassError::Internal("inspector entry without terminator".into()))?;
        let b = cx.create_builder();
        b.position_before(&term);
        // The entry block only stores and calls (its loads are the live-ins,
        // see `inspector_inputs`); the header loads the shift. A failing
        // query leaves 0: every access is reported.
        let i32t = cx.i32_type();
        let slot = outline::entry_alloca(module, &b, i32t.into(), "weft.line.shift")?;
        b.build_store(slot, i32t.const_zero())?;
        let q = rtabi::declare(module, RtFn::InspectLineShift)?;
        b.build_call(q, &[h.into(), slot.into()], "")?;
        // The inline state: no slab yet (an empty range) but enabled, so the
        // first access asks the runtime; the runtime's copy starts disabled,
        // which is what a failed refill leaves.
        let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
        let st = outline::entry_alloca(module, &b, sty.into(), "weft.fast")?;
        let cur = outline::entry_alloca(module, &b, lty.into(), "weft.fast.cur")?;
        b.build_store(st, sty.const_zero())?;
        let init: Vec<BasicValueEnum<'ctx>> = lty
            .get_field_types()
            .iter()
            .enumerate()
            .map(|(j, t)| match j as u32 {
                fast::ENABLED => i32t.const_int(1, false).into(),
                _ => t.const_zero(),
            })
            .collect();
        b.build_store(cur, lty.const_named_struct(&init))?;
        let header = Self::header(k)?;
        let first = util::instructions(header)
            .into_iter()
            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
            .ok_or_else(|| PassError::Internal("inspector header without terminator".into()))?;
        b.position_before(&first);
        let shift = b.build_load(i32t, slot, "weft.shift")?.into_int_value();
        let shift = b.build_int_z_extend(shift, cx.i64_type(), "")?;
        Ok(LineDedup {
            module,
            f,
            k,
            h,
            shift,
            wrapper: wrappers::wrapper(module)?,
            lines: Vec::new(),
            st,
            cur,
            checked_sites: 0,
        })
    }

    /// The block defining the iteration number `k` (the loop header).
    pub(super) fn header(k: IntValue<'ctx>) -> Result<BasicBlock<'ctx>> {
        k.as_instruction()
            .and_then(|i| i.get_parent())
            .ok_or_else(|| {
                PassError::Internal("inspector iteration number is not an instruction".into())
            })
    }

    /// Reports the read of `size` bytes at `p` in iteration `k` at `b`'s position.
    pub(super) fn report(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        h: BasicValueEnum<'ctx>,
        k: IntValue<'ctx>,
        p: BasicValueEnum<'ctx>,
        size: u64,
        aligned: bool,
    ) -> Result<()> {
        let size = self.module.get_context().i64_type().const_int(size, false);
        self.report_bytes(b, h, k, p, size, aligned)
    }

    /// [`Self::report`] of `size` bytes computed at run time (`i64`, at
    /// least 1).
    pub(super) fn report_bytes(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        h: BasicValueEnum<'ctx>,
        k: IntValue<'ctx>,
        p: BasicValueEnum<'ctx>,
        size: IntValue<'ctx>,
        aligned: bool,
    ) -> Result<()> {
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let line = outline::entry_alloca(self.module, b, i64t.into(), "weft.line")?;
        self.lines.push(line);
        let args: [BasicMetadataValueEnum<'ctx>; 9] = [
            h.into(),
            k.into(),
            p.into(),
            size.into(),
            line.into(),
            self.shift.into(),
            self.st.into(),
            self.cur.into(),
            cx.bool_type().const_int(aligned as u64, false).into(),
        ];
        b.build_call(self.wrapper, &args, "")?;
        Ok(())
    }

    /// Reports the stream of a CSR loop's row, `bytes` at `at`, in
    /// iteration `k`, and with it the streams of the rows after it that lie
    /// in the same slab, through
    /// `weft.inspect.report_rows.<bits>` (`rows`: `&P[x + 1]`, the bytes of
    /// an element of `P`, the row's end `P[x + 1]`, the streamed array and
    /// its element size; see [`super::sites::Rows`]). A row already covered reports
    /// nothing. Only while the inline path holds `k`'s slab is the slab's
    /// end known; otherwise the row reports its own range, as
    /// [`LineDedup::report_bytes`] does.
    pub(super) fn report_rows(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        (at, bytes): (inkwell::values::PointerValue<'ctx>, IntValue<'ctx>),
        (next, pbytes, end, base, stride): (
            inkwell::values::PointerValue<'ctx>,
            u64,
            IntValue<'ctx>,
            BasicValueEnum<'ctx>,
            u64,
        ),
    ) -> Result<()> {
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let line = outline::entry_alloca(self.module, b, i64t.into(), "weft.line")?;
        self.lines.push(line);
        // The first iteration not yet covered (none at entry).
        let done = outline::entry_alloca(self.module, b, i64t.into(), "weft.rows.done")?;
        let init = cx.create_builder();
        let after = done
            .as_instruction()
            .and_then(|i| i.get_next_instruction())
            .ok_or_else(|| PassError::Internal("entry alloca without successor".into()))?;
        init.position_before(&after);
        init.build_store(done, i64t.const_int(i64::MIN as u64, true))?;
        let w = wrappers::rows_wrapper(self.module, self.wrapper, pbytes)?;
        let args: [BasicMetadataValueEnum<'ctx>; 13] = [
            self.h.into(),
            k.into(),
            at.into(),
            bytes.into(),
            line.into(),
            self.shift.into(),
            self.st.into(),
            self.cur.into(),
            done.into(),
            next.into(),
            end.into(),
            base.into(),
            i64t.const_int(stride, false).into(),
        ];
        b.build_call(w, &args, "")?;
        Ok(())
    }

    /// Reports the checked access (`is_write` 0: read, 1: write) of `size`
    /// bytes at `p` in iteration `k` at `b`'s position, through
    /// [`super::wrappers::CHECKED`] (a read of at most two lines is recorded
    /// inline, every other access calls `weft_inspect_checked`).
    pub(super) fn report_checked(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        p: BasicValueEnum<'ctx>,
        size: u64,
        aligned: bool,
        is_write: bool,
    ) -> Result<()> {
        let cx = self.module.get_context();
        let i32t = cx.i32_type();
        let w = wrappers::checked_wrapper(self.module)?;
        let args: [BasicMetadataValueEnum<'ctx>; 9] = [
            self.h.into(),
            k.into(),
            p.into(),
            i32t.const_int(size, false).into(),
            self.shift.into(),
            self.st.into(),
            self.cur.into(),
            cx.bool_type().const_int(aligned as u64, false).into(),
            i32t.const_int(is_write as u64, false).into(),
        ];
        b.build_call(w, &args, "")?;
        self.checked_sites += 1;
        Ok(())
    }

    /// Reports the reads `base[idx[j]]`, `j < n`, of iteration `k` at `b`'s
    /// position through [`super::wrappers::GATHER`] (`(scale, size, kind,
    /// idx_bytes)`: bytes per index step, per read, `is_write` 0 or
    /// [`weft_runtime::abi::ACCESS_UNCHECKED`], bytes per index).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report_gather(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        base: BasicValueEnum<'ctx>,
        idx: BasicValueEnum<'ctx>,
        n: IntValue<'ctx>,
        (scale, size, kind, idx_bytes): (u64, u64, u32, u64),
    ) -> Result<()> {
        let cx = self.module.get_context();
        let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
        let w = wrappers::gather_wrapper(self.module)?;
        let args: [BasicMetadataValueEnum<'ctx>; 11] = [
            self.h.into(),
            k.into(),
            base.into(),
            idx.into(),
            n.into(),
            self.st.into(),
            self.cur.into(),
            i64t.const_int(scale, false).into(),
            i32t.const_int(size.clamp(1, u32::MAX as u64), false).into(),
            i32t.const_int(kind as u64, false).into(),
            i32t.const_int(idx_bytes, false).into(),
        ];
        b.build_call(w, &args, "")?;
        // (The state is handed back before each return too.)
        self.checked_sites += 1;
        Ok(())
    }

    /// Forgets every site's line at the top of each iteration that is not in
    /// the inline path's current slab (after the phis of the block defining
    /// `k`), and hands the inline counts to the runtime before every return.
    ///
    /// A line a site reported earlier in the same slab has set its bank's bit
    /// in that slab's map already, so while the inline path records (the
    /// runtime enabled it: no miss predictor, whose state would see the
    /// repeated touch) the lines are kept from one iteration to the next
    /// until the iteration leaves the slab: streaming references (`val[j]`,
    /// `col[j]` and `y[i]` of consecutive SpMV rows) report each line once
    /// per slab instead of once per iteration, with the same bank maps.
    pub(super) fn finish(self, b: &inkwell::builder::Builder<'ctx>) -> Result<()> {
        if self.lines.is_empty() && self.checked_sites == 0 {
            return Ok(());
        }
        let header = Self::header(self.k)?;
        let first = util::instructions(header)
            .into_iter()
            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
            .ok_or_else(|| PassError::Internal("inspector header without terminator".into()))?;
        b.position_before(&first);
        let cx = self.module.get_context();
        let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
        let lty = fast_type(cx, true);
        let field = |j: u32, t: inkwell::types::BasicTypeEnum<'ctx>| -> Result<IntValue<'ctx>> {
            let pf = b.build_struct_gep(lty, self.cur, j, "")?;
            Ok(b.build_load(t, pf, "")?.into_int_value())
        };
        let (lo, hi) = (field(fast::LO, i64t.into())?, field(fast::HI, i64t.into())?);
        let en = field(fast::ENABLED, i32t.into())?;
        let keep = b.build_and(
            inline::in_range(b, self.k, lo, hi, "")?,
            b.build_int_compare(IntPredicate::NE, en, i32t.const_zero(), "")?,
            "weft.same.slab",
        )?;
        let none = i64t.const_all_ones();
        for l in &self.lines {
            let old = b.build_load(i64t, *l, "")?.into_int_value();
            b.build_store(*l, b.build_select(keep, old, none, "")?)?;
        }
        debug_assert_eq!(header.get_parent(), Some(self.f));
        let flush = wrappers::flush_wrapper(self.module)?;
        for bb in self.f.get_basic_blocks() {
            if let Some(t) = bb
                .get_terminator()
                .filter(|t| t.get_opcode() == InstructionOpcode::Return)
            {
                b.position_before(&t);
                b.build_call(flush, &[self.h.into(), self.st.into(), self.cur.into()], "")?;
            }
        }
        Ok(())
    }
}
