/*
 * carey.c - Carey-like benchmark: epidemic diffusion (SIR model) on a large social
 * graph. Each day, every susceptible person is infected with probability
 * 1 - (1 - beta)^k, k = number of infectious contacts, and every infectious person
 * recovers with probability gamma. Random draws come from a stateless hash of
 * (person, day), and the state is double-buffered, so the result does not depend on
 * the order in which people are processed. Irregular class (dissertation Table 4.1,
 * "Carey"): the per-person loop gathers state[adj[j]] through the adjacency index array.
 *
 * Inputs: --input FILE.edges (edge list; --base 0|1, default auto-detected;
 * symmetrized) or, by default, a generated R-MAT/Kronecker graph (Graph500
 * parameters) with 2^N vertices and 16*2^N edges.
 * quick: the shared kron_g14_k16.gapbs.edges graph; default N = 19.
 * --iters K: simulated days; quick 3, default 10.
 * --dump-graph / --permute: the contact graph (see weft_bench.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

/* Folder of the plain input files. The harness passes -DWEFT_DATA_DIR=<folder> (the
 * shipped data/ unpacked into target/weft-data, or $WEFT_DATA_DIR); this default finds
 * that folder when the program runs from the repository root. */
#ifndef WEFT_DATA_DIR
#define WEFT_DATA_DIR "target/weft-data"
#endif

enum { SUSCEPTIBLE = 0, INFECTIOUS = 1, RECOVERED = 2 };

/* One day of the epidemic: next[i] from state[i] and the states of i's contacts. */
WB_NOINLINE WB_PARALLEL void kernel_spread(int n, const long *restrict rowptr, const int *restrict adj,
                               const int *restrict state, int *restrict next,
                               const double *restrict pow_table, int max_deg, int day,
                               double gamma) {
    for (int i = 0; i < n; i++) {
        int s = state[i];
        int ns = s;
        if (s == SUSCEPTIBLE) {
            int k = 0;
            for (long j = rowptr[i]; j < rowptr[i + 1]; j++) k += state[adj[j]] == INFECTIOUS;
            if (k > max_deg) k = max_deg;
            /* pow_table[k] = (1 - beta)^k: probability of escaping all k contacts */
            if (k > 0 && wb_hash_unit_inline((uint64_t)i, (uint64_t)day) >= pow_table[k]) ns = INFECTIOUS;
        } else if (s == INFECTIOUS) {
            if (wb_hash_unit_inline((uint64_t)i, (uint64_t)day + 0x100000000ULL) < gamma) ns = RECOVERED;
        }
        next[i] = ns;
    }
}

/* counts[s] = number of people in state s (reduction) */
WB_NOINLINE void kernel_census(int n, const int *restrict state, long *restrict counts) {
    long c0 = 0, c1 = 0, c2 = 0;
    for (int i = 0; i < n; i++) {
        c0 += state[i] == SUSCEPTIBLE;
        c1 += state[i] == INFECTIOUS;
        c2 += state[i] == RECOVERED;
    }
    counts[0] = c0;
    counts[1] = c1;
    counts[2] = c2;
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "Carey-like SIR epidemic diffusion on a social/Kronecker graph");
    int days = wb_pick_iters(&a, 3, 10);
    const char *input = a.input;
    if (!input && a.quick && a.size == 0) input = WEFT_DATA_DIR "/graphs/kron_g14_k16.gapbs.edges";
    wb_graph g;
    char desc[512];
    if (input) {
        char err[512];
        long lines;
        int base;
        if (wb_read_edges(input, a.base, 1, &g, &lines, &base, err, sizeof err)) wb_die("%s", err);
        snprintf(desc, sizeof desc, "%s (%ld lines, base %d, %d vertices, %ld adjacency entries)", input,
                 lines, base, g.n, g.m);
    } else {
        int scale = (int)wb_pick_size(&a, 12, 19);
        wb_gen_rmat(scale, 16, a.seed, &g);
        snprintf(desc, sizeof desc, "generated R-MAT scale %d edgefactor 16 (%d vertices, %ld adjacency entries)",
                 scale, g.n, g.m);
    }
    int n = g.n;
    if (n == 0) wb_die("empty graph");
    /* GPART renumbering of the people. The initial infections follow their people;
     * the daily draws hash the (new) person number, so a non-identity renumbering
     * gives another, equally distributed, realisation of the epidemic. */
    wb_dump_graph_and_exit(&a, n, g.rowptr, g.adj);
    int *perm = wb_load_perm(&a, n);
    if (perm) wb_graph_permute(&g, perm);
    int max_deg = 0;
    for (int i = 0; i < n; i++)
        if (g.rowptr[i + 1] - g.rowptr[i] > max_deg) max_deg = (int)(g.rowptr[i + 1] - g.rowptr[i]);
    const double beta = 0.05, gamma = 0.2;
    double *pow_table = wb_alloc(sizeof(double) * ((size_t)max_deg + 1));
    pow_table[0] = 1.0;
    for (int k = 1; k <= max_deg; k++) pow_table[k] = pow_table[k - 1] * (1.0 - beta);
    int *state = wb_alloc(sizeof(int) * n), *next = wb_alloc(sizeof(int) * n);
    /* seed infections: 0.5% of people (at least one), chosen by a fixed LCG */
    wb_lcg r;
    wb_lcg_seed(&r, a.seed);
    int seeds = n / 200 > 0 ? n / 200 : 1;
    for (int k = 0; k < seeds; k++) {
        int who = (int)wb_lcg_below(&r, (uint64_t)n);
        state[perm ? perm[who] : who] = INFECTIOUS;
    }
    wb_free(perm);
    long counts[3];
    wb_hash h;
    wb_hash_init(&h);

    double t0 = wb_now();
    for (int d = 0; d < days; d++) {
        kernel_spread(n, g.rowptr, g.adj, state, next, pow_table, max_deg, d, gamma);
        int *t = state;
        state = next;
        next = t;
        kernel_census(n, state, counts);
        wb_hash_u64(&h, (uint64_t)counts[1]);
    }
    double t1 = wb_now();

    printf("carey: people %d contacts %ld days %d\n", n, g.m, days);
    printf("final: susceptible %ld infectious %ld recovered %ld\n", counts[0], counts[1], counts[2]);
    wb_hash_ints(&h, state, n);
    size_t ws = sizeof(long) * ((size_t)n + 1) + sizeof(int) * (size_t)g.m + 2 * sizeof(int) * (size_t)n;
    wb_report("carey", desc, ws, days, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
