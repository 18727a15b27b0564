// PASSES: insert-inspector<slab=16>
// CHECK: call i32 @weft_run_irregular(i32 %weft.region, i64 0, i64 {{.*}}, i64 16, ptr @kernel.weft.inspect.0,
// CHECK: define internal void @kernel.weft.inspect.0(
// CHECK-NOT: weft_inspect_maps_only
// CHECK-NOT: report_checked
// CHECK-NOT: weft_inspect_checked
// CHECK-NOT: inspect.0.writes
// REMARK: parallel by its function's `weft.parallel` annotation
// run: @test(2000, 300)
// run: @test(5, 2)
// cores: 1,2,4
#include <stdlib.h>
/* A permuted update y[perm[i]] += w[i] * x[i]: the analysis cannot prove the
   writes distinct, the `weft.parallel` annotation asserts it (perm is a
   permutation), so the loop is scheduled without the dependence check. Its
   inspector reports unchecked accesses only but does not declare maps-only:
   the runtime inspects it lazily, like the loops whose inspections cost. */
__attribute__((noinline, annotate("weft.parallel"))) void kernel(long n, const int *restrict perm,
                                      const double *restrict w, const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; i++) y[perm[i]] += w[i] * x[i];
}
long test(long n, long reps) {
  int *perm = malloc(n * sizeof(int));
  double *w = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) perm[i] = (int)i;
  unsigned seed = 7;
  for (long i = n - 1; i > 0; i--) {
    seed = seed * 1103515245u + 12345u;
    long j = (long)((seed >> 8) % (unsigned)(i + 1));
    int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  for (long i = 0; i < n; i++) { w[i] = 1.0 / (double)(i + 3); x[i] = (double)i * 0.125 + 1.0; y[i] = 0.0; }
  for (long r = 0; r < reps; r++) kernel(n, perm, w, x, y);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.9 + y[i];
  free(perm); free(w); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
