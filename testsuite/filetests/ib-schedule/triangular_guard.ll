; PASSES: strip-mine,ib-schedule<scheme=balanced>
; CHECK: call i32 @weft_run_affine
; CHECK: call i32 @weft_parallel_for
; REMARK: x i0 + 1 at i0 = tc/2 per iteration, at loop entry) run in static chunks on weft_parallel_for
; run: @test(300)
source_filename = "triangular_guard.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %c) local_unnamed_addr #0 {
entry:
  %cmp29 = icmp sgt i64 %n, 0
  br i1 %cmp29, label %for.cond1.preheader, label %for.cond.cleanup

for.cond1.preheader:                              ; preds = %entry, %for.cond.cleanup3
  %indvars.iv = phi i64 [ %indvars.iv.next, %for.cond.cleanup3 ], [ 1, %entry ]
  %i.030 = phi i64 [ %inc13, %for.cond.cleanup3 ], [ 0, %entry ]
  %mul = mul nuw nsw i64 %i.030, %n
  %invariant.gep = getelementptr double, ptr %a, i64 %i.030
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %for.body4
  %inc13 = add nuw nsw i64 %i.030, 1
  %indvars.iv.next = add nuw i64 %indvars.iv, 1
  %exitcond31.not = icmp eq i64 %inc13, %n
  br i1 %exitcond31.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !5

for.body4:                                        ; preds = %for.cond1.preheader, %for.body4
  %j.028 = phi i64 [ 0, %for.cond1.preheader ], [ %inc, %for.body4 ]
  %add = add nuw nsw i64 %j.028, %mul
  %arrayidx = getelementptr inbounds double, ptr %a, i64 %add
  %0 = load double, ptr %arrayidx, align 8, !tbaa !8
  %mul6 = mul nuw nsw i64 %j.028, %n
  %gep = getelementptr double, ptr %invariant.gep, i64 %mul6
  %1 = load double, ptr %gep, align 8, !tbaa !8
  %2 = tail call double @llvm.fmuladd.f64(double %0, double 2.000000e+00, double %1)
  %arrayidx11 = getelementptr inbounds double, ptr %c, i64 %add
  store double %2, ptr %arrayidx11, align 8, !tbaa !8
  %inc = add nuw nsw i64 %j.028, 1
  %exitcond.not = icmp eq i64 %inc, %indvars.iv
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !12
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #2 {
entry:
  %mul = shl i64 %n, 3
  %mul1 = mul i64 %mul, %n
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #7
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul1) #7
  %mul5 = mul i64 %n, %n
  %cmp39.not = icmp eq i64 %n, 0
  br i1 %cmp39.not, label %for.cond.cleanup, label %for.body.preheader

for.body.preheader:                               ; preds = %entry
  %umax = tail call i64 @llvm.umax.i64(i64 %mul5, i64 1)
  %0 = shl nuw i64 %umax, 3
  tail call void @llvm.memset.p0.i64(ptr noundef nonnull align 8 dereferenceable(1) %call4, i8 0, i64 %0, i1 false), !tbaa !8
  %umax45 = tail call i64 @llvm.umax.i64(i64 %mul5, i64 1)
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call4)
  %cmp1041.not = icmp eq i64 %n, 0
  br i1 %cmp1041.not, label %for.cond.cleanup12, label %for.body13.preheader

for.body13.preheader:                             ; preds = %for.cond.cleanup
  %umax46 = tail call i64 @llvm.umax.i64(i64 %mul5, i64 1)
  br label %for.body13

for.body:                                         ; preds = %for.body.preheader, %for.body
  %k.040 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %rem = urem i64 %k.040, 17
  %conv = uitofp nneg i64 %rem to double
  %add = fadd double %conv, 5.000000e-01
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %k.040
  store double %add, ptr %arrayidx, align 8, !tbaa !8
  %inc = add nuw nsw i64 %k.040, 1
  %exitcond.not = icmp eq i64 %inc, %umax45
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !13

for.cond.cleanup12:                               ; preds = %for.body13, %for.cond.cleanup
  %h.0.lcssa = phi i64 [ 1469598103934665603, %for.cond.cleanup ], [ %mul15, %for.body13 ]
  tail call void @free(ptr noundef %call) #8
  tail call void @free(ptr noundef %call4) #8
  ret i64 %h.0.lcssa

for.body13:                                       ; preds = %for.body13.preheader, %for.body13
  %k7.043 = phi i64 [ %inc17, %for.body13 ], [ 0, %for.body13.preheader ]
  %h.042 = phi i64 [ %mul15, %for.body13 ], [ 1469598103934665603, %for.body13.preheader ]
  %arrayidx14 = getelementptr inbounds double, ptr %call4, i64 %k7.043
  %x.0.copyload = load i64, ptr %arrayidx14, align 8
  %xor = xor i64 %x.0.copyload, %h.042
  %mul15 = mul i64 %xor, 1099511628211
  %inc17 = add nuw nsw i64 %k7.043, 1
  %exitcond47.not = icmp eq i64 %inc17, %umax46
  br i1 %exitcond47.not, label %for.cond.cleanup12, label %for.body13, !llvm.loop !14
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umax.i64(i64, i64) #5

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #6

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #7 = { nounwind allocsize(0) }
attributes #8 = { nounwind }

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
