/*
 * fft.c - SPLASH-2-style six-step 1-D complex FFT of N = 2^M points, computed as a
 * 2-D FFT on a sqrt(N) x sqrt(N) matrix: transpose, FFTs of all rows, twiddle
 * multiplication, transpose, FFTs of all rows, transpose. Affine class (dissertation
 * §5.6, SPLASH-2 "FFT"). The row loops, transposes and twiddle loop are parallel over
 * rows; each row FFT is an in-place iterative radix-2 transform whose butterflies
 * are affine in the loop indices (bit reversal uses a precomputed table).
 *
 * --size M : log2 of the number of points (even); quick 14, default 22 (N complex
 *            doubles in x, the scratch matrix and the twiddle matrix: 192 MiB)
 * --iters K: repetitions (the input is restored each time); quick 1, default 1
 * --output : also compare five output points with a direct O(N) DFT and print the
 *            largest absolute difference.
 * Data are interleaved (re, im) doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

/* dst = src^T for an r x r complex matrix (rows of dst written in order) */
WB_NOINLINE WB_PARALLEL void kernel_transpose(long r, const double *restrict src, double *restrict dst) {
    for (long i = 0; i < r; i++)
        for (long j = 0; j < r; j++) {
            dst[2 * (i * r + j)] = src[2 * (j * r + i)];
            dst[2 * (i * r + j) + 1] = src[2 * (j * r + i) + 1];
        }
}

/* in-place FFT of every row (length r = 2^lg); roots[2*k] = cos/sin(-2 pi k / r) */
WB_NOINLINE WB_PARALLEL void kernel_row_ffts(long r, long lg, double *restrict x, const int *restrict rev,
                                 const double *restrict roots) {
    for (long row = 0; row < r; row++) {
        long base = 2 * row * r;
        for (long i = 0; i < r; i++) {
            long j = rev[i];
            if (j > i) {
                double tr = x[base + 2 * i], ti = x[base + 2 * i + 1];
                x[base + 2 * i] = x[base + 2 * j];
                x[base + 2 * i + 1] = x[base + 2 * j + 1];
                x[base + 2 * j] = tr;
                x[base + 2 * j + 1] = ti;
            }
        }
        for (long s = 1; s <= lg; s++) {
            long half = 1L << (s - 1), stride = r >> s;
            for (long start = 0; start < r; start += 2 * half)
                for (long k = 0; k < half; k++) {
                    double wr = roots[2 * k * stride], wi = roots[2 * k * stride + 1];
                    long p = base + 2 * (start + k), q = base + 2 * (start + k + half);
                    double ur = x[p], ui = x[p + 1];
                    double vr = x[q] * wr - x[q + 1] * wi, vi = x[q] * wi + x[q + 1] * wr;
                    x[p] = ur + vr;
                    x[p + 1] = ui + vi;
                    x[q] = ur - vr;
                    x[q + 1] = ui - vi;
                }
        }
    }
}

/* x[i][j] *= w^(i*j), w = exp(-2 pi i / N); tw holds the r x r twiddle matrix */
WB_NOINLINE WB_PARALLEL void kernel_twiddle(long r, double *restrict x, const double *restrict tw) {
    for (long i = 0; i < r; i++)
        for (long j = 0; j < r; j++) {
            long p = 2 * (i * r + j);
            double xr = x[p], xi = x[p + 1];
            x[p] = xr * tw[p] - xi * tw[p + 1];
            x[p + 1] = xr * tw[p + 1] + xi * tw[p];
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "six-step 1-D FFT computed as a 2-D FFT with twiddles");
    long m = wb_pick_size(&args, 14, 22);
    int reps = wb_pick_iters(&args, 1, 1);
    if (m < 2 || m > 30 || (m & 1)) wb_die("--size (log2 points) must be even, 2..30");
    long lg = m / 2, r = 1L << lg, n = r * r;
    double *x = wb_alloc(sizeof(double) * 2 * (size_t)n), *y = wb_alloc(sizeof(double) * 2 * (size_t)n);
    double *x0 = wb_alloc(sizeof(double) * 2 * (size_t)n), *tw = wb_alloc(sizeof(double) * 2 * (size_t)n);
    double *roots = wb_alloc(sizeof(double) * 2 * (size_t)r);
    int *rev = wb_alloc(sizeof(int) * (size_t)r);
    const double pi = 3.14159265358979323846;
    for (long k = 0; k < r; k++) {
        roots[2 * k] = cos(-2.0 * pi * (double)k / (double)r);
        roots[2 * k + 1] = sin(-2.0 * pi * (double)k / (double)r);
        long v = 0;
        for (long b = 0; b < lg; b++)
            if (k & (1L << b)) v |= 1L << (lg - 1 - b);
        rev[k] = (int)v;
    }
    for (long i = 0; i < r; i++)
        for (long j = 0; j < r; j++) {
            double ang = -2.0 * pi * (double)((i * j) % n) / (double)n;
            tw[2 * (i * r + j)] = cos(ang);
            tw[2 * (i * r + j) + 1] = sin(ang);
        }
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    for (long i = 0; i < 2 * n; i++) x0[i] = wb_lcg_double(&g) - 0.5;
    double t = 0.0;
    for (int rep = 0; rep < reps; rep++) {
        memcpy(x, x0, sizeof(double) * 2 * (size_t)n);
        double t0 = wb_now();
        /* input index n1 + r*n2 is x[n2][n1]; transpose so rows run over n2 */
        kernel_transpose(r, x, y);
        kernel_row_ffts(r, lg, y, rev, roots);
        kernel_twiddle(r, y, tw);
        kernel_transpose(r, y, x);
        kernel_row_ffts(r, lg, x, rev, roots);
        kernel_transpose(r, x, y);
        t += wb_now() - t0;
    }
    /* y now holds X[k1 + r*k2] at y[k2][k1]... i.e. natural order, row-major */
    printf("fft: points %ld (%ld x %ld) repetitions %d\n", n, r, r, reps);
    wb_print_double("X[0].re", y[0]);
    wb_print_double("X[1].re", y[2]);
    if (args.output) {
        long ks[5] = {0, 1, 2, r + 1, n - 1};
        double maxerr = 0.0;
        for (int q = 0; q < 5; q++) {
            long k = ks[q];
            double sr = 0.0, si = 0.0;
            for (long j = 0; j < n; j++) {
                double ang = -2.0 * pi * (double)((j * k) % n) / (double)n;
                sr += x0[2 * j] * cos(ang) - x0[2 * j + 1] * sin(ang);
                si += x0[2 * j] * sin(ang) + x0[2 * j + 1] * cos(ang);
            }
            double e = fabs(sr - y[2 * k]) + fabs(si - y[2 * k + 1]);
            if (e > maxerr) maxerr = e;
        }
        printf("dft_check_max_error: %.3e\n", maxerr);
    }
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, y, 2 * n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated random complex signal, 2^%ld points", m);
    wb_report("fft", desc, sizeof(double) * 6 * (size_t)n, reps, t);
    wb_print_checksum(&h);
    return 0;
}
