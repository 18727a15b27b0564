// PASSES: insert-inspector,parallel-for
// MIN-PARALLEL-ITERS: 32
// SERIAL-CONSUMER-BYTES: 4096
// REMARK: @gather L0 (for.body): applied: inspector/executor
// REMARK: @test L0 (for.body): applied: executor form: body @test.weft.body.0 run by weft_parallel_for; runs inline up to 512 iteration(s) (8 B per iteration, at most 4096 B written): only serial code reads what it writes (@gather L0)
// REMARK: @test L1 (for.body15): applied: executor form: body @test.weft.body.1 run by weft_parallel_for
// REMARK: @test L2 (for.body27): applied: executor form: body @test.weft.body.2 run by weft_parallel_for; runs inline up to 1024 iteration(s) (4 B per iteration
// REMARK: @scale L0 (for.body): applied: executor form
// run: @test(1000)
// run: @test(300)
// run: @test(0)
#include <stdlib.h>
/* An index-array loop: `insert-inspector` takes it, and whether it runs on
   the workers is the runtime's choice per execution, so for the
   serial-consumer rule it reads `x` serially. */
__attribute__((noinline)) void gather(long n, const int *restrict idx, const double *restrict x,
                                      double *restrict y) {
  for (long i = 0; i < n; i++) y[i] += x[idx[i]];
}
/* Proven parallel: what `z` gets stays on the workers. */
__attribute__((noinline)) void scale(long n, double *restrict z) {
  for (long i = 0; i < n; i++) z[i] *= 3.0;
}
long test(long n) {
  double *x = malloc((n + 1) * sizeof(double)), *y = calloc(n + 1, sizeof(double));
  double *z = malloc((n + 1) * sizeof(double));
  int *idx = malloc((n + 1) * sizeof(int));
  for (long i = 0; i < n; i++) x[i] = i * 0.5;       /* read only by `gather`: marked */
  for (long i = 0; i < n; i++) z[i] = 1.0 / (i + 1); /* read by `scale`: not marked */
  for (long i = 0; i < n; i++) idx[i] = (int)((i * 7919) % (n ? n : 1));
  gather(n, idx, x, y);
  scale(n, z);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.999 + y[i] + z[i];
  free(x); free(y); free(z); free(idx);
  union { double d; long l; } u = { s };
  return u.l;
}
