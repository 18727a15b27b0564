; PASSES: insert-inspector<slab=8>
; CHECK: define internal void @sweep.weft.inspect.0(
; CHECK: %weft.gather.idx = getelementptr i8, ptr %col.in, i64 %weft.gather.off
; CHECK: %weft.gather.n = sub i64
; CHECK: call void @weft.inspect.report_gather(ptr %insp, i64 %weft.k, ptr %x.in, ptr %weft.gather.idx, i64 %weft.gather.n, ptr %weft.fast, ptr %weft.fast.cur, i64 8, i32 8, i32 0, i32 4)
; CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 1)
; CHECK: define internal void @weft.inspect.report_gather(
; CHECK: call i32 @weft_inspect_gather(ptr %0, ptr %5, i64 %1, ptr %2, ptr %3, i64 %4, i32 %10, i64 %7, i32 %8, i32 %9)
; CHECK: define internal void @sweep.weft.inspect.0.writes(
; CHECK-NOT: report_gather
; CHECK: define internal void @sweep64.weft.inspect.0(
; CHECK: call void @weft.inspect.report_gather(ptr %insp, i64 %weft.k, ptr %x.in, ptr %weft.gather.idx, i64 %weft.gather.n, ptr %weft.fast, ptr %weft.fast.cur, i64 8, i32 8, i32 0, i32 8)
; CHECK: define internal void @scatter_rows.weft.inspect.0(
; CHECK-NOT: report_gather
; CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 1)
; REMARK: slab 8 iterations
; run: @test(300, 5)
; run: @test(40, 0)
; cores: 1,2,4
source_filename = "gather.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @sweep(i64 noundef %first, i64 noundef %last, ptr noalias nocapture noundef readonly %rows, ptr noalias nocapture noundef readonly %rowptr, ptr noalias nocapture noundef readonly %col, ptr noalias nocapture noundef readonly %val, ptr noalias nocapture noundef readonly %b, ptr noalias nocapture noundef %x) local_unnamed_addr #0 {
entry:
  %cmp33 = icmp slt i64 %first, %last
  br i1 %cmp33, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.cleanup8, %entry
  ret void

for.body:                                         ; preds = %entry, %for.cond.cleanup8
  %k.034 = phi i64 [ %inc17, %for.cond.cleanup8 ], [ %first, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %rows, i64 %k.034
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %idxprom = sext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds double, ptr %b, i64 %idxprom
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !9
  %arrayidx3 = getelementptr inbounds i64, ptr %rowptr, i64 %idxprom
  %2 = load i64, ptr %arrayidx3, align 8, !tbaa !11
  %arrayidx6 = getelementptr i8, ptr %arrayidx3, i64 8
  %3 = load i64, ptr %arrayidx6, align 8, !tbaa !11
  %cmp730 = icmp slt i64 %2, %3
  br i1 %cmp730, label %for.body9, label %for.cond.cleanup8

for.cond.cleanup8:                                ; preds = %for.body9, %for.body
  %s.0.lcssa = phi double [ %1, %for.body ], [ %7, %for.body9 ]
  %mul = fmul double %s.0.lcssa, 2.500000e-01
  %arrayidx15 = getelementptr inbounds double, ptr %x, i64 %idxprom
  store double %mul, ptr %arrayidx15, align 8, !tbaa !9
  %inc17 = add nsw i64 %k.034, 1
  %exitcond35.not = icmp eq i64 %inc17, %last
  br i1 %exitcond35.not, label %for.cond.cleanup, label %for.body, !llvm.loop !13

for.body9:                                        ; preds = %for.body, %for.body9
  %j.032 = phi i64 [ %inc, %for.body9 ], [ %2, %for.body ]
  %s.031 = phi double [ %7, %for.body9 ], [ %1, %for.body ]
  %arrayidx10 = getelementptr inbounds double, ptr %val, i64 %j.032
  %4 = load double, ptr %arrayidx10, align 8, !tbaa !9
  %arrayidx11 = getelementptr inbounds i32, ptr %col, i64 %j.032
  %5 = load i32, ptr %arrayidx11, align 4, !tbaa !5
  %idxprom12 = sext i32 %5 to i64
  %arrayidx13 = getelementptr inbounds double, ptr %x, i64 %idxprom12
  %6 = load double, ptr %arrayidx13, align 8, !tbaa !9
  %neg = fneg double %4
  %7 = tail call double @llvm.fmuladd.f64(double %neg, double %6, double %s.031)
  %inc = add nsw i64 %j.032, 1
  %exitcond.not = icmp eq i64 %inc, %3
  br i1 %exitcond.not, label %for.cond.cleanup8, label %for.body9, !llvm.loop !16
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @sweep64(i64 noundef %first, i64 noundef %last, ptr noalias nocapture noundef readonly %rows, ptr noalias nocapture noundef readonly %rowptr, ptr noalias nocapture noundef readonly %col, ptr noalias nocapture noundef readonly %val, ptr noalias nocapture noundef readonly %b, ptr noalias nocapture noundef %x) local_unnamed_addr #0 {
entry:
  %cmp32 = icmp slt i64 %first, %last
  br i1 %cmp32, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond.cleanup8, %entry
  ret void

for.body:                                         ; preds = %entry, %for.cond.cleanup8
  %k.033 = phi i64 [ %inc16, %for.cond.cleanup8 ], [ %first, %entry ]
  %arrayidx = getelementptr inbounds i32, ptr %rows, i64 %k.033
  %0 = load i32, ptr %arrayidx, align 4, !tbaa !5
  %idxprom = sext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds double, ptr %b, i64 %idxprom
  %1 = load double, ptr %arrayidx1, align 8, !tbaa !9
  %arrayidx3 = getelementptr inbounds i64, ptr %rowptr, i64 %idxprom
  %2 = load i64, ptr %arrayidx3, align 8, !tbaa !11
  %arrayidx6 = getelementptr i8, ptr %arrayidx3, i64 8
  %3 = load i64, ptr %arrayidx6, align 8, !tbaa !11
  %cmp729 = icmp slt i64 %2, %3
  br i1 %cmp729, label %for.body9, label %for.cond.cleanup8

for.cond.cleanup8:                                ; preds = %for.body9, %for.body
  %s.0.lcssa = phi double [ %1, %for.body ], [ %7, %for.body9 ]
  %mul = fmul double %s.0.lcssa, 2.500000e-01
  %arrayidx14 = getelementptr inbounds double, ptr %x, i64 %idxprom
  store double %mul, ptr %arrayidx14, align 8, !tbaa !9
  %inc16 = add nsw i64 %k.033, 1
  %exitcond34.not = icmp eq i64 %inc16, %last
  br i1 %exitcond34.not, label %for.cond.cleanup, label %for.body, !llvm.loop !17

for.body9:                                        ; preds = %for.body, %for.body9
  %j.031 = phi i64 [ %inc, %for.body9 ], [ %2, %for.body ]
  %s.030 = phi double [ %7, %for.body9 ], [ %1, %for.body ]
  %arrayidx10 = getelementptr inbounds double, ptr %val, i64 %j.031
  %4 = load double, ptr %arrayidx10, align 8, !tbaa !9
  %arrayidx11 = getelementptr inbounds i64, ptr %col, i64 %j.031
  %5 = load i64, ptr %arrayidx11, align 8, !tbaa !11
  %arrayidx12 = getelementptr inbounds double, ptr %x, i64 %5
  %6 = load double, ptr %arrayidx12, align 8, !tbaa !9
  %neg = fneg double %4
  %7 = tail call double @llvm.fmuladd.f64(double %neg, double %6, double %s.030)
  %inc = add nsw i64 %j.031, 1
  %exitcond.not = icmp eq i64 %inc, %3
  br i1 %exitcond.not, label %for.cond.cleanup8, label %for.body9, !llvm.loop !18
}

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @scatter_rows(i64 noundef %n, ptr noalias nocapture noundef readonly %rowptr, ptr noalias nocapture noundef readonly %col, ptr noalias nocapture noundef readonly %val, ptr noalias nocapture noundef readonly %x, ptr noalias nocapture noundef %y) local_unnamed_addr #0 {
entry:
  %cmp23 = icmp sgt i64 %n, 0
  br i1 %cmp23, label %for.body, label %for.cond.cleanup

for.cond.loopexit:                                ; preds = %for.body5, %for.body
  %exitcond25.not = icmp eq i64 %add, %n
  br i1 %exitcond25.not, label %for.cond.cleanup, label %for.body, !llvm.loop !19

for.cond.cleanup:                                 ; preds = %for.cond.loopexit, %entry
  ret void

for.body:                                         ; preds = %entry, %for.cond.loopexit
  %i.024 = phi i64 [ %add, %for.cond.loopexit ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds i64, ptr %rowptr, i64 %i.024
  %0 = load i64, ptr %arrayidx, align 8, !tbaa !11
  %add = add nuw nsw i64 %i.024, 1
  %arrayidx2 = getelementptr inbounds i64, ptr %rowptr, i64 %add
  %1 = load i64, ptr %arrayidx2, align 8, !tbaa !11
  %cmp321 = icmp slt i64 %0, %1
  br i1 %cmp321, label %for.body5.lr.ph, label %for.cond.loopexit

for.body5.lr.ph:                                  ; preds = %for.body
  %arrayidx7 = getelementptr inbounds double, ptr %x, i64 %i.024
  %2 = load double, ptr %arrayidx7, align 8, !tbaa !9
  br label %for.body5

for.body5:                                        ; preds = %for.body5.lr.ph, %for.body5
  %j.022 = phi i64 [ %0, %for.body5.lr.ph ], [ %inc, %for.body5 ]
  %arrayidx6 = getelementptr inbounds double, ptr %val, i64 %j.022
  %3 = load double, ptr %arrayidx6, align 8, !tbaa !9
  %arrayidx8 = getelementptr inbounds i32, ptr %col, i64 %j.022
  %4 = load i32, ptr %arrayidx8, align 4, !tbaa !5
  %idxprom = sext i32 %4 to i64
  %arrayidx9 = getelementptr inbounds double, ptr %y, i64 %idxprom
  %5 = load double, ptr %arrayidx9, align 8, !tbaa !9
  %6 = tail call double @llvm.fmuladd.f64(double %3, double %2, double %5)
  store double %6, ptr %arrayidx9, align 8, !tbaa !9
  %inc = add nsw i64 %j.022, 1
  %exitcond.not = icmp eq i64 %inc, %1
  br i1 %exitcond.not, label %for.cond.loopexit, label %for.body5, !llvm.loop !20
}

; Function Attrs: nounwind memory(readwrite, argmem: none) uwtable
define dso_local i64 @test(i64 noundef %n, i64 noundef %deg) local_unnamed_addr #2 {
entry:
  %mul = mul nsw i64 %deg, %n
  %mul1 = shl i64 %n, 2
  %call = tail call noalias ptr @malloc(i64 noundef %mul1) #6
  %add = add nsw i64 %mul, 1
  %mul2 = shl i64 %add, 2
  %call3 = tail call noalias ptr @malloc(i64 noundef %mul2) #6
  %add4 = shl i64 %n, 3
  %mul5 = add i64 %add4, 8
  %call6 = tail call noalias ptr @malloc(i64 noundef %mul5) #6
  %mul8 = shl i64 %add, 3
  %call9 = tail call noalias ptr @malloc(i64 noundef %mul8) #6
  %call12 = tail call noalias ptr @malloc(i64 noundef %mul8) #6
  %call14 = tail call noalias ptr @malloc(i64 noundef %add4) #6
  %call16 = tail call noalias ptr @malloc(i64 noundef %add4) #6
  %call18 = tail call noalias ptr @malloc(i64 noundef %add4) #6
  %cmp236 = icmp sgt i64 %n, 0
  br i1 %cmp236, label %for.body.preheader, label %for.cond25.preheader

for.body.preheader:                               ; preds = %entry
  %0 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call16, i8 0, i64 %0, i1 false), !tbaa !9
  %1 = shl nuw i64 %n, 3
  tail call void @llvm.memset.p0.i64(ptr align 8 %call18, i8 0, i64 %1, i1 false), !tbaa !9
  br label %for.body

for.cond25.preheader:                             ; preds = %for.body, %entry
  %cmp26238 = icmp sgt i64 %n, 1
  br i1 %cmp26238, label %for.body29, label %for.cond.cleanup28

for.body:                                         ; preds = %for.body.preheader, %for.body
  %i.0237 = phi i64 [ %inc, %for.body ], [ 0, %for.body.preheader ]
  %conv = trunc i64 %i.0237 to i32
  %arrayidx = getelementptr inbounds i32, ptr %call, i64 %i.0237
  store i32 %conv, ptr %arrayidx, align 4, !tbaa !5
  %rem = urem i64 %i.0237, 5
  %2 = add nuw nsw i64 %rem, 1
  %add20 = uitofp nneg i64 %2 to double
  %arrayidx21 = getelementptr inbounds double, ptr %call14, i64 %i.0237
  store double %add20, ptr %arrayidx21, align 8, !tbaa !9
  %inc = add nuw nsw i64 %i.0237, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond25.preheader, label %for.body, !llvm.loop !21

for.cond.cleanup28:                               ; preds = %for.body29, %for.cond25.preheader
  %seed.0.lcssa = phi i32 [ 7, %for.cond25.preheader ], [ %add31, %for.body29 ]
  store i64 0, ptr %call6, align 8, !tbaa !11
  %cmp45246 = icmp sgt i64 %n, 0
  br i1 %cmp45246, label %for.body48.lr.ph, label %for.cond108.preheader

for.body48.lr.ph:                                 ; preds = %for.cond.cleanup28
  %tobool.not = icmp eq i64 %deg, 0
  %deg.tr = trunc i64 %deg to i32
  %3 = shl i32 %deg.tr, 1
  %conv54 = or disjoint i32 %3, 1
  %add80 = add nsw i64 %n, -3
  br label %for.body48

for.body29:                                       ; preds = %for.cond25.preheader, %for.body29
  %seed.0240 = phi i32 [ %add31, %for.body29 ], [ 7, %for.cond25.preheader ]
  %i24.0.in239 = phi i64 [ %i24.0, %for.body29 ], [ %n, %for.cond25.preheader ]
  %i24.0 = add nsw i64 %i24.0.in239, -1
  %mul30 = mul i32 %seed.0240, 1103515245
  %add31 = add i32 %mul30, 12345
  %shr = lshr i32 %add31, 8
  %conv33 = trunc i64 %i24.0.in239 to i32
  %rem34 = urem i32 %shr, %conv33
  %conv35 = zext nneg i32 %rem34 to i64
  %arrayidx36 = getelementptr inbounds i32, ptr %call, i64 %i24.0
  %4 = load i32, ptr %arrayidx36, align 4, !tbaa !5
  %arrayidx37 = getelementptr inbounds i32, ptr %call, i64 %conv35
  %5 = load i32, ptr %arrayidx37, align 4, !tbaa !5
  store i32 %5, ptr %arrayidx36, align 4, !tbaa !5
  store i32 %4, ptr %arrayidx37, align 4, !tbaa !5
  %cmp26 = icmp sgt i64 %i24.0.in239, 2
  br i1 %cmp26, label %for.body29, label %for.cond.cleanup28, !llvm.loop !22

for.cond108.preheader:                            ; preds = %for.cond.cleanup69, %for.cond.cleanup28
  %div = sdiv i64 %n, 3
  br label %for.body112

for.body48:                                       ; preds = %for.body48.lr.ph, %for.cond.cleanup69
  %seed.1248 = phi i32 [ %seed.0.lcssa, %for.body48.lr.ph ], [ %seed.2.lcssa, %for.cond.cleanup69 ]
  %i43.0247 = phi i64 [ 0, %for.body48.lr.ph ], [ %add103, %for.cond.cleanup69 ]
  %mul49 = mul i32 %seed.1248, 1103515245
  %add50 = add i32 %mul49, 12345
  br i1 %tobool.not, label %cond.end, label %cond.true

cond.true:                                        ; preds = %for.body48
  %shr51 = lshr i32 %add50, 8
  %rem55 = urem i32 %shr51, %conv54
  %conv56 = zext nneg i32 %rem55 to i64
  br label %cond.end

cond.end:                                         ; preds = %for.body48, %cond.true
  %cond = phi i64 [ %conv56, %cond.true ], [ 0, %for.body48 ]
  %arrayidx57 = getelementptr inbounds i64, ptr %call6, i64 %i43.0247
  %6 = load i64, ptr %arrayidx57, align 8, !tbaa !11
  %add58 = add nsw i64 %6, %cond
  %cmp59 = icmp sgt i64 %add58, %mul
  %sub62 = sub nsw i64 %mul, %6
  %spec.select = select i1 %cmp59, i64 %sub62, i64 %cond
  %add66 = add nsw i64 %spec.select, %6
  %cmp67241 = icmp sgt i64 %spec.select, 0
  br i1 %cmp67241, label %for.body70.lr.ph, label %for.cond.cleanup69

for.body70.lr.ph:                                 ; preds = %cond.end
  %sub81 = add i64 %add80, %i43.0247
  br label %for.body70

for.cond.cleanup69:                               ; preds = %cond.end88, %cond.end
  %seed.2.lcssa = phi i32 [ %add50, %cond.end ], [ %add72, %cond.end88 ]
  %add103 = add nuw nsw i64 %i43.0247, 1
  %arrayidx104 = getelementptr inbounds i64, ptr %call6, i64 %add103
  store i64 %add66, ptr %arrayidx104, align 8, !tbaa !11
  %exitcond254.not = icmp eq i64 %add103, %n
  br i1 %exitcond254.not, label %for.cond108.preheader, label %for.body48, !llvm.loop !23

for.body70:                                       ; preds = %for.body70.lr.ph, %cond.end88
  %seed.2243 = phi i32 [ %add50, %for.body70.lr.ph ], [ %add72, %cond.end88 ]
  %j.0242 = phi i64 [ %6, %for.body70.lr.ph ], [ %inc99, %cond.end88 ]
  %mul71 = mul i32 %seed.2243, 1103515245
  %add72 = add i32 %mul71, 12345
  %7 = and i32 %add72, 1536
  %tobool75.not = icmp eq i32 %7, 0
  %shr85 = lshr i32 %add72, 12
  br i1 %tobool75.not, label %cond.false84, label %cond.true76

cond.true76:                                      ; preds = %for.body70
  %rem78 = urem i32 %shr85, 7
  %conv79 = zext nneg i32 %rem78 to i64
  %add82 = add i64 %sub81, %conv79
  br label %cond.end88

cond.false84:                                     ; preds = %for.body70
  %conv86 = zext nneg i32 %shr85 to i64
  br label %cond.end88

cond.end88:                                       ; preds = %cond.false84, %cond.true76
  %add82.pn = phi i64 [ %add82, %cond.true76 ], [ %conv86, %cond.false84 ]
  %cond89 = srem i64 %add82.pn, %n
  %conv90 = trunc i64 %cond89 to i32
  %arrayidx91 = getelementptr inbounds i32, ptr %call3, i64 %j.0242
  store i32 %conv90, ptr %arrayidx91, align 4, !tbaa !5
  %arrayidx92 = getelementptr inbounds i64, ptr %call9, i64 %j.0242
  store i64 %cond89, ptr %arrayidx92, align 8, !tbaa !11
  %rem93 = srem i64 %j.0242, 3
  %add94 = add nsw i64 %rem93, 1
  %conv95 = sitofp i64 %add94 to double
  %mul96 = fmul double %conv95, 6.250000e-02
  %arrayidx97 = getelementptr inbounds double, ptr %call12, i64 %j.0242
  store double %mul96, ptr %arrayidx97, align 8, !tbaa !9
  %inc99 = add nsw i64 %j.0242, 1
  %cmp67 = icmp slt i64 %inc99, %add66
  br i1 %cmp67, label %for.body70, label %for.cond.cleanup69, !llvm.loop !24

for.cond.cleanup111:                              ; preds = %for.body112
  tail call void @scatter_rows(i64 noundef %n, ptr noundef nonnull %call6, ptr noundef %call3, ptr noundef %call12, ptr noundef %call16, ptr noundef %call18)
  %cmp119250 = icmp sgt i64 %n, 0
  br i1 %cmp119250, label %for.body122, label %for.cond.cleanup121

for.body112:                                      ; preds = %for.cond108.preheader, %for.body112
  %sw.0249 = phi i32 [ 0, %for.cond108.preheader ], [ %inc115, %for.body112 ]
  tail call void @sweep(i64 noundef 0, i64 noundef %div, ptr noundef %call, ptr noundef nonnull %call6, ptr noundef %call3, ptr noundef %call12, ptr noundef %call14, ptr noundef %call16)
  tail call void @sweep(i64 noundef %div, i64 noundef %n, ptr noundef %call, ptr noundef nonnull %call6, ptr noundef %call3, ptr noundef %call12, ptr noundef %call14, ptr noundef %call16)
  tail call void @sweep64(i64 noundef 0, i64 noundef %n, ptr noundef %call, ptr noundef nonnull %call6, ptr noundef %call9, ptr noundef %call12, ptr noundef %call14, ptr noundef %call16)
  %inc115 = add nuw nsw i32 %sw.0249, 1
  %exitcond255.not = icmp eq i32 %inc115, 3
  br i1 %exitcond255.not, label %for.cond.cleanup111, label %for.body112, !llvm.loop !25

for.cond.cleanup121.loopexit:                     ; preds = %for.body122
  %8 = bitcast double %12 to i64
  br label %for.cond.cleanup121

for.cond.cleanup121:                              ; preds = %for.cond.cleanup121.loopexit, %for.cond.cleanup111
  %s.0.lcssa = phi i64 [ 0, %for.cond.cleanup111 ], [ %8, %for.cond.cleanup121.loopexit ]
  tail call void @free(ptr noundef %call) #7
  tail call void @free(ptr noundef %call3) #7
  tail call void @free(ptr noundef %call6) #7
  tail call void @free(ptr noundef %call9) #7
  tail call void @free(ptr noundef %call12) #7
  tail call void @free(ptr noundef %call14) #7
  tail call void @free(ptr noundef %call16) #7
  tail call void @free(ptr noundef %call18) #7
  ret i64 %s.0.lcssa

for.body122:                                      ; preds = %for.cond.cleanup111, %for.body122
  %i117.0252 = phi i64 [ %inc128, %for.body122 ], [ 0, %for.cond.cleanup111 ]
  %s.0251 = phi double [ %12, %for.body122 ], [ 0.000000e+00, %for.cond.cleanup111 ]
  %arrayidx124 = getelementptr inbounds double, ptr %call16, i64 %i117.0252
  %9 = load double, ptr %arrayidx124, align 8, !tbaa !9
  %10 = tail call double @llvm.fmuladd.f64(double %s.0251, double 9.000000e-01, double %9)
  %arrayidx125 = getelementptr inbounds double, ptr %call18, i64 %i117.0252
  %11 = load double, ptr %arrayidx125, align 8, !tbaa !9
  %12 = tail call double @llvm.fmuladd.f64(double %11, double 5.000000e-01, double %10)
  %inc128 = add nuw nsw i64 %i117.0252, 1
  %exitcond256.not = icmp eq i64 %inc128, %n
  br i1 %exitcond256.not, label %for.cond.cleanup121.loopexit, label %for.body122, !llvm.loop !26
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
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"double", !7, i64 0}
!11 = !{!12, !12, i64 0}
!12 = !{!"long", !7, i64 0}
!13 = distinct !{!13, !14, !15}
!14 = !{!"llvm.loop.mustprogress"}
!15 = !{!"llvm.loop.unroll.disable"}
!16 = distinct !{!16, !14, !15}
!17 = distinct !{!17, !14, !15}
!18 = distinct !{!18, !14, !15}
!19 = distinct !{!19, !14, !15}
!20 = distinct !{!20, !14, !15}
!21 = distinct !{!21, !14, !15}
!22 = distinct !{!22, !14, !15}
!23 = distinct !{!23, !14, !15}
!24 = distinct !{!24, !14, !15}
!25 = distinct !{!25, !14, !15}
!26 = distinct !{!26, !14, !15}
