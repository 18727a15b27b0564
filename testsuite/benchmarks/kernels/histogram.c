/*
 * histogram.c - weighted histogram by index, hist[bin[i]] += w[i] (index-array
 * loop with a write through the index array: iterations that share a bin depend
 * on each other). Arrays: restrict pointers from wb_alloc.
 * --size N: samples; bins N/16; small 20000 (4 passes), medium 1000000 (4 passes).
 */
#include "corpus.h"

WB_NOINLINE void kernel_histogram(long n, const int *restrict bin, const double *restrict w,
                                  double *restrict hist) {
    for (long i = 0; i < n; i++) hist[bin[i]] = hist[bin[i]] + w[i];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "weighted histogram by index");
    long n = wb_pick_size(&args, 20000, 1000000), nb = n / 16;
    int *bin = wb_alloc(sizeof(int) * (size_t)n);
    double *w = wb_alloc(sizeof(double) * (size_t)n), *hist = wb_alloc(sizeof(double) * (size_t)nb);
    for (long i = 0; i < n; i++) bin[i] = (int)((i * 2654435761u) % (unsigned long)nb);
    kc_fill(w, n, 60);
    double t0 = wb_now();
    for (int r = 0; r < 4; r++) kernel_histogram(n, bin, w, hist);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, hist, nb);
    kc_finish("histogram", n, &h, sizeof(double) * (size_t)(n + nb) + sizeof(int) * (size_t)n, t);
    return 0;
}
