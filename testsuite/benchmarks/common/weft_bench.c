/*
 * weft_bench.c - implementation of the shared benchmark support (see weft_bench.h).
 * Written for the weft project; no third-party code.
 */
#define _GNU_SOURCE /* MAP_NORESERVE, MAP_FIXED_NOREPLACE */
#include "weft_bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const char *wb_prog = "bench";
/* --dump-graph / --permute as parsed, and whether the program consumed them. */
static const char *wb_dump_path, *wb_perm_path;
static int wb_perm_used;

/* ---------------------------------------------------------------- arguments */

void wb_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", wb_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---------------------------------------------------------------- memory */

/* The arena of wb_alloc (see weft_bench.h): reserved once with MAP_NORESERVE (pages
 * are backed when first touched), carved in allocation order. The sizes of live
 * blocks are kept for wb_realloc. */
#define WB_ARENA_BASE ((uintptr_t)0x200000000000ULL) /* 32 TiB */
#define WB_ARENA_SIZE ((size_t)1 << 40)              /* 1 TiB of addresses */
#define WB_PAGE ((size_t)4096)
#define WB_MAX_BLOCKS 4096
static char *wb_arena;          /* NULL: not set up yet or calloc mode */
static int wb_arena_state;      /* 0 untried, 1 arena, -1 calloc */
static size_t wb_arena_used;
static struct { char *p; size_t bytes; } wb_blocks[WB_MAX_BLOCKS];
static int wb_nblocks;
static int wb_arena_lock_word; /* the arena state is shared by every thread */
static void wb_lock(void) {
    while (__atomic_exchange_n(&wb_arena_lock_word, 1, __ATOMIC_ACQUIRE)) {
    }
}
static void wb_unlock(void) { __atomic_store_n(&wb_arena_lock_word, 0, __ATOMIC_RELEASE); }

static int wb_arena_ready(void) {
    if (wb_arena_state == 0) {
        const char *e = getenv("WEFT_BENCH_ARENA");
        wb_arena_state = -1;
        if (!(e && strcmp(e, "0") == 0)) {
            void *p = mmap((void *)WB_ARENA_BASE, WB_ARENA_SIZE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
            if (p == (void *)WB_ARENA_BASE) {
                wb_arena = p;
                wb_arena_state = 1;
            } else if (p != MAP_FAILED) {
                munmap(p, WB_ARENA_SIZE); /* a kernel without MAP_FIXED_NOREPLACE */
            }
        }
    }
    return wb_arena_state == 1;
}

/* Bytes of whole pages that hold `bytes` (0 on overflow). */
static size_t wb_pages(size_t bytes) { return (bytes + WB_PAGE - 1) & ~(WB_PAGE - 1); }

static int wb_in_arena(const void *p) {
    return wb_arena && (const char *)p >= wb_arena && (const char *)p < wb_arena + WB_ARENA_SIZE;
}

uintptr_t wb_arena_base(void) {
    wb_lock();
    uintptr_t b = wb_arena_ready() ? (uintptr_t)wb_arena : 0;
    wb_unlock();
    return b;
}

void *wb_alloc(size_t bytes) {
    if (!bytes) bytes = 1;
    wb_lock();
    if (wb_arena_ready() && wb_nblocks < WB_MAX_BLOCKS) {
        size_t len = wb_pages(bytes);
        if (len >= bytes && len <= WB_ARENA_SIZE - wb_arena_used) {
            char *p = wb_arena + wb_arena_used;
            wb_arena_used += len;
            wb_blocks[wb_nblocks].p = p;
            wb_blocks[wb_nblocks].bytes = bytes;
            wb_nblocks++;
            wb_unlock();
            return p; /* fresh anonymous pages read as zero */
        }
    }
    wb_unlock();
    void *p = calloc(bytes, 1);
    if (!p) wb_die("out of memory allocating %zu bytes", bytes);
    return p;
}

/* Index of arena block p in wb_blocks, or -1. */
static int wb_block_of(const void *p) {
    for (int i = wb_nblocks - 1; i >= 0; i--)
        if (wb_blocks[i].p == p) return i;
    return -1;
}

void wb_free(void *p) {
    if (!p) return;
    if (!wb_in_arena(p)) {
        free(p);
        return;
    }
    wb_lock();
    int i = wb_block_of(p);
    if (i < 0) wb_die("wb_free of a pointer inside the arena that no block starts at");
    madvise(p, wb_pages(wb_blocks[i].bytes), MADV_DONTNEED); /* give the pages back; the addresses stay used */
    wb_blocks[i] = wb_blocks[--wb_nblocks];
    wb_unlock();
}

void *wb_realloc(void *p, size_t bytes) {
    if (!p) return wb_alloc(bytes);
    if (!wb_in_arena(p)) {
        void *q = realloc(p, bytes ? bytes : 1);
        if (!q) wb_die("out of memory allocating %zu bytes", bytes);
        return q;
    }
    wb_lock();
    int i = wb_block_of(p);
    if (i < 0) wb_die("wb_realloc of a pointer inside the arena that no block starts at");
    size_t old = wb_blocks[i].bytes;
    wb_unlock();
    void *q = wb_alloc(bytes);
    memcpy(q, p, old < bytes ? old : bytes);
    wb_free(p);
    return q;
}

static void wb_usage(const char *usage, int status) {
    FILE *f = status ? stderr : stdout;
    fprintf(f, "%s: %s\n", wb_prog, usage);
    fprintf(f, "usage: %s [--quick] [--size N] [--iters N] [--input PATH] [--base 0|1] "
               "[--seed S] [--output] [--dump-graph PATH] [--permute PATH]\n", wb_prog);
    exit(status);
}

static long wb_parse_long(const char *s, const char *flag) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s) wb_die("bad value '%s' for %s", s, flag);
    return v;
}

