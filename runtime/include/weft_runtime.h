/*
 * weft_runtime.h — C ABI of the weft inspector/executor runtime (libweft_runtime.a).
 *
 * Link: clang-19 prog.c -Iruntime/include target/<profile>/libweft_runtime.a -lpthread -ldl -lm
 *
 * Every function returns a status code (WEFT_OK = 0) except weft_last_error(),
 * which returns the calling thread's last error message ("" if none; valid until
 * the next failing call on that thread). Null or inconsistent arguments return an
 * error; nothing unwinds into C.
 *
 * Environment (read once, on first use):
 *   WEFT_CORES=P          worker threads / virtual cores (default: available parallelism)
 *   WEFT_TRACE=path       trace mode: executors run sequentially and weft_trace_access
 *                         records per-virtual-core accesses (binary WEFTTRC trace)
 *   WEFT_STATS=path.json  per-region statistics written at exit (inspector/executor
 *                         time, slab/IB counts, coverage ratio, beta values, IW size)
 *   WEFT_MACHINE=name|toml machine preset or TOML file (default table5.2)
 *   WEFT_SLOT_BARRIER=1   barrier after every Algorithm 4 scheduling slot
 *   WEFT_MIN_PARALLEL_NS=n grain control: native regions and parallel loops whose
 *                         measured work is below n ns (default 20000) run on the
 *                         calling thread, uninspected; 0 = always parallel
 *   WEFT_REINSPECT_LIMIT=k schedule reuse: an irregular region whose last k
 *                         schedules each served one execution (re-inspected every
 *                         time) stops inspecting and runs in original order, unless
 *                         it needs the dependence check (default 2; 0 = never stop)
 *   WEFT_LAZY_INSPECT=checked (the default) native runs: the first execution of an
 *                         irregular region whose inspector does not call
 *                         weft_inspect_maps_only (it needs the dependence check) runs in
 *                         original order on the calling thread, uninspected; it is
 *                         inspected when it runs again. 1: the same for every region;
 *                         0: inspect every region on its first execution
 *   WEFT_INSPECT_INLINE=0 inspectors report every access through weft_inspect_access
 *                         (weft_inspect_fast sets enabled = 0; default 1: unchecked
 *                         accesses of at most two lines are recorded inline)
 *   WEFT_INSPECT_SATURATE=0 inspectors that call weft_inspect_maps_only run over
 *                         every iteration (default 1: the rest of a slab is skipped
 *                         once its bank map has every bank set; same maps and schedule)
 *   WEFT_WRITES_FIRST=0   inspectors with a writes-only slice (weft_inspect_writes_first)
 *                         run in full only (default 1: the slice first, then the full
 *                         inspector keeping only reads of written granules; same DAG)
 * With WEFT_TRACE or WEFT_STATS an atexit handler flushes the trace and stats.
 * With either set, linking with -Wl,-u,weft_init_array_entry (weft build does)
 * configures the runtime at start-up, so they are written even by a run whose
 * calls never reach the runtime.
 *
 * Keep in sync with runtime/src/abi.rs (a test compares the prototypes).
 */
#ifndef WEFT_RUNTIME_H
#define WEFT_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define WEFT_OK 0
#define WEFT_ERR_NULL 1        /* a required pointer was NULL */
#define WEFT_ERR_INVALID 2     /* argument out of range or inconsistent */
#define WEFT_ERR_DEPENDENCE 3  /* cyclic dependences / schedule breaks a dependence */
#define WEFT_ERR_IO 4          /* trace or stats file */
#define WEFT_ERR_INTERNAL 5    /* a callback panicked or internal error */
#define WEFT_ERR_MACHINE 6     /* machine configuration could not be loaded */
#define WEFT_ERR_UNSUPPORTED 7 /* request not supported */

/* Schemes of weft_run_affine. */
#define WEFT_SCHEME_DEFAULT 0   /* round-robin IBs (baseline) */
#define WEFT_SCHEME_MLP_FIRST 1
#define WEFT_SCHEME_CLP_FIRST 2
#define WEFT_SCHEME_BALANCED 3
#define WEFT_SCHEME_LA_MLP 4    /* Locality-Aware-MLP baseline (5.6.1): inter-core BLP + row locality, no CLP */
#define WEFT_AFFINE_PERMUTE 0x100 /* or-ed into scheme: permute IBs inside windows (5.5.5) */
#define WEFT_AFFINE_GRANULE_SHIFT 16 /* scheme bits 16..31: iterations per permuted sub-range (0 = 1) */

/* Opaque handle passed to inspectors. */
typedef struct weft_inspector weft_inspector_t;

/* Outlined loop body: runs iterations [lo, hi) of the original loop, increasing. */
typedef void (*weft_body_fn)(void *ctx, int64_t lo, int64_t hi);

