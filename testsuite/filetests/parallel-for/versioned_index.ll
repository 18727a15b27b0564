; PASSES: parallel-for
; CHECK: define dso_local void @gather(
; CHECK: call void @gather.weft.scan(ptr %idx, i64
; CHECK: %weft.scan.lo = load i64
; CHECK: call i32 @weft_alias_check(ptr @weft.alias.site, i32
; CHECK: weft.alias.ok:
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @gather.weft.body.0
; CHECK: weft.fallback:
; CHECK: call void @gather.weft.body.0(ptr %weft.ctx, i64 0, i64 %weft.tc)
; CHECK: define internal void @gather.weft.scan(ptr %idx, i64 %first, i64 %tc, ptr %out)
; CHECK: %v = load i32
; REMARK: @gather L0 (for.body): applied: executor form: body @gather.weft.body.0 run by weft_parallel_for; versioned on a run-time alias check of 2 base pair(s)
; REMARK: x through index array idx, least and greatest index read by a pre-pass), sequential body when it fails
; REMARK: @copy L0 (for.body): missed: not parallel: memory dependence: bases
; REMARK: would cost about as much as the loop: 3 memory access(es) per iteration against 1 index read(s) to scan, 4 per read needed
; cores: 1,2,3
; run: @test(1000, 0)
; run: @test(1000, 1)
; run: @test(1000, 2)
; run: @test(1000, 3)
; run: @test(1000, 4)
; run: @test(1000, 5)
; run: @test(1, 0)
; run: @test(0, 0)
;
; Run-time alias check with an access through an index array: y, x and idx
; are plain pointers, so @gather's loop is parallel only if y's range is
; disjoint from x's and idx's. x[idx[i]]'s range needs the least and
; greatest idx[i]: a pre-pass over idx[0, n) reads them before the check.
; The modes place the arrays in one buffer:
;   0: x after y, idx a permutation of [0, n): disjoint, the check passes;
;   1: x = y, in place: y[i] reads y[idx[i]], which another iteration writes
;      (a real dependence): the check fails, the original order runs;
;   2: x = y + n/2: overlapping, a real dependence: fails;
;   3: x = y + n, idx[i] = i % 10 (not a permutation): disjoint, passes;
;   4: x = y + 1, idx[i] = n - 1 - i: x[idx[i]] = y[n - i] (a real
;      dependence): fails;
;   5: idx[0] = -1 with x = y + n + 4 (x[-1] is still in the buffer, after y):
;      a negative index fails the check (0 <= min is required), the original
;      order runs.
; @copy (y[i] = x[idx[i]]) does 3 memory accesses per index read, too few to
; pay for the pre-pass: refused with a remark.
source_filename = "versioned_index.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @gather(i64 noundef %n, ptr nocapture noundef %y, ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %idx) local_unnamed_addr #0 {
entry:
  %cmp9 = icmp sgt i64 %n, 0
  br i1 %cmp9, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.010 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %idx, i64 %i.010
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %idxprom = sext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds double, ptr %x, i64 %idxprom
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !9
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %i.010
  %2 = load double, ptr %arrayidx2, align 8, !tbaa !9
  %3 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double %2)
  store double %3, ptr %arrayidx2, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.010, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @copy(i64 noundef %n, ptr nocapture noundef writeonly %y, ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %idx) local_unnamed_addr #0 {
entry:
  %cmp6 = icmp sgt i64 %n, 0
  br i1 %cmp6, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.07 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %idx, i64 %i.07
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %idxprom = sext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds double, ptr %x, i64 %idxprom
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !9
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %i.07
  store double %1, ptr %arrayidx2, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14
}

; Function Attrs: nounwind uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %mode) local_unnamed_addr #2 {
entry:
  %mul = mul nsw i64 %n, 3
  %add = add nsw i64 %mul, 16
  %mul1 = shl i64 %add, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %add2 = shl i64 %n, 2
  %mul3 = add i64 %add2, 4
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul3) #6
  %cmp132 = icmp sgt i64 %n, -6
  br i1 %cmp132, label %for.body.preheader, label %for.cond9.preheader

for.body.preheader:                               ; preds = %entry
  %smax = tail call i64 @llvm.smax.i64(i64 %add, i64 1)
  br label %for.body

for.cond9.preheader:                              ; preds = %for.body, %entry
  %cmp10134 = icmp sgt i64 %n, 0
  br i1 %cmp10134, label %for.body13, label %for.cond.cleanup12

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.0133 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %rem = urem i64 %i.0133, 13
  %conv = uitofp nneg i64 %rem to double
  %0 = tail call double @llvm.fmuladd.f64(double %conv, double 2.500000e-01, double 1.000000e+00)
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.0133
  store double %0, ptr %arrayidx, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.0133, 1
  %exitcond.not = icmp eq i64 %inc, %smax
  br i1 %exitcond.not, label %for.cond9.preheader, label %for.body, !llvm.loop !15

