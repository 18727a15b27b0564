/*
 * equake.c - Equake-like benchmark: explicit time integration of elastic wave
 * propagation on an unstructured tetrahedral mesh, dominated by a sparse
 * matrix-vector product with 3x3 blocks (SMVP, as in CMU's Quake/Spark98 codes).
 * Irregular class (dissertation Table 4.1, "Equake"): the SMVP loop over nodes
 * gathers disp[col[j]] through the block-CSR index array.
 *
 * Inputs: --input FILE.pack (CMU Archimedes/Spark98 packfile, e.g. the San Fernando
 * sf10 mesh) or, by default, a generated box mesh of N^3 cubes split into 6 tetrahedra.
 * quick: the shared sf10.1.pack mesh (7,294 nodes); default N = 32.
 * --iters K: time steps; quick 2, default 20.
 * --dump-graph / --permute: the node graph (see weft_bench.h).
 *
 * The matrix is stored with both triangles (row i holds all blocks K(i,j)), so each
 * row's result is written only by its own iteration. Stiffness: every element edge
 * (a,b) acts as a spring with 3x3 block k*d*d^T/|d|^2 (d = x_b - x_a), giving a
 * Laplacian-like positive semidefinite K; lumped masses are element volumes / 4.
 *
 * --output: Spark98 check mode. Assembles K as Spark98's smv does (every block
 * entry = number of elements sharing the edge, diagonal blocks 0), sets v = 1,
 * computes w = K v with the same SMVP kernel and prints "node w[node][0]" lines
 * ("%d %.0f"), which must equal smv's -O output for the same packfile.
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

/* w = K v with 3x3 blocks: K block p is kval[9p..9p+8] at block column kcol[p]. */
WB_NOINLINE WB_PARALLEL void kernel_smvp(int nodes, const long *restrict rowptr, const int *restrict kcol,
                             const double *restrict kval, const double *restrict v,
                             double *restrict w) {
    for (int i = 0; i < nodes; i++) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (long p = rowptr[i]; p < rowptr[i + 1]; p++) {
            int c = kcol[p];
            double v0 = v[3 * c], v1 = v[3 * c + 1], v2 = v[3 * c + 2];
            s0 += kval[9 * p] * v0 + kval[9 * p + 1] * v1 + kval[9 * p + 2] * v2;
            s1 += kval[9 * p + 3] * v0 + kval[9 * p + 4] * v1 + kval[9 * p + 5] * v2;
            s2 += kval[9 * p + 6] * v0 + kval[9 * p + 7] * v1 + kval[9 * p + 8] * v2;
        }
        w[3 * i] = s0;
        w[3 * i + 1] = s1;
        w[3 * i + 2] = s2;
    }
}

/* central differences: u_new = 2u - u_old - dt^2 * (K u) / m */
WB_NOINLINE WB_PARALLEL void kernel_update(int nodes, const double *restrict u, const double *restrict u_old,
                               const double *restrict ku, const double *restrict inv_mass,
                               double dt2, double *restrict u_new) {
    for (int i = 0; i < nodes; i++)
        for (int d = 0; d < 3; d++)
            u_new[3 * i + d] = 2.0 * u[3 * i + d] - u_old[3 * i + d] - dt2 * ku[3 * i + d] * inv_mass[i];
}

WB_NOINLINE double kernel_energy(int n3, const double *restrict u) {
    double s = 0.0;
    for (int i = 0; i < n3; i++) s += u[i] * u[i];
    return s;
}

typedef struct {
    int nodes, elems;
    double *coord; /* nodes*3 */
    int *vertex;   /* elems*4 */
} mesh_t;

