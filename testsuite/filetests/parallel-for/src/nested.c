// PASSES: parallel-for
// CHECK: call i32 @weft_parallel_for(
// CHECK: define internal void @kernel.weft.body.0(
// REMARK: applied
// run: @test(37, 53)
// run: @test(1, 1)
#include <stdlib.h>
__attribute__((noinline)) void kernel(int n, int m, double *restrict c, const double *restrict a, const double *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      c[i * m + j] = a[i * m + j] * b[j] + (double)i;
}
long test(long n, long m) {
  double *a = malloc(n * m * sizeof(double)), *b = malloc(m * sizeof(double)), *c = malloc(n * m * sizeof(double));
  for (long i = 0; i < n * m; i++) a[i] = (double)(i % 17) * 0.25;
  for (long j = 0; j < m; j++) b[j] = (double)j - 3.0;
  kernel((int)n, (int)m, c, a, b);
  double s = 0;
  for (long i = 0; i < n * m; i++) s = s * 0.5 + c[i];
  free(a); free(b); free(c);
  union { double d; long l; } u = { s };
  return u.l;
}
