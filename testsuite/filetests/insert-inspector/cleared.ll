; PASSES: insert-inspector
; CHECK: i64 @test(
; CHECK-NOT: weft.regions.reset
; CHECK: ret i64
; CHECK: i64 @test_int(
; CHECK: call void @weft.regions.reset()
; run: @test(300)
; run: @test_int(300)
; cores: 1,2
source_filename = "cleared.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %idx, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef writeonly %y) local_unnamed_addr #0 {
entry:
  %cmp6 = icmp sgt i64 %n, 0
  br i1 %cmp6, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.07 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %idx, i64 %i.07
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %idxprom = sext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds double, ptr %x, i64 %idxprom
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !9
  %mul = fmul double %1, 2.000000e+00
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %i.07
  store double %mul, ptr %arrayidx2, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: write) uwtable
define dso_local void @fill(i64 noundef %n, ptr nocapture noundef writeonly %idx, i32 noundef %step) local_unnamed_addr #1 {
entry:
  %cmp7 = icmp sgt i64 %n, 0
  br i1 %cmp7, label %for.body.lr.ph, label %for.cond.cleanup

for.body.lr.ph:                                   ; preds = %entry
  %add = add nsw i32 %step, 7
  %conv = sext i32 %add to i64
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %i.08 = phi i64 [ 0, %for.body.lr.ph ], [ %add2, %for.body ]
  %mul = mul nsw i64 %i.08, %conv
  %rem = srem i64 %mul, %n
  %conv1 = trunc i64 %rem to i32
  %arrayidx = getelementptr inbounds i32, ptr %idx, i64 %i.08
  store i32 %conv1, ptr %arrayidx, align 4, !tbaa !5
  %add2 = add nuw nsw i64 %i.08, 2
  %cmp = icmp slt i64 %add2, %n
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !llvm.loop !14
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local i64 @sum(i64 noundef %n, ptr nocapture noundef readonly %y, double noundef %s) local_unnamed_addr #2 {
entry:
  %cmp4 = icmp sgt i64 %n, 0
  br i1 %cmp4, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %s.addr.0.lcssa = phi double [ %s, %entry ], [ %2, %for.body ]
  %0 = bitcast double %s.addr.0.lcssa to i64
  ret i64 %0

for.body:                                         ; preds = %entry, %for.body
  %s.addr.06 = phi double [ %2, %for.body ], [ %s, %entry ]
  %i.05 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %y, i64 %i.05
  %1 = load double, ptr %arrayidx, align 8, !tbaa !9
  %2 = tail call double @llvm.fmuladd.f64(double %s.addr.06, double 5.000000e-01, double %1)
  %inc = add nuw nsw i64 %i.05, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !15
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #3

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #4 {
entry:
  %call = tail call noalias ptr @calloc(i64 noundef %n, i64 noundef 4) #9
  %mul = shl i64 %n, 3
  %call1 = tail call noalias ptr @malloc(i64 noundef %mul) #10
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #10
  tail call void @fill(i64 noundef %n, ptr noundef %call, i32 noundef 0)
  %cmp636 = icmp sgt i64 %n, 0
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.cond.cleanup7
  tail call void @free(ptr noundef %call) #11
  tail call void @free(ptr noundef %call1) #11
  tail call void @free(ptr noundef %call3) #11
  ret i64 %xor

for.body:                                         ; preds = %entry, %for.cond.cleanup7
  %step.039 = phi i32 [ 0, %entry ], [ %inc, %for.cond.cleanup7 ]
  %s.038 = phi i64 [ 0, %entry ], [ %xor, %for.cond.cleanup7 ]
  tail call void @llvm.memset.p0.i64(ptr align 8 %call1, i8 0, i64 %mul, i1 false)
  br i1 %cmp636, label %for.body8.lr.ph, label %for.cond.cleanup7

for.body8.lr.ph:                                  ; preds = %for.body
  %conv = uitofp nneg i32 %step.039 to double
  br label %for.body8

for.cond.cleanup7:                                ; preds = %for.body8, %for.body
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call1, ptr noundef %call3)
  %conv11 = uitofp nneg i32 %step.039 to double
  %call12 = tail call i64 @sum(i64 noundef %n, ptr noundef %call3, double noundef %conv11)
  %xor = xor i64 %call12, %s.038
  %inc = add nuw nsw i32 %step.039, 1
  %exitcond.not = icmp eq i32 %inc, 4
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !16

