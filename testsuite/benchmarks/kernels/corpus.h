/*
 * corpus.h - shared helpers of the weft kernel corpus (testsuite/benchmarks/kernels,
 * `weft bench kernels`, docs/kernels.md). Written for weft; no third-party code.
 *
 * The corpus exercises the passes on ordinary loop nests written the way a new
 * user would: whole nests inside one kernel_<what> function, no WB_PARALLEL
 * annotations, and three array styles:
 *   - restrict pointers from wb_alloc (the benchmarks' convention),
 *   - plain pointers from a helper allocator (kc_array: malloc behind a function,
 *     so the compiler sees no allocation site and cannot prove non-aliasing),
 *   - file-scope global arrays of a fixed maximum order (KC_MAX).
 * Every program takes --quick (small) or the default (medium) size and --size N,
 * prints deterministic results ending with "checksum: <16 hex digits>" on stdout,
 * and its time on stderr (wb_report).
 */
#ifndef WEFT_KERNEL_CORPUS_H
#define WEFT_KERNEL_CORPUS_H

#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

/* Largest order of the global-array kernels. */
#define KC_MAX 400

/* Helper allocator: malloc behind a function (plain pointers, no restrict). */
WB_NOINLINE __attribute__((unused)) static double *kc_array(long n) {
    double *p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!p) wb_die("out of memory (%ld doubles)", n);
    for (long i = 0; i < n; i++) p[i] = 0.0;
    return p;
}

WB_NOINLINE __attribute__((unused)) static int *kc_ints(long n) {
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!p) wb_die("out of memory (%ld ints)", n);
    for (long i = 0; i < n; i++) p[i] = 0;
    return p;
}

/* Deterministic fill in [-0.5, 0.5): value of element i of a stream `seed`. */
static inline double kc_val(long i, long seed) {
    return (double)((i * 7919 + seed * 104729 + 13) % 1021) / 1021.0 - 0.5;
}

__attribute__((unused)) static void kc_fill(double *p, long n, long seed) {
    for (long i = 0; i < n; i++) p[i] = kc_val(i, seed);
}

/* Symmetric positive definite n x n matrix (row-major, row stride ld). */
__attribute__((unused)) static void kc_spd(double *p, long n, long ld, long seed) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++) {
            double v = kc_val(i * n + j, seed);
            p[i * ld + j] = p[j * ld + i] = v + (i == j ? (double)n : 0.0);
        }
}

/* When the program started: set before main (after the dynamic loader), so
 * "program:" covers everything main does (initialisation, kernel, checksum)
 * and nothing of process creation (`weft bench kernels --time program`). */
static double kc_t0;
__attribute__((constructor)) static void kc_start(void) { kc_t0 = wb_now(); }

/* Ends a run: reports the time on stderr and prints the checksum of `h`;
 * also the program's time so far ("program:", stderr). */
__attribute__((unused)) static void kc_finish(const char *name, long n, wb_hash *h, size_t bytes, double seconds) {
    char desc[64];
    snprintf(desc, sizeof desc, "generated, order %ld", n);
    printf("%s: n %ld\n", name, n);
    wb_report(name, desc, bytes, 1, seconds);
    wb_print_checksum(h);
    fprintf(stderr, "%s: program: %.6f s\n", name, wb_now() - kc_t0);
}

#endif
