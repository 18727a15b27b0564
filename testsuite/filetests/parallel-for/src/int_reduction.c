// PASSES: parallel-for
// CHECK: i64 @kernel(
// CHECK: call i32 @weft_parallel_for(
// CHECK: weft.red.final
// CHECK: define internal void @kernel.weft.body.0(
// CHECK: atomicrmw add ptr
// REMARK: 1 integer reduction(s) combined atomically
// run: @test(1000)
// run: @test(1)
// run: @test(0)
#include <stdlib.h>
__attribute__((noinline)) long kernel(long n, const int *restrict a, int *restrict b) {
  long s = 17;
  for (long i = 0; i < n; i++) { b[i] = a[i] * 3; s += a[i] * (long)a[i]; }
  return s;
}
long test(long n) {
  int *a = malloc((n + 1) * sizeof(int)), *b = malloc((n + 1) * sizeof(int));
  for (long i = 0; i < n; i++) a[i] = (int)(i * 2654435761u % 1000) - 500;
  long s = kernel(n, a, b);
  for (long i = 0; i < n; i++) s = s * 31 + b[i];
  free(a); free(b);
  return s;
}
