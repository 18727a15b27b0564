; PASSES: insert-inspector
; CHECK: define internal void @kernel.weft.inspect.0(ptr %ctx, i64 %lo, i64 %hi, ptr %insp)
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %arrayidx, i64 4,
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %arrayidx2, i64 24,
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %add.ptr, i64 8,
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %arrayidx14, i64 8,
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %add.ptr17, i64 16,
; CHECK-NOT: report_line
; CHECK: ret void
; REMARK: applied: inspector/executor: region 0
; run: @test(400)
; run: @test(3)
; cores: 1,2,3
source_filename = "coalesce.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i32 noundef %n, ptr noalias nocapture noundef readonly %idx, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef readonly %z, ptr noalias nocapture noundef writeonly %y) local_unnamed_addr #0 {
entry:
  %cmp30 = icmp sgt i32 %n, 0
  br i1 %cmp30, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds i32, ptr %idx, i64 %indvars.iv
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %mul = mul nsw i32 %0, 3
  %idxprom1 = sext i32 %mul to i64
  %arrayidx2 = getelementptr inbounds double, ptr %x, i64 %idxprom1
  %1 = load double, ptr %arrayidx2, align 8, !tbaa !9
  %arrayidx5 = getelementptr i8, ptr %arrayidx2, i64 8
  %2 = load double, ptr %arrayidx5, align 8, !tbaa !9
  %3 = tail call double @llvm.fmuladd.f64(double %2, double 2.000000e+00, double %1)
  %arrayidx10 = getelementptr i8, ptr %arrayidx2, i64 16
  %4 = load double, ptr %arrayidx10, align 8, !tbaa !9
  %5 = tail call double @llvm.fmuladd.f64(double %4, double 3.000000e+00, double %3)
  %mul12 = shl nsw i32 %0, 2
  %idx.ext = sext i32 %mul12 to i64
  %add.ptr = getelementptr inbounds double, ptr %z, i64 %idx.ext
  %6 = load double, ptr %add.ptr, align 8, !tbaa !9
  %arrayidx14 = getelementptr inbounds i8, ptr %add.ptr, i64 16
  %7 = load double, ptr %arrayidx14, align 8, !tbaa !9
  %sub = fsub double %6, %7
  %add.ptr17.idx = shl nsw i64 %indvars.iv, 4
  %add.ptr17 = getelementptr inbounds i8, ptr %y, i64 %add.ptr17.idx
  store double %5, ptr %add.ptr17, align 8, !tbaa !9
  %arrayidx19 = getelementptr inbounds i8, ptr %add.ptr17, i64 8
  store double %sub, ptr %arrayidx19, align 8, !tbaa !9
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #2 {
entry:
  %mul = shl i64 %n, 2
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %mul1 = mul i64 %n, 3
  %mul2 = mul i64 %n, 24
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %mul5 = shl i64 %n, 5
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul5) #6
  %mul7 = shl i64 %n, 1
  %mul8 = shl i64 %n, 4
  %call9 = tail call noalias ptr @malloc(i64 noundef %mul8) #6
  %cmp109 = icmp sgt i64 %n, 0
  br i1 %cmp109, label %for.body, label %for.cond13.preheader

for.cond13.preheader:                             ; preds = %for.body, %entry
  %cmp15112 = icmp sgt i64 %n, 0
  br i1 %cmp15112, label %for.body18.preheader, label %for.cond27.preheader

for.body18.preheader:                             ; preds = %for.cond13.preheader
  %smax = tail call i64 @llvm.smax.i64(i64 %mul1, i64 1)
  br label %for.body18

for.body:                                         ; preds = %entry, %for.body
  %seed.0111 = phi i32 [ %add, %for.body ], [ 777, %entry ]
  %i.0110 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %mul10 = mul i32 %seed.0111, 1103515245
  %add = add i32 %mul10, 12345
  %shr = lshr i32 %add, 8
  %conv = zext nneg i32 %shr to i64
  %rem = urem i64 %conv, %n
  %conv11 = trunc nuw nsw i64 %rem to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.0110
  store i32 %conv11, ptr %arrayidx, align 4, !tbaa !5
  %inc = add nuw nsw i64 %i.0110, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond13.preheader, label %for.body, !llvm.loop !14

for.cond27.preheader:                             ; preds = %for.body18, %for.cond13.preheader
  %cmp29114 = icmp sgt i64 %mul, 0
  br i1 %cmp29114, label %for.body32, label %for.cond40.preheader

for.body18:                                       ; preds = %for.body18.preheader, %for.body18
  %i12.0113 = phi i64 [ %inc24, %for.body18 ], [ 0, %for.body18.preheader ]
  %rem19 = urem i64 %i12.0113, 17
  %conv20 = uitofp nneg i64 %rem19 to double
  %div = fmul double %conv20, 1.250000e-01
  %add21 = fadd double %div, 1.000000e+00
  %arrayidx22 = getelementptr inbounds double, ptr %call3, i64 %i12.0113
  store double %add21, ptr %arrayidx22, align 8, !tbaa !9
  %inc24 = add nuw nsw i64 %i12.0113, 1
  %exitcond123.not = icmp eq i64 %inc24, %smax
  br i1 %exitcond123.not, label %for.cond27.preheader, label %for.body18, !llvm.loop !15

