/*
 * covariance.c - covariance matrix of m variables over n observations: column
 * means, centring, then the upper triangle of data^T data / (n-1), mirrored
 * (data-mining statistics; triangular iteration space).
 * Arrays: restrict pointers from wb_alloc. --size M: n = M + M/4; small 64, medium 240.
 */
#include "corpus.h"

WB_NOINLINE void kernel_covariance(long m, long n, double *restrict data, double *restrict cov,
                                   double *restrict mean) {
    for (long j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (long i = 0; i < n; i++) mean[j] = mean[j] + data[i * m + j];
        mean[j] = mean[j] / (double)n;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) data[i * m + j] = data[i * m + j] - mean[j];
    for (long i = 0; i < m; i++)
        for (long j = i; j < m; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++) s = s + data[k * m + i] * data[k * m + j];
            s = s / (double)(n - 1);
            cov[i * m + j] = s;
            cov[j * m + i] = s;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "covariance matrix");
    long m = wb_pick_size(&args, 64, 240), n = m + m / 4;
    double *data = wb_alloc(sizeof(double) * (size_t)(n * m)), *cov = wb_alloc(sizeof(double) * (size_t)(m * m));
    double *mean = wb_alloc(sizeof(double) * (size_t)m);
    kc_fill(data, n * m, 36);
    double t0 = wb_now();
    kernel_covariance(m, n, data, cov, mean);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, cov, m * m);
    kc_finish("covariance", m, &h, sizeof(double) * (size_t)(n * m + m * m + m), t);
    return 0;
}
