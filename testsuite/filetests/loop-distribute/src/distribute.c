// PASSES: loop-distribute,parallel-for
// CHECK: define dso_local void @atax(
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @atax.weft.body.0
// CHECK: define dso_local void @fwd(
// CHECK: @fwd.weft.body
// CHECK: define dso_local void @bad(
// CHECK-NOT: .dist:
// CHECK: define {{.*}} @test(
// REMARK: @atax L0 (for.body4): applied: distributed at for.cond20.preheader into two loops: the first parallel, the second sequential (1 value(s) rebuilt in the second)
// REMARK: @fwd L0 (for.cond1.preheader): applied: distributed at for.cond13.preheader into two loops: the first sequential, the second parallel
// REMARK: @bad L0 (for.cond1.preheader): missed: not parallel
// REMARK: @bad L0 (for.cond1.preheader): missed: not distributed: at for.cond10.preheader: dependence between the parts
// run: @test(9, 7)
// run: @test(1, 5)
// run: @test(40, 33)
// cores: 1,3
// Loop distribution: the row loop of atax mixes a parallel dot product
// (tmp[i]) with a recurrence over rows (y[j] += ...): split, the first loop
// runs in parallel. fwd: a recurrence over rows of s, then a parallel use of
// the row just computed (a forward dependence, kept). bad: the first part
// reads the row of b the second part wrote in the previous iteration (a
// backward dependence): not split.
#include <stdlib.h>
__attribute__((noinline)) void atax(long m, long n, const double *restrict a,
                                    const double *restrict x, double *restrict y,
                                    double *restrict tmp) {
  for (long j = 0; j < n; j++) y[j] = 0.0;
  for (long i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (long j = 0; j < n; j++) tmp[i] = tmp[i] + a[i * n + j] * x[j];
    for (long j = 0; j < n; j++) y[j] = y[j] + a[i * n + j] * tmp[i];
  }
}
__attribute__((noinline)) void fwd(long n, long m, double *restrict s, const double *restrict a,
                                   double *restrict c) {
  for (long i = 1; i < n; i++) {
    for (long j = 0; j < m; j++) s[i * m + j] = s[(i - 1) * m + j] * 0.5 + a[i * m + j];
    for (long j = 0; j < m; j++) c[i * m + j] = s[i * m + j] * 2.0 - a[i * m + j];
  }
}
__attribute__((noinline)) void bad(long n, long m, double *restrict a, double *restrict b) {
  for (long i = 1; i < n; i++) {
    for (long j = 0; j < m; j++) a[i * m + j] = b[(i - 1) * m + j] + 1.0;
    for (long j = 0; j < m; j++) b[i * m + j] = b[(i - 1) * m + j] * 0.5 + a[i * m + j];
  }
}
double test(long m, long n) {
  long sz = (m + 1) * (n + 1);
  double *a = malloc(sz * sizeof(double)), *x = malloc(sz * sizeof(double));
  double *y = malloc(sz * sizeof(double)), *t = malloc(sz * sizeof(double));
  double *s = malloc(sz * sizeof(double)), *c = malloc(sz * sizeof(double));
  for (long i = 0; i < sz; i++) {
    a[i] = (double)((i * 37) % 101) - 50;
    x[i] = (double)((i * 13) % 7) - 3;
    s[i] = (double)(i % 5);
    c[i] = 0;
    t[i] = 0;
    y[i] = 0; /* atax writes only y[0..n); the sum reads all of it */
  }
  atax(m, n, a, x, y, t);
  fwd(m, n, s, a, c);
  bad(m, n, x, s);
  double r = 0;
  for (long i = 0; i < sz; i++) r = r * 0.5 + y[i] + t[i] + s[i] + c[i] + x[i];
  free(a); free(x); free(y); free(t); free(s); free(c);
  return r;
}
