/*
 * weft_bench.h - shared support for the weft benchmark programs.
 *
 * Written for the weft project (no third-party code). Provides:
 *   - command-line parsing: --size N, --iters N, --input PATH, --quick, --base B,
 *     --seed S, --output (program-specific extra output), --dump-graph PATH,
 *     --permute PATH, --help
 *   - data renumbering for GPART-style reordering (weft eval): the graph of the
 *     program's data is dumped with --dump-graph, and a permutation computed
 *     outside (testsuite/src/eval/reorder.rs) is applied with --permute
 *   - deterministic generators: 64-bit LCG, HPCG 27-point stencil matrix,
 *     R-MAT / Kronecker edge lists
 *   - loaders: Matrix Market (coordinate; real/integer/pattern; general or
 *     symmetric with lower-triangle expansion), METIS .graph, plain edge lists
 *     with an id base, CMU Spark98/Archimedes .pack files
 *   - CSR helpers, timing (monotonic clock, reported on stderr) and bit-exact
 *     checksums (FNV-1a over the IEEE-754 bit patterns, printed on stdout as
 *     the final line "checksum: <16 hex digits>").
 *
 * Conventions for the benchmark programs (see ../README.md): stdout carries only
 * deterministic results; stderr carries the input description, working-set size
 * and time. Hot loop nests live in noinline functions named kernel_<what>.
 */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

/* Keep results bit-identical between -O0 and -O1 and across targets. */
#pragma STDC FP_CONTRACT OFF

#include <stddef.h>
#include <time.h>
#include <stdint.h>

#define WB_NOINLINE __attribute__((noinline))

/* Marks a kernel whose OUTERMOST loop is parallel by construction: its iterations
 * have no loop-carried dependences through memory (writes through index arrays go to
 * distinct locations, e.g. thanks to a colouring) and may run in any order or
 * concurrently with bit-identical results. Clang records it in the IR as an entry of
 * @llvm.global.annotations with the string "weft.parallel" (no effect on codegen),
 * so the compiler can use it where static dependence analysis cannot decide. */
#define WB_PARALLEL __attribute__((annotate("weft.parallel")))

/* ---------------------------------------------------------------- arguments */

/** Parsed command line. Fields left at their "unset" value keep the program's default. */
typedef struct {
    long size;          /* --size N      (0 = program default)             */
    int iters;          /* --iters N     (0 = program default)             */
    const char *input;  /* --input PATH  (NULL = generated input)          */
    int quick;          /* --quick       (small CI/simulation size)        */
    int base;           /* --base B      (edge-list id base; -1 = auto)    */
    uint64_t seed;      /* --seed S      (generator seed, default 1)       */
    int output;         /* --output      (program-specific extra output)   */
    const char *dump_graph; /* --dump-graph PATH (NULL = run normally)     */
    const char *permute;    /* --permute PATH    (NULL = original numbering) */
} wb_args;

/* Parses argv; exits with status 2 and a usage message on a bad argument.
 * `usage` is a one-line description printed by --help. */
void wb_parse_args(int argc, char **argv, wb_args *a, const char *usage);

/* Size/iteration selection helpers: explicit flag wins, then --quick, then default. */
long wb_pick_size(const wb_args *a, long quick, long dflt);
int wb_pick_iters(const wb_args *a, int quick, int dflt);

/* Fatal error: prints "<prog>: error: ..." to stderr and exits with status 1. */
void wb_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Zero-filled memory for the benchmark's data; dies on failure. Blocks come from one
 * arena at a fixed virtual address (WB_ARENA_BASE), 4 KiB aligned, in allocation order,
 * so a run's data addresses depend only on its inputs and arguments, not on the
 * binary's size or the C library's heap: the original and every optimized build of a
 * benchmark put each array at the same address (same cache sets, LLC banks and DRAM
 * banks). (Static variables still move with the binary.) Where the address cannot be
 * mapped the blocks come from calloc (WEFT_BENCH_ARENA=0 forces that). */
void *wb_alloc(size_t bytes);
/* Frees a block of wb_alloc (arena pages are returned to the system, never reused)
 * or of malloc/calloc/realloc. */
void wb_free(void *p);
/* realloc for blocks of wb_alloc or malloc; new bytes of an arena block are zero. */
void *wb_realloc(void *p, size_t bytes);
/* Where the arena starts (0 when the blocks come from calloc). */
uintptr_t wb_arena_base(void);

/* ---------------------------------------------------------------- random */

