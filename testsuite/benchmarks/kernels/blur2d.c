/*
 * blur2d.c - separable 5-tap blur, horizontal pass into a scratch image then
 * vertical pass back (stencil). Arrays: globals of order at most KC_MAX.
 * --size N: small 160 (T 2), medium 400 (T 8).
 */
#include "corpus.h"

static double Img[KC_MAX][KC_MAX], Tmp[KC_MAX][KC_MAX];

WB_NOINLINE void kernel_blur2d(long n, long steps) {
    for (long t = 0; t < steps; t++) {
        for (long i = 0; i < n; i++)
            for (long j = 2; j < n - 2; j++)
                Tmp[i][j] = 0.0625 * Img[i][j - 2] + 0.25 * Img[i][j - 1] + 0.375 * Img[i][j] + 0.25 * Img[i][j + 1] + 0.0625 * Img[i][j + 2];
        for (long i = 2; i < n - 2; i++)
            for (long j = 2; j < n - 2; j++)
                Img[i][j] = 0.0625 * Tmp[i - 2][j] + 0.25 * Tmp[i - 1][j] + 0.375 * Tmp[i][j] + 0.25 * Tmp[i + 1][j] + 0.0625 * Tmp[i + 2][j];
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "separable 2-D blur");
    long n = wb_pick_size(&args, 160, 400), steps = args.quick ? 2 : 8;
    if (n > KC_MAX) wb_die("--size at most %d", KC_MAX);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) Img[i][j] = kc_val(i * n + j, 54);
    double t0 = wb_now();
    kernel_blur2d(n, steps);
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    for (long i = 0; i < n; i++) wb_hash_doubles(&h, Img[i], n);
    kc_finish("blur2d", n, &h, sizeof(double) * 2 * (size_t)(n * n), t);
    return 0;
}
