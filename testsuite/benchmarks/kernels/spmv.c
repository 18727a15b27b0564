/*
 * spmv.c - y = A x for a CSR matrix with a band plus scattered entries, repeated
 * (index-array loop: x gathered through col[]). Arrays: plain pointers from the
 * helper allocator. --size N: rows; 9 entries per row; small 4000 (8 products),
 * medium 200000 (8 products).
 */
#include "corpus.h"

WB_NOINLINE void kernel_spmv(long n, const long *rowptr, const int *col, const double *val,
                             const double *x, double *y) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long p = rowptr[i]; p < rowptr[i + 1]; p++) s = s + val[p] * x[col[p]];
        y[i] = s;
    }
}

int main(int argc, char **argv) {
    wb_args args;
    wb_parse_args(argc, argv, &args, "CSR sparse matrix-vector product");
    long n = wb_pick_size(&args, 4000, 200000), per = 9;
    long *rowptr = malloc(sizeof(long) * (size_t)(n + 1));
    int *col = kc_ints(n * per);
    double *val = kc_array(n * per), *x = kc_array(n), *y = kc_array(n);
    if (!rowptr) wb_die("out of memory");
    for (long i = 0; i <= n; i++) rowptr[i] = i * per;
    for (long i = 0; i < n; i++)
        for (long q = 0; q < per; q++) {
            long c = q < 5 ? i + q - 2 : (i * 7919 + q * 104729) % n;
            if (c < 0) c += n;
            if (c >= n) c -= n;
            col[i * per + q] = (int)c;
            val[i * per + q] = kc_val(i * per + q, 58);
        }
    kc_fill(x, n, 59);
    double t0 = wb_now();
    for (int r = 0; r < 8; r++) {
        kernel_spmv(n, rowptr, col, val, x, y);
        for (long i = 0; i < n; i++) x[i] = 0.5 * y[i] + 0.01;
    }
    double t = wb_now() - t0;
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, y, n);
    kc_finish("spmv", n, &h, sizeof(double) * (size_t)(n * per + 2 * n) + sizeof(int) * (size_t)(n * per), t);
    return 0;
}