void wb_parse_args(int argc, char **argv, wb_args *a, const char *usage) {
    const char *slash = strrchr(argv[0], '/');
    wb_prog = slash ? slash + 1 : argv[0];
    a->size = 0;
    a->iters = 0;
    a->input = NULL;
    a->quick = 0;
    a->base = -1;
    a->seed = 1;
    a->output = 0;
    a->dump_graph = NULL;
    a->permute = NULL;
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int has_val = i + 1 < argc;
        if (!strcmp(f, "--quick")) a->quick = 1;
        else if (!strcmp(f, "--output")) a->output = 1;
        else if (!strcmp(f, "--help") || !strcmp(f, "-h")) wb_usage(usage, 0);
        else if (!strcmp(f, "--size") && has_val) {
            a->size = wb_parse_long(argv[++i], f);
            if (a->size <= 0) wb_die("--size must be positive");
        } else if (!strcmp(f, "--iters") && has_val) {
            long v = wb_parse_long(argv[++i], f);
            if (v <= 0 || v > 1000000000L) wb_die("--iters must be in 1..1e9");
            a->iters = (int)v;
        } else if (!strcmp(f, "--input") && has_val) a->input = argv[++i];
        else if (!strcmp(f, "--base") && has_val) {
            long v = wb_parse_long(argv[++i], f);
            if (v != 0 && v != 1) wb_die("--base must be 0 or 1");
            a->base = (int)v;
        } else if (!strcmp(f, "--seed") && has_val) a->seed = (uint64_t)wb_parse_long(argv[++i], f);
        else if (!strcmp(f, "--dump-graph") && has_val) a->dump_graph = argv[++i];
        else if (!strcmp(f, "--permute") && has_val) a->permute = argv[++i];
        else {
            fprintf(stderr, "%s: error: unknown or incomplete argument '%s'\n", wb_prog, f);
            wb_usage(usage, 2);
        }
    }
    wb_dump_path = a->dump_graph;
    wb_perm_path = a->permute;
}

long wb_pick_size(const wb_args *a, long quick, long dflt) {
    if (a->size > 0) return a->size;
    return a->quick ? quick : dflt;
}

int wb_pick_iters(const wb_args *a, int quick, int dflt) {
    if (a->iters > 0) return a->iters;
    return a->quick ? quick : dflt;
}

/* ---------------------------------------------------------------- random */

void wb_lcg_seed(wb_lcg *g, uint64_t seed) { g->s = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL; }

uint64_t wb_lcg_next(wb_lcg *g) {
    g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t x = g->s;
    /* output permutation: the low LCG bits are weak, so mix the high bits down */
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 32;
    return x;
}

double wb_lcg_double(wb_lcg *g) { return (double)(wb_lcg_next(g) >> 11) * (1.0 / 9007199254740992.0); }

uint64_t wb_lcg_below(wb_lcg *g, uint64_t n) { return wb_lcg_next(g) % n; }