for.cond40.preheader:                             ; preds = %for.body32, %for.cond27.preheader
  %conv45 = trunc i64 %n to i32
  %cmp49116 = icmp sgt i64 %n, 0
  %cmp60119 = icmp sgt i64 %n, 0
  %smax125 = tail call i64 @llvm.smax.i64(i64 %mul7, i64 1)
  br label %for.body44

for.body32:                                       ; preds = %for.cond27.preheader, %for.body32
  %i26.0115 = phi i64 [ %inc38, %for.body32 ], [ 0, %for.cond27.preheader ]
  %rem33 = urem i64 %i26.0115, 11
  %conv34 = uitofp nneg i64 %rem33 to double
  %div35 = fmul double %conv34, 2.500000e-01
  %sub = fsub double 2.000000e+00, %div35
  %arrayidx36 = getelementptr inbounds double, ptr %call6, i64 %i26.0115
  store double %sub, ptr %arrayidx36, align 8, !tbaa !9
  %inc38 = add nuw nsw i64 %i26.0115, 1
  %exitcond124.not = icmp eq i64 %inc38, %mul
  br i1 %exitcond124.not, label %for.cond40.preheader, label %for.body32, !llvm.loop !16

for.cond.cleanup43:                               ; preds = %for.cond.cleanup62
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call3) #7
  tail call void @free(ptr noundef %call6) #7
  tail call void @free(ptr noundef %call9) #7
  %0 = bitcast double %s.1.lcssa to i64
  ret i64 %0

for.body44:                                       ; preds = %for.cond40.preheader, %for.cond.cleanup62
  %it.0122 = phi i32 [ 0, %for.cond40.preheader ], [ %inc71, %for.cond.cleanup62 ]
  %s.0121 = phi double [ 0.000000e+00, %for.cond40.preheader ], [ %s.1.lcssa, %for.cond.cleanup62 ]
  tail call void @kernel(i32 noundef %conv45, ptr noundef %call, ptr noundef %call3, ptr noundef %call6, ptr noundef %call9)
  br i1 %cmp49116, label %for.body52, label %for.cond59.preheader

for.cond59.preheader:                             ; preds = %for.body52, %for.body44
  %s.1.lcssa = phi double [ %s.0121, %for.body44 ], [ %2, %for.body52 ]
  br i1 %cmp60119, label %for.body63, label %for.cond.cleanup62

for.body52:                                       ; preds = %for.body44, %for.body52
  %i46.0118 = phi i64 [ %inc56, %for.body52 ], [ 0, %for.body44 ]
  %s.1117 = phi double [ %2, %for.body52 ], [ %s.0121, %for.body44 ]
  %arrayidx54 = getelementptr inbounds double, ptr %call9, i64 %i46.0118
  %1 = load double, ptr %arrayidx54, align 8, !tbaa !9
  %2 = tail call double @llvm.fmuladd.f64(double %s.1117, double 5.000000e-01, double %1)
  %inc56 = add nuw nsw i64 %i46.0118, 1
  %exitcond126.not = icmp eq i64 %inc56, %smax125
  br i1 %exitcond126.not, label %for.cond59.preheader, label %for.body52, !llvm.loop !17

for.cond.cleanup62:                               ; preds = %for.body63, %for.cond59.preheader
  %inc71 = add nuw nsw i32 %it.0122, 1
  %exitcond128.not = icmp eq i32 %inc71, 3
  br i1 %exitcond128.not, label %for.cond.cleanup43, label %for.body44, !llvm.loop !18

for.body63:                                       ; preds = %for.cond59.preheader, %for.body63
  %i58.0120 = phi i64 [ %inc68, %for.body63 ], [ 0, %for.cond59.preheader ]
  %arrayidx64 = getelementptr inbounds double, ptr %call9, i64 %i58.0120
  %3 = load double, ptr %arrayidx64, align 8, !tbaa !9
  %arrayidx66 = getelementptr inbounds double, ptr %call3, i64 %i58.0120
  %4 = load double, ptr %arrayidx66, align 8, !tbaa !9
  %5 = tail call double @llvm.fmuladd.f64(double %3, double 1.000000e-03, double %4)
  store double %5, ptr %arrayidx66, align 8, !tbaa !9
  %inc68 = add nuw nsw i64 %i58.0120, 1
  %exitcond127.not = icmp eq i64 %inc68, %n
  br i1 %exitcond127.not, label %for.cond.cleanup62, label %for.body63, !llvm.loop !19
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #5

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
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
!10 = !{!"double", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = distinct !{!14, !12, !13}
!15 = distinct !{!15, !12, !13}
!16 = distinct !{!16, !12, !13}
!17 = distinct !{!17, !12, !13}
!18 = distinct !{!18, !12, !13}
!19 = distinct !{!19, !12, !13}
