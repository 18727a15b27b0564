// PASSES: insert-inspector
// CHECK: define internal void @kernel.weft.inspect.0(ptr %ctx, i64 %lo, i64 %hi, ptr %insp)
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %arrayidx, i64 4,
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %arrayidx2, i64 24,
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %add.ptr, i64 8,
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %arrayidx14, i64 8,
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k, ptr %add.ptr17, i64 16,
// CHECK-NOT: report_line
// CHECK: ret void
// REMARK: applied: inspector/executor: region 0
// run: @test(400)
// run: @test(3)
// cores: 1,2,3
// Inspector report coalescing: x[3c], x[3c+1], x[3c+2] cover 24 contiguous
// bytes and are reported once; zc[0] and zc[2] leave a gap and stay two
// reports; yi[0], yi[1] (the stores, unchecked in a parallel loop) are one
// 16-byte report.
#include <stdlib.h>
__attribute__((noinline)) void kernel(int n, const int *restrict idx, const double *restrict x,
                                      const double *restrict z, double *restrict y) {
  for (int i = 0; i < n; i++) {
    int c = idx[i];
    double s = x[3 * c] + 2.0 * x[3 * c + 1] + 3.0 * x[3 * c + 2];
    const double *zc = z + 4 * c;
    double t = zc[0] - zc[2];
    double *yi = y + 2 * i;
    yi[0] = s;
    yi[1] = t;
  }
}
long test(long n) {
  int *idx = malloc(n * sizeof(int));
  double *x = malloc(3 * n * sizeof(double)), *z = malloc(4 * n * sizeof(double)), *y = malloc(2 * n * sizeof(double));
  unsigned seed = 777;
  for (long i = 0; i < n; i++) { seed = seed * 1103515245u + 12345u; idx[i] = (int)((seed >> 8) % n); }
  for (long i = 0; i < 3 * n; i++) x[i] = 1.0 + (double)(i % 17) / 8;
  for (long i = 0; i < 4 * n; i++) z[i] = 2.0 - (double)(i % 11) / 4;
  double s = 0;
  for (int it = 0; it < 3; it++) {
    kernel((int)n, idx, x, z, y);
    for (long i = 0; i < 2 * n; i++) s = s * 0.5 + y[i];
    for (long i = 0; i < n; i++) x[i] += y[i] * 0.001;
  }
  free(idx); free(x); free(z); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
