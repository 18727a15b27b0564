// PASSES: ib-schedule<scheme=default,min-work=0>
// CHECK: call i32 @weft_run_affine
// REMARK: scheme default
// run: @test(41, 130)
// run: @test(3, 4)
#include <stdlib.h>
#include <string.h>

/* Fig. 5.4(a): b[j][i] = a[j][i-1] + a[j][i] + a[j][i+1] over rows of n doubles. */
__attribute__((noinline)) void kernel(long m, long n, const double *restrict a, double *restrict b) {
  for (long j = 0; j < m; j++)
    for (long i = 2; i < n - 1; i++)
      b[j * n + i] = a[j * n + i - 1] + a[j * n + i] + a[j * n + i + 1];
}

long test(long m, long n) {
  double *a = malloc(sizeof(double) * m * n), *b = malloc(sizeof(double) * m * n);
  for (long k = 0; k < m * n; k++) { a[k] = (double)(k % 97) * 0.37 + 1.0 / (k + 1); b[k] = -1.0; }
  kernel(m, n, a, b);
  unsigned long h = 1469598103934665603ul;
  for (long k = 0; k < m * n; k++) { unsigned long x; memcpy(&x, &b[k], 8); h = (h ^ x) * 1099511628211ul; }
  free(a); free(b);
  return (long)h;
}
