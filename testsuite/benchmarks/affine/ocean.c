/*
 * ocean.c - Ocean-style red-black successive over-relaxation for the Poisson
 * equation on an (N+2) x (N+2) grid with fixed boundary (SPLASH-2 "Ocean"'s
 * relaxation step). Each iteration updates all red points, then all black points;
 * points of one colour only read points of the other colour, so the row loop of each
 * half-sweep is parallel. Affine class (dissertation §5.6).
 *
 * --size N : interior grid edge; quick 128, default 2200 (u and f = 74 MiB)
 * --iters K: red-black iterations; quick 15, default 10
 */
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

/* Relaxes the points (i, j) with i = i0, i0+2, ... and j = j0, j0+2, ... (rows of
 * one parity, the columns of one colour in those rows); row length m = n+2. Called
 * twice per colour (odd rows, even rows); points of one colour only read points of
 * the other colour. */
WB_NOINLINE WB_PARALLEL void kernel_relax_rows(long n, long i0, long j0, double omega, double h2,
                                   const double *restrict f, double *restrict u) {
    long m = n + 2;
    for (long i = i0; i <= n; i += 2)
        for (long j = j0; j <= n; j += 2)
            u[i * m + j] = (1.0 - omega) * u[i * m + j] +
                           omega * 0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] +
                                           u[i * m + j + 1] - h2 * f[i * m + j]);
}

/* one colour: (i + j) % 2 == color */
static void relax_color(long n, long color, double omega, double h2, const double *f, double *u) {
    kernel_relax_rows(n, 1, color ? 2 : 1, omega, h2, f, u); /* odd rows */
    kernel_relax_rows(n, 2, color ? 1 : 2, omega, h2, f, u); /* even rows */
}

/* per-row residual sums of squares (row results written separately, summed after) */
WB_NOINLINE WB_PARALLEL void kernel_residual_rows(long n, double h2, const double *restrict f,
                                      const double *restrict u, double *restrict rowsum) {
    long m = n + 2;
    for (long i = 1; i <= n; i++) {
        double s = 0.0;
        for (long j = 1; j <= n; j++) {
            double r = u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1] -
                       4.0 * u[i * m + j] - h2 * f[i * m + j];
            s = s + r * r;
        }
        rowsum[i] = s;
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "Ocean-style red-black SOR on a 2-D grid");
    long n = wb_pick_size(&args, 128, 2200);
    int iters = wb_pick_iters(&args, 15, 10);
    long m = n + 2;
    double *u = wb_alloc(sizeof(double) * (size_t)(m * m)), *f = wb_alloc(sizeof(double) * (size_t)(m * m));
    double *rowsum = wb_alloc(sizeof(double) * (size_t)m);
    double h = 1.0 / (double)(n + 1), h2 = h * h;
    for (long i = 0; i < m; i++)
        for (long j = 0; j < m; j++) {
            double x = i * h, y = j * h;
            f[i * m + j] = 8.0 * x * (1.0 - x) + 4.0 * y * y - 2.0;
            if (i == 0 || j == 0 || i == m - 1 || j == m - 1) u[i * m + j] = x * y;
        }
    double omega = 1.8;
    double t0 = wb_now();
    for (int it = 0; it < iters; it++) {
        relax_color(n, 0, omega, h2, f, u);
        relax_color(n, 1, omega, h2, f, u);
    }
    double t1 = wb_now();
    kernel_residual_rows(n, h2, f, u, rowsum);
    double res = 0.0;
    for (long i = 1; i <= n; i++) res += rowsum[i];
    printf("ocean: grid %ldx%ld iterations %d\n", n, n, iters);
    wb_print_double("residual_norm2", res);
    wb_print_double("u[center]", u[(m / 2) * m + m / 2]);
    wb_hash hs;
    wb_hash_init(&hs);
    wb_hash_doubles(&hs, u, m * m);
    char desc[64];
    snprintf(desc, sizeof desc, "generated Poisson problem, %ldx%ld interior grid", n, n);
    wb_report("ocean", desc, sizeof(double) * 2 * (size_t)(m * m), iters, t1 - t0);
    wb_print_checksum(&hs);
    return 0;
}
