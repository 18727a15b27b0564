// PASSES: insert-inspector
// CHECK: i64 @test(
// CHECK-NOT: weft.regions.reset
// CHECK: ret i64
// CHECK: i64 @test_int(
// CHECK: call void @weft.regions.reset()
// run: @test(300)
// run: @test_int(300)
// cores: 1,2
#include <stdlib.h>
#include <string.h>
/* Clearing a floating-point array between executions (GMRES's work vectors)
   cannot reassign an index array, so the cached schedule survives the memset
   in test; clearing the index array itself (test_int) drops it. */
__attribute__((noinline)) void kernel(long n, const int *restrict idx, const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; i++) y[i] = 2.0 * x[idx[i]];
}
__attribute__((noinline)) void fill(long n, int *idx, int step) {
  for (long i = 0; i < n; i += 2) idx[i] = (int)((i * (step + 7)) % n);
}
__attribute__((noinline)) long sum(long n, const double *y, double s) {
  for (long i = 0; i < n; i++) s = s * 0.5 + y[i];
  union { double d; long l; } u = { s };
  return u.l;
}
long test(long n) {
  int *idx = calloc(n, sizeof(int));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  fill(n, idx, 0);
  long s = 0;
  for (int step = 0; step < 4; step++) {
    memset(x, 0, n * sizeof(double));
    for (long i = 0; i < n; i += 3) x[i] = step + i * 0.25;
    kernel(n, idx, x, y);
    s ^= sum(n, y, (double)step);
  }
  free(idx); free(x); free(y);
  return s;
}
long test_int(long n) {
  int *idx = calloc(n, sizeof(int));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) x[i] = i * 0.5;
  long s = 0;
  for (int step = 0; step < 4; step++) {
    memset(idx, 0, n * sizeof(int));
    fill(n, idx, step);
    kernel(n, idx, x, y);
    s ^= sum(n, y, (double)step);
  }
  free(idx); free(x); free(y);
  return s;
}
