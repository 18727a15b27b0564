/*
 * spmv_runtime.c — linking the weft runtime from C (dissertation ch. 4 in small).
 *
 * A sparse matrix-vector product y = A x (CSR, index arrays rowptr/col) is the
 * typical irregular loop. The program
 *   1. builds the bank map of every slab by hand (weft_bank_of on each address a
 *      slab touches), schedules the slabs with Algorithm 4 (weft_schedule_slabs)
 *      and prints the banks covered per slot, original order versus schedule;
 *   2. runs the loop through the inspector/executor entry point
 *      weft_run_irregular (inspector = address-only slice of the body) five times,
 *      as a timing loop would, on WEFT_CORES threads, and checks y against a
 *      sequential reference.
 * The body reports its accesses with weft_trace_access (a no-op unless WEFT_TRACE
 * is set), as instrumented code would.
 *
 * Build:  cargo build -p weft-runtime
 *         clang-19 -O2 examples/spmv_runtime.c -Iruntime/include \
 *             target/debug/libweft_runtime.a -lpthread -ldl -lm -o spmv
 * Run:    WEFT_CORES=4 ./spmv
 *         WEFT_CORES=4 WEFT_TRACE=spmv.trace WEFT_STATS=spmv.json ./spmv
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "weft_runtime.h"

typedef struct {
    int64_t n;
    const int64_t *rowptr;
    const int64_t *col;
    const double *val;
    const double *x;
    double *y;
} spmv_ctx;

static void body(void *p, int64_t lo, int64_t hi) {
    spmv_ctx *c = (spmv_ctx *)p;
    for (int64_t i = lo; i < hi; i++) {
        double s = 0.0;
        for (int64_t j = c->rowptr[i]; j < c->rowptr[i + 1]; j++) {
            weft_trace_access(&c->val[j], 8, 0, 1);
            weft_trace_access(&c->x[c->col[j]], 8, 0, 1);
            s += c->val[j] * c->x[c->col[j]];
        }
        weft_trace_access(&c->y[i], 8, 1, 2);
        c->y[i] = s;
    }
}

static void inspect(void *p, int64_t lo, int64_t hi, weft_inspector_t *h) {
    spmv_ctx *c = (spmv_ctx *)p;
    for (int64_t i = lo; i < hi; i++) {
        for (int64_t j = c->rowptr[i]; j < c->rowptr[i + 1]; j++) {
            weft_inspect_access(h, i, &c->val[j], 8, 0);
            weft_inspect_access(h, i, &c->x[c->col[j]], 8, 0);
        }
        weft_inspect_access(h, i, &c->y[i], 8, 1);
    }
}

#define CHECK(call)                                                              \
    do {                                                                         \
        int32_t st_ = (call);                                                    \
        if (st_ != WEFT_OK) {                                                    \
            fprintf(stderr, "%s failed (%d): %s\n", #call, st_, weft_last_error()); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

static uint64_t rng_state = 42;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

int main(void) {
    const int64_t n = 20000;
    int64_t *rowptr = malloc((n + 1) * sizeof *rowptr);
    int64_t *col = malloc(n * 16 * sizeof *col);
    double *val = malloc(n * 16 * sizeof *val);
    double *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y), *ref = calloc(n, sizeof *ref);
    rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = 1 + (int64_t)(rnd() % 15);
        for (int64_t t = 0; t < k; t++) {
            /* banded plus random columns: a mix of regular and irregular accesses */
            int64_t cidx = (t % 2) ? (int64_t)(rnd() % n) : (i + t * 64) % n;
            col[rowptr[i] + t] = cidx;
            val[rowptr[i] + t] = (double)(rnd() % 1000) / 8.0;
        }
        rowptr[i + 1] = rowptr[i] + k;
    }
    for (int64_t i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 17) / 4.0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t j = rowptr[i]; j < rowptr[i + 1]; j++) s += val[j] * x[col[j]];
        ref[i] = s;
    }
    spmv_ctx ctx = {n, rowptr, col, val, x, y};

    /* 1. Bank maps by hand, then Algorithm 4. */
    uint32_t P, mem_banks, llc_banks;
    CHECK(weft_num_cores(&P));
    CHECK(weft_num_banks(&mem_banks, &llc_banks));
    uint32_t words = (mem_banks + 63) / 64;
    int64_t per_core = (n + P - 1) / P;
    /* small slabs (2 rows) so that the bank maps are sparse enough to differ */
    int64_t slab = 2;
    uint32_t *counts = calloc(P, sizeof *counts);
    uint32_t total = 0;
    for (uint32_t c = 0; c < P; c++) {
        int64_t a = c * per_core, b = a + per_core < n ? a + per_core : n;
        counts[c] = a < b ? (uint32_t)((b - a + slab - 1) / slab) : 0;
        total += counts[c];
    }
    uint64_t *maps = calloc((size_t)total * words, sizeof *maps);
    uint32_t g = 0, max_m = 0;
    for (uint32_t c = 0; c < P; c++) {
        int64_t a = c * per_core, b = a + per_core < n ? a + per_core : n;
        if (counts[c] > max_m) max_m = counts[c];
        for (uint32_t k = 0; k < counts[c]; k++, g++) {
            int64_t lo = a + k * slab, hi = lo + slab < b ? lo + slab : b;
            for (int64_t i = lo; i < hi; i++) {
                uint32_t mb, lb;
                for (int64_t j = rowptr[i]; j < rowptr[i + 1]; j++) {
                    CHECK(weft_bank_of(&x[col[j]], &mb, &lb));
                    maps[(size_t)g * words + mb / 64] |= 1ull << (mb % 64);
                    CHECK(weft_bank_of(&val[j], &mb, &lb));
                    maps[(size_t)g * words + mb / 64] |= 1ull << (mb % 64);
                }
                CHECK(weft_bank_of(&y[i], &mb, &lb));
                maps[(size_t)g * words + mb / 64] |= 1ull << (mb % 64);
            }
        }
    }
    int32_t *order = malloc((size_t)max_m * P * sizeof *order);
    uint32_t *cov = malloc(max_m * sizeof *cov), slots = 0;
    CHECK(weft_schedule_slabs(P, mem_banks, counts, maps, order, cov, &slots));
    /* banks per slot of the original order (slot t runs slab t of every core) */
    double orig = 0.0, sched = 0.0;
    uint64_t *u = malloc(words * sizeof *u);
    for (uint32_t t = 0; t < max_m; t++) {
        memset(u, 0, words * sizeof *u);
        uint32_t base = 0;
        for (uint32_t c = 0; c < P; c++) {
            if (t < counts[c])
                for (uint32_t w = 0; w < words; w++) u[w] |= maps[(size_t)(base + t) * words + w];
            base += counts[c];
        }
        uint32_t bits = 0;
        for (uint32_t w = 0; w < words; w++) bits += (uint32_t)__builtin_popcountll(u[w]);
        orig += bits;
    }
    for (uint32_t t = 0; t < slots; t++) sched += cov[t];
    printf("machine: %u memory banks, %u LLC banks; %u cores, %u slabs of %lld rows\n",
           mem_banks, llc_banks, P, total, (long long)slab);
    printf("mean banks per slot: original %.2f, scheduled %.2f\n", orig / max_m, sched / slots);
    printf("slot 0:");
    for (uint32_t c = 0; c < P && c < 8; c++) printf(" core%u->slab%d", c, order[c]);
    printf("\n");

    /* 2. Inspector/executor: the inspector runs once, the executor five times. */
    for (int it = 0; it < 5; it++) {
        memset(y, 0, n * sizeof *y);
        CHECK(weft_run_irregular(1, 0, n, 0, inspect, body, &ctx));
    }
    double maxdiff = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = y[i] - ref[i];
        if (d < 0) d = -d;
        if (d > maxdiff) maxdiff = d;
    }
    printf("executor: 5 runs, max |y - y_ref| = %g\n", maxdiff);
    /* an invalid call reports an error instead of crashing */
    if (weft_run_irregular(1, 10, 0, 0, inspect, body, &ctx) == WEFT_OK) return 1;
    printf("bad bounds rejected: %s\n", weft_last_error());
    CHECK(weft_trace_finish());
    if (maxdiff != 0.0) {
        printf("MISMATCH\n");
        return 1;
    }
    printf("OK\n");
    free(rowptr); free(col); free(val); free(x); free(y); free(ref);
    free(counts); free(maps); free(order); free(cov); free(u);
    return 0;
}
