/*
 * transpose.c - out-of-place matrix transpose B = A^T of an N x N matrix, then
 * A = B^T back, repeated. Affine class (one of the extra regular kernels): one side
 * is read row-wise, the other written column-wise. The outer loop is parallel.
 *
 * --size N : matrix order; quick 256, default 2200 (two matrices = 74 MiB)
 * --iters K: round trips; quick 5, default 5
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

/* b = a^T, b written row by row (a read column-wise) */
WB_NOINLINE WB_PARALLEL void kernel_transpose(long n, const double *restrict a, double *restrict b) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) b[i * n + j] = a[j * n + i];
}

/* a = b^T * 0.5 + a * 0.5 (keeps values changing between round trips) */
WB_NOINLINE WB_PARALLEL void kernel_transpose_mix(long n, const double *restrict b, double *restrict a) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) a[i * n + j] = 0.5 * b[j * n + i] + 0.5 * a[i * n + j] + 1.0;
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "out-of-place matrix transpose");
    long n = wb_pick_size(&args, 256, 2200);
    int iters = wb_pick_iters(&args, 5, 5);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *b = wb_alloc(sizeof(double) * (size_t)(n * n));
    for (long i = 0; i < n * n; i++) a[i] = (double)(i % 1000) / 7.0;
    double t0 = wb_now();
    for (int it = 0; it < iters; it++) {
        kernel_transpose(n, a, b);
        kernel_transpose_mix(n, b, a);
    }
    double t1 = wb_now();
    printf("transpose: n %ld round_trips %d\n", n, iters);
    wb_print_double("a[1]", a[1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n);
    wb_hash_doubles(&h, b, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated %ldx%ld matrix", n, n);
    wb_report("transpose", desc, sizeof(double) * 2 * (size_t)(n * n), iters, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
