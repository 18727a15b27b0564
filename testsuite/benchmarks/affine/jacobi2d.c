/*
 * jacobi2d.c - 2-D Jacobi 5-point stencil (PolyBench-style): alternately
 * B = avg5(A) and A = avg5(B) on an N x N grid, T time steps. Affine class (one of
 * the extra regular kernels). The row loops are parallel.
 *
 * --size N : grid edge; quick 128, default 2200 (two grids = 74 MiB)
 * --iters K: time steps; quick 8, default 10
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

WB_NOINLINE WB_PARALLEL void kernel_jacobi(long n, const double *restrict src, double *restrict dst) {
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            dst[i * n + j] = 0.2 * (src[i * n + j] + src[i * n + j - 1] + src[i * n + j + 1] +
                                    src[(i + 1) * n + j] + src[(i - 1) * n + j]);
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "2-D Jacobi 5-point stencil");
    long n = wb_pick_size(&args, 128, 2200);
    int steps = wb_pick_iters(&args, 8, 10);
    if (n < 3) wb_die("--size must be at least 3");
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *b = wb_alloc(sizeof(double) * (size_t)(n * n));
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = ((double)i * (j + 2) + 2) / (double)n;
            b[i * n + j] = ((double)i * (j + 3) + 3) / (double)n;
        }
    double t0 = wb_now();
    for (int t = 0; t < steps; t++) {
        kernel_jacobi(n, a, b);
        kernel_jacobi(n, b, a);
    }
    double t1 = wb_now();
    printf("jacobi2d: grid %ldx%ld steps %d\n", n, n, steps);
    wb_print_double("a[center]", a[(n / 2) * n + n / 2]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated %ldx%ld grid", n, n);
    wb_report("jacobi2d", desc, sizeof(double) * 2 * (size_t)(n * n), steps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
