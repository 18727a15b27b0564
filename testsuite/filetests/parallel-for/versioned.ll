; PASSES: parallel-for
; CHECK: @weft.alias.site = internal global [2 x i64] zeroinitializer
; CHECK: define dso_local void @kernel(
; CHECK: call i32 @weft_alias_check(ptr @weft.alias.site, i32
; CHECK: weft.alias.ok:
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @kernel.weft.body.0
; CHECK: weft.alias.join:
; CHECK: %weft.alias.status = phi i32
; CHECK: weft.fallback:
; CHECK: call void @kernel.weft.body.0(ptr %weft.ctx, i64 0, i64 %weft.tc)
; REMARK: @kernel L0 (for.cond1.preheader): applied: executor form: body @kernel.weft.body.0 run by weft_parallel_for; versioned on a run-time alias check of 2 base pair(s)
; cores: 1,2,3
; run: @test(37, 53, 0)
; run: @test(37, 53, 1)
; run: @test(37, 53, 2)
; run: @test(1, 1, 1)
; run: @test(0, 5, 0)
;
; Plain pointers (no restrict): the bases c, a and b may alias, so the nest
; is parallel only when the ranges c[0, n*m), a[0, n*m) and b[0, m) are
; disjoint at run time. mode 0: three arrays (the check passes, the loop runs
; in parallel); mode 1: c = a + m, each iteration writes the row the next one
; reads (a real carried dependence: the check fails, the original order
; runs); mode 2: c = a, in place (no carried dependence, but the ranges
; overlap: the check fails, conservatively).
source_filename = "versioned.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, i64 noundef %m, ptr nocapture noundef writeonly %c, ptr nocapture noundef readonly %a, ptr nocapture noundef readonly %b) local_unnamed_addr #0 {
entry:
  %cmp25 = icmp sgt i64 %n, 0
  br i1 %cmp25, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp223 = icmp sgt i64 %m, 0
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup3
  %i.026 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %inc11, %for.cond.cleanup3 ]
  br i1 %cmp223, label %for.body4.lr.ph, label %for.cond.cleanup3

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %mul = mul nuw nsw i64 %i.026, %m
  %conv = uitofp nneg i64 %i.026 to double
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %for.body4, %for.cond1.preheader
  %inc11 = add nuw nsw i64 %i.026, 1
  %exitcond27.not = icmp eq i64 %inc11, %n
  br i1 %exitcond27.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !5

for.body4:                                        ; preds = %for.body4.lr.ph, %for.body4
  %j.024 = phi i64 [ 0, %for.body4.lr.ph ], [ %inc, %for.body4 ]
  %add = add nuw nsw i64 %j.024, %mul
  %arrayidx = getelementptr inbounds double, ptr %a, i64 %add
  %0 = load double, ptr %arrayidx, align 8, !tbaa !8
  %arrayidx5 = getelementptr inbounds double, ptr %b, i64 %j.024
  %1 = load double, ptr %arrayidx5, align 8, !tbaa !8
  %2 = tail call double @llvm.fmuladd.f64(double %0, double %1, double %conv)
  %arrayidx9 = getelementptr inbounds double, ptr %c, i64 %add
  store double %2, ptr %arrayidx9, align 8, !tbaa !8
  %inc = add nuw nsw i64 %j.024, 1
  %exitcond.not = icmp eq i64 %inc, %m
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !12
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %m, i64 noundef %mode) local_unnamed_addr #2 {
entry:
  %add = add nsw i64 %n, 1
  %mul = mul nsw i64 %add, %m
  %mul1 = shl i64 %mul, 3
  %add2 = add i64 %mul1, 8
  %call = tail call noalias ptr @malloc(i64 noundef %add2) #5
  %mul3 = shl i64 %m, 3
  %add4 = add i64 %mul3, 8
  %call5 = tail call noalias ptr @malloc(i64 noundef %add4) #5
  %cmp = icmp eq i64 %mode, 0
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %mul6 = mul nsw i64 %m, %n
  %mul7 = shl i64 %mul6, 3
  %add8 = add i64 %mul7, 8
  %call9 = tail call noalias ptr @malloc(i64 noundef %add8) #5
  br label %cond.end13

cond.false:                                       ; preds = %entry
  %cmp10 = icmp eq i64 %mode, 1
  %cond.idx = select i1 %cmp10, i64 %m, i64 0
  %cond = getelementptr inbounds double, ptr %call, i64 %cond.idx
  br label %cond.end13

