/*
 * gemm.c - C = beta*C + alpha*A*B, i-k-j order (dense linear algebra).
 * Arrays: restrict pointers from wb_alloc. --size N: order; small 72, medium 280.
 */
#include "corpus.h"

WB_NOINLINE void kernel_gemm(long n, double alpha, double beta, double *restrict c,
                             const double *restrict a, const double *restrict b) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++) c[i * n + j] = c[i * n + j] * beta;
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++) c[i * n + j] = c[i * n + j] + alpha * a[i * n + k] * b[k * n + j];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "general matrix product C = beta C + alpha A B");
    long n = wb_pick_size(&args, 72, 280);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n)), *b = wb_alloc(sizeof(double) * (size_t)(n * n));
    double *c = wb_alloc(sizeof(double) * (size_t)(n * n));
    kc_fill(a, n * n, 1);
    kc_fill(b, n * n, 2);
    kc_fill(c, n * n, 3);
    double t0 = wb_now();
    kernel_gemm(n, 1.5, 1.25, c, a, b);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, c, n * n);
    kc_finish("gemm", n, &h, sizeof(double) * 3 * (size_t)(n * n), t);
    return 0;
}
