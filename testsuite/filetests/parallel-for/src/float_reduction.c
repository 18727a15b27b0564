// PASSES: parallel-for<only=kernel>
// CHECK-NOT: weft_parallel_for
// REMARK: floating-point reduction
// REMARK: --fp-reassoc would run it in parallel
// run: @test(100)
#include <stdlib.h>
__attribute__((noinline)) double kernel(long n, const double *restrict a) {
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i];
  return s;
}
double test(long n) {
  double *a = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) a[i] = 1.0 / (i + 1);
  double s = kernel(n, a);
  free(a);
  return s;
}