cond.end13:                                       ; preds = %cond.false, %cond.true
  %cond14 = phi ptr [ %call9, %cond.true ], [ %cond, %cond.false ]
  %cmp1774 = icmp sgt i64 %mul, 0
  br i1 %cmp1774, label %for.body, label %for.cond19.preheader

for.cond19.preheader:                             ; preds = %for.body, %cond.end13
  %cmp2076 = icmp sgt i64 %m, 0
  br i1 %cmp2076, label %for.body23, label %for.cond.cleanup22

for.body:                                         ; preds = %cond.end13, %for.body
  %i.075 = phi i64 [ %inc, %for.body ], [ 0, %cond.end13 ]
  %rem = urem i64 %i.075, 17
  %conv = uitofp nneg i64 %rem to double
  %0 = tail call double @llvm.fmuladd.f64(double %conv, double 2.500000e-01, double 1.000000e+00)
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.075
  store double %0, ptr %arrayidx, align 8, !tbaa !8
  %inc = add nuw nsw i64 %i.075, 1
  %exitcond.not = icmp eq i64 %inc, %mul
  br i1 %exitcond.not, label %for.cond19.preheader, label %for.body, !llvm.loop !13

for.cond.cleanup22:                               ; preds = %for.body23, %for.cond19.preheader
  tail call void @kernel(i64 noundef %n, i64 noundef %m, ptr noundef %cond14, ptr noundef %call, ptr noundef %call5)
  %mul32 = mul nsw i64 %m, %n
  %cmp3378 = icmp sgt i64 %mul32, 0
  br i1 %cmp3378, label %for.body36, label %for.cond.cleanup35

for.body23:                                       ; preds = %for.cond19.preheader, %for.body23
  %j.077 = phi i64 [ %inc28, %for.body23 ], [ 0, %for.cond19.preheader ]
  %conv24 = uitofp nneg i64 %j.077 to double
  %1 = tail call double @llvm.fmuladd.f64(double %conv24, double 5.000000e-01, double 1.000000e+00)
  %arrayidx26 = getelementptr inbounds double, ptr %call5, i64 %j.077
  store double %1, ptr %arrayidx26, align 8, !tbaa !8
  %inc28 = add nuw nsw i64 %j.077, 1
  %exitcond81.not = icmp eq i64 %inc28, %m
  br i1 %exitcond81.not, label %for.cond.cleanup22, label %for.body23, !llvm.loop !14

for.cond.cleanup35.loopexit:                      ; preds = %for.body36
  %2 = bitcast double %4 to i64
  br label %for.cond.cleanup35

for.cond.cleanup35:                               ; preds = %for.cond.cleanup35.loopexit, %for.cond.cleanup22
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup22 ], [ %2, %for.cond.cleanup35.loopexit ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call5) #6
  br i1 %cmp, label %if.then, label %if.end

for.body36:                                       ; preds = %for.cond.cleanup22, %for.body36
  %i30.080 = phi i64 [ %inc40, %for.body36 ], [ 0, %for.cond.cleanup22 ]
  %s.079 = phi double [ %4, %for.body36 ], [ 0.000000e+00, %for.cond.cleanup22 ]
  %arrayidx38 = getelementptr inbounds double, ptr %cond14, i64 %i30.080
  %3 = load double, ptr %arrayidx38, align 8, !tbaa !8
  %4 = tail call double @llvm.fmuladd.f64(double %s.079, double 5.000000e-01, double %3)
  %inc40 = add nuw nsw i64 %i30.080, 1
  %exitcond82.not = icmp eq i64 %inc40, %mul32
  br i1 %exitcond82.not, label %for.cond.cleanup35.loopexit, label %for.body36, !llvm.loop !15

if.then:                                          ; preds = %for.cond.cleanup35
  tail call void @free(ptr noundef %cond14) #6
  br label %if.end

if.end:                                           ; preds = %if.then, %for.cond.cleanup35
  ret i64 %s.0.lcssa
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nounwind allocsize(0) }
attributes #6 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = distinct !{!5, !6, !7}
!6 = !{!"llvm.loop.mustprogress"}
!7 = !{!"llvm.loop.unroll.disable"}
!8 = !{!9, !9, i64 0}
!9 = !{!"double", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C/C++ TBAA"}
!12 = distinct !{!12, !6, !7}
!13 = distinct !{!13, !6, !7}
!14 = distinct !{!14, !6, !7}
!15 = distinct !{!15, !6, !7}
