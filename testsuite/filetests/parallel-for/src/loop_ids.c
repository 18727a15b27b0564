// PASSES: parallel-for<only=kernel>
// CHECK: define dso_local void @kernel(
// CHECK: call i32 @weft_parallel_for(
// CHECK: call i32 @weft_parallel_for(
// REMARK: @kernel L0 (for.body): applied
// REMARK: @kernel L1 (for.body6): missed: not parallel: loop-carried scalar
// REMARK: @kernel L2 (for.body17): applied
// run: @test(1000)
// run: @test(3)
// Three loops of one function, as `weft analyze` numbers them: L0 and L2 are
// parallel and outlined, L1 carries a dependence and is refused with its
// reason. Each outlining re-analyses the function, whose loops left are then
// numbered from L0 again; the remarks keep the ids of the input.
#include <stdlib.h>
__attribute__((noinline)) void kernel(long n, double *restrict a, double *restrict b,
                                      double *restrict c) {
  for (long i = 0; i < n; i++) a[i] = b[i] * 2.0;
  for (long i = 1; i < n; i++) b[i] = b[i - 1] + a[i];
  for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
}
double test(long n) {
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  double *c = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) b[i] = 1.0 / (i + 1);
  kernel(n, a, b, c);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.5 + c[i];
  free(a);
  free(b);
  free(c);
  return s;
}
