; PASSES: parallel-for
; CHECK: define dso_local void @lu_rows(
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @lu_rows.weft.body.0
; CHECK: define dso_local void @sym(
; CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @sym.weft.body.0
; CHECK: define dso_local void @shift(
; CHECK-NOT: @shift.weft.body
; CHECK: define {{.*}} @test(
; REMARK: @lu_rows L0 (for.cond1.preheader): missed: not parallel
; REMARK: @lu_rows L1
; REMARK: applied: executor form: body @lu_rows.weft.body.0
; REMARK: @sym L0 (for.cond1.preheader): applied: executor form: body @sym.weft.body.0
; REMARK: @shift L0
; cores: 1,2,3
; run: @test(60, 40)
; run: @test(17, 9)
; run: @test(2, 1)
; run: @test(1, 1)
;
; Triangular bounds (issue 35, loops Polly proves parallel). @lu_rows is LU's
; row update: for a fixed i, the j loop writes columns j >= i of row i and
; reads columns k < i, so it carries nothing; the rectangular hull lets j and
; k both run over [0, n) and refused it. @sym is covariance's symmetric store
; cov[i][j] = cov[j][i] = s for j >= i over a plain row length m: the i loop
; is parallel once the offsets i*m + j are split into rows and columns, which
; is proven unique because every column subscript stays in [0, m). @shift
; writes a[i][j] for j >= i from a[i-1][j] (written by the previous i
; iteration) and a[i][j-1] (the previous j iteration): both loops stay
; sequential.
source_filename = "triangular.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@A = internal unnamed_addr global [64 x [64 x double]] zeroinitializer, align 16
@test.b = internal global [64 x [64 x double]] zeroinitializer, align 16

; Function Attrs: nofree noinline norecurse nosync nounwind memory(readwrite, argmem: none, inaccessiblemem: none) uwtable
define dso_local void @lu_rows(i64 noundef %n) local_unnamed_addr #0 {
entry:
  %cmp39 = icmp sgt i64 %n, 0
  br i1 %cmp39, label %for.cond1.preheader, label %for.cond.cleanup

for.cond1.preheader:                              ; preds = %entry, %for.cond.cleanup3
  %i.040 = phi i64 [ %inc20, %for.cond.cleanup3 ], [ 0, %entry ]
  %cmp636.not = icmp eq i64 %i.040, 0
  br label %for.cond5.preheader

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond5.preheader:                              ; preds = %for.cond1.preheader, %for.cond.cleanup7
  %j.038 = phi i64 [ %i.040, %for.cond1.preheader ], [ %inc17, %for.cond.cleanup7 ]
  br i1 %cmp636.not, label %for.cond.cleanup7, label %for.body8.lr.ph

for.body8.lr.ph:                                  ; preds = %for.cond5.preheader
  %arrayidx9 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %i.040, i64 %j.038
  %arrayidx9.promoted = load double, ptr %arrayidx9, align 8, !tbaa !5
  br label %for.body8

for.cond.cleanup3:                                ; preds = %for.cond.cleanup7
  %inc20 = add nuw nsw i64 %i.040, 1
  %exitcond41.not = icmp eq i64 %inc20, %n
  br i1 %exitcond41.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !9

for.cond.cleanup7:                                ; preds = %for.body8, %for.cond5.preheader
  %inc17 = add nuw nsw i64 %j.038, 1
  %cmp2 = icmp slt i64 %inc17, %n
  br i1 %cmp2, label %for.cond5.preheader, label %for.cond.cleanup3, !llvm.loop !12

for.body8:                                        ; preds = %for.body8.lr.ph, %for.body8
  %0 = phi double [ %arrayidx9.promoted, %for.body8.lr.ph ], [ %3, %for.body8 ]
  %k.037 = phi i64 [ 0, %for.body8.lr.ph ], [ %inc, %for.body8 ]
  %arrayidx11 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %i.040, i64 %k.037
  %1 = load double, ptr %arrayidx11, align 8, !tbaa !5
  %arrayidx13 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %k.037, i64 %j.038
  %2 = load double, ptr %arrayidx13, align 8, !tbaa !5
  %neg = fneg double %1
  %3 = tail call double @llvm.fmuladd.f64(double %neg, double %2, double %0)
  store double %3, ptr %arrayidx9, align 8, !tbaa !5
  %inc = add nuw nsw i64 %k.037, 1
  %exitcond.not = icmp eq i64 %inc, %i.040
  br i1 %exitcond.not, label %for.cond.cleanup7, label %for.body8, !llvm.loop !13
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @sym(i64 noundef %m, i64 noundef %n, ptr noalias nocapture noundef readonly %data, ptr noalias nocapture noundef writeonly %cov) local_unnamed_addr #2 {
entry:
  %cmp50 = icmp sgt i64 %m, 0
  br i1 %cmp50, label %for.cond1.preheader.lr.ph, label %for.cond.cleanup

for.cond1.preheader.lr.ph:                        ; preds = %entry
  %cmp646 = icmp sgt i64 %n, 0
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.lr.ph, %for.cond.cleanup3
  %i.051 = phi i64 [ 0, %for.cond1.preheader.lr.ph ], [ %inc23, %for.cond.cleanup3 ]
  %invariant.gep = getelementptr double, ptr %cov, i64 %i.051
  %mul13 = mul nuw nsw i64 %i.051, %m
  %0 = getelementptr double, ptr %cov, i64 %mul13
  br label %for.cond5.preheader

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond5.preheader:                              ; preds = %for.cond1.preheader, %for.cond.cleanup7
  %j.049 = phi i64 [ %i.051, %for.cond1.preheader ], [ %inc20, %for.cond.cleanup7 ]
  br i1 %cmp646, label %for.body8, label %for.cond.cleanup7

for.cond.cleanup3:                                ; preds = %for.cond.cleanup7
  %inc23 = add nuw nsw i64 %i.051, 1
  %exitcond52.not = icmp eq i64 %inc23, %m
  br i1 %exitcond52.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !14

for.cond.cleanup7:                                ; preds = %for.body8, %for.cond5.preheader
  %s.0.lcssa = phi double [ 0.000000e+00, %for.cond5.preheader ], [ %4, %for.body8 ]
  %arrayidx15 = getelementptr double, ptr %0, i64 %j.049
  store double %s.0.lcssa, ptr %arrayidx15, align 8, !tbaa !5
  %mul16 = mul nuw nsw i64 %j.049, %m
  %gep = getelementptr double, ptr %invariant.gep, i64 %mul16
  store double %s.0.lcssa, ptr %gep, align 8, !tbaa !5
  %inc20 = add nuw nsw i64 %j.049, 1
  %cmp2 = icmp slt i64 %inc20, %m
  br i1 %cmp2, label %for.cond5.preheader, label %for.cond.cleanup3, !llvm.loop !15

for.body8:                                        ; preds = %for.cond5.preheader, %for.body8
  %k.048 = phi i64 [ %inc, %for.body8 ], [ 0, %for.cond5.preheader ]
  %s.047 = phi double [ %4, %for.body8 ], [ 0.000000e+00, %for.cond5.preheader ]
  %mul = mul nuw nsw i64 %k.048, %m
  %1 = getelementptr double, ptr %data, i64 %mul
  %arrayidx = getelementptr double, ptr %1, i64 %i.051
  %2 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx11 = getelementptr double, ptr %1, i64 %j.049
  %3 = load double, ptr %arrayidx11, align 8, !tbaa !5
  %4 = tail call double @llvm.fmuladd.f64(double %2, double %3, double %s.047)
  %inc = add nuw nsw i64 %k.048, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup7, label %for.body8, !llvm.loop !16
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @shift(i64 noundef %n, ptr nocapture noundef %a) local_unnamed_addr #2 {
entry:
  %invariant.gep = getelementptr i8, ptr %a, i64 -512
  %cmp27 = icmp sgt i64 %n, 1
  br i1 %cmp27, label %for.cond1.preheader.preheader, label %for.cond.cleanup

for.cond1.preheader.preheader:                    ; preds = %entry
  %invariant.gep29 = getelementptr i8, ptr %a, i64 512
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %for.cond1.preheader.preheader, %for.cond.cleanup3
  %indvar = phi i64 [ %indvar.next, %for.cond.cleanup3 ], [ 0, %for.cond1.preheader.preheader ]
  %i.028 = phi i64 [ %inc12, %for.cond.cleanup3 ], [ 1, %for.cond1.preheader.preheader ]
  %0 = mul i64 %indvar, 520
  %gep = getelementptr i8, ptr %invariant.gep29, i64 %0
  %load_initial = load double, ptr %gep, align 8
  br label %for.body4

for.cond.cleanup:                                 ; preds = %for.cond.cleanup3, %entry
  ret void

for.cond.cleanup3:                                ; preds = %for.body4
  %inc12 = add nuw nsw i64 %i.028, 1
  %exitcond.not = icmp eq i64 %inc12, %n
  %indvar.next = add i64 %indvar, 1
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.cond1.preheader, !llvm.loop !17

for.body4:                                        ; preds = %for.cond1.preheader, %for.body4
  %store_forwarded = phi double [ %load_initial, %for.cond1.preheader ], [ %2, %for.body4 ]
  %j.026 = phi i64 [ %i.028, %for.cond1.preheader ], [ %inc, %for.body4 ]
  %arrayidx5 = getelementptr nusw [64 x double], ptr %invariant.gep, i64 %i.028, i64 %j.026
  %1 = load double, ptr %arrayidx5, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double %store_forwarded)
  %arrayidx10 = getelementptr inbounds [64 x double], ptr %a, i64 %i.028, i64 %j.026
  store double %2, ptr %arrayidx10, align 8, !tbaa !5
  %inc = add nuw nsw i64 %j.026, 1
  %cmp2 = icmp slt i64 %inc, %n
  br i1 %cmp2, label %for.body4, label %for.cond.cleanup3, !llvm.loop !18
}

; Function Attrs: nounwind uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %m) local_unnamed_addr #3 {
entry:
  %mul = mul nsw i64 %m, %n
  %add = shl i64 %mul, 3
  %mul1 = add i64 %add, 8
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #8
  %mul2 = mul nsw i64 %m, %m
  %add3 = shl i64 %mul2, 3
  %mul4 = add nuw nsw i64 %add3, 8
  %call5 = tail call noalias ptr @malloc(i64 noundef %mul4) #8
  br label %for.cond6.preheader

for.cond6.preheader:                              ; preds = %entry, %for.cond.cleanup8
  %i.0131 = phi i64 [ 0, %entry ], [ %inc24, %for.cond.cleanup8 ]
  %mul10 = mul nuw nsw i64 %i.0131, 7
  br label %for.body9

for.cond26.preheader:                             ; preds = %for.cond.cleanup8
  %cmp28132 = icmp sgt i64 %mul, 0
  br i1 %cmp28132, label %for.body31, label %for.cond40.preheader

for.cond.cleanup8:                                ; preds = %for.body9
  %inc24 = add nuw nsw i64 %i.0131, 1
  %exitcond143.not = icmp eq i64 %inc24, 64
  br i1 %exitcond143.not, label %for.cond26.preheader, label %for.cond6.preheader, !llvm.loop !19

for.body9:                                        ; preds = %for.cond6.preheader, %for.body9
  %j.0130 = phi i64 [ 0, %for.cond6.preheader ], [ %inc, %for.body9 ]
  %mul11 = mul nuw nsw i64 %j.0130, 3
  %add12 = add nuw nsw i64 %mul11, %mul10
  %rem = urem i64 %add12, 11
  %conv = uitofp nneg i64 %rem to double
  %cmp14 = icmp eq i64 %i.0131, %j.0130
  %cond = select i1 %cmp14, double 6.400000e+01, double 0.000000e+00
  %0 = tail call double @llvm.fmuladd.f64(double %conv, double 1.250000e-01, double %cond)
  %arrayidx16 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %i.0131, i64 %j.0130
  store double %0, ptr %arrayidx16, align 8, !tbaa !5
  %mul17 = shl nuw nsw i64 %j.0130, 1
  %add18 = add nuw nsw i64 %mul17, %i.0131
  %rem19 = urem i64 %add18, 5
  %conv20 = uitofp nneg i64 %rem19 to double
  %arrayidx22 = getelementptr inbounds [64 x [64 x double]], ptr @test.b, i64 0, i64 %i.0131, i64 %j.0130
  store double %conv20, ptr %arrayidx22, align 8, !tbaa !5
  %inc = add nuw nsw i64 %j.0130, 1
  %exitcond.not = icmp eq i64 %inc, 64
  br i1 %exitcond.not, label %for.cond.cleanup8, label %for.body9, !llvm.loop !20

for.cond40.preheader:                             ; preds = %for.body31, %for.cond26.preheader
  %cmp42134.not = icmp eq i64 %m, 0
  br i1 %cmp42134.not, label %for.cond.cleanup44, label %for.body45.preheader

for.body45.preheader:                             ; preds = %for.cond40.preheader
  %umax = tail call i64 @llvm.umax.i64(i64 %mul2, i64 1)
  %1 = shl nuw i64 %umax, 3
  tail call void @llvm.memset.p0.i64(ptr noundef nonnull align 8 dereferenceable(1) %call5, i8 0, i64 %1, i1 false), !tbaa !5
  br label %for.cond.cleanup44

for.body31:                                       ; preds = %for.cond26.preheader, %for.body31
  %k.0133 = phi i64 [ %inc37, %for.body31 ], [ 0, %for.cond26.preheader ]
  %rem32 = urem i64 %k.0133, 17
  %conv33 = uitofp nneg i64 %rem32 to double
  %2 = tail call double @llvm.fmuladd.f64(double %conv33, double 2.500000e-01, double -1.000000e+00)
  %arrayidx35 = getelementptr inbounds double, ptr %call, i64 %k.0133
  store double %2, ptr %arrayidx35, align 8, !tbaa !5
  %inc37 = add nuw nsw i64 %k.0133, 1
  %exitcond144.not = icmp eq i64 %inc37, %mul
  br i1 %exitcond144.not, label %for.cond40.preheader, label %for.body31, !llvm.loop !21

for.cond.cleanup44:                               ; preds = %for.body45.preheader, %for.cond40.preheader
  tail call void @lu_rows(i64 noundef %n)
  tail call void @sym(i64 noundef %m, i64 noundef %n, ptr noundef %call, ptr noundef %call5)
  tail call void @shift(i64 noundef %n, ptr noundef nonnull @test.b)
  br label %for.cond57.preheader

for.cond57.preheader:                             ; preds = %for.cond.cleanup44, %for.cond.cleanup60
  %i50.0139 = phi i64 [ 0, %for.cond.cleanup44 ], [ %inc72, %for.cond.cleanup60 ]
  %s.0138 = phi double [ 0.000000e+00, %for.cond.cleanup44 ], [ %add67, %for.cond.cleanup60 ]
  br label %for.body61

for.cond75.preheader:                             ; preds = %for.cond.cleanup60
  %cmp77140.not = icmp eq i64 %m, 0
  br i1 %cmp77140.not, label %for.cond.cleanup79, label %for.body80.preheader

for.body80.preheader:                             ; preds = %for.cond75.preheader
  %umax147 = tail call i64 @llvm.umax.i64(i64 %mul2, i64 1)
  br label %for.body80

for.cond.cleanup60:                               ; preds = %for.body61
  %inc72 = add nuw nsw i64 %i50.0139, 1
  %exitcond146.not = icmp eq i64 %inc72, 64
  br i1 %exitcond146.not, label %for.cond75.preheader, label %for.cond57.preheader, !llvm.loop !22

for.body61:                                       ; preds = %for.cond57.preheader, %for.body61
  %j56.0137 = phi i64 [ 0, %for.cond57.preheader ], [ %inc69, %for.body61 ]
  %s.1136 = phi double [ %s.0138, %for.cond57.preheader ], [ %add67, %for.body61 ]
  %arrayidx64 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %i50.0139, i64 %j56.0137
  %3 = load double, ptr %arrayidx64, align 8, !tbaa !5
  %4 = tail call double @llvm.fmuladd.f64(double %s.1136, double 5.000000e-01, double %3)
  %arrayidx66 = getelementptr inbounds [64 x [64 x double]], ptr @test.b, i64 0, i64 %i50.0139, i64 %j56.0137
  %5 = load double, ptr %arrayidx66, align 8, !tbaa !5
  %add67 = fadd double %4, %5
  %inc69 = add nuw nsw i64 %j56.0137, 1
  %exitcond145.not = icmp eq i64 %inc69, 64
  br i1 %exitcond145.not, label %for.cond.cleanup60, label %for.body61, !llvm.loop !23

for.cond.cleanup79:                               ; preds = %for.body80, %for.cond75.preheader
  %s.2.lcssa = phi double [ %add67, %for.cond75.preheader ], [ %8, %for.body80 ]
  tail call void @free(ptr noundef %call) #9
  tail call void @free(ptr noundef %call5) #9
  %6 = bitcast double %s.2.lcssa to i64
  ret i64 %6

for.body80:                                       ; preds = %for.body80.preheader, %for.body80
  %k74.0142 = phi i64 [ %inc84, %for.body80 ], [ 0, %for.body80.preheader ]
  %s.2141 = phi double [ %8, %for.body80 ], [ %add67, %for.body80.preheader ]
  %arrayidx82 = getelementptr inbounds double, ptr %call5, i64 %k74.0142
  %7 = load double, ptr %arrayidx82, align 8, !tbaa !5
  %8 = tail call double @llvm.fmuladd.f64(double %s.2141, double 5.000000e-01, double %7)
  %inc84 = add nuw nsw i64 %k74.0142, 1
  %exitcond148.not = icmp eq i64 %inc84, %umax147
  br i1 %exitcond148.not, label %for.cond.cleanup79, label %for.body80, !llvm.loop !24
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #4

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umax.i64(i64, i64) #6

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #7

attributes #0 = { nofree noinline norecurse nosync nounwind memory(readwrite, argmem: none, inaccessiblemem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #7 = { nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #8 = { nounwind allocsize(0) }
attributes #9 = { nounwind }

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
!22 = distinct !{!22, !10, !11}
!23 = distinct !{!23, !10, !11}
!24 = distinct !{!24, !10, !11}
