; PASSES: parallel-for
; CHECK: define dso_local void @heat(
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @heat.weft.body.0
; REMARK: @heat L1 (for.cond5.preheader): applied: executor form: body @heat.weft.body.0
; cores: 1,2,3
; run: @test(16, 2)
; run: @test(11, 3)
; run: @test(3, 1)
;
; 3-D stencil over `double (*a)[N][N]` with a symbolic trip count `n`: the
; in-place update of a[i][j][k] (linearised 8*N*N*i + 8*N*j + 8*k) is
; independent across i only when j and k stay within their dimensions, which
; C guarantees; the time loop t carries the dependence and stays sequential.
source_filename = "delin3d.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @heat(i64 noundef %n, i64 noundef %steps, ptr noalias nocapture noundef %a, ptr noalias nocapture noundef readonly %b) local_unnamed_addr #0 {
entry:
  %cmp82 = icmp sgt i64 %steps, 0
  br i1 %cmp82, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %sub = add i64 %n, -1
  %cmp280 = icmp sgt i64 %n, 2
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup3
  %t.083 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %inc46, %for.cond.cleanup3 ]
  br i1 %cmp280, label %for.cond5.preheader, label %for.cond.cleanup3

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond5.preheader:                              ; preds = %for.cond1.preheader, %for.cond.cleanup8
  %i.081 = phi i64 [ %inc43, %for.cond.cleanup8 ], [ 1, %for.cond1.preheader ]
  %0 = getelementptr [16 x [16 x double]], ptr %b, i64 %i.081
  %arrayidx18 = getelementptr i8, ptr %0, i64 -2048
  %arrayidx21 = getelementptr inbounds i8, ptr %0, i64 2048
  br label %for.cond10.preheader

for.cond.cleanup3:                                ; preds = %for.cond.cleanup8, %for.cond1.preheader
  %inc46 = add nuw nsw i64 %t.083, 1
  %exitcond86.not = icmp eq i64 %inc46, %steps
  br i1 %exitcond86.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !5

for.cond10.preheader:                             ; preds = %for.cond5.preheader, %for.cond.cleanup13
  %j.079 = phi i64 [ 1, %for.cond5.preheader ], [ %inc40, %for.cond.cleanup13 ]
  %sub26 = add nsw i64 %j.079, -1
  br label %for.body14

for.cond.cleanup8:                                ; preds = %for.cond.cleanup13
  %inc43 = add nuw nsw i64 %i.081, 1
  %exitcond85.not = icmp eq i64 %inc43, %sub
  br i1 %exitcond85.not, label %for.cond.cleanup3, label %for.cond5.preheader, !llvm.loop !8

for.cond.cleanup13:                               ; preds = %for.body14
  %inc40 = add nuw nsw i64 %j.079, 1
  %exitcond84.not = icmp eq i64 %inc40, %sub
  br i1 %exitcond84.not, label %for.cond.cleanup8, label %for.cond10.preheader, !llvm.loop !9

for.body14:                                       ; preds = %for.cond10.preheader, %for.body14
  %k.077 = phi i64 [ 1, %for.cond10.preheader ], [ %add32, %for.body14 ]
  %arrayidx16 = getelementptr inbounds [16 x [16 x double]], ptr %a, i64 %i.081, i64 %j.079, i64 %k.077
  %1 = load double, ptr %arrayidx16, align 8, !tbaa !10
  %arrayidx20 = getelementptr inbounds [16 x [16 x double]], ptr %arrayidx18, i64 0, i64 %j.079, i64 %k.077
  %2 = load double, ptr %arrayidx20, align 8, !tbaa !10
  %arrayidx23 = getelementptr inbounds [16 x [16 x double]], ptr %arrayidx21, i64 0, i64 %j.079, i64 %k.077
  %3 = load double, ptr %arrayidx23, align 8, !tbaa !10
  %add24 = fadd double %2, %3
  %arrayidx28 = getelementptr inbounds [16 x [16 x double]], ptr %b, i64 %i.081, i64 %sub26, i64 %k.077
  %4 = load double, ptr %arrayidx28, align 8, !tbaa !10
  %add29 = fadd double %add24, %4
  %add32 = add nuw nsw i64 %k.077, 1
  %arrayidx33 = getelementptr inbounds [16 x [16 x double]], ptr %b, i64 %i.081, i64 %j.079, i64 %add32
  %5 = load double, ptr %arrayidx33, align 8, !tbaa !10
  %add34 = fadd double %add29, %5
  %mul35 = fmul double %add34, 1.000000e-01
  %6 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double %mul35)
  store double %6, ptr %arrayidx16, align 8, !tbaa !10
  %exitcond.not = icmp eq i64 %add32, %sub
  br i1 %exitcond.not, label %for.cond.cleanup13, label %for.body14, !llvm.loop !14
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %steps) local_unnamed_addr #2 {
entry:
  %call = tail call noalias dereferenceable_or_null(32768) ptr @malloc(i64 noundef 32768) #5
  %call1 = tail call noalias dereferenceable_or_null(32768) ptr @malloc(i64 noundef 32768) #5
  br label %for.cond2.preheader

for.cond2.preheader:                              ; preds = %entry, %for.cond.cleanup4
  %i.091 = phi i64 [ 0, %entry ], [ %inc29, %for.cond.cleanup4 ]
  %mul = mul nuw nsw i64 %i.091, 7
  %mul15 = mul nuw nsw i64 %i.091, 5
  br label %for.cond6.preheader

