/*
 * minife.c - miniFE-like benchmark: finite-element assembly of a steady heat
 * equation on a hexahedral mesh, followed by conjugate gradient on the assembled
 * sparse matrix. Irregular class (dissertation Table 4.1, "MiniFE"): the assembly
 * loop over elements scatters 8x8 element matrices into the CSR value array through
 * the index arrays elem_node (connectivity) and elem_pos (CSR slots), and CG's SpMV
 * gathers x[col[j]]. CG's dot products are parallel reductions (kernel_dot_parts, see
 * WB_REDUCE_PARTS), as in miniFE's OpenMP code.
 *
 * Elements are coloured by the parity of their (x,y,z) position, so elements of one
 * colour share no node; each colour's element loop is parallel and the assembled
 * values do not depend on iteration order. Element conductivities vary per element
 * (hash of the element id); A = K + I (a reaction term makes it SPD).
 *
 * --size N : N^3 hexahedral elements, (N+1)^3 nodes; quick 8, default 36
 * --iters K: CG iterations after the assembly; quick 20, default 50
 * --dump-graph / --permute: the node graph (see weft_bench.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

/* Adds conductivity-scaled reference element matrices of one colour into A. */
WB_NOINLINE WB_PARALLEL void kernel_assemble(long first, long last, const int *restrict elems,
                                 const int *restrict elem_node, const long *restrict elem_pos,
                                 const double *restrict cond, const double *restrict kref,
                                 const double *restrict fref, double *restrict val,
                                 double *restrict rhs) {
    for (long k = first; k < last; k++) {
        int e = elems[k];
        double c = cond[e];
        for (int a = 0; a < 8; a++) {
            rhs[elem_node[8 * e + a]] += fref[a];
            for (int b = 0; b < 8; b++) val[elem_pos[64L * e + 8 * a + b]] += c * kref[8 * a + b];
        }
    }
}

WB_NOINLINE WB_PARALLEL void kernel_add_diag(int n, const long *restrict diag_pos, double shift, double *restrict val) {
    for (int i = 0; i < n; i++) val[diag_pos[i]] += shift;
}

WB_NOINLINE WB_PARALLEL void kernel_zero(long n, double *restrict v) {
    for (long i = 0; i < n; i++) v[i] = 0.0;
}

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

WB_NOINLINE WB_PARALLEL void kernel_waxpby(int n, double alpha, const double *restrict x, double beta,
                               const double *restrict y, double *restrict w) {
    for (int i = 0; i < n; i++) w[i] = alpha * x[i] + beta * y[i];
}

/* Trilinear hexahedron (unit cube) Laplacian stiffness and unit-source load
 * vector by 2x2x2 Gauss quadrature. Local node a has offsets (a&1, a>>1&1, a>>2&1). */
