/*
 * gauss_seidel.c - GS-Solver-like benchmark: multicolour Gauss-Seidel sweeps for
 * A x = b. A greedy graph colouring of the matrix graph (setup) makes the rows of one
 * colour independent, so each colour's row loop is parallel and its result does not
 * depend on iteration order. Irregular class (dissertation Table 4.1, "GS-Solver"):
 * rows are visited through the colour's row list (rows[k]) and x is gathered through
 * the column index array.
 *
 * Inputs: --input FILE.graph (METIS mesh graph -> A = graph Laplacian + I),
 * --input FILE.mtx (Matrix Market; must have a nonzero diagonal), or by default a
 * generated HPCG 27-point stencil on an N^3 grid.
 * quick: METIS 4elt.graph from the shared data set (15,606 vertices); default N = 50.
 * --iters K: sweeps; quick 4, default 20. b = A * ones.
 * --dump-graph / --permute: the matrix graph (see weft_bench.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

/* Folder of the plain input files. The harness passes -DWEFT_DATA_DIR=<folder> (the
 * shipped data/ unpacked into target/weft-data, or $WEFT_DATA_DIR); this default finds
 * that folder when the program runs from the repository root. */
#ifndef WEFT_DATA_DIR
#define WEFT_DATA_DIR "target/weft-data"
#endif

/* One colour of a Gauss-Seidel sweep; off-diagonal part of A in (rowptr, col, val). */
WB_NOINLINE WB_PARALLEL void kernel_gs_color(long first, long last, const int *restrict rows,
                                 const long *restrict rowptr, const int *restrict col,
                                 const double *restrict val, const double *restrict inv_diag,
                                 const double *restrict b, double *restrict x) {
    for (long k = first; k < last; k++) {
        int i = rows[k];
        double s = b[i];
        for (long j = rowptr[i]; j < rowptr[i + 1]; j++) s -= val[j] * x[col[j]];
        x[i] = s * inv_diag[i];
    }
}

/* r = b - (D + offdiag) x */
WB_NOINLINE WB_PARALLEL void kernel_residual(int n, const long *restrict rowptr, const int *restrict col,
                                 const double *restrict val, const double *restrict diag,
                                 const double *restrict b, const double *restrict x,
                                 double *restrict r) {
    for (int i = 0; i < n; i++) {
        double s = b[i] - diag[i] * x[i];
        for (long j = rowptr[i]; j < rowptr[i + 1]; j++) s -= val[j] * x[col[j]];
        r[i] = s;
    }
}