/* Inspector (address-only slice of the body): for every iteration in [lo, hi)
 * calls weft_inspect_access for every access the body would make. */
typedef void (*weft_inspect_fn)(void *ctx, int64_t lo, int64_t hi, weft_inspector_t *h);

/* Message of the calling thread's last failure ("" if none). */
const char *weft_last_error(void);

/* Number of worker threads / virtual cores P. */
int32_t weft_num_cores(uint32_t *out_cores);

/* Grain hint of the region call that just returned on this thread: the trip
 * count below which the caller may run that site's body inline, in original
 * order, without calling the runtime (0: always call it). Written atomically
 * (relaxed); keep it in a per-site int64_t read atomically before each call. */
int32_t weft_grain_hint(int64_t *out_min_iters);

/* Outcome of a run-time alias check (loop versioning): passed != 0 when the
 * checked ranges were disjoint and the transformed loop ran. Adds one to
 * site[1] (passed) or site[0] (failed), a per-site int64_t[2] updated
 * atomically, and to the totals in the statistics ("alias_checks"). */
int32_t weft_alias_check(int64_t *site, int32_t passed);

/* Default schedule: static contiguous chunks of [lo, hi) over P workers. */
int32_t weft_parallel_for(int64_t lo, int64_t hi, weft_body_fn body, void *ctx);

/* Irregular (index-array) region, Algorithm 4. On the first call for region_id
 * (or after weft_region_invalidate, or when lo/hi/slab_iters change) runs insp over
 * all iterations, builds per-slab bank maps, runs the dependence check (slab DAG
 * when slabs conflict), schedules slabs and caches the schedule; then runs body
 * over it. slab_iters = 0: 1/50 of a core's iterations. insp may be NULL: the
 * Default schedule runs (and the region's coverage ratio records it). */
int32_t weft_run_irregular(uint32_t region_id, int64_t lo, int64_t hi, int64_t slab_iters, weft_inspect_fn insp, weft_body_fn body, void *ctx);

/* Affine nest, Algorithm 5: iteration blocks of ib_iters iterations, bank vectors
 * from insp (computed once), IW size from eq. 5.1, scheme WEFT_SCHEME_*, IB
 * dependence DAG with pruned synchronisation; cached like weft_run_irregular.
 * insp may be NULL only with WEFT_SCHEME_DEFAULT. */
int32_t weft_run_affine(uint32_t nest_id, int64_t lo, int64_t hi, int64_t ib_iters, uint32_t scheme, weft_inspect_fn insp, weft_body_fn body, void *ctx);
/* Affine nest with independent IBs: bank vectors from the access-function
 * descriptor desc[0..desc_len) (layout: weft_runtime::affine_desc), evaluated at
 * loop entry from the actual base addresses; no inspector. */
int32_t weft_run_affine_desc(uint32_t nest_id, int64_t lo, int64_t hi, int64_t ib_iters, uint32_t scheme, const int64_t *desc, int64_t desc_len, weft_body_fn body, void *ctx);

/* Drops the cached schedules of a region/nest id (its index arrays changed). */
int32_t weft_region_invalidate(uint32_t region_id);

/* Context-keyed schedule reuse: runtime id for static region `base` executing
 * with context key[0..nkey) (its live-in values): the id (base * 64 + slot) whose
 * saved key equals key, else the least recently used of the base's 64 slots,
 * whose schedule is dropped. key = NULL: incomparable context, always a fresh slot. */
int32_t weft_region_select(uint32_t base, const uint64_t *key, uint32_t nkey, uint32_t *out_id);

/* Forgets the saved contexts of static region `base` and drops all its schedules. */
int32_t weft_region_reset(uint32_t base);

/* Called by inspectors: iteration iter accesses size bytes at addr. is_write: 1 = a
 * write the slab dependence check must include, 0 = a read it must include,
 * WEFT_ACCESS_UNCHECKED = an access that cannot conflict (every access of a loop
 * proven parallel, loads of arrays the loop does not write): bank maps only. */
#define WEFT_ACCESS_UNCHECKED 2
int32_t weft_inspect_access(weft_inspector_t *h, int64_t iter, const void *addr, uint32_t size, uint32_t is_write);

/* Called by inspectors: iteration iter reads the bytes [addr, addr + bytes), none of
 * which can take part in a slab conflict: one report equal to reporting each as
 * WEFT_ACCESS_UNCHECKED (bank maps only; 0 bytes report nothing), e.g. the stretch of
 * an array an inner counted loop streams through, reported once before the loop. */
int32_t weft_inspect_range(weft_inspector_t *h, int64_t iter, const void *addr, uint64_t bytes);

