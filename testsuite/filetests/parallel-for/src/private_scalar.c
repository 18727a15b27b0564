// PASSES: parallel-for<only=kernel>
// CHECK: void @kernel(
// CHECK: call i32 @weft_parallel_for(
// CHECK: weft.last
// CHECK: define internal void @kernel.weft.body.0(
// CHECK: weft.writeback:
// CHECK: store i64 %add, ptr
// REMARK: privatised, last values written back
// run: @test(1000)
// run: @test(1)
// run: @test(0)
// A global scalar set at the top of every iteration and read after it in the
// same iteration: clang keeps it in a register in the loop and stores the last
// value after it, so the loop computes a scalar used after it; the body that
// runs the last iteration hands it back through the context.
#include <stdlib.h>
long t;
__attribute__((noinline)) void kernel(long n, const long *restrict a, long *restrict b) {
  for (long i = 0; i < n; i++) {
    t = a[i] * 3 + 1;
    b[i] = t * t - a[i];
  }
}
long test(long n) {
  long *a = malloc((n + 1) * sizeof(long)), *b = malloc((n + 1) * sizeof(long));
  for (long i = 0; i < n; i++) a[i] = (i * 2654435761u) % 1000;
  t = -7;
  kernel(n, a, b);
  long s = t;
  for (long i = 0; i < n; i++) s = s * 31 + b[i];
  free(a); free(b);
  return s;
}
