/*
 * gmres.c - GMR-like benchmark: restarted GMRES(m) with modified Gram-Schmidt
 * Arnoldi on a nonsymmetric sparse matrix. Irregular class (dissertation Table 4.1,
 * "GMR"): the SpMV gathers x[col[j]] through the CSR index array. The Arnoldi dot
 * products and norms are parallel reductions (kernel_dot_parts, see WB_REDUCE_PARTS).
 *
 * Input: --input FILE.mtx (Matrix Market, general or symmetric) or, by default, a
 * generated 3-D convection-diffusion operator (7-point, upwind convection, so the
 * matrix is nonsymmetric) on an N^3 grid.
 * --size N : grid edge; quick 12, default 50
 * --iters K: restart cycles; quick 2, default 3. Restart length m = 10 (quick) or 30.
 * The right-hand side is b = A * ones.
 * --dump-graph / --permute: the matrix graph (see weft_bench.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

WB_NOINLINE WB_PARALLEL void kernel_spmv(int n, const long *restrict rowptr, const int *restrict col,
                             const double *restrict val, const double *restrict x,
                             double *restrict y) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = rowptr[i]; j < rowptr[i + 1]; j++) s += val[j] * x[col[j]];
        y[i] = s;
    }
}

/* part[p] = the dot product of a and b over part p of [0, n) (see WB_REDUCE_PARTS) */
WB_NOINLINE WB_PARALLEL void kernel_dot_parts(int n, const double *restrict a, const double *restrict b,
                                  double *restrict part) {
    for (int p = 0; p < WB_REDUCE_PARTS; p++) {
        int lo = WB_PART_LO(n, p), hi = WB_PART_LO(n, p + 1);
        double s = 0.0;
        for (int i = lo; i < hi; i++) s += a[i] * b[i];
        part[p] = s;
    }
}

/* Parallel dot product: partial sums per part, added in part order. */
static double dot(int n, const double *a, const double *b, double *part) {
    kernel_dot_parts(n, a, b, part);
    return wb_sum_parts(part);
}

/* y += alpha * x */
WB_NOINLINE WB_PARALLEL void kernel_axpy(int n, double alpha, const double *restrict x, double *restrict y) {
    for (int i = 0; i < n; i++) y[i] = y[i] + alpha * x[i];
}

/* y = alpha * x */
WB_NOINLINE WB_PARALLEL void kernel_scale(int n, double alpha, const double *restrict x, double *restrict y) {
    for (int i = 0; i < n; i++) y[i] = alpha * x[i];
}

/* r = b - r (r holds A*x on entry) */
WB_NOINLINE WB_PARALLEL void kernel_residual(int n, const double *restrict b, double *restrict r) {
    for (int i = 0; i < n; i++) r[i] = b[i] - r[i];
}

