; PASSES: cluster-misses<min-work=0>
; CHECK-NOT: @weft_run_affine
; run: @test(500)
source_filename = "deps.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef %a, ptr noalias nocapture noundef readonly %b) local_unnamed_addr #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 40
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.09 = phi i64 [ %inc, %for.body ], [ 40, %entry ]
  %0 = getelementptr double, ptr %a, i64 %i.09
  %arrayidx = getelementptr i8, ptr %0, i64 -320
  %1 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx1 = getelementptr inbounds double, ptr %b, i64 %i.09
  %2 = load double, ptr %arrayidx1, align 8, !tbaa !5
  %3 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double %2)
  store double %3, ptr %0, align 8, !tbaa !5
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
  %cmp37 = icmp sgt i64 %n, 0
  br i1 %cmp37, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call2)
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call2)
  %cmp839 = icmp sgt i64 %n, 0
  br i1 %cmp839, label %for.body11, label %for.cond.cleanup10

for.body:                                         ; preds = %entry, %for.body
  %k.038 = phi i64 [ %add3, %for.body ], [ 0, %entry ]
  %rem = urem i64 %k.038, 13
  %conv = uitofp nneg i64 %rem to double
  %add = fadd double %conv, 2.500000e-01
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %k.038
  store double %add, ptr %arrayidx, align 8, !tbaa !5
  %add3 = add nuw nsw i64 %k.038, 1
  %conv4 = uitofp nneg i64 %add3 to double
  %div = fdiv double 1.000000e+00, %conv4
  %arrayidx5 = getelementptr inbounds double, ptr %call2, i64 %k.038
  store double %div, ptr %arrayidx5, align 8, !tbaa !5
  %exitcond.not = icmp eq i64 %add3, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup10:                               ; preds = %for.body11, %for.cond.cleanup
  %h.0.lcssa = phi i64 [ 1469598103934665603, %for.cond.cleanup ], [ %mul13, %for.body11 ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call2) #6
  ret i64 %h.0.lcssa

for.body11:                                       ; preds = %for.cond.cleanup, %for.body11
  %k6.041 = phi i64 [ %inc15, %for.body11 ], [ 0, %for.cond.cleanup ]
  %h.040 = phi i64 [ %mul13, %for.body11 ], [ 1469598103934665603, %for.cond.cleanup ]
  %arrayidx12 = getelementptr inbounds double, ptr %call, i64 %k6.041
  %x.0.copyload = load i64, ptr %arrayidx12, align 8
  %xor = xor i64 %x.0.copyload, %h.040
  %mul13 = mul i64 %xor, 1099511628211
  %inc15 = add nuw nsw i64 %k6.041, 1
  %exitcond42.not = icmp eq i64 %inc15, %n
  br i1 %exitcond42.not, label %for.cond.cleanup10, label %for.body11, !llvm.loop !13
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
