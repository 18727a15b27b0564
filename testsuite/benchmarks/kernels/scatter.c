/*
 * scatter.c - y[perm[i]] = x[i] + c[i] through a permutation, repeated with the
 * roles of x and y swapped (index-array loop, write through the index; distinct
 * targets because perm is a permutation). Arrays: plain pointers from the helper
 * allocator. --size N: elements; small 20000 (6 passes), medium 1000000 (6 passes).
 */
#include "corpus.h"

WB_NOINLINE void kernel_scatter(long n, const int *perm, const double *x, const double *c,
                                double *y) {
    for (long i = 0; i < n; i++) y[perm[i]] = x[i] + c[i];
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "scatter through a permutation");
    long n = wb_pick_size(&args, 20000, 1000000);
    int *perm = kc_ints(n);
    double *x = kc_array(n), *y = kc_array(n), *c = kc_array(n);
    wb_lcg g;
    wb_lcg_seed(&g, args.seed + 1);
    wb_random_perm(perm, n, &g);
    kc_fill(x, n, 62);
    kc_fill(c, n, 63);
    double t0 = wb_now();
    for (int r = 0; r < 3; r++) {
        kernel_scatter(n, perm, x, c, y);
        kernel_scatter(n, perm, y, c, x);
    }
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, x, n);
    kc_finish("scatter", n, &h, sizeof(double) * 3 * (size_t)n + sizeof(int) * (size_t)n, t);
    return 0;
}
