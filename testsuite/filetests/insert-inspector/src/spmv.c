// PASSES: insert-inspector
// CHECK: void @kernel(
// CHECK: call i32 @weft_region_select(i32 0, ptr %weft.key, i32 2, ptr %weft.slot)
// CHECK: call i32 @weft_run_irregular(i32 %weft.region, i64 0, i64
// CHECK: define internal void @kernel.weft.body.0(ptr %ctx, i64 %lo, i64 %hi)
// CHECK: define internal void @kernel.weft.inspect.0(ptr %ctx, i64 %lo, i64 %hi, ptr %insp)
// CHECK: call i32 @weft_inspect_line_shift(ptr %insp, ptr %weft.line.shift)
// CHECK: store { i64, i64, ptr, ptr, i64, i32, i32, i32, i32, i64, i64, ptr, ptr, i32, i32, ptr, i64, i64, i64 } zeroinitializer, ptr %weft.fast
// CHECK: { i64 0, i64 0, ptr null, ptr null, i64 0, i32 0, i32 0, i32 1, i32 0, i64 0, i64 0, ptr null, ptr null, i32 0, i32 0, ptr null, i64 0, i64 0, i64 0, i64 0 }, ptr %weft.fast.cur
// CHECK: call i32 @weft_inspect_maps_only(ptr %insp)
// CHECK: %weft.same.slab = and i1
// CHECK: select i1 %weft.same.slab, i64 %{{.*}}, i64 -1
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, {{.*}}, ptr %weft.fast, ptr %weft.fast.cur, i1 true)
// CHECK: %weft.stream.bytes = mul i64 %weft.stream.n, 8
// CHECK: call void @weft.inspect.report_rows.32(ptr %insp, i64 %weft.k, ptr %weft.stream, i64 %weft.stream.bytes, {{.*}}, ptr %weft.rows.done, ptr %arrayidx3, i64 %wide.trip.count, ptr %val.in, i64 8)
// CHECK: %weft.stream.bytes{{.*}} = mul i64 %weft.stream.n{{.*}}, 4
// CHECK: call void @weft.inspect.report_rows.32({{.*}}, ptr %arrayidx3, i64 %wide.trip.count, ptr %col.in, i64 4)
// CHECK-NOT: store double
// CHECK: call void @weft.inspect.fast_flush(ptr %insp, ptr %weft.fast, ptr %weft.fast.cur)
// CHECK: ret void
// CHECK: define internal void @weft.inspect.report_line(
// CHECK-NOT: weft_region_reset
// CHECK: call i32 @weft_inspect_fast(ptr %0, i64 %1, ptr %6)
// CHECK: getelementptr inbounds i16, ptr %table
// CHECK: call i32 @weft_inspect_range(ptr %0, i64 %1, ptr %2, i64 %3)
// CHECK: ret void
// CHECK: define internal void @weft.inspect.report_rows.32(
// CHECK: %covered = icmp slt i64 %1, %done
// CHECK: call void @weft.inspect.report_line(ptr %0, i64 %1, ptr %2, i64 %3, ptr %4, i64 %5, ptr %6, ptr %7, i1 false)
// CHECK: %held = and i1
// CHECK: %e = load i64
// CHECK: store i64 %e, ptr %8
// CHECK: %rows.end = load i32
// CHECK: sext i32 %rows.end to i64
// CHECK: %rows.at = getelementptr i8, ptr %11
// CHECK: call void @weft.inspect.report_line(ptr %0, i64 %1, ptr %rows.at, i64 %rows.bytes, ptr %4, i64 %5, ptr %6, ptr %7, i1 false)
// CHECK: define internal void @weft.inspect.fast_flush(
// CHECK: call i32 @weft_inspect_fast_flush(ptr %0, ptr %1)
// REMARK: applied: inspector/executor: region 0
// run: @test(500, 7)
// run: @test(3, 1)
// cores: 1,2,3
#include <stdlib.h>
__attribute__((noinline)) void kernel(int n, const int *restrict rowptr, const int *restrict col,
                                      const double *restrict val, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = rowptr[i]; j < rowptr[i + 1]; j++) s += val[j] * x[col[j]];
    y[i] = s;
  }
}
long test(long n, long deg) {
  int *rowptr = malloc((n + 1) * sizeof(int)), *col = malloc(n * deg * sizeof(int));
  double *val = malloc(n * deg * sizeof(double)), *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  unsigned seed = 12345;
  long nnz = 0;
  for (long i = 0; i < n; i++) {
    rowptr[i] = (int)nnz;
    long d = 1 + (i * 7) % deg;
    for (long k = 0; k < d; k++) { seed = seed * 1103515245u + 12345u; col[nnz] = (int)((seed >> 8) % n); val[nnz] = (double)(k + 1) / (i + 2); nnz++; }
  }
  rowptr[n] = (int)nnz;
  for (long i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 13);
  double s = 0;
  for (int it = 0; it < 3; it++) {
    kernel((int)n, rowptr, col, val, x, y);
    for (long i = 0; i < n; i++) { s = s * 0.75 + y[i]; x[i] = y[i] * 0.01 + 1.0; }
  }
  free(rowptr); free(col); free(val); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
