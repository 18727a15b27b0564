/*
 * gemver.c - A += u1 v1^T + u2 v2^T; x += beta A^T y + z; w += alpha A x
 * (dense linear algebra, vector-matrix chain). Arrays: plain pointers from the
 * helper allocator. --size N: small 400, medium 1600.
 */
#include "corpus.h"

WB_NOINLINE void kernel_gemver(long n, double alpha, double beta, double *a, const double *u1,
                               const double *v1, const double *u2, const double *v2, double *w,
                               double *x, const double *y, const double *z) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) a[i * n + j] = a[i * n + j] + u1[i] * v1[j] + u2[i] * v2[j];
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) x[i] = x[i] + beta * a[j * n + i] * y[j];
    for (long i = 0; i < n; i++) x[i] = x[i] + z[i];
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) w[i] = w[i] + alpha * a[i * n + j] * x[j];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "rank-2 update and matrix-vector products");
    long n = wb_pick_size(&args, 400, 1600);
    double *a = kc_array(n * n), *u1 = kc_array(n), *v1 = kc_array(n), *u2 = kc_array(n);
    double *v2 = kc_array(n), *w = kc_array(n), *x = kc_array(n), *y = kc_array(n), *z = kc_array(n);
    kc_fill(a, n * n, 11);
    kc_fill(u1, n, 12);
    kc_fill(v1, n, 13);
    kc_fill(u2, n, 14);
    kc_fill(v2, n, 15);
    kc_fill(y, n, 16);
    kc_fill(z, n, 17);
    double t0 = wb_now();
    kernel_gemver(n, 1.5, 1.2, a, u1, v1, u2, v2, w, x, y, z);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, w, n);
    wb_hash_doubles(&h, x, n);
    kc_finish("gemver", n, &h, sizeof(double) * (size_t)(n * n + 8 * n), t);
    return 0;
}
