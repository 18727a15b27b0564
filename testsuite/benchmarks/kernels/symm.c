/*
 * symm.c - C = alpha*A*B + beta*C with A symmetric, only its lower triangle read
 * (dense linear algebra, symmetric update: row i of C also accumulates into the
 * rows k < i, so iterations of the i loop depend on each other).
 * Arrays: plain pointers from the helper allocator. --size N: small 64, medium 240.
 */
#include "corpus.h"

WB_NOINLINE void kernel_symm(long n, double alpha, double beta, double *c, const double *a,
                             const double *b) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double acc = 0.0;
            for (long k = 0; k < i; k++) {
                c[k * n + j] = c[k * n + j] + alpha * b[i * n + j] * a[i * n + k];
                acc = acc + b[k * n + j] * a[i * n + k];
            }
            c[i * n + j] = beta * c[i * n + j] + alpha * b[i * n + j] * a[i * n + i] + alpha * acc;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "symmetric matrix product (lower triangle of A)");
    long n = wb_pick_size(&args, 64, 240);
    double *a = kc_array(n * n), *b = kc_array(n * n), *c = kc_array(n * n);
    kc_fill(a, n * n, 4);
    kc_fill(b, n * n, 5);
    kc_fill(c, n * n, 6);
    double t0 = wb_now();
    kernel_symm(n, 1.5, 1.2, c, a, b);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, c, n * n);
    kc_finish("symm", n, &h, sizeof(double) * 3 * (size_t)(n * n), t);
    return 0;
}
