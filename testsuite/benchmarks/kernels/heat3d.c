/*
 * heat3d.c - 7-point heat equation in 3-D, two buffers, T time steps (stencil).
 * Arrays: plain pointers from the helper allocator.
 * --size N: small 24 (T 4), medium 72 (T 10).
 */
#include "corpus.h"

WB_NOINLINE void kernel_heat3d(long n, long steps, double *a, double *b) {
    for (long t = 0; t < steps; t++) {
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                for (long k = 1; k < n - 1; k++)
                    b[(i * n + j) * n + k] =
                        a[(i * n + j) * n + k] +
                        0.125 * (a[((i + 1) * n + j) * n + k] - 2.0 * a[(i * n + j) * n + k] + a[((i - 1) * n + j) * n + k]) +
                        0.125 * (a[(i * n + j + 1) * n + k] - 2.0 * a[(i * n + j) * n + k] + a[(i * n + j - 1) * n + k]) +
                        0.125 * (a[(i * n + j) * n + k + 1] - 2.0 * a[(i * n + j) * n + k] + a[(i * n + j) * n + k - 1]);
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                for (long k = 1; k < n - 1; k++)
                    a[(i * n + j) * n + k] =
                        b[(i * n + j) * n + k] +
                        0.125 * (b[((i + 1) * n + j) * n + k] - 2.0 * b[(i * n + j) * n + k] + b[((i - 1) * n + j) * n + k]) +
                        0.125 * (b[(i * n + j + 1) * n + k] - 2.0 * b[(i * n + j) * n + k] + b[(i * n + j - 1) * n + k]) +
                        0.125 * (b[(i * n + j) * n + k + 1] - 2.0 * b[(i * n + j) * n + k] + b[(i * n + j) * n + k - 1]);
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "3-D heat equation stencil");
    long n = wb_pick_size(&args, 24, 72), steps = args.quick ? 4 : 10;
    double *a = kc_array(n * n * n), *b = kc_array(n * n * n);
    kc_fill(a, n * n * n, 49);
    kc_fill(b, n * n * n, 49);
    double t0 = wb_now();
    kernel_heat3d(n, steps, a, b);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n * n);
    kc_finish("heat3d", n, &h, sizeof(double) * 2 * (size_t)(n * n * n), t);
    return 0;
}
