; PASSES: parallel-for
; CHECK: define dso_local void @smooth(
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @smooth.weft.body.0
; CHECK: define dso_local void @seidel(
; CHECK-NOT: @weft_parallel_for
; CHECK: define {{.*}} @test(
; REMARK: @smooth L0 (for.cond1.preheader): applied: executor form: body @smooth.weft.body.0
; REMARK: @seidel L0 (for.cond1.preheader): missed: not parallel
; cores: 1,2,3
; run: @test(64)
; run: @test(37)
; run: @test(3)
;
; Delinearisation over `double (*a)[N]` with a symbolic trip count `n`: the
; linearised offsets 8*N*i + 8*j of the in-place update a[i][j] could collide
; across rows when j > N, so only the per-dimension test (each subscript
; within its dimension, C semantics) proves the i loop of @smooth parallel.
; @seidel reads a[i-1][j], written by the previous i iteration: it stays
; sequential.
source_filename = "delin2d.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @smooth(i64 noundef %n, ptr noalias nocapture noundef %a, ptr noalias nocapture noundef readonly %b) local_unnamed_addr #0 {
entry:
  %sub = add i64 %n, -1
  %cmp48 = icmp sgt i64 %n, 2
  br i1 %cmp48, label %for.cond1.preheader, label %for.cond.cleanup

for.cond1.preheader:                              ; preds = %entry, %for.cond.cleanup4
  %i.049 = phi i64 [ %inc25, %for.cond.cleanup4 ], [ 1, %entry ]
  %0 = getelementptr [64 x double], ptr %b, i64 %i.049
  %arrayidx8 = getelementptr i8, ptr %0, i64 -512
  %arrayidx10 = getelementptr inbounds i8, ptr %0, i64 512
  br label %for.body5

for.cond.cleanup:                                 ; preds = %for.cond.cleanup4, %entry
  ret void

for.cond.cleanup4:                                ; preds = %for.body5
  %inc25 = add nuw nsw i64 %i.049, 1
  %exitcond50.not = icmp eq i64 %inc25, %sub
  br i1 %exitcond50.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !5

for.body5:                                        ; preds = %for.cond1.preheader, %for.body5
  %j.047 = phi i64 [ 1, %for.cond1.preheader ], [ %add18, %for.body5 ]
  %arrayidx6 = getelementptr inbounds [64 x double], ptr %a, i64 %i.049, i64 %j.047
  %1 = load double, ptr %arrayidx6, align 8, !tbaa !8
  %arrayidx9 = getelementptr inbounds [64 x double], ptr %arrayidx8, i64 0, i64 %j.047
  %2 = load double, ptr %arrayidx9, align 8, !tbaa !8
  %arrayidx11 = getelementptr inbounds [64 x double], ptr %arrayidx10, i64 0, i64 %j.047
  %3 = load double, ptr %arrayidx11, align 8, !tbaa !8
  %add12 = fadd double %2, %3
  %sub14 = add nsw i64 %j.047, -1
  %arrayidx15 = getelementptr inbounds [64 x double], ptr %b, i64 %i.049, i64 %sub14
  %4 = load double, ptr %arrayidx15, align 8, !tbaa !8
  %add16 = fadd double %add12, %4
  %add18 = add nuw nsw i64 %j.047, 1
  %arrayidx19 = getelementptr inbounds [64 x double], ptr %b, i64 %i.049, i64 %add18
  %5 = load double, ptr %arrayidx19, align 8, !tbaa !8
  %add20 = fadd double %add16, %5
  %mul21 = fmul double %add20, 1.250000e-01
  %6 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double %mul21)
  store double %6, ptr %arrayidx6, align 8, !tbaa !8
  %exitcond.not = icmp eq i64 %add18, %sub
  br i1 %exitcond.not, label %for.cond.cleanup4, label %for.body5, !llvm.loop !12
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @seidel(i64 noundef %n, ptr nocapture noundef %a) local_unnamed_addr #0 {
entry:
  %invariant.gep = getelementptr i8, ptr %a, i64 -512
  %cmp27 = icmp sgt i64 %n, 1
  br i1 %cmp27, label %for.cond1.preheader.preheader, label %for.cond.cleanup

for.cond1.preheader.preheader:                    ; preds = %entry
  %invariant.gep30 = getelementptr i8, ptr %a, i64 512
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.preheader, %for.cond.cleanup3
  %indvar = phi i64 [ %indvar.next, %for.cond.cleanup3 ], [ 0, %for.cond1.preheader.preheader ]
  %i.028 = phi i64 [ %inc12, %for.cond.cleanup3 ], [ 1, %for.cond1.preheader.preheader ]
  %0 = shl i64 %indvar, 9
  %gep = getelementptr i8, ptr %invariant.gep30, i64 %0
  %load_initial = load double, ptr %gep, align 8
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %for.body4
  %inc12 = add nuw nsw i64 %i.028, 1
  %exitcond29.not = icmp eq i64 %inc12, %n
  %indvar.next = add i64 %indvar, 1
  br i1 %exitcond29.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !13

for.body4:                                        ; preds = %for.cond1.preheader, %for.body4
  %store_forwarded = phi double [ %load_initial, %for.cond1.preheader ], [ %mul, %for.body4 ]
  %j.026 = phi i64 [ 1, %for.cond1.preheader ], [ %inc, %for.body4 ]
  %arrayidx5 = getelementptr nusw [64 x double], ptr %invariant.gep, i64 %i.028, i64 %j.026
  %1 = load double, ptr %arrayidx5, align 8, !tbaa !8
  %add = fadd double %1, %store_forwarded
  %mul = fmul double %add, 5.000000e-01
  %arrayidx10 = getelementptr inbounds [64 x double], ptr %a, i64 %i.028, i64 %j.026
  store double %mul, ptr %arrayidx10, align 8, !tbaa !8
  %inc = add nuw nsw i64 %j.026, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !14
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #2 {
entry:
  %call = tail call noalias dereferenceable_or_null(32768) ptr @malloc(i64 noundef 32768) #5
  %call1 = tail call noalias dereferenceable_or_null(32768) ptr @malloc(i64 noundef 32768) #5
  br label %for.cond2.preheader

for.cond2.preheader:                              ; preds = %entry, %for.cond.cleanup4
  %i.069 = phi i64 [ 0, %entry ], [ %inc17, %for.cond.cleanup4 ]
  %mul = mul nuw nsw i64 %i.069, 7
  %mul9 = mul nuw nsw i64 %i.069, 5
  br label %for.body5

for.cond.cleanup:                                 ; preds = %for.cond.cleanup4
  tail call void @smooth(i64 noundef %n, ptr noundef %call, ptr noundef %call1)
  tail call void @seidel(i64 noundef %n, ptr noundef %call1)
  br label %for.cond26.preheader

for.cond.cleanup4:                                ; preds = %for.body5
  %inc17 = add nuw nsw i64 %i.069, 1
  %exitcond74.not = icmp eq i64 %inc17, 64
  br i1 %exitcond74.not, label %for.cond.cleanup, label %for.cond2.preheader, !llvm.loop !15

for.body5:                                        ; preds = %for.cond2.preheader, %for.body5
  %j.068 = phi i64 [ 0, %for.cond2.preheader ], [ %inc, %for.body5 ]
  %mul6 = mul nuw nsw i64 %j.068, 3
  %add = add nuw nsw i64 %mul6, %mul
  %rem = urem i64 %add, 11
  %conv = uitofp nneg i64 %rem to double
  %mul7 = fmul double %conv, 5.000000e-01
  %arrayidx8 = getelementptr inbounds [64 x double], ptr %call, i64 %i.069, i64 %j.068
  store double %mul7, ptr %arrayidx8, align 8, !tbaa !8
  %add10 = add nuw nsw i64 %j.068, %mul9
  %rem11 = urem i64 %add10, 13
  %conv12 = uitofp nneg i64 %rem11 to double
  %mul13 = fmul double %conv12, 2.500000e-01
  %arrayidx15 = getelementptr inbounds [64 x double], ptr %call1, i64 %i.069, i64 %j.068
  store double %mul13, ptr %arrayidx15, align 8, !tbaa !8
  %inc = add nuw nsw i64 %j.068, 1
  %exitcond.not = icmp eq i64 %inc, 64
  br i1 %exitcond.not, label %for.cond.cleanup4, label %for.body5, !llvm.loop !16

for.cond26.preheader:                             ; preds = %for.cond.cleanup, %for.cond.cleanup29
  %i19.073 = phi i64 [ 0, %for.cond.cleanup ], [ %inc41, %for.cond.cleanup29 ]
  %s.072 = phi double [ 0.000000e+00, %for.cond.cleanup ], [ %add36, %for.cond.cleanup29 ]
  br label %for.body30

for.cond.cleanup23:                               ; preds = %for.cond.cleanup29
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call1) #6
  %0 = bitcast double %add36 to i64
  ret i64 %0

for.cond.cleanup29:                               ; preds = %for.body30
  %inc41 = add nuw nsw i64 %i19.073, 1
  %exitcond76.not = icmp eq i64 %inc41, 64
  br i1 %exitcond76.not, label %for.cond.cleanup23, label %for.cond26.preheader, !llvm.loop !17

for.body30:                                       ; preds = %for.cond26.preheader, %for.body30
  %j25.071 = phi i64 [ 0, %for.cond26.preheader ], [ %inc38, %for.body30 ]
  %s.170 = phi double [ %s.072, %for.cond26.preheader ], [ %add36, %for.body30 ]
  %arrayidx33 = getelementptr inbounds [64 x double], ptr %call, i64 %i19.073, i64 %j25.071
  %1 = load double, ptr %arrayidx33, align 8, !tbaa !8
  %2 = tail call double @llvm.fmuladd.f64(double %s.170, double 5.000000e-01, double %1)
  %arrayidx35 = getelementptr inbounds [64 x double], ptr %call1, i64 %i19.073, i64 %j25.071
  %3 = load double, ptr %arrayidx35, align 8, !tbaa !8
  %add36 = fadd double %2, %3
  %inc38 = add nuw nsw i64 %j25.071, 1
  %exitcond75.not = icmp eq i64 %inc38, 64
  br i1 %exitcond75.not, label %for.cond.cleanup29, label %for.body30, !llvm.loop !18
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
!15 = distinct !{!15, !6, !7}
!16 = distinct !{!16, !6, !7}
!17 = distinct !{!17, !6, !7}
!18 = distinct !{!18, !6, !7}
