/*
 * correlation.c - Pearson correlation matrix of m variables over n observations:
 * means, standard deviations (clamped away from 0), standardisation, then the
 * upper triangle of data^T data (data-mining statistics).
 * Arrays: plain pointers from the helper allocator. --size M: n = M + M/4; small 64, medium 240.
 */
#include <math.h>

#include "corpus.h"

WB_NOINLINE void kernel_correlation(long m, long n, double *data, double *corr, double *mean,
                                    double *sd) {
    for (long j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (long i = 0; i < n; i++) mean[j] = mean[j] + data[i * m + j];
        mean[j] = mean[j] / (double)n;
    }
    for (long j = 0; j < m; j++) {
        sd[j] = 0.0;
        for (long i = 0; i < n; i++) sd[j] = sd[j] + (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        sd[j] = sqrt(sd[j] / (double)n);
        if (sd[j] <= 0.1) sd[j] = 1.0;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrt((double)n) * sd[j]);
    for (long i = 0; i < m; i++) {
        corr[i * m + i] = 1.0;
        for (long j = i + 1; j < m; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++) s = s + data[k * m + i] * data[k * m + j];
            corr[i * m + j] = s;
            corr[j * m + i] = s;
        }
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "correlation matrix");
    long m = wb_pick_size(&args, 64, 240), n = m + m / 4;
    double *data = kc_array(n * m), *corr = kc_array(m * m), *mean = kc_array(m), *sd = kc_array(m);
    kc_fill(data, n * m, 37);
    double t0 = wb_now();
    kernel_correlation(m, n, data, corr, mean, sd);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, corr, m * m);
    kc_finish("correlation", m, &h, sizeof(double) * (size_t)(n * m + m * m + 2 * m), t);
    return 0;
}
