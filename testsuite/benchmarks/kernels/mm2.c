/*
 * mm2.c - two chained products, T = alpha A B; D = beta D + T C (dense linear
 * algebra, 2mm-like). Arrays: restrict pointers from wb_alloc.
 * --size N: small 64, medium 220.
 */
#include "corpus.h"

WB_NOINLINE void kernel_mm2(long n, double alpha, double beta, double *restrict t,
                            const double *restrict a, const double *restrict b,
                            const double *restrict c, double *restrict d) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++) s = s + alpha * a[i * n + k] * b[k * n + j];
            t[i * n + j] = s;
        }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            d[i * n + j] = d[i * n + j] * beta;
            for (long k = 0; k < n; k++) d[i * n + j] = d[i * n + j] + t[i * n + k] * c[k * n + j];
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "D = beta D + alpha A B C");
    long n = wb_pick_size(&args, 64, 220);
    size_t bytes = sizeof(double) * (size_t)(n * n);
    double *t = wb_alloc(bytes), *a = wb_alloc(bytes), *b = wb_alloc(bytes), *c = wb_alloc(bytes);
    double *d = wb_alloc(bytes);
    kc_fill(a, n * n, 28);
    kc_fill(b, n * n, 29);
    kc_fill(c, n * n, 30);
    kc_fill(d, n * n, 31);
    double t0 = wb_now();
    kernel_mm2(n, 1.5, 1.2, t, a, b, c, d);
    double tt = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, d, n * n);
    kc_finish("mm2", n, &h, 5 * bytes, tt);
    return 0;
}
