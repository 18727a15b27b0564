/*
 * knapsack.c - 0/1 knapsack table, one row per item over all capacities
 * (dynamic programming: row i reads row i-1 at c and c - w[i]).
 * Arrays: restrict pointers from wb_alloc. --size N: items; capacity 4N;
 * small 120, medium 800.
 */
#include "corpus.h"

WB_NOINLINE void kernel_knapsack(long n, long cap, const long *restrict w, const double *restrict v,
                                 double *restrict t) {
    for (long c = 0; c <= cap; c++) t[c] = 0.0;
    for (long i = 1; i <= n; i++)
        for (long c = 0; c <= cap; c++) {
            double keep = t[(i - 1) * (cap + 1) + c];
            if (w[i - 1] <= c && t[(i - 1) * (cap + 1) + c - w[i - 1]] + v[i - 1] > keep)
                keep = t[(i - 1) * (cap + 1) + c - w[i - 1]] + v[i - 1];
            t[i * (cap + 1) + c] = keep;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "0/1 knapsack table");
    long n = wb_pick_size(&args, 120, 800), cap = 4 * n;
    long *w = wb_alloc(sizeof(long) * (size_t)n);
    double *v = wb_alloc(sizeof(double) * (size_t)n), *t = wb_alloc(sizeof(double) * (size_t)((n + 1) * (cap + 1)));
    for (long i = 0; i < n; i++) {
        w[i] = 1 + (i * 37) % 23;
        v[i] = 1.0 + kc_val(i, 57);
    }
    double t0 = wb_now();
    kernel_knapsack(n, cap, w, v, t);
    double tt = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, t + n * (cap + 1), cap + 1);
    wb_print_double("best", t[(n + 1) * (cap + 1) - 1]);
    kc_finish("knapsack", n, &h, sizeof(double) * (size_t)((n + 1) * (cap + 1) + n) + sizeof(long) * (size_t)n, tt);
    return 0;
}
