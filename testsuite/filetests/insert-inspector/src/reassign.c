// PASSES: insert-inspector
// CHECK: @weft.regions.dirty = internal global i8 0
// CHECK: call i32 @weft_run_irregular(
// CHECK: store atomic i8 1, ptr @weft.regions.dirty monotonic, align 1
// CHECK: i64 @test(
// CHECK: call void @weft.regions.reset()
// CHECK: define internal void @weft.regions.reset()
// CHECK: load atomic i8, ptr @weft.regions.dirty monotonic
// CHECK: store atomic i8 0, ptr @weft.regions.dirty monotonic
// CHECK: call i32 @weft_region_reset(i32 0)
// REMARK: invalidation point(s)
// run: @test(300)
// cores: 1,2
#include <stdlib.h>
/* The index array is rebuilt in place between executions (same pointer, new
   contents), as Moldyn's neighbour lists are: the cached schedule must be dropped. */
__attribute__((noinline)) void kernel(long n, const int *restrict idx, const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; i++) y[idx[i]] += x[i];
}
long test(long n) {
  int *idx = malloc(n * sizeof(int));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) { x[i] = (double)i + 0.5; y[i] = 0; }
  double s = 0;
  for (int step = 0; step < 4; step++) {
    for (long i = 0; i < n; i++) idx[i] = (int)((i * (step + 3)) % (n / (step + 1)));
    kernel(n, idx, x, y);
    for (long i = 0; i < n; i++) s = s * 0.5 + y[i];
  }
  free(idx); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
