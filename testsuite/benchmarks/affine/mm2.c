/*
 * mm2.c - two chained matrix products (PolyBench "2mm"): tmp = alpha*A*B, then
 * D = beta*D + tmp*C, all N x N. Affine class (one of the extra regular kernels).
 * The outer row loops are parallel.
 *
 * --size N : matrix order; quick 64, default 1400 (five matrices = 75 MiB)
 * --iters K: repetitions (D reinitialised each time); quick 1, default 1
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

WB_NOINLINE WB_PARALLEL void kernel_zero(long n, double *restrict v) {
    for (long i = 0; i < n; i++) v[i] = 0.0;
}

/* tmp += alpha * a * b (tmp zeroed beforehand by kernel_zero) */
WB_NOINLINE WB_PARALLEL void kernel_mm_scaled(long n, double alpha, const double *restrict a, const double *restrict b,
                                  double *restrict tmp) {
    for (long i = 0; i < n; i++) {
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++) tmp[i * n + j] = tmp[i * n + j] + alpha * a[i * n + k] * b[k * n + j];
    }
}

WB_NOINLINE WB_PARALLEL void kernel_mm_accum(long n, double beta, const double *restrict tmp, const double *restrict c,
                                 double *restrict d) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++) d[i * n + j] = d[i * n + j] * beta;
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++) d[i * n + j] = d[i * n + j] + tmp[i * n + k] * c[k * n + j];
    }
}

WB_NOINLINE WB_PARALLEL void kernel_init_d(long n, double *restrict d) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) d[i * n + j] = (double)((i * (j + 2)) % n) / (double)n;
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "two chained matrix products (2mm)");
    long n = wb_pick_size(&args, 64, 1400);
    int reps = wb_pick_iters(&args, 1, 1);
    size_t bytes = sizeof(double) * (size_t)(n * n);
    double *a = wb_alloc(bytes), *b = wb_alloc(bytes), *c = wb_alloc(bytes), *d = wb_alloc(bytes);
    double *tmp = wb_alloc(bytes);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = (double)((i * j + 1) % n) / (double)n;
            b[i * n + j] = (double)((i * (j + 1)) % n) / (double)n;
            c[i * n + j] = (double)((i * (j + 3) + 1) % n) / (double)n;
        }
    double t = 0.0;
    for (int r = 0; r < reps; r++) {
        kernel_init_d(n, d);
        double t0 = wb_now();
        kernel_zero(n * n, tmp);
        kernel_mm_scaled(n, 1.5, a, b, tmp);
        kernel_mm_accum(n, 1.2, tmp, c, d);
        t += wb_now() - t0;
    }
    printf("2mm: n %ld repetitions %d\n", n, reps);
    wb_print_double("d[0]", d[0]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, d, n * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated %ldx%ld matrices", n, n);
    wb_report("2mm", desc, 5 * bytes, reps, t);
    wb_print_checksum(&h);
    return 0;
}
