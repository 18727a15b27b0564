/*
 * floyd.c - Floyd-Warshall all-pairs shortest paths on a dense weighted graph
 * (dynamic programming: step k reads row and column k of the same matrix).
 * Arrays: restrict pointers from wb_alloc. --size N: small 96, medium 320.
 */
#include "corpus.h"

WB_NOINLINE void kernel_floyd(long n, double *restrict d) {
    for (long k = 0; k < n; k++)
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                if (d[i * n + k] + d[k * n + j] < d[i * n + j]) d[i * n + j] = d[i * n + k] + d[k * n + j];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "Floyd-Warshall shortest paths");
    long n = wb_pick_size(&args, 96, 320);
    double *d = wb_alloc(sizeof(double) * (size_t)(n * n));
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            d[i * n + j] = i == j ? 0.0 : ((i * 31 + j * 17) % 11 == 0 ? 1.0 + (double)((i + j) % 9) : 1e9);
    double t0 = wb_now();
    kernel_floyd(n, d);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, d, n * n);
    kc_finish("floyd", n, &h, sizeof(double) * (size_t)(n * n), t);
    return 0;
}
