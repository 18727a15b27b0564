/*
 * mxm.c - dense matrix multiplication C = A * B (n x n, row-major), i-k-j loop
 * order so the innermost loop streams rows of B and C. Affine class (dissertation
 * §5.6: "matrix multiplication (mxm)"). The outer i loop is parallel.
 *
 * --size N : matrix order; quick 80, default 1800 (3 matrices = 74 MiB)
 * --iters K: repetitions of the product (C is recomputed from zero); quick 1, default 1
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

WB_NOINLINE WB_PARALLEL void kernel_zero(long n, double *restrict c) {
    for (long i = 0; i < n; i++) c[i] = 0.0;
}

/* c += a * b (c zeroed beforehand by kernel_zero) */
WB_NOINLINE WB_PARALLEL void kernel_mxm(long n, const double *restrict a, const double *restrict b,
                            double *restrict c) {
    for (long i = 0; i < n; i++) {
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++) c[i * n + j] = c[i * n + j] + a[i * n + k] * b[k * n + j];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "dense matrix multiplication C = A*B");
    long n = wb_pick_size(&args, 80, 1800);
    int reps = wb_pick_iters(&args, 1, 1);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *b = wb_alloc(sizeof(double) * (size_t)(n * n));
    double *c = wb_alloc(sizeof(double) * (size_t)(n * n));
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    for (long i = 0; i < n * n; i++) a[i] = wb_lcg_double(&g) - 0.5;
    for (long i = 0; i < n * n; i++) b[i] = wb_lcg_double(&g) - 0.5;
    double t0 = wb_now();
    for (int r = 0; r < reps; r++) {
        kernel_zero(n * n, c);
        kernel_mxm(n, a, b, c);
    }
    double t1 = wb_now();
    printf("mxm: n %ld repetitions %d\n", n, reps);
    wb_print_double("c[0]", c[0]);
    wb_print_double("c[n*n-1]", c[n * n - 1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, c, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated dense %ldx%ld matrices", n, n);
    wb_report("mxm", desc, sizeof(double) * 3 * (size_t)(n * n), reps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
