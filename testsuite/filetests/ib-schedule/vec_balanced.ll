; PASSES: strip-mine,ib-schedule<scheme=balanced,min-work=0>
; CHECK: call i32 @weft_run_affine
; REMARK: scheme balanced
; run: @test(5000)
source_filename = "vec_balanced.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %b) local_unnamed_addr #0 {
entry:
  %cmp14 = icmp sgt i64 %n, 3
  br i1 %cmp14, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %0 = add nsw i64 %n, -2
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.015 = phi i64 [ %add3, %for.body ], [ 2, %for.body.preheader ]
  %1 = getelementptr double, ptr %a, i64 %i.015
  %arrayidx = getelementptr i8, ptr %1, i64 -8
  %2 = load double, ptr %arrayidx, align 8, !tbaa !5
  %3 = load double, ptr %1, align 8, !tbaa !5
  %add = fadd double %2, %3
  %add3 = add nuw nsw i64 %i.015, 1
  %arrayidx4 = getelementptr inbounds double, ptr %a, i64 %add3
  %4 = load double, ptr %arrayidx4, align 8, !tbaa !5
  %add5 = fadd double %add, %4
  %arrayidx6 = getelementptr inbounds double, ptr %b, i64 %i.015
  store double %add5, ptr %arrayidx6, align 8, !tbaa !5
  %exitcond.not = icmp eq i64 %i.015, %0
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %mul = shl i64 %n, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %call2 = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %cmp34 = icmp sgt i64 %n, 0
  br i1 %cmp34, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call2)
  %cmp836 = icmp sgt i64 %n, 0
  br i1 %cmp836, label %for.body11, label %for.cond.cleanup10

for.body:                                         ; preds = %entry, %for.body
  %k.035 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %rem = urem i64 %k.035, 89
  %conv = uitofp nneg i64 %rem to double
  %add = add nuw nsw i64 %k.035, 3
  %conv4 = uitofp nneg i64 %add to double
  %div = fdiv double 1.000000e+00, %conv4
  %0 = tail call double @llvm.fmuladd.f64(double %conv, double 5.000000e-01, double %div)
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %k.035
  store double %0, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx5 = getelementptr inbounds double, ptr %call2, i64 %k.035
  store double -2.000000e+00, ptr %arrayidx5, align 8, !tbaa !5
  %inc = add nuw nsw i64 %k.035, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup10:                               ; preds = %for.body11, %for.cond.cleanup
  %h.0.lcssa = phi i64 [ 1469598103934665603, %for.cond.cleanup ], [ %mul13, %for.body11 ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call2) #6
  ret i64 %h.0.lcssa

for.body11:                                       ; preds = %for.cond.cleanup, %for.body11
  %k6.038 = phi i64 [ %inc15, %for.body11 ], [ 0, %for.cond.cleanup ]
  %h.037 = phi i64 [ %mul13, %for.body11 ], [ 1469598103934665603, %for.cond.cleanup ]
  %arrayidx12 = getelementptr inbounds double, ptr %call2, i64 %k6.038
  %x.0.copyload = load i64, ptr %arrayidx12, align 8
  %xor = xor i64 %x.0.copyload, %h.037
  %mul13 = mul i64 %xor, 1099511628211
  %inc15 = add nuw nsw i64 %k6.038, 1
  %exitcond39.not = icmp eq i64 %inc15, %n
  br i1 %exitcond39.not, label %for.cond.cleanup10, label %for.body11, !llvm.loop !13
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
