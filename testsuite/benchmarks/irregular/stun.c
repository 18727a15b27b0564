/*
 * stun.c - STUN-like benchmark: the numeric step of a sparse direct solver,
 * left-looking column Cholesky factorization A = L L^T, after a symbolic analysis
 * (elimination tree and row subtrees). Irregular class (dissertation Table 4.1,
 * "STUN"): the column-modification loops scatter into the dense work vector through
 * the row index array of L (x[Li[p]] -= Lx[p] * ljk), and the column-division loop
 * gathers x[Li[p]]. Within one column update all row indices are distinct, so these
 * loops are parallel; column updates are applied in a fixed order.
 *
 * Inputs: --input FILE.mtx (symmetric positive definite Matrix Market, e.g. the
 * shared bcsstk13/bcsstk16; natural ordering) or, by default, a generated 2-D
 * 5-point Laplacian + 0.01 I on an N x N grid (natural ordering: banded fill).
 * quick N = 28; default N = 140.
 * --iters K: repetitions of the numeric factorization; quick 1, default 1.
 * After factorization, L L^T x = A*ones is solved and max |x - 1| printed.
 * --dump-graph / --permute: the matrix graph (see weft_bench.h). A renumbering is a
 * symmetric permutation P A P^T, so it changes the fill of L (natural order of the
 * new numbering), not only its layout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

/* cmod: x[Li[p]] -= Lx[p] * ljk for p in [first, last) (column k below row j) */
WB_NOINLINE WB_PARALLEL void kernel_cmod(long first, long last, const int *restrict Li,
                             const double *restrict Lx, double ljk, double *restrict x) {
    for (long p = first; p < last; p++) x[Li[p]] = x[Li[p]] - Lx[p] * ljk;
}

/* cdiv: Lx[p] = x[Li[p]] / d and clear the work vector, for p in [first, last) */
WB_NOINLINE WB_PARALLEL void kernel_cdiv(long first, long last, const int *restrict Li, double d,
                             double *restrict x, double *restrict Lx) {
    for (long p = first; p < last; p++) {
        Lx[p] = x[Li[p]] / d;
        x[Li[p]] = 0.0;
    }
}

/* scatter the lower part of A's column j (CSC of the lower triangle) into x */
WB_NOINLINE WB_PARALLEL void kernel_scatter(long first, long last, const int *restrict Ai,
                                const double *restrict Ax, double *restrict x) {
    for (long p = first; p < last; p++) x[Ai[p]] = Ax[p];
}