/** 64-bit linear congruential generator (Knuth MMIX constants). */
typedef struct { uint64_t s; } wb_lcg;
void wb_lcg_seed(wb_lcg *g, uint64_t seed);
uint64_t wb_lcg_next(wb_lcg *g);          /* full 64-bit state step, returns high-quality bits */
double wb_lcg_double(wb_lcg *g);          /* uniform in [0,1), 53 bits */
uint64_t wb_lcg_below(wb_lcg *g, uint64_t n); /* uniform in [0,n) (n>0) */
/* Stateless hash of (a,b) to [0,1): usable inside parallel loops (order independent). */
double wb_hash_unit(uint64_t a, uint64_t b);
/* Same hash, inlinable, for use inside kernels (no call in the hot loop). */
static inline double wb_hash_unit_inline(uint64_t a, uint64_t b) {
    uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}
/* Fisher-Yates permutation of 0..n-1. */
void wb_random_perm(int *perm, long n, wb_lcg *g);

/* ---------------------------------------------------------------- sparse data */

/** Compressed sparse row matrix (0-based). `val` may be NULL for patterns. */
typedef struct {
    int nrows, ncols;
    long nnz;
    long *rowptr;   /* nrows+1 */
    int *col;       /* nnz */
    double *val;    /* nnz or NULL */
} wb_csr;

/** Coordinate (triplet) matrix as read from a file, 0-based. */
typedef struct {
    int nrows, ncols;
    long nnz;        /* entries held in the arrays */
    long stored;     /* entries stored in the file (before symmetric expansion) */
    int symmetric;   /* file said symmetric / skew-symmetric / hermitian */
    int pattern;     /* file had no values (val filled with 1.0) */
    int *row, *col;
    double *val;
} wb_coo;

/* Matrix Market coordinate reader. With expand_symmetric=1, every off-diagonal
 * entry (i,j) of a symmetric file is also emitted as (j,i) (the file stores
 * one triangle). Returns 0 on success, nonzero and a message in err on failure. */
int wb_read_mm(const char *path, int expand_symmetric, wb_coo *m, char *err, size_t errlen);

/* Triplets -> CSR; duplicates are summed in file order; columns sorted per row. */
void wb_coo_to_csr(const wb_coo *m, wb_csr *out);
void wb_coo_free(wb_coo *m);
void wb_csr_free(wb_csr *m);
size_t wb_csr_bytes(const wb_csr *m);

/** Undirected/directed graph in CSR adjacency form (0-based). */
typedef struct {
    int n;
    long m;          /* adjacency entries (2x undirected edges when symmetrized) */
    long *rowptr;
    int *adj;
} wb_graph;

/* METIS .graph reader (weights, if the fmt field says so, are skipped).
 * Adjacency as in the file (each undirected edge appears twice). */
int wb_read_metis(const char *path, wb_graph *g, long *file_edges, char *err, size_t errlen);

/* Edge list reader: one "u v" per line ('#' or '%' comment lines skipped).
 * base = 0 or 1, or -1 to auto-detect (0 if any id is 0, else 1).
 * If symmetrize, each edge is added in both directions; self loops are dropped and
 * duplicate adjacency entries removed. *lines receives the number of edges read. */
int wb_read_edges(const char *path, int base, int symmetrize, wb_graph *g, long *lines,
                  int *base_used, char *err, size_t errlen);

/* R-MAT / Kronecker generator (Graph500 parameters A=.57, B=C=.19): 2^scale
 * vertices, edgefactor*2^scale edges, symmetrized, self-loops and duplicates
 * removed, vertex ids scrambled by a random permutation. */
void wb_gen_rmat(int scale, int edgefactor, uint64_t seed, wb_graph *g);
void wb_graph_free(wb_graph *g);

/* HPCG-style 27-point stencil on an nx*ny*nz grid: diagonal 26, off-diagonals -1,
 * rows in lexicographic order, columns sorted. */
void wb_gen_hpcg27(int nx, int ny, int nz, wb_csr *a);

/** Spark98/Archimedes packfile contents (single subdomain), 0-based. */
typedef struct {
    int nodes, dim, elems, corners;
    double *coord;     /* nodes*dim */
    int *vertex;       /* elems*corners */
    long matrixlen;    /* stored (row,col) block pairs, upper triangle incl. diagonal */
    long *rowindex;    /* nodes+1: row i holds blocks rowindex[i]..rowindex[i+1]-1 */
    int *matrixcol;    /* matrixlen */
} wb_pack;

int wb_read_pack(const char *path, wb_pack *p, char *err, size_t errlen);
void wb_pack_free(wb_pack *p);

/* ---------------------------------------------------------------- parallel reductions */