for.cond.cleanup12:                               ; preds = %cond.end28, %for.cond9.preheader
  %add.ptr = getelementptr inbounds double, ptr %call, i64 %n
  %add.ptr34 = getelementptr inbounds i8, ptr %add.ptr, i64 32
  %cmp35 = icmp eq i64 %mode, 1
  %spec.select = select i1 %cmp35, ptr %call, ptr %add.ptr34
  %cmp37 = icmp eq i64 %mode, 2
  %div = sdiv i64 %n, 2
  %add.ptr40 = getelementptr inbounds double, ptr %call, i64 %div
  %x.1 = select i1 %cmp37, ptr %add.ptr40, ptr %spec.select
  %cmp42 = icmp eq i64 %mode, 3
  %x.2 = select i1 %cmp42, ptr %add.ptr, ptr %x.1
  %cmp47 = icmp eq i64 %mode, 4
  %add.ptr50 = getelementptr inbounds i8, ptr %call, i64 8
  %x.3 = select i1 %cmp47, ptr %add.ptr50, ptr %x.2
  %arrayidx52 = getelementptr inbounds i32, ptr %call4, i64 %n
  store i32 0, ptr %arrayidx52, align 4, !tbaa !5
  %cmp53 = icmp eq i64 %mode, 5
  %cmp55 = icmp sgt i64 %n, 0
  %or.cond = and i1 %cmp55, %cmp53
  br i1 %or.cond, label %if.then57, label %if.end59

for.body13:                                       ; preds = %for.cond9.preheader, %cond.end28
  %i8.0135 = phi i64 [ %inc32, %cond.end28 ], [ 0, %for.cond9.preheader ]
  switch i64 %mode, label %cond.false23 [
    i64 3, label %cond.true
    i64 4, label %cond.true20
  ]

cond.true:                                        ; preds = %for.body13
  %rem16 = urem i64 %i8.0135, 10
  br label %cond.end28

cond.true20:                                      ; preds = %for.body13
  %1 = xor i64 %i8.0135, -1
  %sub21 = add nsw i64 %1, %n
  br label %cond.end28

cond.false23:                                     ; preds = %for.body13
  %mul24 = mul nuw nsw i64 %i8.0135, 7
  %add25 = add nuw nsw i64 %mul24, 3
  %rem26 = urem i64 %add25, %n
  br label %cond.end28

cond.end28:                                       ; preds = %cond.true20, %cond.false23, %cond.true
  %cond29.in = phi i64 [ %rem16, %cond.true ], [ %sub21, %cond.true20 ], [ %rem26, %cond.false23 ]
  %cond29 = trunc i64 %cond29.in to i32
  %arrayidx30 = getelementptr inbounds i32, ptr %call4, i64 %i8.0135
  store i32 %cond29, ptr %arrayidx30, align 4, !tbaa !5
  %inc32 = add nuw nsw i64 %i8.0135, 1
  %exitcond139.not = icmp eq i64 %inc32, %n
  br i1 %exitcond139.not, label %for.cond.cleanup12, label %for.body13, !llvm.loop !16

if.then57:                                        ; preds = %for.cond.cleanup12
  store i32 -1, ptr %call4, align 4, !tbaa !5
  br label %if.end59

if.end59:                                         ; preds = %if.then57, %for.cond.cleanup12
  tail call void @gather(i64 noundef %n, ptr noundef %call, ptr noundef %x.3, ptr noundef %call4)
  %add.ptr61.idx = shl nsw i64 %n, 4
  %add.ptr61 = getelementptr inbounds i8, ptr %call, i64 %add.ptr61.idx
  %add.ptr62 = getelementptr inbounds i8, ptr %add.ptr61, i64 64
  %2 = load i32, ptr %call4, align 4, !tbaa !5
  %3 = lshr i32 %2, 29
  %4 = and i32 %3, 4
  %cond70.idx = zext nneg i32 %4 to i64
  %cond70 = getelementptr inbounds i8, ptr %call4, i64 %cond70.idx
  tail call void @copy(i64 noundef %n, ptr noundef nonnull %add.ptr62, ptr noundef %call, ptr noundef nonnull %cond70)
  %cmp75136 = icmp sgt i64 %n, -6
  br i1 %cmp75136, label %for.body78.preheader, label %for.cond.cleanup77

for.body78.preheader:                             ; preds = %if.end59
  %smax140 = tail call i64 @llvm.smax.i64(i64 %add, i64 1)
  br label %for.body78

for.cond.cleanup77.loopexit:                      ; preds = %for.body78
  %5 = bitcast double %7 to i64
  br label %for.cond.cleanup77

for.cond.cleanup77:                               ; preds = %for.cond.cleanup77.loopexit, %if.end59
  %s.0.lcssa = phi i64 [ 0, %if.end59 ], [ %5, %for.cond.cleanup77.loopexit ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call4) #7
  ret i64 %s.0.lcssa

for.body78:                                       ; preds = %for.body78.preheader, %for.body78
  %i71.0138 = phi i64 [ %inc82, %for.body78 ], [ 0, %for.body78.preheader ]
  %s.0137 = phi double [ %7, %for.body78 ], [ 0.000000e+00, %for.body78.preheader ]
  %arrayidx80 = getelementptr inbounds double, ptr %call, i64 %i71.0138
  %6 = load double, ptr %arrayidx80, align 8, !tbaa !9
  %7 = tail call double @llvm.fmuladd.f64(double %s.0137, double 5.000000e-01, double %6)
  %inc82 = add nuw nsw i64 %i71.0138, 1
  %exitcond141.not = icmp eq i64 %inc82, %smax140
  br i1 %exitcond141.not, label %for.cond.cleanup77.loopexit, label %for.body78, !llvm.loop !17
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #5

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { nounwind allocsize(0) }
attributes #7 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"double", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = distinct !{!14, !12, !13}
!15 = distinct !{!15, !12, !13}
!16 = distinct !{!16, !12, !13}
!17 = distinct !{!17, !12, !13}
