/*
 * loadcheck.c - prints what the weft_bench loaders read from a data file, so the
 * test suite can compare it with the sizes documented in data/README.md.
 *
 * usage: loadcheck mm|metis|edges|pack PATH [base]
 * output (one line, key=value): see each case below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_bench.h"

int main(int argc, char **argv) {
    char err[512];
    if (argc < 3) {
        fprintf(stderr, "usage: loadcheck mm|metis|edges|pack PATH [base]\n");
        return 2;
    }
    const char *kind = argv[1], *path = argv[2];
    if (!strcmp(kind, "mm")) {
        wb_coo m;
        if (wb_read_mm(path, 1, &m, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        wb_csr a;
        wb_coo_to_csr(&m, &a);
        long diag = 0;
        for (int i = 0; i < a.nrows; i++)
            for (long p = a.rowptr[i]; p < a.rowptr[i + 1]; p++)
                if (a.col[p] == i) diag++;
        printf("rows=%d cols=%d stored=%ld symmetric=%d pattern=%d expanded=%ld csr_nnz=%ld diag=%ld\n",
               m.nrows, m.ncols, m.stored, m.symmetric, m.pattern, m.nnz, a.nnz, diag);
        wb_coo_free(&m);
        wb_csr_free(&a);
    } else if (!strcmp(kind, "metis")) {
        wb_graph g;
        long fe;
        if (wb_read_metis(path, &g, &fe, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        printf("vertices=%d edges=%ld adjacency=%ld\n", g.n, fe, g.m);
        wb_graph_free(&g);
    } else if (!strcmp(kind, "edges")) {
        int base = argc > 3 ? atoi(argv[3]) : -1, used;
        long lines;
        wb_graph g;
        if (wb_read_edges(path, base, 1, &g, &lines, &used, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        long with_edges = 0;
        for (int i = 0; i < g.n; i++)
            if (g.rowptr[i + 1] > g.rowptr[i]) with_edges++;
        printf("ids=%d lines=%ld base=%d undirected=%ld with_edges=%ld\n", g.n, lines, used, g.m / 2,
               with_edges);
        wb_graph_free(&g);
    } else if (!strcmp(kind, "pack")) {
        wb_pack p;
        if (wb_read_pack(path, &p, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        long diag = 0;
        for (int i = 0; i < p.nodes; i++)
            for (long k = p.rowindex[i]; k < p.rowindex[i + 1]; k++)
                if (p.matrixcol[k] == i) diag++;
        printf("nodes=%d elems=%d corners=%d blocks=%ld diag=%ld both_triangles=%ld\n", p.nodes,
               p.elems, p.corners, p.matrixlen, diag, 2 * p.matrixlen - diag);
        wb_pack_free(&p);
    } else {
        fprintf(stderr, "unknown kind %s\n", kind);
        return 2;
    }
    return 0;
}
