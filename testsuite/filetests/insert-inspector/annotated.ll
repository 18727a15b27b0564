; PASSES: insert-inspector<slab=16>
; CHECK: call i32 @weft_run_irregular(i32 %weft.region, i64 0, i64 {{.*}}, i64 16, ptr @kernel.weft.inspect.0,
; CHECK: define internal void @kernel.weft.inspect.0(
; CHECK-NOT: weft_inspect_maps_only
; CHECK-NOT: report_checked
; CHECK-NOT: weft_inspect_checked
; CHECK-NOT: inspect.0.writes
; REMARK: parallel by its function's `weft.parallel` annotation
; run: @test(2000, 300)
; run: @test(5, 2)
; cores: 1,2,4
source_filename = "annotated.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [14 x i8] c"weft.parallel\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [33 x i8] c"insert-inspector/src/annotated.c\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @kernel, ptr @.str, ptr @.str.1, i32 18, ptr null }], section "llvm.metadata"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %perm, ptr noalias nocapture noundef readonly %w, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef %y) #0 {
entry:
  %cmp8 = icmp sgt i64 %n, 0
  br i1 %cmp8, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.09 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %w, i64 %i.09
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx1 = getelementptr inbounds double, ptr %x, i64 %i.09
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !5
  %arrayidx2 = getelementptr inbounds i32, ptr %perm, i64 %i.09
  %2 = load i32, ptr %arrayidx2, align 4, !tbaa !9
  %idxprom = sext i32 %2 to i64
  %arrayidx3 = getelementptr inbounds double, ptr %y, i64 %idxprom
  %3 = load double, ptr %arrayidx3, align 8, !tbaa !5
  %4 = tail call double @llvm.fmuladd.f64(double %0, double %1, double %3)
  store double %4, ptr %arrayidx3, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.09, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %reps) local_unnamed_addr #2 {
entry:
  %mul = shl i64 %n, 2
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %mul1 = shl i64 %n, 3
  %call2 = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %call4 = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %cmp98 = icmp sgt i64 %n, 0
  br i1 %cmp98, label %for.body, label %for.cond8.preheader

for.cond8.preheader:                              ; preds = %for.body, %entry
  %cmp9100 = icmp sgt i64 %n, 1
  br i1 %cmp9100, label %for.body12, label %for.cond24.preheader

for.body:                                         ; preds = %entry, %for.body
  %i.099 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %conv = trunc i64 %i.099 to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.099
  store i32 %conv, ptr %arrayidx, align 4, !tbaa !9
  %inc = add nuw nsw i64 %i.099, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond8.preheader, label %for.body, !llvm.loop !14

for.cond24.preheader:                             ; preds = %for.body12, %for.cond8.preheader
  %cmp25103 = icmp sgt i64 %n, 0
  br i1 %cmp25103, label %for.body28.preheader, label %for.cond39.preheader

for.body28.preheader:                             ; preds = %for.cond24.preheader
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call6, i8 0, i64 %0, i1 false), !tbaa !5
  br label %for.body28

for.body12:                                       ; preds = %for.cond8.preheader, %for.body12
  %seed.0102 = phi i32 [ %add, %for.body12 ], [ 7, %for.cond8.preheader ]
  %i7.0.in101 = phi i64 [ %i7.0, %for.body12 ], [ %n, %for.cond8.preheader ]
  %i7.0 = add nsw i64 %i7.0.in101, -1
  %mul13 = mul i32 %seed.0102, 1103515245
  %add = add i32 %mul13, 12345
  %shr = lshr i32 %add, 8
  %conv15 = trunc i64 %i7.0.in101 to i32
  %rem = urem i32 %shr, %conv15
  %conv16 = zext nneg i32 %rem to i64
  %arrayidx17 = getelementptr inbounds i32, ptr %call, i64 %i7.0
  %1 = load i32, ptr %arrayidx17, align 4, !tbaa !9
  %arrayidx18 = getelementptr inbounds i32, ptr %call, i64 %conv16
  %2 = load i32, ptr %arrayidx18, align 4, !tbaa !9
  store i32 %2, ptr %arrayidx17, align 4, !tbaa !9
  store i32 %1, ptr %arrayidx18, align 4, !tbaa !9
  %cmp9 = icmp sgt i64 %i7.0.in101, 2
  br i1 %cmp9, label %for.body12, label %for.cond24.preheader, !llvm.loop !15

