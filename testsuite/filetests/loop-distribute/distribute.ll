; PASSES: loop-distribute,parallel-for
; CHECK: define dso_local void @atax(
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @atax.weft.body.0
; CHECK: define dso_local void @fwd(
; CHECK: @fwd.weft.body
; CHECK: define dso_local void @bad(
; CHECK-NOT: .dist:
; CHECK: define {{.*}} @test(
; REMARK: @atax L0 (for.body4): applied: distributed at for.cond20.preheader into two loops: the first parallel, the second sequential (1 value(s) rebuilt in the second)
; REMARK: @fwd L0 (for.cond1.preheader): applied: distributed at for.cond13.preheader into two loops: the first sequential, the second parallel
; REMARK: @bad L0 (for.cond1.preheader): missed: not parallel
; REMARK: @bad L0 (for.cond1.preheader): missed: not distributed: at for.cond10.preheader: dependence between the parts
; run: @test(9, 7)
; run: @test(1, 5)
; run: @test(40, 33)
; cores: 1,3
source_filename = "distribute.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @atax(i64 noundef %m, i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef %y, ptr noalias nocapture noundef %tmp) local_unnamed_addr #0 {
entry:
  %cmp63 = icmp sgt i64 %n, 0
  br i1 %cmp63, label %for.body.preheader, label %for.cond1.preheader

for.body.preheader:                               ; preds = %entry
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %y, i8 0, i64 %0, i1 false), !tbaa !5
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.body.preheader, %entry
  %cmp269 = icmp sgt i64 %m, 0
  br i1 %cmp269, label %for.body4.lr.ph, label %for.cond.cleanup3

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %cmp865 = icmp sgt i64 %n, 0
  %cmp2167 = icmp sgt i64 %n, 0
  br label %for.body4

for.cond.cleanup3:                                ; preds = %for.cond.cleanup22, %for.cond1.preheader
  ret void

for.body4:                                        ; preds = %for.body4.lr.ph, %for.cond.cleanup22
  %i.070 = phi i64 [ 0, %for.body4.lr.ph ], [ %inc35, %for.cond.cleanup22 ]
  %arrayidx5 = getelementptr inbounds double, ptr %tmp, i64 %i.070
  store double 0.000000e+00, ptr %arrayidx5, align 8, !tbaa !5
  br i1 %cmp865, label %for.body10.lr.ph, label %for.cond20.preheader

for.body10.lr.ph:                                 ; preds = %for.body4
  %mul = mul nuw nsw i64 %i.070, %n
  %1 = getelementptr double, ptr %a, i64 %mul
  %arrayidx5.promoted = load double, ptr %arrayidx5, align 8, !tbaa !5
  br label %for.body10

for.cond7.for.cond20.preheader_crit_edge:         ; preds = %for.body10
  store double %7, ptr %arrayidx5, align 8, !tbaa !5
  br label %for.cond20.preheader

for.cond20.preheader:                             ; preds = %for.cond7.for.cond20.preheader_crit_edge, %for.body4
  br i1 %cmp2167, label %for.body23.lr.ph, label %for.cond.cleanup22

for.body23.lr.ph:                                 ; preds = %for.cond20.preheader
  %mul25 = mul nuw nsw i64 %i.070, %n
  %2 = getelementptr double, ptr %a, i64 %mul25
  %3 = load double, ptr %arrayidx5, align 8, !tbaa !5
  br label %for.body23

for.body10:                                       ; preds = %for.body10.lr.ph, %for.body10
  %4 = phi double [ %arrayidx5.promoted, %for.body10.lr.ph ], [ %7, %for.body10 ]
  %j6.066 = phi i64 [ 0, %for.body10.lr.ph ], [ %inc17, %for.body10 ]
  %arrayidx12 = getelementptr double, ptr %1, i64 %j6.066
  %5 = load double, ptr %arrayidx12, align 8, !tbaa !5
  %arrayidx13 = getelementptr inbounds double, ptr %x, i64 %j6.066
  %6 = load double, ptr %arrayidx13, align 8, !tbaa !5
  %7 = tail call double @llvm.fmuladd.f64(double %5, double %6, double %4)
  %inc17 = add nuw nsw i64 %j6.066, 1
  %exitcond.not = icmp eq i64 %inc17, %n
  br i1 %exitcond.not, label %for.cond7.for.cond20.preheader_crit_edge, label %for.body10, !llvm.loop !9

for.cond.cleanup22:                               ; preds = %for.body23, %for.cond20.preheader
  %inc35 = add nuw nsw i64 %i.070, 1
  %exitcond72.not = icmp eq i64 %inc35, %m
  br i1 %exitcond72.not, label %for.cond.cleanup3, label %for.body4, !llvm.loop !12

for.body23:                                       ; preds = %for.body23.lr.ph, %for.body23
  %j19.068 = phi i64 [ 0, %for.body23.lr.ph ], [ %inc32, %for.body23 ]
  %arrayidx24 = getelementptr inbounds double, ptr %y, i64 %j19.068
  %8 = load double, ptr %arrayidx24, align 8, !tbaa !5
  %arrayidx27 = getelementptr double, ptr %2, i64 %j19.068
  %9 = load double, ptr %arrayidx27, align 8, !tbaa !5
  %10 = tail call double @llvm.fmuladd.f64(double %9, double %3, double %8)
  store double %10, ptr %arrayidx24, align 8, !tbaa !5
  %inc32 = add nuw nsw i64 %j19.068, 1
  %exitcond71.not = icmp eq i64 %inc32, %n
  br i1 %exitcond71.not, label %for.cond.cleanup22, label %for.body23, !llvm.loop !13
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @fwd(i64 noundef %n, i64 noundef %m, ptr noalias nocapture noundef %s, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %c) local_unnamed_addr #0 {
entry:
  %cmp62 = icmp sgt i64 %n, 1
  br i1 %cmp62, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp258 = icmp sgt i64 %m, 0
  %cmp1460 = icmp sgt i64 %m, 0
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup15
  %i.063 = phi i64 [ 1, %for.cond1.preheader.lr.ph ], [ %inc31, %for.cond.cleanup15 ]
  br i1 %cmp258, label %for.body4.lr.ph, label %for.cond13.preheader

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %sub = add nsw i64 %i.063, -1
  %mul = mul nsw i64 %sub, %m
  %0 = getelementptr double, ptr %s, i64 %mul
  %mul6 = mul nuw nsw i64 %i.063, %m
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup15, %entry
  ret void

for.cond13.preheader:                             ; preds = %for.body4, %for.cond1.preheader
  br i1 %cmp1460, label %for.body16.lr.ph, label %for.cond.cleanup15

for.body16.lr.ph:                                 ; preds = %for.cond13.preheader
  %mul17 = mul nuw nsw i64 %i.063, %m
  br label %for.body16

for.body4:                                        ; preds = %for.body4.lr.ph, %for.body4
  %j.059 = phi i64 [ 0, %for.body4.lr.ph ], [ %inc, %for.body4 ]
  %arrayidx = getelementptr double, ptr %0, i64 %j.059
  %1 = load double, ptr %arrayidx, align 8, !tbaa !5
  %add7 = add nuw nsw i64 %j.059, %mul6
  %arrayidx8 = getelementptr inbounds double, ptr %a, i64 %add7
  %2 = load double, ptr %arrayidx8, align 8, !tbaa !5
  %3 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double %2)
  %arrayidx11 = getelementptr inbounds double, ptr %s, i64 %add7
  store double %3, ptr %arrayidx11, align 8, !tbaa !5
  %inc = add nuw nsw i64 %j.059, 1
  %exitcond.not = icmp eq i64 %inc, %m
  br i1 %exitcond.not, label %for.cond13.preheader, label %for.body4, !llvm.loop !14

for.cond.cleanup15:                               ; preds = %for.body16, %for.cond13.preheader
  %inc31 = add nuw nsw i64 %i.063, 1
  %exitcond65.not = icmp eq i64 %inc31, %n
  br i1 %exitcond65.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !15

for.body16:                                       ; preds = %for.body16.lr.ph, %for.body16
  %j12.061 = phi i64 [ 0, %for.body16.lr.ph ], [ %inc28, %for.body16 ]
  %add18 = add nuw nsw i64 %j12.061, %mul17
  %arrayidx19 = getelementptr inbounds double, ptr %s, i64 %add18
  %4 = load double, ptr %arrayidx19, align 8, !tbaa !5
  %arrayidx23 = getelementptr inbounds double, ptr %a, i64 %add18
  %5 = load double, ptr %arrayidx23, align 8, !tbaa !5
  %neg = fneg double %5
  %6 = tail call double @llvm.fmuladd.f64(double %4, double 2.000000e+00, double %neg)
  %arrayidx26 = getelementptr inbounds double, ptr %c, i64 %add18
  store double %6, ptr %arrayidx26, align 8, !tbaa !5
  %inc28 = add nuw nsw i64 %j12.061, 1
  %exitcond64.not = icmp eq i64 %inc28, %m
  br i1 %exitcond64.not, label %for.cond.cleanup15, label %for.body16, !llvm.loop !16
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @bad(i64 noundef %n, i64 noundef %m, ptr noalias nocapture noundef %a, ptr noalias nocapture noundef %b) local_unnamed_addr #0 {
entry:
  %cmp57 = icmp sgt i64 %n, 1
  br i1 %cmp57, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp253 = icmp sgt i64 %m, 0
  %cmp1155 = icmp sgt i64 %m, 0
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup12
  %i.058 = phi i64 [ 1, %for.cond1.preheader.lr.ph ], [ %inc29, %for.cond.cleanup12 ]
  br i1 %cmp253, label %for.body4.lr.ph, label %for.cond10.preheader

for.body4.lr.ph:                                  ; preds = %for.cond1.preheader
  %sub = add nsw i64 %i.058, -1
  %mul = mul nsw i64 %sub, %m
  %0 = getelementptr double, ptr %b, i64 %mul
  %mul6 = mul nuw nsw i64 %i.058, %m
  %1 = getelementptr double, ptr %a, i64 %mul6
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup12, %entry
  ret void

for.cond10.preheader:                             ; preds = %for.body4, %for.cond1.preheader
  br i1 %cmp1155, label %for.body13.lr.ph, label %for.cond.cleanup12

for.body13.lr.ph:                                 ; preds = %for.cond10.preheader
  %sub14 = add nsw i64 %i.058, -1
  %mul15 = mul nsw i64 %sub14, %m
  %2 = getelementptr double, ptr %b, i64 %mul15
  %mul19 = mul nuw nsw i64 %i.058, %m
  br label %for.body13

for.body4:                                        ; preds = %for.body4.lr.ph, %for.body4
  %j.054 = phi i64 [ 0, %for.body4.lr.ph ], [ %inc, %for.body4 ]
  %arrayidx = getelementptr double, ptr %0, i64 %j.054
  %3 = load double, ptr %arrayidx, align 8, !tbaa !5
  %add5 = fadd double %3, 1.000000e+00
  %arrayidx8 = getelementptr double, ptr %1, i64 %j.054
  store double %add5, ptr %arrayidx8, align 8, !tbaa !5
  %inc = add nuw nsw i64 %j.054, 1
  %exitcond.not = icmp eq i64 %inc, %m
  br i1 %exitcond.not, label %for.cond10.preheader, label %for.body4, !llvm.loop !17

for.cond.cleanup12:                               ; preds = %for.body13, %for.cond10.preheader
  %inc29 = add nuw nsw i64 %i.058, 1
  %exitcond60.not = icmp eq i64 %inc29, %n
  br i1 %exitcond60.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !18

for.body13:                                       ; preds = %for.body13.lr.ph, %for.body13
  %j9.056 = phi i64 [ 0, %for.body13.lr.ph ], [ %inc26, %for.body13 ]
  %arrayidx17 = getelementptr double, ptr %2, i64 %j9.056
  %4 = load double, ptr %arrayidx17, align 8, !tbaa !5
  %add20 = add nuw nsw i64 %j9.056, %mul19
  %arrayidx21 = getelementptr inbounds double, ptr %a, i64 %add20
  %5 = load double, ptr %arrayidx21, align 8, !tbaa !5
  %6 = tail call double @llvm.fmuladd.f64(double %4, double 5.000000e-01, double %5)
  %arrayidx24 = getelementptr inbounds double, ptr %b, i64 %add20
  store double %6, ptr %arrayidx24, align 8, !tbaa !5
  %inc26 = add nuw nsw i64 %j9.056, 1
  %exitcond59.not = icmp eq i64 %inc26, %m
  br i1 %exitcond59.not, label %for.cond.cleanup12, label %for.body13, !llvm.loop !19
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local double @test(i64 noundef %m, i64 noundef %n) local_unnamed_addr #2 {
entry:
  %add = add nsw i64 %m, 1
  %add1 = add nsw i64 %n, 1
  %mul = mul nsw i64 %add1, %add
  %mul2 = shl i64 %mul, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %call8 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %call10 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %call12 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %cmp94 = icmp sgt i64 %mul, 0
  br i1 %cmp94, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %0 = mul i64 %add1, %add
  %1 = shl i64 %0, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call12, i8 0, i64 %1, i1 false), !tbaa !5
  tail call void @llvm.memset.p0.i64(ptr align 8 %call8, i8 0, i64 %1, i1 false), !tbaa !5
  tail call void @llvm.memset.p0.i64(ptr align 8 %call6, i8 0, i64 %1, i1 false), !tbaa !5
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @atax(i64 noundef %m, i64 noundef %n, ptr noundef %call, ptr noundef %call4, ptr noundef %call6, ptr noundef %call8)
  tail call void @fwd(i64 noundef %m, i64 noundef %n, ptr noundef %call10, ptr noundef %call, ptr noundef %call12)
  tail call void @bad(i64 noundef %m, i64 noundef %n, ptr noundef %call4, ptr noundef %call10)
  %cmp2796 = icmp sgt i64 %mul, 0
  br i1 %cmp2796, label %for.body30, label %for.cond.cleanup29

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.095 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %mul13 = mul nuw nsw i64 %i.095, 37
  %rem = urem i64 %mul13, 101
  %2 = add nsw i64 %rem, -50
  %sub = sitofp i64 %2 to double
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.095
  store double %sub, ptr %arrayidx, align 8, !tbaa !5
  %mul14 = mul nuw nsw i64 %i.095, 13
  %rem15 = urem i64 %mul14, 7
  %3 = add nsw i64 %rem15, -3
  %sub17 = sitofp i64 %3 to double
  %arrayidx18 = getelementptr inbounds double, ptr %call4, i64 %i.095
  store double %sub17, ptr %arrayidx18, align 8, !tbaa !5
  %rem19 = urem i64 %i.095, 5
  %conv20 = uitofp nneg i64 %rem19 to double
  %arrayidx21 = getelementptr inbounds double, ptr %call10, i64 %i.095
  store double %conv20, ptr %arrayidx21, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.095, 1
  %exitcond.not = icmp eq i64 %inc, %mul
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !20

for.cond.cleanup29:                               ; preds = %for.body30, %for.cond.cleanup
  %r.0.lcssa = phi double [ 0.000000e+00, %for.cond.cleanup ], [ %add40, %for.body30 ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call4) #7
  tail call void @free(ptr noundef %call6) #7
  tail call void @free(ptr noundef %call8) #7
  tail call void @free(ptr noundef %call10) #7
  tail call void @free(ptr noundef %call12) #7
  ret double %r.0.lcssa

for.body30:                                       ; preds = %for.cond.cleanup, %for.body30
  %i25.098 = phi i64 [ %inc42, %for.body30 ], [ 0, %for.cond.cleanup ]
  %r.097 = phi double [ %add40, %for.body30 ], [ 0.000000e+00, %for.cond.cleanup ]
  %arrayidx32 = getelementptr inbounds double, ptr %call6, i64 %i25.098
  %4 = load double, ptr %arrayidx32, align 8, !tbaa !5
  %5 = tail call double @llvm.fmuladd.f64(double %r.097, double 5.000000e-01, double %4)
  %arrayidx33 = getelementptr inbounds double, ptr %call8, i64 %i25.098
  %6 = load double, ptr %arrayidx33, align 8, !tbaa !5
  %add34 = fadd double %5, %6
  %arrayidx35 = getelementptr inbounds double, ptr %call10, i64 %i25.098
  %7 = load double, ptr %arrayidx35, align 8, !tbaa !5
  %add36 = fadd double %add34, %7
  %arrayidx37 = getelementptr inbounds double, ptr %call12, i64 %i25.098
  %8 = load double, ptr %arrayidx37, align 8, !tbaa !5
  %add38 = fadd double %add36, %8
  %arrayidx39 = getelementptr inbounds double, ptr %call4, i64 %i25.098
  %9 = load double, ptr %arrayidx39, align 8, !tbaa !5
  %add40 = fadd double %add38, %9
  %inc42 = add nuw nsw i64 %i25.098, 1
  %exitcond99.not = icmp eq i64 %inc42, %mul
  br i1 %exitcond99.not, label %for.cond.cleanup29, label %for.body30, !llvm.loop !21
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
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !10, !11}
!13 = distinct !{!13, !10, !11}
!14 = distinct !{!14, !10, !11}
!15 = distinct !{!15, !10, !11}
!16 = distinct !{!16, !10, !11}
!17 = distinct !{!17, !10, !11}
!18 = distinct !{!18, !10, !11}
!19 = distinct !{!19, !10, !11}
!20 = distinct !{!20, !10, !11}
!21 = distinct !{!21, !10, !11}
