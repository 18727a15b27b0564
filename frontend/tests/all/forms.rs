//! Loop forms written by hand: unrotated, decreasing, strided, non-canonical,
//! multi-exit, irreducible, and accesses that must fall back to unknown.

use crate::common::*;

#[test]
fn unrotated_loop_with_header_test() {
    // for (i = 0; i < n; i++) a[i] = 0;  (the shape mem2reg leaves at -O0)
    let s = summarize_ir(
        r#"
define void @f(ptr noalias %a, i32 %n) {
entry:
  br label %cond
cond:
  %i = phi i32 [ 0, %entry ], [ %inc, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %ix
  store i32 0, ptr %p
  %inc = add nsw i32 %i, 1
  br label %cond
exit:
  ret void
}
"#,
    );
    let l = &func(&s, "f").loops[0];
    assert_eq!(l.trip_count.as_deref(), Some("n"));
    assert!(l.canonical, "{:?}", l.remarks);
    assert!(l.parallel, "{:?}", l.reasons);
    assert_eq!(accesses(l), vec![acc("store", "affine", "a", "i0")]);
}

#[test]
fn decreasing_and_strided_loops() {
    // for (i = n; i > 0; i--) a[i] = a[i-1];   and   for (i = 0; i < n; i += 2) b[i] = 1;
    let s = summarize_ir(
        r#"
define void @f(ptr noalias %a, ptr noalias %b, i64 %n) {
entry:
  %g = icmp sgt i64 %n, 0
  br i1 %g, label %l1, label %mid
l1:
  %i = phi i64 [ %n, %entry ], [ %dec, %l1 ]
  %im1 = add nsw i64 %i, -1
  %q = getelementptr inbounds double, ptr %a, i64 %im1
  %v = load double, ptr %q
  %p = getelementptr inbounds double, ptr %a, i64 %i
  store double %v, ptr %p
  %dec = add nsw i64 %i, -1
  %c = icmp sgt i64 %dec, 0
  br i1 %c, label %l1, label %mid
mid:
  br i1 %g, label %l2, label %exit
l2:
  %j = phi i64 [ 0, %mid ], [ %j2, %l2 ]
  %r = getelementptr inbounds i8, ptr %b, i64 %j
  store i8 1, ptr %r
  %j2 = add nuw nsw i64 %j, 2
  %c2 = icmp slt i64 %j2, %n
  br i1 %c2, label %l2, label %exit
exit:
  ret void
}
"#,
    );
    let f = func(&s, "f");
    let (l0, l1) = (&f.loops[0], &f.loops[1]);
    assert_eq!(l0.trip_count.as_deref(), Some("n"));
    assert_eq!(l0.induction_variables[0].step, -1);
    assert!(!l0.parallel, "a[i] = a[i-1] carries a dependence");
    assert_eq!(
        accesses(l0),
        vec![
            acc("load", "affine", "a", "i0 - 1"),
            acc("store", "affine", "a", "i0"),
        ]
    );
    assert_eq!(l1.trip_count.as_deref(), Some("ceil((n) / 2)"));
    assert!(l1.parallel, "{:?}", l1.reasons);
}

#[test]
fn constant_trip_counts_with_le_and_offsets() {
    // for (i = 3; i <= 10; i++) a[2*i+1] = a[2*i];  -> 8 iterations, parallel (GCD)
    let s = summarize_ir(
        r#"
define void @f(ptr noalias %a) {
entry:
  br label %l
l:
  %i = phi i64 [ 3, %entry ], [ %n, %l ]
  %t = shl i64 %i, 1
  %p = getelementptr inbounds i32, ptr %a, i64 %t
  %v = load i32, ptr %p
  %t1 = or disjoint i64 %t, 1
  %q = getelementptr inbounds i32, ptr %a, i64 %t1
  store i32 %v, ptr %q
  %n = add nuw nsw i64 %i, 1
  %c = icmp ule i64 %n, 10
  br i1 %c, label %l, label %exit
exit:
  ret void
}
"#,
    );
    let l = &func(&s, "f").loops[0];
    assert_eq!(l.trip_count.as_deref(), Some("8"));
    assert_eq!(
        accesses(l),
        vec![
            acc("load", "affine", "a", "2*i0"),
            acc("store", "affine", "a", "2*i0 + 1"),
        ]
    );
    assert!(l.parallel, "{:?}", l.reasons);
}

#[test]
fn non_canonical_loop_gets_remarks() {
    // Header reached from two outside blocks, two latches, and an exit shared with outside.
    let s = summarize_ir(
        r#"
define void @f(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %h
b:
  br i1 %c, label %h, label %exit
h:
  %i = phi i32 [ 0, %a ], [ 0, %b ], [ %i1, %l1 ], [ %i2, %l2 ]
  %x = icmp slt i32 %i, %n
  br i1 %x, label %l1, label %l2
l1:
  %i1 = add i32 %i, 1
  br label %h
l2:
  %i2 = add i32 %i, 1
  %y = icmp slt i32 %i2, 100
  br i1 %y, label %h, label %exit
exit:
  ret void
}
"#,
    );
    let l = &func(&s, "f").loops[0];
    assert!(!l.canonical);
    let r = l.remarks.join("; ");
    assert!(r.contains("no preheader"), "{r}");
    assert!(r.contains("2 latches"), "{r}");
    assert!(r.contains("not dedicated"), "{r}");
    assert_eq!(l.latches.len(), 2);
}

#[test]
fn multi_exit_loop_has_no_trip_count() {
    let s = summarize_ir(
        r#"
define void @f(ptr %a, i64 %n) {
entry:
  br label %h
h:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p
  %z = icmp eq i32 %v, 0
  br i1 %z, label %exit, label %latch
latch:
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %h, label %exit
exit:
  ret void
}
"#,
    );
    let l = &func(&s, "f").loops[0];
    assert_eq!(l.trip_count, None);
    assert!(
        l.remarks.iter().any(|r| r.contains("2 exiting blocks")),
        "{:?}",
        l.remarks
    );
    assert!(!l.parallel);
    assert!(l.reason.as_deref().unwrap().contains("trip count unknown"));
}

#[test]
fn irreducible_cfg_has_no_natural_loop_and_no_panic() {
    let s = summarize_ir(
        r#"
define void @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br i1 %c, label %b, label %exit
b:
  br i1 %c, label %a, label %exit
exit:
  ret void
}
"#,
    );
    assert!(func(&s, "f").loops.is_empty());
}

