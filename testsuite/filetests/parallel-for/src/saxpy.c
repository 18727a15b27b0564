// PASSES: parallel-for
// CHECK: void @kernel(
// CHECK-NOT: for.body:
// CHECK: call i32 @weft_parallel_for(i64 0, i64
// CHECK: define internal void @kernel.weft.body.0(ptr %ctx, i64 %lo, i64 %hi)
// REMARK: applied: executor form: body @kernel.weft.body.0
// run: @test(1000)
// run: @test(7)
// run: @test(0)
#include <stdlib.h>
__attribute__((noinline)) void kernel(int n, double *restrict y, const double *restrict x, double a) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
long test(long n) {
  double *x = malloc((n + 1) * sizeof(double)), *y = malloc((n + 1) * sizeof(double));
  for (long i = 0; i < n; i++) { x[i] = i * 0.5; y[i] = 1.0 / (i + 1); }
  kernel((int)n, y, x, 3.25);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.999 + y[i];
  free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
