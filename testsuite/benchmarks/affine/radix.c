/*
 * radix.c - SPLASH-2-style parallel radix sort of 32-bit keys, radix 2^8 (4 passes).
 * The keys are split into B equal blocks (B = 64 "virtual processors"). Each pass:
 * per-block digit histograms (parallel over blocks), a global prefix sum giving
 * every (digit, block) its output offset, then a per-block stable scatter (parallel
 * over blocks: each block writes its own disjoint output positions). Affine class
 * (dissertation §5.6, SPLASH-2 "Radix"); the scatter writes through computed ranks.
 *
 * --size N : number of keys (multiple of 64); quick 65536, default 16777216
 *            (keys + output buffer = 128 MiB)
 * --iters K: repetitions (keys restored each time); quick 1, default 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

#define RADIX_BITS 8
#define RADIX 256
#define BLOCKS 64

WB_NOINLINE WB_PARALLEL void kernel_zero_hist(long n, long *restrict hist) {
    for (long i = 0; i < n; i++) hist[i] = 0;
}

/* per-block digit counts (hist zeroed beforehand by kernel_zero_hist) */
WB_NOINLINE WB_PARALLEL void kernel_histogram(long nblocks, long bsize, const unsigned *restrict keys, int shift,
                                  long *restrict hist) {
    for (long b = 0; b < nblocks; b++) {
        for (long i = 0; i < bsize; i++) hist[b * RADIX + ((keys[b * bsize + i] >> shift) & (RADIX - 1))]++;
    }
}

/* offset[b][d] = sum of counts of smaller digits (all blocks) + same digit, earlier blocks */
WB_NOINLINE void kernel_prefix(long nblocks, const long *restrict hist, long *restrict offset) {
    long sum = 0;
    for (long d = 0; d < RADIX; d++)
        for (long b = 0; b < nblocks; b++) {
            offset[b * RADIX + d] = sum;
            sum += hist[b * RADIX + d];
        }
}

WB_NOINLINE WB_PARALLEL void kernel_scatter(long nblocks, long bsize, const unsigned *restrict keys, int shift,
                                long *restrict offset, unsigned *restrict out) {
    for (long b = 0; b < nblocks; b++)
        for (long i = 0; i < bsize; i++) {
            unsigned k = keys[b * bsize + i];
            long d = (k >> shift) & (RADIX - 1);
            out[offset[b * RADIX + d]] = k;
            offset[b * RADIX + d] = offset[b * RADIX + d] + 1;
        }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "SPLASH-2-style radix sort of 32-bit keys");
    long n = wb_pick_size(&args, 65536, 16777216);
    int reps = wb_pick_iters(&args, 1, 1);
    if (n % BLOCKS) wb_die("--size must be a multiple of %d", BLOCKS);
    long bsize = n / BLOCKS;
    unsigned *keys = wb_alloc(sizeof(unsigned) * (size_t)n), *out = wb_alloc(sizeof(unsigned) * (size_t)n);
    unsigned *keys0 = wb_alloc(sizeof(unsigned) * (size_t)n);
    long *hist = wb_alloc(sizeof(long) * BLOCKS * RADIX), *offset = wb_alloc(sizeof(long) * BLOCKS * RADIX);
    wb_lcg g;
    wb_lcg_seed(&g, args.seed);
    for (long i = 0; i < n; i++) keys0[i] = (unsigned)(wb_lcg_next(&g) >> 32);
    double t = 0.0;
    for (int r = 0; r < reps; r++) {
        memcpy(keys, keys0, sizeof(unsigned) * (size_t)n);
        double t0 = wb_now();
        for (int shift = 0; shift < 32; shift += RADIX_BITS) {
            kernel_zero_hist(BLOCKS * RADIX, hist);
            kernel_histogram(BLOCKS, bsize, keys, shift, hist);
            kernel_prefix(BLOCKS, hist, offset);
            kernel_scatter(BLOCKS, bsize, keys, shift, offset, out);
            unsigned *tmp = keys;
            keys = out;
            out = tmp;
        }
        t += wb_now() - t0;
    }
    long sorted = 1;
    for (long i = 1; i < n; i++)
        if (keys[i - 1] > keys[i]) sorted = 0;
    printf("radix: keys %ld blocks %d repetitions %d\n", n, BLOCKS, reps);
    printf("sorted: %s\n", sorted ? "yes" : "no");
    printf("min %u median %u max %u\n", keys[0], keys[n / 2], keys[n - 1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_bytes(&h, keys, sizeof(unsigned) * (size_t)n);
    char desc[64];
    snprintf(desc, sizeof desc, "generated %ld random 32-bit keys", n);
    wb_report("radix", desc, sizeof(unsigned) * 2 * (size_t)n + sizeof(long) * 2 * BLOCKS * RADIX, reps, t);
    wb_print_checksum(&h);
    return sorted ? 0 : 1;
}
