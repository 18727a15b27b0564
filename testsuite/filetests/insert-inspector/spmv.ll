; PASSES: insert-inspector
; CHECK: void @kernel(
; CHECK: call i32 @weft_region_select(i32 0, ptr %weft.key, i32 2, ptr %weft.slot)
; CHECK: call i32 @weft_run_irregular(i32 %weft.region, i64 0, i64
; CHECK: define internal void @kernel.weft.body.0(ptr %ctx, i64 %lo, i64 %hi)
; CHECK: define internal void @kernel.weft.inspect.0(ptr %ctx, i64 %lo, i64 %hi, ptr %insp)
; CHECK: call i32 @weft_inspect_line_shift(ptr %insp, ptr %weft.line.shift)
; CHECK: store { i64, i64, ptr, ptr, i64, i32, i32, i32, i32, i64, i64, ptr, ptr, i32, i32, ptr, i64, i64, i64 } zeroinitializer, ptr %weft.fast
; CHECK: { i64 0, i64 0, ptr null, ptr null, i64 0, i32 0, i32 0, i32 1, i32 0, i64 0, i64 0, ptr null, ptr null, i32 0, i32 0, ptr null, i64 0, i64 0, i64 0, i64 0 }, ptr %weft.fast.cur
; CHECK: call i32 @weft_inspect_maps_only(ptr %insp)
; CHECK: %weft.same.slab = and i1
; CHECK: select i1 %weft.same.slab, i64 %{{.*}}, i64 -1
; CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, {{.*}}, ptr %weft.fast, ptr %weft.fast.cur, i1 true)
; CHECK: %weft.stream.bytes = mul i64 %weft.stream.n, 8
; CHECK: call void @weft.inspect.report_rows.32(ptr %insp, i64 %weft.k, ptr %weft.stream, i64 %weft.stream.bytes, {{.*}}, ptr %weft.rows.done, ptr %arrayidx3, i64 %wide.trip.count, ptr %val.in, i64 8)
; CHECK: %weft.stream.bytes{{.*}} = mul i64 %weft.stream.n{{.*}}, 4
; CHECK: call void @weft.inspect.report_rows.32({{.*}}, ptr %arrayidx3, i64 %wide.trip.count, ptr %col.in, i64 4)
; CHECK-NOT: store double
; CHECK: call void @weft.inspect.fast_flush(ptr %insp, ptr %weft.fast, ptr %weft.fast.cur)
; CHECK: ret void
; CHECK: define internal void @weft.inspect.report_line(
; CHECK-NOT: weft_region_reset
; CHECK: call i32 @weft_inspect_fast(ptr %0, i64 %1, ptr %6)
; CHECK: getelementptr inbounds i16, ptr %table
; CHECK: call i32 @weft_inspect_range(ptr %0, i64 %1, ptr %2, i64 %3)
; CHECK: ret void
; CHECK: define internal void @weft.inspect.report_rows.32(
; CHECK: %covered = icmp slt i64 %1, %done
; CHECK: call void @weft.inspect.report_line(ptr %0, i64 %1, ptr %2, i64 %3, ptr %4, i64 %5, ptr %6, ptr %7, i1 false)
; CHECK: %held = and i1
; CHECK: %e = load i64
; CHECK: store i64 %e, ptr %8
; CHECK: %rows.end = load i32
; CHECK: sext i32 %rows.end to i64
; CHECK: %rows.at = getelementptr i8, ptr %11
; CHECK: call void @weft.inspect.report_line(ptr %0, i64 %1, ptr %rows.at, i64 %rows.bytes, ptr %4, i64 %5, ptr %6, ptr %7, i1 false)
; CHECK: define internal void @weft.inspect.fast_flush(
; CHECK: call i32 @weft_inspect_fast_flush(ptr %0, ptr %1)
; REMARK: applied: inspector/executor: region 0
; run: @test(500, 7)
; run: @test(3, 1)
; cores: 1,2,3
source_filename = "spmv.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i32 noundef %n, ptr noalias nocapture noundef readonly %rowptr, ptr noalias nocapture noundef readonly %col, ptr noalias nocapture noundef readonly %val, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef writeonly %y) local_unnamed_addr #0 {
entry:
  %cmp31 = icmp sgt i32 %n, 0
  br i1 %cmp31, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %wide.trip.count37 = zext nneg i32 %n to i64
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.cond.cleanup5, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %for.cond.cleanup5
  %indvars.iv34 = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next35, %for.cond.cleanup5 ]
  %arrayidx = getelementptr inbounds i32, ptr %rowptr, i64 %indvars.iv34
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %indvars.iv.next35 = add nuw nsw i64 %indvars.iv34, 1
  %arrayidx3 = getelementptr inbounds i32, ptr %rowptr, i64 %indvars.iv.next35
  %1 = load i32, ptr %arrayidx3, align 4, !tbaa !5
  %cmp427 = icmp slt i32 %0, %1
  br i1 %cmp427, label %for.body6.preheader, label %for.cond.cleanup5

for.body6.preheader:                              ; preds = %for.body
  %2 = sext i32 %0 to i64
  %wide.trip.count = sext i32 %1 to i64
  br label %for.body6

for.cond.cleanup5:                                ; preds = %for.body6, %for.body
  %s.0.lcssa = phi double [ 0.000000e+00, %for.body ], [ %6, %for.body6 ]
  %arrayidx14 = getelementptr inbounds double, ptr %y, i64 %indvars.iv34
  store double %s.0.lcssa, ptr %arrayidx14, align 8, !tbaa !9
  %exitcond38.not = icmp eq i64 %indvars.iv.next35, %wide.trip.count37
  br i1 %exitcond38.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11

for.body6:                                        ; preds = %for.body6.preheader, %for.body6
  %indvars.iv = phi i64 [ %2, %for.body6.preheader ], [ %indvars.iv.next, %for.body6 ]
  %s.028 = phi double [ 0.000000e+00, %for.body6.preheader ], [ %6, %for.body6 ]
  %arrayidx8 = getelementptr inbounds double, ptr %val, i64 %indvars.iv
  %3 = load double, ptr %arrayidx8, align 8, !tbaa !9
  %arrayidx10 = getelementptr inbounds i32, ptr %col, i64 %indvars.iv
  %4 = load i32, ptr %arrayidx10, align 4, !tbaa !5
  %idxprom11 = sext i32 %4 to i64
  %arrayidx12 = getelementptr inbounds double, ptr %x, i64 %idxprom11
  %5 = load double, ptr %arrayidx12, align 8, !tbaa !9
  %6 = tail call double @llvm.fmuladd.f64(double %3, double %5, double %s.028)
  %indvars.iv.next = add nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup5, label %for.body6, !llvm.loop !14
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
  %mul5 = shl i64 %mul1, 3
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul5) #5
  %mul7 = shl i64 %n, 3
  %call8 = tail call noalias ptr @malloc(i64 noundef %mul7) #5
  %call10 = tail call noalias ptr @malloc(i64 noundef %mul7) #5
  %cmp119 = icmp sgt i64 %n, 0
  br i1 %cmp119, label %for.body, label %for.cond.cleanup

for.cond.cleanup.loopexit:                        ; preds = %for.cond.cleanup16
  %0 = trunc i64 %inc to i32
  br label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.cleanup.loopexit, %entry
  %nnz.0.lcssa = phi i32 [ 0, %entry ], [ %0, %for.cond.cleanup.loopexit ]
  %arrayidx34 = getelementptr inbounds i32, ptr %call, i64 %n
  store i32 %nnz.0.lcssa, ptr %arrayidx34, align 4, !tbaa !5
  %cmp37123 = icmp sgt i64 %n, 0
  br i1 %cmp37123, label %for.body40, label %for.cond48.preheader

for.body:                                         ; preds = %entry, %for.cond.cleanup16
  %seed.0122 = phi i32 [ %add19, %for.cond.cleanup16 ], [ 12345, %entry ]
  %nnz.0121 = phi i64 [ %inc, %for.cond.cleanup16 ], [ 0, %entry ]
  %i.0120 = phi i64 [ %inc31, %for.cond.cleanup16 ], [ 0, %entry ]
  %conv = trunc i64 %nnz.0121 to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.0120
  store i32 %conv, ptr %arrayidx, align 4, !tbaa !5
  %mul11 = mul nuw nsw i64 %i.0120, 7
  %rem = srem i64 %mul11, %deg
  %add26 = add nuw nsw i64 %i.0120, 2
  %conv27 = uitofp nneg i64 %add26 to double
  br label %for.body17

for.cond.cleanup16:                               ; preds = %for.body17
  %inc31 = add nuw nsw i64 %i.0120, 1
  %exitcond131.not = icmp eq i64 %inc31, %n
  br i1 %exitcond131.not, label %for.cond.cleanup.loopexit, label %for.body, !llvm.loop !15

for.body17:                                       ; preds = %for.body, %for.body17
  %seed.1118 = phi i32 [ %seed.0122, %for.body ], [ %add19, %for.body17 ]
  %k.0117 = phi i64 [ 0, %for.body ], [ %add24, %for.body17 ]
  %nnz.1116 = phi i64 [ %nnz.0121, %for.body ], [ %inc, %for.body17 ]
  %mul18 = mul i32 %seed.1118, 1103515245
  %add19 = add i32 %mul18, 12345
  %shr = lshr i32 %add19, 8
  %conv20 = zext nneg i32 %shr to i64
  %rem21 = urem i64 %conv20, %n
  %conv22 = trunc nuw nsw i64 %rem21 to i32
  %arrayidx23 = getelementptr inbounds i32, ptr %call3, i64 %nnz.1116
  store i32 %conv22, ptr %arrayidx23, align 4, !tbaa !5
  %add24 = add nuw i64 %k.0117, 1
  %conv25 = uitofp nneg i64 %add24 to double
  %div = fdiv double %conv25, %conv27
  %arrayidx28 = getelementptr inbounds double, ptr %call6, i64 %nnz.1116
  store double %div, ptr %arrayidx28, align 8, !tbaa !9
  %inc = add nsw i64 %nnz.1116, 1
  %exitcond.not = icmp eq i64 %k.0117, %rem
  br i1 %exitcond.not, label %for.cond.cleanup16, label %for.body17, !llvm.loop !16

for.cond48.preheader:                             ; preds = %for.body40, %for.cond.cleanup
  %conv53 = trunc i64 %n to i32
  %cmp56125 = icmp sgt i64 %n, 0
  br label %for.body52

for.body40:                                       ; preds = %for.cond.cleanup, %for.body40
  %i35.0124 = phi i64 [ %inc46, %for.body40 ], [ 0, %for.cond.cleanup ]
  %rem41 = urem i64 %i35.0124, 13
  %1 = add nuw nsw i64 %rem41, 1
  %add43 = uitofp nneg i64 %1 to double
  %arrayidx44 = getelementptr inbounds double, ptr %call8, i64 %i35.0124
  store double %add43, ptr %arrayidx44, align 8, !tbaa !9
  %inc46 = add nuw nsw i64 %i35.0124, 1
  %exitcond132.not = icmp eq i64 %inc46, %n
  br i1 %exitcond132.not, label %for.cond48.preheader, label %for.body40, !llvm.loop !17

for.cond.cleanup51:                               ; preds = %for.cond.cleanup58
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call3) #6
  tail call void @free(ptr noundef %call6) #6
  tail call void @free(ptr noundef %call8) #6
  tail call void @free(ptr noundef %call10) #6
  %2 = bitcast double %s.1.lcssa to i64
  ret i64 %2

for.body52:                                       ; preds = %for.cond48.preheader, %for.cond.cleanup58
  %it.0130 = phi i32 [ 0, %for.cond48.preheader ], [ %inc69, %for.cond.cleanup58 ]
  %s.0129 = phi double [ 0.000000e+00, %for.cond48.preheader ], [ %s.1.lcssa, %for.cond.cleanup58 ]
  tail call void @kernel(i32 noundef %conv53, ptr noundef %call, ptr noundef %call3, ptr noundef %call6, ptr noundef %call8, ptr noundef %call10)
  br i1 %cmp56125, label %for.body59, label %for.cond.cleanup58

for.cond.cleanup58:                               ; preds = %for.body59, %for.body52
  %s.1.lcssa = phi double [ %s.0129, %for.body52 ], [ %4, %for.body59 ]
  %inc69 = add nuw nsw i32 %it.0130, 1
  %exitcond134.not = icmp eq i32 %inc69, 3
  br i1 %exitcond134.not, label %for.cond.cleanup51, label %for.body52, !llvm.loop !18

for.body59:                                       ; preds = %for.body52, %for.body59
  %i54.0127 = phi i64 [ %inc66, %for.body59 ], [ 0, %for.body52 ]
  %s.1126 = phi double [ %4, %for.body59 ], [ %s.0129, %for.body52 ]
  %arrayidx61 = getelementptr inbounds double, ptr %call10, i64 %i54.0127
  %3 = load double, ptr %arrayidx61, align 8, !tbaa !9
  %4 = tail call double @llvm.fmuladd.f64(double %s.1126, double 7.500000e-01, double %3)
  %5 = tail call double @llvm.fmuladd.f64(double %3, double 1.000000e-02, double 1.000000e+00)
  %arrayidx64 = getelementptr inbounds double, ptr %call8, i64 %i54.0127
  store double %5, ptr %arrayidx64, align 8, !tbaa !9
  %inc66 = add nuw nsw i64 %i54.0127, 1
  %exitcond133.not = icmp eq i64 %inc66, %n
  br i1 %exitcond133.not, label %for.cond.cleanup58, label %for.body59, !llvm.loop !19
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