/* Called by inspectors: *out_shift = log2 of the block within which the unchecked
 * accesses of one reference need to be reported only once per iteration (the block the
 * irregular bank maps are kept at: the largest aligned block that lies in one memory
 * bank, 2 KB on table5.2, or the cache line when a miss predictor runs); 0 = report
 * every access (affine nests). */
int32_t weft_inspect_line_shift(const weft_inspector_t *h, uint32_t *out_shift);

/* Called by inspectors at entry, before any report: every access this call reports
 * is WEFT_ACCESS_UNCHECKED (bank maps only; compilers declare it for loops they prove
 * parallel). The runtime may then run the inspector over part of a slab and skip the
 * rest once the slab's bank map has every bank set. A checked report afterwards is
 * an error. */
int32_t weft_inspect_maps_only(weft_inspector_t *h);

/* Called by inspectors at entry, before any report, for loops parallel by the
 * programmer's assertion (every report WEFT_ACCESS_UNCHECKED) that do not declare
 * weft_inspect_maps_only: the loop needs no dependence check, so the runtime may run
 * it as the Original schedule does (static chunks, no inspection) until it has run
 * often enough to amortise an inspection (WEFT_BLP_ASIDE). */
int32_t weft_inspect_no_check(weft_inspector_t *h);

/* Writes-first inspection: an inspector that also has a slice reporting its checked
 * writes alone (the same writes of the same iterations, nothing else) calls this at
 * entry, before any report, and runs that slice when *out_writes_only = 1, the full
 * inspector when 0. The runtime runs the slice first and then keeps only the reads
 * of granules some write touches (WEFT_WRITES_FIRST=0 turns this off). */
int32_t weft_inspect_writes_first(weft_inspector_t *h, uint32_t *out_writes_only);

/* Inline recording of unchecked accesses (irregular inspectors). The struct is
 * owned by the inspector's stack frame and filled by weft_inspect_fast. While
 * enabled != 0 and lo <= iter < hi, an unchecked access of iteration iter to the
 * bytes [a, e] (e = a + size - 1) touching at most two blocks
 * ((e >> shift) - (a >> shift) <= 1, shift from weft_inspect_line_shift, at least
 * 4 when enabled, so an access of up to 16 bytes aligned to its size is one block) may be
 * recorded by the inspector itself, exactly as weft_inspect_access(h, iter, a,
 * size, WEFT_ACCESS_UNCHECKED) would:
 *   for x in {a, e}: b = table[(x >> lsb) & mask]; row[b >> 6] |= 1ull << (b & 63);
 *   reported += 1; touches += (e >> shift) - (a >> shift) + 1;
 * Bits may be kept in registers and OR-ed into row later, before the next
 * weft_inspect_fast / weft_inspect_fast_flush call and before the inspector
 * returns. Other accesses go through weft_inspect_access. row and table point into the
 * handle's recorder and are valid only until the inspector call returns; the
 * counters must be handed back (weft_inspect_fast or weft_inspect_fast_flush)
 * before it returns.
 * A checked read (is_write = 0) of the same kind may also be recorded inline while
 * recs < recs_end: the bits and counts above, and the 16-byte record
 *   *(uint64_t *)recs = a; *(uint32_t *)(recs + 8) = unit;
 *   *(uint32_t *)(recs + 12) = size; recs += rec_step;
 * A checked write of the same kind may be recorded inline while recs < recs_end and
 * rec_step != 0, downwards from recs_end:
 *   recs_end -= 16; *(uint64_t *)recs_end = a; *(uint32_t *)(recs_end + 8) = unit;
 *   *(uint32_t *)(recs_end + 12) = size | 0x80000000u;
 * While wspan != 0 a checked read need not be recorded (bits and counts still are)
 * when it touches no written granule: g = a >> 2, n = (e >> 2) - g, i = g - wgmin,
 * i < wspan, n < 32 and bits i..i+n of wbits all clear.
 * recs and recs_end are handed back with the counters. Every other checked access
 * goes through weft_inspect_checked. recs may move at any call with the handle. */
