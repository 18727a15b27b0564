; PASSES: insert-inspector
; CHECK-NOT: weft_run_irregular
; REMARK: missed
; run: @test(200)
source_filename = "hazard.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @kernel(i64 noundef %n, ptr nocapture noundef readonly %idx, ptr nocapture noundef writeonly %out, ptr nocapture noundef readonly %x, ptr nocapture noundef %y) local_unnamed_addr #0 {
entry:
  %cmp12 = icmp sgt i64 %n, 0
  br i1 %cmp12, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.013 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %x, i64 %i.013
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %arrayidx1 = getelementptr inbounds i32, ptr %idx, i64 %i.013
  %1 = load i32, ptr %arrayidx1, align 4, !tbaa !9
  %idxprom = sext i32 %1 to i64
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %idxprom
  %2 = load double, ptr %arrayidx2, align 8, !tbaa !5
  %add = fadd double %0, %2
  store double %add, ptr %arrayidx2, align 8, !tbaa !5
  %add4 = add nsw i32 %1, 1
  %arrayidx5 = getelementptr inbounds i32, ptr %out, i64 %i.013
  store i32 %add4, ptr %arrayidx5, align 4, !tbaa !9
  %inc = add nuw nsw i64 %i.013, 1
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
  %cmp47 = icmp sgt i64 %n, 0
  br i1 %cmp47, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call4, i8 0, i64 %0, i1 false), !tbaa !5
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %sub = add nsw i64 %n, -1
  %add.ptr = getelementptr inbounds i8, ptr %call, i64 4
  tail call void @kernel(i64 noundef %sub, ptr noundef %call, ptr noundef nonnull %add.ptr, ptr noundef %call2, ptr noundef %call4)
  %cmp1149 = icmp sgt i64 %n, 0
  br i1 %cmp1149, label %for.body14, label %for.cond.cleanup13

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.048 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %mul5 = mul nuw nsw i64 %i.048, 7
  %rem = urem i64 %mul5, %n
  %conv = trunc i64 %rem to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.048
  store i32 %conv, ptr %arrayidx, align 4, !tbaa !9
  %conv6 = uitofp nneg i64 %i.048 to double
  %arrayidx7 = getelementptr inbounds double, ptr %call2, i64 %i.048
  store double %conv6, ptr %arrayidx7, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.048, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14

for.cond.cleanup13.loopexit:                      ; preds = %for.body14
  %1 = bitcast double %add to i64
  br label %for.cond.cleanup13

for.cond.cleanup13:                               ; preds = %for.cond.cleanup13.loopexit, %for.cond.cleanup
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup ], [ %1, %for.cond.cleanup13.loopexit ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call2) #7
  tail call void @free(ptr noundef %call4) #7
  ret i64 %s.0.lcssa

for.body14:                                       ; preds = %for.cond.cleanup, %for.body14
  %i9.051 = phi i64 [ %inc20, %for.body14 ], [ 0, %for.cond.cleanup ]
  %s.050 = phi double [ %add, %for.body14 ], [ 0.000000e+00, %for.cond.cleanup ]
  %arrayidx16 = getelementptr inbounds double, ptr %call4, i64 %i9.051
  %2 = load double, ptr %arrayidx16, align 8, !tbaa !5
  %3 = tail call double @llvm.fmuladd.f64(double %s.050, double 5.000000e-01, double %2)
  %arrayidx17 = getelementptr inbounds i32, ptr %call, i64 %i9.051
  %4 = load i32, ptr %arrayidx17, align 4, !tbaa !9
  %conv18 = sitofp i32 %4 to double
  %add = fadd double %3, %conv18
  %inc20 = add nuw nsw i64 %i9.051, 1
  %exitcond52.not = icmp eq i64 %inc20, %n
  br i1 %exitcond52.not, label %for.cond.cleanup13.loopexit, label %for.body14, !llvm.loop !15
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
