// PASSES: parallel-for<only=kernel>
// CHECK-NOT: weft_parallel_for
// REMARK: missed: not parallel
// run: @test(100)
#include <stdlib.h>
__attribute__((noinline)) void kernel(long n, double *a) {
  for (long i = 1; i < n; i++) a[i] = a[i - 1] * 0.5 + a[i];
}
double test(long n) {
  double *a = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) a[i] = (double)i;
  kernel(n, a);
  double s = a[n - 1];
  free(a);
  return s;
}
