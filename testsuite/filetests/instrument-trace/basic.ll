; PASSES: instrument-trace<only=kernel>
; CHECK: void @kernel(
; CHECK: call i32 @weft_trace_access(ptr %arrayidx, i32 8, i32 0, i32
; CHECK: call i32 @weft_trace_access(ptr %arrayidx{{.*}}, i32 8, i32 1, i32
; CHECK: i64 @test(
; CHECK-NOT: call i32 @weft_trace_access
; REMARK: kernel: applied: 3 memory access(es) instrumented
; run: @test(100)
source_filename = "basic.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef %y, ptr noalias nocapture noundef readonly %x) local_unnamed_addr #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 0
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %x, i64 %i.09
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx1 = getelementptr inbounds double, ptr %y, i64 %i.09
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %0, double 2.000000e+00, double %1)
  store double %2, ptr %arrayidx1, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.09, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #2 {
entry:
  %mul = shl i64 %n, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %call2 = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %cmp31 = icmp sgt i64 %n, 0
  br i1 %cmp31, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %n, ptr noundef %call2, ptr noundef %call)
  %cmp633 = icmp sgt i64 %n, 0
  br i1 %cmp633, label %for.body9, label %for.cond.cleanup8

for.body:                                         ; preds = %entry, %for.body
  %i.032 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %conv = uitofp nneg i64 %i.032 to double
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.032
  store double %conv, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx3 = getelementptr inbounds double, ptr %call2, i64 %i.032
  store double 1.000000e+00, ptr %arrayidx3, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.032, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup8.loopexit:                       ; preds = %for.body9
  %0 = fptosi double %add to i64
  br label %for.cond.cleanup8

for.cond.cleanup8:                                ; preds = %for.cond.cleanup8.loopexit, %for.cond.cleanup
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup ], [ %0, %for.cond.cleanup8.loopexit ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call2) #6
  ret i64 %s.0.lcssa

for.body9:                                        ; preds = %for.cond.cleanup, %for.body9
  %i4.035 = phi i64 [ %inc12, %for.body9 ], [ 0, %for.cond.cleanup ]
  %s.034 = phi double [ %add, %for.body9 ], [ 0.000000e+00, %for.cond.cleanup ]
  %arrayidx10 = getelementptr inbounds double, ptr %call2, i64 %i4.035
  %1 = load double, ptr %arrayidx10, align 8, !tbaa !5
  %add = fadd double %s.034, %1
  %inc12 = add nuw nsw i64 %i4.035, 1
  %exitcond36.not = icmp eq i64 %inc12, %n
  br i1 %exitcond36.not, label %for.cond.cleanup8.loopexit, label %for.body9, !llvm.loop !13
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
