/*
 * trisolv.c - forward substitution L x = b, L lower triangular (triangular solver:
 * every row needs all the previous solutions). Repeated over several right-hand sides.
 * Arrays: restrict pointers from wb_alloc. --size N: small 400, medium 2000.
 */
#include "corpus.h"

WB_NOINLINE void kernel_trisolv(long n, const double *restrict l, double *restrict x,
                                const double *restrict b) {
    for (long i = 0; i < n; i++) {
        x[i] = b[i];
        for (long j = 0; j < i; j++) x[i] = x[i] - l[i * n + j] * x[j];
        x[i] = x[i] / l[i * n + i];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "lower triangular solve");
    long n = wb_pick_size(&args, 400, 2000);
    double *l = wb_alloc(sizeof(double) * (size_t)(n * n)), *x = wb_alloc(sizeof(double) * (size_t)n);
    double *b = wb_alloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++) l[i * n + j] = kc_val(i * n + j, 40) / (double)n;
        l[i * n + i] = 1.0 + kc_val(i, 41) * 0.5;
    }
    kc_fill(b, n, 42);
    wb_hash h;
    wb_hash_init(&h);
    double t0 = wb_now();
    for (int r = 0; r < 3; r++) {
        kernel_trisolv(n, l, x, b);
        wb_hash_doubles(&h, x, n);
        b[r] = b[r] + 1.0;
    }
    double t = wb_now() - t0;
    kc_finish("trisolv", n, &h, sizeof(double) * (size_t)(n * n + 2 * n), t);
    return 0;
}
