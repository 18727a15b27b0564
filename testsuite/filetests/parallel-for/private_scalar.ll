; PASSES: parallel-for<only=kernel>
; CHECK: void @kernel(
; CHECK: call i32 @weft_parallel_for(
; CHECK: weft.last
; CHECK: define internal void @kernel.weft.body.0(
; CHECK: weft.writeback:
; CHECK: store i64 %add, ptr
; REMARK: privatised, last values written back
; run: @test(1000)
; run: @test(1)
; run: @test(0)
source_filename = "private_scalar.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@t = dso_local local_unnamed_addr global i64 0, align 8

; Function Attrs: nofree noinline norecurse nosync nounwind memory(write, argmem: readwrite, inaccessiblemem: none) uwtable
define dso_local void @kernel(i64 noundef %n, ptr noalias nocapture noundef readonly %a, ptr noalias nocapture noundef writeonly %b) local_unnamed_addr #0 {
entry:
  %cmp9 = icmp sgt i64 %n, 0
  br i1 %cmp9, label %for.body, label %for.cond.cleanup

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.body
  store i64 %add, ptr @t, align 8, !tbaa !5
  br label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.010 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds i64, ptr %a, i64 %i.010
  %0 = load i64, ptr %arrayidx, align 8, !tbaa !5
  %mul = mul nsw i64 %0, 3
  %add = add nsw i64 %mul, 1
  %mul1 = mul nsw i64 %add, %add
  %sub = sub nsw i64 %mul1, %0
  %arrayidx3 = getelementptr inbounds i64, ptr %b, i64 %i.010
  store i64 %sub, ptr %arrayidx3, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.010, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.for.cond.cleanup_crit_edge, label %for.body, !llvm.loop !9
}

; Function Attrs: nounwind memory(readwrite, argmem: write) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %add = shl i64 %n, 3
  %mul = add i64 %add, 8
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #4
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #4
  %cmp30 = icmp sgt i64 %n, 0
  br i1 %cmp30, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  store i64 -7, ptr @t, align 8, !tbaa !5
  tail call void @kernel(i64 noundef %n, ptr noundef %call, ptr noundef %call3)
  %0 = load i64, ptr @t, align 8, !tbaa !5
  %cmp732 = icmp sgt i64 %n, 0
  br i1 %cmp732, label %for.body9, label %for.cond.cleanup8

for.body:                                         ; preds = %entry, %for.body
  %i.031 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %mul4 = mul nuw nsw i64 %i.031, 2654435761
  %rem = urem i64 %mul4, 1000
  %arrayidx = getelementptr inbounds i64, ptr %call, i64 %i.031
  store i64 %rem, ptr %arrayidx, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.031, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12

for.cond.cleanup8:                                ; preds = %for.body9, %for.cond.cleanup
  %s.0.lcssa = phi i64 [ %0, %for.cond.cleanup ], [ %add12, %for.body9 ]
  tail call void @free(ptr noundef %call) #5
  tail call void @free(ptr noundef %call3) #5
  ret i64 %s.0.lcssa

for.body9:                                        ; preds = %for.cond.cleanup, %for.body9
  %i5.034 = phi i64 [ %inc14, %for.body9 ], [ 0, %for.cond.cleanup ]
  %s.033 = phi i64 [ %add12, %for.body9 ], [ %0, %for.cond.cleanup ]
  %mul10 = mul nsw i64 %s.033, 31
  %arrayidx11 = getelementptr inbounds i64, ptr %call3, i64 %i5.034
  %1 = load i64, ptr %arrayidx11, align 8, !tbaa !5
  %add12 = add nsw i64 %1, %mul10
  %inc14 = add nuw nsw i64 %i5.034, 1
  %exitcond35.not = icmp eq i64 %inc14, %n
  br i1 %exitcond35.not, label %for.cond.cleanup8, label %for.body9, !llvm.loop !13
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #3

attributes #0 = { nofree noinline norecurse nosync nounwind memory(write, argmem: readwrite, inaccessiblemem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind memory(readwrite, argmem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
!6 = !{!"long", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !10, !11}
!13 = distinct !{!13, !10, !11}
