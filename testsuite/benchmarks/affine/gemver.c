/*
 * gemver.c - vector multiplication and matrix addition (PolyBench "gemver"):
 * A += u1 v1^T + u2 v2^T; x += beta A^T y + z; w += alpha A x. Affine class (one of
 * the extra regular kernels): row-wise and column-wise traversals of one matrix.
 * Each kernel's outer loop is parallel.
 *
 * --size N : matrix order; quick 384, default 3200 (A = 78 MiB)
 * --iters K: repetitions of the whole update; quick 1, default 2
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

WB_NOINLINE WB_PARALLEL void kernel_rank2(long n, double *restrict a, const double *restrict u1, const double *restrict v1,
                              const double *restrict u2, const double *restrict v2) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) a[i * n + j] = a[i * n + j] + u1[i] * v1[j] + u2[i] * v2[j];
}

/* x[i] += beta * sum_j A[j][i] y[j] + z[i] (column traversal) */
WB_NOINLINE WB_PARALLEL void kernel_atv(long n, double beta, const double *restrict a, const double *restrict y,
                            const double *restrict z, double *restrict x) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++) s = s + beta * a[j * n + i] * y[j];
        x[i] = x[i] + s + z[i];
    }
}

/* w[i] += alpha * sum_j A[i][j] x[j] */
WB_NOINLINE WB_PARALLEL void kernel_av(long n, double alpha, const double *restrict a, const double *restrict x,
                           double *restrict w) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++) s = s + alpha * a[i * n + j] * x[j];
        w[i] = w[i] + s;
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "gemver: rank-2 update and matrix-vector products");
    long n = wb_pick_size(&args, 384, 3200);
    int reps = wb_pick_iters(&args, 1, 2);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n));
    double *u1 = wb_alloc(sizeof(double) * n), *v1 = wb_alloc(sizeof(double) * n);
    double *u2 = wb_alloc(sizeof(double) * n), *v2 = wb_alloc(sizeof(double) * n);
    double *x = wb_alloc(sizeof(double) * n), *y = wb_alloc(sizeof(double) * n);
    double *z = wb_alloc(sizeof(double) * n), *w = wb_alloc(sizeof(double) * n);
    double fn = (double)n;
    for (long i = 0; i < n; i++) {
        u1[i] = i;
        u2[i] = ((i + 1) / fn) / 2.0;
        v1[i] = ((i + 1) / fn) / 4.0;
        v2[i] = ((i + 1) / fn) / 6.0;
        y[i] = ((i + 1) / fn) / 8.0;
        z[i] = ((i + 1) / fn) / 9.0;
        for (long j = 0; j < n; j++) a[i * n + j] = (double)((i * j) % n) / fn;
    }
    double t0 = wb_now();
    for (int r = 0; r < reps; r++) {
        kernel_rank2(n, a, u1, v1, u2, v2);
        kernel_atv(n, 1.2, a, y, z, x);
        kernel_av(n, 1.5, a, x, w);
    }
    double t1 = wb_now();
    printf("gemver: n %ld repetitions %d\n", n, reps);
    wb_print_double("w[0]", w[0]);
    wb_print_double("x[n-1]", x[n - 1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, w, n);
    wb_hash_doubles(&h, x, n);
    wb_hash_doubles(&h, a, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated %ldx%ld matrix and vectors", n, n);
    wb_report("gemver", desc, sizeof(double) * (size_t)(n * n + 8 * n), reps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
