// PASSES: parallel-for<only=kernel;fp-reassoc>
// CHECK: double @kernel(
// CHECK: call i32 @weft_parallel_for(i64 0, i64 64, ptr @kernel.weft.blocks.0
// CHECK: call void @kernel.weft.fold.0(
// CHECK: define internal void @kernel.weft.body.0(
// CHECK-NOT: atomicrmw
// CHECK: define internal void @kernel.weft.blocks.0(
// CHECK: call void @kernel.weft.body.0(
// CHECK: define internal void @kernel.weft.fold.0(
// CHECK: call double @llvm.maxnum.f64(
// CHECK: fadd double
// REMARK: combined in block order
// run: @test(1000)
// run: @test(70)
// run: @test(3)
// run: @test(0)
// Values are small integers, so every summation order gives the same bits and
// the transformed result must equal the original exactly.
#include <math.h>
#include <stdlib.h>
__attribute__((noinline)) double kernel(long n, const double *restrict a, const double *restrict b,
                                        long *restrict cnt) {
  double s = 0, d = 0, m = -1e300;
  long c = 0;
  for (long i = 0; i < n; i++) {
    s += a[i];
    d += a[i] * b[i];
    m = fmax(m, b[i]);
    c += a[i] > 0;
  }
  *cnt = c;
  return s + 3 * d + 7 * m;
}
double test(long n) {
  double *a = malloc((n + 1) * sizeof(double)), *b = malloc((n + 1) * sizeof(double));
  for (long i = 0; i < n; i++) {
    a[i] = (double)((i * 37) % 101) - 50;
    b[i] = (double)((i * 11) % 13);
  }
  long c = 0;
  double s = kernel(n, a, b, &c);
  free(a); free(b);
  return s + c;
}
