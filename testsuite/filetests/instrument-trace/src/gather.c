// PASSES: insert-inspector<slab=8>,instrument-trace<inspectors=true>
// CHECK: define internal void @sweep.weft.inspect.0(
// CHECK: call i32 @weft_trace_reads(ptr %weft.gather.idx, i64 %weft.gather.n, i32 4, i32 7)
// CHECK: call void @weft.inspect.report_gather(ptr %insp, i64 %weft.k, ptr %x.in, ptr %weft.gather.idx, i64 %weft.gather.n,
// CHECK: define internal void @weft.inspect.report_gather(
// CHECK-NOT: weft_trace_access
// CHECK: call i32 @weft_inspect_gather(
// run: @test(200, 4)
// cores: 1,2
#include <stdlib.h>
/* A traced inspector's gather: the runtime loads col[j] for the inspector, and
   the trace records those loads (weft_trace_reads) where the inner loop used to. */
__attribute__((noinline)) void sweep(long first, long last, const int *restrict rows,
                                     const long *restrict rowptr, const int *restrict col,
                                     const double *restrict val, double *restrict x) {
  for (long k = first; k < last; k++) {
    int i = rows[k];
    double s = 1.0;
    for (long j = rowptr[i]; j < rowptr[i + 1]; j++) s -= val[j] * x[col[j]];
    x[i] = s * 0.25;
  }
}
long test(long n, long deg) {
  int *rows = malloc(n * sizeof(int)), *col = malloc((n * deg + 1) * sizeof(int));
  long *rowptr = malloc((n + 1) * sizeof(long));
  double *val = malloc((n * deg + 1) * sizeof(double)), *x = malloc(n * sizeof(double));
  rowptr[0] = 0;
  for (long i = 0; i < n; i++) {
    rows[i] = (int)((i * 7) % n);
    x[i] = 0.0;
    for (long d = 0; d < deg; d++) {
      col[i * deg + d] = (int)((i * 13 + d * 5 + 1) % n);
      val[i * deg + d] = 0.125;
    }
    rowptr[i + 1] = rowptr[i] + deg;
  }
  for (int sw = 0; sw < 3; sw++) sweep(0, n, rows, rowptr, col, val, x);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.9 + x[i];
  free(rows); free(col); free(rowptr); free(val); free(x);
  union { double d; long l; } u = { s };
  return u.l;
}