for.cond.cleanup:                                 ; preds = %for.cond.cleanup4
  tail call void @heat(i64 noundef %n, i64 noundef %steps, ptr noundef %call, ptr noundef %call1)
  br label %for.cond38.preheader

for.cond6.preheader:                              ; preds = %for.cond2.preheader, %for.cond.cleanup8
  %j.090 = phi i64 [ 0, %for.cond2.preheader ], [ %inc26, %for.cond.cleanup8 ]
  %mul10 = mul nuw nsw i64 %j.090, 3
  %add = add nuw nsw i64 %mul10, %mul
  %add16 = add nuw nsw i64 %j.090, %mul15
  br label %for.body9

for.cond.cleanup4:                                ; preds = %for.cond.cleanup8
  %inc29 = add nuw nsw i64 %i.091, 1
  %exitcond99.not = icmp eq i64 %inc29, 16
  br i1 %exitcond99.not, label %for.cond.cleanup, label %for.cond2.preheader, !llvm.loop !15

for.cond.cleanup8:                                ; preds = %for.body9
  %inc26 = add nuw nsw i64 %j.090, 1
  %exitcond98.not = icmp eq i64 %inc26, 16
  br i1 %exitcond98.not, label %for.cond.cleanup4, label %for.cond6.preheader, !llvm.loop !16

for.body9:                                        ; preds = %for.cond6.preheader, %for.body9
  %k.089 = phi i64 [ 0, %for.cond6.preheader ], [ %inc, %for.body9 ]
  %add11 = add nuw nsw i64 %add, %k.089
  %rem = urem i64 %add11, 11
  %conv = uitofp nneg i64 %rem to double
  %mul12 = fmul double %conv, 5.000000e-01
  %arrayidx14 = getelementptr inbounds [16 x [16 x double]], ptr %call, i64 %i.091, i64 %j.090, i64 %k.089
  store double %mul12, ptr %arrayidx14, align 8, !tbaa !10
  %mul17 = shl nuw nsw i64 %k.089, 1
  %add18 = add nuw nsw i64 %add16, %mul17
  %rem19 = urem i64 %add18, 13
  %conv20 = uitofp nneg i64 %rem19 to double
  %mul21 = fmul double %conv20, 2.500000e-01
  %arrayidx24 = getelementptr inbounds [16 x [16 x double]], ptr %call1, i64 %i.091, i64 %j.090, i64 %k.089
  store double %mul21, ptr %arrayidx24, align 8, !tbaa !10
  %inc = add nuw nsw i64 %k.089, 1
  %exitcond.not = icmp eq i64 %inc, 16
  br i1 %exitcond.not, label %for.cond.cleanup8, label %for.body9, !llvm.loop !17

for.cond38.preheader:                             ; preds = %for.cond.cleanup, %for.cond.cleanup41
  %i31.097 = phi i64 [ 0, %for.cond.cleanup ], [ %inc60, %for.cond.cleanup41 ]
  %s.096 = phi double [ 0.000000e+00, %for.cond.cleanup ], [ %2, %for.cond.cleanup41 ]
  br label %for.cond44.preheader

for.cond.cleanup35:                               ; preds = %for.cond.cleanup41
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call1) #6
  %0 = bitcast double %2 to i64
  ret i64 %0

for.cond44.preheader:                             ; preds = %for.cond38.preheader, %for.cond.cleanup47
  %j37.095 = phi i64 [ 0, %for.cond38.preheader ], [ %inc57, %for.cond.cleanup47 ]
  %s.194 = phi double [ %s.096, %for.cond38.preheader ], [ %2, %for.cond.cleanup47 ]
  br label %for.body48

for.cond.cleanup41:                               ; preds = %for.cond.cleanup47
  %inc60 = add nuw nsw i64 %i31.097, 1
  %exitcond102.not = icmp eq i64 %inc60, 16
  br i1 %exitcond102.not, label %for.cond.cleanup35, label %for.cond38.preheader, !llvm.loop !18

for.cond.cleanup47:                               ; preds = %for.body48
  %inc57 = add nuw nsw i64 %j37.095, 1
  %exitcond101.not = icmp eq i64 %inc57, 16
  br i1 %exitcond101.not, label %for.cond.cleanup41, label %for.cond44.preheader, !llvm.loop !19

for.body48:                                       ; preds = %for.cond44.preheader, %for.body48
  %k43.093 = phi i64 [ 0, %for.cond44.preheader ], [ %inc54, %for.body48 ]
  %s.292 = phi double [ %s.194, %for.cond44.preheader ], [ %2, %for.body48 ]
  %arrayidx52 = getelementptr inbounds [16 x [16 x double]], ptr %call, i64 %i31.097, i64 %j37.095, i64 %k43.093
  %1 = load double, ptr %arrayidx52, align 8, !tbaa !10
  %2 = tail call double @llvm.fmuladd.f64(double %s.292, double 5.000000e-01, double %1)
  %inc54 = add nuw nsw i64 %k43.093, 1
  %exitcond100.not = icmp eq i64 %inc54, 16
  br i1 %exitcond100.not, label %for.cond.cleanup47, label %for.body48, !llvm.loop !20
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
!8 = distinct !{!8, !6, !7}
!9 = distinct !{!9, !6, !7}
!10 = !{!11, !11, i64 0}
!11 = !{!"double", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C/C++ TBAA"}
!14 = distinct !{!14, !6, !7}
!15 = distinct !{!15, !6, !7}
!16 = distinct !{!16, !6, !7}
!17 = distinct !{!17, !6, !7}
!18 = distinct !{!18, !6, !7}
!19 = distinct !{!19, !6, !7}
!20 = distinct !{!20, !6, !7}