#[test]
fn unknown_accesses_carry_reasons() {
    // a[i*j] (non-affine), b[i % 7] (srem), c through a pointer IV, d[i] with d loaded each iteration.
    let s = summarize_ir(
        r#"
define void @f(ptr noalias %a, ptr noalias %b, ptr noalias %c, ptr noalias %dd, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i1, %olatch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j1, %inner ]
  %pc = phi ptr [ %c, %outer ], [ %pc1, %inner ]
  %ij = mul nsw i64 %i, %j
  %pa = getelementptr inbounds i32, ptr %a, i64 %ij
  store i32 1, ptr %pa
  %r = srem i64 %j, 7
  %pb = getelementptr inbounds i32, ptr %b, i64 %r
  store i32 2, ptr %pb
  store i32 3, ptr %pc
  %pc1 = getelementptr inbounds i32, ptr %pc, i64 1
  %pd = getelementptr inbounds ptr, ptr %dd, i64 %j
  %d = load ptr, ptr %pd
  %pdi = getelementptr inbounds i32, ptr %d, i64 %i
  store i32 4, ptr %pdi
  %j1 = add nuw nsw i64 %j, 1
  %cj = icmp eq i64 %j1, %n
  br i1 %cj, label %olatch, label %inner
olatch:
  %i1 = add nuw nsw i64 %i, 1
  %ci = icmp eq i64 %i1, %n
  br i1 %ci, label %exit, label %outer
exit:
  ret void
}
"#,
    );
    let f = func(&s, "f");
    let l = &f.loops[1];
    let classes: Vec<&str> = l.accesses.iter().map(|a| a.class.as_str()).collect();
    assert_eq!(
        classes,
        vec!["unknown", "unknown", "unknown", "affine", "unknown"]
    );
    let reasons: Vec<&str> = l
        .accesses
        .iter()
        .filter_map(|a| a.reason.as_deref())
        .collect();
    assert!(reasons[0].contains("not affine"), "{}", reasons[0]);
    assert!(reasons[1].contains("srem"), "{}", reasons[1]);
    assert!(reasons[2].contains("pointer induction"), "{}", reasons[2]);
    assert!(reasons[3].contains("loaded from memory"), "{}", reasons[3]);
    assert!(!l.parallel);
}

