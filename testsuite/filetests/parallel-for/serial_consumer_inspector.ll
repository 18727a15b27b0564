; PASSES: insert-inspector,parallel-for
; MIN-PARALLEL-ITERS: 32
; SERIAL-CONSUMER-BYTES: 4096
; REMARK: @gather L0 (for.body): applied: inspector/executor
; REMARK: @test L0 (for.body): applied: executor form: body @test.weft.body.0 run by weft_parallel_for; runs inline up to 512 iteration(s) (8 B per iteration, at most 4096 B written): only serial code reads what it writes (@gather L0)
; REMARK: @test L1 (for.body15): applied: executor form: body @test.weft.body.1 run by weft_parallel_for
; REMARK: @test L2 (for.body27): applied: executor form: body @test.weft.body.2 run by weft_parallel_for; runs inline up to 1024 iteration(s) (4 B per iteration
; REMARK: @scale L0 (for.body): applied: executor form
; run: @test(1000)
; run: @test(300)
; run: @test(0)
source_filename = "serial_consumer_inspector.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @gather(i64 noundef %n, ptr noalias nocapture noundef readonly %idx, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef %y) local_unnamed_addr #0 {
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
  %arrayidx2 = getelementptr inbounds double, ptr %y, i64 %i.07
  %2 = load double, ptr %arrayidx2, align 8, !tbaa !9
  %add = fadd double %1, %2
  store double %add, ptr %arrayidx2, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !11
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @scale(i64 noundef %n, ptr noalias nocapture noundef %z) local_unnamed_addr #0 {
entry:
  %cmp3 = icmp sgt i64 %n, 0
  br i1 %cmp3, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.04 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %z, i64 %i.04
  %0 = load double, ptr %arrayidx, align 8, !tbaa !9
  %mul = fmul double %0, 3.000000e+00
  store double %mul, ptr %arrayidx, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.04, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !14
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %add = add nsw i64 %n, 1
  %mul = shl i64 %add, 3
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %call2 = tail call noalias ptr @calloc(i64 noundef %add, i64 noundef 8) #7
  %call5 = tail call noalias ptr @malloc(i64 noundef %mul) #6
  %mul7 = shl i64 %add, 2
  %call8 = tail call noalias ptr @malloc(i64 noundef %mul7) #6
  %cmp80 = icmp sgt i64 %n, 0
  br i1 %cmp80, label %for.body, label %for.cond11.preheader

for.cond11.preheader:                             ; preds = %for.body, %entry
  %cmp1282 = icmp sgt i64 %n, 0
  br i1 %cmp1282, label %for.body15, label %for.cond23.preheader

for.body:                                         ; preds = %entry, %for.body
  %i.081 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %conv = uitofp nneg i64 %i.081 to double
  %mul9 = fmul double %conv, 5.000000e-01
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.081
  store double %mul9, ptr %arrayidx, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.081, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond11.preheader, label %for.body, !llvm.loop !15

for.cond23.preheader:                             ; preds = %for.body15, %for.cond11.preheader
  %cmp2484 = icmp sgt i64 %n, 0
  br i1 %cmp2484, label %for.body27, label %for.cond.cleanup26

for.body15:                                       ; preds = %for.cond11.preheader, %for.body15
  %i10.083 = phi i64 [ %add16, %for.body15 ], [ 0, %for.cond11.preheader ]
  %add16 = add nuw nsw i64 %i10.083, 1
  %conv17 = uitofp nneg i64 %add16 to double
  %div = fdiv double 1.000000e+00, %conv17
  %arrayidx18 = getelementptr inbounds double, ptr %call5, i64 %i10.083
  store double %div, ptr %arrayidx18, align 8, !tbaa !9
  %exitcond89.not = icmp eq i64 %add16, %n
  br i1 %exitcond89.not, label %for.cond23.preheader, label %for.body15, !llvm.loop !16

for.cond.cleanup26:                               ; preds = %for.body27, %for.cond23.preheader
  tail call void @gather(i64 noundef %n, ptr noundef %call8, ptr noundef %call, ptr noundef %call2)
  tail call void @scale(i64 noundef %n, ptr noundef %call5)
  %cmp3686 = icmp sgt i64 %n, 0
  br i1 %cmp3686, label %for.body39, label %for.cond.cleanup38

for.body27:                                       ; preds = %for.cond23.preheader, %for.body27
  %i22.085 = phi i64 [ %inc32, %for.body27 ], [ 0, %for.cond23.preheader ]
  %mul28 = mul nuw nsw i64 %i22.085, 7919
  %rem = urem i64 %mul28, %n
  %conv29 = trunc i64 %rem to i32
  %arrayidx30 = getelementptr inbounds i32, ptr %call8, i64 %i22.085
  store i32 %conv29, ptr %arrayidx30, align 4, !tbaa !5
  %inc32 = add nuw nsw i64 %i22.085, 1
  %exitcond90.not = icmp eq i64 %inc32, %n
  br i1 %exitcond90.not, label %for.cond.cleanup26, label %for.body27, !llvm.loop !17

for.cond.cleanup38.loopexit:                      ; preds = %for.body39
  %0 = bitcast double %add43 to i64
  br label %for.cond.cleanup38

for.cond.cleanup38:                               ; preds = %for.cond.cleanup38.loopexit, %for.cond.cleanup26
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup26 ], [ %0, %for.cond.cleanup38.loopexit ]
  tail call void @free(ptr noundef %call) #8
  tail call void @free(ptr noundef %call2) #8
  tail call void @free(ptr noundef %call5) #8
  tail call void @free(ptr noundef %call8) #8
  ret i64 %s.0.lcssa

for.body39:                                       ; preds = %for.cond.cleanup26, %for.body39
  %i34.088 = phi i64 [ %inc45, %for.body39 ], [ 0, %for.cond.cleanup26 ]
  %s.087 = phi double [ %add43, %for.body39 ], [ 0.000000e+00, %for.cond.cleanup26 ]
  %arrayidx41 = getelementptr inbounds double, ptr %call2, i64 %i34.088
  %1 = load double, ptr %arrayidx41, align 8, !tbaa !9
  %2 = tail call double @llvm.fmuladd.f64(double %s.087, double 0x3FEFF7CED916872B, double %1)
  %arrayidx42 = getelementptr inbounds double, ptr %call5, i64 %i34.088
  %3 = load double, ptr %arrayidx42, align 8, !tbaa !9
  %add43 = fadd double %2, %3
  %inc45 = add nuw nsw i64 %i34.088, 1
  %exitcond91.not = icmp eq i64 %inc45, %n
  br i1 %exitcond91.not, label %for.cond.cleanup38.loopexit, label %for.body39, !llvm.loop !18
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,zeroed") allocsize(0,1) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @calloc(i64 noundef, i64 noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #4

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #5

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree nounwind willreturn allockind("alloc,zeroed") allocsize(0,1) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { nounwind allocsize(0) }
attributes #7 = { nounwind allocsize(0,1) }
attributes #8 = { nounwind }

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
