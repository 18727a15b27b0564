// PASSES: strip-mine,ib-schedule<scheme=clp-first,min-work=0>
// CHECK: call i32 @weft_run_affine
// REMARK: scheme clp-first
// run: @test(5000)
#include <stdlib.h>
#include <string.h>

/* One-dimensional Fig. 5.4(a): i starts at 2, references a[i-1], a[i], a[i+1]. */
__attribute__((noinline)) void kernel(long n, const double *restrict a, double *restrict b) {
  for (long i = 2; i < n - 1; i++)
    b[i] = a[i - 1] + a[i] + a[i + 1];
}

long test(long n) {
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  for (long k = 0; k < n; k++) { a[k] = (double)(k % 89) * 0.5 + 1.0 / (k + 3); b[k] = -2.0; }
  kernel(n, a, b);
  unsigned long h = 1469598103934665603ul;
  for (long k = 0; k < n; k++) { unsigned long x; memcpy(&x, &b[k], 8); h = (h ^ x) * 1099511628211ul; }
  free(a); free(b);
  return (long)h;
}
