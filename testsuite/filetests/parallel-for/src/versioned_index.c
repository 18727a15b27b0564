// PASSES: parallel-for
// CHECK: define dso_local void @gather(
// CHECK: call void @gather.weft.scan(ptr %idx, i64
// CHECK: %weft.scan.lo = load i64
// CHECK: call i32 @weft_alias_check(ptr @weft.alias.site, i32
// CHECK: weft.alias.ok:
// CHECK: call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @gather.weft.body.0
// CHECK: weft.fallback:
// CHECK: call void @gather.weft.body.0(ptr %weft.ctx, i64 0, i64 %weft.tc)
// CHECK: define internal void @gather.weft.scan(ptr %idx, i64 %first, i64 %tc, ptr %out)
// CHECK: %v = load i32
// REMARK: @gather L0 (for.body): applied: executor form: body @gather.weft.body.0 run by weft_parallel_for; versioned on a run-time alias check of 2 base pair(s)
// REMARK: x through index array idx, least and greatest index read by a pre-pass), sequential body when it fails
// REMARK: @copy L0 (for.body): missed: not parallel: memory dependence: bases
// REMARK: would cost about as much as the loop: 3 memory access(es) per iteration against 1 index read(s) to scan, 4 per read needed
// cores: 1,2,3
// run: @test(1000, 0)
// run: @test(1000, 1)
// run: @test(1000, 2)
// run: @test(1000, 3)
// run: @test(1000, 4)
// run: @test(1000, 5)
// run: @test(1, 0)
// run: @test(0, 0)
//
// Run-time alias check with an access through an index array: y, x and idx
// are plain pointers, so @gather's loop is parallel only if y's range is
// disjoint from x's and idx's. x[idx[i]]'s range needs the least and
// greatest idx[i]: a pre-pass over idx[0, n) reads them before the check.
// The modes place the arrays in one buffer:
//   0: x after y, idx a permutation of [0, n): disjoint, the check passes;
//   1: x = y, in place: y[i] reads y[idx[i]], which another iteration writes
//      (a real dependence): the check fails, the original order runs;
//   2: x = y + n/2: overlapping, a real dependence: fails;
//   3: x = y + n, idx[i] = i % 10 (not a permutation): disjoint, passes;
//   4: x = y + 1, idx[i] = n - 1 - i: x[idx[i]] = y[n - i] (a real
//      dependence): fails;
//   5: idx[0] = -1 with x = y + n + 4 (x[-1] is still in the buffer, after y):
//      a negative index fails the check (0 <= min is required), the original
//      order runs.
// @copy (y[i] = x[idx[i]]) does 3 memory accesses per index read, too few to
// pay for the pre-pass: refused with a remark.
#include <stdlib.h>
__attribute__((noinline)) void gather(long n, double *y, const double *x, const int *idx) {
  for (long i = 0; i < n; i++) y[i] = 0.5 * x[idx[i]] + y[i];
}
__attribute__((noinline)) void copy(long n, double *y, const double *x, const int *idx) {
  for (long i = 0; i < n; i++) y[i] = x[idx[i]];
}
long test(long n, long mode) {
  double *buf = malloc((3 * n + 16) * sizeof(double));
  int *idx = malloc((n + 1) * sizeof(int));
  for (long i = 0; i < 3 * n + 16; i++) buf[i] = (double)(i % 13) * 0.25 + 1.0;
  for (long i = 0; i < n; i++)
    idx[i] = mode == 3 ? (int)(i % 10) : mode == 4 ? (int)(n - 1 - i) : (int)((i * 7 + 3) % n);
  double *y = buf, *x = buf + n + 4;
  if (mode == 1) x = buf;
  if (mode == 2) x = buf + n / 2;
  if (mode == 3) x = buf + n;
  if (mode == 4) x = buf + 1;
  idx[n] = 0;
  if (mode == 5 && n > 0) idx[0] = -1;
  gather(n, y, x, idx);
  copy(n, buf + 2 * n + 8, y, idx[0] < 0 ? idx + 1 : idx);
  double s = 0;
  for (long i = 0; i < 3 * n + 16; i++) s = s * 0.5 + buf[i];
  free(buf);
  free(idx);
  union { double d; long l; } u = { s };
  return u.l;
}
