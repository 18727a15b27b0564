/* Fault cases of the runtime's C ABI (driven by runtime/tests/all/faults.rs).
 * Usage: faults <case>; each case prints what it observed, one fact a line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_runtime.h"

#define N 200000
static double a[N];
static int64_t body_iters;

/* A traced parallel loop body: a[i] += 1, one traced read and write each. */
static void add_one(void *ctx, int64_t lo, int64_t hi) {
    (void)ctx;
    for (int64_t i = lo; i < hi; i++) {
        weft_trace_access(&a[i], 8, 0, 1);
        a[i] += 1.0;
        weft_trace_access(&a[i], 8, 1, 1);
    }
    __atomic_fetch_add(&body_iters, hi - lo, __ATOMIC_RELAXED);
}

/* What weft's passes emit: the runtime call, then the sequential loop when
 * it returns an error. */
static void run_loop(int64_t n) {
    if (weft_parallel_for(0, n, add_one, NULL) != 0)
        add_one(NULL, 0, n);
}

static double sum(void) {
    double s = 0;
    for (int i = 0; i < N; i++) s += a[i];
    return s;
}

static void count(void *ctx, int64_t lo, int64_t hi) {
    (void)ctx;
    __atomic_fetch_add(&body_iters, hi - lo, __ATOMIC_RELAXED);
}

/* An inspector that reports impossible things: it must get errors back. */
static int32_t range_status = -1, write_status = -1;
static void bad_inspector(void *ctx, int64_t lo, int64_t hi, weft_inspector_t *h) {
    (void)ctx; (void)hi;
    range_status = weft_inspect_range(h, lo, &a[0], UINT64_MAX);
    write_status = weft_inspect_access(h, lo, &a[0], 8, 9);
}

int main(int argc, char **argv) {
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "sum")) {
        for (int r = 0; r < 4; r++) run_loop(N);
        printf("sum %.0f\n", sum());
    } else if (!strcmp(c, "cores")) {
        uint32_t p = 0;
        int32_t st = weft_num_cores(&p);
        printf("status %d cores %u\n", st, p);
    } else if (!strcmp(c, "abi")) {
        printf("parallel_for %d\n", weft_parallel_for(-1, INT64_MAX, count, NULL));
        printf("run_irregular %d\n",
               weft_run_irregular(7, INT64_MIN, INT64_MAX, 0, NULL, count, NULL));
        printf("run_affine %d\n",
               weft_run_affine(8, INT64_MIN, INT64_MAX, 1, 0, NULL, count, NULL));
        printf("trace_reads %d\n", weft_trace_reads(&a[0], UINT64_MAX, 8, 0));
        printf("trace_access_kind %d\n", weft_trace_access(&a[0], 8, 9, 0));
        printf("trace_access_size %d\n", weft_trace_access(&a[0], 256, 0, 0));
        printf("body_iters %lld\n", (long long)body_iters);
        int32_t st = weft_run_irregular(9, 0, 1000, 10, bad_inspector, count, NULL);
        printf("bad_inspector %d range %d is_write %d body_iters %lld\n", st, range_status,
               write_status, (long long)body_iters);
    } else if (!strcmp(c, "fork")) {
        run_loop(1000); /* 2000 records, still buffered */
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) exit(0); /* runs the exit handlers in the child */
        int ws = 0;
        waitpid(pid, &ws, 0);
        printf("child %d sum %.0f\n", WEXITSTATUS(ws), sum());
    } else {
        fprintf(stderr, "unknown case %s\n", c);
        return 2;
    }
    return 0;
}
