/*
 * jacobi2d.c - 5-point Jacobi in 2-D, two buffers, T time steps (stencil).
 * Arrays: globals of order at most KC_MAX. --size N: small 120 (T 6), medium 400 (T 20).
 */
#include "corpus.h"

static double A[KC_MAX][KC_MAX], B[KC_MAX][KC_MAX];

WB_NOINLINE void kernel_jacobi2d(long n, long steps) {
    for (long t = 0; t < steps; t++) {
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "2-D Jacobi stencil");
    long n = wb_pick_size(&args, 120, 400), steps = args.quick ? 6 : 20;
    if (n > KC_MAX) wb_die("--size at most %d", KC_MAX);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) A[i][j] = B[i][j] = kc_val(i * n + j, 48);
    double t0 = wb_now();
    kernel_jacobi2d(n, steps);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, A[i], n);
    kc_finish("jacobi2d", n, &h, sizeof(double) * 2 * (size_t)(n * n), t);
    return 0;
}
