// PASSES: insert-inspector<slab=16>
// CHECK: call i32 @weft_run_irregular(i32 %weft.region, i64 0, i64 {{.*}}, i64 16, ptr @kernel.weft.inspect.0.phases,
// CHECK: define internal void @kernel.weft.inspect.0(
// CHECK-NOT: weft_inspect_maps_only
// CHECK: call void @weft.inspect.report_line(ptr %insp, i64 %weft.k
// CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 0)
// CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 1)
// CHECK: call i32 @weft_inspect_checked(
// CHECK: define internal void @kernel.weft.inspect.0.writes(
// CHECK-NOT: report_line
// CHECK-NOT: i1 true, i32 0)
// CHECK: call void @weft.inspect.report_checked(ptr %insp, i64 %weft.k, ptr {{.*}}, i32 8, i64 {{.*}}, i1 true, i32 1)
// CHECK: define internal void @kernel.weft.inspect.0.phases(
// CHECK: call i32 @weft_inspect_writes_first(ptr %insp, ptr %weft.writes_only)
// CHECK: call void @kernel.weft.inspect.0.writes(
// CHECK: call void @kernel.weft.inspect.0(
// REMARK: slab 16 iterations
// run: @test(2000, 300)
// run: @test(5, 2)
// cores: 1,2,4
#include <stdlib.h>
/* Edge-list scatter: indirect writes y[dst[e]] += ...; slabs that write the same
   y[] elements are ordered by the runtime's dependence check. */
__attribute__((noinline)) void kernel(long m, const int *restrict src, const int *restrict dst,
                                      const double *restrict w, const double *restrict x, double *restrict y) {
  for (long e = 0; e < m; e++) y[dst[e]] += w[e] * x[src[e]];
}
long test(long m, long n) {
  int *src = malloc(m * sizeof(int)), *dst = malloc(m * sizeof(int));
  double *w = malloc(m * sizeof(double)), *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  unsigned seed = 99;
  for (long e = 0; e < m; e++) {
    seed = seed * 1103515245u + 12345u; src[e] = (int)((seed >> 8) % n);
    seed = seed * 1103515245u + 12345u; dst[e] = (int)((seed >> 8) % n);
    w[e] = 1.0 / (double)(e + 3);
  }
  for (long i = 0; i < n; i++) { x[i] = (double)i * 0.125 + 1.0; y[i] = 0.0; }
  kernel(m, src, dst, w, x, y);
  kernel(m, src, dst, w, x, y);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.9 + y[i];
  free(src); free(dst); free(w); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
