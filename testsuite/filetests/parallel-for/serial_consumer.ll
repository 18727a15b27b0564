; PASSES: parallel-for
; MIN-PARALLEL-ITERS: 32
; SERIAL-CONSUMER-BYTES: 4096
; CHECK: i64 @test(
; CHECK: %weft.limit = select i1 %{{.*}}, i64 %weft.grain, i64 513
; CHECK: call i32 @weft_parallel_for(
; CHECK: %weft.limit{{.*}} = select i1 %{{.*}}, i64 %weft.grain{{.*}}, i64 32
; CHECK: call i32 @weft_parallel_for(
; REMARK: @test L0 (for.body): applied: executor form: body @test.weft.body.0 run by weft_parallel_for; runs inline up to 512 iteration(s) (8 B per iteration, at most 4096 B written): only serial code reads what it writes (@scan L0, @test L2)
; REMARK: @test L1 (for.body10): applied: executor form: body @test.weft.body.1 run by weft_parallel_for
; REMARK: @scale L0 (for.body): applied: executor form: body @scale.weft.body.0 run by weft_parallel_for
; run: @test(1000)
; run: @test(513)
; run: @test(512)
; run: @test(7)
; run: @test(0)
source_filename = "serial_consumer.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @scan(i64 noundef %n, ptr noalias nocapture noundef %a) local_unnamed_addr #0 {
entry:
  %cmp6 = icmp sgt i64 %n, 1
  br i1 %cmp6, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %load_initial = load double, ptr %a, align 8
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %for.body
  %store_forwarded = phi double [ %load_initial, %for.body.preheader ], [ %add, %for.body ]
  %i.07 = phi i64 [ 1, %for.body.preheader ], [ %inc, %for.body ]
  %0 = getelementptr double, ptr %a, i64 %i.07
  %1 = load double, ptr %0, align 8, !tbaa !5
  %add = fadd double %store_forwarded, %1
  store double %add, ptr %0, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.07, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !9
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @scale(i64 noundef %n, ptr noalias nocapture noundef %b) local_unnamed_addr #0 {
entry:
  %cmp3 = icmp sgt i64 %n, 0
  br i1 %cmp3, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.04 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds double, ptr %b, i64 %i.04
  %0 = load double, ptr %arrayidx, align 8, !tbaa !5
  %mul = fmul double %0, 3.000000e+00
  store double %mul, ptr %arrayidx, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.04, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n) local_unnamed_addr #1 {
entry:
  %add = shl i64 %n, 3
  %mul = add i64 %add, 8
  %call = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul) #5
  %cmp52 = icmp sgt i64 %n, 0
  br i1 %cmp52, label %for.body, label %for.cond6.preheader

for.cond6.preheader:                              ; preds = %for.body, %entry
  %cmp754 = icmp sgt i64 %n, 0
  br i1 %cmp754, label %for.body10, label %for.cond.cleanup9

for.body:                                         ; preds = %entry, %for.body
  %i.053 = phi i64 [ %inc, %for.body ], [ 0, %entry ]
  %conv = uitofp nneg i64 %i.053 to double
  %mul4 = fmul double %conv, 5.000000e-01
  %arrayidx = getelementptr inbounds double, ptr %call, i64 %i.053
  store double %mul4, ptr %arrayidx, align 8, !tbaa !5
  %inc = add nuw nsw i64 %i.053, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond6.preheader, label %for.body, !llvm.loop !13

for.cond.cleanup9:                                ; preds = %for.body10, %for.cond6.preheader
  tail call void @scan(i64 noundef %n, ptr noundef %call)
  tail call void @scale(i64 noundef %n, ptr noundef %call3)
  %cmp1956 = icmp sgt i64 %n, 0
  br i1 %cmp1956, label %for.body22, label %for.cond.cleanup21

for.body10:                                       ; preds = %for.cond6.preheader, %for.body10
  %i5.055 = phi i64 [ %add11, %for.body10 ], [ 0, %for.cond6.preheader ]
  %add11 = add nuw nsw i64 %i5.055, 1
  %conv12 = uitofp nneg i64 %add11 to double
  %div = fdiv double 1.000000e+00, %conv12
  %arrayidx13 = getelementptr inbounds double, ptr %call3, i64 %i5.055
  store double %div, ptr %arrayidx13, align 8, !tbaa !5
  %exitcond59.not = icmp eq i64 %add11, %n
  br i1 %exitcond59.not, label %for.cond.cleanup9, label %for.body10, !llvm.loop !14

for.cond.cleanup21.loopexit:                      ; preds = %for.body22
  %0 = bitcast double %add26 to i64
  br label %for.cond.cleanup21

for.cond.cleanup21:                               ; preds = %for.cond.cleanup21.loopexit, %for.cond.cleanup9
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup9 ], [ %0, %for.cond.cleanup21.loopexit ]
  tail call void @free(ptr noundef %call) #6
  tail call void @free(ptr noundef %call3) #6
  ret i64 %s.0.lcssa

for.body22:                                       ; preds = %for.cond.cleanup9, %for.body22
  %i17.058 = phi i64 [ %inc28, %for.body22 ], [ 0, %for.cond.cleanup9 ]
  %s.057 = phi double [ %add26, %for.body22 ], [ 0.000000e+00, %for.cond.cleanup9 ]
  %arrayidx24 = getelementptr inbounds double, ptr %call, i64 %i17.058
  %1 = load double, ptr %arrayidx24, align 8, !tbaa !5
  %2 = tail call double @llvm.fmuladd.f64(double %s.057, double 0x3FEFF7CED916872B, double %1)
  %arrayidx25 = getelementptr inbounds double, ptr %call3, i64 %i17.058
  %3 = load double, ptr %arrayidx25, align 8, !tbaa !5
  %add26 = fadd double %2, %3
  %inc28 = add nuw nsw i64 %i17.058, 1
  %exitcond60.not = icmp eq i64 %inc28, %n
  br i1 %exitcond60.not, label %for.cond.cleanup21.loopexit, label %for.body22, !llvm.loop !15
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

attributes #0 = { nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind memory(readwrite, argmem: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
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
