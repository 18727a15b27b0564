/*
 * lu.c - SPLASH-2-style blocked LU factorization without pivoting of a dense
 * diagonally dominant n x n matrix (row-major), block size 16. For each diagonal
 * block: factor it, update the block row and block column (triangular solves), then
 * update the trailing submatrix. Affine class (dissertation §5.6, SPLASH-2 "LU").
 * The loops over rows of the panels and of the trailing matrix are parallel.
 *
 * --size N : matrix order (multiple of 16); quick 96, default 3072 (72 MiB)
 * --iters K: repetitions (matrix restored from a copy each time); quick 1, default 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

#define BS 16

/* unblocked LU of the diagonal block at (k0,k0) */
WB_NOINLINE void kernel_lu_diag(long n, long k0, double *restrict a) {
    for (long k = k0; k < k0 + BS; k++)
        for (long i = k + 1; i < k0 + BS; i++) {
            a[i * n + k] = a[i * n + k] / a[k * n + k];
            for (long j = k + 1; j < k0 + BS; j++) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
        }
}

/* block row: A[k0..k0+BS)[k0+BS..n) = L_kk^{-1} * A (forward substitution, unit L) */
WB_NOINLINE WB_PARALLEL void kernel_lu_row(long n, long k0, double *restrict a) {
    for (long j = k0 + BS; j < n; j++)
        for (long k = k0; k < k0 + BS; k++)
            for (long i = k + 1; i < k0 + BS; i++) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
}

/* block column: A[k0+BS..n)[k0..k0+BS) = A * U_kk^{-1} */
WB_NOINLINE WB_PARALLEL void kernel_lu_col(long n, long k0, double *restrict a) {
    for (long i = k0 + BS; i < n; i++)
        for (long k = k0; k < k0 + BS; k++) {
            a[i * n + k] = a[i * n + k] / a[k * n + k];
            for (long j = k + 1; j < k0 + BS; j++) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
        }
}

/* trailing update: A[i][j] -= sum_k A[i][k] * A[k][j], k in the current block */
WB_NOINLINE WB_PARALLEL void kernel_lu_interior(long n, long k0, double *restrict a) {
    for (long i = k0 + BS; i < n; i++)
        for (long k = k0; k < k0 + BS; k++)
            for (long j = k0 + BS; j < n; j++) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "SPLASH-2-style blocked dense LU factorization");
    long n = wb_pick_size(&args, 96, 3072);
    int reps = wb_pick_iters(&args, 1, 1);
    if (n % BS) wb_die("--size must be a multiple of %d", BS);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *a0 = wb_alloc(sizeof(double) * (size_t)(n * n));
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) a0[i * n + j] = wb_lcg_double(&g) + (i == j ? (double)n : 0.0);
    double t = 0.0;
    for (int r = 0; r < reps; r++) {
        memcpy(a, a0, sizeof(double) * (size_t)(n * n));
        double t0 = wb_now();
        for (long k0 = 0; k0 < n; k0 += BS) {
            kernel_lu_diag(n, k0, a);
            kernel_lu_row(n, k0, a);
            kernel_lu_col(n, k0, a);
            kernel_lu_interior(n, k0, a);
        }
        t += wb_now() - t0;
    }
    printf("lu: n %ld block %d repetitions %d\n", n, BS, reps);
    wb_print_double("a[n-1][n-1]", a[n * n - 1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated diagonally dominant %ldx%ld matrix", n, n);
    wb_report("lu", desc, sizeof(double) * (size_t)(n * n), reps, t);
    wb_print_checksum(&h);
    return 0;
}