for.cond39.preheader:                             ; preds = %for.body28, %for.cond24.preheader
  %cmp40105 = icmp sgt i64 %reps, 0
  br i1 %cmp40105, label %for.body43, label %for.cond48.preheader

for.body28:                                       ; preds = %for.body28.preheader, %for.body28
  %i23.0104 = phi i64 [ %inc37, %for.body28 ], [ 0, %for.body28.preheader ]
  %add29 = add nuw nsw i64 %i23.0104, 3
  %conv30 = uitofp nneg i64 %add29 to double
  %div = fdiv double 1.000000e+00, %conv30
  %arrayidx31 = getelementptr inbounds double, ptr %call2, i64 %i23.0104
  store double %div, ptr %arrayidx31, align 8, !tbaa !5
  %conv32 = uitofp nneg i64 %i23.0104 to double
  %3 = tail call double @llvm.fmuladd.f64(double %conv32, double 1.250000e-01, double 1.000000e+00)
  %arrayidx34 = getelementptr inbounds double, ptr %call4, i64 %i23.0104
  store double %3, ptr %arrayidx34, align 8, !tbaa !5
  %inc37 = add nuw nsw i64 %i23.0104, 1
  %exitcond110.not = icmp eq i64 %inc37, %n
  br i1 %exitcond110.not, label %for.cond39.preheader, label %for.body28, !llvm.loop !16

for.cond48.preheader:                             ; preds = %for.body43, %for.cond39.preheader
  %cmp49107 = icmp sgt i64 %n, 0
  br i1 %cmp49107, label %for.body52, label %for.cond.cleanup51

for.body43:                                       ; preds = %for.cond39.preheader, %for.body43
  %r.0106 = phi i64 [ %inc45, %for.body43 ], [ 0, %for.cond39.preheader ]
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call2, ptr noundef %call4, ptr noundef %call6)
  %inc45 = add nuw nsw i64 %r.0106, 1
  %exitcond111.not = icmp eq i64 %inc45, %reps
  br i1 %exitcond111.not, label %for.cond48.preheader, label %for.body43, !llvm.loop !17

for.cond.cleanup51.loopexit:                      ; preds = %for.body52
  %4 = bitcast double %6 to i64
  br label %for.cond.cleanup51

for.cond.cleanup51:                               ; preds = %for.cond.cleanup51.loopexit, %for.cond48.preheader
  %s.0.lcssa = phi i64 [ 0, %for.cond48.preheader ], [ %4, %for.cond.cleanup51.loopexit ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call2) #7
  tail call void @free(ptr noundef %call4) #7
  tail call void @free(ptr noundef %call6) #7
  ret i64 %s.0.lcssa

for.body52:                                       ; preds = %for.cond48.preheader, %for.body52
  %i47.0109 = phi i64 [ %inc56, %for.body52 ], [ 0, %for.cond48.preheader ]
  %s.0108 = phi double [ %6, %for.body52 ], [ 0.000000e+00, %for.cond48.preheader ]
  %arrayidx54 = getelementptr inbounds double, ptr %call6, i64 %i47.0109
  %5 = load double, ptr %arrayidx54, align 8, !tbaa !5
  %6 = tail call double @llvm.fmuladd.f64(double %s.0108, double 9.000000e-01, double %5)
  %inc56 = add nuw nsw i64 %i47.0109, 1
  %exitcond112.not = icmp eq i64 %inc56, %n
  br i1 %exitcond112.not, label %for.cond.cleanup51.loopexit, label %for.body52, !llvm.loop !18
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
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = distinct !{!14, !12, !13}
!15 = distinct !{!15, !12, !13}
!16 = distinct !{!16, !12, !13}
!17 = distinct !{!17, !12, !13}
!18 = distinct !{!18, !12, !13}
