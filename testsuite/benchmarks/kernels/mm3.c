/*
 * mm3.c - three products, E = A B; F = C D; G = E F (dense linear algebra,
 * 3mm-like, j-k loop order in the last one). Arrays: plain pointers from the helper
 * allocator. --size N: small 56, medium 200.
 */
#include "corpus.h"

WB_NOINLINE void kernel_mm3(long n, const double *a, const double *b, const double *c,
                            const double *d, double *e, double *f, double *g) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            e[i * n + j] = 0.0;
            for (long k = 0; k < n; k++) e[i * n + j] = e[i * n + j] + a[i * n + k] * b[k * n + j];
        }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            f[i * n + j] = 0.0;
            for (long k = 0; k < n; k++) f[i * n + j] = f[i * n + j] + c[i * n + k] * d[k * n + j];
        }
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++) g[i * n + j] = 0.0;
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++) g[i * n + j] = g[i * n + j] + e[i * n + k] * f[k * n + j];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "G = (A B)(C D)");
    long n = wb_pick_size(&args, 56, 200);
    double *a = kc_array(n * n), *b = kc_array(n * n), *c = kc_array(n * n), *d = kc_array(n * n);
    double *e = kc_array(n * n), *f = kc_array(n * n), *g = kc_array(n * n);
    kc_fill(a, n * n, 32);
    kc_fill(b, n * n, 33);
    kc_fill(c, n * n, 34);
    kc_fill(d, n * n, 35);
    double t0 = wb_now();
    kernel_mm3(n, a, b, c, d, e, f, g);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, g, n * n);
    kc_finish("mm3", n, &h, sizeof(double) * 7 * (size_t)(n * n), t);
    return 0;
}
