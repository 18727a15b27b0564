/*
 * bicg.c - the two products of BiCG, s = A^T r and q = A p, in one sweep over A
 * (dense linear algebra, matrix-vector pair). Arrays: globals of order at most KC_MAX.
 * --size N: small 200, medium 400.
 */
#include "corpus.h"

static double A[KC_MAX][KC_MAX], s[KC_MAX], q[KC_MAX], p[KC_MAX], r[KC_MAX];

WB_NOINLINE void kernel_bicg(long n) {
    for (long j = 0; j < n; j++) s[j] = 0.0;
    for (long i = 0; i < n; i++) {
        q[i] = 0.0;
        for (long j = 0; j < n; j++) {
            s[j] = s[j] + r[i] * A[i][j];
            q[i] = q[i] + A[i][j] * p[j];
        }
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "BiCG kernel s = A^T r, q = A p");
    long n = wb_pick_size(&args, 200, 400);
    if (n > KC_MAX) wb_die("--size at most %d", KC_MAX);
    for (long i = 0; i < n; i++) {
        p[i] = kc_val(i, 20);
        r[i] = kc_val(i, 21);
        for (long j = 0; j < n; j++) A[i][j] = kc_val(i * n + j, 22);
    }
    double t0 = wb_now();
    for (int rep = 0; rep < 4; rep++) kernel_bicg(n);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, s, n);
    wb_hash_doubles(&h, q, n);
    kc_finish("bicg", n, &h, sizeof(double) * (size_t)(n * n + 4 * n), t);
    return 0;
}
