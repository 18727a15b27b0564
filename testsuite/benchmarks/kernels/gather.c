/*
 * gather.c - y[i] = a*x[idx[i]] + y[i] through a random permutation, repeated
 * (index-array loop, read through the index). Arrays: restrict pointers from wb_alloc.
 * --size N: elements; small 20000 (6 passes), medium 1000000 (6 passes).
 */
#include "corpus.h"

WB_NOINLINE void kernel_gather(long n, double a, const int *restrict idx, const double *restrict x,
                               double *restrict y) {
    for (long i = 0; i < n; i++) y[i] = a * x[idx[i]] + y[i];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "gather through a permutation");
    long n = wb_pick_size(&args, 20000, 1000000);
    int *idx = wb_alloc(sizeof(int) * (size_t)n);
    double *x = wb_alloc(sizeof(double) * (size_t)n), *y = wb_alloc(sizeof(double) * (size_t)n);
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    wb_random_perm(idx, n, &g);
    kc_fill(x, n, 61);
    double t0 = wb_now();
    for (int r = 0; r < 6; r++) kernel_gather(n, 0.5, idx, x, y);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, y, n);
    kc_finish("gather", n, &h, sizeof(double) * 2 * (size_t)n + sizeof(int) * (size_t)n, t);
    return 0;
}
