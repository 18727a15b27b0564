// PASSES: parallel-for<only=kernel;fp-reassoc>
// CHECK: define dso_local double @kernel(
// CHECK: call i32 @weft_alias_check(ptr @weft.alias.site, i32
// CHECK: weft.alias.ok:
// CHECK: call i32 @weft_parallel_for(i64 0, i64 64, ptr @kernel.weft.blocks.0
// CHECK: weft.alias.join:
// CHECK: %weft.alias.status = phi i32
// CHECK: weft.fallback:
// CHECK: call void @kernel.weft.blocks.0(ptr %weft.blocks.ctx, i64 0, i64 64)
// CHECK: call void @kernel.weft.fold.0(
// REMARK: combined in block order (--fp-reassoc: reproducible for any worker count, not bit-equal to the sequential order); versioned on a run-time alias check of 1 base pair(s) (x/y), the blocks in order on the calling thread when it fails
// cores: 1,2,3
// run: @test(1000, 0)
// run: @test(1000, 1)
// run: @test(1000, 2)
// run: @test(70, 0)
// run: @test(70, 1)
// run: @test(3, 0)
// run: @test(0, 0)
//
// A floating-point sum (ordered reduction, --fp-reassoc) in a loop over plain
// pointers: y and x may alias, so the loop is parallel only when y[0, n) and
// x[0, n) are disjoint at run time. mode 0: two arrays (the check passes, the
// blocks run in parallel); mode 1: y = x + 1, each iteration writes the
// element the next one reads (a real carried dependence: the check fails and
// the blocks run in order on the calling thread, every iteration in the
// original order); mode 2: y = x, in place (the ranges overlap: the check
// fails, conservatively). Values are small integers, so every grouping of
// the sum gives the same bits and the transformed result must equal the
// original exactly in every mode.
#include <stdlib.h>
__attribute__((noinline)) double kernel(long n, double *y, const double *x) {
  double s = 0;
  for (long i = 0; i < n; i++) {
    y[i] = x[i] - 1.0;
    s += x[i] * y[i];
  }
  return s;
}
double test(long n, long mode) {
  double *x = malloc((n + 2) * sizeof(double));
  double *y = mode == 0 ? malloc((n + 1) * sizeof(double)) : mode == 1 ? x + 1 : x;
  for (long i = 0; i < n + 1; i++) x[i] = (double)(i % 17) - 8.0;
  double s = kernel(n, y, x);
  double t = 0;
  for (long i = 0; i < n; i++) t = t * 0.5 + y[i];
  free(x);
  if (mode == 0) free(y);
  return s + 3.0 * t;
}
