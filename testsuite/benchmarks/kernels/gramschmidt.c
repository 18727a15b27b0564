/*
 * gramschmidt.c - modified Gram-Schmidt QR of an m x n matrix (factorisation:
 * column k is normalised, then removed from every later column).
 * Arrays: plain pointers from the helper allocator. --size N: m = n + n/2; small 64, medium 200.
 */
#include <math.h>

#include "corpus.h"

WB_NOINLINE void kernel_gramschmidt(long m, long n, double *a, double *r, double *q) {
    for (long k = 0; k < n; k++) {
        double nrm = 0.0;
        for (long i = 0; i < m; i++) nrm = nrm + a[i * n + k] * a[i * n + k];
        r[k * n + k] = sqrt(nrm);
        for (long i = 0; i < m; i++) q[i * n + k] = a[i * n + k] / r[k * n + k];
        for (long j = k + 1; j < n; j++) {
            r[k * n + j] = 0.0;
            for (long i = 0; i < m; i++) r[k * n + j] = r[k * n + j] + q[i * n + k] * a[i * n + j];
            for (long i = 0; i < m; i++) a[i * n + j] = a[i * n + j] - q[i * n + k] * r[k * n + j];
        }
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "modified Gram-Schmidt QR");
    long n = wb_pick_size(&args, 64, 200), m = n + n / 2;
    double *a = kc_array(m * n), *r = kc_array(n * n), *q = kc_array(m * n);
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) a[i * n + j] = kc_val(i * n + j, 46) + (i == j ? 2.0 : 0.0);
    double t0 = wb_now();
    kernel_gramschmidt(m, n, a, r, q);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, r, n * n);
    wb_hash_doubles(&h, q, m * n);
    kc_finish("gramschmidt", n, &h, sizeof(double) * (size_t)(2 * m * n + n * n), t);
    return 0;
}