#[test]
fn aliasing_arguments_and_calls_block_parallelism() {
    let s = summarize_ir(
        r#"
declare void @g()
define void @f(ptr %a, ptr %b, ptr noalias %c, i64 %n) {
entry:
  br label %l1
l1:
  %i = phi i64 [ 0, %entry ], [ %i1, %l1 ]
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %pa
  %pb = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 %v, ptr %pb
  %i1 = add nuw nsw i64 %i, 1
  %c1 = icmp eq i64 %i1, %n
  br i1 %c1, label %l2, label %l1
l2:
  %j = phi i64 [ 0, %l1 ], [ %j1, %l2 ]
  %pc = getelementptr inbounds i32, ptr %c, i64 %j
  store i32 0, ptr %pc
  call void @g()
  %j1 = add nuw nsw i64 %j, 1
  %c2 = icmp eq i64 %j1, %n
  br i1 %c2, label %exit, label %l2
exit:
  ret void
}
"#,
    );
    let f = func(&s, "f");
    assert!(!f.loops[0].parallel);
    assert!(f.loops[0].reason.as_deref().unwrap().contains("may alias"));
    assert!(!f.loops[1].parallel);
    assert!(f.loops[1].reasons.iter().any(|r| r.contains("call to @g")));
}

#[test]
fn debug_info_does_not_break_analysis() {
    // -g puts metadata operands (debug records or intrinsics) in the IR.
    let ctx = inkwell::context::Context::create();
    let mut opts = weft_frontend::ClangOptions::default();
    opts.flags.retain(|f| f != "-g0");
    opts.flags.push("-g".into());
    let m = weft_frontend::load_module(&ctx, &fixture("spmv_csr.c"), &opts).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("spmv_csr").unwrap();
    assert_eq!(f.forest.len(), 2);
    assert!(f.deps[0].parallel);
}

