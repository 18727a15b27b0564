; PASSES: parallel-for
; CHECK: call i32 @weft_parallel_for(
; CHECK: define internal void @kernel.weft.body.0(
; REMARK: applied
; run: @test(37, 53)
; run: @test(1, 1)
source_filename = "nested.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i32 noundef %n, i32 noundef %m, ptr noalias nocapture noundef writeonly %c, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef readonly %b) local_unnamed_addr #0 {
entry:
  %cmp27 = icmp sgt i32 %n, 0
  br i1 %cmp27, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp225 = icmp sgt i32 %m, 0
  %0 = zext i32 %m to i64
  %wide.trip.count35 = zext nneg i32 %n to i64
  %wide.trip.count = zext nneg i32 %m to i64
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup3
  %indvars.iv31 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %indvars.iv.next32, %for.cond.cleanup3 ]
  br i1 %cmp225, label %for.body4.lr.ph, label %for.cond.cleanup3

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %1 = mul nuw nsw i64 %indvars.iv31, %0
  %2 = trunc nuw nsw i64 %indvars.iv31 to i32
  %conv = uitofp nneg i32 %2 to double
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %for.body4, %for.cond1.preheader
  %indvars.iv.next32 = add nuw nsw i64 %indvars.iv31, 1
  %exitcond36.not = icmp eq i64 %indvars.iv.next32, %wide.trip.count35
  br i1 %exitcond36.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !5

for.body4:                                        ; preds = %for.body4.lr.ph, %for.body4
  %indvars.iv = phi i64 [ 0, %for.body4.lr.ph ], [ %indvars.iv.next, %for.body4 ]
  %3 = add nuw nsw i64 %indvars.iv, %1
  %arrayidx = getelementptr inbounds double, ptr %a, i64 %3
  %4 = load double, ptr %arrayidx, align 8, !tbaa !8
  %arrayidx6 = getelementptr inbounds double, ptr %b, i64 %indvars.iv
  %5 = load double, ptr %arrayidx6, align 8, !tbaa !8
  %6 = tail call double @llvm.fmuladd.f64(double %4, double %5, double %conv)
  %arrayidx11 = getelementptr inbounds double, ptr %c, i64 %3
  store double %6, ptr %arrayidx11, align 8, !tbaa !8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !12
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %m) local_unnamed_addr #2 {
entry:
  %mul = mul nsw i64 %m, %n
  %mul1 = shl i64 %mul, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #5
  %mul2 = shl i64 %m, 3
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul2) #5
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul1) #5
  %cmp58 = icmp sgt i64 %mul, 0
  br i1 %cmp58, label %for.body, label %for.cond9.preheader

for.cond9.preheader:                              ; preds = %for.body, %entry
  %cmp1060 = icmp sgt i64 %m, 0
  br i1 %cmp1060, label %for.body13, label %for.cond.cleanup12

for.body:                                         ; preds = %entry, %for.body
  %i.059 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %rem = urem i64 %i.059, 17
  %conv = uitofp nneg i64 %rem to double
  %mul8 = fmul double %conv, 2.500000e-01
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.059
  store double %mul8, ptr %arrayidx, align 8, !tbaa !8
  %inc = add nuw nsw i64 %i.059, 1
  %exitcond.not = icmp eq i64 %inc, %mul
  br i1 %exitcond.not, label %for.cond9.preheader, label %for.body, !llvm.loop !13

for.cond.cleanup12:                               ; preds = %for.body13, %for.cond9.preheader
  %conv19 = trunc i64 %n to i32
  %conv20 = trunc i64 %m to i32
  tail call void @kernel(i32 noundef %conv19, i32 noundef %conv20, ptr noundef %call6, ptr noundef %call, ptr noundef %call3)
  %cmp2462 = icmp sgt i64 %mul, 0
  br i1 %cmp2462, label %for.body27, label %for.cond.cleanup26

for.body13:                                       ; preds = %for.cond9.preheader, %for.body13
  %j.061 = phi i64 [ %inc17, %for.body13 ], [ 0, %for.cond9.preheader ]
  %conv14 = uitofp nneg i64 %j.061 to double
  %sub = fadd double %conv14, -3.000000e+00
  %arrayidx15 = getelementptr inbounds double, ptr %call3, i64 %j.061
  store double %sub, ptr %arrayidx15, align 8, !tbaa !8
  %inc17 = add nuw nsw i64 %j.061, 1
  %exitcond65.not = icmp eq i64 %inc17, %m
  br i1 %exitcond65.not, label %for.cond.cleanup12, label %for.body13, !llvm.loop !14

for.cond.cleanup26.loopexit:                      ; preds = %for.body27
  %0 = bitcast double %2 to i64
  br label %for.cond.cleanup26

for.cond.cleanup26:                               ; preds = %for.cond.cleanup26.loopexit, %for.cond.cleanup12
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup12 ], [ %0, %for.cond.cleanup26.loopexit ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call3) #6
  tail call void @free(ptr noundef %call6) #6
  ret i64 %s.0.lcssa

for.body27:                                       ; preds = %for.cond.cleanup12, %for.body27
  %i21.064 = phi i64 [ %inc31, %for.body27 ], [ 0, %for.cond.cleanup12 ]
  %s.063 = phi double [ %2, %for.body27 ], [ 0.000000e+00, %for.cond.cleanup12 ]
  %arrayidx29 = getelementptr inbounds double, ptr %call6, i64 %i21.064
  %1 = load double, ptr %arrayidx29, align 8, !tbaa !8
  %2 = tail call double @llvm.fmuladd.f64(double %s.063, double 5.000000e-01, double %1)
  %inc31 = add nuw nsw i64 %i21.064, 1
  %exitcond66.not = icmp eq i64 %inc31, %mul
  br i1 %exitcond66.not, label %for.cond.cleanup26.loopexit, label %for.body27, !llvm.loop !15
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
