// PASSES: instrument-trace<only=kernel>
// CHECK: void @kernel(
// CHECK: call i32 @weft_trace_access(ptr %arrayidx, i32 8, i32 0, i32
// CHECK: call i32 @weft_trace_access(ptr %arrayidx{{.*}}, i32 8, i32 1, i32
// CHECK: i64 @test(
// CHECK-NOT: call i32 @weft_trace_access
// REMARK: kernel: applied: 3 memory access(es) instrumented
// run: @test(100)
#include <stdlib.h>
__attribute__((noinline)) void kernel(long n, double *restrict y, const double *restrict x) {
  for (long i = 0; i < n; i++) y[i] = 2.0 * x[i] + y[i];
}
long test(long n) {
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) { x[i] = i; y[i] = 1; }
  kernel(n, y, x);
  double s = 0;
  for (long i = 0; i < n; i++) s += y[i];
  free(x); free(y);
  return (long)s;
}
