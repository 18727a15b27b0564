/*
 * cholesky.c - in-place Cholesky factorisation A = L L^T of an SPD matrix, the
 * whole right-looking-by-rows nest in one function (factorisation: each column
 * update reads every earlier column). Arrays: plain pointers from the helper
 * allocator. --size N: small 96, medium 360.
 */
#include <math.h>

#include "corpus.h"

WB_NOINLINE void kernel_cholesky(long n, double *a) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++) {
            for (long k = 0; k < j; k++) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[j * n + k];
            a[i * n + j] = a[i * n + j] / a[j * n + j];
        }
        for (long k = 0; k < i; k++) a[i * n + i] = a[i * n + i] - a[i * n + k] * a[i * n + k];
        a[i * n + i] = sqrt(a[i * n + i]);
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "Cholesky factorisation");
    long n = wb_pick_size(&args, 96, 360);
    double *a = kc_array(n * n);
    kc_spd(a, n, n, 43);
    double t0 = wb_now();
    kernel_cholesky(n, a);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, a + i * n, i + 1);
    kc_finish("cholesky", n, &h, sizeof(double) * (size_t)(n * n), t);
    return 0;
}
