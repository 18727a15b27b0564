; PASSES: insert-inspector<slab=8>,instrument-trace<inspectors=true>
; CHECK: define internal void @sweep.weft.inspect.0(
; CHECK: call i32 @weft_trace_reads(ptr %weft.gather.idx, i64 %weft.gather.n, i32 4, i32 7)
; CHECK: call void @weft.inspect.report_gather(ptr %insp, i64 %weft.k, ptr %x.in, ptr %weft.gather.idx, i64 %weft.gather.n,
; CHECK: define internal void @weft.inspect.report_gather(
; CHECK-NOT: weft_trace_access
; CHECK: call i32 @weft_inspect_gather(
; run: @test(200, 4)
; cores: 1,2
source_filename = "gather.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @sweep(i64 noundef %first, i64 noundef %last, ptr noalias nocapture noundef readonly %rows, ptr noalias nocapture noundef readonly %rowptr, ptr noalias nocapture noundef readonly %col, ptr noalias nocapture noundef readonly %val, ptr noalias nocapture noundef %x) local_unnamed_addr #0 {
entry:
  %cmp30 = icmp slt i64 %first, %last
  br i1 %cmp30, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.cleanup6, %entry
  ret void

for.body:                                         ; preds = %entry, %for.cond.cleanup6
  %k.031 = phi i64 [ %inc15, %for.cond.cleanup6 ], [ %first, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %rows, i64 %k.031
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %idxprom = sext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds i64, ptr %rowptr, i64 %idxprom
  %1 = load i64, ptr %arrayidx1, align 8, !tbaa !9
  %arrayidx4 = getelementptr i8, ptr %arrayidx1, i64 8
  %2 = load i64, ptr %arrayidx4, align 8, !tbaa !9
  %cmp527 = icmp slt i64 %1, %2
  br i1 %cmp527, label %for.body7, label %for.cond.cleanup6

for.cond.cleanup6:                                ; preds = %for.body7, %for.body
  %s.0.lcssa = phi double [ 1.000000e+00, %for.body ], [ %6, %for.body7 ]
  %mul = fmul double %s.0.lcssa, 2.500000e-01
  %arrayidx13 = getelementptr inbounds double, ptr %x, i64 %idxprom
  store double %mul, ptr %arrayidx13, align 8, !tbaa !11
  %inc15 = add nsw i64 %k.031, 1
  %exitcond32.not = icmp eq i64 %inc15, %last
  br i1 %exitcond32.not, label %for.cond.cleanup, label %for.body, !llvm.loop !13

for.body7:                                        ; preds = %for.body, %for.body7
  %j.029 = phi i64 [ %inc, %for.body7 ], [ %1, %for.body ]
  %s.028 = phi double [ %6, %for.body7 ], [ 1.000000e+00, %for.body ]
  %arrayidx8 = getelementptr inbounds double, ptr %val, i64 %j.029
  %3 = load double, ptr %arrayidx8, align 8, !tbaa !11
  %arrayidx9 = getelementptr inbounds i32, ptr %col, i64 %j.029
  %4 = load i32, ptr %arrayidx9, align 4, !tbaa !5
  %idxprom10 = sext i32 %4 to i64
  %arrayidx11 = getelementptr inbounds double, ptr %x, i64 %idxprom10
  %5 = load double, ptr %arrayidx11, align 8, !tbaa !11
  %neg = fneg double %3
  %6 = tail call double @llvm.fmuladd.f64(double %neg, double %5, double %s.028)
  %inc = add nsw i64 %j.029, 1
  %exitcond.not = icmp eq i64 %inc, %2
  br i1 %exitcond.not, label %for.cond.cleanup6, label %for.body7, !llvm.loop !16
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %deg) local_unnamed_addr #2 {
entry:
  %mul = shl i64 %n, 2
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %mul1 = mul nsw i64 %deg, %n
  %add = add nsw i64 %mul1, 1
  %mul2 = shl i64 %add, 2
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %add4 = shl i64 %n, 3
  %mul5 = add i64 %add4, 8
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul5) #6
  %mul9 = shl i64 %add, 3
  %call10 = tail call noalias ptr @malloc(i64 noundef %mul9) #6
  %call12 = tail call noalias ptr @malloc(i64 noundef %add4) #6
  store i64 0, ptr %call6, align 8, !tbaa !9
  %cmp105 = icmp sgt i64 %n, 0
  br i1 %cmp105, label %for.body.lr.ph, label %for.body44.preheader

for.body44.preheader:                             ; preds = %for.cond.cleanup19, %entry
  br label %for.body44

for.body.lr.ph:                                   ; preds = %entry
  %cmp17103 = icmp sgt i64 %deg, 0
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call12, i8 0, i64 %0, i1 false), !tbaa !11
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.cond.cleanup19
  %i.0106 = phi i64 [ 0, %for.body.lr.ph ], [ %add35, %for.cond.cleanup19 ]
  %mul13 = mul nuw nsw i64 %i.0106, 7
  %rem = urem i64 %mul13, %n
  %conv = trunc i64 %rem to i32
  %arrayidx14 = getelementptr inbounds i32, ptr %call, i64 %i.0106
  store i32 %conv, ptr %arrayidx14, align 4, !tbaa !5
  br i1 %cmp17103, label %for.body20.lr.ph, label %for.cond.cleanup19

for.body20.lr.ph:                                 ; preds = %for.body
  %mul21 = mul nuw nsw i64 %i.0106, 13
  %add23 = add nuw nsw i64 %mul21, 1
  %mul27 = mul nuw nsw i64 %i.0106, %deg
  br label %for.body20

for.cond.cleanup19:                               ; preds = %for.body20, %for.body
  %arrayidx33 = getelementptr inbounds i64, ptr %call6, i64 %i.0106
  %1 = load i64, ptr %arrayidx33, align 8, !tbaa !9
  %add34 = add nsw i64 %1, %deg
  %add35 = add nuw nsw i64 %i.0106, 1
  %arrayidx36 = getelementptr inbounds i64, ptr %call6, i64 %add35
  store i64 %add34, ptr %arrayidx36, align 8, !tbaa !9
  %exitcond111.not = icmp eq i64 %add35, %n
  br i1 %exitcond111.not, label %for.body44.preheader, label %for.body, !llvm.loop !17

for.body20:                                       ; preds = %for.body20.lr.ph, %for.body20
  %d.0104 = phi i64 [ 0, %for.body20.lr.ph ], [ %inc, %for.body20 ]
  %mul22 = mul nuw nsw i64 %d.0104, 5
  %add24 = add nuw nsw i64 %add23, %mul22
  %rem25 = urem i64 %add24, %n
  %conv26 = trunc i64 %rem25 to i32
  %add28 = add nuw nsw i64 %d.0104, %mul27
  %arrayidx29 = getelementptr inbounds i32, ptr %call3, i64 %add28
  store i32 %conv26, ptr %arrayidx29, align 4, !tbaa !5
  %arrayidx32 = getelementptr inbounds double, ptr %call10, i64 %add28
  store double 1.250000e-01, ptr %arrayidx32, align 8, !tbaa !11
  %inc = add nuw nsw i64 %d.0104, 1
  %exitcond.not = icmp eq i64 %inc, %deg
  br i1 %exitcond.not, label %for.cond.cleanup19, label %for.body20, !llvm.loop !18

for.cond49.preheader:                             ; preds = %for.body44
  %cmp50108 = icmp sgt i64 %n, 0
  br i1 %cmp50108, label %for.body53, label %for.cond.cleanup52

for.body44:                                       ; preds = %for.body44.preheader, %for.body44
  %sw.0107 = phi i32 [ %inc46, %for.body44 ], [ 0, %for.body44.preheader ]
  tail call void @sweep(i64 noundef 0, i64 noundef %n, ptr noundef %call, ptr noundef nonnull %call6, ptr noundef %call3, ptr noundef %call10, ptr noundef %call12)
  %inc46 = add nuw nsw i32 %sw.0107, 1
  %exitcond112.not = icmp eq i32 %inc46, 3
  br i1 %exitcond112.not, label %for.cond49.preheader, label %for.body44, !llvm.loop !19

for.cond.cleanup52.loopexit:                      ; preds = %for.body53
  %2 = bitcast double %4 to i64
  br label %for.cond.cleanup52

for.cond.cleanup52:                               ; preds = %for.cond.cleanup52.loopexit, %for.cond49.preheader
  %s.0.lcssa = phi i64 [ 0, %for.cond49.preheader ], [ %2, %for.cond.cleanup52.loopexit ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call3) #7
  tail call void @free(ptr noundef %call6) #7
  tail call void @free(ptr noundef %call10) #7
  tail call void @free(ptr noundef %call12) #7
  ret i64 %s.0.lcssa

for.body53:                                       ; preds = %for.cond49.preheader, %for.body53
  %i48.0110 = phi i64 [ %inc57, %for.body53 ], [ 0, %for.cond49.preheader ]
  %s.0109 = phi double [ %4, %for.body53 ], [ 0.000000e+00, %for.cond49.preheader ]
  %arrayidx55 = getelementptr inbounds double, ptr %call12, i64 %i48.0110
  %3 = load double, ptr %arrayidx55, align 8, !tbaa !11
  %4 = tail call double @llvm.fmuladd.f64(double %s.0109, double 9.000000e-01, double %3)
  %inc57 = add nuw nsw i64 %i48.0110, 1
  %exitcond113.not = icmp eq i64 %inc57, %n
  br i1 %exitcond113.not, label %for.cond.cleanup52.loopexit, label %for.body53, !llvm.loop !20
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
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"long", !7, i64 0}
!11 = !{!12, !12, i64 0}
!12 = !{!"double", !7, i64 0}
!13 = distinct !{!13, !14, !15}
!14 = !{!"llvm.loop.mustprogress"}
!15 = !{!"llvm.loop.unroll.disable"}
!16 = distinct !{!16, !14, !15}
!17 = distinct !{!17, !14, !15}
!18 = distinct !{!18, !14, !15}
!19 = distinct !{!19, !14, !15}
!20 = distinct !{!20, !14, !15}
