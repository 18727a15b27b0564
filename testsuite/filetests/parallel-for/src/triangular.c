// PASSES: parallel-for
// CHECK: define dso_local void @lu_rows(
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @lu_rows.weft.body.0
// CHECK: define dso_local void @sym(
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @sym.weft.body.0
// CHECK: define dso_local void @shift(
// CHECK-NOT: @shift.weft.body
// CHECK: define {{.*}} @test(
// REMARK: @lu_rows L0 (for.cond1.preheader): missed: not parallel
// REMARK: @lu_rows L1
// REMARK: applied: executor form: body @lu_rows.weft.body.0
// REMARK: @sym L0 (for.cond1.preheader): applied: executor form: body @sym.weft.body.0
// REMARK: @shift L0
// cores: 1,2,3
// run: @test(60, 40)
// run: @test(17, 9)
// run: @test(2, 1)
// run: @test(1, 1)
//
// Triangular bounds (issue 35, loops Polly proves parallel). @lu_rows is LU's
// row update: for a fixed i, the j loop writes columns j >= i of row i and
// reads columns k < i, so it carries nothing; the rectangular hull lets j and
// k both run over [0, n) and refused it. @sym is covariance's symmetric store
// cov[i][j] = cov[j][i] = s for j >= i over a plain row length m: the i loop
// is parallel once the offsets i*m + j are split into rows and columns, which
// is proven unique because every column subscript stays in [0, m). @shift
// writes a[i][j] for j >= i from a[i-1][j] (written by the previous i
// iteration) and a[i][j-1] (the previous j iteration): both loops stay
// sequential.
#include <stdlib.h>
#define N 64
static double A[N][N];
__attribute__((noinline)) void lu_rows(long n) {
  for (long i = 0; i < n; i++)
    for (long j = i; j < n; j++)
      for (long k = 0; k < i; k++) A[i][j] = A[i][j] - A[i][k] * A[k][j];
}
__attribute__((noinline)) void sym(long m, long n, const double *restrict data, double *restrict cov) {
  for (long i = 0; i < m; i++)
    for (long j = i; j < m; j++) {
      double s = 0.0;
      for (long k = 0; k < n; k++) s = s + data[k * m + i] * data[k * m + j];
      cov[i * m + j] = s;
      cov[j * m + i] = s;
    }
}
__attribute__((noinline)) void shift(long n, double (*a)[N]) {
  for (long i = 1; i < n; i++)
    for (long j = i; j < n; j++) a[i][j] = 0.5 * a[i - 1][j] + a[i][j - 1];
}
long test(long n, long m) {
  double *data = malloc((n * m + 1) * sizeof(double)), *cov = malloc((m * m + 1) * sizeof(double));
  static double b[N][N];
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++) {
      A[i][j] = (double)((i * 7 + j * 3) % 11) * 0.125 + (i == j ? (double)N : 0.0);
      b[i][j] = (double)((i + 2 * j) % 5);
    }
  for (long k = 0; k < n * m; k++) data[k] = (double)(k % 17) * 0.25 - 1.0;
  for (long k = 0; k < m * m; k++) cov[k] = 0.0;
  lu_rows(n);
  sym(m, n, data, cov);
  shift(n, b);
  double s = 0;
  for (long i = 0; i < N; i++)
    for (long j = 0; j < N; j++) s = s * 0.5 + A[i][j] + b[i][j];
  for (long k = 0; k < m * m; k++) s = s * 0.5 + cov[k];
  free(data);
  free(cov);
  union { double d; long l; } u = { s };
  return u.l;
}
