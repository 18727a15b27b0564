/*
 * nussinov.c - RNA-folding-style dynamic programme: the best number of pairs in
 * seq[i..j], from the cells to the left and below and every split point
 * (dynamic programming over a triangle, i descending).
 * Arrays: globals of order at most KC_MAX. --size N: small 120, medium 400.
 */
#include "corpus.h"

static int Seq[KC_MAX], Tab[KC_MAX][KC_MAX];

static inline int kc_max(int a, int b) { return a > b ? a : b; }

WB_NOINLINE void kernel_nussinov(long n) {
    for (long i = n - 1; i >= 0; i--)
        for (long j = i + 1; j < n; j++) {
            int t = Tab[i][j - 1];
            if (i + 1 < n) t = kc_max(t, Tab[i + 1][j]);
            if (i + 1 < n && i + 1 <= j - 1) t = kc_max(t, Tab[i + 1][j - 1] + (Seq[i] + Seq[j] == 3 ? 1 : 0));
            for (long k = i + 1; k < j; k++) t = kc_max(t, Tab[i][k] + Tab[k + 1][j]);
            Tab[i][j] = t;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "base-pair maximisation dynamic programme");
    long n = wb_pick_size(&args, 120, 400);
    if (n > KC_MAX) wb_die("--size at most %d", KC_MAX);
    for (long i = 0; i < n; i++) Seq[i] = (int)((i * 7 + i / 3) % 4);
    double t0 = wb_now();
    kernel_nussinov(n);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_ints(&h, Tab[i], n);
    printf("pairs: %d\n", Tab[0][n - 1]);
    kc_finish("nussinov", n, &h, sizeof(int) * (size_t)(n * n + n), t);
    return 0;
}
