; PASSES: insert-inspector
; CHECK: define internal void @kernel.weft.inspect.0(ptr %ctx, i64 %lo, i64 %hi, ptr %insp)
; CHECK: %weft.stream.bytes = mul i64 %weft.stream.n, 8
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %weft.stream, i64 %weft.stream.bytes, {{.*}}, i1 false)
; CHECK-NOT: report_rows
; CHECK: define internal void @weft.inspect.report_line(
; REMARK: applied: inspector/executor: region 0
; run: @test(500, 7)
; run: @test(3, 1)
; cores: 1,2,3
source_filename = "rows_masked.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i32 noundef %n, ptr noalias nocapture noundef readonly %rowptr, ptr noalias nocapture noundef readonly %col, ptr noalias nocapture noundef readonly %val, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef readonly %mask, ptr noalias nocapture noundef writeonly %y) local_unnamed_addr #0 {
entry:
  %cmp33 = icmp sgt i32 %n, 0
  br i1 %cmp33, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %wide.trip.count39 = zext nneg i32 %n to i64
  br label %for.body

for.cond.cleanup:                                 ; preds = %if.end, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %if.end
  %indvars.iv36 = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next37, %if.end ]
  %arrayidx = getelementptr inbounds i32, ptr %mask, i64 %indvars.iv36
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %tobool.not = icmp eq i32 %0, 0
  br i1 %tobool.not, label %if.end, label %if.then

if.then:                                          ; preds = %for.body
  %arrayidx2 = getelementptr inbounds i32, ptr %rowptr, i64 %indvars.iv36
  %1 = load i32, ptr %arrayidx2, align 4, !tbaa !5
  %arrayidx5 = getelementptr inbounds i8, ptr %arrayidx2, i64 4
  %2 = load i32, ptr %arrayidx5, align 4, !tbaa !5
  %cmp630 = icmp slt i32 %1, %2
  br i1 %cmp630, label %for.body8.preheader, label %if.end

for.body8.preheader:                              ; preds = %if.then
  %3 = sext i32 %1 to i64
  %wide.trip.count = sext i32 %2 to i64
  br label %for.body8

for.body8:                                        ; preds = %for.body8.preheader, %for.body8
  %indvars.iv = phi i64 [ %3, %for.body8.preheader ], [ %indvars.iv.next, %for.body8 ]
  %s.031 = phi double [ 0.000000e+00, %for.body8.preheader ], [ %7, %for.body8 ]
  %arrayidx10 = getelementptr inbounds double, ptr %val, i64 %indvars.iv
  %4 = load double, ptr %arrayidx10, align 8, !tbaa !9
  %arrayidx12 = getelementptr inbounds i32, ptr %col, i64 %indvars.iv
  %5 = load i32, ptr %arrayidx12, align 4, !tbaa !5
  %idxprom13 = sext i32 %5 to i64
  %arrayidx14 = getelementptr inbounds double, ptr %x, i64 %idxprom13
  %6 = load double, ptr %arrayidx14, align 8, !tbaa !9
  %7 = tail call double @llvm.fmuladd.f64(double %4, double %6, double %s.031)
  %indvars.iv.next = add nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %if.end, label %for.body8, !llvm.loop !11

if.end:                                           ; preds = %for.body8, %if.then, %for.body
  %s.1 = phi double [ 0.000000e+00, %for.body ], [ 0.000000e+00, %if.then ], [ %7, %for.body8 ]
  %arrayidx16 = getelementptr inbounds double, ptr %y, i64 %indvars.iv36
  store double %s.1, ptr %arrayidx16, align 8, !tbaa !9
  %indvars.iv.next37 = add nuw nsw i64 %indvars.iv36, 1
  %exitcond40.not = icmp eq i64 %indvars.iv.next37, %wide.trip.count39
  br i1 %exitcond40.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %deg) local_unnamed_addr #2 {
