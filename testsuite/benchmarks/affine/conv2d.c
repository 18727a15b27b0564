/*
 * conv2d.c - 2-D convolution of an N x N image with a 5x5 filter ("valid" region,
 * output (N-4) x (N-4)), followed by feeding the output back as the next input
 * (the two border rows/columns keep their previous contents). Affine class (one of
 * the extra regular kernels). The output row loop is parallel.
 *
 * --size N : image edge; quick 128, default 2200 (two images = 74 MiB)
 * --iters K: filter applications; quick 2, default 3
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

#define K 5

WB_NOINLINE WB_PARALLEL void kernel_conv(long n, const double *restrict in, const double *restrict w, double *restrict out) {
    long m = n - K + 1; /* output rows/columns */
    for (long i = 0; i < m; i++)
        for (long j = 0; j < m; j++) {
            double s = 0.0;
            for (long di = 0; di < K; di++)
                for (long dj = 0; dj < K; dj++) s = s + w[di * K + dj] * in[(i + di) * n + j + dj];
            out[(i + K / 2) * n + j + K / 2] = s;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "2-D convolution with a 5x5 filter");
    long n = wb_pick_size(&args, 128, 2200);
    int iters = wb_pick_iters(&args, 2, 3);
    if (n < K) wb_die("--size must be at least %d", K);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *b = wb_alloc(sizeof(double) * (size_t)(n * n));
    double w[K * K];
    for (int q = 0; q < K * K; q++) w[q] = (double)((q * 7) % 11 - 5) / 16.0;
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    for (long i = 0; i < n * n; i++) a[i] = wb_lcg_double(&g);
    double t0 = wb_now();
    for (int it = 0; it < iters; it++) {
        kernel_conv(n, a, w, b);
        double *t = a;
        a = b;
        b = t;
    }
    double t1 = wb_now();
    printf("conv2d: image %ldx%ld filter %dx%d applications %d\n", n, n, K, K, iters);
    wb_print_double("out[center]", a[(n / 2) * n + n / 2]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated random %ldx%ld image", n, n);
    wb_report("conv2d", desc, sizeof(double) * 2 * (size_t)(n * n), iters, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
