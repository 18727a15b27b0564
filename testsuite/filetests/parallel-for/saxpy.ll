; PASSES: parallel-for
; CHECK: void @kernel(
; CHECK-NOT: for.body:
; CHECK: call i32 @weft_parallel_for(i64 0, i64
; CHECK: define internal void @kernel.weft.body.0(ptr %ctx, i64 %lo, i64 %hi)
; REMARK: applied: executor form: body @kernel.weft.body.0
; run: @test(1000)
; run: @test(7)
; run: @test(0)
source_filename = "saxpy.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i32 noundef %n, ptr noalias nocapture noundef %y, ptr noalias nocapture noundef readonly %x, double noundef %a) local_unnamed_addr #0 {
entry:
  %cmp10 = icmp sgt i32 %n, 0
  br i1 %cmp10, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds double, ptr %x, i64 %indvars.iv
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %indvars.iv
  %1 = load double, ptr %arrayidx2, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %a, double %0, double %1)
  store double %2, ptr %arrayidx2, align 8, !tbaa !5
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #2 {
entry:
  %add = shl i64 %n, 3
  %mul = add i64 %add, 8
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %cmp37 = icmp sgt i64 %n, 0
  br i1 %cmp37, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %conv8 = trunc i64 %n to i32
  tail call void @kernel(i32 noundef %conv8, ptr noundef %call3, ptr noundef %call, double noundef 3.250000e+00)
  %cmp1139 = icmp sgt i64 %n, 0
  br i1 %cmp1139, label %for.body14, label %for.cond.cleanup13

for.body:                                         ; preds = %entry, %for.body
  %i.038 = phi i64 [ %add5, %for.body ], [ 0, %entry ]
  %conv = uitofp nneg i64 %i.038 to double
  %mul4 = fmul double %conv, 5.000000e-01
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.038
  store double %mul4, ptr %arrayidx, align 8, !tbaa !5
  %add5 = add nuw nsw i64 %i.038, 1
  %conv6 = uitofp nneg i64 %add5 to double
  %div = fdiv double 1.000000e+00, %conv6
  %arrayidx7 = getelementptr inbounds double, ptr %call3, i64 %i.038
  store double %div, ptr %arrayidx7, align 8, !tbaa !5
  %exitcond.not = icmp eq i64 %add5, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup13.loopexit:                      ; preds = %for.body14
  %0 = bitcast double %2 to i64
  br label %for.cond.cleanup13

for.cond.cleanup13:                               ; preds = %for.cond.cleanup13.loopexit, %for.cond.cleanup
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup ], [ %0, %for.cond.cleanup13.loopexit ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call3) #6
  ret i64 %s.0.lcssa

for.body14:                                       ; preds = %for.cond.cleanup, %for.body14
  %i9.041 = phi i64 [ %inc18, %for.body14 ], [ 0, %for.cond.cleanup ]
  %s.040 = phi double [ %2, %for.body14 ], [ 0.000000e+00, %for.cond.cleanup ]
  %arrayidx16 = getelementptr inbounds double, ptr %call3, i64 %i9.041
  %1 = load double, ptr %arrayidx16, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %s.040, double 0x3FEFF7CED916872B, double %1)
  %inc18 = add nuw nsw i64 %i9.041, 1
  %exitcond42.not = icmp eq i64 %inc18, %n
  br i1 %exitcond42.not, label %for.cond.cleanup13.loopexit, label %for.body14, !llvm.loop !13
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
!5 = !{!6, !6, i64 0}
!6 = !{!"double", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !10, !11}
!13 = distinct !{!13, !10, !11}
