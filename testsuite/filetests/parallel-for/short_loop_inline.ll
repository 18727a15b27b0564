; PASSES: parallel-for
; MIN-PARALLEL-ITERS: 32
; CHECK: @weft.grain = internal global i64 0, align 8
; CHECK: i64 @kernel(
; CHECK: %weft.grain = load atomic i64, ptr @weft.grain monotonic, align 8
; CHECK: %weft.limit = select i1 %{{.*}}, i64 %weft.grain, i64 32
; CHECK: %weft.short = icmp slt i64 %weft.tc, %weft.limit
; CHECK: br i1 %weft.short, label %weft.inline, label %weft.par
; CHECK: weft.par:
; CHECK: call i32 @weft_parallel_for(
; CHECK: call i32 @weft_grain_hint(ptr @weft.grain)
; CHECK: weft.inline:
; CHECK: call void @kernel.weft.body.0(ptr %weft.ctx, i64 0, i64 %weft.tc)
; CHECK: weft.join:
; CHECK: weft.red.final
; REMARK: 1 integer reduction(s) combined atomically
; run: @test(1000)
; run: @test(33)
; run: @test(32)
; run: @test(31)
; run: @test(1)
; run: @test(0)
source_filename = "short_loop_inline.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local i64 @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %b) local_unnamed_addr #0 {
entry:
  %cmp14 = icmp sgt i64 %n, 0
  br i1 %cmp14, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %s.0.lcssa = phi i64 [ 17, %entry ], [ %add, %for.body ]
  ret i64 %s.0.lcssa

for.body:                                         ; preds = %entry, %for.body
  %i.016 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %s.015 = phi i64 [ %add, %for.body ], [ 17, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %i.016
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %mul = mul nsw i32 %0, 3
  %arrayidx1 = getelementptr inbounds i32, ptr %b, i64 %i.016
  store i32 %mul, ptr %arrayidx1, align 4, !tbaa !5
  %conv = sext i32 %0 to i64
  %mul5 = mul nsw i64 %conv, %conv
  %add = add nuw nsw i64 %mul5, %s.015
  %inc = add nuw nsw i64 %i.016, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %add = shl i64 %n, 2
  %mul = add i64 %add, 4
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #4
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #4
  %cmp33 = icmp sgt i64 %n, 0
  br i1 %cmp33, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %call5 = tail call i64 @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call3)
  %cmp835 = icmp sgt i64 %n, 0
  br i1 %cmp835, label %for.body11, label %for.cond.cleanup10

for.body:                                         ; preds = %entry, %for.body
  %i.034 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %mul4 = mul nuw nsw i64 %i.034, 2654435761
  %rem = urem i64 %mul4, 1000
  %conv = trunc nuw nsw i64 %rem to i32
  %sub = add nsw i32 %conv, -500
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.034
  store i32 %sub, ptr %arrayidx, align 4, !tbaa !5
  %inc = add nuw nsw i64 %i.034, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup10:                               ; preds = %for.body11, %for.cond.cleanup
  %s.0.lcssa = phi i64 [ %call5, %for.cond.cleanup ], [ %add15, %for.body11 ]
  tail call void @free(ptr noundef %call) #5
  tail call void @free(ptr noundef %call3) #5
  ret i64 %s.0.lcssa

for.body11:                                       ; preds = %for.cond.cleanup, %for.body11
  %i6.037 = phi i64 [ %inc17, %for.body11 ], [ 0, %for.cond.cleanup ]
  %s.036 = phi i64 [ %add15, %for.body11 ], [ %call5, %for.cond.cleanup ]
  %mul12 = mul nsw i64 %s.036, 31
  %arrayidx13 = getelementptr inbounds i32, ptr %call3, i64 %i6.037
  %0 = load i32, ptr %arrayidx13, align 4, !tbaa !5
  %conv14 = sext i32 %0 to i64
  %add15 = add nsw i64 %mul12, %conv14
  %inc17 = add nuw nsw i64 %i6.037, 1
  %exitcond38.not = icmp eq i64 %inc17, %n
  br i1 %exitcond38.not, label %for.cond.cleanup10, label %for.body11, !llvm.loop !13
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #3

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind allocsize(0) }
attributes #5 = { nounwind }

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
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !10, !11}
!13 = distinct !{!13, !10, !11}
