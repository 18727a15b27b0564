/*
 * atax.c - y = A^T (A x), row-wise (dense linear algebra, matrix-vector pair;
 * the second product accumulates into all of y from every row).
 * Arrays: restrict pointers from wb_alloc. --size N: A is n x (n+n/8); small 400, medium 1600.
 */
#include "corpus.h"

WB_NOINLINE void kernel_atax(long m, long n, const double *restrict a, const double *restrict x,
                             double *restrict y, double *restrict tmp) {
    for (long j = 0; j < n; j++) y[j] = 0.0;
    for (long i = 0; i < m; i++) {
        tmp[i] = 0.0;
        for (long j = 0; j < n; j++) tmp[i] = tmp[i] + a[i * n + j] * x[j];
        for (long j = 0; j < n; j++) y[j] = y[j] + a[i * n + j] * tmp[i];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "y = A^T A x");
    long m = wb_pick_size(&args, 400, 1600), n = m + m / 8;
    double *a = wb_alloc(sizeof(double) * (size_t)(m * n)), *x = wb_alloc(sizeof(double) * (size_t)n);
    double *y = wb_alloc(sizeof(double) * (size_t)n), *tmp = wb_alloc(sizeof(double) * (size_t)m);
    kc_fill(a, m * n, 18);
    kc_fill(x, n, 19);
    double t0 = wb_now();
    kernel_atax(m, n, a, x, y, tmp);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, y, n);
    kc_finish("atax", m, &h, sizeof(double) * (size_t)(m * n + 2 * n + m), t);
    return 0;
}
