; PASSES: parallel-for<only=kernel;fp-reassoc>
; CHECK: define dso_local double @kernel(
; CHECK: call i32 @weft_alias_check(ptr @weft.alias.site, i32
; CHECK: weft.alias.ok:
; CHECK: call i32 @weft_parallel_for(i64 0, i64 64, ptr @kernel.weft.blocks.0
; CHECK: weft.alias.join:
; CHECK: %weft.alias.status = phi i32
; CHECK: weft.fallback:
; CHECK: call void @kernel.weft.blocks.0(ptr %weft.blocks.ctx, i64 0, i64 64)
; CHECK: call void @kernel.weft.fold.0(
; REMARK: combined in block order (--fp-reassoc: reproducible for any worker count, not bit-equal to the sequential order); versioned on a run-time alias check of 1 base pair(s) (x/y), the blocks in order on the calling thread when it fails
; cores: 1,2,3
; run: @test(1000, 0)
; run: @test(1000, 1)
; run: @test(1000, 2)
; run: @test(70, 0)
; run: @test(70, 1)
; run: @test(3, 0)
; run: @test(0, 0)
source_filename = "versioned_fp.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local double @kernel(i64 noundef %n, ptr nocapture noundef writeonly %y, ptr nocapture noundef readonly %x) local_unnamed_addr #0 {
entry:
  %cmp12 = icmp sgt i64 %n, 0
  br i1 %cmp12, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %s.0.lcssa = phi double [ 0.000000e+00, %entry ], [ %2, %for.body ]
  ret double %s.0.lcssa

for.body:                                         ; preds = %entry, %for.body
  %i.014 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %s.013 = phi double [ %2, %for.body ], [ 0.000000e+00, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %x, i64 %i.014
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %sub = fadd double %0, -1.000000e+00
  %arrayidx1 = getelementptr inbounds double, ptr %y, i64 %i.014
  store double %sub, ptr %arrayidx1, align 8, !tbaa !5
  %1 = load double, ptr %arrayidx, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %1, double %sub, double %s.013)
  %inc = add nuw nsw i64 %i.014, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind uwtable
define dso_local double @test(i64 noundef %n, i64 noundef %mode) local_unnamed_addr #2 {
entry:
  %add = shl i64 %n, 3
  %mul = add i64 %add, 16
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %cmp = icmp eq i64 %mode, 0
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %mul2 = add i64 %add, 8
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul2) #5
  br label %cond.end7

cond.false:                                       ; preds = %entry
  %cmp4 = icmp eq i64 %mode, 1
  %cond.idx = select i1 %cmp4, i64 8, i64 0
  %cond = getelementptr inbounds i8, ptr %call, i64 %cond.idx
  br label %cond.end7

cond.end7:                                        ; preds = %cond.false, %cond.true
  %cond8 = phi ptr [ %call3, %cond.true ], [ %cond, %cond.false ]
  %cmp10.not44 = icmp slt i64 %n, 0
  br i1 %cmp10.not44, label %for.cond.cleanup, label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %cond.end7
  %call11 = tail call double @kernel(i64 noundef %n, ptr noundef %cond8, ptr noundef %call)
  %cmp1446 = icmp sgt i64 %n, 0
  br i1 %cmp1446, label %for.body17, label %for.cond.cleanup16

for.body:                                         ; preds = %cond.end7, %for.body
  %i.045 = phi i64 [ %inc, %for.body ], [ 0, %cond.end7 ]
  %rem = urem i64 %i.045, 17
  %0 = add nsw i64 %rem, -8
  %sub = sitofp i64 %0 to double
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.045
  store double %sub, ptr %arrayidx, align 8, !tbaa !5
  %inc = add nuw i64 %i.045, 1
  %exitcond.not = icmp eq i64 %i.045, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup16:                               ; preds = %for.body17, %for.cond.cleanup
  %t.0.lcssa = phi double [ 0.000000e+00, %for.cond.cleanup ], [ %2, %for.body17 ]
  tail call void @free(ptr noundef %call) #6
  br i1 %cmp, label %if.then, label %if.end

for.body17:                                       ; preds = %for.cond.cleanup, %for.body17
  %i12.048 = phi i64 [ %inc21, %for.body17 ], [ 0, %for.cond.cleanup ]
  %t.047 = phi double [ %2, %for.body17 ], [ 0.000000e+00, %for.cond.cleanup ]
  %arrayidx19 = getelementptr inbounds double, ptr %cond8, i64 %i12.048
  %1 = load double, ptr %arrayidx19, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %t.047, double 5.000000e-01, double %1)
  %inc21 = add nuw nsw i64 %i12.048, 1
  %exitcond49.not = icmp eq i64 %inc21, %n
  br i1 %exitcond49.not, label %for.cond.cleanup16, label %for.body17, !llvm.loop !13

if.then:                                          ; preds = %for.cond.cleanup16
  tail call void @free(ptr noundef %cond8) #6
  br label %if.end

if.end:                                           ; preds = %if.then, %for.cond.cleanup16
  %3 = tail call double @llvm.fmuladd.f64(double %t.0.lcssa, double 3.000000e+00, double %call11)
  ret double %3
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
!5 = !{!6, !6, i64 0}
!6 = !{!"double", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !10, !11}
!13 = distinct !{!13, !10, !11}