static void reference_element(double *kref, double *fref) {
    double gp[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
    memset(kref, 0, sizeof(double) * 64);
    memset(fref, 0, sizeof(double) * 8);
    for (int qz = 0; qz < 2; qz++)
        for (int qy = 0; qy < 2; qy++)
            for (int qx = 0; qx < 2; qx++) {
                double p[3] = {gp[qx], gp[qy], gp[qz]}, grad[8][3], shape[8];
                for (int a = 0; a < 8; a++) {
                    int o[3] = {a & 1, (a >> 1) & 1, (a >> 2) & 1};
                    double f[3], df[3];
                    for (int d = 0; d < 3; d++) {
                        f[d] = o[d] ? p[d] : 1.0 - p[d];
                        df[d] = o[d] ? 1.0 : -1.0;
                    }
                    shape[a] = f[0] * f[1] * f[2];
                    grad[a][0] = df[0] * f[1] * f[2];
                    grad[a][1] = f[0] * df[1] * f[2];
                    grad[a][2] = f[0] * f[1] * df[2];
                }
                for (int a = 0; a < 8; a++) {
                    fref[a] += shape[a] * 0.125;
                    for (int b = 0; b < 8; b++)
                        kref[8 * a + b] += 0.125 * (grad[a][0] * grad[b][0] + grad[a][1] * grad[b][1] +
                                                    grad[a][2] * grad[b][2]);
                }
            }
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "miniFE-like hexahedral FE assembly + CG");
    int ne = (int)wb_pick_size(&a, 8, 36);
    int iters = wb_pick_iters(&a, 20, 50);
    if (ne < 1 || ne > 1000) wb_die("--size must be in 1..1000");
    int np = ne + 1;
    int n = np * np * np;
    long nelem = (long)ne * ne * ne;
    /* node graph = 27-point stencil on the node grid */
    wb_csr A;
    wb_gen_hpcg27(np, np, np, &A);
    /* GPART renumbering of the nodes: A's rows and columns and the connectivity
     * (elements keep their numbers and colours, so the assembled values are the
     * same numbers in new places) */
    wb_dump_graph_and_exit(&a, n, A.rowptr, A.col);
    int *perm = wb_load_perm(&a, n);
    if (perm) wb_csr_permute(&A, perm);
    int *elem_node = wb_alloc(sizeof(int) * 8 * (size_t)nelem);
    long *elem_pos = wb_alloc(sizeof(long) * 64 * (size_t)nelem);
    double *cond = wb_alloc(sizeof(double) * (size_t)nelem);
    long *diag_pos = wb_alloc(sizeof(long) * (size_t)n);
    for (int i = 0; i < n; i++)
        for (long p = A.rowptr[i]; p < A.rowptr[i + 1]; p++)
            if (A.col[p] == i) diag_pos[i] = p;
    int *elems = wb_alloc(sizeof(int) * (size_t)nelem);
    long cstart[9] = {0};
    for (int z = 0; z < ne; z++)
        for (int y = 0; y < ne; y++)
            for (int x = 0; x < ne; x++) {
                long e = ((long)z * ne + y) * ne + x;
                cstart[1 + ((x & 1) | (y & 1) << 1 | (z & 1) << 2)]++;
                cond[e] = 1.0 + wb_hash_unit((uint64_t)e, 12345);
                for (int c = 0; c < 8; c++) {
                    int v = ((z + ((c >> 2) & 1)) * np + (y + ((c >> 1) & 1))) * np + (x + (c & 1));
                    elem_node[8 * e + c] = perm ? perm[v] : v;
                }
                for (int r = 0; r < 8; r++) {
                    int row = elem_node[8 * e + r];
                    for (int c = 0; c < 8; c++) {
                        int colv = elem_node[8 * e + c];
                        long p = A.rowptr[row];
                        while (A.col[p] != colv) p++;
                        elem_pos[64 * e + 8 * r + c] = p;
                    }
                }
            }
    wb_free(perm);
    for (int c = 0; c < 8; c++) cstart[c + 1] += cstart[c];
    {
        long fill[8];
        memcpy(fill, cstart, sizeof fill);
        for (int z = 0; z < ne; z++)
            for (int y = 0; y < ne; y++)
                for (int x = 0; x < ne; x++)
                    elems[fill[(x & 1) | (y & 1) << 1 | (z & 1) << 2]++] = (int)(((long)z * ne + y) * ne + x);
    }
    double kref[64], fref[8];
    reference_element(kref, fref);
    double *b = wb_alloc(sizeof(double) * n), *x = wb_alloc(sizeof(double) * n);
    double *r = wb_alloc(sizeof(double) * n), *p = wb_alloc(sizeof(double) * n);
    double *Ap = wb_alloc(sizeof(double) * n);
    double *part = wb_alloc(sizeof(double) * WB_REDUCE_PARTS); /* partial sums of dot */

    double t0 = wb_now();
    kernel_zero(A.nnz, A.val);
    kernel_zero(n, b);
    for (int c = 0; c < 8; c++)
        kernel_assemble(cstart[c], cstart[c + 1], elems, elem_node, elem_pos, cond, kref, fref, A.val, b);
    kernel_add_diag(n, diag_pos, 1.0, A.val);
    /* CG from x = 0 */
    kernel_zero(n, x);
    kernel_waxpby(n, 1.0, b, 0.0, b, r);
    kernel_waxpby(n, 1.0, r, 0.0, r, p);
    double rr = dot(n, r, r, part);
    for (int it = 0; it < iters; it++) {
        kernel_spmv(n, A.rowptr, A.col, A.val, p, Ap);
        double alpha = rr / dot(n, p, Ap, part);
        kernel_waxpby(n, 1.0, x, alpha, p, x);
        kernel_waxpby(n, 1.0, r, -alpha, Ap, r);
        double rr_new = dot(n, r, r, part);
        kernel_waxpby(n, 1.0, r, rr_new / rr, p, p);
        rr = rr_new;
    }
    double t1 = wb_now();

    printf("minife: elements %ld nodes %d nnz %ld cg_iterations %d\n", nelem, n, A.nnz, iters);
    wb_print_double("residual_norm2", rr);
    wb_print_double("x[n/2]", x[n / 2]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, A.val, A.nnz);
    wb_hash_doubles(&h, x, n);
    char desc[128];
    snprintf(desc, sizeof desc, "generated hexahedral mesh %d^3 elements", ne);
    size_t ws = wb_csr_bytes(&A) + (size_t)nelem * (8 * sizeof(int) + 64 * sizeof(long) + sizeof(double) + sizeof(int)) +
                sizeof(double) * 5 * (size_t)n + sizeof(long) * (size_t)n;
    wb_report("minife", desc, ws, iters, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