static void gen_laplace2d(int g, wb_csr *lower_csc) {
    /* column-major lower triangle (= CSR of the upper triangle by symmetry) */
    long n = (long)g * g;
    lower_csc->nrows = lower_csc->ncols = (int)n;
    lower_csc->rowptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    lower_csc->col = wb_alloc(sizeof(int) * (size_t)n * 3);
    lower_csc->val = wb_alloc(sizeof(double) * (size_t)n * 3);
    long k = 0;
    for (long j = 0; j < n; j++) {
        int x = (int)(j % g), y = (int)(j / g);
        lower_csc->col[k] = (int)j;
        lower_csc->val[k++] = 4.01;
        if (x + 1 < g) {
            lower_csc->col[k] = (int)(j + 1);
            lower_csc->val[k++] = -1.0;
        }
        if (y + 1 < g) {
            lower_csc->col[k] = (int)(j + g);
            lower_csc->val[k++] = -1.0;
        }
        lower_csc->rowptr[j + 1] = k;
    }
    lower_csc->nnz = k;
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "STUN-like left-looking sparse Cholesky factorization");
    int reps = wb_pick_iters(&a, 1, 1);
    /* Ac: lower triangle of A by columns (Ap, Ai, Ax); diagonal first in each column */
    wb_csr Ac;
    char desc[512];
    if (a.input) {
        wb_coo coo;
        char err[512];
        if (wb_read_mm(a.input, 0, &coo, err, sizeof err)) wb_die("%s", err);
        if (!coo.symmetric || coo.nrows != coo.ncols) wb_die("%s: need a symmetric square matrix", a.input);
        /* keep the lower triangle, stored by columns: transpose (row,col) -> (col,row) */
        for (long k = 0; k < coo.nnz; k++) {
            int r = coo.row[k], c = coo.col[k];
            if (r < c) wb_die("%s: entry (%d,%d) above the diagonal in a symmetric file", a.input, r + 1, c + 1);
            coo.row[k] = c;
            coo.col[k] = r;
        }
        wb_coo_to_csr(&coo, &Ac);
        wb_coo_free(&coo);
        snprintf(desc, sizeof desc, "%s (%d rows, %ld lower nonzeros, natural order)", a.input, Ac.nrows, Ac.nnz);
    } else {
        int g = (int)wb_pick_size(&a, 28, 140);
        if (g < 2 || g > 4000) wb_die("--size must be in 2..4000");
        gen_laplace2d(g, &Ac);
        snprintf(desc, sizeof desc, "generated 2-D Laplacian + 0.01 I, %dx%d grid, natural order", g, g);
    }
    int n = Ac.nrows;
    /* GPART renumbering: entry (i, j), i >= j, of the lower triangle moves to
     * (max, min) of (perm[i], perm[j]); kept by columns with the diagonal first */
    wb_dump_graph_and_exit(&a, n, Ac.rowptr, Ac.col);
    int *perm = wb_load_perm(&a, n);
    if (perm) {
        wb_coo t = {0};
        t.nrows = t.ncols = n;
        t.nnz = t.stored = Ac.nnz;
        t.row = wb_alloc(sizeof(int) * (size_t)Ac.nnz);
        t.col = wb_alloc(sizeof(int) * (size_t)Ac.nnz);
        t.val = wb_alloc(sizeof(double) * (size_t)Ac.nnz);
        for (int j = 0; j < n; j++)
            for (long p = Ac.rowptr[j]; p < Ac.rowptr[j + 1]; p++) {
                int pi = perm[Ac.col[p]], pj = perm[j];
                t.row[p] = pi < pj ? pi : pj; /* column of the lower-triangle entry */
                t.col[p] = pi < pj ? pj : pi; /* its row */
                t.val[p] = Ac.val[p];
            }
        wb_csr_free(&Ac);
        wb_coo_to_csr(&t, &Ac);
        wb_coo_free(&t);
        wb_free(perm);
    }
    for (int j = 0; j < n; j++)
        if (Ac.rowptr[j] == Ac.rowptr[j + 1] || Ac.col[Ac.rowptr[j]] != j) wb_die("column %d has no diagonal", j);

    /* --- symbolic analysis: elimination tree from the upper pattern (row j of the
     * upper triangle = column j of the lower triangle, i.e. entries A(i,j), i > j,
     * give A(j,i) in the upper part). Row pattern of L(i,:) = reach of A(i,0..i-1). */
    /* Build row-wise access to the lower triangle: for row i, columns k < i with A(i,k) != 0. */
    long *rp = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (long p = 0; p < Ac.nnz; p++) rp[Ac.col[p] + 1]++;
    for (int i = 0; i < n; i++) rp[i + 1] += rp[i];
    int *rc = wb_alloc(sizeof(int) * (size_t)Ac.nnz);
    {
        long *fill = wb_alloc(sizeof(long) * ((size_t)n + 1));
        memcpy(fill, rp, sizeof(long) * ((size_t)n + 1));
        for (int j = 0; j < n; j++)
            for (long p = Ac.rowptr[j]; p < Ac.rowptr[j + 1]; p++) rc[fill[Ac.col[p]]++] = j;
        wb_free(fill);
    }
    int *parent = wb_alloc(sizeof(int) * n), *ancestor = wb_alloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) {
        parent[i] = -1;
        ancestor[i] = -1;
        for (long p = rp[i]; p < rp[i + 1]; p++) {
            int k = rc[p];
            while (k != -1 && k < i) {
                int next = ancestor[k];
                ancestor[k] = i;
                if (next == -1) parent[k] = i;
                k = next;
            }
        }
    }
    /* row patterns via etree reach; count column sizes */
    int *mark = wb_alloc(sizeof(int) * n);
    long *colcount = wb_alloc(sizeof(long) * ((size_t)n + 1));
    long *Rp = wb_alloc(sizeof(long) * ((size_t)n + 1));
    long rcap = Ac.nnz * 4 + n, rtotal = 0;
    int *Rj = wb_alloc(sizeof(int) * (size_t)rcap);
    for (int i = 0; i < n; i++) mark[i] = -1;
    for (int i = 0; i < n; i++) {
        mark[i] = i;
        for (long p = rp[i]; p < rp[i + 1]; p++) {
            int k = rc[p];
            while (k < i && mark[k] != i) {
                if (rtotal >= rcap) {
                    rcap *= 2;
                    Rj = wb_realloc(Rj, sizeof(int) * (size_t)rcap);
                    if (!Rj) wb_die("out of memory");
                }
                Rj[rtotal++] = k;
                colcount[k]++;
                mark[k] = i;
                k = parent[k];
            }
        }
        colcount[i]++; /* diagonal */
        Rp[i + 1] = rtotal;
    }
    /* column structure of L: column k lists rows in increasing order, diagonal first */
    long *Lp = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (int k = 0; k < n; k++) Lp[k + 1] = Lp[k] + colcount[k];
    long lnz = Lp[n];
    int *Li = wb_alloc(sizeof(int) * (size_t)lnz);
    double *Lx = wb_alloc(sizeof(double) * (size_t)lnz);
    {
        long *fill = wb_alloc(sizeof(long) * ((size_t)n + 1));
        memcpy(fill, Lp, sizeof(long) * ((size_t)n + 1));
        for (int i = 0; i < n; i++) {
            for (long p = Rp[i]; p < Rp[i + 1]; p++) Li[fill[Rj[p]]++] = i;
            Li[fill[i]++] = i;
        }
        wb_free(fill);
    }
    double *x = wb_alloc(sizeof(double) * n);
    long *next = wb_alloc(sizeof(long) * n);

    /* --- numeric factorization (timed) */
    double t0 = wb_now();
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < n; k++) next[k] = Lp[k];
        for (int j = 0; j < n; j++) {
            kernel_scatter(Ac.rowptr[j], Ac.rowptr[j + 1], Ac.col, Ac.val, x);
            /* left-looking: apply every column k < j with L(j,k) != 0, in row-pattern order */
            for (long q = Rp[j]; q < Rp[j + 1]; q++) {
                int k = Rj[q];
                long pj = next[k]; /* position of L(j,k) in column k */
                while (Li[pj] < j) pj++;
                next[k] = pj;
                kernel_cmod(pj, Lp[k + 1], Li, Lx, Lx[pj], x);
            }
            double djj = x[j];
            if (!(djj > 0.0)) wb_die("matrix is not positive definite (pivot %d = %g)", j, djj);
            double d = sqrt(djj);
            kernel_cdiv(Lp[j], Lp[j + 1], Li, d, x, Lx);
            Lx[Lp[j]] = d;
        }
    }
    double t1 = wb_now();

    /* --- verification: b = A*ones (symmetric product), solve L L^T y = b */
    double *bv = wb_alloc(sizeof(double) * n);
    for (int j = 0; j < n; j++)
        for (long p = Ac.rowptr[j]; p < Ac.rowptr[j + 1]; p++) {
            int i = Ac.col[p];
            bv[i] += Ac.val[p];
            if (i != j) bv[j] += Ac.val[p];
        }
    for (int j = 0; j < n; j++) { /* forward: L y = b (column oriented) */
        bv[j] /= Lx[Lp[j]];
        for (long p = Lp[j] + 1; p < Lp[j + 1]; p++) bv[Li[p]] -= Lx[p] * bv[j];
    }
    for (int j = n - 1; j >= 0; j--) { /* backward: L^T x = y */
        double s = bv[j];
        for (long p = Lp[j] + 1; p < Lp[j + 1]; p++) s -= Lx[p] * bv[Li[p]];
        bv[j] = s / Lx[Lp[j]];
    }
    double err = 0.0;
    for (int j = 0; j < n; j++)
        if (fabs(bv[j] - 1.0) > err) err = fabs(bv[j] - 1.0);

    printf("stun: rows %d nnz(A lower) %ld nnz(L) %ld repetitions %d\n", n, Ac.nnz, lnz, reps);
    wb_print_double("solve_max_error", err);
    wb_print_double("L[n-1,n-1]", Lx[lnz - 1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, Lx, lnz);
    size_t ws = (size_t)lnz * (sizeof(int) + sizeof(double)) + wb_csr_bytes(&Ac) + sizeof(double) * (size_t)n +
                sizeof(long) * 2 * (size_t)n + (size_t)Rp[n] * sizeof(int);
    wb_report("stun", desc, ws, reps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