entry:
  %add = shl i64 %n, 2
  %mul = add i64 %add, 4
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %mul1 = mul nsw i64 %deg, %n
  %mul2 = shl i64 %mul1, 2
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul2) #5
  %call5 = tail call noalias ptr @malloc(i64 noundef %add) #5
  %mul7 = shl i64 %mul1, 3
  %call8 = tail call noalias ptr @malloc(i64 noundef %mul7) #5
  %mul9 = shl i64 %n, 3
  %call10 = tail call noalias ptr @malloc(i64 noundef %mul9) #5
  %call12 = tail call noalias ptr @malloc(i64 noundef %mul9) #5
  %cmp130 = icmp sgt i64 %n, 0
  br i1 %cmp130, label %for.body, label %for.cond.cleanup

for.cond.cleanup.loopexit:                        ; preds = %for.cond.cleanup22
  %0 = trunc i64 %inc to i32
  br label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.cleanup.loopexit, %entry
  %nnz.0.lcssa = phi i32 [ 0, %entry ], [ %0, %for.cond.cleanup.loopexit ]
  %arrayidx40 = getelementptr inbounds i32, ptr %call, i64 %n
  store i32 %nnz.0.lcssa, ptr %arrayidx40, align 4, !tbaa !5
  %cmp43134 = icmp sgt i64 %n, 0
  br i1 %cmp43134, label %for.body46, label %for.cond54.preheader

for.body:                                         ; preds = %entry, %for.cond.cleanup22
  %seed.0133 = phi i32 [ %add25, %for.cond.cleanup22 ], [ 12345, %entry ]
  %nnz.0132 = phi i64 [ %inc, %for.cond.cleanup22 ], [ 0, %entry ]
  %i.0131 = phi i64 [ %inc37, %for.cond.cleanup22 ], [ 0, %entry ]
  %conv = trunc i64 %nnz.0132 to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.0131
  store i32 %conv, ptr %arrayidx, align 4, !tbaa !5
  %rem = urem i64 %i.0131, 3
  %cmp13 = icmp ne i64 %rem, 1
  %conv14 = zext i1 %cmp13 to i32
  %arrayidx15 = getelementptr inbounds i32, ptr %call5, i64 %i.0131
  store i32 %conv14, ptr %arrayidx15, align 4, !tbaa !5
  %mul16 = mul nuw nsw i64 %i.0131, 7
  %rem17 = srem i64 %mul16, %deg
  %add32 = add nuw nsw i64 %i.0131, 2
  %conv33 = uitofp nneg i64 %add32 to double
  br label %for.body23

for.cond.cleanup22:                               ; preds = %for.body23
  %inc37 = add nuw nsw i64 %i.0131, 1
  %exitcond142.not = icmp eq i64 %inc37, %n
  br i1 %exitcond142.not, label %for.cond.cleanup.loopexit, label %for.body, !llvm.loop !15

for.body23:                                       ; preds = %for.body, %for.body23
  %seed.1129 = phi i32 [ %seed.0133, %for.body ], [ %add25, %for.body23 ]
  %k.0128 = phi i64 [ 0, %for.body ], [ %add30, %for.body23 ]
  %nnz.1127 = phi i64 [ %nnz.0132, %for.body ], [ %inc, %for.body23 ]
  %mul24 = mul i32 %seed.1129, 1103515245
  %add25 = add i32 %mul24, 12345
  %shr = lshr i32 %add25, 8
  %conv26 = zext nneg i32 %shr to i64
  %rem27 = urem i64 %conv26, %n
  %conv28 = trunc nuw nsw i64 %rem27 to i32
  %arrayidx29 = getelementptr inbounds i32, ptr %call3, i64 %nnz.1127
  store i32 %conv28, ptr %arrayidx29, align 4, !tbaa !5
  %add30 = add nuw i64 %k.0128, 1
  %conv31 = uitofp nneg i64 %add30 to double
  %div = fdiv double %conv31, %conv33
  %arrayidx34 = getelementptr inbounds double, ptr %call8, i64 %nnz.1127
  store double %div, ptr %arrayidx34, align 8, !tbaa !9
  %inc = add nsw i64 %nnz.1127, 1
  %exitcond.not = icmp eq i64 %k.0128, %rem17
  br i1 %exitcond.not, label %for.cond.cleanup22, label %for.body23, !llvm.loop !16

