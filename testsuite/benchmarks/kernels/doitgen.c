/*
 * doitgen.c - tensor contraction A[r][q][p] = sum_s A[r][q][s] C4[s][p] over a
 * 3-D array, through a per-(r,q) scratch row (dense linear algebra, multi-resolution
 * analysis kernel shape). Arrays: restrict pointers from wb_alloc.
 * --size N: r = q = p = N; small 24, medium 72.
 */
#include "corpus.h"

WB_NOINLINE void kernel_doitgen(long n, double *restrict a, const double *restrict c4,
                                double *restrict sum) {
    for (long r = 0; r < n; r++)
        for (long q = 0; q < n; q++) {
            for (long p = 0; p < n; p++) {
                sum[p] = 0.0;
                for (long s = 0; s < n; s++) sum[p] = sum[p] + a[(r * n + q) * n + s] * c4[s * n + p];
            }
            for (long p = 0; p < n; p++) a[(r * n + q) * n + p] = sum[p];
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "tensor contraction over a 3-D array");
    long n = wb_pick_size(&args, 24, 72);
    double *a = wb_alloc(sizeof(double) * (size_t)(n * n * n)), *c4 = wb_alloc(sizeof(double) * (size_t)(n * n));
    double *sum = wb_alloc(sizeof(double) * (size_t)n);
    kc_fill(a, n * n * n, 38);
    kc_fill(c4, n * n, 39);
    double t0 = wb_now();
    kernel_doitgen(n, a, c4, sum);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, a, n * n * n);
    kc_finish("doitgen", n, &h, sizeof(double) * (size_t)(n * n * n + n * n + n), t);
    return 0;
}