static void gen_convdiff(int g, wb_csr *A) {
    long n = (long)g * g * g;
    A->nrows = A->ncols = (int)n;
    A->rowptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    A->col = wb_alloc(sizeof(int) * (size_t)n * 7);
    A->val = wb_alloc(sizeof(double) * (size_t)n * 7);
    const double conv[3] = {0.4, 0.25, 0.1}; /* upwind convection per direction */
    long k = 0;
    for (int z = 0; z < g; z++)
        for (int y = 0; y < g; y++)
            for (int x = 0; x < g; x++) {
                long row = ((long)z * g + y) * g + x;
                int c[3] = {x, y, z};
                long stride[3] = {1, g, (long)g * g};
                /* columns in increasing order: -z, -y, -x, diag, +x, +y, +z */
                for (int d = 2; d >= 0; d--)
                    if (c[d] > 0) {
                        A->col[k] = (int)(row - stride[d]);
                        A->val[k++] = -1.0 - conv[d];
                    }
                A->col[k] = (int)row;
                A->val[k++] = 6.0 + conv[0] + conv[1] + conv[2];
                for (int d = 0; d < 3; d++)
                    if (c[d] < g - 1) {
                        A->col[k] = (int)(row + stride[d]);
                        A->val[k++] = -1.0;
                    }
                A->rowptr[row + 1] = k;
            }
    A->nnz = k;
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "GMRES(m) with restarts on a nonsymmetric sparse matrix");
    int cycles = wb_pick_iters(&a, 2, 3);
    int m = a.quick ? 10 : 30;
    wb_csr A;
    char desc[512];
    if (a.input) {
        wb_coo coo;
        char err[512];
        if (wb_read_mm(a.input, 1, &coo, err, sizeof err)) wb_die("%s", err);
        if (coo.nrows != coo.ncols) wb_die("%s: matrix is not square", a.input);
        wb_coo_to_csr(&coo, &A);
        wb_coo_free(&coo);
        snprintf(desc, sizeof desc, "%s (%d rows, %ld nonzeros)", a.input, A.nrows, A.nnz);
    } else {
        int g = (int)wb_pick_size(&a, 12, 50);
        gen_convdiff(g, &A);
        snprintf(desc, sizeof desc, "generated 3-D convection-diffusion 7-point, %d^3 grid", g);
    }
    int n = A.nrows;
    /* GPART renumbering: rows and columns together; b = A * ones follows */
    wb_dump_graph_and_exit(&a, n, A.rowptr, A.col);
    int *perm = wb_load_perm(&a, n);
    if (perm) {
        wb_csr_permute(&A, perm);
        wb_free(perm);
    }
    double *V = wb_alloc(sizeof(double) * (size_t)n * (size_t)(m + 1));
    double *x = wb_alloc(sizeof(double) * n), *b = wb_alloc(sizeof(double) * n);
    double *w = wb_alloc(sizeof(double) * n);
    double *H = wb_alloc(sizeof(double) * (size_t)(m + 1) * m);
    double *cs = wb_alloc(sizeof(double) * m), *sn = wb_alloc(sizeof(double) * m);
    double *gv = wb_alloc(sizeof(double) * (m + 1)), *yv = wb_alloc(sizeof(double) * m);
    double *part = wb_alloc(sizeof(double) * WB_REDUCE_PARTS); /* partial sums of dot */
    for (int i = 0; i < n; i++) w[i] = 1.0;
    kernel_spmv(n, A.rowptr, A.col, A.val, w, b);

    double t0 = wb_now();
    double resid = 0.0;
    for (int i = 0; i < n; i++) x[i] = 0.0;
    for (int cyc = 0; cyc < cycles; cyc++) {
        kernel_spmv(n, A.rowptr, A.col, A.val, x, w);
        kernel_residual(n, b, w);
        double beta = sqrt(dot(n, w, w, part));
        if (beta == 0.0) break;
        kernel_scale(n, 1.0 / beta, w, V);
        memset(gv, 0, sizeof(double) * (m + 1));
        gv[0] = beta;
        int k;
        for (k = 0; k < m; k++) {
            double *vk = V + (size_t)k * n, *vk1 = V + (size_t)(k + 1) * n;
            kernel_spmv(n, A.rowptr, A.col, A.val, vk, w);
            for (int j = 0; j <= k; j++) {
                double hjk = dot(n, w, V + (size_t)j * n, part);
                H[j * m + k] = hjk;
                kernel_axpy(n, -hjk, V + (size_t)j * n, w);
            }
            double hn = sqrt(dot(n, w, w, part));
            H[(k + 1) * m + k] = hn;
            kernel_scale(n, hn != 0.0 ? 1.0 / hn : 0.0, w, vk1);
            /* apply previous Givens rotations, then a new one (serial, O(m)) */
            for (int j = 0; j < k; j++) {
                double t = cs[j] * H[j * m + k] + sn[j] * H[(j + 1) * m + k];
                H[(j + 1) * m + k] = -sn[j] * H[j * m + k] + cs[j] * H[(j + 1) * m + k];
                H[j * m + k] = t;
            }
            double hk = H[k * m + k], hk1 = H[(k + 1) * m + k];
            double r = sqrt(hk * hk + hk1 * hk1);
            cs[k] = r != 0.0 ? hk / r : 1.0;
            sn[k] = r != 0.0 ? hk1 / r : 0.0;
            H[k * m + k] = r;
            H[(k + 1) * m + k] = 0.0;
            gv[k + 1] = -sn[k] * gv[k];
            gv[k] = cs[k] * gv[k];
            resid = fabs(gv[k + 1]);
            if (hn == 0.0) {
                k++;
                break;
            }
        }
        /* back substitution H y = g, then x += V y */
        for (int i = k - 1; i >= 0; i--) {
            double s = gv[i];
            for (int j = i + 1; j < k; j++) s -= H[i * m + j] * yv[j];
            yv[i] = s / H[i * m + i];
        }
        for (int j = 0; j < k; j++) kernel_axpy(n, yv[j], V + (size_t)j * n, x);
    }
    double t1 = wb_now();

    printf("gmres: rows %d nnz %ld restart %d cycles %d\n", n, A.nnz, m, cycles);
    wb_print_double("estimated_residual", resid);
    wb_print_double("x[0]", x[0]);
    wb_print_double("x[n-1]", x[n - 1]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, x, n);
    size_t ws = wb_csr_bytes(&A) + sizeof(double) * (size_t)n * (size_t)(m + 4);
    wb_report("gmres", desc, ws, cycles, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
