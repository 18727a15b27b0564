; PASSES: executor-form
; CHECK: call i32 @weft_num_cores(
; CHECK: call i32 @weft_run_irregular(i32 %weft.region, i64 0, i64 %weft.tc, i64 %weft.slab, ptr @kernel.weft.inspect.0.phases, ptr @kernel.weft.body.0
; REMARK: inspector @kernel.weft.inspect.0 for the runtime dependence check
; run: @test(2000, 300)
; cores: 1,2,4
source_filename = "scatter_original.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %m, ptr noalias nocapture noundef readonly %src, ptr noalias nocapture noundef readonly %dst, ptr noalias nocapture noundef readonly %w, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef %y) local_unnamed_addr #0 {
entry:
  %cmp10 = icmp sgt i64 %m, 0
  br i1 %cmp10, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %e.011 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %w, i64 %e.011
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx1 = getelementptr inbounds i32, ptr %src, i64 %e.011
  %1 = load i32, ptr %arrayidx1, align 4, !tbaa !9
  %idxprom = sext i32 %1 to i64
  %arrayidx2 = getelementptr inbounds double, ptr %x, i64 %idxprom
  %2 = load double, ptr %arrayidx2, align 8, !tbaa !5
  %arrayidx3 = getelementptr inbounds i32, ptr %dst, i64 %e.011
  %3 = load i32, ptr %arrayidx3, align 4, !tbaa !9
  %idxprom4 = sext i32 %3 to i64
  %arrayidx5 = getelementptr inbounds double, ptr %y, i64 %idxprom4
  %4 = load double, ptr %arrayidx5, align 8, !tbaa !5
  %5 = tail call double @llvm.fmuladd.f64(double %0, double %2, double %4)
  store double %5, ptr %arrayidx5, align 8, !tbaa !5
  %inc = add nuw nsw i64 %e.011, 1
  %exitcond.not = icmp eq i64 %inc, %m
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %m, i64 noundef %n) local_unnamed_addr #2 {
entry:
  %mul = shl i64 %m, 2
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %call2 = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %mul3 = shl i64 %m, 3
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul3) #6
  %mul5 = shl i64 %n, 3
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul5) #6
  %call8 = tail call noalias ptr @malloc(i64 noundef %mul5) #6
  %cmp85 = icmp sgt i64 %m, 0
  br i1 %cmp85, label %for.body, label %for.cond21.preheader

for.cond21.preheader:                             ; preds = %for.body, %entry
  %cmp2288 = icmp sgt i64 %n, 0
  br i1 %cmp2288, label %for.body25.preheader, label %for.cond.cleanup24

for.body25.preheader:                             ; preds = %for.cond21.preheader
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call8, i8 0, i64 %0, i1 false), !tbaa !5
  br label %for.body25

for.body:                                         ; preds = %entry, %for.body
  %seed.087 = phi i32 [ %add12, %for.body ], [ 99, %entry ]
  %e.086 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %mul9 = mul i32 %seed.087, 1103515245
  %add = add i32 %mul9, 12345
  %shr = lshr i32 %add, 8
  %conv = zext nneg i32 %shr to i64
  %rem = srem i64 %conv, %n
  %conv10 = trunc nuw nsw i64 %rem to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %e.086
  store i32 %conv10, ptr %arrayidx, align 4, !tbaa !9
  %mul11 = mul i32 %add, 1103515245
  %add12 = add i32 %mul11, 12345
  %shr13 = lshr i32 %add12, 8
  %conv14 = zext nneg i32 %shr13 to i64
  %rem15 = srem i64 %conv14, %n
  %conv16 = trunc nuw nsw i64 %rem15 to i32
  %arrayidx17 = getelementptr inbounds i32, ptr %call2, i64 %e.086
  store i32 %conv16, ptr %arrayidx17, align 4, !tbaa !9
  %add18 = add nuw nsw i64 %e.086, 3
  %conv19 = uitofp nneg i64 %add18 to double
  %div = fdiv double 1.000000e+00, %conv19
  %arrayidx20 = getelementptr inbounds double, ptr %call4, i64 %e.086
  store double %div, ptr %arrayidx20, align 8, !tbaa !5
  %inc = add nuw nsw i64 %e.086, 1
  %exitcond.not = icmp eq i64 %inc, %m
  br i1 %exitcond.not, label %for.cond21.preheader, label %for.body, !llvm.loop !14

for.cond.cleanup24:                               ; preds = %for.body25, %for.cond21.preheader
  tail call void @kernel(i64 noundef %m, ptr noundef %call, ptr noundef %call2, ptr noundef %call4, ptr noundef %call6, ptr noundef %call8)
  tail call void @kernel(i64 noundef %m, ptr noundef %call, ptr noundef %call2, ptr noundef %call4, ptr noundef %call6, ptr noundef %call8)
  %cmp3590 = icmp sgt i64 %n, 0
  br i1 %cmp3590, label %for.body38, label %for.cond.cleanup37

for.body25:                                       ; preds = %for.body25.preheader, %for.body25
  %i.089 = phi i64 [ %inc31, %for.body25 ], [ 0, %for.body25.preheader ]
  %conv26 = uitofp nneg i64 %i.089 to double
  %1 = tail call double @llvm.fmuladd.f64(double %conv26, double 1.250000e-01, double 1.000000e+00)
  %arrayidx28 = getelementptr inbounds double, ptr %call6, i64 %i.089
  store double %1, ptr %arrayidx28, align 8, !tbaa !5
  %inc31 = add nuw nsw i64 %i.089, 1
  %exitcond93.not = icmp eq i64 %inc31, %n
  br i1 %exitcond93.not, label %for.cond.cleanup24, label %for.body25, !llvm.loop !15

for.cond.cleanup37.loopexit:                      ; preds = %for.body38
  %2 = bitcast double %4 to i64
  br label %for.cond.cleanup37

for.cond.cleanup37:                               ; preds = %for.cond.cleanup37.loopexit, %for.cond.cleanup24
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup24 ], [ %2, %for.cond.cleanup37.loopexit ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call2) #7
  tail call void @free(ptr noundef %call4) #7
  tail call void @free(ptr noundef %call6) #7
  tail call void @free(ptr noundef %call8) #7
  ret i64 %s.0.lcssa

for.body38:                                       ; preds = %for.cond.cleanup24, %for.body38
  %i33.092 = phi i64 [ %inc42, %for.body38 ], [ 0, %for.cond.cleanup24 ]
  %s.091 = phi double [ %4, %for.body38 ], [ 0.000000e+00, %for.cond.cleanup24 ]
  %arrayidx40 = getelementptr inbounds double, ptr %call8, i64 %i33.092
  %3 = load double, ptr %arrayidx40, align 8, !tbaa !5
  %4 = tail call double @llvm.fmuladd.f64(double %s.091, double 9.000000e-01, double %3)
  %inc42 = add nuw nsw i64 %i33.092, 1
  %exitcond94.not = icmp eq i64 %inc42, %n
  br i1 %exitcond94.not, label %for.cond.cleanup37.loopexit, label %for.body38, !llvm.loop !16
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #5

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nounwind willreturn memory(argmem: write) }
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
!6 = !{!"double", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = distinct !{!14, !12, !13}
!15 = distinct !{!15, !12, !13}
!16 = distinct !{!16, !12, !13}
