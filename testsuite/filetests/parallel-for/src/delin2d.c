// PASSES: parallel-for
// CHECK: define dso_local void @smooth(
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @smooth.weft.body.0
// CHECK: define dso_local void @seidel(
// CHECK-NOT: @weft_parallel_for
// CHECK: define {{.*}} @test(
// REMARK: @smooth L0 (for.cond1.preheader): applied: executor form: body @smooth.weft.body.0
// REMARK: @seidel L0 (for.cond1.preheader): missed: not parallel
// cores: 1,2,3
// run: @test(64)
// run: @test(37)
// run: @test(3)
//
// Delinearisation over `double (*a)[N]` with a symbolic trip count `n`: the
// linearised offsets 8*N*i + 8*j of the in-place update a[i][j] could collide
// across rows when j > N, so only the per-dimension test (each subscript
// within its dimension, C semantics) proves the i loop of @smooth parallel.
// @seidel reads a[i-1][j], written by the previous i iteration: it stays
// sequential.
#include <stdlib.h>
#define N 64
__attribute__((noinline)) void smooth(long n, double (*restrict a)[N], const double (*restrict b)[N]) {
  for (long i = 1; i < n - 1; i++)
    for (long j = 1; j < n - 1; j++)
      a[i][j] = 0.5 * a[i][j] + 0.125 * (b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]);
}
__attribute__((noinline)) void seidel(long n, double (*a)[N]) {
  for (long i = 1; i < n; i++)
    for (long j = 1; j < n; j++)
      a[i][j] = 0.5 * (a[i - 1][j] + a[i][j - 1]);
}
long test(long n) {
  double (*a)[N] = malloc(sizeof(double[N][N])), (*b)[N] = malloc(sizeof(double[N][N]));
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++) {
      a[i][j] = (double)((i * 7 + j * 3) % 11) * 0.5;
      b[i][j] = (double)((i * 5 + j) % 13) * 0.25;
    }
  smooth(n, a, b);
  seidel(n, b);
  double s = 0;
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++) s = s * 0.5 + a[i][j] + b[i][j];
  free(a); free(b);
  union { double d; long l; } u = { s };
  return u.l;
}
