; PASSES: insert-inspector
; CHECK: @weft.regions.dirty = internal global i8 0
; CHECK: call i32 @weft_run_irregular(
; CHECK: store atomic i8 1, ptr @weft.regions.dirty monotonic, align 1
; CHECK: i64 @test(
; CHECK: call void @weft.regions.reset()
; CHECK: define internal void @weft.regions.reset()
; CHECK: load atomic i8, ptr @weft.regions.dirty monotonic
; CHECK: store atomic i8 0, ptr @weft.regions.dirty monotonic
; CHECK: call i32 @weft_region_reset(i32 0)
; REMARK: invalidation point(s)
; run: @test(300)
; cores: 1,2
source_filename = "reassign.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %idx, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef %y) local_unnamed_addr #0 {
entry:
  %cmp6 = icmp sgt i64 %n, 0
  br i1 %cmp6, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.07 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %x, i64 %i.07
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx1 = getelementptr inbounds i32, ptr %idx, i64 %i.07
  %1 = load i32, ptr %arrayidx1, align 4, !tbaa !9
  %idxprom = sext i32 %1 to i64
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %idxprom
  %2 = load double, ptr %arrayidx2, align 8, !tbaa !5
  %add = fadd double %0, %2
  store double %add, ptr %arrayidx2, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %mul = shl i64 %n, 2
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %mul1 = shl i64 %n, 3
  %call2 = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %cmp68 = icmp sgt i64 %n, 0
  br i1 %cmp68, label %for.body.preheader, label %for.cond6.preheader

for.body.preheader:                               ; preds = %entry
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call4, i8 0, i64 %0, i1 false), !tbaa !5
  br label %for.body

for.cond6.preheader:                              ; preds = %for.body, %entry
  %cmp1370 = icmp sgt i64 %n, 0
  %cmp2972 = icmp sgt i64 %n, 0
  br label %for.cond12.preheader

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.069 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %conv = uitofp nneg i64 %i.069 to double
  %add = fadd double %conv, 5.000000e-01
  %arrayidx = getelementptr inbounds double, ptr %call2, i64 %i.069
  store double %add, ptr %arrayidx, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.069, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond6.preheader, label %for.body, !llvm.loop !14

for.cond12.preheader:                             ; preds = %for.cond6.preheader, %for.cond.cleanup31
  %indvars.iv = phi i64 [ 0, %for.cond6.preheader ], [ %indvars.iv.next, %for.cond.cleanup31 ]
  %s.075 = phi double [ 0.000000e+00, %for.cond6.preheader ], [ %s.1.lcssa, %for.cond.cleanup31 ]
  br i1 %cmp1370, label %for.body16.lr.ph, label %for.cond.cleanup15

for.body16.lr.ph:                                 ; preds = %for.cond12.preheader
  %1 = add nuw nsw i64 %indvars.iv, 3
  %2 = add nuw nsw i64 %indvars.iv, 1
  %div = udiv i64 %n, %2
  br label %for.body16

for.cond.cleanup9:                                ; preds = %for.cond.cleanup31
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call2) #7
  tail call void @free(ptr noundef %call4) #7
  %3 = bitcast double %s.1.lcssa to i64
  ret i64 %3

for.cond.cleanup15:                               ; preds = %for.body16, %for.cond12.preheader
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call2, ptr noundef %call4)
  br i1 %cmp2972, label %for.body32, label %for.cond.cleanup31

for.body16:                                       ; preds = %for.body16.lr.ph, %for.body16
  %i11.071 = phi i64 [ 0, %for.body16.lr.ph ], [ %inc25, %for.body16 ]
  %mul19 = mul nuw nsw i64 %i11.071, %1
  %rem = urem i64 %mul19, %div
  %conv22 = trunc i64 %rem to i32
  %arrayidx23 = getelementptr inbounds i32, ptr %call, i64 %i11.071
  store i32 %conv22, ptr %arrayidx23, align 4, !tbaa !9
  %inc25 = add nuw nsw i64 %i11.071, 1
  %exitcond77.not = icmp eq i64 %inc25, %n
  br i1 %exitcond77.not, label %for.cond.cleanup15, label %for.body16, !llvm.loop !15

for.cond.cleanup31:                               ; preds = %for.body32, %for.cond.cleanup15
  %s.1.lcssa = phi double [ %s.075, %for.cond.cleanup15 ], [ %5, %for.body32 ]
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond82.not = icmp eq i64 %indvars.iv.next, 4
  br i1 %exitcond82.not, label %for.cond.cleanup9, label %for.cond12.preheader, !llvm.loop !16

for.body32:                                       ; preds = %for.cond.cleanup15, %for.body32
  %i27.074 = phi i64 [ %inc36, %for.body32 ], [ 0, %for.cond.cleanup15 ]
  %s.173 = phi double [ %5, %for.body32 ], [ %s.075, %for.cond.cleanup15 ]
  %arrayidx34 = getelementptr inbounds double, ptr %call4, i64 %i27.074
  %4 = load double, ptr %arrayidx34, align 8, !tbaa !5
  %5 = tail call double @llvm.fmuladd.f64(double %s.173, double 5.000000e-01, double %4)
  %inc36 = add nuw nsw i64 %i27.074, 1
  %exitcond78.not = icmp eq i64 %inc36, %n
  br i1 %exitcond78.not, label %for.cond.cleanup31, label %for.body32, !llvm.loop !17
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #5

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
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
!17 = distinct !{!17, !12, !13}
