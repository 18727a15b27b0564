/*
 * moldyn.c - Moldyn-like molecular dynamics: Lennard-Jones particles in a periodic
 * box, forces computed from per-particle neighbour lists (CSR: nbr_start/nbr),
 * velocity-Verlet style integration. Irregular class (dissertation Table 4.1,
 * "Moldyn"): the force loop over particles gathers pos[nbr[j]] through the index
 * array. Particles are numbered in a random order (as in an unsorted input deck),
 * so neighbour accesses are scattered over memory.
 *
 * --size S : particles on an S^3 simple-cubic lattice (S^3 particles); quick 12, default 48
 * --iters K: time steps; quick 3, default 10
 * The neighbour list (cutoff 2.5 + skin 0.3) is built once before the timed steps.
 * --dump-graph / --permute: the neighbour graph (see weft_bench.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "weft_bench.h"

#define CUTOFF 2.5
#define SKIN 0.3

/* f[i] = sum over neighbours j of the LJ force of j on i (full list: every pair is
 * visited from both sides, so each particle writes only its own force). */
WB_NOINLINE WB_PARALLEL void kernel_forces(int n, const long *restrict nbr_start, const int *restrict nbr,
                               const double *restrict pos, double *restrict force, double box) {
    double half = 0.5 * box;
    for (int i = 0; i < n; i++) {
        double xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        double fx = 0.0, fy = 0.0, fz = 0.0;
        for (long k = nbr_start[i]; k < nbr_start[i + 1]; k++) {
            int j = nbr[k];
            double dx = xi - pos[3 * j], dy = yi - pos[3 * j + 1], dz = zi - pos[3 * j + 2];
            /* minimum image (|d| < box by construction) */
            if (dx > half) dx -= box;
            if (dx < -half) dx += box;
            if (dy > half) dy -= box;
            if (dy < -half) dy += box;
            if (dz > half) dz -= box;
            if (dz < -half) dz += box;
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < CUTOFF * CUTOFF) {
                double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
                double s = 24.0 * ir2 * ir6 * (2.0 * ir6 - 1.0);
                fx += s * dx;
                fy += s * dy;
                fz += s * dz;
            }
        }
        force[3 * i] = fx;
        force[3 * i + 1] = fy;
        force[3 * i + 2] = fz;
    }
}

/* v += f*dt; x += v*dt, wrapped into the box. */
WB_NOINLINE WB_PARALLEL void kernel_integrate(int n, double *restrict pos, double *restrict vel,
                                  const double *restrict force, double dt, double box) {
    for (int i = 0; i < 3 * n; i++) {
        vel[i] = vel[i] + force[i] * dt;
        double x = pos[i] + vel[i] * dt;
        if (x >= box) x -= box;
        if (x < 0.0) x += box;
        pos[i] = x;
    }
}

WB_NOINLINE double kernel_kinetic(int n, const double *restrict vel) {
    double s = 0.0;
    for (int i = 0; i < 3 * n; i++) s += vel[i] * vel[i];
    return 0.5 * s;
}

/* Cell-list construction of the full neighbour list (setup, not timed). */
static void build_neighbours(int n, const double *pos, double box, long **start_out, int **nbr_out,
                             long *total_out) {
    double rc = CUTOFF + SKIN;
    int nc = (int)floor(box / rc);
    if (nc < 3) nc = 3;
    double cw = box / nc;
    int ncell = nc * nc * nc;
    int *head = wb_alloc(sizeof(int) * (size_t)ncell), *next = wb_alloc(sizeof(int) * (size_t)n);
    for (int c = 0; c < ncell; c++) head[c] = -1;
    int *cellof = wb_alloc(sizeof(int) * (size_t)n);
    for (int i = n - 1; i >= 0; i--) {
        int cx = (int)(pos[3 * i] / cw) % nc, cy = (int)(pos[3 * i + 1] / cw) % nc,
            cz = (int)(pos[3 * i + 2] / cw) % nc;
        int c = (cz * nc + cy) * nc + cx;
        cellof[i] = c;
        next[i] = head[c];
        head[c] = i;
    }
    long cap = (long)n * 64, total = 0;
    int *nbr = wb_alloc(sizeof(int) * (size_t)cap);
    long *start = wb_alloc(sizeof(long) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
        int c = cellof[i], cx = c % nc, cy = (c / nc) % nc, cz = c / (nc * nc);
        long row0 = total;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int d = (((cz + dz + nc) % nc) * nc + (cy + dy + nc) % nc) * nc + (cx + dx + nc) % nc;
                    for (int j = head[d]; j >= 0; j = next[j]) {
                        if (j == i) continue;
                        double ddx = pos[3 * i] - pos[3 * j], ddy = pos[3 * i + 1] - pos[3 * j + 1],
                               ddz = pos[3 * i + 2] - pos[3 * j + 2];
                        ddx -= box * floor(ddx / box + 0.5);
                        ddy -= box * floor(ddy / box + 0.5);
                        ddz -= box * floor(ddz / box + 0.5);
                        if (ddx * ddx + ddy * ddy + ddz * ddz < rc * rc) {
                            if (total >= cap) {
                                cap *= 2;
                                nbr = wb_realloc(nbr, sizeof(int) * (size_t)cap);
                                if (!nbr) wb_die("out of memory");
                            }
                            nbr[total++] = j;
                        }
                    }
                }
        /* sort the row so the list does not depend on cell traversal details */
        for (long p = row0 + 1; p < total; p++) {
            int v = nbr[p];
            long q = p - 1;
            while (q >= row0 && nbr[q] > v) {
                nbr[q + 1] = nbr[q];
                q--;
            }
            nbr[q + 1] = v;
        }
        start[i + 1] = total;
    }
    wb_free(head);
    wb_free(next);
    wb_free(cellof);
    *start_out = start;
    *nbr_out = nbr;
    *total_out = total;
}