#[test]
fn analysis_handles_lead_back_to_ir() {
    // Passes go from verdicts back to the IR: phi, blocks, instructions, base pointers.
    use inkwell::values::InstructionOpcode;
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::load_module(&ctx, &fixture("spmv_csr.c"), &Default::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("spmv_csr").unwrap();
    let inner = weft_frontend::LoopId(1);
    let iv = f.loop_ivs(inner).primary_iv().unwrap();
    assert_eq!(iv.phi.as_instruction().get_opcode(), InstructionOpcode::Phi);
    let l = f.forest.get(inner);
    assert_eq!(
        f.cfg.block(l.header),
        iv.phi.as_instruction().get_parent().unwrap()
    );
    assert!(l.preheader.is_some());
    let ind = f
        .accesses_in(inner)
        .find(|x| matches!(x.class, weft_frontend::AccessClass::Indirect { .. }))
        .unwrap();
    assert_eq!(ind.inst.get_opcode(), InstructionOpcode::Load);
    assert_eq!(
        ind.base.value,
        m.get_function("spmv_csr")
            .unwrap()
            .get_nth_param(4)
            .unwrap()
    );
    if let weft_frontend::AccessClass::Indirect {
        index_load,
        index_array,
        ..
    } = &ind.class
    {
        assert_eq!(index_load.get_opcode(), InstructionOpcode::Load);
        assert_eq!(index_array.name, "col");
    }
}

#[test]
fn live_ins_and_outs_of_a_loop() {
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::load_module(&ctx, &fixture("spmv_csr.c"), &Default::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("spmv_csr").unwrap();
    let outer = weft_frontend::LoopId(0);
    let names: Vec<String> = f
        .live_ins(outer)
        .iter()
        .map(|v| v.get_name().to_string_lossy().into_owned())
        .collect();
    // The pointers and the bound come from outside; nothing else.
    for want in ["rowptr", "col", "val", "x", "y", "wide.trip.count37"] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
    assert_eq!(names.len(), 6, "{names:?}");
    // The inner loop's result (the reduction) is used after it.
    let inner = weft_frontend::LoopId(1);
    let outs = f.live_outs(inner);
    assert_eq!(outs.len(), 1);
    assert!(f.live_outs(outer).is_empty());
}

#[test]
fn cfg_dominators_and_forest_shape() {
    // entry -> A (outer header) -> B (inner header, self loop) -> C (outer latch) -> A | D
    //                           \-> E (sibling loop header, self loop) -> C
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::parse_ir(
        &ctx,
        r#"
define void @f(i1 %c) {
entry:
  br label %A
A:
  br i1 %c, label %B, label %E
B:
  br i1 %c, label %B, label %C
E:
  br i1 %c, label %E, label %C
C:
  br i1 %c, label %A, label %D
D:
  ret void
}
"#,
        "shape.ll",
    )
    .unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("f").unwrap();
    let id = |n: &str| {
        (0..f.cfg.len())
            .map(|i| weft_frontend::BlockId(i as u32))
            .find(|b| f.cfg.name(*b) == n)
            .unwrap()
    };
    let (entry, ba, bb, be, bc, bd) = (id("entry"), id("A"), id("B"), id("E"), id("C"), id("D"));
    assert_eq!(f.cfg.idom(ba), Some(entry));
    assert_eq!(f.cfg.idom(bb), Some(ba));
    assert_eq!(f.cfg.idom(be), Some(ba));
    assert_eq!(f.cfg.idom(bc), Some(ba), "C is reached from B and E");
    assert_eq!(f.cfg.idom(bd), Some(bc));
    assert!(f.cfg.dominates(ba, bd) && !f.cfg.dominates(bb, bc));
    // Pre-order ids: outer A = L0, then its children in layout order: B = L1, E = L2.
    let fo = &f.forest;
    assert_eq!(fo.len(), 3);
    assert_eq!(fo.roots, vec![weft_frontend::LoopId(0)]);
    let l0 = fo.get(weft_frontend::LoopId(0));
    assert_eq!(l0.header, ba);
    assert_eq!(l0.latches, vec![bc]);
    assert_eq!(
        l0.blocks.iter().copied().collect::<Vec<_>>(),
        vec![ba, bb, be, bc]
    );
    assert_eq!(l0.exits, vec![bd]);
    assert_eq!(l0.exiting, vec![bc]);
    assert_eq!(l0.preheader, Some(entry));
    assert_eq!(
        l0.children,
        vec![weft_frontend::LoopId(1), weft_frontend::LoopId(2)]
    );
    let l1 = fo.get(weft_frontend::LoopId(1));
    let l2 = fo.get(weft_frontend::LoopId(2));
    assert_eq!(
        (l1.header, l1.depth, l1.parent),
        (bb, 2, Some(weft_frontend::LoopId(0)))
    );
    assert_eq!((l2.header, l2.depth), (be, 2));
    assert_eq!(l1.exits, vec![bc]);
    // B's only outside predecessor A also branches to E: no preheader.
    assert!(l1.preheader.is_none() && !l1.canonical);
    assert_eq!(fo.loop_of(bb), Some(weft_frontend::LoopId(1)));
    assert_eq!(fo.loop_of(bc), Some(weft_frontend::LoopId(0)));
    assert_eq!(fo.loop_of(bd), None);
}

#[test]
fn inline_assembly_is_named_as_such() {
    // for (i = 0; i < n; i++) { a[i] = 0; asm volatile(""); }
    let s = summarize_ir(
        r#"
define void @f(ptr noalias %a, i64 %n) {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 0, ptr %p
  call void asm sideeffect "", "~{memory}"()
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %body
exit:
  ret void
}
"#,
    );
    let l = &func(&s, "f").loops[0];
    assert!(!l.parallel);
    assert!(
        l.reasons.iter().any(|r| r.contains("inline assembly")),
        "{:?}",
        l.reasons
    );
    assert!(
        !l.reasons.iter().any(|r| r.contains("indirect call")),
        "{:?}",
        l.reasons
    );
}