/* Dot products and norms run as parallel reductions, as in the original codes (HPCG,
 * miniFE and GMRES reduce them with OpenMP): [0, n) is cut into WB_REDUCE_PARTS
 * contiguous parts whose bounds depend on n only (part p is [WB_PART_LO(n, p),
 * WB_PART_LO(n, p + 1))); a WB_PARALLEL kernel with one iteration per part writes each
 * part's sum to part[p], so under static chunks each core reduces one contiguous block,
 * and wb_sum_parts adds the partial sums in part order. The result has the same bits
 * for any worker count and schedule (it differs from the sequential sum by
 * reassociation only). 96 parts: 8 per core on Table 4.2's 12 cores, a whole number
 * per core at 4 and 8 cores too. wb_sum_parts is defined here so the compiler sees it
 * (an unknown call between two executions of an irregular loop re-inspects it). */
#define WB_REDUCE_PARTS 96
#define WB_PART_LO(n, p) ((int)((long)(n) * (long)(p) / WB_REDUCE_PARTS))
static inline double wb_sum_parts(const double *part) {
    double s = 0.0;
    for (int p = 0; p < WB_REDUCE_PARTS; p++) s += part[p];
    return s;
}

/* ---------------------------------------------------------------- renumbering (GPART) */

/* Data renumbering for weft eval's GPART version on inputs a program generates
 * (or loads). A program supporting it calls, once its data exist in their original
 * numbering and before the timed part:
 *
 *     wb_dump_graph_and_exit(&a, n, rowptr, adj);   // --dump-graph: write, exit 0
 *     int *perm = wb_load_perm(&a, n);              // --permute: perm[old] = new
 *     if (perm) { ...renumber its own arrays...; free(perm); }
 *
 * The graph is written as a Matrix Market "coordinate pattern general" file
 * (n x n, 1-based, one entry per adjacency entry, self loops allowed: readers
 * symmetrize). The permutation file holds n new ids (0-based), one per line, the
 * i-th being the new id of element i. Each program applies it to its own data
 * (matrix rows and columns and the vectors they index, particle arrays, graph
 * vertices and their attributes); the identity permutation leaves every result
 * bit-identical. A program that does not call these helpers fails (status 1, in
 * wb_print_checksum) if --dump-graph or --permute was given, so no run silently
 * ignores them. */
void wb_dump_graph_and_exit(const wb_args *a, int n, const long *rowptr, const int *adj);
int *wb_load_perm(const wb_args *a, int n);
/* A <- P A P^T: row and column i move to perm[i]; columns (with values) sorted per row. */
void wb_csr_permute(wb_csr *A, const int *perm);
/* Same for a graph's adjacency (vertex i becomes perm[i]). */
void wb_graph_permute(wb_graph *g, const int *perm);
/* Moves record i (stride doubles) to position perm[i]. */
void wb_permute_doubles(double *v, long n, int stride, const int *perm);

/* ---------------------------------------------------------------- timing & output */

/* Monotonic seconds. Defined here, not in weft_bench.c, so that the program's
 * IR shows the clock_gettime call: a call of an unknown function between two
 * executions of an irregular loop makes weft re-inspect it (the function
 * might have rewritten the index arrays), while clock_gettime is known not
 * to. The benchmarks build with -std=c11, which hides POSIX's clock_gettime
 * and CLOCK_MONOTONIC (1 on Linux); struct timespec is C11's. */
#ifdef CLOCK_MONOTONIC
#define WB_CLOCK_MONOTONIC CLOCK_MONOTONIC
#else
int clock_gettime(int clock_id, struct timespec *tp);
#define WB_CLOCK_MONOTONIC 1
#endif
static inline double wb_now(void) {
    struct timespec ts;
    clock_gettime(WB_CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reports on stderr: program, input description, working set (bytes), iterations, time. */
void wb_report(const char *prog, const char *input_desc, size_t working_set_bytes, int iters,
               double seconds);

/** FNV-1a 64-bit hash accumulator over value bit patterns. */
typedef struct { uint64_t h; } wb_hash;
void wb_hash_init(wb_hash *h);
void wb_hash_bytes(wb_hash *h, const void *p, size_t n);
void wb_hash_doubles(wb_hash *h, const double *v, long n);
void wb_hash_ints(wb_hash *h, const int *v, long n);
void wb_hash_u64(wb_hash *h, uint64_t v);
/* Prints "checksum: %016llx" on stdout (the last line a benchmark prints). */
void wb_print_checksum(const wb_hash *h);
/* Prints "<label>: <%a>" on stdout. */
void wb_print_double(const char *label, double v);

#endif