for.cond54.preheader:                             ; preds = %for.body46, %for.cond.cleanup
  %conv59 = trunc i64 %n to i32
  %cmp62136 = icmp sgt i64 %n, 0
  br label %for.body58

for.body46:                                       ; preds = %for.cond.cleanup, %for.body46
  %i41.0135 = phi i64 [ %inc52, %for.body46 ], [ 0, %for.cond.cleanup ]
  %rem47 = urem i64 %i41.0135, 13
  %1 = add nuw nsw i64 %rem47, 1
  %add49 = uitofp nneg i64 %1 to double
  %arrayidx50 = getelementptr inbounds double, ptr %call10, i64 %i41.0135
  store double %add49, ptr %arrayidx50, align 8, !tbaa !9
  %inc52 = add nuw nsw i64 %i41.0135, 1
  %exitcond143.not = icmp eq i64 %inc52, %n
  br i1 %exitcond143.not, label %for.cond54.preheader, label %for.body46, !llvm.loop !17

for.cond.cleanup57:                               ; preds = %for.cond.cleanup64
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call3) #6
  tail call void @free(ptr noundef %call5) #6
  tail call void @free(ptr noundef %call8) #6
  tail call void @free(ptr noundef %call10) #6
  tail call void @free(ptr noundef %call12) #6
  %2 = bitcast double %s.1.lcssa to i64
  ret i64 %2

for.body58:                                       ; preds = %for.cond54.preheader, %for.cond.cleanup64
  %it.0141 = phi i32 [ 0, %for.cond54.preheader ], [ %inc75, %for.cond.cleanup64 ]
  %s.0140 = phi double [ 0.000000e+00, %for.cond54.preheader ], [ %s.1.lcssa, %for.cond.cleanup64 ]
  tail call void @kernel(i32 noundef %conv59, ptr noundef %call, ptr noundef %call3, ptr noundef %call8, ptr noundef %call10, ptr noundef %call5, ptr noundef %call12)
  br i1 %cmp62136, label %for.body65, label %for.cond.cleanup64

for.cond.cleanup64:                               ; preds = %for.body65, %for.body58
  %s.1.lcssa = phi double [ %s.0140, %for.body58 ], [ %4, %for.body65 ]
  %inc75 = add nuw nsw i32 %it.0141, 1
  %exitcond145.not = icmp eq i32 %inc75, 3
  br i1 %exitcond145.not, label %for.cond.cleanup57, label %for.body58, !llvm.loop !18

for.body65:                                       ; preds = %for.body58, %for.body65
  %i60.0138 = phi i64 [ %inc72, %for.body65 ], [ 0, %for.body58 ]
  %s.1137 = phi double [ %4, %for.body65 ], [ %s.0140, %for.body58 ]
  %arrayidx67 = getelementptr inbounds double, ptr %call12, i64 %i60.0138
  %3 = load double, ptr %arrayidx67, align 8, !tbaa !9
  %4 = tail call double @llvm.fmuladd.f64(double %s.1137, double 7.500000e-01, double %3)
  %5 = tail call double @llvm.fmuladd.f64(double %3, double 1.000000e-02, double 1.000000e+00)
  %arrayidx70 = getelementptr inbounds double, ptr %call10, i64 %i60.0138
  store double %5, ptr %arrayidx70, align 8, !tbaa !9
  %inc72 = add nuw nsw i64 %i60.0138, 1
  %exitcond144.not = icmp eq i64 %inc72, %n
  br i1 %exitcond144.not, label %for.cond.cleanup64, label %for.body65, !llvm.loop !19
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
