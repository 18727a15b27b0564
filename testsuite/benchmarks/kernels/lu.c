/*
 * lu.c - in-place LU factorisation without pivoting of a diagonally dominant
 * matrix, row by row (factorisation: row i is reduced by every earlier row).
 * Arrays: globals of order at most KC_MAX. --size N: small 96, medium 360.
 */
#include "corpus.h"

static double A[KC_MAX][KC_MAX];

WB_NOINLINE void kernel_lu(long n) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++) {
            for (long k = 0; k < j; k++) A[i][j] = A[i][j] - A[i][k] * A[k][j];
            A[i][j] = A[i][j] / A[j][j];
        }
        for (long j = i; j < n; j++)
            for (long k = 0; k < i; k++) A[i][j] = A[i][j] - A[i][k] * A[k][j];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "LU factorisation without pivoting");
    long n = wb_pick_size(&args, 96, 360);
    if (n > KC_MAX) wb_die("--size at most %d", KC_MAX);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) A[i][j] = kc_val(i * n + j, 44) + (i == j ? (double)n : 0.0);
    double t0 = wb_now();
    kernel_lu(n);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, A[i], n);
    kc_finish("lu", n, &h, sizeof(double) * (size_t)(n * n), t);
    return 0;
}
