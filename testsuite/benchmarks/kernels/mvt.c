/*
 * mvt.c - x1 += A y1, x2 += A^T y2 (dense linear algebra, two matrix-vector
 * products, one of them column-wise). Arrays: plain pointers from the helper
 * allocator. --size N: small 400, medium 1600.
 */
#include "corpus.h"

WB_NOINLINE void kernel_mvt(long n, const double *a, double *x1, double *x2, const double *y1,
                            const double *y2) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) x1[i] = x1[i] + a[i * n + j] * y1[j];
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) x2[i] = x2[i] + a[j * n + i] * y2[j];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "x1 += A y1, x2 += A^T y2");
    long n = wb_pick_size(&args, 400, 1600);
    double *a = kc_array(n * n), *x1 = kc_array(n), *x2 = kc_array(n), *y1 = kc_array(n), *y2 = kc_array(n);
    kc_fill(a, n * n, 23);
    kc_fill(x1, n, 24);
    kc_fill(x2, n, 25);
    kc_fill(y1, n, 26);
    kc_fill(y2, n, 27);
    double t0 = wb_now();
    kernel_mvt(n, a, x1, x2, y1, y2);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, x1, n);
    wb_hash_doubles(&h, x2, n);
    kc_finish("mvt", n, &h, sizeof(double) * (size_t)(n * n + 4 * n), t);
    return 0;
}
