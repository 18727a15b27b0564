/*
 * fdtd2d.c - 2-D finite-difference time domain (Yee) update of ex, ey, hz with a
 * source row per step (stencil, three coupled fields).
 * Arrays: plain pointers from the helper allocator. --size N: small 100 (T 6), medium 400 (T 16).
 */
#include "corpus.h"

WB_NOINLINE void kernel_fdtd2d(long n, long steps, double *ex, double *ey, double *hz,
                               const double *src) {
    for (long t = 0; t < steps; t++) {
        for (long j = 0; j < n; j++) ey[j] = src[t];
        for (long i = 1; i < n; i++)
            for (long j = 0; j < n; j++) ey[i * n + j] = ey[i * n + j] - 0.5 * (hz[i * n + j] - hz[(i - 1) * n + j]);
        for (long i = 0; i < n; i++)
            for (long j = 1; j < n; j++) ex[i * n + j] = ex[i * n + j] - 0.5 * (hz[i * n + j] - hz[i * n + j - 1]);
        for (long i = 0; i < n - 1; i++)
            for (long j = 0; j < n - 1; j++)
                hz[i * n + j] = hz[i * n + j] - 0.7 * (ex[i * n + j + 1] - ex[i * n + j] + ey[(i + 1) * n + j] - ey[i * n + j]);
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "2-D FDTD");
    long n = wb_pick_size(&args, 100, 400), steps = args.quick ? 6 : 16;
    double *ex = kc_array(n * n), *ey = kc_array(n * n), *hz = kc_array(n * n), *src = kc_array(steps);
    kc_fill(ex, n * n, 51);
    kc_fill(ey, n * n, 52);
    kc_fill(hz, n * n, 53);
    for (long t = 0; t < steps; t++) src[t] = (double)t;
    double t0 = wb_now();
    kernel_fdtd2d(n, steps, ex, ey, hz, src);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, hz, n * n);
    wb_hash_doubles(&h, ex, n * n);
    kc_finish("fdtd2d", n, &h, sizeof(double) * 3 * (size_t)(n * n), t);
    return 0;
}
