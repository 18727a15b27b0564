/*
 * jacobi1d.c - 3-point Jacobi smoothing in 1-D, two buffers, T time steps
 * (stencil). Arrays: restrict pointers from wb_alloc.
 * --size N: points; small 4000 (T 20), medium 200000 (T 40).
 */
#include "corpus.h"

WB_NOINLINE void kernel_jacobi1d(long n, long steps, double *restrict a, double *restrict b) {
    for (long t = 0; t < steps; t++) {
        for (long i = 1; i < n - 1; i++) b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (long i = 1; i < n - 1; i++) a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "1-D Jacobi stencil");
    long n = wb_pick_size(&args, 4000, 200000), steps = args.quick ? 20 : 40;
    double *a = wb_alloc(sizeof(double) * (size_t)n), *b = wb_alloc(sizeof(double) * (size_t)n);
    kc_fill(a, n, 47);
    kc_fill(b, n, 47);
    double t0 = wb_now();
    kernel_jacobi1d(n, steps, a, b);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n);
    kc_finish("jacobi1d", n, &h, sizeof(double) * 2 * (size_t)n, t);
    return 0;
}
