// PASSES: parallel-for
// MIN-PARALLEL-ITERS: 32
// SERIAL-CONSUMER-BYTES: 4096
// CHECK: i64 @test(
// CHECK: %weft.limit = select i1 %{{.*}}, i64 %weft.grain, i64 513
// CHECK: call i32 @weft_parallel_for(
// CHECK: %weft.limit{{.*}} = select i1 %{{.*}}, i64 %weft.grain{{.*}}, i64 32
// CHECK: call i32 @weft_parallel_for(
// REMARK: @test L0 (for.body): applied: executor form: body @test.weft.body.0 run by weft_parallel_for; runs inline up to 512 iteration(s) (8 B per iteration, at most 4096 B written): only serial code reads what it writes (@scan L0, @test L2)
// REMARK: @test L1 (for.body10): applied: executor form: body @test.weft.body.1 run by weft_parallel_for
// REMARK: @scale L0 (for.body): applied: executor form: body @scale.weft.body.0 run by weft_parallel_for
// run: @test(1000)
// run: @test(513)
// run: @test(512)
// run: @test(7)
// run: @test(0)
#include <stdlib.h>
/* A prefix sum: every iteration depends on the one before, so it stays serial. */
__attribute__((noinline)) void scan(long n, double *restrict a) {
  for (long i = 1; i < n; i++) a[i] += a[i - 1];
}
/* A parallel consumer: what `b` gets stays on the workers. */
__attribute__((noinline)) void scale(long n, double *restrict b) {
  for (long i = 0; i < n; i++) b[i] *= 3.0;
}
long test(long n) {
  double *a = malloc((n + 1) * sizeof(double)), *b = malloc((n + 1) * sizeof(double));
  for (long i = 0; i < n; i++) a[i] = i * 0.5;       /* read only by `scan`: marked */
  for (long i = 0; i < n; i++) b[i] = 1.0 / (i + 1); /* read by `scale`: not marked */
  scan(n, a);
  scale(n, b);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.999 + a[i] + b[i];
  free(a); free(b);
  union { double d; long l; } u = { s };
  return u.l;
}
