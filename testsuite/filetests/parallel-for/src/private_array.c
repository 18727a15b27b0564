// PASSES: parallel-for<only=kernel>
// CHECK: void @kernel(
// CHECK: call i32 @weft_parallel_for(
// CHECK: define internal void @kernel.weft.body.0(
// CHECK: weft.private = alloca [64 x double]
// CHECK-NOT: weft.writeback
// REMARK: privatised, last values written back
// run: @test(50)
// run: @test(3)
// run: @test(0)
// A temporary row, local to the outer iteration, filled by one inner loop
// and read by the next: a private copy per worker.
#include <stdlib.h>
#define M 64
__attribute__((noinline)) void kernel(long n, const double *restrict a, double *restrict b) {
  for (long i = 0; i < n; i++) {
    double row[M];
    for (long j = 0; j < M; j++) row[j] = a[i * M + j] * 2.0 + 1.0;
    for (long j = 0; j < M; j++) b[i * M + j] = row[j] * row[j] - a[i * M + j];
  }
}
double test(long n) {
  double *a = malloc((n * M + 1) * sizeof(double)), *b = malloc((n * M + 1) * sizeof(double));
  for (long i = 0; i < n * M; i++) a[i] = (double)((i * 37) % 101) - 50;
  kernel(n, a, b);
  double s = 0;
  for (long i = 0; i < n * M; i++) s = s * 0.5 + b[i];
  free(a); free(b);
  return s;
}
