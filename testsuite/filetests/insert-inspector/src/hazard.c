// PASSES: insert-inspector
// CHECK-NOT: weft_run_irregular
// REMARK: missed
// run: @test(200)
#include <stdlib.h>
/* The loop writes the array its addresses come from (through a may-alias
   pointer): an inspector run before the loop would read stale indices. */
__attribute__((noinline)) void kernel(long n, int *idx, int *out, const double *x, double *y) {
  for (long i = 0; i < n; i++) { y[idx[i]] += x[i]; out[i] = idx[i] + 1; }
}
long test(long n) {
  int *idx = malloc(n * sizeof(int));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) { idx[i] = (int)((i * 7) % n); x[i] = (double)i; y[i] = 0; }
  kernel(n - 1, idx, idx + 1, x, y);
  double s = 0;
  for (long i = 0; i < n; i++) s = s * 0.5 + y[i] + idx[i];
  free(idx); free(x); free(y);
  union { double d; long l; } u = { s };
  return u.l;
}
