; PASSES: parallel-for<only=kernel>
; CHECK: void @kernel(
; CHECK: call i32 @weft_parallel_for(
; CHECK: define internal void @kernel.weft.body.0(
; CHECK: weft.private = alloca [64 x double]
; CHECK-NOT: weft.writeback
; REMARK: privatised, last values written back
; run: @test(50)
; run: @test(3)
; run: @test(0)
source_filename = "private_array.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %b) local_unnamed_addr #0 {
entry:
  %row = alloca [64 x double], align 16
  %cmp42 = icmp sgt i64 %n, 0
  br i1 %cmp42, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.cleanup10, %entry
  ret void

for.body:                                         ; preds = %entry, %for.cond.cleanup10
  %i.043 = phi i64 [ %inc25, %for.cond.cleanup10 ], [ 0, %entry ]
  call void @llvm.lifetime.start.p0(i64 512, ptr nonnull %row) #7
  %arrayidx.idx = shl nsw i64 %i.043, 9
  %invariant.gep = getelementptr inbounds i8, ptr %a, i64 %arrayidx.idx
  br label %for.body4

for.cond8.preheader:                              ; preds = %for.body4
  %mul15 = shl nsw i64 %i.043, 6
  br label %for.body11

for.body4:                                        ; preds = %for.body, %for.body4
  %j.040 = phi i64 [ 0, %for.body ], [ %inc, %for.body4 ]
  %gep = getelementptr inbounds double, ptr %invariant.gep, i64 %j.040
  %0 = load double, ptr %gep, align 8, !tbaa !5
  %1 = tail call double @llvm.fmuladd.f64(double %0, double 2.000000e+00, double 1.000000e+00)
  %arrayidx6 = getelementptr inbounds [64 x double], ptr %row, i64 0, i64 %j.040
  store double %1, ptr %arrayidx6, align 8, !tbaa !5
  %inc = add nuw nsw i64 %j.040, 1
  %exitcond.not = icmp eq i64 %inc, 64
  br i1 %exitcond.not, label %for.cond8.preheader, label %for.body4, !llvm.loop !9

for.cond.cleanup10:                               ; preds = %for.body11
  call void @llvm.lifetime.end.p0(i64 512, ptr nonnull %row) #7
  %inc25 = add nuw nsw i64 %i.043, 1
  %exitcond45.not = icmp eq i64 %inc25, %n
  br i1 %exitcond45.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.body11:                                       ; preds = %for.cond8.preheader, %for.body11
  %j7.041 = phi i64 [ 0, %for.cond8.preheader ], [ %inc22, %for.body11 ]
  %arrayidx12 = getelementptr inbounds [64 x double], ptr %row, i64 0, i64 %j7.041
  %2 = load double, ptr %arrayidx12, align 8, !tbaa !5
  %add16 = add nuw nsw i64 %j7.041, %mul15
  %arrayidx17 = getelementptr inbounds double, ptr %a, i64 %add16
  %3 = load double, ptr %arrayidx17, align 8, !tbaa !5
  %neg = fneg double %3
  %4 = tail call double @llvm.fmuladd.f64(double %2, double %2, double %neg)
  %arrayidx20 = getelementptr inbounds double, ptr %b, i64 %add16
  store double %4, ptr %arrayidx20, align 8, !tbaa !5
  %inc22 = add nuw nsw i64 %j7.041, 1
  %exitcond44.not = icmp eq i64 %inc22, 64
  br i1 %exitcond44.not, label %for.cond.cleanup10, label %for.body11, !llvm.loop !13
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local double @test(i64 noundef %n) local_unnamed_addr #3 {
entry:
  %mul = shl i64 %n, 6
  %add = shl i64 %n, 9
  %mul1 = or disjoint i64 %add, 8
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #8
  %call5 = tail call noalias ptr @malloc(i64 noundef %mul1) #8
  %cmp34 = icmp sgt i64 %n, 0
  br i1 %cmp34, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %smax = tail call i64 @llvm.smax.i64(i64 %mul, i64 1)
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call5)
  %cmp1136 = icmp sgt i64 %n, 0
  br i1 %cmp1136, label %for.body14.preheader, label %for.cond.cleanup13

for.body14.preheader:                             ; preds = %for.cond.cleanup
  %smax39 = tail call i64 @llvm.smax.i64(i64 %mul, i64 1)
  br label %for.body14

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.035 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %mul7 = mul nuw nsw i64 %i.035, 37
  %rem = urem i64 %mul7, 101
  %0 = add nsw i64 %rem, -50
  %sub = sitofp i64 %0 to double
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.035
  store double %sub, ptr %arrayidx, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.035, 1
  %exitcond.not = icmp eq i64 %inc, %smax
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14

for.cond.cleanup13:                               ; preds = %for.body14, %for.cond.cleanup
  %s.0.lcssa = phi double [ 0.000000e+00, %for.cond.cleanup ], [ %2, %for.body14 ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call5) #7
  ret double %s.0.lcssa

for.body14:                                       ; preds = %for.body14.preheader, %for.body14
  %i8.038 = phi i64 [ %inc18, %for.body14 ], [ 0, %for.body14.preheader ]
  %s.037 = phi double [ %2, %for.body14 ], [ 0.000000e+00, %for.body14.preheader ]
  %arrayidx16 = getelementptr inbounds double, ptr %call5, i64 %i8.038
  %1 = load double, ptr %arrayidx16, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %s.037, double 5.000000e-01, double %1)
  %inc18 = add nuw nsw i64 %i8.038, 1
  %exitcond40.not = icmp eq i64 %inc18, %smax39
  br i1 %exitcond40.not, label %for.cond.cleanup13, label %for.body14, !llvm.loop !15
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #4

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #6

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #7 = { nounwind }
attributes #8 = { nounwind allocsize(0) }

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
!14 = distinct !{!14, !10, !11}
!15 = distinct !{!15, !10, !11}
