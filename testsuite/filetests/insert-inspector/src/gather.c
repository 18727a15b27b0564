// PASSES: insert-inspector<slab=8>
// CHECK: define internal void @sweep.weft.inspect.0(
// CHECK: %weft.gather.idx = getelementptr i8, ptr %col.in, i64 %weft.gather.off
// CHECK: %weft.gather.n = sub i64
// CHECK: call void @weft.inspect.report_gather(ptr %insp, i64 %weft.k, ptr %x.in, ptr %weft.gather.idx, i64 %weft.gather.n, ptr %weft.fast, ptr %weft.fast.cur, i64 8, i32 8, i32 0, i32 4)
// CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 1)
// CHECK: define internal void @weft.inspect.report_gather(
// CHECK: call i32 @weft_inspect_gather(ptr %0, ptr %5, i64 %1, ptr %2, ptr %3, i64 %4, i32 %10, i64 %7, i32 %8, i32 %9)
// CHECK: define internal void @sweep.weft.inspect.0.writes(
// CHECK-NOT: report_gather
// CHECK: define internal void @sweep64.weft.inspect.0(
// CHECK: call void @weft.inspect.report_gather(ptr %insp, i64 %weft.k, ptr %x.in, ptr %weft.gather.idx, i64 %weft.gather.n, ptr %weft.fast, ptr %weft.fast.cur, i64 8, i32 8, i32 0, i32 8)
// CHECK: define internal void @scatter_rows.weft.inspect.0(
// CHECK-NOT: report_gather
// CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 1)
// REMARK: slab 8 iterations
// run: @test(300, 5)
// run: @test(40, 0)
// cores: 1,2,4
#include <stdlib.h>
/* Gauss-Seidel-like sweeps over a list of rows: the reads x[col[j]] of a CSR row
   are gathered (one weft_inspect_gather per row in the inspector), the write x[i]
   is checked; rows of one call may depend on each other, which the runtime's
   dependence check orders. col as int (sweep) and as long (sweep64); scatter_rows
   writes in its inner loop, so its reads are reported one by one. */
#define SWEEP(name, T)                                                                      \
  __attribute__((noinline)) void name(long first, long last, const int *restrict rows,       \
                                      const long *restrict rowptr, const T *restrict col,    \
                                      const double *restrict val, const double *restrict b,  \
                                      double *restrict x) {                                  \
    for (long k = first; k < last; k++) {                                                    \
      int i = rows[k];                                                                       \
      double s = b[i];                                                                       \
      for (long j = rowptr[i]; j < rowptr[i + 1]; j++) s -= val[j] * x[col[j]];              \
      x[i] = s * 0.25;                                                                       \
    }                                                                                        \
  }
SWEEP(sweep, int)
SWEEP(sweep64, long)
__attribute__((noinline)) void scatter_rows(long n, const long *restrict rowptr,
                                            const int *restrict col, const double *restrict val,
                                            const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; i++)
    for (long j = rowptr[i]; j < rowptr[i + 1]; j++) y[col[j]] += val[j] * x[i];
}
long test(long n, long deg) {
  long nnz = n * deg;
  int *rows = malloc(n * sizeof(int)), *col = malloc((nnz + 1) * sizeof(int));
  long *rowptr = malloc((n + 1) * sizeof(long)), *col64 = malloc((nnz + 1) * sizeof(long));
  double *val = malloc((nnz + 1) * sizeof(double)), *b = malloc(n * sizeof(double));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  unsigned seed = 7;
  for (long i = 0; i < n; i++) {
    rows[i] = (int)i;
    b[i] = 1.0 + (double)(i % 5);
    x[i] = 0.0;
    y[i] = 0.0;
  }
  for (long i = n - 1; i > 0; i--) { /* rows in a random order */
    seed = seed * 1103515245u + 12345u;
    long r = (long)((seed >> 8) % (unsigned)(i + 1));
    int t = rows[i]; rows[i] = rows[r]; rows[r] = t;
  }
  rowptr[0] = 0;
  for (long i = 0; i < n; i++) { /* rows of 0 .. 2*deg entries, some near i */
    seed = seed * 1103515245u + 12345u;
    long len = deg ? (long)((seed >> 8) % (unsigned)(2 * deg + 1)) : 0;
    if (rowptr[i] + len > nnz) len = nnz - rowptr[i];
    for (long j = rowptr[i]; j < rowptr[i] + len; j++) {
      seed = seed * 1103515245u + 12345u;
      long c = (seed >> 9) % 4 ? (i + (long)((seed >> 12) % 7) - 3 + n) % n : (long)((seed >> 12) % n);
      col[j] = (int)c;
      col64[j] = c;
      val[j] = 0.0625 * (double)(1 + (j % 3));
    }
    rowptr[i + 1] = rowptr[i] + len;
  }
  for (int sw = 0; sw < 3; sw++) {
    sweep(0, n / 3, rows, rowptr, col, val, b, x);
    sweep(n / 3, n, rows, rowptr, col, val, b, x);
    sweep64(0, n, rows, rowptr, col64, val, b, x);
  }
  scatter_rows(n, rowptr, col, val, x, y);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.9 + x[i] + 0.5 * y[i];
  free(rows); free(col); free(rowptr); free(col64); free(val); free(b); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
