/*
 * lcs.c - longest-common-subsequence table of two sequences, row by row
 * (dynamic programming: each cell needs its left, upper and diagonal neighbours).
 * Arrays: plain pointers from the helper allocator (int table).
 * --size N: sequence length; small 400, medium 3000.
 */
#include "corpus.h"

WB_NOINLINE void kernel_lcs(long n, const int *a, const int *b, int *t) {
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++) {
            int up = t[(i - 1) * (n + 1) + j], left = t[i * (n + 1) + j - 1];
            int v = up > left ? up : left;
            if (a[i - 1] == b[j - 1]) v = t[(i - 1) * (n + 1) + j - 1] + 1;
            t[i * (n + 1) + j] = v;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "longest common subsequence table");
    long n = wb_pick_size(&args, 400, 3000);
    int *a = kc_ints(n), *b = kc_ints(n), *t = kc_ints((n + 1) * (n + 1));
    for (long i = 0; i < n; i++) {
        a[i] = (int)((i * 13 + 5) % 7);
        b[i] = (int)((i * 11 + i / 5) % 7);
    }
    double t0 = wb_now();
    kernel_lcs(n, a, b, t);
    double tt = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_ints(&h, t, (n + 1) * (n + 1));
    printf("lcs: %d\n", t[(n + 1) * (n + 1) - 1]);
    kc_finish("lcs", n, &h, sizeof(int) * (size_t)((n + 1) * (n + 1) + 2 * n), tt);
    return 0;
}