static void gen_box_mesh(int g, mesh_t *m) {
    int np = g + 1;
    m->nodes = np * np * np;
    m->elems = 6 * g * g * g;
    m->coord = wb_alloc(sizeof(double) * 3 * (size_t)m->nodes);
    m->vertex = wb_alloc(sizeof(int) * 4 * (size_t)m->elems);
    wb_lcg r;
    wb_lcg_seed(&r, 7);
    for (int z = 0; z < np; z++)
        for (int y = 0; y < np; y++)
            for (int x = 0; x < np; x++) {
                int id = (z * np + y) * np + x;
                /* small deterministic jitter of interior nodes, like a graded mesh */
                int interior = x > 0 && y > 0 && z > 0 && x < g && y < g && z < g;
                double j = interior ? 0.15 : 0.0;
                m->coord[3 * id] = x + j * (wb_lcg_double(&r) - 0.5);
                m->coord[3 * id + 1] = y + j * (wb_lcg_double(&r) - 0.5);
                m->coord[3 * id + 2] = z + j * (wb_lcg_double(&r) - 0.5);
            }
    /* Kuhn subdivision of each cube along the main diagonal 0-7 */
    static const int tets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                   {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
    long e = 0;
    for (int z = 0; z < g; z++)
        for (int y = 0; y < g; y++)
            for (int x = 0; x < g; x++) {
                int corner[8];
                for (int c = 0; c < 8; c++)
                    corner[c] = ((z + ((c >> 2) & 1)) * np + (y + ((c >> 1) & 1))) * np + (x + (c & 1));
                for (int t = 0; t < 6; t++, e++)
                    for (int k = 0; k < 4; k++) m->vertex[4 * e + k] = corner[tets[t][k]];
            }
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Block-CSR structure with both triangles and the diagonal, derived from elements. */
static void build_structure(const mesh_t *m, long **rowptr_out, int **col_out, long *nblocks) {
    int n = m->nodes;
    long *deg = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (long e = 0; e < m->elems; e++)
        for (int a = 0; a < 4; a++) deg[m->vertex[4 * e + a] + 1] += 4; /* upper bound */
    for (int i = 0; i < n; i++) deg[i + 1] += deg[i];
    int *tmp = wb_alloc(sizeof(int) * (size_t)deg[n]);
    long *fill = wb_alloc(sizeof(long) * ((size_t)n + 1));
    memcpy(fill, deg, sizeof(long) * ((size_t)n + 1));
    for (long e = 0; e < m->elems; e++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) tmp[fill[m->vertex[4 * e + a]]++] = m->vertex[4 * e + b];
    long *rowptr = wb_alloc(sizeof(long) * ((size_t)n + 1));
    long w = 0;
    for (int i = 0; i < n; i++) {
        qsort(tmp + deg[i], (size_t)(fill[i] - deg[i]), sizeof(int), cmp_int);
        long rs = w;
        for (long p = deg[i]; p < fill[i]; p++)
            if (w == rs || tmp[w - 1] != tmp[p]) tmp[w++] = tmp[p];
        rowptr[i + 1] = w;
    }
    int *col = wb_alloc(sizeof(int) * (size_t)(w ? w : 1));
    memcpy(col, tmp, sizeof(int) * (size_t)w);
    wb_free(tmp);
    wb_free(fill);
    wb_free(deg);
    *rowptr_out = rowptr;
    *col_out = col;
    *nblocks = w;
}

static long find_block(const long *rowptr, const int *col, int i, int j) {
    long lo = rowptr[i], hi = rowptr[i + 1] - 1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (col[mid] == j) return mid;
        if (col[mid] < j) lo = mid + 1;
        else hi = mid - 1;
    }
    wb_die("block (%d,%d) missing from the matrix structure", i, j);
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "Equake-like unstructured-mesh wave propagation (3x3 block SMVP)");
    int steps = wb_pick_iters(&a, 2, 20);
    const char *input = a.input;
    if (!input && (a.quick || a.output) && a.size == 0) input = WEFT_DATA_DIR "/spark98/sf10.1.pack";
    mesh_t m;
    char desc[512];
    long file_blocks = -1;
    if (input) {
        wb_pack p;
        char err[512];
        if (wb_read_pack(input, &p, err, sizeof err)) wb_die("%s", err);
        if (p.dim != 3 || p.corners != 4) wb_die("%s: need a 3-D tetrahedral mesh", input);
        m.nodes = p.nodes;
        m.elems = p.elems;
        m.coord = p.coord;
        m.vertex = p.vertex;
        /* file stores the upper triangle with the diagonal */
        long diag = 0;
        for (int i = 0; i < p.nodes; i++)
            for (long k = p.rowindex[i]; k < p.rowindex[i + 1]; k++) diag += p.matrixcol[k] == i;
        file_blocks = 2 * p.matrixlen - diag;
        wb_free(p.rowindex);
        wb_free(p.matrixcol);
        snprintf(desc, sizeof desc, "%s (%d nodes, %d tetrahedra)", input, m.nodes, m.elems);
    } else {
        int g = (int)wb_pick_size(&a, 8, 32);
        if (g < 1 || g > 600) wb_die("--size must be in 1..600");
        gen_box_mesh(g, &m);
        snprintf(desc, sizeof desc, "generated box mesh %d^3 cubes (%d nodes, %d tetrahedra)", g, m.nodes, m.elems);
    }
    int n = m.nodes;
    long *rowptr, nb;
    int *kcol;
    build_structure(&m, &rowptr, &kcol, &nb);
    /* GPART renumbering of the nodes (weft eval renumbers packfiles themselves; this
     * serves the generated mesh): move coordinates, map element corners, rebuild */
    wb_dump_graph_and_exit(&a, n, rowptr, kcol);
    int *perm = wb_load_perm(&a, n);
    if (perm) {
        wb_permute_doubles(m.coord, n, 3, perm);
        for (long k = 0; k < 4L * m.elems; k++) m.vertex[k] = perm[m.vertex[k]];
        wb_free(perm);
        wb_free(rowptr);
        wb_free(kcol);
        build_structure(&m, &rowptr, &kcol, &nb);
    }
    if (file_blocks >= 0 && file_blocks != nb)
        wb_die("packfile structure has %ld blocks but its elements imply %ld", file_blocks, nb);
    double *kval = wb_alloc(sizeof(double) * 9 * (size_t)nb);
    double *v = wb_alloc(sizeof(double) * 3 * (size_t)n), *w = wb_alloc(sizeof(double) * 3 * (size_t)n);

    if (a.output) {
        /* Spark98 check: K(a,b) += 1 (all nine entries) for every element edge a != b */
        for (long e = 0; e < m.elems; e++)
            for (int x = 0; x < 4; x++)
                for (int y = 0; y < 4; y++) {
                    int va = m.vertex[4 * e + x], vb = m.vertex[4 * e + y];
                    if (va == vb) continue;
                    long blk = find_block(rowptr, kcol, va, vb);
                    for (int q = 0; q < 9; q++) kval[9 * blk + q] += 1.0;
                }
        for (long i = 0; i < 3L * n; i++) v[i] = 1.0;
        kernel_smvp(n, rowptr, kcol, kval, v, w);
        for (int i = 0; i < n; i++) printf("%d %.0f\n", i + 1, w[3 * i]);
        wb_hash h;
        wb_hash_init(&h);
        wb_hash_doubles(&h, w, 3L * n);
        wb_report("equake", desc, sizeof(double) * 9 * (size_t)nb, 1, 0.0);
        wb_print_checksum(&h);
        return 0;
    }

    /* spring-network stiffness and lumped masses */
    double *mass = wb_alloc(sizeof(double) * n), *inv_mass = wb_alloc(sizeof(double) * n);
    for (long e = 0; e < m.elems; e++) {
        const int *vx = m.vertex + 4 * e;
        double *c0 = m.coord + 3 * vx[0];
        double d1[3], d2[3], d3[3];
        for (int q = 0; q < 3; q++) {
            d1[q] = m.coord[3 * vx[1] + q] - c0[q];
            d2[q] = m.coord[3 * vx[2] + q] - c0[q];
            d3[q] = m.coord[3 * vx[3] + q] - c0[q];
        }
        double vol = fabs(d1[0] * (d2[1] * d3[2] - d2[2] * d3[1]) - d1[1] * (d2[0] * d3[2] - d2[2] * d3[0]) +
                          d1[2] * (d2[0] * d3[1] - d2[1] * d3[0])) / 6.0;
        for (int x = 0; x < 4; x++) mass[vx[x]] += vol / 4.0;
        /* softer material near the top surface, like a sedimentary basin */
        double zc = (m.coord[3 * vx[0] + 2] + m.coord[3 * vx[1] + 2] + m.coord[3 * vx[2] + 2] + m.coord[3 * vx[3] + 2]) / 4.0;
        double k = 1.0 + 0.5 * sin(0.1 * zc);
        for (int x = 0; x < 4; x++)
            for (int y = x + 1; y < 4; y++) {
                int va = vx[x], vb = vx[y];
                double d[3], l2 = 0.0;
                for (int q = 0; q < 3; q++) {
                    d[q] = m.coord[3 * vb + q] - m.coord[3 * va + q];
                    l2 += d[q] * d[q];
                }
                if (l2 == 0.0) continue;
                long ab = find_block(rowptr, kcol, va, vb), ba = find_block(rowptr, kcol, vb, va);
                long aa = find_block(rowptr, kcol, va, va), bb = find_block(rowptr, kcol, vb, vb);
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++) {
                        double s = k * d[r] * d[c] / l2;
                        kval[9 * ab + 3 * r + c] -= s;
                        kval[9 * ba + 3 * r + c] -= s;
                        kval[9 * aa + 3 * r + c] += s;
                        kval[9 * bb + 3 * r + c] += s;
                    }
            }
    }
    /* stable step from a Gershgorin bound: dt^2 * max_i sum_j |K_ij| / m_i = 1 (< 4) */
    double bound = 0.0;
    for (int i = 0; i < n; i++) {
        if (mass[i] <= 0.0) wb_die("node %d belongs to no element of positive volume", i);
        inv_mass[i] = 1.0 / mass[i];
        for (int r = 0; r < 3; r++) {
            double s = 0.0;
            for (long p = rowptr[i]; p < rowptr[i + 1]; p++)
                for (int c = 0; c < 3; c++) s += fabs(kval[9 * p + 3 * r + c]);
            if (s * inv_mass[i] > bound) bound = s * inv_mass[i];
        }
    }
    double dt2 = 1.0 / bound;
    double *u = wb_alloc(sizeof(double) * 3 * (size_t)n), *u_old = wb_alloc(sizeof(double) * 3 * (size_t)n);
    double *u_new = wb_alloc(sizeof(double) * 3 * (size_t)n);
    /* initial condition: a displacement pulse around the node nearest the mesh centroid */
    double cen[3] = {0, 0, 0};
    for (int i = 0; i < n; i++)
        for (int q = 0; q < 3; q++) cen[q] += m.coord[3 * i + q] / n;
    int src = 0;
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        double d2 = 0.0;
        for (int q = 0; q < 3; q++) d2 += (m.coord[3 * i + q] - cen[q]) * (m.coord[3 * i + q] - cen[q]);
        if (d2 < best) {
            best = d2;
            src = i;
        }
    }
    u[3 * src + 2] = 1.0;
    u_old[3 * src + 2] = 1.0;

    double t0 = wb_now();
    for (int s = 0; s < steps; s++) {
        kernel_smvp(n, rowptr, kcol, kval, u, w);
        kernel_update(n, u, u_old, w, inv_mass, dt2, u_new);
        double *t = u_old;
        u_old = u;
        u = u_new;
        u_new = t;
    }
    double t1 = wb_now();

    printf("equake: nodes %d elements %d blocks %ld steps %d\n", n, m.elems, nb, steps);
    wb_print_double("dt2", dt2);
    wb_print_double("energy", kernel_energy(3 * n, u));
    wb_print_double("u[src].z", u[3 * src + 2]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, u, 3L * n);
    size_t ws = sizeof(double) * 9 * (size_t)nb + sizeof(int) * (size_t)nb + sizeof(long) * ((size_t)n + 1) +
                sizeof(double) * (size_t)n * 13;
    wb_report("equake", desc, ws, steps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
