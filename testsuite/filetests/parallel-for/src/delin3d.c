// PASSES: parallel-for
// CHECK: define dso_local void @heat(
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @heat.weft.body.0
// REMARK: @heat L1 (for.cond5.preheader): applied: executor form: body @heat.weft.body.0
// cores: 1,2,3
// run: @test(16, 2)
// run: @test(11, 3)
// run: @test(3, 1)
//
// 3-D stencil over `double (*a)[N][N]` with a symbolic trip count `n`: the
// in-place update of a[i][j][k] (linearised 8*N*N*i + 8*N*j + 8*k) is
// independent across i only when j and k stay within their dimensions, which
// C guarantees; the time loop t carries the dependence and stays sequential.
#include <stdlib.h>
#define N 16
__attribute__((noinline)) void heat(long n, long steps, double (*restrict a)[N][N], const double (*restrict b)[N][N]) {
  for (long t = 0; t < steps; t++)
    for (long i = 1; i < n - 1; i++)
      for (long j = 1; j < n - 1; j++)
        for (long k = 1; k < n - 1; k++)
          a[i][j][k] = 0.5 * a[i][j][k] + 0.1 * (b[i - 1][j][k] + b[i + 1][j][k] + b[i][j - 1][k] + b[i][j][k + 1]);
}
long test(long n, long steps) {
  double (*a)[N][N] = malloc(sizeof(double[N][N][N])), (*b)[N][N] = malloc(sizeof(double[N][N][N]));
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++)
      for (long k = 0; k < N; k++) {
        a[i][j][k] = (double)((i * 7 + j * 3 + k) % 11) * 0.5;
        b[i][j][k] = (double)((i * 5 + j + k * 2) % 13) * 0.25;
      }
  heat(n, steps, a, b);
  double s = 0;
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++)
      for (long k = 0; k < N; k++) s = s * 0.5 + a[i][j][k];
  free(a); free(b);
  union { double d; long l; } u = { s };
  return u.l;
}