typedef struct weft_inspect_fast {
    int64_t lo;            /* current slab's iterations [lo, hi) (within the inspected range) */
    int64_t hi;
    uint64_t *row;         /* that slab's bank-map words */
    const uint16_t *table; /* bank of each value of (addr >> lsb) & mask */
    uint64_t mask;
    uint32_t lsb;
    uint32_t shift;        /* log2 of the bank maps' line size */
    uint32_t enabled;      /* 0: report every access with weft_inspect_access */
    uint32_t reserved;
    uint64_t reported;     /* in: accesses recorded inline since the last call */
    uint64_t touches;      /* in: lines they touched */
    uint8_t *recs;         /* in/out: next record of a checked read (NULL: none inline) */
    uint8_t *recs_end;     /* in/out: one past the last free record (writes go below it) */
    uint32_t unit;         /* current slab's number, for the records */
    uint32_t rec_step;     /* bytes to advance recs by: 16, or 0 (records dropped) */
    const uint64_t *wbits; /* granules written (writes first): bit i = granule wgmin + i */
    uint64_t wgmin;        /* a multiple of 64: an aligned access of <= 16 bytes is one word */
    uint64_t wspan;        /* bits in wbits; 0: keep every checked read */
    int64_t slab_end;      /* one past the current slab's last iteration (hi, not clipped to
                              the inspected range) */
} weft_inspect_fast_t;

/* Hands st back (as weft_inspect_fast_flush), then
 * makes the slab of iter current and fills st (lo == hi when iter lies outside
 * the inspected range; enabled = 0 when the inline path would not be exact:
 * affine nests, bank bits too wide for a table, lines under 16 bytes,
 * WEFT_MISS_FILTER, WEFT_INSPECT_INLINE=0). */
int32_t weft_inspect_fast(weft_inspector_t *h, int64_t iter, weft_inspect_fast_t *st);

/* Adds st->reported / st->touches to the inspector's counts and zeroes them, and
 * keeps the records of checked reads written up to st->recs. */
int32_t weft_inspect_fast_flush(weft_inspector_t *h, weft_inspect_fast_t *st);

/* A checked access (is_write 0 or 1) of an inspector recording inline: hands st
 * back as weft_inspect_fast_flush, records the access as weft_inspect_access, then
 * refills st for the slab of iter as weft_inspect_fast (also after an error). */
int32_t weft_inspect_checked(weft_inspector_t *h, weft_inspect_fast_t *st, int64_t iter, const void *addr, uint32_t size, uint32_t is_write);

/* A gather of an inspector recording inline: iteration iter reads size bytes at
 * base + idx[j] * scale for every j < n (idx: n signed integers of idx_bytes = 4 or 8
 * bytes); each read is a report of kind is_write (0: checked read, 2 =
 * WEFT_ACCESS_UNCHECKED), recorded as the inline rules above or weft_inspect_checked
 * would record it. st is handed back before the call as for weft_inspect_checked and
 * is current again on return (also after an error). Compilers call it before an inner
 * counted loop whose only report is such a read (x[col[j]] of a CSR row). */
int32_t weft_inspect_gather(weft_inspector_t *h, weft_inspect_fast_t *st, int64_t iter, const void *base, const void *idx, uint64_t n, uint32_t idx_bytes, int64_t scale, uint32_t size, uint32_t is_write);

/* Trace mode: records an access of the current virtual core (core 0 outside
 * executors); gap = non-memory instructions since the caller's previous report.
 * A no-op returning WEFT_OK when WEFT_TRACE is not set. */
int32_t weft_trace_access(const void *addr, uint32_t size, uint32_t is_write, uint32_t gap);

/* Trace mode: records n reads of size bytes at addr, addr + size, ..., each gap
 * non-memory instructions after the previous one (the index loads of a
 * weft_inspect_gather, which the runtime performs). A no-op without WEFT_TRACE. */
int32_t weft_trace_reads(const void *addr, uint64_t n, uint32_t size, uint32_t gap);

/* Trace mode: adds n non-memory instructions to the current virtual core's gap. */
int32_t weft_trace_compute(uint32_t n);

/* Flushes and closes the trace (also done at exit); safe to call twice. */
int32_t weft_trace_finish(void);

/* Writes the statistics to WEFT_STATS now (also done at exit). */
int32_t weft_stats_flush(void);

/* Memory bank and LLC bank of addr under the machine's address mapping. */
int32_t weft_bank_of(const void *addr, uint32_t *out_mem_bank, uint32_t *out_llc_bank);

/* Number of memory banks and LLC banks of the machine. */
int32_t weft_num_banks(uint32_t *out_mem_banks, uint32_t *out_llc_banks);

/* Algorithm 4 on explicit bank-maps: slabs_per_core[c] slabs for core c, each
 * ceil(banks/64) uint64_t words in bankmaps (bit b%64 of word b/64 = bank b),
 * core-major. Writes out_order[t*cores + c] = slab index of core c at slot t
 * (-1 = idle), out_coverage[t] = banks covered at slot t, *out_slots = slots.
 * out_order / out_coverage must hold max(slabs_per_core) slots. */
int32_t weft_schedule_slabs(uint32_t cores, uint32_t banks, const uint32_t *slabs_per_core, const uint64_t *bankmaps, int32_t *out_order, uint32_t *out_coverage, uint32_t *out_slots);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_RUNTIME_H */