for.body8:                                        ; preds = %for.body8.lr.ph, %for.body8
  %i.037 = phi i64 [ 0, %for.body8.lr.ph ], [ %add, %for.body8 ]
  %conv9 = uitofp nneg i64 %i.037 to double
  %0 = tail call double @llvm.fmuladd.f64(double %conv9, double 2.500000e-01, double %conv)
  %arrayidx = getelementptr inbounds double, ptr %call1, i64 %i.037
  store double %0, ptr %arrayidx, align 8, !tbaa !9
  %add = add nuw nsw i64 %i.037, 3
  %cmp6 = icmp slt i64 %add, %n
  br i1 %cmp6, label %for.body8, label %for.cond.cleanup7, !llvm.loop !17
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,zeroed") allocsize(0,1) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @calloc(i64 noundef, i64 noundef) local_unnamed_addr #5

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #6

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #7

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #8

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test_int(i64 noundef %n) local_unnamed_addr #4 {
entry:
  %call = tail call noalias ptr @calloc(i64 noundef %n, i64 noundef 4) #9
  %mul = shl i64 %n, 3
  %call1 = tail call noalias ptr @malloc(i64 noundef %mul) #10
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #10
  %cmp37 = icmp sgt i64 %n, 0
  br i1 %cmp37, label %for.body, label %for.cond5.preheader

for.cond5.preheader:                              ; preds = %for.body, %entry
  %mul10 = shl i64 %n, 2
  br label %for.body9

for.body:                                         ; preds = %entry, %for.body
  %i.038 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %conv = uitofp nneg i64 %i.038 to double
  %mul4 = fmul double %conv, 5.000000e-01
  %arrayidx = getelementptr inbounds double, ptr %call1, i64 %i.038
  store double %mul4, ptr %arrayidx, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.038, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond5.preheader, label %for.body, !llvm.loop !18

for.cond.cleanup8:                                ; preds = %for.body9
  tail call void @free(ptr noundef %call) #11
  tail call void @free(ptr noundef %call1) #11
  tail call void @free(ptr noundef %call3) #11
  ret i64 %xor

for.body9:                                        ; preds = %for.cond5.preheader, %for.body9
  %step.040 = phi i32 [ 0, %for.cond5.preheader ], [ %inc14, %for.body9 ]
  %s.039 = phi i64 [ 0, %for.cond5.preheader ], [ %xor, %for.body9 ]
  tail call void @llvm.memset.p0.i64(ptr align 4 %call, i8 0, i64 %mul10, i1 false)
  tail call void @fill(i64 noundef %n, ptr noundef %call, i32 noundef %step.040)
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call1, ptr noundef %call3)
  %conv11 = uitofp nneg i32 %step.040 to double
  %call12 = tail call i64 @sum(i64 noundef %n, ptr noundef %call3, double noundef %conv11)
  %xor = xor i64 %call12, %s.039
  %inc14 = add nuw nsw i32 %step.040, 1
  %exitcond41.not = icmp eq i32 %inc14, 4
  br i1 %exitcond41.not, label %for.cond.cleanup8, label %for.body9, !llvm.loop !19
}

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree noinline norecurse nosync nounwind memory(argmem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nofree noinline norecurse nosync nounwind memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { mustprogress nofree nounwind willreturn allockind("alloc,zeroed") allocsize(0,1) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #7 = { mustprogress nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #8 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #9 = { nounwind allocsize(0,1) }
attributes #10 = { nounwind allocsize(0) }
attributes #11 = { nounwind }

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
