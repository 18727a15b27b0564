; PASSES: parallel-for<only=kernel>
; CHECK: define dso_local void @kernel(
; CHECK: call i32 @weft_parallel_for(
; CHECK: call i32 @weft_parallel_for(
; REMARK: @kernel L0 (for.body): applied
; REMARK: @kernel L1 (for.body6): missed: not parallel: loop-carried scalar
; REMARK: @kernel L2 (for.body17): applied
; run: @test(1000)
; run: @test(3)
source_filename = "loop_ids.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef %a, ptr noalias nocapture noundef %b, ptr noalias nocapture noundef writeonly %c) local_unnamed_addr #0 {
entry:
  %cmp43 = icmp sgt i64 %n, 0
  br i1 %cmp43, label %for.body, label %for.cond3.preheader

for.cond3.preheader:                              ; preds = %for.body, %entry
  %cmp445 = icmp sgt i64 %n, 1
  br i1 %cmp445, label %for.body6.preheader, label %for.cond14.preheader

for.body6.preheader:                              ; preds = %for.cond3.preheader
  %load_initial = load double, ptr %b, align 8
  br label %for.body6

for.body:                                         ; preds = %entry, %for.body
  %i.044 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %b, i64 %i.044
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %mul = fmul double %0, 2.000000e+00
  %arrayidx1 = getelementptr inbounds double, ptr %a, i64 %i.044
  store double %mul, ptr %arrayidx1, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.044, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond3.preheader, label %for.body, !llvm.loop !9

for.cond14.preheader:                             ; preds = %for.body6, %for.cond3.preheader
  %cmp1547 = icmp sgt i64 %n, 0
  br i1 %cmp1547, label %for.body17, label %for.cond.cleanup16

for.body6:                                        ; preds = %for.body6.preheader, %for.body6
  %store_forwarded = phi double [ %load_initial, %for.body6.preheader ], [ %add, %for.body6 ]
  %i2.046 = phi i64 [ 1, %for.body6.preheader ], [ %inc11, %for.body6 ]
  %1 = getelementptr double, ptr %b, i64 %i2.046
  %arrayidx8 = getelementptr inbounds double, ptr %a, i64 %i2.046
  %2 = load double, ptr %arrayidx8, align 8, !tbaa !5
  %add = fadd double %store_forwarded, %2
  store double %add, ptr %1, align 8, !tbaa !5
  %inc11 = add nuw nsw i64 %i2.046, 1
  %exitcond49.not = icmp eq i64 %inc11, %n
  br i1 %exitcond49.not, label %for.cond14.preheader, label %for.body6, !llvm.loop !12

for.cond.cleanup16:                               ; preds = %for.body17, %for.cond14.preheader
  ret void

for.body17:                                       ; preds = %for.cond14.preheader, %for.body17
  %i13.048 = phi i64 [ %inc23, %for.body17 ], [ 0, %for.cond14.preheader ]
  %arrayidx18 = getelementptr inbounds double, ptr %a, i64 %i13.048
  %3 = load double, ptr %arrayidx18, align 8, !tbaa !5
  %arrayidx19 = getelementptr inbounds double, ptr %b, i64 %i13.048
  %4 = load double, ptr %arrayidx19, align 8, !tbaa !5
  %add20 = fadd double %3, %4
  %arrayidx21 = getelementptr inbounds double, ptr %c, i64 %i13.048
  store double %add20, ptr %arrayidx21, align 8, !tbaa !5
  %inc23 = add nuw nsw i64 %i13.048, 1
  %exitcond50.not = icmp eq i64 %inc23, %n
  br i1 %exitcond50.not, label %for.cond.cleanup16, label %for.body17, !llvm.loop !13
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local double @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %mul = shl i64 %n, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %call2 = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %cmp32 = icmp sgt i64 %n, 0
  br i1 %cmp32, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call2, ptr noundef %call4)
  %cmp734 = icmp sgt i64 %n, 0
  br i1 %cmp734, label %for.body10, label %for.cond.cleanup9

for.body:                                         ; preds = %entry, %for.body
  %i.033 = phi i64 [ %add, %for.body ], [ 0, %entry ]
  %add = add nuw nsw i64 %i.033, 1
  %conv = uitofp nneg i64 %add to double
  %div = fdiv double 1.000000e+00, %conv
  %arrayidx = getelementptr inbounds double, ptr %call2, i64 %i.033
  store double %div, ptr %arrayidx, align 8, !tbaa !5
  %exitcond.not = icmp eq i64 %add, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14

for.cond.cleanup9:                                ; preds = %for.body10, %for.cond.cleanup
  %s.0.lcssa = phi double [ 0.000000e+00, %for.cond.cleanup ], [ %1, %for.body10 ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call2) #6
  tail call void @free(ptr noundef %call4) #6
  ret double %s.0.lcssa

for.body10:                                       ; preds = %for.cond.cleanup, %for.body10
  %i5.036 = phi i64 [ %inc14, %for.body10 ], [ 0, %for.cond.cleanup ]
  %s.035 = phi double [ %1, %for.body10 ], [ 0.000000e+00, %for.cond.cleanup ]
  %arrayidx12 = getelementptr inbounds double, ptr %call4, i64 %i5.036
  %0 = load double, ptr %arrayidx12, align 8, !tbaa !5
  %1 = tail call double @llvm.fmuladd.f64(double %s.035, double 5.000000e-01, double %0)
  %inc14 = add nuw nsw i64 %i5.036, 1
  %exitcond37.not = icmp eq i64 %inc14, %n
  br i1 %exitcond37.not, label %for.cond.cleanup9, label %for.body10, !llvm.loop !15
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
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
!14 = distinct !{!14, !10, !11}
!15 = distinct !{!15, !10, !11}
