/*
 * syrk.c - symmetric rank-k update of the lower triangle, C = alpha A A^T + beta C
 * (dense linear algebra; triangular iteration space).
 * Arrays: restrict pointers from wb_alloc. --size N: small 72, medium 280 (A is n x n).
 */
#include "corpus.h"

WB_NOINLINE void kernel_syrk(long n, double alpha, double beta, double *restrict c,
                             const double *restrict a) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j <= i; j++) c[i * n + j] = c[i * n + j] * beta;
        for (long k = 0; k < n; k++)
            for (long j = 0; j <= i; j++) c[i * n + j] = c[i * n + j] + alpha * a[i * n + k] * a[j * n + k];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "symmetric rank-k update (lower triangle)");
    long n = wb_pick_size(&args, 72, 280);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *c = wb_alloc(sizeof(double) * (size_t)(n * n));
    kc_fill(a, n * n, 9);
    kc_fill(c, n * n, 10);
    double t0 = wb_now();
    kernel_syrk(n, 1.5, 1.2, c, a);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, c, n * n);
    kc_finish("syrk", n, &h, sizeof(double) * 2 * (size_t)(n * n), t);
    return 0;
}
