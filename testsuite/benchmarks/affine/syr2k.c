/*
 * syr2k.c - symmetric rank-2k update on the lower triangle (PolyBench-style):
 * C = alpha*A*B^T + alpha*B*A^T + beta*C, A and B are n x m, C is n x n.
 * Affine class (dissertation §5.6: "syr2k"). The outer i loop is parallel.
 *
 * --size N : n = m = N; quick 96, default 1800 (3 matrices = 74 MiB)
 * --iters K: repetitions (C is reinitialised each time); quick 1, default 1
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

WB_NOINLINE WB_PARALLEL void kernel_syr2k(long n, long m, double alpha, double beta, const double *restrict a,
                              const double *restrict b, double *restrict c) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j <= i; j++) c[i * n + j] = c[i * n + j] * beta;
        for (long k = 0; k < m; k++)
            for (long j = 0; j <= i; j++)
                c[i * n + j] = c[i * n + j] + a[j * m + k] * alpha * b[i * m + k] + b[j * m + k] * alpha * a[i * m + k];
    }
}

WB_NOINLINE WB_PARALLEL void kernel_init_c(long n, double *restrict c) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) c[i * n + j] = (double)((i * j + 2) % n) / (double)n;
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "symmetric rank-2k update (syr2k)");
    long n = wb_pick_size(&args, 96, 1800), m = n;
    int reps = wb_pick_iters(&args, 1, 1);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * m)), *b = wb_alloc(sizeof(double) * (size_t)(n * m));
    double *c = wb_alloc(sizeof(double) * (size_t)(n * n));
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) {
            a[i * m + j] = (double)((i * j + 1) % n) / (double)n;
            b[i * m + j] = (double)((i * j + 2) % m) / (double)m;
        }
    double t = 0.0;
    for (int r = 0; r < reps; r++) {
        kernel_init_c(n, c);
        double t0 = wb_now();
        kernel_syr2k(n, m, 1.5, 1.2, a, b, c);
        t += wb_now() - t0;
    }
    printf("syr2k: n %ld m %ld repetitions %d\n", n, m, reps);
    wb_print_double("c[n-1][0]", c[(n - 1) * n]);
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, c + i * n, i + 1);
    char desc[64];
    snprintf(desc, sizeof desc, "generated %ldx%ld A, B and %ldx%ld C", n, m, n, n);
    wb_report("syr2k", desc, sizeof(double) * (size_t)(2 * n * m + n * n), reps, t);
    wb_print_checksum(&h);
    return 0;
}
