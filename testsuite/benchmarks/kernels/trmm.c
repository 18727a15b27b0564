/*
 * trmm.c - B = alpha * A^T B with A unit lower triangular, in place
 * (dense linear algebra, triangular product: row i of B reads the rows k > i
 * it has not yet overwritten). Arrays: globals of order at most KC_MAX.
 * --size N: small 64, medium 240.
 */
#include "corpus.h"

static double A[KC_MAX][KC_MAX], B[KC_MAX][KC_MAX];

WB_NOINLINE void kernel_trmm(long n, double alpha) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            for (long k = i + 1; k < n; k++) B[i][j] = B[i][j] + A[k][i] * B[k][j];
            B[i][j] = alpha * B[i][j];
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "triangular matrix product B = alpha A^T B");
    long n = wb_pick_size(&args, 64, 240);
    if (n > KC_MAX) wb_die("--size at most %d", KC_MAX);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            A[i][j] = kc_val(i * n + j, 7);
            B[i][j] = kc_val(i * n + j, 8);
        }
    double t0 = wb_now();
    kernel_trmm(n, 1.5);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, B[i], n);
    kc_finish("trmm", n, &h, sizeof(double) * 2 * (size_t)(n * n), t);
    return 0;
}
