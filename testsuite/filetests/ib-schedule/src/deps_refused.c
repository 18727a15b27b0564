// PASSES: ib-schedule<scheme=mlp-first,deps=false,min-work=0>
// CHECK-NOT: @weft_run_affine
// REMARK: deps=false
// run: @test(300)
#include <stdlib.h>
#include <string.h>

/* Not parallel: a[i] depends on a[i-40] (distance 40), so IBs depend on each other. */
__attribute__((noinline)) void kernel(long n, double *restrict a, const double *restrict b) {
  for (long i = 40; i < n; i++)
    a[i] = a[i - 40] * 0.5 + b[i];
}

long test(long n) {
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  for (long k = 0; k < n; k++) { a[k] = (double)(k % 13) + 0.25; b[k] = 1.0 / (k + 1); }
  kernel(n, a, b);
  kernel(n, a, b);
  unsigned long h = 1469598103934665603ul;
  for (long k = 0; k < n; k++) { unsigned long x; memcpy(&x, &a[k], 8); h = (h ^ x) * 1099511628211ul; }
  free(a); free(b);
  return (long)h;
}
