/*
 * zscore.c - column standardisation of an n x m table: per-column mean and
 * variance, then every entry replaced by its z-score (data-mining statistics,
 * column reductions over a row-major table). Arrays: restrict pointers from wb_alloc.
 * --size N: rows; m = 48 columns; small 600, medium 12000.
 */
#include <math.h>

#include "corpus.h"

WB_NOINLINE void kernel_zscore(long n, long m, double *restrict x, double *restrict mu,
                               double *restrict var) {
    for (long j = 0; j < m; j++) {
        mu[j] = 0.0;
        var[j] = 0.0;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) mu[j] = mu[j] + x[i * m + j];
    for (long j = 0; j < m; j++) mu[j] = mu[j] / (double)n;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) var[j] = var[j] + (x[i * m + j] - mu[j]) * (x[i * m + j] - mu[j]);
    for (long j = 0; j < m; j++) var[j] = sqrt(var[j] / (double)n) + 1e-12;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) x[i * m + j] = (x[i * m + j] - mu[j]) / var[j];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "column z-scores");
    long n = wb_pick_size(&args, 600, 12000), m = 48;
    double *x = wb_alloc(sizeof(double) * (size_t)(n * m)), *mu = wb_alloc(sizeof(double) * (size_t)m);
    double *var = wb_alloc(sizeof(double) * (size_t)m);
    kc_fill(x, n * m, 55);
    double t0 = wb_now();
    kernel_zscore(n, m, x, mu, var);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, x, n * m);
    kc_finish("zscore", n, &h, sizeof(double) * (size_t)(n * m + 2 * m), t);
    return 0;
}
