/*
 * durbin.c - Levinson-Durbin recursion for a Toeplitz system (solver: every step
 * uses the whole previous solution; inner loops are short reversals and updates).
 * Arrays: restrict pointers from wb_alloc. --size N: small 800, medium 4000.
 */
#include "corpus.h"

WB_NOINLINE void kernel_durbin(long n, const double *restrict r, double *restrict y,
                               double *restrict z) {
    y[0] = -r[0];
    double beta = 1.0, alpha = -r[0];
    for (long k = 1; k < n; k++) {
        beta = (1.0 - alpha * alpha) * beta;
        double s = 0.0;
        for (long i = 0; i < k; i++) s = s + r[k - i - 1] * y[i];
        alpha = -(r[k] + s) / beta;
        for (long i = 0; i < k; i++) z[i] = y[i] + alpha * y[k - i - 1];
        for (long i = 0; i < k; i++) y[i] = z[i];
        y[k] = alpha;
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "Levinson-Durbin recursion");
    long n = wb_pick_size(&args, 800, 4000);
    double *r = wb_alloc(sizeof(double) * (size_t)n), *y = wb_alloc(sizeof(double) * (size_t)n);
    double *z = wb_alloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++) r[i] = 0.5 / (double)(i + 2) + kc_val(i, 45) * 1e-3;
    double t0 = wb_now();
    kernel_durbin(n, r, y, z);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, y, n);
    kc_finish("durbin", n, &h, sizeof(double) * 3 * (size_t)n, t);
    return 0;
}
