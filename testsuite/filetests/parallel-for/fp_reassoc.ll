; PASSES: parallel-for<only=kernel;fp-reassoc>
; CHECK: double @kernel(
; CHECK: call i32 @weft_parallel_for(i64 0, i64 64, ptr @kernel.weft.blocks.0
; CHECK: call void @kernel.weft.fold.0(
; CHECK: define internal void @kernel.weft.body.0(
; CHECK-NOT: atomicrmw
; CHECK: define internal void @kernel.weft.blocks.0(
; CHECK: call void @kernel.weft.body.0(
; CHECK: define internal void @kernel.weft.fold.0(
; CHECK: call double @llvm.maxnum.f64(
; CHECK: fadd double
; REMARK: combined in block order
; run: @test(1000)
; run: @test(70)
; run: @test(3)
; run: @test(0)
source_filename = "fp_reassoc.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local double @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef readonly %b, ptr noalias nocapture noundef writeonly %cnt) local_unnamed_addr #0 {
entry:
  %cmp21 = icmp sgt i64 %n, 0
  br i1 %cmp21, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %s.0.lcssa = phi double [ 0.000000e+00, %entry ], [ %add, %for.body ]
  %d.0.lcssa = phi double [ 0.000000e+00, %entry ], [ %4, %for.body ]
  %m.0.lcssa = phi double [ -1.000000e+300, %entry ], [ %5, %for.body ]
  %c.0.lcssa = phi i64 [ 0, %entry ], [ %add7, %for.body ]
  store i64 %c.0.lcssa, ptr %cnt, align 8, !tbaa !5
  %0 = tail call double @llvm.fmuladd.f64(double %d.0.lcssa, double 3.000000e+00, double %s.0.lcssa)
  %1 = tail call double @llvm.fmuladd.f64(double %m.0.lcssa, double 7.000000e+00, double %0)
  ret double %1

for.body:                                         ; preds = %entry, %for.body
  %i.026 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %c.025 = phi i64 [ %add7, %for.body ], [ 0, %entry ]
  %m.024 = phi double [ %5, %for.body ], [ -1.000000e+300, %entry ]
  %d.023 = phi double [ %4, %for.body ], [ 0.000000e+00, %entry ]
  %s.022 = phi double [ %add, %for.body ], [ 0.000000e+00, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %a, i64 %i.026
  %2 = load double, ptr %arrayidx, align 8, !tbaa !9
  %add = fadd double %s.022, %2
  %arrayidx2 = getelementptr inbounds double, ptr %b, i64 %i.026
  %3 = load double, ptr %arrayidx2, align 8, !tbaa !9
  %4 = tail call double @llvm.fmuladd.f64(double %2, double %3, double %d.023)
  %5 = tail call double @llvm.maxnum.f64(double %m.024, double %3)
  %cmp5 = fcmp ogt double %2, 0.000000e+00
  %conv6 = zext i1 %cmp5 to i64
  %add7 = add nuw nsw i64 %c.025, %conv6
  %inc = add nuw nsw i64 %i.026, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.maxnum.f64(double, double) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local double @test(i64 noundef %n) local_unnamed_addr #3 {
entry:
  %c = alloca i64, align 8
  %add = shl i64 %n, 3
  %mul = add i64 %add, 8
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %cmp24 = icmp sgt i64 %n, 0
  br i1 %cmp24, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %c) #7
  store i64 0, ptr %c, align 8, !tbaa !5
  %call9 = call double @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call3, ptr noundef nonnull %c)
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call3) #7
  %0 = load i64, ptr %c, align 8, !tbaa !5
  %conv10 = sitofp i64 %0 to double
  %add11 = fadd double %call9, %conv10
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %c) #7
  ret double %add11

for.body:                                         ; preds = %entry, %for.body
  %i.025 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %mul4 = mul nuw nsw i64 %i.025, 37
  %rem = urem i64 %mul4, 101
  %1 = add nsw i64 %rem, -50
  %sub = sitofp i64 %1 to double
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.025
  store double %sub, ptr %arrayidx, align 8, !tbaa !9
  %mul5 = mul nuw nsw i64 %i.025, 11
  %rem6 = urem i64 %mul5, 13
  %conv7 = uitofp nneg i64 %rem6 to double
  %arrayidx8 = getelementptr inbounds double, ptr %call3, i64 %i.025
  store double %conv7, ptr %arrayidx8, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.025, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #4

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #5

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
!6 = !{!"long", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"double", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = distinct !{!14, !12, !13}
