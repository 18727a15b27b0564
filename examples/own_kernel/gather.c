/*
 * gather.c — a user's own C kernel optimized and run by weft (quick start, use 1 and 2).
 *
 * Shows: `weft build` finds the irregular loop in kernel_gather (y[i] sums x at
 * indices read from an index array, so which DRAM banks an iteration touches is
 * known only at run time), inserts an inspector that builds the bank map of every
 * slab of iterations, and runs the loop through libweft_runtime.a, which schedules
 * the slabs for bank-level parallelism (Algorithm 4, dissertation §4.4). `weft run`
 * runs the result natively on N worker threads, or in trace mode for `weft sim`.
 * The program prints the same sum however it was built or run.
 *
 * Run from the repository root, after `cargo build` and with target/debug on PATH
 * (the README's quick start, which tests/all/readme.rs runs):
 *   weft build examples/own_kernel/gather.c -o gather --remarks
 *   weft run ./gather --cores 4
 *   weft build examples/own_kernel/gather.c -o gather.tr --passes='insert-inspector,instrument-trace<only=kernel_*>'
 *   weft run ./gather.tr --cores 16 --trace gather.trace
 *   weft sim --trace gather.trace --quiet
 * The first build's remarks say what was done to each loop: kernel_gather's loop gets
 * an inspector; the pointers are `restrict`, without which y might alias idx and the
 * loop would not be an irregular region (its index array could change inside it).
 * The tracing build instruments kernel_* only, so the trace holds the kernel's
 * accesses (and its inspection's), not the set-up loops of main.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 13)   /* rows: 8,192 iterations of the parallel loop */
#define K 8           /* gathered elements per row */
#define M (1 << 20)   /* elements of x: 8 MiB, larger than the simulated caches */
#define REPS 2        /* a timing loop runs the kernel more than once */

/* y[i] = sum of x[idx[i*K + j]]: every iteration is independent, its addresses
 * depend on idx. noinline keeps the loop a function of its own, as in the
 * benchmarks under testsuite/benchmarks. */
__attribute__((noinline)) static void kernel_gather(int n, const int32_t *restrict idx,
                                                    const double *restrict x, double *restrict y) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < K; j++) s += x[idx[i * K + j]];
        y[i] = s;
    }
}

int main(void) {
    int32_t *idx = malloc(sizeof(int32_t) * N * K);
    double *x = malloc(sizeof(double) * M);
    double *y = malloc(sizeof(double) * N);
    if (!idx || !x || !y) return 1;
    uint64_t r = 88172645463325252ull; /* xorshift64: the same indices on every run */
    for (int i = 0; i < N * K; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        idx[i] = (int32_t)(r % M);
    }
    for (int i = 0; i < M; i++) x[i] = (double)(i % 1000) * 0.5;
    for (int rep = 0; rep < REPS; rep++) kernel_gather(N, idx, x, y);
    double sum = 0.0;
    for (int i = 0; i < N; i++) sum += y[i];
    printf("rows %d, gathers per row %d, sum %.1f\n", N, K, sum);
    free(idx), free(x), free(y);
    return 0;
}
