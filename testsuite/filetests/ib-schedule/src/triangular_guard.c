// PASSES: strip-mine,ib-schedule<scheme=balanced>
// CHECK: call i32 @weft_run_affine
// CHECK: call i32 @weft_parallel_for
// REMARK: x i0 + 1 at i0 = tc/2 per iteration, at loop entry) run in static chunks on weft_parallel_for
// run: @test(300)
#include <stdlib.h>
#include <string.h>

/* Triangular nest (j <= i): the run-time work guard evaluates the inner trip
   count at the middle of i (issue 34); n = 300 gives 300 x (1 + 150) = 45,300
   innermost iterations, below the bank-aware threshold, so the run takes
   static chunks (the Default schedule) without inspection. */
__attribute__((noinline)) void kernel(long n, const double *restrict a, double *restrict c) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j <= i; j++)
      c[i * n + j] = a[i * n + j] * 2.0 + a[j * n + i];
}

long test(long n) {
  double *a = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
  for (long k = 0; k < n * n; k++) { a[k] = (double)(k % 17) + 0.5; c[k] = 0.0; }
  kernel(n, a, c);
  unsigned long h = 1469598103934665603ul;
  for (long k = 0; k < n * n; k++) { unsigned long x; memcpy(&x, &c[k], 8); h = (h ^ x) * 1099511628211ul; }
  free(a); free(c);
  return (long)h;
}
