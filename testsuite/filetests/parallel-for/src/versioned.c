// PASSES: parallel-for
// CHECK: @weft.alias.site = internal global [2 x i64] zeroinitializer
// CHECK: define dso_local void @kernel(
// CHECK: call i32 @weft_alias_check(ptr @weft.alias.site, i32
// CHECK: weft.alias.ok:
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @kernel.weft.body.0
// CHECK: weft.alias.join:
// CHECK: %weft.alias.status = phi i32
// CHECK: weft.fallback:
// CHECK: call void @kernel.weft.body.0(ptr %weft.ctx, i64 0, i64 %weft.tc)
// REMARK: @kernel L0 (for.cond1.preheader): applied: executor form: body @kernel.weft.body.0 run by weft_parallel_for; versioned on a run-time alias check of 2 base pair(s)
// cores: 1,2,3
// run: @test(37, 53, 0)
// run: @test(37, 53, 1)
// run: @test(37, 53, 2)
// run: @test(1, 1, 1)
// run: @test(0, 5, 0)
//
// Plain pointers (no restrict): the bases c, a and b may alias, so the nest
// is parallel only when the ranges c[0, n*m), a[0, n*m) and b[0, m) are
// disjoint at run time. mode 0: three arrays (the check passes, the loop runs
// in parallel); mode 1: c = a + m, each iteration writes the row the next one
// reads (a real carried dependence: the check fails, the original order
// runs); mode 2: c = a, in place (no carried dependence, but the ranges
// overlap: the check fails, conservatively).
#include <stdlib.h>
__attribute__((noinline)) void kernel(long n, long m, double *c, const double *a, const double *b) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < m; j++)
      c[i * m + j] = a[i * m + j] * b[j] + (double)i;
}
long test(long n, long m, long mode) {
  double *a = malloc((n + 1) * m * sizeof(double) + 8), *b = malloc(m * sizeof(double) + 8);
  double *c = mode == 0 ? malloc(n * m * sizeof(double) + 8) : mode == 1 ? a + m : a;
  for (long i = 0; i < (n + 1) * m; i++) a[i] = (double)(i % 17) * 0.25 + 1.0;
  for (long j = 0; j < m; j++) b[j] = (double)j * 0.5 + 1.0;
  kernel(n, m, c, a, b);
  double s = 0;
  for (long i = 0; i < n * m; i++) s = s * 0.5 + c[i];
  free(a); free(b);
  if (mode == 0) free(c);
  union { double d; long l; } u = { s };
  return u.l;
}