int main(int argc, char **argv) {
    wb_args a;
    wb_parse_args(argc, argv, &a, "Moldyn-like Lennard-Jones MD with neighbour lists");
    int s = (int)wb_pick_size(&a, 12, 48);
    int steps = wb_pick_iters(&a, 3, 10);
    if (s < 4 || s > 1000) wb_die("--size must be in 4..1000");
    int n = s * s * s;
    double spacing = cbrt(1.0 / 0.8); /* reduced density 0.8 */
    double box = s * spacing;
    wb_lcg g;
    wb_lcg_seed(&g, a.seed);
    int *perm = wb_alloc(sizeof(int) * (size_t)n);
    wb_random_perm(perm, n, &g);
    double *pos = wb_alloc(sizeof(double) * 3 * (size_t)n);
    double *vel = wb_alloc(sizeof(double) * 3 * (size_t)n);
    double *force = wb_alloc(sizeof(double) * 3 * (size_t)n);
    for (int z = 0; z < s; z++)
        for (int y = 0; y < s; y++)
            for (int x = 0; x < s; x++) {
                int id = perm[(z * s + y) * s + x];
                pos[3 * id] = (x + 0.5 + 0.1 * (wb_lcg_double(&g) - 0.5)) * spacing;
                pos[3 * id + 1] = (y + 0.5 + 0.1 * (wb_lcg_double(&g) - 0.5)) * spacing;
                pos[3 * id + 2] = (z + 0.5 + 0.1 * (wb_lcg_double(&g) - 0.5)) * spacing;
                for (int d = 0; d < 3; d++) vel[3 * id + d] = wb_lcg_double(&g) - 0.5;
            }
    long *nbr_start, total;
    int *nbr;
    build_neighbours(n, pos, box, &nbr_start, &nbr, &total);
    /* GPART renumbering of the particles: move positions and velocities, then
     * rebuild the lists (the same pairs under the new numbers, rows sorted) */
    wb_dump_graph_and_exit(&a, n, nbr_start, nbr);
    int *pperm = wb_load_perm(&a, n);
    if (pperm) {
        wb_permute_doubles(pos, n, 3, pperm);
        wb_permute_doubles(vel, n, 3, pperm);
        wb_free(pperm);
        wb_free(nbr_start);
        wb_free(nbr);
        build_neighbours(n, pos, box, &nbr_start, &nbr, &total);
    }
    double dt = 0.001;

    double t0 = wb_now();
    double ekin = 0.0;
    for (int it = 0; it < steps; it++) {
        kernel_forces(n, nbr_start, nbr, pos, force, box);
        kernel_integrate(n, pos, vel, force, dt, box);
        ekin = kernel_kinetic(n, vel);
    }
    double t1 = wb_now();

    printf("moldyn: particles %d neighbour entries %ld steps %d\n", n, total, steps);
    wb_print_double("kinetic_energy", ekin);
    wb_print_double("pos[0]", pos[0]);
    wb_hash h;
    wb_hash_init(&h);
    wb_hash_doubles(&h, pos, 3L * n);
    wb_hash_doubles(&h, vel, 3L * n);
    char desc[128];
    snprintf(desc, sizeof desc, "generated LJ lattice %d^3 particles, density 0.8, random numbering", s);
    size_t ws = sizeof(double) * 9 * (size_t)n + sizeof(long) * ((size_t)n + 1) + sizeof(int) * (size_t)total;
    wb_report("moldyn", desc, ws, steps, t1 - t0);
    wb_print_checksum(&h);
    return 0;
}
