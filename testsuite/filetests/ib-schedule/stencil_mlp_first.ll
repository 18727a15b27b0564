; PASSES: ib-schedule<scheme=mlp-first,min-work=0>
; CHECK: call i32 @weft_run_affine
; REMARK: scheme mlp-first
; run: @test(41, 130)
; run: @test(3, 4)
source_filename = "stencil_mlp_first.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %m, i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %b) local_unnamed_addr #0 {
entry:
  %cmp39 = icmp sgt i64 %m, 0
  br i1 %cmp39, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp237 = icmp sgt i64 %n, 3
  %0 = add nsw i64 %n, -2
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup3
  %j.040 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %inc19, %for.cond.cleanup3 ]
  br i1 %cmp237, label %for.body4.lr.ph, label %for.cond.cleanup3

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %mul = mul nuw nsw i64 %j.040, %n
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %for.body4, %for.cond1.preheader
  %inc19 = add nuw nsw i64 %j.040, 1
  %exitcond41.not = icmp eq i64 %inc19, %m
  br i1 %exitcond41.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !5

for.body4:                                        ; preds = %for.body4.lr.ph, %for.body4
  %i.038 = phi i64 [ 2, %for.body4.lr.ph ], [ %inc, %for.body4 ]
  %add = add nuw nsw i64 %i.038, %mul
  %1 = getelementptr double, ptr %a, i64 %add
  %arrayidx = getelementptr i8, ptr %1, i64 -8
  %2 = load double, ptr %arrayidx, align 8, !tbaa !8
  %3 = load double, ptr %1, align 8, !tbaa !8
  %add9 = fadd double %2, %3
  %arrayidx13 = getelementptr i8, ptr %1, i64 8
  %4 = load double, ptr %arrayidx13, align 8, !tbaa !8
  %add14 = fadd double %add9, %4
  %arrayidx17 = getelementptr inbounds double, ptr %b, i64 %add
  store double %add14, ptr %arrayidx17, align 8, !tbaa !8
  %inc = add nuw nsw i64 %i.038, 1
  %exitcond.not = icmp eq i64 %i.038, %0
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !12
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %m, i64 noundef %n) local_unnamed_addr #1 {
entry:
  %mul = shl i64 %m, 3
  %mul1 = mul i64 %mul, %n
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #5
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul1) #5
  %mul5 = mul nsw i64 %n, %m
  %cmp42 = icmp sgt i64 %mul5, 0
  br i1 %cmp42, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %m, i64 noundef %n, ptr noundef %call, ptr noundef %call4)
  %cmp1244 = icmp sgt i64 %mul5, 0
  br i1 %cmp1244, label %for.body15, label %for.cond.cleanup14

for.body:                                         ; preds = %entry, %for.body
  %k.043 = phi i64 [ %add, %for.body ], [ 0, %entry ]
  %rem = urem i64 %k.043, 97
  %conv = uitofp nneg i64 %rem to double
  %add = add nuw nsw i64 %k.043, 1
  %conv7 = uitofp nneg i64 %add to double
  %div = fdiv double 1.000000e+00, %conv7
  %0 = tail call double @llvm.fmuladd.f64(double %conv, double 3.700000e-01, double %div)
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %k.043
  store double %0, ptr %arrayidx, align 8, !tbaa !8
  %arrayidx8 = getelementptr inbounds double, ptr %call4, i64 %k.043
  store double -1.000000e+00, ptr %arrayidx8, align 8, !tbaa !8
  %exitcond.not = icmp eq i64 %add, %mul5
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !13

for.cond.cleanup14:                               ; preds = %for.body15, %for.cond.cleanup
  %h.0.lcssa = phi i64 [ 1469598103934665603, %for.cond.cleanup ], [ %mul17, %for.body15 ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call4) #6
  ret i64 %h.0.lcssa

for.body15:                                       ; preds = %for.cond.cleanup, %for.body15
  %k9.046 = phi i64 [ %inc19, %for.body15 ], [ 0, %for.cond.cleanup ]
  %h.045 = phi i64 [ %mul17, %for.body15 ], [ 1469598103934665603, %for.cond.cleanup ]
  %arrayidx16 = getelementptr inbounds double, ptr %call4, i64 %k9.046
  %x.0.copyload = load i64, ptr %arrayidx16, align 8
  %xor = xor i64 %x.0.copyload, %h.045
  %mul17 = mul i64 %xor, 1099511628211
  %inc19 = add nuw nsw i64 %k9.046, 1
  %exitcond48.not = icmp eq i64 %inc19, %mul5
  br i1 %exitcond48.not, label %for.cond.cleanup14, label %for.body15, !llvm.loop !14
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