double wb_hash_unit(uint64_t a, uint64_t b) {
    uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

void wb_random_perm(int *perm, long n, wb_lcg *g) {
    for (long i = 0; i < n; i++) perm[i] = (int)i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)wb_lcg_below(g, (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* ---------------------------------------------------------------- file reading */

/* Reads a whole file into a NUL-terminated buffer. */
static char *wb_slurp(const char *path, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "out of memory reading %s", path);
        return NULL;
    }
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        cap *= 2;
        char *nb = wb_realloc(buf, cap + 1);
        if (!nb) {
            wb_free(buf);
            fclose(f);
            snprintf(err, errlen, "out of memory reading %s", path);
            return NULL;
        }
        buf = nb;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Cursor over a text buffer. */
typedef struct {
    const char *p;
    long line;
} wb_cur;

static void cur_skip_ws(wb_cur *c) {
    while (*c->p && isspace((unsigned char)*c->p)) {
        if (*c->p == '\n') c->line++;
        c->p++;
    }
}

static int cur_long(wb_cur *c, long *v) {
    cur_skip_ws(c);
    char *end;
    errno = 0;
    long x = strtol(c->p, &end, 10);
    if (end == c->p || errno) return -1;
    c->p = end;
    *v = x;
    return 0;
}

static int cur_double(wb_cur *c, double *v) {
    cur_skip_ws(c);
    char *end;
    double x = strtod(c->p, &end);
    if (end == c->p) return -1;
    c->p = end;
    *v = x;
    return 0;
}

static void cur_next_line(wb_cur *c) {
    while (*c->p && *c->p != '\n') c->p++;
    if (*c->p == '\n') {
        c->p++;
        c->line++;
    }
}

/* ---------------------------------------------------------------- Matrix Market */

static void lower_str(char *s) {
    for (; *s; s++) *s = (char)tolower((unsigned char)*s);
}

int wb_read_mm(const char *path, int expand_symmetric, wb_coo *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    size_t len;
    char *buf = wb_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    char banner[32] = {0}, object[32] = {0}, format[32] = {0}, field[32] = {0}, sym[32] = {0};
    if (sscanf(buf, "%31s %31s %31s %31s %31s", banner, object, format, field, sym) != 5 ||
        strcmp(banner, "%%MatrixMarket") != 0) {
        snprintf(err, errlen, "%s: missing %%%%MatrixMarket header", path);
        wb_free(buf);
        return -1;
    }
    lower_str(object);
    lower_str(format);
    lower_str(field);
    lower_str(sym);
    if (strcmp(object, "matrix") || strcmp(format, "coordinate")) {
        snprintf(err, errlen, "%s: only 'matrix coordinate' is supported (got %s %s)", path, object,
                 format);
        wb_free(buf);
        return -1;
    }
    int pattern = !strcmp(field, "pattern");
    if (!pattern && strcmp(field, "real") && strcmp(field, "integer") && strcmp(field, "double")) {
        snprintf(err, errlen, "%s: unsupported field '%s'", path, field);
        wb_free(buf);
        return -1;
    }
    int skew = !strcmp(sym, "skew-symmetric");
    int symmetric = !strcmp(sym, "symmetric") || skew;
    if (!symmetric && strcmp(sym, "general")) {
        snprintf(err, errlen, "%s: unsupported symmetry '%s'", path, sym);
        wb_free(buf);
        return -1;
    }
    wb_cur c = {buf, 1};
    /* skip banner and comment lines */
    while (*c.p == '%') cur_next_line(&c);
    long nr, nc, nz;
    if (cur_long(&c, &nr) || cur_long(&c, &nc) || cur_long(&c, &nz) || nr <= 0 || nc <= 0 ||
        nz < 0 || nr > 2000000000L || nc > 2000000000L) {
        snprintf(err, errlen, "%s:%ld: bad size line", path, c.line);
        wb_free(buf);
        return -1;
    }
    long cap = (symmetric && expand_symmetric) ? 2 * nz : nz;
    m->row = malloc(sizeof(int) * (size_t)(cap ? cap : 1));
    m->col = malloc(sizeof(int) * (size_t)(cap ? cap : 1));
    m->val = malloc(sizeof(double) * (size_t)(cap ? cap : 1));
    if (!m->row || !m->col || !m->val) {
        snprintf(err, errlen, "%s: out of memory", path);
        wb_free(buf);
        wb_coo_free(m);
        return -1;
    }
    long k = 0;
    for (long e = 0; e < nz; e++) {
        long i, j;
        double v = 1.0;
        if (cur_long(&c, &i) || cur_long(&c, &j) || (!pattern && cur_double(&c, &v))) {
            snprintf(err, errlen, "%s:%ld: expected entry %ld of %ld", path, c.line, e + 1, nz);
            wb_free(buf);
            wb_coo_free(m);
            return -1;
        }
        if (i < 1 || i > nr || j < 1 || j > nc) {
            snprintf(err, errlen, "%s:%ld: index (%ld,%ld) out of range", path, c.line, i, j);
            wb_free(buf);
            wb_coo_free(m);
            return -1;
        }
        m->row[k] = (int)(i - 1);
        m->col[k] = (int)(j - 1);
        m->val[k] = v;
        k++;
        if (symmetric && expand_symmetric && i != j) {
            m->row[k] = (int)(j - 1);
            m->col[k] = (int)(i - 1);
            m->val[k] = skew ? -v : v;
            k++;
        }
    }
    cur_skip_ws(&c);
    if (*c.p) {
        snprintf(err, errlen, "%s:%ld: trailing data after %ld entries", path, c.line, nz);
        wb_free(buf);
        wb_coo_free(m);
        return -1;
    }
    wb_free(buf);
    m->nrows = (int)nr;
    m->ncols = (int)nc;
    m->nnz = k;
    m->stored = nz;
    m->symmetric = symmetric;
    m->pattern = pattern;
    return 0;
}

void wb_coo_free(wb_coo *m) {
    wb_free(m->row);
    wb_free(m->col);
    wb_free(m->val);
    m->row = m->col = NULL;
    m->val = NULL;
}

void wb_coo_to_csr(const wb_coo *m, wb_csr *out) {
    int n = m->nrows;
    long *ptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (long k = 0; k < m->nnz; k++) ptr[m->row[k] + 1]++;
    for (int i = 0; i < n; i++) ptr[i + 1] += ptr[i];
    long *fill = wb_alloc(sizeof(long) * ((size_t)n + 1));
    memcpy(fill, ptr, sizeof(long) * ((size_t)n + 1));
    int *col = wb_alloc(sizeof(int) * (size_t)(m->nnz ? m->nnz : 1));
    double *val = wb_alloc(sizeof(double) * (size_t)(m->nnz ? m->nnz : 1));
    for (long k = 0; k < m->nnz; k++) {
        long p = fill[m->row[k]]++;
        col[p] = m->col[k];
        val[p] = m->val[k];
    }
    wb_free(fill);
    /* sort each row by column (stable insertion sort), then merge duplicates */
    long w = 0;
    long start = 0;
    for (int i = 0; i < n; i++) {
        long end = ptr[i + 1];
        for (long p = start + 1; p < end; p++) {
            int cj = col[p];
            double vj = val[p];
            long q = p - 1;
            while (q >= start && col[q] > cj) {
                col[q + 1] = col[q];
                val[q + 1] = val[q];
                q--;
            }
            col[q + 1] = cj;
            val[q + 1] = vj;
        }
        long row_start = w;
        for (long p = start; p < end; p++) {
            if (w > row_start && col[w - 1] == col[p]) {
                val[w - 1] += val[p];
            } else {
                col[w] = col[p];
                val[w] = val[p];
                w++;
            }
        }
        start = end;
        ptr[i + 1] = w;
    }
    out->nrows = n;
    out->ncols = m->ncols;
    out->nnz = w;
    out->rowptr = ptr;
    out->col = col;
    out->val = val;
}

void wb_csr_free(wb_csr *m) {
    wb_free(m->rowptr);
    wb_free(m->col);
    wb_free(m->val);
    m->rowptr = NULL;
    m->col = NULL;
    m->val = NULL;
}

size_t wb_csr_bytes(const wb_csr *m) {
    return sizeof(long) * ((size_t)m->nrows + 1) + (size_t)m->nnz * sizeof(int) +
           (m->val ? (size_t)m->nnz * sizeof(double) : 0);
}

/* ---------------------------------------------------------------- graphs */

void wb_graph_free(wb_graph *g) {
    wb_free(g->rowptr);
    wb_free(g->adj);
    g->rowptr = NULL;
    g->adj = NULL;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Builds a CSR graph from (src,dst) arrays; optional symmetrize; drops self loops
 * when `drop_loops`; sorts and de-duplicates each adjacency row. */
static void build_graph(int n, long ne, const int *src, const int *dst, int symmetrize,
                        int drop_loops, wb_graph *g) {
    long *ptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (long e = 0; e < ne; e++) {
        if (drop_loops && src[e] == dst[e]) continue;
        ptr[src[e] + 1]++;
        if (symmetrize) ptr[dst[e] + 1]++;
    }
    for (int i = 0; i < n; i++) ptr[i + 1] += ptr[i];
    long total = ptr[n];
    int *adj = wb_alloc(sizeof(int) * (size_t)(total ? total : 1));
    long *fill = wb_alloc(sizeof(long) * ((size_t)n + 1));
    memcpy(fill, ptr, sizeof(long) * ((size_t)n + 1));
    for (long e = 0; e < ne; e++) {
        if (drop_loops && src[e] == dst[e]) continue;
        adj[fill[src[e]]++] = dst[e];
        if (symmetrize) adj[fill[dst[e]]++] = src[e];
    }
    wb_free(fill);
    long w = 0, start = 0;
    for (int i = 0; i < n; i++) {
        long end = ptr[i + 1];
        qsort(adj + start, (size_t)(end - start), sizeof(int), cmp_int);
        long rs = w;
        for (long p = start; p < end; p++)
            if (w == rs || adj[w - 1] != adj[p]) adj[w++] = adj[p];
        start = end;
        ptr[i + 1] = w;
    }
    g->n = n;
    g->m = w;
    g->rowptr = ptr;
    g->adj = adj;
}

int wb_read_metis(const char *path, wb_graph *g, long *file_edges, char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    size_t len;
    char *buf = wb_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    wb_cur c = {buf, 1};
    while (*c.p == '%') cur_next_line(&c);
    long n, m, fmt = 0, ncon = 1;
    if (cur_long(&c, &n) || cur_long(&c, &m) || n <= 0 || m < 0 || n > 2000000000L) {
        snprintf(err, errlen, "%s: bad METIS header", path);
        wb_free(buf);
        return -1;
    }
    /* optional fmt and ncon on the header line */
    {
        const char *q = c.p;
        while (*q == ' ' || *q == '\t') q++;
        if (*q && *q != '\n' && *q != '\r') {
            cur_long(&c, &fmt);
            const char *r = c.p;
            while (*r == ' ' || *r == '\t') r++;
            if (*r && *r != '\n' && *r != '\r') cur_long(&c, &ncon);
        }
    }
    cur_next_line(&c);
    int has_vsize = (int)(fmt / 100) % 10, has_vwgt = (int)(fmt / 10) % 10, has_ewgt = (int)fmt % 10;
    long *ptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    long cap = 2 * m + 16;
    int *adj = wb_alloc(sizeof(int) * (size_t)cap);
    long k = 0;
    for (long v = 0; v < n; v++) {
        while (*c.p == '%') cur_next_line(&c);
        if (!*c.p) {
            snprintf(err, errlen, "%s: file ends at vertex %ld of %ld", path, v + 1, n);
            wb_free(buf);
            wb_free(ptr);
            wb_free(adj);
            return -1;
        }
        /* parse one line */
        const char *eol = strchr(c.p, '\n');
        if (!eol) eol = c.p + strlen(c.p);
        long skip = (has_vsize ? 1 : 0) + (has_vwgt ? ncon : 0), field = 0;
        while (c.p < eol) {
            while (c.p < eol && (*c.p == ' ' || *c.p == '\t' || *c.p == '\r')) c.p++;
            if (c.p >= eol) break;
            char *end;
            long x = strtol(c.p, &end, 10);
            if (end == c.p) {
                snprintf(err, errlen, "%s:%ld: bad token", path, c.line);
                wb_free(buf);
                wb_free(ptr);
                wb_free(adj);
                return -1;
            }
            c.p = end;
            if (field++ < skip) continue;
            if (has_ewgt && ((field - skip) % 2 == 0)) continue;
            if (x < 1 || x > n) {
                snprintf(err, errlen, "%s:%ld: neighbour %ld out of range", path, c.line, x);
                wb_free(buf);
                wb_free(ptr);
                wb_free(adj);
                return -1;
            }
            if (k >= cap) {
                cap *= 2;
                adj = wb_realloc(adj, sizeof(int) * (size_t)cap);
                if (!adj) wb_die("out of memory");
            }
            adj[k++] = (int)(x - 1);
        }
        c.p = *eol ? eol + 1 : eol;
        c.line++;
        ptr[v + 1] = k;
    }
    wb_free(buf);
    if (k != 2 * m) {
        snprintf(err, errlen, "%s: header says %ld edges but adjacency has %ld entries (expected %ld)",
                 path, m, k, 2 * m);
        wb_free(ptr);
        wb_free(adj);
        return -1;
    }
    g->n = (int)n;
    g->m = k;
    g->rowptr = ptr;
    g->adj = adj;
    if (file_edges) *file_edges = m;
    return 0;
}

int wb_read_edges(const char *path, int base, int symmetrize, wb_graph *g, long *lines,
                  int *base_used, char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    size_t len;
    char *buf = wb_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    long cap = 1 << 16, ne = 0;
    int *src = malloc(sizeof(int) * (size_t)cap), *dst = malloc(sizeof(int) * (size_t)cap);
    if (!src || !dst) wb_die("out of memory");
    long minid = -1, maxid = -1;
    wb_cur c = {buf, 1};
    for (;;) {
        cur_skip_ws(&c);
        if (!*c.p) break;
        if (*c.p == '#' || *c.p == '%') {
            cur_next_line(&c);
            continue;
        }
        long u, v;
        if (cur_long(&c, &u) || cur_long(&c, &v) || u < 0 || v < 0 || u > 2000000000L ||
            v > 2000000000L) {
            snprintf(err, errlen, "%s:%ld: expected 'u v'", path, c.line);
            wb_free(buf);
            wb_free(src);
            wb_free(dst);
            return -1;
        }
        /* ignore any extra columns (weights, timestamps) */
        while (*c.p && *c.p != '\n') c.p++;
        if (ne >= cap) {
            cap *= 2;
            src = wb_realloc(src, sizeof(int) * (size_t)cap);
            dst = wb_realloc(dst, sizeof(int) * (size_t)cap);
            if (!src || !dst) wb_die("out of memory");
        }
        src[ne] = (int)u;
        dst[ne] = (int)v;
        ne++;
        long lo = u < v ? u : v, hi = u < v ? v : u;
        if (minid < 0 || lo < minid) minid = lo;
        if (hi > maxid) maxid = hi;
    }
    wb_free(buf);
    if (base < 0) base = (minid == 0) ? 0 : 1;
    if (ne > 0 && minid < base) {
        snprintf(err, errlen, "%s: id %ld below base %d", path, minid, base);
        wb_free(src);
        wb_free(dst);
        return -1;
    }
    for (long e = 0; e < ne; e++) {
        src[e] -= base;
        dst[e] -= base;
    }
    int n = ne ? (int)(maxid - base + 1) : 0;
    build_graph(n, ne, src, dst, symmetrize, symmetrize, g);
    wb_free(src);
    wb_free(dst);
    if (lines) *lines = ne;
    if (base_used) *base_used = base;
    return 0;
}

void wb_gen_rmat(int scale, int edgefactor, uint64_t seed, wb_graph *g) {
    if (scale < 1 || scale > 30) wb_die("R-MAT scale %d out of range 1..30", scale);
    int n = 1 << scale;
    long ne = (long)edgefactor * n;
    int *src = wb_alloc(sizeof(int) * (size_t)ne), *dst = wb_alloc(sizeof(int) * (size_t)ne);
    wb_lcg r;
    wb_lcg_seed(&r, seed);
    const double A = 0.57, B = 0.19, C = 0.19;
    for (long e = 0; e < ne; e++) {
        int u = 0, v = 0;
        for (int b = 0; b < scale; b++) {
            double x = wb_lcg_double(&r);
            int ub = 0, vb = 0;
            if (x < A) {
            } else if (x < A + B) vb = 1;
            else if (x < A + B + C) ub = 1;
            else ub = vb = 1;
            u = (u << 1) | ub;
            v = (v << 1) | vb;
        }
        src[e] = u;
        dst[e] = v;
    }
    /* scramble ids so that degree does not correlate with id */
    int *perm = wb_alloc(sizeof(int) * (size_t)n);
    wb_random_perm(perm, n, &r);
    for (long e = 0; e < ne; e++) {
        src[e] = perm[src[e]];
        dst[e] = perm[dst[e]];
    }
    wb_free(perm);
    build_graph(n, ne, src, dst, 1, 1, g);
    wb_free(src);
    wb_free(dst);
}

/* ---------------------------------------------------------------- HPCG stencil */

void wb_gen_hpcg27(int nx, int ny, int nz, wb_csr *a) {
    long n = (long)nx * ny * nz;
    if (nx < 1 || ny < 1 || nz < 1 || n > 2000000000L) wb_die("bad HPCG grid %dx%dx%d", nx, ny, nz);
    a->nrows = a->ncols = (int)n;
    a->rowptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    a->col = wb_alloc(sizeof(int) * (size_t)n * 27);
    a->val = wb_alloc(sizeof(double) * (size_t)n * 27);
    long k = 0;
    for (int iz = 0; iz < nz; iz++)
        for (int iy = 0; iy < ny; iy++)
            for (int ix = 0; ix < nx; ix++) {
                long row = ((long)iz * ny + iy) * nx + ix;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int x = ix + dx, y = iy + dy, z = iz + dz;
                            if (x < 0 || x >= nx || y < 0 || y >= ny || z < 0 || z >= nz) continue;
                            long colv = ((long)z * ny + y) * nx + x;
                            a->col[k] = (int)colv;
                            a->val[k] = (colv == row) ? 26.0 : -1.0;
                            k++;
                        }
                a->rowptr[row + 1] = k;
            }
    a->nnz = k;
}

/* ---------------------------------------------------------------- Spark98 pack */

int wb_read_pack(const char *path, wb_pack *p, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    size_t len;
    char *buf = wb_slurp(path, &len, err, errlen);
    if (!buf) return -1;
    wb_cur c = {buf, 1};
    long gnodes, dim, gelems, corners, subdomains, processors, nodes, mine, priv;
#define PACK_FAIL(...)                                  \
    do {                                                \
        snprintf(err, errlen, __VA_ARGS__);             \
        wb_free(buf);                                      \
        wb_pack_free(p);                                \
        return -1;                                      \
    } while (0)
    if (cur_long(&c, &gnodes) || cur_long(&c, &dim) || cur_long(&c, &gelems) ||
        cur_long(&c, &corners) || cur_long(&c, &subdomains) || cur_long(&c, &processors))
        PACK_FAIL("%s: bad packfile header", path);
    if ((dim != 2 && dim != 3) || (corners != 3 && corners != 4) || subdomains != 1 ||
        processors != subdomains || gnodes <= 0 || gelems <= 0)
        PACK_FAIL("%s: not a single-subdomain packfile (dim %ld corners %ld subdomains %ld)", path,
                  dim, corners, subdomains);
    if (cur_long(&c, &nodes) || cur_long(&c, &mine) || cur_long(&c, &priv) || nodes != gnodes)
        PACK_FAIL("%s:%ld: bad node count line", path, c.line);
    p->nodes = (int)nodes;
    p->dim = (int)dim;
    p->corners = (int)corners;
    p->coord = wb_alloc(sizeof(double) * (size_t)(nodes * dim));
    for (long i = 0; i < nodes; i++) {
        long id;
        if (cur_long(&c, &id) || id < 1 || id > gnodes)
            PACK_FAIL("%s:%ld: bad node number", path, c.line);
        for (long d = 0; d < dim; d++)
            if (cur_double(&c, &p->coord[i * dim + d]))
                PACK_FAIL("%s:%ld: bad coordinate", path, c.line);
    }
    long elems;
    if (cur_long(&c, &elems) || elems != gelems) PACK_FAIL("%s:%ld: bad element count", path, c.line);
    p->elems = (int)elems;
    p->vertex = wb_alloc(sizeof(int) * (size_t)(elems * corners));
    for (long e = 0; e < elems; e++) {
        long id, v;
        if (cur_long(&c, &id)) PACK_FAIL("%s:%ld: bad element line", path, c.line);
        for (long k = 0; k < corners; k++) {
            if (cur_long(&c, &v) || v < 0 || v >= nodes)
                PACK_FAIL("%s:%ld: bad element vertex", path, c.line);
            p->vertex[e * corners + k] = (int)v;
        }
    }
    long mlen, clen;
    if (cur_long(&c, &mlen) || cur_long(&c, &clen) || mlen <= 0)
        PACK_FAIL("%s:%ld: bad matrix length line", path, c.line);
    p->matrixlen = mlen;
    p->rowindex = wb_alloc(sizeof(long) * ((size_t)nodes + 1));
    p->matrixcol = wb_alloc(sizeof(int) * (size_t)mlen);
    long oldrow = -1;
    for (long k = 0; k < mlen; k++) {
        long r, col;
        if (cur_long(&c, &r) || cur_long(&c, &col))
            PACK_FAIL("%s:%ld: expected matrix entry %ld of %ld", path, c.line, k + 1, mlen);
        if (r < oldrow || r >= nodes || col < 0 || col >= nodes)
            PACK_FAIL("%s:%ld: matrix entry (%ld,%ld) out of order or range", path, c.line, r, col);
        while (oldrow < r) p->rowindex[++oldrow] = k;
        p->matrixcol[k] = (int)col;
    }
    while (oldrow < nodes) p->rowindex[++oldrow] = mlen;
    /* trailing communication info ("0 0" for one subdomain) is not needed */
    wb_free(buf);
#undef PACK_FAIL
    return 0;
}

void wb_pack_free(wb_pack *p) {
    wb_free(p->coord);
    wb_free(p->vertex);
    wb_free(p->rowindex);
    wb_free(p->matrixcol);
    p->coord = NULL;
    p->vertex = NULL;
    p->rowindex = NULL;
    p->matrixcol = NULL;
}

/* ---------------------------------------------------------------- renumbering (GPART) */

void wb_dump_graph_and_exit(const wb_args *a, int n, const long *rowptr, const int *adj) {
    if (!a->dump_graph) return;
    FILE *f = fopen(a->dump_graph, "w");
    if (!f) wb_die("cannot write %s: %s", a->dump_graph, strerror(errno));
    fprintf(f, "%%%%MatrixMarket matrix coordinate pattern general\n");
    fprintf(f, "%% adjacency of %s's data (--dump-graph)\n", wb_prog);
    fprintf(f, "%d %d %ld\n", n, n, rowptr[n]);
    for (int i = 0; i < n; i++)
        for (long p = rowptr[i]; p < rowptr[i + 1]; p++) fprintf(f, "%d %d\n", i + 1, adj[p] + 1);
    if (fclose(f)) wb_die("writing %s: %s", a->dump_graph, strerror(errno));
    exit(0);
}

int *wb_load_perm(const wb_args *a, int n) {
    if (!a->permute) return NULL;
    wb_perm_used = 1;
    char err[512];
    size_t len;
    char *buf = wb_slurp(a->permute, &len, err, sizeof err);
    if (!buf) wb_die("%s", err);
    wb_cur c = {buf, 1};
    int *perm = wb_alloc(sizeof(int) * (size_t)(n ? n : 1));
    char *seen = wb_alloc((size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        long v;
        if (cur_long(&c, &v)) wb_die("%s:%ld: expected %d ids, found %d", a->permute, c.line, n, i);
        if (v < 0 || v >= n || seen[v]) wb_die("%s:%ld: %ld is not a new id in 0..%d or repeats", a->permute, c.line, v, n - 1);
        seen[v] = 1;
        perm[i] = (int)v;
    }
    cur_skip_ws(&c);
    if (*c.p) wb_die("%s:%ld: more than %d ids", a->permute, c.line, n);
    wb_free(seen);
    wb_free(buf);
    return perm;
}

typedef struct {
    int col;
    double val;
} wb_colval;

/* Renumbers rows and entries of an n-row CSR pattern (values optional); each row
 * keeps its entries, sorted by new column (stable for equal columns). */
static void permute_rows(int n, long **rowptr, int **col, double **val, const int *perm) {
    long *rp = *rowptr, nnz = rp[n];
    long *nrp = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) nrp[perm[i] + 1] = rp[i + 1] - rp[i];
    for (int i = 0; i < n; i++) nrp[i + 1] += nrp[i];
    int *ncol = wb_alloc(sizeof(int) * (size_t)(nnz ? nnz : 1));
    double *nval = val && *val ? wb_alloc(sizeof(double) * (size_t)(nnz ? nnz : 1)) : NULL;
    wb_colval *row = NULL;
    long cap = 0;
    for (int i = 0; i < n; i++) {
        long len = rp[i + 1] - rp[i], o = nrp[perm[i]];
        if (len > cap) {
            wb_free(row);
            cap = len;
            row = wb_alloc(sizeof(wb_colval) * (size_t)cap);
        }
        for (long p = 0; p < len; p++) {
            row[p].col = perm[(*col)[rp[i] + p]];
            row[p].val = nval ? (*val)[rp[i] + p] : 0.0;
        }
        /* rows are short; insertion sort keeps equal columns in order */
        for (long p = 1; p < len; p++) {
            wb_colval t = row[p];
            long q = p - 1;
            while (q >= 0 && row[q].col > t.col) {
                row[q + 1] = row[q];
                q--;
            }
            row[q + 1] = t;
        }
        for (long p = 0; p < len; p++) {
            ncol[o + p] = row[p].col;
            if (nval) nval[o + p] = row[p].val;
        }
    }
    wb_free(row);
    wb_free(rp);
    wb_free(*col);
    *rowptr = nrp;
    *col = ncol;
    if (nval) {
        wb_free(*val);
        *val = nval;
    }
}

void wb_csr_permute(wb_csr *A, const int *perm) {
    if (A->nrows != A->ncols) wb_die("renumbering needs a square matrix (%d x %d)", A->nrows, A->ncols);
    permute_rows(A->nrows, &A->rowptr, &A->col, &A->val, perm);
}

void wb_graph_permute(wb_graph *g, const int *perm) { permute_rows(g->n, &g->rowptr, &g->adj, NULL, perm); }

void wb_permute_doubles(double *v, long n, int stride, const int *perm) {
    double *t = wb_alloc(sizeof(double) * (size_t)(n * stride ? n * stride : 1));
    for (long i = 0; i < n; i++)
        for (int d = 0; d < stride; d++) t[(long)perm[i] * stride + d] = v[i * stride + d];
    memcpy(v, t, sizeof(double) * (size_t)(n * stride));
    wb_free(t);
}

/* ---------------------------------------------------------------- timing & output */

void wb_report(const char *prog, const char *input_desc, size_t ws, int iters, double seconds) {
    fprintf(stderr, "%s: input: %s\n", prog, input_desc);
    fprintf(stderr, "%s: working set: %zu bytes (%.2f MiB)\n", prog, ws, (double)ws / 1048576.0);
    fprintf(stderr, "%s: iterations: %d\n", prog, iters);
    fprintf(stderr, "%s: time: %.6f s\n", prog, seconds);
}

void wb_hash_init(wb_hash *h) { h->h = 0xcbf29ce484222325ULL; }

void wb_hash_bytes(wb_hash *h, const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t x = h->h;
    for (size_t i = 0; i < n; i++) {
        x ^= b[i];
        x *= 0x100000001b3ULL;
    }
    h->h = x;
}

void wb_hash_doubles(wb_hash *h, const double *v, long n) {
    for (long i = 0; i < n; i++) {
        double d = v[i];
        if (d == 0.0) d = 0.0; /* +0 and -0 hash alike */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        wb_hash_u64(h, bits);
    }
}

void wb_hash_ints(wb_hash *h, const int *v, long n) {
    for (long i = 0; i < n; i++) wb_hash_u64(h, (uint64_t)(uint32_t)v[i]);
}

void wb_hash_u64(wb_hash *h, uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    wb_hash_bytes(h, b, 8);
}

void wb_print_checksum(const wb_hash *h) {
    /* every program ends here: refuse renumbering flags it did not act on */
    if (wb_dump_path) wb_die("--dump-graph is not supported by this program");
    if (wb_perm_path && !wb_perm_used) wb_die("--permute is not supported by this program");
    printf("checksum: %016llx\n", (unsigned long long)h->h);
    fflush(stdout);
}

void wb_print_double(const char *label, double v) { printf("%s: %a\n", label, v); }
