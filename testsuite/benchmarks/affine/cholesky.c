/*
 * cholesky.c - dense Cholesky factorization A = L L^T (lower triangle, row-major),
 * left-looking by columns: for column j, the diagonal is finished first, then every
 * row i > j computes L[i][j] = (A[i][j] - sum_k L[i][k] L[j][k]) / L[j][j]. Affine
 * class (dissertation §5.6, SPLASH-2 "Cholesky", here on a dense SPD matrix). The
 * loop over rows i is parallel.
 *
 * --size N : matrix order; quick 160, default 3072 (72 MiB)
 * --iters K: repetitions (matrix restored each time); quick 1, default 1
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

WB_NOINLINE void kernel_chol_diag(long n, long j, double *restrict a) {
    double s = a[j * n + j];
    for (long k = 0; k < j; k++) s = s - a[j * n + k] * a[j * n + k];
    a[j * n + j] = sqrt(s);
}

WB_NOINLINE WB_PARALLEL void kernel_chol_col(long n, long j, double *restrict a) {
    for (long i = j + 1; i < n; i++) {
        double s = a[i * n + j];
        for (long k = 0; k < j; k++) s = s - a[i * n + k] * a[j * n + k];
        a[i * n + j] = s / a[j * n + j];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "dense left-looking Cholesky factorization");
    long n = wb_pick_size(&args, 160, 3072);
    int reps = wb_pick_iters(&args, 1, 1);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *a0 = wb_alloc(sizeof(double) * (size_t)(n * n));
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++) {
            double v = wb_lcg_double(&g) - 0.5;
            a0[i * n + j] = a0[j * n + i] = v + (i == j ? (double)n : 0.0);
        }
    double t = 0.0;
    for (int r = 0; r < reps; r++) {
        memcpy(a, a0, sizeof(double) * (size_t)(n * n));
        double t0 = wb_now();
        for (long j = 0; j < n; j++) {
            kernel_chol_diag(n, j, a);
            kernel_chol_col(n, j, a);
        }
        t += wb_now() - t0;
    }
    printf("cholesky: n %ld repetitions %d\n", n, reps);
    wb_print_double("L[n-1][n-1]", a[n * n - 1]);
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, a + i * n, i + 1);
    char desc[64];
    snprintf(desc, sizeof desc, "generated SPD %ldx%ld matrix", n, n);
    wb_report("cholesky", desc, sizeof(double) * (size_t)(n * n), reps, t);
    wb_print_checksum(&h);
    return 0;
}
