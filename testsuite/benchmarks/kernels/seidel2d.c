/*
 * seidel2d.c - 9-point Gauss-Seidel sweeps in place (stencil with a dependence on
 * the row and column just updated). Arrays: restrict pointers from wb_alloc.
 * --size N: small 120 (T 4), medium 500 (T 8).
 */
#include "corpus.h"

WB_NOINLINE void kernel_seidel2d(long n, long steps, double *restrict a) {
    for (long t = 0; t < steps; t++)
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                a[i * n + j] = (a[(i - 1) * n + j - 1] + a[(i - 1) * n + j] + a[(i - 1) * n + j + 1] +
                                a[i * n + j - 1] + a[i * n + j] + a[i * n + j + 1] +
                                a[(i + 1) * n + j - 1] + a[(i + 1) * n + j] + a[(i + 1) * n + j + 1]) /
                               9.0;
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "2-D Gauss-Seidel stencil");
    long n = wb_pick_size(&args, 120, 500), steps = args.quick ? 4 : 8;
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n));
    kc_fill(a, n * n, 50);
    double t0 = wb_now();
    kernel_seidel2d(n, steps, a);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n);
    kc_finish("seidel2d", n, &h, sizeof(double) * (size_t)(n * n), t);
    return 0;
}
