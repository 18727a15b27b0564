// PASSES: insert-inspector
// CHECK: define internal void @kernel.weft.inspect.0(ptr %ctx, i64 %lo, i64 %hi, ptr %insp)
// CHECK: %weft.stream.bytes = mul i64 %weft.stream.n, 8
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %weft.stream, i64 %weft.stream.bytes, {{.*}}, i1 false)
// CHECK-NOT: report_rows
// CHECK: define internal void @weft.inspect.report_line(
// REMARK: applied: inspector/executor: region 0
// run: @test(500, 7)
// run: @test(3, 1)
// cores: 1,2,3
// Rows skipped by a condition other than their own range: the rows of a
// slab do not stream one contiguous range between them, so each row that
// runs reports its own (no weft.inspect.report_rows), and the bank maps
// stay those of the rows that run.
#include <stdlib.h>
__attribute__((noinline)) void kernel(int n, const int *restrict rowptr, const int *restrict col,
                                      const double *restrict val, const double *restrict x,
                                      const int *restrict mask, double *restrict y) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    if (mask[i])
      for (int j = rowptr[i]; j < rowptr[i + 1]; j++) s += val[j] * x[col[j]];
    y[i] = s;
  }
}
long test(long n, long deg) {
  int *rowptr = malloc((n + 1) * sizeof(int)), *col = malloc(n * deg * sizeof(int));
  int *mask = malloc(n * sizeof(int));
  double *val = malloc(n * deg * sizeof(double)), *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  unsigned seed = 12345;
  long nnz = 0;
  for (long i = 0; i < n; i++) {
    rowptr[i] = (int)nnz;
    mask[i] = (i % 3) != 1;
    long d = 1 + (i * 7) % deg;
    for (long k = 0; k < d; k++) { seed = seed * 1103515245u + 12345u; col[nnz] = (int)((seed >> 8) % n); val[nnz] = (double)(k + 1) / (i + 2); nnz++; }
  }
  rowptr[n] = (int)nnz;
  for (long i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 13);
  double s = 0;
  for (int it = 0; it < 3; it++) {
    kernel((int)n, rowptr, col, val, x, mask, y);
    for (long i = 0; i < n; i++) { s = s * 0.75 + y[i]; x[i] = y[i] * 0.01 + 1.0; }
  }
  free(rowptr); free(col); free(mask); free(val); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
