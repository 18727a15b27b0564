/*
 * kmeans.c - one k-means step: every point takes its nearest of k centroids
 * (distance loop over d features), then the centroids are recomputed from the
 * assignment (data mining; the update accumulates through the label array).
 * Arrays: plain pointers from the helper allocator. --size N: points, d = 8, k = 16;
 * small 2000, medium 60000.
 */
#include "corpus.h"

WB_NOINLINE void kernel_kmeans(long n, long d, long k, const double *x, double *c, int *label,
                               double *sum, double *cnt) {
    for (long i = 0; i < n; i++) {
        double best = 1e300;
        int arg = 0;
        for (long c0 = 0; c0 < k; c0++) {
            double s = 0.0;
            for (long f = 0; f < d; f++) s = s + (x[i * d + f] - c[c0 * d + f]) * (x[i * d + f] - c[c0 * d + f]);
            if (s < best) {
                best = s;
                arg = (int)c0;
            }
        }
        label[i] = arg;
    }
    for (long c0 = 0; c0 < k * d; c0++) sum[c0] = 0.0;
    for (long c0 = 0; c0 < k; c0++) cnt[c0] = 0.0;
    for (long i = 0; i < n; i++) {
        cnt[label[i]] = cnt[label[i]] + 1.0;
        for (long f = 0; f < d; f++) sum[label[i] * d + f] = sum[label[i] * d + f] + x[i * d + f];
    }
    for (long c0 = 0; c0 < k; c0++)
        if (cnt[c0] > 0.0)
            for (long f = 0; f < d; f++) c[c0 * d + f] = sum[c0 * d + f] / cnt[c0];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "k-means assignment and update step");
    long n = wb_pick_size(&args, 2000, 60000), d = 8, k = 16;
    double *x = kc_array(n * d), *c = kc_array(k * d), *sum = kc_array(k * d), *cnt = kc_array(k);
    int *label = kc_ints(n);
    kc_fill(x, n * d, 56);
    for (long i = 0; i < k * d; i++) c[i] = x[i * 7 % (n * d)];
    double t0 = wb_now();
    for (int r = 0; r < 2; r++) kernel_kmeans(n, d, k, x, c, label, sum, cnt);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, c, k * d);
    wb_hash_ints(&h, label, n);
    kc_finish("kmeans", n, &h, sizeof(double) * (size_t)(n * d + 2 * k * d + k) + sizeof(int) * (size_t)n, t);
    return 0;
}