WB_NOINLINE double kernel_dot(int n, const double *restrict a, const double *restrict b) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* Splits a square CSR matrix into diagonal + off-diagonal parts (in place for off). */
static void split_diag(wb_csr *A, double *diag) {
    long w = 0, start = 0;
    for (int i = 0; i < A->nrows; i++) {
        long end = A->rowptr[i + 1];
        diag[i] = 0.0;
        for (long p = start; p < end; p++) {
            if (A->col[p] == i) diag[i] += A->val[p];
            else {
                A->col[w] = A->col[p];
                A->val[w] = A->val[p];
                w++;
            }
        }
        start = end;
        A->rowptr[i + 1] = w;
    }
    A->nnz = w;
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "multicolour Gauss-Seidel sweeps on a sparse matrix");
    int sweeps = wb_pick_iters(&a, 4, 20);
    const char *input = a.input;
    if (!input && a.quick && a.size == 0) input = WEFT_DATA_DIR "/metis/4elt.graph";
    wb_csr A;
    char desc[512], err[512];
    size_t len = input ? strlen(input) : 0;
    if (input && len > 6 && !strcmp(input + len - 6, ".graph")) {
        wb_graph g;
        long fe;
        if (wb_read_metis(input, &g, &fe, err, sizeof err)) wb_die("%s", err);
        /* A = L + I with L the graph Laplacian: diag = degree + 1, off-diagonal -1 */
        A.nrows = A.ncols = g.n;
        A.rowptr = wb_alloc(sizeof(long) * ((size_t)g.n + 1));
        A.col = wb_alloc(sizeof(int) * (size_t)(g.m + g.n));
        A.val = wb_alloc(sizeof(double) * (size_t)(g.m + g.n));
        long k = 0;
        for (int i = 0; i < g.n; i++) {
            A.col[k] = i;
            A.val[k++] = (double)(g.rowptr[i + 1] - g.rowptr[i]) + 1.0;
            for (long p = g.rowptr[i]; p < g.rowptr[i + 1]; p++) {
                A.col[k] = g.adj[p];
                A.val[k++] = -1.0;
            }
            A.rowptr[i + 1] = k;
        }
        A.nnz = k;
        wb_graph_free(&g);
        snprintf(desc, sizeof desc, "%s (METIS graph Laplacian + I, %d rows)", input, A.nrows);
    } else if (input) {
        wb_coo coo;
        if (wb_read_mm(input, 1, &coo, err, sizeof err)) wb_die("%s", err);
        if (coo.nrows != coo.ncols) wb_die("%s: matrix is not square", input);
        wb_coo_to_csr(&coo, &A);
        wb_coo_free(&coo);
        snprintf(desc, sizeof desc, "%s (%d rows, %ld nonzeros)", input, A.nrows, A.nnz);
    } else {
        int g = (int)wb_pick_size(&a, 16, 50);
        wb_gen_hpcg27(g, g, g, &A);
        snprintf(desc, sizeof desc, "generated 27-point stencil, %d^3 grid", g);
    }
    int n = A.nrows;
    /* GPART renumbering: rows and columns together (b = A * ones follows; the greedy
     * colouring runs on the new numbering, so colours may change) */
    wb_dump_graph_and_exit(&a, n, A.rowptr, A.col);
    int *perm = wb_load_perm(&a, n);
    if (perm) {
        wb_csr_permute(&A, perm);
        wb_free(perm);
    }
    double *diag = wb_alloc(sizeof(double) * n), *inv_diag = wb_alloc(sizeof(double) * n);
    double *x = wb_alloc(sizeof(double) * n), *b = wb_alloc(sizeof(double) * n);
    double *r = wb_alloc(sizeof(double) * n);
    long total_nnz = A.nnz;
    split_diag(&A, diag);
    for (int i = 0; i < n; i++) {
        if (diag[i] == 0.0) wb_die("row %d has a zero diagonal", i);
        inv_diag[i] = 1.0 / diag[i];
        x[i] = 1.0;
    }
    kernel_residual(n, A.rowptr, A.col, A.val, diag, r, x, b); /* b = -(A*1) with r = 0 */
    for (int i = 0; i < n; i++) {
        b[i] = -b[i];
        x[i] = 0.0;
    }
    /* greedy colouring (rows in natural order, smallest colour not used by a neighbour;
     * for unsymmetric patterns both directions count via the forbidden mark) */
    int *color = wb_alloc(sizeof(int) * n), *mark = wb_alloc(sizeof(int) * (n + 1));
    int ncolors = 0;
    for (int i = 0; i < n; i++) color[i] = -1;
    for (int i = 0; i < n; i++) mark[i] = -1;
    /* transpose pattern so that colour constraints are symmetric */
    long *tptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    int *tcol = wb_alloc(sizeof(int) * (size_t)(A.nnz ? A.nnz : 1));
    for (long p = 0; p < A.nnz; p++) tptr[A.col[p] + 1]++;
    for (int i = 0; i < n; i++) tptr[i + 1] += tptr[i];
    {
        long *fill = wb_alloc(sizeof(long) * ((size_t)n + 1));
        memcpy(fill, tptr, sizeof(long) * ((size_t)n + 1));
        for (int i = 0; i < n; i++)
            for (long p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) tcol[fill[A.col[p]]++] = i;
        wb_free(fill);
    }
    for (int i = 0; i < n; i++) {
        for (long p = A.rowptr[i]; p < A.rowptr[i + 1]; p++)
            if (color[A.col[p]] >= 0) mark[color[A.col[p]]] = i;
        for (long p = tptr[i]; p < tptr[i + 1]; p++)
            if (color[tcol[p]] >= 0) mark[color[tcol[p]]] = i;
        int c = 0;
        while (mark[c] == i) c++;
        color[i] = c;
        if (c + 1 > ncolors) ncolors = c + 1;
    }
    wb_free(tptr);
    wb_free(tcol);
    long *cstart = wb_alloc(sizeof(long) * (ncolors + 1));
    int *rows = wb_alloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) cstart[color[i] + 1]++;
    for (int c = 0; c < ncolors; c++) cstart[c + 1] += cstart[c];
    {
        long *fill = wb_alloc(sizeof(long) * (ncolors + 1));
        memcpy(fill, cstart, sizeof(long) * (ncolors + 1));
        for (int i = 0; i < n; i++) rows[fill[color[i]]++] = i;
        wb_free(fill);
    }

    double t0 = wb_now();
    for (int s = 0; s < sweeps; s++)
        for (int c = 0; c < ncolors; c++)
            kernel_gs_color(cstart[c], cstart[c + 1], rows, A.rowptr, A.col, A.val, inv_diag, b, x);
    double t1 = wb_now();

    kernel_residual(n, A.rowptr, A.col, A.val, diag, b, x, r);
    double rr = kernel_dot(n, r, r);
    printf("gauss_seidel: rows %d nnz %ld colours %d sweeps %d\n", n, total_nnz, ncolors, sweeps);
    wb_print_double("residual_norm2", rr);
    wb_print_double("x[0]", x[0]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, x, n);
    size_t ws = wb_csr_bytes(&A) + sizeof(double) * 4 * (size_t)n + sizeof(int) * (size_t)n;
    wb_report("gauss_seidel", desc, ws, sweeps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
